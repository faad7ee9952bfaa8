# A step's save of partial answers (Next, "save and continue later", the
# page's autosave) racing the Submit of the same filling-in (another tab,
# an autosave sent just before the click): the save must not leave a
# partial row (and a submission.partial event with the answers) behind a
# submission that is complete. Made certain with a session of the test's
# own that holds the partial row: the Submit waits to delete it, the save
# waits behind it; once released the Submit commits first. Waits are on
# PostgreSQL's state, never a fixed sleep.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(make_form);
use Apache::TestRequest ();
use HTTP::Request ();
use LWP::UserAgent ();
use File::Temp ();
use POSIX ();
use JSON::PP ();
use URI::Escape qw(uri_escape_utf8);

my $T = JSON::PP::true;
my ($tok) = signup();
sub abs_url { my $u = shift; $u =~ m{^https?://} ? $u : Apache::TestRequest::resolve_url(BASE . $u) }
sub unent { my $s = shift; $s =~ s/&quot;/"/g; $s =~ s/&#39;/'/g; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; $s }
sub ua { LWP::UserAgent->new(timeout => 60, max_redirect => 0) }
sub page_of {
    my $res = shift;
    my $html = $res->decoded_content // $res->content // '';
    my %p = (code => $res->code, html => $html);
    $p{action} = unent($1) if $html =~ /<form method="post" action="([^"]*)"/;
    push @{ $p{hidden} }, [$1, unent($2)] while $html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
    return \%p;
}
sub post {
    my ($pg, $nav, @answers) = @_;
    my @pairs = (@{ $pg->{hidden} || [] }, @answers, ['_nav', $nav]);
    my $req = HTTP::Request->new(POST => abs_url($pg->{action}));
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html');
    $req->content($body);
    return ua()->request($req);
}

my $f = make_form($tok, { title => 'Save race', settings => { partial => $T }, fields => [
    { key => 'p1', type => 'page', label => 'One' },
    { key => 'name', type => 'text', label => 'Name', required => $T },
    { key => 'p2', type => 'page', label => 'Two' },
    { key => 'stars', type => 'rating', label => 'Stars', required => $T } ] });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $p2 = page_of(post(page_of(ua()->get(abs_url("/f/$fid"), Accept => 'text/html')), 'next', [name => 'Ada']));
my ($resume) = map { $_->[1] } grep { $_->[0] eq '_resume' } @{ $p2->{hidden} || [] };
ok $resume, 'on page 2, a partial kept';
my ($pid) = psql("SELECT id FROM submission_partials WHERE form_id = '$fid'");
ok $pid, 'its row';

my $dir = File::Temp->newdir;
my $hold = do {
    delete local $ENV{LD_PRELOAD};
    local $ENV{PGAPPNAME} = "formsvc_test_hold$$";
    open my $fh, '|-', "psql -X -q -At -v ON_ERROR_STOP=1 -h '$ENV{FORMSVC_PGSOCK}' -p '$ENV{FORMSVC_PGPORT}' "
                     . "-U postgres -d formsvc >'$dir/hold' 2>&1" or die "psql: $!";
    $fh->autoflush(1);
    $fh;
};
print $hold "BEGIN;\nSELECT 1 FROM submission_partials WHERE id = '$pid' FOR UPDATE;\n";
ok wait_for(sub { psql("SELECT state FROM pg_stat_activity WHERE application_name = 'formsvc_test_hold$$'") eq 'idle in transaction' },
            10, 'the row held'), 'another session holds the partial row';
# how many sessions wait for a lock running a statement with that text
sub waiting { psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = 'formsvc' "
                 . "AND query LIKE '%$_[0]%'") }
sub in_child {
    my $run = shift;
    pipe(my $rd, my $wr) or die $!;
    my $kid = fork // die "fork: $!";
    if (!$kid) { close $rd; print $wr $run->(); close $wr; POSIX::_exit(0) }
    close $wr;
    return sub { my $v = <$rd> // ''; close $rd; waitpid $kid, 0; $v };
}
my $submit = in_child(sub { post($p2, 'submit', [stars => 5])->code });
ok wait_for(sub { waiting('::text AS pid, ') == 1 }, 10, 'the Submit waiting'), 'Submit waits for the row';
my $save = in_child(sub { post($p2, 'save', [stars => 4])->code });
ok wait_for(sub { waiting('fs_partial_save(') == 1 }, 10, 'the save waiting'), 'the save waits too';
print $hold "COMMIT;\n"; close $hold;
is $submit->(), 303, 'Submit: 303';
like $save->(), qr/^(200|409)$/, 'the save: answered';
is psql("SELECT count(*) FROM submissions WHERE id = '$pid'"), 1, 'the submission stored';
is psql("SELECT count(*) FROM submission_partials WHERE form_id = '$fid'"), 0, 'no partial row left behind it';
is psql("SELECT count(*) FROM events WHERE submission_id = '$pid' AND type = 'submission.partial' "
      . "AND payload ? 'data'"), 0, 'no submission.partial event with answers after the completion';
is scalar @{ api(GET => "/v1/forms/$fid/submissions?completed=false", token => $tok)->{json}{data} || [] }, 0,
   'none listed unfinished';
done_testing;
