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
use FormsvcTest qw(sql);
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
sub silently { sql("SET session_replication_role = replica; $_[0]") }
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

# ---- the public view (FormsvcFormCacheTTL 4: read again from 2 s on) ----------
is title($id), 'One', 'the view, read and kept';
my $filled = time;
silently("UPDATE forms SET title = 'Two' WHERE id = '$id'");
is title($id), 'One', 'from memory: the silent change is not seen';
sleep 2.3 - (time - $filled);
my $m0 = misses('form');
FormsvcInstance->burst(12, sub { title($id) ? 1 : 0 });
my $m1 = misses('form');
cmp_ok time - $filled, '<', 3.5, '(all before the entry expired)';
is $m1 - $m0, 1, 'past half its life, 12 requests at once: one reads the form again';
is title($id), 'Two', 'and what it read is served from then on';
silently("UPDATE forms SET title = 'Three' WHERE id = '$id'");
is title($id), 'Two', 'from memory again: one refresh, not one per request';

# ---- the owner's view (1 s: read again from 0.5 s on) ---------------------------
$r = api(GET => "/v1/forms/$id", token => $tok);
is $r->{json}{title}, 'Three', "the owner's view, read and kept";
$filled = time;
silently("UPDATE forms SET title = 'Four' WHERE id = '$id'");
is api(GET => "/v1/forms/$id", token => $tok)->{json}{title}, 'Three', 'from memory';
sleep 0.6 - (time - $filled);
$m0 = misses('owner_form');
my $fresh = FormsvcInstance->burst(8, sub {
    api(GET => "/v1/forms/$id", token => $tok)->{json}{title} eq 'Four' ? 1 : 0 });
$m1 = misses('owner_form');
cmp_ok time - $filled, '<', 0.95, '(all before the entry expired)';
is $m1 - $m0, 1, 'past half its life, 8 requests at once: one reads the form again';
cmp_ok $fresh, '>=', 1, 'that one answers what it read';

# ---- the row a submission is checked against ------------------------------------
silently("UPDATE forms SET title = 'Five' WHERE id = '$id'");
is api(POST => "/f/$id", body => { a => 'x' })->code, 201, 'a submission: the row read and kept';
$filled = time;
$m0 = misses('form_row');
is api(POST => "/f/$id", body => { a => 'y' })->code, 201, 'another';
is misses('form_row') - $m0, 0, 'from memory';
sleep 2.3 - (time - $filled);
my $ok = FormsvcInstance->burst(8, sub { api(POST => "/f/$id", body => { a => "z$_[0]" })->code == 201 ? 1 : 0 });
is $ok, 8, 'past half its life, 8 submissions at once stored';
is misses('form_row') - $m0, 1, 'one of them read the row again';

unlike $inst->error_log, qr/AH00052|Segmentation/, 'no crash';
$inst->stop;
done_testing;
