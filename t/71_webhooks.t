# Webhooks: CRUD, quota, URL refusal, and real signed delivery to a
# receiver on 127.0.0.1 (FormsvcWebhookAllowPrivate On in the test config),
# with a retry after a 500.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcTest::Receiver qw(signature_ok);
use IO::Socket::INET;
use JSON::PP ();

my $J = JSON::PP->new->canonical;
my $P = base_url() . '/problems/';

# ---- the receiver (t/lib/FormsvcTest/Receiver.pm): answers /ok with 200,
# /flaky with 500 then 200, /fail with 500; records every request ------------
my $rcv = FormsvcTest::Receiver->start;
my $port = $rcv->port;

my ($tok, $me) = signup();
my $uid = $me->{user}{id};
sub hook { api(POST => '/v1/webhooks', token => $_[1] // $tok, body => $_[0]) }
my $ok_url = "http://127.0.0.1:$port/ok";

# ---- quota: unverified accounts have none ------------------------------------
my $r = hook({ url => $ok_url, events => ['submission.created'] });
is $r->code, 403, 'unverified: 403';
is $r->{json}{type}, "${P}quota-exceeded", 'quota-exceeded';
is $r->{json}{quota}, 'webhooks', 'quota webhooks';
is $r->{json}{limit}, 0, 'limit 0';
sql("UPDATE users SET verified = true WHERE id = '$uid'");

# ---- validation ---------------------------------------------------------------
$r = hook({});
is $r->code, 422, 'empty body 422';
is_deeply [ sort map { $_->{pointer} } @{ $r->{json}{errors} } ], [ '/events', '/url' ], 'url and events required';
for my $bad ('ftp://example.com/', 'https://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]/',
             'https://0.0.0.0/', '/relative', 'https://u:p@example.com/', 'https://exa mple.com/',
             # metadata behind IPv4-translated, NAT64 and 6to4 forms
             'http://[::ffff:0:a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::1]/') {
    $r = hook({ url => $bad, events => ['form.closed'] });
    is $r->code, 422, "url $bad refused";
    is $r->{json}{errors}[0]{pointer}, '/url', 'pointer /url';
}
$r = hook({ url => 42, events => [] , extra => 1 });
is_deeply [ sort map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} } ],
    [ '/events minItems', '/extra unknown', '/url type' ], 'all errors at once';
$r = hook({ url => $ok_url, events => [ 'submission.created', 'nope', 'submission.created', 7 ] });
is_deeply [ map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} } ],
    [ '/events/1 enum', '/events/2 unique', '/events/3 type' ], 'event type errors';
$r = hook({ url => $ok_url, events => ['form.closed'], formId => 'frm_00000000000000000000000000' });
is $r->{json}{errors}[0]{pointer}, '/formId', 'unknown formId 422';
is api(POST => '/v1/webhooks', token => $tok, body => '{"url": "x", "url": "y"}')->code, 400, 'duplicate member 400';
is api(POST => '/v1/webhooks', token => $tok, body => 'url=x',
       headers => { 'Content-Type' => 'application/x-www-form-urlencoded' })->code, 415, 'not JSON: 415';
is api(POST => '/v1/webhooks', token => $tok, body => '[1]')->code, 400, 'not an object: 400';
$r = hook({ url => 'https://example.com/' . ('a' x 2040), events => ['form.closed'] });
is $r->{json}{errors}[0]{pointer}, '/url', 'url over 2048 characters';
is api(PATCH => '/v1/webhooks', token => $tok, body => {})->code, 405, 'PATCH on the list: 405';
is api(GET => '/v1/webhooks?limit=101', token => $tok)->code, 422, 'list limit 101';
is api(GET => '/v1/webhooks?cursor=!!', token => $tok)->code, 400, 'bad list cursor';

# ---- a form to watch ------------------------------------------------------------
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Hooked',
    fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
my $fid = $r->{json}{id};

