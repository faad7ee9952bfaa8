# Public forms: /f/{id} and /f/{slug}: negotiation, the JSON view and its
# schema, the HTML page, submissions in three content types, and every bad
# input answered with its problem document.
use strict;
use warnings;
use utf8;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest qw(:DEFAULT clear_of_boundary);
use PublicTest;
use JSON::PP ();

my $J = JSON::PP->new->canonical;
my $XSS = q{<script>alert('x')</script>"&};

my @fields = (
    { id => 'fld_1', key => 'name', type => 'text', label => 'Your name', required => JSON::PP::true,
      description => 'As on your passport', placeholder => 'Ada', position => 0,
      validation => { maxLength => 20 } },
    { id => 'fld_2', key => 'email', type => 'email', label => 'E-mail', position => 1 },
    { id => 'fld_3', key => 'age', type => 'integer', label => 'Age', position => 2,
      validation => { minimum => 18, maximum => 130 } },
    { id => 'fld_4', key => 'size', type => 'select', label => 'Size', position => 3,
      options => [ { value => 's', label => 'Small' }, { value => 'm', label => 'Medium' } ] },
    { id => 'fld_5', key => 'topics', type => 'multiselect', label => 'Topics', position => 4,
      options => [ map { { value => $_, label => uc $_ } } qw(a b c) ],
      validation => { maxItems => 2 } },
    { id => 'fld_6', key => 'consent', type => 'boolean', label => 'I agree', position => 5,
      required => JSON::PP::true },
    { id => 'fld_7', key => 'news', type => 'boolean', label => 'Newsletter', position => 6 },
    { id => 'fld_8', key => 'day', type => 'date', label => 'Day', position => 7 },
    { id => 'fld_9', key => 'site', type => 'url', label => 'Site', position => 8 },
    { id => 'fld_10', key => 'stars', type => 'rating', label => 'Stars', position => 9 },
    { id => 'fld_11', key => 'ref', type => 'hidden', position => 10 },
    { id => 'fld_12', key => 'why', type => 'textarea', label => 'Why medium?', position => 11,
      visibleIf => { field => 'size', equals => 'm' } },
);
my $slug = 'survey-' . $$ . '-' . time;
my $fid = make_form(fields => \@fields, slug => $slug, title => 'Survey', description => 'Tell us',
                    settings => { confirmationMessage => "Thanks $XSS" });
my $url = form_url($fid);

# ---- GET: negotiation, JSON view, schema --------------------------------
my $r = req(GET => $url, headers => { Accept => 'application/json' });
is $r->code, 200, 'JSON view 200';
is $r->header('Content-Type'), 'application/json', 'as application/json';
like $r->header('Vary') // '', qr/Accept/, 'Vary: Accept';
is $r->header('Access-Control-Allow-Origin'), '*', 'CORS on the JSON view';
ok my $etag = $r->header('ETag'), 'ETag';
my $v = $r->{json};
is $v->{id}, $fid, 'view id';
is $v->{slug}, $slug, 'view slug';
is $v->{status}, 'published', 'view status';
is scalar @{ $v->{fields} }, 12, 'fields';
is $v->{submit}{method}, 'POST', 'submit method';
is $v->{submit}{action}, base_url() . "/f/$fid", 'submit action is absolute';
is_deeply $v->{submit}{contentTypes},
    ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'], 'content types';
is $v->{submit}{idempotencyKeyHeader}, 'Idempotency-Key', 'the view names the Idempotency-Key header';
like $v->{submit}{description}, qr/Idempotency-Key.*503.*never stores the submission twice/s,
    'the view tells agents that a keyed retry after a 503 is safe';
is $v->{schema}{'$schema'}, 'https://json-schema.org/draft/2020-12/schema', 'schema dialect';
ok !$v->{schema}{additionalProperties}, 'additionalProperties false';
is_deeply [sort @{ $v->{schema}{required} }], ['consent', 'name'], 'schema required';
is_deeply $v->{schema}{properties}{size}{enum}, ['s', 'm'], 'select as enum';
is $v->{schema}{properties}{day}{format}, 'date', 'date format';
ok $v->{schema}{allOf}[0]{if}, 'visibleIf as if/then';

$r = req(GET => $url, headers => { Accept => 'application/json', 'If-None-Match' => $etag });
is $r->code, 304, 'If-None-Match: 304';
$r = req(GET => "/api/f/$slug", headers => { Accept => 'application/json;q=0.9, text/html;q=0.1' });
is $r->{json}{id}, $fid, 'by slug, q-values honoured';
$r = req(GET => $url, headers => { Accept => 'image/png' });
is $r->code, 406, 'nothing acceptable: 406';
is $r->{json}{type}, base_url() . '/problems/not-acceptable', '406 problem';
$r = req(HEAD => $url, headers => { Accept => 'application/json' });
is $r->code, 200, 'HEAD 200';
is $r->content, '', 'HEAD has no body';

# ---- GET: the page ------------------------------------------------------
$r = req(GET => "$url?ref=" . 'news%22%3Cb%3E', headers => { Accept => 'text/html,*/*;q=0.8' });
is $r->code, 200, 'page 200';
like $r->header('Content-Type'), qr{^text/html; charset=utf-8}, 'text/html';
my $csp = $r->header('Content-Security-Policy') // '';
like $csp, qr/default-src 'none'/, 'CSP default-src none';
like $csp, qr/form-action http/, 'CSP form-action';
like $csp, qr/frame-ancestors 'none'/, 'CSP frame-ancestors';
like $csp, qr/style-src 'sha256-/, 'inline style allowed by hash only';
is $r->header('X-Content-Type-Options'), 'nosniff', 'nosniff';
is $r->header('Referrer-Policy'), 'no-referrer', 'Referrer-Policy';
like $r->header('Vary') // '', qr/Accept/, 'page Vary: Accept';
is $r->header('Cache-Control'), 'no-cache', 'page Cache-Control: no-cache';
my $html = $r->content;
unlike $html, qr/<script/i, 'no script';
unlike $html, qr/\b(?:src|href)="https?:/, 'no external assets';
like $html, qr/<label for="f-name">Your name <span class="req">\(required\)<\/span><\/label>/, 'label bound, required marked';
like $html, qr/<p class="help" id="f-name-help">As on your passport<\/p>/, 'help text';
like $html, qr/type="email" id="f-email"/, 'email input';
like $html, qr/type="date" id="f-day"/, 'date input';
like $html, qr/type="checkbox" id="f-topics-0"/, 'multiselect as checkboxes';
like $html, qr/type="radio" id="f-stars-4"/, 'rating as radios';
like $html, qr/<input type="hidden" name="ref" value="news&quot;&lt;b&gt;">/, 'hidden field from the query string, escaped';
like $html, qr/Answer only if/, 'conditional question explained';
like $html, qr/name="viewport"/, 'viewport for small screens';
like $html, qr/action="\Q@{[base_url()]}\E\/f\/$fid"/, 'posts to the form';

# the page carries a one-time submission token: no ETag, so that a browser
# never revalidates it into a page it kept, whose token may be used
ok !defined $r->header('ETag'), 'the page has no ETag';
$r = req(GET => "$url?ref=" . 'news%22%3Cb%3E', headers => { Accept => 'text/html', 'If-None-Match' => $etag });
is $r->code, 200, 'the page asked with the view\'s ETag: 200, a fresh page';
$r = req(HEAD => $url);
is $r->code, 200, 'HEAD page 200';
is $r->content, '', 'HEAD page has no body';
like $r->header('Content-Type'), qr{text/html}, 'HEAD page type';
$r = req(GET => $url, headers => { Accept => 'text/html;q=0, */*' });
is $r->header('Content-Type'), 'application/json', 'text/html;q=0 refuses the page';
$r = req(GET => "$url/thanks", headers => { Accept => 'application/json' });
is $r->{json}{formId}, $fid, 'thanks as JSON';

# ---- drafts and unknown forms --------------------------------------------
my $draft = make_form(fields => \@fields, status => 'draft');
is req(GET => form_url($draft), headers => { Accept => 'application/json' })->code, 404, 'draft 404';
is req(GET => form_url($draft))->code, 404, 'draft page 404';
is req(POST => form_url($draft), body => '{}', type => 'application/json')->code, 404, 'draft POST 404';
is req(GET => form_url('frm_00000000000000000000000000'))->code, 404, 'unknown 404';
is req(GET => form_url('x' x 300))->code, 404, 'long ref 404';
# a person who follows a wrong or dead address reads a page, not JSON
{
    my %browser = (Accept => 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
                   'Accept-Language' => 'de-CH, de;q=0.9, en;q=0.5');
    for my $c ([form_url('frm_00000000000000000000000000'), 'an unknown form'], [form_url($draft), 'a draft'],
               [form_url('frm_00000000000000000000000000') . '/thanks', "an unknown form's thanks page"]) {
        my $p = req(GET => $c->[0], headers => \%browser);
        is $p->code, 404, "$c->[1] in a browser: 404";
        like $p->header('Content-Type'), qr{^text/html}, '  as a page';
        like $p->decoded_content, qr/<html lang="de" dir="ltr">.*Formular nicht gefunden.*Prüfen Sie den Link/s,
             '  in the browser\'s language, saying what to do';
    }
}
my $gone = make_form(fields => \@fields);
psql("DELETE FROM forms WHERE id = '$gone'");
$r = req(GET => form_url($gone), headers => { Accept => 'application/json' });
is $r->code, 404, 'deleted 404';
is $r->{json}{type}, base_url() . '/problems/not-found', 'deleted: not-found problem';

# ---- POST JSON ------------------------------------------------------------
my %good = (name => 'Ada', consent => JSON::PP::true, size => 'm', why => 'fits',
            topics => ['a', 'c'], age => 36, email => 'ada@example.com', day => '2024-02-29',
            site => 'https://example.com/x', stars => 5, news => JSON::PP::false);
$r = req(POST => "$url?dryRun=true", body => $J->encode(\%good), type => 'application/json');
is $r->code, 200, 'dryRun 200';
is_deeply $r->{json}, { valid => JSON::PP::true }, 'dryRun answer';
is count_subs($fid), 0, 'dryRun stores nothing';

$r = req(POST => $url, body => $J->encode(\%good), type => 'application/json');
is $r->code, 201, 'JSON submission 201';
like $r->{json}{id}, qr/^sub_/, 'submission id';
is $r->{json}{formId}, $fid, 'formId';
like $r->{json}{createdAt}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'createdAt';
is_deeply $r->{json}{data}, \%good, 'data as sent';
is $r->header('Access-Control-Allow-Origin'), '*', 'CORS on JSON posts';
like $r->header('Location') // '', qr{/v1/forms/$fid/submissions/sub_}, 'Location';
is count_subs($fid), 1, 'stored';
is psql("SELECT fs_form_count('$fid')"), 1, 'submission_count incremented';

# every kind of wrong value, all reported at once, nothing stored
my %bad = (name => 'x' x 21, email => 'ada@example', age => 17, size => 'xl',
           topics => ['a', 'a'], consent => JSON::PP::false, news => 'yes', day => '2026-02-30',
           site => 'javascript:alert(1)', stars => 6, why => 'not asked', bogus => 1);
$r = req(POST => $url, body => $J->encode(\%bad), type => 'application/json');
is $r->code, 422, 'bad values 422';
is $r->{json}{type}, base_url() . '/problems/validation-failed', 'validation-failed';
my %got = map { ($_->{pointer} => $_->{code}) } @{ $r->{json}{errors} };
is_deeply \%got, { '/name' => 'maxLength', '/email' => 'format', '/age' => 'minimum',
                   '/size' => 'enum', '/topics/1' => 'unique', '/consent' => 'required',
                   '/news' => 'type', '/day' => 'format', '/site' => 'format',
                   '/stars' => 'maximum', '/why' => 'unknown', '/bogus' => 'unknown' },
    'every failing member, with pointer and code';
$r = req(POST => $url, body => '{}', type => 'application/json');
is_deeply [sort map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} }],
    ['/consent required', '/name required'], 'missing required';
