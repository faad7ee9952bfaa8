# Every directive is read again at a graceful restart: one set to a value
# other than its default has its effect, and once it is removed from the
# configuration and httpd restarted gracefully its default is back (the
# file directives used to keep a removed value: they lived in statics that
# only the directive wrote). Its own httpd with one child (so that a
# child's caches and log throttle are the ones the requests meet), on the
# suite's PostgreSQL. The directives are set in groups, one group per
# configuration, because some would hide each other's effect (a file too
# large is refused before the spool sees it): start with group 1; the
# restart to group 2 removes group 1 (its defaults checked), and so on;
# group 4 is empty, and group 5 (FormsvcKeyPrefix, which would make the
# keys of the other checks unknown) is set and removed last.
# docs/testing.md lists what is covered here and what only by reading
# runtime/config*.c.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use File::Path qw(make_path);
use JSON::PP ();
use MIME::Base64 qw(encode_base64);
use Time::HiRes ();

delete $ENV{LD_PRELOAD};
my $J = JSON::PP->new->utf8->canonical;

# One child of 10 threads (room for the old child while the new one starts).
my $one_child = <<'CONF';
ServerLimit 2
StartServers 1
MinSpareThreads 1
MaxSpareThreads 10
MaxRequestWorkers 10
CONF

# A directory the children cannot write (the spool's files fail there).
my $ro = "$FindBin::Bin/logs/inst-config-reload-ro";
make_path($ro);
chmod 0555, $ro;

my %group = (
    1 => <<'CONF',
FormsvcFileMaxSize 1000
FormsvcFileMaxFiles 1
FormsvcFileQuotaUnverified 1
FormsvcFileQuotaVerified 2
FormsvcFormCacheSize 0
FormsvcCredentialCacheSize 0
FormsvcWebhookAllowPrivate On
FormsvcEventWaits 0
FormsvcDBTimeout 1
FormsvcMaxBodyAPI 2048
FormsvcQuota unverified forms 7
FormsvcQuota verified retentionDays 3
FormsvcTokenLifetime 120
FormsvcClientSecretPrefix tstc_
CONF
    2 => <<"CONF",
FormsvcFileMaxJSONBody 65536
FormsvcUploadTempDir "$ro"
FormsvcLogRepeatInterval 0
FormsvcMaxBodySubmission 2048
FormsvcVerifyResendInterval 0
CONF
    # the rate-limit counters outlive a graceful restart: the token limit
    # of 1 is not in the configuration that checks group 1's token removed
    3 => <<'CONF',
FormsvcRateLimit token 1 60
FormsvcUploadTempMax 1
FormsvcFormCacheTTL 1
FormsvcCredentialCacheTTL 1
FormsvcRetentionMaxDays 1
FormsvcEventRetentionDays 2
CONF
    # on its own, at the end: the keys of the other checks have the default prefix
    5 => <<'CONF',
FormsvcKeyPrefix tst_
CONF
);

# (and the retention task every second in every phase, so that a check
# waits for a run of it rather than an hour)
my $no_limits = "FormsvcRateLimit signup off\nFormsvcRateLimit submit off\nFormsvcRetentionInterval 1\n";
# The module stays loaded across the restarts: httpd unloads and loads a
# module's shared object again at each one, which resets every static to
# its initial value and so hid settings kept in statics; a module linked
# into httpd (or a dlclose that does not unload) keeps them.
my $inst = FormsvcInstance->start(name => 'config-reload', keep_loaded => 1,
                                  conf => $one_child . $group{1} . $no_limits);

sub signup_on {
    my $r = $inst->api(POST => '/v1/signup', body => { email => uniq_email() });
    die 'signup: ' . $r->status_line . ' ' . $r->content unless $r->code == 201;
    return ($r->{json}{apiKey}{secret}, $r->{json}{user}{id});
}
my ($tok_u, $uid_u) = signup_on();          # stays unverified
my ($tok_v, $uid_v) = signup_on();
FormsvcTest::sql("UPDATE users SET verified = true WHERE id = '$uid_v'");

