# Rate-limit stores set per virtual host hold: two hosts with different
# FormsvcRateLimitStore memcache addresses each count in their own
# memcached (each child used to open one client, for the first server
# that named an address, and counted every host's hits there), and a
# virtual host's FormsvcRateLimitSlots sizes the local table when it is
# the one counting there (only the main server's value was read). Found
# by scripts/config-matrix's vhost cases.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(wait_for);
use IO::Socket::INET;
use LWP::UserAgent;

my @mc;
END { for (@mc) { kill 'TERM', $_->{pid}; waitpid($_->{pid}, 0) } }
for (1, 2) {
    my $port = FormsvcInstance::free_port();
    my $pid = fork // die;
    if (!$pid) {
        my @u = $> == 0 ? ('-u', 'nobody') : ();
        exec 'memcached', '-l', '127.0.0.1', '-p', $port, '-U', '0', '-m', '8', @u;
        exit 127;
    }
    push @mc, { port => $port, pid => $pid };
    wait_for(sub { IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port") }, 5, 'memcached to listen');
}
# how many items a memcached holds (its stats)
sub items {
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$_[0]{port}") or die $!;
    print $s "stats\r\n";
    while (my $l = <$s>) { return $1 if $l =~ /^STAT curr_items (\d+)/; last if $l =~ /^END/ }
    return -1;
}

my $vport = FormsvcInstance::free_port();
my $lport = FormsvcInstance::free_port();
my $inst = FormsvcInstance->start(name => 'vhost-stores', conf => <<"CONF");
FormsvcRateLimitStore memcache 127.0.0.1:$mc[0]{port}
FormsvcRateLimit recover 2 3600
Listen 127.0.0.1:$vport
<VirtualHost 127.0.0.1:$vport>
    ServerName 127.0.0.1:$vport
    FormsvcRateLimitStore memcache 127.0.0.1:$mc[1]{port}
</VirtualHost>
FormsvcRateLimitSlots 1024
Listen 127.0.0.1:$lport
<VirtualHost 127.0.0.1:$lport>
    ServerName 127.0.0.1:$lport
    FormsvcRateLimitStore local
    FormsvcRateLimitSlots 2097152
</VirtualHost>
CONF
is items($mc[0]), 0, 'the first memcached is empty';
is items($mc[1]), 0, 'the second memcached is empty';

my $ua = LWP::UserAgent->new(timeout => 10);
sub recover {
    my ($port, $ip) = @_;
    return $ua->post("http://127.0.0.1:$port/api/v1/recover", 'Content-Type' => 'application/json',
                     'X-Client-IP' => $ip, Content => '{"email":"nobody@example.com"}')->code;
}
my @codes = map { recover($vport, '198.51.100.7') } 1 .. 3;
is_deeply \@codes, [202, 202, 429], 'the virtual host: the limit of 2 holds';
ok items($mc[1]) >= 1, "the virtual host's hits are counted in its own memcached";
is items($mc[0]), 0, "and not in the main server's";

my $main = $inst->url =~ m{:(\d+)/} ? $1 : die;
@codes = map { recover($main, '198.51.100.7') } 1 .. 3;
is_deeply \@codes, [202, 202, 429], 'the main server: the same address has its own count there';
ok items($mc[0]) >= 1, "the main server's hits are counted in its memcached";

# the local table: 16 bytes a counter, so 2097152 of them are a shared
# mapping of 32 MiB and more in httpd's parent (1024: 16 KiB)
my $ppid = FormsvcInstance::slurp($inst->root . '/httpd.pid') =~ s/\s+//gr;
my @big = grep {
    my ($lo, $hi) = /^([0-9a-f]+)-([0-9a-f]+) \S*s\S* /;
    defined $lo && hex($hi) - hex($lo) >= 32 * 1024 * 1024 && hex($hi) - hex($lo) < 34 * 1024 * 1024
} split /\n/, FormsvcInstance::slurp("/proc/$ppid/maps");
is scalar @big, 1, "the local table has the virtual host's 2097152 counters" or diag "parent $ppid";
@codes = map { recover($lport, '198.51.100.8') } 1 .. 3;
is_deeply \@codes, [202, 202, 429], 'and that host counts in it';

$inst->stop;
done_testing;
