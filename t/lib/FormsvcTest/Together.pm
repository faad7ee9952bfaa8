package FormsvcTest::Together;
# Clients that act at the same moment: forked ahead, each ready, all
# released at once (the end of a pipe they all read, so the release costs
# no polling). For limits that must hold exactly under concurrency (t/56,
# t/75, t/78), and for bursts within a stretch of a cache entry's life
# (t/91) or against a database in trouble (t/15, t/65).
#
#   my @res = together(40, sub { my $i = shift; HTTP::Request->new(...) });
#   is scalar(grep { $_->{code} == 201 } @res), 1, 'exactly one' or diag codes(@res);
#
#   my $go = release_together(8, sub { my $i = shift; sub { api(...)->code } });
#   ...                       # the children are ready, waiting
#   my @codes = $go->();      # released at once; what each returned
use strict;
use warnings;
use Exporter 'import';
use IO::Select;
use JSON::PP ();
use LWP::UserAgent;
use POSIX ();

our @EXPORT = qw(together release_together codes);

my $J = JSON::PP->new->canonical->allow_nonref;

# release_together($n, $prepare): forks $n children; child $i (0 .. $n-1)
# calls $prepare->($i), which does what may take long (building a request,
# opening a connection) and returns the sub to run once released; the
# child then says it is ready. Returns once all $n are ready (it dies if
# they are not within 60 s), with a sub that releases them at once, waits
# for them and returns, in child order, what each run returned (a string
# or number; undef for a child that failed or died, with a diag saying
# why when it could). So a dead child is never counted as an answer, nor
# left out of the count.
sub release_together {
    my ($count, $prepare) = @_;
    pipe(my $go_r, my $go_w) or die $!;
    pipe(my $ready_r, my $ready_w) or die $!;
    my @kids;
    for my $i (0 .. $count - 1) {
        pipe(my $res_r, my $res_w) or die $!;
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            close $go_w; close $ready_r; close $res_r;
            my $run = eval { $prepare->($i) };
            my $err = $@;
            syswrite $ready_w, 'r';     # ready, also when the preparation failed
            close $ready_w;
            sysread $go_r, my $x, 1;    # end of file: go
            my $out = $run ? eval { my $v = $run->(); "ok\n" . ($v // '') } // "error\n$@" : "error\n$err";
            print $res_w $out;
            close $res_w;
            POSIX::_exit(0);
        }
        close $res_w;
        push @kids, [$pid, $res_r];
    }
    close $go_r; close $ready_w;
    my $ready = 0;
    my $sel = IO::Select->new($ready_r);
    while ($ready < $count) {
        $sel->can_read(60) or die "children not ready within 60 s ($ready of $count)";
        my $k = sysread $ready_r, my $buf, 256;
        die "a child died before the start ($ready of $count ready)" unless $k;
        $ready += $k;
    }
    close $ready_r;
    return sub {
        close $go_w;
        my @out;
        for my $i (0 .. $#kids) {
            my ($pid, $fh) = @{ $kids[$i] };
            my $s = do { local $/; <$fh> } // '';
            close $fh;
            waitpid $pid, 0;
            if ($s =~ s/\Aok\n//) { push @out, $s; next }
            my $why = $s =~ s/\Aerror\n//r;
            Test::More::diag("child $i failed: " . ($why ne '' ? $why : sprintf 'it died (wait status %d)', $?));
            push @out, undef;
        }
        return @out;
    };
}

# together($n, $make): $n children, child $i sending $make->($i) (an
# HTTP::Request) with its own user agent, released at once (the requests
# are built before). Returns, in child order, one hash per child:
# { code, json (the decoded body when JSON), replayed (the
# Idempotent-Replayed header), text (the start of the body of a 5xx) }; a
# child that failed or died gives { code => 0 }.
sub together {
    my ($count, $make) = @_;
    my $go = release_together($count, sub {
        my $req = $make->(shift);
        my $ua = LWP::UserAgent->new(timeout => 60, max_redirect => 0);
        return sub {
            my $res = $ua->request($req);
            my $ct = $res->header('Content-Type') // '';
            return $J->encode({ code => $res->code,
                                json => $ct =~ /json/ ? eval { $J->decode($res->content) } : undef,
                                replayed => scalar $res->header('Idempotent-Replayed'),
                                ($res->code >= 500 ? (text => substr($res->content, 0, 200)) : ()) });
        };
    });
    return map { $J->decode($_ // '{"code":0}') } $go->();
}

# codes(@results): "201:19 409:1" (status:count, sorted), then the start
# of each 5xx body on a line of its own; for diagnostics and exact checks.
sub codes {
    my %c; $c{ $_->{code} }++ for @_;
    join(' ', map { "$_:$c{$_}" } sort keys %c) . join('', map { "\n$_->{text}" } grep { $_->{text} } @_);
}

1;
