# The partitions task drops the partitions retention emptied (sql/0054):
# on a database partitioned five months ago (its first partitions ending
# five months ago, as an installation migrated then has them), with
# the months since made and rows in some of them, a private httpd's tally
# worker (FormsvcRetentionInterval 1) detaches and drops exactly the empty
# partitions whose months ended at least a month ago, one FS02186 line
# each; the old months holding a row, the last month, the current and
# future ones and the first partitions holding rows stay, and every row
# is still there. A reader holding a month makes the task give way
# (FS02187) and drop it at a later run. Condition waits only.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql);

delete $ENV{LD_PRELOAD};  # no sanitizer runtime in psql (make test-asan)
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
my $db = "formsvc_partdrop_$$";
sub dbq { psql($_[0], db => $db) }
sub migrate {
    system('bash', "$root/scripts/formsvc-admin", '--sql-dir', "$root/sql", 'migrate', '--', '-h', $ENV{FORMSVC_PGSOCK},
           '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres', $db) == 0 or die 'migrate';
}
psql("CREATE DATABASE $db", db => 'postgres');
END { eval { psql("DROP DATABASE IF EXISTS $db WITH (FORCE)", db => 'postgres') } }

# ---- a database partitioned five months ago ---------------------------------
# (migrated today, then its first partitions, empty, made again with the
# bound a migration five months ago would have given them: one migration
# run instead of three)
migrate();
dbq(<<'SQL');
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['submission_file_chunks', 'submission_files', 'events', 'submission_versions', 'submissions'] LOOP
        EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', t, t || '_before');
        EXECUTE format('DROP TABLE %I', t || '_before');
    END LOOP;
    UPDATE partition_plan
       SET bound = prefix || fs_id_time((date_trunc('month', now() AT TIME ZONE 'UTC') - interval '5 months') AT TIME ZONE 'UTC');
    FOREACH t IN ARRAY ARRAY['submissions', 'events', 'submission_files', 'submission_file_chunks', 'submission_versions'] LOOP
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)',
                       t || '_before', t);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', t, t || '_before',
                       (SELECT bound FROM partition_plan WHERE tbl = t));
    END LOOP;
END $$;
SQL
# the months since the first partition's bound, as the task made them then
for my $k (reverse 0 .. 5) {
    1 while dbq("SELECT fs_partitions_ahead(3, now() - interval '$k months')") == 1;
}
my %mon = map { $_ => dbq("SELECT to_char(now() AT TIME ZONE 'UTC' + interval '$_ months', 'YYYY_MM')") } -5 .. 3;
my %t = map { $_ => dbq("SELECT fs_id_time(date_trunc('month', now() AT TIME ZONE 'UTC' + interval '$_ months') AT TIME ZONE 'UTC' + interval '10 days')") } -7, -4, -3;
my @tables = qw(submission_file_chunks submission_files events submissions submission_versions);
for my $tb (@tables) {
    is dbq("SELECT count(*) FROM pg_class WHERE relname IN (" . join(', ', map { "'${tb}_$mon{$_}'" } -5 .. 3) . ")"), 9,
        "$tb: the months from five ago to three ahead";
}

# rows: in the first partitions (seven months ago), a submission with a
# file in the month three ago, an event in the month four ago
dbq(<<"SQL");
INSERT INTO users (id, email, email_norm) VALUES ('usr_pd', 'pd\@example.org', 'pd\@example.org');
INSERT INTO forms (id, user_id, title) VALUES ('frm_pd', 'usr_pd', 'PD');
INSERT INTO submissions (id, form_id, user_id, form_version, data)
SELECT 'sub_' || x || '000000000000000' || n, 'frm_pd', 'usr_pd', 1, '{}' FROM (VALUES ('$t{-7}', 1), ('$t{-3}', 2)) v(x, n);
INSERT INTO submission_files (id, submission_id, user_id, field_key, name, content_type, size, chunks)
SELECT 'fil_' || x || '000000000000000' || n, 'sub_' || x || '000000000000000' || n, 'usr_pd', 'doc', 'a', 'x/y', 1, 1
  FROM (VALUES ('$t{-7}', 1), ('$t{-3}', 2)) v(x, n);
