# Partial answers (settings.partial): a form of three pages walked as a
# browser without script walks it. Each Next keeps the answers so far as
# one row with completed: false, updated in place (never a second row),
# with a resume URL on the page; opening that URL in another browser
# restores the page reached and the answers (Back shows the earlier
# page's); Submit turns the row into the submission (the same id, one
# row, completed), a repeat stores nothing more. "Save and continue later"
# shows the resume URL. The list filter completed=false|true, the events
# submission.partial (one per 10 minutes) and submission.completed;
# unfinished rows deleted by the retention task once past their expiry
# (the clock moved in the database); a forged or wrong resume token
# refused with a page that says so; the settings' bounds.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(verify_account problem_ok make_form);
use FormsvcMail qw(wait_mail);
use Apache::TestRequest ();
use HTTP::Request ();
use JSON::PP ();
use Encode ();
use Digest::SHA ();
use MIME::Base64 ();
use URI ();
use URI::Escape qw(uri_escape_utf8);

my $T = JSON::PP::true;
my ($tok) = signup();

# ---- a browser (as t/34_public_pages.t) --------------------------------------
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
        $p{resume} = unent($2) if $1 eq '_resume';
    }
    $p{progress} = $1 if $html =~ /<p class="progress" id="progress">([^<]*)<\/p>/;
    $p{url} = unent($1) if $html =~ /<p class="desc resume">[^<]*<a href="([^"]*)">/;
    while ($html =~ /<input type="(?:text|email|number)" id="f-([a-z]\w*)" name="\w+" value="([^"]*)"/g) {
        $p{inputs}{$1} = unent($2);
    }
    push @{ $p{buttons} }, $1 while $html =~ /<button type="submit" name="_nav" value="(\w+)"/g;
    return \%p;
}
sub open_page { page_of(ua()->get(abs_url(shift), Accept => 'text/html')) }
sub post_page {
    my ($pg, %o) = @_;
    my @pairs = map { $o{resume} && $_->[0] eq '_resume' ? ['_resume', $o{resume}] : $_ } @{ $pg->{hidden} || [] };
    push @pairs, @{ $o{answers} || [] };
    push @pairs, ['_nav', $o{nav}] if $o{nav};
    my $req = HTTP::Request->new(POST => $pg->{action});
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => $o{accept} // 'text/html,application/xhtml+xml,*/*;q=0.8');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return page_of(ua()->request($req));
}
sub count { psql($_[0]) + 0 }

my @fields = (
    { key => 'p1', type => 'page', label => 'About you' },
    { key => 'name', type => 'text', label => 'Name', required => $T },
    { key => 'p2', type => 'page', label => 'Contact' },
    { key => 'email', type => 'email', label => 'E-mail', required => $T },
    { key => 'p3', type => 'page', label => 'Last words' },
    { key => 'stars', type => 'rating', label => 'Stars', required => $T },
);
my $f = make_form($tok, { title => 'Partial', fields => \@fields,
                          settings => { partial => $T, partialExpiresDays => 7 } });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'a form of three pages that keeps partial answers';
is $f->{settings}{partial}, $T, 'settings.partial is kept';
is $f->{settings}{partialExpiresDays}, 7, 'and partialExpiresDays';
my $partials = "SELECT count(*) FROM submission_partials WHERE form_id = '$fid'";

# ---- 1. each Next keeps the answers so far, in one row ------------------------
my $p = open_page("/f/$fid");
is $p->{progress}, 'Page 1 of 3', 'the first page';
is_deeply $p->{buttons}, ['next', 'save'], 'Next, and "save and continue later"';
like $p->{html}, qr{value="save" class="back" formnovalidate>Save and continue later</button>}, 'which says so';
ok !$p->{resume}, 'no resume token before a step';

