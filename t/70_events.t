# Events: written with what causes them (public submission, publish,
# close), read oldest first after a cursor, long polling, form: constraints.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use Time::HiRes qw(time);
use POSIX ();
use JSON::PP ();
use MIME::Base64 ();

# nextCursor is opaque like every list's: base64url of events:<id>
sub cursor_id { my $c = shift // return undef; (MIME::Base64::decode_base64url($c) =~ /^events:(.*)$/)[0] }

my ($tok) = signup();
my $P = base_url() . '/problems/';

sub form {
    my $r = api(POST => '/v1/forms', token => $tok, body => {
        title => shift, fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
    die $r->content unless $r->code == 201;
    return $r->{json}{id};
}
sub submit { api(POST => "/f/$_[0]", body => { name => $_[1] // 'Ada' }) }
sub events { my ($q, $t) = @_; api(GET => "/v1/events$q", token => $t // $tok) }

# ---- empty feed, bad arguments --------------------------------------------------
my $r = events('');
is $r->code, 200, 'empty feed 200';
is_deeply $r->{json}{data}, [], 'no events yet';
ok !defined $r->{json}{nextCursor}, 'nextCursor null without events';
is events('?wait=31')->{json}{type}, "${P}validation-failed", 'wait 31: 422';
is events('?wait=31')->{json}{errors}[0]{pointer}, '/wait', 'pointer /wait';
is events('?wait=x')->{json}{errors}[0]{code}, 'type', 'wait not a number';
is events('?wait=-1')->code, 422, 'negative wait';
is events('?limit=0')->code, 422, 'limit 0';
is events('?after=nonsense')->{json}{type}, "${P}malformed-request", 'bad cursor 400';
is events('?after=evt_00000000000000000000000000')->code, 400, 'unknown event cursor 400';

# ---- publish, submit, spam, close -------------------------------------------
my $f1 = form('One');
my $f2 = form('Two');
is api(POST => "/v1/forms/$f1/publish", token => $tok)->code, 200, 'publish f1';
is api(POST => "/v1/forms/$f2/publish", token => $tok)->code, 200, 'publish f2';
is api(POST => "/v1/forms/$f1/publish", token => $tok)->code, 409, 'publishing again: 409, no event';
is submit($f1, 'a')->code, 201, 'submission 1';
is submit($f2, 'b')->code, 201, 'submission 2';
$r = api(POST => "/f/$f1", body => 'name=Bot&_hp=x',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 303, 'spam answered as success';
is api(POST => "/v1/forms/$f1/close", token => $tok)->code, 200, 'close f1';

$r = events('');
is $r->code, 200, 'feed 200';
my @ev = @{ $r->{json}{data} };
is_deeply [ map { $_->{type} } @ev ],
    [ 'form.published', 'form.published', 'submission.created', 'submission.created', 'form.closed' ],
    'events in order, no spam, no failed transition';
is_deeply [ map { $_->{formId} } @ev ], [ $f1, $f2, $f1, $f2, $f1 ], 'form ids';
like $_->{id}, qr/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, 'evt_ id' for @ev;
like $ev[0]{createdAt}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'createdAt RFC 3339';
is $ev[2]{data}{data}{name}, 'a', 'submission event carries the submission';
like $ev[2]{data}{id}, qr/^sub_/, 'and its id';
is $ev[0]{data}{status}, 'published', 'form event carries the form';
is $ev[4]{data}{status}, 'closed', 'closed form';
is cursor_id($r->{json}{nextCursor}), $ev[4]{id}, 'nextCursor is the last event';
ok !$r->{json}{hasMore}, 'no more';

# ---- paging ------------------------------------------------------------------
my (@seen, $after);
for (1 .. 10) {
    $r = events('?limit=2' . ($after ? "&after=$after" : ''));
    is $r->code, 200, 'page 200';
    push @seen, map { $_->{id} } @{ $r->{json}{data} };
    $after = $r->{json}{nextCursor};
    last unless $r->{json}{hasMore};
}
is_deeply \@seen, [ map { $_->{id} } @ev ], 'pages of 2 give every event once, in order';
$r = events("?after=$after");
is_deeply $r->{json}{data}, [], 'nothing after the last';
is $r->{json}{nextCursor}, $after, 'cursor stays when nothing new';

# ---- long poll: returns early when an event arrives ---------------------------
my $pid = fork // die;
if (!$pid) { sleep 1; submit($f2, 'late'); POSIX::_exit(0) }   # an event 1 s into the wait
my $t0 = time;
$r = events("?after=$after&wait=20");
my $took = time - $t0;
waitpid $pid, 0;
is $r->code, 200, 'long poll 200';
is scalar @{ $r->{json}{data} }, 1, 'the new event';
is $r->{json}{data}[0]{data}{data}{name}, 'late', 'the late submission';
cmp_ok $took, '<', 15, "returned when the event came, not after wait ($took s)";
$after = $r->{json}{nextCursor};

# ---- long poll: nothing happens ----------------------------------------------
$t0 = time;
$r = events("?after=$after&wait=1");
is_deeply $r->{json}{data}, [], 'empty after wait';
cmp_ok time - $t0, '>=', 0.9, 'waited';

# ---- an event that commits late is not skipped ---------------------------------
# A transaction that wrote an event earlier but commits later: the feed holds
# back what came after it until it ends, then shows both, the earlier first.
my $uid = api(GET => '/v1/me', token => $tok)->{json}{user}{id};
$pid = fork // die;
if (!$pid) {
    sql("INSERT INTO events (id, user_id, type, form_id, payload) "
        . "VALUES (fs_new_id('evt_'), '$uid', 'form.closed', '$f2', '{\"slow\": true}'); SELECT pg_sleep(3)");
    POSIX::_exit(0);
}
# the slow transaction has written its event once it sleeps
wait_for(sub { sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' "
                   . "AND query LIKE '%\"slow\": true%'") > 0 }, 10, 'the slow transaction to sleep');
is submit($f2, 'meanwhile')->code, 201, 'a submission commits while the slow transaction runs';
$r = events("?after=$after");
is_deeply $r->{json}{data}, [], 'the later event is held back while an older transaction runs';
waitpid $pid, 0;
$r = events("?after=$after");
is_deeply [ map { $_->{type} } @{ $r->{json}{data} } ], [ 'form.closed', 'submission.created' ],
    'then both, the slow one first';
ok $r->{json}{data}[0]{data}{slow}, 'the slow event';
$after = $r->{json}{nextCursor};

# ---- scopes and form: constraints ----------------------------------------------
$r = api(POST => '/v1/keys', token => $tok, body => { name => 'f2 only', scopes => [ 'webhooks:read', 'submissions:read', "form:$f2" ] });
is $r->code, 201, 'constrained key';
my $k2 = $r->{json}{secret};
$r = events('', $k2);
is $r->code, 200, 'constrained feed';
ok scalar @{ $r->{json}{data} } >= 3, 'sees events';
is_deeply [ grep { $_ ne $f2 } map { $_->{formId} } @{ $r->{json}{data} } ], [], 'only its form';
$r = api(POST => '/v1/keys', token => $tok, body => { name => 'forms only', scopes => [ 'forms:read' ] });
is events('', $r->{json}{secret})->{json}{type}, "${P}insufficient-scope", 'webhooks:read needed';

# ---- another account sees nothing; its cursor is foreign ---------------------
my ($other) = signup();
is_deeply events('', $other)->{json}{data}, [], 'other account: no events';
is events("?after=$ev[0]{id}", $other)->code, 400, 'foreign cursor 400';

# ---- deleting data scrubs the events that hold it ---------------------------------
my $sid = $ev[2]{data}{id};
is api(DELETE => "/v1/forms/$f1/submissions/$sid", token => $tok)->code, 204, 'delete a submission';
$r = events('?limit=100');
my ($gone) = grep { $_->{id} eq $ev[2]{id} } @{ $r->{json}{data} };
is_deeply $gone->{data}, { id => $sid, formId => $f1, deleted => JSON::PP::true() }, 'its event keeps only ids';
is events("?after=$ev[2]{id}")->code, 200, 'its id still works as a cursor';
is api(DELETE => "/v1/forms/$f1", token => $tok)->code, 204, 'delete the form';
$r = events('?limit=100');
my @f1ev = grep { $_->{formId} eq $f1 } @{ $r->{json}{data} };
is scalar @f1ev, 3, 'its events stay in the feed';
is_deeply [ map { $_->{data}{deleted} ? 1 : 0 } @f1ev ], [ 1, 1, 1 ], 'all scrubbed';
ok !exists $f1ev[0]{data}{fields}, 'no form definition left';

done_testing;