INSERT INTO submission_file_chunks (file_id, seq, data) SELECT id, 0, '\\x01' FROM submission_files;
INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version, data, created_at)
SELECT id, 1, form_id, user_id, 1, data, created_at FROM submissions;
INSERT INTO events (id, user_id, type, payload)
SELECT 'evt_' || x || '000000000000000' || n, 'usr_pd', 'form.published', '{}' FROM (VALUES ('$t{-7}', 1), ('$t{-4}', 2)) v(x, n);
SQL
sub digest {
    join ' ', map { dbq("SELECT count(*) || ':' || md5(COALESCE(string_agg(x::text, ',' ORDER BY x::text), '')) FROM $_ x") } @tables;
}
my $was = digest();
is dbq("SELECT tableoid::regclass FROM events WHERE id LIKE 'evt_$t{-7}%'"), 'events_before', 'the oldest rows in the first partitions';

# ---- the task ----------------------------------------------------------------
# old enough: the months five to two ago (the last one ended at the start
# of this month, less than a month ago); kept there: the months with a row
my %gone = (submissions => [-5, -4, -2], submission_files => [-5, -4, -2], submission_file_chunks => [-5, -4, -2],
            events => [-5, -3, -2], submission_versions => [-5, -4, -2]);
my @gone = map { my $tb = $_; map { "${tb}_$mon{$_}" } @{ $gone{$tb} } } @tables;
# a reader holding the oldest month of events (ACCESS SHARE, as a long
# statement would): the task does not wait on it more than 200 ms, says
# so (FS02187, info) and drops that month once the reader is gone
my $held = "events_$mon{-5}";
# (its output, and the FATAL line when it is ended below, go nowhere)
open my $reader, '|-', "exec psql -X -q -h '$ENV{FORMSVC_PGSOCK}' -p $ENV{FORMSVC_PGPORT} -U postgres -d $db >/dev/null 2>&1"
    or die "psql: $!";
{ my $old = select $reader; $| = 1; select $old; }
print $reader "BEGIN; LOCK TABLE $held IN ACCESS SHARE MODE; SELECT pg_sleep(120);\n";
ok FormsvcTest::wait_for(sub { dbq("SELECT count(*) FROM pg_locks WHERE granted AND relation = '$held'::regclass AND pid <> pg_backend_pid()") == 1 },
                         10, 'the reader\'s lock'), "a reader holds $held";
my $inst = FormsvcInstance->start(name => 'partdrop', db => $db,
                                  conf => "FormsvcRetentionInterval 1\nFormsvcEventRetentionDays 3650\nLogLevel info\n"
                                        . "FormsvcLogRepeatInterval 0\n");
# children first: the chunks' and files' months go, then every run stops
# at the held month of events
my @first = grep { /^submission_file/ } @gone;
ok FormsvcTest::wait_for(sub { dbq("SELECT count(*) FROM pg_class WHERE relname IN (" . join(', ', map { "'$_'" } @first) . ")") == 0 },
                         30, 'the files\' and chunks\' months dropped'), 'the files\' and chunks\' empty months dropped';
sub gave_way { scalar(() = $inst->error_log =~ /FS02187/g) }
my $n0 = gave_way();
ok FormsvcTest::wait_for(sub { gave_way() > $n0 }, 30, 'the task to meet the reader'),
    'a lock not granted within 200 ms: FS02187, next run';
is dbq("SELECT count(*) FROM pg_class WHERE relname IN ('$held', 'submissions_$mon{-5}')"), 2,
    "$held kept while the reader holds it (and the submissions after it)";
