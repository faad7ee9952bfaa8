# ask_human asked in the MCP client (elicitation/create, MCP 2025-06-18)
# with the MCP TypeScript SDK's own client and an elicitation handler
# (t/js/mcp_elicit.mjs): accept (the answer stored as the ask's
# submission), decline, cancel (the link remains), wrong-typed content
# (the form's 422, nothing stored, the link still answers), no answer
# within the tool's wait (notifications/cancelled, then the link), a
# schema elicitation cannot ask and a client without the capability (the
# link alone); then hostile responses sent by hand: an unknown id, another
# session's request, none of a session, a second answer, and a late answer;
# and two machines: the tool call waits on one, the client's response
# arrives at the other.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest qw(api signup base_url node_ready wait_for);
use FormsvcInstance;
use FormsTest;
use IO::Select;
use IO::Socket::INET;
use JSON::PP ();
use Time::HiRes ();

my $J = JSON::PP->new->canonical;

SKIP: {
    skip 'node or t/js/node_modules missing (FORMSVC_SKIP_NODE)', 46
        unless node_ready('@modelcontextprotocol/sdk');
    my ($secret) = signup();
    verify_account($secret);
    open my $fh, '-|', 'node', "$FindBin::Bin/js/mcp_elicit.mjs", base_url() . '/mcp', $secret
        or die "node: $!";
    local $/; my $out = <$fh>; close $fh;
    my $g = eval { $J->decode($out) } || { error => $out };
    ok !$g->{error}, 'SDK session without errors' or diag $g->{error};
    like $g->{sessionA} // '', qr/^mcs_/, 'a session that elicits';

    # what the client was asked
    my $first = $g->{seen}[0] || {};
    like $first->{id} // '', qr/^mrq_[0-9A-Z]{26}$/, 'elicitation/create with a request id of ours';
    is $first->{params}{message}, 'May I restart the billing service now?', 'the ask\'s message';
    is_deeply $first->{params}{requestedSchema},
        { type => 'object', required => ['decision'], properties => {
            decision => { title => 'Decision', type => 'string', enum => ['approve', 'reject'] },
            comment => { title => 'Comment', type => 'string', maxLength => 2000 },
            count => { title => 'How many', type => 'integer', minimum => 1, maximum => 9 } } },
        'requestedSchema: the ask\'s schema as elicitation asks it'
        or diag explain $first->{params};

    # accept
    my $acc = $g->{accepted} || {};
    is $acc->{elicitation}, 'accepted', 'accept: elicitation accepted' or diag explain $acc;
    is $acc->{status}, 'answered', 'the ask is answered';
    is_deeply $acc->{answer}, { decision => 'approve', comment => 'Yes, go.', count => 2 },
        'with the content as its answer';
    ok $acc->{untrustedRespondentData}, 'marked as untrusted respondent data';
    my $subs = api(GET => "/v1/forms/$acc->{formId}/submissions", token => $secret)->{json}{data} || [];
    is scalar @$subs, 1, 'one submission of the ask\'s form';
    is $subs->[0]{id}, $acc->{submissionId}, 'the ask\'s submission';
    is api(GET => "/v1/asks/$acc->{id}", token => $secret)->{json}{status}, 'answered',
        'GET /v1/asks says so too';

    # decline
    is $g->{declined}{elicitation}, 'declined', 'decline: elicitation declined';
    is $g->{declined}{status}, 'declined', 'the ask is declined';

    # cancel: the link remains
    is $g->{cancelled}{elicitation}, 'cancelled', 'cancel: elicitation cancelled';
    is $g->{cancelled}{status}, 'pending', 'the ask stays pending';
    like $g->{cancelled}{url} // '', qr{/f/frm_\w+\?l=fsl_}, 'with its link';

    # wrong-typed content: the form's validation, nothing stored
    my $inv = $g->{invalid} || {};
    is $inv->{elicitation}, 'invalid', 'wrong-typed content: elicitation invalid' or diag explain $inv;
    is $inv->{status}, 'pending', 'the ask stays pending';
    ok((grep { /422|validation/i } @{ $g->{errors} || [] }), 'the SDK was refused its response')
        or diag explain $g->{errors};
    is scalar @{ api(GET => "/v1/forms/$inv->{formId}/submissions", token => $secret)->{json}{data} || [] },
        0, 'nothing stored';
    my $r = api(POST => ($inv->{url} =~ s{^.*?/api}{}r), headers => { Accept => 'application/json' },
                body => { decision => 'reject' });
    is $r->code, 201, 'the link still takes the answer' or diag $r->content;
    is api(GET => "/v1/asks/$inv->{id}", token => $secret)->{json}{status}, 'answered', 'and answers the ask';

    # no answer within the wait
    my $un = $g->{unanswered} || {};
    is $un->{elicitation}, 'unanswered', 'no answer: elicitation unanswered' or diag explain $un;
    is $un->{status}, 'pending', 'the ask stays pending, with its link';
    ok $g->{aborted}, 'the client was told: notifications/cancelled aborted its handler';
    cmp_ok $g->{unansweredMs}, '>=', 1900, 'after the tool\'s wait (2 s)';
    cmp_ok $g->{unansweredMs}, '<', 15000, 'and not much later';

    # not asked in the client
    ok !exists $g->{nofit}{elicitation}, 'a multiple choice: not asked in the client' or diag explain $g->{nofit};
    is $g->{nofit}{status}, 'pending', 'the link alone';
    is $g->{nofitAsked}, 0, 'no elicitation/create';
    ok !exists $g->{nowait}{elicitation} && $g->{nowaitAsked} == 0, 'without wait: not asked either';
    ok !exists $g->{plain}{elicitation}, 'a client without the capability: not asked' or diag explain $g->{plain};
    like $g->{plain}{url} // '', qr{/f/frm_}, 'the link';
    is $g->{totalAsked}, 5, 'five elicitations in all';

    # ---- responses by hand ----
    my %a = (Accept => 'application/json, text/event-stream', 'Mcp-Session-Id' => $g->{sessionA});
    my %b = (%a, 'Mcp-Session-Id' => $g->{sessionB});
    my $resp = sub { my ($id, $result) = @_; { jsonrpc => '2.0', id => $id, result => $result } };
    my $accept = { action => 'accept', content => { decision => 'approve' } };
    problem_ok api(POST => '/mcp', token => $secret, headers => \%a,
                   body => $resp->('mrq_00000000000000000000000000', $accept)),
        404, 'not-found', 'a response for an unknown id: 404';
    problem_ok api(POST => '/mcp', token => $secret, headers => \%a, body => $resp->(17, $accept)),
        404, 'not-found', 'an id that is not ours: 404';
    my $late_id = $g->{seen}[4]{id};
    problem_ok api(POST => '/mcp', token => $secret, headers => \%b, body => $resp->($late_id, $accept)),
        404, 'not-found', 'another session\'s request: 404';
    problem_ok api(POST => '/mcp', token => $secret, headers => { Accept => $a{Accept} },
                   body => $resp->($late_id, $accept)),
        404, 'not-found', 'a response outside a session: 404';
    my ($other) = signup();
    problem_ok api(POST => '/mcp', token => $other, headers => \%a, body => $resp->($late_id, $accept)),
        404, 'not-found', 'another account: its session is not found';
    is api(GET => "/v1/asks/$un->{id}", token => $secret)->{json}{status}, 'pending', 'none of them answered the ask';

    $r = api(POST => '/mcp', token => $secret, headers => \%a, body => $resp->($first->{id},
             { action => 'accept', content => { decision => 'reject' } }));
    is $r->code, 202, 'a second answer to an answered request: 202, ignored';
    is api(GET => "/v1/asks/$acc->{id}", token => $secret)->{json}{answer}{decision}, 'approve',
        'the first answer stands';

    # the request the tool stopped waiting for may still be answered while the ask is pending
    $r = api(POST => '/mcp', token => $secret, headers => \%a,
             body => $resp->($late_id, { action => 'accept', content => { decision => 'reject', count => 3 } }));
    is $r->code, 202, 'a late answer: 202' or diag $r->content;
    my $late = api(GET => "/v1/asks/$un->{id}", token => $secret)->{json};
    is $late->{status}, 'answered', 'the ask is answered';
    is_deeply $late->{answer}, { decision => 'reject', count => 3 }, 'with it';
}

