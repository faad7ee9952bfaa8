# What `apache2 -t` (apachectl configtest) accepts must start and serve:
# values the module could not serve with are refused when the
# configuration is read, naming the directive (found by
# scripts/config-matrix, which runs every directive through configtest,
# start and graceful restarts). Only configtests here: quick.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);

my $httpd = $ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2';
my $mods = '/usr/lib/apache2/modules';
my $module = $ENV{FORMSVC_MODULE} or die 'FORMSVC_MODULE not set';
my $dir = tempdir(CLEANUP => 1);

# configtest(main => directives, vhost => directives): (exit code, output)
sub configtest {
    my %o = @_;
    my ($main, $vhost) = ($o{main} // '', $o{vhost} // '');
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
FormsvcMailTransport file "$dir/mail"
$main
<VirtualHost 127.0.0.1:1>
    ServerName other.test
    $vhost
</VirtualHost>
CONF
    close $fh;
    my $out = `$httpd -t -f $dir/test.conf 2>&1`;
    return ($? >> 8, $out);
}

sub refused {
    my ($conf, $like, $name) = @_;
    my ($rc, $out) = configtest(main => $conf);
    isnt $rc, 0, "refused: $name";
    like $out, $like, "  and the message says why: $name";
}
sub accepted {
    my ($conf, $name) = @_;
    my ($rc, $out) = configtest(main => $conf);
    is $rc, 0, "accepted: $name" or diag $out;
}

# ---- FormsvcBaseURL: a URL the module could never be reached at --------
# (the base path is compared with the request's decoded, normalised path;
# the host and port go into Location and Link headers)
refused('FormsvcBaseURL http://', qr/FormsvcBaseURL http:\/\/: the URL needs a host name/, 'no host');
refused('FormsvcBaseURL https://:8443/forms', qr/FormsvcBaseURL .*needs a host name/, 'an empty host');
refused('FormsvcBaseURL http://[::1]:99999/api', qr/FormsvcBaseURL .*the port 99999 is not one from 1 to 65535/,
        'port 99999');
refused('FormsvcBaseURL http://example.com:0/api', qr/FormsvcBaseURL .*the port 0 /, 'port 0');
refused('FormsvcBaseURL http://example.com/a%20b', qr/FormsvcBaseURL .*no %-escape/, 'a %-escape in the path');
refused('FormsvcBaseURL http://example.com/api/../x', qr/FormsvcBaseURL .*no empty, "\." or "\.\." segment/,
        'a .. segment');
refused('FormsvcBaseURL http://example.com/./api', qr/FormsvcBaseURL .*segment/, 'a . segment');
refused('FormsvcBaseURL http://example.com//api', qr/FormsvcBaseURL .*segment/, 'an empty segment');
refused('FormsvcBaseURL "http://example.com/a b"', qr/FormsvcBaseURL .*no space/, 'a space');
accepted('FormsvcBaseURL https://forms.example.com', 'a host');
accepted('FormsvcBaseURL https://forms.example.com/', 'a host and /');
accepted('FormsvcBaseURL http://127.0.0.1:8080/api/', 'a port and a path with a trailing /');
accepted('FormsvcBaseURL https://example.com/forms/v2.1', 'dots inside a segment');
accepted('FormsvcBaseURL http://[::1]:65535/api', 'an IPv6 host, port 65535');
{
    my ($rc, $out) = configtest(vhost => 'FormsvcBaseURL http://other.test:70000');
    isnt $rc, 0, 'refused in a virtual host too';
    like $out, qr/FormsvcBaseURL .*the port 70000/, '  naming the directive';
}

# ---- FormsvcMailTransport smtp: a relay libcurl could never reach ------
refused('FormsvcMailTransport smtp smtp://', qr/FormsvcMailTransport smtp smtp:\/\/: the URL needs a host name/,
        'smtp without a host');
refused('FormsvcMailTransport smtp smtps://:465', qr/FormsvcMailTransport smtp .*needs a host name/,
        'smtps with an empty host');
refused('FormsvcMailTransport smtp smtp://relay.example.com:70000',
        qr/FormsvcMailTransport smtp .*the port 70000 is not one from 1 to 65535/, 'port 70000');
accepted('FormsvcMailTransport smtp smtp://relay.example.com:25', 'smtp with a host and port');
accepted('FormsvcMailTransport smtp smtps://relay.example.com', 'smtps with a host');

# ---- a mail directory root may "write" but no one can make ------------
# (sysfs refuses mkdir to root too: configtest passed on the write bit,
# and the start, or the graceful restart into it, stopped httpd)
SKIP: {
    skip 'no sysfs at /sys', 3 unless -d '/sys/kernel' && !-e '/sys/formsvc-test-mail';
    refused('FormsvcMailTransport file /sys/formsvc-test-mail',
            qr/FS00690: the mail directory \/sys\/formsvc-test-mail cannot be made: nothing can be made in \/sys \(Operation not permitted\)/,
            'a mail directory in /sys');
    ok !-e '/sys/formsvc-test-mail', '  and nothing was made';
}
{
    my ($rc, $out) = configtest(main => "FormsvcMailTransport file $dir/made/by/configtest");
    is $rc, 0, 'a mail directory that does not exist: configtest passes' or diag $out;
    ok !-e "$dir/made", '  and has made nothing (the start makes it)';
    opendir my $dh, $dir or die; my @probes = grep { /formsvc-probe/ } readdir $dh;
    is scalar @probes, 0, '  nor left its probe behind';
}

# ---- FormsvcMailFrom longer than relays take (every mail would bounce) --
refused('FormsvcMailFrom ' . ('a' x 65) . '@example.com', qr/FormsvcMailFrom is too long for mail relays/,
        'a local part of 65 characters');
refused('FormsvcMailFrom "' . ('N' x 900) . ' <no-reply@example.com>"', qr/FormsvcMailFrom is too long/,
        'a name of 900 characters');
accepted('FormsvcMailFrom ' . ('a' x 64) . '@example.com', 'a local part of 64 characters');

# ---- FormsvcCaptchaVerifyURL: a port no check could reach ---------------
refused('FormsvcCaptchaVerifyURL turnstile http://127.0.0.1:99999/v',
        qr/FormsvcCaptchaVerifyURL .*the port 99999 is not one from 1 to 65535/, 'captcha URL, port 99999');
accepted('FormsvcCaptchaVerifyURL turnstile http://127.0.0.1:8080/v', 'captcha URL with a port');

# ---- a directory where a secret file is named: said so -----------------
mkdir "$dir/secret-dir";
refused("FormsvcCaptchaSecret turnstile file:$dir/secret-dir",
        qr/FormsvcCaptchaSecret \Q$dir\E\/secret-dir is not a regular file/, 'a captcha secret file that is a directory');
refused("FormsvcSecretPepperFile $dir/secret-dir", qr/FormsvcSecretPepperFile .* is not a regular file/,
        'a pepper file that is a directory');

# ---- mod_dbd's pool sizes out of order: no pool, every request 503 -----
# (mod_dbd says AH00636 "child init failed" in each child and carries on)
refused("DBDMax 1", qr/FS00342: the main server: DBDMin 1, DBDKeep 2, DBDMax 1: mod_dbd makes no connection pool/,
        'DBDMax 1 under the default DBDKeep 2');
refused("DBDMin 3\nDBDKeep 2", qr/FS00342: the main server: DBDMin 3, DBDKeep 2, DBDMax 10/, 'DBDMin above DBDKeep');
refused("DBDMin 0\nDBDKeep 0\nDBDMax 0", qr/FS00342: .*DBDMax 0/, 'DBDMax 0');
accepted("DBDMax 1\nDBDKeep 1", 'DBDMax 1 with DBDKeep 1');
accepted("DBDMin 0\nDBDKeep 0\nDBDMax 1", 'DBDMin 0, DBDKeep 0, DBDMax 1');
accepted("DBDPersist Off\nDBDMax 1", 'DBDPersist Off: no pool to size');
accepted("<IfModule dbd_module>\nDBDKeep 4\nDBDMax 12\n</IfModule>", 'inside <IfModule>');
{
    my ($rc, $out) = configtest(main => "DBDKeep 1\nDBDMax 1", vhost => 'DBDKeep 4');
    isnt $rc, 0, "refused: a virtual host's own DBDKeep above the main server's DBDMax";
    like $out, qr/FS00342: <VirtualHost 127\.0\.0\.1:1> \(.*:\d+\): DBDMin 1, DBDKeep 4, DBDMax 1/,
        '  naming the virtual host, where it is, and the values it has';
    ($rc, $out) = configtest(main => "DBDKeep 1\nDBDMax 1", vhost => "DBDKeep 4\nDBDMax 8");
    is $rc, 0, 'accepted: a virtual host with a larger pool of its own' or diag $out;
}

# ---- FormsvcUploadTempDir that httpd's User cannot write: a warning ----
# (it starts; uploads past memory and XLSX exports would all be 503)
SKIP: {
    skip 'as root only (httpd then runs its children as User)', 6 if $>;
    chmod 0755, $dir;
    mkdir "$dir/$_" for qw(spool-root spool-www spool-hidden);
    chmod 0700, "$dir/spool-root";
    system('chown', 'www-data:', "$dir/spool-www");
    mkdir "$dir/spool-hidden/in"; system('chown', 'www-data:', "$dir/spool-hidden/in");
    chmod 0700, "$dir/spool-hidden";
    my $user = "User www-data\nGroup www-data\n";
    my ($rc, $out) = configtest(main => "${user}FormsvcUploadTempDir $dir/spool-root");
    is $rc, 0, 'a spool directory of root: configtest passes (httpd starts)';
    like $out, qr/FS00341.*FormsvcUploadTempDir \Q$dir\E\/spool-root cannot be written by httpd's User www-data/,
        '  with a warning naming the directive and the user';
    ($rc, $out) = configtest(main => "${user}FormsvcUploadTempDir $dir/spool-hidden/in");
    like $out, qr/FS00341/, "a directory of www-data inside one it cannot enter: the same warning";
    ($rc, $out) = configtest(main => "${user}FormsvcUploadTempDir $dir/spool-www");
    is $rc, 0, "a spool directory of www-data: configtest passes";
    unlike $out, qr/FS00341/, '  without a warning';
    ($rc, $out) = configtest(main => "${user}FormsvcUploadTempDir /tmp");
    unlike $out, qr/FS00341/, '/tmp (sticky, writable by all): no warning';
}

# ---- a sendmail program httpd's User cannot run: a warning -------------
SKIP: {
    skip 'as root only (httpd then runs its children as User)', 4 if $>;
    chmod 0755, $dir;
    for my $m ([ 'sm-root', 0700 ], [ 'sm-all', 0755 ]) {
        open my $f, '>', "$dir/$m->[0]" or die; print $f "#!/bin/sh\ncat >/dev/null\n"; close $f;
        chmod $m->[1], "$dir/$m->[0]";
    }
    my $user = "User www-data\nGroup www-data\n";
    my ($rc, $out) = configtest(main => "${user}FormsvcMailTransport sendmail \"$dir/sm-root -i -t\"");
    is $rc, 0, 'a sendmail program only root may run: configtest passes (httpd starts)';
    like $out, qr/FS00343: FormsvcMailTransport sendmail: \Q$dir\E\/sm-root cannot be run by httpd's User www-data/,
        '  with a warning naming the directive, the program and the user';
    ($rc, $out) = configtest(main => "${user}FormsvcMailTransport sendmail \"$dir/sm-all -i -t\"");
    is $rc, 0, 'a sendmail program all may run: configtest passes';
    unlike $out, qr/FS00343/, '  without a warning';
}

done_testing;
