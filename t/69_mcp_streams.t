# MCP's server-to-client stream (GET /mcp, text/event-stream), sessions
# (Mcp-Session-Id, in PostgreSQL) and resource subscriptions: the SDK's
# own client subscribes and is told of a submission made through the
# public page; keep-alives, Last-Event-ID resumption, the end of a session,
# the bounds of open streams (per child: 503, per account on every
# machine: 429) exact under parallel requests, and streams that end
# cleanly on a graceful restart and on stop.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest qw(api signup base_url node_ready wait_for psql);
use FormsvcInstance;
use IO::Socket::INET;
use IO::Select;
use JSON::PP;
use Time::HiRes ();

delete $ENV{LD_PRELOAD};
my $J = JSON::PP->new->canonical;

# ---- the SDK's client against the suite's server ---------------------------
SKIP: {
    skip 'node or t/js/node_modules missing (FORMSVC_SKIP_NODE)', 24
        unless node_ready('@modelcontextprotocol/sdk');
    my ($secret) = signup();
    my $form = api(POST => '/v1/forms', token => $secret, body => { title => 'Subscribed',
        fields => [{ key => 'name', type => 'text', label => 'Name' }] })->{json};
    is api(POST => "/v1/forms/$form->{id}/publish", token => $secret)->code, 200, 'published';
    my $ff = api(POST => '/v1/forms', token => $secret, body => { title => 'Files',
        fields => [{ key => 'doc', type => 'file', label => 'Doc' }] })->{json};
    api(POST => "/v1/forms/$ff->{id}/publish", token => $secret);
    my $sub = api(POST => "/f/$ff->{id}", headers => { Accept => 'application/json' },
                  body => { doc => { name => 'a.txt', type => 'text/plain', data => 'aGk=' } })->{json};
    my $fid = api(GET => "/v1/forms/$ff->{id}/submissions/$sub->{id}", token => $secret)->{json}{data}{doc}[0]{id};

    open my $fh, '-|', 'node', "$FindBin::Bin/js/mcp_streams.mjs", base_url(), $secret,
        $form->{id}, $ff->{id}, $sub->{id}, $fid or die "node: $!";
    local $/; my $out = <$fh>; close $fh;
    my $g = eval { $J->decode($out) } || { error => $out };
    ok !$g->{error}, 'SDK session without errors' or diag $g->{error};
    like $g->{sessionId} // '', qr/^mcs_/, 'SDK: a session';
    ok $g->{capabilities}{resources}{subscribe}, 'SDK: resources with subscribe';
    ok $g->{capabilities}{prompts}, 'SDK: prompts';
    ok((grep { $_->{uri} eq "formsvc://forms/$form->{id}" } @{ $g->{resources} || [] }), 'SDK: listResources');
    is scalar @{ $g->{templates} || [] }, 3, 'SDK: three templates';
    like $g->{form}{contents}[0]{text} // '', qr/"Subscribed"/, 'SDK: readResource of the form';
    like $g->{schema}{contents}[0]{text} // '', qr/2020-12/, 'SDK: its schema';
    is_deeply [sort @{ $g->{prompts} || [] }], ['design_form', 'summarise_answers'], 'SDK: listPrompts';
    like $g->{design}{messages}[0]{content}{text} // '', qr/Book a room/, 'SDK: getPrompt design_form';
    is $g->{readMissing}{code}, -32002, 'SDK: an unknown resource is -32002';
    is $g->{fileUrl}{structured}{name}, 'a.txt', 'SDK: get_file_url';
    ok !$g->{audit}{isError}, 'SDK: list_audit';
    ok !$g->{events}{isError}, 'SDK: list_events';
    ok $g->{subscribed}, 'SDK: subscribeResource';
    is $g->{submitStatus}, 201, 'a submission through the public page';
    ok $g->{notified}, 'SDK: notifications/resources/updated arrived over the stream'
        or diag explain $g;
    is_deeply [grep { $_ eq "formsvc://forms/$form->{id}/submissions" } @{ $g->{updates} || [] }],
        ["formsvc://forms/$form->{id}/submissions"], 'SDK: once, for the submissions resource';
    is $g->{summary}{messages}[2]{content}{resource}{uri}, "formsvc://forms/$form->{id}/submissions",
        'SDK: summarise_answers embeds the answers';
    like $g->{summary}{messages}[2]{content}{resource}{text} // '', qr/Ignore all previous/, 'with the new one';
    is $g->{submitStatus2}, 201, 'a second submission';
    is $g->{afterUnsubscribe}, 0, 'SDK: after unsubscribeResource, no notification';
    ok !grep({ !/SSE stream disconnected|aborted/i } @{ $g->{errors} || [] }), 'SDK: no transport errors'
        or diag explain $g->{errors};
    wait_for(sub { psql("SELECT count(*) FROM mcp_sessions WHERE id = '$g->{sessionId}'") == 0 }, 10,
             'the session gone');
    is psql("SELECT count(*) FROM mcp_sessions WHERE id = '$g->{sessionId}'"), 0,
        'terminateSession (DELETE /mcp) ended the session';
}

