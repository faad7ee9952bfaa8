# Webhook deliveries are sent concurrently and fairly: with one receiver
# that accepts connections and never answers, one that answers after 5 s
# (each on an account of its own, each with a backlog queued first) and a
# healthy one on a third account, every delivery to the healthy receiver
# arrives within 2 s of its submission. (Each child's worker used to send
# 4 deliveries one after another, oldest first, with a 15 s time-out: the
# healthy receiver waited behind the others for a minute or more.)
# Receivers on 127.0.0.1 (FormsvcWebhookAllowPrivate On in the test config).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcTest::Receiver;
use JSON::PP ();
use Time::HiRes ();

my $J = JSON::PP->new->canonical;

# The receivers (t/lib/FormsvcTest/Receiver.pm), each on a port of its own:
# 'hang' accepts and never answers (it keeps every connection open), 'slow'
# answers 200 after 5 s (a process per connection), 'ok' answers 200 at once.
my %rcv = (hang => FormsvcTest::Receiver->start(mode => 'hang'),
           slow => FormsvcTest::Receiver->start(mode => 'slow', delay => 5),
           ok   => FormsvcTest::Receiver->start);
sub arrivals { $rcv{ $_[0] }->received }

# An account (verified: webhooks need it) with a published form and a
# webhook of its submissions to $url.
sub account {
    my $url = shift;
    my ($tok, $me) = signup();
    sql("UPDATE users SET verified = true WHERE id = '$me->{user}{id}'");
    my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'Fair',
        fields => [ { key => 'n', type => 'text', label => 'N' } ] });
    my $fid = $r->{json}{id};
    is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
    $r = api(POST => '/v1/webhooks', token => $tok, body => { url => $url, events => ['submission.created'] });
    is $r->code, 201, 'webhook created';
    return { tok => $tok, fid => $fid, whk => $r->{json}{id} };
}

my $hang = account($rcv{hang}->url('/hook'));
my $slow = account($rcv{slow}->url('/hook'));
my $good = account($rcv{ok}->url('/hook'));

# The backlogs of the hanging and the slow receiver first.
for my $i (1 .. 12) {
    is api(POST => "/f/$_->{fid}", body => { n => "x$i" })->code, 201, 'submitted' for $hang, $slow;
}
# Once the workers are busy with them (a connection hangs), the healthy
# account's submissions.
ok wait_for(sub { arrivals('hang') && arrivals('slow') }, 12, 'deliveries to the hanging and the slow receiver'),
    'the hanging and the slow receiver are being sent to';
my %sent;
for my $i (1 .. 8) {
    my $r = api(POST => "/f/$good->{fid}", body => { n => "g$i" });
    is $r->code, 201, 'healthy account: submitted';
    $sent{ $r->{json}{id} } = Time::HiRes::time();
}
# Wait (up to 30 s, so that a failure says how late) for all of them.
my @got;
wait_for(sub { (@got = arrivals('ok')) >= keys %sent }, 30, 'every delivery to the healthy receiver');
is scalar @got, scalar keys %sent, 'every delivery reached the healthy receiver';
my (@late, %arrived);
for my $a (@got) {
    my $sid = eval { $J->decode($a->{body})->{data}{id} } // '';
    next unless $sent{$sid};
    $arrived{$sid} = 1;
    push @late, sprintf "%s after %.3f s", $sid, $a->{at} - $sent{$sid};
}
my @slow = ((grep { /after (\S+) s/ && $1 > 2 } @late),
            map { "$_ not within 30 s" } grep { !$arrived{$_} } sort keys %sent);
is scalar @slow, 0, 'each within 2 s of its submission' or diag join "\n", @slow;
diag "healthy receiver: @{[ map { /after (\S+ s)/ } @late ]}" if $ENV{VERBOSE};

# The hanging receiver never holds more than a few deliveries at once.
cmp_ok scalar(arrivals('hang')), '<=', 8, 'at most a few hanging connections (per webhook bound)';

# Leave nothing in flight for the tests after this one.
is api(DELETE => "/v1/webhooks/$_->{whk}", token => $_->{tok})->code, 204, 'webhook deleted'
    for $hang, $slow, $good;
done_testing;
