# The counters of FormsvcRateLimitStore pgsql whose window has ended are
# swept by a task of their own: a worker of each child
# runs it about a minute apart, the first time a few seconds after the
# child starts. (It was a side job of the mail worker, every ten minutes,
# and of one request in 1,024.)
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql wait_for);
use Time::HiRes ();

delete $ENV{LD_PRELOAD};


my ($old, $live) = ("sweep-old-$$", "sweep-live-$$");
psql("INSERT INTO ratelimit (key, count, expires_at) VALUES "
   . "('$old', 3, now() - interval '2 minutes'), ('$live', 3, now() + interval '1 hour')");
my $inst = FormsvcInstance->start(name => 'rlsweep', conf => "FormsvcRateLimitStore pgsql\n");
my $t0 = Time::HiRes::time(); # its children have started
my $gone = wait_for(sub { psql("SELECT count(*) FROM ratelimit WHERE key = '$old'") == 0 }, 20, 'the sweep');
my $took = Time::HiRes::time() - $t0;
ok $gone, sprintf('the counter of an ended window is swept (after %.1f s)', $took);
cmp_ok $took, '<', 12, 'by the first run of the sweep task, seconds after the children start';
is psql("SELECT count FROM ratelimit WHERE key = '$live'"), 3, 'a live counter stays';
unlike $inst->error_log, qr/\[(?:error|crit|alert|emerg)\]/, 'no errors logged';
$inst->stop;
psql("DELETE FROM ratelimit WHERE key IN ('$old', '$live')");
done_testing;
