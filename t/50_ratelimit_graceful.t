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

my $conf = <<'CONF';
FormsvcRateLimitStore local
FormsvcRateLimit signup 6 86400
CONF
my $inst = FormsvcInstance->start(name => 'rlgrace', conf => $conf);
my @apache = ($ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2', '-f', $inst->root . '/httpd.conf');

# One window for the whole test (windows are aligned to the clock).
my $left = 86400 - time % 86400;
sleep $left + 1 if $left < 120;

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
