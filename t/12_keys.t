# /v1/keys: create, list and paging, get, revoke (cascading), roll,
# the subset rule, expiry, quota, and other accounts' ids.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my ($secret, $acct) = signup();
my ($other) = signup();
my $root = $acct->{apiKey}{id};

my $r = api(POST => '/v1/keys', token => $secret, body => { name => 'reader', scopes => ['forms:read', 'keys:write'] });
is $r->code, 201, 'create 201';
my $reader = $r->{json};
like $r->header('Location'), qr{/api/v1/keys/\Q$reader->{id}\E$}, 'Location';
is_deeply $reader->{scopes}, ['forms:read', 'keys:write'], 'scopes stored';
like $reader->{secret}, qr/^svc_live_/, 'secret shown at creation';

$r = api(GET => "/v1/keys/$reader->{id}", token => $secret);
is $r->code, 200, 'get 200';
ok !exists $r->{json}{secret}, 'no secret on read';
like api(GET => "/v1/keys/$reader->{id}", token => $secret)->header('Content-Type'), qr{application/json}, 'json';

# scope checks
$r = api(GET => '/v1/keys', token => $reader->{secret});
is $r->code, 200, 'keys:write implies keys:read';
$r = api(GET => '/v1/me', token => $reader->{secret});
is $r->code, 403, 'missing account:read 403';
is $r->{json}{type}, base_url() . '/problems/insufficient-scope', 'insufficient-scope';
is $r->{json}{requiredScope}, 'account:read', 'requiredScope';
like $r->header('WWW-Authenticate'), qr/error="insufficient_scope", scope="account:read"/, 'WWW-Authenticate insufficient_scope';

# subset rule
$r = api(POST => '/v1/keys', token => $reader->{secret}, body => { name => 'wider', scopes => ['forms:write'] });
is $r->code, 403, 'broader scopes 403';
is $r->{json}{requiredScope}, 'forms:write', 'names what is missing';
$r = api(POST => '/v1/keys', token => $reader->{secret}, body => { name => 'full', scopes => undef });
is $r->code, 403, 'full access from a scoped key 403';
$r = api(POST => '/v1/keys', token => $reader->{secret}, body => { name => 'same' });
is $r->code, 201, 'omitted scopes: the caller\'s own';
is_deeply $r->{json}{scopes}, ['forms:read', 'keys:write'], 'inherited scopes';
my $fid = api(POST => '/v1/forms', token => $secret, body => { title => 'F' })->{json}{id};    # a form of the account
$r = api(POST => '/v1/keys', token => $secret, body => { name => 'one form', scopes => ['forms:read', 'keys:write', "form:$fid"] });
is $r->code, 201, 'form constraint accepted';
my $oneform = $r->{json};
$r = api(POST => '/v1/keys', token => $oneform->{secret}, body => { name => 'x', scopes => ['forms:read'] });
is $r->code, 403, 'a form-constrained key cannot mint an unconstrained one';
$r = api(POST => '/v1/keys', token => $oneform->{secret}, body => { name => 'x', scopes => ['forms:read', "form:$fid"] });
is $r->code, 201, 'but can mint a subset of its constraints';

# validation (a fresh account, so the key quota does not interfere)
($secret) = signup();
my @bad = (
    [ { scopes => ['forms:read'] }, '/name', 'required' ],
    [ { name => '' }, '/name', 'minLength' ],
    [ { name => 'x' x 101 }, '/name', 'maxLength' ],
    [ { name => 7 }, '/name', 'type' ],
    [ { name => "a\x{0}b" }, undef, undef ],
    [ { name => 'n', scopes => ['forms:destroy'] }, '/scopes/0', 'enum' ],
    [ { name => 'n', scopes => 'forms:read' }, '/scopes', 'type' ],
    [ { name => 'n', scopes => [] }, '/scopes', 'minItems' ],
    [ { name => 'n', scopes => ['form:frm_bad'] }, '/scopes/0', 'enum' ],
    [ { name => 'n', expiresAt => '2020-01-01T00:00:00Z' }, '/expiresAt', 'minimum' ],
    [ { name => 'n', expiresAt => 'tomorrow' }, '/expiresAt', 'format' ],
    [ { name => 'n', expiresAt => '2027-02-30T00:00:00Z' }, '/expiresAt', 'format' ],
    [ { name => 'n', color => 'red' }, '/color', 'unknown' ],
);
for my $b (@bad) {
    my ($body, $ptr, $code) = @$b;
    $r = api(POST => '/v1/keys', token => $secret, body => $body);
    if (!defined $ptr) { is $r->code, 400, 'NUL in a string is malformed'; next }
    is $r->code, 422, "422 for $ptr $code";
    my ($e) = grep { $_->{pointer} eq $ptr } @{ $r->{json}{errors} || [] };
    is $e && $e->{code}, $code, "$ptr: $code";
}
# all errors at once
$r = api(POST => '/v1/keys', token => $secret, body => { name => '', scopes => ['nope'], expiresAt => 'x' });
is scalar @{ $r->{json}{errors} }, 3, 'every failing member reported at once';

