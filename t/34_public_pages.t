# A form of several pages (fields of type page), walked as a browser
# without script walks it: every page is read as a person sees it (the
# progress, the page's title, which questions, which buttons, what is
# filled in), its form posted as the page says (hidden inputs, the button
# pressed), and every redirect followed. A three-page form through Next,
# an error on page 2, Back (everything typed kept, also on the page left),
# Next again and Submit: one submission with every answer. A question that
# applies by an answer of an earlier page, an unticked checkbox, prefill
# and a hidden field carried from the first page; the last page sent
# twice, and again after Back with the same and with other answers (the
# page's token: one submission, then the notice); a file on the last page
# of a form that posts multipart from its first page.
#
# Then the state the pages carry: encrypted (no answer readable in it),
# refused with a page that says so when it was changed, made for another
# form, has expired (forged with the server's pepper), or the form was
# edited between two steps. Definitions: what a page field may not have
# (422 with pointers), file fields only on the last page. And agents: the
# JSON view's schema has no page property, a JSON post of every answer at
# once is stored, a page key in it is refused; the owner's CSV export and
# insights have no column or question for a page.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Apache::TestRequest ();
use HTTP::Request ();
use JSON::PP ();
use MIME::Base64 ();
use URI ();
use URI::Escape qw(uri_escape_utf8);

my $J = JSON::PP->new->canonical;
my $T = JSON::PP::true;
my ($tok) = signup();

