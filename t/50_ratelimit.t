# Rate limits on one machine: counters in shared memory shared by every
# httpd child, per client address (as mod_remoteip establishes it) and per
# account on /v1, with RateLimit-* headers and 429 + Retry-After.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(clear_of_boundary);

# ListenCoresBucketsRatio: the kernel hashes connections over the children
# (SO_REUSEPORT), so the bursts below reach more than one of them even when
# one child would otherwise win every accept on a busy machine.
my $m = FormsvcInstance->start(name => 'rl', conf => <<'CONF');
ListenCoresBucketsRatio 1
FormsvcRateLimitStore local
FormsvcRateLimit signup 10 3600
FormsvcRateLimit recover 3 3600
FormsvcRateLimit token 5 3600
FormsvcQuota unverified requests 20
CONF

# Fixed windows are aligned to the clock: start clear of a boundary so that
# a run does not straddle two windows (FormsvcTest::clear_of_boundary).

my $n = 0;
sub email { sprintf 'rl%d.%d.%d@example.com', $$, time, ++$n }
sub signup_from {
    my ($ip, %h) = @_;
    return $m->api(POST => '/v1/signup', body => { email => email() },
                   headers => { 'X-Client-IP' => $ip, %h });
}

clear_of_boundary(3600);

# --- signup: 10 an hour per client address -------------------------------
my @codes = map { signup_from('198.51.100.7')->code } 1 .. 10;
is_deeply [grep { $_ != 201 } @codes], [], 'ten signups from one address pass';
my $r = signup_from('198.51.100.7');
is $r->code, 429, 'the eleventh is 429';
is $r->header('Content-Type'), 'application/problem+json', 'as a problem';
like $r->{json}{type}, qr{/problems/rate-limited$}, 'type rate-limited';
ok $r->{json}{retryAfter} > 0 && $r->{json}{retryAfter} <= 3600, 'retryAfter within the window';
is $r->header('Retry-After'), $r->{json}{retryAfter}, 'Retry-After equals retryAfter';
is signup_from('198.51.100.8')->code, 201, 'another address is not limited';

# A client cannot pick its own address: X-Forwarded-For is not trusted (only
# the header mod_remoteip was configured with, from a trusted proxy).
$r = signup_from('198.51.100.7', 'X-Forwarded-For' => '192.0.2.99');
is $r->code, 429, 'a spoofed X-Forwarded-For does not escape the limit';
$r = $m->api(POST => '/v1/signup', body => { email => email() },
             headers => { 'X-Forwarded-For' => '192.0.2.98', 'Forwarded' => 'for=192.0.2.97' });
is $r->code, 201, 'without the trusted header the connection address counts';

is $r->header('RateLimit-Limit'), 10, 'signup shows its limit in RateLimit-Limit';
ok defined $r->header('RateLimit-Remaining') && defined $r->header('RateLimit-Reset'),
   'and RateLimit-Remaining, RateLimit-Reset';

# --- recover: per address, shared by recover and recover/confirm ----------
my @rc;
for my $i (1 .. 4) {
    my $path = $i % 2 ? '/v1/recover' : '/v1/recover/confirm';
    my $x = $m->api(POST => $path, body => { email => 'nobody@example.com', ($i % 2 ? () : (code => 'AAAAAAAA')) },
                    headers => { 'X-Client-IP' => '198.51.100.30' });
    push @rc, $x->code;
}
is_deeply \@rc, [202, 422, 202, 429], 'recover: 3 an hour per address, confirm included';
is $m->api(POST => '/v1/recover', body => { email => 'nobody@example.com' },
           headers => { 'X-Client-IP' => '198.51.100.31' })->code, 202, 'another address is not limited';

# --- bursts from several processes at once never exceed the limit ---------
my $ok = FormsvcInstance->burst(8, sub {
    my $i = shift; my $c = 0;
    for my $j (1 .. 6) {
        my $res = $m->api(POST => '/v1/signup', body => { email => "b$$.$i.$j." . time . '@example.com' },
                          headers => { 'X-Client-IP' => '198.51.100.9' });
        $c++ if $res->code == 201;
        die 'unexpected ' . $res->code unless $res->code == 201 || $res->code == 429;
    }
    return $c;
});
is $ok, 10, '48 concurrent signups from one address: exactly 10 pass';

