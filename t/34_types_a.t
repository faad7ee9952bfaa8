# The question types scale, matrix, ranking and consent, and the Other
# answer of select and multiselect (allowOther): definitions kept as sent
# and refused with a pointer to the member at fault; the published JSON
# Schema; JSON posts held to it; the HTML page posted as a browser without
# script posts it (urlencoded, redirects followed), refused answers shown
# again with the person's answers kept and the message; the stored row;
# the CSV's columns (one per matrix row); insights of a scale and a
# consent.
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
use URI::Escape qw(uri_escape_utf8);

my $J = JSON::PP->new->canonical;
my $T = JSON::PP::true;
my $F = JSON::PP::false;
my ($tok) = signup();
my $r;

my @fields = (
    { key => 'nps', type => 'scale', label => 'Would you recommend us?', required => $T,
      from => 0, to => 10, minLabel => 'Not at all', maxLabel => 'Certainly' },
    { key => 'grid', type => 'matrix', label => 'How was it?', required => $T,
      rows => [{ key => 'speed', label => 'Speed' }, { key => 'price', label => 'Price' }],
      columns => [{ value => 'good', label => 'Good' }, { value => 'bad', label => 'Bad' }] },
    { key => 'days', type => 'matrix', label => 'When can you come?', multiple => $T,
      rows => [{ key => 'mon', label => 'Monday' }, { key => 'tue', label => 'Tuesday' }],
      columns => [{ value => 'am', label => 'Morning' }, { value => 'pm', label => 'Afternoon' }] },
    { key => 'order', type => 'ranking', label => 'Rank these', options => ['tea', 'coffee', 'water'] },
    { key => 'terms', type => 'consent', label => 'I agree to the terms',
      text => 'The terms of the club', url => 'https://example.org/terms?a=1&b=2' },
    { key => 'color', type => 'select', label => 'Colour', allowOther => $T, options => ['red', 'blue'] },
    { key => 'pets', type => 'multiselect', label => 'Pets', allowOther => $T, options => ['cat', 'dog'] },
);
my $f = make_form($tok, { title => 'Types', fields => \@fields });
my $fid = $f->{id};
my %by = map { $_->{key} => $_ } @{ $f->{fields} };
is_deeply [@{ $by{nps} }{qw(from to minLabel maxLabel)}], [0, 10, 'Not at all', 'Certainly'], 'a scale keeps from, to and its end labels';
is_deeply $by{grid}{rows}, $fields[1]{rows}, 'a matrix its rows';
is_deeply $by{grid}{columns}, $fields[1]{columns}, 'and columns';
ok !$by{grid}{multiple} && $by{days}{multiple}, 'multiple is false unless said';
is_deeply [map { $_->{value} } @{ $by{order}{options} }], ['tea', 'coffee', 'water'], 'a ranking its options';
ok $by{terms}{required}, 'a consent is required without saying so';
is $by{terms}{url}, 'https://example.org/terms?a=1&b=2', 'with its link';
ok $by{color}{allowOther} && $by{pets}{allowOther}, 'allowOther is kept';
ok !exists $by{nps}{allowOther}, 'and only where given';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

