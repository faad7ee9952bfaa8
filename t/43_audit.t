# The audit trail: key, client and token creation, revocation and roll are
# recorded with the acting credential and its actor label; GET /v1/audit
# lists them paged, filtered by ?actor= and ?credential=.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;

my ($root, $acct) = signup();
my $root_id = $acct->{apiKey}{id};

my $r = api(POST => '/v1/keys', token => $root, body => { name => 'k1' });
my $k1 = $r->{json}{id};
$r = api(POST => "/v1/keys/$k1/roll", token => $root, body => { expiresIn => 60 });
my $k1b = $r->{json}{id};
api(DELETE => "/v1/keys/$k1b", token => $root);
my ($cid, $csecret) = new_client($root, { name => 'robot' });
$r = token([grant_type => 'client_credentials'], basic => [$cid, $csecret]);
my $at = $r->{json}{access_token};
my $at_id = api(GET => '/v1/me', token => $at)->{json}{credential}{id};
# the access token acts: recorded with its client
$r = api(POST => '/v1/keys', token => $at, body => { name => 'made by robot' });
my $k_robot = $r->{json}{id};
# a sub-agent acts under its actor label
$r = exchange($root, actor => 'sub-agent-7', scope => 'keys:write account:read');
my ($sub, $sub_id) = ($r->{json}{access_token}, $r->{json}{key}{id});
$r = api(POST => '/v1/keys', token => $sub, body => { name => 'made by sub-agent', scopes => ['keys:read'] });
my $k_sub = $r->{json}{id};
api(DELETE => "/v1/keys/$k_sub", token => $sub);
api(DELETE => "/v1/clients/$cid", token => $root);

$r = api(GET => '/v1/audit', token => $root);
is $r->code, 200, 'GET /v1/audit';
my @d = @{ $r->{json}{data} };
my @want = (
    ['client.deleted', $cid, $root_id, undef, undef],
    ['key.revoked', $k_sub, $sub_id, undef, 'sub-agent-7'],
    ['key.created', $k_sub, $sub_id, undef, 'sub-agent-7'],
    ['token.exchanged', $sub_id, $root_id, undef, undef],
    ['key.created', $k_robot, $at_id, $cid, undef],
    ['token.issued', $at_id, $cid, $cid, undef],
    ['client.created', $cid, $root_id, undef, undef],
    ['key.revoked', $k1b, $root_id, undef, undef],
    ['key.rolled', $k1, $root_id, undef, undef],
    ['key.created', $k1, $root_id, undef, undef],
);
is scalar @d, scalar @want, 'every action recorded once';
# Ids order by millisecond; within one millisecond their order is random,
# so the entries are compared as a set, and the list order by id.
my $key = sub { join '|', map { $_ // '-' } @_ };
is_deeply [sort map { $key->(@$_{qw(action targetId credentialId clientId actor)}) } @d],
          [sort map { $key->(@$_) } @want], 'each entry with its action, target, credential, client and actor';
is_deeply [map { $_->{id} } @d], [sort { $b cmp $a } map { $_->{id} } @d], 'newest first (by id)';
like $d[0]{id}, qr/^aud_/, 'aud_ ids';
like $d[0]{createdAt}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'createdAt';

# filters
$r = api(GET => '/v1/audit?actor=sub-agent-7', token => $root);
is_deeply [sort map { $_->{action} } @{ $r->{json}{data} }], ['key.created', 'key.revoked'], '?actor=';
$r = api(GET => "/v1/audit?credential=$cid", token => $root);
is_deeply [sort map { $_->{action} } @{ $r->{json}{data} }], ['key.created', 'token.issued'],
    '?credential=<client id>: the client and its tokens';
$r = api(GET => "/v1/audit?credential=$sub_id", token => $root);
is scalar @{ $r->{json}{data} }, 2, '?credential=<key id>';
$r = api(GET => "/v1/audit?credential=$sub_id&actor=nobody", token => $root);
is scalar @{ $r->{json}{data} }, 0, 'filters combine';
$r = api(GET => '/v1/audit?actor=sub%2Dagent%2D7', token => $root);
is scalar @{ $r->{json}{data} }, 2, 'escaped actor';

# paging
$r = api(GET => '/v1/audit?limit=3', token => $root);
is scalar @{ $r->{json}{data} }, 3, 'limit 3';
my $cur = $r->{json}{nextCursor};
ok $cur, 'nextCursor';
like $r->header('Link'), qr/rel="next"/, 'Link';
my @seen = map { $_->{id} } @{ $r->{json}{data} };
while ($cur) {
    $r = api(GET => "/v1/audit?limit=3&cursor=$cur", token => $root);
    push @seen, map { $_->{id} } @{ $r->{json}{data} };
    $cur = $r->{json}{nextCursor};
}
is_deeply \@seen, [map { $_->{id} } @d], 'pages walk the whole trail in order';

# bad input
for my $q ('actor=', 'actor=' . ('a' x 101), 'actor=%01', 'credential=nope', 'credential=',
           'credential=frm_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'limit=101', 'limit=x') {
    $r = api(GET => "/v1/audit?$q", token => $root);
    is $r->code, 422, "?$q: 422";
}
is api(GET => '/v1/audit?cursor=abc', token => $root)->code, 400, 'bad cursor: 400';
my $keys_cursor = do {
    my $x = api(GET => '/v1/keys?limit=1&includeRevoked=true', token => $root);
    $x->{json}{nextCursor};
};
is api(GET => "/v1/audit?cursor=$keys_cursor", token => $root)->code, 400, 'foreign cursor: 400';

# scope and isolation
$r = api(POST => '/v1/keys', token => $root, body => { name => 'no-account', scopes => ['keys:read'] });
$r = api(GET => '/v1/audit', token => $r->{json}{secret});
is $r->code, 403, 'without account:read: 403';
is $r->{json}{requiredScope}, 'account:read', 'requiredScope';
is api(GET => '/v1/audit')->code, 401, 'no credential: 401';
my ($other) = signup();
$r = api(GET => '/v1/audit', token => $other);
is scalar @{ $r->{json}{data} }, 0, 'another account sees none of it';
$r = api(GET => "/v1/audit?credential=$root_id", token => $other);
is scalar @{ $r->{json}{data} }, 0, 'not even by credential id';

done_testing;
