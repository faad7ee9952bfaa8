# Owner notification mail: settings.notify mails each
# stored submission (or an hourly digest) to the addresses that agreed.
# Only verified accounts may set it; an address other than the account's
# own is asked first by a link; every message carries RFC 8058 one-click
# unsubscribe; the account's notifications per UTC day are capped
# (FormsvcQuota verified notifications 10 in t/conf/extra.conf.in), exactly
# under 16 parallel submissions. The suite's own server, whose worker reads
# the jobs of sql/0028 and writes .eml files (t/logs/mail).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcMail qw(mail_for mail_count_for wait_mail settle);
use FormsTest qw(verify_account problem_ok);
use Apache::TestRequest ();
use HTTP::Request;
use JSON::PP ();
use POSIX ();

my $J = JSON::PP->new->utf8->canonical;
# Only this file's mail is waited for: another test's instance that stopped
# while its worker held a lease leaves rows that go out only when the lease
# lapses (5 minutes), and they are not this test's business.
my $T0 = FormsTest::psql('SELECT now()');
my $MINE = " AND created_at >= '$T0'";
my $P = base_url() . '/problems/';

sub fresh_verified {
    my ($tok, $s) = signup();
    verify_account($tok);
    # the credential cache sees the change within 1 s
    wait_for(sub { api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 15, 'verified');
    return ($tok, $s->{user}{email});
}
sub mkform {
    my ($tok, $settings) = @_;
    return api(POST => '/v1/forms', token => $tok, body => {
        title => 'Tickets <b>&</b> more',
        fields => [ { key => 'name', type => 'text', label => 'Name' },
                    { key => 'email', type => 'email', label => 'E-mail' },
                    { key => 'note', type => 'textarea', label => 'Note' } ],
        settings => $settings });
}
sub submit {
    my ($fid, $body) = @_;
    return api(POST => "/f/$fid", body => $body, headers => { Accept => 'application/json' });
}
# a request to an absolute URL of a mail; the suite's host and port
sub fetch {
    my ($method, $url, $body, $type) = @_;
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $req = HTTP::Request->new($method => $url);
    if (defined $body) {
        $req->header('Content-Type' => $type // 'application/x-www-form-urlencoded');
        $req->content($body);
        $req->header('Content-Length' => length $body);
    }
    return $ua->request($req);
}
sub recipients {
    my ($tok, $fid) = @_;
    my $r = api(GET => "/v1/forms/$fid/notify", token => $tok);
    return { map { $_->{email} => $_ } @{ $r->{json}{recipients} || [] } }, $r;
}

# ---- an unverified account may not ask for mail ---------------------------------
my ($ut) = signup();
my $r = mkform($ut, { notify => { emails => ['ops@example.com'] } });
problem_ok($r, 403, 'quota-exceeded', 'unverified: notify is 403');
is $r->{json}{quota}, 'notifications', 'the quota is notifications';
is $r->{json}{limit}, 0, 'its limit is 0';
like $r->{json}{detail}, qr/verif/i, 'the detail says to verify';
$r = mkform($ut, {});
is $r->code, 201, 'unverified: a form without mail';
my $ufid = $r->{json}{id};
is_deeply [ @{ $r->{json}{settings} }{qw(notify confirmation)} ], [ undef, undef ],
    'settings show notify and confirmation null';
$r = api(PATCH => "/v1/forms/$ufid", token => $ut,
         body => { settings => { notify => { emails => ['ops@example.com'] } } });
problem_ok($r, 403, 'quota-exceeded', 'unverified: PATCH notify is 403');

# ---- validation -------------------------------------------------------------------
my ($tok, $own) = fresh_verified();
$r = mkform($tok, { notify => { emails => ['ops@example.com', 'not an address', 'OPS@example.com'],
                                mode => 'weekly' } });
is $r->code, 422, 'bad notify: 422';
my %err = map { $_->{pointer} => $_->{code} } @{ $r->{json}{errors} || [] };
is $err{'/settings/notify/emails/1'}, 'format', 'an address that is none';
is $err{'/settings/notify/emails/2'}, 'unique', 'the same address twice (case ignored)';
is $err{'/settings/notify/mode'}, 'enum', 'mode each or hourly';
$r = mkform($tok, { notify => { emails => ["a\@example.com\r\nBcc: victim\@example.org"] } });
is $r->code, 422, 'an address with a header in it: 422';

# ---- the owner's own address at once, another after it agrees -----------------------
my $other = sprintf 'other%d.%d@example.com', $$, time;
$r = mkform($tok, { notify => { emails => [ $own, $other ] } });
is $r->code, 201, 'verified: a form with notify';
my $fid = $r->{json}{id};
is_deeply $r->{json}{settings}{notify}, { emails => [ $own, $other ], mode => 'each' },
    'settings.notify as normalised';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my ($rc, $rr) = recipients($tok, $fid);
is $rr->code, 200, 'GET /v1/forms/{id}/notify';
is $rc->{$own}{status}, 'confirmed', "the account's own address: confirmed at once";
is $rc->{$other}{status}, 'pending', 'another address: pending';
is $rr->{json}{mode}, 'each', 'mode';
ok defined $rr->{json}{notificationsToday}{limit}, 'notificationsToday shows the quota';

# the public views never show the addresses
my $pub = api(GET => "/f/$fid", headers => { Accept => 'application/json' });
unlike $pub->content, qr/\Q$other\E|notify/, 'JSON view: no notify addresses';
$pub = api(GET => "/f/$fid", headers => { Accept => 'text/html' });
unlike $pub->content, qr/\Q$other\E/, 'HTML page: no notify addresses';

# someone else's key cannot see them
my ($bt) = signup();
problem_ok(api(GET => "/v1/forms/$fid/notify", token => $bt), 404, 'not-found',
           "another account's form: 404");

# the same through MCP
$r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
         body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                   params => { name => 'get_form_notify', arguments => { formId => $fid } } });
