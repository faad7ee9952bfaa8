# Webhook tools: PATCH /v1/webhooks/{id} (url, events,
# enabled), POST /v1/webhooks/{id}/test (a signed webhook.test delivered
# now), POST /v1/webhooks/{id}/deliveries/{did}/retry; validation as at
# creation, the delegation tree as for delete, form: constraints, scopes,
# and the MCP tools of webhooks. A receiver on 127.0.0.1
# (FormsvcWebhookAllowPrivate On in the test config).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcTest::Receiver qw(signature_ok);
use JSON::PP ();

my $J = JSON::PP->new->canonical;
my $P = base_url() . '/problems/';

# ---- the receiver (t/lib/FormsvcTest/Receiver.pm): answers 200 (500 to
# /fail); records every request ------------------------------------------------
my $rcv = FormsvcTest::Receiver->start;
my $port = $rcv->port;

my ($tok, $me) = signup();
sql("UPDATE users SET verified = true WHERE id = '$me->{user}{id}'");
my $base = "http://127.0.0.1:$port";
sub key { api(POST => '/v1/keys', token => $_[1] // $tok, body => { name => 'k', scopes => $_[0] })->{json}{secret} }
sub patch { my ($id, $b, $t) = @_; api(PATCH => "/v1/webhooks/$id", token => $t // $tok, body => $b) }
sub test_hook { api(POST => "/v1/webhooks/$_[0]/test", token => $_[1] // $tok) }
sub retry { api(POST => "/v1/webhooks/$_[0]/deliveries/$_[1]/retry", token => $_[2] // $tok) }

my $r = api(POST => '/v1/forms', token => $tok,
            body => { title => 'W', fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
my $fid = $r->{json}{id};
$r = api(POST => '/v1/webhooks', token => $tok, body => { url => "$base/a", events => ['form.published'] });
is $r->code, 201, 'a webhook';
my $w = $r->{json};
is $w->{enabled}, JSON::PP::true, 'enabled by default';

# ---- PATCH: validation as at creation --------------------------------------------
for ([ { url => 'ftp://x.example/' }, '/url format' ], [ { url => undef }, '/url type' ],
     [ { events => [] }, '/events minItems' ], [ { events => ['nope'] }, '/events/0 enum' ],
     [ { events => undef }, '/events type' ], [ { enabled => 'yes' }, '/enabled type' ],
     [ { formId => $fid }, '/formId unknown' ]) {
    $r = patch($w->{id}, $_->[0]);
    is $r->code, 422, "PATCH $_->[1]: 422";
    is_deeply [ map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} } ], [ $_->[1] ], $_->[1];
}
$r = patch($w->{id}, { url => 'https://127.0.0.1/x' });
is $r->code, 200, 'loopback allowed here (FormsvcWebhookAllowPrivate On)';
$r = patch($w->{id}, { url => "$base/b", events => [ 'form.published', 'form.closed' ] });
is $r->code, 200, 'PATCH url and events 200';
is $r->{json}{url}, "$base/b", 'url changed';
is_deeply $r->{json}{events}, [ 'form.published', 'form.closed' ], 'events changed';
is api(GET => "/v1/webhooks/$w->{id}", token => $tok)->{json}{url}, "$base/b", 'as stored';
is patch('whk_' . ('0' x 26), { enabled => JSON::PP::false })->code, 404, 'no such webhook 404';
is patch('nope', {})->code, 404, 'malformed id 404';

# submission.created needs submissions:read, as at creation
my $hooks_only = key(['webhooks:write']);
$r = patch($w->{id}, { events => ['submission.created'] }, $hooks_only);
is $r->code, 403, 'adding submission.created without submissions:read 403';
is $r->{json}{requiredScope}, 'submissions:read', 'requiredScope';
$r = api(POST => '/v1/webhooks', token => $hooks_only, body => { url => "$base/h", events => ['form.closed'] });
is $r->code, 201, 'a webhook of a webhooks:write key';
is patch($r->{json}{id}, { enabled => JSON::PP::false }, $hooks_only)->code, 200,
    'other changes need webhooks:write only';
is patch($w->{id}, { enabled => JSON::PP::true }, key(['webhooks:read']))->code, 403,
    'webhooks:read cannot change';

# ---- enabled: false queues nothing -------------------------------------------------
$r = patch($w->{id}, { enabled => JSON::PP::false });
is $r->{json}{enabled}, JSON::PP::false, 'disabled';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'publish';
is_deeply api(GET => "/v1/webhooks/$w->{id}/deliveries", token => $tok)->{json}{data}, [],
    'a disabled webhook is queued nothing';
is patch($w->{id}, { enabled => JSON::PP::true })->{json}{enabled}, JSON::PP::true, 'enabled again';
is api(POST => "/v1/forms/$fid/close", token => $tok)->code, 200, 'close';
my @b = $rcv->wait_received('/b', 1, 20);
is scalar @b, 1, 'enabled: the next event is delivered';

# ---- test: a signed webhook.test, delivered now ----------------------------------------
$r = patch($w->{id}, { url => "$base/t" });
my $before = time;
$r = test_hook($w->{id});
is $r->code, 200, 'test 200';
my $d = $r->{json};
like $d->{id}, qr/^dlv_/, 'the delivery';
is $d->{eventType}, 'webhook.test', 'of a webhook.test event';
is $d->{status}, 'succeeded', 'delivered before the answer';
is $d->{attempts}, 1, 'one attempt';
is $d->{attemptLog}[0]{status}, 200, 'the attempt is recorded';
my @t = $rcv->received('/t');
is scalar @t, 1, 'the receiver got it';
ok signature_ok($t[0], $w->{secret}), 'signed with the webhook secret';
is $t[0]{headers}{'webhook-id'}, $d->{id}, 'webhook-id is the delivery id';
my $ev = $J->decode($t[0]{body});
is $ev->{type}, 'webhook.test', 'body: type webhook.test';
is $ev->{data}{webhookId}, $w->{id}, 'body: names the webhook';
ok !(grep { $_->{type} eq 'webhook.test' } @{ api(GET => '/v1/events?limit=100', token => $tok)->{json}{data} }),
    'test events stay out of the feed';

# a failing target: the attempt is recorded, the worker retries it
patch($w->{id}, { url => "$base/fail" });
$r = test_hook($w->{id});
is $r->code, 200, 'test of a failing target 200';
is $r->{json}{status}, 'pending', 'pending: the worker retries';
is $r->{json}{attemptLog}[0]{status}, 500, 'the 500 is recorded';
my $failing = $r->{json}{id};

# ---- retry ------------------------------------------------------------------------
$r = retry($w->{id}, $failing);
is $r->code, 409, 'retrying a pending delivery 409';
is $r->{json}{type}, "${P}invalid-state", 'invalid-state';
sql("UPDATE deliveries SET status = 'failed', done_at = now() WHERE id = '$failing'");
patch($w->{id}, { url => "$base/r" });
$r = retry($w->{id}, $failing);
is $r->code, 200, 'retry of a failed delivery 200';
is $r->{json}{status}, 'succeeded', 'succeeded now';
is $r->{json}{attempts}, 2, 'a second attempt';
is scalar @{ $r->{json}{attemptLog} }, 2, 'both attempts logged';
my @rr = $rcv->received('/r');
is scalar @rr, 1, 'sent to the webhook\'s current url';
is $rr[0]{headers}{'webhook-id'}, $failing, 'the same webhook-id (receivers dedupe on it)';
$r = retry($w->{id}, $d->{id});
is $r->code, 200, 'a succeeded delivery can be sent again';
is $r->{json}{attempts}, 2, 'attempt 2';
is retry($w->{id}, 'dlv_' . ('0' x 26))->code, 404, 'no such delivery 404';
is retry($w->{id}, 'x')->code, 404, 'malformed delivery id 404';
is retry('whk_' . ('0' x 26), $failing)->code, 404, 'another webhook 404';
is retry($w->{id}, $failing, key(['webhooks:read']))->code, 403, 'webhooks:read cannot retry';

# ---- the delegation tree, form: constraints -----------------------------------------------
my $del = key([ 'webhooks:write', 'keys:write' ]);
is patch($w->{id}, { enabled => JSON::PP::true }, $del)->code, 404, 'a delegate cannot change the account\'s webhook';
is test_hook($w->{id}, $del)->code, 404, 'nor test it';
is retry($w->{id}, $failing, $del)->code, 404, 'nor retry its deliveries';
$r = api(POST => '/v1/webhooks', token => $del, body => { url => "$base/own", events => ['form.closed'] });
is $r->code, 201, 'the delegate registers its own';
my $own = $r->{json}{id};
is patch($own, { url => "$base/own2" }, $del)->code, 200, 'and changes it';
is test_hook($own, $del)->{json}{status}, 'succeeded', 'and tests it';
my $child = key([ 'webhooks:write' ], $del);
ok $child, 'a child of the delegate';
is patch($own, { enabled => JSON::PP::false }, $child)->code, 404, 'its child cannot reach its webhook';
is patch($own, { enabled => JSON::PP::false })->code, 200, 'the owner key can';

$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Other' });
my $other_form = $r->{json}{id};
my $constrained = key([ 'webhooks:write', "form:$other_form" ]);
is patch($w->{id}, { enabled => JSON::PP::true }, $constrained)->code, 404,
    'form: constraints hide a webhook of every form';
is test_hook($w->{id}, $constrained)->code, 404, 'test too';

# ---- MCP tools -------------------------------------------------------------------------
my $n = 0;
sub tool {
    my ($name, $args, $t) = @_;
    my $r = api(POST => '/mcp', token => $t // $tok, headers => { Accept => 'application/json, text/event-stream' },
                body => { jsonrpc => '2.0', id => ++$n, method => 'tools/call',
                          params => { name => $name, arguments => $args } });
    die "$name: " . $r->content unless $r->code == 200 && $r->{json}{result};
    return $r->{json}{result};
}
$r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
         body => { jsonrpc => '2.0', id => ++$n, method => 'tools/list' });
my %tools = map { $_->{name} => $_ } @{ $r->{json}{result}{tools} };
ok $tools{$_}, "tool $_" for qw(list_webhooks create_webhook update_webhook delete_webhook test_webhook
                                list_deliveries retry_delivery);
my $res = tool('create_webhook', { url => "$base/m", events => ['form.published'] });
ok !$res->{isError}, 'create_webhook' or diag explain $res;
my $mw = $res->{structuredContent};
like $mw->{secret}, qr/^whsec_/, 'with its secret';
$res = tool('update_webhook', { webhookId => $mw->{id}, enabled => JSON::PP::false });
is $res->{structuredContent}{enabled}, JSON::PP::false, 'update_webhook';
$res = tool('update_webhook', { webhookId => $mw->{id}, url => 'ftp://x' });
ok $res->{isError}, 'update_webhook: a bad url is an error';
is $res->{structuredContent}{errors}[0]{pointer}, '/url', 'the REST problem';
$res = tool('test_webhook', { webhookId => $mw->{id} });
is $res->{structuredContent}{status}, 'succeeded', 'test_webhook';
my $mdid = $res->{structuredContent}{id};
ok signature_ok(($rcv->received('/m'))[0], $mw->{secret}), 'test_webhook: signed';
$res = tool('list_deliveries', { webhookId => $mw->{id} });
is $res->{structuredContent}{data}[0]{id}, $mdid, 'list_deliveries';
$res = tool('retry_delivery', { webhookId => $mw->{id}, deliveryId => $mdid });
is $res->{structuredContent}{attempts}, 2, 'retry_delivery';
is scalar($rcv->received('/m')), 2, 'sent again';
$res = tool('retry_delivery', { webhookId => $mw->{id}, deliveryId => $mdid }, $del);
is $res->{structuredContent}{status}, 404, 'retry_delivery: the delegation tree holds';
$res = tool('list_webhooks', {});
ok((grep { $_->{id} eq $mw->{id} } @{ $res->{structuredContent}{data} }), 'list_webhooks');
$res = tool('delete_webhook', { webhookId => $mw->{id} });
ok !$res->{isError}, 'delete_webhook';
is api(GET => "/v1/webhooks/$mw->{id}", token => $tok)->code, 404, 'gone';

done_testing;
