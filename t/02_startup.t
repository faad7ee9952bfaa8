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
FormsvcLocaleDir "$ENV{FORMSVC_ROOT}/share/locales"
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

# Every path a directive names, and every check the module makes at start,
# is made by configtest too: a configuration that `apachectl configtest`
# accepts must not stop httpd on the graceful restart that follows.
($rc, $out) = configtest("FormsvcLocaleDir /nonexistent");
isnt $rc, 0, 'configtest fails on a FormsvcLocaleDir that does not exist';
like $out, qr/FS03601: .*language files cannot be loaded.*nonexistent/, 'naming the directory (FS03601)';
mkdir "$dir/empty-locales";
($rc, $out) = configtest("FormsvcLocaleDir $dir/empty-locales");
isnt $rc, 0, 'configtest fails on a FormsvcLocaleDir without language files';
like $out, qr/FS03601/, 'with FS03601';
mkdir "$dir/bad-locales";
{ open my $l, '>', "$dir/bad-locales/en.json" or die; print $l '{"broken": '; close $l }
($rc, $out) = configtest("FormsvcLocaleDir $dir/bad-locales");
isnt $rc, 0, 'configtest fails on a broken en.json';
like $out, qr/FS03601: .*en\.json/, 'naming the file';
($rc, $out) = configtest("FormsvcLocaleDir $ENV{FORMSVC_ROOT}/share/locales");
is $rc, 0, 'configtest passes with the shipped language files' or diag $out;
($rc, $out) = configtest('FormsvcMailTransport sendmail "/nonexistent/sendmail -i -t"');
isnt $rc, 0, 'configtest fails on a sendmail program that does not exist';
like $out, qr{FormsvcMailTransport sendmail: /nonexistent/sendmail is not an executable file}, 'naming it';
($rc, $out) = configtest('FormsvcMailTransport sendmail "sendmail -i -t"');
isnt $rc, 0, 'configtest fails on a sendmail command without an absolute path';
like $out, qr/absolute path/, 'saying so';
($rc, $out) = configtest('FormsvcMailTransport sendmail "/bin/cat"');
is $rc, 0, 'configtest passes with an executable sendmail program' or diag $out;
($rc, $out) = configtest('FormsvcRateLimitStore memcache localhost:notaport');
isnt $rc, 0, 'configtest fails on a memcache address without a port number';
like $out, qr/FormsvcRateLimitStore memcache takes host:port/, 'naming the directive';
($rc, $out) = configtest('FormsvcRateLimitStore redis');
isnt $rc, 0, 'configtest fails on a socache provider as the rate-limit store';
like $out, qr/FormsvcRateLimitStore redis: httpd's socache providers cannot hold rate-limit counters/,
    'saying why';
($rc, $out) = configtest('FormsvcRateLimitStore nosuchstore');
isnt $rc, 0, 'configtest fails on a store nothing registered';
like $out, qr/no store named "nosuchstore"; local \| pgsql \| memcache/, 'listing the stores';
($rc, $out) = configtest('FormsvcRateLimitStore local 16');
isnt $rc, 0, 'configtest fails on an argument to local';
like $out, qr/FormsvcRateLimitStore local takes no argument/, 'saying so';
($rc, $out) = configtest('FormsvcRateLimitStore Local');
is $rc, 0, 'store names are case-insensitive' or diag $out;
($rc, $out) = do {
    # without DBDParams: configtest says what start would say
    open my $fh, '>', "$dir/nodb.conf" or die $!;
    print $fh "ServerRoot \"$dir\"\nListen 127.0.0.1:1\nServerName 127.0.0.1\nPidFile \"$dir/httpd.pid\"\nErrorLog \"$dir/error.log\"\n"
        . "LoadModule mpm_event_module $mods/mod_mpm_event.so\nLoadModule authz_core_module $mods/mod_authz_core.so\n"
        . "LoadModule dbd_module $mods/mod_dbd.so\nLoadModule formsvc_module $module\n";
    close $fh;
    my $o = `$httpd -t -f $dir/nodb.conf 2>&1`;
    ($? >> 8, $o);
};
isnt $rc, 0, 'configtest fails without DBDriver and DBDParams';
like $out, qr/FS00303: .*needs a database/, 'with the start-up message (FS00303)';
# the mail directory must be makeable where a file is in the way
($rc, $out) = configtest("FormsvcMailTransport file $dir/good-pepper");
isnt $rc, 0, 'configtest fails on a mail "directory" that is a file';
like $out, qr/is not a directory/, 'saying so';

# And a graceful restart with a good configuration (the test
# configuration, which names every kind of file above) still works.
{
    use FindBin; use lib "$FindBin::Bin/lib";
    require FormsvcInstance;
    require LWP::UserAgent;
    my $inst = FormsvcInstance->start(name => 'startup-graceful');
    my $conf = $inst->root . '/httpd.conf';
    is system("$httpd -t -f $conf >/dev/null 2>&1"), 0, 'the instance\'s configuration passes configtest';
    is system("$httpd -f $conf -k graceful"), 0, 'graceful restart sent';
    my $ua = LWP::UserAgent->new(timeout => 5);
    my $resumed = FormsvcTest::wait_for(sub {
        my @n = $inst->error_log =~ /resuming normal operations/g;
        @n >= 2 && $ua->get($inst->url . '/healthz')->code == 200;
    }, 30, 'the server to resume after the graceful restart') ? 1 : 0;
    ok $resumed, 'the server resumed after the graceful restart and answers' or diag $inst->error_log;
    # a bad value now: `apache2 -k graceful` itself reads the configuration
    # (check_config) before it signals, so it refuses and the server runs on
    open my $in, '<', $conf or die; my $text = do { local $/; <$in> }; close $in;
    open my $out, '>', $conf or die; print $out $text, "FormsvcLocaleDir /nonexistent\n"; close $out;
    my $g = `$httpd -f $conf -k graceful 2>&1`;
    isnt $? >> 8, 0, 'graceful with a bad FormsvcLocaleDir is refused' or diag $g;
    like $g, qr/FS03601/, 'saying why';
    is $ua->get($inst->url . '/healthz')->code, 200, 'and the running server still answers';
    my @n = $inst->error_log =~ /resuming normal operations/g;
    is scalar(@n), 2, 'without a restart';
    open $out, '>', $conf or die; print $out $text; close $out;
    $inst->stop;
}

# FormsvcCaptchaVerifyURL: a URL without a host, or with a space, is
# refused by configtest (libcurl would refuse it at every submission: a
# 503 per submission instead of one message at the start)
for my $bad ('http://', 'http://:8080/x', '"http://a b/x"') {
    ($rc, $out) = configtest("FormsvcCaptchaVerifyURL turnstile $bad");
    isnt $rc, 0, "configtest refuses FormsvcCaptchaVerifyURL turnstile $bad";
    like $out, qr/FormsvcCaptchaVerifyURL takes an absolute http\(s\) URL/, 'naming the directive';
}
($rc, $out) = configtest("FormsvcCaptchaVerifyURL turnstile http://127.0.0.1:8080/siteverify");
is $rc, 0, 'and takes one with a host' or diag $out;

done_testing;
