# Long polls do not exhaust the server. A waiting
# GET /v1/events?wait= holds no database connection, and only a bounded
# number wait at once per httpd child (FormsvcEventWaits: in all, and per
# account); the others are answered at once with Formsvc-Wait: busy. While
# many long polls from a few accounts are open, a signup and a public form
# still answer at once.
#
# Its own httpd: one child of 32 threads (the 30 polls and the test's own
# request fit even when all arrive at once, as on a loaded machine, where
# the 22 answered busy may not have ended before the last poll comes),
# DBDMax 20, idle connections closed after a second (DBDKeep 1, DBDExptime
# 1), and an application_name so that pg_stat_activity shows its
# connections.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use LWP::UserAgent;
use POSIX ();
use Time::HiRes qw(time sleep);

my $APP = "formsvc_lp_$$";
my $m = FormsvcInstance->start(name => 'longpoll', conf => <<"CONF");
StartServers 1
ServerLimit 1
ThreadsPerChild 32
MaxRequestWorkers 32
MinSpareThreads 1
MaxSpareThreads 48
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=postgres connect_timeout=2 application_name=$APP"
DBDMin 0
DBDKeep 1
DBDMax 20
DBDExptime 1
FormsvcQuota unverified requests 100000
FormsvcRateLimit signup 100000 3600
FormsvcEventWaits 8 2
CONF

my $n = 0;
sub signup {
    my $r = $m->api(POST => '/v1/signup', body => { email => sprintf('lp%d.%d.%d@example.com', $$, time, ++$n) });
    die $r->content unless $r->code == 201;
    return $r->{json}{apiKey}{secret};
}
my @acct = map { signup() } 1 .. 5;

# a published form, for the public GET
my $r = $m->api(POST => '/v1/forms', token => $acct[0], body => {
    title => 'Public', fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
my $fid = $r->{json}{id};
is $m->api(POST => "/v1/forms/$fid/publish", token => $acct[0])->code, 200, 'a published form';
# each account's cursor: after its newest event, so that nothing is there to return
my @after = map {
    my $f = $m->api(GET => '/v1/events?limit=100', token => $_);
    $f->{json}{nextCursor};
} @acct;

# One long poll per process; the exit code says what happened:
# 10 waited the whole wait, 20 answered with Formsvc-Wait: busy before it.
sub poll {
    my ($tok, $after, $wait) = @_;
    my $pid = fork // die "fork: $!";
    return $pid if $pid;
    my $t0 = time;
    my $q = "wait=$wait" . ($after ? "&after=$after" : '');
    my $res = LWP::UserAgent->new(timeout => 60)->get($m->url . "/v1/events?$q",
                                                      Authorization => "Bearer $tok");
    my $took = time - $t0;
    my $busy = ($res->header('Formsvc-Wait') // '') eq 'busy';
    my $rc = $res->code != 200 ? 99
           : $took >= $wait - 0.5 && !$busy ? 10
           : $busy && $took < $wait - 0.5 ? 20   # before the wait would have ended (a loaded
                                                    # machine may take seconds to answer at all)
           : 98;
    POSIX::_exit($rc);
}
sub collect { my %by; for (@_) { waitpid($_, 0); push @{ $by{$? >> 8} }, $_ } return \%by }

# ---- 30 long polls of 5 s from 5 accounts -------------------------------------
my (@kids, %acct_of);
for my $i (0 .. 29) {
    my $a = $i % 5;
    my $pid = poll($acct[$a], $after[$a], 5);
    $acct_of{$pid} = $a;
    push @kids, $pid;
}
# every poll has arrived: the 22 refused ones have ended (their processes
# are zombies until collect() reaps them), the waiting ones wait
sub ended { scalar grep { ((FormsvcInstance::slurp("/proc/$_/stat") =~ /^\d+ \(.*\) (\S)/)[0] // 'Z') eq 'Z' } @_ }
FormsvcTest::wait_for(sub { ended(@kids) >= 22 }, 15, 'the 22 busy polls to be answered');

my $t0 = time;
my $s = $m->api(POST => '/v1/signup', body => { email => sprintf('lpx%d.%d@example.com', $$, time) });
my $took = time - $t0;
is $s->code, 201, 'a signup while the polls are open';
cmp_ok $took, '<', 2, sprintf('answered at once (%.2f s)', $took);
$t0 = time;
$s = $m->api(GET => "/f/$fid", headers => { Accept => 'application/json' });
$took = time - $t0;
is $s->code, 200, 'a public GET /f/{id} while the polls are open';
cmp_ok $took, '<', 2, sprintf('answered at once (%.2f s)', $took);
$t0 = time;
$s = $m->api(GET => '/v1/me', token => $acct[1]);
$took = time - $t0;
is $s->code, 200, 'an API call of a polling account';
cmp_ok $took, '<', 2, sprintf('answered at once (%.2f s)', $took);

# Idle pooled connections close after DBDExptime 1 s; the waiting requests
# hold none, so what stays open is far below one per waiting request. The
# pool closes its expired connections when one is given back (apr_reslist's
# maintenance runs on release), so each look first makes a request: on a
# loaded machine the busy polls' connections may still be within their
# second at the first look.
sleep 1;   # DBDExptime itself is the subject
my $conns;
FormsvcTest::wait_for(sub {
    $m->api(GET => '/v1/me', token => $acct[1]);
    $conns = sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = '$APP'");
    $conns < 8 }, 3, 'idle connections to close');
cmp_ok $conns, '<', 8, "database connections open while 8 requests wait: $conns";

my $by = collect(@kids);
my @waited = @{ $by->{10} // [] };
is scalar @waited, 8, 'exactly 8 polls waited (FormsvcEventWaits 8 per child)';
is scalar @{ $by->{20} // [] }, 22, 'the other 22 were answered at once with Formsvc-Wait: busy';
is_deeply [ grep { $_ != 10 && $_ != 20 } keys %$by ], [], 'no other outcome';
my %per;
$per{ $acct_of{$_} }++ for @waited;
is_deeply [ grep { $_ > 2 } values %per ], [], 'no account had more than 2 waiting';

# ---- the per-account bound alone: 4 polls of one account, 2 wait ----------------
@kids = map { poll($acct[2], $after[2], 2) } 1 .. 4;
$by = collect(@kids);
is scalar @{ $by->{10} // [] }, 2, 'one account: 2 polls waited';
is scalar @{ $by->{20} // [] }, 2, 'the other 2 were answered at once';

# ---- a wait still ends early when an event comes ----------------------------------
my $pid = fork // die;
if (!$pid) { sleep 1; $m->api(POST => "/f/$fid", body => { name => 'late' }); POSIX::_exit(0) }   # 1 s into the wait
$t0 = time;
$s = $m->api(GET => "/v1/events?wait=10&after=$after[0]", token => $acct[0]);
$took = time - $t0;
waitpid $pid, 0;
is $s->code, 200, 'long poll 200';
is_deeply [ map { $_->{type} } @{ $s->{json}{data} } ], ['submission.created'], 'the new event';
cmp_ok $took, '<', 5, sprintf('returned when the event came (%.2f s)', $took);

is scalar(grep { /\[formsvc:(?:error|crit|alert|emerg)\]|AH00484|MaxRequestWorkers/ }
          split /\n/, $m->error_log), 0, 'no errors, MaxRequestWorkers never reached'
    or diag $m->error_log;

done_testing;
