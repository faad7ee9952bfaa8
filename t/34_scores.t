# Scores and calculations (settings.variables, calculate actions in
# settings.logic, options' score and a field's correct answer): a quiz of
# two pages walked as a browser without script walks it (every redirect
# followed, the thanks page read), the same over JSON; the variables with
# all four operators; a hidden question's answer neither scored nor
# counted in max; a client's calculated refused (JSON) or ignored (a
# page's post); the respondent never sees the correct answers nor the
# options' scores; the stored result in the row, the owner's API, the
# submission.created event (so its webhooks) and the CSV export; a forged
# score on the thanks page shown as "?"; the definitions refused with
# pointers.
use strict;
use warnings;
use utf8;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Apache::TestRequest ();
use HTTP::Request ();
use JSON::PP ();
use URI ();
use URI::Escape qw(uri_escape_utf8);

my $J = JSON::PP->new->canonical;
my $T = JSON::PP::true;
my ($tok) = signup();

# ---- a browser (as t/34_public_logic.t) -------------------------------------
sub ua {
    my $ua = Apache::TestRequest::user_agent(reset => 1);
    $ua->requests_redirectable(['GET', 'HEAD', 'POST']);
    $ua->max_redirect(5);
    return $ua;
}
sub abs_url { my $u = shift; $u =~ m{^https?://} ? $u : Apache::TestRequest::resolve_url(BASE . $u) }
sub unent { my $s = shift; $s =~ s/&quot;/"/g; $s =~ s/&#39;/'/g; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; $s }
sub page_of {
    my $r = shift;
    my $html = $r->decoded_content // $r->content // '';
    my %p = (res => $r, html => $html, code => $r->code);
    $p{action} = unent($1) if $html =~ /<form method="post" action="([^"]*)"/;
    push @{ $p{hidden} }, [$1, unent($2)] while $html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
    $p{progress} = $1 if $html =~ /<p class="progress" id="progress">([^<]*)<\/p>/;
    $p{errors} = [ $html =~ /<p class="err" id="f-(\w+)-err">/g ];
    return \%p;
}
sub open_page { page_of(ua()->get(abs_url(shift), Accept => 'text/html')) }
sub post_page {
    my ($pg, %o) = @_;
    my @pairs = (@{ $pg->{hidden} || [] }, @{ $o{answers} || [] });
    push @pairs, ['_nav', $o{nav}] if $o{nav};
    my $req = HTTP::Request->new(POST => $pg->{action});
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return page_of(ua()->request($req));
}
sub calc_of {
    my $sid = shift;
    my $t = psql("SELECT calculated::text FROM submissions WHERE id = '$sid'");
    return $t ? $J->decode($t) : undef;
}
sub errs { my $r = shift; +{ map { $_->{pointer} => $_->{code} } @{ $r->{json}{errors} || [] } } }

# ---- the quiz -------------------------------------------------------------------
my @fields = (
    { key => 'p_geo', type => 'page', label => 'Geography' },
    { key => 'capital', type => 'select', label => 'Capital of France', required => $T,
      options => [{ value => 'paris', label => 'Paris', score => 3 }, { value => 'lyon', label => 'Lyon', score => 1 },
                  { value => 'nice', label => 'Nice' }] },
    { key => 'rivers', type => 'multiselect', label => 'Rivers of France',
      options => [{ value => 'seine', label => 'Seine', score => 2 }, { value => 'loire', label => 'Loire', score => 2 },
                  { value => 'nile', label => 'Nile', score => -1 }] },
    { key => 'bonus', type => 'boolean', label => 'Is Paris on the Seine?', correct => $T,
      visibleIf => { field => 'capital', op => 'equals', value => 'paris' } },
    { key => 'p_hist', type => 'page', label => 'History' },
    { key => 'year', type => 'integer', label => 'Year of the revolution', required => $T, correct => 1789 },
    { key => 'name', type => 'text', label => 'Your name' },
    { key => 'stars', type => 'rating', label => 'Did you like it?' },
);
my $settings = {
    showScore => $T,
    variables => [{ name => 'total', type => 'number', initial => 10 }, { name => 'who', type => 'text' },
                  { name => 'count', type => 'number' }],
    logic => [
        { when => { field => 'capital', op => 'equals', value => 'paris' },
          then => { calculate => [{ variable => 'total', op => 'add', value => 5 }] } },
        { then => { calculate => [{ variable => 'total', op => 'multiply', value => { field => 'stars' } },
                                  { variable => 'who', op => 'set', value => { field => 'name' } },
                                  { variable => 'count', op => 'subtract', value => 2 }] } },
        { from => 'p_geo', when => { field => 'capital', op => 'equals', value => 'nice' },
          then => { goTo => 'end', calculate => [{ variable => 'count', op => 'set', value => 7 }] } },
    ],
    endings => [{ key => 'high', when => { field => 'capital', op => 'equals', value => 'paris' },
                  message => 'Bravo, {score}/{max}!' },
                { key => 'rest', message => 'You have {score} of {max} <points>.' }],
};
my $f = make_form($tok, { title => 'Quiz', fields => \@fields, settings => $settings });
my $fid = $f->{id};
is_deeply $f->{settings}{variables}, [{ name => 'total', type => 'number', initial => 10 },
    { name => 'who', type => 'text', initial => '' }, { name => 'count', type => 'number', initial => 0 }],
    'settings.variables normalised (initial values filled in)';
is_deeply $f->{settings}{logic}, $settings->{logic}, 'rules with calculate kept as sent, with and without goTo';
is $f->{fields}[1]{options}[0]{score}, 3, 'the owner reads the options\' scores';
is $f->{fields}[5]{correct}, 1789, 'and the correct answers';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

# the respondent's view: neither scores nor correct answers
my $view = api(GET => "/f/$fid", headers => { Accept => 'application/json' });
is $view->code, 200, 'the JSON view';
unlike $view->content, qr/"score"|"correct"|1789/, 'has no score of an option and no correct answer';
unlike open_page("/f/$fid")->{html}, qr/1789|score/i, 'nor has the page';

# ---- 1. the page, two pages, everything right ------------------------------------
my $p = open_page("/f/$fid");
is $p->{progress}, 'Page 1 of 2', 'page 1';
$p = post_page($p, nav => 'next',
               answers => [[capital => 'paris'], [rivers => 'seine'], [rivers => 'loire'], [bonus => 'true']]);
is $p->{progress}, 'Page 2 of 2', 'Next: page 2';
$p = post_page($p, nav => 'submit',
               answers => [[year => '1789'], [name => 'Ann'], [stars => '4'], [calculated => '999'],
                           [score => '999']]);
my $first = $p->{res}; $first = $first->previous while $first->previous;
is $first->code, 303, 'submitted: 303';
my $u = URI->new($p->{res}->request->uri);
is $u->path, BASE . "/f/$fid/thanks", 'followed to the thanks page';
like $u->query, qr/^ending=high&score=9&max=9&sig=[0-9a-f]{32}$/, 'its query: the ending, the score, its signature';
like $p->{html}, qr{Bravo, 9/9!}, 'the ending\'s message with {score} and {max} filled';
like $p->{html}, qr{Your score: 9 of 9\.}, 'and the sentence of showScore';
my $sid = psql("SELECT id FROM submissions WHERE form_id = '$fid' ORDER BY id DESC LIMIT 1");
is_deeply calc_of($sid), { score => 9, max => 9, variables => { total => 60, who => 'Ann', count => -2 } },
    'stored: 3 + 2 + 2 + 1 + 1 of 9; total (10 + 5) x 4, who set, count 0 - 2; the posted calculated ignored';
my $fr = open_page("/f/$fid/thanks?ending=high&score=9&max=9&sig=" . ('0' x 32));
like $fr->{html}, qr{Bravo, \?/\?!}, 'a forged signature: the placeholders say ?';
unlike $fr->{html}, qr{Your score}, 'and no sentence';

# ---- 2. the hidden question: year answered on page 2, then the path ends
# ---- after page 1 (nice jumps to the end): not stored, not scored, not in max
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[capital => 'paris'], [bonus => 'true']]);
is $p->{progress}, 'Page 2 of 2', 'paris: page 2';
$p = post_page($p, nav => 'back', answers => [[year => '1789'], [stars => '5']]);
is $p->{progress}, 'Page 1 of 2', 'Back: page 1, with the right year typed on page 2';
$p = post_page($p, nav => 'next', answers => [[capital => 'nice'], [rivers => 'seine']]);
is $p->{progress}, 'Page 1 of 1', 'nice: the rule ends the form after page 1 (page 1 of 1)';
$p = post_page($p, nav => 'submit', answers => [[capital => 'nice'], [rivers => 'seine']]);
like $p->{html}, qr{You have 2 of 7 &lt;points&gt;\.}, 'the default ending: 2 of 3 + 4, its text escaped';
$sid = psql("SELECT id FROM submissions WHERE form_id = '$fid' ORDER BY id DESC LIMIT 1");
is_deeply $J->decode(psql("SELECT data::text FROM submissions WHERE id = '$sid'")),
    { capital => 'nice', rivers => ['seine'] }, 'the answers of the page not reached are not stored';