is_deeply [ sort map { $_->{email} } @{ $r->{json}{result}{structuredContent}{recipients} || [] } ],
    [ sort $own, $other ], 'MCP get_form_notify: the recipients';
ok !$r->{json}{result}{isError}, 'not an error';

my $ask = wait_mail($other);
ok $ask, 'the other address is asked by mail';
like $ask->{headers}{subject}, qr/Confirm notifications/, 'subject';
my ($link) = ($ask->{body} // '') =~ m{(http\S+/notify/confirm\?token=[A-Za-z0-9_-]{43})};
ok $link, 'with a confirmation link';
is mail_count_for($own), 0, 'the own address is not asked';
is fetch(HEAD => $link)->code, 200, 'HEAD on the link spends nothing';
my $page = fetch(GET => $link);
is $page->code, 200, 'the link shows a page';
like $page->content, qr{<form[^>]+method="post"}i, 'with a button that POSTs';
is $page->header('Referrer-Policy'), 'no-referrer', 'the token is not sent on';
($rc) = recipients($tok, $fid);
is $rc->{$other}{status}, 'pending', 'GET confirms nothing';
my ($token) = $link =~ /token=(\S+)/;
(my $post = $link) =~ s/\?.*//;
$r = fetch(POST => $post, "token=$token");
is $r->code, 200, 'POST with the token: 200';
like $r->content, qr/confirmed/i, 'a page says so';
is fetch(POST => $post, "token=$token")->code, 400, 'the token works once';
is fetch(POST => $post, 'token=' . ('A' x 43))->code, 400, 'a made-up token: 400';
($rc) = recipients($tok, $fid);
is $rc->{$other}{status}, 'confirmed', 'the other address is confirmed';

# ---- a submission reaches both ----------------------------------------------------------
$r = submit($fid, { name => "Ann <script>x</script> {{note}}", email => 'ann@example.org',
                    note => "line 1\nline 2" });
is $r->code, 201, 'a submission';
my $sid = $r->{json}{id};
my $m1 = wait_mail($own);
my $m2 = wait_mail($other);
ok $m1 && $m2, 'both addresses are mailed';
like $m1->{headers}{subject}, qr/^New submission: Tickets <b>&<\/b> more$/, 'subject: the title, as text';
like $m1->{body}, qr/Name:\r?\n  Ann <script>x<\/script> \{\{note\}\}/, 'the answers as plain text, nothing interpreted';
like $m1->{body}, qr/Note:\r?\n  line 1\r?\n  line 2/, 'multi-line answers indented';
like $m1->{body}, qr/\Q$sid\E/, 'the submission id';
like $m1->{body}, qr{/v1/forms/$fid/submissions/$sid}, 'its API URL';
like $m1->{headers}{'content-type'}, qr{text/plain; charset=utf-8}, 'plain text';
my ($unsub) = ($m2->{headers}{'list-unsubscribe'} // '') =~ /^<(https?:\S+)>$/;
ok $unsub, 'List-Unsubscribe: <url>';
is $m2->{headers}{'list-unsubscribe-post'}, 'List-Unsubscribe=One-Click', 'List-Unsubscribe-Post (RFC 8058)';
like $m2->{body}, qr/\Q$unsub\E/, 'the body has the link too';
isnt $m1->{headers}{'list-unsubscribe'}, $m2->{headers}{'list-unsubscribe'}, 'a link per address';

# ---- one-click unsubscribe ------------------------------------------------------------------
(my $forged = $unsub) =~ s/\.([0-9a-f])/'.' . ($1 eq 'a' ? 'b' : 'a')/e;
is fetch(POST => $forged, 'List-Unsubscribe=One-Click')->code, 400, 'a forged MAC: 400';
(my $others = $unsub) =~ s/nrc_\w+\./nrc_01ABCDEFGHJKMNPQRSTVWXYZ01./;
is fetch(POST => $others, 'List-Unsubscribe=One-Click')->code, 400, "another recipient's id with this MAC: 400";
($rc) = recipients($tok, $fid);
is $rc->{$other}{status}, 'confirmed', 'still confirmed';
$page = fetch(GET => $unsub);
is $page->code, 200, 'GET on the link: a page with a button';
my ($uval) = $page->content =~ /name="u" value="([^"]+)"/;
ok $uval, 'the button carries the link\'s u';
is fetch(GET => (split /\?/, $unsub)[0] . '?u=garbage')->code, 400, 'a garbage u: 400';
($rc) = recipients($tok, $fid);
is $rc->{$other}{status}, 'confirmed', 'GET unsubscribes nothing';
# the page's button: u in the form-encoded body, to the bare path
(my $bare = $unsub) =~ s/\?.*//;
$r = fetch(POST => $bare, 'u=' . ($uval // ''));
is $r->code, 200, 'the button of the page: 200';
like $r->content, qr/receives no more submissions/, 'a page says so';
$r = fetch(POST => $unsub, 'List-Unsubscribe=One-Click');
is $r->code, 200, 'the RFC 8058 POST: 200';
is fetch(POST => $unsub, 'List-Unsubscribe=One-Click')->code, 200, 'again: 200';
($rc) = recipients($tok, $fid);
is $rc->{$other}{status}, 'unsubscribed', 'the address is off';
ok $rc->{$other}{unsubscribedAt}, 'unsubscribedAt';
is submit($fid, { name => 'Bob' })->code, 201, 'another submission';
ok wait_mail($own, 2), 'the own address gets it';
settle($fid, $T0);
is mail_count_for($other), 2, 'the unsubscribed one does not';

# listed again: asked again, not mailed until it agrees
$r = api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => { notify => { emails => [ $own ] } } });
is $r->code, 200, 'the address removed';
$r = api(PATCH => "/v1/forms/$fid", token => $tok,
         body => { settings => { notify => { emails => [ $own, $other ], mode => 'each' } } });
