# Request ids: every answer carries X-Request-Id, the
# same id is in the access log, in the error-log lines of that request
# (ErrorLogFormat %L) and in problem documents (requestId); with
# mod_unique_id loaded it is its UNIQUE_ID.
use strict;
use warnings;
use Test::More;
use Apache::Test ();
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use LWP::UserAgent;

my $ID = qr/[A-Za-z0-9_@-]{16,}/;

# --- the test server -------------------------------------------------------
my $r = api(GET => '/v1/nothing-here');
is $r->code, 404, 'not found';
my $id = $r->header('X-Request-Id') // '';
like $id, qr/^$ID$/, "X-Request-Id on a problem answer ($id)";
is $r->{json}{requestId}, $id, 'the problem document carries the same id';
my $r2 = api(GET => '/healthz');
like $r2->header('X-Request-Id') // '', qr/^$ID$/, 'and on a 200';
isnt $r2->header('X-Request-Id'), $id, 'a new id per request';

# a refused credential goes through httpd's error document (an internal
# redirect): the problem still has the request's own id
$r = api(GET => '/v1/me', token => 'svc_live_not-a-real-key');
is $r->code, 401, '401 for a bad key';
ok $r->header('X-Request-Id'), 'X-Request-Id on it';
is $r->{json}{requestId}, $r->header('X-Request-Id'), 'same id in the problem after the redirect';
my @ids = $r->header('X-Request-Id');
is scalar(@ids), 1, 'one X-Request-Id header';

my $alog = Apache::Test::vars('t_logs') . '/formsvc_access.log';
my $found;
wait_for(sub {   # the line is written after the answer
    open my $fh, '<', $alog or die "$alog: $!";
    ($found) = grep { /req=\Q$id\E$/ } <$fh>;
}, 10, 'the access log line');
like $found // '', qr{"GET /api/v1/nothing-here }, 'the access log line of that request has its id';

# --- an instance without mod_unique_id: error-log lines carry the id ---------
my $inst = FormsvcInstance->start(name => 'reqid', conf => <<'CONF');
LogLevel info
ErrorLogFormat "[%{u}t] [%-m:%l] [pid %P:tid %T] [client\ %a] [request\ %L] %M"
CONF
$r = $inst->api(GET => '/v1/me', token => 'svc_live_not-a-real-key');
is $r->code, 401, 'instance: 401';
$id = $r->header('X-Request-Id');
my ($line) = grep { /FS00201: / } split /\n/, $inst->error_log;
like $line // '', qr/\[request \Q$id\E\]/, 'our error-log line of the request carries its id';
$inst->stop;

# --- with mod_unique_id: its UNIQUE_ID is the id -----------------------------
SKIP: {
    skip 'mod_unique_id not installed', 3 unless -e '/usr/lib/apache2/modules/mod_unique_id.so';
    my $u = FormsvcInstance->start(name => 'reqid-unique', conf => <<'CONF');
LoadModule unique_id_module /usr/lib/apache2/modules/mod_unique_id.so
LogFormat "%{UNIQUE_ID}e %{formsvc-request-id}n %U" ids
CustomLog ids_log ids
CONF
    $r = $u->api(GET => '/healthz');
    $id = $r->header('X-Request-Id') // '';
    ok $id, "instance with mod_unique_id: X-Request-Id $id";
    my $ids;
    wait_for(sub { ($ids) = grep { /^\Q$id\E / } split /\n/, FormsvcInstance::slurp($u->root . '/ids_log') },
             10, 'the line of ids_log');
    is $ids, "$id $id /api/healthz", 'X-Request-Id is UNIQUE_ID, and the note is the same';
    $r = $u->api(GET => '/v1/none');
    is $r->{json}{requestId}, $r->header('X-Request-Id'), 'problem requestId is UNIQUE_ID too';
    $u->stop;
}

done_testing;
