# Retention: settings.retentionDays, the retention task (the clock is
# moved by setting rows' created_at back in the database, and the task,
# run every second by t/conf/extra.conf.in's FormsvcRetentionInterval 1,
# is waited for), the expiry of events and audit entries, and
# DELETE /v1/forms/{id}/submissions?before= (small sets at once, large sets
# in the background with a submissions.deleted event).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();

my ($tok) = signup();
my ($other) = signup();
my $uid = user_of($tok);

sub lit { my $s = shift; $s =~ s/'/''/g; "'$s'" }
sub count_of { psql("SELECT count(*) FROM $_[0]") }

# ---- settings.retentionDays ---------------------------------------------------
my $keep = make_form($tok, { title => 'Kept 30 days', settings => { retentionDays => 30 },
                             fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
is $keep->{settings}{retentionDays}, 30, 'settings.retentionDays shown in the form';
my $fid = $keep->{id};
for my $bad ([0, 'minimum'], [3651, 'maximum'], ['30', 'type'], [1.5, 'type']) {
    my $r = api(POST => '/v1/forms', token => $tok,
                body => { title => 'Bad', settings => { retentionDays => $bad->[0] } });
    problem_ok($r, 422, 'validation-failed', "retentionDays $bad->[0]: 422");
    is $r->{json}{errors}[0]{pointer}, '/settings/retentionDays', "retentionDays $bad->[0]: pointer";
    is $r->{json}{errors}[0]{code}, $bad->[1], "retentionDays $bad->[0]: $bad->[1]";
}
my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'Null', settings => { retentionDays => undef } });
is $r->code, 201, 'retentionDays null: 201';
ok !exists $r->{json}{settings}{retentionDays}, 'retentionDays null: absent';
my $plain = $r->{json}{id};
$r = api(GET => '/openapi.json');
ok $r->{json}{components}{schemas}{Settings}{properties}{retentionDays}, 'OpenAPI: Settings.retentionDays';

# ---- the retention task -----------------------------------------------------
# In the 30-day form: one submission 40 days old with a file (two chunks),
# a pending mail job and an event carrying its answers; one 10 days old.
# In a form without retention: one 40 days old.
my $old = insert_submission($fid, { name => 'old' });
my $recent = insert_submission($fid, { name => 'recent' });
my $spam = insert_submission($fid, { name => 'spam' }, spam => 1);
my $untouched = insert_submission($plain, { name => 'elsewhere' });
my $file = fresh_id('fil_');
psql("INSERT INTO submission_files (id, submission_id, user_id, field_key, name, content_type, size, chunks) "
   . "VALUES (" . lit($file) . ", " . lit($old) . ", " . lit($uid) . ", 'doc', 'a.pdf', 'application/pdf', 10, 2);"
   . "INSERT INTO submission_file_chunks (file_id, seq, data) VALUES (" . lit($file) . ", 0, '\\x01'), ("
   . lit($file) . ", 1, '\\x02');"
   . "INSERT INTO mail_jobs (kind, form_id, submission_id, leased_until) VALUES ('each', " . lit($fid) . ", "
   . lit($old) . ", now() + interval '1 hour');" # leased: the mail worker leaves it alone
   . "INSERT INTO events (id, user_id, type, form_id, submission_id, payload) VALUES ("
   . lit(fresh_id('evt_')) . ", " . lit($uid) . ", 'submission.created', " . lit($fid) . ", " . lit($old)
   . ", '{\"data\": {\"name\": \"old\"}}')");
# two versions of its answers (an edit after sending, sql/0065)
psql("INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version, data, created_at) "
   . "SELECT id, v, form_id, user_id, form_version, data, created_at FROM submissions, generate_series(1, 2) v "
   . "WHERE id IN (" . lit($old) . ", " . lit($recent) . ")");
is count_of("submission_file_chunks WHERE file_id = " . lit($file)), 2, 'the file is stored';
is count_of("mail_jobs WHERE submission_id = " . lit($old)), 1, 'the mail job is pending';
# the clock moved: every age set in one statement, after the rows exist
psql("UPDATE submissions SET created_at = now() - CASE id WHEN " . lit($old) . " THEN interval '40 days' "
   . "WHEN " . lit($recent) . " THEN interval '10 days' WHEN " . lit($spam) . " THEN interval '41 days' "
   . "ELSE interval '400 days' END WHERE id IN (" . join(', ', map { lit($_) } $old, $recent, $spam, $untouched) . ")");

ok wait_for(sub { count_of("submissions WHERE id IN (" . lit($old) . ", " . lit($spam) . ")") == 0 }, 30,
            'the retention task'), 'submissions past retentionDays deleted (spam too)';
is count_of("submissions WHERE id = " . lit($recent)), 1, 'a newer submission of the form kept';
is count_of("submissions WHERE id = " . lit($untouched)), 1, 'a form without retention untouched';
is count_of("submission_files WHERE id = " . lit($file)), 0, 'its file deleted';
is count_of("submission_file_chunks WHERE file_id = " . lit($file)), 0, 'the file\'s chunks deleted';
is count_of("mail_jobs WHERE submission_id = " . lit($old)), 0, 'its pending mail job deleted';
is count_of("submission_versions WHERE submission_id = " . lit($old)), 0, 'its versions deleted';
is count_of("submission_versions WHERE submission_id = " . lit($recent)), 2, 'the newer one\'s kept';
my $payload = psql("SELECT payload::text FROM events WHERE submission_id = " . lit($old));
unlike $payload, qr/"name"/, 'its event keeps no answers';
like $payload, qr/"deleted": true/, 'its event says the submission was deleted';
ok wait_for(sub { count_of("audit WHERE form_id = " . lit($fid) . " AND action = 'submissions.expired'") == 1 },
            10, 'the audit entry'), 'one audit entry for the run and form';
is psql("SELECT count FROM audit WHERE form_id = " . lit($fid) . " AND action = 'submissions.expired'"), 2,
   'the audit entry counts both submissions';
$r = api(GET => '/v1/audit?limit=100', token => $tok);
my ($entry) = grep { $_->{action} eq 'submissions.expired' } @{ $r->{json}{data} || [] };
is $entry && $entry->{count}, 2, 'GET /v1/audit shows the entry with its count';
is $entry && $entry->{actor}, 'formsvc', 'the server is its actor';
ok wait_for(sub { (api(GET => "/v1/forms/$fid", token => $tok)->{json}{submissionCount} // -1) == 1 }, 10,
            'submissionCount'), 'submissionCount drops by the non-spam one';
psql("UPDATE submissions SET created_at = now() - interval '29 days' WHERE id = " . lit($recent));
is count_of("submissions WHERE id = " . lit($recent)), 1, 'a 29-day-old submission kept';

# a lower retentionDays applies on the next run
$r = api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => { retentionDays => 20 } },
         headers => { 'Content-Type' => 'application/merge-patch+json' });
is $r->code, 200, 'retentionDays lowered to 20';
ok wait_for(sub { count_of("submissions WHERE id = " . lit($recent)) == 0 }, 30, 'the next run'),
   'the 29-day-old submission goes at 20 days';

# ---- events and audit entries expire -----------------------------------------
my ($ev_old, $ev_new, $au_old, $au_new) = map { fresh_id($_) } qw(evt_ evt_ aud_ aud_);
psql("INSERT INTO events (id, user_id, type, form_id, payload, created_at) VALUES "
   . "(" . lit($ev_old) . ", " . lit($uid) . ", 'form.published', " . lit($plain) . ", '{}', now() - interval '31 days'), "
   . "(" . lit($ev_new) . ", " . lit($uid) . ", 'form.published', " . lit($plain) . ", '{}', now() - interval '29 days');"
   . "INSERT INTO audit (id, user_id, action, created_at) VALUES "
   . "(" . lit($au_old) . ", " . lit($uid) . ", 'key.created', now() - interval '366 days'), "
   . "(" . lit($au_new) . ", " . lit($uid) . ", 'key.created', now() - interval '364 days')");
ok wait_for(sub { count_of("events WHERE id = " . lit($ev_old)) == 0 }, 30, 'event expiry'),
   'an event older than FormsvcEventRetentionDays (30) deleted';
is count_of("events WHERE id = " . lit($ev_new)), 1, 'a 29-day-old event kept';
ok wait_for(sub { count_of("audit WHERE id = " . lit($au_old)) == 0 }, 30, 'audit expiry'),
   'an audit entry older than FormsvcAuditRetentionDays (365) deleted';
is count_of("audit WHERE id = " . lit($au_new)), 1, 'a 364-day-old audit entry kept';

# ---- DELETE /v1/forms/{id}/submissions?before= ------------------------------
my $bulk = make_form($tok, { title => 'Bulk', fields => [ { key => 'n', type => 'text', label => 'N' } ] })->{id};
my @gone = map { insert_submission($bulk, { n => "$_" }) } 1 .. 5;
psql("UPDATE submissions SET created_at = '2026-01-01T00:00:00Z' WHERE form_id = " . lit($bulk));
my @kept = map { insert_submission($bulk, { n => "k$_" }) } 1 .. 2;

problem_ok(api(DELETE => "/v1/forms/$bulk/submissions", token => $tok), 422, 'validation-failed',
           'no before: 422');
$r = api(DELETE => "/v1/forms/$bulk/submissions?before=yesterday", token => $tok);
problem_ok($r, 422, 'validation-failed', 'before=yesterday: 422');
is $r->{json}{errors}[0]{pointer}, '/before', 'the error points at before';
problem_ok(api(DELETE => "/v1/forms/$bulk/submissions?before=%FF", token => $tok), 400, 'malformed-request',
           'before not UTF-8: 400');
problem_ok(api(DELETE => "/v1/forms/$bulk/submissions?before=2026-02-01T00:00:00Z", token => $other), 404,
           'not-found', "another account's form: 404");
is count_of("submissions WHERE form_id = " . lit($bulk)), 7, 'nothing deleted by the refused calls';

$r = api(DELETE => "/v1/forms/$bulk/submissions?before=2026-02-01T00:00:00Z", token => $tok);
is $r->code, 200, 'a small set: 200';
is $r->{json}{deleted}, 5, 'the count of deleted submissions';
is count_of("submissions WHERE form_id = " . lit($bulk)), 2, 'the newer ones kept';
is api(GET => "/v1/forms/$bulk", token => $tok)->{json}{submissionCount}, 2, 'submissionCount 2';
$r = api(GET => '/v1/events?type=submissions.deleted', token => $tok);
my ($ev) = grep { ($_->{formId} // '') eq $bulk } @{ $r->{json}{data} || [] };
is $ev && $ev->{data}{count}, 5, 'a submissions.deleted event with the count';
is $ev && $ev->{data}{before}, '2026-02-01T00:00:00.000Z', 'the event names the time';

# a large set: 1,500 rows, deleted by the task
psql("INSERT INTO submissions (id, form_id, user_id, form_version, data, created_at) "
   . "SELECT 'sub_01BULK' || lpad(g::text, 20, '0'), f.id, f.user_id, f.version, '{}', '2025-06-01T00:00:00Z' "
   . "FROM forms f, generate_series(1, 1500) g WHERE f.id = " . lit($bulk));
$r = api(DELETE => "/v1/forms/$bulk/submissions?before=2026-01-01T00:00:00%2B00:00", token => $tok);
is $r->code, 202, 'a large set: 202';
my $pid = $r->{json}{purgeId} // '';
like $pid, qr/^prg_/, 'with the id of the bulk delete';
my $done = wait_for(sub {
    my $e = api(GET => '/v1/events?type=submissions.deleted', token => $tok)->{json};
    my ($x) = grep { ($_->{data}{purgeId} // '') eq $pid } @{ $e->{data} || [] };
    $x }, 60, 'the submissions.deleted event of the bulk delete');
ok $done, 'the task finished it with an event';
is $done && $done->{data}{count}, 1500, 'the event counts 1500';
is count_of("submissions WHERE form_id = " . lit($bulk)), 2, 'the newer ones still kept';
is psql("SELECT count FROM audit WHERE action = 'submissions.deleted' AND actor = 'formsvc' AND form_id = "
        . lit($bulk)), 1500, 'an audit entry with the count';
is count_of("submission_purges WHERE id = " . lit($pid) . " AND finished_at IS NOT NULL"), 1,
   'the bulk delete is finished';

# ---- the same through MCP ------------------------------------------------------
insert_submission($bulk, { n => 'mcp' });
psql("UPDATE submissions SET created_at = '2026-01-01T00:00:00Z' WHERE form_id = " . lit($bulk)
   . " AND data->>'n' = 'mcp'");
$r = api(POST => '/mcp', token => $tok,
         body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                   params => { name => 'delete_submissions_before',
                               arguments => { formId => $bulk, before => '2026-02-01T00:00:00Z' } } },
         headers => { Accept => 'application/json, text/event-stream' });
my $res = $r->{json}{result} || {};
ok !$res->{isError}, 'MCP delete_submissions_before: not an error' or diag $r->content;
is $res->{structuredContent}{deleted}, 1, 'MCP delete_submissions_before: the count';
is count_of("submissions WHERE form_id = " . lit($bulk)), 2, 'MCP: the newer ones kept';

done_testing;
