# A respondent's erasure (POST /v1/erasures) racing an edit of one of the
# submissions it must erase (settings.allowEdits): the edit, not yet
# committed, changes the address away; the erasure waits for that row and
# must still erase it, since an earlier version of its answers (the one
# the erasure saw) held the address. Before, the erasure re-checked only
# the changed row and not its versions, and the submission stayed with the
# address in its first version and in its submission.created event. The
# edit runs in a session of the test's own (psql), the erasure as the API
# call; the waits are on PostgreSQL's state, never a fixed sleep.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(make_form);
use File::Temp ();
use POSIX ();

my ($tok) = signup();
my $f = make_form($tok, { title => 'Erasure race', fields => [{ key => 'email', type => 'email', label => 'E-mail' }],
                          settings => { allowEdits => { untilHours => 2 } } });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $r = api(POST => "/f/$fid", body => { email => 'gone@example.org' });
is $r->code, 201, 'a submission answering gone@example.org' or diag $r->content;
my $sid = $r->{json}{id};
my $ver = psql("SELECT version FROM forms WHERE id = '$fid'");

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
# the edit, as the edit link's post makes it, held before its commit
my $e = session('edit', "$dir/edit");
print $e "BEGIN;\nSELECT outcome FROM fs_submission_edit('$sid', '$fid', '{\"email\": \"other\@example.org\"}', "
       . "NULL, NULL, $ver, 2, fs_new_id('evt_'), NULL);\n";
ok wait_for(sub { state_of('edit') eq 'idle in transaction/Client' }, 10, 'the edit made'),
   'an edit changes the address away, not committed yet';
# the erasure, in a child
pipe(my $rd, my $wr) or die $!;
my $kid = fork // die "fork: $!";
if (!$kid) {
    close $rd;
    my $x = api(POST => '/v1/erasures', token => $tok, body => { email => 'gone@example.org' });
    print $wr $x->code, ' ', ($x->{json}{deleted} // ''), "\n";
    close $wr;
    POSIX::_exit(0);
}
close $wr;
ok wait_for(sub { psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                     . "AND query LIKE '%AS uid, lower(btrim(%'") > 0 }, 10, 'the erasure waiting'),
   'the erasure waits for the edited row';
print $e "COMMIT;\n"; close $e;
my $got = <$rd> // ''; close $rd; waitpid $kid, 0;
chomp $got;
is do { local (@ARGV, $/) = "$dir/edit"; <> } =~ s/\s+\z//r, 'ok', 'the edit was stored';
is $got, '200 1', 'the erasure: 200, one deleted';
is psql("SELECT count(*) FROM submissions WHERE id = '$sid'"), 0, 'the submission is gone';
is psql("SELECT count(*) FROM submission_versions WHERE submission_id = '$sid'"), 0, 'with its versions';
is psql("SELECT count(*) FROM events WHERE submission_id = '$sid' AND payload::text LIKE '%gone\@example.org%'"), 0,
   'no event keeps the address';
done_testing;