$r = req(POST => $url, body => $J->encode({ %good, topics => ['a', 'b', 'c'], age => 1.5,
                                            email => 'ada@exa mple.com', stars => 0 }),
         type => 'application/json');
%got = map { ($_->{pointer} => $_->{code}) } @{ $r->{json}{errors} };
is_deeply \%got, { '/topics' => 'maxItems', '/age' => 'type', '/email' => 'format',
                   '/stars' => 'minimum' }, 'more wrong values';
for my $case (['{"name": "a\u0000b"}', 'NUL escape'], ["{\"name\": \"a\xff\"}", 'invalid UTF-8'],
              ['{"name": "a"', 'truncated JSON'], ['[1]', 'top-level array'],
              ['{"a":1,"a":2}', 'duplicate member'], ['', 'empty body']) {
    $r = req(POST => $url, body => $case->[0], type => 'application/json');
    is $r->code, 400, "$case->[1]: 400";
    is $r->{json}{type}, base_url() . '/problems/malformed-request', "$case->[1]: malformed-request";
}
$r = req(POST => $url, body => 'name=x', type => 'text/plain');
is $r->code, 415, 'text/plain: 415';
$r = req(POST => $url, body => '{}', type => 'application/json; charset=latin1');
is $r->code, 415, 'non-UTF-8 JSON: 415';
$r = req(POST => $url, body => '{"name":"' . ('x' x (10 * 1024 * 1024)) . '"}', type => 'application/json');
is $r->code, 413, '10 MB body: 413';
is $r->{json}{type}, base_url() . '/problems/payload-too-large', 'payload-too-large';
$r = req(POST => "$url?dryRun=maybe", body => '{}', type => 'application/json');
is $r->code, 400, 'bad dryRun 400';
is count_subs($fid), 1, 'nothing stored for bad input';

