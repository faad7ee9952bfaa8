# File fields: the type and its validation, JSON bodies with
# files in base64 (stored in the submission's transaction, checked by
# magic bytes), the owner's download (streamed, attachment, nosniff,
# sandbox), the metadata in submission JSON and events, and the schema.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();
use MIME::Base64 qw(encode_base64);
use Digest::SHA qw(sha256_hex);

my $J = JSON::PP->new->utf8->canonical;
my ($tok) = signup();
my ($other) = signup();

# ---- the type and its validation -----------------------------------------
my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'Bad', fields => [
    { key => 'a', type => 'file', label => 'A', validation => { maxSize => 0 } },
    { key => 'b', type => 'file', label => 'B', validation => { accept => ['png'] } },
    { key => 'c', type => 'file', label => 'C', validation => { maxFiles => 99 } },
    { key => 'd', type => 'file', label => 'D', validation => { maxLength => 3 } },
    { key => 'e', type => 'text', label => 'E', validation => { maxSize => 3 } },
] });
is $r->code, 422, 'bad file validation: 422';
my %ptr = map { $_->{pointer} => 1 } @{ $r->{json}{errors} || [] };
ok $ptr{"/fields/$_/validation/" . (qw(maxSize accept/0 maxFiles maxLength maxSize))[$_]}, "error at field $_"
    for 0 .. 4;

my $PNG = "\x89PNG\r\n\x1a\n" . ("\0" x 100) . 'IEND';
my $PDF = "%PDF-1.4\n" . ('x' x 5000) . "\n%%EOF";
my $form = make_form($tok, { title => 'Jobs', fields => [
    { key => 'name', type => 'text', label => 'Name', required => JSON::PP::true },
    { key => 'photo', type => 'file', label => 'Photo', validation => { accept => ['image/png', 'image/jpeg'], maxSize => 2000 } },
    { key => 'docs', type => 'file', label => 'Documents', validation => { accept => ['application/pdf', '.csv'], maxFiles => 2 } },
] });
my $fid = $form->{id};
is $form->{fields}[1]{type}, 'file', 'type file kept';
is_deeply $form->{fields}[1]{validation}, { accept => ['image/png', 'image/jpeg'], maxSize => 2000 }, 'validation kept';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

# ---- the JSON view: schema ---------------------------------------------
$r = api(GET => "/f/$fid", headers => { Accept => 'application/json' });
my $ps = $r->{json}{schema}{properties}{photo};
is $ps->{anyOf}[0]{properties}{data}{contentEncoding}, 'base64', 'schema: contentEncoding base64';
is $ps->{anyOf}[0]{properties}{data}{maxLength}, 2668, 'schema: data maxLength from maxSize';
is $ps->{anyOf}[1]{maxItems}, 1, 'schema: maxFiles';
is $r->{json}{schema}{properties}{docs}{anyOf}[1]{maxItems}, 2, 'schema: maxFiles 2';

# ---- JSON with base64 ---------------------------------------------------
sub file_of { my ($name, $type, $bytes) = @_; { name => $name, type => $type, data => encode_base64($bytes, '') } }
my $body = { name => 'Ada', photo => file_of('me.png', 'image/png', $PNG),
             docs => [ file_of('cv.pdf', 'application/pdf', $PDF), file_of('../../x;"y.csv', 'text/csv', "a,b\n1,2\n") ] };
$r = api(POST => "/f/$fid", body => $J->encode($body));
is $r->code, 201, 'JSON with files: 201' or diag $r->content;
my $sub = $r->{json};
my $sid = $sub->{id};
is ref $sub->{data}{photo}, 'ARRAY', 'file value: an array of metadata';
my $m = $sub->{data}{photo}[0];
is_deeply [sort keys %$m], [qw(id name sha256 size type url)], 'metadata members';
is $m->{name}, 'me.png', 'name';
is $m->{type}, 'image/png', 'type';
is $m->{size}, length $PNG, 'size';
is $m->{sha256}, sha256_hex($PNG), 'sha256';
like $m->{url}, qr{/v1/forms/$fid/submissions/$sid/files/fil_\w+$}, 'url';
is scalar @{ $sub->{data}{docs} }, 2, 'two documents';
is $sub->{data}{docs}[1]{name}, 'x__y.csv', 'file name sanitised (path, quote, semicolon)';
unlike $J->encode($sub), qr/\Q@{[ encode_base64($PDF, '') ]}\E/, 'no content in the submission';
is FormsTest::psql("SELECT count(*) FROM submission_files WHERE submission_id = '$sid'"), 3, 'three file rows';

# owner: submission JSON and the event carry metadata
$r = api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok);
is $r->{json}{data}{photo}[0]{sha256}, sha256_hex($PNG), 'GET submission: metadata';
my $ev = FormsTest::psql("SELECT payload::text FROM events WHERE submission_id = '$sid'");
like $ev, qr/"sha256"/, 'event payload: metadata';
unlike $ev, qr/"data": *"[A-Za-z0-9+\/]{40}/, 'event payload: no content';

# MCP: get_submission carries the metadata and its url, not the content
{
    my $r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
                body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                          params => { name => 'get_submission', arguments => { formId => $fid, submissionId => $sid } } });
    my $sc = $r->{json}{result}{structuredContent};
    is $sc->{data}{photo}[0]{url}, $m->{url}, 'MCP get_submission: the file url';
    is $sc->{data}{docs}[0]{sha256}, sha256_hex($PDF), 'MCP get_submission: metadata';
}

