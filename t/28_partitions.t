# Migrations 0045 and 0046 (and 0053, submission_file_chunks) on a
# database holding rows: submissions (some
# with files), events, deliveries, spread over six months, made at the
# schema before 0045 with ids that begin with their time (fs_id_time, as
# the module makes them). After migrating: the same rows (count and a hash
# of each table), none twice, the three tables partitioned, the lists and
# the event feed answering as before through the API (a private httpd on
# that database), new rows in the partition of their id's time, and the
# tally worker's partitions task making the months ahead again when they
# are missing (FormsvcRetentionInterval 1), idempotently. The migration
# runs while the previous release's module (scripts/prev-release) takes
# public submissions from two clients: each is answered 201 and stored
# once (the swaps give way to requests rather than deadlock with them).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql signup);
use File::Temp qw(tempdir);
use File::Copy qw(copy);
use MIME::Base64 ();
use JSON::PP ();

delete $ENV{LD_PRELOAD};  # no sanitizer runtime in psql (make test-asan)
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
my $db = "formsvc_partitions_$$";
sub dbq { psql($_[0], db => $db) }
sub migrate {
    my $dir = shift;
    system('bash', "$root/scripts/formsvc-admin", '--sql-dir', $dir, 'migrate', '--', '-h', $ENV{FORMSVC_PGSOCK},
           '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres', $db) == 0 or die 'migrate';
}
psql("CREATE DATABASE $db", db => 'postgres');
END { eval { psql("DROP DATABASE IF EXISTS $db WITH (FORCE)", db => 'postgres') } }

# ---- the schema before 0045, with rows --------------------------------------
my $before = tempdir(CLEANUP => 1);
copy($_, $before) or die for grep { /\/(\d{4})_[^\/]*$/ && $1 < 45 } glob "$root/sql/[0-9][0-9][0-9][0-9]_*.sql";
migrate($before);
is dbq("SELECT max(version) FROM schema_migrations"), 44, 'a database at schema 44';

# an account of the suite's server (signed up there), copied with its key:
# the same pepper, so the key works on the private httpd too
my ($tok, $acct) = signup();
my $uid = $acct->{user}{id};
for my $t (qw(users keys)) {
    my $col = $t eq 'users' ? 'id' : 'user_id';
    my $rows = psql("SELECT json_agg(x)::text FROM $t x WHERE $col = '$uid'");
    $rows =~ s/'/''/g;
    dbq("INSERT INTO $t SELECT * FROM json_populate_recordset(NULL::$t, '$rows')");
}
# two published forms; 30 submissions each, one every six days back from
# now; a file (two chunks) for every third; a submission.created event for
# each (and a delivery for every fifth); ids from each row's time
dbq(<<"SQL");
INSERT INTO forms (id, user_id, title, status, fields, published_at)
SELECT 'frm_' || fs_id_time(now()) || '000000000000000' || g, '$uid', 'Form ' || g, 'published',
       '[{"key":"name","type":"text","label":"Name","position":0}]', now()
FROM generate_series(1, 2) g;
INSERT INTO webhooks (id, user_id, url, events, secret, enabled)
VALUES ('whk_' || fs_id_time(now()) || '0000000000000000', '$uid', 'https://example.com/h',
        ARRAY['submission.created'], 'x', false);
CREATE TEMP TABLE r AS
SELECT g, f.id AS form_id, now() - (g * 6) * interval '1 day' - (f.n * 7) * interval '1 minute' AS t,
       upper(substr(md5(g || f.id), 1, 16)) AS rnd
FROM generate_series(0, 29) g,
     (SELECT id, row_number() OVER (ORDER BY id) AS n FROM forms WHERE user_id = '$uid') f;
INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at)
SELECT 'sub_' || fs_id_time(t) || rnd, form_id, '$uid', 1, jsonb_build_object('name', 'Person ' || g), false, t
FROM r;
INSERT INTO submission_files (id, submission_id, user_id, field_key, name, content_type, size, chunks, created_at)
SELECT 'fil_' || fs_id_time(t + interval '1 second') || rnd, 'sub_' || fs_id_time(t) || rnd, '$uid', 'doc',
       'a.pdf', 'application/pdf', 2, 2, t
