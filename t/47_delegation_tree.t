# Credential escapes: the delegation tree (docs/api.md,
# "Delegation rules"). Each block is one of the attacks of the issue:
#   1. a delegated token rolling its root key; a narrowed token rolling a
#      sibling; parallel and repeated rolls of one key;
#   2. an Idempotency-Key replay handing a narrow credential another
#      credential's secret;
#   4a. a rolled OAuth access token surviving its client;
#   4b. clients and webhooks registered by a delegated token outliving it;
#   4c. recovery with revokeExistingKeys leaving clients and webhooks alive;
#   5. a form-scoped key reading the whole account's audit trail.
use strict;
use warnings;
use Test::More;
use Time::HiRes ();
use POSIX ();
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;
use FormsvcMail qw(wait_mail);

# t/45 leaves this address over the failed-client-authentication brake of
# the token endpoint for the rest of its minute
sql('DELETE FROM token_failures');

sub me_code { api(GET => '/v1/me', token => shift)->code }
sub key_of { my ($tok) = @_; api(GET => '/v1/me', token => $tok)->{json}{credential} }

# ---- 1. a delegated token cannot take over its root by rolling it ----------
my ($root, $acct) = signup();
my $root_id = $acct->{apiKey}{id};
my $r = exchange($root, expires_in => 120);     # no scope: full access
is $r->code, 200, 'a 120-second token with no scope (full access)';
my ($tok, $tok_id, $tok_exp) = ($r->{json}{access_token}, $r->{json}{key}{id}, $r->{json}{key}{expiresAt});
$r = api(POST => "/v1/keys/$root_id/roll", token => $tok, body => { expiresIn => 0 });
is $r->code, 404, 'the token cannot roll its root key (outside its tree: 404)';
ok !defined $r->{json}{secret}, 'and gets no secret';
is me_code($root), 200, 'the root key still works';
is me_code($tok), 200, 'and so does the token';
is api(DELETE => "/v1/keys/$root_id", token => $tok)->code, 404, 'nor revoke it';
is api(GET => "/v1/keys/$root_id", token => $tok)->code, 404, 'nor read it';
$r = api(GET => '/v1/keys?limit=100', token => $tok);
is_deeply [map { $_->{id} } @{ $r->{json}{data} }], [$tok_id], 'a delegate lists only its own tree';
is scalar(grep { $_->{id} eq $root_id } @{ api(GET => '/v1/keys?limit=100', token => $root)->{json}{data} }), 1,
   'the owner key lists every key';

# a key made by a delegate is its child: inside its tree, never outliving it
$r = api(POST => '/v1/keys', token => $tok, body => { name => 'made by the token' });
is $r->code, 201, 'a delegate may make a key';
is $r->{json}{parentKeyId}, $tok_id, 'which is its child';
ok defined $r->{json}{expiresAt} && $r->{json}{expiresAt} le $tok_exp, 'and does not outlive it';
my $grandchild = $r->{json}{secret};
is api(GET => "/v1/keys/$r->{json}{id}", token => $tok)->code, 200, 'the delegate manages its child';

# a narrowed token cannot roll a sibling key
$r = api(POST => '/v1/keys', token => $root, body => { name => 'sibling', scopes => ['forms:read'] });
my ($sib, $sib_id) = ($r->{json}{secret}, $r->{json}{id});
$r = exchange($root, scope => 'forms:read keys:write', expires_in => 300);
my ($narrow, $narrow_id, $narrow_exp) = ($r->{json}{access_token}, $r->{json}{key}{id}, $r->{json}{key}{expiresAt});
$r = api(POST => "/v1/keys/$sib_id/roll", token => $narrow, body => { expiresIn => 0 });
is $r->code, 404, 'a narrowed token cannot roll a sibling';
is me_code($sib), 403, 'the sibling still authenticates (403: it lacks account:read, not 401)';
is api(DELETE => "/v1/keys/$sib_id", token => $narrow)->code, 404, 'nor revoke it';
# but it may roll itself: the new key takes its place in the tree
$r = api(POST => "/v1/keys/$narrow_id/roll", token => $narrow, body => { expiresIn => 0 });
is $r->code, 201, 'a delegate may roll itself';
is $r->{json}{parentKeyId}, $root_id, 'the new key keeps the parent';
ok defined $r->{json}{expiresAt} && $r->{json}{expiresAt} le $narrow_exp, 'and never outlives the caller';
my $narrow2 = $r->{json}{secret};
is me_code($narrow), 401, 'the old token stopped (expiresIn 0)';
is api(GET => '/v1/keys', token => $narrow2)->code, 200, 'the new one works';
is api(DELETE => "/v1/keys/$root_id", token => $root)->code, 200, 'revoking the root';
is api(GET => '/v1/keys', token => $narrow2)->code, 401, 'kills the rolled token too: it stayed in the tree';
is me_code($tok), 401, 'and the full-access token';
is me_code($grandchild), 401, 'and the key the token made';

