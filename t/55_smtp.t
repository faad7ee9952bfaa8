# The SMTP transport against a real SMTP conversation: a small SMTP server
# started here receives what the outbox worker sends through libcurl. The
# instance uses a database of its own, so that no other httpd of the suite
# drains its outbox. Also: a failed delivery is kept and retried, and
# credentials are never offered without TLS.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcMail;
use FormsvcTest ();
use IO::Socket::INET;
use Time::HiRes ();

my $db = "formsvc_smtp_$$";
psql("CREATE DATABASE $db");
END { eval { psql("DROP DATABASE IF EXISTS $db WITH (FORCE)") } if $db }
{ delete local $ENV{LD_PRELOAD}; system('bash', "$ENV{FORMSVC_ROOT}/scripts/migrate", '-h', $ENV{FORMSVC_PGSOCK}, '-p',
       $ENV{FORMSVC_PGPORT}, '-U', 'postgres', $db) == 0 or die 'migrate' }
sub dbq { psql($_[0], db => $db) }   # on the test's own database

# A minimal SMTP server: one message per connection, saved with its envelope.
my $spool = "$FindBin::Bin/logs/smtp-$$";
mkdir $spool;
my $srv = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1', LocalPort => 0, ReuseAddr => 1)
    or die "listen: $!";
my $sport = $srv->sockport;
my $spid = fork // die;
if (!$spid) {
    $SIG{PIPE} = 'IGNORE';   # a client that gives up must not kill the sink
    my $n = 0;
    while (my $c = $srv->accept) {
        $c->autoflush(1);
        print $c "220 sink ESMTP\r\n";
        my ($from, @rcpt, $data);
        while (defined(my $l = <$c>)) {
            if ($l =~ /^EHLO/i) { print $c "250-sink\r\n250 8BITMIME\r\n" }
            elsif ($l =~ /^HELO/i) { print $c "250 sink\r\n" }
            elsif ($l =~ /^MAIL FROM:\s*<([^>]*)>/i) { $from = $1; print $c "250 ok\r\n" }
            elsif ($l =~ /^RCPT TO:\s*<([^>]*)>/i) { push @rcpt, $1; print $c "250 ok\r\n" }
            elsif ($l =~ /^DATA/i) {
                print $c "354 go\r\n";
                $data = '';
                while (defined(my $d = <$c>)) { last if $d eq ".\r\n"; $data .= $d }
                open my $fh, '>', "$spool/" . ++$n . '.txt';
                print $fh "FROM $from\nRCPT @rcpt\n\n$data";
                close $fh;
                print $c "250 queued\r\n";
            }
            elsif ($l =~ /^QUIT/i) { print $c "221 bye\r\n"; last }
            else { print $c "502 no\r\n" }
        }
        close $c;
    }
    exit 0;
}
close $srv;
END { if ($spid) { kill 'TERM', $spid; waitpid $spid, 0 } }

my $m = FormsvcInstance->start(name => 'smtp', db => $db, conf => <<"CONF");
FormsvcMailTransport smtp smtp://127.0.0.1:$sport
FormsvcMailFrom "Forms <forms\@example.test>"
CONF

my $email = "smtp$$\@example.com";
my $r = $m->api(POST => '/v1/signup', body => { email => $email });
my $key = $r->{json}{apiKey}{secret};
is $m->api(POST => '/v1/verify/send', token => $key)->code, 202, 'verify/send';
my $got;
FormsvcTest::wait_for(sub { -e "$spool/1.txt" }, 30, 'the message at the SMTP server');
$got = do { local $/; open my $fh, '<', "$spool/1.txt" or die 'no message'; <$fh> };
like $got, qr/^FROM forms\@example\.test$/m, 'envelope sender from FormsvcMailFrom';
like $got, qr/^RCPT \Q$email\E$/m, 'envelope recipient';
like $got, qr/^To: \Q$email\E\r$/m, 'To header';
like $got, qr/^Subject: Verify your e-mail address\r$/m, 'the verification mail';
my ($code) = $got =~ /^    ([A-Z2-9]{8})\r?$/m;
ok $code, 'with its code';
is dbq("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL"), 1, 'marked sent in the outbox';
is $m->api(POST => '/v1/verify/confirm', token => $key, body => { code => $code })->code, 200,
   'the code from the SMTP message verifies';
$m->stop;

# A relay that cannot be reached: the message stays queued for a retry.
my $dead = FormsvcInstance::free_port();
$m = FormsvcInstance->start(name => 'smtpdead', db => $db, conf => <<"CONF");
FormsvcMailTransport smtp smtp://127.0.0.1:$dead
CONF
my $e2 = "dead$$\@example.com";
$key = $m->api(POST => '/v1/signup', body => { email => $e2 })->{json}{apiKey}{secret};
is $m->api(POST => '/v1/verify/send', token => $key)->code, 202, 'verify/send is 202 all the same';
my $err = '';
FormsvcTest::wait_for(sub {
    $err = dbq("SELECT attempts || ' ' || COALESCE(last_error, '') FROM outbox WHERE recipient = '$e2'");
    $err =~ /^1 \S/;
}, 30, 'the first failed attempt');
like $err, qr/^1 SMTP:/, 'the failure is recorded after one attempt';
ok dbq("SELECT next_attempt_at > now() + interval '20 seconds' AND sent_at IS NULL AND failed_at IS NULL FROM outbox WHERE recipient = '$e2'") eq 't',
   'and retried later';
is $m->api(GET => '/readyz/outbox')->{json}{pending}, 1, '/readyz/outbox counts it as pending';
like $m->error_log, qr/FS00614: mail msg_\w+ not delivered \(attempt 1 of 8\)/, 'logged';
$m->stop;

# SMTP AUTH needs TLS: with a user and a server without STARTTLS, nothing is sent.
open my $pw, '>', "$FindBin::Bin/logs/smtp-pw-$$" or die; print $pw "secret\n"; close $pw;
chmod 0600, "$FindBin::Bin/logs/smtp-pw-$$";
dbq("DELETE FROM outbox");
$m = FormsvcInstance->start(name => 'smtpauth', db => $db, conf => <<"CONF");
FormsvcMailTransport smtp smtp://127.0.0.1:$sport
FormsvcMailSMTPUser forms
FormsvcMailSMTPPasswordFile "$FindBin::Bin/logs/smtp-pw-$$"
CONF
my $e3 = "auth$$\@example.com";
$key = $m->api(POST => '/v1/signup', body => { email => $e3 })->{json}{apiKey}{secret};
is $m->api(POST => '/v1/verify/send', token => $key)->code, 202, 'verify/send';
FormsvcTest::wait_for(sub {
    $err = dbq("SELECT COALESCE(last_error, '') FROM outbox WHERE recipient = '$e3'");
    $err ne '';
}, 30, 'the refused attempt');
like $err, qr/SSL|TLS/i, 'credentials are not sent without TLS';
ok !-e "$spool/2.txt", 'and the message was not delivered in the clear';
unlike $err, qr/secret/, 'the password never appears in the error';
$m->stop;
unlink "$FindBin::Bin/logs/smtp-pw-$$";
done_testing;
