# Startup checks: a clear error when mod_dbd is missing or has no database
# configured, and when the pepper file cannot be read. Each case starts a
# separate httpd on a free port with a minimal configuration.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::INET;

my $httpd = $ENV{FORMSVC_HTTPD} // "/usr/sbin/apache2";
my $mods = '/usr/lib/apache2/modules';
my $module = $ENV{FORMSVC_MODULE} or die 'FORMSVC_MODULE not set';
my $dir = tempdir(CLEANUP => 1);

sub try_start {
    my ($extra) = @_;
    my $port = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0)->sockport;
    open my $fh, '>', "$dir/httpd.conf" or die $!;
    print $fh <<"CONF";
ServerRoot "$dir"
Listen 127.0.0.1:$port
ServerName 127.0.0.1
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error.log"
DefaultRuntimeDir "$dir"
LoadModule mpm_event_module $mods/mod_mpm_event.so
LoadModule authn_core_module $mods/mod_authn_core.so
LoadModule authz_core_module $mods/mod_authz_core.so
$extra
CONF
    close $fh;
    unlink "$dir/error.log";
    my $out = `timeout 20 $httpd -f $dir/httpd.conf -DFOREGROUND 2>&1`;
    my $rc = $? >> 8;
    if (open my $l, '<', "$dir/error.log") { local $/; $out .= <$l> // '' }
    system("kill \$(cat $dir/httpd.pid) 2>/dev/null") if -e "$dir/httpd.pid";
    return ($rc, $out);
}

my ($rc, $out) = try_start("LoadModule formsvc_module $module");
isnt $rc, 0, 'without mod_dbd httpd does not start';
like $out, qr/mod_formsvc needs mod_dbd/, 'and says to load mod_dbd';

($rc, $out) = try_start("LoadModule dbd_module $mods/mod_dbd.so\nLoadModule formsvc_module $module");
isnt $rc, 0, 'without DBDriver/DBDParams httpd does not start';
like $out, qr/mod_formsvc needs a database: set DBDriver pgsql and DBDParams/, 'and says which directives';

($rc, $out) = try_start("LoadModule dbd_module $mods/mod_dbd.so\nLoadModule formsvc_module $module\n"
    . "DBDriver pgsql\nDBDParams \"host=/nonexistent dbname=x connect_timeout=1\"\n"
    . "FormsvcSecretPepperFile $dir/no-such-pepper");
isnt $rc, 0, 'an unreadable pepper file stops httpd';
like $out, qr/FormsvcSecretPepperFile .* cannot be read/, 'with a readable message';

($rc, $out) = try_start("LoadModule dbd_module $mods/mod_dbd.so\nLoadModule formsvc_module $module\n"
    . "FormsvcBaseURL ftp://example.com");
isnt $rc, 0, 'a bad FormsvcBaseURL stops httpd';
like $out, qr/FormsvcBaseURL must be an absolute http\(s\) URL/, 'naming the directive';

($rc, $out) = try_start("LoadModule dbd_module $mods/mod_dbd.so\nLoadModule formsvc_module $module\n"
    . "FormsvcQuota premium forms 3");
like $out, qr/FormsvcQuota: the first argument is unverified or verified/, 'bad quota tier named';

# `apachectl configtest` (httpd -t) must catch what would stop a later
# graceful restart: every file-backed directive is read with the directive.
sub configtest {
    my ($extra) = @_;
    open my $fh, '>', "$dir/test.conf" or die $!;
    print $fh <<"CONF";
ServerRoot "$dir"
Listen 127.0.0.1:1
ServerName 127.0.0.1
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error.log"
LoadModule mpm_event_module $mods/mod_mpm_event.so
LoadModule authn_core_module $mods/mod_authn_core.so
LoadModule authz_core_module $mods/mod_authz_core.so
LoadModule dbd_module $mods/mod_dbd.so
LoadModule formsvc_module $module
DBDriver pgsql
DBDParams "host=/nonexistent dbname=x connect_timeout=1"
$extra
CONF
    close $fh;
    my $out = `$httpd -t -f $dir/test.conf 2>&1`;
    return ($? >> 8, $out);
}
{ open my $p, '>', "$dir/good-pepper" or die; print $p 'x' x 32; close $p }
($rc, $out) = configtest("FormsvcSecretPepperFile $dir/good-pepper");
is $rc, 0, 'configtest passes with a good pepper file' or diag $out;
($rc, $out) = configtest("FormsvcSecretPepperFile $dir/no-such-pepper");
isnt $rc, 0, 'configtest fails on a missing pepper file';
like $out, qr/FormsvcSecretPepperFile \S+no-such-pepper cannot be read .*head -c 32 \/dev\/urandom/,
    'saying how to make one';
{ open my $p, '>', "$dir/short-pepper" or die; print $p 'abcde'; close $p }
($rc, $out) = configtest("FormsvcSecretPepperFile $dir/short-pepper");
isnt $rc, 0, 'configtest fails on a 5-byte pepper file';
like $out, qr/must hold 16 to 4096 bytes, it has 5/, 'saying the size it needs';
($rc, $out) = configtest("FormsvcMailSMTPPasswordFile $dir/no-such-password");
isnt $rc, 0, 'configtest fails on a missing SMTP password file';
like $out, qr/FormsvcMailSMTPPasswordFile \S+ cannot be read .*write the SMTP password/, 'saying what to do';
($rc, $out) = configtest("FormsvcMailTransport file $dir/good-pepper/mail");
isnt $rc, 0, 'configtest fails on a mail directory under a regular file';
like $out, qr/FormsvcMailTransport file .* is not a directory/, 'naming the directive';
($rc, $out) = configtest("FormsvcMailTransport file $dir/new/spool");
is $rc, 0, 'a mail directory that does not exist yet is made at start' or diag $out;

done_testing;