my $first_page = $p;
like $p->{html}, qr{<script>\(function\(\)\{var f=document\.querySelector\("form"\)}, 'the page has the autosave script';
my ($script) = $p->{html} =~ m{<script>(.*?)</script>}s;
my $csp = $p->{res}->header('Content-Security-Policy') // '';
my $hash = "'sha256-" . MIME::Base64::encode_base64(Digest::SHA::sha256($script), '') . "'";
like $csp, qr{script-src \Q$hash\E;}, 'allowed by its hash in the CSP';
like $csp, qr{connect-src 'self'[^;]*;}, 'which lets it post to the form';
$p = post_page($p, nav => 'next', answers => [[name => 'Ada']]);
is $p->{progress}, 'Page 2 of 3', 'Next: page 2';
ok $p->{resume}, 'the page carries the resume token';
like $p->{html}, qr{Your answers so far are saved until \d{4}-\d\d-\d\d\. To continue later, keep this link:},
    'and says until when the answers are kept';
like $p->{url}, qr{/f/\Q$fid\E\?resume=sub_\w+\.frs_\w+$}, 'with the resume URL';
is count($partials), 1, 'one partial row';
my $p1again = post_page($first_page, nav => 'next', answers => [[name => 'Ada']]);
is $p1again->{resume}, $p->{resume}, 'page 1 sent twice (a double click): the same token';
is count($partials), 1, 'and still one row';
my $l = api(GET => "/v1/forms/$fid/submissions?completed=false", token => $tok);
is $l->code, 200, 'completed=false: 200';
is scalar @{ $l->{json}{data} }, 1, 'lists it';
my $row = $l->{json}{data}[0];
is $row->{completed}, JSON::PP::false, 'completed: false';
is_deeply $row->{data}, { name => 'Ada' }, 'with the answers so far';
is $row->{page}, 2, 'and the page reached (1-based)';
my $sid = $row->{id};
like $sid, qr/^sub_/, 'its id is a submission id';
is scalar @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} }, 0,
    'the default list (completed=true) does not show it';

$p = post_page($p, nav => 'next', answers => [[email => 'ada@example.org']]);
is $p->{progress}, 'Page 3 of 3', 'Next: page 3';
is count($partials), 1, 'still one row';
$row = api(GET => "/v1/forms/$fid/submissions?completed=false", token => $tok)->{json}{data}[0];
is $row->{id}, $sid, 'the same row, updated in place';
is_deeply $row->{data}, { name => 'Ada', email => 'ada@example.org' }, 'with both pages\' answers';
is $row->{page}, 3, 'on page 3';
is count("SELECT count(*) FROM events WHERE type = 'submission.partial' AND submission_id = '$sid'"), 1,
    'one submission.partial event for two steps within 10 minutes';

# ---- 2. the resume URL in another browser ----------------------------------------
my $url = $p->{url};
my $q = open_page($url);
is $q->{code}, 200, 'the resume URL opens';
is $q->{progress}, 'Page 3 of 3', 'on the page reached';
is_deeply $q->{buttons}, ['submit', 'back', 'save'], 'with Submit, Back and save';
is $q->{resume}, $p->{resume}, 'carrying the same token';
my $b = post_page($q, nav => 'back', answers => []);
is $b->{progress}, 'Page 2 of 3', 'Back: page 2';
is $b->{inputs}{email}, 'ada@example.org', 'with the e-mail typed in the other browser';
$b = post_page($b, nav => 'back', answers => [[email => 'ada@example.org']]);
is $b->{inputs}{name}, 'Ada', 'and page 1 with the name';

