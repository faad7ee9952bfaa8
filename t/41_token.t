# POST /v1/token, grant_type=client_credentials (RFC 6749 4.4): client
# authentication by HTTP Basic or in the body, scope narrowing, the
# response and its headers, and every bad input as an OAuth error inside a
# problem document. Also GET /.well-known/oauth-authorization-server.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;

my @ALL = qw(forms:read forms:write submissions:read submissions:write keys:read keys:write
             clients:read clients:write webhooks:read webhooks:write account:read account:write);

# RFC 8414 metadata, public
my $r = api(GET => '/.well-known/oauth-authorization-server');
is $r->code, 200, 'metadata: 200 without a credential';
my $m = $r->{json};
is $m->{issuer}, base_url(), 'issuer';
is $m->{token_endpoint}, base_url() . '/v1/token', 'token_endpoint';
is_deeply $m->{grant_types_supported},
    ['client_credentials', TOKEN_EXCHANGE, 'authorization_code', 'refresh_token'], 'grant types';
is_deeply $m->{token_endpoint_auth_methods_supported},
    ['client_secret_basic', 'client_secret_post', 'none'], 'auth methods';
is_deeply $m->{scopes_supported}, \@ALL, 'scopes';

my ($root) = signup();
my ($cid, $csecret) = new_client($root, { name => 'machine' });

# HTTP Basic
$r = token([grant_type => 'client_credentials'], basic => [$cid, $csecret]);
is $r->code, 200, 'Basic: 200';
my $t = $r->{json};
like $t->{access_token}, qr/^svc_live_[0-9A-Za-z]{39}$/, 'access_token is a bearer secret';
is $t->{token_type}, 'Bearer', 'token_type Bearer';
is $t->{expires_in}, 3600, 'expires_in: the FormsvcTokenLifetime default';
is $t->{scope}, join(' ', @ALL), 'scope: the full grant';
ok !exists $t->{issued_token_type}, 'no issued_token_type for client_credentials';
is $r->header('Cache-Control'), 'no-store', 'Cache-Control: no-store';
is $r->header('Pragma'), 'no-cache', 'Pragma: no-cache';
like $r->header('Content-Type'), qr{^application/json}, 'JSON';

$r = api(GET => '/v1/me', token => $t->{access_token});
is $r->code, 200, 'the access token authenticates';
is $r->{json}{credential}{clientId}, $cid, 'credential.clientId';
my $tok_id = $r->{json}{credential}{id};
like $r->{json}{credential}{expiresAt}, qr/Z$/, 'the access token expires';

# access tokens are not API keys: not listed, not counted
$r = api(GET => '/v1/keys', token => $root);
ok !(grep { $_->{id} eq $tok_id } @{ $r->{json}{data} }), 'access tokens are not listed by GET /v1/keys';
is api(GET => "/v1/keys/$tok_id", token => $root)->code, 200, 'but can be read by id';
for (1 .. 7) {
    $r = token([grant_type => 'client_credentials'], basic => [$cid, $csecret]);
}
is $r->code, 200, 'more access tokens than the key quota (6): not counted against it';
$r = api(POST => '/v1/keys', token => $root, body => { name => 'still room' });
is $r->code, 201, 'and keys can still be created';
# one access token can be revoked by its id
my $one = token([grant_type => 'client_credentials'], basic => [$cid, $csecret])->{json}{access_token};
my $one_id = api(GET => '/v1/me', token => $one)->{json}{credential}{id};
$r = api(DELETE => "/v1/keys/$one_id", token => $root);
is $r->code, 200, 'DELETE /v1/keys/{id} revokes a single access token';
is $r->{json}{clientId}, $cid, 'its metadata names the client';
is api(GET => '/v1/me', token => $one)->code, 401, 'that token is refused';
is api(GET => '/v1/me', token => $t->{access_token})->code, 200, 'the client\'s other tokens work';

# credentials in the body, scope narrows
$r = token([grant_type => 'client_credentials', client_id => $cid, client_secret => $csecret,
            scope => 'forms:read keys:read']);
is $r->code, 200, 'body credentials: 200';
is $r->{json}{scope}, 'forms:read keys:read', 'scope narrowed';
my $narrow = $r->{json}{access_token};
is api(GET => '/v1/keys', token => $narrow)->code, 200, 'narrowed token: keys:read works';
$r = api(GET => '/v1/me', token => $narrow);
is $r->code, 403, 'narrowed token: account:read refused';

