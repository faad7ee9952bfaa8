# Log numbers: every log call of the module carries a
# number of our own (FSnnnnn, through FS_LOGNO / FORMSVC_LOG / FORMSVC_SLOG),
# used exactly once, and listed in docs/log-messages.md; none of httpd's
# AHnnnnn numbers is written by our code.
use strict;
use warnings;
use Test::More;

my $root = $ENV{FORMSVC_ROOT} or plan skip_all => 'FORMSVC_ROOT not set (run through make test)';
my %seen;
my @files = (glob("$root/mod_formsvc/*.c"), glob("$root/mod_formsvc/*/*.c"), glob("$root/mod_formsvc/*/*.h"));
cmp_ok scalar @files, '>', 40, 'sources found';
for my $f (@files) {
    open my $fh, '<', $f or die "$f: $!";
    my $src = do { local $/; <$fh> };
    $src =~ s{/\*.*?\*/}{}gs; # comments (examples in them are not calls)
    (my $name = $f) =~ s{^\Q$root\E/}{};
    # numbers: FS_LOGNO(nnnnn), and the third (FORMSVC_LOG) or fourth
    # (FORMSVC_SLOG) argument, i.e. the last bare number before the format
    while ($src =~ /\bFS_LOGNO\((\w+)\)/g) {
        next if $1 eq 'n' || $1 eq 'no';
        push @{ $seen{$1} }, $name;
    }
    # (not across ; { }: the macro definitions in log.h)
    while ($src =~ /\bFORMSVC_S?LOG\(([^";{}]*?)"/sg) {
        my ($n) = $1 =~ /(\w+)\s*,\s*$/;
        push @{ $seen{$n // '?'} }, $name;
    }
    my @ah = $src =~ /"(AH\d{5})/g;
    is_deeply \@ah, [], "$name writes no httpd AH number";
    # a .c file that logs says whose lines they are: without it httpd
    # writes [-:level] and a LogLevel formsvc:... does not reach them
    ok $src =~ /^(?:APLOG_USE_MODULE\(formsvc\);|AP_DECLARE_MODULE\(formsvc\))/m, "$name declares the module its lines are of"
        if $f =~ /\.c$/ && $src =~ /\b(?:FORMSVC_S?LOG|ap_log_[rsec]error|ap_log_perror)\s*\(/;
}
my @bad = grep { !/^\d{5}$/ } keys %seen;
is_deeply \@bad, [], 'every number is five digits';
my @dup = grep { @{ $seen{$_} } > 1 } sort keys %seen;
is_deeply \@dup, [], 'every number is used once' or diag join "\n", map { "FS$_: @{ $seen{$_} }" } @dup;
cmp_ok scalar(keys %seen), '>=', 50, scalar(keys %seen) . ' numbered log calls';

open my $doc, '<', "$root/docs/log-messages.md" or die "docs/log-messages.md: $!";
my %listed = map { $_ => 1 } do { local $/; <$doc> } =~ /^\|\s*`?FS(\d{5})/mg;
my @missing = grep { !$listed{$_} } sort keys %seen;
is_deeply \@missing, [], 'every number is in docs/log-messages.md';
my @stale = grep { !$seen{$_} } sort keys %listed;
is_deeply \@stale, [], 'docs/log-messages.md lists no number the code does not use';
done_testing;
