# POST /mcp: the MCP Streamable HTTP transport (JSON answers), JSON-RPC
# errors, and every tool, which runs its REST route with the same scopes
# and problems.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my ($secret, $acct) = signup();
my $other_before;
my $n = 0;
my (%tool, $last_tool); # tools/list, and the tool of the last tools/call
my $MCP_ACCEPT = 'application/json, text/event-stream';

# rpc(TOKEN, METHOD, PARAMS) -> the HTTP::Response (JSON in {json})
sub rpc {
    my ($token, $method, $params, %o) = @_;
    my %msg = (jsonrpc => '2.0', id => ++$n, method => $method);
    $last_tool = $method eq 'tools/call' ? $params->{name} : undef;
    $msg{params} = $params if defined $params;
    return api(POST => '/mcp', token => $token, body => \%msg,
               headers => { Accept => $MCP_ACCEPT, %{ $o{headers} || {} } });
}
# call(TOKEN, TOOL, ARGS) -> the tools/call result
sub call {
    my ($token, $tool, $args) = @_;
    my $r = rpc($token, 'tools/call', { name => $tool, arguments => $args // {} });
    die "tools/call $tool: " . $r->status_line . ' ' . $r->content
        unless $r->code == 200 && $r->{json}{result};
    return $r->{json}{result};
}
sub ok_result {
    my ($res, $what) = @_;
    ok !$res->{isError}, "$what: not an error" or diag explain $res;
    is $res->{content}[0]{type}, 'text', "$what: text content";
    if (my $schema = $last_tool && $tool{$last_tool} && $tool{$last_tool}{outputSchema}) {
        my @missing = grep { !exists $res->{structuredContent}{$_} } @{ $schema->{anyOf}[0]{required} };
        ok !@missing, "$what: has what outputSchema requires" or diag "missing: @missing";
    }
    return $res->{structuredContent};
}

# ---- transport and lifecycle --------------------------------------------
my $r = api(POST => '/mcp', body => { jsonrpc => '2.0', id => 1, method => 'initialize',
            params => { protocolVersion => '2025-06-18', capabilities => {}, clientInfo => { name => 't', version => '1' } } });
is $r->code, 401, 'no credential: 401';
like $r->header('WWW-Authenticate'), qr/^Bearer/, 'WWW-Authenticate';
is $r->{json}{type}, base_url() . '/problems/unauthorized', 'unauthorized problem';

$r = api(GET => '/mcp', token => $secret, headers => { Accept => 'text/event-stream' });
is $r->code, 400, 'GET /mcp without a session: 400';
$r = api(GET => '/mcp', token => $secret, headers => { Accept => 'application/json', 'Mcp-Session-Id' => 'mcs_01J0000000000000000000000Z' });
is $r->code, 406, 'GET /mcp not accepting text/event-stream: 406';
$r = api(DELETE => '/mcp', token => $secret);
is $r->code, 400, 'DELETE /mcp without a session: 400';
$r = api(PUT => '/mcp', token => $secret);
is $r->code, 405, 'PUT /mcp: 405';
is $r->header('Allow'), 'GET, HEAD, POST, DELETE', 'Allow names the transport\'s methods' or diag $r->header('Allow');

$r = rpc($secret, 'initialize', { protocolVersion => '2025-06-18', capabilities => {},
                                  clientInfo => { name => 't', version => '1' } });
is $r->code, 200, 'initialize 200';
like $r->header('Content-Type'), qr{^application/json}, 'JSON answer';
my $init = $r->{json};
is $init->{jsonrpc}, '2.0', 'jsonrpc 2.0';
is $init->{id}, $n, 'id echoed';
is $init->{result}{protocolVersion}, '2025-06-18', 'version agreed';
is_deeply $init->{result}{capabilities}{tools}, { listChanged => JSON::PP::false }, 'tools capability';
is $init->{result}{serverInfo}{name}, 'formsvc', 'serverInfo';
is $init->{result}{serverInfo}{version}, '0.3.0', 'serverInfo version is the release';
my $session = $r->header('Mcp-Session-Id');
like $session // '', qr/^mcs_[0-9A-Z]{26}$/, 'initialize starts a session';
$r = rpc($secret, 'ping', undef, headers => { 'Mcp-Session-Id' => $session });
is $r->code, 200, 'a request of the session';
$r = rpc($secret, 'ping', undef, headers => { 'Mcp-Session-Id' => 'mcs_01J0000000000000000000000Z' });
is $r->code, 404, 'an unknown session: 404';
$r = rpc($secret, 'ping', undef, headers => { 'Mcp-Session-Id' => 'bogus' });
is $r->code, 400, 'a malformed session id: 400';
{
    my ($stranger) = signup();
    $r = rpc($stranger, 'ping', undef, headers => { 'Mcp-Session-Id' => $session });
    is $r->code, 404, 'another account\'s session: 404';
    $r = api(DELETE => '/mcp', token => $stranger, headers => { 'Mcp-Session-Id' => $session });
    is $r->code, 404, 'another account cannot end it';
}

$r = rpc($secret, 'initialize', { protocolVersion => '2025-03-26', capabilities => {}, clientInfo => { name => 't', version => '1' } });
is $r->{json}{result}{protocolVersion}, '2025-03-26', 'older version agreed';
$r = rpc($secret, 'initialize', { protocolVersion => '1999-01-01', capabilities => {}, clientInfo => { name => 't', version => '1' } });
is $r->{json}{result}{protocolVersion}, '2025-06-18', 'unknown version: ours offered';
$r = rpc($secret, 'initialize', {});
is $r->{json}{error}{code}, -32602, 'initialize without protocolVersion: -32602';

$r = api(POST => '/mcp', token => $secret, headers => { Accept => $MCP_ACCEPT },
         body => { jsonrpc => '2.0', method => 'notifications/initialized' });
is $r->code, 202, 'notification: 202';
is $r->content, '', 'no body';
$r = api(POST => '/mcp', token => $secret, body => { jsonrpc => '2.0', id => 'srv-1', result => {} });
is $r->code, 404, 'a response to no request of ours: 404 (t/37 has the responses to ours)';

$r = rpc($secret, 'ping', undef, headers => { 'MCP-Protocol-Version' => '2025-06-18' });
is $r->code, 200, 'ping';
is_deeply $r->{json}{result}, {}, 'ping result {}';
$r = rpc($secret, 'ping', undef, headers => { 'MCP-Protocol-Version' => '2000-01-01' });
is $r->code, 400, 'unsupported MCP-Protocol-Version: 400';
$r = api(POST => '/mcp', token => $secret, body => { jsonrpc => '2.0', id => 1, method => 'ping' },
         headers => { Accept => 'text/event-stream' });
is $r->code, 406, 'only text/event-stream acceptable: 406';
$r = api(POST => '/mcp', token => $secret, body => '{"jsonrpc":"2.0","id":1,"method":"ping"}',
         headers => { 'Content-Type' => 'text/plain' });
is $r->code, 415, 'text/plain: 415';

# ---- JSON-RPC errors ----------------------------------------------------
$r = api(POST => '/mcp', token => $secret, body => '{"jsonrpc":"2.0","id":1,"method":');
is $r->code, 400, 'parse error: HTTP 400';
is $r->{json}{error}{code}, -32700, 'parse error -32700';
ok exists $r->{json}{id} && !defined $r->{json}{id}, 'id null';
$r = api(POST => '/mcp', token => $secret, body => '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}');
is $r->{json}{error}{code}, -32700, 'duplicate member: -32700';
$r = api(POST => '/mcp', token => $secret, body => '[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
is $r->code, 400, 'batch: 400';
is $r->{json}{error}{code}, -32600, 'batch: -32600';
like $r->{json}{error}{message}, qr/batch/i, 'says batches are not supported';
$r = api(POST => '/mcp', token => $secret, body => '"ping"');
is $r->{json}{error}{code}, -32600, 'a string: -32600';
$r = api(POST => '/mcp', token => $secret, body => { jsonrpc => '1.0', id => 7, method => 'ping' });
is $r->{json}{error}{code}, -32600, 'jsonrpc 1.0: -32600';
is $r->{json}{id}, 7, 'id kept';
$r = api(POST => '/mcp', token => $secret, body => { jsonrpc => '2.0', id => { a => 1 }, method => 'ping' });
is $r->{json}{error}{code}, -32600, 'object id: -32600';
$r = api(POST => '/mcp', token => $secret, body => { jsonrpc => '2.0', id => 3, method => 5 });
is $r->{json}{error}{code}, -32600, 'numeric method: -32600';
$r = api(POST => '/mcp', token => $secret, body => '');
is $r->{json}{error}{code}, -32600, 'empty body: -32600';
$r = rpc($secret, 'completion/complete');
is $r->code, 200, 'unknown method: HTTP 200';
is $r->{json}{error}{code}, -32601, 'method not found -32601';
$r = api(POST => '/mcp', token => $secret, body => { jsonrpc => '2.0', id => 9, method => 'tools/call', params => [1] });
is $r->{json}{error}{code}, -32602, 'params an array: -32602';
$r = rpc($secret, 'tools/call', { name => 'no_such_tool', arguments => {} });
is $r->{json}{error}{code}, -32602, 'unknown tool: -32602';
# an argument a tool cannot take is the tool's error (isError with a
# validation-failed problem naming it), so that the model can correct the
# call; a malformed call (no such tool, arguments not an object) stays -32602
for my $c ([get_form => {}, qr/formId is required/, 'missing formId'],
           [get_form => { formId => '../keys' }, qr/formId is not an identifier/, 'formId not an identifier'],
           [list_forms => { limit => 'ten' }, qr/limit must be an integer/, 'limit a string'],
           [list_forms => { colour => 'red' }, qr/Unknown argument colour/, 'unknown argument of a query tool']) {
    my ($tool, $args, $says, $what) = @$c;
    $r = rpc($secret, 'tools/call', { name => $tool, arguments => $args });
    ok !$r->{json}{error}, "$what: no protocol error" or diag explain $r->{json};
    ok $r->{json}{result}{isError}, "$what: isError";
    is $r->{json}{result}{structuredContent}{status}, 422, "$what: a 422 problem";
    like $r->{json}{result}{content}[0]{text}, $says, "$what: the text says which argument";
}
$r = rpc($secret, 'tools/call', { name => 'get_form', arguments => 'x' });
is $r->{json}{error}{code}, -32602, 'arguments a string: -32602';

# ---- tools/list ---------------------------------------------------------
$r = rpc($secret, 'tools/list');
my @tools = @{ $r->{json}{result}{tools} };
%tool = map { $_->{name} => $_ } @tools;
my @want = qw(whoami list_forms get_form create_form update_form delete_form publish_form
              close_form add_field update_field delete_field replace_fields list_submissions
              get_submission delete_submission list_keys create_key revoke_key get_form_stats
              get_form_notify
              create_link list_links get_link delete_link
              list_webhooks create_webhook update_webhook delete_webhook test_webhook
              list_deliveries retry_delivery get_key roll_key list_audit list_events
              get_file_url);
ok $tool{$_}, "tool $_ listed" for @want;
for my $t (@tools) {
    is $t->{inputSchema}{type}, 'object', "$t->{name}: inputSchema is an object schema";
    is $t->{outputSchema}{type}, 'object', "$t->{name}: outputSchema is an object schema";
    is $t->{outputSchema}{anyOf}[1]{required}[2], 'status', "$t->{name}: outputSchema allows a problem";
    ok length $t->{description}, "$t->{name}: described";
}
ok $tool{list_forms}{annotations}{readOnlyHint}, 'list_forms read-only';
ok $tool{delete_form}{annotations}{destructiveHint}, 'delete_form destructive';
is_deeply $tool{get_form}{inputSchema}{required}, ['formId'], 'get_form needs formId';

# ---- every tool ---------------------------------------------------------
my $me = ok_result(call($secret, 'whoami'), 'whoami');
is $me->{user}{id}, $acct->{user}{id}, 'whoami: the same user as GET /v1/me';
my $rest = api(GET => '/v1/me', token => $secret)->{json};
is_deeply $me->{user}, $rest->{user}, 'whoami: user as GET /v1/me';
is $me->{credential}{id}, $rest->{credential}{id}, 'whoami: the calling credential';
is_deeply $me->{quota}{limits}{forms}, $rest->{quota}{limits}{forms}, 'whoami: quotas';

my $form = ok_result(call($secret, 'create_form', {
    title => 'MCP form', slug => "mcp-$$-" . time,
    fields => [{ key => 'name', type => 'text', label => 'Name', required => JSON::PP::true }] }), 'create_form');
like $form->{id}, qr/^frm_/, 'create_form: a form';
is $form->{status}, 'draft', 'draft';
is api(GET => "/v1/forms/$form->{id}", token => $secret)->code, 200, 'visible over REST';

my $res = call($secret, 'create_form', { title => '', colour => 'red' });
ok $res->{isError}, 'create_form invalid: isError';
is $res->{structuredContent}{type}, base_url() . '/problems/validation-failed', 'validation-failed problem';
is $res->{structuredContent}{status}, 422, 'status 422';
is_deeply [sort map { "$_->{pointer} $_->{code}" } @{ $res->{structuredContent}{errors} }],
          ['/colour unknown', '/title minLength'], 'the REST pointers and codes';
like $res->{content}[0]{text}, qr/validation-failed/, 'problem in the text content too';
is $res->{structuredContent}{instance}, '/api/v1/forms', 'instance is the REST path';

my $list = ok_result(call($secret, 'list_forms', { limit => 1, status => 'draft' }), 'list_forms');
is scalar @{ $list->{data} }, 1, 'list_forms: limit honoured';
is $list->{data}[0]{id}, $form->{id}, 'the form';
$res = call($secret, 'list_forms', { limit => 0 });
ok $res->{isError}, 'limit 0: isError';
is $res->{structuredContent}{errors}[0]{pointer}, '/limit', 'pointer /limit';

my $got = ok_result(call($secret, 'get_form', { formId => $form->{id} }), 'get_form');
is $got->{title}, 'MCP form', 'get_form: title';
$res = call($secret, 'get_form', { formId => 'frm_doesnotexist' });
ok $res->{isError}, 'unknown form: isError';
is $res->{structuredContent}{status}, 404, '404 not-found';

my $upd = ok_result(call($secret, 'update_form', { formId => $form->{id}, title => 'Renamed',
                                                   settings => { maxSubmissions => 10 } }), 'update_form');
is $upd->{title}, 'Renamed', 'update_form: title';
is $upd->{settings}{maxSubmissions}, 10, 'settings merged';
$res = call($secret, 'update_form', { formId => $form->{id}, title => 'x', ifMatchVersion => 1 });
ok $res->{isError}, 'stale ifMatchVersion: isError';
is $res->{structuredContent}{status}, 412, '412 precondition-failed';
$upd = ok_result(call($secret, 'update_form', { formId => $form->{id}, description => 'd',
                                                ifMatchVersion => $upd->{version} }), 'update_form with current version');

my $fld = ok_result(call($secret, 'add_field', { formId => $form->{id}, key => 'email', type => 'email',
                                                 label => 'E-mail' }), 'add_field');
like $fld->{id}, qr/^fld_/, 'add_field: a field';
is $fld->{position}, 1, 'appended';
$res = call($secret, 'add_field', { formId => $form->{id}, key => 'Bad Key', type => 'text', label => 'x' });
ok $res->{isError}, 'bad key: isError';
is $res->{structuredContent}{errors}[0]{pointer}, '/key', 'pointer /key';

my $f2 = ok_result(call($secret, 'update_field', { formId => $form->{id}, fieldId => $fld->{id},
                                                   label => 'Your e-mail', required => JSON::PP::true }), 'update_field');
is $f2->{label}, 'Your e-mail', 'update_field: label';

my $pub = ok_result(call($secret, 'publish_form', { formId => $form->{id} }), 'publish_form');
is $pub->{status}, 'published', 'published';
$res = call($secret, 'publish_form', { formId => $form->{id} });
ok $res->{isError}, 'publish twice: isError';
is $res->{structuredContent}{type}, base_url() . '/problems/invalid-state', 'invalid-state';

# a submission through the public side, read back over MCP
my $pr = api(POST => "/f/$form->{id}", body => { name => 'Ada', email => 'ada@example.com' },
             headers => { Accept => 'application/json' });
is $pr->code, 201, 'a public submission' or diag $pr->content;
my $subs = ok_result(call($secret, 'list_submissions', { formId => $form->{id} }), 'list_submissions');
is scalar @{ $subs->{data} }, 1, 'one submission';
my $sub_id = $subs->{data}[0]{id};
like $sub_id // '', qr/^sub_/, 'list_submissions: its id';
my $one = ok_result(call($secret, 'get_submission', { formId => $form->{id}, submissionId => $sub_id }), 'get_submission');
is $one->{data}{name}, 'Ada', 'get_submission: data';
$subs = ok_result(call($secret, 'list_submissions', { formId => $form->{id}, since => '2000-01-01T00:00:00Z' }),
                  'list_submissions with since');
is scalar @{ $subs->{data} }, 1, 'list_submissions since 2000: the submission';
$res = call($secret, 'list_submissions', { formId => $form->{id}, since => 'yesterday' });
ok $res->{isError}, 'bad since: isError';
is $res->{structuredContent}{status}, 422, 'since 422' or diag explain $res;
$res = call($secret, 'get_submission', { formId => $form->{id}, submissionId => 'sub_nope' });
is $res->{structuredContent}{status}, 404, 'get_submission unknown: 404';
my $del = ok_result(call($secret, 'delete_submission', { formId => $form->{id}, submissionId => $sub_id }), 'delete_submission');
ok $del->{deleted}, 'delete_submission: deleted';
is api(GET => "/v1/forms/$form->{id}/submissions/$sub_id", token => $secret)->code, 404, 'gone over REST';
$res = call($secret, 'delete_submission', { formId => $form->{id}, submissionId => $sub_id });
is $res->{structuredContent}{status}, 404, 'delete_submission again: 404';

my $closed = ok_result(call($secret, 'close_form', { formId => $form->{id} }), 'close_form');
is $closed->{status}, 'closed', 'closed';

my $rep = ok_result(call($secret, 'replace_fields', { formId => $form->{id}, fields => [
    { id => $fld->{id}, key => 'email', type => 'email', label => 'Mail' },
    { key => 'age', type => 'integer', label => 'Age' } ] }), 'replace_fields');
is_deeply [map { $_->{key} } @{ $rep->{fields} }], ['email', 'age'], 'replace_fields: the new list';
is $rep->{fields}[0]{id}, $fld->{id}, 'id kept';

my $df = ok_result(call($secret, 'delete_field', { formId => $form->{id}, fieldId => $rep->{fields}[1]{id} }), 'delete_field');
ok $df->{deleted}, 'delete_field: deleted';
is scalar @{ api(GET => "/v1/forms/$form->{id}", token => $secret)->{json}{fields} }, 1, 'one field left';

# keys
my $key = ok_result(call($secret, 'create_key', { name => 'reader', scopes => ['forms:read'] }), 'create_key');
like $key->{secret}, qr/^svc_live_/, 'create_key: secret shown';
my $keys = ok_result(call($secret, 'list_keys', { includeRevoked => JSON::PP::true, limit => 100 }), 'list_keys');
ok((grep { $_->{id} eq $key->{id} } @{ $keys->{data} }), 'list_keys: the new key');
ok !(grep { exists $_->{secret} } @{ $keys->{data} }), 'no secrets listed';

# scope refusal: the reader key may list forms but not create them
my $rl = ok_result(call($key->{secret}, 'list_forms'), 'reader: list_forms');
$res = call($key->{secret}, 'create_form', { title => 'nope' });
ok $res->{isError}, 'reader: create_form isError';
is $res->{structuredContent}{type}, base_url() . '/problems/insufficient-scope', 'insufficient-scope';
is $res->{structuredContent}{requiredScope}, 'forms:write', 'requiredScope forms:write';
$res = call($key->{secret}, 'whoami');
is $res->{structuredContent}{requiredScope}, 'account:read', 'reader: whoami needs account:read';
$res = call($key->{secret}, 'create_key', { name => 'wider', scopes => ['forms:write'] });
is $res->{structuredContent}{status}, 403, 'reader: create_key 403';
$r = rpc($key->{secret}, 'tools/list');
is $r->code, 200, 'a scoped key may list the tools';

$r = rpc($key->{secret}, 'tools/call', { name => 'create_form', arguments => { title => 'nope' } });
ok !$r->header('WWW-Authenticate'), 'a refused tool sets no WWW-Authenticate on /mcp';

# a key constrained to one form sees only that form, through the same code
my ($f2id) = map { $_->{id} } ok_result(call($secret, 'create_form', { title => 'Second' }), 'second form');
my $only = api(POST => '/v1/keys', token => $secret,
               body => { name => 'one-form', scopes => ['forms:write', "form:$form->{id}"] })->{json};
my $seen = ok_result(call($only->{secret}, 'list_forms'), 'constrained: list_forms');
is_deeply [map { $_->{id} } @{ $seen->{data} }], [$form->{id}], 'constrained: only its form';
$res = call($only->{secret}, 'get_form', { formId => $f2id });
is $res->{structuredContent}{status}, 404, 'constrained: another form is not-found';
$res = call($only->{secret}, 'create_form', { title => 'x' });
is $res->{structuredContent}{status}, 403, 'constrained: cannot create forms';
ok_result(call($secret, 'delete_form', { formId => $f2id }), 'delete the second form');

my $rev = ok_result(call($secret, 'revoke_key', { keyId => $key->{id} }), 'revoke_key');
ok $rev->{revokedAt}, 'revoke_key: revokedAt';
$r = rpc($key->{secret}, 'ping');
is $r->code, 401, 'revoked key: 401 at once';

# key roll through MCP: a delegate rolls only keys of its own tree, and the
# new key never outlives it (the REST route's checks, through dispatch)
{
    my $k = ok_result(call($secret, 'create_key', { name => 'to-roll', scopes => ['forms:read'] }), 'create_key to roll');
    my $got = ok_result(call($secret, 'get_key', { keyId => $k->{id} }), 'get_key');
    ok !exists $got->{secret}, 'get_key: no secret';
    my $rolled = ok_result(call($secret, 'roll_key', { keyId => $k->{id}, expiresIn => 60 }), 'roll_key');
    like $rolled->{secret}, qr/^svc_live_/, 'roll_key: the new secret';
    isnt $rolled->{id}, $k->{id}, 'roll_key: a new key';
    $res = call($secret, 'roll_key', { keyId => $k->{id} });
    is $res->{structuredContent}{status}, 409, 'roll_key twice: 409 invalid-state';
    # a delegate with keys:write and an expiry: its tree only
    my $exp = api(POST => '/v1/keys', token => $secret,
                  body => { name => 'delegate', scopes => ['keys:write', 'keys:read', 'forms:read'],
                            expiresAt => '2099-01-01T00:00:00Z' })->{json};
    my $dtok = api(POST => '/v1/keys', token => $exp->{secret},
                   body => { name => 'child', scopes => ['forms:read'] })->{json};
    $res = call($exp->{secret}, 'roll_key', { keyId => $rolled->{id} });
    is $res->{structuredContent}{status}, 404, 'delegate: another key of the account is not-found';
    $res = call($exp->{secret}, 'get_key', { keyId => $rolled->{id} });
    is $res->{structuredContent}{status}, 404, 'delegate: get_key outside its tree: 404';
    my $child2 = ok_result(call($exp->{secret}, 'roll_key', { keyId => $dtok->{id} }), 'delegate: roll its child');
    ok $child2->{expiresAt} && $child2->{expiresAt} le '2099-01-01T00:00:00Z', 'the rolled child never outlives the delegate'
        or diag explain $child2;
    $res = call($exp->{secret}, 'revoke_key', { keyId => $rolled->{id} });
    is $res->{structuredContent}{status}, 404, 'delegate: revoke_key outside its tree: 404';

    # the audit trail
    my $audit = ok_result(call($secret, 'list_audit', { limit => 100 }), 'list_audit');
    ok((grep { ($_->{action} // '') =~ /^key\.roll/ } @{ $audit->{data} }), 'list_audit: the roll is there')
        or diag explain [map { $_->{action} } @{ $audit->{data} }];
    $res = call($dtok->{secret}, 'list_audit', {});
    is $res->{structuredContent}{status}, 403, 'list_audit needs account:read';
    $res = call($secret, 'list_audit', { credential => 'nope' });
    is $res->{structuredContent}{status}, 422, 'list_audit: a bad credential filter is 422';
    # within the unverified account's key quota for what follows
    ok_result(call($secret, 'revoke_key', { keyId => $exp->{id} }), 'revoke the delegate and its tree');
    ok_result(call($secret, 'revoke_key', { keyId => $rolled->{id} }), 'revoke the rolled key');
}

# the event feed, and the file field type
{
    my $ff = ok_result(call($secret, 'create_form', { title => 'With a file',
        fields => [{ key => 'cv', type => 'file', label => 'CV' }, { key => 'n', type => 'text', label => 'N' }] }), 'create_form with a file field');
    is $ff->{fields}[0]{type}, 'file', 'file field made through MCP';
    ok((grep { $_ eq 'file' } @{ $tool{create_form}{inputSchema}{properties}{fields}{items}{properties}{type}{enum} }),
       'create_form: file in the type list');
    ok((grep { $_ eq 'file' } @{ $tool{add_field}{inputSchema}{properties}{type}{enum} }), 'add_field: file in the type list');
    ok_result(call($secret, 'publish_form', { formId => $ff->{id} }), 'publish the file form');
    my $sub = api(POST => "/f/$ff->{id}", headers => { Accept => 'application/json' },
                  body => { n => 'x', cv => { name => 'cv.txt', type => 'text/plain', data => 'aGVsbG8=' } });
    is $sub->code, 201, 'a submission with a file' or diag $sub->content;
    my $sid = $sub->{json}{id};
    my $fid = api(GET => "/v1/forms/$ff->{id}/submissions/$sid", token => $secret)->{json}{data}{cv}[0]{id};
    like $fid // '', qr/^fil_/, 'the file id';
    my $fu = ok_result(call($secret, 'get_file_url', { formId => $ff->{id}, submissionId => $sid, fileId => $fid }), 'get_file_url');
    is $fu->{url}, base_url() . "/v1/forms/$ff->{id}/submissions/$sid/files/$fid", 'get_file_url: the download URL';
    is $fu->{name}, 'cv.txt', 'its name';
    is $fu->{size}, 5, 'its size';
    ok $fu->{untrustedRespondentData}, 'flagged untrusted';
    my $dl = api(GET => $fu->{url} =~ s{^\Q@{[base_url()]}\E}{}r, token => $secret);
    is $dl->content, 'hello', 'the URL downloads the file with the same credential';
    $res = call($secret, 'get_file_url', { formId => $ff->{id}, submissionId => $sid, fileId => 'fil_nope' });
    ok $res->{isError}, 'an unknown file: isError';
    is $res->{structuredContent}{status}, 404, 'with a 404 problem';
    $res = call($other_before //= (signup())[0], 'get_file_url', { formId => $ff->{id}, submissionId => $sid, fileId => $fid });
    is $res->{structuredContent}{status}, 404, 'another account: 404';

    my $ev = ok_result(call($secret, 'list_events', { formId => $ff->{id} }), 'list_events');
    my @types = map { $_->{type} } @{ $ev->{data} };
    ok((grep { $_ eq 'form.published' } @types), 'list_events: form.published');
    ok((grep { $_ eq 'submission.created' } @types), 'list_events: submission.created');
    ok $ev->{untrustedRespondentData}, 'list_events: flagged untrusted';
    my $ev2 = ok_result(call($secret, 'list_events', { formId => $ff->{id}, type => 'form.published', after => $ev->{nextCursor}, wait => 1 }), 'list_events waits');
    is scalar @{ $ev2->{data} }, 0, 'nothing new after the cursor';
}

# resources and prompts
{
    ok $init->{result}{capabilities}{resources}, 'resources capability';
    ok $init->{result}{capabilities}{prompts}, 'prompts capability';
    my $rf = ok_result(call($secret, 'create_form', { title => 'Resourceful',
        fields => [{ key => 'rating', type => 'integer', label => 'R', required => JSON::PP::true }] }), 'a form for resources');
    my $uri = "formsvc://forms/$rf->{id}";
    my $l = rpc($secret, 'resources/list')->{json}{result};
    ok((grep { $_->{uri} eq $uri && $_->{title} eq 'Resourceful' } @{ $l->{resources} }), 'resources/list: the form')
        or diag explain $l;
    my $t = rpc($secret, 'resources/templates/list')->{json}{result}{resourceTemplates};
    is_deeply [sort map { $_->{uriTemplate} } @$t],
        ['formsvc://forms/{formId}', 'formsvc://forms/{formId}/schema', 'formsvc://forms/{formId}/submissions'], 'templates';
    my $c = rpc($secret, 'resources/read', { uri => $uri })->{json}{result}{contents}[0];
    is $c->{uri}, $uri, 'resources/read: the uri';
    my $doc = JSON::PP->new->decode($c->{text});
    is $doc->{id}, $rf->{id}, 'resources/read: the form';
    $c = rpc($secret, 'resources/read', { uri => "$uri/schema" })->{json}{result}{contents}[0];
    my $schema = JSON::PP->new->decode($c->{text});
    is_deeply $schema->{required}, ['rating'], 'schema: required';
    is $schema->{properties}{rating}{type}, 'integer', 'schema: the type';
    ok_result(call($secret, 'publish_form', { formId => $rf->{id} }), 'publish');
    is api(POST => "/f/$rf->{id}", headers => { Accept => 'application/json' }, body => { rating => 4 })->code, 201, 'a submission';
    $c = rpc($secret, 'resources/read', { uri => "$uri/submissions" })->{json}{result}{contents}[0];
    my $subs = JSON::PP->new->decode($c->{text});
    is $subs->{data}[0]{data}{rating}, 4, 'submissions: the answer';
    ok $subs->{untrustedRespondentData}, 'submissions: flagged untrusted';
    $r = rpc($secret, 'resources/read', { uri => 'formsvc://forms/frm_nope' });
    is $r->{json}{error}{code}, -32002, 'an unknown form: -32002';
    is $r->{json}{error}{data}{problem}{status}, 404, 'with the problem';
    $r = rpc($secret, 'resources/read', { uri => "formsvc://forms/$rf->{id}/../x" });
    is $r->{json}{error}{code}, -32002, 'not a uri of ours: -32002';
    $r = rpc($other_before //= (signup())[0], 'resources/read', { uri => $uri });
    is $r->{json}{error}{code}, -32002, 'another account: -32002';
    my $ro = api(POST => '/v1/keys', token => $secret, body => { name => 'forms-only', scopes => ['forms:read'] })->{json};
    ok $ro->{secret}, 'a forms:read key' or diag explain $ro;
    $r = rpc($ro->{secret}, 'resources/read', { uri => "$uri/submissions" });
    is $r->{json}{error}{code}, -32602, 'submissions without submissions:read: -32602';
    is $r->{json}{error}{data}{problem}{requiredScope}, 'submissions:read', 'naming the scope';

    my $p = rpc($secret, 'prompts/list')->{json}{result}{prompts};
    is_deeply [sort map { $_->{name} } @$p], ['design_form', 'summarise_answers'], 'prompts/list';
    my $g = rpc($secret, 'prompts/get', { name => 'design_form', arguments => { goal => 'Plan the team lunch' } })->{json}{result};
    like $g->{messages}[0]{content}{text}, qr/Plan the team lunch/, 'design_form: the goal in the text';
    $r = rpc($secret, 'prompts/get', { name => 'design_form', arguments => {} });
    is $r->{json}{error}{code}, -32602, 'design_form without goal: -32602';
    $g = rpc($secret, 'prompts/get', { name => 'summarise_answers', arguments => { formId => $rf->{id}, focus => 'scores' } })->{json}{result};
    is $g->{messages}[2]{content}{type}, 'resource', 'summarise_answers: the answers embedded';
    is $g->{messages}[2]{content}{resource}{uri}, "$uri/submissions", 'as the submissions resource';
    $r = rpc($secret, 'prompts/get', { name => 'summarise_answers', arguments => { formId => 'frm_nope' } });
    is $r->{json}{error}{code}, -32002, 'summarise_answers of an unknown form: -32002';
    $r = rpc($secret, 'prompts/get', { name => 'nope' });
    is $r->{json}{error}{code}, -32602, 'an unknown prompt: -32602';
}

# another account's form is not found, never forbidden
my ($other) = signup();
$res = call($other, 'get_form', { formId => $form->{id} });
is $res->{structuredContent}{status}, 404, 'another account: 404';
$res = call($other, 'delete_form', { formId => $form->{id} });
is $res->{structuredContent}{status}, 404, 'another account cannot delete: 404';

my $del = ok_result(call($secret, 'delete_form', { formId => $form->{id} }), 'delete_form');
ok $del->{deleted}, 'delete_form: deleted';
is api(GET => "/v1/forms/$form->{id}", token => $secret)->code, 404, 'gone over REST';

# the outer request still answers normally after tools ran
$r = rpc($secret, 'tools/call', { name => 'get_form', arguments => { formId => $form->{id} } });
is $r->code, 200, 'a failing tool is HTTP 200';
like $r->header('Content-Type'), qr{^application/json}, 'JSON-RPC answer, not a problem';
ok $r->header('RateLimit-Limit'), 'RateLimit headers of /mcp kept';

# the access log names the tool (request note formsvc-mcp-tool)
{
    call($secret, 'list_forms', { cursor => 'x' }, );
    my $log = Apache::Test::vars('t_logs') . '/formsvc_access.log';
    my @lines;
    wait_for(sub {   # the line is written after the answer: wait for it
        open my $fh, '<', $log or die "$log: $!";
        @lines = grep { m{"POST /api/mcp } && /tool=list_forms/ } <$fh>;
        close $fh;
        scalar @lines;
    }, 10, 'the access log line');
    ok @lines, 'access log: tool=list_forms';
    like $lines[-1] // '', qr/cred=key_/, 'with the credential';
}

# ---- one real client: the MCP TypeScript SDK ----------------------------
SKIP: {
    my $js = "$FindBin::Bin/js";
    skip 'node or t/js/node_modules missing (FORMSVC_SKIP_NODE)', 9
        unless node_ready('@modelcontextprotocol/sdk');
    my ($sdk_secret) = signup();
    open my $fh, '-|', 'node', "$js/mcp_client.mjs", base_url() . '/mcp', $sdk_secret or die "node: $!";
    local $/; my $out = <$fh>; close $fh;
    my $got = eval { JSON::PP->new->decode($out) } || { error => $out };
    ok !$got->{error}, 'SDK session without errors' or diag $got->{error};
    is $got->{server}{name}, 'formsvc', 'SDK: serverInfo';
    ok $got->{capabilities}{tools}, 'SDK: tools capability';
    is scalar @{ $got->{tools} || [] }, scalar @tools, 'SDK: every tool listed (as tools/list)';
    like $got->{created}{id} // '', qr/^frm_/, 'SDK: create_form made a form';
    ok !$got->{createdIsError}, 'SDK: not an error';
    ok $got->{missingIsError}, 'SDK: unknown form is isError';
    is $got->{missing}{status}, 404, 'SDK: with the 404 problem';
    ok $got->{pinged}, 'SDK: ping';
}

done_testing;
