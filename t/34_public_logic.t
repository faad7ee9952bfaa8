# Form logic (settings.logic jumps, conditions of several fields,
# requiredIf), walked as a browser without script walks it: every page
# read as a person sees it, its form posted as the page says, every
# redirect followed. A three-page form with two endings (and the form's
# own thanks when none is reached) whose first answer jumps over the
# second page ("solo") or ends the form ("none"): Next lands on the page
# the path reaches, Back returns along the pages actually shown, answers
# typed on a page the path no longer reaches are not stored (read from
# the row), requiredIf on the page itself and on JSON posts, the ending
# reached in the row, the API, the event, the CSV and the thanks page. Then the
# definitions a form refuses (422, pointer to the member at fault) and
# what agents get: the schema says the path, a JSON post is held to it.
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
sub rows {
    my $fid = shift;
    [ map { $J->decode($_) } split /\n/,
      psql("SELECT data::text FROM submissions WHERE form_id = '$fid' ORDER BY id") ]
}

my @fields = (
    { key => 'p_start', type => 'page', label => 'Start' },
    { key => 'kind', type => 'select', label => 'Who comes', required => $T,
      options => [{ value => 'solo', label => 'Just me' }, { value => 'team', label => 'A team' },
                  { value => 'none', label => 'Nobody' }] },
    { key => 'size', type => 'integer', label => 'How many', required => $T,
      visibleIf => { all => [{ field => 'kind', op => 'equals', value => 'team' }] } },
    { key => 'p_team', type => 'page', label => 'Your team' },
    { key => 'lead', type => 'text', label => 'Team lead', required => $T },
    { key => 'p_last', type => 'page', label => 'Last words' },
    { key => 'stars', type => 'rating', label => 'Stars', required => $T },
    { key => 'why', type => 'textarea', label => 'Why so few',
      requiredIf => { field => 'stars', op => 'lt', value => 3 } },
);
my $logic = [
    { when => { field => 'kind', op => 'equals', value => 'none' }, then => { goTo => 'end' } },
    { when => { field => 'kind', op => 'notEquals', value => 'team' }, then => { goTo => 'p_last' } },
];
my $endings = [
    { key => 'big', when => { field => 'size', op => 'gt', value => 10 }, redirectUrl => 'https://big.example.org/welcome' },
    { key => 'low', when => { field => 'stars', op => 'lt', value => 3 }, message => 'Sorry it was not better.' },
    { key => 'nobody', when => { field => 'kind', op => 'equals', value => 'none' }, message => 'Sorry you cannot come.' },
];
my $f = make_form($tok, { title => 'Logic', fields => \@fields,
                          settings => { confirmationMessage => 'Thanks, logically.', logic => $logic,
                                        endings => $endings } });
my $fid = $f->{id};
is_deeply $f->{settings}{logic}, $logic, 'settings.logic is kept as sent';
is_deeply $f->{settings}{endings}, $endings, 'so are the endings';
is_deeply $f->{fields}[7]{requiredIf}, { field => 'stars', op => 'lt', value => 3 }, 'so is requiredIf';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

