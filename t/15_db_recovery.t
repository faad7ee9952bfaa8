# The database coming back and the database hanging (dropped or
# hung), against httpd instances of this test's own:
# - after an immediate PostgreSQL restart, and after every session was
#   terminated, pooled connections that libpq still calls good are renewed
#   before use: a parallel burst right after gets no 503 at all;
# - a statement that PostgreSQL cancels for statement_timeout (here: it
#   waits on a lock) is a 503 with Retry-After, not a 500;
# - a database that does not answer at all (a proxy in front of it that
#   stops passing bytes, as a stopped server or a dead network does) gives
#   503 with Retry-After within the bound (FormsvcDBTimeout), for parallel
#   requests too, and the service recovers when it answers again.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(wait_for psql lock_tables);
use FormsvcTest::Together;
use FormsvcTest::PgProxy;
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};

my $n = 0;
sub email { sprintf 'rec%d.%d.%d@example.com', $$, time, ++$n }

# Runs $procs processes of $each requests (released together); returns
# "code => count", where a process that failed counts its requests under
# "none".
sub burst_codes {
    my ($inst, $procs, $each, $token) = @_;
    my @out = release_together($procs, sub {
        sub { join ' ', map { $inst->api(GET => '/v1/me', token => $token)->code } 1 .. $each } })->();
    my %count;
    $count{$_}++ for map { defined ? split(' ') : ('none') x $each } @out;
    return \%count;
}

# A TCP proxy to PostgreSQL (t/lib/FormsvcTest/PgProxy.pm) that can stop
# passing bytes (a stopped server, a dead network) and reset every
# connection it carries; it knows the local ports of its connections to
# PostgreSQL (what pg_stat_activity shows as client_port).
my $proxy = FormsvcTest::PgProxy->start;
my $pport = $proxy->port;


# The instance's cache listeners (one a child, each with a session of its
# own, through the proxy) renew their sessions by themselves once these
# end, and log it with the cause (FS00313 ... FATAL: terminating
# connection): no statement was sent on those. Waits until as many are
# back as there were, and then until the instance's log has been still
# for 0.3 s, so that their lines fall before the mark taken next.
sub listeners {
    my $p = $proxy->ports;
    return scalar grep { $p->{$_} }
        split /\n/, psql("SELECT client_port FROM pg_stat_activity WHERE application_name = 'formsvc_cache_listener'");
}
sub listeners_back {
    my ($inst, $n) = @_;
    wait_for(sub { listeners() >= $n }, 15, "$n cache listeners back");
    my ($len, $still) = (length $inst->error_log, time);
    wait_for(sub {
        my $l = length $inst->error_log;
        ($len, $still) = ($l, time) if $l != $len;
        time - $still >= 0.3;
    }, 5, 'the instance\'s error log to be still');
}

# The store's notes in an instance's error log after byte $from: each
# renewal must have happened before a statement was sent (an idle session
# the server had ended) or for statements a renewed session lacked. A
# statement sent on a dead session is one whose outcome is unknown.
sub sent_on_dead_sessions {
    my ($inst, $from) = @_;
    my $log = substr($inst->error_log, $from);
    return grep { !/the server ended the idle session|prepared statement "\w+" does not exist/ }
        grep { /FS003(1\d|20): / } split /\n/, $log;
}

# ---- item 11: back after an immediate restart, terminated sessions, and
# connections reset on the way; the instance reaches PostgreSQL through the
# proxy
{
    # every store line is read below: none may be held back as a repeat
    my $inst = FormsvcInstance->start(name => 'recover', conf => <<"CONF");
DBDParams "host=127.0.0.1 port=$pport dbname=formsvc user=postgres connect_timeout=2"
FormsvcLogRepeatInterval 0
FormsvcRateLimit signup off
FormsvcQuota unverified requests 1000000
DBDKeep 10
DBDExptime 300
CONF
    my $tok = $inst->api(POST => '/v1/signup', body => { email => email() })->{json}{apiKey}{secret};
    ok $tok, 'signed up';
    my $c = burst_codes($inst, 12, 4, $tok);
    is_deeply $c, { 200 => 48 }, 'warm: 48 x 200 (several pooled connections in each child)';
    my $listeners = listeners();

    # The suite's own server shares this PostgreSQL: its background workers
    # may meet it restarting (FormsvcTest::expect_log tells t/99_errorlog.t).
    my @before = keys %{ $proxy->ports };
    FormsvcTest::expect_log([FormsvcTest::outage_lines()], sub {
        system('bash', "$ENV{FORMSVC_ROOT}/scripts/pg", 'restart', $ENV{FORMSVC_PGDIR}, 'immediate') == 0
            or die 'immediate restart failed';
        # idle, but less than DBDExptime: the dead connections stay in the pool
        # (past it mod_dbd would drop them unused and open new ones)
        sleep 3;
    });
    ok $proxy->wait_closed(@before), 'the sessions of before the restart are closed on the instance\'s side';
    listeners_back($inst, $listeners);
    my $mark = length $inst->error_log;
    $c = burst_codes($inst, 8, 5, $tok);
    is $c->{503} // 0, 0, 'after an immediate restart and idle time, on the pooled connections: no 503';
    is_deeply $c, { 200 => 40 }, 'every request of the burst 200';
    is_deeply [ sent_on_dead_sessions($inst, $mark) ], [],
        'dead sessions were renewed before a statement was sent on them';

    # pg_terminate_backend returns once the signal is sent; with a timeout
    # it waits until each backend has exited, and then the proxy still has
    # to pass the end on to the instance
    my @ended = FormsvcTest::expect_log([FormsvcTest::outage_lines()], sub {
        my @rows = split /\n/, psql("SELECT coalesce(client_port, 0) || ' ' || pg_terminate_backend(pid, 5000) "
                   . "FROM pg_stat_activity "
                   . "WHERE datname = 'formsvc' AND pid <> pg_backend_pid() AND backend_type = 'client backend'");
        my @ports = map { (split ' ')[0] } @rows;
        $proxy->wait_closed(grep { $_ } @ports);
        return @rows;
    });
    my $killed = @ended;
    cmp_ok $killed, '>', 0, "sessions terminated ($killed)";
    is_deeply [ grep { !/ (t|true)$/ } @ended ], [], 'each backend exited within 5 s';
    listeners_back($inst, $listeners);
    $mark = length $inst->error_log;
    $c = burst_codes($inst, 8, 5, $tok);
    is $c->{503} // 0, 0, 'after pg_terminate_backend of every session: no 503';
    is_deeply $c, { 200 => 40 }, 'every request of the burst 200';
    is_deeply [ sent_on_dead_sessions($inst, $mark) ], [],
        'terminated sessions were renewed before a statement was sent on them';

    # every pooled connection reset on the way (RST), the database up
    ok $proxy->reset_all, 'every connection reset';
    $c = burst_codes($inst, 8, 5, $tok);
    is_deeply $c, { 200 => 40 }, 'after every connection was reset (TCP RST): every request 200';
    $inst->stop;
}