# ---- the retention task forgets sessions unused for a day (the suite's
# server runs it every second) and leases that ran out long ago
{
    my ($secret, $uid) = signup();
    my $me = api(GET => '/v1/me', token => $secret)->{json};
    my $u = $me->{user}{id};
    # one transaction: the task may run between two statements
    psql("BEGIN; INSERT INTO mcp_sessions (id, user_id, seen_at) VALUES ('mcs_OLD$$', '$u', now() - interval '2 days'), "
       . "('mcs_NEW$$', '$u', now()); "
       . "INSERT INTO mcp_subscriptions (session_id, uri, form_id) VALUES ('mcs_OLD$$', 'formsvc://forms/frm_x', 'frm_x'); "
       . "INSERT INTO mcp_streams (id, user_id, session_id, lease_until) VALUES "
       . "('mst_OLD$$', '$u', 'mcs_OLD$$', now() - interval '2 days'); COMMIT");
    ok wait_for(sub { psql("SELECT count(*) FROM mcp_sessions WHERE id = 'mcs_OLD$$'") == 0 }, 15, 'the old session swept'),
       'retention: a session unused for two days is deleted';
    is psql("SELECT count(*) FROM mcp_subscriptions WHERE session_id = 'mcs_OLD$$'"), 0, 'with its subscriptions';
    is psql("SELECT count(*) FROM mcp_streams WHERE id = 'mst_OLD$$'"), 0, 'and the lease that ran out';
    is psql("SELECT count(*) FROM mcp_sessions WHERE id = 'mcs_NEW$$'"), 1, 'a session in use stays';
}

# ---- an instance of one child with small bounds and 1-second keep-alives --
my $inst = FormsvcInstance->start(name => 'streams', conf => <<'CONF');
StartServers 1
ServerLimit 1
MinSpareThreads 1
MaxSpareThreads 40
ThreadsPerChild 40
MaxRequestWorkers 40
FormsvcMCPStreams 4 2
FormsvcMCPStreamTimes 1 60
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota unverified requests 1000000
CONF
my ($host, $port) = $inst->url =~ m{^http://([^:/]+):(\d+)};

sub account {
    my $r = $inst->api(POST => '/v1/signup', body => { email => "st$$." . rand() . '@example.com' });
    return ($r->{json}{apiKey}{secret}, $r->{json}{user}{id});
}
sub session {
    my $tok = shift;
    my $r = $inst->api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
        body => { jsonrpc => '2.0', id => 1, method => 'initialize',
                  params => { protocolVersion => '2025-06-18', capabilities => {}, clientInfo => { name => 't', version => '1' } } });
    return $r->header('Mcp-Session-Id');
}
sub rpc {
    my ($tok, $sid, $method, $params) = @_;
    return $inst->api(POST => '/mcp', token => $tok,
        headers => { Accept => 'application/json, text/event-stream', defined $sid ? ('Mcp-Session-Id' => $sid) : () },
        body => { jsonrpc => '2.0', id => 2, method => $method, params => $params });
}
# A raw stream: the request written, nothing read yet.
sub stream_send {
    my ($tok, $sid, %h) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 5) or die "connect: $!";
    my $extra = join '', map { "$_: $h{$_}\r\n" } sort keys %h;
    print $s "GET /api/mcp HTTP/1.1\r\nHost: $host:$port\r\nAuthorization: Bearer $tok\r\n"
        . "Accept: text/event-stream\r\nMcp-Session-Id: $sid\r\n$extra\r\n";
    return { sock => $s, buf => '' };
}
# Reads until the buffer matches $re or $secs pass (or end of file); true on a match.
sub read_until {
    my ($st, $re, $secs) = @_;
    my $sel = IO::Select->new($st->{sock});
    my $end = Time::HiRes::time() + $secs;
    while ($st->{buf} !~ $re) {
        my $left = $end - Time::HiRes::time();
        return 0 if $left <= 0;
        next unless $sel->can_read($left);
        my $n = sysread($st->{sock}, my $chunk, 65536);
        if (!$n) { $st->{eof} = 1; return $st->{buf} =~ $re }
        $st->{buf} .= $chunk;
    }
    return 1;
}
sub status_of { my $st = shift; read_until($st, qr/\r\n\r\n/, 10); $st->{buf} =~ m{^HTTP/1\.1 (\d{3})} ? $1 : 0 }
sub streams_of { my $uid = shift; psql("SELECT count(*) FROM mcp_streams WHERE user_id = '$uid'") }

