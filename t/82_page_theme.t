# settings.theme = {accentColor, logoUrl}. The colour
# must reach 4.5:1 against white (422 otherwise), the logo is an https URL;
# the page carries the colour as a second style sheet allowed by its hash,
# the logo with the title as alt text, img-src names the logo's origin only,
# and the built-in sheet follows prefers-color-scheme: dark.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Digest::SHA qw(sha256_base64);

my ($tok) = signup();
my @fields = ({ key => 'name', type => 'text', label => 'Name' });
sub csp_hash { my $b = sha256_base64(shift); $b .= '=' while length($b) % 4; "'sha256-$b'" }

# ---- validation --------------------------------------------------------
my $r = api(POST => '/v1/forms', token => $tok,
            body => { title => 'T', settings => { theme => { accentColor => '#777777' } } });
problem_ok($r, 422, 'validation-failed', '#777777 (4.48:1 against white): 422');
is $r->{json}{errors}[0]{pointer}, '/settings/theme/accentColor', 'pointer';
is $r->{json}{errors}[0]{code}, 'minimum', 'code minimum';
like $r->{json}{errors}[0]{detail}, qr/4\.47:1.*4\.5:1/, 'detail gives the ratio and the rule';
for my $bad ('http://cdn.example/l.png', 'https://cdn.example/l.png;img-src *', 'javascript:alert(1)',
             "https://cdn.example/l.png' onerror='x") {
    $r = api(POST => '/v1/forms', token => $tok,
             body => { title => 'T', settings => { theme => { logoUrl => $bad } } });
    problem_ok($r, 422, 'validation-failed', "logoUrl $bad: 422");
}
$r = api(POST => '/v1/forms', token => $tok,
         body => { title => 'T', settings => { theme => { accentColor => 'red', font => 'x' } } });
my %code = map { $_->{pointer} => $_->{code} } @{ $r->{json}{errors} || [] };
is $code{'/settings/theme/accentColor'}, 'format', 'accentColor red: format';
is $code{'/settings/theme/font'}, 'unknown', 'unknown theme member';

# ---- a branded form ------------------------------------------------------
my $title = q{Brand <b>'x'</b>};
my $f = make_form($tok, { title => $title, fields => \@fields,
                          settings => { theme => { accentColor => '#1D4ED8',
                                                   logoUrl => 'https://cdn.example:8443/logo.png?v=1&s=2' } } });
is_deeply $f->{settings}{theme}, { accentColor => '#1d4ed8', logoUrl => 'https://cdn.example:8443/logo.png?v=1&s=2' },
          'theme stored, colour in lower case';
is api(POST => "/v1/forms/$f->{id}/publish", token => $tok)->code, 200, 'published';
for my $n (1, 2) { # the second from the cache: same headers
    $r = api(GET => "/f/$f->{id}");
    is $r->code, 200, "page ($n)";
    my $csp = $r->header('Content-Security-Policy') // '';
    my $h = $r->content;
    like $h, qr{<style>:root\{--accent:#1d4ed8\}</style>}, "($n) the accent as a second style sheet";
    my $theme_src = csp_hash(':root{--accent:#1d4ed8}');
    like $csp, qr{style-src 'sha256-[^']+' \Q$theme_src\E;}, "($n) CSP allows that sheet by its hash";
    my ($main_css) = $h =~ m{<style>(\*\{box-sizing.*?)</style>}s;
    my $main_src = csp_hash($main_css // '');
    like $csp, qr{style-src \Q$main_src\E }, "($n) and the built-in sheet";
    like $csp, qr{; img-src https://cdn\.example:8443; }, "($n) img-src: the logo's origin only";
    unlike $csp, qr{img-src[^;]*(\*|'self'|data:)}, "($n) nothing else in img-src";
    like $csp, qr{default-src 'none'}, "($n) default-src 'none' kept";
    like $h, qr{<img class="logo" src="https://cdn\.example:8443/logo\.png\?v=1&amp;s=2" alt="Brand &lt;b&gt;&#39;x&#39;&lt;/b&gt;">},
         "($n) the logo, alt text from the title, escaped";
    like $h, qr{\@media \(prefers-color-scheme:dark\)}, "($n) dark scheme";
}

# ---- without a theme: no img-src, one style sheet ------------------------
my $g = make_form($tok, { title => 'Plain', fields => \@fields });
api(POST => "/v1/forms/$g->{id}/publish", token => $tok);
$r = api(GET => "/f/$g->{id}");
unlike $r->header('Content-Security-Policy'), qr/img-src/, 'no theme: no img-src';
like $r->header('Content-Security-Policy'), qr{style-src 'sha256-[^' ]+';}, 'no theme: one style hash';
unlike $r->content, qr/<img|--accent:/, 'no theme: no logo, no accent';
like $r->content, qr{\@media \(prefers-color-scheme:dark\)}, 'dark scheme on every page';

# removing the theme (merge patch null) removes it from the page
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => { theme => undef } });
is $r->code, 200, 'theme removed';
ok !exists $r->{json}{settings}{theme}, 'no theme in settings';
unlike api(GET => "/f/$f->{id}")->content, qr/<img|--accent:/, 'page without the theme at once';

done_testing;