my $r = $inst->api(POST => '/v1/forms', token => $tok_v, body => { title => 'Reload', fields => [
    { key => 'note', type => 'textarea', label => 'Note' },
    { key => 'blob', type => 'file', label => 'Blob', validation => { maxFiles => 5 } },
] });
is $r->code, 201, 'a form with a file field' or diag $r->content;
my $fid = $r->{json}{id};
is $inst->api(POST => "/v1/forms/$fid/publish", token => $tok_v)->code, 200, 'published';

$r = $inst->api(POST => '/v1/forms', token => $tok_v, body => { title => 'No files', fields => [
    { key => 'note', type => 'textarea', label => 'Note', validation => { maxLength => 10000 } } ] });
my $fid2 = $r->{json}{id};
is $inst->api(POST => "/v1/forms/$fid2/publish", token => $tok_v)->code, 200, 'a form without files, published';
$r = $inst->api(POST => '/v1/forms', token => $tok_v, body => { title => 'Locked', fields => [
    { key => 'a', type => 'text', label => 'A' } ] });
my $fid3 = $r->{json}{id};
ok $fid3, 'a form to lock';
$r = $inst->api(POST => '/v1/forms', token => $tok_v, body => { title => 'Marker', settings => { retentionDays => 2 },
    fields => [ { key => 'a', type => 'text', label => 'A' } ] });
my $fid4 = $r->{json}{id};
ok $fid4, 'a form whose submissions go after 2 days';
$r = $inst->api(POST => '/v1/forms', token => $tok_u, body => { title => 'Unverified',
    fields => [ { key => 'a', type => 'text', label => 'A' } ] });
my $fid_u = $r->{json}{id};
ok $fid_u, 'a form of the unverified account';

# ---- what each directive does, set (1) and by default (0) -----------------

sub file_of { my $n = shift; { name => "f$n.bin", type => 'application/octet-stream', data => encode_base64('x' x $n, '') } }
sub submit_json { $inst->api(POST => "/f/$fid", body => $J->encode(shift))->code }
sub submit_multipart {
    my ($bytes) = @_;
    my $b = 'rElOaDbOuNdArY';
    my $body = "--$b\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nn\r\n"
             . "--$b\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"big.bin\"\r\n"
             . "Content-Type: application/octet-stream\r\n\r\n" . ('m' x $bytes) . "\r\n--$b--\r\n";
    return $inst->api(POST => "/f/$fid", body => $body,
                      headers => { 'Content-Type' => "multipart/form-data; boundary=$b",
                                   Accept => 'application/json' })->code;
}
sub metric {
    my ($name, $labels) = @_;
    my $m = $inst->api(GET => '/metrics')->content;
    my $re = $labels ? qr/^\Q$name\E\{\Q$labels\E\} (\d+)/m : qr/^\Q$name\E (\d+)/m;
    return $m =~ $re ? $1 : 0;
}
sub hits { metric('formsvc_cache_requests_total', qq{cache="$_[0]",result="hit"}) }
sub count_lines { my $re = shift; scalar(() = $inst->error_log =~ /$re/g) }
# Holds the row of form $id locked for $secs seconds (a background psql:
# only a change of that form waits for it), returning once it is held.
sub lock_form {
    my ($id, $secs) = @_;
    my $pid = fork // die;
    if (!$pid) {
        exec 'psql', '-X', '-q', '-o', '/dev/null', '-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT},
            '-U', 'postgres', '-d', 'formsvc', '-c',
            "BEGIN; SELECT 1 FROM forms WHERE id = '$id' FOR UPDATE; SELECT pg_sleep($secs) AS held_for_reload; COMMIT;";
    }
    wait_for(sub { FormsvcTest::sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' "
        . "AND query LIKE '%held_for_reload%' AND pid <> pg_backend_pid()") }, 10, 'the row lock')
        or die 'no lock';
    return $pid;
}

