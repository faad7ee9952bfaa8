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
use IO::Socket::INET;
use JSON::PP ();
use POSIX ();
use Time::HiRes ();
use File::Temp qw(tempfile);

my $J = JSON::PP->new->canonical;
my (undef, $log) = tempfile(UNLINK => 1);
my @pids;
END { kill 'KILL', $_ for grep { $_ } @pids }

# Reads one request from $c; returns its body.
sub read_request {
    my $c = shift;
    my $line = <$c> // return undef;
    my %h;
    while (my $l = <$c>) {
        $l =~ s/\r?\n\z//;
        last if $l eq '';
        my ($k, $v) = split /:\s*/, $l, 2;
        $h{lc $k} = $v;
    }
    my $body = '';
    read($c, $body, $h{'content-length'} // 0);
    return $body;
}

sub note_arrival {
    my ($kind, $body) = @_;
    open my $fh, '>>', $log or die;
    print $fh $J->encode({ kind => $kind, at => Time::HiRes::time(), body => $body }), "\n";
    close $fh;
}

# A receiver on a port of its own: 'hang' accepts and never answers (it
# keeps every connection open), 'slow' answers 200 after 5 s (a process
# per connection), 'ok' answers 200 at once.
sub receiver {
    my $kind = shift;
    my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 128,
                                    ReuseAddr => 1, Proto => 'tcp') or die "listen: $!";
    my $pid = fork // die;
    if (!$pid) {
        $SIG{CHLD} = 'IGNORE';
        my @held;
        while (my $c = $srv->accept) {
            if ($kind eq 'hang') {
                push @held, $c;
                note_arrival($kind, '');
                next;
            }
            if ($kind eq 'slow') {
                my $k = fork;
                if (defined $k && !$k) {
                    my $body = read_request($c);
                    note_arrival($kind, $body);
                    sleep 5;
                    print $c "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
                    close $c;
                    POSIX::_exit(0);
                }
                close $c;
                next;
            }
            my $body = read_request($c);
            note_arrival($kind, $body);
            print $c "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
            close $c;
        }
        POSIX::_exit(0);
    }
    push @pids, $pid;
    my $port = $srv->sockport;
    close $srv;
    return "http://127.0.0.1:$port/hook";
}

sub arrivals {
    my $kind = shift;
    open my $fh, '<', $log or return ();
    return grep { $_->{kind} eq $kind } map { $J->decode($_) } <$fh>;
}

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

my $hang = account(receiver('hang'));
my $slow = account(receiver('slow'));
my $good = account(receiver('ok'));

# The backlogs of the hanging and the slow receiver first.
for my $i (1 .. 12) {
    is api(POST => "/f/$_->{fid}", body => { n => "x$i" })->code, 201, 'submitted' for $hang, $slow;
}
# Once the workers are busy with them (a connection hangs), the healthy
# account's submissions.
my $busy;
for (1 .. 120) {
    last if $busy = arrivals('hang') && arrivals('slow');
    select undef, undef, undef, 0.1;
}
ok $busy, 'the hanging and the slow receiver are being sent to';
my %sent;
for my $i (1 .. 8) {
    my $r = api(POST => "/f/$good->{fid}", body => { n => "g$i" });
    is $r->code, 201, 'healthy account: submitted';
    $sent{ $r->{json}{id} } = Time::HiRes::time();
}
# Wait (up to 30 s, so that a failure says how late) for all of them.
my @got;
for (1 .. 300) {
    @got = arrivals('ok');
    last if @got >= keys %sent;
    select undef, undef, undef, 0.1;
}
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
