# The owner's state of a submission: PATCH /v1/forms/{id}/submissions/{sid}
# with status, tags and note behind If-Match (428 without, 412 stale), the
# limits at their boundaries (20 tags, 21; 32-character tags; a note of
# 10,000 characters counted as characters, not bytes, and 10,001), wrong
# types, another account's ids (404), the submission.updated event, the
# list filters status and tag, the CSV's owner columns, and MCP's
# update_submission.
use strict;
use warnings;
use utf8;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();

my ($tok) = signup();
my ($other) = signup();
my $form = make_form($tok, { title => 'State', fields => [{ key => 'name', type => 'text', label => 'Name' },
                                                           { key => 'tags', type => 'text', label => 'Tags' }] });
my $fid = $form->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
sub submit { my $r = api(POST => "/f/$fid", body => { name => $_[0] }, headers => { Accept => 'application/json' });
             $r->code == 201 or die $r->content; $r->{json}{id} }
my ($s1, $s2, $s3) = map { submit("p$_") } 1 .. 3;
my $U = "/v1/forms/$fid/submissions";

# ---- the representation and its ETag ---------------------------------------
my $g = api(GET => "$U/$s1", token => $tok);
is $g->code, 200, 'get';
is $g->{json}{status}, 'new', 'status new by default';
is_deeply $g->{json}{tags}, [], 'no tags';
is $g->{json}{note}, undef, 'no note';
is $g->{json}{version}, 1, 'version 1';
is $g->header('ETag'), '"1"', 'ETag "1"';

# ---- If-Match -----------------------------------------------------------------
sub patch { my ($sid, $body, $etag, $t) = @_;
            api(PATCH => "$U/$sid", token => $t // $tok, body => $body,
                headers => { defined $etag ? ('If-Match' => $etag) : () }) }
problem_ok patch($s1, { status => 'done' }), 428, 'precondition-required', 'no If-Match: 428';
is api(GET => "$U/$s1", token => $tok)->{json}{status}, 'new', 'nothing changed';
my $r = patch($s1, { status => 'in_progress', tags => ['VIP', 'follow-up', 'vip'], note => 'call back' }, '"1"');
is $r->code, 200, 'PATCH with the current ETag: 200' or diag $r->content;
is $r->{json}{status}, 'in_progress', 'status';
is_deeply $r->{json}{tags}, ['vip', 'follow-up'], 'tags lower-cased, duplicates dropped';
is $r->{json}{note}, 'call back', 'note';
is $r->{json}{version}, 2, 'version 2';
is $r->header('ETag'), '"2"', 'ETag "2"';
ok $r->{json}{updatedAt}, 'updatedAt';
problem_ok patch($s1, { status => 'done' }, '"1"'), 412, 'precondition-failed', 'stale If-Match: 412';
is patch($s1, { status => 'done' }, '"1"')->header('ETag'), '"2"', '412 names the current ETag';
problem_ok patch($s1, { status => 'done' }, 'W/"2"'), 412, 'precondition-failed', 'a weak ETag never matches';
$r = patch($s1, { note => undef }, '*');
is $r->code, 200, 'If-Match: * changes whatever the version';
is $r->{json}{note}, undef, 'note null clears it';
is $r->{json}{status}, 'in_progress', 'status left as it was';
is_deeply $r->{json}{tags}, ['vip', 'follow-up'], 'tags left as they were';

# ---- validation -------------------------------------------------------------------
sub errs { my $r = shift; [ sort map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} || [] } ] }
$r = patch($s2, { status => 'closed', tags => 'x', note => 5, extra => 1 }, '*');
problem_ok $r, 422, 'validation-failed', 'wrong values: 422';
is_deeply errs($r), [sort '/status enum', '/tags type', '/note type', '/extra unknown'], 'every error with its pointer'
    or diag $r->content;