# the reader goes (its backend ended: the sleep is not waited for)
dbq("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE granted AND relation = '$held'::regclass AND pid <> pg_backend_pid()");
close $reader;
ok FormsvcTest::wait_for(sub { dbq("SELECT count(*) FROM pg_class WHERE relname IN (" . join(', ', map { "'$_'" } @gone) . ")") == 0 },
                         30, 'the task to drop the emptied months'), 'the task dropped the 15 empty old partitions';
for my $tb (@tables) {
    my %g = map { $_ => 1 } @{ $gone{$tb} };
    my @kept = ((map { "${tb}_$mon{$_}" } grep { !$g{$_} } -5 .. 3), "${tb}_before");
    is dbq("SELECT string_agg(inhrelid::regclass::text, ' ' ORDER BY inhrelid::regclass::text) FROM pg_inherits WHERE inhparent = '$tb'::regclass"),
        join(' ', sort @kept), "$tb: kept the months with a row, the last one, this one, those ahead, the first partition";
}
is digest(), $was, 'every row still there (count and hash of each table)';
ok FormsvcTest::wait_for(sub { my $l = $inst->error_log; (() = $l =~ /FS02186/g) >= 15 }, 10, 'the log lines'),
    'one FS02186 line per partition dropped';
my @lines = $inst->error_log =~ /dropped the partition (\S+):/g;
is_deeply [ sort @lines ], [ sort @gone ], 'naming each partition once';
is dbq("SELECT fs_partitions_drop(1)"), '', 'run again: nothing left to drop';
unlike $inst->error_log, qr/\[(?:[a-z_]*:)?(?:error|crit|alert|emerg|warn)\]/, 'the private httpd logged no warning or error';
$inst->stop;

# ---- a partial answer keeps its month --------------------------------------
# (sql/0061) completing a partial stores the submission under the partial's
# id, in that id's month: with the clock two months on (the last month and
# this one old enough), a partial begun last month keeps that month of
# submissions and every later one; once it is gone they go too
my $lastmonth = dbq("SELECT fs_id_time(date_trunc('month', now() AT TIME ZONE 'UTC' - interval '1 month') AT TIME ZONE 'UTC' + interval '10 days')");
dbq("INSERT INTO submission_partials (id, form_id, user_id, form_version, data, page, resume_hash, expires_at) "
    . "VALUES ('sub_${lastmonth}000000000000000p', 'frm_pd', 'usr_pd', 1, '{}', 1, 'h', now() + interval '30 days')");
sub drop_all { my ($at) = @_; my @d; while (1) { my $x = dbq("SELECT fs_partitions_drop(1, now() + interval '$at')"); last if $x eq '' || $x eq '-'; push @d, $x } @d }
my @d = drop_all('2 months');
is_deeply [ grep { /^submissions_/ } @d ], [], 'two months on, with the partial open: no month of submissions dropped'
    or diag "@d";
ok grep({ $_ eq "events_$mon{-1}" } @d), 'the other tables\' emptied months went as before';
is dbq("SELECT count(*) FROM pg_class WHERE relname IN ('submissions_$mon{-1}', 'submissions_$mon{0}')"), 2,
    'the partial\'s month of submissions and the one after it kept';
is dbq("SELECT count(*) FROM pg_class WHERE relname IN ('submission_versions_$mon{-1}', 'submission_versions_$mon{0}')"), 2,
    'and their months of versions (sql/0065: kept while the month of submissions is)';
dbq("DELETE FROM submission_partials");
@d = drop_all('2 months');
is_deeply [ sort grep { /^submissions_/ } @d ], [ sort "submissions_$mon{-1}", "submissions_$mon{0}" ],
    'the partial gone: both dropped at the next run';
@d = drop_all('2 months');
is dbq("SELECT count(*) FROM pg_class WHERE relname IN ('submission_versions_$mon{-1}', 'submission_versions_$mon{0}')"), 0,
    'their months of versions dropped after them';
done_testing;