# ---- two machines: the call on A, the client's response on B -------------------
{
    delete local $ENV{LD_PRELOAD};
    my @m = map { FormsvcInstance->start(name => "elicit-$_") } 'a', 'b';
    my ($host, $port, $path) = $m[0]->url =~ m{^http://([^:/]+):(\d+)(/.*)?$};
    $path //= '';
    my $su = $m[0]->api(POST => '/v1/signup', body => { email => "el$$." . time . '@example.com' })->{json};
    my $tok = $su->{apiKey}{secret};
    my $h = { Accept => 'application/json, text/event-stream' };
    my $init = $m[0]->api(POST => '/mcp', token => $tok, headers => $h,
        body => { jsonrpc => '2.0', id => 1, method => 'initialize', params => { protocolVersion => '2025-06-18',
                  capabilities => { elicitation => {} }, clientInfo => { name => 'raw', version => '1' } } });
    my $sid = $init->header('Mcp-Session-Id');
    like $sid // '', qr/^mcs_/, 'machine A: a session whose client elicits';
    my $body = $J->encode({ jsonrpc => '2.0', id => 9, method => 'tools/call', params => { name => 'ask_human',
        arguments => { message => 'Across machines?', wait => 20, schema => { type => 'object',
            properties => { ok => { enum => ['yes', 'no'] } }, required => ['ok'] } } } });
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 5) or die "connect: $!";
    print $s "POST $path/mcp HTTP/1.1\r\nHost: $host:$port\r\nAuthorization: Bearer $tok\r\n"
        . "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
        . "Mcp-Session-Id: $sid\r\nMCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\n"
        . 'Content-Length: ' . length($body) . "\r\n\r\n$body";
    my $buf = '';
    my $read_until = sub {
        my ($re, $secs) = @_;
        my $sel = IO::Select->new($s);
        my $end = Time::HiRes::time() + $secs;
        while ($buf !~ $re) {
            my $left = $end - Time::HiRes::time();
            return 0 if $left <= 0;
            next unless $sel->can_read($left);
            my $n = sysread($s, my $chunk, 65536);
            return $buf =~ $re unless $n;
            $buf .= $chunk;
        }
        return 1;
    };
    ok $read_until->(qr/"elicitation\/create"[^\n]*\n/, 10), 'machine A: the POST is a stream with elicitation/create'
        or diag $buf;
    like $buf, qr{^HTTP/1\.1 200}, 'status 200';
    like $buf, qr{Content-Type: text/event-stream}i, 'text/event-stream';
    my ($rid) = $buf =~ /"id":"(mrq_[0-9A-Z]{26})"/;
    is FormsvcTest::psql("SELECT count(*) FROM mcp_streams WHERE user_id = '$su->{user}{id}'"), 1,
        'the waiting call holds a stream\'s lease';
    my $r = $m[1]->api(POST => '/mcp', token => $tok, headers => { %$h, 'Mcp-Session-Id' => $sid },
        body => { jsonrpc => '2.0', id => $rid, result => { action => 'accept', content => { ok => 'yes' } } });
    is $r->code, 202, 'machine B takes the response' or diag $r->content;
    ok $read_until->(qr/"id":9[,}][^\n]*\n/, 10), 'machine A then answers the tool call' or diag $buf;
    my ($last) = $buf =~ /^data: (\{[^\n]*"id":9[,}][^\n]*)$/m;
    my $res = eval { $J->decode($last) } || {};
    is $res->{result}{structuredContent}{status}, 'answered', 'the ask is answered';
    is $res->{result}{structuredContent}{elicitation}, 'accepted', 'elicitation accepted';
    is_deeply $res->{result}{structuredContent}{answer}, { ok => 'yes' }, 'with the answer sent to B';
    ok wait_for(sub { FormsvcTest::psql("SELECT count(*) FROM mcp_streams WHERE user_id = '$su->{user}{id}'") == 0 },
                5, 'the lease to go back'), 'the lease went back';
    close $s;
    $_->stop for @m;
}

done_testing;