# A submission of form $form created $days days ago (the clock moved in
# the database); returns its id.
my $old_n = 0;
sub old_submission {
    my ($form, $days) = @_;
    my $id = sprintf 'sub_01ARELOAD%017d', ++$old_n + $$ * 1000;
    FormsvcTest::sql("INSERT INTO submissions (id, form_id, user_id, form_version, data, created_at) "
        . "SELECT '$id', id, user_id, version, '{}', now() - interval '$days days' FROM forms WHERE id = '$form'");
    return $id;
}
sub gone { FormsvcTest::sql("SELECT count(*) FROM $_[0] WHERE id = '$_[1]'") == 0 }
# Two whole runs of the retention task after this call: each deletes a
# submission 5 days old of the marker form (retentionDays 2).
sub two_runs {
    for (1 .. 2) {
        my $m = old_submission($fid4, 5);
        wait_for(sub { gone('submissions', $m) }, 20, 'a run of the retention task') or return 0;
    }
    return 1;
}

# An OAuth client of the verified account (a new one for each check: a
# secret made under another FormsvcClientSecretPrefix is not one), and a
# client_credentials token for it.
sub new_client_on {
    my $c = $inst->api(POST => '/v1/clients', token => $tok_v, body => { name => 'reload' });
    die 'client: ' . $c->status_line . ' ' . $c->content unless $c->code == 201;
    return ($c->{json}{id}, $c->{json}{secret});
}
sub token_for {
    my ($id, $secret) = @_;
    return $inst->api(POST => '/v1/token', body => 'grant_type=client_credentials',
                      headers => { 'Content-Type' => 'application/x-www-form-urlencoded',
                                   Authorization => 'Basic ' . encode_base64("$id:$secret", '') });
}
sub drop_client { $inst->api(DELETE => "/v1/clients/$_[0]", token => $tok_v) }

