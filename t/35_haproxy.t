# HAProxy in front of httpd nodes, configured from the shipped
# conf/cluster/haproxy.cfg (the one `make cluster` uses): nodes are
# health-checked on /readyz and one whose /readyz fails gets no requests;
# a drained node finishes a request already in flight (nothing cut) while
# new requests go to the other node; the client's address reaches the
# module through X-Forwarded-For (mod_remoteip trusting HAProxy only), for
# the access log and for per-address limits, and a client's own
# X-Forwarded-For changes nothing. The real haproxy binary.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use IO::Socket::UNIX;
use LWP::UserAgent;
use JSON::PP ();
use Time::HiRes ();

my $haproxy = '/usr/sbin/haproxy';
plan skip_all => 'haproxy is not installed (scripts/install-deps installs it)' unless -x $haproxy;

sub wait_for {
    my ($cond, $secs) = @_;
    my $end = Time::HiRes::time() + $secs;
    while (Time::HiRes::time() < $end) { return 1 if $cond->(); Time::HiRes::sleep(0.1) }
    return $cond->();
}

# Addresses of this run's clients, all on the loopback (127.0.0.0/8): the
# counters of the signup limit live in the suite's database for an hour,
# so each run takes fresh ones.
my ($x, $y) = (1 + int rand 250, 1 + int rand 250);
my ($client1, $client2, $client3) = map { "127.35.$x.$_" } $y, $y + 1, $y + 2;

my $conf = <<'CONF';
RemoteIPHeader X-Forwarded-For
FormsvcRateLimitStore pgsql
FormsvcRateLimit signup 2 3600
CONF
my $a = FormsvcInstance->start(name => 'hp-a', conf => $conf);
my $b = FormsvcInstance->start(name => 'hp-b', conf => $conf);
# a node that is alive (/healthz) but not ready: its database does not exist
my $c = FormsvcInstance->start(name => 'hp-c', conf => $conf, db => "formsvc_missing_$$");
is $c->api(GET => '/readyz')->code, 503, 'the third node is not ready (no database)';

# HAProxy from the shipped template
my $dir = "$FindBin::Bin/logs/haproxy35";
remove_tree($dir);
make_path("$dir/haproxy");
my $port = FormsvcInstance::free_port();
my %port = map { $_->[0] => ($_->[1]->url =~ m{:(\d+)/})[0] } ([a => $a], [b => $b], [c => $c]);
my $servers = join '', map { "    server $_ 127.0.0.1:$port{$_} check\n" } qw(a b c);
open my $tf, '<', "$ENV{FORMSVC_ROOT}/conf/cluster/haproxy.cfg" or die $!;
my $cfg = do { local $/; <$tf> };
close $tf;
# the instances serve the module under /api
$cfg =~ s{uri /readyz}{uri /api/readyz} or die 'no health check in haproxy.cfg';
# only root may change to the haproxy user (make test runs as root)
$cfg =~ s{^[ \t]*(?:user|group) haproxy\n}{}mg if $> != 0;
$cfg =~ s/\@DIR\@/$dir/g;
$cfg =~ s/\@BIND\@/127.0.0.1/g;
$cfg =~ s/\@PORT\@/$port/g;
$cfg =~ s/\@SERVERS\@\n/$servers/;
open my $cf, '>', "$dir/haproxy.cfg" or die $!;
print $cf $cfg;
close $cf;
is system("$haproxy -c -q -f $dir/haproxy.cfg"), 0, 'the shipped haproxy.cfg checks';
my $hpid = fork // die;
if (!$hpid) { exec $haproxy, '-db', '-q', '-f', "$dir/haproxy.cfg"; exit 127 }
END { if ($hpid) { local $?; kill 'TERM', $hpid; waitpid($hpid, 0) } } # keeps the test's exit status

