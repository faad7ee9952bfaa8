# Submissions, the owner's side: list (paged, since/until, spam), CSV
# export (RFC 4180, neutralised formulas, streamed in batches), get and
# delete one, authorization. Submissions are inserted through SQL until the
# public endpoint exists.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;

my ($tok) = signup();
my ($other) = signup();
my $form = make_form($tok, { title => 'Orders', fields => [
    { key => 'name', type => 'text', label => 'Name' },
    { key => 'qty', type => 'integer', label => 'Quantity' },
    { key => 'tags', type => 'multiselect', label => 'Tags', options => ['a', 'b', "c\x{e9}"] },
    { key => 'ok', type => 'boolean', label => 'OK' },
] });
my $fid = $form->{id};
my $base = "/v1/forms/$fid/submissions";
my $oform = make_form($other, { title => 'Theirs', fields => [{ key => 'x', type => 'text', label => 'X' }] });

my $s1 = insert_submission($fid, { name => 'Ada', qty => 1, tags => ['a', 'b'], ok => JSON::PP::true }, created => '2026-01-01T10:00:00Z');
my $s2 = insert_submission($fid, { name => '=HYPERLINK("http://evil")', qty => -3, tags => [] }, created => '2026-02-01T10:00:00Z');
my $s3 = insert_submission($fid, { name => "Line\nbreak, \"quoted\"", qty => 2, tags => ["c\x{e9}"] }, created => '2026-03-01T10:00:00Z');
my $sp = insert_submission($fid, { name => 'spammer' }, spam => 1, created => '2026-03-02T10:00:00Z');
my $so = insert_submission($oform->{id}, { x => 'theirs' });

# ---- list ----
my $r = api(GET => $base, token => $tok);
is $r->code, 200, 'list 200';
is_deeply [map { $_->{id} } @{ $r->{json}{data} }], [$s3, $s2, $s1], 'newest first, spam left out';
my $one = $r->{json}{data}[2];
is_deeply [sort keys %$one], [sort qw(id formId formVersion data spam createdAt status tags note version updatedAt)],
    'submission members (the owner\'s state: status, tags, note, version, updatedAt)';
is $one->{formId}, $fid, 'formId';
is $one->{formVersion}, 1, 'formVersion';
is $one->{createdAt}, '2026-01-01T10:00:00.000Z', 'createdAt';
is_deeply $one->{data}{tags}, ['a', 'b'], 'data';
is api(GET => "/v1/forms/$fid", token => $tok)->{json}{submissionCount}, 3, 'submissionCount counts non-spam';
$r = api(GET => "$base?spam=true", token => $tok);
is scalar @{ $r->{json}{data} }, 4, 'spam=true includes spam';
is $r->{json}{data}[0]{spam}, JSON::PP::true, 'spam flag';
problem_ok(api(GET => "$base?spam=maybe", token => $tok), 422, 'validation-failed', 'bad spam value');
$r = api(GET => "$base?since=2026-01-15T00:00:00Z&until=2026-03-01T10:00:00Z", token => $tok);
is_deeply [map { $_->{id} } @{ $r->{json}{data} }], [$s2], 'since inclusive, until exclusive';
$r = api(GET => "$base?since=2026-01-01T11:00:00%2B01:00", token => $tok);
is scalar @{ $r->{json}{data} }, 3, 'offsets honoured';
$r = api(GET => "$base?since=yesterday&until=2026-13-01T00:00:00Z", token => $tok);
problem_ok($r, 422, 'validation-failed', 'bad timestamps');
my %e = map { ($_->{pointer} => $_->{code}) } @{ $r->{json}{errors} };
is $e{'/since'}, 'format', 'since pointer';
is $e{'/until'}, 'format', 'until pointer';
$r = api(GET => "$base?limit=2", token => $tok);
is scalar @{ $r->{json}{data} }, 2, 'page of 2';
like $r->header('Link'), qr/limit=2.*cursor=/, 'Link to the next page';
$r = api(GET => "$base?limit=2&cursor=$r->{json}{nextCursor}", token => $tok);
is_deeply [map { $_->{id} } @{ $r->{json}{data} }], [$s1], 'second page';
problem_ok(api(GET => "$base?limit=101", token => $tok), 422, 'validation-failed', 'limit 101');
problem_ok(api(GET => "$base?cursor=Zm9ybXM6ZnJtXzAx", token => $tok), 400, 'malformed-request', 'cursor of another list');

