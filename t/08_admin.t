# formsvc-admin against a configuration of its own (--conf) and the suite's
# PostgreSQL: version, migrate, and check finding what is wrong (schema
# behind, a pepper others can read, too many connections for
# max_connections, an SMTP relay that is not there), each with its fix, and
# exiting 1; and 0 once everything is right.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::INET;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest qw(psql);

delete $ENV{LD_PRELOAD};  # no sanitizer runtime in psql (make test-asan)
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
my $admin = "$root/scripts/formsvc-admin";
my @sql = sort glob "$root/sql/[0-9][0-9][0-9][0-9]_*.sql";
my ($need) = $sql[-1] =~ /(\d{4})_[^\/]*$/; $need += 0;
my ($prev) = $sql[-2] =~ /(\d{4})_[^\/]*$/; $prev += 0;
my $mods = '/usr/lib/apache2/modules';
my $dir = tempdir(CLEANUP => 1);
chmod 0755, $dir;

my $db = "formsvc_admin_$$";
psql("CREATE DATABASE $db", db => 'postgres');
END { eval { psql("DROP DATABASE IF EXISTS $db WITH (FORCE)", db => 'postgres') } if $db }
my $params = "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=$db user=postgres connect_timeout=2";

{ open my $p, '>', "$dir/pepper" or die; print $p 'p' x 32; close $p; chmod 0600, "$dir/pepper" }
mkdir "$dir/mail"; system('chown', 'www-data:', "$dir/mail") if $> == 0;
# a port nobody listens on, for the SMTP relay that is not there
my $closed = do { my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0); my $p = $s->sockport; close $s; $p };

sub conf {
    my %o = (dbdmax => 10, vh => '', mail => "FormsvcMailTransport file $dir/mail", pepper => "$dir/pepper",
             extra => '', @_);
    open my $fh, '>', "$dir/httpd.conf" or die $!;
    print $fh <<"CONF";
ServerRoot "$dir"
Listen 127.0.0.1:1
ServerName 127.0.0.1
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error_log"
LoadModule mpm_event_module $mods/mod_mpm_event.so
LoadModule authn_core_module $mods/mod_authn_core.so
LoadModule authz_core_module $mods/mod_authz_core.so
LoadModule dbd_module $mods/mod_dbd.so
LoadModule formsvc_module "$ENV{FORMSVC_MODULE}"
<IfModule mpm_event_module>
    ServerLimit 4
    ThreadsPerChild 10
    MaxRequestWorkers 40
</IfModule>
<IfModule mpm_prefork_module>
    MaxRequestWorkers 1000
</IfModule>
<IfModule mod_formsvc.c>
    DBDriver pgsql
    DBDParams "$params"
    DBDMax $o{dbdmax}
    FormsvcBaseURL http://127.0.0.1:8080
    FormsvcSecretPepperFile $o{pepper}
    FormsvcLocaleDir "$ENV{FORMSVC_ROOT}/share/locales"
    $o{mail}
    $o{extra}
</IfModule>
<VirtualHost 127.0.0.1:1>
    DBDMax 100000
    $o{vh}
</VirtualHost>
CONF
    close $fh;
}
sub admin {
    my $out = `bash $admin --conf $dir/httpd.conf @_ 2>&1`;
    return ($? >> 8, $out);
}

conf();
my ($rc, $out) = admin('version');
is $rc, 0, 'version' or diag $out;
my $version = do { open my $v, '<', "$root/VERSION" or die; my $x = <$v>; chomp $x; $x };
like $out, qr/^formsvc module \Q$version\E$/m, 'the module version from VERSION';
like $out, qr/^schema needed $need$/m, 'the schema version it needs: the newest migration';
like $out, qr/^database schema 0$/m, 'and the database\'s (DBDParams from the configuration)';
like $out, qr/^no running httpd$/m, 'and that no httpd runs with this configuration';