sub hactl {
    my $s = IO::Socket::UNIX->new(Peer => "$dir/haproxy/admin.sock") or return '';
    print $s "$_[0]\n";
    local $/;
    return <$s> // '';
}
# server name => [status, open sessions]
sub servers {
    my %s;
    for (split /\n/, hactl('show stat')) {
        my @f = split /,/;
        $s{ $f[1] } = [ $f[17], $f[4] ] if @f > 20 && $f[0] eq 'nodes' && $f[1] ne 'BACKEND';
    }
    return \%s;
}
ok wait_for(sub { my $s = servers(); ($s->{a}[0] // '') eq 'UP' && ($s->{b}[0] // '') eq 'UP'
                    && ($s->{c}[0] // '') eq 'DOWN' }, 20),
   'HAProxy: the two ready nodes are UP, the one whose /readyz fails is DOWN'
   or diag explain servers();

my $base = "http://127.0.0.1:$port/api";
my $json = JSON::PP->new;
sub ua { LWP::UserAgent->new(timeout => 30, local_address => $_[0], keep_alive => 0) }
sub signup_from {
    my ($ip, %h) = @_;
    my $email = sprintf 'hp%d.%d.%d@example.com', $$, time, int rand 1e9;
    return ua($ip)->post("$base/v1/signup", 'Content-Type' => 'application/json', %h,
                         Content => $json->encode({ email => $email }))->code;
}
sub lines_of { my ($inst, $re) = @_; scalar grep { $_ =~ $re } split /\n/, FormsvcInstance::slurp($inst->root . '/access_log') }

# ---- the not-ready node gets nothing --------------------------------------
my @codes = map { ua($client3)->get("$base/healthz")->code } 1 .. 12;
is scalar(grep { $_ == 200 } @codes), 12, 'twelve requests through HAProxy answered';
is lines_of($c, qr/ \Q$client3\E .*healthz/), 0, 'none reached the node whose /readyz fails';
ok lines_of($a, qr/ \Q$client3\E .*healthz/) > 0 && lines_of($b, qr/ \Q$client3\E .*healthz/) > 0,
   'both ready nodes served some';

# ---- the client address ----------------------------------------------------
# two signups per address an hour, counted in PostgreSQL across both nodes;
# a client's own X-Forwarded-For is dropped by HAProxy and would not be
# trusted by the nodes anyway
my @s1 = map { signup_from($client1) } 1 .. 2;
is_deeply \@s1, [201, 201], 'two signups from the first client';
is signup_from($client1, 'X-Forwarded-For' => '198.51.100.7'), 429,
   'the third is refused, whatever X-Forwarded-For the client sends';
is signup_from($client2), 201, 'another client address is counted apart';
ok lines_of($a, qr/^\d+ \Q$client1\E 201 POST /) + lines_of($b, qr/^\d+ \Q$client1\E 201 POST /) == 2,
   "the nodes' access logs name the client's address";
is lines_of($a, qr/198\.51\.100\.7/) + lines_of($b, qr/198\.51\.100\.7/), 0,
   'never the address the client wrote';

# ---- draining: a request in flight finishes, new ones go elsewhere ---------
my $body = $json->encode({ email => sprintf('hpslow%d.%d@example.com', $$, time) });
my $half = int(length($body) / 2);
my $sock = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", LocalAddr => $client2, Timeout => 30)
    or die "connect: $!";
print $sock "POST /api/v1/signup HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nContent-Type: application/json\r\n"
          . "Content-Length: " . length($body) . "\r\nConnection: close\r\n\r\n" . substr($body, 0, $half);
$sock->flush;
my $busy;
ok wait_for(sub { my $s = servers(); ($busy) = grep { ($s->{$_}[1] // 0) > 0 } qw(a b); defined $busy }, 10),
   'the slow request is open on one node';
$busy //= 'a';
my $other = $busy eq 'a' ? 'b' : 'a';
my %inst = (a => $a, b => $b);
hactl("set server nodes/$busy state drain");
ok wait_for(sub { (servers()->{$busy}[0] // '') eq 'DRAIN' }, 5), "node $busy drained";
my $before = lines_of($inst{$busy}, qr/ \Q$client3\E /);
@codes = map { ua($client3)->get("$base/healthz")->code } 1 .. 8;
is scalar(grep { $_ == 200 } @codes), 8, 'new requests answered while it drains';
is lines_of($inst{$busy}, qr/ \Q$client3\E /), $before, 'none went to the draining node';
# the rest of the body: the request finishes on the draining node
print $sock substr($body, $half);
$sock->flush;
my $answer = '';
while (defined(my $l = <$sock>)) { $answer .= $l }
like $answer, qr{^HTTP/1\.1 201 }, 'the request in flight finished on the draining node (201, not cut)'
    or diag $answer;
ok wait_for(sub { lines_of($inst{$busy}, qr/ \Q$client2\E 201 POST /) == 1 }, 5), "node $busy served it";
hactl("set server nodes/$busy state ready");
ok wait_for(sub { (servers()->{$busy}[0] // '') eq 'UP' }, 5), "node $busy back in service";

# ---- a node that goes away is taken out ------------------------------------
$a->stop;
ok wait_for(sub { (servers()->{a}[0] // '') =~ /^DOWN/ }, 10), 'a stopped node is taken out';
@codes = map { ua($client3)->get("$base/healthz")->code } 1 .. 6;
is scalar(grep { $_ == 200 } @codes), 6, 'the service answers on the remaining node';

done_testing;