# ---- 3. Submit: the row becomes the submission ------------------------------------
my $done = post_page($q, nav => 'submit', answers => [[stars => '5']]);
my $first = $done->{res}; $first = $first->previous while $first->previous;
is $first->code, 303, 'Submit: 303';
is(URI->new($done->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'to the thanks page');
is count($partials), 0, 'the partial row is gone';
is count("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 1, 'one submission';
my $s = api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data};
is scalar @$s, 1, 'listed by default';
is $s->[0]{id}, $sid, 'under the partial\'s id';
is_deeply $s->[0]{data}, { name => 'Ada', email => 'ada@example.org', stars => 5 }, 'with every answer';
is scalar @{ api(GET => "/v1/forms/$fid/submissions?completed=false", token => $tok)->{json}{data} }, 0,
    'completed=false: none left';
is count("SELECT count(*) FROM events WHERE type = 'submission.completed' AND submission_id = '$sid'"), 1,
    'a submission.completed event';
is count("SELECT count(*) FROM events WHERE type = 'submission.created' AND submission_id = '$sid'"), 1,
    'and the submission.created every submission has';
is psql("SELECT payload::text FROM events WHERE type = 'submission.partial' AND submission_id = '$sid'"),
    qq({"id": "$sid", "formId": "$fid", "completed": true}), 'the partial\'s event keeps no answer once completed';

$done = post_page($q, nav => 'submit', answers => [[stars => '5']]);
is(URI->new($done->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'the same Submit again: thanks');
is count("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 1, 'nothing stored twice';
# the first browser still shows page 3 (its resume URL finished in the
# other one): its Submit stores nothing more, with the same answers (the
# thanks page, as a repeat) or with others (a page that says so)
my $late = post_page($p, nav => 'submit', answers => [[stars => '5']]);
is(URI->new($late->{res}->request->uri)->path, BASE . "/f/$fid/thanks",
   "the first browser's Submit of the completed filling-in, same answers: thanks");
is count("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 1, 'still one submission';
$late = post_page($p, nav => 'submit', answers => [[stars => '4']]);
is $late->{code}, 409, 'with another answer: 409';
like $late->{html}, qr{were sent already}, 'its answers were sent already';
like $late->{html}, qr{<a href="[^"]*/f/\Q$fid\E">Start the form again</a>}, 'with a link to start again';
is count("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 1, 'still one submission';
# its page 1, kept by the browser (Back), sent again: no new partial row
$late = post_page($first_page, nav => 'next', answers => [[name => 'Ada']]);
is $late->{code}, 409, "the first browser's page 1 sent again: 409";
like $late->{html}, qr{were sent already}, 'its answers were sent already';
is count($partials), 0, 'no partial row made again';
my $again = open_page($url);
is $again->{code}, 404, 'the resume URL of a completed filling-in: 404';
like $again->{html}, qr{This link cannot continue the form}, 'a page that says so';
$again = post_page($p, nav => 'back', answers => [[stars => '5']]);
$again = post_page($again, nav => 'next', answers => [[email => 'ada@example.org']]);
is $again->{code}, 409, 'a step of the completed filling-in: 409';
like $again->{html}, qr{were sent already}, 'its answers were sent already';

# ---- 4. save and continue later ----------------------------------------------------------
$p = post_page(open_page("/f/$fid"), nav => 'save', answers => [[name => 'Bo']]);
is $p->{code}, 200, 'save on page 1: 200';
like $p->{html}, qr{<h1>Your answers are saved</h1>}, 'the answers are saved';
my ($saved) = $p->{html} =~ m{<a href="([^"]*resume=[^"]*)"};
ok $saved, 'with the resume link';
$saved = unent($saved);
like $p->{html}, qr{kept until \d{4}-\d\d-\d\d}, 'and until when';
$q = open_page($saved);
is $q->{progress}, 'Page 1 of 3', 'opened: page 1';
is $q->{inputs}{name}, 'Bo', 'with the name';
$p = post_page(open_page("/f/$fid"), nav => 'save', answers => [[name => 'Cy'], [email => 'no']]);
is $p->{code}, 200, 'an answer of another page is ignored, as in any step';
is count($partials), 2, 'two unfinished filling-ins, one row each';
my $ins = api(GET => "/v1/forms/$fid/insights", token => $tok)->{json};
is_deeply $ins->{partials}, { unfinished => 2, pages => [
    { page => 1, key => 'p1', title => 'About you', stopped => 2 },
    { page => 2, key => 'p2', title => 'Contact', stopped => 0 },
    { page => 3, key => 'p3', title => 'Last words', stopped => 0 } ] },
    'insights: the drop-off per page from the partials';
is $ins->{submissions}, 1, 'beside the one submission';

# ---- 4b. what the script posts after a pause -------------------------------------------
my $fresh = open_page("/f/$fid");
my $as = post_page($fresh, nav => 'autosave', answers => [[name => 'Ed']], accept => 'application/json');
is $as->{code}, 200, 'autosave: 200';
is $as->{res}->header('Content-Type'), 'application/json', 'JSON';
my $aj = JSON::PP->new->decode($as->{res}->content);
like $aj->{resume}, qr/^sub_\w+\.frs_[0-9a-f]{64}$/, 'with the resume token';
like $aj->{resumeUrl}, qr{\?resume=\Q$aj->{resume}\E$}, 'the resume URL';
like $aj->{expiresAt}, qr/^\d{4}-\d\d-\d\dT/, 'and the expiry';
my $nx = post_page($fresh, nav => 'next', answers => [[name => 'Ed']]);
is $nx->{resume}, $aj->{resume}, 'Next from the same page without the token (it raced the script): the same row';
is count("SELECT count(*) FROM submission_partials WHERE form_id = '$fid' AND data->>'name' = 'Ed'"), 1, 'one row';
psql("DELETE FROM submission_partials WHERE form_id = '$fid' AND data->>'name' = 'Ed'");

# ---- 5. forged and wrong tokens ----------------------------------------------------------
my ($bo) = $saved =~ /resume=(sub_\w+)\.(frs_\w+)/;
my ($cy_secret) = $p->{html} =~ m{resume=sub_\w+\.(frs_\w+)};
for my $bad (['garbage', 'a made-up token'], ["$bo.$cy_secret", 'one partial\'s id with another\'s secret'],
             ['sub_00000000000000000000000000.' . $cy_secret, 'an id of no partial']) {
    my $r = open_page("/f/$fid?resume=" . uri_escape_utf8($bad->[0]));
    is $r->{code}, 404, "$bad->[1]: 404";
    like $r->{html}, qr{This link cannot continue the form}, 'a page that says so';
    like $r->{html}, qr{href="[^"]*/f/\Q$fid\E">Start the form again</a>}, 'with a link to the start';
    unlike $r->{html}, qr{Bo}, 'and no answer';
}
my $forged = post_page($q, nav => 'next', answers => [[name => 'Bo']], resume => "$bo.$cy_secret");
is $forged->{code}, 400, 'a step posting a wrong token: 400';
like $forged->{html}, qr{This link cannot continue the form}, 'the same page';

# ---- 6. the list's filter ----------------------------------------------------------------
problem_ok(api(GET => "/v1/forms/$fid/submissions?completed=maybe", token => $tok), 422, 'validation-failed',
           'completed=maybe: 422');
problem_ok(api(GET => "/v1/forms/$fid/submissions?completed=false&spam=true", token => $tok), 422,
           'validation-failed', 'completed=false with another filter: 422');
is api(GET => "/v1/forms/$fid/submissions?completed=true", token => $tok)->code, 200, 'completed=true: 200';

# ---- 7. expiry, the clock moved in the database ------------------------------------------
psql("UPDATE submission_partials SET expires_at = now() - interval '1 second' WHERE form_id = '$fid' "
     . "AND id = '$bo'");
ok wait_for(sub { count($partials) == 1 }, 20, 'the retention task'), 'an expired partial is deleted';
is scalar @{ api(GET => "/v1/forms/$fid/submissions?completed=false", token => $tok)->{json}{data} }, 1,
    'the other one stays';
is open_page($saved)->{code}, 404, 'its resume URL: 404';
is psql("SELECT payload->>'deleted' FROM events WHERE type = 'submission.partial' AND submission_id = '$bo'"),
    'true', 'its event keeps no answer';

# ---- 8. an erasure by address takes partials too ---------------------------------------
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => 'Di']]);
$p = post_page($p, nav => 'next', answers => [[email => 'Di@Example.org']]);
my $di = "SELECT count(*) FROM submission_partials WHERE form_id = '$fid' AND data->>'name' = 'Di'";
is count($di), 1, 'a partial with an address';
is api(POST => '/v1/erasures', token => $tok, body => { email => 'di@example.org' })->code, 200,
    'an erasure of that address';
is count($di), 0, 'takes the partial';

# ---- 9. the resume URL mailed ---------------------------------------------------------
$p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => 'Gus']]);
my $gus = uniq_email();
$p = post_page($p, nav => 'save', answers => [[email => $gus]]);
like $p->{html}, qr{<h1>Your answers are saved</h1>}, 'saved with an address';
like $p->{html}, qr{The link could not be e-mailed now; keep it from this page\.},
    'an unverified owner sends no mail to respondents: the page says so';
