# Respondent links follow-ups (docs/api.md "Respondent
# links" and "Delegation rules"):
#   1. a link made by a delegate dies with it, like its webhooks: once the
#      delegate is revoked or expires, the link's URL answers 410
#      link-expired and the owner's API no longer shows it; rolling the
#      delegate moves its links to the new key. A delegate lists, reads and
#      deletes only the links made inside its tree; the owner sees all.
#   2. the Idempotency-Key of a public submission covers the link: the same
#      key through another link (or without one) is 422, not a replay.
use strict;
use warnings;
use Test::More;
use Time::HiRes ();
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;
use FormsTest;

my ($root) = signup();
my $form = make_form($root, { title => 'Delegated links', fields => [
    { key => 'name', type => 'text', label => 'Name' } ] });
my $fid = $form->{id};
is api(POST => "/v1/forms/$fid/publish", token => $root)->code, 200, 'published';
my $L = "/v1/forms/$fid/links";

sub new_link {
    my ($tok, $what) = @_;
    my $r = api(POST => $L, token => $tok, body => {});
    is $r->code, 201, "$what makes a link" or diag $r->content;
    my ($path) = ($r->{json}{url} // '') =~ m{/api(/f/.*)$};
    return ($r->{json}{id}, $path);
}
sub listed {
    my ($tok) = @_;
    my $r = api(GET => "$L?limit=100", token => $tok);
    return join ' ', sort map { $_->{id} } @{ $r->{json}{data} || [] };
}
sub submit { api(POST => $_[0], body => { name => 'x' }, headers => $_[1] || {}) }

# ---- 1. the tree: who sees which link ----------------------------------------
my $r = exchange($root, scope => 'forms:read forms:write keys:write', expires_in => 600);
my ($dt, $dt_id) = ($r->{json}{access_token}, $r->{json}{key}{id});
$r = api(POST => '/v1/keys', token => $dt, body => { name => 'child', scopes => ['forms:read', 'forms:write'] });
is $r->code, 201, 'the delegate makes a child key';
my ($child, $child_id) = ($r->{json}{secret}, $r->{json}{id});
$r = exchange($root, scope => 'forms:read forms:write', expires_in => 600);
my ($sib, $sib_id) = ($r->{json}{access_token}, $r->{json}{key}{id});

my ($ol, $opath) = new_link($root, 'the owner');
my ($dl, $dpath) = new_link($dt, 'the delegate');
my ($cl, $cpath) = new_link($child, 'its child');
my ($sl, $spath) = new_link($sib, 'a sibling delegate');
is eval { sql("SELECT created_by FROM links WHERE id = '$dl'") }, $dt_id, 'a link records the credential that made it';

is listed($root), join(' ', sort $ol, $dl, $cl, $sl), 'the owner lists every link';
is listed($dt), join(' ', sort $dl, $cl), 'a delegate lists the links of its tree only';
is listed($child), $cl, 'its child lists its own';
is listed($sib), $sl, 'a sibling lists its own';
problem_ok api(GET => "$L/$ol", token => $dt), 404, 'not-found', 'a delegate cannot read the owner\'s link';
problem_ok api(GET => "$L/$sl", token => $dt), 404, 'not-found', 'nor a sibling\'s';
is api(GET => "$L/$cl", token => $dt)->code, 200, 'but reads its child\'s';
problem_ok api(DELETE => "$L/$ol", token => $dt), 404, 'not-found', 'nor delete the owner\'s link';
problem_ok api(DELETE => "$L/$dl", token => $sib), 404, 'not-found', 'a sibling cannot delete the delegate\'s link';
is api(GET => "$L/$ol", token => $root)->code, 200, 'the owner\'s link stays';
is api(GET => "$L/$dl", token => $root)->code, 200, 'the owner reads the delegate\'s link';
is submit($dpath)->code, 201, 'the delegate\'s link takes submissions while it lives';

# ---- revocation: the delegate's links (and its child's) die with it -----------
is api(DELETE => "/v1/keys/$dt_id", token => $root)->code, 200, 'the delegate is revoked';
problem_ok submit($dpath), 410, 'link-expired', 'its link answers 410 link-expired';
problem_ok submit($cpath), 410, 'link-expired', 'and so does its child\'s';
problem_ok api(GET => $dpath, headers => { Accept => 'application/json' }), 410, 'link-expired',
    'opening it too';
# the statement that stores a submission checks again, with the link locked
# (a revocation between the page and the post)
is eval { sql("SELECT fs_link_admit_locked('$dl', '$fid', NULL)") }, 'expired',
    'the submission statement refuses it too';
is eval { sql("SELECT fs_link_admit_locked('$ol', '$fid', NULL)") }, 'ok', 'but not the owner\'s';
$r = api(GET => $dpath, headers => { Accept => 'text/html' });
is $r->code, 410, 'a 410 page for people';
problem_ok api(GET => "$L/$dl", token => $root), 404, 'not-found', 'the owner no longer sees it (like a webhook)';
is listed($root), join(' ', sort $ol, $sl), 'nor lists it';
problem_ok api(DELETE => "$L/$dl", token => $root), 404, 'not-found', 'nor deletes it';
is submit($opath)->code, 201, 'the owner\'s link still works';
is submit($spath)->code, 201, 'and the sibling\'s';

# ---- expiry counts too --------------------------------------------------------
$r = exchange($root, scope => 'forms:write forms:read', expires_in => 3);
my $short = $r->{json}{access_token};
my ($xl, $xpath) = new_link($short, 'a 3-second delegate');
is submit($xpath)->code, 201, 'its link works while it lives';
Time::HiRes::sleep(3.5);   # the token's 3 s life is the subject, with a margin
is api(GET => "$L/$ol", token => $short)->code, 401, 'the short token has expired';
problem_ok submit($xpath), 410, 'link-expired', 'and its link with it';
problem_ok api(GET => "$L/$xl", token => $root), 404, 'not-found', 'gone from the owner\'s API';

# ---- rolling moves the links to the new key -------------------------------------
$r = exchange($root, scope => 'forms:write forms:read keys:write', expires_in => 600);
my ($rt, $rt_id) = ($r->{json}{access_token}, $r->{json}{key}{id});
my ($rl, $rpath) = new_link($rt, 'a delegate that will roll');
$r = api(POST => "/v1/keys/$rt_id/roll", token => $rt, body => { expiresIn => 0 });
is $r->code, 201, 'the delegate rolls itself';
my ($rt2, $rt2_id) = ($r->{json}{secret}, $r->{json}{id});
is api(GET => "$L/$rl", token => $rt)->code, 401, 'the old key has ended';
is submit($rpath)->code, 201, 'its link moved to the new key and still works';
is listed($rt2), $rl, 'the new key lists it';
is api(DELETE => "/v1/keys/$rt2_id", token => $root)->code, 200, 'the new key is revoked';
problem_ok submit($rpath), 410, 'link-expired', 'and the link dies with it';

# the quota counts only live links: a dead delegate's links free their place
is sql("SELECT count(*) FROM links WHERE form_id = '$fid' AND deleted_at IS NULL"), 6,
    'six links not deleted, of which two live';
my $mk = "SELECT outcome || ' ' || COALESCE(CASE WHEN outcome = 'quota' THEN body END, '') "
    . "FROM fs_link_create(%s, '$fid', (SELECT user_id FROM forms WHERE id = '$fid'), %s, 's', "
    . "'{}', NULL, NULL, NULL, 3, NULL)";
is eval { sql(sprintf $mk, "'lnk_q1$$'", "'hq1-$$'") }, 'ok', 'a quota of 3 admits a third live link';
is eval { sql(sprintf $mk, "'lnk_q2$$'", "'hq2-$$'") }, 'quota 3', 'and refuses a fourth: 3 in use';
eval { sql("UPDATE links SET deleted_at = now() WHERE id = 'lnk_q1$$'") };

# ---- 2. the Idempotency-Key covers the link -------------------------------------
my ($la, $apath) = new_link($root, 'the owner (link A)');
my ($lb, $bpath) = new_link($root, 'the owner (link B)');
my $key = "links-$$-" . time;
$r = submit($apath, { 'Idempotency-Key' => $key });
is $r->code, 201, 'a submission through link A';
my $loc = $r->header('Location');
is $r->{json}{linkId}, $la, 'stored through A';
$r = submit($apath, { 'Idempotency-Key' => $key });
is $r->code, 201, 'the same key through the same link';
is $r->header('Idempotent-Replayed'), 'true', 'replays';
is $r->header('Location'), $loc, 'the first answer';
problem_ok submit($bpath, { 'Idempotency-Key' => $key }), 422, 'validation-failed',
    'the same key through another link: key reused with a different request';
problem_ok submit("/f/$fid", { 'Idempotency-Key' => $key }), 422, 'validation-failed',
    'nor without the link';
is sql("SELECT count(*) FROM submissions WHERE link_id = '$lb'"), 0, 'nothing stored through B';
is sql("SELECT uses FROM links WHERE id = '$lb'"), 0, 'B unused';
# a key first used without a link does not replay through one
my $key2 = "plain-$$-" . time;
is submit("/f/$fid", { 'Idempotency-Key' => $key2 })->code, 201, 'a submission without a link';
is submit("/f/$fid", { 'Idempotency-Key' => $key2 })->header('Idempotent-Replayed'), 'true',
    'replays without the link';
problem_ok submit($apath, { 'Idempotency-Key' => $key2 }), 422, 'validation-failed',
    'but not through a link';

done_testing;
