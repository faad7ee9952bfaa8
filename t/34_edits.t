# Editing after sending (settings.allowEdits): a browser without script
# sends a form, follows the redirect to the thanks page, which carries a
# private edit link; the link opens the form filled with the answers sent,
# and posting it makes a new version of the same submission (the list of
# versions, the submission's version and updatedAt, a submission.updated
# event). An edit that would take a uniqueBy value another submission
# holds is refused with the form and a notice; once untilHours are over
# (the clock moved in the database) the link says so (410); a forged or
# another form's link is 404 with the same page for every cause. The
# settings' bounds, and the token never in the access log.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(problem_ok make_form verify_account);
use FormsvcMail qw(wait_mail);
use FormsvcInstance ();
use Apache::TestRequest ();
use HTTP::Request ();
use HTTP::Request::Common ();
use JSON::PP ();
use URI::Escape qw(uri_escape_utf8);

my $T = JSON::PP::true;
my ($tok) = signup();
verify_account($tok); # more forms than an unverified account's 3, and the respondent's copy
ok wait_for(sub { api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 15, 'verified'), 'the account verified';

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
    while ($html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g) {
        push @{ $p{hidden} }, [$1, unent($2)];
    }
    while ($html =~ /<input type="(?:text|email|number)" id="f-([a-z]\w*)" name="\w+" value="([^"]*)"/g) {
        $p{inputs}{$1} = unent($2);
    }
    $p{edit} = unent($1) if $html =~ /<a href="([^"]*\?edit=[^"]*)"/;
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
    $req->header(Accept => 'text/html,application/xhtml+xml,*/*;q=0.8');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return page_of(ua()->request($req));
}
sub count { psql($_[0]) + 0 }

# ---- the setting's bounds -----------------------------------------------------
for my $bad ([{ untilHours => 0 }, 'minimum'], [{ untilHours => 8761 }, 'maximum'],
             [{ untilHours => '2' }, 'type'], [{}, 'required'], [{ untilHours => 2, x => 1 }, 'unknown'],
             [24, 'type']) {
    my $r = api(POST => '/v1/forms', token => $tok,
                body => { title => 'x', fields => [{ key => 'a', type => 'text', label => 'A' }],
                          settings => { allowEdits => $bad->[0] } });
    is $r->code, 422, "allowEdits " . JSON::PP->new->canonical->allow_nonref->encode($bad->[0]) . ": 422";
    ok((grep { $_->{code} eq $bad->[1] } @{ $r->{json}{errors} || [] }), "  code $bad->[1]");
}

my $f = make_form($tok, { title => 'Edits', fields => [
        { key => 'name', type => 'text', label => 'Name', required => $T },
        { key => 'email', type => 'email', label => 'E-mail', required => $T } ],
    settings => { allowEdits => { untilHours => 2 }, uniqueBy => ['email'] } });
my $fid = $f->{id};
is_deeply $f->{settings}{allowEdits}, { untilHours => 2 }, 'settings.allowEdits kept';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

# ---- send, and follow the redirect to the thanks page ---------------------------
my $p = open_page("/f/$fid");
is $p->{code}, 200, 'the form';
ok !$p->{edit}, 'no edit link on a fresh form';
my $t = post_page($p, answers => [[name => 'Ada'], [email => 'ada@example.org']]);
is $t->{code}, 200, 'sent: the thanks page (after the redirect)';
like $t->{res}->request->uri, qr{/f/\Q$fid\E/thanks\?edit=sub_\w+\.fes_[0-9a-f]{64}$}, 'reached with the edit token';
like $t->{html}, qr/You can change your answers for 2 hours after sending them/, 'the page says for how long';
my $edit = $t->{edit};
like $edit, qr{/f/\Q$fid\E\?edit=(sub_\w+)\.fes_[0-9a-f]{64}$}, 'and links to the edit page';
my ($sid) = $edit =~ /edit=(sub_\w+)\./;
like $t->{res}->header('Cache-Control') // '', qr/no-store/, 'the thanks page with a link is not stored';