# ---- 1. solo: page 2 is jumped over, Back returns along the path ----------------
my $p = open_page("/f/$fid");
is $p->{progress}, 'Page 1 of 2', 'page 1 of the pages the (missing) answers reach: "Your team" is for a team';
like $p->{html}, qr{Answer only if “Who comes” is “A team”\.}, 'a condition on this page says when it applies';
$p = post_page($p, nav => 'next', answers => [[kind => 'solo']]);
is $p->{code}, 200, 'Next: 200';
is $p->{progress}, 'Page 2 of 2', 'solo jumps over "Your team" to the last page, the second shown';
is $p->{ptitle}, 'Last words', 'its title';
is_deeply $p->{buttons}, ['submit', 'back'], 'Submit and Back';
like $p->{html}, qr{Required if “Stars” is less than “3”\.}, 'requiredIf on the same page says when';
my $p3 = $p;
$p = post_page($p, nav => 'back', answers => [[stars => '2']]);
is $p->{progress}, 'Page 1 of 2', 'Back returns to page 1, the page shown before, not page 2';
is_deeply $p->{buttons}, ['next'], 'the first page';
$p = post_page($p, nav => 'next', answers => [[kind => 'solo']]);
is $p->{progress}, 'Page 2 of 2', 'Next again: the last page';
like $p->{html}, qr{id="f-stars-1" name="stars" value="2" checked}, 'with the stars given before Back';
$p = post_page($p, nav => 'submit', answers => [[stars => '2']]);
is $p->{code}, 422, 'two stars and no reason: 422';
is_deeply $p->{errors}, ['why'], 'the reason is required by requiredIf';
$p = post_page($p, nav => 'submit', answers => [[stars => '2'], [why => 'Too far']]);
my $first = $p->{res}; $first = $first->previous while $first->previous;
is $first->code, 303, 'with a reason: 303';
is(URI->new($p->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'followed to the thanks page');
is(URI->new($p->{res}->request->uri)->query, 'ending=low', 'of the ending the answers reached');
like $p->{html}, qr{Sorry it was not better\.}, 'whose message the person sees';
is_deeply rows($fid), [{ kind => 'solo', stars => 2, why => 'Too far' }], 'stored: the answers of pages 1 and 3';
is psql("SELECT ending FROM submissions WHERE form_id = '$fid'"), 'low', 'with the ending reached';

# ---- 2. team, then solo: what was typed on page 2 is not stored ------------------
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[kind => 'team'], [size => '4']]);
is $p->{progress}, 'Page 2 of 3', 'a team goes to page 2';
is $p->{ptitle}, 'Your team', 'its title';
$p = post_page($p, nav => 'next', answers => [[lead => 'Ann']]);
is $p->{progress}, 'Page 3 of 3', 'then page 3';
$p = post_page($p, nav => 'back', answers => [[stars => '5']]);
is $p->{progress}, 'Page 2 of 3', 'Back: page 2, along the path taken';
is $p->{inputs}{lead}, 'Ann', 'with its answer';
$p = post_page($p, nav => 'back', answers => [[lead => 'Ann']]);
is $p->{progress}, 'Page 1 of 3', 'Back again: page 1';
is $p->{inputs}{size}, '4', 'its answers kept';
$p = post_page($p, nav => 'next', answers => [[kind => 'solo']]);
is $p->{progress}, 'Page 2 of 2', 'now solo: the last page directly, two pages in all';
$p = post_page($p, nav => 'back', answers => [[stars => '5']]);
is $p->{progress}, 'Page 1 of 2', 'and Back from it is page 1';
$p = post_page($p, nav => 'next', answers => [[kind => 'solo']]);
$p = post_page($p, nav => 'submit', answers => [[stars => '5']]);
like $p->{html}, qr{Thanks, logically\.}, 'stored, no ending reached: the form\'s own message';
is_deeply rows($fid)->[1], { kind => 'solo', stars => 5 },
    'without the team lead typed on the page the path no longer reaches, nor the size';

# ---- 3. none: the form ends after page 1 ------------------------------------------
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[kind => 'none']]);
is $p->{progress}, 'Page 1 of 1', 'nobody: no page follows, page 1 of 1 (not of 3 above a Submit)';
is_deeply $p->{buttons}, ['submit'], 'now with Submit';
$p = post_page($p, nav => 'submit', answers => [[kind => 'none']]);
like $p->{html}, qr{Sorry you cannot come\.}, 'stored from page 1, with its ending\'s message';
is_deeply rows($fid)->[2], { kind => 'none' }, 'with the one answer';
is psql("SELECT string_agg(coalesce(ending, '-'), ',' ORDER BY id) FROM submissions WHERE form_id = '$fid'"),
   'low,-,nobody', 'the endings reached, none for the second';