# expiry never beyond the parent
($secret) = signup();
$r = api(POST => '/v1/keys', token => $secret, body => { name => 'expiring', expiresAt => '2031-01-01T00:00:00Z', scopes => ['keys:write'] });
is $r->code, 201, 'expiring key';
my $exp = $r->{json};
is $exp->{expiresAt}, '2031-01-01T00:00:00.000Z', 'expiresAt normalised';
$r = api(POST => '/v1/keys', token => $exp->{secret}, body => { name => 'later', expiresAt => '2032-01-01T00:00:00Z' });
is $r->code, 422, 'child expiring after its parent 422';
$r = api(POST => '/v1/keys', token => $exp->{secret}, body => { name => 'inherits' });
is $r->{json}{expiresAt}, '2031-01-01T00:00:00.000Z', 'child inherits the parent expiry';

# other accounts and wrong ids: 404, same body
$secret = $acct->{apiKey}{secret};
my $missing = api(GET => '/v1/keys/key_' . ('0' x 26), token => $secret);
is $missing->code, 404, 'unknown id 404';
$r = api(GET => "/v1/keys/$reader->{id}", token => $other);
is $r->code, 404, "another account's key 404";
is $r->{json}{detail}, $missing->{json}{detail}, 'same body as a missing one';
is api(DELETE => "/v1/keys/$reader->{id}", token => $other)->code, 404, "cannot revoke another account's key";
is api(GET => "/v1/keys/$reader->{id}", token => $secret)->{json}{revokedAt}, undef, 'still active';
is api(GET => '/v1/keys/frm_' . ('0' x 26), token => $secret)->code, 404, 'wrong prefix 404';
is api(GET => "/v1/keys/'%20OR%201=1", token => $secret)->code, 404, 'SQL metacharacters 404';

