# make deb: the Debian package is built (debhelper + dh-apache2) and holds
# what an installation needs, with the configuration as conffiles and
# maintainer scripts that enable the module and clean up on purge. Only
# dpkg-deb looks at it: nothing is installed on this machine. make
# source-deb: the source package (3.0 (native)) holds the sources and
# none of what builds and tests write, and dpkg-source -x unpacks it.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);

delete $ENV{LD_PRELOAD};  # make test-asan: no sanitizer runtime in the build tools
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
for my $tool (qw(dpkg-buildpackage dh_apache2 dpkg-deb)) {
    plan skip_all => "$tool missing (make deps installs it)" unless grep { -x "$_/$tool" } split /:/, $ENV{PATH};
}
sub slurp { my $f = shift; open my $fh, '<', $f or die "$f: $!"; local $/; <$fh> }
sub run { my $out = `@_`; die "failed ($?): @_\n$out" if $?; return $out }

my $version = slurp("$root/VERSION"); chomp $version;
# A changelog newer than VERSION: make deb says to change VERSION (not to
# add a changelog entry, which it said before); older: to add an entry.
{
    my $t = tempdir(CLEANUP => 1);
    mkdir "$t/$_" for qw(scripts debian);
    system('cp', "$root/scripts/deb", "$t/scripts/") == 0 or die;
    my $cl = slurp("$root/debian/changelog");
    for my $c (['9.9.9', qr/newer than VERSION \(\Q$version\E\): set VERSION to 9\.9\.9/],
               ['0.0.1', qr/VERSION is \Q$version\E but debian\/changelog's newest entry is 0\.0\.1: add a changelog entry/],
               ["$version-1", qr/\Q$version\E-1: a native package .* has no Debian revision; make it \Q$version\E/]) {
        (my $new = $cl) =~ s/^(\S+) \([^)]*\)/$1 ($c->[0])/;
        open my $fh, '>', "$t/debian/changelog" or die; print $fh $new; close $fh;
        open $fh, '>', "$t/VERSION" or die; print $fh "$version\n"; close $fh;
        my $o = `cd $t && bash scripts/deb 2>&1`;
        isnt $?, 0, "make deb refuses a changelog at $c->[0] with VERSION $version";
        like $o, $c->[1], 'and says which to change';
    }
}
my $arch = run('dpkg-architecture -qDEB_HOST_ARCH'); chomp $arch;
# noopt (-O0): this file looks at what the package holds, not at the
# code's speed, and a clean clone pays for the whole build here
my $out = `DEB_BUILD_OPTIONS=noopt bash $root/scripts/deb 2>&1`;
is $?, 0, 'make deb succeeds' or diag $out;
my ($deb) = $out =~ /^(\S+\.deb)$/m;
$deb = "$root/$deb" if $deb && $deb !~ m{^/};
ok $deb && -f $deb, 'a package was made' or BAIL_OUT("no package: $out");
like $deb, qr{/libapache2-mod-formsvc_\Q$version\E_\Q$arch\E\.deb$}, "named libapache2-mod-formsvc_${version}_$arch.deb (native: no revision)";

my %f = map { /^(\S+): (.*)$/ ? ($1 => $2) : () } split /\n/, run("dpkg-deb -f '$deb'");
is $f{Package}, 'libapache2-mod-formsvc', 'package name';
is $f{Version}, $version, 'version from VERSION';
like $f{Depends}, qr/\bapache2-api-\d+/, 'depends on the Apache module API (dh_apache2)';
like $f{Depends}, qr/\blibaprutil1-dbd-pgsql\b/, 'and on the pgsql driver of mod_dbd';
like $f{Depends}, qr/\bpostgresql-client\b/, 'and on psql (formsvc-admin)';
like $f{Depends}, qr/\blibjson-c\d/, 'shared libraries from dh_shlibdeps';

my %files;
for (split /\n/, run("dpkg-deb -c '$deb'")) {
    my @c = split ' ', $_, 6;
    (my $p = $c[5]) =~ s{^\./}{/};
    $files{$p} = $c[0];
}
for my $p (qw(/usr/lib/apache2/modules/mod_formsvc.so /etc/apache2/mods-available/formsvc.load
              /etc/apache2/mods-available/formsvc.conf /etc/apache2/conf-available/formsvc-server.conf
              /etc/apache2/sites-available/formsvc.conf
              /usr/share/formsvc/VERSION)) {
    ok exists $files{$p}, "contains $p";
}
like $files{'/usr/sbin/formsvc-admin'} // '', qr/^-rwxr-xr-x/, 'formsvc-admin, executable';
for my $sql (map { m{([^/]+)$} } glob "$root/sql/[0-9][0-9][0-9][0-9]_*.sql") {
    ok exists $files{"/usr/share/formsvc/sql/$sql"}, "migration $sql";
}
for my $l (map { m{([^/]+)$} } glob "$root/share/locales/*.json") {
    ok exists $files{"/usr/share/formsvc/locales/$l"}, "language file $l";
}
ok exists $files{'/usr/share/formsvc/locales/en.json'}, 'the English file among them';
ok((grep { m{^/usr/share/doc/libapache2-mod-formsvc/deploy\.md(\.gz)?$} } keys %files), 'docs (deploy.md)');
ok((grep { m{^/usr/share/doc/libapache2-mod-formsvc/README\.md(\.gz)?$} } keys %files), 'docs (README.md)');
# every document the shipped configuration files point to is shipped
my %named;
for my $c (glob("$root/conf/*.conf"), glob("$root/conf/site/*.conf")) {
    my $text = slurp($c);
    $named{$1}++ while $text =~ m{docs/(?:[a-z-]+/)?([a-z_-]+\.md)}g;
}
for my $d (sort keys %named) {
    ok((grep { m{^/usr/share/doc/libapache2-mod-formsvc/\Q$d\E(\.gz)?$} } keys %files), "the conf files name $d: shipped");
}
ok((grep { m{^/usr/share/man/man8/formsvc-admin\.8(\.gz)?$} } keys %files), 'a man page for formsvc-admin');
ok exists $files{'/usr/share/doc/libapache2-mod-formsvc/copyright'}, 'the copyright file';
like slurp("$root/debian/copyright"), qr/^Copyright: \d{4}/m, 'with a copyright notice (year and holder)';

