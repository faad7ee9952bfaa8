# Log noise: a start with virtual hosts registers the
# statements once per database configuration (no AH02653 from mod_dbd),
# and a database outage under traffic grows the error log by a bounded
# number of lines (each message number at most once per
# FormsvcLogRepeatInterval per child, with a count of the repeats).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use LWP::UserAgent;
use Time::HiRes qw(time sleep);

my ($p2, $p3) = (FormsvcInstance::free_port(), FormsvcInstance::free_port());
my $inst = FormsvcInstance->start(name => 'lognoise', conf => <<"CONF");
Listen 127.0.0.1:$p2
Listen 127.0.0.1:$p3
<VirtualHost 127.0.0.1:$p2>
    ServerName vhost-a.test
</VirtualHost>
<VirtualHost 127.0.0.1:$p3>
    ServerName vhost-b.test
    # a database configuration of its own: its statements are registered too
    DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=postgres connect_timeout=3"
</VirtualHost>
FormsvcRateLimit signup off
FormsvcQuota unverified requests 1000000
CONF

my $ua = LWP::UserAgent->new(timeout => 10);
my $log = $inst->error_log;
unlike $log, qr/AH02653/, 'no "conflicting SQL statements" warning from mod_dbd at start';
unlike $log, qr/\[(?:error|crit|alert|emerg)\]/, 'no errors at start';
for my $p ($p2, $p3) {
    is $ua->get("http://127.0.0.1:$p/api/readyz")->code, 200, "virtual host on $p: its statements work";
}

my $tok = $inst->api(POST => '/v1/signup', body => { email => uniq_email() })->{json}{apiKey}{secret};
ok $tok, 'signed up';

# ~10 s of PostgreSQL down under traffic from 4 clients
my $before = length $inst->error_log;
my $down = 0;
END { pg_ctl('start') if $down }
# the suite's own server shares this PostgreSQL: its workers see the outage
my $n = expect_log([outage_lines()], sub {
    pg_ctl('stop');
    $down = 1;
    my $t0 = time;
    my $n = FormsvcInstance->burst(4, sub {
        my $c = 0;
        my $u = LWP::UserAgent->new(timeout => 10);
        while (time - $t0 < 10) {
            my $r = $u->get($inst->url . '/v1/forms', Authorization => "Bearer $tok");
            $c++ if $r->code == 503;
        }
        return $c > 250 ? 250 : $c; # (an exit code)
    });
    pg_ctl('start');
    $down = 0;
    return $n;
});
cmp_ok $n, '>=', 100, "at least $n requests answered 503 during the outage";
my $lines = () = substr($inst->error_log, $before) =~ /\n/g;
# 4 children (ServerLimit) x a handful of message numbers x 2 intervals,
# plus the repeat counts: far below one line per request
cmp_ok $lines, '<=', 60, "the error log grew by $lines lines in 10 s of failed requests";
is $inst->api(GET => '/v1/forms', token => $tok)->code, 200, 'and it recovers at once';
$inst->stop;
# each child writes what it held back when it exits
my $tail = substr($inst->error_log, $before);
my @counted = $tail =~ /FS00001: (FS\d{5}) repeated \d+ more times/g;
ok scalar(@counted), 'repeats are counted, not written';
# the count names the message that was held back, which was written once
ok !(grep { my $n = $_; $tail !~ /\] $n: / } @counted),
    'each count names a message number that the log shows' or diag "@counted";

done_testing;