# ---- a browser ---------------------------------------------------------------
sub ua {
    my $ua = Apache::TestRequest::user_agent(reset => 1);
    $ua->requests_redirectable(['GET', 'HEAD', 'POST']);
    $ua->max_redirect(5);
    return $ua;
}
sub abs_url { my $u = shift; $u =~ m{^https?://} ? $u : Apache::TestRequest::resolve_url(BASE . $u) }
sub unent { my $s = shift; $s =~ s/&quot;/"/g; $s =~ s/&#39;/'/g; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; $s }

# What the page shows: {res, html, action, hidden [[n, v]...], state,
# progress, ptitle, inputs {name => value or 'checked'}, buttons [values]}
sub page_of {
    my $r = shift;
    my $html = $r->decoded_content // $r->content // '';
    my %p = (res => $r, html => $html, code => $r->code);
    $p{action} = unent($1) if $html =~ /<form method="post" action="([^"]*)"/;
    while ($html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g) {
        push @{ $p{hidden} }, [$1, unent($2)];
        $p{state} = unent($2) if $1 eq '_state';
    }
    $p{progress} = $1 if $html =~ /<p class="progress" id="progress">([^<]*)<\/p>/;
    $p{ptitle} = unent($1) if $html =~ /<h2 class="ptitle">([^<]*)<\/h2>/;
    while ($html =~ /<input type="(?:text|email|number)" id="f-([a-z]\w*)" name="\w+" value="([^"]*)"/g) {
        $p{inputs}{$1} = unent($2);
    }
    while ($html =~ /<textarea id="f-(\w+)"[^>]*>([^<]*)<\/textarea>/g) { $p{inputs}{$1} = unent($2) }
    while ($html =~ /<input type="checkbox" id="f-(\w+)" name="\w+" value="true"( checked)?/g) {
        $p{inputs}{$1} = $2 ? 'checked' : '';
    }
    $p{inputs}{$1} //= '' while $html =~ /<input type="radio" id="f-(\w+)-\d+"/g;
    push @{ $p{buttons} }, $1 while $html =~ /<button type="submit" name="_nav" value="(\w+)"/g;
    $p{errors} = [ $html =~ /<p class="err" id="f-(\w+)-err">/g ];
    return \%p;
}
sub open_page { page_of(ua()->get(abs_url(shift), Accept => 'text/html')) }
# post_page($page, nav => 'next', answers => [[name, value]...], state => override)
sub post_page {
    my ($pg, %o) = @_;
    my @pairs = grep { !($o{state} && $_->[0] eq '_state') } @{ $pg->{hidden} || [] };
    push @pairs, ['_state', $o{state}] if defined $o{state} && length $o{state};
    push @pairs, @{ $o{answers} || [] };
    push @pairs, ['_nav', $o{nav}] if $o{nav};
    my $req = HTTP::Request->new(POST => $o{action} // $pg->{action});
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html,application/xhtml+xml,*/*;q=0.8');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return page_of(ua()->request($req));
}
sub subs { psql("SELECT count(*) FROM submissions WHERE form_id = '" . shift . "'") }

my @fields = (
    { key => 'p_you', type => 'page', label => 'About you', description => 'First, who you are.' },
    { key => 'name', type => 'text', label => 'Name', required => $T },
    { key => 'member', type => 'boolean', label => 'I am a member' },
    { key => 'src', type => 'hidden' },
    { key => 'p_visit', type => 'page', label => 'Your visit' },
    { key => 'email', type => 'email', label => 'E-mail', required => $T },
    { key => 'number', type => 'integer', label => 'Member number', required => $T,
      visibleIf => { field => 'member', equals => $T } },
    { key => 'p_last', type => 'page', label => 'Last words' },
    { key => 'stars', type => 'rating', label => 'Stars', required => $T },
    { key => 'comment', type => 'textarea', label => 'Comment' },
);
my $f = make_form($tok, { title => 'Three pages', fields => \@fields,
                          settings => { confirmationMessage => 'Thanks, all three pages.' } });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'the form of three pages is published';
is_deeply [ map { $_->{type} eq 'page' ? "$_->{key}:$_->{required}" : () } @{ $f->{fields} } ],
    ['p_you:0', 'p_visit:0', 'p_last:0'], 'page fields are kept as fields, never required';

# ---- 1. the walk --------------------------------------------------------------
my $p = open_page("/f/$fid?src=news");
is $p->{code}, 200, 'the first page opens';
is $p->{progress}, 'Page 1 of 3', 'it says "Page 1 of 3"';
like $p->{html}, qr{<progress max="3" value="1" aria-labelledby="progress"></progress>}, 'with a labelled progress bar';
like $p->{html}, qr{<title>Three pages \(Page 1 of 3\)</title>}, 'and in the title';
is $p->{ptitle}, 'About you', 'the page field is the page title';
like $p->{html}, qr{First, who you are\.}, 'with its description';
is_deeply [ sort keys %{ $p->{inputs} } ], ['member', 'name'], 'only the first page\'s questions';
is_deeply $p->{buttons}, ['next'], 'a Next button and no Back';
ok $p->{state}, 'the prefill travels in the state';

$p = post_page($p, nav => 'next', answers => [[name => 'Ada'], [member => 'true']]);
is $p->{code}, 200, 'Next: 200';
is $p->{progress}, 'Page 2 of 3', 'page 2';
is $p->{ptitle}, 'Your visit', 'its title';
is_deeply [ sort keys %{ $p->{inputs} } ], ['email', 'number'],
    'its questions, with the one that applies by an answer of page 1';
unlike $p->{html}, qr{Answer only if}, 'no condition sentence for an answered condition';
# the answer to a post is kept by the browser for its Back and Forward
# (private, never a shared cache): no-store made Back to it the browser's
# "Confirm form resubmission" (ERR_CACHE_MISS) page
is $p->{res}->header('Cache-Control'), 'private, no-cache', 'the page a step answers with is kept for the browser\'s Back';
ok !$p->{res}->header('ETag'), 'without an ETag';
is_deeply $p->{buttons}, ['next', 'back'], 'Next first (Enter presses it), then Back';
like $p->{html}, qr{value="back" class="back" formnovalidate>Back</button>}, 'Back skips the browser\'s checks';
unlike $p->{state}, qr/Ada/, 'the state does not show the answers';

my $p2 = $p;
$p = post_page($p, nav => 'next', answers => [[email => 'not an address']]);
is $p->{code}, 422, 'Next with a bad page: 422';
is $p->{res}->header('Cache-Control'), 'private, no-cache', 'the page again with its errors too';
is $p->{progress}, 'Page 2 of 3', 'the same page again';
like $p->{html}, qr{There are problems with 2 answers}, 'a summary of this page\'s errors';
is_deeply [ sort @{ $p->{errors} } ], ['email', 'number'], 'each by its question';
like $p->{html}, qr{id="f-email" name="email" value="not an address"[^>]* aria-invalid="true"}, 'what was typed is kept';
unlike $p->{html}, qr{Stars}, 'nothing of page 3 is asked yet';

$p = post_page($p, nav => 'back', answers => [[email => 'ada@example.org']]);
is $p->{code}, 200, 'Back: 200, nothing checked';
is $p->{progress}, 'Page 1 of 3', 'page 1';
is $p->{inputs}{name}, 'Ada', 'its answers are there';
is $p->{inputs}{member}, 'checked', 'the checkbox still ticked';
is_deeply $p->{buttons}, ['next'], 'no Back on the first page';

$p = post_page($p, nav => 'next', answers => [[name => 'Ada'], [member => 'true']]);
is $p->{progress}, 'Page 2 of 3', 'Next again: page 2';
is $p->{inputs}{email}, 'ada@example.org', 'what was typed on page 2 before Back is kept';

$p = post_page($p, nav => 'next', answers => [[email => 'ada@example.org'], [number => '42']]);
is $p->{code}, 200, 'page 2 answered';
is $p->{progress}, 'Page 3 of 3', 'the last page';
is_deeply $p->{buttons}, ['submit', 'back'], 'Submit instead of Next';
is subs($fid), 0, 'nothing stored before Submit';

my $last = $p;
$p = post_page($p, nav => 'submit', answers => [[stars => '4'], [comment => 'Fine']]);
my $first = $p->{res}; $first = $first->previous while $first->previous;
is $first->code, 303, 'Submit: 303';
is(URI->new($p->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'followed to the thanks page');
like $p->{html}, qr{Thanks, all three pages\.}, 'which the person sees';
is subs($fid), 1, 'one submission';
my $s = api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data}[0];
is_deeply $s->{data}, { name => 'Ada', member => $T, src => 'news', email => 'ada@example.org',
                        number => 42, stars => 4, comment => 'Fine' },
    'with every answer of every page, the hidden prefill included';

$p = post_page($last, nav => 'submit', answers => [[stars => '4'], [comment => 'Fine']]);
is(URI->new($p->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'the same last page sent again lands on thanks');
is subs($fid), 1, 'and stores nothing more (the page\'s token)';

# Back from the thanks page's last page, then Submit: the same answers
# are the same submission (a replay of the page's token), other answers
# are given back once with a notice, as on a page of one
$p = post_page(post_page(post_page($last, nav => 'back', answers => [[stars => '4'], [comment => 'Fine']]),
                         nav => 'next', answers => [[email => 'ada@example.org'], [number => '42']]),
               nav => 'submit', answers => [[stars => '4'], [comment => 'Fine']]);
is(URI->new($p->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'Back, Next, Submit with the same answers: thanks');
is subs($fid), 1, 'and still one submission';
$p = post_page(post_page(post_page($last, nav => 'back', answers => [[stars => '4']]),
                         nav => 'next', answers => [[email => 'ada@example.org'], [number => '42']]),
               nav => 'submit', answers => [[stars => '1']]);
is $p->{code}, 422, 'with other answers: the page again';
is $p->{progress}, 'Page 3 of 3', 'the last page';
like $p->{html}, qr{already sent from this page with other answers}, 'with the notice';
$p = post_page($p, nav => 'submit', answers => [[stars => '1']]);
like $p->{html}, qr{Thanks, all three pages\.}, 'sent from there: stored';
is subs($fid), 2, 'as a second submission';

# a member who is not: the member number is not asked, an unticked box is false
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => 'Bo']]);
is_deeply [ sort keys %{ $p->{inputs} } ], ['email'], 'not a member: no member number on page 2';
$p = post_page($p, nav => 'next', answers => [[email => 'bo@example.org']]);
$p = post_page($p, nav => 'submit', answers => [[stars => '2']]);
like $p->{html}, qr{Thanks, all three pages\.}, 'stored';
my ($bo) = grep { $_->{data}{name} eq 'Bo' } @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} };
is_deeply $bo->{data}, { name => 'Bo', member => JSON::PP::false, email => 'bo@example.org', stars => 2 },
    'the unticked checkbox is false, the question that did not apply is left out';

# a member number typed, then Back and the box unticked: page 2 no longer
# asks it, and what was typed is not stored
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => 'Cy'], [member => 'true']]);
$p = post_page($p, nav => 'back', answers => [[email => 'cy@example.org'], [number => '7']]);
$p = post_page($p, nav => 'next', answers => [[name => 'Cy']]);
is_deeply [ sort keys %{ $p->{inputs} } ], ['email'], 'unticked on page 1: page 2 no longer asks';
$p = post_page(post_page($p, nav => 'next', answers => [[email => 'cy@example.org']]),
               nav => 'submit', answers => [[stars => '5']]);
like $p->{html}, qr{Thanks, all three pages\.}, 'stored';
my ($cy) = grep { $_->{data}{name} eq 'Cy' } @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} };
ok $cy && !exists $cy->{data}{number}, 'without the member number typed before';

# ---- 2. the state ---------------------------------------------------------------
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => 'Dee']]);
my $st = $p->{state};
(my $bad = $st) =~ s/^(.{20})(.)/$1 . ($2 eq 'A' ? 'B' : 'A')/e;
my $r = post_page($p, nav => 'next', state => $bad, answers => [[email => 'd@example.org']]);
is $r->{code}, 400, 'a changed state: 400';
like $r->{html}, qr{This page cannot be continued}, 'a page that says so';
like $r->{html}, qr{<a href="[^"]*/f/$fid">Start the form again</a>}, 'with the way back to the start';
is post_page($p, nav => 'next', state => substr($st, 0, 30))->{code}, 400, 'a cut state: 400';
is post_page($p, nav => 'jump')->{code}, 400, 'an unknown button: 400';

my $g = make_form($tok, { title => 'Other', fields => \@fields });
api(POST => "/v1/forms/$g->{id}/publish", token => $tok);
my $gp = post_page(open_page("/f/$g->{id}"), nav => 'next', answers => [[name => 'Dee']]);
$r = post_page($gp, nav => 'next', state => $st, answers => [[email => 'd@example.org']]);
is $r->{code}, 400, 'another form\'s state: 400';
like $r->{html}, qr{This page cannot be continued}, 'refused with the same page';

# the honeypot filled on the first page: the submission, at the end, is spam
$r = post_page(open_page("/f/$g->{id}"), nav => 'next', answers => [[name => 'Bot'], [_hp => 'x']]);
is $r->{progress}, 'Page 2 of 3', 'a filled honeypot goes on like any page';
$r = post_page(post_page($r, nav => 'next', answers => [[email => 'bot@example.org']]),
               nav => 'submit', answers => [[stars => '1']]);
is(URI->new($r->{res}->request->uri)->path, BASE . "/f/$g->{id}/thanks", 'and lands on thanks');
is psql("SELECT spam FROM submissions WHERE form_id = '$g->{id}'"), 't', 'stored as spam';

# through a respondent link: the pages post through it, the submission
# carries it; its state is bound to it
my $lk = api(POST => "/v1/forms/$fid/links", token => $tok, body => { prefill => { name => 'Lin' } });
my ($lpath) = ($lk->{json}{url} // '') =~ m{/api(/f/.*)$};
my $lp = open_page($lpath);
is $lp->{inputs}{name}, 'Lin', 'a link\'s page is prefilled';
like $lp->{action}, qr/\?l=/, 'and posts through the link';
$lp = post_page($lp, nav => 'next', answers => [[name => 'Lin']]);
is $lp->{progress}, 'Page 2 of 3', 'Next through the link';
like $lp->{action}, qr/\?l=/, 'page 2 posts through it too';
is $lp->{res}->header('Cache-Control'), 'no-store', 'a page that carries a respondent link stays no-store';
$r = post_page(post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => 'X']]),
               nav => 'next', state => $lp->{state}, answers => [[email => 'l@example.org']]);
