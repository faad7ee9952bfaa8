# Rate limits across machines: two httpd instances (two "machines", each
# with several children and its own shared memory) on different ports,
# sharing one PostgreSQL, or one memcached that this test starts. A limit
# of N holds across both, also under bursts from several processes at once.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(clear_of_boundary wait_for);
use Time::HiRes ();

my $n = 0;
sub email { sprintf 'mm%d.%d.%d@example.com', $$, time, ++$n }

# memcached for the second pair, on a free port, stopped at the end
my $mcport = FormsvcInstance::free_port();
my $mcpid = fork // die;
if (!$mcpid) {
    my @u = $> == 0 ? ('-u', 'nobody') : ();
    exec 'memcached', '-l', '127.0.0.1', '-p', $mcport, '-U', '0', '-m', '16', @u;
    exit 127;
}
END { kill 'TERM', $mcpid if $mcpid; waitpid($mcpid, 0) if $mcpid }
wait_for(sub { IO::Socket::INET->new(PeerAddr => "127.0.0.1:$mcport") }, 20, 'memcached to listen');

for my $store ('pgsql', "memcache 127.0.0.1:$mcport") {
    my $kind = (split / /, $store)[0];
    my $conf = <<"CONF";
FormsvcRateLimitStore $store
FormsvcRateLimit signup 10 3600
FormsvcQuota unverified requests 20
CONF
    my @m = map { FormsvcInstance->start(name => "$kind$_", conf => $conf) } 1, 2;
    my $ip = $kind eq 'pgsql' ? '203.0.113.5' : '203.0.113.6';
    clear_of_boundary(3600);

    # sequential, alternating between the machines
    my @codes;
    for my $i (0 .. 13) {
        my $r = $m[$i % 2]->api(POST => '/v1/signup', body => { email => email() },
                                headers => { 'X-Client-IP' => $ip });
        push @codes, $r->code;
    }
    is scalar(grep { $_ == 201 } @codes), 10, "$kind: 10 signups pass across two machines";
    is_deeply [@codes[10 .. 13]], [429, 429, 429, 429], "$kind: the rest are 429 on both";

    # bursts on both machines at once, a fresh address
    my $ok = FormsvcInstance->burst(8, sub {
        my $i = shift; my $c = 0;
        for my $j (1 .. 5) {
            my $r = $m[$i % 2]->api(POST => '/v1/signup',
                                    body => { email => "mb$$.$i.$j." . time . '@example.com' },
                                    headers => { 'X-Client-IP' => "$ip.1" =~ s/\.(\d+)\.1$/.1$1/r });
            $c++ if $r->code == 201;
            die 'unexpected ' . $r->code unless $r->code == 201 || $r->code == 429;
        }
        return $c;
    });
    is $ok, 10, "$kind: 40 concurrent signups on two machines: exactly 10 pass";

    # the per-account /v1 limit across machines
    clear_of_boundary(60);
    my $key = $m[0]->api(POST => '/v1/signup', body => { email => email() },
                         headers => { 'X-Client-IP' => '198.18.0.' . ($kind eq 'pgsql' ? 1 : 2) })
        ->{json}{apiKey}{secret};
    $ok = FormsvcInstance->burst(6, sub {
        my $i = shift; my $c = 0;
        for (1 .. 8) {
            my $r = $m[$i % 2]->api(GET => '/v1/me', token => $key);
            $c++ if $r->code == 200;
            die 'unexpected ' . $r->code unless $r->code == 200 || $r->code == 429;
        }
        return $c;
    });
    is $ok, 20, "$kind: 48 concurrent requests of one account on two machines: exactly 20 pass";
    my $r = $m[1]->api(GET => '/v1/me', token => $key);
    is $r->code, 429, "$kind: and the second machine still refuses";
    is $r->header('RateLimit-Remaining'), 0, "$kind: RateLimit-Remaining 0";
    for (@m) {
        unlike $_->error_log, qr/\[(?:error|crit|alert|emerg)\]|AH1060[4-7]/, "$kind: no errors logged";
        $_->stop;
    }
}
done_testing;