# JSON as a convenience, with a charset
$r = token(undef, json => { grant_type => 'client_credentials', client_id => $cid,
                            client_secret => $csecret, scope => 'forms:write' });
is $r->code, 200, 'JSON body: 200';
is $r->{json}{scope}, 'forms:write', 'JSON scope';
$r = token('grant_type=client_credentials&scope=forms%3Aread',
           basic => [$cid, $csecret],
           headers => { 'Content-Type' => 'application/x-www-form-urlencoded; charset=UTF-8' });
is $r->code, 200, 'form body with charset parameter';
is $r->{json}{scope}, 'forms:read', 'escaped scope decoded';
# RFC 6749 3.1: an empty parameter is as if omitted
$r = token([grant_type => 'client_credentials', scope => ''], basic => [$cid, $csecret]);
is $r->code, 200, 'empty scope: as if omitted';
is $r->{json}{scope}, join(' ', @ALL), 'the full grant';
$r = token([grant_type => 'client_credentials', unknown_param => 'x'], basic => [$cid, $csecret]);
is $r->code, 200, 'unknown parameters are ignored (RFC 6749 3.2)';
# client_id in the body and Basic, naming the same client
$r = token([grant_type => 'client_credentials', client_id => $cid], basic => [$cid, $csecret]);
is $r->code, 200, 'client_id in the body repeating the Basic id: accepted';

# a scoped client with a form constraint
my ($acct2) = signup();
# form: constraints name forms of the account
my $F1 = api(POST => '/v1/forms', token => $acct2, body => { title => 'F' })->{json}{id};
my $F2 = api(POST => '/v1/forms', token => $acct2, body => { title => 'F' })->{json}{id};
my ($cid2, $csecret2) = new_client($acct2, { scopes => ['forms:read', 'submissions:read', "form:$F1"] });
$r = token([grant_type => 'client_credentials'], basic => [$cid2, $csecret2]);
is $r->{json}{scope}, "forms:read submissions:read form:$F1", 'scoped client: its grant';
$r = token([grant_type => 'client_credentials', scope => "submissions:read form:$F1"],
           basic => [$cid2, $csecret2]);
is $r->code, 200, 'narrowing inside the constraint';

# --- bad input ---------------------------------------------------------
my $BASIC = [$cid, $csecret];
my $other = $csecret2;
my $wrong = $csecret =~ s/^(svcc_)(.)/$1 . ($2 eq 'a' ? 'b' : 'a')/er;