is $r->{code}, 400, 'its state without the link: 400';
$lp = post_page(post_page($lp, nav => 'next', answers => [[email => 'l@example.org']]),
               nav => 'submit', answers => [[stars => '3']]);
like $lp->{html}, qr{Thanks, all three pages\.}, 'stored through the link';
my ($ls) = grep { $_->{data}{name} eq 'Lin' } @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} };
is $ls && $ls->{linkId}, $lk->{json}{id}, 'with the link\'s id';

# expired: sealed as the server seals, with its pepper, an expiry passed.
# A page left open past its state's expiry (a day) but not long past it
# (a week) is given back: the page it was, everything typed and every
# earlier answer, a notice that says what to do; pressed again, it goes on
# to one submission. Before, the person got "This page has expired" and
# every answer was lost. Longer past: refused.
SKIP: {
    my $pepper_file = $ENV{FORMSVC_PEPPER};
    skip 'no pepper file', 16 unless $pepper_file && -r $pepper_file;
    my $cur = api(GET => "/v1/forms/$fid", token => $tok)->{json};
    my $py = <<'PY';
import base64, hmac, hashlib, os, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
pepper = open(sys.argv[1], "rb").read()
key = hmac.new(pepper, b"idempotency\0page-state " + sys.argv[2].encode() + b"\0", hashlib.sha256).digest()
iv = os.urandom(12)
out = iv + AESGCM(key).encrypt(iv, sys.argv[3].encode(), None)
print(base64.urlsafe_b64encode(out).decode().rstrip("="))
PY
    my $seal = sub {
        my ($x, $page, $a) = @_;
        my $plain = $J->encode({ v => "$cur->{version}", x => $x, p => $page, s => JSON::PP::false,
                                 a => $a, ($page > 1 ? (t => [0, 1]) : (t => [0])) });
        open my $fh, '>', "/tmp/fs34_$$.py" or die $!; print $fh $py; close $fh;
        chomp(my $sealed = `/usr/bin/python3 /tmp/fs34_$$.py '$pepper_file' '$fid' '$plain'`);
        unlink "/tmp/fs34_$$.py";
        return $sealed;
    };
    my $start = open_page("/f/$fid");
    is post_page($start, nav => 'back', state => $seal->(time + 600, 1, { name => 'Dee' }))->{inputs}{name}, 'Dee',
        'a state sealed this way opens (so the ones below are only late)';
    my $before = subs($fid);
    $r = post_page($start, nav => 'next', state => $seal->(time - 60, 1, { name => 'Dee' }),
                   answers => [[email => 'd@example.org']]);
    is $r->{code}, 409, 'Next on a page left open past its expiry: 409, no step';
    is $r->{progress}, 'Page 2 of 3', 'the page it was sent from';
    like $r->{html}, qr{left open too long to go on from it, so nothing was sent\. All your answers are still here},
        'saying so and what to do';
    is $r->{inputs}{email}, 'd@example.org', 'what was typed on it kept';
    is post_page($r, nav => 'back', answers => [[email => 'd@example.org']])->{inputs}{name}, 'Dee',
        'and the earlier pages\' answers (Back shows them)';
    $r = post_page($r, nav => 'next', answers => [[email => 'd@example.org']]);
    is $r->{code}, 200, 'pressed again, Next goes on';
    is $r->{progress}, 'Page 3 of 3', 'to the last page';
    $r = post_page($r, nav => 'submit', answers => [[stars => '5']]);
    is(URI->new($r->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'Submit lands on the thanks page');
    is subs($fid), $before + 1, 'one submission';
    my ($ds) = grep { ($_->{data}{email} // '') eq 'd@example.org' }
        @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} };
    is_deeply $ds && $ds->{data}, { name => 'Dee', email => 'd@example.org', stars => 5 },
        'with exactly the answers given';
    # Submit on a last page left open too long: nothing stored, the page again
    $r = post_page($start, nav => 'submit', state => $seal->(time - 3600, 2, { name => 'Ed', email => 'e@example.org' }),
                   answers => [[stars => '2']]);
    is $r->{code}, 409, 'Submit on a page left open past its expiry: 409';
    is $r->{progress}, 'Page 3 of 3', 'the last page again, to submit';
    is subs($fid), $before + 1, 'nothing stored';
    $r = post_page($start, nav => 'next', state => $seal->(time - 8 * 86400, 1, { name => 'Dee' }),
                   answers => [[email => 'd@example.org']]);
    is $r->{code}, 400, 'a state a week past its expiry: 400';
    like $r->{html}, qr{This page has expired}, 'a page that says it expired';
}

# the form edited between two steps
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => 'Eve']]);
is api(PATCH => "/v1/forms/$fid", token => $tok, body => { title => 'Three pages, edited' })->code, 200,
    'the owner edits the form';
