# Long answers reach the server whatever their script: the public post's
# body limit is the form's own (what its questions can take at their
# longest, fs_fieldset_body_max) when that passes FormsvcMaxBodySubmission
# (64 KiB here). Before, 9,000 Japanese characters in a textarea the page
# allows 10,000 of (81 KB as a form post) were a 413 problem+json in the
# browser, the answer lost. Every post is followed to where the person
# lands; the stored answers are read back.
use strict;
use warnings;
use utf8;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(psql make_form verify_account);
use Apache::TestRequest ();
use HTTP::Request ();
use JSON::PP ();
use URI::Escape qw(uri_escape_utf8);
use Encode ();

my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => [qw(GET HEAD POST)]);
# a page: its body, its form's action and hidden inputs
sub page {
    my $res = shift;
    my $html = Encode::decode('UTF-8', $res->content);
    my ($action) = $html =~ /<form method="post" action="([^"]*)"/;
    $action =~ s/&amp;/&/g if $action;
    my @hidden;
    push @hidden, [$1, $2] while $html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
    return { res => $res, html => $html, action => $action, hidden => \@hidden };
}
sub open_form { page($ua->get(Apache::TestRequest::resolve_url(BASE . "/f/$_[0]"), Accept => 'text/html')) }
sub send_page {   # the page's hidden inputs and these answers, as a browser posts them
    my ($pg, @answers) = @_;
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @{ $pg->{hidden} }, @answers;
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url($pg->{action}));
    $req->header('Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html', 'Content-Length' => length $body);
    $req->content($body);
    return (page($ua->request($req)), length $body);
}
sub stored { JSON::PP->new->utf8->decode(psql("SELECT data::text FROM submissions WHERE form_id = '$_[0]' ORDER BY id DESC LIMIT 1")) }   # psql gives bytes

my ($tok) = signup();
verify_account($tok);
my $T = JSON::PP::true;

# ---- one page: a textarea of 10,000 characters at most ----
my $f = make_form($tok, { title => 'Essay', fields => [{ key => 'essay', type => 'textarea', label => 'Your essay', required => $T }] });
is api(POST => "/v1/forms/$f->{id}/publish", token => $tok)->code, 200, 'a form with a textarea';
my $jp = '日本語の文章' x 1500;   # 9,000 characters
my ($done, $len) = send_page(open_form($f->{id}), [essay => $jp]);
cmp_ok $len, '>', 65536, "9,000 Japanese characters are a body of $len bytes, past 64 KiB";
like $done->{res}->request->uri, qr{/f/\Q$f->{id}\E/thanks}, 'the person lands on the thanks page';
is $done->{res}->code, 200, 'which answers 200';
ok stored($f->{id})->{essay} eq $jp, 'the answer stored whole';

# one character too many: the form again, the text kept, said why
my ($again) = send_page(open_form($f->{id}), [essay => $jp . ('字' x 1001)]);
is $again->{res}->code, 422, '10,001 characters: the form again (422)';
like $again->{html}, qr{at most 10000 characters}, 'saying the limit';
ok index($again->{html}, $jp) >= 0, 'with the text as typed';

# JSON: 10,000 emoji escaped as surrogate pairs (120 KB)
my $emoji = "\x{1f389}" x 10000;
(my $esc = JSON::PP->new->ascii->encode({ essay => $emoji })) ;
cmp_ok length $esc, '>', 65536, 'JSON of 10,000 escaped emoji: past 64 KiB';
my $j = api(POST => "/f/$f->{id}", body => $esc);
is $j->code, 201, 'stored (201)' or diag $j->content;
ok stored($f->{id})->{essay} eq $emoji, 'whole';

# past what the form can take at all: still 413
my $huge = api(POST => "/f/$f->{id}", body => '{"essay":"' . ('x' x 200_000) . '"}');
is $huge->code, 413, 'a body past the form\'s own limit: 413';
like $huge->content, qr{payload-too-large}, 'payload-too-large';

# ---- three pages: each step carries the answers of the pages before,
# sealed (here 80 KB of JSON before the last page: more than the 64 KB a
# state once held, which broke the last step and lost every answer) ----
my $g = make_form($tok, { title => 'Three essays', fields => [
    { key => 'one', type => 'textarea', label => 'First', required => $T },
    { key => 'p2', type => 'page', label => 'Second page' },
    { key => 'two', type => 'textarea', label => 'Second', required => $T },
    { key => 'p3', type => 'page', label => 'Third page' },
    { key => 'three', type => 'textarea', label => 'Third', required => $T }] });
is api(POST => "/v1/forms/$g->{id}/publish", token => $tok)->code, 200, 'a form of three pages';
my $ar = 'نص عربي طويل ' x 700;          # 9,100 characters
my $party = "\x{1f389}" x 10000;        # 10,000 emoji, 40 KB of UTF-8
my ($p2) = send_page(open_form($g->{id}), [one => $party], ['_nav', 'next']);
is $p2->{res}->code, 200, 'Next: page 2';
like $p2->{html}, qr{Second page}, 'showing the second page';
my ($p3) = send_page($p2, [two => $party], ['_nav', 'next']);
is $p3->{res}->code, 200, 'Next: page 3';
like $p3->{html}, qr{Third page}, 'showing the third page';
my ($end, $len3) = send_page($p3, [three => $ar], ['_nav', 'submit']);
cmp_ok $len3, '>', 100_000, "the last page's post, with the two pages before sealed: $len3 bytes";
like $end->{res}->request->uri, qr{/f/\Q$g->{id}\E/thanks}, 'lands on the thanks page';
my $all = stored($g->{id});
ok $all->{one} eq $party && $all->{two} eq $party && $all->{three} eq $ar, 'the three answers stored whole';