is_deeply errs(patch($s2, { status => 1 }, '*')), ['/status type'], 'status a number: type';
is_deeply errs(patch($s2, {}, '*')), [' required'], 'an empty patch: 422';
is_deeply errs(patch($s2, { tags => ['ok', 'bad tag', '-x', 'x' x 33, 7] }, '*')),
    [sort '/tags/1 pattern', '/tags/2 pattern', '/tags/3 pattern', '/tags/4 type'], 'bad tags';
$r = patch($s2, { tags => [map { "t$_" } 1 .. 20] }, '*');
is $r->code, 200, '20 tags: 200';
is scalar(@{ $r->{json}{tags} }), 20, '... all 20 kept';
$r = patch($s2, { tags => [map { "t$_" } 1 .. 21] }, '*');
problem_ok $r, 422, 'validation-failed', '21 tags: 422';
is_deeply errs($r), ['/tags maxItems'], '... maxItems';
is patch($s2, { tags => ['a' x 32] }, '*')->code, 200, 'a 32-character tag: 200';
is patch($s2, { tags => ['a:b.c_d-e'] }, '*')->code, 200, 'a tag with : . _ -';
my $note = 'é' x 10000; # 10,000 characters, 20,000 bytes
my $J = JSON::PP->new->utf8;
$r = patch($s2, $J->encode({ note => $note }), '*');
is $r->code, 200, 'a note of 10,000 characters (20,000 bytes): 200' or diag $r->content;
is length(uni($r->{json}{note})), 10000, '... kept whole';
$r = patch($s2, $J->encode({ note => $note . 'é' }), '*');
problem_ok $r, 422, 'validation-failed', '10,001 characters: 422';
is_deeply errs($r), ['/note maxLength'], '... maxLength';
is patch($s2, { note => "line 1\nline 2" }, '*')->code, 200, 'a note on several lines';
problem_ok api(PATCH => "$U/$s2", token => $tok, body => '{"status":', headers => { 'If-Match' => '*' }), 400,
    'malformed-request', 'malformed JSON: 400';
problem_ok api(PATCH => "$U/$s2", token => $tok, body => 'status=done',
               headers => { 'If-Match' => '*', 'Content-Type' => 'application/x-www-form-urlencoded' }), 415,
    'unsupported-media-type', 'not JSON: 415';

# ---- other accounts, other forms, scopes ---------------------------------------
problem_ok patch($s1, { status => 'done' }, '*', $other), 404, 'not-found', "another account's submission: 404";
my $ofid = make_form($other, { title => 'O', fields => [{ key => 'a', type => 'text', label => 'A' }] })->{id};
problem_ok api(PATCH => "/v1/forms/$ofid/submissions/$s1", token => $tok, body => { status => 'done' },
               headers => { 'If-Match' => '*' }), 404, 'not-found', "another account's form: 404";
my $form2 = make_form($tok, { title => 'Two', fields => [{ key => 'a', type => 'text', label => 'A' }] });
problem_ok api(PATCH => "/v1/forms/$form2->{id}/submissions/$s1", token => $tok, body => { status => 'done' },
               headers => { 'If-Match' => '*' }), 404, 'not-found', 'a submission of another form: 404';
problem_ok patch(fresh_id('sub_'), { status => 'done' }, '*'), 404, 'not-found', 'no such submission: 404';
problem_ok patch('sub_nope', { status => 'done' }, '*'), 404, 'not-found', 'not an id: 404';
my $ro = api(POST => '/v1/keys', token => $tok, body => { name => 'ro', scopes => ['submissions:read'] })->{json}{secret};
problem_ok patch($s3, { status => 'done' }, '*', $ro), 403, 'insufficient-scope', 'submissions:read cannot change';

# ---- the event -------------------------------------------------------------------
my $ev = api(GET => "/v1/events?formId=$fid&type=submission.updated", token => $tok);
is $ev->code, 200, 'events of type submission.updated';
my @up = @{ $ev->{json}{data} };
ok scalar(@up) >= 2, 'one per change (' . scalar(@up) . ')';
is $up[0]{data}{id}, $s1, 'data: the submission';
is $up[0]{data}{status}, 'in_progress', 'data: its state after the change';
my $wh = api(POST => '/v1/keys', token => $tok, body => { name => 'wh', scopes => ['webhooks:read'] })->{json}{secret};
problem_ok api(GET => "/v1/events?type=submission.updated", token => $wh), 403, 'insufficient-scope',
    'submission.updated needs submissions:read';
