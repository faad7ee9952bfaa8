# A child busy in background work stops promptly. One child, its mail
# worker given many notification jobs of large submissions (a form with
# settings.notify to ten addresses), and a long-poll waiter of the event
# feed (GET /v1/events?wait=30) sleeping in a request thread; then the
# server is stopped (apache2 -k stop) while the worker writes mail, and
# again with -k graceful-stop; and a child whose worker is sending a mail
# to an SMTP relay that hangs. Every httpd process exits within 10 s, and
# httpd never had to kill a child ("still did not exit, sending a
# SIGKILL"): each loop checks the stop between items, and no wait on a job
# or a client outlasts the stop.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcMail qw(psql);
use FormsvcTest qw(wait_for);
use HTTP::Request;
use IO::Socket::INET;
use LWP::UserAgent;
use POSIX ();
use Time::HiRes ();

my $httpd = $ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2';

# a database of its own: the main test server's mail worker would take the
# jobs of a shared one
my $db = "formsvc_stop_$$";
psql("CREATE DATABASE $db");
END { eval { psql("DROP DATABASE IF EXISTS $db WITH (FORCE)") } if $db }
{ delete local $ENV{LD_PRELOAD}; system('bash', "$ENV{FORMSVC_ROOT}/scripts/migrate", '-h', $ENV{FORMSVC_PGSOCK}, '-p',
       $ENV{FORMSVC_PGPORT}, '-U', 'postgres', $db) == 0 or die 'migrate' }

