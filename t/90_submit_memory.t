# Submissions checked against the form from memory: a POST
# /f/{id} reads the published form from the child's cache, and the
# submission statement stores it only if the form is still at the version
# the answers were checked against; otherwise they are checked again
# against the form as stored. The form here is changed behind the module's
# back (session_replication_role = replica: no trigger, so no cache
# notification), which is what another machine's change looks like during
# the second before its notification arrives. One child, so that the
# cached row is the one every request meets. Then many submissions at once,
# which the child stores together (submit_batch.h), and one the database
# refuses in the middle of them. (Adding a field through the
# API to a form whose stored fields have no ids, as here, crashed the child
# before: handle_fields.c index_of.)
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql silently);
use JSON::PP ();

delete $ENV{LD_PRELOAD};

my $J = JSON::PP->new->canonical;
my $inst = FormsvcInstance->start(name => 'submit-memory', conf => <<'CONF');
StartServers 1
ServerLimit 1
MaxRequestWorkers 10
FormsvcRateLimit submit off
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified requests 100000
CONF
sub api { $inst->api(@_) }
sub metric {
    my $name = shift;
    my $m = api(GET => '/metrics')->content;
    return $m =~ /^formsvc_cache_requests_total\{cache="form_row",result="\Q$name\E"\} (\d+)$/m ? $1 : -1;
}

my $r = api(POST => '/v1/signup', body => { email => sprintf('sm%d.%d@example.com', $$, time) });
die 'signup: ' . $r->status_line unless $r->code == 201;
my $tok = $r->{json}{apiKey}{secret};

my $A = { key => 'a', type => 'text', label => 'A', required => JSON::PP::true };
my $B = { key => 'b', type => 'text', label => 'B', required => JSON::PP::true };
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Memory', fields => [$A] });
die $r->content unless $r->code == 201;
my $id = $r->{json}{id};
is api(POST => "/v1/forms/$id/publish", token => $tok)->code, 200, 'published';
my $v0 = sql("SELECT version FROM forms WHERE id = '$id'");

# ---- the row is kept, and used ----------------------------------------------
# (a child's caches are off until its invalidation listener has connected,
# which a loaded machine may take a moment after the start: until a
# submission is served from memory, nothing below could be seen)
my $hits = metric('hit');
ok $hits >= 0, 'form_row hits are counted';
ok FormsvcTest::wait_for(sub { api(POST => "/f/$id", body => { a => 'warm' })->code == 201
                               && metric('hit') > $hits }, 30, 'the form from memory'),
    'the child keeps the form in memory';
is api(POST => "/f/$id", body => { a => 'first' })->code, 201, 'a submission';
$hits = metric('hit');
is api(POST => "/f/$id", body => { a => 'second' })->code, 201, 'a second one';
cmp_ok metric('hit'), '>', $hits, 'the second was checked against the form from memory';
is sql("SELECT string_agg(DISTINCT form_version::text, ',') FROM submissions WHERE form_id = '$id'"),
    $v0, 'stored with the version they were checked against';

# ---- changed behind the cache: the answers are checked again -----------------
my $stale = metric('stale');
silently("UPDATE forms SET fields = '" . $J->encode([$A, $B]) . "'::jsonb, version = version + 1 "
         . "WHERE id = '$id'");
$r = api(POST => "/f/$id", body => { a => 'no b' });
is $r->code, 422, 'a field the cached form lacks is required now: 422';
is_deeply [ map { $_->{pointer} } @{ $r->{json}{errors} || [] } ], ['/b'], 'the error names b';
cmp_ok metric('stale'), '>', $stale, 'counted as a stale row';
is sql("SELECT count(*) FROM submissions WHERE form_id = '$id' AND data->>'a' = 'no b'"), 0,
    'nothing stored';
$r = api(POST => "/f/$id", body => { a => 'with', b => 'b' });
is $r->code, 201, 'the answers the stored form asks for: 201';
is sql("SELECT form_version FROM submissions WHERE id = '$r->{json}{id}'"), $v0 + 1,
    'stored under the new version';

# a refusal is never decided by the row from memory alone: the stored
# form (one field again) takes what the cached one (two) would refuse
$stale = metric('stale');
silently("UPDATE forms SET fields = '" . $J->encode([$A]) . "'::jsonb, version = version + 1 "
         . "WHERE id = '$id'");