# ---- definitions refused, with the pointer to the member at fault -----------------
my @refused = (
    [{ key => 'a', type => 'scale', label => 'A', from => 5, to => 5 }, '/fields/0/to', 'a scale needs to above from'],
    [{ key => 'a', type => 'scale', label => 'A', from => 0, to => 30 }, '/fields/0/to', 'at most 21 steps'],
    [{ key => 'a', type => 'scale', label => 'A', from => 1.5 }, '/fields/0/from', 'from is an integer'],
    [{ key => 'a', type => 'matrix', label => 'A', columns => [{ value => 'x' }] }, '/fields/0/rows', 'a matrix needs rows'],
    [{ key => 'a', type => 'matrix', label => 'A', rows => [{ key => 'R', label => 'R' }], columns => [{ value => 'x' }] },
     '/fields/0/rows/0/key', 'row keys are keys'],
    [{ key => 'a', type => 'matrix', label => 'A', rows => [{ key => 'r', label => 'R' }],
       columns => [{ value => 'x' }, { value => 'x' }] }, '/fields/0/columns/1/value', 'column values unique'],
    [{ key => 'a', type => 'ranking', label => 'A', options => ['x'] }, '/fields/0/options', 'a ranking of one option'],
    [{ key => 'a', type => 'ranking', label => 'A' }, '/fields/0/options', 'a ranking without options'],
    [{ key => 'a', type => 'consent', label => 'A' }, '/fields/0/text', 'a consent needs its text'],
    [{ key => 'a', type => 'consent', label => 'A', text => 'T', url => 'http://example.org/' }, '/fields/0/url', 'https only'],
    [{ key => 'a', type => 'consent', label => 'A', text => 'T', url => 'https://x.org/"><script>' }, '/fields/0/url', 'no quotes'],
    [{ key => 'a', type => 'consent', label => 'A', text => 'T', required => $F }, '/fields/0/required', 'a consent is always required'],
    [{ key => 'a', type => 'text', label => 'A', allowOther => $T }, '/fields/0/allowOther', 'allowOther on a text field'],
    [{ key => 'a', type => 'select', label => 'A', allowOther => $T, options => ['__other__'] }, '/fields/0/options/0/value',
     'the Other choice\'s value is reserved'],
    [{ key => 'a', type => 'text', label => 'A', rows => [] }, '/fields/0/rows', 'rows on a text field'],
    [{ key => 'a', type => 'scale', label => 'A', placeholder => 'x' }, '/fields/0/placeholder', 'no placeholder'],
);
for my $c (@refused) {
    my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'Bad', fields => [$c->[0]] });
    is $r->code, 422, "422: $c->[2]";
    is_deeply [map { $_->{pointer} } @{ $r->{json}{errors} || [] }], [$c->[1]], "  at $c->[1]" or diag $r->content;
}

# conditions: a scale compares as a number, a consent as a boolean, a
# matrix only by being answered
my $c = make_form($tok, { title => 'Conditions', fields => [
    { key => 'nps', type => 'scale', label => 'NPS', from => 0, to => 10 },
    { key => 'why', type => 'text', label => 'Why', requiredIf => { field => 'nps', op => 'lt', value => 7 } },
    { key => 'm', type => 'matrix', label => 'M', rows => [{ key => 'a', label => 'A' }], columns => [{ value => 'x' }] },
    { key => 'more', type => 'text', label => 'More', visibleIf => { field => 'm', op => 'answered' } },
    { key => 'ok', type => 'consent', label => 'OK', text => 'T' },
    { key => 'thanks', type => 'text', label => 'Thanks', visibleIf => { field => 'ok', op => 'equals', value => $T } } ] });
ok $c->{id}, 'conditions on a scale (lt), a matrix (answered) and a consent (equals) are taken';
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Bad', fields => [
    { key => 'nps', type => 'scale', label => 'NPS', from => 0, to => 10 },
    { key => 'why', type => 'text', label => 'Why', visibleIf => { field => 'nps', op => 'equals', value => 11 } }] });
is_deeply [map { $_->{pointer} } @{ $r->{json}{errors} || [] }], ['/fields/1/visibleIf/value'], 'a value a scale cannot take: 422';
is api(POST => "/v1/forms/$c->{id}/publish", token => $tok)->code, 200, 'published';
$r = api(POST => "/f/$c->{id}", body => { nps => 3, ok => $T });
is_deeply [map { [$_->{pointer}, $_->{code}] } @{ $r->{json}{errors} || [] }], [['/why', 'required']], 'a low score requires why';
is api(POST => "/f/$c->{id}", body => { nps => 9, ok => $T, m => { a => 'x' }, more => 'y', thanks => 'z' })->code, 201,
   'a high score does not; the matrix answered and the consent given show their questions';

# ---- the schema agents get ---------------------------------------------------------
my $s = api(GET => "/f/$fid", headers => { Accept => 'application/json' })->{json}{schema};
is_deeply [@{ $s->{properties}{nps} }{qw(type minimum maximum)}], ['integer', 0, 10], 'scale: an integer from..to';
is_deeply $s->{properties}{grid}{required}, ['speed', 'price'], 'a required matrix: every row';
is $s->{properties}{grid}{additionalProperties}, $F, 'and no other member';
is_deeply $s->{properties}{days}{properties}{mon}{items}{enum}, ['am', 'pm'], 'multiple: a list of columns per row';
is_deeply [@{ $s->{properties}{order} }{qw(minItems maxItems uniqueItems)}], [3, 3, $T], 'ranking: every option once';
is $s->{properties}{terms}{const}, $T, 'consent: const true';
is $s->{properties}{color}{anyOf}[1]{properties}{other}{maxLength}, 200, 'other: an object {other} of bounded length';
is $s->{properties}{pets}{maxContains}, 1, 'at most one in a multiselect';