# ---- item 12a: statement_timeout is a 503 with Retry-After -----------------
{
    my $inst = FormsvcInstance->start(name => 'stmttimeout', conf => <<"CONF");
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=postgres connect_timeout=2 options='-c statement_timeout=1000'"
FormsvcRateLimit signup off
FormsvcQuota unverified requests 1000000
CONF
    my $tok = $inst->api(POST => '/v1/signup', body => { email => email() })->{json}{apiKey}{secret};
    is $inst->api(GET => '/v1/me', token => $tok)->code, 200, 'works before';
    # a session that holds the keys table for 4 s: authentication waits on it.
    # The suite's own server shares this PostgreSQL, and item 11 ended its
    # sessions too: a child that renews one of them in this window cannot
    # prepare the statements that read keys (lock_timeout), says so, and
    # prepares them at its next use (expected here, and only here)
    my ($lock, $r, $t0, $took);
    FormsvcTest::expect_log([qr/FS00312: preparing statements again failed: ERROR:  canceling statement due to lock timeout/], sub {
        $lock = lock_tables('ACCESS EXCLUSIVE', 4, 'keys');
        $t0 = time;
        $r = $inst->api(GET => '/v1/me', token => $tok);
        $took = time - $t0;
        waitpid($lock->{pid}, 0);
    });
    ok $lock->{granted}, 'another session holds the keys table';
    is $r->code, 503, 'a statement cancelled by statement_timeout: 503 (not 500)';
    ok $r->header('Retry-After'), 'with Retry-After';
    like $r->{json}{type} // '', qr{/problems/service-unavailable$}, 'service-unavailable problem';
    cmp_ok $took, '<', 3, sprintf('within the bound (%.1f s)', $took);
    is $inst->api(GET => '/v1/me', token => $tok)->code, 200, 'works again once the lock is gone';
    like $inst->error_log, qr/database busy \(57014\)/, 'logged as busy, with the SQLSTATE';
    $inst->stop;
}

{
    my $inst = FormsvcInstance->start(name => 'frozen', conf => <<"CONF");
DBDParams "host=127.0.0.1 port=$pport dbname=formsvc user=postgres connect_timeout=2 options='-c statement_timeout=1000'"
DBDMin 0
DBDKeep 2
DBDMax 2
FormsvcDBTimeout 2
FormsvcRateLimit signup off
FormsvcQuota unverified requests 1000000
CONF
    my $tok = $inst->api(POST => '/v1/signup', body => { email => email() })->{json}{apiKey}{secret};
    is $inst->api(GET => '/v1/me', token => $tok)->code, 200, 'works through the proxy';
    $proxy->freeze;
    my $t0 = time;
    my @said = release_together(12, sub {
        my $ua = LWP::UserAgent->new(timeout => 20);
        sub {
            my $s = time;
            my $r = $ua->get($inst->url . '/v1/me', Authorization => "Bearer $tok");
            sprintf "%d %.2f %s", $r->code, time - $s, $r->header('Retry-After') // '-';
        } })->();
    my (@codes, @times, @retry, @silent);
    for my $i (0 .. $#said) {
        defined $said[$i] or do { push @silent, $i; next };
        my ($c, $t, $ra) = split ' ', $said[$i];
        push @codes, $c; push @times, $t; push @retry, $ra;
    }
    is_deeply \@silent, [], 'every client of the 12 reported its answer';
    is scalar(@codes), 12, '12 answers';
    my ($max) = sort { $b <=> $a } @times;
    is_deeply [ grep { $_ != 503 } @codes ], [], '12 parallel requests to a hung database: all 503';
    is_deeply [ grep { $_ eq '-' } @retry ], [], 'each with Retry-After';
    cmp_ok $max, '<', 7, sprintf('the slowest answered within the bound (%.1f s)', $max);
    $proxy->thaw;
    # connection attempts begun while it hung end within connect_timeout;
    # until then the others are answered 503 at once rather than queued
    my $t1 = time;
    wait_for(sub { $inst->api(GET => '/v1/me', token => $tok)->code == 200 }, 20, '/v1/me to answer 200');
    cmp_ok time - $t1, '<', 4, sprintf('200 again %.1f s after the database answers', time - $t1);
    my @after;
    for (1 .. 10) { push @after, $inst->api(GET => '/v1/me', token => $tok)->code }
    is_deeply [ grep { $_ != 200 } @after ], [], 'and from then on';
    $inst->stop;
}

done_testing;