my ($tok, $uid) = account();
my $sid = session($tok);
like $sid // '', qr/^mcs_/, 'instance: a session';
my $form = $inst->api(POST => '/v1/forms', token => $tok, body => { title => 'Watched',
    fields => [{ key => 'n', type => 'text', label => 'N' }] })->{json};
$inst->api(POST => "/v1/forms/$form->{id}/publish", token => $tok);
my $uri = "formsvc://forms/$form->{id}/submissions";
sub submit { $inst->api(POST => "/f/$form->{id}", headers => { Accept => 'application/json' }, body => { n => $_[0] })->code }

# ---- a stream: priming event, keep-alives, a notification -----------------
my $s1 = stream_send($tok, $sid);
is status_of($s1), 200, 'GET /mcp: 200';
like $s1->{buf}, qr{Content-Type: text/event-stream}i, 'text/event-stream';
ok read_until($s1, qr/retry: 1000/, 5), 'the priming event sets the reconnection delay';
ok read_until($s1, qr/: keep-alive/, 5), 'a keep-alive comment (every second here)';
is streams_of($uid), 1, 'the stream holds one lease';
like $inst->api(GET => '/metrics')->content, qr/^formsvc_mcp_streams 1$/m, '/metrics: formsvc_mcp_streams 1';
is rpc($tok, $sid, 'resources/subscribe', { uri => $uri })->{json}{result} ? 1 : 0, 1, 'subscribed';
is rpc($tok, undef, 'resources/subscribe', { uri => $uri })->{json}{error}{code}, -32602,
    'subscribing without a session: -32602';
