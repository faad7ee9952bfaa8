# /metrics says whether the background jobs keep up (docs/operations.md,
# "Are the background jobs healthy?"): accounts being erased and the age
# of the oldest, bulk deletes queued, and how far ahead the partitions of
# submissions reach. The erasure is held back by taking its advisory lock
# in a session of the test (one erasure step runs at a time across every
# child and machine: a child that finds the lock taken skips its turn).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(psql user_of);
use POSIX ();

sub metrics {
    my $r = api(GET => '/metrics');
    my %m;
    for (split /\n/, $r->content) { $m{$1} = $2 if /^(formsvc_[a-z_]+) (-?\d+)$/ }
    return \%m;
}

my $m = metrics();
for my $name (qw(formsvc_erasures_pending formsvc_erasures_oldest_seconds formsvc_purges_pending
                 formsvc_purges_oldest_seconds formsvc_partitions_ahead_seconds)) {
    ok defined $m->{$name}, "$name in /metrics";
}
# the migration and the partitions task make this month and three more
cmp_ok $m->{formsvc_partitions_ahead_seconds} // 0, '>', 60 * 86400,
    'the partitions of submissions reach more than 60 days ahead';
cmp_ok $m->{formsvc_partitions_ahead_seconds} // 0, '<', 130 * 86400, 'and not past four months';

# hold the erasure's lock in a session of our own
my $app = "formsvc_test_erasure_lock_$$";
my $holder = fork // die;
if (!$holder) {
    open STDOUT, '>', '/dev/null';
    open STDERR, '>', '/dev/null';
    exec('psql', '-X', '-q', '-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres',
         '-d', 'formsvc', '-c', "SET application_name = '$app'; "
         . "SELECT pg_advisory_lock(hashtext('formsvc.erasure')); SELECT pg_sleep(60);")
        or POSIX::_exit(127);
}
ok wait_for(sub { psql("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                       . "WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = '$app'") == 1 },
            10, 'the erasure lock'), 'the test holds the erasure\'s lock';

my ($tok) = signup();
my $uid = user_of($tok);
my $email = psql("SELECT email FROM users WHERE id = '$uid'");
my $del = api(DELETE => '/v1/me', token => $tok, body => { confirm => $email });
is $del->code, 202, 'DELETE /v1/me: 202';
# backdated, so that the oldest's age is visible at once
psql("UPDATE users SET deleted_at = now() - interval '1 hour' WHERE id = '$uid'");
$m = metrics();
cmp_ok $m->{formsvc_erasures_pending}, '>=', 1, 'the erasure is pending while its lock is held';
cmp_ok $m->{formsvc_erasures_oldest_seconds}, '>=', 3600, 'the oldest is an hour old';
is psql("SELECT count(*) FROM users WHERE id = '$uid'"), 1, 'no step was taken meanwhile';

psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '$app'");
waitpid $holder, 0;
ok wait_for(sub { psql("SELECT count(*) FROM users WHERE id = '$uid'") == 0 }, 30, 'the account erased'),
    'once the lock is free, the erasure goes on';

done_testing;
