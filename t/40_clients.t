# OAuth clients: POST/GET/DELETE /v1/clients, validation, the subset rule,
# the client quota, paging, and that a client's tokens die with it.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;

my ($root) = signup();

# creation: omitted scopes are the caller's own (full access here)
my $r = api(POST => '/v1/clients', token => $root, body => { name => 'etl job' });
is $r->code, 201, 'client created';
my $c = $r->{json};
like $c->{id}, qr/^cli_[0-9A-HJKMNP-TV-Z]{26}$/, 'cli_ id';
is $c->{name}, 'etl job', 'name';
ok exists $c->{scopes} && !defined $c->{scopes}, 'omitted scopes of a full-access caller: null';
like $c->{secret}, qr/^svcc_[0-9A-Za-z]{39}$/, 'secret with the client prefix';
like $c->{createdAt}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'createdAt RFC 3339';
ok exists $c->{lastUsedAt} && !defined $c->{lastUsedAt}, 'lastUsedAt null';
ok exists $c->{revokedAt} && !defined $c->{revokedAt}, 'revokedAt null';
is $r->header('Location'), base_url() . "/v1/clients/$c->{id}", 'Location';

$r = api(GET => "/v1/clients/$c->{id}", token => $root);
is $r->code, 200, 'client readable';
ok !exists $r->{json}{secret}, 'no secret after creation';
is $r->{json}{name}, 'etl job', 'same client';

$r = api(GET => '/v1/clients', token => $root);
is $r->code, 200, 'list';
is scalar @{ $r->{json}{data} }, 1, 'one client listed';
ok !exists $r->{json}{data}[0]{secret}, 'no secret in the list';
ok exists $r->{json}{nextCursor} && !defined $r->{json}{nextCursor}, 'nextCursor null';

# quota: unverified accounts have one client
$r = api(POST => '/v1/clients', token => $root, body => {});
is $r->code, 403, 'second client over the unverified quota';
is $r->{json}{type}, base_url() . '/problems/quota-exceeded', 'quota-exceeded';
is $r->{json}{quota}, 'clients', 'quota named';
is $r->{json}{limit}, 1, 'limit';
is $r->{json}{used}, 1, 'used';

