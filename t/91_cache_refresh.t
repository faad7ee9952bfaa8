# Cache entries read again before they expire (http/cache.h,
# formsvc_cache_get): from halfway through an entry's life, the
# first request that meets it reads the database again and puts a fresh
# entry, while every other request goes on with the old one. So under
# steady load no crowd of threads misses at once when an entry expires.
# The forms are changed behind the module's back (no trigger, so no cache
# notification), which is what shows which requests read the database.
# One child, so that every request meets the same entries.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql silently);
use FormsvcTest::Together;
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};

my $inst = FormsvcInstance->start(name => 'cache-refresh', conf => <<'CONF');
StartServers 1
ServerLimit 1
MaxRequestWorkers 10
FormsvcFormCacheTTL 4
FormsvcRateLimit submit off
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified requests 100000
CONF
sub api { $inst->api(@_) }
sub misses {
    my $cache = shift;
    my $m = api(GET => '/metrics')->content;
    return $m =~ /^formsvc_cache_requests_total\{cache="\Q$cache\E",result="miss"\} (\d+)$/m ? $1 : -1;
}
sub title { my $r = api(GET => "/f/$_[0]", headers => { Accept => 'application/json' }); $r->{json}{title} // '' }

my $r = api(POST => '/v1/signup', body => { email => sprintf('cr%d.%d@example.com', $$, time) });
die 'signup: ' . $r->status_line unless $r->code == 201;
my $tok = $r->{json}{apiKey}{secret};
$r = api(POST => '/v1/forms', token => $tok,
         body => { title => 'One', fields => [{ key => 'a', type => 'text', label => 'A' }] });
my $id = $r->{json}{id};
is api(POST => "/v1/forms/$id/publish", token => $tok)->code, 200, 'published';

# Each part below is about requests that come within a stretch of an
# entry's life: the entry is made between $sent (the filling request sent)
# and $got (its answer), so a request answered before $sent + L/2 came
# before its half-life, one sent after $got + L/2 after it, and one
# answered before $sent + L before it expired. A busy machine may be too
# slow for that: then the try says so, waits for the entry to expire and
# is made again (up to 5 times); the checks are on the first try in time.
# (the entry's age is the subject: sleeps until a point of its life)
sub pause_until { my $t = shift; my $d = $t - time; sleep $d if $d > 0 }

# N clients forked ahead (FormsvcTest::Together), each waiting for the go,
# so that the burst is only their requests (forking on a busy machine can
# take longer than the stretch being tested). Returns a sub that releases
# them and returns the sum of what they return; a client that failed fails
# the test.
sub ready_burst {
    my ($n, $code) = @_;
    my $go = release_together($n, sub { my $i = shift; sub { $code->($i) } });
    return sub {
        my @v = $go->();
        die 'a burst client failed' if grep { !defined } @v;
        my $sum = 0;
        $sum += $_ for @v;
        return $sum;
    };
}

# ---- the public view (FormsvcFormCacheTTL 4: read again from 2 s on) ----------
my ($first, $memory, $late, $m0, $m1, $served, $again);
for my $try (1 .. 5) {
    # again after the entry expired: its TTL (4 s) and a margin
    if ($try > 1) { silently("UPDATE forms SET title = 'One' WHERE id = '$id'"); sleep 4.1 }
    my $burst = ready_burst(12, sub { title($id) ? 1 : 0 });
    my $sent = time;
    $first = title($id);
    my $got = time;
    silently("UPDATE forms SET title = 'Two' WHERE id = '$id'");
    $memory = title($id);
    my $early = time - $sent;
    pause_until($got + 2.05);
    $m0 = misses('form');
    my $b0 = time;   # the refreshed entry is read after this: half its life is 2 s
    $burst->();
    $late = time - $sent;
    $m1 = misses('form');
    $served = title($id);
    silently("UPDATE forms SET title = 'Three' WHERE id = '$id'");
    $again = title($id);
    my $held = time - $b0;
    last if $early < 1.95 && $late < 3.95 && $held < 1.95;
    diag sprintf 'public view, try %d: %.2f s, %.2f s and %.2f s, too slow for the entry\'s life',
        $try, $early, $late, $held;
}
is $first, 'One', 'the view, read and kept';
is $memory, 'One', 'from memory: the silent change is not seen';
cmp_ok $late, '<', 3.95, '(all before the entry expired)';
is $m1 - $m0, 1, 'past half its life, 12 requests at once: one reads the form again';
is $served, 'Two', 'and what it read is served from then on';
is $again, 'Two', 'from memory again: one refresh, not one per request';

# ---- the owner's view (1 s: read again from 0.5 s on) ---------------------------
my $fresh;
for my $try (1 .. 5) {
    # again after the entry expired: its TTL (1 s) and a margin
    if ($try > 1) { silently("UPDATE forms SET title = 'Three' WHERE id = '$id'"); sleep 1.1 }
    my $burst = ready_burst(8, sub {
        api(GET => "/v1/forms/$id", token => $tok)->{json}{title} eq 'Four' ? 1 : 0 });
    my $sent = time;
    $first = api(GET => "/v1/forms/$id", token => $tok)->{json}{title};
    my $got = time;
    silently("UPDATE forms SET title = 'Four' WHERE id = '$id'");
    $memory = api(GET => "/v1/forms/$id", token => $tok)->{json}{title};
    my $early = time - $sent;
    pause_until($got + 0.52);
    $m0 = misses('owner_form');
    $fresh = $burst->();
    $late = time - $sent;
    $m1 = misses('owner_form');
    last if $early < 0.49 && $late < 0.98;
    diag sprintf 'owner view, try %d: %.2f s and %.2f s, too slow for the entry\'s life', $try, $early, $late;
}
is $first, 'Three', "the owner's view, read and kept";
is $memory, 'Three', 'from memory';
cmp_ok $late, '<', 0.98, '(all before the entry expired)';
is $m1 - $m0, 1, 'past half its life, 8 requests at once: one reads the form again';
cmp_ok $fresh, '>=', 1, 'that one answers what it read';

# ---- the row a submission is checked against ------------------------------------
silently("UPDATE forms SET title = 'Five' WHERE id = '$id'");
my ($code1, $code2, $mem_misses, $ok);
for my $try (1 .. 5) {
    sleep 4.1 if $try > 1;   # again after the entry expired: its TTL (4 s) and a margin
    my $burst = ready_burst(8, sub { api(POST => "/f/$id", body => { a => "z$_[0]" })->code == 201 ? 1 : 0 });
    my $sent = time;
    $code1 = api(POST => "/f/$id", body => { a => 'x' })->code;
    my $got = time;
    $m0 = misses('form_row');
    $code2 = api(POST => "/f/$id", body => { a => 'y' })->code;
    $mem_misses = misses('form_row') - $m0;
    my $early = time - $sent;
    pause_until($got + 2.05);
    $ok = $burst->();
    $late = time - $sent;
    $m1 = misses('form_row');
    last if $early < 1.95 && $late < 3.95;
    diag sprintf 'submission row, try %d: %.2f s and %.2f s, too slow for the entry\'s life', $try, $early, $late;
}
is $code1, 201, 'a submission: the row read and kept';
is $code2, 201, 'another';
is $mem_misses, 0, 'from memory';
is $ok, 8, 'past half its life, 8 submissions at once stored';
cmp_ok $late, '<', 3.95, '(all before the entry expired)';
is $m1 - $m0, 1, 'one of them read the row again';

unlike $inst->error_log, qr/AH00052|Segmentation/, 'no crash';
$inst->stop;
done_testing;