# ---- create, read, list ----------------------------------------------------------
$r = hook({ url => $ok_url, events => [ 'submission.created', 'form.published' ] });
is $r->code, 201, 'created';
my $w = $r->{json};
like $w->{id}, qr/^whk_[0-9A-Z]{26}$/, 'whk_ id';
like $w->{secret}, qr{^whsec_[A-Za-z0-9+/]{32}$}, 'whsec_ secret, 192 bits of base64';
is $r->header('Location'), base_url() . "/v1/webhooks/$w->{id}", 'Location';
is_deeply $w->{events}, [ 'submission.created', 'form.published' ], 'events';
ok !defined $w->{formId}, 'every form';
$r = api(GET => "/v1/webhooks/$w->{id}", token => $tok);
is $r->code, 200, 'get 200';
ok !exists $r->{json}{secret}, 'secret shown once';
is $r->{json}{url}, $ok_url, 'url kept';
$r = api(GET => '/v1/webhooks', token => $tok);
is_deeply [ map { $_->{id} } @{ $r->{json}{data} } ], [ $w->{id} ], 'listed';
ok !exists $r->{json}{data}[0]{secret}, 'no secret in the list';
is api(GET => '/v1/webhooks/whk_nope', token => $tok)->code, 404, 'malformed id 404';
my ($other) = signup();
is api(GET => "/v1/webhooks/$w->{id}", token => $other)->code, 404, 'another account: 404';
is api(DELETE => "/v1/webhooks/$w->{id}", token => $other)->code, 404, 'another account cannot delete';
is api(GET => "/v1/webhooks/$w->{id}/deliveries", token => $other)->code, 404, 'nor see deliveries';
like $J->encode([ sql("SELECT secret FROM webhooks WHERE id = '$w->{id}'") ]), qr/^\["[A-Za-z0-9_-]+"\]$/, 'stored sealed';
unlike sql("SELECT secret FROM webhooks WHERE id = '$w->{id}'"), qr/\Q$w->{secret}\E/, 'not in clear';

my $flaky = hook({ url => "http://127.0.0.1:$port/flaky", events => ['submission.created'], formId => $fid });
is $flaky->code, 201, 'flaky webhook for one form';
$flaky = $flaky->{json};
is $flaky->{formId}, $fid, 'formId kept';

$r = api(GET => '/v1/me', token => $tok);
is $r->{json}{quota}{limits}{webhooks}{used}, 2, '/v1/me counts the webhooks';
is $r->{json}{quota}{limits}{webhooks}{limit}, 20, 'verified limit 20';

# ---- delivery -------------------------------------------------------------------

is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'publish';
is api(POST => "/f/$fid", body => { name => 'Grace' })->code, 201, 'submit';
my @got = $rcv->wait_received('/ok', 2, 30);
is scalar @got, 2, 'two deliveries to /ok (publish, submission)';
my %by = map { $J->decode($_->{body})->{type} => $_ } @got;
ok $by{'form.published'} && $by{'submission.created'}, 'both types';
my $rec = $by{'submission.created'};
ok signature_ok($rec, $w->{secret}), 'signature verifies with the secret';
like $rec->{headers}{'webhook-id'}, qr/^dlv_/, 'webhook-id is the delivery id';
like $rec->{headers}{'webhook-timestamp'}, qr/^\d{10}$/, 'webhook-timestamp in seconds';
cmp_ok abs($rec->{headers}{'webhook-timestamp'} - time), '<', 600, 'timestamp is now';
like $rec->{headers}{'content-type'}, qr{^application/json}, 'JSON body';
my $body = $J->decode($rec->{body});
is $body->{data}{data}{name}, 'Grace', 'the submission in the body';
like $body->{id}, qr/^evt_/, 'event id in the body';
ok !signature_ok({ %$rec, body => $rec->{body} . ' ' }, $w->{secret}), 'a changed body does not verify';

# ---- a host name: resolved, checked and pinned by the worker -----------------
$r = hook({ url => "http://localhost:$port/named", events => ['form.closed'], formId => $fid });
is $r->code, 201, 'a webhook by host name (localhost: allowed as private here)';
is api(POST => "/v1/forms/$fid/close", token => $tok)->code, 200, 'close';
my @named = $rcv->wait_received('/named', 1, 30);
is scalar @named, 1, 'delivered through the resolved address';
is $J->decode($named[0]{body})->{type}, 'form.closed', 'form.closed';
is $J->decode($named[0]{body})->{data}{status}, 'closed', 'with the closed form';

# ---- retry after a 500 ----------------------------------------------------------
my @fl = $rcv->wait_received('/flaky', 2, 40);
is scalar @fl, 2, 'flaky receiver got two attempts';
is $fl[0]{status}, 500, 'first answered 500';
is $fl[1]{status}, 200, 'then 200';
is $fl[0]{headers}{'webhook-id'}, $fl[1]{headers}{'webhook-id'}, 'same webhook-id on the retry';
ok signature_ok($_, $flaky->{secret}), 'retry signed' for @fl;
my $d;
wait_for(sub {
    $d = api(GET => "/v1/webhooks/$flaky->{id}/deliveries", token => $tok)->{json}{data};
    $d->[0] && $d->[0]{status} eq 'succeeded';
}, 20, 'the retried delivery to succeed');
is scalar @$d, 1, 'one delivery';
is $d->[0]{status}, 'succeeded', 'succeeded';
is $d->[0]{attempts}, 2, 'two attempts';
is_deeply [ map { $_->{status} } @{ $d->[0]{attemptLog} } ], [ 500, 200 ], 'attempts recorded';
is $d->[0]{eventType}, 'submission.created', 'eventType';
$r = api(GET => "/v1/webhooks/$w->{id}/deliveries?limit=1", token => $tok);
is scalar @{ $r->{json}{data} }, 1, 'deliveries paged';
ok $r->{json}{nextCursor}, 'next page';
$r = api(GET => "/v1/webhooks/$w->{id}/deliveries?limit=1&cursor=$r->{json}{nextCursor}", token => $tok);
is scalar @{ $r->{json}{data} }, 1, 'second page';
ok !defined $r->{json}{nextCursor}, 'last page';