# bad input, each member reported
my %bad = (
    'name too long'        => [{ name => 'x' x 101 }, '/name', 'maxLength'],
    'name empty'           => [{ name => '' }, '/name', 'minLength'],
    'name not a string'    => [{ name => 5 }, '/name', 'type'],
    'name control char'    => [{ name => "a\tb" }, '/name', 'pattern'],
    'scopes empty'         => [{ scopes => [] }, '/scopes', 'minItems'],
    'scopes not an array'  => [{ scopes => 'forms:read' }, '/scopes', 'type'],
    'scope token unknown'  => [{ scopes => ['forms:read', 'nope'] }, '/scopes/1', 'enum'],
    'scope not a string'   => [{ scopes => [1] }, '/scopes/0', 'type'],
    'form constraint malformed' => [{ scopes => ['form:xyz'] }, '/scopes/0', 'enum'],
    'unknown member'       => [{ name => 'a', secret => 'mine' }, '/secret', 'unknown'],
);
for my $case (sort keys %bad) {
    my ($body, $ptr, $code) = @{ $bad{$case} };
    $r = api(POST => '/v1/clients', token => $root, body => $body);
    is $r->code, 422, "$case: 422";
    my ($e) = grep { $_->{pointer} eq $ptr } @{ $r->{json}{errors} || [] };
    is $e && $e->{code}, $code, "$case: $ptr $code" or diag $r->content;
}
$r = api(POST => '/v1/clients', token => $root, body => { name => 'x' x 100 . '' , scopes => ['forms:read'] });
is $r->code, 403, 'a valid 100-character name passes validation (then meets the quota)';
$r = api(POST => '/v1/clients', token => $root, body => '{"name":"a","name":"b"}');
is $r->code, 400, 'duplicate member: 400';
$r = api(POST => '/v1/clients', token => $root, body => 'name=a',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 415, 'not JSON: 415';

# a scoped key: subset rule, omitted scopes are its own
my ($acct2) = signup();
my $F = api(POST => '/v1/forms', token => $acct2, body => { title => 'F' })->{json}{id};    # a form of the account
$r = api(POST => '/v1/keys', token => $acct2,
         body => { name => 'scoped', scopes => ['clients:write', 'forms:read', "form:$F"] });
is $r->code, 201, 'scoped key';
my $scoped = $r->{json}{secret};
$r = api(POST => '/v1/clients', token => $scoped, body => { scopes => ['forms:write', "form:$F"] });
is $r->code, 403, 'broader client: 403';
is $r->{json}{type}, base_url() . '/problems/insufficient-scope', 'insufficient-scope';
is $r->{json}{requiredScope}, 'forms:write', 'requiredScope';
$r = api(POST => '/v1/clients', token => $scoped, body => { scopes => ['forms:read'] });
is $r->code, 403, 'dropping the form constraint is broader';
is $r->{json}{requiredScope}, "form:$F", 'requiredScope names the constraint';
$r = api(POST => '/v1/clients', token => $scoped, body => { scopes => undef });
is $r->code, 403, 'full access from a scoped key: 403';
$r = api(POST => '/v1/clients', token => $scoped, body => {});
is $r->code, 201, 'omitted scopes: the caller\'s own';
is_deeply $r->{json}{scopes}, ['forms:read', 'clients:write', "form:$F"], 'scopes copied';
my $c2 = $r->{json};
ok !defined $c2->{name}, 'name optional';
$r = api(POST => '/v1/clients', token => $scoped);
is $r->code, 403, 'body optional (and the quota counts)';

# scopes of the routes
$r = api(POST => '/v1/keys', token => $acct2, body => { name => 'ro', scopes => ['clients:read'] });
my $ro = $r->{json}{secret};
$r = api(GET => '/v1/clients', token => $ro);
is $r->code, 200, 'clients:read lists';
$r = api(POST => '/v1/clients', token => $ro, body => {});
is $r->code, 403, 'clients:read cannot create';
is $r->{json}{requiredScope}, 'clients:write', 'requiredScope clients:write';
$r = api(DELETE => "/v1/clients/$c2->{id}", token => $ro);
is $r->code, 403, 'clients:read cannot delete';
$r = api(POST => '/v1/keys', token => $acct2, body => { name => 'none', scopes => ['forms:read'] });
$r = api(GET => '/v1/clients', token => $r->{json}{secret});
is $r->code, 403, 'no clients scope: 403';
$r = api(GET => '/v1/clients');
is $r->code, 401, 'no credential: 401';

# other accounts' clients are not found
$r = api(GET => "/v1/clients/$c->{id}", token => $acct2);
is $r->code, 404, 'foreign client: 404';
$r = api(DELETE => "/v1/clients/$c->{id}", token => $acct2);
is $r->code, 404, 'foreign client cannot be deleted: 404';
$r = api(GET => '/v1/clients/cli_nope', token => $root);
is $r->code, 404, 'malformed id: 404';
$r = api(GET => '/v1/clients/key_01ARZ3NDEKTSV4RRFFQ69G5FAV', token => $root);
is $r->code, 404, 'other id type: 404';

# a narrower credential cannot delete a broader client
$r = api(POST => '/v1/keys', token => $root, body => { name => 'cw', scopes => ['clients:write'] });
my $cw = $r->{json}{secret};
$r = api(DELETE => "/v1/clients/$c->{id}", token => $cw);
is $r->code, 403, 'deleting a broader client: 403';

# delete: 200 with the revoked record; its tokens stop at once
$r = token([grant_type => 'client_credentials'], basic => [$c->{id}, $c->{secret}]);
is $r->code, 200, 'the client gets a token';
my $at = $r->{json}{access_token};
is api(GET => '/v1/me', token => $at)->code, 200, 'the token works';
$r = api(DELETE => "/v1/clients/$c->{id}", token => $root);
is $r->code, 200, 'delete: 200';
like $r->{json}{revokedAt}, qr/Z$/, 'revokedAt set';
ok defined $r->{json}{lastUsedAt}, 'lastUsedAt set by the token request';
my $revoked_at = $r->{json}{revokedAt};
$r = api(GET => '/v1/me', token => $at);
is $r->code, 401, 'its access token is refused at once';
$r = api(DELETE => "/v1/clients/$c->{id}", token => $root);
is $r->code, 200, 'deleting again: 200';
is $r->{json}{revokedAt}, $revoked_at, 'revokedAt unchanged';
$r = token([grant_type => 'client_credentials'], basic => [$c->{id}, $c->{secret}]);
oauth_error_ok $r, 401, 'invalid_client', 'a deleted client gets no token';

# lists: active by default, includeRevoked, paging
$r = api(GET => '/v1/clients', token => $root);
is scalar @{ $r->{json}{data} }, 0, 'deleted clients are not listed';
my @ids = ($c->{id});
for (1 .. 2) {
    my ($id) = new_client($root, { name => "c$_" });
    api(DELETE => "/v1/clients/$id", token => $root);
    unshift @ids, $id;
}
$r = api(GET => '/v1/clients?includeRevoked=true&limit=2', token => $root);
is $r->code, 200, 'includeRevoked';
@ids = sort { $b cmp $a } @ids; # ids order by creation time (to the millisecond)
is_deeply [map { $_->{id} } @{ $r->{json}{data} }], [@ids[0, 1]], 'newest first, limit 2';
ok $r->{json}{nextCursor}, 'nextCursor';
like $r->header('Link'), qr/^<\Q${\ base_url()}\E\/v1\/clients\?includeRevoked=true&limit=2&cursor=[^>]+>; rel="next"$/, 'Link rel=next';
$r = api(GET => "/v1/clients?includeRevoked=true&limit=2&cursor=$r->{json}{nextCursor}", token => $root);
is_deeply [map { $_->{id} } @{ $r->{json}{data} }], [$ids[2]], 'second page';
ok !defined $r->{json}{nextCursor}, 'last page';
is api(GET => '/v1/clients?cursor=!!', token => $root)->code, 400, 'bad cursor: 400';
is api(GET => '/v1/clients?limit=0', token => $root)->code, 422, 'limit 0: 422';
is api(GET => '/v1/clients?includeRevoked=yes', token => $root)->code, 422, 'includeRevoked=yes: 422';
$r = api(GET => '/v1/keys?cursor=' . do {
    my $x = api(GET => '/v1/clients?includeRevoked=true&limit=1', token => $root);
    $x->{json}{nextCursor} }, token => $root);
is $r->code, 400, 'a clients cursor is foreign to the keys list';

done_testing;