is_deeply calc_of($sid), { score => 2, max => 7, variables => { total => 10, who => '', count => 7 } },
    'nor scored, nor counted in max (year, bonus); count 0 - 2, then set to 7 by the jump\'s calculate';

# ---- 3. over JSON ----------------------------------------------------------------
# (stored with the child's other submissions of the moment: the batch
# statement carries the ending and what was calculated)
my $in_batches = sub { (api(GET => '/metrics')->content =~ /^formsvc_submission_batch_size_sum (\d+)$/m)[0] // -1 };
my $batched = $in_batches->();
my $j = api(POST => "/f/$fid", body => { capital => 'lyon', rivers => ['loire', 'nile'], year => 1789,
                                          name => 'Bo', stars => 3 });
is $j->code, 201, 'a JSON answer: 201';
is $in_batches->(), $batched + 1, 'stored through the batch statement';
is_deeply $j->{json}{calculated}, { score => 3, max => 8 },
    'showScore: the answer says the score (1 + 1 + 1 of 3 + 4 + 1), never the variables';
$sid = $j->{json}{id};
my $sub = api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok)->{json};
is_deeply $sub->{calculated}, { score => 3, max => 8, variables => { total => 30, who => 'Bo', count => -2 } },
    'the owner\'s API: score, max and the variables';
