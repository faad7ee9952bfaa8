# The retention pass runs under a session-level advisory lock (one pass at
# a time over every child). When the pass's database session is renewed
# under it (the server ended it, the store reconnected), the lock is gone
# with the old session, and another child may start a pass of its own: the
# pass ends there (FS02163) after the statement the store retried on the
# new session (a batch, which another pass may run too), and the next pass
# takes the lock again and finishes the work.
# The pass is held inside its delete (the rows locked by a session of the
# test), and its session is ended by pg_terminate_backend.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use POSIX ();

my ($tok) = signup();
# aged rows of a form without retention (kept), locked, then the form
# given a retention of a day: the next pass's delete waits for the rows
my $f = make_form($tok, { title => 'Kept a day',
                          fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
my @old = map { insert_submission($f->{id}, { name => "old $_" }, created => '2020-01-01T00:00:00Z') } 1 .. 3;
my $in = join ', ', map { "'$_'" } @old;
my $app = "formsvc_test_rows_$$";
my $kid = fork // die "fork: $!";
if (!$kid) {
    delete $ENV{LD_PRELOAD};
    open STDOUT, '>', '/dev/null';
    open STDERR, '>', '/dev/null';
    exec('psql', '-X', '-q', '-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres',
         '-d', 'formsvc', '-c', "SET application_name = '$app'; BEGIN; "
         . "SELECT count(*) FROM (SELECT 1 FROM submissions WHERE id IN ($in) FOR UPDATE) x; "
         . "SELECT pg_sleep(60); COMMIT;") or POSIX::_exit(127);
}
ok wait_for(sub { psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app' "
                       . "AND wait_event = 'PgSleep'") == 1 }, 10, 'the rows locked'), 'the old rows are locked';
my $holder = "SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted "
           . "AND l.objid = (hashtext('formsvc.retention')::bigint & 4294967295)::oid";
my $log = "$FindBin::Bin/logs/error_log";
my $from = -s $log;
expect_log([ outage_lines(), qr/FS02163: retention: the database session was renewed/,
             qr/FS00313: database session renewed/, qr/FS02155: retention: deleting old submissions failed/,
             qr/FS00318: statement fs_retention_batch failed/,
             qr/FS00317: statement fs_retention_batch: database busy/ ], sub {
    is api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => { retentionDays => 1 } })->code,
       200, 'the form now keeps a day';
    my $pid;
    ok wait_for(sub {
        $pid = psql("SELECT a.pid FROM pg_stat_activity a WHERE a.pid IN ($holder) AND a.wait_event_type = 'Lock'");
        $pid;
    }, 20, 'the pass waiting in its delete'), 'a pass holds the lock and waits for the rows';
    psql("SELECT pg_terminate_backend($pid, 5000)");
    ok wait_for(sub {
        open my $fh, '<', $log or return 0;
        seek $fh, $from, 0;
        local $/;
        my $new = <$fh> // '';
        $new =~ /FS02163: retention: the database session was renewed/;
    }, 20, 'the pass to end'), 'the pass whose session was renewed ends (FS02163)';
    psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '$app'");
    waitpid($kid, 0);
    ok wait_for(sub { psql("SELECT count(*) FROM submissions WHERE id IN ($in)") == 0 }, 20, 'the next pass'),
       'the next pass deletes the rows';
});
is psql("SELECT count(*) FROM submissions WHERE id IN ($in)"), 0, 'none left';
done_testing;
