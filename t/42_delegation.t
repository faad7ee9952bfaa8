# Delegation through POST /v1/token, grant_type token-exchange (RFC 8693):
# the subject from subject_token or the bearer header, narrowing, actor and
# name, expires_in never beyond the parent, listing, cascading revocation,
# depth at most 4, and the bad inputs.
use strict;
use warnings;
use Test::More;
use Apache::Test ();
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;
use POSIX ();

sub iso_in { POSIX::strftime('%Y-%m-%dT%H:%M:%SZ', gmtime(time + shift)) }

my ($root, $acct) = signup();
my $root_id = $acct->{apiKey}{id};

# subject from the bearer header
my $r = exchange($root, scope => 'forms:read keys:read account:read', actor => 'research-agent',
                 expires_in => 600);
is $r->code, 200, 'exchange with the bearer header: 200';
my $t = $r->{json};
like $t->{access_token}, qr/^svc_live_/, 'access_token';
is $t->{issued_token_type}, ACCESS_TOKEN_TYPE, 'issued_token_type';
is $t->{token_type}, 'Bearer', 'token_type';
is $t->{expires_in}, 600, 'expires_in as asked';
is $t->{scope}, 'forms:read keys:read account:read', 'scope narrowed';
is $t->{key}{parentKeyId}, $root_id, 'key.parentKeyId';
is $t->{key}{actor}, 'research-agent', 'key.actor';
is $t->{key}{name}, 'research-agent', 'name defaults to the actor';
is_deeply $t->{key}{scopes}, ['forms:read', 'keys:read', 'account:read'], 'key.scopes';
like $t->{key}{expiresAt}, qr/Z$/, 'key.expiresAt';
ok !exists $t->{key}{secret}, 'no secret member in key';
is $r->header('Cache-Control'), 'no-store', 'no-store';
is $r->header('Pragma'), 'no-cache', 'Pragma';
my $child = $t->{access_token};
my $child_id = $t->{key}{id};

$r = api(GET => '/v1/me', token => $child);
is $r->code, 200, 'the delegated token authenticates';
is $r->{json}{credential}{id}, $child_id, 'as itself';
is $r->{json}{credential}{actor}, 'research-agent', 'with its actor';
is api(POST => '/v1/keys', token => $child, body => { name => 'x' })->code, 403,
    'keys:write was not delegated';

$r = api(GET => '/v1/keys', token => $root);
ok((grep { $_->{id} eq $child_id && $_->{parentKeyId} eq $root_id } @{ $r->{json}{data} }),
   'GET /v1/keys lists the delegated token with parentKeyId');

# subject_token form, name given, defaults
$r = token([grant_type => TOKEN_EXCHANGE, subject_token => $root,
            subject_token_type => ACCESS_TOKEN_TYPE, name => 'nightly report']);
is $r->code, 200, 'exchange with subject_token: 200';
is $r->{json}{key}{name}, 'nightly report', 'name';
ok !defined $r->{json}{key}{actor}, 'no actor';
is $r->{json}{expires_in}, 3600, 'expires_in defaults to the token lifetime';
is $r->{json}{key}{parentKeyId}, $root_id, 'parent';
# JSON with an integer expires_in, requested_token_type
$r = token(undef, json => { grant_type => TOKEN_EXCHANGE, subject_token => $root,
                            subject_token_type => ACCESS_TOKEN_TYPE, expires_in => 120,
                            requested_token_type => ACCESS_TOKEN_TYPE });
is $r->code, 200, 'JSON exchange';
is $r->{json}{expires_in}, 120, 'integer expires_in';
api(DELETE => "/v1/keys/$r->{json}{key}{id}", token => $root);

# the actor appears in the access log note of requests made with the token
api(GET => '/v1/me', token => $child, headers => { 'X-Test' => 'actor-log' });
my $log = Apache::Test::vars('t_logs') . '/formsvc_access.log';
open my $fh, '<', $log or die "$log: $!";
my @lines = grep { m{GET /api/v1/me } && /cred=\Q$child_id\E/ } <$fh>;
close $fh;
ok @lines && $lines[-1] =~ /actor=research-agent/, 'access log carries cred and actor notes';