wait_for(sub { open_page("/f/$fid")->{html} =~ /edited/ }, 15, 'the edit to be served');
$r = post_page($p, nav => 'next', answers => [[email => 'e@example.org']]);
is $r->{code}, 409, 'a step made before the edit: 409';
like $r->{html}, qr{This form has changed}, 'a page that says the form changed';
like $r->{html}, qr{Start the form again}, 'and how to start again';

# ---- 3. definitions -----------------------------------------------------------
sub bad_def {
    my ($fields, $ptr, $name) = @_;
    my $res = api(POST => '/v1/forms', token => $tok, body => { title => 'x', fields => $fields });
    my @p = map { $_->{pointer} } @{ $res->{json}{errors} || [] };
    ok $res->code == 422 && grep({ $_ eq $ptr } @p), $name or diag $res->content;
}
my $q = { key => 'q', type => 'text', label => 'Q' };
bad_def([{ key => 'pg', type => 'page', label => 'P', required => $T }, $q], '/fields/0/required', 'a required page: 422');
bad_def([{ key => 'pg', type => 'page', label => 'P', options => ['a'] }, $q], '/fields/0/options', 'a page with options: 422');
bad_def([{ key => 'pg', type => 'page', label => 'P', validation => { maxLength => 3 } }, $q],
        '/fields/0/validation/maxLength', 'a page with validation: 422');
