# A bulk delete's step (fs_purge_step, DELETE ...?before= of more than
# 1,000 rows, run by the retention task in batches) racing another
# deletion of the same rows (the owner's DELETE of one submission, the
# retention task's expiry, a second bulk delete): a batch that deleted
# fewer rows than it asked for because another session took some of them
# is not the end; the bulk delete finishes only once no row before its
# time is left. Two sessions of the test's own (psql), the step's in a
# transaction that also makes the bulk delete, so that the server's own
# retention task never sees it; the waits are on PostgreSQL's state.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(make_form);
use File::Temp ();

my ($tok) = signup();
my $f = make_form($tok, { title => 'Purge race' });
my $fid = $f->{id};
my $tag = sprintf '%d%d', $$, time;

# eight old submissions, oldest first (in time and in id), a minute apart
# (their ids begin with the time of now, the partition of this month)
my $pre = psql("SELECT left(fs_new_id('sub_'), 14)") . 'RACE' . substr(sprintf('%08d', $$), -8);
psql("INSERT INTO submissions (id, form_id, user_id, form_version, data, created_at) "
   . "SELECT '$pre' || lpad(g::text, 4, '0'), f.id, f.user_id, f.version, '{}', "
   . "  now() - interval '1 day' + g * interval '1 minute' "
   . "FROM forms f, generate_series(1, 8) g WHERE f.id = '$fid'");
my $left = "SELECT count(*) FROM submissions WHERE form_id = '$fid'";
is psql($left), 8, 'eight submissions';

sub session {
    my ($name, $out) = @_;
    delete local $ENV{LD_PRELOAD};
    local $ENV{PGAPPNAME} = "formsvc_test_$name$$";
    open my $fh, '|-', "psql -X -q -At -v ON_ERROR_STOP=1 -h '$ENV{FORMSVC_PGSOCK}' -p '$ENV{FORMSVC_PGPORT}' "
                     . "-U postgres -d formsvc >'$out' 2>&1" or die "psql: $!";
    $fh->autoflush(1);
    return $fh;
}
sub state_of { psql("SELECT coalesce(state, '') || '/' || coalesce(wait_event_type, '') FROM pg_stat_activity "
                  . "WHERE application_name = 'formsvc_test_$_[0]$$'") }

my $dir = File::Temp->newdir;
# session a deletes the oldest submission (the owner's DELETE) and holds
# its transaction open
my $a = session('a', "$dir/a");
print $a "BEGIN;\nDELETE FROM submissions WHERE id = '${pre}0001';\n";
ok wait_for(sub { state_of('a') eq 'idle in transaction/Client' }, 10, 'session a holding the row'),
   'another session deletes the oldest row, not committed yet';
# session b: a bulk delete of all eight, its first step of three rows,
# which waits for the oldest row
my $b = session('b', "$dir/b");
print $b "BEGIN;\n"
       . "INSERT INTO submission_purges (id, user_id, form_id, before) "
       . "  SELECT 'prg_race$tag', user_id, id, now() FROM forms WHERE id = '$fid';\n"
       . "SELECT deleted || '|' || done FROM fs_purge_step('prg_race$tag', 3);\n";
ok wait_for(sub { state_of('b') =~ m{^active/Lock$} }, 10, 'session b waiting for the row'),
   'the step waits for that row';
print $a "COMMIT;\n"; close $a;
ok wait_for(sub { state_of('b') eq 'idle in transaction/Client' }, 10, 'session b done'), 'the step went on';
print $b "COMMIT;\n"; close $b;
my $step = do { local (@ARGV, $/) = "$dir/b"; <> } // '';
$step =~ s/\s+\z//;
like $step, qr/^2\|/, 'the step deleted two rows (the third was gone)';
is $step, '2|false', 'so the bulk delete is not done';
# the rest, as the task goes on (the server's retention task may take
# the queued purge from here as soon as session b committed, so what is
# left now is not looked at: only that every row goes and is counted)
my $steps = 0;
$steps++ until psql("SELECT done FROM fs_purge_step('prg_race$tag', 3)") eq 't' || $steps > 10;
is psql($left), 0, 'its next steps delete the five';
is psql("SELECT deleted FROM submission_purges WHERE id = 'prg_race$tag' AND finished_at IS NOT NULL"), 7,
   'it is finished, counting the seven it deleted';
is psql("SELECT payload->>'count' FROM events WHERE form_id = '$fid' AND type = 'submissions.deleted' "
      . "AND payload->>'purgeId' = 'prg_race$tag'"), 7, 'one submissions.deleted event, count 7';
done_testing;