# ---- JSON posts ----------------------------------------------------------------------
my %good = (nps => 9, grid => { speed => 'good', price => 'bad' }, terms => $T);
$r = api(POST => "/f/$fid", body => { %good, order => ['water', 'tea', 'coffee'],
                                         color => { other => 'green' }, pets => ['cat', { other => 'newt' }],
                                         days => { mon => ['am', 'pm'] } });
is $r->code, 201, 'every type answered: 201' or diag $r->content;
my @bad = (
    [{ %good, nps => 11 }, '/nps', 'maximum'],
    [{ %good, grid => { speed => 'good' } }, '/grid', 'required'],
    [{ %good, grid => { speed => 'good', price => 'so-so' } }, '/grid/price', 'enum'],
    [{ %good, grid => { speed => 'good', price => 'bad', taste => 'good' } }, '/grid/taste', 'unknown'],
    [{ %good, order => ['tea', 'tea', 'coffee'] }, '/order/1', 'unique'],
    [{ %good, order => ['tea', 'coffee'] }, '/order', 'minItems'],
    [{ %good, terms => $F }, '/terms', 'required'],
    [{ %good, color => { other => '' } }, '/color/other', 'minLength'],
    [{ %good, color => { other => 'x' x 201 } }, '/color/other', 'maxLength'],
    [{ %good, pets => [{ other => 'a' }, { other => 'b' }] }, '/pets', 'maxContains'],
    [{ %good, days => { mon => [] } }, '/days/mon', 'minItems'],
);
for my $c (@bad) {
    my $r = api(POST => "/f/$fid", body => $c->[0]);
    is $r->code, 422, "422 at $c->[1]";
    is_deeply [map { [$_->{pointer}, $_->{code}] } @{ $r->{json}{errors} || [] }], [[$c->[1], $c->[2]]], "  $c->[2]"
        or diag $r->content;
}

# ---- the page, as a browser without script ---------------------------------------------
sub ua {
    my $ua = Apache::TestRequest::user_agent(reset => 1);
    $ua->requests_redirectable(['GET', 'HEAD', 'POST']);
    $ua->max_redirect(5);
    return $ua;
}
sub post_form {
    my @pairs = @_;
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$fid"));
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html');
    $req->content($body);
    return ua()->request($req);
}
my $page = ua()->get(Apache::TestRequest::resolve_url(BASE . "/f/$fid"), Accept => 'text/html');
my $html = $page->decoded_content;
like $html, qr{<fieldset class="q" id="q-nps"><legend>Would you recommend us\?}, 'a scale is a group with a legend';
like $html, qr{name="nps" value="0"[^>]*><label for="f-nps-0">0 \(Not at all\)</label>}, 'its radios, the ends labelled';
like $html, qr{name="nps" value="10"[^>]*><label for="f-nps-10">10 \(Certainly\)</label>}, 'both ends';
like $html, qr{<table class="mx">.*<th scope="row">Speed</th>}s, 'a matrix is a table with a header per row';
like $html, qr{type="radio" id="f-grid-0" name="grid\.speed" value="good" required aria-label="Speed: Good"}, 'each cell named by row and column';
like $html, qr{type="checkbox" id="f-days-0" name="days\.mon" value="am" aria-label="Monday: Morning"}, 'checkboxes for multiple';
like $html, qr{<label for="f-order-2">Place 3</label><select id="f-order-2" name="order">}, 'a ranking: a select per place';
like $html, qr{<a href="https://example\.org/terms\?a=1&amp;b=2">The terms of the club</a>}, 'consent: the linked text, escaped';
like $html, qr{<input type="checkbox" id="f-terms" name="terms" value="true" required aria-describedby="f-terms-text">}, 'and its box, described by the text';
like $html, qr{<option value="__other__">Other</option></select>}, 'a select with its Other choice';
like $html, qr{<label class="other" for="f-color-other">Other answer to “Colour”</label><input type="text" id="f-color-other" name="color\.other" value="" maxlength="200">},
     'and the text input for it';
like $html, qr{name="pets" value="__other__"}, 'a multiselect with an Other box';

