# The form and credential caches on one machine,
# an httpd of several children:
# - a change is seen at once by every child of the machine that made it
#   (the write waits for the barrier: cache.h), a revoked key is refused
#   at once by all of them;
# - a form closed by its closesAt or by reaching maxSubmissions (also
#   through another machine, which sends no notification) is not served as
#   open more than 1 s later;
# - a page whose hidden fields take query values is not served from memory
#   to a request with a query;
# - a cached credential does not write lastUsedAt on every request: the
#   refresh is queued and written in the background, once a minute per key.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest::Together;
use FormsvcTest::PgProxy;
use FormsvcTest qw(psql silently wait_for);
use IO::Socket::INET;
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};

my $common = <<'CONF';
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified submissions 1000000
FormsvcQuota unverified forms 100
CONF
# M reaches PostgreSQL through a proxy (t/lib/FormsvcTest/PgProxy.pm) that
# holds back, by 300 ms, what the server sends to the cache listeners (their
# sessions are named formsvc_cache_listener): notifications reach M's
# children late, so only the barrier can make a change visible to all of
# them at once.
my $pport = FormsvcTest::PgProxy->start(delay => 0.3, delay_for => qr/formsvc_cache_listener/)->port;

my $M = FormsvcInstance->start(name => 'cachelocal', conf => $common . <<"CONF");
DBDParams "host=127.0.0.1 port=$pport dbname=formsvc user=postgres connect_timeout=2 sslmode=disable"
StartServers 3
ServerLimit 3
ThreadsPerChild 10
MaxRequestWorkers 30
MinSpareThreads 1
MaxSpareThreads 30
# the test's 12 keep-alive connections ask up to 200 times each while it
# waits for every child's listener (through the slow proxy) on a loaded
# machine: httpd's default of 100 requests per connection would close them,
# and its 5 s of keep-alive could pass between two asks on a loaded one
MaxKeepAliveRequests 0
KeepAliveTimeout 60
CONF
# one child, credentials trusted for 2 minutes: the lastUsedAt check below
my $C = FormsvcInstance->start(name => 'cachetouch', conf => $common . <<'CONF');
StartServers 1
ServerLimit 1
ThreadsPerChild 10
MaxRequestWorkers 10
MinSpareThreads 1
MaxSpareThreads 10
FormsvcCredentialCacheTTL 120
CONF
# a second machine for submissions that this one hears nothing of
my $B = FormsvcInstance->start(name => 'cacheother', conf => $common);

my $r = $M->api(POST => '/v1/signup', body => { email => "local$$." . time . '@example.com' });
my $owner = $r->{json}{apiKey}{secret};

# ---- lastUsedAt from memory: started first, checked at the end ------------
$r = $C->api(POST => '/v1/keys', token => $owner, body => { name => 'touched' });
my ($tkid, $tkey) = ($r->{json}{id}, $r->{json}{secret});
is $C->api(GET => '/v1/me', token => $tkey)->code, 200, 'a key used once (its principal is cached)';
my $touch_from = time;

