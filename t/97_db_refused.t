# PostgreSQL that answers but refuses every session ("too many
# connections", here a role whose connection limit is 0): PQping calls
# that up, yet mod_dbd cannot open a connection, and logs two lines each
# time it tries. The gate counts the database as down for a while after
# each failed open (250 ms, doubling up to 5 s): requests get 503 at once,
# and the error log grows by a few lines a second, not by two for every
# request.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql);
use LWP::UserAgent;
use POSIX ();
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};

my $role = "fsrefused$$";
psql("CREATE ROLE $role LOGIN CONNECTION LIMIT 0");
END { psql("DROP ROLE IF EXISTS $role") if $role }

my $inst = FormsvcInstance->start(name => 'refused', conf => <<"CONF");
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=$role connect_timeout=2"
FormsvcRateLimit submit off
CONF
my $from = length $inst->error_log;

my $dir = "$FindBin::Bin/logs/refused.$$";
mkdir $dir;
my $secs = 3;
FormsvcInstance->burst(8, sub {
    my $i = shift;
    my $ua = LWP::UserAgent->new(timeout => 10);
    my %c;
    my $end = time + $secs;
    while (time < $end) { $c{ $ua->get($inst->url . '/f/frm_nosuchform')->code }++ }
    open my $o, '>', "$dir/$i" or die;
    print $o join(' ', map { "$_=$c{$_}" } keys %c), "\n";
    close $o;
    return 0;
});
my %codes;
for my $i (1 .. 8) {
    open my $in, '<', "$dir/$i" or next;
    for (split ' ', <$in>) { my ($k, $v) = split /=/; $codes{$k} += $v }
    unlink "$dir/$i";
}
rmdir $dir;
my $total = 0; $total += $_ for values %codes;
my $summary = join ', ', map { "$_ x $codes{$_}" } sort keys %codes;
cmp_ok $total, '>', 100, "requests made while every session is refused ($summary)";
is_deeply [ grep { $_ != 503 } keys %codes ], [], 'every answer 503';
my @dbd = grep { /\[dbd:error\]/ } split /\n/, substr($inst->error_log, $from);
# 3 children, each trying again after 250 ms, 500 ms, 1 s, 2 s: a few
# opens each in 3 s, two lines of mod_dbd's each
cmp_ok scalar(@dbd), '<=', 60, scalar(@dbd) . " lines of mod_dbd's for $total requests in $secs s";
$inst->stop;
done_testing;
