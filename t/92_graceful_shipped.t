# Graceful restarts and a graceful stop with the shipped server settings
# (conf/formsvc-server.conf: 2 children of 768 threads, ServerLimit 4 so
# that the old children of a restart have room while the new ones start),
# under public submissions stored together (http/submit_batch.c, a queue
# per child whose waiters must all be answered while their child is told
# to go). t/16 does the same with the workers busy and small children.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use Time::HiRes ();

delete $ENV{LD_PRELOAD};
my $root = $ENV{FORMSVC_ROOT} // "$FindBin::Bin/..";

my $inst = FormsvcInstance->start(name => 'graceful-shipped', conf => <<"CONF");
Include "$root/conf/formsvc-server.conf"
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified submissions 1000000
CONF
my $apache = $ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2';
my $ppid = do { local (@ARGV, $/) = ($inst->root . '/httpd.pid'); <> } // '';
chomp $ppid;
# every child started, each with its worker threads (StartServers,
# ThreadsPerChild of the shipped file)
$inst->wait_children(FormsvcInstance::shipped('StartServers'), FormsvcInstance::shipped('ThreadsPerChild'));
my @children = grep { /\d/ } split /\n/, `ps -o pid= --ppid $ppid`;
is scalar(@children), 2, 'two children';

my $r = $inst->api(POST => '/v1/signup', body => { email => "gs$$." . time . '@example.com' });
is $r->code, 201, 'signup';
my $tok = $r->{json}{apiKey}{secret};
$r = $inst->api(POST => '/v1/forms', token => $tok, body => { title => 'Shipped',
    fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
my $fid = $r->{json}{id};
is $inst->api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

# 12 clients submit until told to stop; every answer must be 201 (a refused
# or cut connection while the server stops is not an answer)
my $stop = FormsvcInstance->submitters(12, $inst->url . "/f/$fid", keep_alive => 1);

my @apache = ($apache, '-f', $inst->root . '/httpd.conf');
# time under load is the subject: 1.5 s of it before the restarts, 2 s after each
Time::HiRes::sleep(1.5);
for my $i (1 .. 3) {
    system(@apache, '-k', 'graceful') == 0 or die 'graceful failed';
    Time::HiRes::sleep(2);
}
my $pidf = $inst->root . '/httpd.pid';
system(@apache, '-k', 'graceful-stop') == 0 or die 'graceful-stop failed';
ok FormsvcTest::wait_for(sub { !-e $pidf }, 30, 'the graceful stop'), 'graceful-stop finished';
my ($ok, $bad) = $stop->();
cmp_ok $ok, '>', 100, "submissions went through while restarting ($ok)";
is $bad, 0, 'no failed request';
my $stored = sql("SELECT count(*) FROM submissions WHERE form_id = '$fid'");
cmp_ok $stored, '>=', $ok, 'every 201 stored';
my @bad = grep { /Segmentation fault|Assertion|exit signal|AH00052|AH00060|SIGSEGV|SIGABRT|scoreboard is full/ }
    split /\n/, $inst->error_log;
is scalar(@bad), 0, 'no child crashed, the scoreboard never full'
    or diag join "\n", @bad[0 .. ($#bad > 10 ? 10 : $#bad)];
done_testing;
