# The database going away and coming back: 503 problems (never 401 or 404)
# while it is down, and recovery without an httpd restart, including the
# prepared statements that a PostgreSQL restart loses.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my ($secret) = signup();
is api(GET => '/v1/me', token => $secret)->code, 200, 'works before';

# Restart under the pooled connections: every request after it succeeds.
# (The background workers may meet the database while it restarts.)
my @codes;
expect_log([outage_lines()], sub {
    pg_ctl('restart');
    for (1..12) {
        push @codes, api(GET => '/v1/me', token => $secret)->code;
        push @codes, api(GET => '/v1/keys', token => $secret)->code;
    }
});
is_deeply [ grep { $_ != 200 } @codes ], [], 'every request after a restart succeeds (statements prepared again)';
my $r = api(POST => '/v1/signup', body => { email => uniq_email() });
is $r->code, 201, 'writes work after a restart';

# Down: 503 with Retry-After, for authenticated and public routes alike.
# Expected in the log meanwhile: the outage, and the 503s of these requests.
expect_log([outage_lines(), qr{FS00102: 503 service-unavailable for /api/(v1/me|v1/signup|readyz)$}], sub {
    pg_ctl('stop');
    $r = api(GET => '/v1/me', token => $secret);
    is $r->code, 503, 'authenticated request with the database down: 503, not 401';
    is $r->{json}{type}, base_url() . '/problems/service-unavailable', 'service-unavailable problem';
    ok $r->header('Retry-After'), 'Retry-After header';
    is $r->{json}{retryAfter}, $r->header('Retry-After'), 'retryAfter equals Retry-After';
    $r = api(POST => '/v1/signup', body => { email => uniq_email() });
    is $r->code, 503, 'signup with the database down: 503';
    $r = api(GET => '/readyz');
    is $r->code, 503, 'readyz 503 while down';
    $r = api(GET => '/v1/me', token => substr($secret, 0, -1) . (substr($secret, -1) eq 'A' ? 'B' : 'A'));
    is $r->code, 401, 'a secret with a bad checksum is refused without the database (401 even while it is down)';
    is api(GET => '/healthz')->code, 200, 'healthz still 200 (process alive)';

    pg_ctl('start');
    @codes = ();
    for (1..12) { push @codes, api(GET => '/v1/me', token => $secret)->code }
    is_deeply [ grep { $_ != 200 } @codes ], [], 'recovers by itself once the database is back';
    is api(GET => '/readyz')->code, 200, 'readyz 200 again';
});

# A schema older than the module needs: /readyz says so with 503.
my $max = sql("SELECT max(version) FROM schema_migrations");
my $row = sql("SELECT name FROM schema_migrations WHERE version = $max");
sql("DELETE FROM schema_migrations WHERE version = $max");
$r = expect_log([qr{FS00102: 503 service-unavailable for /api/readyz$}], sub { api(GET => '/readyz') });
is $r->code, 503, 'readyz 503 when the schema is behind';
like $r->{json}{detail}, qr/^schema \d+, module needs $max: run formsvc-admin migrate$/, 'and says which versions and what to do';
sql("INSERT INTO schema_migrations (version, name) VALUES ($max, '$row')");
is api(GET => '/readyz')->code, 200, 'readyz 200 once it is current';

done_testing;