is api(POST => "/f/$id", body => { a => 'x' })->code, 201, 'b is not required any more: 201';
# an HTML respondent gets the form again with the error, not a stored answer
silently("UPDATE forms SET fields = '" . $J->encode([$A, $B]) . "'::jsonb, version = version + 1 "
         . "WHERE id = '$id'");
$r = api(POST => "/f/$id", body => 'a=html',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
is $r->code, 422, 'urlencoded from a page: the form again, 422';
like $r->content, qr/name="b"/, 'with the field the cache did not have';
is sql("SELECT count(*) FROM submissions WHERE form_id = '$id' AND data->>'a' = 'html'"), 0,
    'nothing stored';
cmp_ok metric('stale'), '>', $stale, 'found stale again';

# ---- the database decides the form's state ----------------------------------
is api(POST => "/f/$id", body => { a => 'x', b => 'y' })->code, 201, 'open';
silently("UPDATE forms SET status = 'closed' WHERE id = '$id'");
$r = api(POST => "/f/$id", body => { a => 'x', b => 'y' });
is $r->code, 409, 'closed behind the cache: 409';
is $r->{json}{type}, $inst->url . '/problems/form-closed', 'form-closed';
silently("UPDATE forms SET status = 'published' WHERE id = '$id'");
is api(POST => "/f/$id", body => { a => 'x', b => 'y' })->code, 201, 'open again';
silently("UPDATE forms SET status = 'draft' WHERE id = '$id'");
is api(POST => "/f/$id", body => { a => 'x', b => 'y' })->code, 404, 'back to draft: 404';
silently("UPDATE forms SET status = 'published' WHERE id = '$id'");

# ---- a change through the API is seen at once (the barrier) ------------------
is api(POST => "/f/$id", body => { a => 'x', b => 'y' })->code, 201, 'cached again';
my $C = { key => 'c', type => 'number', label => 'C', required => JSON::PP::true };
$r = api(POST => "/v1/forms/$id/fields", token => $tok, body => $C);
is $r->code, 201, 'a field added through the API' or diag $r->content;
$r = api(POST => "/f/$id", body => { a => 'x', b => 'y' });
is $r->code, 422, 'the next submission must answer it';
is_deeply [ map { $_->{pointer} } @{ $r->{json}{errors} || [] } ], ['/c'], 'c';

# ---- many at once across a change: every stored one matches its version ------
my $n = FormsvcInstance->burst(12, sub {
    my $i = shift;
    my $res = api(POST => "/f/$id", body => { a => "burst$i", b => 'b', c => $i });
    return $res->code == 201 ? 1 : 0;
});
is $n, 12, '12 parallel submissions stored';
is sql("SELECT count(*) FROM submissions s JOIN forms f ON f.id = s.form_id "
       . "WHERE s.form_id = '$id' AND s.data ? 'c' AND s.form_version <> f.version"), 0,
    'each under the version it was checked against';

# ---- stored together (submit_batch.h): each answer is its own --------------
# 40 at once, each with its own value: every answer names that value and a
# row that holds it; a second form, closed behind the cache, is refused in
# the same bursts while the first one's submissions are stored.
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Other', fields => [$A] });
my $other = $r->{json}{id};
is api(POST => "/v1/forms/$other/publish", token => $tok)->code, 200, 'a second form';
is api(POST => "/f/$other", body => { a => 'warm' })->code, 201, 'its row in memory';
silently("UPDATE forms SET status = 'closed' WHERE id = '$other'");
my $batches = sub { my $m = api(GET => '/metrics')->content;
                    $m =~ /^formsvc_submission_batches_total (\d+)$/m ? $1 : -1 };
my $stored = sub { my $m = api(GET => '/metrics')->content;
                   $m =~ /^formsvc_submissions_stored_total (\d+)$/m ? $1 : -1 };
# what each new event sets off is decided once per statement over all its
# events (sql/0035): webhooks of the account (written here directly: an
# unverified account may not make them), each with its own filter
my $uid = sql("SELECT user_id FROM forms WHERE id = '$id'");
my %hook = (form => [$id, '{submission.created}', 't'], any => [undef, '{submission.created}', 't'],
            other => [$other, '{submission.created}', 't'], off => [$id, '{submission.created}', 'f'],
            closed => [$id, '{form.closed}', 't']);
for my $h (sort keys %hook) {
    my ($f, $ev, $on) = @{ $hook{$h} };
    sql("INSERT INTO webhooks (id, user_id, url, events, form_id, secret, enabled) VALUES "
        . "('wh_t90$h', '$uid', 'http://127.0.0.1:1/t90', '$ev', "
        . (defined $f ? "'$f'" : 'NULL') . ", 'x', '$on')");
}
my ($b0, $s0) = ($batches->(), $stored->());
my $ok = FormsvcInstance->burst(40, sub {
    my $i = shift;
    if ($i % 4 == 0) {
        my $res = api(POST => "/f/$other", body => { a => "closed$i" });
        return $res->code == 409 && ($res->{json}{type} // '') =~ /form-closed$/ ? 1 : 0;
    }
    my $res = api(POST => "/f/$id", body => { a => "own$i", b => 'b', c => $i });
    return 0 unless $res->code == 201 && $res->{json}{data}{a} eq "own$i" && $res->{json}{data}{c} == $i;
    my $row = sql("SELECT data->>'a' FROM submissions WHERE id = '$res->{json}{id}'");
    my $loc = $res->header('Location') // '';
    return $row eq "own$i" && $loc =~ m{/submissions/\Q$res->{json}{id}\E$} ? 1 : 0;
});
is $ok, 40, '30 stored, each answered with its own submission; 10 refused by the closed form';
is sql("SELECT count(*) FROM submissions WHERE form_id = '$other' AND data->>'a' LIKE 'closed%'"), 0,
    'nothing stored for the closed form';
is sql("SELECT count(*) FROM submissions s WHERE s.form_id = '$id' AND s.data->>'a' LIKE 'own%' "
       . "AND EXISTS (SELECT 1 FROM events e WHERE e.submission_id = s.id "
       . "AND e.type = 'submission.created')"), 30, 'each with its event';
is $stored->() - $s0, 30, 'formsvc_submissions_stored_total counts them';
my %dl = map { split /\|/ } split /\n/, sql("SELECT w.id, count(e.id) FROM webhooks w "
    . "LEFT JOIN deliveries d ON d.webhook_id = w.id LEFT JOIN events e ON e.id = d.event_id "
    . "AND e.submission_id IN (SELECT id FROM submissions WHERE data->>'a' LIKE 'own%') "
    . "WHERE w.id LIKE 'wh_t90%' GROUP BY w.id");
is_deeply \%dl, { wh_t90any => 30, wh_t90form => 30, wh_t90other => 0, wh_t90off => 0, wh_t90closed => 0 },
    'a delivery of each for the webhooks of that form and of every form; none for the others';
is sql("SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id "
       . "WHERE d.webhook_id LIKE 'wh_t90%' AND e.submission_id IS NULL"), 0, 'and no other';
sql("DELETE FROM webhooks WHERE id LIKE 'wh_t90%'");
my $nb = $batches->() - $b0;
ok $nb >= 1 && $nb <= 40, "in $nb statements (refusals included)";
is api(GET => "/v1/forms/$id", token => $tok)->{json}{submissionCount},
    sql("SELECT count(*) FROM submissions WHERE form_id = '$id' AND NOT spam"),
    'submissionCount agrees with the rows';

# one submission the database refuses (a constraint added for the test)
# fails alone: the rest of its batch is stored one by one
sql("ALTER TABLE submissions ADD CONSTRAINT t90_poison "
    . "CHECK (data->>'a' IS DISTINCT FROM 'poison') NOT VALID");
my %codes;
my $sum = FormsvcInstance->burst(20, sub {
    my $i = shift;
    my $res = api(POST => "/f/$id", body => { a => $i == 7 ? 'poison' : "good$i", b => 'b', c => $i });
    return $i == 7 ? ($res->code == 500 ? 100 : 0) : ($res->code == 201 ? 1 : 0);
});
sql("ALTER TABLE submissions DROP CONSTRAINT t90_poison");
is $sum, 119, 'the refused one answers 500, the 19 others 201';
is sql("SELECT count(*) FROM submissions WHERE form_id = '$id' AND data->>'a' LIKE 'good%'"), 19,
    'all 19 stored';
my @internal = $inst->error_log =~ /(FS00103)/g;
is scalar(@internal), 1, 'one internal error logged: the refused submission';
unlike $inst->error_log, qr/AH00052|Segmentation/, 'no crash';

$inst->stop;
done_testing;