bad_def([$q, { key => 'pg', type => 'page', label => 'P', visibleIf => { field => 'q', equals => 'x' } },
         { key => 'q2', type => 'text', label => 'Q2' }], '/fields/1/visibleIf', 'a page with visibleIf: 422');
bad_def([{ key => 'pg', type => 'page', label => 'P' }, { key => 'q', type => 'text', label => 'Q', visibleIf => { field => 'pg', equals => 'x' } }],
        '/fields/1/visibleIf/field', 'a question depending on a page: 422');
bad_def([{ key => 'up', type => 'file', label => 'F' }, { key => 'pg', type => 'page', label => 'P' }, $q],
        '/fields/1/type', 'a file field before a page: 422');
bad_def([{ key => 'pg', type => 'page' }, $q], '/fields/0/label', 'a page needs its title (label)');
my $add = api(POST => "/v1/forms/$g->{id}/fields", token => $tok, body => { key => 'p_more', type => 'page', label => 'More' });
is $add->code, 201, 'add_field takes a page field (an empty page at the end is no page yet)';
my $back = api(GET => "/v1/forms/$g->{id}", token => $tok)->{json}{fields};
is api(PUT => "/v1/forms/$g->{id}/fields", token => $tok, body => { fields => $back })->code, 200,
    'the fields as read, page fields included, can be sent back';