is $sub->{ending}, 'rest', 'and the ending';
$j = api(POST => "/f/$fid", body => { capital => 'paris', year => 1789, calculated => { score => 100, max => 1 } });
is $j->code, 422, 'a client\'s calculated: 422';
is errs($j)->{'/calculated'}, 'unknown', 'at /calculated: this form has no such question';
$j = api(POST => "/f/$fid?dryRun=true", body => { capital => 'paris', year => 1789 });
is $j->code, 200, 'a dry run';
ok !exists $j->{json}{calculated}, 'stores and calculates nothing';
my $ev = api(GET => "/v1/events?limit=100", token => $tok)->{json}{data};
my ($created) = grep { $_->{type} eq 'submission.created' && $_->{data}{id} eq $sid } @$ev;
is_deeply $created->{data}{calculated}, $sub->{calculated},
    'the submission.created event (and so its webhooks) carries what was calculated';
my $list = api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data};
is scalar(grep { $_->{calculated} } @$list), 3, 'the list shows it on each submission';
my $csv = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' })->content;
like((split /\r?\n/, $csv)[0],
     qr{,endingKey,calculatedScore,calculatedMax,calculated\.total,calculated\.who,calculated\.count$},
     'the CSV export: score, max and one column per variable, last');
like $csv, qr{\n\Q$sid\E,[^\n]*,rest,3,8,30,Bo,-2\r?\n}, 'with each submission\'s values';
like $csv, qr{,high,9,9,60,Ann,-2\r?\n}, 'the first, from the page';

# ---- 4. variables without a quiz, no showScore -------------------------------------
my $g = make_form($tok, { title => 'Calc', fields => [
        { key => 'qty', type => 'integer', label => 'How many', required => $T },
        { key => 'size', type => 'select', label => 'Size', options => ['s', 'l'] }],
    settings => { confirmationMessage => 'Thanks ({score}).',
                  variables => [{ name => 'price', type => 'number' }, { name => 'label', type => 'text', initial => 'none' }],
                  logic => [{ then => { calculate => [{ variable => 'price', op => 'set', value => { field => 'qty' } },
                                                      { variable => 'price', op => 'multiply', value => 250 }] } },
                            { when => { field => 'size', op => 'equals', value => 'l' },
                              then => { calculate => [{ variable => 'price', op => 'add', value => 100 },
                                                      { variable => 'label', op => 'set', value => { field => 'size' } }] } },
                            { when => { field => 'qty', op => 'gt', value => 10 },
                              then => { calculate => [{ variable => 'price', op => 'subtract', value => 500 }] } }] } });
is api(POST => "/v1/forms/$g->{id}/publish", token => $tok)->code, 200, 'a form with variables only';
$j = api(POST => "/f/$g->{id}", body => { qty => 12, size => 'l' });
is $j->code, 201, 'answered';
ok !exists $j->{json}{calculated}, 'no showScore: the answer shows nothing calculated';
is_deeply api(GET => "/v1/forms/$g->{id}/submissions/$j->{json}{id}", token => $tok)->{json}{calculated},
    { variables => { price => 2600, label => 'l' } }, 'the owner: 12 x 250 + 100 - 500, the size; no score';