# list and paging
$r = api(GET => '/v1/keys?limit=2', token => $secret);
is $r->code, 200, 'list';
is scalar @{ $r->{json}{data} }, 2, 'limit honoured';
ok $r->{json}{nextCursor}, 'nextCursor';
like $r->header('Link'), qr{^<http://[^>]+/api/v1/keys\?limit=2&cursor=[^>]+>; rel="next"$}, 'Link rel=next with the same limit';
my %seen; my $pages = 0; my $cursor;
do {
    $r = api(GET => '/v1/keys?limit=2' . ($cursor ? "&cursor=$cursor" : ''), token => $secret);
    $seen{ $_->{id} }++ for @{ $r->{json}{data} };
    $cursor = $r->{json}{nextCursor}; $pages++;
} while ($cursor && $pages < 20);
ok !grep({ $_ > 1 } values %seen), 'no key twice across pages';
my @ids = map { $_->{id} } @{ api(GET => '/v1/keys?limit=100', token => $secret)->{json}{data} };
is_deeply [ sort { $b cmp $a } @ids ], \@ids, 'newest first';
is api(GET => '/v1/keys?cursor=garbage!', token => $secret)->code, 400, 'malformed cursor 400';
is api(GET => '/v1/keys?cursor=' . 'Zm9ybXM6ZnJtXzAxSjAwMDAwMDAwMDAwMDAwMDAwMDAwMDAw', token => $secret)->code, 400, 'cursor of another list 400';
for my $l (0, 101, 'x', -1) {
    is api(GET => "/v1/keys?limit=$l", token => $secret)->code, 422, "limit=$l 422";
}

# revocation cascades to delegated tokens at any depth
sql("UPDATE keys SET revoked_at = now() WHERE user_id = '$acct->{user}{id}' AND id NOT IN ('$root', '$reader->{id}')");
$r = api(POST => '/v1/keys', token => $secret, body => { name => 'parent' });
my $parent = $r->{json};
my @chain = ($parent->{id});
for my $d (1..3) {
    my $id = sprintf 'key_01TESTCHAIN%014d', $$ * 10 + $d;
    $id = substr($id, 0, 30);
    sql("INSERT INTO keys (id, user_id, name, key_prefix, secret_hash, parent_key_id, depth) "
      . "VALUES ('$id', '$acct->{user}{id}', 'child$d', 'svc_live_x', md5(random()::text), '$chain[-1]', $d)");
    push @chain, $id;
}
$r = api(DELETE => "/v1/keys/$parent->{id}", token => $secret);
is $r->code, 200, 'revoke 200';
ok $r->{json}{revokedAt}, 'revoked record returned';
is sql("SELECT count(*) FROM keys WHERE id IN ('" . join("','", @chain) . "') AND revoked_at IS NULL"), 0,
   'every descendant revoked';
$r = api(GET => '/v1/keys', token => $secret);
ok !grep({ $_->{id} eq $parent->{id} } @{ $r->{json}{data} }), 'revoked keys hidden by default';
$r = api(GET => '/v1/keys?includeRevoked=true&limit=100', token => $secret);
ok grep({ $_->{id} eq $parent->{id} } @{ $r->{json}{data} }), 'shown with includeRevoked=true';

# a narrower key cannot revoke or roll a broader one: a key that is not an
# owner key manages only itself and its descendants, and every other key
# is 404 to it (docs/api.md, delegation rules; 403 in earlier releases)
is api(DELETE => "/v1/keys/$root", token => $reader->{secret})->code, 404, 'cannot revoke a broader key';
is api(POST => "/v1/keys/$root/roll", token => $reader->{secret})->code, 404, 'cannot roll a broader key';

# roll: new key, old keeps working for the grace period
$r = api(POST => '/v1/keys', token => $secret, body => { name => 'rotating', scopes => ['account:read'] });
my $rot = $r->{json};
$r = api(POST => "/v1/keys/$rot->{id}/roll", token => $secret, body => { expiresIn => 3600 });
is $r->code, 201, 'roll 201';
my $new = $r->{json};
isnt $new->{id}, $rot->{id}, 'a new key';
is $new->{name}, 'rotating', 'same name';
is_deeply $new->{scopes}, ['account:read'], 'same scopes';
is api(GET => '/v1/me', token => $new->{secret})->code, 200, 'new key works';
is api(GET => '/v1/me', token => $rot->{secret})->code, 200, 'old key still works during the grace period';
ok api(GET => "/v1/keys/$rot->{id}", token => $secret)->{json}{expiresAt}, 'old key now expires';
$r = api(POST => "/v1/keys/$new->{id}/roll", token => $secret, body => { expiresIn => 0 });
is api(GET => '/v1/me', token => $new->{secret})->code, 401, 'expiresIn 0: the old key stops at once';
is api(POST => "/v1/keys/$new->{id}/roll", token => $secret)->code, 409, 'rolling an expired key 409';
is api(POST => "/v1/keys/$rot->{id}/roll", token => $secret, body => { expiresIn => 8 * 86400 })->code, 422, 'grace over 7 days 422';
is api(POST => "/v1/keys/$rot->{id}/roll", token => $secret, body => { expiresIn => '60' })->code, 422, 'grace as a string 422';

# quota: at most 6 active keys (FormsvcQuota unverified keys 6 in the test config)
my ($q) = signup();
my $made = 1; my $last;
for (1..8) {
    $last = api(POST => '/v1/keys', token => $q, body => { name => "k$_" });
    last if $last->code != 201;
    $made++;
}
is $made, 6, 'quota allows exactly 6 active keys';
is $last->code, 403, 'the next is 403';
is $last->{json}{type}, base_url() . '/problems/quota-exceeded', 'quota-exceeded';
is $last->{json}{quota}, 'keys', 'quota member';
is $last->{json}{limit}, 6, 'limit member';
is $last->{json}{used}, 6, 'used member';

done_testing;
