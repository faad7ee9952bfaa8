# The local store's counters live in shared memory that outlives a
# configuration generation (ap_retained_data): a graceful restart (every
# reload, so the daily logrotate) keeps them, and a limit is reached at the
# same total as without the restart. A FormsvcRateLimitSlots of another
# size, or a full stop and start, starts from zero.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest ();
use LWP::UserAgent;

my $conf = <<'CONF';
FormsvcRateLimitStore local
FormsvcRateLimit signup 6 86400
FormsvcQuota unverified requests 60
CONF
my $inst = FormsvcInstance->start(name => 'rlgrace', conf => $conf);
my @apache = ($ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2', '-f', $inst->root . '/httpd.conf');

# One window for the whole test (windows are aligned to the clock).
FormsvcTest::clear_of_boundary(86400, 120);

my $n = 0;
sub signup {
    my ($ip) = @_;
    my $r = $inst->api(POST => '/v1/signup', body => { email => sprintf('rlg%d.%d.%d@example.com', $$, time, ++$n) },
                       headers => { 'X-Client-IP' => $ip });
    return [$r->code, $r->header('RateLimit-Remaining')];
}

# A graceful restart, then wait until every child is of the new generation
# and answers.
sub graceful {
    my %old = map { $_ => 1 } $inst->children;
    system(@apache, '-k', 'graceful') == 0 or die 'graceful failed';
    return FormsvcTest::wait_for(sub {
        my @now = $inst->children;
        return 0 if !@now || grep { $old{$_} } @now;
        return $inst->api(GET => '/healthz')->code == 200;
    }, 30, 'the children of the new generation');
}

my $ip = '198.51.100.' . (10 + $$ % 200);
is_deeply [map { signup($ip) } 1 .. 3], [[201, 5], [201, 4], [201, 3]],
    'three of six signups from one address';
ok graceful(), 'graceful restart: every child is new';
is_deeply [map { signup($ip) } 1 .. 4], [[201, 2], [201, 1], [201, 0], [429, 0]],
    'the count goes on: the seventh signup is refused, as without the restart';
ok graceful(), 'a second graceful restart';
is_deeply signup($ip), [429, 0], 'still refused';

# Exact under parallel requests across a graceful restart: an account's
# 60 requests a minute, 4 clients asking 30 times each while one of them
# restarts the server gracefully a quarter of the way in and waits for the
# new generation before going on. Exactly 60 answers are 200, whichever
# generation counted them.
{
    my $r = $inst->api(POST => '/v1/signup', body => { email => "rlgp$$." . time . '@example.com' },
                       headers => { 'X-Client-IP' => '198.51.100.250' });
    is $r->code, 201, 'an account for the parallel part';
    my $tok = $r->{json}{apiKey}{secret};
    FormsvcTest::clear_of_boundary(60, 40); # one minute window for the whole burst
    my $tally = $inst->root . '/tally';
    unlink glob "$tally.*";
    FormsvcInstance->burst(4, sub {
        my $i = shift;
        my $ua = LWP::UserAgent->new(timeout => 30, keep_alive => 0);
        my %c;
        for my $k (1 .. 30) {
            $c{ $ua->get($inst->url . '/v1/me', Authorization => "Bearer $tok")->code }++;
            graceful() if $i == 1 && $k == 8;
        }
        open my $fh, '>', "$tally.$i" or die $!;
        print $fh join(' ', map { "$_=$c{$_}" } sort keys %c);
        return 0;
    });
    my %sum;
    for my $f (glob "$tally.*") {
        my $t = FormsvcInstance::slurp($f);
        $sum{$1} += $2 while $t =~ /(\d+)=(\d+)/g;
    }
    is_deeply \%sum, { 200 => 60, 429 => 60 },
        '120 requests across a graceful restart: exactly 60 allowed, 60 refused';
}

# Another table size: a fresh table.
open my $fh, '>>', $inst->root . '/httpd.conf' or die $!;
print $fh "FormsvcRateLimitSlots 2048\n";
close $fh;
ok graceful(), 'graceful restart with FormsvcRateLimitSlots 2048';
is_deeply signup($ip), [201, 5], 'a table of another size starts from zero';

# A full stop and start: from zero.
$inst->stop;
$inst = FormsvcInstance->start(name => 'rlgrace', conf => $conf);
is_deeply signup($ip), [201, 5], 'after a stop and start the count starts from zero';

unlike $inst->error_log, qr/\[(?:error|crit|alert|emerg)\]/, 'no errors logged';
$inst->stop;
done_testing;