$j = api(POST => "/f/$g->{id}", body => 'qty=2', headers => { 'Content-Type' => 'application/x-www-form-urlencoded',
                                                               Accept => 'text/html' });
is $j->code, 303, 'a page post: 303';
like $j->header('Location'), qr{/f/\Q$g->{id}\E/thanks$}, 'to the thanks page, without a score';
like open_page("/f/$g->{id}/thanks")->{html}, qr{Thanks \(\?\)\.}, 'a {score} with no score: ?';
my $gp = post_page(open_page("/f/$g->{id}"), answers => [[qty => 2]]);
like $gp->{res}->request->uri, qr{/f/\Q$g->{id}\E/thanks$}, 'through the page, the person lands on the thanks page';
like $gp->{html}, qr{Thanks \(\?\)\.}, 'which says its message';

# ---- 5. definitions refused, with pointers -----------------------------------------
my $e = errs(api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => {
    variables => [{ name => 'total', type => 'number' }, { name => 'who', type => 'text' }],
    logic => [{ then => { calculate => [
        { variable => 'nope', op => 'add', value => 1 },
        { variable => 'total', op => 'add', value => 'ten' },
        { variable => 'who', op => 'multiply', value => 'x' },
        { variable => 'total', op => 'set', value => { field => 'name' } },
        { variable => 'who', op => 'set', value => { field => 'rivers' } },
        { variable => 'total', op => 'add', value => { field => 'missing' } }] } }] } }));
is $e->{'/settings/logic/0/then/calculate/0/variable'}, 'enum', 'an unknown variable';
is $e->{'/settings/logic/0/then/calculate/1/value'}, 'type', 'a text for a number variable';
is $e->{'/settings/logic/0/then/calculate/2/op'}, 'enum', 'multiply on a text variable';
is $e->{'/settings/logic/0/then/calculate/3/value/field'}, 'type', 'a text answer into a number';
is $e->{'/settings/logic/0/then/calculate/4/value/field'}, 'type', 'a multiselect into a text';
is $e->{'/settings/logic/0/then/calculate/5/value/field'}, 'enum', 'a field the form does not have';
$e = errs(api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => {
    variables => [{ name => 'total', type => 'number', initial => 0.5 }, { name => 'total', type => 'float' }],
    logic => [{ then => { calculate => [{ variable => 'total', op => 'divide', value => 2 },
                                        { variable => 'total', op => 'add', value => 1.5 }] } },
              { from => 'p_geo', then => { calculate => [{ variable => 'total', op => 'set', value => 1 }] } },
              { then => { calculate => [ map { { variable => 'total', op => 'add', value => 1 } } 1 .. 11 ] } }] } }));
is $e->{'/settings/variables/0/initial'}, 'type', 'a fraction: integers only';
is $e->{'/settings/variables/1/name'}, 'unique', 'two variables of one name';
is $e->{'/settings/variables/1/type'}, 'enum', 'a type other than number and text';
is $e->{'/settings/logic/0/then/calculate/0/op'}, 'enum', 'divide: nothing divides';
is $e->{'/settings/logic/0/then/calculate/1/value'}, 'type', 'a fraction as a value';
is $e->{'/settings/logic/1/from'}, 'unknown', 'from on a rule without goTo';
is $e->{'/settings/logic/2/then/calculate'}, 'maxItems', 'more than 10 actions in a rule';
my @bad = map { { %$_ } } @fields;
$bad[1]{options}[1]{score} = 2.5;
$bad[5]{correct} = '1789';
$bad[6]{correct} = 'Ann';
$bad[2]{correct} = ['seine'];
$e = errs(api(PUT => "/v1/forms/$fid/fields", token => $tok, body => { fields => [
    @bad, { key => 'essay', type => 'textarea', label => 'E', correct => 'x' }] }));
is $e->{'/fields/1/options/1/score'}, 'type', 'an option\'s score is an integer';
is $e->{'/fields/5/correct'}, 'enum', 'a correct answer the question cannot take';
ok !exists $e->{'/fields/6/correct'}, 'a text question may have one';
is $e->{'/fields/2/correct'}, 'unknown', 'not both options\' scores and correct';
is $e->{'/fields/8/correct'}, 'unknown', 'not on a textarea';
my $del = api(DELETE => "/v1/forms/$fid/fields/$f->{fields}[6]{id}", token => $tok);
is $del->code, 422, 'deleting the question a calculate action reads: 422';
is errs($del)->{'/settings/logic/1/then/calculate/1/value/field'}, 'enum', 'at that action';

done_testing;
