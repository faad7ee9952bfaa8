package FormsvcTest;
# Helpers for the Apache::Test suite: JSON requests against the real httpd,
# signing up fresh accounts, and reading problem documents.
use strict;
use warnings;
use Apache::Test;
use Apache::TestRequest ();
use Digest::MD5 ();
use File::Basename ();
use FindBin ();
use JSON::PP ();
use Time::HiRes ();
use POSIX ();
use Exporter 'import';

our @EXPORT = qw(api json_of signup base_url BASE uniq_email pg_ctl node_ready wait_for);

use constant BASE => '/api';
my $json = JSON::PP->new->canonical->allow_nonref;
my $n = 0;

sub base_url { Apache::TestRequest::module2url('', { path => BASE }) =~ s{/$}{}r }

sub uniq_email { sprintf 'u%d.%d.%d@example.com', $$, time, ++$n }

# api(METHOD, PATH, body => REF|STRING, token => SECRET, headers => {...})
# Returns the HTTP::Response; the decoded body is in $res->{json}.
sub api {
    my ($method, $path, %o) = @_;
    my @h;
    push @h, Authorization => "Bearer $o{token}" if defined $o{token};
    my %hdr = %{ $o{headers} || {} };
    my $body = $o{body};
    if (ref $body) {
        $body = $json->encode($body);
        $hdr{'Content-Type'} //= 'application/json';
    } elsif (defined $body) {
        $hdr{'Content-Type'} //= 'application/json';
    }
    push @h, %hdr;
    my $url = BASE . $path;
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $res;
    if ($method eq 'GET') { $res = Apache::TestRequest::GET($url, @h) }
    elsif ($method eq 'HEAD') { $res = Apache::TestRequest::HEAD($url, @h) }
    else {
        my $req = HTTP::Request->new($method => Apache::TestRequest::resolve_url($url));
        $req->header(@h) if @h;
        $req->content($body) if defined $body;
        $req->header('Content-Length' => length($body // '')) ;
        $res = $ua->request($req);
    }
    $res->{json} = json_of($res);
    return $res;
}

sub json_of {
    my $res = shift;
    my $ct = $res->header('Content-Type') // '';
    return undef unless $ct =~ m{json};
    return eval { $json->decode($res->decoded_content // $res->content) };
}

# node_ready(PACKAGE, ...): 1 when node runs and t/js/node_modules holds
# each npm package named (scripts/install-deps installs both). Otherwise
# a failed test saying what is missing, and 0 for the caller to skip the
# rest: make test installs them, so missing is a broken set-up, not a
# reason to pass. FORMSVC_SKIP_NODE=1 (also honoured by install-deps)
# turns the failure into a plain skip, for machines without npm access.
sub node_ready {
    my @pkgs = @_;
    my $js = "$FindBin::Bin/js";
    my @missing = grep { !-d "$js/node_modules/$_" } @pkgs;
    unshift @missing, 'node' unless system('node --version >/dev/null 2>&1') == 0;
    return 1 unless @missing;
    return 0 if $ENV{FORMSVC_SKIP_NODE};
    Test::More::fail("node clients ready (scripts/install-deps installs them; "
                     . "FORMSVC_SKIP_NODE=1 to skip): missing @missing");
    return 0;
}

# wait_for(COND, TIMEOUT, WHAT): waits for something to happen. Calls
# COND (a sub) at once and then every 20 ms, then less often (up to every
# 200 ms) as the wait grows, until it returns a true value, and returns
# that value; after TIMEOUT seconds it says what it waited for (diag) and
# returns COND's last (false) value. It is no test itself: the caller
# asserts on what it returns, e.g.
#   ok wait_for(sub { -e $file }, 10, 'the spool file'), 'the mail is spooled';
# FORMSVC_WAIT_SCALE (a factor, default 1) lengthens every timeout on a
# slow machine. A test sleeps only where time itself is the subject (a TTL,
# a rate window), with a margin.
sub wait_for {
    my ($cond, $timeout, $what) = @_;
    $timeout *= $ENV{FORMSVC_WAIT_SCALE} || 1;
    my $t0 = Time::HiRes::time();
    my $pause = 0.02;
    for (;;) {
        my $v = $cond->();
        return $v if $v;
        my $left = $t0 + $timeout - Time::HiRes::time();
        if ($left <= 0) {
            Test::More::diag(sprintf 'waited %.1f s for %s: it did not happen', $timeout, $what // 'a condition');
            return $v;
        }
        Time::HiRes::sleep($pause < $left ? $pause : $left);
        $pause *= 1.5 if $pause < 0.2;
    }
}

# until_true(COND, MAX): how long after now an old state was still seen:
# the time (s) at which the last call of COND that returned false was
# made (0 when the first call is already true), or undef when COND is
# still false after MAX seconds. Timed by when each call was made, not by
# when it returned, so that a slow answer on a busy machine is not taken
# for a late change: for checks such as "B serves the change within 1 s"
# (t/64, t/68). Polls every 20 ms.
sub until_true {
    my ($cond, $max) = @_;
    my $t0 = Time::HiRes::time();
    my $stale = 0;
    for (;;) {
        my $sent = Time::HiRes::time() - $t0;
        return $stale if $cond->();
        $stale = $sent;
        return undef if Time::HiRes::time() - $t0 >= $max;
        Time::HiRes::sleep(0.02);
    }
}
# clear_of_boundary(W, NEED): rate-limit windows of W seconds are aligned
# to the clock; when fewer than NEED seconds (default 15) are left of the
# current one, sleeps into the next (1 s past its start), so that a run
# does not straddle two windows. The clock itself is the subject here.
sub clear_of_boundary {
    my ($w, $need) = @_;
    my $left = $w - time % $w;
    sleep $left + 1 if $left < ($need // 15);
}
our @EXPORT_OK = qw(until_true silently clear_of_boundary);

# A fresh account: returns ($secret, $signup_result).
sub signup {
    my $res = api(POST => '/v1/signup', body => { email => uniq_email() });
    die "signup failed: " . $res->status_line . " " . $res->content unless $res->code == 201;
    return ($res->{json}{apiKey}{secret}, $res->{json});
}

# expect_log([qr/.../, ...], sub { ... }): error-log lines this test
# provokes on purpose. A line that the suite's server writes to its error
# log while the code runs, and that matches one of the patterns, is
# expected; t/99_errorlog.t allows it there and nowhere else. Each call
# appends a record (the byte range of the log, a digest of those bytes so a
# record of another log is not applied, the patterns) to
# logs/expected_errors. Returns what the code returns.
sub expect_log {
    my ($patterns, $code) = @_;
    my $log = "$FindBin::Bin/logs/error_log";
    my $from = -s $log // 0;
    my @ret = $code->();
    # lines of the last requests are written before their answers, but a
    # child may still be finishing one of a request that gave up (a client
    # timeout) or a worker's round: the window ends once the log has been
    # quiet for 0.2 s (at most 5 s after the code returned)
    my $to = -s $log // 0;
    my $quiet = Time::HiRes::time();
    wait_for(sub {
        my $now = -s $log // 0;
        if ($now != $to) { $to = $now; $quiet = Time::HiRes::time(); return 0 }
        return Time::HiRes::time() - $quiet >= 0.2;
    }, 5, 'the error log to be quiet');
    $to = -s $log // 0;
    open my $fh, '<', $log or die "$log: $!";
    seek $fh, $from, 0;
    read $fh, my $bytes, $to - $from;
    close $fh;
    my $rec = { test => File::Basename::basename($0), from => $from, to => $to,
                md5 => Digest::MD5::md5_hex($bytes), patterns => [ map { "$_" } @$patterns ] };
    open my $out, '>>', "$FindBin::Bin/logs/expected_errors" or die $!;
    print $out $json->encode($rec), "\n";
    close $out;
    return wantarray ? @ret : $ret[0];
}
push @EXPORT, 'expect_log';

# What the server writes while PostgreSQL is away (stopped, restarting):
# mod_dbd's errors, the store's notes, "no connection" for the requests,
# the workers' failed rounds, a child that starts meanwhile. For expect_log, with the 503s
# of the requests the test makes. A worker's commit cut by a fast shutdown
# may end with no result and no libpq message at all ("no result"): its
# outcome is unknown all the same.
sub outage_lines {
    return (qr/\[dbd:error\] /, # mod_dbd: cannot connect, prepare, acquire
            qr/FS00311: database connection lost|FS00312: preparing statements again failed|FS00316: statement \S+: no answer from the database|FS00319: database connection lost after statement|FS00395: statement \S+: database connection lost inside a transaction|FS00396: statement \S+: its commit was sent and no outcome came back \(waited up to \d+ ms: (FATAL|server closed|SSL|no connection|could not receive|terminating|no result)|FS00320: statement \S+ failed after reconnecting \((08|57P0[123]|-)/,
            qr/FS00101: no database connection available/,
            qr/FS02160: rolling up submission counts failed: The database cannot be reached/,
            qr/FS02155: retention: [A-Za-z ]+ failed: The database cannot be reached/,
            qr/FS00306: database not reachable at start/);
}
push @EXPORT, 'outage_lines';

# Controls the test PostgreSQL: pg_ctl('restart'|'stop'|'start').
sub pg_ctl {
    my $cmd = shift;
    my $dir = $ENV{FORMSVC_PGDIR} or die "FORMSVC_PGDIR not set";
    my @args = ($cmd, $dir);
    push @args, $ENV{FORMSVC_PGPORT} if $cmd eq 'start';
    system('bash', "$ENV{FORMSVC_ROOT}/scripts/pg", @args) == 0 or die "pg $cmd failed";
}

# psql(SQL, db => NAME): runs SQL (one or more statements, as one -c) as
# postgres on the test database, or on database NAME;
# returns psql's unaligned, tuples-only output with trailing white space
# removed (command tags are not printed: -q). Dies when psql fails. The
# suite's one psql (FormsTest, PublicTest and FormsvcMail export it too);
# sql is another name for it.
sub psql {
    my ($q, %o) = @_;
    # under make test-asan the sanitizer runtime is preloaded for httpd;
    # psql must not get it
    delete local $ENV{LD_PRELOAD};
    open my $fh, '-|', 'psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-h', $ENV{FORMSVC_PGSOCK},
        '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres', '-d', $o{db} // 'formsvc', '-c', $q
        or die "psql: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh or die "psql failed for: $q";
    $out =~ s/\s+\z//;
    return $out;
}
{ no warnings 'once'; *sql = \&psql; }
push @EXPORT, 'psql', 'sql';

# lock_tables(MODE, SECONDS, TABLE...): a session of its own (psql in a
# child process, its application_name formsvc_test_lock_<pid>) that takes
# LOCK TABLE ... IN MODE MODE on the TABLEs and holds it for SECONDS, then
# ends. Returns once PostgreSQL has granted every one of the locks, or
# after 10 s: { pid => the child's pid (waitpid it to wait for the end),
# app => the session's application_name, granted => how many of the locks
# are held (the caller checks it) }. end_lock(LOCK) ends the session at
# once (pg_terminate_backend) and reaps the child.
sub lock_tables {
    my ($mode, $secs, @tables) = @_;
    my $app = "formsvc_test_lock_$$" . '_' . ++$n;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        delete $ENV{LD_PRELOAD};
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', '/dev/null';   # its end, when terminated, is no error of the test
        exec('psql', '-X', '-q', '-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres',
             '-d', 'formsvc', '-c', "SET application_name = '$app'; BEGIN; LOCK TABLE "
             . join(', ', @tables) . " IN $mode MODE; SELECT pg_sleep($secs); COMMIT;")
            or POSIX::_exit(127);
    }
    my $lockmode = join('', map { ucfirst lc } split ' ', $mode) . 'Lock';   # SHARE -> ShareLock
    my $list = join ', ', map { "'$_'" } @tables;
    my $granted = 0;
    wait_for(sub {
        ($granted = psql("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                       . "JOIN pg_stat_activity a ON a.pid = l.pid WHERE c.relname IN ($list) "
                       . "AND l.mode = '$lockmode' AND l.granted AND a.application_name = '$app'")) == @tables;
    }, 10, "the lock on @tables");
    return { pid => $pid, app => $app, granted => $granted };
}
sub end_lock {
    my $lock = shift;
    psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '$lock->{app}'");
    waitpid($lock->{pid}, 0);
}
push @EXPORT_OK, qw(lock_tables end_lock);

# silently(SQL): psql with the triggers off (session_replication_role =
# replica): a change behind the module's back, which notifies no cache.
sub silently { psql("SET session_replication_role = replica; $_[0]") }

1;
