# GET /v1/forms/{id}/stats from the hourly counters (sql/0047) and the
# daily ones beside them (sql/0060): the answer is the same, byte for
# byte, as a count over the submissions, for random windows by day and by
# hour (until anywhere in an hour), windows at the edges of UTC days
# (until at midnight, half an hour after it, bounds written with other
# time zones' offsets) and across a month's turn, before the worker rolls
# the tally up and after; the day counters always equal the sums of their
# hours, and so do the view days (views written by SQL as the children's
# flushes write them: inserted, added to, and deleted); after every way a submission goes
# (DELETE of one, DELETE ?before=, POST /v1/erasures, retention, the
# form's deletion), for rows inserted by plain SQL as the previous
# release's module inserts them, and for a history stored before the
# counters existed (the backlog: the answer before the worker counts it and
# after is identical).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use PublicTest qw(req form_url);
use JSON::PP ();

my ($tok) = signup();
my $uid = user_of($tok);
sub lit { my $s = shift; $s =~ s/'/''/g; "'$s'" }

my $f = make_form($tok, { title => 'Counted', fields => [
    { key => 'name', type => 'text', label => 'Name' }, { key => 'email', type => 'email', label => 'E-mail' } ] });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

# n submissions of $form at random times within the last $days days, 1 in
# 7 spam, 1 in 5 with the address erased below; by plain SQL (the trigger
# counts them as it counts the previous release's inserts); $quiet: with
# triggers off, as the rows stored before sql/0047 were never counted
my $seq = 0;
sub add_rows {
    my ($form, $n, $days, $quiet) = @_;
    my $s = $seq; $seq += $n;
    my $sql = "INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) "
        . "SELECT 'sub_' || fs_id_time(t) || 'HRSZZ' || lpad((g + $s)::text, 11, '0'), f.id, f.user_id, f.version, "
        . "jsonb_build_object('name', 'n' || g, 'email', CASE WHEN g % 5 = 0 THEN 'gone\@example.com' "
        . "  ELSE 'p' || g || '\@example.com' END), (g + $s) % 7 = 0, t "
        . "FROM forms f, (SELECT g, now() - random() * interval '$days days' AS t "
        . "  FROM generate_series(1, $n) g) x WHERE f.id = " . lit($form);
    psql($quiet ? "SET session_replication_role = replica; $sql" : $sql);
}

# the stats as they were counted before sql/0047: the same intervals, the
# submissions counted in each (the statement of the previous release), and
# the views summed from their hours, as before sql/0060
sub direct {
    my ($form, $start, $until, $unit) = @_;
    my ($s, $u) = (lit($start), lit($until));
    my $rows = psql("WITH b AS (SELECT g AS t FROM generate_series(${s}::timestamptz AT TIME ZONE 'UTC', "
        . "(${u}::timestamptz AT TIME ZONE 'UTC') - interval '1 microsecond', '1 $unit'::interval) g), "
        . "s AS (SELECT date_trunc('$unit', created_at AT TIME ZONE 'UTC') AS t, count(*) FILTER (WHERE NOT spam) AS n, "
        . "count(*) FILTER (WHERE spam) AS sp FROM submissions WHERE form_id = " . lit($form)
        . " AND created_at >= ${s}::timestamptz AND created_at < ${u}::timestamptz GROUP BY 1), "
        . "v AS (SELECT date_trunc('$unit', hour AT TIME ZONE 'UTC') AS t, sum(views) AS n FROM form_views "
        . "WHERE form_id = " . lit($form) . " AND hour >= ${s}::timestamptz AND hour < ${u}::timestamptz GROUP BY 1) "
        . "SELECT to_char(b.t, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || ' ' || COALESCE(v.n, 0) || ' ' || COALESCE(s.n, 0) "
        . "|| ' ' || COALESCE(s.sp, 0) FROM b LEFT JOIN s ON s.t = b.t LEFT JOIN v ON v.t = b.t ORDER BY b.t");
    return [ split /\n/, $rows ];
}

# random windows (fixed once, so that two states are asked the same):
# [since, until, unit], until anywhere in an hour, the last one in the
# future
srand(47);
my @windows;
for my $i (1 .. 7) {
    my $back = $i == 7 ? -2 : 1 + int(rand(40 * 24));   # hours back, up to 40 days
    my $unit = rand() < 0.5 ? 'day' : 'hour';
    my $len = $unit eq 'day' ? 1 + int(rand(30 * 24)) : 1 + int(rand(24 * 30));
    my ($min, $sec) = (int(rand(60)), int(rand(60)));
    my ($since, $until) = split / /, psql("SELECT to_char(u - interval '$len hours', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
        . "|| ' ' || to_char(u, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM (SELECT date_trunc('hour', now() AT TIME ZONE 'UTC') "
        . "- interval '$back hours' + interval '$min minutes $sec seconds' AS u) x");
    push @windows, [ $since, $until, $unit ];
}

# windows at the edges of UTC days and across a month's turn, the data
# being in the last 40 days: [since, until, unit], the bounds as the
# client writes them (an offset's '+' encoded)
sub at {  # a time as SQL computes it, written with an offset of $off hours
    my ($expr, $off) = @_;
    my $t = psql("SELECT to_char(($expr) AT TIME ZONE 'UTC' + interval '$off hours', "
                 . "'YYYY-MM-DD\"T\"HH24:MI:SS') FROM (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') "
                 . "AT TIME ZONE 'UTC' AS d0) x");
    return $t . ($off == 0 ? 'Z' : sprintf('%s%02d:00', $off > 0 ? '%2B' : '-', abs $off));
}
push @windows,
    [ at("d0 - interval '20 days'", 0), at('d0', 0), 'day' ],                        # until at midnight
    [ at("d0 - interval '20 days'", 0), at("d0 - interval '3 days 23 hours 30 minutes'", 0), 'day' ],
    [ at("d0 - interval '30 days'", 5), at("d0 - interval '2 days'", -3), 'day' ],  # offsets
    [ at("d0 - interval '12 days 1 hour'", -2), at("d0 - interval '1 day 30 minutes'", 9), 'day' ],
    [ at("d0 - interval '2 days 2 hours'", 0), at("d0 - interval '1 day 30 minutes'", 0), 'hour' ],
    [ at("date_trunc('month', d0 AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '9 days'", 0),
      at("date_trunc('month', d0 AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '4 days 13 hours 17 minutes 3 seconds'", 0),
      'day' ],                                                                       # a month's turn
    [ at("d0 - interval '39 days'", 0), at('now()', 0), 'day' ];                    # all of it

# compares every window's answer with the direct count; returns the
# answers' bodies (to compare one state's bytes with another's)
sub compare {
    my ($form, $what) = @_;
    my @bodies;
    my $ok = 1;
    for my $w (@windows) {
        my ($since, $until, $unit) = @$w;
        my $r = api(GET => "/v1/forms/$form/stats?since=$since&until=$until&interval=$unit", token => $tok);
        unless ($r->code == 200) { $ok = 0; diag $r->code . ' ' . $r->content; next }
        push @bodies, $r->content;
        my $start = $r->{json}{data}[0]{start};
        my @got = map { "$_->{start} $_->{views} $_->{submissions} $_->{spam}" } @{ $r->{json}{data} };
        (my $u = $until) =~ s/%2B/+/g;
        my $want = direct($form, $start, $u, $unit);
        unless (JSON::PP->new->canonical->encode(\@got) eq JSON::PP->new->canonical->encode($want)) {
            $ok = 0;
            my @d = grep { ($got[$_] // '') ne ($want->[$_] // '') } 0 .. $#$want;
            diag "$what: $since .. $until by $unit: " . scalar(@d) . " intervals differ, first: "
                . ($got[$d[0]] // 'none') . ' vs ' . ($want->[$d[0]] // 'none') if @d;
        }
        my ($n, $sp) = (0, 0);
        $n += $_->{submissions}, $sp += $_->{spam} for @{ $r->{json}{data} };
        $ok = 0 unless $r->{json}{totals}{submissions} == $n && $r->{json}{totals}{spam} == $sp;
    }
    ok $ok, "$what: every window's answer is the direct count";
    return \@bodies;
}
sub tally_of { psql("SELECT count(*) FROM submission_hour_tally WHERE form_id = " . lit($_[0])) }
# the form's day counters are the sums of its hour counters, day by day
# (submissions, spam and views; a day whose hours are all gone may keep a
# row of 0)
sub days_match {
    my ($form, $what) = @_;
    my $f = lit($form);
    is psql("SELECT count(*) FROM (SELECT fs_utc_day(hour) AS day, sum(views) AS n FROM form_views "
            . "WHERE form_id = $f GROUP BY 1) h FULL JOIN (SELECT day, views AS n FROM form_view_days "
            . "WHERE form_id = $f) y ON y.day = h.day WHERE COALESCE(h.n, 0) <> COALESCE(y.n, 0)"), 0,
       "$what: the view days are the sums of their hours";
    is psql("SELECT count(*) FROM (SELECT fs_utc_day(hour) AS day, sum(submissions) AS n, sum(spam) AS sp "
            . "FROM submission_hours WHERE form_id = $f GROUP BY 1) h FULL JOIN "
            . "(SELECT day, submissions AS n, spam AS sp FROM submission_days WHERE form_id = $f) y "
            . "ON y.day = h.day WHERE COALESCE(h.n, 0) <> COALESCE(y.n, 0) OR COALESCE(h.sp, 0) <> COALESCE(y.sp, 0)"), 0,
       "$what: the day counters are the sums of the hours";
}
sub rolled_up {
    my ($form, $what) = @_;
    ok wait_for(sub { tally_of($form) == 0 }, 30, "$what rolled up"), "$what: the worker rolled the tally up";
    days_match($form, $what);
}

# views of $form's page by plain SQL as the children flush them (the
# previous release's statement too: one upsert per flush, adding to the
# hour), every $step hours over the last $days days
sub add_views {
    my ($form, $days, $step, $n) = @_;
    psql("INSERT INTO form_views (form_id, hour, views) SELECT " . lit($form) . ", h, $n + (extract(hour FROM h))::integer % 5 "
         . "FROM generate_series(date_trunc('hour', now()) - interval '$days days', date_trunc('hour', now()), "
         . "interval '$step hours') h ORDER BY 2 "
         . "ON CONFLICT (form_id, hour) DO UPDATE SET views = form_views.views + EXCLUDED.views");
}

# ---- new rows: tallied, then rolled up ---------------------------------------
add_rows($fid, 400, 40);
add_views($fid, 40, 1, 1);   # every hour: inserted
add_views($fid, 40, 7, 3);   # every seventh: added to (updated)
for my $i (1 .. 3) {  # and some through the module's own path
    my $r = req(POST => form_url($fid), type => 'application/json',
                body => qq({"name":"web$i","email":"gone\@example.com"}));
    is $r->code, 201, "submission $i through /f";
}
is psql("SELECT count(*) FROM submission_hours_backlog WHERE form_id = " . lit($fid)), 0,
   'a form made after the migration is not in the backlog';
compare($fid, 'with the tally not rolled up') if tally_of($fid) > 0;
rolled_up($fid, 'the new rows');
ok psql("SELECT count(*) FROM submission_hours WHERE form_id = " . lit($fid)) > 0, 'hours written';
compare($fid, 'rolled up');
add_rows($fid, 50, 3);
compare($fid, 'rolled-up hours plus a tally');

# ---- every deletion path -------------------------------------------------------
my $one = psql("SELECT id FROM submissions WHERE form_id = " . lit($fid) . " AND NOT spam ORDER BY id LIMIT 1");
is api(DELETE => "/v1/forms/$fid/submissions/$one", token => $tok)->code, 204, 'one submission deleted';
compare($fid, 'after DELETE of one');
my $before = psql("SELECT to_char(now() - interval '35 days', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')");
my $r = api(DELETE => "/v1/forms/$fid/submissions?before=$before", token => $tok);
ok $r->code == 200 || $r->code == 202, 'DELETE ?before=: ' . $r->code;
ok wait_for(sub { psql("SELECT count(*) FROM submissions WHERE form_id = " . lit($fid)
                       . " AND created_at < " . lit($before)) == 0 }, 30, 'the bulk delete'), 'bulk delete done';
compare($fid, 'after DELETE ?before=');
$r = api(POST => '/v1/erasures', token => $tok, body => { email => 'gone@example.com' });
is $r->code, 200, 'erasure';
ok $r->{json}{deleted} > 0, "erasure deleted $r->{json}{deleted}";
compare($fid, 'after an erasure');
psql("DELETE FROM form_views WHERE form_id = " . lit($fid) . " AND hour < now() - interval '38 days'");
days_match($fid, 'after view hours deleted');
compare($fid, 'after view hours deleted');
rolled_up($fid, 'the deletions');
compare($fid, 'after the deletions, rolled up');

# retention: a form keeping 30 days (the task runs every second here)
my $kept = make_form($tok, { title => 'Kept', settings => { retentionDays => 30 },
                             fields => [ { key => 'name', type => 'text', label => 'Name' } ] })->{id};
add_rows($kept, 300, 40);
rolled_up($kept, 'the kept form');
ok wait_for(sub { psql("SELECT count(*) FROM submissions WHERE form_id = " . lit($kept)
                       . " AND created_at < now() - interval '30 days 1 minute'") == 0 }, 30, 'retention'),
   'retention deleted the old submissions';
compare($kept, 'after retention');

# ---- history stored before the counters: the backlog -------------------------
my $old = make_form($tok, { title => 'History', fields => [ { key => 'name', type => 'text', label => 'Name' } ] })->{id};
# rows the counters never saw, then the form in the backlog, as sql/0047
# leaves a form with submissions; the worker may count it at once, so the
# first answers are taken with the worker's lock held by this test
add_rows($old, 500, 40, 1);
add_views($old, 40, 3, 2);
is psql("SELECT count(*) FROM submission_hour_tally WHERE form_id = " . lit($old)), 0, 'quiet rows: not tallied';
# the counters' lock (the worker's) held by a session of this test while
# the first answers are read: a child psql that holds it until told
my $app = "formsvc_test_hours_$$";
my $pid = fork // die;
if (!$pid) {
    local $ENV{PGAPPNAME} = $app;
    open STDERR, '>', '/dev/null';   # its end: terminated by the test
    exec 'psql', '-X', '-q', '-At', '-h', $ENV{FORMSVC_PGSOCK}, '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres',
        '-d', 'formsvc', '-c', "SELECT pg_advisory_lock(hashtext('formsvc.submission_hours')), pg_sleep(120)";
    exit 1;
}
ok wait_for(sub { psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                       . "AND objid = hashtext('formsvc.submission_hours')::oid") > 0 }, 20, 'the lock'),
   'the counters\' lock held by the test';
psql("INSERT INTO submission_hours_backlog VALUES (" . lit($old) . ")");
add_rows($old, 30, 2);  # and new rows, tallied, while it waits
my $pre = compare($old, 'a form in the backlog (its submissions counted directly)');
is psql("SELECT count(*) FROM submission_hours_backlog WHERE form_id = " . lit($old)), 1, 'still in the backlog';
psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$app'");
waitpid $pid, 0;
ok wait_for(sub { psql("SELECT count(*) FROM submission_hours_backlog WHERE form_id = " . lit($old)) == 0 }, 30,
            'the backfill'), 'the worker counted the form\'s history';
rolled_up($old, 'the history');
my $post = compare($old, 'the same form counted');
is_deeply $post, $pre, 'the answers before and after the history was counted are identical, byte for byte';

# ---- a form's deletion takes its counters ------------------------------------
is api(DELETE => "/v1/forms/$old", token => $tok)->code, 204, 'form with submissions deleted';
is psql("SELECT (SELECT count(*) FROM submission_hours WHERE form_id = " . lit($old) . ") + "
        . "(SELECT count(*) FROM submission_days WHERE form_id = " . lit($old) . ") + "
        . "(SELECT count(*) FROM form_view_days WHERE form_id = " . lit($old) . ") + "
        . "(SELECT count(*) FROM submission_hour_tally WHERE form_id = " . lit($old) . ")"), 0,
   'its hours, days, view days and tally went with it';

done_testing();