# ---- download -----------------------------------------------------------
$r = api(GET => URI_path($m->{url}), token => $tok);
is $r->code, 200, 'download 200';
is $r->content, $PNG, 'the same bytes';
like $r->header('Content-Disposition'), qr/^attachment; filename="me\.png"; filename\*=UTF-8''me\.png$/, 'attachment';
is $r->header('X-Content-Type-Options'), 'nosniff', 'nosniff';
is $r->header('Content-Security-Policy'), "default-src 'none'; sandbox", 'CSP sandbox';
is $r->header('Content-Type'), 'image/png', 'content type';
is $r->header('Content-Length'), length $PNG, 'Content-Length';
my $big = api(GET => URI_path($sub->{data}{docs}[0]{url}), token => $tok);
is $big->content, $PDF, 'pdf bytes';
is api(GET => URI_path($m->{url}), token => $other)->code, 404, "another account: 404";
(my $wrong = URI_path($m->{url})) =~ s/fil_\w+$/fil_00000000000000000000000000/;
is api(GET => $wrong, token => $tok)->code, 404, 'no such file: 404';
is api(GET => URI_path($m->{url}))->code, 401, 'no credential: 401';

# a unicode name: RFC 6266 filename*
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'B', photo => file_of("\x{e9}t\x{e9} 1.png", 'image/png', $PNG) }));
is $r->code, 201, 'unicode name: 201';
$r = api(GET => URI_path($r->{json}{data}{photo}[0]{url}), token => $tok);
like $r->header('Content-Disposition'), qr/filename="__t__ 1\.png"; filename\*=UTF-8''%C3%A9t%C3%A9%201\.png/, 'filename* percent-encoded UTF-8';

# ---- bad files: nothing stored -------------------------------------------
my $before = FormsTest::psql('SELECT count(*) FROM submission_files');
my $subs_before = FormsTest::psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'");
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'C', photo => file_of('me.png', 'image/png', 'not a png at all') }));
is $r->code, 422, 'content not its type: 422';
is $r->{json}{errors}[0]{pointer}, '/photo/0', 'pointer to the file';
like $r->{json}{errors}[0]{detail}, qr/Photo: the content of me\.png is not image\/png/, 'says which file and why';
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'C', photo => file_of('a.gif', 'image/gif', "GIF89a....") }));
is $r->code, 422, 'type not accepted: 422';
like $r->{json}{errors}[0]{detail}, qr/not a type this question accepts/, 'not accepted';
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'C', photo => file_of('me.png', 'image/png', $PNG . ('x' x 2000)) }));
is $r->code, 422, 'over maxSize in base64: 422 by the schema (data maxLength)';
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'C', photo => file_of('me.png', 'image/png', $PNG . ('x' x (2001 - length $PNG))) }));
is $r->code, 413, 'over maxSize (within the base64 bound): 413';
like $r->{json}{detail}, qr/Photo: me\.png is larger than 2000 bytes/, '413 names the field';
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'C', docs => [ map { file_of('a.csv', 'text/csv', 'x') } 1 .. 3 ] }));
is $r->code, 422, 'too many files: 422';
is $r->{json}{errors}[0]{pointer}, '/docs', 'pointer to the field';
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'C', docs => [ file_of('a.csv', 'text/csv', "ok"), file_of('b.csv', 'text/csv', "bad \xff\xfe utf-8") ] }));
is $r->code, 422, 'text not UTF-8: 422 (after a good file)';
$r = api(POST => "/f/$fid", body => $J->encode({ name => 'C', photo => { name => 'x.png', type => 'image/png', data => 'not base64!' } }));
is $r->code, 422, 'data not base64: 422';
$r = api(POST => "/f/$fid", body => $J->encode({ photo => file_of('me.png', 'image/png', $PNG) }));
is $r->code, 422, 'another answer missing: 422, file not stored';
is FormsTest::psql('SELECT count(*) FROM submission_files'), $before, 'no file row from any refused submission';
is FormsTest::psql('SELECT count(*) FROM submission_file_chunks c WHERE NOT EXISTS (SELECT 1 FROM submission_files f WHERE f.id = c.file_id)'), 0, 'no orphan chunk';
is FormsTest::psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), $subs_before, 'no submission either';

# dryRun checks but stores nothing
$r = api(POST => "/f/$fid?dryRun=true", body => $J->encode({ name => 'D', photo => file_of('me.png', 'image/png', $PNG) }));
is $r->code, 200, 'dryRun: 200';
is FormsTest::psql('SELECT count(*) FROM submission_files'), $before, 'dryRun stores no file';

# a JSON body over the form's own limit (what its questions can take at
# their longest, at least 64 KiB) is only for forms with files
my $plain = make_form($tok, { title => 'Plain', fields => [{ key => 't', type => 'textarea', label => 'T' }] });
api(POST => "/v1/forms/$plain->{id}/publish", token => $tok);
$r = api(POST => "/f/$plain->{id}", body => $J->encode({ t => 'x' x 70000 }));
is $r->code, 422, 'a 70 KB answer to a textarea of 10,000 characters: within the body limit, too long: 422';
like $r->content, qr{"pointer":"/t","code":"maxLength"}, 'said at the answer';
$r = api(POST => "/f/$plain->{id}", body => $J->encode({ t => 'x' x 300000 }));
is $r->code, 413, 'a JSON body past what the form can take, for a form without files: 413';

# ---- deleting frees the files ---------------------------------------------
is api(DELETE => "/v1/forms/$fid/submissions/$sid", token => $tok)->code, 204, 'delete the submission';
is FormsTest::psql("SELECT count(*) FROM submission_files WHERE submission_id = '$sid'"), 0, 'its files are gone';
is api(GET => URI_path($m->{url}), token => $tok)->code, 404, 'download after delete: 404';

sub URI_path { my $u = shift; $u =~ s{^https?://[^/]+}{}; $u =~ s{^\Q@{[FormsvcTest::BASE]}\E}{}; $u }

done_testing;