# a key is rolled once; parallel rolls make exactly one new key
($root, $acct) = signup();
$r = api(POST => '/v1/keys', token => $root, body => { name => 'rolled in parallel', scopes => ['forms:read'] });
my $par_id = $r->{json}{id};
my @pids;
my $dir = "$FindBin::Bin/logs/roll.$$";
mkdir $dir;
for my $i (1 .. 10) {
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        my $x = api(POST => "/v1/keys/$par_id/roll", token => $root, body => { expiresIn => 3600 });
        open my $fh, '>', "$dir/$i" or die; print $fh $x->code; close $fh;
        POSIX::_exit(0);
    }
    push @pids, $pid;
}
waitpid $_, 0 for @pids;
my @codes = map { open my $fh, '<', "$dir/$_" or die; scalar <$fh> } 1 .. 10;
unlink glob "$dir/*"; rmdir $dir;
is scalar(grep { $_ == 201 } @codes), 1, '10 parallel rolls of one key: exactly one 201';
is scalar(grep { $_ == 409 } @codes), 9, 'the others 409';
is sql("SELECT count(*) FROM keys WHERE user_id = '$acct->{user}{id}' AND name = 'rolled in parallel'"), 2,
   'one new key in the database';
$r = api(POST => "/v1/keys/$par_id/roll", token => $root);
is $r->code, 409, 'a repeat roll of a rolled key is refused';
like $r->{json}{detail}, qr/already rolled/, 'and says why';

# ---- 2. Idempotency-Key records belong to the credential that made them ----
($root, $acct) = signup();
my $ik = "idem-$$-" . time;
$r = api(POST => '/v1/keys', token => $root, body => { name => 'full', scopes => undef },
         headers => { 'Idempotency-Key' => $ik });
is $r->code, 201, 'the owner makes a full-access key with an Idempotency-Key';
my $full_secret = $r->{json}{secret};
$r = api(POST => '/v1/keys', token => $root, body => { name => 'kw', scopes => ['keys:write'] });
my $kw = $r->{json}{secret};
is api(POST => '/v1/keys', token => $kw, body => { name => 'full', scopes => undef })->code, 403,
   'a keys:write key is refused full scopes directly';
$r = api(POST => '/v1/keys', token => $kw, body => { name => 'full', scopes => undef },
         headers => { 'Idempotency-Key' => $ik });
is $r->code, 403, 'and by replaying the owner\'s Idempotency-Key and body';
ok !$r->header('Idempotent-Replayed'), 'nothing is replayed';
unlike $r->content, qr/\Q$full_secret\E/, 'the owner\'s secret is not handed out';
$r = api(POST => '/v1/keys', token => $root, body => { name => 'full', scopes => undef },
         headers => { 'Idempotency-Key' => $ik });
is $r->header('Idempotent-Replayed'), 'true', 'the owner still gets its replay';
# the same on POST /v1/forms
my $fk = "idem-f-$$-" . time;
$r = api(POST => '/v1/forms', token => $root, body => { title => 'Idem' }, headers => { 'Idempotency-Key' => $fk });
my $form_a = $r->{json}{id};
$r = api(POST => '/v1/keys', token => $root, body => { name => 'fw', scopes => ['forms:write'] });
$r = api(POST => '/v1/forms', token => $r->{json}{secret}, body => { title => 'Idem' }, headers => { 'Idempotency-Key' => $fk });
is $r->code, 201, 'POST /v1/forms: another credential with the same key runs its own request';
ok !$r->header('Idempotent-Replayed') && $r->{json}{id} ne $form_a, 'and gets no replay';

# ---- 4a. a rolled access token keeps its client and dies with it ------------
($root, $acct) = signup();
my ($cid, $csecret) = new_client($root, { name => 'robot' });
$r = token([grant_type => 'client_credentials'], basic => [$cid, $csecret]);
my $at = $r->{json}{access_token};
my $at_id = key_of($at)->{id};
$r = api(POST => "/v1/keys/$at_id/roll", token => $at, body => { expiresIn => 0 });
is $r->code, 201, 'an access token rolls itself';
is $r->{json}{clientId}, $cid, 'the rolled token keeps its client';
my $at2 = $r->{json}{secret};
is me_code($at2), 200, 'and works';
is api(DELETE => "/v1/clients/$cid", token => $root)->code, 200, 'the client is deleted';
is me_code($at2), 401, 'the rolled token dies with its client';

