package FormsvcTest::Receiver;
# A webhook receiver for the tests: an HTTP server on 127.0.0.1 (a forked
# process, stopped at exit) that records each request it gets as a JSON
# line, for the test to read back (FormsvcWebhookAllowPrivate On in the
# test config lets the module send to it).
#
#   my $rcv = FormsvcTest::Receiver->start;            # answers at once
#   my $url = $rcv->url('/ok');                        # http://127.0.0.1:PORT/ok
#   my @got = $rcv->wait_received('/ok', 2, 30);       # waits for 2 requests to /ok
#   ok signature_ok($got[0], $secret);                 # (exported on request)
#
# How it answers (mode):
#   'answer' (the default): reads the request and answers at once: 500 to
#            /fail, 500 to the first request to /flaky (200 after), 200 to
#            anything else;
#   'slow':  answers 200 after `delay` seconds (default 5), a process per
#            connection, so that requests overlap;
#   'hang':  accepts connections and never reads or answers them (keeps
#            them open); it records each connection (path '?', empty body).
# A record: { path, n (the how-manieth request to that path), status,
# headers (names in lower case), id (the webhook-id header), body, at
# (Time::HiRes time of arrival) }.
use strict;
use warnings;
use Digest::SHA ();
use Exporter 'import';
use File::Temp ();
use MIME::Base64 ();
use IO::Socket::INET;
use JSON::PP ();
use POSIX ();
use Time::HiRes ();
use FormsvcTest ();

our @EXPORT_OK = qw(signature_ok);

my $J = JSON::PP->new->canonical;
my @pids;
END { kill 'KILL', $_ for grep { $_ } @pids }

sub start {
    my ($class, %o) = @_;
    my $mode = $o{mode} // 'answer';
    my (undef, $log) = File::Temp::tempfile(UNLINK => 1);
    my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 128,
                                    ReuseAddr => 1, Proto => 'tcp') or die "listen: $!";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        $SIG{CHLD} = 'IGNORE';
        $SIG{PIPE} = 'IGNORE';   # a sender that gave up must not kill the receiver
        my (%n, @held);
        while (my $c = $srv->accept) {
            if ($mode eq 'hang') {
                push @held, $c;
                note($log, { path => '?', n => ++$n{'?'}, status => undef, headers => {}, body => '' });
                next;
            }
            if ($mode eq 'slow') {
                my $k = fork;
                if (defined $k && !$k) {
                    my $rec = read_request($c) // POSIX::_exit(0);
                    $rec->{status} = 200;
                    note($log, $rec);
                    # the receiver's answer time is the subject here
                    Time::HiRes::sleep($o{delay} // 5);
                    answer($c, 200);
                    POSIX::_exit(0);
                }
                close $c;
                next;
            }
            my $rec = read_request($c) // next;
            my $k = $rec->{n} = ++$n{ $rec->{path} };
            $rec->{status} = ($rec->{path} eq '/fail' || ($rec->{path} eq '/flaky' && $k == 1)) ? 500 : 200;
            note($log, $rec);
            answer($c, $rec->{status});
        }
        POSIX::_exit(0);
    }
    push @pids, $pid;
    my $port = $srv->sockport;
    close $srv;
    return bless { pid => $pid, port => $port, log => $log }, $class;
}

# Reads one request from $c: a record without status and n, or undef.
sub read_request {
    my $c = shift;
    my $line = <$c> // return undef;
    my ($path) = $line =~ m{^[A-Z]+ (\S+)};
    my %h;
    while (my $l = <$c>) {
        $l =~ s/\r?\n\z//;
        last if $l eq '';
        my ($k, $v) = split /:\s*/, $l, 2;
        $h{lc $k} = $v;
    }
    my $body = '';
    read($c, $body, $h{'content-length'} // 0);
    return { path => $path // '?', headers => \%h, id => $h{'webhook-id'}, body => $body };
}

sub answer {
    my ($c, $status) = @_;
    print $c "HTTP/1.1 $status X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    close $c;
}

sub note {
    my ($log, $rec) = @_;
    $rec->{at} = Time::HiRes::time();
    open my $fh, '>>', $log or die "$log: $!";
    print $fh $J->encode($rec), "\n";
    close $fh;
}

sub port { $_[0]{port} }
sub url { "http://127.0.0.1:$_[0]{port}" . ($_[1] // '') }

# The requests received so far (to PATH, or all), oldest first.
sub received {
    my ($self, $path) = @_;
    open my $fh, '<', $self->{log} or return ();
    return grep { !defined $path || $_->{path} eq $path } map { $J->decode($_) } <$fh>;
}

# Waits (up to SECS seconds) until COUNT requests to PATH have come;
# returns those received by then.
sub wait_received {
    my ($self, $path, $count, $secs) = @_;
    my @r;
    FormsvcTest::wait_for(sub { (@r = $self->received($path)) >= $count }, $secs,
                          "$count request(s) to the receiver's $path");
    return @r;
}

# signature_ok(RECORD, SECRET): true when the request recorded carries the
# Standard Webhooks signature of its id, timestamp and body under SECRET
# (whsec_ and the key in base64): webhook-signature "v1,<HMAC-SHA256>".
sub signature_ok {
    my ($rec, $secret) = @_;
    my $key = MIME::Base64::decode_base64($secret =~ s/^whsec_//r);
    my $h = $rec->{headers};
    my $want = Digest::SHA::hmac_sha256_base64("$h->{'webhook-id'}.$h->{'webhook-timestamp'}.$rec->{body}", $key);
    $want .= '=' while length($want) % 4;
    return ($h->{'webhook-signature'} // '') eq "v1,$want";
}

# Stops the receiver (also done at exit).
sub stop {
    my $self = shift;
    return unless $self->{pid};
    kill 'KILL', $self->{pid};
    waitpid $self->{pid}, 0;
    @pids = grep { $_ != $self->{pid} } @pids;
    delete $self->{pid};
}

1;