my $other = post_page(open_page("/f/$fid"), answers => [[name => 'Bob'], [email => 'bob@example.org']]);
is $other->{code}, 200, 'another submission (Bob)';
like $other->{res}->request->uri, qr{/f/\Q$fid\E/thanks}, 'landing on the thanks page';

# ---- the edit page shows the answers sent --------------------------------------
my $e = open_page($edit);
is $e->{code}, 200, 'the edit link opens';
is_deeply $e->{inputs}, { name => 'Ada', email => 'ada@example.org' }, 'the form filled with the answers sent';
like $e->{html}, qr/You are changing the answers you sent/, 'saying it is an edit';
like $e->{res}->header('Cache-Control') // '', qr/no-store/, 'a page with answers: no-store';
is $e->{res}->header('Referrer-Policy'), 'no-referrer', 'no referrer (its address holds the token)';
like $e->{action}, qr{/f/\Q$fid\E\?edit=\Q$sid\E\.fes_}, 'posting to the edit address';
my $before = api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok)->{json};
is $before->{version}, 1, 'the submission: version 1';

# ---- edit ----------------------------------------------------------------------
my $done = post_page($e, answers => [[name => 'Ada Lovelace'], [email => 'ada@example.org']]);
is $done->{code}, 200, 'edited: the thanks page again';
like $done->{res}->request->uri, qr{/thanks\?edit=\Q$sid\E\.}, 'with the same link';
my $after = api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok)->{json};
is_deeply $after->{data}, { name => 'Ada Lovelace', email => 'ada@example.org' }, 'the submission shows the new answers';
is $after->{version}, 2, 'version 2';
ok $after->{updatedAt} && $after->{updatedAt} ne ($before->{updatedAt} // ''), 'a new updatedAt';
is count("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 2, 'still two submissions (no new one)';
is api(GET => "/v1/forms/$fid", token => $tok)->{json}{submissionCount}, 2, 'submissionCount unchanged by the edit';
my $v = api(GET => "/v1/forms/$fid/submissions/$sid/versions", token => $tok);
is $v->code, 200, 'GET .../versions: 200';
is_deeply [map { $_->{version} } @{ $v->{json}{data} }], [2, 1], 'two versions, newest first';
is $v->{json}{data}[1]{data}{name}, 'Ada', 'the first as sent';
is $v->{json}{data}[0]{data}{name}, 'Ada Lovelace', 'the second as edited';
ok $v->{json}{data}[0]{createdAt}, 'each with its time';
my $pg = api(GET => "/v1/forms/$fid/submissions/$sid/versions?limit=1", token => $tok);
is scalar @{ $pg->{json}{data} }, 1, 'paged: limit=1';
is $pg->{json}{data}[0]{version}, 2, 'the newest first';
ok $pg->{json}{nextCursor}, 'and a cursor';
my $pg2 = api(GET => "/v1/forms/$fid/submissions/$sid/versions?limit=1&cursor=$pg->{json}{nextCursor}", token => $tok);
is_deeply [map { $_->{version} } @{ $pg2->{json}{data} }], [1], 'the next page: the first version';
is $pg2->{json}{nextCursor}, undef, 'and no more';
is api(GET => "/v1/forms/$fid/submissions/$sid/versions?cursor=bogus", token => $tok)->code, 400, 'a bad cursor: 400';
my $never = api(GET => "/v1/forms/$fid/submissions/" . psql("SELECT id FROM submissions WHERE form_id = '$fid' AND id <> '$sid'") . "/versions", token => $tok);
is scalar @{ $never->{json}{data} }, 1, 'a submission never edited: one version';
is api(GET => "/v1/forms/$fid/submissions/sub_00000000000000000000000000/versions", token => $tok)->code, 404,
    'no such submission: 404';
my $x = api(GET => '/v1/me/export', token => $tok);
my @xv = grep { $_->{kind} eq 'submissionVersion' && $_->{submissionId} eq $sid }
         map { JSON::PP->new->utf8->decode($_) } split /\n/, $x->content;
is_deeply [map { "$_->{version}:$_->{data}{name}" } @xv], ['1:Ada', '2:Ada Lovelace'],
    'the account export has its versions (kind submissionVersion)';
my $m = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
            body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                      params => { name => 'list_submission_versions', arguments => { formId => $fid, submissionId => $sid } } });
