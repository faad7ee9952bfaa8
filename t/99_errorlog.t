# Runs last: the error log of the suite's server holds no warning or error
# that a test did not provoke on purpose. A test that provokes some (a
# database outage, an authorization refusal) wraps the requests in
# FormsvcTest::expect_log with patterns of the lines it expects; those
# lines are allowed in the part of the log written meanwhile, nowhere else.
# So an unexpected 500, or a 503 outside an outage, fails here whichever
# test caused it.
use strict;
use warnings;
use Test::More;
use FindBin;
use Digest::MD5 ();
use JSON::PP ();

my $log = "$FindBin::Bin/logs/error_log";
open my $fh, '<', $log or die "$log: $!";
local $/; my $text = <$fh>; close $fh;

# The records of expect_log: byte ranges of this log with their patterns.
my @windows;
if (open my $ef, '<', "$FindBin::Bin/logs/expected_errors") {
    local $/ = "\n";
    while (my $l = <$ef>) {
        my $rec = JSON::PP::decode_json($l);
        my $bytes = substr($text, $rec->{from}, $rec->{to} - $rec->{from}) // '';
        if (Digest::MD5::md5_hex($bytes) ne $rec->{md5}) {
            diag "ignored: the expectations of $rec->{test} name bytes $rec->{from}..$rec->{to} of another log";
            next;
        }
        push @windows, { %$rec, patterns => [ map { qr/$_/ } @{ $rec->{patterns} } ] };
    }
}
my (@unexpected, %used);
my $at = 0;
for my $line (split /^/, $text) {
    my $start = $at;
    $at += length $line;
    # [module:level]; "-" for a file of ours without APLOG_USE_MODULE
    next unless $line =~ /\[[a-z_-]+:(error|crit|alert|emerg|warn)\]/;
    my ($w) = grep { $_->{from} <= $start && $start < $_->{to} && _any($line, $_->{patterns}) } @windows;
    if ($w) { $used{$w->{test}}++; next }
    push @unexpected, $line;
}
sub _any { my ($line, $res) = @_; for (@$res) { return 1 if $line =~ $_ } return 0 }

is scalar(@unexpected), 0, 'no unexpected error-log lines'
    or diag join '', @unexpected[0 .. ($#unexpected > 20 ? 20 : $#unexpected)];
note "expected lines: ", join(', ', map { "$_ $used{$_}" } sort keys %used) || 'none';
done_testing;
