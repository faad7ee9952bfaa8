# A memcached that stops answering (SIGSTOP: the kernel still accepts its
# connections, nothing replies) under FormsvcRateLimitStore memcache. APR's
# memcached client waits for an answer without a time limit, so every
# rate-limited request (signup, a public submission) hung for as long as
# memcached did, each holding its thread. Now each request answers within
# about a second (the hit allowed, FS00606), and once memcached answers
# again the limits count again, without an httpd restart.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(clear_of_boundary uniq_email wait_for);
use IO::Socket::INET;
use LWP::UserAgent;
use Time::HiRes qw(time);

delete $ENV{LD_PRELOAD};

my $mcport = FormsvcInstance::free_port();
my $mcpid = fork // die;
if (!$mcpid) {
    my @u = $> == 0 ? ('-u', 'nobody') : ();
    exec 'memcached', '-l', '127.0.0.1', '-p', $mcport, '-U', '0', '-m', '16', @u;
    exit 127;
}
END { if ($mcpid) { kill 'CONT', $mcpid; kill 'TERM', $mcpid; waitpid($mcpid, 0) } }
wait_for(sub { IO::Socket::INET->new(PeerAddr => "127.0.0.1:$mcport") }, 5, 'memcached to listen')
    or BAIL_OUT('memcached does not listen');

my $inst = FormsvcInstance->start(name => 'mcstall', conf => <<"CONF");
FormsvcRateLimitStore memcache 127.0.0.1:$mcport
FormsvcRateLimit signup 3 3600
FormsvcRateLimit submit 1000 3600
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified submissions 1000000
CONF
clear_of_boundary(3600);

my $ip = 0;
my $ua = LWP::UserAgent->new(timeout => 8, max_redirect => 0);
sub signup_from {
    my ($addr) = @_;
    return $ua->request($inst->request(POST => '/v1/signup', body => { email => uniq_email() },
                                       headers => { 'X-Client-IP' => $addr }));
}

# memcached answering: the limit counts
my $addr = '198.51.100.' . ++$ip;
my @codes = map { signup_from($addr)->code } 1 .. 4;
is_deeply \@codes, [201, 201, 201, 429], 'memcached answering: 3 signups, then 429';
my $tok = $inst->api(POST => '/v1/signup', body => { email => uniq_email() },
                     headers => { 'X-Client-IP' => '198.51.100.' . ++$ip })->{json}{apiKey}{secret};
my $fid = $inst->published_form($tok);

# memcached silent: every request answers, soon
kill 'STOP', $mcpid;
my ($slowest, @bad) = (0);
for my $i (1 .. 6) {
    my $t0 = time;
    my $r = signup_from('198.51.100.' . ++$ip);
    push @bad, "signup $i: " . $r->code unless $r->code == 201;
    my $t1 = time;
    $r = $ua->post($inst->url . "/f/$fid", { a => "mc$i" });
    push @bad, "submission $i: " . $r->code unless $r->code == 303;
    my $t2 = time;
    $slowest = $t1 - $t0 if $t1 - $t0 > $slowest;
    $slowest = $t2 - $t1 if $t2 - $t1 > $slowest;
    last if @bad; # (each a time-out of 8 s on the old client)
}
is "@bad", '', 'memcached silent: 6 signups and 6 public submissions answered (the hits allowed)';
cmp_ok $slowest, '<', 3, 'memcached silent: no request waited for it (slowest under 3 s)';
like $inst->error_log, qr/FS00606/, 'FS00606 says memcached does not answer';

# memcached back: the limit counts again
kill 'CONT', $mcpid;
$addr = '198.51.100.' . ++$ip;
my $limited = wait_for(sub { signup_from($addr)->code == 429 }, 15, 'the signup limit to count again');
ok $limited, 'memcached answering again: the limit counts again (429), no restart';

$inst->stop;
done_testing;