# refused: a place given twice, a row left out, consent not ticked; the
# answers come back as given
my $res = post_form([nps => '7'], ['grid.speed' => 'good'], [order => 'tea'], [order => 'tea'], [order => 'water'],
                    [color => '__other__'], ['color.other' => 'teal'], ['pets.other' => 'newt'], ['days.tue' => 'pm']);
is $res->code, 422, 'a refused post: 422';
$html = $res->decoded_content;
like $html, qr{id="f-grid-err">Error: How was it\?: answer every row\.}, 'the matrix says every row';
like $html, qr{id="f-order-err">Error: Rank these: a choice is given more than once\.}, 'the ranking says a place is given twice';
like $html, qr{id="f-terms-err">Error: I agree to the terms is required\.}, 'the consent is required';
like $html, qr{name="terms" value="true" required aria-invalid="true" aria-describedby="f-terms-text f-terms-err">},
     'its box described by the text and the error';
like $html, qr{name="nps" value="7" checked}, 'the scale answer kept';
like $html, qr{name="grid\.speed" value="good" checked}, 'the matrix cell kept';
like $html, qr{name="days\.tue" value="pm" checked}, 'a checkbox cell kept';
like $html, qr{<select id="f-order-2" name="order"[^>]*><option value="">[^<]*</option><option value="tea">tea</option><option value="coffee">coffee</option><option value="water" selected>},
     'the ranking kept place by place';
like $html, qr{<option value="__other__" selected>Other</option>}, 'the Other choice kept';
like $html, qr{name="color\.other" value="teal"}, 'with its text';
like $html, qr{name="color\.other" value="teal" maxlength="200">}, 'not marked invalid: its answer is fine';
like $html, qr{name="pets" value="__other__" checked}, 'text typed without the Other box ticks it';
like $html, qr{name="pets\.other" value="newt"}, 'and is kept';

$res = post_form([nps => '7'], ['grid.speed' => 'good'], ['grid.price' => 'bad'], [order => 'coffee'], [order => 'tea'],
                 [order => 'water'], [terms => 'true'], [color => '__other__'], ['color.other' => ''], [pets => 'dog']);
is $res->code, 422, 'Other chosen, nothing typed: 422';
like $res->decoded_content, qr{id="f-color-err">Error: Colour: say what your other answer is\.}, 'say what';
like $res->decoded_content, qr{<li><a href="#f-color-other">Colour: say what}, 'the summary links to the text input';
like $res->decoded_content,
     qr{<input type="text" id="f-color-other" name="color\.other" value="" maxlength="200" aria-invalid="true" aria-describedby="f-color-err">},
     'which has that id, is invalid and is described by the error';

$res = post_form([nps => '7'], ['grid.speed' => 'good'], ['grid.price' => 'bad'], [order => 'tea'], [order => 'coffee'],
                 [order => 'water'], [terms => 'true'], [color => '__other__'], ['color.other' => 'teal'],
                 [pets => 'dog'], [pets => '__other__'], ['pets.other' => 'newt'], ['days.mon' => 'am'], ['days.mon' => 'pm']);
my $first = $res; $first = $first->previous while $first->previous;
is $first->code, 303, 'a good post: 303';
like $res->request->uri, qr{/f/$fid/thanks}, 'followed to the thanks page';
my $row = $J->decode(psql("SELECT data::text FROM submissions WHERE form_id = '$fid' ORDER BY id DESC LIMIT 1"));
is_deeply $row, { nps => 7, grid => { speed => 'good', price => 'bad' }, order => ['tea', 'coffee', 'water'],
                  terms => $T, color => { other => 'teal' }, pets => ['dog', { other => 'newt' }],
                  days => { mon => ['am', 'pm'] } }, 'stored as the JSON post would be';

# ---- CSV: a column per matrix row ---------------------------------------------------------
my $csv = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' });
is $csv->code, 200, 'CSV export';
my @lines = split /\r\n/, $csv->content;
is $lines[0], 'id,createdAt,formVersion,nps,grid.speed,grid.price,days.mon,days.tue,order,terms,color,pets',
   'a column per matrix row, one per other question';
like $lines[1], qr{,7,good,bad,"am; pm",,"tea; coffee; water",true,"\{""other"":""teal""\}","dog; \{""other"":""newt""\}"$},
     'the cells: a row\'s answer, a ranking in order, an other answer as JSON';