# ---- 4b. clients and webhooks of a delegated token die with it -------------
($root, $acct) = signup();
sql("UPDATE users SET verified = true WHERE id = '$acct->{user}{id}'");
$r = api(POST => '/v1/forms', token => $root, body => { title => 'Hooked', fields => [ { key => 'a', type => 'text', label => 'A' } ] });
my $hform = $r->{json}{id};
$r = exchange($root, scope => 'clients:write webhooks:write forms:read', expires_in => 600);
my ($dt, $dt_id) = ($r->{json}{access_token}, $r->{json}{key}{id});
my ($dcid, $dcsecret) = new_client($dt, { name => 'made by a delegate' });
$r = token([grant_type => 'client_credentials'], basic => [$dcid, $dcsecret]);
is $r->code, 200, 'the delegate\'s client issues tokens while the delegate lives';
ok $r->{json}{expires_in} <= 600, 'tokens that do not outlive the delegate';
my $dat = $r->{json}{access_token};
$r = api(POST => '/v1/webhooks', token => $dt, body => { url => 'http://127.0.0.1:9/hook', events => ['form.published'] });
is $r->code, 201, 'the delegate registers a webhook';
my $dwh = $r->{json}{id};
$r = api(POST => '/v1/webhooks', token => $root, body => { url => 'http://127.0.0.1:9/owner', events => ['form.published'] });
my $owh = $r->{json}{id};
# a delegate revokes and deletes only what was registered inside its tree
my ($ocid) = new_client($root, { name => 'the owner\'s client', scopes => ['forms:read'] });
is api(DELETE => "/v1/clients/$ocid", token => $dt)->code, 404, 'a delegate cannot revoke the owner\'s client';
ok !api(GET => "/v1/clients/$ocid", token => $root)->{json}{revokedAt}, 'which stays active';
is api(DELETE => "/v1/webhooks/$owh", token => $dt)->code, 404, 'nor delete the owner\'s webhook';
is api(GET => "/v1/webhooks/$owh", token => $root)->code, 200, 'which stays';
$r = exchange($root, scope => 'clients:write webhooks:write forms:read', expires_in => 600);
my $other_dt = $r->{json}{access_token};
is api(DELETE => "/v1/webhooks/$dwh", token => $other_dt)->code, 404, 'nor may a sibling delegate delete its webhook';
my ($own_cid) = new_client($dt, { name => 'short-lived' });
is api(DELETE => "/v1/clients/$own_cid", token => $dt)->code, 200, 'a delegate revokes its own client';
is api(DELETE => "/v1/keys/$dt_id", token => $root)->code, 200, 'the delegate is revoked';
$r = token([grant_type => 'client_credentials'], basic => [$dcid, $dcsecret]);
oauth_error_ok $r, 401, 'invalid_client', 'its client issues no more tokens';
is me_code($dat), 401, 'the client\'s access token died with the delegate';
ok api(GET => "/v1/clients/$dcid", token => $root)->{json}{revokedAt}, 'the client shows as revoked';
ok !grep({ $_->{id} eq $dcid } @{ api(GET => '/v1/clients', token => $root)->{json}{data} }), 'and is not listed';
is api(GET => "/v1/webhooks/$dwh", token => $root)->code, 404, 'its webhook is gone';
is api(GET => "/v1/webhooks/$owh", token => $root)->code, 200, 'the owner\'s webhook stays';
is api(POST => "/v1/forms/$hform/publish", token => $root)->code, 200, 'an event happens';
is sql("SELECT count(*) FROM deliveries WHERE webhook_id = '$dwh'"), 0, 'nothing is delivered to the dead webhook';
is sql("SELECT count(*) FROM deliveries WHERE webhook_id = '$owh'"), 1, 'the owner\'s webhook gets it';
# expiry counts too
$r = exchange($root, scope => 'clients:write webhooks:write', expires_in => 3);
my $short = $r->{json}{access_token};
my ($scid, $scsecret) = new_client($short, {});
$r = api(POST => '/v1/webhooks', token => $short, body => { url => 'http://127.0.0.1:9/short', events => ['form.closed'] });
my $swh = $r->{json}{id};
Time::HiRes::sleep(3.5);   # the token's 3 s life is the subject, with a margin
is me_code($short), 401, 'the short token has expired';
oauth_error_ok token([grant_type => 'client_credentials'], basic => [$scid, $scsecret]), 401, 'invalid_client',
    'its client died with it';
