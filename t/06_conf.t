# The shipped conf/formsvc.conf lists every directive of the module (from
# the command tables in mod_formsvc/runtime and its other rooms), each commented with its default
# or set, and names none that does not exist; docs/configuration.md
# describes each. The quota and rate-limit lines carry the defaults of the
# C tables. And the shipped DBDMax fits PostgreSQL's default
# max_connections with Debian's default worker count.
use strict;
use warnings;
use Test::More;

my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
sub slurp { my $f = shift; open my $fh, '<', $f or die "$f: $!"; local $/; <$fh> }

my %code;
for my $f (glob "$root/mod_formsvc/*.[ch] $root/mod_formsvc/{runtime,http,handlers,public}/*.[ch]") {
    my $src = slurp($f);
    $code{$1} = $f while $src =~ /AP_INIT_[A-Z0-9_]+\([\s\\]*"(\w+)"/g;   # also across a macro's line continuation
}
ok scalar(keys %code) >= 20, 'directives found in the command tables: ' . scalar(keys %code);

my $conf = slurp("$root/conf/formsvc.conf");
my $doc = slurp("$root/docs/configuration.md");
for my $d (sort keys %code) {
    like $conf, qr/^[ \t]*#?[ \t]*\Q$d\E[ \t]/m, "formsvc.conf lists $d";
    like $doc, qr/`\Q$d\E\b/, "docs/configuration.md describes $d";
}
my %in_conf;
$in_conf{$1}++ while $conf =~ /^[ \t]*#?[ \t]*(Formsvc\w+)[ \t]/mg;
is_deeply [ grep { !$code{$_} } sort keys %in_conf ], [], 'formsvc.conf names no directive that does not exist';

# FormsvcQuota defaults: default_tier in config.c
my $cfg = slurp("$root/mod_formsvc/runtime/config.c");
my ($u, $v) = $cfg =~ /default_tier\[2\]\s*=\s*\{\s*\{([^}]*)\},\s*\{([^}]*)\}/s or die 'default_tier';
my @what = qw(forms fields submissions keys clients webhooks requests links);
my %tier = (unverified => [ split /\s*,\s*/, $u ], verified => [ split /\s*,\s*/, $v ]);
for my $t (qw(unverified verified)) {
    for my $i (0 .. $#what) {
        s/\s//g for $tier{$t}[$i];
        like $conf, qr/^[ \t]*#FormsvcQuota $t $what[$i] \Q$tier{$t}[$i]\E$/m, "FormsvcQuota $t $what[$i] $tier{$t}[$i]";
    }
}
# FormsvcRateLimit defaults: default_rules in config_accounts.c
my $acc = slurp("$root/mod_formsvc/runtime/config_accounts.c");
my %rl;
$rl{$3} = "$1 $2" while $acc =~ /\{(\d+),\s*(\d+)\},\s*\/\*\s*(\w+)/g;
is scalar(keys %rl), 5, 'five rate-limit defaults';
like $conf, qr/^[ \t]*#FormsvcRateLimit $_ $rl{$_}$/m, "FormsvcRateLimit $_ $rl{$_}" for sort keys %rl;

# Mail does not land under /etc by default, and the default is stated.
like $conf, qr{^[ \t]*#FormsvcMailTransport file /var/spool/formsvc/mail$}m, 'mail default: /var/spool/formsvc/mail';
like slurp("$root/mod_formsvc/runtime/mail.c"), qr{"/var/spool/formsvc/mail"}, 'and the module agrees';

# Connection sizing: Debian's mpm_event.conf (150 / 25 = 6 children), the
# shipped DBDMax, and PostgreSQL's default max_connections 100 of which 3
# are reserved for superusers; 5 kept for psql and migrations.
my ($dbdmax) = $conf =~ /^[ \t]*DBDMax[ \t]+(\d+)/m or die 'DBDMax';
my $children = 150 / 25;
my $server = slurp("$root/conf/formsvc-server.conf");
my ($sl) = $server =~ /^[ \t]*ServerLimit[ \t]+(\d+)/m;
$children = $sl if $sl && $sl > $children;
# (+ 1 per child: the cache listener's own session)
cmp_ok $children * ($dbdmax + 1) + 5, '<=', 100 - 3, "$children children x (DBDMax $dbdmax + 1) fits max_connections 100";

done_testing;