sub form {
    my (%o) = @_;
    return $M->published_form($owner, %o, fields => $o{fields} // [ { key => 'q', type => 'text', label => 'Q' } ]);
}
sub view { my ($m, $id) = @_; $m->api(GET => "/f/$id", headers => { Accept => 'application/json' }) }

# $n processes released at once (FormsvcTest::Together), $each requests
# each; returns the list of results ('died' for each request of a process
# that failed)
sub burst_list {
    my ($n, $each, $code) = @_;
    my @out = release_together($n, sub { sub { join "\n", map { $code->() } 1 .. $each } })->();
    return map { defined ? split(/\n/) : ('died') x $each } @out;
}
sub count_of { my ($want, @v) = @_; scalar grep { $_ eq $want } @v }

# Keep-alive connections opened beforehand stay with the child that
# accepted them: a change is made on another connection, and the moment
# its answer is in, every one of them asks at once. Without the barrier
# some child would still be waiting for its notification.
sub open_conns {
    my $n = shift;
    my ($port) = $M->url =~ m{:(\d+)/};
    return map { IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port") or die "connect: $!" } 1 .. $n;
}
sub send_get {
    my ($s, $path, %h) = @_;
    my $hdr = join '', map { "$_: $h{$_}\r\n" } sort keys %h;
    print $s "GET /api$path HTTP/1.1\r\nHost: 127.0.0.1\r\n$hdr\r\n";
}
sub read_answer {
    my $s = shift;
    my ($head, $line) = ('');
    while (defined($line = <$s>)) { last if $line eq "\r\n"; $head .= $line }
    my ($code) = $head =~ m{^HTTP/1\.1 (\d+)};
    my ($len) = $head =~ m{^Content-Length: (\d+)}mi;
    my $body = '';
    read($s, $body, $len) if $len;
    return ($code // 0, $body);
}
# every connection asks at once; returns the answers
# a write to a connection the server has closed fails (and the check that
# reads its answer with it) instead of killing the test by SIGPIPE, which
# left its instances and the proxy running
$SIG{PIPE} = 'IGNORE';
sub ask_all {
    my ($conns, $path, %h) = @_;
    send_get($_, $path, %h) for @$conns;
    return map { [ read_answer($_) ] } @$conns;
}
sub pids_of_last { my $n = shift; my @l = split /\n/, FormsvcInstance::slurp($M->root . '/access_log'); my %p = map { (split ' ', $_)[0] => 1 } @l[-$n .. -1]; scalar keys %p }

my $fid = form(title => 'First');
my @conns = open_conns(12);
my @a = ask_all(\@conns, "/f/$fid", Accept => 'application/json');
is scalar(grep { $_->[0] == 200 && $_->[1] =~ /"title":"First"/ } @a), 12, 'warm: 12 connections';
my $children = pids_of_last(12);
cmp_ok $children, '>=', 2, "held by $children children";
# every child's listener is up (it connects through the slow proxy) once
# all of them keep the form through a silent change
my $on = 0;
wait_for(sub {
    silently("UPDATE forms SET title = 'First' WHERE id = '$fid'");
    ask_all(\@conns, "/f/$fid", Accept => 'application/json');
    silently("UPDATE forms SET title = 'Silent' WHERE id = '$fid'");
    @a = ask_all(\@conns, "/f/$fid", Accept => 'application/json');
    ($on = grep { $_->[1] =~ /"title":"First"/ } @a) == 12;
}, 30, "every child's cache listener");
is $on, 12, 'answers come from memory (a silent change unseen)';
$r = $M->api(PATCH => "/v1/forms/$fid", token => $owner, body => { title => 'Second' });
is $r->code, 200, 'title changed';
@a = ask_all(\@conns, "/f/$fid", Accept => 'application/json');
is scalar(grep { $_->[1] =~ /"title":"Second"/ } @a), 12, 'every child serves the change at once (12 of 12)';

# ---- a revoked key is refused at once by every child ------------------------
$r = $M->api(POST => '/v1/keys', token => $owner, body => { name => 'soon revoked' });
my ($kid, $key) = ($r->{json}{id}, $r->{json}{secret});
@a = ask_all(\@conns, '/v1/forms', Authorization => "Bearer $key");
is scalar(grep { $_->[0] == 200 } @a), 12, 'warm: the key works on every connection';
is $M->api(DELETE => "/v1/keys/$kid", token => $owner)->code, 200, 'revoked';
@a = ask_all(\@conns, '/v1/forms', Authorization => "Bearer $key");
is scalar(grep { $_->[0] == 401 } @a), 12, 'refused at once by every child (12 of 12)';
close $_ for @conns;

# ---- closesAt ---------------------------------------------------------------
# Here and for maxSubmissions, "within 1 s" is timed by when each poll was
# sent, not by when its answer came: a slow answer on a busy machine is no
# late change.
my ($closes_iso, $closes_at) = split /\|/, psql("SELECT fs_ts(now() + interval '2 seconds') || '|' || "
    . "extract(epoch FROM date_trunc('milliseconds', now() + interval '2 seconds'))");
my $cid = form(title => 'Closes', settings => { closesAt => $closes_iso });
my (@late, $closed_at, $closed_came);
my $open_sent = time;   # when the last poll that saw it open was sent
while (time < $closes_at + 2) {   # watched for 2 s: time is the subject
    my $sent = time;
    my $st = view($M, $cid)->{json}{status} // 'error';
    $closed_came //= time if $st eq 'closed';   # when the first "closed" answer arrived
    push @late, sprintf('%s %.3f s after closesAt', $st, $sent - $closes_at)
        if $st eq 'published' && $sent > $closes_at + 1;
    $open_sent = $sent if $st eq 'published' && !defined $closed_at;
    $closed_at //= $open_sent if $st eq 'closed';
    sleep 0.05;
}
is_deeply \@late, [], 'closesAt: never shown open more than 1 s after it passed';
ok defined $closed_at && $closed_at - $closes_at < 1,
    sprintf('shown closed, the last poll that saw it open sent %.3f s after closesAt', ($closed_at // 0) - $closes_at);
# Not before: judged by when the first "closed" answer arrived (a poll sent
# a moment before closesAt may be answered after it, on a busy machine).
cmp_ok $closed_came // 0, '>=', $closes_at - 0.1, 'and not before (the first answer saying closed came after closesAt)';

# ---- maxSubmissions, filled through another machine -------------------------
my $mid = form(title => 'Counted', settings => { maxSubmissions => 2 });
my @t = burst_list(6, 3, sub { view($M, $mid)->{json}{status} // 'error' });
is count_of('published', @t), 18, 'warm: open in every child';
is $B->api(POST => "/f/$mid", body => { q => 'one' })->code, 201, 'first submission on the other machine';
is $B->api(POST => "/f/$mid", body => { q => 'two' })->code, 201, 'second: the form is full';
my $full = time;
my (@open_late, $seen_closed);
$open_sent = 0;   # when the last poll that saw it open was sent
while (time < $full + 2) {   # watched for 2 s: time is the subject
    my $sent = time - $full;
    my $st = view($M, $mid)->{json}{status} // 'error';
    push @open_late, sprintf('%.3f s', $sent) if $st eq 'published' && $sent > 1;
    $open_sent = $sent if $st eq 'published' && !defined $seen_closed;
    $seen_closed //= $open_sent if $st eq 'closed';
    sleep 0.05;
}
is_deeply \@open_late, [], 'maxSubmissions: never shown open more than 1 s after it filled';
ok defined $seen_closed && $seen_closed <= 1, sprintf('shown closed, the last poll that saw it open sent after %.3f s', $seen_closed // -1);
is $M->api(POST => "/f/$mid", body => { q => 'three' })->code, 409, 'and it refuses a third';

# ... and filled on this machine
my $mid2 = form(title => 'Counted here', settings => { maxSubmissions => 1 });
burst_list(6, 3, sub { view($M, $mid2)->{json}{status} // 'error' });
is $M->api(POST => "/f/$mid2", body => { q => 'one' })->code, 201, 'the only submission, on this machine';
$full = time;
@open_late = ();
while (time < $full + 1.5) {   # watched for 1.5 s: time is the subject
    my $sent = time - $full;
    my $st = view($M, $mid2)->{json}{status} // 'error';
    push @open_late, sprintf('%.3f s', $sent) if $st eq 'published' && $sent > 1;
    sleep 0.05;
}
is_deeply \@open_late, [], 'never shown open more than 1 s after it filled here either';

# ---- hidden fields take query values; such pages are not served from memory
my $hid = form(title => 'Hidden', fields => [ { key => 'name', type => 'text', label => 'Name' },
                                              { key => 'ref', type => 'hidden', label => 'Ref' } ]);
my @pages = burst_list(6, 2, sub { $M->api(GET => "/f/$hid", headers => { Accept => 'text/html' })->code });
is count_of(200, @pages), 12, 'page warm';
my $pg = $M->api(GET => "/f/$hid?ref=from-the-link", headers => { Accept => 'text/html' });
like $pg->content, qr/value="from-the-link"/, 'a request with a query gets its hidden value';
$pg = $M->api(GET => "/f/$hid", headers => { Accept => 'text/html' });
unlike $pg->content, qr/from-the-link/, 'and that page was not kept for others';

# ---- lastUsedAt refreshed from memory, in the background ------------------------
# The principal was cached in C's only child at the start. Its lastUsedAt is
# set back and the key revoked, both silently: a use that still passes comes
# from memory, and a minute after the fill it queues the refresh, which the
# listener writes about a second later.
silently("UPDATE keys SET last_used_at = now() - interval '10 minutes', revoked_at = now() WHERE id = '$tkid'");
my $wait = $touch_from + 61 - time;
sleep $wait if $wait > 0;   # the minute itself is the subject (with 1 s of margin)
is $C->api(GET => '/v1/me', token => $tkey)->code, 200, 'a minute later: still from memory';
my $t0 = time;
my $fresh;
wait_for(sub { ($fresh = psql("SELECT last_used_at > now() - interval '1 minute' FROM keys WHERE id = '$tkid'")) eq 't' },
         5, 'lastUsedAt written back');
is $fresh, 't', sprintf('lastUsedAt refreshed in the background (%.1f s)', time - $t0);

for ($M, $C, $B) {
    unlike $_->error_log, qr/\[(?:error|crit|alert|emerg)\]|Segmentation|Assertion/,
        'no errors or crashes in ' . $_->root;
}
$_->stop for $M, $C, $B;
done_testing;