# a file on the last page: every page posts multipart, the file is stored
my $h = make_form($tok, { title => 'With a file', fields => [
    { key => 'who', type => 'text', label => 'Who', required => $T },
    { key => 'p_files', type => 'page', label => 'Files' },
    { key => 'cv', type => 'file', label => 'CV', required => $T } ] });
api(POST => "/v1/forms/$h->{id}/publish", token => $tok);
my $B = '----fs34';
sub post_multipart {
    my ($pg, @pairs) = @_;
    my $body = '';
    for (@{ $pg->{hidden} || [] }, @pairs) {
        my ($n, $v, $fn) = @$_;
        $body .= "--$B\r\nContent-Disposition: form-data; name=\"$n\""
            . (defined $fn ? "; filename=\"$fn\"\r\nContent-Type: text/plain" : '') . "\r\n\r\n$v\r\n";
    }
    $body .= "--$B--\r\n";
    my $req = HTTP::Request->new(POST => $pg->{action});
    $req->header('Content-Type' => "multipart/form-data; boundary=$B", Accept => 'text/html');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return page_of(ua()->request($req));
}
$p = open_page("/f/$h->{id}");
like $p->{html}, qr{enctype="multipart/form-data"}, 'a form with a file field posts multipart from its first page';
$p = post_multipart($p, ['who', 'Ida'], ['_nav', 'next']);
is $p->{progress}, 'Page 2 of 2', 'Next (multipart): the page of the file';
# a file chosen there, then Back: the file cannot be carried (a browser is
# never given a file back); the page Back shows says so, rather than the
# file input being empty, without a word, when the person comes back
my $fb = post_multipart($p, ['cv', "my cv\n", 'cv.txt'], ['_nav', 'back']);
is $fb->{progress}, 'Page 1 of 2', 'Back with a file chosen: the page before';
like $fb->{html}, qr{The file you chose on the page you left was not kept: a browser cannot carry a file between pages\. Choose it again},
    'which says the file was not kept and what to do';
