# Slow authenticated bodies hold no pooled database connection. A bearer
# credential that is not in memory (the credential cache is off here; in
# production: a child just started, or an entry past its TTL) is looked up
# in the database when the request's headers arrive, before the handler
# reads the body; that connection went back only at the end of the
# request, so clients sending JSON bodies to /v1 or /mcp slowly held the
# pool while they sent, and everybody else waited FormsvcDBTimeout for a
# 503.
#
# One child, DBDMax 3, FormsvcDBTimeout 3; 8 clients send their headers with
# Expect: 100-continue and, once httpd answers "100 Continue" (the handler
# has begun to read the body: authentication is done), send nothing more
# for a while. Meanwhile /v1/me answers 200 at once and /metrics shows no
# connection in use; then the bodies arrive and are answered as usual.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(uniq_email);
use IO::Socket::INET;
use IO::Select;
use JSON::PP ();
use Time::HiRes qw(time);

delete $ENV{LD_PRELOAD};
my $SLOW = 8;
my $J = JSON::PP->new->utf8->canonical;

my $inst = FormsvcInstance->start(name => 'slowbodies', conf => <<"CONF");
ServerLimit 1
StartServers 1
ThreadsPerChild 30
MaxRequestWorkers 30
MinSpareThreads 5
MaxSpareThreads 30
DBDMin 0
DBDKeep 3
DBDMax 3
FormsvcDBTimeout 3
FormsvcCredentialCacheSize 0
FormsvcRateLimit signup off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified forms 1000000
CONF
my ($port) = $inst->url =~ m{:(\d+)/};

my $r = $inst->api(POST => '/v1/signup', body => { email => uniq_email() });
is $r->code, 201, 'signed up' or BAIL_OUT($r->content);
my $tok = $r->{json}{apiKey}{secret};

# a request whose headers go now and whose body waits for ->finish
sub slow {
    my ($path, $body) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Timeout => 10)
        or die "connect: $!";
    $s->autoflush(1);
    print $s "POST /api$path HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer $tok\r\n"
        . "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        . "Content-Length: " . length($body) . "\r\nExpect: 100-continue\r\n\r\n";
    return { s => $s, body => $body, path => $path, got => '' };
}

# reads what has arrived on c (non-blocking), up to $secs for $re
sub read_until {
    my ($c, $re, $secs) = @_;
    my $sel = IO::Select->new($c->{s});
    my $until = time + $secs;
    while ($c->{got} !~ $re) {
        my $left = $until - time;
        last if $left <= 0 || !$sel->can_read($left);
        my $n = sysread($c->{s}, my $buf, 65536);
        last unless $n;
        $c->{got} .= $buf;
    }
    return $c->{got} =~ $re;
}

my @slow;
for my $i (1 .. $SLOW) {
    push @slow, $i % 2
        ? slow('/v1/forms', $J->encode({ title => "slow $i",
            fields => [ { key => 'a', type => 'text', label => 'A' } ] }))
        : slow('/mcp', $J->encode({ jsonrpc => '2.0', id => $i, method => 'initialize',
            params => { protocolVersion => '2025-06-18', capabilities => {},
                        clientInfo => { name => 't', version => '1' } } }));
}
my $continued = grep { read_until($_, qr{^HTTP/1\.1 100 }, 20) } @slow;
is $continued, $SLOW, "all $SLOW authenticated and waiting for their bodies (100 Continue)";

# the pool is free while the bodies are awaited
my $in_use = 0;
my $metrics = $inst->api(GET => '/metrics')->content;
$in_use += $1 while $metrics =~ /^formsvc_db_pool_connections\{[^}]*state="in_use"\} (\d+)/mg;
is $in_use, 0, 'no pooled connection in use while the bodies are awaited';
for my $i (1 .. 3) {
    my $t0 = time;
    my $me = $inst->api(GET => '/v1/me', token => $tok);
    is $me->code, 200, "GET /v1/me $i answered 200 meanwhile";
    cmp_ok time - $t0, '<', 2, "... within 2 s (FormsvcDBTimeout is 3)";
}

# then the bodies, answered as usual
for my $c (@slow) {
    print { $c->{s} } $c->{body};
}
for my $c (@slow) {
    read_until($c, qr{^HTTP/1\.1 [2-9]\d\d .*?\r\n\r\n}ms, 20);
    my ($code) = $c->{got} =~ m{HTTP/1\.1 ([2-9]\d\d) };
    like $code // 'none', ($c->{path} eq '/mcp' ? qr/^200$/ : qr/^201$/), "$c->{path} answered once its body came";
    close $c->{s};
}

$inst->stop;
done_testing;