FROM r WHERE g % 3 = 0;
INSERT INTO submission_file_chunks (file_id, seq, data)
SELECT id, s, '\\x01' FROM submission_files, generate_series(0, 1) s;
INSERT INTO events (id, user_id, type, form_id, submission_id, payload, created_at)
SELECT 'evt_' || fs_id_time(t) || rnd, '$uid', 'submission.created', form_id, 'sub_' || fs_id_time(t) || rnd,
       jsonb_build_object('id', 'sub_' || fs_id_time(t) || rnd, 'data', jsonb_build_object('name', 'Person ' || g)),
       -- created_at within the last 30 days, while the id (which places
       -- the row) keeps its month: the previous release's module, running
       -- through the migration, sweeps events older than 30 days by
       -- created_at half a minute after it starts, and a slow machine's
       -- test outlives that
       now() - (g % 20) * interval '1 day'
FROM r;
INSERT INTO deliveries (id, webhook_id, event_id, status, done_at)
SELECT 'dlv_' || fs_id_time(t) || rnd, (SELECT id FROM webhooks WHERE user_id = '$uid'), 'evt_' || fs_id_time(t) || rnd, 'succeeded', now()
FROM r WHERE g % 5 = 0;
SQL
my @tables = qw(submissions submission_files submission_file_chunks events deliveries);
my %key = (submission_file_chunks => 'file_id, seq');
# (the rows made here: the previous release's submissions during the
# migration, names k1, k2, are left out)
my %made_here = (submissions => "x.data->>'name' LIKE 'Person %'",
                 events => "x.payload->'data'->>'name' LIKE 'Person %'");
sub digest {
    my $t = shift;
    my $k = $key{$t} // 'id';
    my $w = $made_here{$t} // 'true';
    dbq("SELECT count(*) || ' ' || md5(COALESCE(string_agg(x::text, ',' ORDER BY $k), '')) FROM $t x WHERE $w");
}
my %was = map { $_ => digest($_) } @tables;
is((split ' ', $was{submissions})[0], 60, '60 submissions');
is((split ' ', $was{submission_files})[0], 20, '20 files');
my @forms = split /\n/, dbq("SELECT id FROM forms WHERE user_id = '$uid' ORDER BY id");
# what the API answered before: each form's list (newest first), the feed
# (oldest first, in (xid, id) order)
my %list = map { $_ => [ split /\n/, dbq("SELECT fs_submission_json(s)::jsonb::text FROM submissions s WHERE form_id = '$_' ORDER BY id DESC") ] } @forms;
my @feed = split /\n/, dbq("SELECT id FROM events WHERE user_id = '$uid' ORDER BY xid, id");
my %was_event = map { $_ => 1 } @feed;
is scalar @feed, 60, '60 events';
my $months = dbq("SELECT count(DISTINCT date_trunc('month', created_at)) FROM submissions");
cmp_ok $months, '>=', 6, "over $months months";

# ---- migrate, while the previous release serves public submissions ----------
# (a rolling upgrade: 0.2.0 on this database through the migration, two
# clients submitting to one form all along; each 201 must be stored once)
my ($prev) = `bash "$root/scripts/prev-release" commit 2>&1`;
my ($prevmod, $stop);
if ($? >> 8 == 3) {
    note "no previous release to run beside the migration: $prev";
} else {
    die "prev-release: $prev" if $?;
    my ($tree) = `bash "$root/scripts/prev-release" build`;
    die 'the previous release did not build' if $? || !$tree;
    chomp $tree;
    $prevmod = FormsvcInstance->start(name => 'partitions-prev', db => $db, module => "$tree/build/mod_formsvc.so",
                                  source => $tree, conf => "FormsvcRateLimit submit off\nFormsvcQuota unverified submissions 1000000\n");
    $stop = FormsvcInstance->submitters(2, $prevmod->url . "/f/$forms[0]");
    FormsvcTest::wait_for(sub { dbq("SELECT count(*) FROM submissions WHERE data->>'name' LIKE 'k%'") >= 5 }, 20,
                          'submissions through the previous release');
}
my $live_before = dbq("SELECT count(*) FROM submissions WHERE data->>'name' LIKE 'k%'");
# to 46 exactly: the migrations after it (new columns, triggers) are not
# the subject here; the API below runs on the whole schema
my $to46 = tempdir(CLEANUP => 1);
copy($_, $to46) or die for grep { /\/(\d{4})_[^\/]*$/ && $1 <= 46 } glob "$root/sql/[0-9][0-9][0-9][0-9]_*.sql";
migrate($to46);
if ($stop) {
    FormsvcTest::wait_for(sub { dbq("SELECT count(*) FROM submissions WHERE data->>'name' LIKE 'k%'") >= $live_before + 20 },
                          20, 'submissions after the migration');
    my ($ok, $bad) = $stop->();
    cmp_ok $ok, '>', $live_before, "the previous release stored $ok submissions before, during and after the migration";
    is $bad, 0, 'and answered every one with a 201';
    is dbq("SELECT count(*) FROM submissions WHERE data->>'name' LIKE 'k%'"), $ok, 'each stored once';
    is dbq("SELECT count(*) FROM events WHERE type = 'submission.created' AND payload->'data'->>'name' LIKE 'k%'"), $ok,
        'with its event';
    unlike $prevmod->error_log, qr/\[(?:[a-z_]*:)?(?:error|crit|alert|emerg)\]/, 'the previous release logged no error';
    $prevmod->stop;
}
is dbq("SELECT max(version) FROM schema_migrations"), 46, 'migrated to 46';
for my $t (@tables) {
    is digest($t), $was{$t}, "$t: the same rows (count and hash)";
}
for my $t (qw(submissions submission_files events)) {
    is dbq("SELECT count(*) - count(DISTINCT id) FROM $t"), 0, "$t: no row twice";
    is dbq("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = '$t'::regclass"), 1, "$t is partitioned";
    is dbq("SELECT count(*) FROM $t x WHERE x.tableoid <> '${t}_before'::regclass"), 0,
        "$t: every row in the first partition (today's table, attached)";
    my $parts = dbq("SELECT count(*) FROM pg_inherits WHERE inhparent = '$t'::regclass");
    cmp_ok $parts, '>=', 2, "$t: the first partition and the months ahead ($parts)";
    is dbq("SELECT count(*) FROM pg_constraint WHERE NOT convalidated AND contype = 'f' AND (conrelid = '$t'::regclass OR confrelid = '$t'::regclass)"),
        0, "$t: every foreign key from or to it validated";
}
is dbq("SELECT count(*) FROM pg_inherits WHERE inhparent = 'submissions'::regclass AND inhrelid::regclass::text = 'submissions_' || to_char(now() AT TIME ZONE 'UTC' + interval '3 months', 'YYYY_MM')"),
    1, 'the partition of three months ahead exists';