my @directives = (
    [1, 'FormsvcFileMaxSize', sub {
        my $set = shift;
        if ($set) {
            is submit_json({ blob => file_of(1000) }), 201, 'FormsvcFileMaxSize 1000: a file of 1000 bytes goes in';
            is submit_json({ blob => file_of(1001) }), 413, 'FormsvcFileMaxSize 1000: 1001 bytes: 413';
        } else {
            is submit_json({ blob => file_of(1001) }), 201, 'FormsvcFileMaxSize removed: 1001 bytes go in';
        }
    }],
    [1, 'FormsvcFileMaxFiles', sub {
        my $set = shift;
        is submit_json({ blob => [file_of(10), file_of(11)] }), $set ? 422 : 201,
            $set ? 'FormsvcFileMaxFiles 1: two files: 422' : 'FormsvcFileMaxFiles removed: two files go in';
    }],
    [1, 'FormsvcFileQuotaUnverified', sub {
        my $set = shift;
        is $inst->api(GET => '/v1/me', token => $tok_u)->{json}{storage}{quota}, ($set ? 1 : 50) * 1024 * 1024,
            'FormsvcFileQuotaUnverified: /v1/me says ' . ($set ? '1 MB' : '50 MB, the default');
    }],
    [1, 'FormsvcFileQuotaVerified', sub {
        my $set = shift;
        is $inst->api(GET => '/v1/me', token => $tok_v)->{json}{storage}{quota}, ($set ? 2 : 10240) * 1024 * 1024,
            'FormsvcFileQuotaVerified: /v1/me says ' . ($set ? '2 MB' : '10240 MB, the default');
    }],
    [1, 'FormsvcFormCacheSize', sub {
        my $set = shift;
        my $h0 = hits('form');
        if ($set) {
            $inst->api(GET => "/f/$fid", headers => { Accept => 'text/html' }) for 1 .. 4;
            is hits('form') - $h0, 0, 'FormsvcFormCacheSize 0: no public page served from the cache';
        } else {
            ok wait_for(sub { $inst->api(GET => "/f/$fid", headers => { Accept => 'text/html' }); hits('form') > $h0 }, 20,
                'a cached public page'), 'FormsvcFormCacheSize removed: public pages served from the cache';
        }
    }],
    [1, 'FormsvcCredentialCacheSize', sub {
        my $set = shift;
        my $h0 = hits('credential');
        if ($set) {
            $inst->api(GET => '/v1/me', token => $tok_v) for 1 .. 4;
            is hits('credential') - $h0, 0, 'FormsvcCredentialCacheSize 0: no credential from the cache';
        } else {
            ok wait_for(sub { $inst->api(GET => '/v1/me', token => $tok_v); hits('credential') > $h0 }, 20,
                'a cached credential'), 'FormsvcCredentialCacheSize removed: credentials from the cache';
        }
    }],
    [1, 'FormsvcWebhookAllowPrivate', sub {
        my $set = shift;
        my $w = $inst->api(POST => '/v1/webhooks', token => $tok_v,
                           body => { url => 'http://127.0.0.1:9/hook', events => ['submission.created'] });
        is $w->code, $set ? 201 : 422, 'FormsvcWebhookAllowPrivate ' . ($set ? 'On: a loopback target is taken' : 'removed: refused');
        $inst->api(DELETE => "/v1/webhooks/$w->{json}{id}", token => $tok_v) if $w->code == 201;
    }],
    [1, 'FormsvcEventWaits', sub {
        my $set = shift;
        # an account without events: the request waits unless refused
        my $e = $inst->api(GET => '/v1/events?wait=1', token => $tok_u);
        is $e->code, 200, 'GET /v1/events?wait=1: 200';
        is $e->header('Formsvc-Wait') // '', $set ? 'busy' : '',
            'FormsvcEventWaits ' . ($set ? '0: not allowed to wait (busy)' : 'removed (auto): allowed to wait');
    }],
    [1, 'FormsvcDBTimeout', sub {
        my $set = shift;
        my $pid = lock_form($fid3, 3);
        my $t = Time::HiRes::time();
        my $code = $inst->api(PATCH => "/v1/forms/$fid3", token => $tok_v, body => { title => "Locked $set" })->code;
        my $took = Time::HiRes::time() - $t;
        waitpid $pid, 0;
        if ($set) { is $code, 503, sprintf 'FormsvcDBTimeout 1: a statement held by a row lock: 503 (%.2f s)', $took }
        else { is $code, 200, sprintf 'FormsvcDBTimeout removed (10 s): the statement waits out the 3 s lock (%.2f s)', $took }
    }],
    [5, 'FormsvcKeyPrefix', sub {
        my $set = shift;
        my ($k) = signup_on();
        like $k, $set ? qr/^tst_/ : qr/^svc_live_/, 'FormsvcKeyPrefix ' . ($set ? 'tst_' : 'removed: svc_live_');
    }],
    [1, 'FormsvcMaxBodyAPI', sub {
        my $set = shift;
        my $c = $inst->api(POST => '/v1/forms', token => $tok_v, body => { title => 'x' x 3000,
            fields => [{ key => 'a', type => 'text', label => 'A' }] })->code;
        if ($set) { is $c, 413, 'FormsvcMaxBodyAPI 2048: a body of 3 KB: 413' }
        else { isnt $c, 413, "FormsvcMaxBodyAPI removed: a body of 3 KB is read ($c)" }
    }],
    [1, 'FormsvcQuota', sub {
        my $set = shift;
        my $q = $inst->api(GET => '/v1/me', token => $tok_u)->{json}{quota};
        is $q->{limits}{forms}{limit}, $set ? 7 : 3, 'FormsvcQuota unverified forms ' . ($set ? '7' : 'removed: 3');
    }],
    [1, 'FormsvcClientSecretPrefix', sub {
        my $set = shift;
        my ($id, $secret) = new_client_on();
        like $secret, $set ? qr/^tstc_/ : qr/^svcc_/,
            'FormsvcClientSecretPrefix ' . ($set ? 'tstc_' : 'removed: svcc_');
        drop_client($id);
    }],
    [1, 'FormsvcTokenLifetime', sub {
        my $set = shift;
        my ($id, $secret) = new_client_on();
        my $t = token_for($id, $secret);
        is $t->code, 200, 'a client_credentials token';
        is $t->{json}{expires_in}, $set ? 120 : 3600, 'FormsvcTokenLifetime ' . ($set ? '120' : 'removed: 3600');
        drop_client($id);
    }],
    [3, 'FormsvcRateLimit', sub {
        my $set = shift;
        # the tokens of this address in the last minute may count (a
        # FormsvcTokenLifetime check just before): under the default (30 a
        # minute) the few of this test pass either way
        my ($id, $secret) = new_client_on();
        # the two tokens within one minute's window (aligned to the clock)
        FormsvcTest::clear_of_boundary(60, 10) if $set;
        my $first = token_for($id, $secret)->code;
        if ($set) {
            like $first, qr/^(200|429)$/, "a token ($first)";
            is token_for($id, $secret)->code, 429, 'FormsvcRateLimit token 1 60: the next in the minute is 429';
        } else {
            is $first, 200, 'a token';
            is token_for($id, $secret)->code, 200, 'FormsvcRateLimit removed (30 a minute): the next is given';
        }
        drop_client($id);
    }],
    [2, 'FormsvcFileMaxJSONBody', sub {
        my $set = shift;
        is submit_json({ blob => file_of(70_000) }), $set ? 413 : 201,
            'FormsvcFileMaxJSONBody ' . ($set ? '65536: a body of 94 KB: 413' : 'removed: a body of 94 KB goes in');
    }],
    [2, 'FormsvcUploadTempDir', sub {
        my $set = shift;
        my $n = count_lines(qr/FS03775/);
        is submit_multipart(300_000), $set ? 503 : 201,
            'FormsvcUploadTempDir ' . ($set ? 'not writable: an upload past memory: 503' : 'removed: the system\'s, the upload goes in');
        is count_lines(qr/FS03775/) - $n, $set ? 1 : 0, $set ? 'said in the log (FS03775)' : 'nothing in the log';
    }],
    [2, 'FormsvcLogRepeatInterval', sub {
        my $set = shift;
        # the same lines again and again in one child: the unwritable spool
        # (group 2), then the full one (group 3)
        my $s0 = metric('formsvc_log_lines_suppressed_total');
        my $re = $set ? qr/FS03775/ : qr/FS03776/;
        my $n = count_lines($re);
        is submit_multipart($set ? 300_000 : 1_500_000), 503, 'an upload the spool cannot take: 503' for 1 .. 3;
        if ($set) {
            is count_lines($re) - $n, 3, 'FormsvcLogRepeatInterval 0: each line written';
            is metric('formsvc_log_lines_suppressed_total') - $s0, 0, 'none suppressed';
        } else {
            is count_lines($re) - $n, 1, 'FormsvcLogRepeatInterval removed (10 s): the line written once';
            cmp_ok metric('formsvc_log_lines_suppressed_total') - $s0, '>=', 2, 'its repeats counted';
        }
    }],
    [2, 'FormsvcMaxBodySubmission', sub {
        my $set = shift;
        # a form without files: its JSON bodies are bounded by FormsvcMaxBodySubmission
        my $c = $inst->api(POST => "/f/$fid2", body => $J->encode({ note => 'y' x 3000 }))->code;
        is $c, $set ? 413 : 201, 'FormsvcMaxBodySubmission ' . ($set ? '2048: 3 KB: 413' : 'removed: 3 KB go in');
    }],
    [2, 'FormsvcVerifyResendInterval', sub {
        my $set = shift;
        # the time of the last verification mail is in the database: within
        # the default 60 s of the one sent while the directive was set, refused
        if ($set) {
            is $inst->api(POST => '/v1/verify/send', token => $tok_u)->code, 202, "FormsvcVerifyResendInterval 0: verification mail $_ sent at once" for 1 .. 2;
        } else {
            is $inst->api(POST => '/v1/verify/send', token => $tok_u)->code, 429,
                'FormsvcVerifyResendInterval removed (60 s): another mail seconds later is 429';
        }
    }],
    [3, 'FormsvcUploadTempMax', sub {
        my $set = shift;
        is submit_multipart(1_500_000), $set ? 503 : 201,
            'FormsvcUploadTempMax ' . ($set ? '1: an upload of 1.5 MB: 503' : 'removed: 1.5 MB go in');
    }],
    [1, 'FormsvcQuota retentionDays', sub {
        my $set = shift;
        my $id = old_submission($fid3, 5);        # of the verified account
        my $kept = old_submission($fid_u, 5);     # of the unverified one
        if ($set) {
            ok wait_for(sub { gone('submissions', $id) }, 20, 'the tier\'s retention'),
                'FormsvcQuota verified retentionDays 3: a verified account\'s submission 5 days old deleted';
        } else {
            ok two_runs(), 'the retention task runs';
            ok !gone('submissions', $id), 'FormsvcQuota verified retentionDays removed (no limit): it is kept';
        }
        ok !gone('submissions', $kept), 'an unverified account\'s submission 5 days old kept';
    }],
    [3, 'FormsvcRetentionMaxDays', sub {
        my $set = shift;
        my $id = old_submission($fid3, 5);
        if ($set) {
            ok wait_for(sub { gone('submissions', $id) }, 20, 'the ceiling'),
                'FormsvcRetentionMaxDays 1: a submission 5 days old of a form without retentionDays deleted';
        } else {
            ok two_runs(), 'the retention task runs';
            ok !gone('submissions', $id), 'FormsvcRetentionMaxDays removed (no ceiling): it is kept';
        }
    }],
    [3, 'FormsvcEventRetentionDays', sub {
        my $set = shift;
        my $id = sprintf 'evt_01ARELOAD%017d', ++$old_n + $$ * 1000;
        FormsvcTest::sql("INSERT INTO events (id, user_id, type, form_id, payload, created_at) VALUES "
            . "('$id', '$uid_v', 'form.published', '$fid3', '{}', now() - interval '3 days')");
        if ($set) {
            ok wait_for(sub { gone('events', $id) }, 20, 'event expiry'),
                'FormsvcEventRetentionDays 2: an event 3 days old deleted';
        } else {
            ok two_runs(), 'the retention task runs';
            ok !gone('events', $id), 'FormsvcEventRetentionDays removed (30): an event 3 days old kept';
        }
    }],
    [3, 'FormsvcFormCacheTTL', sub {
        my $set = shift;
        my $get = sub { $inst->api(GET => "/f/$fid", headers => { Accept => 'text/html' }) };
        my $h0 = hits('form');
        ok wait_for(sub { $get->(); hits('form') > $h0 }, 20, 'a cached public page'), 'the page is cached';
        Time::HiRes::sleep(1.6); # the TTL is the subject
        $h0 = hits('form');
        $get->();
        is hits('form') - $h0, $set ? 0 : 1,
            'FormsvcFormCacheTTL ' . ($set ? '1: expired after 1.6 s' : 'removed (30 s): still served after 1.6 s');
    }],
    [3, 'FormsvcCredentialCacheTTL', sub {
        my $set = shift;
        my $h0 = hits('credential');
        ok wait_for(sub { $inst->api(GET => '/v1/me', token => $tok_v); hits('credential') > $h0 }, 20,
            'a cached credential'), 'the credential is cached';
        Time::HiRes::sleep(1.6); # the TTL is the subject
        $h0 = hits('credential');
        $inst->api(GET => '/v1/me', token => $tok_v);
        is hits('credential') - $h0, $set ? 0 : 1,
            'FormsvcCredentialCacheTTL ' . ($set ? '1: expired after 1.6 s' : 'removed (30 s): still trusted after 1.6 s');
    }],
);

my %covered;
for my $phase (1 .. 6) {
    if ($phase > 1) {
        $inst->reload(conf => $one_child . ($group{$phase} // '') . $no_limits);
        pass "graceful restart: group $phase set, group " . ($phase - 1) . ' removed';
    }
    for my $d (@directives) {
        my ($g, $name, $check) = @$d;
        next unless $g == $phase || $g == $phase - 1;
        subtest "$name " . ($g == $phase ? 'set' : 'removed') => sub { $check->($g == $phase) };
        $covered{$name}++;
    }
}
is scalar(grep { $covered{$_} == 2 } keys %covered), scalar(@directives), 'each directive seen set and removed';

my @crash = grep { /Segmentation fault|Assertion|exit signal|AH00052|AH00060/ } split /\n/, $inst->error_log;
is scalar(@crash), 0, 'no child crashed' or diag join "\n", @crash;
FormsvcTest::sql("DELETE FROM forms WHERE id IN ('$fid', '$fid2', '$fid3', '$fid4', '$fid_u')");
done_testing;
