# settings.embed = {allowedOrigins: [...]}. Only strict
# origins are accepted (422 otherwise); the form's pages then name them in
# frame-ancestors (instead of 'none') and send no X-Frame-Options; the form
# page carries a script allowed by its hash that posts its height to the
# parent; /f/embed.js is served with the SRI hash published in
# docs/public-forms.md.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Digest::SHA qw(sha256_base64 sha384_base64);

my ($tok) = signup();
my @fields = ({ key => 'name', type => 'text', label => 'Name' });
sub b64 { my $b = shift; $b .= '=' while length($b) % 4; $b }

# ---- validation --------------------------------------------------------
for my $bad ('https://example.com/', 'https://*.example.com', '*', "'self'", 'http://example.com',
             'https://example.com; script-src *', 'https://example.com https://evil.example',
             'https://example.com:0', 'https://user@example.com') {
    my $r = api(POST => '/v1/forms', token => $tok,
                body => { title => 'T', settings => { embed => { allowedOrigins => [$bad] } } });
    problem_ok($r, 422, 'validation-failed', "origin $bad: 422");
    is $r->{json}{errors}[0]{pointer}, '/settings/embed/allowedOrigins/0', "origin $bad: pointer";
}
my $r = api(POST => '/v1/forms', token => $tok,
            body => { title => 'T', settings => { embed => { allowedOrigins => [] } } });
problem_ok($r, 422, 'validation-failed', 'no origin: 422');

# ---- an embeddable form --------------------------------------------------
my $f = make_form($tok, { title => 'Embedded', fields => \@fields,
                          settings => { embed => { allowedOrigins => ['https://Example.com', 'http://localhost:8080'] } } });
is_deeply $f->{settings}{embed}{allowedOrigins}, ['https://example.com', 'http://localhost:8080'],
          'origins stored in lower case';
is api(POST => "/v1/forms/$f->{id}/publish", token => $tok)->code, 200, 'published';
my $embed_js = api(GET => '/f/embed.js');
my $page_script;
for my $n (1, 2) { # the second from the cache
    $r = api(GET => "/f/$f->{id}");
    is $r->code, 200, "page ($n)";
    my $csp = $r->header('Content-Security-Policy') // '';
    like $csp, qr{; frame-ancestors https://example\.com http://localhost:8080; }, "($n) frame-ancestors: the list";
    unlike $csp, qr{frame-ancestors 'none'}, "($n) not 'none'";
    is $r->header('X-Frame-Options'), undef, "($n) no X-Frame-Options to contradict it";
    ($page_script) = $r->content =~ m{<script>(.*?)</script>}s;
    ok $page_script, "($n) the page has the resize script";
    my $src = "'sha256-" . b64(sha256_base64($page_script // '')) . "'";
    like $csp, qr{; script-src \Q$src\E;}, "($n) script-src allows exactly that script by its hash";
    like $page_script, qr{postMessage\(\{type:"formsvc:height",height:n\},"\*"\)}, "($n) it posts the height";
}
# the thanks page and the 303 may be framed by the same origins
$r = api(POST => "/f/$f->{id}", body => 'name=Ada', headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 303, 'HTML post: 303';
like $r->header('Content-Security-Policy'), qr{frame-ancestors https://example\.com http://localhost:8080;},
     '303: the same frame-ancestors';
like api(GET => "/f/$f->{id}/thanks")->header('Content-Security-Policy'),
     qr{frame-ancestors https://example\.com http://localhost:8080;}, 'thanks page: the same frame-ancestors';

# ---- a form without embed: 'none' and DENY, no script ---------------------
my $g = make_form($tok, { title => 'Alone', fields => \@fields });
api(POST => "/v1/forms/$g->{id}/publish", token => $tok);
$r = api(GET => "/f/$g->{id}");
like $r->header('Content-Security-Policy'), qr{frame-ancestors 'none'}, 'no embed: frame-ancestors none';
unlike $r->header('Content-Security-Policy'), qr{script-src}, 'no embed: no script-src';
is $r->header('X-Frame-Options'), 'DENY', 'no embed: X-Frame-Options DENY';
unlike $r->content, qr{<script}, 'no embed: no script';

# removing embed (merge patch) takes it back at once
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => { embed => undef } });
is $r->code, 200, 'embed removed';
$r = api(GET => "/f/$f->{id}");
like $r->header('Content-Security-Policy'), qr{frame-ancestors 'none'}, 'after removal: none';
is $r->header('X-Frame-Options'), 'DENY', 'after removal: DENY';

# ---- /f/embed.js ---------------------------------------------------------
$r = $embed_js;
is $r->code, 200, 'embed.js 200';
like $r->header('Content-Type'), qr{^text/javascript}, 'as text/javascript';
is $r->header('Access-Control-Allow-Origin'), '*', 'CORS (SRI of a cross-origin script needs it)';
like $r->header('Cache-Control'), qr/max-age=\d+/, 'cacheable';
ok $r->header('ETag'), 'ETag';
my $sri = 'sha384-' . b64(sha384_base64($r->content));
my $doc = do { local $/; open my $fh, '<', "$ENV{FORMSVC_ROOT}/docs/public-forms.md" or die $!; <$fh> };
like $doc, qr{integrity="\Q$sri\E"}, "docs/public-forms.md publishes the served script's hash ($sri)";
like $r->content, qr{f\.contentWindow!==e\.source}, 'the listener checks the sending frame';
like $r->content, qr{o!==e\.origin}, 'and its origin';
is api(GET => '/f/embed.js', headers => { 'If-None-Match' => $r->header('ETag') })->code, 304, 'If-None-Match: 304';
is api(HEAD => '/f/embed.js')->code, 200, 'HEAD';
is api(POST => '/f/embed.js', body => { name => 'x' })->code, 404, 'POST /f/embed.js: no such form';

done_testing;