# ---- POST urlencoded: the HTML respondent ----------------------------------
$r = req(POST => "$url", type => 'application/x-www-form-urlencoded',
         body => 'name=Grace&consent=true&size=s&topics=a&topics=b&age=85&stars=4&day=2026-11-21'
               . '&email=&ref=newsletter&_hp=',
         headers => { Accept => 'text/html' });
is $r->code, 303, 'HTML post: 303';
is $r->header('Location'), base_url() . "/f/$fid/thanks", 'to the thanks page';
my $data = $J->decode(psql("SELECT data FROM submissions WHERE form_id = '$fid' ORDER BY id DESC LIMIT 1"));
is_deeply $data, { name => 'Grace', consent => JSON::PP::true, size => 's', topics => ['a', 'b'],
                   age => 85, stars => 4, day => '2026-11-21', ref => 'newsletter',
                   news => JSON::PP::false },
    'strings coerced: integers, booleans (unticked: false), lists; empty means unanswered';
$r = req(GET => "$url/thanks");
is $r->code, 200, 'thanks page';
like $r->content, qr/Thanks &lt;script&gt;alert\(&#39;x&#39;\)&lt;\/script&gt;&quot;&amp;/, 'confirmation message escaped';

$r = req(POST => $url, type => 'application/x-www-form-urlencoded',
         body => 'name=%3Cscript%3Ealert(1)%3C%2Fscript%3E' . ('x' x 30) . '&age=abc&email=a%40b&size=m'
               . '&why=%22%3E%3Cimg+src%3Dx%3E',
         headers => { Accept => 'text/html' });
is $r->code, 422, 'HTML post with errors: 422';
like $r->header('Content-Type'), qr{text/html}, 'the page again';
$html = $r->content;
like $html, qr/class="summary" role="alert"/, 'error summary';
like $html, qr/<a href="#f-age">/, 'summary links to the field';
like $html, qr/<input type="text" id="f-age"/, "a number the browser could not show goes back as text";
like $html, qr/id="f-age" name="age" value="abc" aria-invalid="true" aria-describedby="f-age-err"/,
    'typed value kept, aria-invalid, aria-describedby';
like $html, qr/<p class="err" id="f-consent-err">/, 'error beside the field';
unlike $html, qr/<script|<img/, 'echoed values escaped';
like $html, qr/value="&lt;script&gt;alert\(1\)&lt;\/script&gt;x/, 'injection kept as text';
like $html, qr/&quot;&gt;&lt;img src=x&gt;<\/textarea>/, 'textarea value kept and escaped';
like $r->header('Content-Security-Policy') // '', qr/default-src 'none'/, 'CSP on the error page';
$r = req(POST => $url, type => 'application/x-www-form-urlencoded', body => 'name=a%zz',
         headers => { Accept => 'text/html' });
is $r->code, 400, 'broken urlencoded: 400';
$r = req(POST => $url, type => 'application/x-www-form-urlencoded', body => 'name=%FF',
         headers => { Accept => 'text/html' });
is $r->code, 400, 'urlencoded invalid UTF-8: 400';
$r = req(POST => $url, type => 'application/x-www-form-urlencoded', body => 'name=a%00b');
is $r->code, 400, 'urlencoded NUL: 400';
$r = req(POST => $url, type => 'application/x-www-form-urlencoded',
         body => 'name=Al&consent=on&size=s&why=hidden+answer&nosuch=1', headers => { Accept => 'application/json' });
is_deeply [sort map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} }],
    ['/nosuch unknown', '/why unknown'], 'form post: unknown names and questions that do not apply';