# a chain to depth 4; the next level is refused
my ($r2, $acct2) = signup();
my @chain = ($r2);
my @chain_ids = ($acct2->{apiKey}{id});
for my $d (1 .. 4) {
    $r = exchange($chain[-1], actor => "level-$d");
    is $r->code, 200, "depth $d: 200";
    is $r->{json}{key}{parentKeyId}, $chain_ids[-1], "depth $d: parent";
    push @chain, $r->{json}{access_token};
    push @chain_ids, $r->{json}{key}{id};
}
$r = exchange($chain[-1], actor => 'level-5');
oauth_error_ok $r, 400, 'invalid_request', 'the 6th level (depth 5) is refused';
like $r->{json}{error_description}, qr/at most 4/, 'error_description says why';
$r = api(GET => '/v1/me', token => $chain[4]);
is $r->code, 200, 'depth 4 works';
is $r->{json}{credential}{actor}, 'level-4', 'its actor';

# revoking any ancestor kills every descendant on its next request
$r = api(DELETE => "/v1/keys/$chain_ids[2]", token => $r2);
is $r->code, 200, 'revoke depth 2';
is api(GET => '/v1/me', token => $chain[1])->code, 200, 'depth 1 still works';
for my $d (2 .. 4) {
    is api(GET => '/v1/me', token => $chain[$d])->code, 401, "depth $d refused after the revocation";
}
$r = exchange($chain[3]);
oauth_error_ok $r, 400, 'invalid_grant', 'a revoked subject (bearer) cannot exchange';
$r = token([grant_type => TOKEN_EXCHANGE, subject_token => $chain[3],
            subject_token_type => ACCESS_TOKEN_TYPE]);
oauth_error_ok $r, 400, 'invalid_grant', 'a revoked subject_token cannot exchange';

# a parent that expires: the child never outlives it
my ($r3) = signup();
$r = api(POST => '/v1/keys', token => $r3, body => { name => 'short', expiresAt => iso_in(1800) });
my ($short, $short_id) = ($r->{json}{secret}, $r->{json}{id});
$r = exchange($short, expires_in => 3600);
oauth_error_ok $r, 400, 'invalid_request', 'expires_in beyond the parent';
$r = exchange($short);
is $r->code, 200, 'no expires_in under an expiring parent';
ok $r->{json}{expires_in} <= 1800 && $r->{json}{expires_in} > 1700, 'cut to the parent expiry';
my $under_short = $r->{json}{access_token};
$r = exchange($short, expires_in => 1000);
is $r->code, 200, 'expires_in within the parent';
my $under_short2 = $r->{json}{access_token};
# the parent expires now (rolled with no grace): its children expire with it
$r = api(POST => "/v1/keys/$short_id/roll", token => $r3, body => { expiresIn => 0 });
is $r->code, 201, 'parent rolled with expiresIn 0';
is api(GET => '/v1/me', token => $short)->code, 401, 'the expired parent is refused';
is api(GET => '/v1/me', token => $under_short)->code, 401, 'its delegated token too';
is api(GET => '/v1/me', token => $under_short2)->code, 401, 'and the other one';
$r = exchange($short);
oauth_error_ok $r, 400, 'invalid_grant', 'an expired subject cannot exchange';

# bad input
my ($r4) = signup();
# form: constraints name forms of the account
my $F1 = api(POST => '/v1/forms', token => $r4, body => { title => 'F' })->{json}{id};
my $F2 = api(POST => '/v1/forms', token => $r4, body => { title => 'F' })->{json}{id};
$r = api(POST => '/v1/keys', token => $r4,
         body => { name => 'form-bound', scopes => ['forms:read', 'submissions:read', "form:$F1"] });