my @cases = (
    ['wrong secret (Basic)', [grant_type => 'client_credentials'], { basic => [$cid, $wrong] },
     401, 'invalid_client'],
    ['wrong secret (body)', [grant_type => 'client_credentials', client_id => $cid,
                            client_secret => $wrong], {}, 401, 'invalid_client'],
    ['unknown client', [grant_type => 'client_credentials'],
     { basic => ['cli_01ARZ3NDEKTSV4RRFFQ69G5FAV', $csecret] }, 401, 'invalid_client'],
    ['malformed client id', [grant_type => 'client_credentials'],
     { basic => ["x' OR 1=1 --", $csecret] }, 401, 'invalid_client'],
    ['secret of client B with the id of client A', [grant_type => 'client_credentials'],
     { basic => [$cid, $other] }, 401, 'invalid_client'],
    ['an API key as the client secret', [grant_type => 'client_credentials'],
     { basic => [$cid, $root] }, 401, 'invalid_client'],
    ['no client authentication', [grant_type => 'client_credentials'], {}, 401, 'invalid_client'],
    ['client_id without a secret', [grant_type => 'client_credentials', client_id => $cid], {},
     401, 'invalid_client'],
    ['empty client_secret', [grant_type => 'client_credentials', client_id => $cid,
                             client_secret => ''], {}, 401, 'invalid_client'],
    ['undecodable Basic', [grant_type => 'client_credentials'],
     { headers => { Authorization => 'Basic !!notbase64' } }, 401, 'invalid_client'],
    ['Basic without a colon', [grant_type => 'client_credentials'],
     { headers => { Authorization => 'Basic Y2xpX3g=' } }, 401, 'invalid_client'],
    ['Basic and body credentials at once', [grant_type => 'client_credentials',
                                            client_id => $cid, client_secret => $csecret],
     { basic => $BASIC }, 400, 'invalid_request'],
    ['Basic and a different client_id in the body', [grant_type => 'client_credentials',
                                                     client_id => $cid2],
     { basic => $BASIC }, 400, 'invalid_request'],
    ['missing grant_type', [scope => 'forms:read'], { basic => $BASIC }, 400, 'invalid_request'],
    ['empty grant_type', [grant_type => ''], { basic => $BASIC }, 400, 'invalid_request'],
    ['empty body', [], { basic => $BASIC }, 400, 'invalid_request'],
    ['grant_type=password', [grant_type => 'password', username => 'a', password => 'b'],
     { basic => $BASIC }, 400, 'unsupported_grant_type'],
    # the authorization code flow's grants are for public clients (t/49)
    ['grant_type=authorization_code with a client secret',
     [grant_type => 'authorization_code', code => 'x'], { basic => $BASIC }, 401, 'invalid_client'],
    ['grant_type=refresh_token with a client secret',
     [grant_type => 'refresh_token', refresh_token => 'x'], { basic => $BASIC }, 401,
     'invalid_client'],
    ['grant_type in another case', [grant_type => 'Client_Credentials'], { basic => $BASIC },
     400, 'unsupported_grant_type'],
    ['repeated grant_type', [grant_type => 'client_credentials', grant_type => 'client_credentials'],
     { basic => $BASIC }, 400, 'invalid_request'],
    ['repeated scope', [grant_type => 'client_credentials', scope => 'forms:read',
                        scope => 'keys:read'], { basic => $BASIC }, 400, 'invalid_request'],
    ['repeated client_id', [grant_type => 'client_credentials', client_id => $cid,
                            client_id => $cid, client_secret => $csecret], {}, 400, 'invalid_request'],
    ['repeated empty parameter', [grant_type => 'client_credentials', scope => '', scope => ''],
     { basic => $BASIC }, 400, 'invalid_request'],
    ['unknown scope token', [grant_type => 'client_credentials', scope => 'forms:read admin'],
     { basic => $BASIC }, 400, 'invalid_scope'],
    ['scope of blanks', [grant_type => 'client_credentials', scope => '   '],
     { basic => $BASIC }, 400, 'invalid_scope'],
    ['scope wider than the grant', [grant_type => 'client_credentials', scope => 'forms:write'],
     { basic => [$cid2, $csecret2] }, 400, 'invalid_scope'],
    ['form constraint outside the grant', [grant_type => 'client_credentials',
                                           scope => "forms:read form:$F2"],
     { basic => [$cid2, $csecret2] }, 400, 'invalid_scope'],
    ['dropping the form constraint', [grant_type => 'client_credentials', scope => 'forms:read'],
     { basic => [$cid2, $csecret2] }, 400, 'invalid_scope'],
);
for my $c (@cases) {
    my ($name, $params, $opt, $status, $error) = @$c;
    my $res = token($params, %$opt);
    oauth_error_ok $res, $status, $error, $name;
    if ($status == 401) {
        is $res->header('WWW-Authenticate'), 'Basic realm="formsvc"', "$name: WWW-Authenticate Basic";
    }
}

$r = token([grant_type => 'client_credentials', scope => 'forms:write'], basic => [$cid2, $csecret2]);
is $r->{json}{requiredScope}, 'forms:write', 'invalid_scope names requiredScope';