# a form post that prefers JSON gets JSON
$r = req(POST => $url, type => 'application/x-www-form-urlencoded', body => 'name=a',
         headers => { Accept => 'application/json' });
is $r->code, 422, 'form post preferring JSON: 422';
is $r->{json}{errors}[0]{pointer}, '/consent', 'as problem+json';

# ---- POST multipart --------------------------------------------------------
sub mp {
    my ($b, @kv) = @_;
    my $s = '';
    while (my ($k, $v) = splice @kv, 0, 2) {
        $s .= "--$b\r\nContent-Disposition: form-data; name=\"$k\"\r\n\r\n$v\r\n";
    }
    return "$s--$b--\r\n";
}
my $n0 = count_subs($fid);
$r = req(POST => $url, type => 'multipart/form-data; boundary=ZZ9',
         body => mp('ZZ9', name => 'Katherine', consent => 'on', topics => 'c', stars => '3'));
is $r->code, 303, 'multipart: 303';
is count_subs($fid), $n0 + 1, 'multipart stored';
$data = $J->decode(psql("SELECT data FROM submissions WHERE form_id = '$fid' ORDER BY id DESC LIMIT 1"));
is_deeply $data, { name => 'Katherine', consent => JSON::PP::true, topics => ['c'], stars => 3,
                   news => JSON::PP::false }, 'multipart coerced like urlencoded';
