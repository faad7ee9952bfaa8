# OAuth 2.1 authorization code with PKCE: registration, the authorize page
# (sign-in by mailed code or pasted key, consent, CSRF, clickjacking
# headers), the token endpoint's authorization_code and refresh_token
# grants, rotation and reuse detection, and GET/DELETE /v1/me/grants.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcMail;
use FormsvcOAuth;
use FormsvcAuthorize;
use FormsvcTest::Together qw(release_together);
use LWP::UserAgent;
use POSIX ();
use JSON::PP ();

my $CB = 'https://app.example/cb';
my ($key, $su) = verified_account();
my $email = $su->{user}{email};

# ---- discovery ----
my $r = api(GET => '/.well-known/oauth-authorization-server');
is $r->{json}{authorization_endpoint}, base_url() . '/oauth/authorize', 'authorization_endpoint';
is $r->{json}{registration_endpoint}, base_url() . '/oauth/register', 'registration_endpoint';
is_deeply $r->{json}{code_challenge_methods_supported}, ['S256'], 'S256 only';
is_deeply $r->{json}{response_types_supported}, ['code'], 'response type code';
ok((grep { $_ eq 'authorization_code' } @{ $r->{json}{grant_types_supported} })
   && (grep { $_ eq 'refresh_token' } @{ $r->{json}{grant_types_supported} }), 'grant types');

# ---- registration ----
my $app = register_app(redirect_uris => [$CB, 'http://127.0.0.1:8765/cb'], name => 'Assistant <b>');
like $app->{client_id}, qr/^app_/, 'client_id';
is $app->{token_endpoint_auth_method}, 'none', 'public client';
$r = api(POST => '/oauth/register', body => { redirect_uris => ['http://evil.example/cb'] });
is $r->code, 400, 'plain http to a non-loopback host is refused';
is $r->{json}{error}, 'invalid_redirect_uri', 'invalid_redirect_uri';
$r = api(POST => '/oauth/register', body => { redirect_uris => [$CB], token_endpoint_auth_method => 'client_secret_basic' });
is $r->{json}{error}, 'invalid_client_metadata', 'confidential registration refused';
$r = api(POST => '/oauth/register', body => { redirect_uris => ['https://a.example/cb#frag'] });
is $r->{json}{error}, 'invalid_redirect_uri', 'fragment refused';

my $cid = $app->{client_id};
sub start {
    my (%o) = @_;
    my ($v, $c) = pkce();
    my %q = (response_type => 'code', client_id => $cid, redirect_uri => $CB, state => 'st-1',
             code_challenge => $c, code_challenge_method => 'S256', %o);
    delete $q{$_} for grep { !defined $q{$_} } keys %q;
    return ($v, authorize_url(%q));
}

