# Problem types: every type the code makes (fs_error_make with a literal
# slug) is in the catalogue of core/fs_error.c (a slug that is not there
# becomes a 500 internal), and every type of the catalogue is named in the
# docs, so a client that meets one finds what it means.
use strict;
use warnings;
use Test::More;

my $root = $ENV{FORMSVC_ROOT} or plan skip_all => 'FORMSVC_ROOT not set (run through make test)';
sub slurp { open my $fh, '<', $_[0] or die "$_[0]: $!"; local $/; <$fh> }
my $cat = slurp("$root/mod_formsvc/core/fs_error.c");
my ($table) = $cat =~ /catalogue\[\]\s*=\s*\{(.*?)\n\};/s;
my %catalogue = map { $_ => 1 } $table =~ /^\s*\{"([a-z-]+)",\s*\d{3},/mg;
cmp_ok scalar(keys %catalogue), '>=', 30, scalar(keys %catalogue) . ' types in the catalogue';

my %made;
for my $f (glob("$root/mod_formsvc/*/*.c"), glob("$root/mod_formsvc/*.c")) {
    my $src = slurp($f);
    (my $name = $f) =~ s{^\Q$root\E/}{};
    push @{ $made{$1} }, $name while $src =~ /\bfs_error_make\(\s*[^,]+,\s*"([^"]*)"/sg;
}
cmp_ok scalar(keys %made), '>=', 20, scalar(keys %made) . ' types made by the code';
for my $slug (sort keys %made) {
    ok $catalogue{$slug}, "$slug (made in @{[ join ', ', sort { $a cmp $b } keys %{{ map { $_ => 1 } @{ $made{$slug} } }} ]}) is in the catalogue";
}

my $docs = join "\n", map { slurp($_) } glob("$root/docs/*.md");
for my $slug (sort keys %catalogue) {
    ok $docs =~ /`(?:\d{3} )?\Q$slug\E`/, "$slug is named in docs/";
}
done_testing;
