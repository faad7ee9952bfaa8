# A webhook whose attempts keep failing is paused (docs/webhooks.md,
# "Paused webhooks"): its failures in a row are counted in the API, the
# attempt that completes the run (20 in a row over at least 12 hours; the
# test moves the start of the run back rather than waiting) pauses it with
# a webhook.paused event (in the feed, and delivered to the account's
# other webhooks that subscribe to it), its deliveries wait while it is
# paused, and PATCH status "active" resumes it and sends them at once.
# Receivers on 127.0.0.1 (FormsvcWebhookAllowPrivate On in the test config).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcTest::Receiver;
use JSON::PP ();

my $J = JSON::PP->new->canonical;
my $P = base_url() . '/problems/';

# ---- the receiver (t/lib/FormsvcTest/Receiver.pm): /fail answers 500,
# anything else 200; records each request ------------------------------------
my $rcv = FormsvcTest::Receiver->start;
my $port = $rcv->port;

my ($tok, $me) = signup();
sql("UPDATE users SET verified = true WHERE id = '$me->{user}{id}'");
my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'Pause',
    fields => [ { key => 'n', type => 'text', label => 'N' } ] });
my $fid = $r->{json}{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

$r = api(POST => '/v1/webhooks', token => $tok,
         body => { url => "http://127.0.0.1:$port/fail", events => ['submission.created'] });
is $r->code, 201, 'the failing webhook';
my $w = $r->{json};
is $w->{status}, 'active', 'status active when created';
is $w->{consecutiveFailures}, 0, 'no failures yet';
ok exists $w->{pausedAt} && !defined $w->{pausedAt}, 'pausedAt null';
ok exists $w->{pauseReason} && !defined $w->{pauseReason}, 'pauseReason null';
# A second webhook of the account hears of the pause (and of submissions:
# the marker that the worker has been round).
$r = api(POST => '/v1/webhooks', token => $tok,
         body => { url => "http://127.0.0.1:$port/watch", events => [ 'webhook.paused', 'submission.created' ] });
is $r->code, 201, 'a webhook subscribed to webhook.paused';
my $watch = $r->{json}{id};

sub hook { api(GET => "/v1/webhooks/$w->{id}", token => $tok)->{json} }

# ---- failures are counted ----------------------------------------------------
is api(POST => "/f/$fid", body => { n => "a$_" })->code, 201, 'submitted' for 1 .. 3;
my $h = wait_for(sub { my $x = hook(); $x->{consecutiveFailures} >= 3 ? $x : undef }, 30, 'three failures');
ok $h, 'three failures in a row counted' or diag explain hook();
is $h->{status}, 'active', 'still active: the run is not long enough';

# ---- a long run pauses it ------------------------------------------------------
# As if the run had begun 13 hours ago and this were its 19th failure.
sql("UPDATE webhooks SET consecutive_failures = 19, failing_since = now() - interval '13 hours' "
  . "WHERE id = '$w->{id}'");
is api(POST => "/f/$fid", body => { n => 'b' })->code, 201, 'one more submission';
$h = wait_for(sub { my $x = hook(); $x->{status} eq 'paused' ? $x : undef }, 30, 'the pause');
ok $h, 'paused after the run' or diag explain hook();
like $h->{pausedAt}, qr/^\d{4}-\d\d-\d\dT/, 'pausedAt';
like $h->{pauseReason}, qr/attempts in a row failed since .*HTTP status 500/, 'pauseReason says why';
cmp_ok $h->{consecutiveFailures}, '>=', 20, 'consecutiveFailures';
is $h->{enabled}, JSON::PP::true, 'still enabled (paused is another state)';

$r = api(GET => '/v1/events?type=webhook.paused', token => $tok);
is $r->code, 200, 'feed of webhook.paused';
is scalar @{ $r->{json}{data} }, 1, 'one webhook.paused event';
my $ev = $r->{json}{data}[0];
is $ev->{data}{id}, $w->{id}, 'naming the webhook';
is $ev->{data}{status}, 'paused', 'as it is now: paused';
ok wait_for(sub { grep { $J->decode($_->{body})->{type} eq 'webhook.paused' } $rcv->received('/watch') },
            30, 'webhook.paused at /watch'),
    'the event is delivered to the webhook that subscribes to it';
$r = api(GET => "/v1/webhooks?limit=10", token => $tok);
my ($listed) = grep { $_->{id} eq $w->{id} } @{ $r->{json}{data} };
is $listed->{status}, 'paused', 'paused in the list too';

# ---- paused: deliveries are queued and held -------------------------------------
my $fails = () = $rcv->received('/fail');
$r = api(POST => "/f/$fid", body => { n => 'held' });
is $r->code, 201, 'a submission while paused';
my $held_sid = $r->{json}{id};
ok wait_for(sub { grep { (eval { $J->decode($_->{body})->{data}{id} } // '') eq $held_sid } $rcv->received('/watch') },
            30, 'the held submission at /watch'),
    'the other webhook got it';
my $d = api(GET => "/v1/webhooks/$w->{id}/deliveries?limit=100", token => $tok)->{json}{data};
my ($held) = grep { $_->{attempts} == 0 } @$d;
ok $held, 'the paused webhook has a delivery queued and not attempted';
is $held->{status}, 'pending', 'pending';
is scalar(() = $rcv->received('/fail')), $fails, 'nothing sent to it meanwhile';

# ---- PATCH status --------------------------------------------------------------
$r = api(PATCH => "/v1/webhooks/$w->{id}", token => $tok, body => { status => 'asleep' });
is $r->code, 422, 'unknown status 422';
is $r->{json}{errors}[0]{pointer}, '/status', 'pointer /status';
is $r->{json}{errors}[0]{code}, 'enum', 'enum';
$r = api(PATCH => "/v1/webhooks/$w->{id}", token => $tok, body => { status => JSON::PP::true });
is $r->{json}{errors}[0]{code}, 'type', 'status must be a string';

# Resume, pointed at a receiver that answers: every pending delivery of the
# webhook goes out at once (the backed-off ones too).
$r = api(PATCH => "/v1/webhooks/$w->{id}", token => $tok,
         body => { status => 'active', url => "http://127.0.0.1:$port/mended" });
is $r->code, 200, 'resumed';
is $r->{json}{status}, 'active', 'status active';
ok !defined $r->{json}{pausedAt}, 'pausedAt null';
ok !defined $r->{json}{pauseReason}, 'pauseReason null';
is $r->{json}{consecutiveFailures}, 0, 'the run of failures ends';
ok wait_for(sub { grep { ($_->{id} // '') eq $held->{id} } $rcv->received('/mended') }, 15, 'the held delivery'),
    'the held delivery goes out at once';
$d = wait_for(sub {
    my $x = api(GET => "/v1/webhooks/$w->{id}/deliveries?limit=100", token => $tok)->{json}{data};
    (grep { $_->{status} eq 'pending' } @$x) ? undef : $x }, 15, 'no delivery pending');
ok $d, 'no delivery left pending (the backed-off ones went too)';
is scalar(grep { $_->{status} eq 'succeeded' } @{ $d || [] }), 5, 'all five succeeded';
is hook()->{consecutiveFailures}, 0, 'still no failures';

# ---- the owner pauses and resumes by hand ---------------------------------------
$r = api(PATCH => "/v1/webhooks/$w->{id}", token => $tok, body => { status => 'paused' });
is $r->code, 200, 'paused by the owner';
is $r->{json}{status}, 'paused', 'status paused';
is $r->{json}{pauseReason}, 'paused by the owner', 'pauseReason';
$r = api(GET => '/v1/events?type=webhook.paused', token => $tok);
is scalar @{ $r->{json}{data} }, 1, 'no event for a pause the owner made';
$r = api(PATCH => "/v1/webhooks/$w->{id}", token => $tok, body => { status => 'active' });
is $r->{json}{status}, 'active', 'active again';

# ---- the type is known to webhooks and the feed ---------------------------------
$r = api(POST => '/v1/webhooks', token => $tok,
         body => { url => "http://127.0.0.1:$port/x", events => [ 'webhook.pause' ] });
is $r->{json}{errors}[0]{pointer}, '/events/0', 'an unknown type is still refused';
like $r->{json}{errors}[0]{detail}, qr/webhook\.paused/, 'the detail names webhook.paused';

is api(DELETE => "/v1/webhooks/$_", token => $tok)->code, 204, 'deleted' for $w->{id}, $watch;
done_testing;
