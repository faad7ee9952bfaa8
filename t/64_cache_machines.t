# The form and credential caches across machines (the form
# and credential caches): two httpd instances, A and B, on one PostgreSQL, each with one child
# so that every request meets the same cache.
# - The caches are used: a change written with notifications switched off
#   (session_replication_role = replica) is not seen while an entry lives.
# - A form changed on A is served changed by A at once and by B within 1 s;
#   deleted, it is gone from both; a draft is never served.
# - A key revoked on A is refused by A at once and by B within 1 s; a
#   changed account (verification) reaches B's cached principal too.
# - After PostgreSQL restarts, both caches are flushed and refilled: a
#   change that sent no notification (as one made while the listeners
#   were down would not reach them) is visible after they reconnect.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql silently until_true);
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};

my $one_child = <<'CONF';
StartServers 1
ServerLimit 1
ThreadsPerChild 10
MaxRequestWorkers 10
MinSpareThreads 1
MaxSpareThreads 10
FormsvcRateLimit signup off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified forms 100
CONF
my $A = FormsvcInstance->start(name => 'cacheA', conf => $one_child);
my $B = FormsvcInstance->start(name => 'cacheB', conf => $one_child);

# the listener sessions are named for operators
sub listeners { psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'formsvc_cache_listener'") }
FormsvcTest::wait_for(sub { listeners() >= 2 }, 10, 'two cache listener sessions');
cmp_ok listeners(), '>=', 2, 'listener sessions show in pg_stat_activity';

my $r = $A->api(POST => '/v1/signup', body => { email => "cache$$." . time . '@example.com' });
is $r->code, 201, 'signup';
my $owner = $r->{json}{apiKey}{secret};
my $uid = $r->{json}{user}{id};

sub view { my ($m, $id) = @_; $m->api(GET => "/f/$id", headers => { Accept => 'application/json' }) }
sub page { my ($m, $id) = @_; $m->api(GET => "/f/$id", headers => { Accept => 'text/html' }) }
sub title_on { my ($m, $id) = @_; my $v = view($m, $id); $v->code == 200 ? $v->{json}{title} : $v->code }

# The cache is on once it keeps a probe form through a silent change: then
# the listener is connected (while it is not, nothing is cached).
$r = $A->api(POST => '/v1/forms', token => $owner, body => {
    title => 'probe', fields => [ { key => 'q', type => 'text', label => 'Q' } ] });
my $probe = $r->{json}{id};
$A->api(POST => "/v1/forms/$probe/publish", token => $owner);
my $probes = 0;
sub cache_on {
    my $m = shift;
    return FormsvcTest::wait_for(sub {
        my $before = view($m, $probe);
        $probes++;
        silently("UPDATE forms SET title = 'probe $probes' WHERE id = '$probe'");
        my $after = view($m, $probe);
        $before->code == 200 && $after->code == 200 && $after->{json}{title} eq $before->{json}{title};
    }, 20, 'the cache on in ' . $m->root) ? 1 : 0;
}
ok cache_on($_), 'the cache is on in ' . $_->root for $A, $B;

# ---- forms -----------------------------------------------------------------
$r = $A->api(POST => '/v1/forms', token => $owner, body => {
    title => 'Original', slug => "cache-$$", fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
is $r->code, 201, 'form created on A';
my $fid = $r->{json}{id};
is view($A, $fid)->code, 404, 'a draft is not public';
is view($B, $fid)->code, 404, '(on B neither)';
is $A->api(POST => "/v1/forms/$fid/publish", token => $owner)->code, 200, 'published on A';
is view($A, $fid)->code, 200, 'published: public on A at once (the 404 was not kept)';
is view($B, $fid)->code, 200, 'and on B';

# an answer from memory is the answer the database gave: same status, body
# and headers (but the date, the request's own id and a page's one-time
# submission token, new in every answer)
my %tokens;
sub answer_of {
    my $res = shift;
    my %h;
    $res->headers->scan(sub { my ($k, $v) = @_; push @{ $h{lc $k} }, $v
        unless $k =~ /^(?:Date|X-Request-Id|Client-.*|Connection|Keep-Alive)$/i });
    my $body = $res->content;
    $tokens{$2}++ if $body =~ s/(<input type="hidden" name="_token" value=")([^"]+)"/$1"/;
    return { code => $res->code, body => $body, headers => \%h };
}
for my $accept ('application/json', 'text/html') {
    my @three = map { answer_of($B->api(GET => "/f/$fid", headers => { Accept => $accept })) } 1 .. 3;
    is_deeply $three[1], $three[0], "$accept: the second answer (from memory) is the first";
    is_deeply $three[2], $three[0], "$accept: and the third";
}
is scalar(keys %tokens), 3, 'but for the page\'s submission token: a new one in each of the three';
for my $m ($A, $B) { view($m, $fid); page($m, $fid); view($m, "cache-$$") }
silently("UPDATE forms SET title = 'Silent' WHERE id = '$fid'");
is title_on($A, $fid), 'Original', 'A serves the JSON view from memory (a silent change is not seen)';
is title_on($B, $fid), 'Original', 'B too';
like page($B, $fid)->content, qr/Original/, 'and the HTML page';
is title_on($B, "cache-$$"), 'Original', 'and by slug';
my $etag = view($B, $fid)->header('ETag');
ok $etag, 'cached view has an ETag';
is $B->api(GET => "/f/$fid", headers => { Accept => 'application/json', 'If-None-Match' => $etag })->code,
    304, 'and If-None-Match is answered 304 from memory';
is $B->api(HEAD => "/f/$fid", headers => { Accept => 'text/html' })->code, 200, 'HEAD from memory';

# a change on A through the API
$r = $A->api(PATCH => "/v1/forms/$fid", token => $owner, body => { title => 'Changed on A' },
             headers => { 'Content-Type' => 'application/merge-patch+json' });
is $r->code, 200, 'title changed on A';
is title_on($A, $fid), 'Changed on A', 'A serves the change at once';
my $took = until_true(sub { title_on($B, $fid) eq 'Changed on A' }, 10);
ok defined $took && $took < 1, sprintf('B serves it within 1 s (%.3f s)', $took // -1);
like page($B, $fid)->content, qr/Changed on A/, 'B\'s page too';
isnt view($B, $fid)->header('ETag'), $etag, 'with a new ETag';
is title_on($B, "cache-$$"), 'Changed on A', 'and by slug';

# fields
$r = $A->api(POST => "/v1/forms/$fid/fields", token => $owner,
             body => { key => 'age', type => 'integer', label => 'Age' });
is $r->code, 201, 'field added on A';
$took = until_true(sub { my $v = view($B, $fid); grep { $_->{key} eq 'age' } @{ $v->{json}{fields} || [] } }, 10);
ok defined $took && $took < 1, sprintf('B shows the new field within 1 s (%.3f s)', $took // -1);

# closed by the owner on B: A shows it closed within 1 s
is $B->api(POST => "/v1/forms/$fid/close", token => $owner)->code, 200, 'closed on B';
is view($B, $fid)->{json}{status}, 'closed', 'B at once';
$took = until_true(sub { (view($A, $fid)->{json}{status} // '') eq 'closed' }, 10);
ok defined $took && $took < 1, sprintf('A within 1 s (%.3f s)', $took // -1);
is $A->api(POST => "/f/$fid", body => { name => 'x' })->code, 409, 'and refuses submissions';

# deleted on A: gone from B within 1 s
for (1 .. 3) { view($B, $fid) }
is $A->api(DELETE => "/v1/forms/$fid", token => $owner)->code, 204, 'deleted on A';
is view($A, $fid)->code, 404, 'A: 404 at once';
$took = until_true(sub { view($B, $fid)->code == 404 }, 10);
ok defined $took && $took < 1, sprintf('B: 404 within 1 s (%.3f s)', $took // -1);
is view($B, "cache-$$")->code, 404, 'by slug too';

# ---- credentials -----------------------------------------------------------
$r = $A->api(POST => '/v1/keys', token => $owner, body => { name => 'doomed', scopes => ['forms:read'] });
is $r->code, 201, 'a key made on A';
my ($kid, $key) = ($r->{json}{id}, $r->{json}{secret});
for my $m ($A, $B) { is $m->api(GET => '/v1/forms', token => $key)->code, 200, 'the key works' }
silently("UPDATE keys SET revoked_at = now() WHERE id = '$kid'");
is $B->api(GET => '/v1/forms', token => $key)->code, 200,
    'B trusts the principal from memory (a silent revocation is not seen)';
silently("UPDATE keys SET revoked_at = NULL WHERE id = '$kid'");
is $A->api(DELETE => "/v1/keys/$kid", token => $owner)->code, 200, 'revoked on A';
is $A->api(GET => '/v1/forms', token => $key)->code, 401, 'A refuses it at once';
$took = until_true(sub { $B->api(GET => '/v1/forms', token => $key)->code == 401 }, 10);
ok defined $took && $took < 1, sprintf('B refuses it within 1 s (%.3f s)', $took // -1);

# cascade: a child key delegated from a parent, both cached on B
$r = $A->api(POST => '/v1/keys', token => $owner, body => { name => 'parent', scopes => ['forms:read', 'keys:write'] });
my ($pid_, $parent) = ($r->{json}{id}, $r->{json}{secret});
$r = $A->api(POST => '/v1/keys', token => $parent, body => { name => 'child', scopes => ['forms:read'] });
is $r->code, 201, 'a delegated child key';
my $child = $r->{json}{secret};
is $B->api(GET => '/v1/forms', token => $child)->code, 200, 'child works on B';
is $A->api(DELETE => "/v1/keys/$pid_", token => $owner)->code, 200, 'parent revoked on A';
is $A->api(GET => '/v1/forms', token => $child)->code, 401, 'A refuses the child at once';
$took = until_true(sub { $B->api(GET => '/v1/forms', token => $child)->code == 401 }, 10);
ok defined $took && $took < 1, sprintf('B refuses the child within 1 s (%.3f s)', $took // -1);

# an account change (verification) reaches B's cached principal
$r = $B->api(GET => '/v1/me', token => $owner);
is $r->{json}{quota}{tier}, 'unverified', 'unverified on B';
psql("UPDATE users SET verified = true WHERE id = '$uid'");
$took = until_true(sub { ($B->api(GET => '/v1/me', token => $owner)->{json}{quota}{tier} // '') eq 'verified' }, 10);
ok defined $took && $took < 1, sprintf('verified: B\'s principal follows within 1 s (%.3f s)', $took // -1);

# ---- PostgreSQL restarts -----------------------------------------------------
$r = $A->api(POST => '/v1/forms', token => $owner, body => {
    title => 'Before restart', fields => [ { key => 'q', type => 'text', label => 'Q' } ] });
my $f2 = $r->{json}{id};
$A->api(POST => "/v1/forms/$f2/publish", token => $owner);
$r = $A->api(POST => '/v1/keys', token => $owner, body => { name => 'restart' });
my ($k2id, $k2) = ($r->{json}{id}, $r->{json}{secret});
for my $m ($A, $B) { view($m, $f2); $m->api(GET => '/v1/me', token => $k2) }
# what a notification lost while the listeners were down would leave behind
silently("UPDATE forms SET title = 'Missed' WHERE id = '$f2'");
silently("UPDATE keys SET revoked_at = now() WHERE id = '$k2id'");
is title_on($_, $f2), 'Before restart', 'cached before the restart' for $A, $B;
is $_->api(GET => '/v1/me', token => $k2)->code, 200, 'the key too' for $A, $B;
# The suite's own server shares this PostgreSQL: its background workers
# may meet it restarting (FormsvcTest::expect_log tells t/99_errorlog.t).
FormsvcTest::expect_log([FormsvcTest::outage_lines()], sub {
    system('bash', "$ENV{FORMSVC_ROOT}/scripts/pg", 'restart', $ENV{FORMSVC_PGDIR}, 'immediate') == 0
        or die 'restart failed';
    # both listeners back, so their reconnection lines fall in this window
    FormsvcTest::wait_for(sub { listeners() >= 2 }, 15, 'the cache listeners to reconnect');
});
for my $m ($A, $B) {
    ok cache_on($m), 'the listener reconnected after the restart (the cache is on again)';
    is title_on($m, $f2), 'Missed', 'and the form cache was flushed: the change is served';
    is $m->api(GET => '/v1/me', token => $k2)->code, 401, 'the credential cache too: the key is refused';
    is $m->api(GET => '/v1/me', token => $owner)->code, 200, 'the owner key still works (refilled)';
}
silently("UPDATE forms SET title = 'Silent again' WHERE id = '$f2'");
is title_on($_, $f2), 'Missed', 'and the caches fill again after the restart' for $A, $B;

for ($A, $B) {
    unlike $_->error_log, qr/\[(?:error|crit|alert|emerg)\]|AH0005[02]|Segmentation|Assertion/,
        'no errors or crashes in ' . $_->root;
}
$_->stop for $A, $B;
done_testing;
