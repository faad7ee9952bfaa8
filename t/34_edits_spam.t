# The bot checks hold for edits after sending (settings.allowEdits with
# settings.spamThreshold): an edit whose answers the checks flag (three
# links, a spamScore of 50 against a threshold of 40; the honeypot filled)
# changes nothing, and is answered as an edit is (200 for JSON, the thanks
# page for a browser), so a link earned by a clean first submission cannot
# put answers the checks would flag into the owner's list. The time to
# fill does not count on an edit (its page comes filled in): a quick edit
# by a person is stored. On the old code the link-filled edit replaced
# the answers, spam false and spamScore 0.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(make_form);
use Apache::TestRequest ();
use HTTP::Request ();
use JSON::PP ();
use URI::Escape qw(uri_escape_utf8);

my $J = JSON::PP->new->utf8->canonical;
my ($tok) = signup();

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
    $p{edit} = unent($1) if $html =~ /<a href="([^"]*\?edit=[^"]*)"/;
    return \%p;
}
sub open_page { page_of(ua()->get(abs_url(shift), Accept => 'text/html')) }
sub post_page {
    my ($pg, @answers) = @_;
    my @pairs = (@{ $pg->{hidden} || [] }, @answers);
    my $req = HTTP::Request->new(POST => $pg->{action});
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return page_of(ua()->request($req));
}

# the threshold is set after the first answer: a test posts faster than a
# person fills a form, and the first submission must be a clean one
my $f = make_form($tok, { title => 'Edit spam', fields => [
        { key => 'name', type => 'text', label => 'Name' },
        { key => 'msg', type => 'textarea', label => 'Message' } ],
    settings => { allowEdits => { untilHours => 2 } } });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $t = post_page(open_page("/f/$fid"), [name => 'Ann'], [msg => 'hello']);
like $t->{res}->request->uri, qr{/thanks\?edit=}, 'sent: the thanks page with the edit link';
my $edit = $t->{edit};
my ($sid) = ($edit // '') =~ /edit=(sub_\w+)\./;
ok $sid, 'the edit link' or BAIL_OUT('no edit link');
my $r = api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => { spamThreshold => 40 } });
is $r->code, 200, 'spamThreshold 40 set' or diag $r->content;
my $sub = sub { api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok)->{json} };
is $sub->()->{data}{msg}, 'hello', 'stored as sent';

# ---- JSON: three links (spamScore 50) -------------------------------------------
my ($path) = $edit =~ m{(/f/.*)$};
my $spam = { name => 'Ann', msg => 'buy http://a.example http://b.example www.c.example' };
$r = api(POST => $path, body => $J->encode($spam), headers => { Accept => 'application/json' });
is $r->code, 200, 'an edit with three links: 200, as an edit' or diag $r->content;
is $r->{json}{id}, $sid, '  with the submission id';
my $now = $sub->();
is $now->{data}{msg}, 'hello', '  the answers are not replaced';
ok !$now->{spam}, '  the submission is not made spam';
is $now->{version}, 1, '  and no version was made';
is api(GET => "/v1/forms/$fid/submissions/$sid/versions", token => $tok)->{json}{data}[0]{version}, 1,
    '  the versions: still one';

# ---- a browser: the honeypot filled --------------------------------------------
my $e = open_page($edit);
is $e->{code}, 200, 'the edit page';
my $d = post_page($e, [name => 'Ann'], [msg => 'changed by a bot'], [_hp => 'http://bot.example']);
like $d->{res}->request->uri, qr{/thanks\?edit=\Q$sid\E\.}, 'the honeypot filled: the thanks page, as an edit';
is $sub->()->{data}{msg}, 'hello', '  nothing changed';

# ---- a person editing quickly: stored --------------------------------------------
$d = post_page(open_page($edit), [name => 'Ann'], [msg => 'hello again']);
like $d->{res}->request->uri, qr{/thanks\?edit=\Q$sid\E\.}, 'a quick edit by a person: the thanks page';
$now = $sub->();
is $now->{data}{msg}, 'hello again', '  stored: the time to fill does not count on an edit';
is $now->{version}, 2, '  version 2';
ok !$now->{spam}, '  not spam';

done_testing;