# ---- get one / delete one ----
$r = api(GET => "$base/$s1", token => $tok);
is $r->code, 200, 'get one';
is $r->{json}{id}, $s1, 'the submission';
is uni(api(GET => "$base/$s3", token => $tok)->{json}{data}{tags}[0]), "c\x{e9}", 'unicode data';
is api(GET => "$base/$sp", token => $tok)->{json}{spam}, JSON::PP::true, 'a spam submission by id';
my $missing = api(GET => "$base/" . fresh_id('sub_'), token => $tok);
problem_ok($missing, 404, 'not-found', 'unknown submission');
my $mixed = api(GET => "$base/$so", token => $tok);
problem_ok($mixed, 404, 'not-found', "my form with another account's submission id");
# (but for the path and each answer's own requestId)
is $mixed->content =~ s/"requestId":"[^"]*"//r,
    $missing->content =~ s/\Q${\ $missing->{json}{instance}}\E/$mixed->{json}{instance}/r =~ s/"requestId":"[^"]*"//r,
    'identical to a missing one';
problem_ok(api(GET => "/v1/forms/$oform->{id}/submissions/$s1", token => $tok), 404, 'not-found', "another account's form with my submission id");
problem_ok(api(GET => "/v1/forms/$oform->{id}/submissions", token => $tok), 404, 'not-found', "another account's form: list");
problem_ok(api(GET => "/v1/forms/$oform->{id}/submissions/$so", token => $tok), 404, 'not-found', "another account's submission");
problem_ok(api(GET => "$base/frm_$s1", token => $tok), 404, 'not-found', 'wrong prefix');
problem_ok(api(GET => "$base/" . ($s1 =~ s/^sub_./sub_U/r), token => $tok), 404, "not-found", "id with a letter outside the alphabet");
problem_ok(api(GET => '/v1/forms/' . fresh_id('frm_') . "/submissions/$s1", token => $tok), 404, 'not-found', 'unknown form');
problem_ok(api(DELETE => "$base/$so", token => $tok), 404, 'not-found', "delete another account's submission");
is psql("SELECT count(*) FROM submissions WHERE id = '$so'"), '1', 'still there';
is api(DELETE => "$base/$s2", token => $tok)->code, 204, 'delete 204';
problem_ok(api(GET => "$base/$s2", token => $tok), 404, 'not-found', 'gone');
problem_ok(api(DELETE => "$base/$s2", token => $tok), 404, 'not-found', 'delete twice');
is api(GET => "/v1/forms/$fid", token => $tok)->{json}{submissionCount}, 2, 'submissionCount drops';
is api(DELETE => "$base/$sp", token => $tok)->code, 204, 'delete spam';
is api(GET => "/v1/forms/$fid", token => $tok)->{json}{submissionCount}, 2, 'spam did not count';
$s2 = insert_submission($fid, { name => '=HYPERLINK("http://evil")', qty => -3, tags => [], extra => 'old key' }, created => '2026-02-01T10:00:00Z');
insert_submission($fid, { name => '+1', tags => ['a'] }, created => '2026-02-02T10:00:00Z');
insert_submission($fid, { name => '@SUM(A1)', ok => JSON::PP::false }, created => '2026-02-03T10:00:00Z');
insert_submission($fid, { name => '-2+3' }, created => '2026-02-04T10:00:00Z');
insert_submission($fid, { name => 'spam=1' }, spam => 1, created => '2026-02-05T10:00:00Z');