my $mr = $m->{json}{result}{structuredContent} || {};
is_deeply [map { $_->{version} } @{ $mr->{data} || [] }], [2, 1], 'MCP list_submission_versions: the same two versions';
is $mr->{untrustedRespondentData}, $T, 'marked as respondents\' data';
my $ev = psql("SELECT payload->'data'->>'name' FROM events WHERE type = 'submission.updated' AND submission_id = '$sid'");
is $ev, 'Ada Lovelace', 'a submission.updated event with the new answers';

# ---- uniqueBy rechecked ----------------------------------------------------------
my $dup = post_page(open_page($edit), answers => [[name => 'Ada'], [email => 'bob@example.org']]);
is $dup->{code}, 409, 'an edit taking the e-mail Bob sent: 409';
like $dup->{html}, qr/An answer with the same E-mail was already received/, 'the form again, saying why';
is psql("SELECT data->>'email' FROM submissions WHERE id = '$sid'"), 'ada@example.org', 'nothing changed';

# eight edits at once, each of another submission, all taking one new
# e-mail: exactly one is stored, the seven others are told it is taken
my @pages = map {
    my $sent = post_page(open_page("/f/$fid"), answers => [[name => "P$_"], [email => "p$_\@example.org"]]);
    open_page($sent->{edit} // '/');
} 1 .. 8;
is scalar(grep { ($_->{action} // '') =~ /\?edit=/ } @pages), 8, 'eight submissions, each with its edit page';
my $outcomes = FormsvcInstance->burst(8, sub {
    my $r = post_page($pages[$_[0] - 1], answers => [[name => 'Same'], [email => 'same@example.org']]);
    return $r->{code} == 200 && $r->{res}->request->uri =~ m{/thanks\?edit=} ? 1
         : $r->{code} == 409 ? 10 : 0;
});
is $outcomes, 1 + 7 * 10, 'eight edits at once to one uniqueBy value: one lands on the thanks page, seven get 409';
is count("SELECT count(*) FROM submissions WHERE form_id = '$fid' AND data->>'email' = 'same\@example.org'"), 1,
   'one submission holds it';

# ---- forged, other form's, expired -----------------------------------------------
(my $forged = $edit) =~ s/fes_([0-9a-f])/'fes_' . ($1 eq '0' ? '1' : '0')/e;
my $fx = open_page($forged);
is $fx->{code}, 404, 'a forged secret: 404';
like $fx->{html}, qr/This link cannot change the answers/, 'a page that says so';
unlike $fx->{html}, qr/Ada/, 'without the answers';
my $g = make_form($tok, { title => 'Other', fields => [{ key => 'name', type => 'text', label => 'Name' }],
                          settings => { allowEdits => { untilHours => 2 } } });
api(POST => "/v1/forms/$g->{id}/publish", token => $tok);
(my $elsewhere = $edit) =~ s{/f/\Q$fid\E\?}{/f/$g->{id}?};
is open_page($elsewhere)->{code}, 404, "another form's link: 404";
my $fp = post_page({ %$e, action => $forged }, answers => [[name => 'X'], [email => 'x@example.org']]);
is $fp->{code}, 404, 'a post with a forged secret: 404';
is psql("SELECT data->>'name' FROM submissions WHERE id = '$sid'"), 'Ada Lovelace', 'nothing changed';

psql("UPDATE submissions SET created_at = created_at - interval '3 hours' WHERE id = '$sid'");
my $old = open_page($edit);
is $old->{code}, 410, 'after untilHours: 410';
like $old->{html}, qr/The time to change these answers is over/, 'a page that says so';
my $late = post_page($e, answers => [[name => 'Late'], [email => 'ada@example.org']]);
is $late->{code}, 410, 'a post after untilHours: 410';
(my $edit_path = $edit) =~ s{^\Q@{[base_url()]}\E}{};
my $lj = api(POST => $edit_path, body => { name => 'Late', email => 'ada@example.org' });
is $lj->code, 410, 'a JSON post after untilHours: 410' or diag $edit_path, ' ', $lj->content;
like $lj->{json}{type} // '', qr{/problems/edit-expired$}, 'the problem edit-expired (not a 500)';
is api(GET => '/problems/edit-expired', headers => { Accept => 'application/problem+json, application/json' })->code, 200,
   'its type is explained';
is psql("SELECT data->>'name' FROM submissions WHERE id = '$sid'"), 'Ada Lovelace', 'nothing changed';

# ---- an erasure finds an address an edit replaced --------------------------------
my $ct = post_page(open_page("/f/$fid"), answers => [[name => 'Carol'], [email => 'carol@example.org']]);
(my $csid) = ($ct->{edit} // '') =~ /edit=(sub_\w+)\./;
ok $csid, 'Carol sent';
like post_page(open_page($ct->{edit}), answers => [[name => 'Carol'], [email => 'dave@example.org']])->{res}->request->uri,
    qr{/thanks\?edit=}, 'and changed her address (the thanks page)';
my $er = api(POST => '/v1/erasures', token => $tok, body => { email => 'carol@example.org' });
is $er->code, 200, 'POST /v1/erasures with the address she first sent';
is count("SELECT count(*) FROM submissions WHERE id = '$csid'"), 0, 'the submission is erased (an old version held it)';
is count("SELECT count(*) FROM submission_versions WHERE submission_id = '$csid'"), 0, 'with its versions';

# ---- a form of two pages: the edit walks its pages with the answers -------------
my $mp = make_form($tok, { title => 'Pages', fields => [
        { key => 'p1', type => 'page', label => 'One' },
        { key => 'name', type => 'text', label => 'Name', required => $T },
        { key => 'p2', type => 'page', label => 'Two' },
        { key => 'city', type => 'text', label => 'City', required => $T } ],
    settings => { allowEdits => { untilHours => 1 }, partial => $T } });
my $mid = $mp->{id};
api(POST => "/v1/forms/$mid/publish", token => $tok);
my $s1 = post_page(open_page("/f/$mid"), nav => 'next', answers => [[name => 'Grace']]);
my $st = post_page($s1, nav => 'submit', answers => [[city => 'Arlington']]);
is $st->{code}, 200, 'two pages sent: the thanks page';
like $st->{res}->request->uri, qr{/f/\Q$mid\E/thanks}, 'which is where the person lands';
ok $st->{edit}, 'with the edit link';
(my $msid) = $st->{edit} =~ /edit=(sub_\w+)\./;
my $e1 = open_page($st->{edit});
is_deeply $e1->{inputs}, { name => 'Grace' }, 'the edit opens on page 1 with its answer';
unlike $e1->{html}, qr/Save and continue later/, 'an edit offers no "save and continue later" (settings.partial)';
my $partials = count("SELECT count(*) FROM submission_partials WHERE form_id = '$mid'");
my $e2 = post_page($e1, nav => 'next', answers => [[name => 'Grace Hopper']]);
is count("SELECT count(*) FROM submission_partials WHERE form_id = '$mid'"), $partials, 'and its Next keeps no partial answers';
is_deeply $e2->{inputs}, { city => 'Arlington' }, 'Next: page 2 with its answer';
like $e2->{action}, qr{\?edit=\Q$msid\E\.}, 'still posting to the edit address';
my $e3 = post_page($e2, nav => 'submit', answers => [[city => 'Washington']]);
is $e3->{code}, 200, 'Submit: the thanks page';
like $e3->{res}->request->uri, qr{/f/\Q$mid\E/thanks}, 'the person lands there, not on page 2 again';
is_deeply api(GET => "/v1/forms/$mid/submissions/$msid", token => $tok)->{json}{data},
    { name => 'Grace Hopper', city => 'Washington' }, 'both pages\' answers changed';
is count("SELECT count(*) FROM submissions WHERE form_id = '$mid'"), 1, 'one submission';

# ---- endings are worked out again on the new answers ------------------------------
my $ef = make_form($tok, { title => 'Endings', fields => [{ key => 'name', type => 'text', label => 'Name', required => $T }],
    settings => { allowEdits => { untilHours => 1 },
                  endings => [{ key => 'vip', when => { field => 'name', op => 'equals', value => 'VIP' }, message => 'Welcome, VIP.' },
                              { key => 'plain', message => 'Thanks.' }] } });
api(POST => "/v1/forms/$ef->{id}/publish", token => $tok);
my $et = post_page(open_page("/f/$ef->{id}"), answers => [[name => 'Jo']]);
like $et->{html}, qr/Thanks\./, 'sent: the plain ending';
(my $esid) = ($et->{edit} // '') =~ /edit=(sub_\w+)\./;
my $ee = post_page(open_page($et->{edit}), answers => [[name => 'VIP']]);
like $ee->{html}, qr/Welcome, VIP\./, 'edited: the thanks page of the ending the new answers reach';
like $ee->{res}->request->uri, qr{/thanks\?ending=vip&edit=\Q$esid\E\.}, 'with the edit link kept';
is api(GET => "/v1/forms/$ef->{id}/submissions/$esid", token => $tok)->{json}{ending}, 'vip', 'the submission\'s ending follows';

# ---- a form with a file field: the files sent are kept ------------------------------
my $ff = make_form($tok, { title => 'Files', fields => [
        { key => 'name', type => 'text', label => 'Name', required => $T },
        { key => 'doc', type => 'file', label => 'Document', required => $T } ],
    settings => { allowEdits => { untilHours => 1 } } });
api(POST => "/v1/forms/$ff->{id}/publish", token => $tok);
my $fp0 = open_page("/f/$ff->{id}");
like $fp0->{html}, qr/enctype="multipart\/form-data"/, 'the form takes a file';
my $freq = HTTP::Request::Common::POST($fp0->{action}, Content_Type => 'form-data',
    Accept => 'text/html,application/xhtml+xml,*/*;q=0.8',
    Content => [(map { @$_ } @{ $fp0->{hidden} || [] }), name => 'Kim',
                doc => [undef, 'a.txt', 'Content-Type' => 'text/plain', Content => "hello\n"]]);
my $ft = page_of(ua()->request($freq));
is $ft->{code}, 200, 'sent with a file: the thanks page';
like $ft->{res}->request->uri, qr{/f/\Q$ff->{id}\E/thanks}, 'landing there';
ok $ft->{edit}, 'with the edit link';
like $ft->{html}, qr/You can change your answers for an hour after sending them/, 'for an hour (untilHours 1), not "1 hours"';
(my $fsid) = ($ft->{edit} // '') =~ /edit=(sub_\w+)\./;
my $fdoc = api(GET => "/v1/forms/$ff->{id}/submissions/$fsid", token => $tok)->{json}{data}{doc};
is ref $fdoc, 'ARRAY', 'the file stored';
my $fe = open_page($ft->{edit});
is $fe->{code}, 200, 'the edit page';
unlike $fe->{html}, qr/type="file"/, 'without the file input';
like $fe->{html}, qr/The files you sent are kept/, 'saying the files are kept';
is $fe->{inputs}{name}, 'Kim', 'with the other answers';
my $fdone = post_page($fe, answers => [[name => 'Kim Doe']]);
is $fdone->{code}, 200, 'edited: the thanks page';
like $fdone->{res}->request->uri, qr{/f/\Q$ff->{id}\E/thanks}, 'landing there';
my $fafter = api(GET => "/v1/forms/$ff->{id}/submissions/$fsid", token => $tok)->{json}{data};
is $fafter->{name}, 'Kim Doe', 'the new answer';
is_deeply $fafter->{doc}, $fdoc, 'the file kept as it was';
my $fid0 = $fdoc->[0]{id} // 'none';
is api(GET => "/v1/forms/$ff->{id}/submissions/$fsid/files/$fid0", token => $tok)->code, 200, 'and still downloadable';

# ---- a form without allowEdits: no link, and a link made up for it is refused ----
my $no = make_form($tok, { title => 'No edits', fields => [{ key => 'name', type => 'text', label => 'Name' },
                                                           { key => 'edit', type => 'text', label => 'Edit' }] });
api(POST => "/v1/forms/$no->{id}/publish", token => $tok);
is open_page("/f/$no->{id}?edit=hello")->{inputs}{edit}, 'hello', 'a field keyed edit is still prefilled by a value that is no token';
my $nt = post_page(open_page("/f/$no->{id}"), answers => [[name => 'Z']]);
is $nt->{code}, 200, 'a form without allowEdits: the thanks page';
ok !$nt->{edit}, 'without an edit link';
unlike $nt->{res}->request->uri, qr/edit=/, 'and no token in its address';

# ---- the respondent's copy carries the link (settings.confirmation) -------------------
my $vt = $tok;
my $cf = make_form($vt, { title => 'Copy', fields => [
        { key => 'name', type => 'text', label => 'Name' }, { key => 'email', type => 'email', label => 'E-mail' } ],
    settings => { allowEdits => { untilHours => 3 },
                  confirmation => { emailField => 'email', subject => 'Thanks', body => 'Got it.' } } });
api(POST => "/v1/forms/$cf->{id}/publish", token => $vt);
my $to = uniq_email();
my $cs = post_page(open_page("/f/$cf->{id}"), answers => [[name => 'Ida'], [email => $to]]);
my $mail = wait_mail($to);
ok $mail, 'the copy is mailed';
my ($mlink) = ($mail->{body} // '') =~ m{(https?://\S+\?edit=\S+)};
like $mail->{body} // '', qr/You can change your answers for 3 hours after sending them/, 'it says for how long';
(my $mpath = $mlink // '') =~ s{^https?://[^/]+}{};
(my $tpath = $cs->{edit} // 'x') =~ s{^https?://[^/]+}{};
is $mpath, $tpath, 'with the edit link the thanks page shows';
is_deeply open_page($mlink // '/')->{inputs}, { name => 'Ida', email => $to }, 'which opens the answers';

# ---- a quiz's score is worked out again from the edited answers --------------------
my $qf = make_form($vt, { title => 'Quiz', fields => [
        { key => 'city', type => 'text', label => 'Capital of France', required => JSON::PP::true, correct => 'Paris' } ],
    settings => { allowEdits => { untilHours => 2 }, showScore => JSON::PP::true } });
api(POST => "/v1/forms/$qf->{id}/publish", token => $vt);
my $qt = post_page(open_page("/f/$qf->{id}"), answers => [[city => 'Lyon']]);
like $qt->{html}, qr{Your score: 0 of 1\.}, 'a quiz: the thanks page says 0 of 1';
(my $qsid) = ($qt->{edit} // '') =~ /edit=(sub_\w+)\./;
my $qe = post_page(open_page($qt->{edit} // '/'), answers => [[city => 'Paris']]);
like $qe->{res}->request->uri, qr{/thanks\?score=1&max=1&sig=\w+&edit=\Q$qsid\E\.}, 'the edit lands on the thanks page with the new score';
like $qe->{html}, qr{Your score: 1 of 1\.}, 'which says 1 of 1';
my $qs = api(GET => "/v1/forms/$qf->{id}/submissions/" . ($qsid // 'x'), token => $vt);
is_deeply [ @{ $qs->{json}{calculated} // {} }{qw(score max)} ], [1, 1], "the owner's submission holds the new score";
my $nv = sub { scalar @{ api(GET => "/v1/forms/$qf->{id}/submissions/" . ($qsid // 'x') . '/versions', token => $vt)->{json}{data} // [] } };
is $nv->(), 2, 'two versions: as sent, and the edit';
my $again = post_page(open_page($qt->{edit} // '/'), answers => [[city => 'Paris']]);
like $again->{html}, qr{Your score: 1 of 1\.}, 'the same answers sent again (a double click): the thanks page';
is $nv->(), 2, 'and no third version';
is count("SELECT count(*) FROM events WHERE submission_id = '" . ($qsid // 'x') . "' AND type = 'submission.updated'"), 1,
   'nor a second submission.updated';

# ---- a signature is kept as it was sent, as files are -------------------------------
my $sg = make_form($vt, { title => 'Signed', fields => [
        { key => 'note', type => 'text', label => 'Note', required => $T },
        { key => 'sign', type => 'signature', label => 'Signature', required => $T } ],
    settings => { allowEdits => { untilHours => 2 } } });
api(POST => "/v1/forms/$sg->{id}/publish", token => $vt);
my $sgt = post_page(open_page("/f/$sg->{id}"), answers => [[note => 'first'], ['sign.name' => 'Ada Lovelace']]);
like $sgt->{res}->request->uri, qr{/f/\Q$sg->{id}\E/thanks}, 'signed: the thanks page';
my $sp = open_page($sgt->{edit} // '/');
unlike $sp->{html}, qr{name="sign\.name"}, 'the edit page does not offer the signature again';
my $sd = post_page($sp, answers => [[note => 'second']]);
like $sd->{res}->request->uri, qr{/f/\Q$sg->{id}\E/thanks}, 'edited: the thanks page';
(my $ssid) = ($sgt->{edit} // '') =~ /edit=(sub_\w+)\./;
is_deeply api(GET => "/v1/forms/$sg->{id}/submissions/" . ($ssid // 'x'), token => $vt)->{json}{data},
    { note => 'second', sign => { name => 'Ada Lovelace' } }, 'the new note, the signature as sent';

# ---- insights follow an edit, and a deleted edited submission leaves none ----------
my $if = make_form($vt, { title => 'Pick', fields => [
        { key => 'choice', type => 'select', label => 'Choice', required => $T, options => ['a', 'b'] } ],
    settings => { allowEdits => { untilHours => 2 } } });
api(POST => "/v1/forms/$if->{id}/publish", token => $vt);
my $counts = sub {
    my ($q) = @{ api(GET => "/v1/forms/$if->{id}/insights", token => $vt)->{json}{questions} // [] };
    return { map { ($_->{value} => $_->{count}) } @{ $q->{options} // [] } };
};
my $it = post_page(open_page("/f/$if->{id}"), answers => [[choice => 'a']]);
like $it->{res}->request->uri, qr{/f/\Q$if->{id}\E/thanks}, 'a submission (a): the thanks page';
is_deeply $counts->(), { a => 1, b => 0 }, 'insights: a 1';
my $ie = post_page(open_page($it->{edit} // '/'), answers => [[choice => 'b']]);
like $ie->{res}->request->uri, qr{/f/\Q$if->{id}\E/thanks}, 'edited to b: the thanks page';
is_deeply $counts->(), { a => 0, b => 1 }, 'insights follow the edit: a 0, b 1';
(my $isid) = ($it->{edit} // '') =~ /edit=(sub_\w+)\./;
is api(DELETE => "/v1/forms/$if->{id}/submissions/" . ($isid // 'x'), token => $vt)->code, 204, 'the edited submission deleted';
is_deeply $counts->(), { a => 0, b => 0 }, 'insights: nothing left, nothing negative';

# ---- the token is not in the access log ----------------------------------------
my ($secret) = $edit =~ /(fes_[0-9a-f]{64})/;
my $log = Apache::Test::vars('t_logs') . '/access_log';
ok -r $log, 'the access log';
sub log_lines { open my $fh, '<', $log or return (); <$fh> }
ok wait_for(sub { grep { /edit=REDACTED/ } log_lines() }, 10, 'the edit requests logged'),
   'the edit requests are logged, edit=REDACTED';
is scalar(grep { index($_, $secret) >= 0 } log_lines()), 0, 'the edit secret is in no access-log line';

done_testing;