# the XLSX export has the same columns (read back with python3-openpyxl)
my $x = api(GET => "/v1/forms/$fid/submissions", token => $tok,
            headers => { Accept => 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
is $x->code, 200, 'XLSX export';
{
    require File::Temp;
    my ($fh, $file) = File::Temp::tempfile(SUFFIX => '.xlsx', UNLINK => 1);
    binmode $fh; print $fh $x->content; close $fh;
    my $py = 'import json,sys,openpyxl; ws=openpyxl.load_workbook(sys.argv[1],read_only=True).worksheets[0]; '
           . 'print(json.dumps([[c.value for c in r] for r in ws.iter_rows(max_row=2)]))';
    my $rows = $J->decode(`/usr/bin/python3 -c '$py' $file`);
    is join(',', @{ $rows->[0] }), $lines[0], 'its header row is the CSV\'s: a column per matrix row';
    is_deeply [@{ $rows->[1] }[3 .. 8]], [7, 'good', 'bad', 'am; pm', undef, 'tea; coffee; water'],
        'and the cells of the newest submission';
}

# ---- insights: a scale's figures, a consent's count ---------------------------------------
my $ins;
ok wait_for(sub {
    $ins = api(GET => "/v1/forms/$fid/insights", token => $tok)->{json};
    my ($q) = grep { $_->{key} eq 'nps' } @{ $ins->{questions} || [] };
    $q && ($q->{answered} // 0) == 2;
}, 20, 'the insights to count both submissions'), 'the insights count both submissions';
my %q = map { $_->{key} => $_ } @{ $ins->{questions} };
is_deeply $q{nps}{histogram}, [{ value => 7, count => 1 }, { value => 9, count => 1 }], 'a scale\'s histogram';
is $q{nps}{mean}, 8, 'and mean';
is_deeply $q{terms}{options}, [{ value => $T, count => 2 }, { value => $F, count => 0 }], 'a consent\'s count';
is_deeply $q{grid}{rows}, [{ key => 'speed', label => 'Speed', options => [{ value => 'good', count => 2 }, { value => 'bad', count => 0 }] },
                           { key => 'price', label => 'Price', options => [{ value => 'good', count => 0 }, { value => 'bad', count => 2 }] }],
    'a matrix: each row\'s columns counted';
is_deeply $q{days}{rows}[0]{options}, [{ value => 'am', count => 2 }, { value => 'pm', count => 2 }], 'each value of a row of several';
is_deeply $q{days}{rows}[1]{options}, [{ value => 'am', count => 0 }, { value => 'pm', count => 0 }], 'a row not answered: zeros';
is_deeply $q{order}{options}, [{ value => 'tea', count => 2, meanPlace => 1.5 }, { value => 'coffee', count => 2, meanPlace => 2.5 },
                               { value => 'water', count => 2, meanPlace => 2 }], 'a ranking: each option\'s mean place';
is $q{grid}{answered}, 2, 'answered, as any question';

# ---- a form of two pages: a matrix on the first, a ranking on the second --------
my $pf = make_form($tok, { title => 'Two pages', fields => [
    { key => 'p1', type => 'page', label => 'One' },
    { key => 'g', type => 'matrix', label => 'G', required => $T, rows => [{ key => 'a', label => 'A' }],
      columns => [{ value => 'x' }, { value => 'y' }] },
    { key => 'p2', type => 'page', label => 'Two' },
    { key => 'r', type => 'ranking', label => 'R', options => ['m', 'n'] } ] });
is api(POST => "/v1/forms/$pf->{id}/publish", token => $tok)->code, 200, 'a form of two pages';
sub post_to {
    my ($fid2, @pairs) = @_;
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$fid2"));
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html');
    $req->content($body);
    return ua()->request($req);
}
$res = post_to($pf->{id}, ['g.a' => 'y'], [_nav => 'next']);
my ($state) = $res->decoded_content =~ /name="_state" value="([^"]+)"/;
ok $state && $res->decoded_content =~ /name="r"/, 'Next: page 2, the matrix kept in the state' or diag $res->decoded_content;
$res = post_to($pf->{id}, [_state => $state =~ s/&amp;/&/gr], [r => 'n'], [r => 'm'], [_nav => 'submit']);
like $res->request->uri, qr{/thanks}, 'Submit: thanks';
is_deeply $J->decode(psql("SELECT data::text FROM submissions WHERE form_id = '$pf->{id}'")),
    { g => { a => 'y' }, r => ['n', 'm'] }, 'stored: the matrix of page 1, the ranking of page 2';

done_testing;
