# Form analytics: GET /v1/forms/{id}/stats: views of
# the public page (counted in memory, flushed every few seconds: never a
# database write per GET), submissions and spam per day or hour, the
# conversion rate; scope forms:read and ownership like other form routes;
# bad parameters 422; the MCP tool get_form_stats.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use PublicTest;
use JSON::PP ();
use Time::HiRes qw(sleep);
use POSIX qw(strftime);

my ($tok) = signup();
my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'Stats',
    fields => [ { key => 'q', type => 'text', label => 'Q' } ] });
is $r->code, 201, 'form created';
my $fid = $r->{json}{id};
$r = api(POST => "/v1/forms/$fid/publish", token => $tok);
is $r->code, 200, 'published';
my $url = form_url($fid);

sub stats {
    my ($q, $t) = @_;
    return api(GET => "/v1/forms/$fid/stats" . ($q ? "?$q" : ''), token => $t // $tok);
}

# nothing yet: the default range is 30 days, every day present
$r = stats();
is $r->code, 200, 'stats 200';
my $s = $r->{json};
is $s->{formId}, $fid, 'formId';
is $s->{interval}, 'day', 'day by default';
is scalar @{ $s->{data} }, 30, 'thirty days by default';
is_deeply $s->{totals}, { views => 0, submissions => 0, spam => 0, conversionRate => undef },
    'no views, no rate';
like $s->{data}[-1]{start}, qr/^\d{4}-\d\d-\d\dT00:00:00Z$/, 'days start at UTC midnight';
ok $s->{viewsLagSeconds} > 0, 'the lag is stated';

# the table's writes before
sub writes {
    psql("SELECT pg_stat_clear_snapshot()");
    return psql("SELECT COALESCE(n_tup_ins + n_tup_upd, 0) FROM pg_stat_user_tables WHERE relname = 'form_views'") || 0;
}
# PostgreSQL reports an idle connection's writes up to 10 s late: writes of
# the tests before this one (their views flushed by the module's worker)
# must not land in the window measured below. Wait until the figure has
# stood still for 11 s (time is the subject).
my ($w0, $still) = (writes(), 0);
for (1 .. 60) {
    last if $still >= 11;
    sleep 1;
    my $w = writes();
    $still = $w == $w0 ? $still + 1 : 0;
    $w0 = $w;
}
my $t0 = Time::HiRes::time();

# 40 page views (HTML GETs), and what is not a view: HEAD, the JSON view
for (1 .. 40) {
    my $p = req(GET => $url, headers => { Accept => 'text/html' });
    die 'page ' . $p->code unless $p->code == 200;
}
req(HEAD => $url, headers => { Accept => 'text/html' }) for 1 .. 3;
req(GET => $url, headers => { Accept => 'application/json' }) for 1 .. 3;
# 4 submissions, 2 of them spam (the honeypot filled)
for my $i (1 .. 2) {
    $r = req(POST => $url, type => 'application/json', body => qq({"q":"a$i"}));
    is $r->code, 201, "submission $i";
}
for my $i (1 .. 2) {
    $r = req(POST => $url, type => 'application/x-www-form-urlencoded', body => "q=b&_hp=x",
             headers => { Accept => 'text/html' });
    is $r->code, 303, "spam $i answered as a success";
}

# the views arrive within a few seconds
my $views = 0;
FormsvcTest::wait_for(sub { $s = stats()->{json}; ($views = $s->{totals}{views}) >= 40 }, 10, 'the 40 views counted');
is $views, 40, 'the 40 page views (not HEAD, not JSON), after the flush';
is $s->{totals}{submissions}, 2, 'two submissions';
is $s->{totals}{spam}, 2, 'two spam';
is $s->{totals}{conversionRate}, 0.05, 'conversion rate 2 / 40';
my $today = strftime('%Y-%m-%dT00:00:00Z', gmtime);
is $s->{data}[-1]{start}, $today, 'the last interval is today';
is $s->{data}[-1]{views}, 40, 'with the views';
is $s->{data}[-1]{submissions}, 2, 'and the submissions';
is $s->{data}[0]{views}, 0, 'older days are zero';
sleep 1; # the statistics collector reports with a delay (not observable: time is the subject)
my $w1 = writes();
# each child writes at most one row per form and hour every 2 s, whatever
# the number of views: bounded by the time the views took, not their number
my $flushes = int((Time::HiRes::time() - $t0) / 2) + 2;
cmp_ok $w1 - $w0, '<', 40, "40 views, fewer writes to form_views (@{[ $w1 - $w0 ]})";
cmp_ok $w1 - $w0, '<=', 4 * $flushes, "at most a write per child and flush ($flushes flushes)";
is psql("SELECT count(*) FROM form_views WHERE form_id = '$fid'"), 1, 'one row: one form, one hour';

# hours
$r = stats('interval=hour');
is $r->code, 200, 'hourly';
is scalar @{ $r->{json}{data} }, 24, '24 hours by default';
is $r->{json}{data}[-1]{views}, 40, 'this hour has the views';
like $r->{json}{data}[-1]{start}, qr/T\d\d:00:00Z$/, 'hours start on the hour';

# an explicit range: since is taken down to its interval, until is exclusive
$r = stats('since=2026-01-01T12:00:00Z&until=2026-01-04T00:00:00Z');
is $r->code, 200, 'explicit range';
is_deeply [ map { $_->{start} } @{ $r->{json}{data} } ],
    [ '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z' ], 'three days';
is $r->{json}{totals}{views}, 0, 'nothing then';

# bad parameters: 422 with a pointer
for my $c ([ 'interval=week', '/interval', 'enum' ],
           [ 'since=yesterday', '/since', 'format' ],
           [ 'until=2026-13-01T00:00:00Z', '/until', 'format' ],
           [ 'since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', '/until', 'minimum' ],
           [ 'since=2020-01-01T00:00:00Z&until=2026-01-01T00:00:00Z', '/since', 'maximum' ],
           [ 'interval=hour&since=2026-01-01T00:00:00Z&until=2026-02-15T00:00:00Z', '/since', 'maximum' ]) {
    $r = stats($c->[0]);
    is $r->code, 422, "$c->[0]: 422";
    my ($e) = @{ $r->{json}{errors} // [] };
    is $e && "$e->{pointer} $e->{code}", "$c->[1] $c->[2]", "  $c->[1] $c->[2]";
}
$r = stats('interval=hour&since=2026-01-01T00:00:00Z&until=2026-02-01T00:00:00Z');
is $r->code, 200, '744 hours are allowed';
is scalar @{ $r->{json}{data} }, 744, '  all of them';

# ownership and scopes
my ($other) = signup();
is stats('', $other)->code, 404, 'another account\'s form: 404';
is api(GET => "/v1/forms/frm_nope/stats", token => $tok)->code, 404, 'no such form: 404';
$r = api(POST => '/v1/keys', token => $tok, body => { name => 'subs only', scopes => ['submissions:read'] });
is $r->code, 201, 'a key without forms:read';
is stats('', $r->{json}{secret})->code, 403, 'needs forms:read: 403';
$r = api(POST => '/v1/keys', token => $tok, body => { name => 'read', scopes => ['forms:read'] });
is stats('', $r->{json}{secret})->code, 200, 'forms:read is enough';

# MCP
$r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
         body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                   params => { name => 'get_form_stats', arguments => { formId => $fid, interval => 'hour' } } });
is $r->code, 200, 'MCP get_form_stats';
my $res = $r->{json}{result};
ok !$res->{isError}, 'not an error';
is $res->{structuredContent}{totals}{views}, 40, 'the same figures';
is $res->{structuredContent}{interval}, 'hour', 'with the interval asked';

done_testing;