# ---- pages of 100,000 emoji each (400 KB of UTF-8): the answers so far
# pass what a page's state carries (768 KiB) on the way to page 3. The
# person stays on page 2, asked to shorten its answer by as much as is too
# long, the text kept; shortened, the form goes on. Before, page 3 came
# with a state no step could read, and its Submit lost every answer. ----
my $MAXLEN = 100_000;
my $h = make_form($tok, { title => 'Long pages', fields => [
    { key => 'one', type => 'textarea', label => 'First', required => $T, validation => { maxLength => $MAXLEN } },
    { key => 'p2', type => 'page', label => 'Second page' },
    { key => 'two', type => 'textarea', label => 'Second', required => $T, validation => { maxLength => $MAXLEN } },
    { key => 'p3', type => 'page', label => 'Third page' },
    { key => 'three', type => 'text', label => 'Third' }] });
is api(POST => "/v1/forms/$h->{id}/publish", token => $tok)->code, 200, 'a form of long pages';
my $long = "\x{1f389}" x $MAXLEN;
my ($q2) = send_page(open_form($h->{id}), [one => $long], ['_nav', 'next']);
like $q2->{html}, qr{Second page}, 'page 2';
my ($refused) = send_page($q2, [two => $long], ['_nav', 'next']);
is $refused->{res}->code, 422, 'Next with 800 KB of answers so far: page 2 again (422)';
like $refused->{html}, qr{Second page}, 'the second page';
my ($n) = $refused->{html} =~ /Second: the answers are too long to carry between the pages\. Shorten this one to at most (\d+) characters\./;
ok $n && $n < $MAXLEN && $n > 50_000, 'asking to shorten its answer, saying to how many characters'
    or diag substr($refused->{html}, 0, 3000);
ok index($refused->{html}, $long) >= 0, 'with the text as typed';
my $short = "\x{1f389}" x ($n // 1);
my ($q3) = send_page($refused, [two => $short], ['_nav', 'next']);
is $q3->{res}->code, 200, 'shortened to that: Next goes on';
like $q3->{html}, qr{Third page}, 'to page 3';
my ($back) = send_page($q3, [three => 'z'], ['_nav', 'back']);
like $back->{html}, qr{Second page}, 'Back: page 2';
ok index($back->{html}, $short) >= 0, 'its answer shown';
($q3) = send_page($back, [two => $short], ['_nav', 'next']);
like $q3->{html}, qr{Third page}, 'Next: page 3 again';
my ($fin) = send_page($q3, [three => 'end'], ['_nav', 'submit']);
like $fin->{res}->request->uri, qr{/f/\Q$h->{id}\E/thanks}, 'Submit lands on the thanks page';
my $got = stored($h->{id});
ok $got->{one} eq $long && $got->{two} eq $short && $got->{three} eq 'end', 'every answer stored whole';

# ---- answers past what the server takes at all, from a browser: a page in
# the browser's language saying to go back and shorten them (the browser's
# Back keeps what was typed), not problem+json shown as raw text ----
my $wide = make_form($tok, { title => 'Three long ones', fields => [
    map { { key => "t$_", type => 'textarea', label => "T$_", validation => { maxLength => 100_000 } } } 1 .. 3 ] });
is api(POST => "/v1/forms/$wide->{id}/publish", token => $tok)->code, 200, 'a form of three textareas of 100,000';
my $cjk = uri_escape_utf8('日' x 100_000);
my $post = join '&', map { "t$_=$cjk" } 1 .. 3;   # 2.7 MB: past FormsvcFileMaxJSONBody
sub big_post {
    my ($fid, $body, %h) = @_;
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$fid"));
    $req->header('Content-Type' => 'application/x-www-form-urlencoded', 'Content-Length' => length $body, %h);
    $req->content($body);
    return $ua->request($req);
}
my $tl = big_post($wide->{id}, $post, Accept => 'text/html');
is $tl->code, 413, '2.7 MB of answers from a browser: 413';
like $tl->header('Content-Type'), qr{^text/html}, 'as a page';
like Encode::decode('UTF-8', $tl->content), qr{Your answers are too long to send.*Go back with your browser, shorten the longest answers}s,
    'saying to go back and shorten them';
my $tlde = big_post($wide->{id}, $post, Accept => 'text/html', 'Accept-Language' => 'de');
like Encode::decode('UTF-8', $tlde->content), qr{Ihre Antworten sind zu lang zum Senden}, 'in the browser\'s language';
my $tlj = big_post($wide->{id}, $post, Accept => 'application/json');
is $tlj->code, 413, 'the same for a program: 413';
like $tlj->header('Content-Type'), qr{^application/problem\+json}, 'as problem+json';
# past the form's own limit (a small form: 64 KiB), under the server's
my $small = make_form($tok, { title => 'Short', fields => [{ key => 'a', type => 'text', label => 'A' }] });
is api(POST => "/v1/forms/$small->{id}/publish", token => $tok)->code, 200, 'a form of one short text';
my $sm = big_post($small->{id}, 'a=' . ('x' x 200_000), Accept => 'text/html');
is $sm->code, 413, 'past the form\'s own limit from a browser: 413';
like Encode::decode('UTF-8', $sm->content), qr{Your answers are too long to send}, 'the same page';

done_testing;