# ---- 4. agents: the schema says the path, a JSON post is held to it --------------
my $v = api(GET => "/f/$fid", headers => { Accept => 'application/json' })->{json};
ok $v->{schema}{'$defs'}{page1} && $v->{schema}{'$defs'}{page2}, 'the schema defines which answers reach pages 2 and 3';
my $j = api(POST => "/f/$fid", body => { kind => 'solo', lead => 'Ann', stars => 5 });
is $j->code, 422, 'a JSON answer of a jumped-over page: 422';
is $j->{json}{errors}[0]{pointer}, '/lead', 'at the member';
is $j->{json}{errors}[0]{code}, 'unknown', 'which does not apply';
$j = api(POST => "/f/$fid", body => { kind => 'solo', stars => 1 });
is $j->code, 422, 'requiredIf over JSON: 422';
is $j->{json}{errors}[0]{pointer}, '/why', 'at the member required';
is $j->{json}{errors}[0]{code}, 'required', 'required';
$j = api(POST => "/f/$fid", body => { kind => 'team', size => 2, lead => 'Bo', stars => 4 });
is $j->code, 201, 'a team with every page answered: 201';
ok !exists $j->{json}{ending}, 'no ending reached: no ending member';
$j = api(POST => "/f/$fid", body => 'kind=team&size=12&lead=Cy&stars=5',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
is $j->code, 303, 'a big team posted from a page: 303';
is $j->header('Location'), 'https://big.example.org/welcome', 'to the ending\'s redirectUrl';
like $j->header('Content-Security-Policy'), qr{form-action \S+ https://big\.example\.org;},
     'which form-action allows';
my $sub = api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data}[0];
is $sub->{ending}, 'big', 'the owner\'s API says the ending';
my $ev = api(GET => "/v1/events?limit=100", token => $tok)->{json}{data};
my ($created) = grep { $_->{type} eq 'submission.created' && $_->{data}{id} eq $sub->{id} } @$ev;
is $created->{data}{ending}, 'big', 'so does the submission.created event (and its webhooks)';
my $csv = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' })->content;
like((split /\r?\n/, $csv)[0], qr{,endingKey$}, 'the CSV export has an endingKey column');
like($csv, qr{\n$sub->{id},[^\n]*,big\r?\n}, 'with the ending of each submission');
$j = api(POST => "/f/$fid", body => { kind => 'solo', stars => 1, why => 'x' });
is $j->{json}{ending}, 'low', 'a JSON answer names its ending';
my $t = api(GET => "/f/$fid/thanks?ending=low", headers => { Accept => 'application/json' })->{json};
is $t->{message}, 'Sorry it was not better.', 'the thanks page of an ending';
$t = api(GET => "/f/$fid/thanks?ending=zzz", headers => { Accept => 'application/json' })->{json};
is $t->{message}, 'Thanks, logically.', 'an unknown ending: the form\'s own message';
$j = api(POST => "/f/$fid", body => { kind => 'team', size => 2, stars => 4 });
is $j->code, 422, 'a team without the lead of page 2: 422';
is $j->{json}{errors}[0]{pointer}, '/lead', 'the lead is required on the path';
is scalar @{ rows($fid) }, 6, 'the rows stored, and only those';

# ---- 5. definitions refused, with pointers -----------------------------------------
my $base = "/v1/forms/$fid/fields";
sub errs { my $r = shift; +{ map { $_->{pointer} => $_->{code} } @{ $r->{json}{errors} || [] } } }
my @ok = map { { %$_ } } @fields;
my $e = errs(api(PUT => $base, token => $tok, body => { fields => [ @ok,
    { key => 'gt_text', type => 'text', label => 'G', visibleIf => { field => 'lead', op => 'gt', value => 3 } },
    { key => 'later', type => 'text', label => 'L', requiredIf => { any => [{ field => 'zz_late', op => 'answered' }] } },
    { key => 'zz_late', type => 'text', label => 'Z' },
    { key => 'nope', type => 'text', label => 'N', visibleIf => { not => { field => 'missing', op => 'answered' } } },
    { key => 'mval', type => 'text', label => 'M', visibleIf => { field => 'kind', op => 'in', value => ['solo', 'duo'] } },
] }));
is $e->{'/fields/8/visibleIf/op'}, 'enum', 'gt on a text field';
is $e->{'/fields/9/requiredIf/any/0/field'}, 'enum', 'a field defined later';
is $e->{'/fields/11/visibleIf/not/field'}, 'enum', 'a field that does not exist';
is $e->{'/fields/12/visibleIf/value/1'}, 'type', 'a value the select cannot take';
# what a condition is made of is checked first, each item on its own
$e = errs(api(PUT => $base, token => $tok, body => { fields => [ @ok,
    { key => 'deep', type => 'text', label => 'D', visibleIf => { not => { not => { not => { not => { not => { field => 'kind', op => 'answered' } } } } } } },
    { key => 'badop', type => 'text', label => 'B', visibleIf => { field => 'kind', op => 'about', value => 1 } },
    { key => 'noval', type => 'text', label => 'V', requiredIf => { field => 'kind', op => 'equals' } },
] }));
is $e->{'/fields/8/visibleIf/not/not/not/not/not'}, 'maxItems', 'nesting beyond four levels';
is $e->{'/fields/9/visibleIf/op'}, 'enum', 'an unknown operator';
is $e->{'/fields/10/requiredIf/value'}, 'required', 'an operator without its value';
my $sp = "/v1/forms/$fid";
$e = errs(api(PATCH => $sp, token => $tok, body => { settings => { logic => [
    { from => 'p_last', then => { goTo => 'p_team' } } ] } }));
is $e->{'/settings/logic/0/then/goTo'}, 'enum', 'goTo backwards (a possible loop)';
$e = errs(api(PATCH => $sp, token => $tok, body => { settings => { logic => [
    { from => 'p_start', then => { goTo => 'p_gone' } } ] } }));
is $e->{'/settings/logic/0/then/goTo'}, 'enum', 'goTo a page that does not exist';
$e = errs(api(PATCH => $sp, token => $tok, body => { settings => { logic => [
    { from => 'p_start', then => { goTo => 'p_last' } } ] } }));
is $e->{'/settings/logic'}, 'enum', 'a page no path reaches';
$e = errs(api(PATCH => $sp, token => $tok, body => { settings => { logic => [
    { from => 'p_start', when => { field => 'lead', op => 'answered' }, then => { goTo => 'p_last' } } ] } }));
is $e->{'/settings/logic/0/when'}, 'enum', 'a condition on a later page\'s question';
$e = errs(api(PATCH => $sp, token => $tok, body => { settings => { logic => [
    { when => { field => 'kind', op => 'lt', value => 1 }, then => { goTo => 'end' } } ] } }));
is $e->{'/settings/logic/0/when/op'}, 'enum', 'lt on a select';
$e = errs(api(PATCH => $sp, token => $tok, body => { settings => { endings => [
    { key => 'a', message => 'A' }, { key => 'a', when => { field => 'nope', op => 'answered' } },
    { key => 'c', when => { field => 'stars', op => 'contains', value => 'x' }, redirectUrl => 'javascript:x' } ] } }));
is $e->{'/settings/endings/0/when'}, 'required', 'a default ending that is not the last';
is $e->{'/settings/endings/1/key'}, 'unique', 'two endings with one key';
is $e->{'/settings/endings/2/redirectUrl'}, 'format', 'an ending\'s redirectUrl as settings.redirectUrl';
$e = errs(api(PATCH => $sp, token => $tok, body => { settings => { endings => [
    { key => 'c', when => { field => 'stars', op => 'contains', value => 'x' } } ] } }));
is $e->{'/settings/endings/0/when/op'}, 'enum', 'an ending\'s condition with an operator its field cannot take';
my $r = api(DELETE => "$base/$f->{fields}[6]{id}", token => $tok);
is $r->code, 409, 'deleting a field a requiredIf names: 409';
like $r->{json}{detail}, qr/requiredIf of field "why"/, 'which says who depends on it';

done_testing;