my @raw = (
    ['malformed %-escape', 'grant_type=client%ZZcredentials', 'application/x-www-form-urlencoded',
     400, 'invalid_request', 'invalid-request'],
    ['NUL in a parameter', 'grant_type=client_credentials&scope=forms%00', 'application/x-www-form-urlencoded',
     400, 'invalid_request', 'invalid-request'],
    ['invalid UTF-8', 'grant_type=client_credentials&scope=%C3%28', 'application/x-www-form-urlencoded',
     400, 'invalid_request', 'invalid-request'],
    ['text/plain', 'grant_type=client_credentials', 'text/plain', 415, 'invalid_request',
     'unsupported-media-type'],
    ['malformed JSON', '{"grant_type":', 'application/json', 400, 'invalid_request',
     'malformed-request'],
    ['JSON with a duplicate member', '{"grant_type":"client_credentials","grant_type":"x"}',
     'application/json', 400, 'invalid_request', 'malformed-request'],
    ['JSON non-string parameter', '{"grant_type":["client_credentials"]}', 'application/json',
     400, 'invalid_request', 'invalid-request'],
    ['JSON array body', '["client_credentials"]', 'application/json', 400, 'invalid_request',
     'malformed-request'],
    ['body over 16 KiB', 'grant_type=client_credentials&x=' . ('a' x 17000),
     'application/x-www-form-urlencoded', 413, 'invalid_request', 'payload-too-large'],
);
for my $c (@raw) {
    my ($name, $body, $ct, $status, $error, $slug) = @$c;
    my $res = token($body, basic => $BASIC, headers => { 'Content-Type' => $ct });
    oauth_error_ok $res, $status, $error, $name, $slug;
}
$r = api(POST => '/v1/token', headers => { Authorization => basic(@$BASIC) });
oauth_error_ok $r, 400, 'invalid_request', 'no body at all', 'malformed-request';
# credentials in the URL are refused (RFC 6749 2.3.1), even
# when the body is complete, and never reach the access log
for my $q ("client_id=$cid&client_secret=$csecret", "client%5Fsecret=$csecret", "subject_token=x",
           "CLIENT_SECRET=$csecret") {
    $r = api(POST => "/v1/token?$q", body => "grant_type=client_credentials&client_id=$cid&client_secret=$csecret",
             headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
    oauth_error_ok $r, 400, 'invalid_request', "credential in the query ($q)";
    like $r->{json}{error_description} // $r->{json}{detail}, qr/query string/, 'says why';
}
$r = token([grant_type => 'client_credentials', client_id => $cid, client_secret => $csecret]);
is $r->code, 200, 'the same in the body is fine';
is api(POST => "/v1/token?foo=1", body => "grant_type=client_credentials&client_id=$cid&client_secret=$csecret",
       headers => { 'Content-Type' => 'application/x-www-form-urlencoded' })->code, 200,
   'other query parameters are ignored';
{
    # lines are written after the answer: wait for the last request's in both logs
    my $logs = '';
    wait_for(sub {
        $logs = '';
        for my $f (map { Apache::Test::vars('t_logs') . "/$_" } 'access_log', 'formsvc_access.log') {
            open my $fh, '<', $f or next;
            local $/; $logs .= <$fh>;
        }
        my @last = $logs =~ m{"POST /api/v1/token\?foo=1 HTTP/1\.1" 200 }g;
        @last == 2;
    }, 10, 'the access log lines of the last token request');
    like $logs, qr{/api/v1/token\?client_id=\Q$cid\E&client_secret=REDACTED }, 'logged redacted';
    unlike $logs, qr/\Q$csecret\E/, 'no client secret in any access log';
}
$r = api(GET => '/v1/token');
is $r->code, 405, 'GET /v1/token: 405';
like $r->header('Allow'), qr/POST/, 'Allow: POST';

# a revoked client, and an access token after its client is deleted
my ($acct3) = signup();
my ($cid3, $csecret3) = new_client($acct3, {});
$r = token([grant_type => 'client_credentials'], basic => [$cid3, $csecret3]);
my $at3 = $r->{json}{access_token};
# a token delegated from the access token dies with the client too
my $child = exchange($at3, actor => 'child-of-access-token')->{json}{access_token};
is api(GET => '/v1/me', token => $child)->code, 200, 'a token delegated from an access token works';
is api(DELETE => "/v1/clients/$cid3", token => $acct3)->code, 200, 'client deleted';
$r = token([grant_type => 'client_credentials'], basic => [$cid3, $csecret3]);
oauth_error_ok $r, 401, 'invalid_client', 'revoked client';
$r = api(GET => '/v1/me', token => $at3);
is $r->code, 401, 'access token after its client is deleted: 401';
is $r->{json}{type}, base_url() . '/problems/unauthorized', 'unauthorized problem';
is api(GET => '/v1/me', token => $child)->code, 401, 'and what was delegated from it: 401';
is api(GET => '/v1/me', token => $acct3)->code, 200, 'the account key is untouched';

# a client registered by a key outlives that key
my ($acct4) = signup();
$r = api(POST => '/v1/keys', token => $acct4, body => { name => 'registrar' });
my ($reg, $reg_id) = ($r->{json}{secret}, $r->{json}{id});
my ($cid4, $csecret4) = new_client($reg, {});
api(DELETE => "/v1/keys/$reg_id", token => $acct4);
$r = token([grant_type => 'client_credentials'], basic => [$cid4, $csecret4]);
is $r->code, 200, 'revoking the registering key does not delete the client';

done_testing;
