# The pages a person sees, checked in a real browser (headless Chromium
# driven by playwright-core, t/js/axe_pages.mjs) with axe-core, WCAG 2.0
# and 2.1 A and AA, at 320 and 1280 px, light and dark, in English and in
# Arabic (right to left): the public form with every kind of field
# (scale, matrix, ranking, consent and Other answers included, and what a
# browser without script stores for them; with FORMSVC_AXE_SHOTS each
# question is also shot alone, for docs/public-forms.md) (and
# the sentences of a condition of several fields and a requiredIf), the
# same page after a refused submission, the thanks page, a closed form, a
# withdrawn link, an ask's page with its Decline button and the declined
# page, and the OAuth authorize page's steps (sign-in, a wrong address,
# the mailed code, a wrong code, consent with its scopes and form-title
# constraint) and its error page; a form of three pages that keeps partial
# answers (each page with its save button and, from page 2, its resume URL
# and the autosave script, page 2 with its errors, Back, the last page, the
# last page again through its resume URL, thanks); an embeddable form framed by a page of
# another origin; in English only, the e-mail verification link's page and
# a problem type's page, and (editing after sending) the thanks page with
# its edit link, the edit page and a refused edit link's page. Also: no console error, exception or
# CSP violation on any of them, no page wider than a 320 px window, every
# button with a border in forced colours, page 2's buttons in Tab order
# along the line, and,
# with JavaScript off, the form, the form of three pages, an ask's Decline
# and the OAuth sign-in and approval all work.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcAuthorize;
use FormsvcMail qw(psql wait_mail);
use Digest::SHA ();
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
        # a condition of several fields and a requiredIf: their sentences
        { key => 'tools', type => 'textarea', label => 'Tools you bring',
          visibleIf => { any => [{ field => 'topics', op => 'contains', value => 'Garden' },
                                 { not => { field => 'age', op => 'lt', value => 65 } }] },
          requiredIf => { field => 'hours', op => 'gt', value => 20 } },
        { key => 'stars', type => 'rating', label => 'How did you hear of us?', required => $T },
        { key => 'cv', type => 'file', label => 'Your CV', description => 'A PDF or a picture.',
          validation => { accept => ['application/pdf', 'image/png'], maxSize => 100000 } },
        { key => 'src', type => 'hidden', label => 'Source' },
        { key => 'agree', type => 'boolean', label => 'I agree to the terms', required => $T },
        # scale, matrix, ranking, consent, the Other answer (fs_field_choice)
        { key => 'nps', type => 'scale', label => 'Would you recommend us?', required => $T,
          from => 0, to => 10, minLabel => 'Not at all', maxLabel => 'Certainly' },
        { key => 'grid', type => 'matrix', label => 'How were the sessions?', required => $T,
          rows => [{ key => 'talks', label => 'Talks' }, { key => 'food', label => 'Food and drink' }],
          columns => [{ value => 'poor', label => 'Poor' }, { value => 'fair', label => 'Fair' },
                      { value => 'good', label => 'Good' }, { value => 'great', label => 'Great' }] },
        { key => 'days', type => 'matrix', label => 'When can you help?', multiple => $T,
          rows => [{ key => 'sat', label => 'Saturday' }, { key => 'sun', label => 'Sunday' }],
          columns => [{ value => 'am', label => 'Morning' }, { value => 'pm', label => 'Afternoon' }] },
        { key => 'order', type => 'ranking', label => 'Rank the jobs you like best',
          options => ['Cooking', 'Gardening', 'Reading'] },
        { key => 'terms', type => 'consent', label => 'I accept the volunteering terms',
          text => 'The volunteering terms', url => 'https://example.org/terms' },
        { key => 'shirt', type => 'select', label => 'T-shirt size', allowOther => $T, options => ['S', 'M', 'L'] },
        { key => 'diet', type => 'multiselect', label => 'Diet', allowOther => $T, options => ['Vegetarian', 'Vegan'] },
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
    { name => 'nps', kind => 'check', value => '9' },
    { name => 'grid.talks', kind => 'check', value => 'good' },
    { name => 'grid.food', kind => 'check', value => 'great' },
    { name => 'days.sun', kind => 'check', value => 'pm' },
    { id => 'f-order-0', kind => 'select', value => 'Reading' },
    { id => 'f-order-1', kind => 'select', value => 'Cooking' },
    { id => 'f-order-2', kind => 'select', value => 'Gardening' },
    { name => 'terms', kind => 'check' },
    { name => 'shirt', kind => 'select', value => '__other__' },
    { name => 'shirt.other', kind => 'fill', value => 'XXL' },
);
my @bad = ({ name => 'email', kind => 'fill', value => 'not an address' });