# a database a migration behind
my $part = tempdir(CLEANUP => 1);
system('cp', @sql[0 .. $#sql - 1], $part) == 0 or die;
system('bash', $admin, '--conf', "$dir/httpd.conf", '--sql-dir', $part, 'migrate') == 0 or die 'migrate';
($rc, $out) = admin('check');
is $rc, 1, 'check exits 1 when the schema is behind';
like $out, qr/^FAIL  schema $prev, module needs $need: run formsvc-admin migrate\n      fix: formsvc-admin migrate$/m,
    'says which and what to do';
like $out, qr/^ok    database: www-data connects/m, 'connects as www-data (the children\'s user)' if $> == 0;
like $out, qr/^ok    pepper \Q$dir\E\/pepper \(32 bytes, root only\)$/m, 'pepper ok' if $> == 0;
like $out, qr/^ok    connections: up to 44 \(4 children \(MPM event: MaxRequestWorkers 40 \/ ThreadsPerChild 10\) x DBDMax 10 \+ 1\)/m,
    'connections counted from the MPM settings and DBDMax (not the <VirtualHost>\'s)';

($rc, $out) = admin('migrate');
is $rc, 0, 'migrate';
like $out, qr/applying \d{4}_/, 'applies what was missing';
like $out, qr/the database is at schema $need/, 'and says where it is';

($rc, $out) = admin('check');
is $rc, 0, 'check passes once migrated' or diag $out;
like $out, qr/^ok    schema $need \(the module needs $need\)$/m, 'schema current';
like $out, qr/^ok    httpd configuration: Syntax OK$/m, 'configtest of the file';
like $out, qr/^ok    mail directory \Q$dir\E\/mail/m, 'mail directory';
like $out, qr/^No problems found\.$/m, 'no problems';

# too many connections for max_connections
my $mc = `psql -X -At -h $ENV{FORMSVC_PGSOCK} -p $ENV{FORMSVC_PGPORT} -U postgres -c 'SHOW max_connections' postgres`; chomp $mc;
my $big = int($mc / 4) + 10;
conf(dbdmax => $big);
($rc, $out) = admin('check');
is $rc, 1, "check exits 1 with 4 children x DBDMax $big against max_connections $mc";
like $out, qr/^FAIL  connections: httpd may open ${\(($big + 1) * 4)} .* but PostgreSQL takes \d+ \(max_connections $mc - \d+ reserved for superusers\)\n      fix: lower DBDMax to \d+ in formsvc.conf, or raise max_connections to at least \d+/m,
    'says how many, and which DBDMax would fit';

# DBDMax below mod_dbd's default DBDKeep (2): no pool at all
conf(dbdmax => 1);
($rc, $out) = admin('check');
is $rc, 1, 'check exits 1 with DBDMax 1 (DBDKeep 2 by default)';
like $out, qr/^FAIL  DBDMin 1, DBDKeep 2, DBDMax 1: mod_dbd keeps no pool .*\n      fix: set DBDKeep between DBDMin and DBDMax/m,
    'says the pool is lost and how to fix it';

# a pepper others can read; an SMTP relay that is not there; no transport
chmod 0644, "$dir/pepper";
conf(mail => "FormsvcMailTransport smtp smtp://127.0.0.1:$closed");
($rc, $out) = admin('check');
is $rc, 1, 'check exits 1';
like $out, qr/^FAIL  the pepper file \S+ is mode 644, owner \S+: others can read it\n      fix: chown root: \S+ && chmod 600/m, 'pepper readable by others';
like $out, qr/^FAIL  the SMTP relay 127.0.0.1:$closed does not accept connections/m, 'SMTP relay down';
conf(mail => '', pepper => "$dir/no-such-pepper");
($rc, $out) = admin('check');
like $out, qr/^FAIL  httpd configuration does not pass configtest/m, 'a missing pepper fails configtest';
like $out, qr/^FAIL  the pepper file \S+no-such-pepper does not exist .*\n      fix: head -c 32 \/dev\/urandom/m, 'and check says how to make one';
like $out, qr/^warn  no FormsvcMailTransport: mail is only written to files in \/var\/spool\/formsvc\/mail, not sent/m,
    'no mail transport: a warning';

# FormsvcUploadTempDir: the children's user must write there (configtest,
# as root, only checks that it exists)
if ($> == 0) {
    mkdir "$dir/spool";
    chmod 0755, "$dir/spool";   # root's: www-data cannot write
    conf(extra => "FormsvcUploadTempDir $dir/spool");
    ($rc, $out) = admin('check');
    is $rc, 1, 'check exits 1 with a temporary directory www-data cannot write';
    like $out, qr{^FAIL  FormsvcUploadTempDir \Q$dir\E/spool is not writable by www-data: uploads past 256 KB and XLSX exports would answer 503 \(FS03775, FS00380\)\n      fix: chown www-data: \Q$dir\E/spool}m,
        'says so, and how to fix it';
    system('chown', 'www-data:', "$dir/spool");
    conf(extra => "FormsvcUploadTempDir $dir/spool\nFormsvcXlsxExports 256");
    ($rc, $out) = admin('check');
    like $out, qr{^ok    FormsvcUploadTempDir \Q$dir\E/spool: writable by www-data|^warn  FormsvcUploadTempDir \Q$dir\E/spool: \d+ MB free; 256 XLSX exports}m,
        'writable: ok, or a warning when the room is short of FormsvcXlsxExports of the largest';
    unlike $out, qr/FAIL  FormsvcUploadTempDir/, 'no failure then';
}

# FormsvcCaptchaSecret, in the main server and a <VirtualHost>: a file
# others can read fails as the pepper does; a secret written in the
# configuration is a warning (prefer file:)
{
    for (['cs-open', 0644], ['cs-closed', 0600]) {
        open my $s, '>', "$dir/$_->[0]" or die; print $s "0x4AAA\n"; close $s; chmod $_->[1], "$dir/$_->[0]";
    }
    conf(extra => "FormsvcCaptchaSecret turnstile file:$dir/cs-open\n    FormsvcCaptchaSecret hcaptcha 0x0000000000000000000000000000000000000000",
         vh => "FormsvcCaptchaSecret recaptcha file:$dir/cs-closed");
    ($rc, $out) = admin('check');
    is $rc, 1, 'check exits 1 with a captcha secret file others can read';
    like $out, qr{^FAIL  the turnstile captcha secret file \Q$dir\E/cs-open is mode 644, owner \S+: others can read it\n      fix: chown root: \Q$dir\E/cs-open && chmod 600}m,
        'says which, and how to fix it';
    like $out, qr{^warn  the hcaptcha captcha secret is written in the configuration}m, 'a secret in the configuration: a warning';
    like $out, qr{^ok    recaptcha captcha secret \Q$dir\E/cs-closed \(root only\)$}m, 'the <VirtualHost>\'s, root only: ok';
    unlike $out, qr/0x0000000000000000000000000000000000000000|0x4AAA/, 'no secret in what check says';
}

# FormsvcBaseURL and Formsvc On read from the virtual hosts too
conf(vh => "ServerName forms.test\n    Formsvc On\n    FormsvcBaseURL https://forms.test/api");
($rc, $out) = admin('check');
like $out, qr{^ok    <VirtualHost> forms\.test \(Formsvc On\): FormsvcBaseURL https://forms\.test/api$}m,
    'check reads FormsvcBaseURL from the <VirtualHost> that serves';
unlike $out, qr/no server or <VirtualHost> has Formsvc On/, 'and knows a host serves';
# the shipped site: a ServerName and Formsvc On, no FormsvcBaseURL of its own
# (the main server's applies): an empty field must not shift the ServerName
# into the base URL's place
conf(vh => "ServerName forms.test\n    Formsvc On");
($rc, $out) = admin('check');
like $out, qr{^ok    <VirtualHost> forms\.test \(Formsvc On\): FormsvcBaseURL http://127\.0\.0\.1:8080$}m,
    'a <VirtualHost> without FormsvcBaseURL: its ServerName, and the main server\'s base URL';
unlike $out, qr/without ServerName/, 'not taken for one without ServerName';
conf();
($rc, $out) = admin('check');
like $out, qr/^warn  no server or <VirtualHost> has Formsvc On: the module serves nothing/m,
    'without Formsvc On anywhere: a warning that nothing is served';

($rc, $out) = admin('frobnicate');
is $rc, 2, 'an unknown command is a usage error: 2, as formsvc-admin(8) says';
($rc, $out) = admin('migrate', 'extra');
is $rc, 2, 'so is an argument migrate does not take';

# Unattended: every psql formsvc-admin runs has -w, so that a missing or
# stale password file fails at once instead of waiting at "Password for
# user" (the package's postinst runs version and migrate on a machine
# whose PostgreSQL answers before setup-db made the password file)
{
    mkdir "$dir/fakebin";
    open my $fh, '>', "$dir/fakebin/psql" or die $!;
    print $fh "#!/bin/sh\ncase \" \$* \" in *\" -w \"*) echo w ;; *) echo 'without -w:' \"\$*\" | tr '\\n' ' '; echo ;; esac >> $dir/psql-calls\nexit 2\n";
    close $fh; chmod 0755, "$dir/fakebin/psql";
    unlink "$dir/psql-calls";
    local $ENV{PATH} = "$dir/fakebin:$ENV{PATH}";
    admin($_) for 'version', 'migrate', 'check';
    open my $calls, '<', "$dir/psql-calls" or die "no psql call recorded: $!";
    my @calls = <$calls>;
    cmp_ok scalar @calls, '>=', 3, scalar(@calls) . ' psql calls by version, migrate and check';
    is_deeply [grep { $_ ne "w\n" } @calls], [], 'each with -w (never asks for a password)';
}

# check reads the running server's real children and threads: a reload
# cannot change ThreadLimit (AH00506), so after `a2enconf formsvc-server`
# and a reload the configuration and the server differ.
{
    use FindBin; use lib "$FindBin::Bin/lib";
    require FormsvcInstance;
    my $inst = FormsvcInstance->start(name => 'admin-running');
    my $conf = $inst->root . '/httpd.conf';
    my $o = `bash $admin --conf $conf version 2>&1`;
    like $o, qr/^running httpd \(pid \d+\) loaded module \Q$version\E, schema $need$/m,
        'version says what the running server loaded' or diag $o;
    $o = `bash $admin --conf $conf check 2>&1`;
    like $o, qr/^ok    running httpd: \d+ children of \d+ threads \(configured: 4 of 10 workers\)$/m,
        'the running children and threads, as configured' or diag $o;
    # the file as formsvc-server.conf would make it, with the server not restarted
    open my $in, '<', $conf or die; my $text = do { local $/; <$in> }; close $in;
    open my $fh, '>', "$dir/bigger.conf" or die;
    print $fh $text, "ThreadLimit 768\nThreadsPerChild 768\nMaxRequestWorkers 1536\nStartServers 2\n";
    close $fh;
    $o = `bash $admin --conf $dir/bigger.conf check 2>&1`;
    isnt $? >> 8, 0, 'check fails when the running server is not what the configuration asks';
    like $o, qr/^FAIL  the running httpd has \d+ children of \d+ threads, but the configuration asks for 2 of 768 \(ThreadsPerChild\): ThreadLimit and ServerLimit cannot change on a reload \(AH00506\)\n      fix: systemctl restart apache2/m,
        'saying that a stop and start is needed' or diag $o;
    $inst->stop;
}

done_testing;
