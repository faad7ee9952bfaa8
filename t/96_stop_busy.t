# A child busy in background work stops promptly. One child, its mail
# worker given many notification jobs of large submissions (a form with
# settings.notify to ten addresses), and a long-poll waiter of the event
# feed (GET /v1/events?wait=30) sleeping in a request thread; then the
# server is stopped (apache2 -k stop) while the worker writes mail, and
# again with -k graceful-stop. Every httpd process exits within 10 s, and
# httpd never had to kill a child ("still did not exit, sending a
# SIGKILL"): each loop checks the stop between items, and no wait on a job
# or a client outlasts the stop.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use HTTP::Request;
use LWP::UserAgent;
use POSIX ();
use Time::HiRes ();

my $httpd = $ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2';

sub round {
    my ($how) = @_;
    my $inst = FormsvcInstance->start(name => "stop-busy-$how", conf => <<'CONF');
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
    sql("UPDATE users SET verified = true WHERE id = '$uid'");
    for (1 .. 50) {
        last if $inst->api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified';
        Time::HiRes::sleep(0.1);
    }
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
    my $started = 0;
    for (1 .. 300) {
        opendir my $dh, $dir or last;
        $started = grep { /\.eml$/ && do { open my $fh, '<', "$dir/$_"; local $/; (<$fh> // '') =~ /\Q$to[0]\E/ } }
            readdir $dh;
        last if $started;
        Time::HiRes::sleep(0.1);
    }
    ok $started, "$how: the worker is writing the notifications";
    Time::HiRes::sleep(0.3);   # the waiter is asleep by now (it polls every 500 ms)

    my $ppid = FormsvcInstance::slurp($inst->root . '/httpd.pid') =~ s/\s+//gr;
    my @pids = ($ppid, $inst->children);
    my $t0 = Time::HiRes::time();
    system($httpd, '-f', $inst->root . '/httpd.conf', '-k', $how);
    my $alive;
    for (1 .. 300) {
        $alive = grep { kill 0, $_ } @pids;
        last unless $alive;
        Time::HiRes::sleep(0.05);
    }
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
done_testing;