is dbq("SELECT count(*) FROM pg_proc WHERE proname IN ('fs_submission_json', 'fs_event_json')"), 2,
    'the functions on the row types, once each';

# ---- the API on the migrated database ------------------------------------------
migrate("$root/sql");   # the migrations after 46, which the module needs
# 0053: the chunks partitioned as the files are (the rows as they were)
is digest('submission_file_chunks'), $was{submission_file_chunks}, 'after 0053, submission_file_chunks: the same rows';
is dbq("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = 'submission_file_chunks'::regclass"), 1,
    'submission_file_chunks is partitioned';
is dbq("SELECT count(*) FROM submission_file_chunks x WHERE x.tableoid <> 'submission_file_chunks_before'::regclass"), 0,
    'submission_file_chunks: every row in the first partition (today\'s table, attached)';
is dbq("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = 'submission_file_chunks'::regclass AND convalidated AND confrelid = 'submission_files'::regclass"),
    1, 'submission_file_chunks: its foreign key to the files, on the parent, validated';
is dbq("SELECT count(*) FROM pg_inherits WHERE inhparent = 'submission_file_chunks'::regclass AND inhrelid::regclass::text = 'submission_file_chunks_' || to_char(now() AT TIME ZONE 'UTC' + interval '3 months', 'YYYY_MM')"),
    1, 'submission_file_chunks: the partition of three months ahead exists';
is dbq("SELECT count(*) || ' ' || count(*) FILTER (WHERE a.attstorage <> 'e') FROM pg_attribute a "
       . "JOIN pg_class c ON c.oid = a.attrelid WHERE a.attname = 'data' AND c.relname LIKE 'submission_file_chunks%'"),
    dbq("SELECT count(*) + 1 FROM pg_inherits WHERE inhparent = 'submission_file_chunks'::regclass") . ' 0',
    'the chunks stored EXTERNAL (no pglz) in the parent and every partition';
my $inst = FormsvcInstance->start(name => 'partitions', db => $db,
                                  conf => "FormsvcRetentionInterval 1\nFormsvcEventRetentionDays 3650\n"
                                        . "FormsvcQuota unverified submissions 1000000\n"
                                        . "FormsvcQuota unverified requests 1000000\n");