# ---- giving up after about a day ----------------------------------------------
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Failing',
    fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
my $ffail = $r->{json}{id};
$r = hook({ url => "http://127.0.0.1:$port/fail", events => ['form.published'], formId => $ffail });
my $fw = $r->{json}{id};
is api(POST => "/v1/forms/$ffail/publish", token => $tok)->code, 200, 'publish the failing form';
# /fail answers 500; after the first attempt the webhook is pointed at a
# closed port and the delivery made a day old, so the next attempt is its last
my @f1 = $rcv->wait_received('/fail', 1, 30);
is scalar @f1, 1, 'first attempt';
my $closed = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp', Listen => 1);
my $cport = $closed->sockport; close $closed;
sql("UPDATE webhooks SET url = 'http://127.0.0.1:$cport/gone' WHERE id = '$fw'");
sql("UPDATE deliveries SET created_at = now() - interval '25 hours', next_at = now() WHERE webhook_id = '$fw'");
wait_for(sub {
    $d = api(GET => "/v1/webhooks/$fw/deliveries", token => $tok)->{json}{data};
    $d->[0]{status} ne 'pending';
}, 20, 'the delivery to end');
is $d->[0]{status}, 'failed', 'failed once the next attempt would be more than a day after the event';
is $d->[0]{attempts}, 2, 'after its second attempt';
ok !defined $d->[0]{nextAttemptAt}, 'no next attempt';
ok defined $d->[0]{completedAt}, 'completedAt';
ok !defined $d->[0]{attemptLog}[1]{status}, 'no HTTP status from a closed port';
like $d->[0]{attemptLog}[1]{error}, qr/\S/, 'the error is recorded';

# ---- form: constraints ------------------------------------------------------------
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Other' });
my $fid2 = $r->{json}{id};
$r = api(POST => '/v1/keys', token => $tok, body => { name => 'c', scopes => [ 'webhooks:write', "form:$fid2" ] });
my $ck = $r->{json}{secret};
$r = hook({ url => $ok_url, events => ['form.closed'] }, $ck);
is $r->{json}{errors}[0]{pointer}, '/formId', 'a constrained key must name a form';
$r = hook({ url => $ok_url, events => ['form.closed'], formId => $fid }, $ck);
is $r->{json}{errors}[0]{pointer}, '/formId', 'not a form outside its constraints';
$r = hook({ url => $ok_url, events => ['form.closed'], formId => $fid2 }, $ck);
is $r->code, 201, 'its own form';
my $cw = $r->{json}{id};
$r = api(GET => '/v1/webhooks', token => $ck);
is_deeply [ map { $_->{id} } @{ $r->{json}{data} } ], [ $cw ], 'lists only its form';
is api(GET => "/v1/webhooks/$w->{id}", token => $ck)->code, 404, 'account-wide webhook invisible';
$r = api(POST => '/v1/keys', token => $tok, body => { name => 'r', scopes => ['webhooks:read'] });
is hook({ url => $ok_url, events => ['form.closed'] }, $r->{json}{secret})->{json}{type},
    "${P}insufficient-scope", 'webhooks:write needed';

# ---- a form's webhooks go with the form ----------------------------------------
is api(DELETE => "/v1/forms/$ffail", token => $tok)->code, 204, 'delete a form';
is api(GET => "/v1/webhooks/$fw", token => $tok)->code, 404, 'its webhook is gone';

# ---- delete --------------------------------------------------------------------
is api(DELETE => "/v1/webhooks/$w->{id}", token => $tok)->code, 204, 'deleted';
is api(GET => "/v1/webhooks/$w->{id}", token => $tok)->code, 404, 'gone';
is api(GET => "/v1/webhooks/$w->{id}/deliveries", token => $tok)->code, 404, 'its deliveries gone';
is api(DELETE => "/v1/webhooks/$w->{id}", token => $tok)->code, 404, 'delete again 404';

done_testing;
