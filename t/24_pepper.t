# The pepper's fingerprint (sql/0039): the first start records it in the
# database; a server started with another pepper (a reinstall after a
# purge made a new one) refuses to serve, /readyz and /v1 with a 503 that
# names the fingerprint the data needs, instead of answering 401 to every
# key; formsvc-admin check says the same; setup-db refuses to bind the
# database to the new pepper without --new-pepper, and says what dies.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql wait_for);
use File::Temp qw(tempdir);
use Digest::SHA qw(hmac_sha256_hex);
use Time::HiRes ();

delete $ENV{LD_PRELOAD};
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
my $admin = "$root/scripts/formsvc-admin";
my @pg = ('-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres');
my $db = "formsvc_pepper_$$";
psql("CREATE DATABASE $db", db => 'postgres');
END { eval { psql("DROP DATABASE IF EXISTS $db WITH (FORCE)", db => 'postgres') } if $db }
system('bash', $admin, 'migrate', '--', @pg, $db) == 0 or die 'migrate';

my $dir = tempdir(CLEANUP => 1);
chmod 0755, $dir;
my %pep;
for my $n (1, 2) {
    my $f = "$dir/pepper$n";
    open my $fh, '>', $f or die; print $fh chr(64 + $n) x 32; close $fh; chmod 0600, $f;
    $pep{$n} = { file => $f, fp => hmac_sha256_hex('formsvc pepper fingerprint', chr(64 + $n) x 32) };
}
my ($fp1, $fp2) = ($pep{1}{fp}, $pep{2}{fp});
is psql('SELECT count(*) FROM pepper_fingerprint', db => $db), 0, 'a new database has no fingerprint';

my $a = FormsvcInstance->start(name => 'pepper1', db => $db, conf => "FormsvcSecretPepperFile $pep{1}{file}\n");
is $a->api(GET => '/readyz')->code, 200, 'the first start: ready';
is psql('SELECT fingerprint FROM pepper_fingerprint', db => $db), $fp1, 'and the fingerprint of its pepper is recorded';
my $r = $a->api(POST => '/v1/signup', body => { email => "pepper$$\@example.com" });
is $r->code, 201, 'signup';
my $key = $r->{json}{apiKey}{secret};
ok $key, 'a key';
is $a->api(GET => '/v1/me', token => $key)->code, 200, 'the key works';
my $conf1 = $a->root . '/httpd.conf';
$a->stop;

# the same database, another pepper (a purge and reinstall)
my $b = FormsvcInstance->start(name => 'pepper2', db => $db, conf => "FormsvcSecretPepperFile $pep{2}{file}\n");
$r = $b->api(GET => '/readyz');
is $r->code, 503, 'another pepper: /readyz 503';
like $r->{json}{detail} // '', qr/fingerprint $fp1.*fingerprint $fp2/, 'naming the fingerprint the data needs and this one';
$r = $b->api(GET => '/v1/me', token => $key);
is $r->code, 503, 'a key of the data: 503, not 401';
like $r->{json}{detail} // '', qr/pepper of fingerprint $fp1/, 'a problem naming the pepper';
like $r->{json}{detail} // '', qr/--new-pepper/, 'and what to do';
is $b->api(POST => '/v1/signup', body => { email => "pepper2$$\@example.com" })->code, 503, 'signup refused too';
is $b->api(GET => '/f/frm_00000000000000000000000000')->code, 503, 'and the public pages';
is $b->api(GET => '/healthz')->code, 200, 'healthz still 200 (the process is alive)';
like $b->error_log, qr/FS00391: refusing to serve: .*fingerprint $fp1/, 'the error log says which pepper the data needs';
is psql('SELECT fingerprint FROM pepper_fingerprint', db => $db), $fp1, 'the recorded fingerprint is kept';

my $out = `bash $admin --conf ${\ $b->root}/httpd.conf check 2>&1`;
is $? >> 8, 1, 'formsvc-admin check fails with the other pepper';
like $out, qr/^FAIL  the database's secrets were hashed with the pepper of fingerprint $fp1, but \S+pepper2 has fingerprint $fp2/m, 'saying which';
$out = `bash $admin --conf $conf1 check 2>&1`;
like $out, qr/^ok    pepper fingerprint $fp1 matches the database$/m, 'and is content with the right one';

SKIP: {
    skip 'setup-db needs root', 14 unless $> == 0;
    local $ENV{PGHOST} = $ENV{FORMSVC_PGSOCK};
    my $conf2 = $b->root . '/httpd.conf';
    $out = `bash $admin --conf $conf2 setup-db 2>&1`;
    isnt $? >> 8, 0, 'setup-db refuses to bind the data to another pepper' or diag $out;
    like $out, qr/hashed with the pepper of fingerprint $fp1.*--new-pepper/s, 'naming the pepper and --new-pepper';
    is psql('SELECT fingerprint FROM pepper_fingerprint', db => $db), $fp1, 'nothing changed';
    # a missing pepper file for a database with accounts: no new pepper made
    my $file2 = $pep{2}{file};
    (my $gone = `cat $conf2`) =~ s{\Q$file2\E}{$dir/pepper-gone}g;
    open my $fh, '>', "$dir/gone.conf" or die; print $fh $gone; close $fh;
    $out = `bash $admin --conf $dir/gone.conf setup-db 2>&1`;
    isnt $? >> 8, 0, 'setup-db refuses to make a new pepper for a database with accounts';
    ok !-e "$dir/pepper-gone", 'and makes none';
    $out = `bash $admin --conf $conf2 setup-db --new-pepper 2>&1`;
    is $? >> 8, 0, 'setup-db --new-pepper binds it' or diag $out;
    like $out, qr/every API key, client secret, access token, respondent link/, 'saying what dies';
    # a pepper the package made at installation (pepper.new) for a
    # database with accounts and no fingerprint yet (made before 0039)
    psql('DELETE FROM pepper_fingerprint', db => $db);
    { open my $m, '>', "$file2.new" or die; close $m }
    $out = `bash $admin --conf $conf2 setup-db 2>&1`;
    isnt $? >> 8, 0, 'setup-db refuses a pepper the installation made for a database that holds accounts';
    like $out, qr/made by the package's installation.*--new-pepper/s, 'saying why and what to do';
    is psql('SELECT count(*) FROM pepper_fingerprint', db => $db), 0, 'and records nothing';
    $out = `bash $admin --conf $conf2 setup-db --new-pepper 2>&1`;
    is $? >> 8, 0, 'with --new-pepper it binds it' or diag $out;
    ok !-e "$file2.new", 'and the mark is gone';
    is psql('SELECT fingerprint FROM pepper_fingerprint', db => $db), $fp2, 'the fingerprint recorded is the new one';
    # the running server notices within its two-second memory
    my $code = 0;
    wait_for(sub { ($code = $b->api(GET => '/readyz')->code) == 200 }, 10, '/readyz to answer 200');
    is $code, 200, 'the server with the new pepper serves, without a restart';
}
$b->stop;

done_testing;
