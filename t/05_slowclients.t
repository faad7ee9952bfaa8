# Slow clients do not stop the service: an httpd with the
# shipped server settings (conf/formsvc-server.conf: mod_reqtimeout limits
# and event MPM sizing) answers a normal GET within 2 s while 200
# connections send a header line, then a body byte, every 5 s; the server
# cuts them (mod_reqtimeout) and scripts/slowclient opens them again at
# once. `make slowloris` runs the same with 1,000 connections.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest ();
use JSON::PP ();

my $root = $ENV{FORMSVC_ROOT} // "$FindBin::Bin/..";
my $inst = FormsvcInstance->start(name => 'slow', conf => <<"CONF");
LoadModule reqtimeout_module /usr/lib/apache2/modules/mod_reqtimeout.so
Include "$root/conf/formsvc-server.conf"
CONF
my ($port) = $inst->url =~ m{:(\d+)/};
# every child started, each with its worker threads (StartServers,
# ThreadsPerChild of the shipped file)
$inst->wait_children(FormsvcInstance::shipped('StartServers'), FormsvcInstance::shipped('ThreadsPerChild'));

sub slow {
    my ($mode, $path, $secs) = @_;
    my $out = `python3 "$root/scripts/slowclient" --port $port --conns 200 --mode $mode --path $path --probe /api/healthz --duration $secs --json`;
    my $r = eval { JSON::PP->new->decode($out) } or BAIL_OUT("slowclient: $out");
    diag "$mode x200: $r->{probes} probes, max $r->{max_ms} ms, p99 $r->{p99_ms} ms, "
       . "$r->{reopened} cut and reopened";
    return $r;
}

my $h = slow('header', '/api/healthz', 12);
cmp_ok $h->{probes}, '>=', 40, 'header: probed every 200 ms';
is $h->{failed}, 0, 'header: every normal request answered';
cmp_ok $h->{max_ms}, '<', 2000, 'header: within 2 s throughout';
is $h->{slow_open}, 200, 'header: 200 slow connections held open';
cmp_ok $h->{reopened}, '>=', 200, 'header: the server cut slow headers (mod_reqtimeout)';
# the second run starts once the connections of the first are gone
FormsvcTest::wait_for(sub { $inst->open_connections == 0 }, 10, 'the slow connections closed');
my $b = slow('body', '/api/v1/token', 12);
is $b->{failed}, 0, 'body: every normal request answered';
cmp_ok $b->{max_ms}, '<', 2000, 'body: within 2 s throughout';
cmp_ok $b->{reopened}, '>=', 150, 'body: the server cut slow bodies (mod_reqtimeout)';
unlike $inst->error_log, qr/AH00484|MaxRequestWorkers/, 'never out of workers';
$inst->stop;
done_testing;