# ---- CSV ----
$r = api(GET => $base, token => $tok, headers => { Accept => 'text/csv' });
is $r->code, 200, 'CSV 200';
like $r->header('Content-Type'), qr{^text/csv; charset=utf-8}, 'text/csv';
like $r->header('Content-Disposition'), qr/attachment; filename="$fid-submissions.csv"/, 'attachment';
my $csv = $r->content;
my @lines = split /\r\n/, $csv, -1;
is pop(@lines), '', 'rows end with CRLF';
is $lines[0], 'id,createdAt,formVersion,name,qty,tags,ok', 'header: one column per field key';
is scalar @lines, 7, 'header + 6 non-spam rows (the quoted line break is inside a cell)';
like $csv, qr/\Q"'=HYPERLINK(""http:\/\/evil"")"\E/, 'formula neutralised and quotes doubled';
like $csv, qr/,'\+1,/, '+ neutralised';
like $csv, qr/,'\@SUM\(A1\),/, '@ neutralised';
like $csv, qr/,'-2\+3,/, '- neutralised';
like $csv, qr/,-3,/, 'a negative number stays a number';
like $csv, qr/"Line\nbreak, ""quoted"""/, 'line break, comma and quotes quoted';
like $csv, qr/,"a; b",true\r\n/, 'multiselect joined (quoted: ; separates in some locales), boolean';
like $csv, qr/,false\r\n/, 'false';
like $csv, qr/c\xC3\xA9/, 'UTF-8 bytes';
unlike $csv, qr/old key|spam=1/, 'unknown keys and spam are not exported';
$r = api(GET => "$base?spam=true&since=2026-02-01T00:00:00Z&until=2026-02-06T00:00:00Z", token => $tok, headers => { Accept => 'text/csv' });
@lines = split /\r\n/, $r->content;
is $lines[0], 'id,createdAt,formVersion,spam,name,qty,tags,ok', 'spam column with ?spam=true';
is scalar @lines, 6, 'filters apply to CSV';
like $r->content, qr/,true,'?spam=1/, 'spam row';
# negotiation
is api(GET => $base, token => $tok, headers => { Accept => 'text/csv;q=0.5, application/json' })->header('Content-Type'), 'application/json', 'q-values: JSON preferred';
like api(GET => $base, token => $tok, headers => { Accept => 'application/json;q=0.1, text/*' })->header('Content-Type'), qr{^text/csv}, 'text/* picks CSV';
is api(GET => $base, token => $tok, headers => { Accept => '*/*' })->header('Content-Type'), 'application/json', '*/* gives JSON';
problem_ok(api(GET => $base, token => $tok, headers => { Accept => 'image/png' }), 406, 'not-acceptable', 'nothing acceptable 406');
problem_ok(api(GET => $base, token => $tok, headers => { Accept => 'text/csv;q=0, application/json;q=0' }), 406, 'not-acceptable', 'q=0 everywhere 406');
problem_ok(api(GET => "/v1/forms/$oform->{id}/submissions", token => $tok, headers => { Accept => 'text/csv' }), 404, 'not-found', "CSV of another account's form");
# ';' first and formulas after a line break are neutralised too
my $inj = make_form($tok, { title => 'Inj', fields => [{ key => 't', type => 'text', label => 'T' }] });
insert_submission($inj->{id}, { t => ";=1+1" }, created => '2026-03-01T10:00:00Z');
insert_submission($inj->{id}, { t => "fine\n=cmd|' /C calc'!A0" }, created => '2026-03-02T10:00:00Z');
insert_submission($inj->{id}, { t => "fine\r\n  \@SUM(A1)" }, created => '2026-03-03T10:00:00Z');
$csv = api(GET => "/v1/forms/$inj->{id}/submissions", token => $tok, headers => { Accept => 'text/csv' })->content;
like $csv, qr/,"';=1\+1"\r\n/, '; at the start neutralised and quoted';
like $csv, qr/,"fine\n'=cmd/, 'formula after LF neutralised';
like $csv, qr/,"fine\r\n  '\@SUM\(A1\)"\r\n/, 'formula after CRLF and blanks neutralised';
unlike $csv, qr/[\r\n][ \t]*[=+\-\@;]/, 'no line of the file starts with a formula trigger';
# a large export goes out in batches
my $big = make_form($tok, { title => 'Big', fields => [{ key => 'n', type => 'integer', label => 'N' }] });
psql("INSERT INTO submissions (id, form_id, user_id, form_version, data) "
   . "SELECT 'sub_' || lpad(g::text, 26, '0'), f.id, f.user_id, 1, jsonb_build_object('n', g) "
   . "FROM forms f, generate_series(1, 1234) g WHERE f.id = '$big->{id}'");
$r = api(GET => "/v1/forms/$big->{id}/submissions", token => $tok, headers => { Accept => 'text/csv' });
@lines = split /\r\n/, $r->content;
is scalar @lines, 1235, 'all 1234 rows (3 batches) and the header';
my %seen = map { ((split /,/)[3] => 1) } @lines[1 .. $#lines];
is scalar keys %seen, 1234, 'each row once';

# ---- scopes and form: constraints ----
my $fr = api(POST => '/v1/keys', token => $tok, body => { name => 'fr', scopes => ['forms:read'] })->{json}{secret};
problem_ok(api(GET => $base, token => $fr), 403, 'insufficient-scope', 'forms:read cannot list submissions');
my $sr = api(POST => '/v1/keys', token => $tok, body => { name => 'sr', scopes => ['submissions:read'] })->{json}{secret};
is api(GET => $base, token => $sr)->code, 200, 'submissions:read lists';
is api(GET => "$base/$s1", token => $sr)->code, 200, 'submissions:read gets one';
problem_ok(api(DELETE => "$base/$s1", token => $sr), 403, 'insufficient-scope', 'submissions:read cannot delete');
my $sw = api(POST => '/v1/keys', token => $tok, body => { name => 'sw', scopes => ['submissions:write', "form:$big->{id}"] })->{json}{secret};
problem_ok(api(GET => $base, token => $sw), 404, 'not-found', 'constrained key: other form submissions 404');
problem_ok(api(DELETE => "$base/$s1", token => $sw), 404, 'not-found', 'constrained key: cannot delete elsewhere');
is api(GET => "/v1/forms/$big->{id}/submissions?limit=1", token => $sw)->code, 200, 'constrained key reads its form';
is api(DELETE => "/v1/forms/$big->{id}/submissions/sub_" . ('0' x 25) . '1', token => $sw)->code, 204, 'constrained key deletes in its form';
problem_ok(api(GET => $base), 401, 'unauthorized', 'no credential');
problem_ok(api(POST => $base, token => $tok, body => {}), 405, 'method-not-allowed', 'POST on the owner list 405');

done_testing;