# ---- the page ----
my $ua = browser();
my ($verifier, $url) = start(scope => 'forms:read account:read');
my $page = $ua->get($url);
is $page->code, 200, 'the authorize page';
my $csp = $page->header('Content-Security-Policy') // '';
like $csp, qr/frame-ancestors 'none'/, "frame-ancestors 'none'";
like $csp, qr/default-src 'none'/, 'no script, nothing external';
like $csp, qr{form-action 'self' https://app\.example(;|$)}, 'form-action: here and the client';
is $page->header('X-Frame-Options'), 'DENY', 'X-Frame-Options DENY';
like $page->header('Cache-Control') // '', qr/no-store/, 'not cached';
like $page->header('Set-Cookie') // '', qr/formsvc_oauth=[\w-]{43}; Path=\/api\/oauth\/; .*HttpOnly; SameSite=Lax/, 'session cookie';
my $html = $page->decoded_content;
like $html, qr/Assistant &lt;b&gt;/, 'the client name, escaped';
like $html, qr/app\.example/, 'the redirect host';
like $html, qr/see your forms/, 'scopes in words';
unlike $html, qr/<script/i, 'no script';
like $html, qr/<label for="email">/, 'labelled inputs';
ok csrf_of($page), 'a CSRF token';
{
    require Digest::SHA;
    my ($css) = $html =~ m{<style>(.*?)</style>}s;
    my $h = Digest::SHA::sha256_base64($css);
    $h .= '=' while length($h) % 4;
    like $csp, qr/style-src 'sha256-\Q$h\E'/, "the page's style sheet is the one its CSP allows";
    like $html, qr/<html lang="en" dir="ltr">/, 'the language is declared';
    like $html, qr/<h1>/, 'one heading to start';
}

# localised: the person's Accept-Language picks one of the pages' 12 languages
{
    my $de = browser();
    $de->default_header('Accept-Language' => 'de-CH, en;q=0.5');
    my $p = $de->get($url);
    like $p->decoded_content, qr/<html lang="de" dir="ltr">/, 'German page';
    like $p->decoded_content, qr/Ihre Formulare sehen/, 'German scope lines';
    my $he = browser();
    $he->default_header('Accept-Language' => 'he');
    like $he->get($url)->decoded_content, qr/<html lang="he" dir="rtl">/, 'Hebrew, right to left';
}

# CSRF: the post without the token, or with another session's, is refused
{
    my @kv = (response_type => 'code', client_id => $cid, redirect_uri => $CB,
              code_challenge => (pkce())[1], code_challenge_method => 'S256',
              step => 'email', email => $email);
    my $n0 = mail_count_for($email);
    my $bad = $ua->post(Apache::TestRequest::resolve_url(BASE . '/oauth/authorize'), \@kv);
    is $bad->code, 403, 'a post without the CSRF token is 403';
    my $other = browser();
    $other->get($url);
    $bad = $other->post(Apache::TestRequest::resolve_url(BASE . '/oauth/authorize'),
                        [@kv, csrf => csrf_of($page)]);
    is $bad->code, 403, "another session's CSRF token is 403";
    is mail_count_for($email), $n0, 'and nothing was mailed';
}

# a wrong code: the page again, the error announced and tied to the input
{
    my $ub = browser();
    my $p0 = $ub->get($url);
    my $p1 = FormsvcAuthorize::post_page($ub, $p0, step => 'email', email => 'nobody@example.com');
    is $p1->code, 200, 'an address without an account: the same code page';
    like $p1->decoded_content, qr/<label for="code">/, 'a labelled code input';
    my $p2 = FormsvcAuthorize::post_page($ub, $p1, step => 'code', code => 'ABCD2345');
    is $p2->code, 422, 'a wrong code: 422';
    like $p2->decoded_content, qr/<p class="err" id="code-err">[^<]+<\/p>/, 'the error is shown';
    like $p2->decoded_content, qr/name="code" autocomplete="one-time-code" required aria-invalid="true" aria-describedby="code-err"/,
         'and tied to the input (aria-invalid, aria-describedby)';
}

# sign in by mail, approve
my ($first_cookie) = ($page->header('Set-Cookie') // '') =~ /formsvc_oauth=([\w-]+)/;
my $consent = sign_in_by_mail($ua, $page, $email);
is $consent->code, 200, 'signed in';
my ($second_cookie) = ($consent->header('Set-Cookie') // '') =~ /formsvc_oauth=([\w-]+)/;
ok $second_cookie && $second_cookie ne $first_cookie, 'the sign-in moves the session to a new cookie';
{
    my $plain = LWP::UserAgent->new(max_redirect => 0);
    like $plain->get($url, Cookie => "formsvc_oauth=$second_cookie")->decoded_content, qr/Signed in as/,
         'the new cookie carries the session';
    unlike $plain->get($url, Cookie => "formsvc_oauth=$first_cookie")->decoded_content, qr/Signed in as/,
         'the cookie from before the sign-in is worth nothing after it';
}
like $consent->decoded_content, qr/Signed in as \Q$email\E/, 'the consent page names the account';
like $consent->decoded_content, qr/value="approve"/, 'approve button';
my $stored = psql("SELECT count(*) FROM oauth_logins WHERE user_id = '$su->{user}{id}'");
is $stored, 1, 'one session row';
my $back = approve($ua, $consent);
is $back->code, 303, 'approve: 303 back to the client';
my $loc = $back->header('Location');
like $loc, qr/^\Q$CB\E\?code=svco_/, 'to the exact redirect URI with a code';
my $q = query_of($loc);
is $q->{state}, 'st-1', 'state returned';
is $q->{iss}, base_url(), 'iss (RFC 9207)';
my $code = $q->{code};
is psql("SELECT count(*) FROM oauth_codes WHERE code_hash LIKE '%$code%'"), 0, 'the code is stored hashed only';

# ---- token endpoint errors ----
$r = token([grant_type => 'authorization_code', client_id => $cid, code => $code,
            redirect_uri => 'https://app.example/other', code_verifier => $verifier]);
oauth_error_ok($r, 400, 'invalid_grant', 'redirect_uri mismatch at the token endpoint');
# that burned the code: a second try is a reuse
my ($v2, $url2) = start(scope => 'forms:read');
$page = $ua->get($url2);
$back = approve($ua, $page);
is $back->code, 303, 'a signed-in session goes straight to consent, and approves';
my $code2 = query_of($back->header('Location'))->{code};
$r = token([grant_type => 'authorization_code', client_id => $cid, code => $code2,
            redirect_uri => $CB, code_verifier => $verifier]);
oauth_error_ok($r, 400, 'invalid_grant', 'a wrong code_verifier');

my ($v3, $url3) = start();
$back = approve($ua, $ua->get($url3));
my $code3 = query_of($back->header('Location'))->{code};
psql("UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL");
$r = token([grant_type => 'authorization_code', client_id => $cid, code => $code3,
            redirect_uri => $CB, code_verifier => $v3]);
oauth_error_ok($r, 400, 'invalid_grant', 'an expired code (60 s)');

# ---- the flow ----
my ($v4, $url4) = start(scope => 'forms:read account:read');
$back = approve($ua, $ua->get($url4));
my $code4 = query_of($back->header('Location'))->{code};
$r = token([grant_type => 'authorization_code', client_id => $cid, code => $code4,
            redirect_uri => $CB, code_verifier => $v4]);
is $r->code, 200, 'code + verifier: tokens' or diag $r->content;
my $tok = $r->{json};
like $tok->{access_token}, qr/^svc_live_/, 'an access token';
like $tok->{refresh_token}, qr/^svcr_/, 'a refresh token';
is $tok->{scope}, 'forms:read account:read', 'the approved scope';
ok $tok->{expires_in} > 0 && $tok->{expires_in} <= 3600, 'expires_in';
$r = api(GET => '/v1/forms', token => $tok->{access_token});
is $r->code, 200, 'the access token works';
$r = api(POST => '/v1/forms', token => $tok->{access_token}, body => { title => 'x' });
is $r->code, 403, 'within its scopes only';
$r = api(GET => '/v1/keys', token => $key);
ok !(grep { $_->{name} eq 'Assistant <b>' } @{ $r->{json}{data} }), 'grant tokens are not listed as keys';

# reuse of a code revokes what it issued
$r = token([grant_type => 'authorization_code', client_id => $cid, code => $code4,
            redirect_uri => $CB, code_verifier => $v4]);
oauth_error_ok($r, 400, 'invalid_grant', 'a code used twice');
is api(GET => '/v1/forms', token => $tok->{access_token})->code, 401,
   "and the first use's access token is revoked";
$r = token([grant_type => 'refresh_token', client_id => $cid, refresh_token => $tok->{refresh_token}]);
oauth_error_ok($r, 400, 'invalid_grant', "and its refresh token too");

# refresh rotation
my ($v5, $url5) = start(scope => 'forms:read account:read');
my $code5 = query_of(approve($ua, $ua->get($url5))->header('Location'))->{code};
my $t5 = token([grant_type => 'authorization_code', client_id => $cid, code => $code5,
                redirect_uri => $CB, code_verifier => $v5])->{json};
$r = token([grant_type => 'refresh_token', client_id => $cid, refresh_token => $t5->{refresh_token}]);
is $r->code, 200, 'refresh';
my $t6 = $r->{json};
isnt $t6->{refresh_token}, $t5->{refresh_token}, 'a new refresh token (rotation)';
is api(GET => '/v1/forms', token => $t6->{access_token})->code, 200, 'the new access token works';
$r = token([grant_type => 'refresh_token', client_id => 'app_01JZZZZZZZZZZZZZZZZZZZZZZZ', refresh_token => $t6->{refresh_token}]);
oauth_error_ok($r, 400, 'invalid_grant', 'a refresh token of another client');

# ---- grants ----
$r = api(GET => '/v1/me/grants', token => $key);
is $r->code, 200, 'GET /v1/me/grants';
my ($g) = grep { !$_->{revokedAt} } @{ $r->{json}{data} };
ok $g, 'an active grant';
is $g->{clientId}, $cid, 'its client';
is $g->{clientName}, 'Assistant <b>', 'its name';
{
    my $x = api(GET => '/v1/me/export', token => $key);
    my @lines = grep { ($_->{kind} // '') eq 'grant' }
                map { JSON::PP->new->decode($_) } split /\n/, $x->content;
    ok((grep { $_->{id} eq $g->{id} && $_->{clientId} eq $cid } @lines), 'GET /v1/me/export has the grants');
}
my ($other_key) = verified_account();
is api(DELETE => "/v1/me/grants/$g->{id}", token => $other_key)->code, 404, "another account's grant: 404";
is api(GET => '/v1/me/grants', token => $other_key)->{json}{data}->@*, 0, 'and it lists none';
$r = api(DELETE => "/v1/me/grants/$g->{id}", token => $key);
is $r->code, 200, 'DELETE /v1/me/grants/{id}';
ok $r->{json}{revokedAt}, 'revokedAt';
is api(GET => '/v1/forms', token => $t6->{access_token})->code, 401, "a revoked grant's access token: 401";
$r = token([grant_type => 'refresh_token', client_id => $cid, refresh_token => $t6->{refresh_token}]);
oauth_error_ok($r, 400, 'invalid_grant', "a revoked grant's refresh token");

# the MCP tools, with the grant's own token (account:read is in its scope)
my $mn = 0;
sub mcp_call {
    my ($token, $tool, $args) = @_;
    my $r = api(POST => '/mcp', token => $token,
                headers => { Accept => 'application/json, text/event-stream' },
                body => { jsonrpc => '2.0', id => ++$mn, method => 'tools/call',
                          params => { name => $tool, arguments => $args // {} } });
    return $r->{json}{result};
}
{
    my ($vm, $um) = start(scope => 'forms:read account:read account:write');
    my $cm = query_of(approve($ua, $ua->get($um))->header('Location'))->{code};
    my $tm = token([grant_type => 'authorization_code', client_id => $cid, code => $cm,
                    redirect_uri => $CB, code_verifier => $vm])->{json};
    my $res = mcp_call($tm->{access_token}, 'list_grants');
    ok !$res->{isError}, 'MCP list_grants with the grant token';
    is scalar @{ $res->{structuredContent}{data} }, 0,
       'a grant token is a delegate: it sees no grant approved by mail (not its tree)';
    $res = mcp_call($key, 'list_grants');
    my ($mg) = grep { !$_->{revokedAt} } @{ $res->{structuredContent}{data} };
    ok $mg, 'MCP list_grants with the owner key lists the grant';
    $res = mcp_call($key, 'revoke_grant', { grantId => $mg->{id} });
    ok $res->{structuredContent}{revokedAt}, 'MCP revoke_grant';
    is api(GET => '/v1/forms', token => $tm->{access_token})->code, 401, 'its token is revoked';
}

# the grants limit is exact under parallel approvals (FormsvcQuota verified grants 3 in this
# test's virtual host would need its own server: count against the default 20 instead)
{
    my ($k2, $s2) = verified_account();
    my $ub = browser();
    my (undef, $ux) = start();
    my $pg = $ub->get($ux);
    my $signed = FormsvcAuthorize::post_page($ub, $pg, step => 'key', key => $k2);
    # forked, each ready, released at once (t/lib/FormsvcTest/Together.pm)
    my @codes = release_together(24, sub { sub { approve($ub, $signed)->code } })->();
    my %rc;
    $rc{ !defined $_ ? 'none' : $_ == 303 ? 0 : $_ == 403 ? 1 : 2 }++ for @codes;
    is $rc{0} // 0, 20, '20 of 24 approvals released together made a grant (the verified tier\'s limit)'
        or diag join ' ', map { $_ // 'none' } @codes;
    is $rc{1} // 0, 4, 'the other 4 were refused (quota)';
    is psql("SELECT count(*) FROM oauth_grants WHERE user_id = '$s2->{user}{id}'"), 20,
       'exactly 20 grants stored';
    is_deeply api(GET => '/v1/me', token => $k2)->{json}{quota}{limits}{grants}, { limit => 20, used => 20 },
              'GET /v1/me shows the grants quota';
}

# refresh token reuse revokes the grant
my ($v7, $url7) = start(scope => 'forms:read');
my $code7 = query_of(approve($ua, $ua->get($url7))->header('Location'))->{code};
my $t7 = token([grant_type => 'authorization_code', client_id => $cid, code => $code7,
                redirect_uri => $CB, code_verifier => $v7])->{json};
my $t8 = token([grant_type => 'refresh_token', client_id => $cid, refresh_token => $t7->{refresh_token}])->{json};
$r = expect_log([qr/FS00562/], sub {
    token([grant_type => 'refresh_token', client_id => $cid, refresh_token => $t7->{refresh_token}]) });
oauth_error_ok($r, 400, 'invalid_grant', 'an old refresh token used again');
is api(GET => '/v1/forms', token => $t8->{access_token})->code, 401, 'revokes the grant: its newest token too';

# ---- authorization request errors ----
my $ua2 = browser();
my (undef, $u) = start(redirect_uri => 'https://app.example/elsewhere');
$r = $ua2->get($u);
is $r->code, 400, 'redirect URI mismatch: an error page';
ok !$r->header('Location'), 'and no redirect';
(undef, $u) = start(client_id => 'app_01JZZZZZZZZZZZZZZZZZZZZZZZ');
is $ua2->get($u)->code, 400, 'unknown client: an error page';
(undef, $u) = start(code_challenge_method => 'plain');
$r = $ua2->get($u);
is $r->code, 303, 'plain PKCE: redirected back';
$q = query_of($r->header('Location'));
is $q->{error}, 'invalid_request', 'with invalid_request';
is $q->{state}, 'st-1', 'and the state';
(undef, $u) = start(code_challenge => undef, code_challenge_method => undef);
is query_of($ua2->get($u)->header('Location'))->{error}, 'invalid_request', 'no PKCE: invalid_request';
(undef, $u) = start(response_type => 'token');
is query_of($ua2->get($u)->header('Location'))->{error}, 'unsupported_response_type', 'implicit: unsupported_response_type';
(undef, $u) = start(scope => 'forms:read nonsense');
is query_of($ua2->get($u)->header('Location'))->{error}, 'invalid_scope', 'unknown scope: invalid_scope';
(undef, $u) = start();
$page = $ua2->get($u);
$r = approve($ua2, $page, 'deny');
is $r->code, 403, 'consent without signing in: refused';
# deny
$page = $ua2->get($u);
my $c2 = FormsvcAuthorize::post_page($ua2, $page, step => 'key', key => $key);
is $c2->code, 200, 'signed in with a pasted owner key';
$r = approve($ua2, $c2, 'deny');
is $r->code, 303, 'deny: back to the client';
is query_of($r->header('Location'))->{error}, 'access_denied', 'access_denied';
# a wrong key
$page = $ua2->get($u);
$r = FormsvcAuthorize::post_page(browser(), $page, step => 'key', key => 'svc_live_nope');
is $r->code, 403, 'a post from another browser (no cookie): 403';

# a pasted delegate key grants no more than it holds
my $narrow = api(POST => '/v1/keys', token => $key, body => { name => 'narrow', scopes => ['forms:read'] })->{json}{secret};
my $ua3 = browser();
(undef, $u) = start(scope => 'forms:read forms:write');
$page = $ua3->get($u);
$c2 = FormsvcAuthorize::post_page($ua3, $page, step => 'key', key => $narrow);
$r = approve($ua3, $c2);
is $r->code, 403, 'a narrower pasted key cannot approve broader scopes';

# a grant approved with a delegate key lives inside that key: its tokens
# never outlive it, and revoking the key revokes them and stops refreshes
{
    use POSIX qw(strftime);
    my $exp = strftime('%Y-%m-%dT%H:%M:%SZ', gmtime(time + 600));
    my $dk = api(POST => '/v1/keys', token => $key,
                 body => { name => 'short', scopes => ['forms:read', 'account:read'], expiresAt => $exp })->{json};
    my $ub = browser();
    my ($vd, $ud) = start(scope => 'forms:read');
    my $pd = $ub->get($ud);
    my $sd = FormsvcAuthorize::post_page($ub, $pd, step => 'key', key => $dk->{secret});
    my $cd = query_of(approve($ub, $sd)->header('Location'))->{code};
    my $td = token([grant_type => 'authorization_code', client_id => $cid, code => $cd,
                    redirect_uri => $CB, code_verifier => $vd])->{json};
    ok $td->{expires_in} <= 600, "the grant's token expires with the key that approved it";
    my $dg = (grep { !$_->{revokedAt} } @{ api(GET => '/v1/me/grants', token => $dk->{secret})->{json}{data} })[0];
    ok $dg, 'that key sees the grant it approved';
    is api(DELETE => "/v1/keys/$dk->{id}", token => $key)->code, 200, 'the key is revoked';
    is api(GET => '/v1/forms', token => $td->{access_token})->code, 401, "and so is the grant's token";
    $r = token([grant_type => 'refresh_token', client_id => $cid, refresh_token => $td->{refresh_token}]);
    oauth_error_ok($r, 400, 'invalid_grant', 'and the grant refreshes no more');
}

# registrations per address: exact under parallel requests (a server of its
# own with the real kind of figure; a day's window, so that a run does not
# straddle two)
{
    require FormsvcInstance;
    FormsvcTest->import('clear_of_boundary');
    my $m = FormsvcInstance->start(name => 'register', conf => <<'CONF');
FormsvcRateLimitStore local
FormsvcRateLimit register 10 86400
CONF
    FormsvcTest::clear_of_boundary(86400);
    my @kids;
    for my $i (1 .. 30) {
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            my $r = $m->api(POST => '/oauth/register', headers => { 'X-Client-IP' => '198.51.100.49' },
                            body => { redirect_uris => [$CB] });
            # _exit: no destructor in the child (the instance's would stop the server)
            POSIX::_exit($r->code == 201 ? 0 : $r->code == 429 ? 1 : 2);
        }
        push @kids, $pid;
    }
    my %rc;
    for (@kids) { waitpid $_, 0; $rc{$? >> 8}++ }
    is $rc{0} // 0, 10, '10 of 30 parallel registrations from one address pass';
    is $rc{1} // 0, 20, 'the other 20 are 429';
    is $m->api(POST => '/oauth/register', headers => { 'X-Client-IP' => '198.51.100.50' },
               body => { redirect_uris => [$CB] })->code, 201, 'another address is not limited';
    $m->stop;
}

done_testing;