my $bound = $r->{json}{secret};
my @bad = (
    ['scope wider than the parent', $bound, [scope => 'forms:write'], 'invalid_scope'],
    ['unknown scope token', $bound, [scope => 'forms:read root'], 'invalid_scope'],
    ['form constraint outside the parent', $bound, [scope => "forms:read form:$F2"],
     'invalid_scope'],
    ['dropping the form constraint', $bound, [scope => 'forms:read'], 'invalid_scope'],
    ['negative expires_in', $r4, [expires_in => '-5'], 'invalid_request'],
    ['zero expires_in', $r4, [expires_in => '0'], 'invalid_request'],
    ['huge expires_in', $r4, [expires_in => '99999999999999999999'], 'invalid_request'],
    ['expires_in over a year', $r4, [expires_in => '31536001'], 'invalid_request'],
    ['fractional expires_in', $r4, [expires_in => '1.5'], 'invalid_request'],
    ['actor over 100 characters', $r4, [actor => 'a' x 101], 'invalid_request'],
    ['actor with a control character', $r4, [actor => "a\x01b"], 'invalid_request'],
    ['name over 100 characters', $r4, [name => 'n' x 101], 'invalid_request'],
    ['repeated actor', $r4, [actor => 'a', actor => 'b'], 'invalid_request'],
    ['repeated scope', $r4, [scope => 'forms:read', scope => 'forms:read'], 'invalid_request'],
    ['actor_token', $r4, [actor_token => $r4, actor_token_type => ACCESS_TOKEN_TYPE],
     'invalid_request'],
    ['requested_token_type refresh', $r4,
     [requested_token_type => 'urn:ietf:params:oauth:token-type:refresh_token'], 'invalid_request'],
    ['client credentials with token exchange', $r4, [client_id => 'cli_x', client_secret => 'y'],
     'invalid_request'],
);
for my $c (@bad) {
    my ($name, $bearer, $params, $error) = @$c;
    oauth_error_ok exchange($bearer, @$params), 400, $error, $name;
}
$r = exchange($bound, scope => 'forms:read submissions:read');
is $r->{json}{requiredScope}, "form:$F1", 'requiredScope names the missing constraint';
$r = exchange($bound, scope => "submissions:read form:$F1", actor => 'a' x 100);
is $r->code, 200, 'narrowing inside the constraint, actor of exactly 100 characters';
is_deeply $r->{json}{key}{scopes}, ['submissions:read', "form:$F1"], 'constrained child scopes';

my @bad_subject = (
    ['subject_token without subject_token_type', [subject_token => $r4], 'invalid_request'],
    ['subject_token_type jwt', [subject_token => $r4,
                                subject_token_type => 'urn:ietf:params:oauth:token-type:jwt'],
     'invalid_request'],
    ['no subject at all', [], 'invalid_request'],
    ['garbage subject_token', [subject_token => 'svc_live_nope', subject_token_type => ACCESS_TOKEN_TYPE],
     'invalid_grant'],
    ['well-formed unknown subject_token',
     [subject_token => 'svc_live_' . ('A' x 39), subject_token_type => ACCESS_TOKEN_TYPE],
     'invalid_grant'],
);
for my $c (@bad_subject) {
    my ($name, $params, $error) = @$c;
    oauth_error_ok token([grant_type => TOKEN_EXCHANGE, @$params]), 400, $error, $name;
}
oauth_error_ok exchange('svc_live_garbage'), 400, 'invalid_grant', 'garbage bearer subject';
oauth_error_ok token([grant_type => TOKEN_EXCHANGE], basic => ['cli_x', 'svcc_y']), 400,
    'invalid_request', 'Basic credentials with token exchange';

# delegated tokens count against the key quota (6 in the test config)
my ($r5) = signup();
my $n = 1;
my $last;
for (1 .. 6) {
    $last = exchange($r5, actor => "worker-$_");
    last unless $last->code == 200;
    $n++;
}
is $n, 6, 'five delegated tokens fill the quota of six active keys';
oauth_error_ok $last, 403, 'invalid_request', 'the next is quota-exceeded', 'quota-exceeded';
is $last->{json}{quota}, 'keys', 'quota: keys';

done_testing;