my $js = JSON::PP->new->canonical;
for my $i (0, 1) {
    my ($f, @got, $cursor) = ($forms[$i]);
    for (1 .. 100) {
        my $r = $inst->api(GET => "/v1/forms/$f/submissions?limit=100" . ($cursor ? "&cursor=$cursor" : ''), token => $tok);
        is $r->code, 200, "form $i: a page" if !$cursor;
        push @got, grep { ($_->{data}{name} // '') =~ /^Person / } @{ $r->{json}{data} || [] };
        last unless $cursor = $r->{json}{nextCursor};
    }
    is_deeply [ map { $_->{id} } @got ], [ map { $js->decode($_)->{id} } @{ $list{$f} } ],
        "form $i: the same submissions, newest first, page after page";
    is_deeply [ map { $_->{data} } @got ], [ map { $js->decode($_)->{data} } @{ $list{$f} } ], "form $i: the same answers";
}
my $r = $inst->api(GET => "/v1/forms/$forms[0]/submissions?since=" . dbq("SELECT fs_ts(now() - interval '100 days')")
                   . '&until=' . dbq("SELECT fs_ts(now() - interval '40 days')") . '&limit=100', token => $tok);
is scalar @{ $r->{json}{data} || [] }, dbq("SELECT count(*) FROM submissions WHERE form_id = '$forms[0]' AND created_at >= now() - interval '100 days' AND created_at < now() - interval '40 days'"),
    'since/until: the submissions of the window';
sub feed {
    my ($after, @ids) = @_;
    for (1 .. 100) {
        my $r = $inst->api(GET => '/v1/events?limit=100' . ($after ? "&after=$after" : ''), token => $tok);
        $r->code == 200 or diag 'GET /v1/events: ' . $r->code . ' ' . $r->content;
        push @ids, grep { $was_event{$_} } map { $_->{id} } @{ $r->{json}{data} || [] };
        last unless $r->{json}{hasMore};
        $after = $r->{json}{nextCursor};
    }
    return \@ids;
}
is_deeply feed(), \@feed, 'the event feed: the same events in the same order';
my $old = MIME::Base64::encode_base64url("events:$feed[9]");
is_deeply feed($old), [ @feed[10 .. $#feed] ], 'from an old cursor: the events after it';

# the feed from a cursor leaves out the partitions older than a day before it
my $ahead = dbq("SELECT 'evt_' || fs_id_time(now() + interval '2 months') || '0000000000000000'");
my $plan = dbq("EXPLAIN (COSTS OFF) SELECT id FROM events e WHERE e.id >= fs_id_since('evt_', fs_id_at('$ahead'))");
unlike $plan, qr/events_before/, 'a cursor two months ahead: the first partition pruned';

# ---- new rows ----------------------------------------------------------------------
$r = $inst->api(POST => "/f/$forms[0]", body => { name => 'after the migration' });
is $r->code, 201, 'a public submission';
my $sid = $r->{json}{id};
is dbq("SELECT tableoid::regclass FROM submissions WHERE id = '$sid'"), 'submissions_before',
    'lands in the first partition (today\'s table takes ids up to the month after next)';
my $later = dbq("SELECT 'sub_' || fs_id_time(now() + interval '2 months') || '0000000000000001'");
dbq("INSERT INTO submissions (id, form_id, user_id, form_version, data) VALUES ('$later', '$forms[0]', '$uid', 1, '{}')");
is dbq("SELECT tableoid::regclass FROM submissions WHERE id = '$later'"),
    dbq("SELECT 'submissions_' || to_char(now() AT TIME ZONE 'UTC' + interval '2 months', 'YYYY_MM')"),
    'an id two months ahead: in the partition of its month';
is dbq("SELECT count(*) FROM events WHERE submission_id = '$sid'"), 1, 'and its event stored';
is $inst->api(GET => "/v1/forms/$forms[0]/submissions/$sid", token => $tok)->code, 200, 'read back by id';
# a file of the migrated rows, read from the first partition of the chunks
my ($oldsub, $oldfile) = split /\|/, dbq("SELECT submission_id || '|' || id FROM submission_files ORDER BY id LIMIT 1");
$r = $inst->api(GET => "/v1/forms/" . dbq("SELECT form_id FROM submissions WHERE id = '$oldsub'")
                       . "/submissions/$oldsub/files/$oldfile", token => $tok);
is $r->code, 200, 'a file stored before the migrations: downloaded';
is $r->content, "\x01\x01", 'its two chunks, in order';
# a file of the submission two months ahead: its chunks in their month
my $laterfile = dbq("SELECT 'fil_' || fs_id_time(now() + interval '2 months') || '0000000000000001'");
dbq("INSERT INTO submission_files (id, submission_id, user_id, field_key, name, content_type, size, chunks) "
    . "VALUES ('$laterfile', '$later', '$uid', 'doc', 'b.pdf', 'application/pdf', 2, 2); "
    . "INSERT INTO submission_file_chunks (file_id, seq, data) VALUES ('$laterfile', 0, '\\x02'), ('$laterfile', 1, '\\x03')");
is dbq("SELECT string_agg(DISTINCT tableoid::regclass::text, ',') FROM submission_file_chunks WHERE file_id = '$laterfile'"),
    dbq("SELECT 'submission_file_chunks_' || to_char(now() AT TIME ZONE 'UTC' + interval '2 months', 'YYYY_MM')"),
    'the chunks of a file two months ahead: in the partition of its month';
like dbq("EXPLAIN (COSTS OFF) SELECT data FROM submission_file_chunks WHERE file_id = '$laterfile' AND seq = 0"),
    qr/\A(?!.*submission_file_chunks_before).*submission_file_chunks_\d{4}_\d{2}/s, 'a chunk read by its file id: one partition';
is $inst->api(DELETE => "/v1/forms/$forms[0]/submissions/$later", token => $tok)->code, 204,
    'deleted by id from its partition';
is dbq("SELECT count(*) FROM submission_file_chunks WHERE file_id = '$laterfile'"), 0,
    'with its file\'s chunks (the cascade into their partition)';

# ---- the partitions task -------------------------------------------------------
my $last = dbq("SELECT to_char(now() AT TIME ZONE 'UTC' + interval '3 months', 'YYYY_MM')");
# (empty, detached first: the foreign keys to the parents depend on them)
# (the server's workers run beside this DDL: it waits 200 ms at most for a
# lock and tries again, as the partitions task does, so that no worker's
# statement is ever the victim of a deadlock with it)
ok FormsvcTest::wait_for(sub {
    eval {
        dbq("BEGIN; SET LOCAL lock_timeout = '200ms'; "
            . join('; ', map { "ALTER TABLE $_ DETACH PARTITION ${_}_$last; DROP TABLE ${_}_$last" }
                   qw(submission_file_chunks submission_files events submissions))
            . "; COMMIT");
        1;
    } }, 20, 'the months dropped'), 'three months ahead dropped by hand';
ok FormsvcTest::wait_for(sub { dbq("SELECT count(*) FROM pg_class WHERE relname IN ('submissions_$last', 'submission_files_$last', 'events_$last', 'submission_file_chunks_$last')") == 4 },
                         20, 'the partitions task'), 'the worker made the missing months again';
# a call of the task: 1 made a partition, 0 nothing to make, -1 the
# server's own partitions task (running beside) held the lock: asked again
sub ahead {
    my ($at) = @_;
    my $r;
    FormsvcTest::wait_for(sub { ($r = dbq("SELECT fs_partitions_ahead(3, $at)")) != -1 }, 20,
                          'the partitions lock');
    return $r;
}
is ahead('now()'), 0, 'run again: nothing to make';
# the clock moved half a year: the months up to three past it, once
my $made = 0; # (a partition a call)
$made++ while $made < 40 && ahead("now() + interval '6 months'") == 1;
cmp_ok $made, '>=', 9, "half a year on: the months ahead made ($made)";
is ahead("now() + interval '6 months'"), 0, 'and not again';
my $far = dbq("SELECT 'evt_' || fs_id_time(now() + interval '9 months') || '0000000000000002'");
dbq("INSERT INTO events (id, user_id, type, payload) VALUES ('$far', '$uid', 'form.published', '{}')");
is dbq("SELECT tableoid::regclass FROM events WHERE id = '$far'"),
    dbq("SELECT 'events_' || to_char(now() AT TIME ZONE 'UTC' + interval '9 months', 'YYYY_MM')"),
    'an event nine months ahead in its month';
my $beyond = dbq("SELECT 'evt_' || fs_id_time(now() + interval '2 years') || '0000000000000002'");
like dbq("CREATE FUNCTION pg_temp.try_insert() RETURNS text LANGUAGE plpgsql AS \$\$ BEGIN "
         . "INSERT INTO events (id, user_id, type, payload) VALUES ('$beyond', '$uid', 'form.published', '{}'); "
         . "RETURN 'stored'; EXCEPTION WHEN OTHERS THEN RETURN SQLERRM; END \$\$; SELECT pg_temp.try_insert()"),
    qr/no partition of relation "events" found for row/, 'an id beyond every partition is refused (no DEFAULT partition)';

unlike $inst->error_log, qr/\[(?:[a-z_]*:)?(?:error|crit|alert|emerg|warn)\]/, 'the private httpd logged no warning or error';
$inst->stop;
done_testing;
