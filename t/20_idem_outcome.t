# Idempotency-Key of POST /v1/forms and POST /v1/keys when the outcome of
# the work is not known, against an instance of this test's own:
# - the commit of the work lands but its answer is lost: the commit waits
#   for a synchronous standby that does not exist (named for a moment in
#   synchronous_standby_names; the instance's sessions commit locally, but
#   the test's triggers set synchronous_commit on for the transaction that
#   makes its form or key), and the session is ended while it waits:
#   PostgreSQL has committed locally, the module hears nothing (504
#   outcome-unknown). A retry with the same key a minute later must answer
#   as the first time (same id, Idempotent-Replayed), and exactly one form
#   or key exists. (Before the answer's record committed with the work, the
#   504 released the claim, or left it to lapse after a minute, and the
#   retry made a second one.)
# - the answer's record fails (a trigger refuses it): nothing is stored and
#   the client is told so; the retry with the same key then makes one.
#   (Before, the work stayed, the 201 went out, and the retry made another.)
# - concurrent requests with one key: one creation, every 201 the same.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use JSON::PP ();
use POSIX ();
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};

use FormsTest ();
sub psql { FormsTest::psql(@_) } # the suite's one psql
sub wait_for {
    my ($what, $cond, $secs) = @_;
    my $t0 = time;
    while (time - $t0 < ($secs // 20)) { my $v = $cond->(); return $v if $v; sleep 0.05 }
    die "timed out waiting for $what";
}

my $J = JSON::PP->new->utf8->canonical;
my $app = "fsidem$$";
my $mark = "idem-outcome-$$";
my $inst = FormsvcInstance->start(name => 'idemoutcome', conf => <<"CONF");
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=postgres connect_timeout=2 application_name=$app options='-c synchronous_commit=local'"
FormsvcRateLimit signup off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified forms 100
FormsvcQuota unverified keys 100
FormsvcLogRepeatInterval 0
CONF

my $tok = $inst->api(POST => '/v1/signup', body => { email => sprintf('io%d.%d@example.com', $$, time) })
    ->{json}{apiKey}{secret};
ok $tok, 'signed up';

# A transaction that makes the test's form or key waits at its commit for
# a standby that never comes; every other commits locally.
psql(<<"SQL");
CREATE FUNCTION fs_t_idem_sync() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN
  IF to_jsonb(NEW)->>TG_ARGV[0] LIKE '$mark-sync%' THEN
    PERFORM set_config('synchronous_commit', 'on', true);
  END IF;
  RETURN NEW;
END \$\$;
CREATE TRIGGER fs_t_idem_sync AFTER INSERT ON forms FOR EACH ROW EXECUTE FUNCTION fs_t_idem_sync('title');
CREATE TRIGGER fs_t_idem_sync AFTER INSERT ON keys FOR EACH ROW EXECUTE FUNCTION fs_t_idem_sync('name');
CREATE TABLE fs_t_idem_refuse (key text PRIMARY KEY);
CREATE FUNCTION fs_t_idem_refuse() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN
  IF NEW.status <> 0 AND EXISTS (SELECT 1 FROM fs_t_idem_refuse r WHERE r.key = NEW.key) THEN
    RAISE EXCEPTION 'the test refuses this answer record';
  END IF;
  RETURN NEW;
END \$\$;
CREATE TRIGGER fs_t_idem_refuse BEFORE UPDATE ON idempotency FOR EACH ROW EXECUTE FUNCTION fs_t_idem_refuse();
SQL
# A standby to wait for, named only while the test needs it: a session of
# another that writes meanwhile waits that long (a moment), and is let go
# when the name is taken away.
sub standby_wanted {
    my $on = shift;
    psql($on ? "ALTER SYSTEM SET synchronous_standby_names = 'fs_t_nobody_$$'"
             : 'ALTER SYSTEM RESET synchronous_standby_names');
    psql('SELECT pg_reload_conf()');
    my $want = $on ? "fs_t_nobody_$$" : '';
    wait_for('the setting', sub { psql('SHOW synchronous_standby_names') eq $want });
}
my $cleaned;
sub cleanup {
    return if $cleaned++;
    standby_wanted(0);
    psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep' "
       . "AND application_name = '$app'");
    psql('DROP TRIGGER IF EXISTS fs_t_idem_sync ON forms; DROP TRIGGER IF EXISTS fs_t_idem_sync ON keys; '
       . 'DROP FUNCTION IF EXISTS fs_t_idem_sync(); DROP TRIGGER IF EXISTS fs_t_idem_refuse ON idempotency; '
       . 'DROP FUNCTION IF EXISTS fs_t_idem_refuse(); DROP TABLE IF EXISTS fs_t_idem_refuse');
}
END { cleanup() }

# Posts in a process of its own; the answer (status, Idempotent-Replayed,
# body) in a file.
sub post_async {
    my ($path, $body, $key, $file) = @_;
    my $pid = fork // die;
    if (!$pid) {
        my $r = $inst->api(POST => $path, token => $tok, body => $body,
                           headers => { 'Idempotency-Key' => $key });
        open my $fh, '>', "$file.tmp" or die;
        print $fh $r->code, "\n", ($r->header('Idempotent-Replayed') // ''), "\n", $r->content;
        close $fh;
        rename "$file.tmp", $file;
        POSIX::_exit(0);
    }
    return $pid;
}
sub result_of {
    my $file = shift;
    open my $fh, '<', $file or return (0, '', '');
    my $code = <$fh>; chomp $code;
    my $rep = <$fh>; chomp $rep;
    local $/; my $body = <$fh> // '';
    unlink $file;
    return ($code, $rep, $body);
}
sub count_of {
    my ($what, $name) = @_;
    return $what eq 'forms'
        ? psql("SELECT count(*) FROM forms WHERE title = '$name'")
        : psql("SELECT count(*) FROM keys WHERE name = '$name'");
}
sub ids_of {
    my ($what, $name) = @_;
    return $what eq 'forms'
        ? psql("SELECT id FROM forms WHERE title = '$name'")
        : psql("SELECT id FROM keys WHERE name = '$name'");
}

my %route = (forms => ['/v1/forms', 'title'], keys => ['/v1/keys', 'name']);

# ---- the commit lands, its answer is lost ---------------------------------
for my $what (qw(forms keys)) {
    my ($path, $member) = @{ $route{$what} };
    my $name = "$mark-sync-$what";
    my $key = "$mark-k-$what";
    my $out = "$FindBin::Bin/logs/idemoutcome.$$";
    standby_wanted(1);
    my $client = post_async($path, { $member => $name }, $key, $out);
    my $victim = wait_for("the $what commit waiting for the standby", sub {
        psql("SELECT pid FROM pg_stat_activity WHERE application_name = '$app' AND wait_event = 'SyncRep'") });
    is psql("SELECT pg_terminate_backend($victim, 5000)"), 't', "$what: the session ended while its commit waits";
    standby_wanted(0);
    waitpid($client, 0);
    my ($code, undef, $body) = result_of($out);
    is $code, 504, "$what: the first request is answered 504" or diag $body;
    like $body, qr/outcome-unknown/, "$what: outcome-unknown";
    is count_of($what, $name), 1, "$what: yet it was committed (locally)";
    my $first = ids_of($what, $name);
    # the client retries a minute later: whatever record the key has is
    # made a minute older
    psql("UPDATE idempotency SET created_at = created_at - interval '61 seconds' WHERE key = '$key'");
    my $r = $inst->api(POST => $path, token => $tok, body => { $member => $name },
                       headers => { 'Idempotency-Key' => $key });
    is $r->code, 201, "$what: the retry with the same key is answered 201" or diag $r->content;
    is $r->{json}{id}, $first, "$what: with the id of the one stored";
    is $r->header('Idempotent-Replayed'), 'true', "$what: replayed";
    is count_of($what, $name), 1, "$what: exactly one stored";
    if ($what eq 'keys') {
        ok $r->{json}{secret}, 'keys: the replay carries the secret of the first answer';
        my $sec = $r->{json}{secret};
        is $inst->api(GET => '/v1/me', token => $sec)->code, 200, 'keys: and that secret works';
    }
}
like $inst->error_log, qr/FS00370: COMMIT of a transaction was sent and no outcome came back/,
    'logged: the commit sent without an outcome (FS00370)';

# ---- a second request while the first is held in its commit ---------------
{
    my $name = "$mark-sync-held";
    my $key = "$mark-h";
    my $out = "$FindBin::Bin/logs/idemheld.$$";
    standby_wanted(1);
    my $client = post_async('/v1/forms', { title => $name }, $key, $out);
    wait_for('the commit waiting for the standby', sub {
        psql("SELECT pid FROM pg_stat_activity WHERE application_name = '$app' AND wait_event = 'SyncRep'") });
    my $t0 = time;
    my $r = $inst->api(POST => '/v1/forms', token => $tok, body => { title => $name },
                       headers => { 'Idempotency-Key' => $key });
    my $took = time - $t0;
    problem_ok($r, 409, 'conflict', 'the same key while the first waits in its commit: 409');
    is $r->header('Retry-After'), '1', 'with Retry-After: 1';
    cmp_ok $took, '<', 5, sprintf('at once (%.2f s), not after the first', $took);
    standby_wanted(0); # the first commits now
    waitpid($client, 0);
    my ($code, $rep, $body) = result_of($out);
    is $code, 201, 'the first is answered 201 once its commit is confirmed' or diag $body;
    my $id = eval { $J->decode($body)->{id} } // '';
    $r = $inst->api(POST => '/v1/forms', token => $tok, body => { title => $name },
                    headers => { 'Idempotency-Key' => $key });
    is $r->{json}{id}, $id, 'the second, retried, gets the first one replayed';
    is count_of('forms', $name), 1, 'exactly one stored';
}

# ---- the answer's record fails: nothing stored, the retry makes one -------
for my $what (qw(forms keys)) {
    my ($path, $member) = @{ $route{$what} };
    my $name = "$mark-refuse-$what";
    my $key = "$mark-r-$what";
    psql("INSERT INTO fs_t_idem_refuse VALUES ('$key')");
    my $r = $inst->api(POST => $path, token => $tok, body => { $member => $name },
                       headers => { 'Idempotency-Key' => $key });
    is $r->code, 500, "$what: the answer's record refused: 500" or diag $r->content;
    is count_of($what, $name), 0, "$what: and nothing stored";
    is psql("SELECT count(*) FROM idempotency WHERE key = '$key'"), 0, "$what: not even the claim";
    psql("DELETE FROM fs_t_idem_refuse WHERE key = '$key'");
    $r = $inst->api(POST => $path, token => $tok, body => { $member => $name },
                    headers => { 'Idempotency-Key' => $key });
    is $r->code, 201, "$what: the retry at once: 201" or diag $r->content;
    ok !$r->header('Idempotent-Replayed'), "$what: made, not replayed";
    my $again = $inst->api(POST => $path, token => $tok, body => { $member => $name },
                           headers => { 'Idempotency-Key' => $key });
    is $again->{json}{id}, $r->{json}{id}, "$what: its repeat replays it";
    is count_of($what, $name), 1, "$what: exactly one stored";
}

# ---- concurrent requests with one key -------------------------------------
for my $what (qw(forms keys)) {
    my ($path, $member) = @{ $route{$what} };
    my $name = "$mark-conc-$what";
    my $key = "$mark-c-$what";
    my $dir = "$FindBin::Bin/logs/idemconc.$$";
    mkdir $dir;
    my $n = 8;
    my @kids = map { post_async($path, { $member => $name }, $key, "$dir/$_") } 1 .. $n;
    waitpid($_, 0) for @kids;
    my (%codes, %ids);
    for my $i (1 .. $n) {
        my ($code, $rep, $body) = result_of("$dir/$i");
        $codes{$code}++;
        if ($code == 201) { $ids{ $J->decode($body)->{id} }++ }
        elsif ($code == 409) { like $body, qr/conflict/, "$what: a 409 is conflict (in progress)" }
    }
    rmdir $dir;
    my $summary = join ', ', map { "$_ x $codes{$_}" } sort keys %codes;
    is scalar(grep { $_ != 201 && $_ != 409 } keys %codes), 0, "$what: only 201 and 409 ($summary)";
    ok $codes{201}, "$what: at least one 201";
    is scalar(keys %ids), 1, "$what: every 201 names the same id";
    is count_of($what, $name), 1, "$what: exactly one stored";
    # a retry after them all replays the one
    my $r = $inst->api(POST => $path, token => $tok, body => { $member => $name },
                       headers => { 'Idempotency-Key' => $key });
    is $r->{json}{id}, (keys %ids)[0], "$what: a later retry replays it";
    problem_ok($inst->api(POST => $path, token => $tok, body => { $member => "$name-other" },
                          headers => { 'Idempotency-Key' => $key }), 422, 'validation-failed',
               "$what: the same key with another body: 422");
}

sub problem_ok {
    my ($r, $code, $slug, $name) = @_;
    ok $r->code == $code && $r->content =~ /\Q$slug\E/, $name or diag $r->code . ' ' . $r->content;
}

cleanup();
$inst->stop;
done_testing;
