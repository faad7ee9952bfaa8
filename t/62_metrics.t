# GET /metrics: Prometheus text, read with the reference
# parser (python3-prometheus-client, t/bin/prom_parse.py); counters summed
# over every httpd child; local machine only unless a Require applies.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use PublicTest;
use File::Temp ();
use JSON::PP ();
use LWP::UserAgent;
use POSIX ();

plan skip_all => 'python3-prometheus-client not installed'
    unless system('/usr/bin/python3', '-c', 'import prometheus_client') == 0;

my $J = JSON::PP->new;

# The exposition of a response, parsed: { families => {name => type}, samples => [...] }
sub parse {
    my $text = shift;
    my $tmp = File::Temp->new;
    print $tmp $text;
    close $tmp;
    my $out = `/usr/bin/python3 $FindBin::Bin/bin/prom_parse.py < $tmp 2>&1`;
    return $? == 0 ? $J->decode($out) : { error => $out };
}
# The value of one sample (by name and exact labels), 0 when absent.
sub value {
    my ($m, $name, %l) = @_;
    for my $s (@{ $m->{samples} }) {
        next unless $s->[0] eq $name;
        next if grep { ($s->[1]{$_} // "\0") ne $l{$_} } keys %l;
        next if keys %{ $s->[1] } != keys %l;
        return $s->[2];
    }
    return 0;
}
sub scrape {
    my $r = api(GET => '/metrics');
    is $r->code, 200, 'GET /metrics from the local machine: 200';
    like $r->header('Content-Type'), qr{^text/plain; version=0\.0\.4}, 'Prometheus text format';
    my $m = parse($r->content);
    ok !$m->{error}, 'the reference parser reads it' or diag $m->{error};
    return $m;
}

# ---- the test server ---------------------------------------------------------
my $m0 = scrape();
for my $f (qw(formsvc_http_requests formsvc_http_request_duration_seconds
              formsvc_submissions_stored formsvc_webhook_deliveries formsvc_mail_deliveries
              formsvc_mail_outbox_depth formsvc_cache_requests formsvc_db_pool_waits
              formsvc_db_pool_errors formsvc_db_statement_errors formsvc_build_info)) {
    ok exists $m0->{families}{$f}, "family $f";
}
is $m0->{families}{formsvc_http_request_duration_seconds}, 'histogram', 'latency is a histogram';

my %route = (route => '/healthz', method => 'GET', status => '200');
api(GET => '/healthz') for 1 .. 7;
api(GET => '/v1/no-such-thing') for 1 .. 2;
my $form = make_form(fields => [ { id => 'fld_1', key => 'name', type => 'text', label => 'Name',
                                   position => 0 } ]);
my @subs = map { req(POST => form_url($form), body => qq({"name":"n$_"}), type => 'application/json')->code } 1 .. 3;
is_deeply \@subs, [201, 201, 201], 'three submissions stored';

my $m1 = scrape();
is value($m1, 'formsvc_http_requests_total', %route) - value($m0, 'formsvc_http_requests_total', %route),
    7, 'requests by route and status: +7 for GET /healthz 200';
is value($m1, 'formsvc_http_requests_total', route => '(none)', method => '*', status => '404')
   - value($m0, 'formsvc_http_requests_total', route => '(none)', method => '*', status => '404'),
    2, 'paths of ours that match no route: +2 under (none), 404';
is value($m1, 'formsvc_http_requests_total', route => '/f/{ref}', method => 'POST', status => '201')
   - value($m0, 'formsvc_http_requests_total', route => '/f/{ref}', method => 'POST', status => '201'),
    3, 'POST /f/{ref} 201: +3';
is value($m1, 'formsvc_submissions_stored_total') - value($m0, 'formsvc_submissions_stored_total'),
    3, 'submissions stored: +3';
my %h = (route => '/healthz', method => 'GET');
my $count = value($m1, 'formsvc_http_request_duration_seconds_count', %h);
cmp_ok $count, '>=', 7, 'latency histogram counts the requests';
is value($m1, 'formsvc_http_request_duration_seconds_bucket', %h, le => '+Inf'), $count, '+Inf bucket = count';
my @le = map { value($m1, 'formsvc_http_request_duration_seconds_bucket', %h, le => $_) }
    qw(0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10);
is_deeply [ sort { $a <=> $b } @le ], \@le, 'buckets are cumulative';
cmp_ok value($m1, 'formsvc_http_request_duration_seconds_sum', %h), '>', 0, 'and a sum';
is value($m1, 'formsvc_database_up'), 1, 'database up';
is value($m1, 'formsvc_mail_outbox_depth'), PublicTest::psql(
    "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL"), 'outbox depth as in the table';

# not the local machine (as a proxy says): refused
my $r = api(GET => '/metrics', headers => { 'X-Forwarded-For' => '203.0.113.9' });
is $r->code, 403, 'a forwarded request: 403';
is $r->{json}{type}, base_url() . '/problems/forbidden', 'a forbidden problem';
# a proxy nobody configured, naming its client in another header (nginx's
# X-Real-IP, and the like): refused too
for my $h ('X-Real-IP', 'X-Client-IP', 'True-Client-IP', 'CF-Connecting-IP', 'Forwarded') {
    my $v = $h eq 'Forwarded' ? 'for=203.0.113.9' : '203.0.113.9';
    is api(GET => '/metrics', headers => { $h => $v })->code, 403, "only $h from the local machine: 403";
}

# /readyz/outbox: its figures only to whom /metrics answers
$r = api(GET => '/readyz/outbox');
is $r->code, 200, '/readyz/outbox from the local machine: 200';
ok exists $r->{json}{pending}, 'with its figures';
$r = api(GET => '/readyz/outbox', headers => { 'X-Real-IP' => '203.0.113.9' });
is $r->code, 200, '/readyz/outbox for someone else: 200';
is_deeply $r->{json}, { status => 'ok' }, 'the status alone, no figures';

# ---- summed over children, kept over a graceful restart; Require ----------
# Which child accepts a connection is the kernel's choice: on a busy
# machine one child can win all 150 (it did in CI). The listener is split
# into buckets (SO_REUSEPORT, a bucket a core), so connections are hashed
# over the children; and bursts go on until two children have answered,
# a condition rather than a count.
my $inst = FormsvcInstance->start(name => 'metrics', conf => <<'CONF');
ListenCoresBucketsRatio 1
<Location /api/metrics>
    Require all granted
</Location>
CONF
my $ua = LWP::UserAgent->new(timeout => 10);
my ($n, $rounds) = (0, 0);
do {
    $n += FormsvcInstance->burst(6, sub {
        my $u = LWP::UserAgent->new(timeout => 10, keep_alive => 0);
        my $ok = 0;
        for (1 .. 25) { $ok++ if $u->get($inst->url . '/healthz')->code == 200 }
        return $ok;
    });
    $rounds++;
} until $inst->pids > 1 || $rounds == 20;
is $n, 150 * $rounds, "150 requests from 6 clients, $rounds time(s)";
cmp_ok scalar($inst->pids), '>', 1, 'served by more than one child';
my $im = parse($ua->get($inst->url . '/metrics', 'X-Forwarded-For' => '203.0.113.9')->content);
ok !$im->{error}, 'instance: parsed (a Require granted the forwarded request)';
my $before = value($im, 'formsvc_http_requests_total', %route);
my $logged = () = FormsvcInstance::slurp($inst->root . '/access_log') =~ m{ 200 GET /api/healthz }g;
cmp_ok $logged, '>=', $n, "the access log shows $logged answered GET /healthz";
is $before, $logged, 'the counter, summed over the children, is exactly that';
system($ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2', '-f', $inst->root . '/httpd.conf', '-k', 'graceful') == 0
    or die 'graceful failed';
my $after;
wait_for(sub {   # the new generation answers
    my $res = $ua->get($inst->url . '/metrics');
    $res->code == 200 and $after = parse($res->content);
}, 10, '/metrics after the graceful restart');
cmp_ok value($after, 'formsvc_http_requests_total', %route), '>=', $before,
    'a graceful restart keeps the counters';
is value($after, 'formsvc_metrics_start_time_seconds'), value($im, 'formsvc_metrics_start_time_seconds'),
    'and their start time';
$inst->stop;

# ---- what an operator pages on: the pool of each child, the webhook
# backlog, batch sizes, 429s by kind, long polls ----------------------------
{
    my $lim = FormsvcInstance->start(name => 'metrics-ops', conf => <<'CONF');
<Location /api/metrics>
    Require all granted
</Location>
DBDMax 7
FormsvcRateLimit submit 1 60
FormsvcRateLimit signup off
FormsvcQuota unverified requests 3
CONF
    my $signup = sub { $lim->api(POST => '/v1/signup', body => { email => FormsvcTest::uniq_email() })->{json}{apiKey}{secret} };
    my ($t1, $t2) = ($signup->(), $signup->());
    my $f = $lim->api(POST => '/v1/forms', token => $t1,
                      body => { title => 'Ops', fields => [{ key => 'name', type => 'text', label => 'Name' }] })->{json};
    is $lim->api(POST => "/v1/forms/$f->{id}/publish", token => $t1)->code, 200, 'a form published';
    my @me = map { $lim->api(GET => '/v1/me', token => $t1)->code } 1 .. 2;
    ok((grep { $_ == 429 } @me), 'an account past its requests a minute: 429 (' . join(' ', @me) . ')');
    my @sub = map { $lim->api(POST => "/f/$f->{id}", body => { name => "x$_" })->code } 1 .. 2;
    is_deeply \@sub, [201, 429], 'a client address past its submission rate: 429';
    # a long poll waits (another account: this one is past its quota)
    my $poller = fork // die;
    if (!$poller) {
        LWP::UserAgent->new(timeout => 30)->get($lim->url . '/v1/events?wait=8', Authorization => "Bearer $t2");
        POSIX::_exit(0);
    }
    my $m;
    wait_for(sub { $m = parse($ua->get($lim->url . '/metrics')->content);
                   value($m, 'formsvc_events_longpoll_waiters') >= 1 }, 6, 'the long poll waiting');
    ok !$m->{error}, 'parsed' or diag $m->{error};
    is value($m, 'formsvc_events_longpoll_waiters'), 1, 'a long poll waiting: formsvc_events_longpoll_waiters 1';
    is value($m, 'formsvc_requests_limited_total', kind => 'rate'), 1, '429 by kind: rate 1';
    cmp_ok value($m, 'formsvc_requests_limited_total', kind => 'quota'), '>=', 1, '429 by kind: quota';
    my %pids;
    for my $s (@{ $m->{samples} }) {
        $pids{ $s->[1]{pid} }{ $s->[0] eq 'formsvc_db_pool_max' ? 'max' : $s->[1]{state} } = $s->[2]
            if $s->[0] =~ /^formsvc_db_pool_(connections|max)$/;
    }
    cmp_ok scalar(keys %pids), '>=', 1, scalar(keys %pids) . ' children report their pool';
    my @bad = grep { ($pids{$_}{max} // -1) != 7 || !defined $pids{$_}{in_use} || !defined $pids{$_}{idle}
                     || $pids{$_}{in_use} + $pids{$_}{idle} > 7 } keys %pids;
    is_deeply \@bad, [], 'each: in_use and idle within its max (DBDMax 7)';
    my $open = 0; $open += $pids{$_}{in_use} + $pids{$_}{idle} for keys %pids;
    cmp_ok $open, '>=', 1, "connections open: $open";
    is $m->{families}{formsvc_submission_batch_size}, 'histogram', 'batch sizes: a histogram';
    is value($m, 'formsvc_submission_batch_size_count'), value($m, 'formsvc_submission_batches_total'),
        'one observation per batch statement';
    is value($m, 'formsvc_submission_batch_size_bucket', le => '1'), 1, 'the one submission: a batch of 1';
    is value($m, 'formsvc_submission_batch_size_sum'), 1, 'sum: the submissions in batches';
    ok exists $m->{families}{formsvc_webhook_backlog}, 'the webhook backlog';
    ok exists $m->{families}{formsvc_webhook_backlog_oldest_seconds}, 'and its oldest delivery';
    waitpid($poller, 0);
    $m = parse($ua->get($lim->url . '/metrics')->content);
    is value($m, 'formsvc_events_longpoll_waiters'), 0, 'the long poll over: 0';
    $lim->stop;
}

my $closed = FormsvcInstance->start(name => 'metrics-closed', conf => <<'CONF');
<Location /api/metrics>
    Require env formsvc_nobody_has_this
</Location>
CONF
is $ua->get($closed->url . '/metrics')->code, 403, 'a Require that refuses the local machine too: 403';
$closed->stop;

done_testing;