is $r->code, 200, 'and added again';
($rc) = recipients($tok, $fid);
is $rc->{$other}{status}, 'pending', 'pending again';
ok wait_mail($other, 3), 'a new confirmation request';
like((sort { $a->{file} cmp $b->{file} } mail_for($other))[-1]{headers}{subject}, qr/Confirm/, 'it asks to confirm');

# spam (the honeypot filled in) mails nobody
my $before = mail_count_for($own);
$r = api(POST => "/f/$fid", body => 'name=Bot&_hp=http%3A%2F%2Fspam.example',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 303, 'spam is answered as a success';
settle($fid, $T0);
is mail_count_for($own), $before, 'but not mailed';

# ---- hourly digest ------------------------------------------------------------------------------
my ($dt, $down) = fresh_verified();
$r = mkform($dt, { notify => { emails => [ $down ], mode => 'hourly' } });
my $dfid = $r->{json}{id};
api(POST => "/v1/forms/$dfid/publish", token => $dt);
is submit($dfid, { name => "D$_" })->code, 201, "digest submission $_" for 1 .. 3;
sleep 2;   # a window for a wrong early digest to show (time is the subject)
is mail_count_for($down), 0, 'hourly: nothing before the hour ends';
is FormsTest::psql("SELECT count(*) FROM mail_jobs WHERE form_id = '$dfid' AND kind = 'digest'"), 3,
    'three submissions wait for the digest';
# the hour ends (moved back in the database, as time would)
FormsTest::psql("UPDATE mail_jobs SET created_at = created_at - interval '1 hour' WHERE form_id = '$dfid'");
my $dg = wait_mail($down);
ok $dg, 'after the hour: one digest';
like $dg->{headers}{subject}, qr/^3 new submissions: /, 'subject counts them';
like $dg->{body}, qr/D1.*D2.*D3/s, 'all three, in order';
ok $dg->{headers}{'list-unsubscribe'}, 'with one-click unsubscribe';
settle($dfid, $T0);
is mail_count_for($down), 1, 'one mail for the hour';

# ---- the daily quota, exactly, under parallel submissions ---------------------------------------
my ($qt, $qown) = fresh_verified();
$r = mkform($qt, { notify => { emails => [ $qown ] } });
my $qfid = $r->{json}{id};
api(POST => "/v1/forms/$qfid/publish", token => $qt);
my @kids = map {
    my $i = $_;
    my $pid = fork // die "fork: $!";
    if (!$pid) { POSIX::_exit(submit($qfid, { name => "Q$i" })->code == 201 ? 0 : 1) }
    $pid;
} 1 .. 16;
my $ok = 0;
for (@kids) { waitpid($_, 0); $ok++ if $? == 0 }
is $ok, 16, '16 parallel submissions stored';
settle($qfid, $T0);
is mail_count_for($qown), 10, 'exactly 10 notifications: the daily quota';
$r = api(GET => "/v1/forms/$qfid/notify", token => $qt);
is_deeply $r->{json}{notificationsToday}, { limit => 10, used => 10 }, 'notificationsToday: 10 of 10';

# ---- one address listed by six accounts at once: asked 3 times a day, no more --------------
my $target = sprintf 'listed%d.%d@example.com', $$, time;
my @toks = map { (fresh_verified())[0] } 1 .. 6;
@kids = map {
    my $t = $_;
    my $pid = fork // die "fork: $!";
    if (!$pid) { POSIX::_exit(mkform($t, { notify => { emails => [ $target ] } })->code == 201 ? 0 : 1) }
    $pid;
} @toks;
$ok = 0;
for (@kids) { waitpid($_, 0); $ok++ if $? == 0 }
is $ok, 6, 'six forms list the same address';
FormsvcTest::wait_for(sub {
    FormsTest::psql("SELECT count(*) FROM mail_jobs WHERE kind = 'address'") == 0
        && FormsTest::psql("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL$MINE") == 0;
}, 30, 'the requests to confirm to be delivered');
is mail_count_for($target), 3, 'it receives 3 requests to confirm (FormsvcConfirmationMailsPerAddress)';

done_testing;