is rpc($tok, 'mcs_nope', 'resources/subscribe', { uri => $uri })->code, 400, 'a malformed session id: 400';
is submit('one'), 201, 'a submission';
ok read_until($s1, qr/data: \{[^\n]*notifications\/resources\/updated[^\n]*\Q$uri\E/, 10),
   'notifications/resources/updated for the subscribed resource' or diag $s1->{buf};
my ($evt) = $s1->{buf} =~ /id: (evt_\w+)\ndata: \{[^\n]*resources\/updated/;
like $evt // '', qr/^evt_/, 'with the event id as the SSE id';

# ---- the client goes: the lease goes at once; Last-Event-ID resumes ------
close $s1->{sock};
ok wait_for(sub { streams_of($uid) == 0 }, 5, 'the lease given back'), 'a closed client: the stream ends within the poll';
is submit('two'), 201, 'a submission while no stream is open';
my $s2 = stream_send($tok, $sid, 'Last-Event-ID' => $evt);
is status_of($s2), 200, 'reconnect with Last-Event-ID';
ok read_until($s2, qr/data: \{[^\n]*\Q$uri\E/, 10), 'the update missed while away is sent' or diag $s2->{buf};
unlike $s2->{buf}, qr/id: \Q$evt\E\ndata/, 'not the one seen before';
my $r = rpc($tok, $sid, 'resources/unsubscribe', { uri => $uri });
ok $r->{json}{result}, 'unsubscribed';
$s2->{buf} = '';
is submit('three'), 201, 'a submission after unsubscribing';
ok read_until($s2, qr/: keep-alive\nid: evt_/, 5), 'the cursor moves on in a keep-alive (no data)';
unlike $s2->{buf}, qr/data:/, 'no notification after unsubscribing';

# ---- DELETE /mcp ends the session and its streams ----------------------------
is $inst->api(DELETE => '/mcp', token => $tok, headers => { 'Mcp-Session-Id' => $sid })->code, 204, 'DELETE /mcp: 204';
ok read_until($s2, qr/0\r\n\r\n$/, 5), 'its stream ends at the next keep-alive, cleanly (last chunk)';
is rpc($tok, $sid, 'ping', {})->code, 404, 'the ended session: 404';
close $s2->{sock};

# ---- two machines on one database: a session served by either -----------
{
    my $b = FormsvcInstance->start(name => 'streams-b', conf => "FormsvcRateLimit submit off\n");
    my ($btok) = account();
    my $bsid = session($btok);                      # started on the first machine
    my $bform = $inst->api(POST => '/v1/forms', token => $btok, body => { title => 'Both',
        fields => [{ key => 'n', type => 'text', label => 'N' }] })->{json};
    $inst->api(POST => "/v1/forms/$bform->{id}/publish", token => $btok);
    my $buri = "formsvc://forms/$bform->{id}/submissions";
    my $bs = stream_send($btok, $bsid);             # the stream on the first machine
    is status_of($bs), 200, 'two machines: a stream on the first';
    my $sub = $b->api(POST => '/mcp', token => $btok,
        headers => { Accept => 'application/json, text/event-stream', 'Mcp-Session-Id' => $bsid },
        body => { jsonrpc => '2.0', id => 3, method => 'resources/subscribe', params => { uri => $buri } });
    ok $sub->{json}{result}, 'subscribed through the second machine (the session is in PostgreSQL)'
        or diag $sub->content;
    is $b->api(POST => "/f/$bform->{id}", headers => { Accept => 'application/json' }, body => { n => 'x' })->code,
        201, 'a submission through the second machine';
    ok read_until($bs, qr/data: \{[^\n]*\Q$buri\E/, 10), 'notified on the first machine\'s stream'
        or diag $bs->{buf};
    close $bs->{sock};
    $b->stop;
}

# ---- a stream never outlives its credential: revoked, it ends ------------
{
    my $d = $inst->api(POST => '/v1/keys', token => $tok, body => { name => 'streamer', scopes => ['forms:read'] })->{json};
    my $dsid = session($d->{secret});
    my $s = stream_send($d->{secret}, $dsid);
    is status_of($s), 200, 'a delegated key\'s stream';
    ok read_until($s, qr/: keep-alive/, 5), 'running';
    is $inst->api(DELETE => "/v1/keys/$d->{id}", token => $tok)->code, 200, 'the key revoked';
    ok read_until($s, qr/0\r\n\r\n$/, 5), 'its stream ends at the next keep-alive';
    close $s->{sock};
}

# ---- bounds, exact under parallel requests ---------------------------------
# one account, 12 streams asked for at once: 2 (its bound) open, 10 are 429
($tok, $uid) = account();
$sid = session($tok);
my @par = map { stream_send($tok, $sid) } 1 .. 12;
my %codes;
$codes{ status_of($_) }++ for @par;
is_deeply \%codes, { 200 => 2, 429 => 10 }, 'one account: exactly its 2 streams, 429 beyond' or diag explain \%codes;
is streams_of($uid), 2, 'two leases';
like((grep { $_->{buf} =~ /^HTTP\/1.1 429/ } @par)[0]{buf}, qr/Retry-After: \d+/i, '429 with Retry-After');
close $_->{sock} for @par;
ok wait_for(sub { streams_of($uid) == 0 }, 10, 'leases back'), 'every lease back';
# six accounts, 2 streams each at once: the child holds 4 (FormsvcMCPStreams 4), 503 beyond
my @acc = map { my ($t, $u) = account(); [$t, $u, session($t)] } 1 .. 6;
@par = map { my $a = $_; map { stream_send($a->[0], $a->[2]) } 1 .. 2 } @acc;
%codes = ();
$codes{ status_of($_) }++ for @par;
is $codes{200}, 4, 'twelve streams of six accounts at once: exactly 4 open (the child\'s bound)' or diag explain \%codes;
is $codes{503}, 8, 'the 8 others 503 (each account was within its own bound)' or diag explain \%codes;
close $_->{sock} for @par;
# (these six accounts' leases: the suite's other files share the database)
my $six = join ',', map { "'$_->[1]'" } @acc;
ok wait_for(sub { psql("SELECT count(*) FROM mcp_streams WHERE user_id IN ($six)") == 0 }, 10, 'leases back'),
    'every lease back';

# ---- graceful restart and stop with a stream open ---------------------------
($tok, $uid) = account();
$sid = session($tok);
my $s3 = stream_send($tok, $sid);
is status_of($s3), 200, 'a stream before the restart';
ok read_until($s3, qr/: keep-alive/, 5), 'running';
my $t0 = Time::HiRes::time();
$inst->reload(conf => "StartServers 1\nServerLimit 1\nThreadsPerChild 40\nMaxRequestWorkers 40\n"
    . "FormsvcMCPStreams 4 2\nFormsvcMCPStreamTimes 1 60\nFormsvcRateLimit signup off\n");
ok read_until($s3, qr/0\r\n\r\n$/, 10), 'graceful restart: the stream ended cleanly (last chunk)'
    or diag $s3->{buf};
cmp_ok Time::HiRes::time() - $t0, '<', 15, 'and the restart did not wait for it long';
close $s3->{sock};
my $s4 = stream_send($tok, $sid);
is status_of($s4), 200, 'the client reconnects to the new generation';
ok read_until($s4, qr/: keep-alive/, 5), 'running again';
ok wait_for(sub { streams_of($uid) == 1 }, 5, 'one lease'), 'the old stream\'s lease given back';
$t0 = Time::HiRes::time();
$inst->stop;
cmp_ok Time::HiRes::time() - $t0, '<', 10, 'stop with a stream open is quick';
ok read_until($s4, qr/0\r\n\r\n$/, 5) || $s4->{eof}, 'the stream ended';
my $log = $inst->error_log;
unlike $log, qr/exit signal|Segmentation|Assertion|AH00052|AH00060|\[formsvc:(error|crit|alert|emerg)/,
    'no crash or error line in the instance\'s log' or diag $log;

done_testing;
