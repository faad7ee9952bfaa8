# The pages a person sees, checked in a real browser (headless Chromium
# driven by playwright-core, t/js/axe_pages.mjs) with axe-core, WCAG 2.0
# and 2.1 A and AA, at 320 and 1280 px, light and dark, in English and in
# Arabic (right to left): the public form with every kind of field, the
# same page after a refused submission, the thanks page, a closed form, a
# withdrawn link, an ask's page with its Decline button and the declined
# page, and the OAuth authorize page's steps (sign-in, a wrong address,
# the mailed code, a wrong code, consent with its scopes and form-title
# constraint) and its error page; in English only, the page of a form not
# open yet, the e-mail verification link's page and the page after its
# button, and a problem type's page. Also: no console error, exception or
# CSP violation on any of them, no page wider than a 320 px window, and,
# with JavaScript off, the form, an ask's Decline and the OAuth sign-in
# and approval all work.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcAuthorize;
use FormsvcMail qw(psql wait_mail);
use File::Temp ();
use JSON::PP ();
use MIME::Base64 qw(encode_base64);

my $CHROMIUM = $ENV{FORMSVC_CHROMIUM} // '/usr/bin/chromium';
unless (-x $CHROMIUM) {
    plan skip_all => "no $CHROMIUM (FORMSVC_SKIP_NODE)" if $ENV{FORMSVC_SKIP_NODE};
    fail "$CHROMIUM is installed (scripts/install-deps installs Debian's chromium)";
    done_testing;
    exit;
}
unless (node_ready('playwright-core', 'axe-core')) {
    plan skip_all => 'node or t/js/node_modules missing (FORMSVC_SKIP_NODE)';
}

my $J = JSON::PP->new->utf8->canonical; # the node script's lines are UTF-8 (Arabic in diagnostics)
binmode Test::More->builder->$_, ':encoding(UTF-8)' for qw(output failure_output todo_output);
my ($key, $su) = verified_account();
my $T = JSON::PP::true;

# ---- the form with every kind of field ---------------------------------------
my @opts = ({ value => 'email', label => 'E-mail' }, { value => 'phone', label => 'Phone' });
my $form = {
    title => 'Volunteer sign-up',
    description => "Tell us about yourself.\nIt takes two minutes.",
    settings => { locale => 'auto' },
    fields => [
        { key => 'name', type => 'text', label => 'Your name', required => $T,
          description => 'As you would like to be addressed.', placeholder => 'Ada Lovelace' },
        { key => 'email', type => 'email', label => 'E-mail', required => $T, description => 'We reply here.' },
        { key => 'site', type => 'url', label => 'Website' },
        { key => 'phone', type => 'tel', label => 'Phone' },
        { key => 'about', type => 'textarea', label => 'About you', validation => { maxLength => 500 } },
        { key => 'age', type => 'integer', label => 'Age', validation => { minimum => 16, maximum => 120 } },
        { key => 'hours', type => 'number', label => 'Hours a week' },
        { key => 'start', type => 'date', label => 'First day' },
        { key => 'call', type => 'datetime', label => 'Call me at' },
        { key => 'contact', type => 'select', label => 'Contact by', required => $T, options => \@opts },
        { key => 'callback', type => 'tel', label => 'Number to call', required => $T,
          visibleIf => { field => 'contact', equals => 'phone' } },
        { key => 'topics', type => 'multiselect', label => 'Topics', description => 'Pick any.',
          options => ['Kitchen', 'Garden', 'Library'] },
        { key => 'stars', type => 'rating', label => 'How did you hear of us?', required => $T },
        { key => 'cv', type => 'file', label => 'Your CV', description => 'A PDF or a picture.',
          validation => { accept => ['application/pdf', 'image/png'], maxSize => 100000 } },
        { key => 'src', type => 'hidden', label => 'Source' },
        { key => 'agree', type => 'boolean', label => 'I agree to the terms', required => $T },
    ],
};
my $r = api(POST => '/v1/forms', token => $key, body => $form);
is $r->code, 201, 'the form with every kind of field' or diag $r->content;
my $fid = $r->{json}{id};
is api(POST => "/v1/forms/$fid/publish", token => $key)->code, 200, 'published';

my $PNG = "\x89PNG\r\n\x1a\n" . ("\0" x 100) . 'IEND';
my @answers = (
    { name => 'name', kind => 'fill', value => 'Ada' },
    { name => 'email', kind => 'fill', value => 'ada@example.com' },
    { name => 'contact', kind => 'select', value => 'email' },
    { name => 'topics', kind => 'check', value => 'Garden' },
    { name => 'stars', kind => 'check', value => '4' },
    { name => 'cv', kind => 'file', value => { name => 'cv.png', type => 'image/png', base64 => encode_base64($PNG, '') } },
    { name => 'agree', kind => 'check' },
);
my @bad = ({ name => 'email', kind => 'fill', value => 'not an address' });

# ---- a closed form, a withdrawn link ------------------------------------------
$r = api(POST => '/v1/forms', token => $key, body => { title => 'Bake sale', settings => { locale => 'auto' },
         fields => [{ key => 'cake', type => 'text', label => 'Cake' }] });
