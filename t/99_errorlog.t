# Runs last: the error log holds no unexpected errors. Expected ones are the
# database outage of t/13_reconnect.t and authorization refusals of
# t/14_authz.t.
use strict;
use warnings;
use Test::More;
use FindBin;

open my $fh, '<', "$FindBin::Bin/logs/error_log" or die $!;
my @unexpected;
my @allowed = (
    qr/\[dbd:/,                               # mod_dbd during the outage
    qr/AH10301: store: (database connection|preparing statements again failed|statement \S+ failed after reconnecting \((08|57P0[123]|-)|statement \S+: no answer from the database)/,  # our own outage notes
    qr/AH10101|AH10102/,                      # 503s while the database is down
    qr/AH0162[89]|AH0163[01]/,                # authz refusals in /guarded
    qr/AH1070[12]/,                           # public pages during t/31's outage
    qr/AH10306/,                              # database unreachable at a child's start
    qr/AH10305/,                              # no pepper warning (not in the test config)
    qr/AH10301: store: statement fs_tally_rollup: database busy \(55P03\)/,  # t/58 locks the counter tables for 8 s on purpose
);
while (my $line = <$fh>) {
    next unless $line =~ /\[[a-z_]+:(error|crit|alert|emerg|warn)\]/;
    next if grep { $line =~ $_ } @allowed;
    push @unexpected, $line;
}
is scalar(@unexpected), 0, 'no unexpected error-log lines' or diag join '', @unexpected[0 .. ($#unexpected > 20 ? 20 : $#unexpected)];
done_testing;