psql("DELETE FROM submission_partials WHERE form_id = '$fid' AND data->>'name' = 'Gus'");

my ($vt) = signup();
verify_account($vt);
wait_for(sub { api(GET => '/v1/me', token => $vt)->{json}{quota}{tier} eq 'verified' }, 15, 'verified');
my $vf = make_form($vt, { title => 'Mailed', fields => \@fields, settings => { partial => $T } })->{id};
is api(POST => "/v1/forms/$vf/publish", token => $vt)->code, 200, 'a verified owner\'s form';
my $hal = uniq_email();
$p = post_page(open_page("/f/$vf"), nav => 'next', answers => [[name => 'Hal']]);
$p = post_page($p, nav => 'save', answers => [[email => $hal]]);
like $p->{html}, qr{The link was also sent to \Q$hal\E\.}, 'save with an address: the link is mailed';
my ($shown) = $p->{html} =~ m{<a href="([^"]*resume=[^"]*)"};
my $m = wait_mail($hal);
ok $m, 'the mail arrives';
like Encode::decode('MIME-Header', $m->{headers}{subject} // ''), qr{^Continue the form \x{201c}Mailed\x{201d}$},
    'its subject';
my ($mailed) = ($m->{body} // '') =~ m{(https?://\S+resume=\S+)};
is $mailed, unent($shown // ''), 'it carries the resume URL the page shows';
$q = open_page($mailed);
is $q->{progress}, 'Page 2 of 3', 'which opens the page reached';
is $q->{inputs}{email}, $hal, 'with the address';

# ---- 10. maxSubmissions counts at completion, never partials ----------------------------------
my $mf = make_form($tok, { title => 'One place', fields => \@fields,
                           settings => { partial => $T, maxSubmissions => 1 } })->{id};
is api(POST => "/v1/forms/$mf/publish", token => $tok)->code, 200, 'a form that takes one submission';
my @walk = map {
    my $w = post_page(open_page("/f/$mf"), nav => 'next', answers => [[name => "P$_"]]);
    post_page($w, nav => 'next', answers => [[email => "p$_\@example.org"]]);
} 1 .. 2;
is count("SELECT count(*) FROM submission_partials WHERE form_id = '$mf'"), 2,
    'two people half-way through it: partials are not counted against maxSubmissions';
is $walk[0]{progress}, 'Page 3 of 3', 'both on the last page';
my $one = post_page($walk[0], nav => 'submit', answers => [[stars => '3']]);
is(URI->new($one->{res}->request->uri)->path, BASE . "/f/$mf/thanks", 'the first to submit: stored');
my $two = post_page($walk[1], nav => 'submit', answers => [[stars => '4']]);
is $two->{code}, 409, 'the second: the form is full (409)';
is count("SELECT count(*) FROM submissions WHERE form_id = '$mf'"), 1, 'one submission';
is count("SELECT count(*) FROM submission_partials WHERE form_id = '$mf'"), 1, 'the other\'s partial stays until it expires';

# ---- 10b. a form with a file field: completed elsewhere under its files' id ---------------
# (the submission takes the id its files were stored under, not the
# partial's: the filling-in's key still makes it one submission)
my $ff = make_form($tok, { title => 'Partial with a file', settings => { partial => $T }, fields => [
    { key => 'p1', type => 'page', label => 'One' },
    { key => 'name', type => 'text', label => 'Name', required => $T },
    { key => 'p2', type => 'page', label => 'Two' },
    { key => 'cv', type => 'file', label => 'CV', required => $T } ] })->{id};
is api(POST => "/v1/forms/$ff/publish", token => $tok)->code, 200, 'a form of two pages with a file field';
sub post_multi {
    my ($pg, %o) = @_;
    my @pairs = map { @$_ } @{ $pg->{hidden} || [] }, @{ $o{answers} || [] };
    push @pairs, _nav => $o{nav};
    push @pairs, cv => [undef, 'cv.txt', 'Content-Type' => 'text/plain', Content => 'my CV'];
    my $req = HTTP::Request::Common::POST($pg->{action}, Content_Type => 'form-data',
                                          Accept => 'text/html', Content => \@pairs);
    return page_of(ua()->request($req));
}
require HTTP::Request::Common;
my $fa = post_page(open_page("/f/$ff"), nav => 'next', answers => [[name => 'Kim']]);
is $fa->{progress}, 'Page 2 of 2', 'first browser: page 2, with the resume URL';
my $fb = open_page($fa->{url});
my $fdone = post_multi($fb, nav => 'submit');
is(URI->new($fdone->{res}->request->uri)->path, BASE . "/f/$ff/thanks", 'the other browser submits: thanks');
my $fsubs = "SELECT count(*) FROM submissions WHERE form_id = '$ff'";
is count($fsubs), 1, 'one submission';
$fdone = post_multi($fa, nav => 'submit');
is(URI->new($fdone->{res}->request->uri)->path, BASE . "/f/$ff/thanks",
   "the first browser's Submit, same answers: thanks, as a repeat");
is count($fsubs), 1, 'still one submission';

# ---- 11. settings ---------------------------------------------------------------------------
for my $bad ([{ partial => 'yes' }, '/settings/partial'], [{ partialExpiresDays => 0 }, '/settings/partialExpiresDays'],
             [{ partialExpiresDays => 366 }, '/settings/partialExpiresDays']) {
    my $r = api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => $bad->[0] },
                headers => { 'Content-Type' => 'application/merge-patch+json' });
    is $r->code, 422, "$bad->[1]: 422";
    is $r->{json}{errors}[0]{pointer}, $bad->[1], 'at its pointer';
}

# ---- the resume secret is in no access-log line ------------------------------------
# (the request line keeps resume=REDACTED: the secret opens the answers)
my ($rsecret) = ($url // '') =~ /(frs_\w+)$/;
my $alog = Apache::Test::vars('t_logs') . '/access_log';
ok $rsecret, 'a resume secret to look for';
ok -r $alog, 'the access log';
sub alog_lines { open my $fh, '<', $alog or return (); <$fh> }
ok wait_for(sub { grep { /resume=REDACTED/ } alog_lines() }, 10, 'the resume request logged'),
   'the resume request is logged, resume=REDACTED';
is scalar(grep { index($_, $rsecret // 'x') >= 0 } alog_lines()), 0, 'the resume secret is in no access-log line';

done_testing;
