# The authorization code flow with stock clients: Python's Authlib
# (registration, authorize with the mailed code, token, refresh, an MCP call,
# refresh token reuse) and the MCP TypeScript SDK's own OAuth client
# provider against /mcp (discovery from the 401, registration,
# authorization, finishAuth, a tool call, a refresh).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcMail;
use FormsvcAuthorize;
use JSON::PP ();

my $py = '/usr/bin/python3';
SKIP: {
    skip 'python3-authlib is not installed (make deps)', 12
        unless system($py, '-c', 'import authlib') == 0;
    my ($key, $su) = verified_account();
    my $email = $su->{user}{email};
    my $out = `$py $FindBin::Bin/bin/authlib_client.py ${\ base_url()} $email $FindBin::Bin/logs/mail 2>&1`;
    is $?, 0, 'the Authlib script ran' or diag $out;
    my $r = eval { JSON::PP->new->decode($out) } || {};
    is $r->{registration_status}, 201, 'Authlib: registered';
    like $r->{client_id} // '', qr/^app_/, 'a client id';
    ok $r->{signed_in}, 'the person signed in with the mailed code';
    is $r->{token_type}, 'Bearer', 'Authlib: code exchanged for tokens (PKCE S256)';
    ok $r->{has_refresh}, 'with a refresh token';
    ok $r->{refreshed} && $r->{rotated}, 'Authlib: refreshed, the refresh token rotated';
    is $r->{mcp_status}, 200, 'an MCP call with the token';
    ok !$r->{mcp_is_error} && ($r->{mcp_form_id} // '') =~ /^frm_/, 'create_form made a form';
    is $r->{me_status}, 200, 'GET /v1/me with the token';
    is $r->{reuse_error}, 'invalid_grant', 'the first refresh token used again: invalid_grant';
    is $r->{after_reuse_status}, 401, 'and the grant is revoked';
}

SKIP: {
    skip 'node or t/js/node_modules missing (FORMSVC_SKIP_NODE)', 8
        unless node_ready('@modelcontextprotocol/sdk');
    my ($key) = verified_account();
    open my $fh, '-|', 'node', "$FindBin::Bin/js/mcp_oauth.mjs", base_url() . '/mcp', $key or die "node: $!";
    local $/; my $out = <$fh>; close $fh;
    my $got = eval { JSON::PP->new->decode($out) } || { error => $out };
    ok !$got->{error}, 'SDK OAuth session without errors' or diag $got->{error};
    ok !$got->{connectedWithoutAuth}, 'the first connection was refused (401)';
    like $got->{registered} // '', qr/^app_/, 'the SDK registered itself (RFC 7591)';
    like $got->{authorizeUrl} // '', qr{/oauth/authorize\?.*code_challenge_method=S256}, 'and sent the person to the page';
    is $got->{state}, 'sdk-state-1', 'state came back';
    like $got->{created} // '', qr/^frm_/, 'a tool call with the token';
    is $got->{refresh}, 'AUTHORIZED', "the SDK's auth() refreshed";
    ok $got->{refreshed} && grep({ $_ eq $got->{created} } @{ $got->{listedAfterRefresh} || [] }),
       'and the new token works';
}

done_testing;