# --- IPv6: one /64 is one client -----------------------------------------
my @v6 = map { signup_from(sprintf '2001:db8:5:6::%x', $_)->code } 1 .. 11;
is_deeply [@v6[0 .. 9]], [(201) x 10], 'ten signups from ten addresses of one /64';
is $v6[10], 429, 'the eleventh address of the same /64 is refused';
is signup_from('2001:db8:5:7::1')->code, 201, 'another /64 is another client';

# --- per account on /v1 ---------------------------------------------------
clear_of_boundary(60);
$r = signup_from('198.51.100.20');
my $key = $r->{json}{apiKey}{secret};
my @rem;
for (1 .. 20) {
    my $x = $m->api(GET => '/v1/me', token => $key);
    push @rem, $x->header('RateLimit-Remaining');
    is $x->header('RateLimit-Limit'), 20, 'RateLimit-Limit' if $_ == 1;
    ok $x->header('RateLimit-Reset') >= 1 && $x->header('RateLimit-Reset') <= 60, 'RateLimit-Reset'
        if $_ == 1;
    die 'unexpected ' . $x->code unless $x->code == 200;
}
is_deeply \@rem, [reverse 0 .. 19], 'RateLimit-Remaining counts down to 0';
$r = $m->api(GET => '/v1/me', token => $key);
is $r->code, 429, 'request 21 in a minute is 429';
is $r->header('Retry-After'), $r->{json}{retryAfter}, 'Retry-After equals retryAfter';
is $r->header('RateLimit-Remaining'), 0, 'headers on the 429 too';
ok $r->{json}{retryAfter} >= 1 && $r->{json}{retryAfter} <= 60, 'retryAfter within the minute';
$r = $m->api(GET => '/v1/keys', token => $key);
is $r->code, 429, 'the limit is per account, on every route';
# another account of the same address is not affected
my $other = signup_from('198.51.100.21')->{json}{apiKey}{secret};
is $m->api(GET => '/v1/me', token => $other)->code, 200, 'another account is not limited';
# a bad credential is 401, not counted against anyone
is $m->api(GET => '/v1/me', token => 'svc_live_nope')->code, 401, 'bad credential 401';

# burst on one account from several processes
clear_of_boundary(60);
my $k2 = signup_from('198.51.100.22')->{json}{apiKey}{secret};
$ok = FormsvcInstance->burst(6, sub {
    my $c = 0;
    for (1 .. 8) {
        my $x = $m->api(GET => '/v1/me', token => $k2);
        $c++ if $x->code == 200;
        die 'unexpected ' . $x->code unless $x->code == 200 || $x->code == 429;
    }
    return $c;
});
is $ok, 20, '48 concurrent requests on one account: exactly 20 pass';
cmp_ok scalar($m->pids), '>', 1, 'requests were served by more than one httpd child';

unlike $m->error_log, qr/\[(?:error|crit|alert|emerg)\]|FS00605/, 'no errors logged';
# --- token endpoint: every request counts, per address ------------------
{
    my @c = map { $m->api(POST => '/v1/token', body => 'grant_type=password',
                          headers => { 'Content-Type' => 'application/x-www-form-urlencoded',
                                       'X-Client-IP' => '203.0.113.77' })->code } 1 .. 5;
    is_deeply [grep { $_ != 400 } @c], [], 'five token requests from one address are answered (400 unsupported grant)';
    my $t = $m->api(POST => '/v1/token', body => 'grant_type=password',
                    headers => { 'Content-Type' => 'application/x-www-form-urlencoded', 'X-Client-IP' => '203.0.113.77' });
    is $t->code, 429, 'the sixth token request is 429';
    is $t->{json}{error}, 'temporarily_unavailable', 'with the OAuth error member';
    is $t->header('Retry-After'), $t->{json}{retryAfter}, 'Retry-After equals retryAfter';
    is $m->api(POST => '/v1/token', body => 'grant_type=password',
               headers => { 'Content-Type' => 'application/x-www-form-urlencoded', 'X-Client-IP' => '203.0.113.78' })->code,
       400, 'another address is not limited';
}

done_testing;