ok !(grep { $_->{type} eq 'submission.updated' } @{ api(GET => "/v1/events?formId=$fid", token => $wh)->{json}{data} }),
    'left out of the feed without it';

# ---- list filters -------------------------------------------------------------------
is patch($s3, { status => 'done', tags => ['vip'] }, '*')->code, 200, 'third: done, vip';
sub ids { [sort map { $_->{id} } @{ api(GET => "$U?$_[0]", token => $tok)->{json}{data} }] }
is_deeply ids('status=in_progress'), [$s1], 'status=in_progress';
is_deeply ids('status=done'), [$s3], 'status=done';
is_deeply ids('status=new'), [$s2], 'status=new';
is_deeply ids('tag=vip'), [sort $s1, $s3], 'tag=vip';
is_deeply ids('tag=VIP'), [sort $s1, $s3], 'tag=VIP: tags compare lower-cased';
is_deeply ids('tag=vip&status=done'), [$s3], 'tag and status together';
is_deeply ids('tag=none'), [], 'a tag nobody has';
problem_ok api(GET => "$U?status=open", token => $tok), 422, 'validation-failed', 'status=open: 422';
problem_ok api(GET => "$U?tag=bad%20tag", token => $tok), 422, 'validation-failed', 'a bad tag: 422';

# ---- the CSV ----------------------------------------------------------------------------
my $csv = api(GET => "$U?status=done", token => $tok, headers => { Accept => 'text/csv' });
my @lines = split /\r\n/, $csv->content;
is $lines[0], 'id,createdAt,formVersion,name,tags,ownerStatus,ownerTags,ownerNote',
    'CSV: the owner columns after the fields (a field named tags keeps its column)';
like $lines[1], qr/^\Q$s3\E,.*,done,vip,$/, 'CSV: status, tags, note';
my $plain = make_form($tok, { title => 'Plain', fields => [{ key => 'a', type => 'text', label => 'A' }] });
is((split /\r\n/, api(GET => "/v1/forms/$plain->{id}/submissions", token => $tok,
                      headers => { Accept => 'text/csv' })->content)[0], 'id,createdAt,formVersion,a',
   'CSV of a form never changed by its owner: as before');

# ---- MCP ---------------------------------------------------------------------------------
my $n = 0;
sub call { my ($tool, $args) = @_;
    api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
        body => { jsonrpc => '2.0', id => ++$n, method => 'tools/call', params => { name => $tool, arguments => $args } })
        ->{json}{result} }
my $v = api(GET => "$U/$s2", token => $tok)->{json}{version};
my $m = call('update_submission', { formId => $fid, submissionId => $s2, status => 'rejected', note => 'spam-ish',
                                    ifMatchVersion => $v });
ok !$m->{isError}, 'MCP update_submission' or diag explain $m;
is $m->{structuredContent}{status}, 'rejected', '... status';
is $m->{structuredContent}{version}, $v + 1, '... version';
$m = call('update_submission', { formId => $fid, submissionId => $s2, status => 'done', ifMatchVersion => $v });
ok $m->{isError}, 'MCP: a stale version is an error';
is $m->{structuredContent}{status}, 412, '... 412';
$m = call('update_submission', { formId => $fid, submissionId => $s2, status => 'done' });
ok $m->{isError} || $m->{rpcError} || !defined $m->{structuredContent}{id}, 'MCP: without ifMatchVersion: refused';
$m = call('list_submissions', { formId => $fid, status => 'rejected' });
is_deeply [map { $_->{id} } @{ $m->{structuredContent}{data} }], [$s2], 'MCP list_submissions status';
$m = call('list_submissions', { formId => $fid, tag => 'vip' });
is scalar(@{ $m->{structuredContent}{data} }), 2, 'MCP list_submissions tag';

done_testing;
