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
use FormsvcTest qw(wait_for psql);
use FormsvcTest::Together;
use IO::Select;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use POSIX ();
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

# A TCP proxy to PostgreSQL that stops passing bytes while $flag exists
# (a stopped server, a dead network), and resets every connection it
# carries (TCP RST, as a restarted proxy or a lost NAT entry does) when
# $cut appears. It keeps the local ports of its connections to PostgreSQL
# (what pg_stat_activity shows as client_port) in $open, one per line.
my $flag = "$FindBin::Bin/logs/freeze.$$";
my $cut = "$FindBin::Bin/logs/cut.$$";
my $open = "$FindBin::Bin/logs/proxied.$$";
unlink $flag, $cut, $open;
my $lst = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 128,
                                ReuseAddr => 1) or die "listen: $!";
my $pport = $lst->sockport;
my $proxy = fork // die;
if (!$proxy) {
    # a write to a connection whose other end has just closed (a session
    # ended) fails with EPIPE instead of killing the proxy
    $SIG{PIPE} = 'IGNORE';
    my (%peer, @all, %up);
    my $said = '-';
    for (;;) {
        my $ports = join '', map { "$_\n" } sort { $a <=> $b } values %up;
        if ($ports ne $said) {
            open my $o, '>', "$open.new" or die; print $o $ports; close $o;
            rename "$open.new", $open or die;
            $said = $ports;
        }
        if (-e $cut) {
            for (@all) { setsockopt($_, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0)); close $_ }
            @all = (); %peer = (); %up = ();
            unlink $cut;
        }
        my @watch = -e $flag ? ($lst) : ($lst, @all);
        for my $s (IO::Select->new(@watch)->can_read(0.05)) {
            if ($s == $lst) {
                my $c = $lst->accept or next;
                my $u = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ENV{FORMSVC_PGPORT}");
                if (!$u) { close $c; next }
                $peer{$c} = $u; $peer{$u} = $c; push @all, $c, $u;
                $up{$u} = $u->sockport;
                next;
            }
            next unless $peer{$s};
            my $got = sysread($s, my $buf, 65536);
            if (!$got) {
                my $o = delete $peer{$s}; delete $peer{$o};
                delete $up{$s}; delete $up{$o};
                @all = grep { $_ != $s && $_ != $o } @all;
                close $s; close $o;
                next;
            }
            my $off = 0;
            while ($off < $got) { my $w = syswrite($peer{$s}, $buf, $got - $off, $off); last unless $w; $off += $w }
        }
    }
}
close $lst;
END { kill 'KILL', $proxy if $proxy; unlink $flag, $cut, $open, "$open.new" if $flag }

# The proxy's connections to PostgreSQL that are still open, by local port.
sub proxied {
    open my $fh, '<', $open or return {};
    return { map { chomp; ($_ => 1) } <$fh> };
}
# Waits until the proxy has closed its side of each of the ports given (the
# sessions behind them ended): only then does the instance see them dead.
sub proxy_closed {
    my @ports = @_;
    return wait_for(sub { my $p = proxied(); !grep { $p->{$_} } @ports }, 10,
                    "the proxy to close the connections of ports @ports");
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

    # The suite's own server shares this PostgreSQL: its background workers
    # may meet it restarting (FormsvcTest::expect_log tells t/99_errorlog.t).
    my @before = keys %{ proxied() };
    FormsvcTest::expect_log([FormsvcTest::outage_lines()], sub {
        system('bash', "$ENV{FORMSVC_ROOT}/scripts/pg", 'restart', $ENV{FORMSVC_PGDIR}, 'immediate') == 0
            or die 'immediate restart failed';
        # idle, but less than DBDExptime: the dead connections stay in the pool
        # (past it mod_dbd would drop them unused and open new ones)
        sleep 3;
    });
    ok proxy_closed(@before), 'the sessions of before the restart are closed on the instance\'s side';
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
        proxy_closed(grep { $_ } @ports);
        return @rows;
    });
    my $killed = @ended;
    cmp_ok $killed, '>', 0, "sessions terminated ($killed)";
    is_deeply [ grep { !/ (t|true)$/ } @ended ], [], 'each backend exited within 5 s';
    $mark = length $inst->error_log;
    $c = burst_codes($inst, 8, 5, $tok);
    is $c->{503} // 0, 0, 'after pg_terminate_backend of every session: no 503';
    is_deeply $c, { 200 => 40 }, 'every request of the burst 200';
    is_deeply [ sent_on_dead_sessions($inst, $mark) ], [],
        'terminated sessions were renewed before a statement was sent on them';

    # every pooled connection reset on the way (RST), the database up
    open my $fh, '>', $cut or die; close $fh;
    ok wait_for(sub { !-e $cut }, 10, 'the proxy to reset its connections'), 'every connection reset';
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
    # a session that holds the keys table for 4 s: authentication waits on it
    my $locker = fork // die;
    if (!$locker) {
        exec('psql', '-X', '-q', '-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres',
             '-d', 'formsvc', '-c', 'BEGIN; LOCK TABLE keys IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT;')
            or POSIX::_exit(127);
    }
    ok wait_for(sub { psql("SELECT count(*) FROM pg_locks WHERE relation = 'keys'::regclass "
                           . "AND mode = 'AccessExclusiveLock' AND granted") > 0 }, 10, 'the lock on keys'),
        'another session holds the keys table';
    my $t0 = time;
    my $r = $inst->api(GET => '/v1/me', token => $tok);
    my $took = time - $t0;
    is $r->code, 503, 'a statement cancelled by statement_timeout: 503 (not 500)';
    ok $r->header('Retry-After'), 'with Retry-After';
    like $r->{json}{type} // '', qr{/problems/service-unavailable$}, 'service-unavailable problem';
    cmp_ok $took, '<', 3, sprintf('within the bound (%.1f s)', $took);
    waitpid($locker, 0);
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
    open my $fh, '>', $flag or die; close $fh;
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
    unlink $flag;
    # connection attempts begun while it hung end within connect_timeout;
    # until then the others are answered 503 at once rather than queued
    my $t1 = time;
    wait_for(sub { $inst->api(GET => '/v1/me', token => $tok)->code == 200 }, 5, '/v1/me to answer 200');
    cmp_ok time - $t1, '<', 4, sprintf('200 again %.1f s after the database answers', time - $t1);
    my @after;
    for (1 .. 10) { push @after, $inst->api(GET => '/v1/me', token => $tok)->code }
    is_deeply [ grep { $_ != 200 } @after ], [], 'and from then on';
    $inst->stop;
}

done_testing;
