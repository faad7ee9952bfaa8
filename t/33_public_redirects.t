# Where a person lands after pressing the button of a public form page. A
# browser is played: the page is opened, its form (action, hidden inputs,
# submission token) is filled in and posted as the page says (urlencoded
# or multipart), and every redirect is FOLLOWED; the test asserts the page
# landed on (200 and the thanks text, or the form again with its errors),
# not only the status of the 303. Through a respondent link (by id and by
# slug), a slug, a locale, an embeddable form, an upload, errors first,
# and replays (of today and of records written by earlier releases).
#
# Then what the respondent must never see and what a key stands for: the
# link's metadata (the owner's) is in no public answer, replay or thanks
# page, only in the owner's API; the Idempotency-Key of a multipart post
# covers the link like the other encodings; uploaded file names lose
# Unicode format characters (U+202E and its kind).
#
# And the one-time submission token of every rendered form page: a new one
# in each answer (also from the in-memory cache, with an ETag that does not
# change), the post's Idempotency-Key, so a double click, a back-and-resend
# or eight parallel sends of one page store one submission and all land on
# the thanks page; another form's or another link's token is a clean 400;
# a page sent again with other answers gives them back with a fresh token.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Apache::TestRequest ();
use Digest::SHA qw(sha256);
use HTTP::Request ();
use JSON::PP ();
use MIME::Base64 ();
use POSIX ();
use URI ();
use URI::Escape qw(uri_escape_utf8);

my $J = JSON::PP->new->canonical;
my $T = JSON::PP::true;
my ($tok) = signup();
verify_account($tok); # more than three forms