# ---- a form of three pages (page fields): each page, errors, Back, Submit -------
$r = api(POST => '/v1/forms', token => $key, body => { title => 'Open day',
                                                       settings => { locale => 'auto', partial => $T },
         fields => [
    { key => 'p_you', type => 'page', label => 'About you', description => 'Two questions first.' },
    { key => 'name', type => 'text', label => 'Your name', required => $T },
    { key => 'member', type => 'boolean', label => 'I am a member' },
    { key => 'p_visit', type => 'page', label => 'Your visit' },
    { key => 'email', type => 'email', label => 'E-mail', required => $T },
    { key => 'number', type => 'integer', label => 'Member number', required => $T,
      visibleIf => { field => 'member', equals => $T } },
    { key => 'p_last', type => 'page', label => 'Last words' },
    { key => 'stars', type => 'rating', label => 'How was it?', required => $T },
    { key => 'note', type => 'textarea', label => 'Anything else?' } ] });
is $r->code, 201, 'a form of three pages' or diag $r->content;
my $paged = $r->{json}{id};
is api(POST => "/v1/forms/$paged/publish", token => $key)->code, 200, 'published';
my %pages = (url => Apache::TestRequest::resolve_url(BASE . "/f/$paged"),
             first => [{ name => 'name', kind => 'fill', value => 'Ada' }, { name => 'member', kind => 'check' }],
             bad => [{ name => 'email', kind => 'fill', value => 'not an address' }],
             second => [{ name => 'email', kind => 'fill', value => 'ada@example.com' },
                        { name => 'number', kind => 'fill', value => '42' }],
             last => [{ name => 'stars', kind => 'check', value => '4' }]);

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
# (their texts have no translations yet: checked in English) the e-mail
# verification link's page (a form with one button) and a problem type's
# page. (The other English-only pages, such as a form not open yet or the
# page after that button, are the message page the closed form's check
# already covers, with other words.)
my ($vkey, $vsu) = signup();
is api(POST => '/v1/verify/send', token => $vkey)->code, 202, 'a verification mail';
my $vmail = wait_mail($vsu->{user}{email});
my ($vlink) = $vmail ? $vmail->{body} =~ m{(https?://\S+/verify\?token=[A-Za-z0-9_-]+)} : ();
ok $vlink, 'with its link';
my @english = (
    { label => 'e-mail verification page', url => $vlink // base_url() . '/verify', status => 200 },
    { label => 'problem type page', url => base_url() . '/problems/validation-failed', status => 200 },
);
# editing after sending (settings.allowEdits): the thanks page with the
# private edit link, the edit page (the form with the answers and its
# notice), and the page of a link that cannot be used (the same message
# page as the closed form's in every language)
$r = api(POST => '/v1/forms', token => $key, body => { title => 'Book club', settings => { allowEdits => { untilHours => 24 } },
         fields => [{ key => 'book', type => 'text', label => 'Your book', required => $T }] });
my $editable = $r->{json}{id};
is api(POST => "/v1/forms/$editable/publish", token => $key)->code, 200, 'a form that takes edits';
{
    my $page = Apache::TestRequest::GET(BASE . "/f/$editable", Accept => 'text/html')->content;
    my %h; $h{$1} = $2 while $page =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
    my $post = Apache::TestRequest::POST(BASE . "/f/$editable", Accept => 'text/html', content => [%h, book => 'Middlemarch']);
    # (the user agent may have followed the 303 already)
    my $thanks = ($post->previous ? $post->previous : $post)->header('Location') // '';
    diag 'the post: ' . $post->code . ' ' . substr($post->content, 0, 300) unless $thanks;
    my ($etok) = $thanks =~ /[?&]edit=([^&]+)/;
    ok $etok, 'sent: the thanks page carries the edit token';
    (my $forged = $etok // '') =~ s/.$/$& eq '0' ? '1' : '0'/e;
    push @english,
        { label => 'thanks page with the edit link', url => $thanks, status => 200 },
        { label => 'edit page', url => base_url() . "/f/$editable?edit=$etok", status => 200 },
        { label => 'edit link refused', url => base_url() . "/f/$editable?edit=$forged", status => 404 };
}

# ---- an embeddable form, framed by a page of another origin -------------------------
# The host page is a file in the test server's DocumentRoot, opened as
# 127.0.0.1 (the form is at localhost): another origin, which the form
# allows to frame it. (Served by the browser itself, it would be a public
# page to Chromium, whose Local Network Access rules then refuse it the
# loopback server.)
my ($origin) = base_url() =~ m{^(https?://[^/]+)};
(my $host_origin = $origin) =~ s{//localhost\b}{//127.0.0.1};
$r = api(POST => '/v1/forms', token => $key, body => { title => 'Embedded feedback',
         settings => { embed => { allowedOrigins => [$host_origin] } },
         fields => [{ key => 'idea', type => 'textarea', label => 'Your idea', required => $T },
                    { key => 'mail', type => 'email', label => 'E-mail', description => 'If you want an answer.' }] });
is $r->code, 201, 'an embeddable form' or diag $r->content;
my $embedded = $r->{json}{id};
is api(POST => "/v1/forms/$embedded/publish", token => $key)->code, 200, 'published';
my $embed_js = Apache::TestRequest::GET(BASE . '/f/embed.js')->content;
my $integrity = 'sha384-' . Digest::SHA::sha384_base64($embed_js); # 48 bytes: no padding
my $form_url = Apache::TestRequest::resolve_url(BASE . "/f/$embedded");
{
    open my $hf, '>:encoding(UTF-8)', "$FindBin::Bin/htdocs/34_host_page.html" or die "host page: $!";
    print $hf '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        . '<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,"><title>A host page</title></head>'
        . '<body><main><h1>A host page</h1>'
        . qq{<iframe data-formsvc src="$form_url" title="Embedded feedback" style="width:100%;border:0;height:100px"></iframe>}
        . '</main><script src="' . base_url() . qq{/f/embed.js" integrity="$integrity" crossorigin="anonymous" defer></script>}
        . "</body></html>\n";
    close $hf;
}
my %embed = (form => $form_url, host => "$host_origin/34_host_page.html");
is Apache::TestRequest::GET('/34_host_page.html')->code, 200, 'the host page is served';

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
    embed => \%embed,
    form => { url => Apache::TestRequest::resolve_url(BASE . "/f/$fid"), answers => \@answers, bad => \@bad },
    pages => \%pages,
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

# what the browsers sent for the questions of choice (scale, matrix,
# ranking, consent, an Other answer): each submission of the form has them
my @rows = map { $J->decode($_) } grep { length }
    split /\n/, psql("SELECT data::text FROM submissions WHERE form_id = '$fid' ORDER BY id");
ok @rows >= 1, 'the form was submitted';
is_deeply [map { [@$_{qw(nps grid order terms shirt)}] } @rows],
    [map { [9, { talks => 'good', food => 'great' }, ['Reading', 'Cooking', 'Gardening'], JSON::PP::true,
             { other => 'XXL' }] } @rows],
    'a scale, a matrix, a ranking, a consent and an Other answer as a browser sends them';

done_testing;
