# A database that takes no writes (a standby not yet promoted after a
# failover, default_transaction_read_only): every write fails with SQLSTATE
# 25006. The answer is 503 with Retry-After, as for any database outage,
# not 500 internal; reads go on; once the database takes writes again the
# pool's sessions serve writes without an httpd restart, and a retry with
# the same Idempotency-Key stores once.
#
# The instance's sessions log in as a role of this test's own whose
# default_transaction_read_only is switched (other tests share the server,
# so no ALTER SYSTEM); its sessions are ended after each switch (a role's
# setting applies to new sessions), as a failover ends them.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql uniq_email wait_for);
use LWP::UserAgent;

delete $ENV{LD_PRELOAD};
my $role = "fsro$$";
my $app = "fsro$$";
psql("DROP ROLE IF EXISTS $role");
psql("CREATE ROLE $role LOGIN SUPERUSER");

my $inst = FormsvcInstance->start(name => 'readonly', conf => <<"CONF");
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=$role connect_timeout=2 application_name=$app"
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified submissions 1000000
FormsvcQuota unverified forms 1000000
CONF

my $r = $inst->api(POST => '/v1/signup', body => { email => uniq_email() });
is $r->code, 201, 'signed up' or BAIL_OUT($r->content);
my $tok = $r->{json}{apiKey}{secret};
my $fid = $inst->published_form($tok);

# every session of the instance ended (and gone), so that the next ones
# log in with the role's new setting (the instance opens new ones at once)
sub renew_sessions {
    my $t0 = psql("SELECT clock_timestamp()");
    my $old = "application_name = '$app' AND backend_start <= '$t0'";
    psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE $old");
    wait_for(sub { psql("SELECT count(*) FROM pg_stat_activity WHERE $old") == 0 },
             10, 'the sessions to end') or die 'sessions not ended';
}

my $ua = LWP::UserAgent->new(timeout => 30, max_redirect => 0);
sub public_post {
    my ($key, $value) = @_;
    return $ua->post($inst->url . "/f/$fid", { a => $value }, 'Idempotency-Key' => $key);
}
my $new_form = { title => 'written', fields => [ { key => 'a', type => 'text', label => 'A' } ] };
my $value = "ro$$";

psql("ALTER ROLE $role SET default_transaction_read_only = on");
renew_sessions();

# the first request after the sessions ended may meet one still closing:
# whatever it gets, the answers below are of read-only sessions
$inst->api(GET => '/v1/me', token => $tok);
$r = $inst->api(GET => '/v1/forms', token => $tok);
is $r->code, 200, 'read-only: reads go on (GET /v1/forms 200)';

$r = $inst->api(POST => '/v1/forms', token => $tok, body => $new_form, headers => { 'Idempotency-Key' => 'ro-form' });
is $r->code, 503, 'read-only: POST /v1/forms 503 (not 500)';
ok $r->header('Retry-After'), '... with Retry-After';
is $r->{json}{type} =~ s{.*/}{}r, 'service-unavailable', '... a service-unavailable problem';
like $r->{json}{detail}, qr/accepts no changes/, '... saying that the database takes no changes';

$r = public_post('ro-sub', $value);
is $r->code, 503, 'read-only: public submission 503 (not 500)';
ok $r->header('Retry-After'), '... with Retry-After';
like $r->decoded_content, qr/value="\Q$value\E"/, '... the form given back with the answer';
is psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 0, '... nothing stored';

unlike $inst->error_log, qr/FS00103/, 'no 500 logged';
like $inst->error_log, qr/FS00330: statement \w+: the database is read-only \(25006\)/, 'FS00330 says the database is read-only';

# the database takes writes again: the same requests succeed, once
psql("ALTER ROLE $role RESET default_transaction_read_only");
renew_sessions();
$inst->api(GET => '/v1/me', token => $tok);
for my $i (1, 2) {
    $r = public_post('ro-sub', $value);
    is $r->code, 303, "writable again: the public submission's retry $i stored (303)";
    $r = $inst->api(POST => '/v1/forms', token => $tok, body => $new_form, headers => { 'Idempotency-Key' => 'ro-form' });
    is $r->code, 201, "writable again: POST /v1/forms retry $i 201";
}
is psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 1, 'the submission stored once';

$inst->stop;
psql("REASSIGN OWNED BY $role TO postgres");
psql("DROP ROLE $role");
done_testing;
