# Discovery for MCP clients: RFC 9728 protected
# resource metadata, RFC 8414 authorization server metadata where RFC 8414
# puts it for an issuer with a path, and the MCP endpoint's 401 naming the
# metadata (WWW-Authenticate resource_metadata). Also the formId and type
# filters of GET /v1/events that wait_for_submissions uses.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use Apache::TestRequest ();

my $base = base_url();                        # http://host:port/api
my ($origin) = $base =~ m{^(https?://[^/]+)};
# A GET of a path at the host's root (outside the base path /api).
sub root_get {
    my $path = shift;
    my $res = Apache::TestRequest::GET($path);
    $res->{json} = json_of($res);
    return $res;
}

# ---- protected resource metadata -------------------------------------------
my $r = root_get('/.well-known/oauth-protected-resource/api/mcp');
is $r->code, 200, 'RFC 9728 URL of {base}/mcp at the host root: 200';
like $r->header('Content-Type'), qr{^application/json}, 'JSON';
my $prm = $r->{json};
is $prm->{resource}, "$base/mcp", 'resource: the MCP endpoint';
is_deeply $prm->{authorization_servers}, [$base], 'authorization_servers: the issuer (base URL)';
is_deeply $prm->{bearer_methods_supported}, ['header'], 'bearer in the header only';
ok((grep { $_ eq 'submissions:read' } @{ $prm->{scopes_supported} }), 'scopes_supported');
is $prm->{resource_documentation}, "$base/openapi.json", 'resource_documentation';

$r = root_get('/.well-known/oauth-protected-resource/api');
is $r->{json}{resource}, $base, 'RFC 9728 URL of {base}: resource is the API';
$r = api(GET => '/.well-known/oauth-protected-resource');
is $r->code, 200, 'under the base URL too (as the AS metadata): 200';
is $r->{json}{resource}, $base, 'resource: the API';
is api(GET => '/.well-known/oauth-protected-resource/mcp')->{json}{resource}, "$base/mcp",
   'and of the MCP endpoint';
# not ours: httpd's own 404 (a file that does not exist, logged at info)
FormsvcTest::expect_log([qr/AH00128/], sub {
    is root_get('/.well-known/oauth-protected-resource/api/v1')->code, 404, 'no metadata for other paths';
    is root_get('/.well-known/oauth-protected-resource/apix/mcp')->code, 404, 'nor other base paths';
    is root_get('/.well-known/oauth-protected-resource')->code, 404,
       'the root is not the resource when the base path is /api';
});
is api(POST => '/.well-known/oauth-protected-resource', body => {})->code, 405, 'POST: 405';

# ---- authorization server metadata -------------------------------------------
$r = root_get('/.well-known/oauth-authorization-server/api');
is $r->code, 200, 'RFC 8414 URL of issuer {base} at the host root: 200';
my $as = api(GET => '/.well-known/oauth-authorization-server')->{json};
is_deeply $r->{json}, $as, 'the same document as under the base URL';
is $as->{issuer}, $base, 'issuer: the base URL, the authorization server the PRM names';
is $as->{token_endpoint}, "$base/v1/token", 'token_endpoint';

# ---- the MCP endpoint's 401 ------------------------------------------------
my $want = qq{resource_metadata="$origin/.well-known/oauth-protected-resource/api/mcp"};
$r = api(POST => '/mcp', body => { jsonrpc => '2.0', id => 1, method => 'ping' });
is $r->code, 401, '/mcp without a credential: 401';
like $r->header('WWW-Authenticate'), qr/^Bearer realm="formsvc", \Q$want\E$/, 'names the resource metadata';
$r = api(POST => '/mcp', token => 'svc_live_nonsense', body => { jsonrpc => '2.0', id => 1, method => 'ping' });
is $r->code, 401, 'a bad credential: 401';
like $r->header('WWW-Authenticate'), qr/error="invalid_token", \Q$want\E/, 'invalid_token and the metadata';
$r = api(GET => '/v1/forms');
is $r->code, 401, 'a REST route: 401';
is $r->header('WWW-Authenticate'), 'Bearer realm="formsvc"', 'its challenge unchanged';

# ---- GET /v1/events?formId=&type= -------------------------------------------
my ($secret) = signup();
my @forms;
for my $t (qw(A B)) {
    my $f = api(POST => '/v1/forms', token => $secret,
                body => { title => $t, fields => [{ key => 'q', type => 'text', label => 'Q' }] })->{json};
    api(POST => "/v1/forms/$f->{id}/publish", token => $secret);
    my $s = api(POST => "/f/$f->{id}", body => { q => "to $t" }, headers => { Accept => 'application/json' });
    is $s->code, 201, "a submission to $t";
    push @forms, $f->{id};
}
my $all = api(GET => '/v1/events?limit=100', token => $secret)->{json}{data};
is scalar @$all, 4, 'unfiltered: 2 publications, 2 submissions';
my $one = api(GET => "/v1/events?formId=$forms[0]", token => $secret)->{json}{data};
is_deeply [map { $_->{formId} } @$one], [$forms[0], $forms[0]], 'formId: the events of that form';
my $subs = api(GET => '/v1/events?type=submission.created', token => $secret)->{json}{data};
is_deeply [map { $_->{type} } @$subs], ['submission.created', 'submission.created'], 'type: submissions only';
my $both = api(GET => "/v1/events?type=form.published&formId=$forms[1]", token => $secret)->{json}{data};
is scalar @$both, 1, 'both filters';
is "$both->[0]{type} $both->[0]{formId}", "form.published $forms[1]", 'the publication of B';
$r = api(GET => "/v1/events?type=form.deleted", token => $secret);
is $r->code, 422, 'unknown type: 422';
is $r->{json}{errors}[0]{pointer}, '/type', 'pointer /type';
is api(GET => '/v1/events?formId=frm_nope', token => $secret)->code, 404, 'unknown form: 404';
is api(GET => '/v1/events?formId=../x', token => $secret)->code, 404, 'not a form id: 404';
my ($other) = signup();
is api(GET => "/v1/events?formId=$forms[0]", token => $other)->code, 404, "another account's form: 404";
my $k = api(POST => '/v1/keys', token => $secret, body => { name => 'w', scopes => ['webhooks:read'] })->{json};
$r = api(GET => '/v1/events?type=submission.created', token => $k->{secret});
is $r->code, 403, 'type=submission.created without submissions:read: 403';
is $r->{json}{requiredScope}, 'submissions:read', 'requiredScope';
is api(GET => '/v1/events?type=form.published', token => $k->{secret})->code, 200, 'form events: fine';
my $cursor = $one->[0]{id};
my $after = api(GET => "/v1/events?formId=$forms[0]&after=$cursor", token => $secret)->{json}{data};
is_deeply [map { $_->{id} } @$after], [$one->[1]{id}], 'after works with the filters';

done_testing;
