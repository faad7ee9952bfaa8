# POST /v1/signup and GET /v1/me, with hostile input.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my $email = uniq_email();
my $r = api(POST => '/v1/signup', body => { email => "  \U$email\E  " });
is $r->code, 201, 'signup 201';
my $res = $r->{json};
like $res->{user}{id}, qr/^usr_[0-9A-HJKMNP-TV-Z]{26}$/, 'user id prefixed, 26 base32 chars';
is $res->{user}{email}, uc $email, 'address stored trimmed';
is $res->{user}{verified}, JSON::PP::false, 'new account unverified';
my $key = $res->{apiKey};
is $key->{name}, 'default', 'first key is named default';
like $key->{secret}, qr/^svc_live_[0-9A-Za-z]{39}$/, 'secret format: prefix, 33 random + 6 checksum base62';
is $key->{keyPrefix}, substr($key->{secret}, 0, 16), 'keyPrefix is the first 16 characters';
is $key->{scopes}, undef, 'full access';
for my $m (qw(expiresAt parentKeyId actor lastUsedAt revokedAt)) {
    ok exists $key->{$m} && !defined $key->{$m}, "$m present and null";
}
like $key->{createdAt}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'RFC 3339 with milliseconds';
ok $r->header('Location'), 'Location header';

# same address, any case: taken
$r = api(POST => '/v1/signup', body => { email => lc $email });
is $r->code, 409, 'duplicate address 409';
is $r->{json}{type}, base_url() . '/problems/email-taken', 'email-taken problem';

# the key works at once
$r = api(GET => '/v1/me', token => $key->{secret});
is $r->code, 200, 'me 200 with the new key';
is $r->{json}{user}{id}, $res->{user}{id}, 'me names the user';
is $r->{json}{credential}{id}, $key->{id}, 'me names the calling credential';
ok !exists $r->{json}{credential}{secret}, 'no secret in me';
is $r->{json}{quota}{tier}, 'unverified', 'tier unverified';
is $r->{json}{quota}{limits}{keys}{used}, 1, 'one key in use';
is $r->{json}{quota}{limits}{keys}{limit}, 6, 'keys limit from FormsvcQuota';

# bad input
my @bad = (
    [ '{"email": 5}', 422, '/email', 'type' ],
    [ '{}', 422, '/email', 'required' ],
    [ '{"email":"not-an-address"}', 422, '/email', 'format' ],
    [ '{"email":"a@b"}', 422, '/email', 'format' ],
    [ '{"email":"x\' OR 1=1 --@example.com"}', 422, '/email', 'format' ],
    [ '{"email":"' . ('a' x 250) . '@example.com"}', 422, '/email', 'maxLength' ],
    [ '{"email":"a@example.com","extra":1}', 422, '/extra', 'unknown' ],
);
for my $b (@bad) {
    my ($body, $code, $ptr, $c) = @$b;
    $r = api(POST => '/v1/signup', body => $body);
    is $r->code, $code, "bad body $code: " . substr($body, 0, 40);
    my ($e) = grep { $_->{pointer} eq $ptr } @{ $r->{json}{errors} || [] };
    is $e && $e->{code}, $c, "error at $ptr is $c";
}
my @malformed = (
    '{"email":"a@example.com"', '[]', '"x"', '{"email":"a@example.com","email":"b@example.com"}',
    "{'email':'a\@example.com'}", '{"email":NaN}', "{\"email\":\"a\x{01}b\@example.com\"}",
    '{"email":"\u0000@example.com"}', "{\"email\":\"\xff\xfe\@example.com\"}",
    '{"email":"a@example.com"} x', ('[' x 40) . (']' x 40), '{"a":' x 33 . '1' . '}' x 33,
    '{"email":"\ud800@example.com"}',
);
for my $m (@malformed) {
    $r = api(POST => '/v1/signup', body => $m);
    is $r->code, 400, 'malformed 400: ' . substr($m, 0, 30);
    is $r->{json}{type}, base_url() . '/problems/malformed-request', 'malformed-request problem';
}
# nesting of exactly 32 levels parses (and fails validation, not parsing)
$r = api(POST => '/v1/signup', body => '{"x":' . ('[' x 31) . (']' x 31) . '}');
is $r->code, 422, 'depth 32 is allowed';

$r = api(POST => '/v1/signup', body => '{"email":"a@example.com"}', headers => { 'Content-Type' => 'text/plain' });
is $r->code, 415, 'wrong content type 415';
is $r->{json}{type}, base_url() . '/problems/unsupported-media-type', '415 problem';
$r = api(POST => '/v1/signup', body => '{"email":"a@example.com"}', headers => { 'Content-Type' => 'application/json; charset=latin1' });
is $r->code, 415, 'non-UTF-8 charset 415';
$r = api(POST => '/v1/signup');
is $r->code, 400, 'missing body 400';
$r = api(POST => '/v1/signup', body => '{"email":"' . ('a' x (1024*1024 + 10)) . '"}');
is $r->code, 413, 'body over FormsvcMaxBodyAPI 413';
is $r->{json}{type}, base_url() . '/problems/payload-too-large', '413 problem';

# the account count did not move for any of that
$r = api(POST => '/v1/signup', body => { email => 'A@EXAMPLE.COM' });
is $r->code, 201, 'a@example.com was never created by any hostile body above (the test database is new each run)';

done_testing;
