package FormsvcTest::PgProxy;
# A TCP proxy to the group's PostgreSQL (a forked process, stopped at
# exit), for instances that must meet a database in trouble: point their
# DBDParams at host=127.0.0.1 port=$proxy->port.
#
#   my $proxy = FormsvcTest::PgProxy->start;
#   $proxy->freeze;   # stops passing bytes (a stopped server, a dead network)
#   $proxy->thaw;
#   ok $proxy->reset_all, 'every connection reset';   # TCP RST on each
#   my @ports = keys %{ $proxy->ports };              # its sessions' client_port
#   ok $proxy->wait_closed(@ports), 'closed on the instance side';
#
# start(delay => SECS, delay_for => qr/.../): what the server sends to a
# session whose start-up message (application_name ...) matches delay_for
# is held back by SECS (t/65: notifications that reach the cache listeners
# late).
use strict;
use warnings;
use FindBin ();
use IO::Select;
use IO::Socket::INET;
use POSIX ();
use Socket qw(SOL_SOCKET SO_LINGER);
use Time::HiRes ();
use FormsvcTest ();

my @running;
my $n = 0;
END { local $?; $_->stop for @running }   # (stop must not change the exit status)

sub start {
    my ($class, %o) = @_;
    my $base = "$FindBin::Bin/logs/pgproxy.$$." . ++$n;
    my $self = bless { freeze => "$base.freeze", cut => "$base.cut", ports => "$base.ports" }, $class;
    unlink @$self{qw(freeze cut ports)}, "$self->{ports}.new";
    my $lst = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 128,
                                    ReuseAddr => 1) or die "listen: $!";
    $self->{port} = $lst->sockport;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        eval { relay($self, $lst, %o) };
        POSIX::_exit(1);   # never the test's END blocks in this process
    }
    close $lst;
    $self->{pid} = $pid;
    push @running, $self;
    return $self;
}

# The proxy's loop (in its own process).
sub relay {
    my ($self, $lst, %o) = @_;
    # a write to a connection whose other end has just closed (a session
    # ended) fails with EPIPE instead of killing the proxy
    $SIG{PIPE} = 'IGNORE';
    my (%peer, %up, %seen, %slow, %queue, @all);   # %up: the connections to PostgreSQL, by local port
    my $said = '-';
    for (;;) {
        my $ports = join '', map { "$_\n" } sort { $a <=> $b } values %up;
        if ($ports ne $said) {
            open my $o, '>', "$self->{ports}.new" or die; print $o $ports; close $o;
            rename "$self->{ports}.new", $self->{ports} or die;
            $said = $ports;
        }
        if (-e $self->{cut}) {
            for (@all) { setsockopt($_, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0)); close $_ }
            @all = (); %peer = (); %up = (); %seen = (); %slow = (); %queue = ();
            unlink $self->{cut};
        }
        # what is held back and due now
        my $now = Time::HiRes::time();
        my $wait = 0.05;
        for my $c (keys %queue) {
            my $q = $queue{$c};
            while (@$q && $q->[0][0] <= $now) {
                my $item = shift @$q;
                write_all($item->[2], $item->[1]);
            }
            $wait = $q->[0][0] - $now if @$q && $q->[0][0] - $now < $wait;
        }
        my @watch = -e $self->{freeze} ? ($lst) : ($lst, @all);
        for my $s (IO::Select->new(@watch)->can_read($wait > 0 ? $wait : 0.001)) {
            if ($s == $lst) {
                my $c = $lst->accept or next;
                my $u = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ENV{FORMSVC_PGPORT}");
                if (!$u) { close $c; next }
                $peer{$c} = $u; $peer{$u} = $c; push @all, $c, $u;
                $up{$u} = $u->sockport;
                $seen{$c} = '' if $o{delay_for};
                next;
            }
            next unless $peer{$s};
            my $got = sysread($s, my $buf, 65536);
            if (!$got) {
                my $o = delete $peer{$s}; delete $peer{$o};
                delete @up{$s, $o}; delete @queue{$s, $o}; delete @slow{$s, $o}; delete @seen{$s, $o};
                @all = grep { $_ != $s && $_ != $o } @all;
                close $s; close $o;
                next;
            }
            if (defined $seen{$s} && length $seen{$s} < 4096) {   # a client's start-up message
                $seen{$s} .= $buf;
                $slow{ $peer{$s} } = 1 if $seen{$s} =~ $o{delay_for};
            }
            if ($slow{$s}) { push @{ $queue{$s} }, [Time::HiRes::time() + $o{delay}, $buf, $peer{$s}]; next }
            write_all($peer{$s}, $buf);
        }
    }
}

sub write_all {
    my ($s, $buf) = @_;
    my $off = 0;
    while ($off < length $buf) { my $w = syswrite($s, $buf, length($buf) - $off, $off); last unless $w; $off += $w }
}

sub port { $_[0]{port} }

# Stops passing bytes (new connections are still accepted), and again.
sub freeze { open my $fh, '>', $_[0]{freeze} or die "$_[0]{freeze}: $!"; close $fh }
sub thaw { unlink $_[0]{freeze} }

# Resets every connection it carries (TCP RST, as a restarted proxy or a
# lost NAT entry does); true once done (it waits up to 10 s).
sub reset_all {
    my $self = shift;
    open my $fh, '>', $self->{cut} or die "$self->{cut}: $!"; close $fh;
    return FormsvcTest::wait_for(sub { !-e $self->{cut} }, 10, 'the proxy to reset its connections');
}

# Its connections to PostgreSQL that are open, by local port (what
# pg_stat_activity shows as client_port): a hash port => 1.
sub ports {
    open my $fh, '<', $_[0]{ports} or return {};
    return { map { chomp; ($_ => 1) } <$fh> };
}

# Waits (up to 10 s) until it has closed its side of each of the ports
# given (the sessions behind them ended): only then does the instance see
# them dead. True when it has.
sub wait_closed {
    my ($self, @ports) = @_;
    return FormsvcTest::wait_for(sub { my $p = $self->ports; !grep { $p->{$_} } @ports }, 10,
                                 "the proxy to close the connections of ports @ports");
}

sub stop {
    my $self = shift;
    return unless $self->{pid};
    kill 'KILL', $self->{pid};
    waitpid $self->{pid}, 0;
    unlink @$self{qw(freeze cut ports)}, "$self->{ports}.new";
    delete $self->{pid};
}

1;