my $closed = $r->{json}{id};
is api(POST => "/v1/forms/$closed/publish", token => $key)->code, 200, 'a second form';
is api(POST => "/v1/forms/$closed/close", token => $key)->code, 200, 'closed';
$r = api(POST => "/v1/forms/$fid/links", token => $key, body => { prefill => { name => 'Grace' } });
is $r->code, 201, 'a respondent link' or diag $r->content;
my $gone = $r->{json}{url};
is api(DELETE => "/v1/forms/$fid/links/$r->{json}{id}", token => $key)->code, 204, 'withdrawn';

# ---- pages in English only ----------------------------------------------------------
# (their texts have no translations yet: checked in English)
# a form not open yet, the e-mail verification link's page and the page its
# button leads to, a problem type's page
my @t = gmtime(time + 86400);
my $opens = sprintf '%04d-%02d-%02dT09:00:00Z', $t[5] + 1900, $t[4] + 1, $t[3];
$r = api(POST => '/v1/forms', token => $key, body => { title => 'Winter fair', settings => { opensAt => $opens },
         fields => [{ key => 'stall', type => 'text', label => 'Stall' }] });
is $r->code, 201, 'a form that opens tomorrow' or diag $r->content;
my $not_open = $r->{json}{id};
is api(POST => "/v1/forms/$not_open/publish", token => $key)->code, 200, 'published';
my ($vkey, $vsu) = signup();
is api(POST => '/v1/verify/send', token => $vkey)->code, 202, 'a verification mail';
my $vmail = wait_mail($vsu->{user}{email});
my ($vlink) = $vmail ? $vmail->{body} =~ m{(https?://\S+/verify\?token=[A-Za-z0-9_-]+)} : ();
ok $vlink, 'with its link';
my @english = (
    { label => 'form not open yet page', url => Apache::TestRequest::resolve_url(BASE . "/f/$not_open"), status => 200 },
    { label => 'e-mail verification page', url => $vlink // base_url() . '/verify', status => 200,
      press => { label => 'e-mail verified page', status => 200 } },
    { label => 'problem type page', url => base_url() . '/problems/validation-failed', status => 200 },
);

# ---- the languages: an account to sign in with, its form, an ask ---------------------
# The OAuth page names the forms of a form: constraint by their titles when
# they are the signed-in account's own, so each language's account asks
# for two scopes on a form of its own. An ask's form has no settings.locale
# (English); the Arabic one is given "auto", as an owner would, so that
# its page follows the browser's language.
my $app = register_app(name => 'Rota assistant');
my (undef, $challenge) = pkce();
my %q = (response_type => 'code', client_id => $app->{client_id}, redirect_uri => 'https://app.example/cb',
         state => 'st', code_challenge => $challenge, code_challenge_method => 'S256');
# The same once more for the run with JavaScript off ("noscript").
my (@langs, %asks, %authorize, $noscript_email);
for my $l (['en', 'ltr'], ['ar', 'rtl'], ['noscript', 'ltr']) {
    my ($lk, $who) = verified_account();
    if ($l->[0] eq 'noscript') { $noscript_email = $who->{user}{email} }
    else { push @langs, { lang => $l->[0], dir => $l->[1], email => $who->{user}{email} } }
    my $title = "December rota ($l->[0])";
    $r = api(POST => '/v1/forms', token => $lk, body => { title => $title });
    is $r->code, 201, "a form of the $l->[0] account" or diag $r->content;
    $authorize{$l->[0]} = { formTitle => $title,
        url => authorize_url(%q, scope => "forms:read submissions:read form:$r->{json}{id}") };
    $r = api(POST => '/v1/asks', token => $key, body => {
        message => "The rota for December is ready.\nCan you take the Saturday shift?",
        schema => { title => 'Saturday shift', type => 'object',
                    properties => { answer => { title => 'Answer', enum => ['yes', 'no'] },
                                    note => { type => 'string', title => 'Note', maxLength => 500 } },
                    required => ['answer'] } });
    is $r->code, 201, "an ask for the $l->[0] run" or diag $r->content;
    $asks{$l->[0]} = $r->{json}{url};
    psql(qq{UPDATE forms SET settings = settings || '{"locale": "auto"}' WHERE id = '$r->{json}{formId}'})
        if $l->[1] eq 'rtl';
}
$authorize{bad} = authorize_url(%q, client_id => 'app_00000000000000000000000000');

# ---- the browser --------------------------------------------------------------------
my $plan = File::Temp->new(SUFFIX => '.json');
print $plan $J->encode({
    chromium => $CHROMIUM,
    mailDir => "$FindBin::Bin/logs/mail",
    languages => \@langs,
    noScriptEmail => $noscript_email,
    english => \@english,
    form => { url => Apache::TestRequest::resolve_url(BASE . "/f/$fid"), answers => \@answers, bad => \@bad },
    closed => Apache::TestRequest::resolve_url(BASE . "/f/$closed"),
    closedStatus => 200,
    gone => $gone,
    asks => \%asks,
    authorize => \%authorize,
});
close $plan;

# make test-asan preloads the sanitizer runtime for httpd: not for the browser
delete local $ENV{LD_PRELOAD};
open my $fh, '-|', 'node', "$FindBin::Bin/js/axe_pages.mjs", $plan->filename or die "node: $!";
my $done;
while (my $line = <$fh>) {
    my $m = eval { $J->decode($line) };
    unless ($m) { diag "node: $line"; next }
    if ($m->{done}) { $done = $m; next }
    ok $m->{ok}, $m->{name} or diag $m->{diag};
}
close $fh;
is $?, 0, 'the browser run exited cleanly';
ok $done, 'the browser run went through' and note "browser run: $done->{ms} ms";

done_testing;