is $fb->{inputs}{who}, 'Ida', 'its answers kept';
unlike post_multipart($p, ['cv', '', ''], ['_nav', 'back'])->{html}, qr{was not kept}, 'Back with the file input left empty (as a browser posts it): no such word';
$p = post_multipart($p, ['cv', "my cv\n", 'cv.txt'], ['_nav', 'submit']);
like $p->{html}, qr{Your answers were received|Thank you}, 'Submit with the file: the thanks page';
my $hs = api(GET => "/v1/forms/$h->{id}/submissions", token => $tok)->{json}{data}[0];
ok $hs && $hs->{data}{who} eq 'Ida' && $hs->{data}{cv}[0]{name} eq 'cv.txt' && $hs->{data}{cv}[0]{size} == 6,
    'one submission with the first page\'s answer and the file' or diag explain $hs;

# ---- the owner's side: page fields are no column, no question -----------------
my $csv = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' });
my ($head) = split /\r?\n/, $csv->content;
is $head, 'id,createdAt,formVersion,name,member,src,email,number,stars,comment,linkId,linkMetadata',
    'the CSV export has a column per question, none for a page';
my $ins = api(GET => "/v1/forms/$fid/insights", token => $tok)->{json};
is_deeply [ map { $_->{key} } @{ $ins->{questions} || [] } ],
    [qw(name member src email number stars comment)], 'insights list the questions, not the pages';

# ---- 4. agents ------------------------------------------------------------------
my $v = api(GET => "/f/$fid", headers => { Accept => 'application/json' })->{json};
ok !grep({ /^p_/ } keys %{ $v->{schema}{properties} }), 'the JSON view\'s schema has no page property';
is scalar(grep { $_->{type} eq 'page' } @{ $v->{fields} }), 3, 'its fields show the pages (layout)';
my $j = api(POST => "/f/$fid", body => { name => 'Fay', email => 'f@example.org', stars => 3 });
is $j->code, 201, 'a JSON post of every answer at once is stored';
$j = api(POST => "/f/$fid", body => { name => 'Fay', email => 'f@example.org', stars => 3, p_you => 'x' });
is $j->code, 422, 'a page key in it is refused';
is $j->{json}{errors}[0]{pointer}, '/p_you', 'as an unknown member';
$j = api(POST => "/f/$fid", body => 'name=Gus&email=g%40example.org&stars=1',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'application/json' });
is $j->code, 201, 'a form post of every answer without a button is one submission, as before';

done_testing;