# ---- a browser ---------------------------------------------------------------
sub ua {
    my $follow = shift;
    my $ua = Apache::TestRequest::user_agent(reset => 1);
    $ua->requests_redirectable($follow ? ['GET', 'HEAD', 'POST'] : []);
    $ua->max_redirect($follow ? 5 : 0);
    return $ua;
}
sub abs_url { my $u = shift; $u =~ m{^https?://} ? $u : Apache::TestRequest::resolve_url(BASE . $u) }
sub unent { my $s = shift; $s =~ s/&quot;/"/g; $s =~ s/&#39;/'/g; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; $s }

# open_page(path) -> {res, action, multipart, hidden => [[name, value]...], token}
sub open_page {
    my ($path, %h) = @_;
    my $r = ua(1)->get(abs_url($path), Accept => 'text/html,*/*;q=0.8', %h);
    return parse_page($r);
}
sub parse_page {
    my $r = shift;
    my $html = $r->decoded_content // $r->content;
    my %p = (res => $r, html => $html);
    if ($html =~ /<form method="post" action="([^"]*)"[^>]*>/) {
        $p{action} = unent($1);
        $p{multipart} = $& =~ /multipart\/form-data/ ? 1 : 0;
    }
    while ($html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g) {
        push @{ $p{hidden} }, [$1, unent($2)];
        $p{token} = unent($2) if $1 eq '_token';
    }
    return \%p;
}

my $B = '----formsvc33';
# send_page($page, [[name, value(, filename, type)]...], follow => 1, headers => {...})
sub send_page {
    my ($pg, $answers, %o) = @_;
    unless ($pg->{action}) { # say so, and go on with the other checks
        fail('a form on the page') or diag substr($pg->{html} // '', 0, 300);
        return $pg->{res};
    }
    my @pairs = (@{ $pg->{hidden} || [] }, @$answers);
    my $req = HTTP::Request->new(POST => $pg->{action});
    my $body;
    if ($pg->{multipart}) {
        $body = '';
        for (@pairs) {
            my ($n, $v, $fn, $ty) = @$_;
            $body .= "--$B\r\nContent-Disposition: form-data; name=\"$n\""
                . (defined $fn ? "; filename=\"$fn\"\r\nContent-Type: " . ($ty // 'application/octet-stream') : '')
                . "\r\n\r\n$v\r\n";
        }
        $body .= "--$B--\r\n";
        $req->header('Content-Type' => "multipart/form-data; boundary=$B");
    } else {
        $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
        $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    }
    $req->header(Accept => $o{accept} // 'text/html,application/xhtml+xml,*/*;q=0.8');
    my %h = %{ $o{headers} || {} };
    $req->header($_ => $h{$_}) for keys %h;
    $req->content($body);
    $req->header('Content-Length' => length $body);
    my $r = ua($o{follow} // 1)->request($req);
    $r->{json} = json_of($r);
    return $r;
}

# landed_ok($res, $fid, $text, $name): a 303 that was followed to the form's
# thanks page, answered 200 with $text.
sub landed_ok {
    my ($r, $fid, $text, $name) = @_;
    my $first = $r; $first = $first->previous while $first->previous;
    my $path = URI->new($r->request->uri)->path_query;
    my $ok = $first->code == 303 && $r->code == 200 && $path eq BASE . "/f/$fid/thanks"
        && ($r->decoded_content // '') =~ /\Q$text\E/;
    ok $ok, $name or diag sprintf "303? %s, Location %s; landed on %s: %s %s", $first->code,
        $first->header('Location') // '-', $path, $r->code, substr($r->decoded_content // '', 0, 400);
    return $ok;
}

sub publish { my $f = make_form($tok, shift); api(POST => "/v1/forms/$f->{id}/publish", token => $tok); $f }
sub link_of {
    my ($fid, %o) = @_;
    my $r = api(POST => "/v1/forms/$fid/links", token => $tok, body => { %o });
    die 'link: ' . $r->content unless $r->code == 201;
    my ($path) = $r->{json}{url} =~ m{/api(/f/.*)$};
    my ($t) = $r->{json}{url} =~ /l=(\S+)$/;
    return ($r->{json}, $path, $t);
}
sub subs { psql("SELECT count(*) FROM submissions WHERE form_id = '" . shift . "'") }

my @fields = (
    { key => 'name', type => 'text', label => 'Name', required => $T, validation => { maxLength => 20 } },
    { key => 'src', type => 'hidden' },
);

# ---- 1. every redirect, followed ------------------------------------------------
my $f = publish({ title => 'Plain', slug => "redir-$$-" . time, fields => \@fields,
                  settings => { confirmationMessage => 'Landed on plain.' } });
my $fid = $f->{id};
my $pg = open_page("/f/$fid");
is $pg->{res}->code, 200, 'the page';
like $pg->{action}, qr{/f/\Q$fid\E$}, 'posts to the form';
landed_ok send_page($pg, [[name => 'Ada']]), $fid, 'Landed on plain.', 'by id: lands on the thanks page';
landed_ok send_page(open_page("/f/$f->{slug}"), [[name => 'Bo']]), $fid, 'Landed on plain.',
    'by slug: lands on the thanks page';
landed_ok send_page(open_page("/f/$f->{slug}?src=news"), [[name => 'Cy']]), $fid, 'Landed on plain.',
    'prefilled by the query string: lands on the thanks page';

# through a respondent link, by id and by slug (the link's URL is the slug's)
my ($lk, $lpath, $ltok) = link_of($fid, prefill => { src => 'mail' }, metadata => { crm => 'secret-crm-7' });
$pg = open_page($lpath);
like $pg->{action}, qr{\?l=\Q$ltok\E$}, 'the link page posts through the link';
my $r = send_page($pg, [[name => 'Dee']]);
landed_ok $r, $fid, 'Landed on plain.', 'through a link: lands on the thanks page (not "this link is not valid")';
unlike $r->decoded_content, qr/secret-crm-7|crm/, 'the thanks page shows no link metadata';
is psql("SELECT link_id FROM submissions WHERE form_id = '$fid' AND data->>'name' = 'Dee'"), $lk->{id},
    'stored through the link';
$pg = open_page("/f/$fid?l=$ltok");
landed_ok send_page($pg, [[name => 'Eve']]), $fid, 'Landed on plain.', 'through a link by id: lands on the thanks page';

# errors first: the form again (422) still posts through the link; then fixed
$r = send_page(open_page($lpath), [[name => 'x' x 30]]);
is $r->code, 422, 'invalid answers through a link: the form again, 422';
like $r->decoded_content, qr/class="summary"/, 'with its errors';
my $again = parse_page($r);
like $again->{action}, qr{\?l=\Q$ltok\E$}, 'the page given back still posts through the link';
landed_ok send_page($again, [[name => 'Fay']]), $fid, 'Landed on plain.',
    'fixed and sent from the error page: lands on the thanks page';

# a replay with an Idempotency-Key through the link lands there too
my %ik = (headers => { 'Idempotency-Key' => "redir-$$" });
$pg = open_page($lpath);
$pg->{hidden} = [grep { $_->[0] ne '_token' } @{ $pg->{hidden} }]; # a key of the client's own
landed_ok send_page($pg, [[name => 'Gus']], %ik), $fid, 'Landed on plain.', 'keyed post through a link: thanks';
$r = send_page($pg, [[name => 'Gus']], %ik);
landed_ok $r, $fid, 'Landed on plain.', 'its replay: the same thanks page';
my $first = $r->previous;
is $first && $first->header('Idempotent-Replayed'), 'true', '(a replay)';

# a record an earlier release wrote, with the thanks path after the query
# string and the link's metadata in its body: answered as written today
sub b64u { my $s = MIME::Base64::encode_base64url(shift); $s =~ s/=+$//; $s }
sub old_record {
    my ($key, $body, $status, $loc, $answer) = @_;
    my $hash = b64u(sha256("POST /f/$fid 1 0 l=$ltok\n" . $body));
    psql("INSERT INTO idempotency (scope, key, request_hash, status, location, body) VALUES ('$fid', '$key', "
         . "'$hash', $status, '$loc', '$answer')");
}
my $sid0 = fresh_id('sub_');
old_record("old303-$$", 'name=Old', 303, base_url() . "/f/$fid?l=$ltok/thanks",
           qq({"id":"$sid0","formId":"$fid","data":{"name":"Old"},"linkId":"$lk->{id}","metadata":{"crm":"secret-crm-7"}}));
my $req = HTTP::Request->new(POST => abs_url("$lpath"), ['Content-Type' => 'application/x-www-form-urlencoded',
    Accept => 'text/html', 'Idempotency-Key' => "old303-$$"], 'name=Old');
$r = ua(1)->request($req);
landed_ok $r, $fid, 'Landed on plain.', 'the replay of an old record with the broken URL lands on the thanks page';
old_record("old201-$$", 'name=Old2', 201, base_url() . "/v1/forms/$fid/submissions/$sid0",
           qq({"id":"$sid0","formId":"$fid","data":{"name":"Old2"},"linkId":"$lk->{id}","metadata":{"crm":"secret-crm-7"}}));
$req = HTTP::Request->new(POST => abs_url("$lpath"), ['Content-Type' => 'application/x-www-form-urlencoded',
    Accept => 'application/json', 'Idempotency-Key' => "old201-$$"], 'name=Old2');
$r = ua(0)->request($req);
is $r->code, 201, 'the replay of an old 201 record';
unlike $r->content, qr/secret-crm-7|"metadata"/, 'without the metadata it held';
like $r->content, qr/"linkId":"\Q$lk->{id}\E"/, 'with the linkId';

# redirectUrl: the 303 goes there exactly (another site: not followed)
my $rf = publish({ title => 'Redirect', fields => \@fields,
                   settings => { redirectUrl => 'https://example.com/done?x=1' } });
my (undef, $rpath) = link_of($rf->{id});
$r = send_page(open_page($rpath), [[name => 'Hal']], follow => 0);
is $r->code, 303, 'redirectUrl through a link: 303';
is $r->header('Location'), 'https://example.com/done?x=1', 'to the redirectUrl as set';

# a form in German: the thanks page in German
my $de = publish({ title => 'Deutsch', fields => \@fields, settings => { locale => 'de' } });
my (undef, $dpath) = link_of($de->{id});
landed_ok send_page(open_page($dpath), [[name => 'Ina']]), $de->{id}, 'Vielen Dank. Ihre Antworten sind eingegangen.',
    'locale de through a link: the German thanks page';
my $auto = publish({ title => 'Auto', fields => \@fields, settings => { locale => 'auto' } });
$r = send_page(open_page("/f/$auto->{id}", 'Accept-Language' => 'fr'), [[name => 'Jo']],
               headers => { 'Accept-Language' => 'fr' });
landed_ok $r, $auto->{id}, 'Merci', 'locale auto: the thanks page in the language asked for';

# an embeddable form: the page landed on may be framed by the same origins
my $em = publish({ title => 'Embedded', fields => \@fields,
                   settings => { embed => { allowedOrigins => ['https://example.com'] } } });
my (undef, $epath) = link_of($em->{id});
$r = send_page(open_page($epath), [[name => 'Kai']]);
landed_ok $r, $em->{id}, 'Thank you', 'embeddable form through a link: lands on the thanks page';
like $r->header('Content-Security-Policy') // '', qr{frame-ancestors https://example\.com;},
    'which its frame may show';

# an upload (multipart) through a link
my $PDF = "%PDF-1.7\n" . ('x' x 2000) . "\n%%EOF\n";
my $up = publish({ title => 'Upload', fields => [ @fields,
    { key => 'cv', type => 'file', label => 'CV', validation => { accept => ['application/pdf'] } } ],
    settings => { confirmationMessage => 'Landed on upload.' } });
my (undef, $upath, $utok) = link_of($up->{id}, metadata => { crm => 'secret-crm-8' });
$pg = open_page($upath);
ok $pg->{multipart}, 'the upload page posts multipart';
$r = send_page($pg, [[name => 'Lu'], [cv => $PDF, 'cv.pdf', 'application/pdf']]);
landed_ok $r, $up->{id}, 'Landed on upload.', 'an upload through a link: lands on the thanks page';
is subs($up->{id}), 1, 'stored once';
# and with an error first: the form again, then sent
$r = send_page(open_page($upath), [[name => 'x' x 30], [cv => $PDF, 'cv.pdf', 'application/pdf']]);
is $r->code, 422, 'an upload with a bad answer: the form again';
landed_ok send_page(parse_page($r), [[name => 'Max'], [cv => $PDF, 'cv.pdf', 'application/pdf']]),
    $up->{id}, 'Landed on upload.', 'then sent again: lands on the thanks page';

# ---- 2. the link's metadata never reaches the respondent ------------------------
my ($mk, $mpath) = link_of($fid, metadata => { crm => 'secret-crm-9', n => 1 });
$r = api(POST => $mpath, body => { name => 'Ned' }, headers => { 'Idempotency-Key' => "meta-$$" });
is $r->code, 201, 'a JSON submission through a link: 201';
ok !exists $r->{json}{metadata}, 'its answer has no metadata';
unlike $r->content, qr/secret-crm-9/, 'nowhere';
is $r->{json}{linkId}, $mk->{id}, 'but its linkId';
$r = api(POST => $mpath, body => { name => 'Ned' }, headers => { 'Idempotency-Key' => "meta-$$" });
is $r->header('Idempotent-Replayed'), 'true', 'its replay';
unlike $r->content, qr/secret-crm-9/, 'has no metadata either';
my $sid = $r->{json}{id};
is_deeply api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok)->{json}{metadata},
    { crm => 'secret-crm-9', n => 1 }, 'the owner sees the metadata in the API';
$r = send_page(open_page($upath), [[name => 'Oz'], [cv => $PDF, 'cv.pdf', 'application/pdf']],
               accept => 'application/json');
is $r->code, 201, 'a multipart post through a link asking for JSON: 201';
unlike $r->content, qr/secret-crm-8|"metadata"/, 'without the metadata';

# ---- 3. a multipart post's Idempotency-Key covers the link -----------------------------
my (undef, $upath2) = link_of($up->{id}, metadata => { crm => 'secret-crm-10' });
my @mp = ([name => 'Pia'], [cv => $PDF, 'cv.pdf', 'application/pdf']);
my %mk = (accept => 'application/json', headers => { 'Idempotency-Key' => "mp-$$" });
my $bare = { action => abs_url($upath), multipart => 1 }; # no page token: the client's key decides
$r = send_page($bare, \@mp, %mk);
is $r->code, 201, 'multipart through link A with a key: 201';
my $n = subs($up->{id});
$r = send_page($bare, \@mp, %mk);
is $r->header('Idempotent-Replayed'), 'true', 'the same bytes and key through link A: a replay';
problem_ok send_page({ action => abs_url($upath2), multipart => 1 }, \@mp, %mk), 422, 'validation-failed',
    'the same bytes and key through link B: 422, not a replay';
problem_ok send_page({ action => abs_url("/f/$up->{id}"), multipart => 1 }, \@mp, %mk), 422,
    'validation-failed', 'the same bytes and key without a link: 422, not a replay';
is subs($up->{id}), $n, 'nothing stored by either';

# ---- 4. file names lose Unicode format characters ------------------------------------
my $ff = publish({ title => 'Names', fields => [ { key => 'f', type => 'file', label => 'F', validation => { maxFiles => 5 } } ] });
my @names = ("invoice\xE2\x80\xAEgpj.exe", "zw\xE2\x80\x8Bsp.txt", "i\xE2\x81\xA6s\xE2\x81\xA7o\xE2\x81\xA8l\xE2\x81\xA9.txt",
             "\xEF\xBB\xBFbom.txt", "al\xD8\x9Cm.txt");
my @want = ('invoicegpj.exe', 'zwsp.txt', 'isol.txt', 'bom.txt', 'alm.txt');
$r = send_page({ action => abs_url("/f/$ff->{id}"), multipart => 1 },
               [ map { [f => 'data', $_, 'application/octet-stream'] } @names ], accept => 'application/json');
is $r->code, 201, 'five files with format characters in their names: 201' or diag $r->content;
my $got = api(GET => "/v1/forms/$ff->{id}/submissions/$r->{json}{id}", token => $tok)->{json}{data}{f};
is_deeply [ map { $_->{name} } @$got ], \@want, 'stored without them';
my ($fpath) = $got->[0]{url} =~ m{/api(/.*)$};
my $cd = api(GET => $fpath, token => $tok)->header('Content-Disposition') // '';
unlike $cd, qr/%E2%80%AE/i, 'the download names no right-to-left override';
like $cd, qr/filename\*=UTF-8''invoicegpj\.exe/, "filename* is the plain name";
# a name stored before the rule: the download's header drops them all the same
my ($fil) = $fpath =~ m{/(fil_[^/?]+)};
psql("UPDATE submission_files SET name = 'old' || chr(8238) || 'gpj.exe' WHERE id = '$fil'");
$cd = api(GET => $fpath, token => $tok)->header('Content-Disposition') // '';
like $cd, qr/filename\*=UTF-8''oldgpj\.exe$/, 'a name stored with U+202E before: the download names it without';
my $uni = send_page({ action => abs_url("/f/$ff->{id}"), multipart => 1 },
                    [[f => 'data', "R\xC3\xA9sum\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC.txt", 'text/plain']], accept => 'application/json');
is uni(api(GET => "/v1/forms/$ff->{id}/submissions/$uni->{json}{id}", token => $tok)->{json}{data}{f}[0]{name}),
    "R\x{e9}sum\x{e9} \x{65e5}\x{672c}.txt", 'ordinary letters beyond ASCII stay';

# ---- 5. the one-time submission token of a form page ------------------------------------
my $tf = publish({ title => 'Tokens', fields => \@fields, settings => { confirmationMessage => 'Landed on tokens.' } });
my $tid = $tf->{id};
my @pages = map { open_page("/f/$tid") } 1 .. 3; # the 2nd and 3rd from the in-memory cache
like $pages[0]{token}, qr/^fst_[A-Za-z0-9_-]{44}$/, 'a form page carries a submission token';
my %seen = map { $_->{token} => 1 } @pages;
is scalar keys %seen, 3, 'a new one in every answer, cached or not';
ok !defined $pages[0]{res}->header('ETag'), 'a page with a token has no ETag: never revalidated (304) into a kept page';
is $pages[0]{res}->header('Cache-Control'), 'no-cache', 'and is asked for again each time';
my $link_pages = [ map { open_page($lpath) } 1 .. 2 ];
isnt $link_pages->[0]{token}, $link_pages->[1]{token}, 'a link page: a new token each time too';

# a double click: two posts of the same page, one submission, both land on thanks
$pg = $pages[0];
landed_ok send_page($pg, [[name => 'Quin']]), $tid, 'Landed on tokens.', 'the first post of a page: thanks';
$r = send_page($pg, [[name => 'Quin']]);
landed_ok $r, $tid, 'Landed on tokens.', 'the same page posted again: the same thanks page';
is $r->previous && $r->previous->header('Idempotent-Replayed'), 'true', '(a replay)';
is subs($tid), 1, 'one submission stored';
landed_ok send_page($pages[1], [[name => 'Quin']]), $tid, 'Landed on tokens.', 'another render of the page';
is subs($tid), 2, 'is another submission';
# the form opened again in the same browser (a second tab, or to fill it
# in once more after the thanks page) and sent with the same answers: a
# browser revalidates a page it kept when it has an ETag, and a 304 gave
# it the kept page, whose token was used: the same answers were then a
# replay, the thanks page shown and nothing stored
my $etag = $pages[2]{res}->header('ETag');
landed_ok send_page($pages[2], [[name => 'Uma']]), $tid, 'Landed on tokens.', 'a page sent';
my $reopened = ua()->get(abs_url("/f/$tid"), Accept => 'text/html', $etag ? ('If-None-Match' => $etag) : ());
is $reopened->code, 200, 'the form opened again in that browser: a fresh page, not a 304';
my $pg3 = $reopened->code == 304 ? $pages[2] : parse_page($reopened);
isnt $pg3->{token}, $pages[2]{token}, 'with a fresh token';
landed_ok send_page($pg3, [[name => 'Uma']]), $tid, 'Landed on tokens.', 'the same answers again: thanks';
is subs($tid), 4, 'and stored: a second filling-in, not a replay';

# back, another answer, resend: not stored under the old token; given back
# with a fresh one, which sends it
$r = send_page($pg, [[name => 'Rae']]);
is $r->code, 422, 'the same page sent with other answers: given back (422)';
like $r->decoded_content, qr/already sent from this page/, 'saying it was sent before';
like $r->decoded_content, qr/value="Rae"/, 'with the new answers';
my $fresh = parse_page($r);
ok $fresh->{token} && $fresh->{token} ne $pg->{token}, 'and a fresh token';
is subs($tid), 4, 'nothing stored meanwhile';
landed_ok send_page($fresh, [[name => 'Rae']]), $tid, 'Landed on tokens.', 'sent from there: thanks';
is subs($tid), 5, 'stored';

# errors keep the token: the fixed answers are the same submission attempt
$pg = open_page("/f/$tid");
$r = send_page($pg, [[name => 'x' x 30]]);
is $r->code, 422, 'invalid answers: the form again';
is parse_page($r)->{token}, $pg->{token}, 'with the token that was posted';
landed_ok send_page(parse_page($r), [[name => 'Sam']]), $tid, 'Landed on tokens.', 'fixed: thanks';
landed_ok send_page(parse_page($r), [[name => 'Sam']]), $tid, 'Landed on tokens.', 'sent twice: thanks';
is subs($tid), 6, 'stored once';

# so does the page of a passing refusal (429 here; a 503 is given back the
# same way): its retry is the same submission attempt
my $rlf = publish({ title => 'Limited', fields => \@fields });
$pg = open_page("/f/$rlf->{id}");
my $last;
for (1 .. 40) { # the default submit rate: 30 a minute per address and form
    $last = send_page($pg, [[name => 'x' x 30]]);
    last if $last->code == 429;
}
is $last->code, 429, 'over the rate: the form again, 429';
is parse_page($last)->{token}, $pg->{token}, 'with the token that was posted';

# eight parallel posts of one page: one submission, eight thanks pages
my $par = publish({ title => 'Parallel', fields => \@fields, settings => { confirmationMessage => 'Landed in parallel.' } });
$pg = open_page("/f/$par->{id}");
my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @{ $pg->{hidden} }, [name => 'Tia'];
pipe(my $go_r, my $go_w) or die $!;
my @kids;
for my $i (1 .. 8) {
    pipe(my $res_r, my $res_w) or die $!;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $go_w; close $res_r;
        my $ua = LWP::UserAgent->new(timeout => 60, requests_redirectable => ['GET', 'HEAD', 'POST']);
        my $rq = HTTP::Request->new(POST => $pg->{action}, ['Content-Type' => 'application/x-www-form-urlencoded',
                                                         Accept => 'text/html', 'Content-Length' => length $body], $body);
        sysread $go_r, my $x, 1;
        my $res = $ua->request($rq);
        my $p0 = $res; $p0 = $p0->previous while $p0->previous;
        print $res_w join("\t", $p0->code, $res->code, URI->new($res->request->uri)->path,
                          ($res->decoded_content // '') =~ /Landed in parallel\./ ? 1 : 0);
        close $res_w;
        POSIX::_exit(0);
    }
    close $res_w;
    push @kids, [$pid, $res_r];
}
close $go_r;
close $go_w; # all go
my @res;
for (@kids) { my ($pid, $fh) = @$_; push @res, scalar do { local $/; <$fh> }; waitpid $pid, 0 }
is scalar(grep { $_ eq "303\t200\t" . BASE . "/f/$par->{id}/thanks\t1" } @res), 8,
    'eight parallel posts of one page: each lands on the thanks page' or diag join "\n", @res;
is subs($par->{id}), 1, 'one submission stored';

# a multipart page: the token holds there too
$pg = open_page($upath);
ok $pg->{token}, 'an upload page has its token';
my $nu = subs($up->{id});
landed_ok send_page($pg, [[name => 'Uma'], [cv => $PDF, 'cv.pdf', 'application/pdf']]), $up->{id},
    'Landed on upload.', 'an upload page posted';
landed_ok send_page($pg, [[name => 'Uma'], [cv => $PDF, 'cv.pdf', 'application/pdf']]), $up->{id},
    'Landed on upload.', 'and posted again';
is subs($up->{id}), $nu + 1, 'stored once';

# tokens of another form, of another link, or made up: a clean 400
my $pa = open_page("/f/$fid");
my $n_t = subs($tid);
$r = send_page({ %$pa, action => abs_url("/f/$tid") }, [[name => 'Vic']], follow => 0);
problem_ok $r, 400, 'malformed-request', "form A's token on form B: 400";
like $r->{json}{detail}, qr/not one of this form/, 'saying so';
is subs($tid), $n_t, 'nothing stored';
$r = send_page({ %{ open_page("/f/$fid") }, action => abs_url($lpath) }, [[name => 'Wyn']], follow => 0);
problem_ok $r, 400, 'malformed-request', 'a page without a link, posted through a link: 400';
$r = send_page({ %{ open_page($lpath) }, action => abs_url("/f/$fid") }, [[name => 'Wyn']], follow => 0);
problem_ok $r, 400, 'malformed-request', "a link page's token without the link: 400";
$r = send_page({ action => abs_url("/f/$tid"), hidden => [[_token => 'fst_' . ('A' x 44)]] }, [[name => 'Xo']], follow => 0);
problem_ok $r, 400, 'malformed-request', 'a made-up token: 400';
$r = send_page({ action => abs_url("/f/$tid"), hidden => [[_token => 'x']] }, [[name => 'Xo']], follow => 0,
               accept => 'application/json');
problem_ok $r, 400, 'malformed-request', 'a malformed token: 400';
is subs($tid), $n_t, 'none stored';
# a post without a token (an older page, a script) is taken as before
landed_ok send_page({ action => abs_url("/f/$tid") }, [[name => 'Yul']]), $tid, 'Landed on tokens.',
    'a post without a token: thanks';

done_testing;
