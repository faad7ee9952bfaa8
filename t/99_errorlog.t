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
    qr/FS0031[129]: |FS00320: statement \S+ failed after reconnecting \((08|57P0[123]|-)|FS00316: /,  # our own outage notes
    qr/FS00101|FS00102/,                      # 503s while the database is down
    qr/AH0162[89]|AH0163[01]/,                # authz refusals in /guarded
    qr/FS0070[12]/,                           # public pages during t/31's outage
    qr/FS00306/,                              # database unreachable at a child's start
    qr/FS00305/,                              # no pepper warning (not in the test config)
    qr/FS00001: FS00(10[12]|31[129]|316|320|70[12]|306) repeated/,  # counts of the repeats above
);
while (my $line = <$fh>) {
    next unless $line =~ /\[[a-z_]+:(error|crit|alert|emerg|warn)\]/;
    next if grep { $line =~ $_ } @allowed;
    push @unexpected, $line;
}
is scalar(@unexpected), 0, 'no unexpected error-log lines' or diag join '', @unexpected[0 .. ($#unexpected > 20 ? 20 : $#unexpected)];
done_testing;