sub round {
    my ($how) = @_;
    my $inst = FormsvcInstance->start(name => "stop-busy-$how", db => $db, conf => <<'CONF');
StartServers 1
ServerLimit 1
MaxRequestWorkers 10
FormsvcRateLimit submit off
CONF
    my $email = sprintf 'owner%d.%d.%s@example.com', $$, time, $how;
    my $r = $inst->api(POST => '/v1/signup', body => { email => $email });
    die 'signup: ' . $r->status_line unless $r->code == 201;
    my $tok = $r->{json}{apiKey}{secret};
    my $uid = $inst->api(GET => '/v1/me', token => $tok)->{json}{user}{id};
    psql("UPDATE users SET verified = true WHERE id = '$uid'", db => $db);
    wait_for(sub { $inst->api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 5,
             'the account verified in the instance');
    my @to = map { sprintf 'n%d.%d.%s.%d@example.com', $$, time, $how, $_ } 1 .. 10;
    $r = $inst->api(POST => '/v1/forms', token => $tok, body => {
        title => 'Busy', fields => [map { { key => "t$_", type => 'textarea', label => "T$_" } } 1 .. 6],
        settings => { notify => { emails => \@to } } });
    is $r->code, 201, "$how: a form with notify to ten addresses" or diag $r->content;
    my $fid = $r->{json}{id};
    is $inst->api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, "$how: published";

    # submissions of six textareas of 2,000 lines each (about 24 KB), posted
    # before the worker's first round can have taken them all
    my $B = 'stopbusyboundary';
    my $body = join('', map { "--$B\r\nContent-Disposition: form-data; name=\"t$_\"\r\n\r\n"
                              . ("line\n" x 2000) . "\r\n" } 1 .. 6) . "--$B--\r\n";
    my $ua = LWP::UserAgent->new(timeout => 30, keep_alive => 1);
    my $stored = 0;
    for (1 .. 60) {
        my $req = HTTP::Request->new(POST => $inst->url . "/f/$fid");
        $req->header('Content-Type' => "multipart/form-data; boundary=$B", Accept => 'application/json');
        $req->content($body);
        $stored++ if $ua->request($req)->code == 201;
    }
    is $stored, 60, "$how: 60 large submissions stored";

    # a long-poll waiter: nothing of that type comes
    my $waiter = fork // die "fork: $!";
    if (!$waiter) {
        $inst->api(GET => '/v1/events?wait=30&type=form.closed', token => $tok);
        POSIX::_exit(0);
    }
    # stop once the worker is writing (the first notification is out) and
    # the waiter sleeps
    my $dir = "$FindBin::Bin/logs/mail";
    my $started = wait_for(sub {
        opendir my $dh, $dir or return 0;
        grep { /\.eml$/ && do { open my $fh, '<', "$dir/$_"; local $/; (<$fh> // '') =~ /\Q$to[0]\E/ } } readdir $dh;
    }, 30, 'the first notification written');
    ok $started, "$how: the worker is writing the notifications";
    # the waiter has long been asleep (forked before the wait above; it polls
    # every 500 ms), which cannot be seen from outside: a margin of 0.3 s
    Time::HiRes::sleep(0.3);

    my $ppid = FormsvcInstance::slurp($inst->root . '/httpd.pid') =~ s/\s+//gr;
    my @pids = ($ppid, $inst->children);
    my $t0 = Time::HiRes::time();
    system($httpd, '-f', $inst->root . '/httpd.conf', '-k', $how);
    my $alive;
    wait_for(sub { !($alive = grep { kill 0, $_ } @pids) }, 15, 'every httpd process to exit');
    my $took = Time::HiRes::time() - $t0;
    diag sprintf '%s: %d httpd processes exited in %.1f s', $how, scalar(@pids), $took;
    is $alive, 0, "$how: every httpd process exited within 15 s";
    cmp_ok $took, '<', 10, "$how: within 10 s";
    waitpid($waiter, 0);
    my $log = $inst->error_log;
    unlike $log, qr/still did not exit|SIGKILL/, "$how: httpd killed no child";
    unlike $log, qr/kept \d+ database connections at exit/, "$how: no connection kept at exit";
    delete $inst->{port};
}

round('stop');
round('graceful-stop');

# A delivery that hangs: an SMTP relay that takes the message (354) and
# never answers its end. The worker's delivery gives up when the child
# stops, rather than wait out its 30 s time-out (it held the child until
# httpd killed it); the message stays queued.
{
    my $srv = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1', LocalPort => 0,
                                    ReuseAddr => 1) or die "listen: $!";
    my $sport = $srv->sockport;
    my $hung = "$FindBin::Bin/logs/stop-busy-smtp.$$";
    unlink $hung;
    my $spid = fork // die "fork: $!";
    if (!$spid) {
        $SIG{PIPE} = 'IGNORE';   # a client that gives up must not kill the relay
        while (my $c = $srv->accept) {
            $c->autoflush(1);
            print $c "220 hangs ESMTP\r\n";
            while (my $l = <$c>) {
                if ($l =~ /^(EHLO|HELO)/i) { print $c "250 hangs\r\n" }
                elsif ($l =~ /^(MAIL|RCPT|RSET|NOOP)/i) { print $c "250 ok\r\n" }
                elsif ($l =~ /^DATA/i) {
                    print $c "354 go\r\n";
                    open my $fh, '>', $hung; close $fh;
                    sleep 1 while 1;   # never answers the message's end (until killed)
                }
                else { print $c "502 no\r\n" }
            }
        }
        POSIX::_exit(0);
    }
    close $srv;
    my $inst = FormsvcInstance->start(name => 'stop-busy-smtp', db => $db, mail => 0, conf => <<"CONF");
StartServers 1
ServerLimit 1
MaxRequestWorkers 10
FormsvcMailTransport smtp smtp://127.0.0.1:$sport
FormsvcMailFrom "Forms <forms\@example.test>"
CONF
    my $r = $inst->api(POST => '/v1/signup', body => { email => "hang$$\@example.com" });
    is $r->code, 201, 'smtp: signed up';
    is $inst->api(POST => '/v1/verify/send', token => $r->{json}{apiKey}{secret})->code, 202,
        'smtp: a verification mail is queued';
    my $sent = 0;
    $sent = wait_for(sub { -e $hung }, 30, 'the worker at the hanging relay');
    ok $sent, 'smtp: the worker is sending it to a relay that hangs';
    my $ppid = FormsvcInstance::slurp($inst->root . '/httpd.pid') =~ s/\s+//gr;
    my @pids = ($ppid, $inst->children);
    my $t0 = Time::HiRes::time();
    system($httpd, '-f', $inst->root . '/httpd.conf', '-k', 'stop');
    my $alive;
    wait_for(sub { !($alive = grep { kill 0, $_ } @pids) }, 15, 'every httpd process to exit');
    my $took = Time::HiRes::time() - $t0;
    diag sprintf 'smtp: %d httpd processes exited in %.1f s', scalar(@pids), $took;
    is $alive, 0, 'smtp: every httpd process exited within 15 s';
    cmp_ok $took, '<', 10, 'smtp: within 10 s';
    my $log = $inst->error_log;
    unlike $log, qr/still did not exit|SIGKILL/, 'smtp: httpd killed no child';
    unlike $log, qr/FS\d+.*not delivered/, 'smtp: the stop is no failed delivery';
    is psql("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND recipient = 'hang$$\@example.com'", db => $db), 1,
        'smtp: the message is still queued';
    delete $inst->{port};
    kill 'KILL', $spid; waitpid $spid, 0;
    unlink $hung;
}
done_testing;
