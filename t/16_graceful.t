# Graceful restarts and a graceful stop under load: the
# mail and webhook workers of each child hold pooled database connections
# from time to time; they must be stopped, joined and have given every
# connection back before mod_dbd's pool goes, or children die with SIGSEGV
# or "reslist_cleanup: Assertion rl->ntotal == 0". Its own httpd (on the
# suite's PostgreSQL), with mail in the outbox and a slow webhook receiver so
# the workers are busy while the children exit.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql wait_for);
use FormsvcTest::Receiver;
use Time::HiRes ();

delete $ENV{LD_PRELOAD};

# A webhook receiver (t/lib/FormsvcTest/Receiver.pm) that takes 300 ms per
# delivery: the webhook worker is in the middle of a delivery whenever a
# child is told to go.
my $port = FormsvcTest::Receiver->start(mode => 'slow', delay => 0.3)->port;

my $inst = FormsvcInstance->start(name => 'graceful', conf => <<"CONF");
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota verified requests 1000000
FormsvcQuota verified submissions 1000000
FormsvcWebhookAllowPrivate On
CONF

my $r = $inst->api(POST => '/v1/signup', body => { email => "graceful$$." . time . '@example.com' });
is $r->code, 201, 'signup';
my $tok = $r->{json}{apiKey}{secret};
psql("UPDATE users SET verified = true WHERE id = '$r->{json}{user}{id}'");
$r = $inst->api(POST => '/v1/forms', token => $tok, body => { title => 'Restarts',
    fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
my $fid = $r->{json}{id};
is $inst->api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
$r = $inst->api(POST => '/v1/webhooks', token => $tok,
                body => { url => "http://127.0.0.1:$port/slow", events => ['submission.created'] });
is $r->code, 201, 'webhook';
my $whk = $r->{json}{id};
# Mail for the outbox workers (FormsvcMailTransport file: quick deliveries).
psql("INSERT INTO outbox (id, recipient, message) SELECT 'msg_G' || lpad(g::text, 25, '0') || '$$', "
   . "'g\@example.com', 'Subject: x\r\n\r\nx' FROM generate_series(1, 400) g");

# Clients submit until told to stop; a request that got an answer must be 201.
# Refused connections (the server is stopping) are not failures.
my $stop = FormsvcInstance->submitters(4, $inst->url . "/f/$fid");

my @apache = ($ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2', '-f', $inst->root . '/httpd.conf');
# time under load is the subject: 1.5 s of it before and after each restart
Time::HiRes::sleep(1.5);
for my $i (1 .. 5) {
    system(@apache, '-k', 'graceful') == 0 or die 'graceful failed';
    Time::HiRes::sleep(1.5);
}
my $pidf = $inst->root . '/httpd.pid';
system(@apache, '-k', 'graceful-stop') == 0 or die 'graceful-stop failed';
ok wait_for(sub { !-e $pidf }, 30, 'the graceful stop'), 'graceful-stop finished';
my ($ok, $bad) = $stop->();
cmp_ok $ok, '>', 20, "submissions went through while restarting ($ok)";
is $bad, 0, 'no failed request';
my @crash = grep { /Segmentation fault|Assertion|exit signal|AH00052|AH00060|SIGSEGV|SIGABRT/ }
    split /\n/, $inst->error_log;
is scalar(@crash), 0, 'no child crashed' or diag join "\n", @crash[0 .. ($#crash > 10 ? 10 : $#crash)];

# leave no queue behind for the suite's server (and the tests after this one)
psql("DELETE FROM outbox WHERE id LIKE 'msg_G%$$'");
psql("DELETE FROM webhooks WHERE id = '$whk'");
done_testing;