my $dir = tempdir(CLEANUP => 1);
run("dpkg-deb -e '$deb' $dir/DEBIAN");
my @conffiles = sort grep { length } split /\n/, slurp("$dir/DEBIAN/conffiles");
is_deeply \@conffiles, [qw(/etc/apache2/conf-available/formsvc-server.conf
                           /etc/apache2/mods-available/formsvc.conf
                           /etc/apache2/mods-available/formsvc.load
                           /etc/apache2/sites-available/formsvc.conf)],
    'conffiles: the configuration in /etc (dpkg keeps an edited one on upgrade)';

for my $s (qw(postinst prerm postrm)) {
    ok -x "$dir/DEBIAN/$s", "$s present";
    is system('sh', '-n', "$dir/DEBIAN/$s"), 0, "$s is valid sh";
}
my $postinst = slurp("$dir/DEBIAN/postinst");
like $postinst, qr/apache2_invoke enmod \$conf/, 'postinst enables the module (dh_apache2)';
like $postinst, qr/for conf in formsvc\b/, 'the formsvc module';
like $postinst, qr{head -c 32 /dev/urandom > /etc/apache2/formsvc.pepper}, 'and makes the pepper when missing';
like $postinst, qr{/var/spool/formsvc/mail}, 'and the mail spool';
ok index($postinst, 'formsvc.pepper') < index($postinst, 'apache2_invoke enmod'), 'the pepper before the module is enabled (configtest needs it)';
like $postinst, qr/formsvc-admin migrate;/, 'postinst runs formsvc-admin migrate when the database can be reached';
like $postinst, qr/RUN  formsvc-admin migrate/, 'or says loudly that it must be run';
ok index($postinst, 'formsvc-admin migrate;') < index($postinst, 'apache2_invoke enmod'), 'before Apache is restarted into the new module';
my $postrm = slurp("$dir/DEBIAN/postrm");
like $postrm, qr/"\$1" = "purge".*apache2_invoke dismod/s, 'purge forgets the module (dh_apache2)';
like $postrm, qr{rm -f /etc/apache2/formsvc.pepper /etc/apache2/formsvc.pepper.new /etc/apache2/formsvc.pgpass}, 'purge removes the pepper (and its mark) and password file';
like $postrm, qr{rm -rf /var/spool/formsvc}, 'and the spool';

run("dpkg-deb -x '$deb' $dir/root");
is slurp("$dir/root/etc/apache2/mods-available/formsvc.conf"), slurp("$root/conf/formsvc.conf"), 'formsvc.conf is the shipped one';
is slurp("$dir/root/etc/apache2/mods-available/formsvc.load"), slurp("$root/conf/formsvc.load"), 'formsvc.load too';
is slurp("$dir/root/etc/apache2/sites-available/formsvc.conf"), slurp("$root/conf/site/formsvc.conf"), 'the site (Formsvc On) too';
unlike $postinst, qr/apache2_invoke ensite|^\s*a2ensite/m, 'the site is not enabled by the package: nothing is served until the operator opts in';
like run("nm -D --defined-only $dir/root/usr/lib/apache2/modules/mod_formsvc.so"), qr/\bformsvc_module\b/,
    'the module exports formsvc_module';
like run("strings $dir/root/usr/lib/apache2/modules/mod_formsvc.so"), qr/\b\Q$version\E\b/, 'built with this VERSION';

# the source package
is slurp("$root/debian/source/format"), "3.0 (native)\n", 'source format 3.0 (native)';
$out = `bash $root/scripts/deb source 2>&1`;
is $?, 0, 'make source-deb succeeds' or diag $out;
my ($dsc) = $out =~ /^(\S+\.dsc)$/m;
$dsc = "$root/$dsc" if $dsc && $dsc !~ m{^/};
like $dsc // '', qr{/libapache2-mod-formsvc_\Q$version\E\.dsc$}, "libapache2-mod-formsvc_$version.dsc";
(my $tarball = $dsc // '') =~ s/\.dsc$/.tar.xz/;
ok -f $tarball, 'and its .tar.xz';
my @src = map { s{^[^/]*/}{}r } grep { length } split /\n/, run("tar -tf '$tarball'");
my %src = map { $_ => 1 } @src;
for my $p (qw(VERSION Makefile Makefile.apxs debian/control debian/rules debian/changelog
              debian/source/format mod_formsvc/mod_formsvc.c scripts/deb t/04_deb.t)) {
    ok $src{$p}, "the source holds $p";
}
my @written = grep { m{^(build|build-asan|var|\.git|t/js/node_modules|t/logs)(/|$)} } @src;
is_deeply \@written, [], 'and none of build/, var/, .git, t/js/node_modules, t/logs';
my $x = tempdir(CLEANUP => 1);
run("cd $x && dpkg-source -x '$dsc' src 2>&1");
ok -x "$x/src/debian/rules", 'dpkg-source -x unpacks it';
is slurp("$x/src/VERSION"), slurp("$root/VERSION"), 'with this VERSION';

done_testing;
