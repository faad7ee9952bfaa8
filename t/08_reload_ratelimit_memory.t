# A graceful restart whose FormsvcRateLimitSlots table cannot be made
# (the parent is out of memory for it) does not stop Apache: the parent's
# post_config used to return an error and httpd exited (AH00020), the
# server gone on a reload that configtest had accepted. Now the new
# generation counts on in the last generation's table (FS00601). The
# parent's address space is capped with prlimit so that a table of
# 16777216 counters (256 MiB) cannot be mapped, while the rest fits.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(wait_for);
use LWP::UserAgent;

plan skip_all => 'needs prlimit' if system('prlimit --version >/dev/null 2>&1');

# small thread stacks and few malloc arenas (inherited by the instance),
# so that a new generation's children fit in the room left below
system('prlimit', "--pid=$$", '--stack=1048576') == 0 or die 'prlimit --stack';
$ENV{MALLOC_ARENA_MAX} = 2;
my $conf = "FormsvcRateLimit recover 2 3600\nFormsvcRateLimitSlots 1024\n";
my $inst = FormsvcInstance->start(name => 'rl-memory', conf => $conf);
my $ua = LWP::UserAgent->new(timeout => 10);
sub recover {
    return $ua->post($inst->url . '/v1/recover', 'Content-Type' => 'application/json',
                     'X-Client-IP' => '198.51.100.9', Content => '{"email":"nobody@example.com"}')->code;
}
is_deeply [recover(), recover()], [202, 202], 'two recoveries pass';

my $ppid = FormsvcInstance::slurp($inst->root . '/httpd.pid') =~ s/\s+//gr;
my ($vm) = FormsvcInstance::slurp("/proc/$ppid/status") =~ /^VmSize:\s+(\d+) kB/m;
ok $vm, "the parent's address space: $vm kB";
# room for a new generation (the module mapped again, the children's
# threads) but not for 256 MiB more
system('prlimit', "--pid=$ppid", '--as=' . ($vm * 1024 + 224 * 1024 * 1024)) == 0 or die 'prlimit';

my $ok = eval { $inst->reload(conf => "FormsvcRateLimit recover 2 3600\nFormsvcRateLimitSlots 16777216\n"); 1 };
ok $ok, 'the graceful restart into a table that cannot be made: the new generation answers' or diag $@;
ok kill(0, $ppid), 'the parent lives on';
like $inst->error_log, qr/FS00601: cannot create \d+ bytes of shared memory for rate-limit counters \(FormsvcRateLimitSlots 16777216\); counting on in the table of the last generation/,
     'FS00601 says so';
is recover(), 429, 'and the count goes on in the last generation\'s table: the third is refused';

system("prlimit --pid=$ppid --as=unlimited 2>/dev/null");
$inst->stop;
done_testing;