$r = req(POST => $url, type => 'multipart/form-data; boundary=ZZ9', body => mp('ZZ9', name => 'x'),
         headers => { Accept => 'text/html' });
is $r->code, 422, 'multipart with errors: 422 page';
for my $case (
    ['multipart/form-data', mp('ZZ9', name => 'x'), 'missing boundary'],
    ['multipart/form-data; boundary=ZZ9', "--ZZ9\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx", 'truncated part'],
    ['multipart/form-data; boundary=ZZ9', "--ZZ9\r\nX-Big: " . ('a' x 20000) . "\r\n\r\nx\r\n--ZZ9--", 'huge part headers'],
    ['multipart/form-data; boundary=ZZ9', "--ZZ9\r\nContent-Disposition: form-data\r\n\r\nx\r\n--ZZ9--", 'part without name'],
    ['multipart/form-data; boundary=ZZ9', "--ZZ9\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\nx\r\n--ZZ9--", 'file part'],
    ['multipart/form-data; boundary=ZZ9', "--ZZ9\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n\xff\r\n--ZZ9--", 'invalid UTF-8 part'],
    ['multipart/form-data; boundary=ZZ9', "no delimiter here", 'no delimiter'],
) {
    $r = req(POST => $url, type => $case->[0], body => $case->[1]);
    is $r->code, 400, "multipart $case->[2]: 400";
    is $r->{json}{type}, base_url() . '/problems/malformed-request', "multipart $case->[2]: problem";
}
is count_subs($fid), $n0 + 1, 'nothing stored for broken multipart';

