# The retention pass's session is ended mid-pass (pg_terminate_backend; a
# restart or FormsvcDBTimeout does the same). Its advisory lock, which lets
# one pass run at a time across every child and machine, lived on that
# session. The store used to renew the session and go on: the rest of the
# pass ran without the lock, beside any pass another child took it for.
# Now the pass stops there (FS00331) and leaves the rest to the next one.
#
# A database of its own (advisory locks are per database, and the suite's
# own server runs a pass every second on the shared one), one child, a
# pass every hour (the first at the child's start). The pass is held by a
# lock on the audit entry where it deletes the entries past FormsvcAuditRetentionDays,
# its session ended, then the lock released: the old entry is still there
# (the old code deleted it on a renewed session, without the lock).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql wait_for);
use POSIX ();

delete $ENV{LD_PRELOAD};
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
my $db = "formsvc_retlost_$$";
my $app = "fsretlost$$";
sub dbq { psql($_[0], db => $db) }
psql("CREATE DATABASE $db", db => 'postgres');
END { eval { psql("DROP DATABASE IF EXISTS $db WITH (FORCE)", db => 'postgres') } }
system('bash', "$root/scripts/formsvc-admin", '--sql-dir', "$root/sql", 'migrate', '--', '-h', $ENV{FORMSVC_PGSOCK},
       '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres', $db) == 0 or die 'migrate';

dbq("INSERT INTO users (id, email, email_norm) VALUES ('usr_retlost', 'r\@example.com', 'r\@example.com');"
  . "INSERT INTO audit (id, user_id, action, created_at) "
  . "VALUES ('aud_retlost', 'usr_retlost', 'forms.created', now() - interval '400 days')");

# a session of the test's holding the audit entry (a row lock: a table lock
# would hold every new session's PREPARE too) until it is ended
my $locker = "fsretlock$$";
my $lpid = fork // die;
if (!$lpid) {
    open STDOUT, '>', '/dev/null';
    open STDERR, '>', '/dev/null';
    exec('psql', '-X', '-q', '-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres', '-d', $db,
         '-c', "SET application_name = '$locker'; BEGIN; SELECT 1 FROM audit WHERE id = 'aud_retlost' FOR UPDATE; "
             . "SELECT pg_sleep(60); COMMIT;") or POSIX::_exit(127);
}
wait_for(sub { dbq("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                 . "WHERE a.application_name = '$locker' AND l.granted AND l.mode = 'RowShareLock'") > 0 },
         10, 'the lock on the audit entry') or BAIL_OUT('no lock');

my $inst = FormsvcInstance->start(name => 'retlost', db => $db, conf => <<"CONF");
ServerLimit 1
StartServers 1
ThreadsPerChild 10
MaxRequestWorkers 10
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=$db user=postgres connect_timeout=2 application_name=$app"
FormsvcDBTimeout 30
FormsvcRetentionInterval 3600
FormsvcAuditRetentionDays 30
FormsvcLogRepeatInterval 0
CONF

# the pass holds the advisory lock and waits to delete from audit
my $holder;
wait_for(sub {
    $holder = dbq("SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                . "WHERE l.locktype = 'advisory' AND l.objid = hashtext('formsvc.retention')::oid "
                . "AND a.application_name = '$app' AND a.wait_event_type = 'Lock'");
    $holder ne '';
}, 20, 'the pass to hold its lock and wait') or BAIL_OUT('the pass did not start');
ok $holder, "the pass holds the retention lock (session $holder) and waits";

is dbq("SELECT pg_terminate_backend($holder, 5000)"), 't', 'its session ended';
psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '$locker'",
     db => 'postgres');
waitpid($lpid, 0);

ok wait_for(sub { $inst->error_log =~ /FS00331: statement \w+: database session lost while it held a lock of ours/ },
            15, 'FS00331'), 'the pass stopped where its session was lost (FS00331)';
is dbq("SELECT count(*) FROM audit WHERE id = 'aud_retlost'"), 1,
    'the rest of the pass did not run without the lock (the old audit entry is still there)';
is dbq("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext('formsvc.retention')::oid"), 0,
    'and no session holds the retention lock';
is $inst->api(GET => '/readyz')->code, 200, 'the instance serves on';

$inst->stop;
done_testing;