is api(GET => "/v1/webhooks/$swh", token => $root)->code, 404, 'and its webhook';
# rotation does not end them: they move to the new key, and die with it
$r = exchange($root, scope => 'clients:write keys:write', expires_in => 600);
my ($rt, $rt_id) = ($r->{json}{access_token}, $r->{json}{key}{id});
my ($rcid0, $rcsecret0) = new_client($rt, { name => 'rotated with its delegate' });
$r = api(POST => "/v1/keys/$rt_id/roll", token => $rt, body => { expiresIn => 0 });
is $r->code, 201, 'a delegate that registered a client rolls itself';
my ($rt2_id) = ($r->{json}{id});
is me_code($rt), 401, 'the old delegate has ended';
is token([grant_type => 'client_credentials'], basic => [$rcid0, $rcsecret0])->code, 200,
   'its client moved to the new key and still issues tokens';
is api(DELETE => "/v1/keys/$rt2_id", token => $root)->code, 200, 'the new key is revoked';
oauth_error_ok token([grant_type => 'client_credentials'], basic => [$rcid0, $rcsecret0]), 401,
    'invalid_client', 'and the client dies with it';
# an owner key's client belongs to the account (t/41_token.t): unchanged

# ---- 4c. recovery revokes clients and webhooks too -------------------------
($root, $acct) = signup();
my $email = $acct->{user}{email};
sql("UPDATE users SET verified = true WHERE id = '$acct->{user}{id}'");
my ($rcid, $rcsecret) = new_client($root, { name => 'attacker kept this' });
my $rat = token([grant_type => 'client_credentials'], basic => [$rcid, $rcsecret])->{json}{access_token};
$r = api(POST => '/v1/webhooks', token => $root, body => { url => 'http://127.0.0.1:9/attacker', events => ['form.published'] });
my $rwh = $r->{json}{id};
is api(POST => '/v1/recover', body => { email => $email })->code, 202, 'recovery asked';
my $m = wait_mail($email) or die 'no recovery mail';
my ($code) = $m->{body} =~ /^    ([A-Z2-9]{8})\r?$/m;
$r = api(POST => '/v1/recover/confirm', body => { email => $email, code => $code, revokeExistingKeys => JSON::PP::true() });
is $r->code, 201, 'recovered with revokeExistingKeys';
my $new = $r->{json}{apiKey}{secret};
is me_code($root), 401, 'the old key is revoked';
is me_code($rat), 401, 'the client\'s access token too';
oauth_error_ok token([grant_type => 'client_credentials'], basic => [$rcid, $rcsecret]), 401, 'invalid_client',
    'the client can no longer get tokens';
ok api(GET => "/v1/clients/$rcid", token => $new)->{json}{revokedAt}, 'the client is revoked';
is sql("SELECT count(*) FROM webhooks WHERE id = '$rwh'"), 0, 'the webhook is deleted';
is me_code($new), 200, 'the recovered key works';

# ---- 5. a form-scoped key reads only its forms' audit trail -----------------
($root, $acct) = signup();
my $f1 = api(POST => '/v1/forms', token => $root, body => { title => 'One' })->{json}{id};
my $f2 = api(POST => '/v1/forms', token => $root, body => { title => 'Two' })->{json}{id};
api(PATCH => "/v1/forms/$_", token => $root, body => { title => "changed $_" }) for $f1, $f2;
$r = api(POST => '/v1/keys', token => $root, body => { name => 'one form', scopes => ['account:read', 'forms:read', "form:$f1"] });
my $scoped = $r->{json}{secret};
$r = api(GET => '/v1/audit?limit=100', token => $scoped);
is $r->code, 200, 'a form-scoped key reads the audit trail';
my @acts = map { "$_->{action} $_->{targetId}" } @{ $r->{json}{data} };
is_deeply [sort @acts], [sort "form.created $f1", "form.changed $f1"], 'only its form\'s records';
ok !grep({ /\Q$f2\E/ } $r->content), 'nothing of the other form';
$r = api(GET => '/v1/audit?limit=100', token => $root);
ok scalar(grep { $_->{targetId} eq $f2 } @{ $r->{json}{data} }) >= 2, 'the owner still reads everything';

done_testing;