# ---- honeypot --------------------------------------------------------------
my $before = psql("SELECT fs_form_count('$fid')");
$r = req(POST => $url, type => 'application/x-www-form-urlencoded',
         body => 'name=Bot&consent=on&_hp=http%3A%2F%2Fspam.example');
is $r->code, 303, 'honeypot: answered as a success';
is count_subs($fid, 'spam'), 1, 'stored flagged spam';
is psql("SELECT fs_form_count('$fid')"), $before, 'spam not counted';

# ---- redirectUrl -------------------------------------------------------------
my $redir = make_form(fields => [ { key => 'q', type => 'text' } ],
                      settings => { redirectUrl => 'https://example.org/done' });
$r = req(POST => form_url($redir), type => 'application/x-www-form-urlencoded', body => 'q=1');
is $r->code, 303, 'redirectUrl: 303';
is $r->header('Location'), 'https://example.org/done', 'to redirectUrl';
$r = req(GET => form_url($redir));
like $r->header('Content-Security-Policy'), qr{form-action \S+ https://example\.org}, 'form-action allows the redirect';

# a redirectUrl stored before the rule was tightened never reaches the CSP
for my $bad ('https://evil.example;script-src *', 'https://evil.example,https://x.example', 'https://evil.example?a;b') {
    my $legacy = make_form(fields => [ { key => 'q', type => 'text' } ], settings => { redirectUrl => $bad });
    $r = req(GET => form_url($legacy));
    my $policy = $r->header('Content-Security-Policy') // '';
    like $policy, qr/^default-src 'none'; style-src [^;,]+; form-action [^;,]+; frame-ancestors 'none'; base-uri 'none'$/,
        "CSP keeps its shape with redirectUrl $bad";
    unlike $policy, qr/evil|script-src|x\.example/, 'nothing of the bad redirectUrl in the policy';
    $r = req(POST => form_url($legacy), type => 'application/x-www-form-urlencoded', body => 'q=1');
    is $r->code, 303, 'submission still accepted';
    like $r->header('Location'), qr{/f/\Q$legacy\E/thanks$}, 'sent to the thanks page, not the bad URL';
}
$r = req(GET => form_url(make_form(fields => [ { key => 'q', type => 'text' } ],
                                   settings => { redirectUrl => 'https://Example.ORG:8443?next=1' })));
like $r->header('Content-Security-Policy'), qr{form-action \S+ https://example\.org:8443;}, 'origin without a path: scheme, host and port only';

# ---- closed and auto-closed ------------------------------------------------
my $closed = make_form(fields => [ { key => 'q', type => 'text' } ], status => 'closed');
$r = req(GET => form_url($closed), headers => { Accept => 'application/json' });
is $r->{json}{status}, 'closed', 'closed: JSON view says so';
ok exists $r->{json}{slug} && !defined $r->{json}{slug}, 'no slug: null';
ok exists $r->{json}{description} && !defined $r->{json}{description}, 'no description: null';
$r = req(GET => form_url($closed));
like $r->content, qr/This form is closed/, 'closed: the page says so';
unlike $r->content, qr/<form/, 'closed: no form';
$r = req(POST => form_url($closed), body => '{"q":"x"}', type => 'application/json');
is $r->code, 409, 'closed: 409';
is $r->{json}{type}, base_url() . '/problems/form-closed', 'form-closed problem';
$r = req(POST => form_url($closed), body => 'q=x', type => 'application/x-www-form-urlencoded');
is $r->code, 409, 'closed HTML post: 409';
like $r->content, qr/This form is closed/, 'closed HTML post: a page that says so';

my $max1 = make_form(fields => [ { key => 'q', type => 'text' } ], settings => { maxSubmissions => 1 });
is req(POST => form_url($max1), body => '{"q":"1"}', type => 'application/json',
       headers => { 'Idempotency-Key' => "max-$$" })->code, 201, 'maxSubmissions: first';
$r = req(POST => form_url($max1), body => '{"q":"2"}', type => 'application/json');
is $r->code, 409, 'maxSubmissions reached: 409 form-closed';
is req(GET => form_url($max1), headers => { Accept => 'application/json' })->{json}{status}, 'closed',
    'auto-closed shows as closed';
$r = req(POST => form_url($max1), body => '{"q":"1"}', type => 'application/json',
         headers => { 'Idempotency-Key' => "max-$$" });
is $r->code, 201, 'a retry of the first submission is still answered after the form closed';
is $r->header('Idempotent-Replayed'), 'true', '(as a replay)';
is count_subs($max1), 1, 'and stores nothing';
my $past = make_form(fields => [ { key => 'q', type => 'text' } ],
                     settings => { closesAt => '2020-01-01T00:00:00Z' });
is req(POST => form_url($past), body => '{"q":"1"}', type => 'application/json')->code, 409, 'closesAt passed: 409';
is count_subs($past), 0, 'nothing stored after closesAt';

# ---- Idempotency-Key --------------------------------------------------------
my $idf = make_form(fields => [ { key => 'q', type => 'text' } ]);
my %ik = (headers => { 'Idempotency-Key' => "k-$$" }, type => 'application/json');
my $r1 = req(POST => form_url($idf), body => '{"q":"once"}', %ik);
my $r2 = req(POST => form_url($idf), body => '{"q":"once"}', %ik);
is $r1->code, 201, 'idempotent: first 201';
is $r2->code, 201, 'idempotent: replay 201';
is $r2->header('Idempotent-Replayed'), 'true', 'Idempotent-Replayed';
is_deeply $r2->{json}, $r1->{json}, 'the first response again';
is count_subs($idf), 1, 'stored once';
$r = req(POST => form_url($idf), body => '{"q":"other"}', %ik);
is $r->code, 422, 'same key, different body: 422';
$r = req(POST => form_url($idf), body => '{"q":"x"}', type => 'application/json',
         headers => { 'Idempotency-Key' => 'has space' });
is $r->code, 400, 'malformed Idempotency-Key: 400';
my $h1 = req(POST => form_url($idf), body => 'q=html', type => 'application/x-www-form-urlencoded',
             headers => { 'Idempotency-Key' => "h-$$" });
my $h2 = req(POST => form_url($idf), body => 'q=html', type => 'application/x-www-form-urlencoded',
             headers => { 'Idempotency-Key' => "h-$$" });
is $h2->code, 303, 'HTML replay: 303';
is $h2->header('Idempotent-Replayed'), 'true', 'HTML replay flagged';
is count_subs($idf), 2, 'HTML post stored once';

# ---- CORS preflight ---------------------------------------------------------
$r = req(OPTIONS => $url, headers => { Origin => 'https://app.example',
                                       'Access-Control-Request-Method' => 'POST',
                                       'Access-Control-Request-Headers' => 'content-type' });
is $r->code, 204, 'preflight 204';
is $r->header('Access-Control-Allow-Origin'), '*', 'preflight origin';
like $r->header('Access-Control-Allow-Methods'), qr/POST/, 'preflight methods';
like $r->header('Access-Control-Allow-Headers'), qr/Content-Type/i, 'preflight headers';
$r = req(PUT => $url, body => '{}', type => 'application/json');
is $r->code, 405, 'PUT: 405';

# ---- script injection in every owner string -----------------------------------
my $evil = make_form(title => $XSS, description => $XSS,
    fields => [ { key => 'a', type => 'text', label => $XSS, description => $XSS, placeholder => $XSS,
                  required => JSON::PP::true },
                { key => 'b', type => 'select', label => $XSS,
                  options => [ { value => $XSS, label => $XSS } ] },
                { key => 'c', type => 'textarea', label => 'c', visibleIf => { field => 'b', equals => $XSS } } ]);
$r = req(GET => form_url($evil));
unlike $r->content, qr/<script|alert\('x'\)/, 'owner strings escaped on the page';
like $r->content, qr/&lt;script&gt;alert\(&#39;x&#39;\)/, 'shown as text';
$r = req(POST => form_url($evil), body => 'b=' . 'x', type => 'application/x-www-form-urlencoded');
unlike $r->content, qr/<script/, 'owner strings escaped on the error page';

# ---- rate limit (30 a minute per address per form) --------------------------
my $rl = make_form(fields => [ { key => 'q', type => 'text' } ]);
# the windows are aligned to the clock: the 30 and the posts after them
# within one (CI once crossed into the next between the 31st and the 32nd)
clear_of_boundary(60, 30);
my @codes = map { req(POST => form_url($rl) . '?dryRun=true', body => '{}', type => 'application/json')->code } 1 .. 30;
is_deeply [grep { $_ != 200 } @codes], [], '30 in a minute are fine';
$r = req(POST => form_url($rl), body => '{"q":"x"}', type => 'application/json');
is $r->code, 429, 'the 31st: 429';
is $r->{json}{type}, base_url() . '/problems/rate-limited', 'rate-limited problem';
ok $r->header('Retry-After') >= 1, 'Retry-After';
ok $r->{json}{retryAfter} >= 1, 'retryAfter';
is count_subs($rl), 0, 'nothing stored when limited';
$r = req(POST => form_url($rl), body => 'q=x', type => 'application/x-www-form-urlencoded');
is $r->code, 429, 'HTML post limited: 429';
like $r->content, qr/value="x"/, 'HTML respondent keeps what was typed';
# a multipart post is limited before its body is read (none is sent here:
# the answer comes at once, the connection is closed)
$r = req(POST => form_url($rl), headers => { Accept => 'application/json',
         'Content-Type' => 'multipart/form-data; boundary=ZZ9', 'Content-Length' => 5_000_000 });
is $r->code, 429, 'multipart limited before the body: 429';
is $r->{json}{type}, base_url() . '/problems/rate-limited', 'rate-limited problem';
is req(POST => form_url($fid), body => $J->encode(\%good), type => 'application/json')->code, 201,
    'other forms are not limited';

# ---- the owner's monthly submission quota -------------------------------------
{
    my (undef, $acct) = signup();
    my $quid = $acct->{user}{id};
    my $qf = make_form(fields => [ { key => 'q', type => 'text' } ], user => $quid);
    psql("INSERT INTO submission_months (user_id, month, received) VALUES ('$quid', "
         . "(date_trunc('month', now() AT TIME ZONE 'UTC'))::date, 99)");
    is req(POST => form_url($qf), body => '{"q":"100th"}', type => 'application/json')->code, 201,
        'the 100th submission of the month';
    $r = req(POST => form_url($qf), body => '{"q":"101st"}', type => 'application/json');
    is $r->code, 429, 'over the monthly quota: 429';
    is $r->{json}{type}, base_url() . '/problems/rate-limited', 'rate-limited';
    ok $r->{json}{retryAfter} > 0 && $r->{json}{retryAfter} <= 31 * 86400, 'retryAfter until the month ends';
    is $r->header('Retry-After'), $r->{json}{retryAfter}, 'Retry-After header too';
    is count_subs($qf), 1, 'nothing stored over the quota';
    is req(POST => form_url($qf), body => 'q=x&_hp=bot', type => 'application/x-www-form-urlencoded')->code,
        303, 'spam does not count against the quota (and is still stored)';
    is count_subs($qf, 'spam'), 1, 'spam stored';
}

done_testing;
