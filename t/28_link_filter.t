# Waiting for exactly one person: ?linkId= on GET /v1/events (a long poll
# through one link is woken by that link's submission only), on the
# submissions list and its CSV, and on the MCP tools wait_for_submissions,
# list_submissions and export_submissions_csv; a malformed id is 422,
# another account's link or another form's is 404.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();
use POSIX ();

my ($tok) = signup();
my ($other) = signup();
my $form = make_form($tok, { title => 'Filter', fields => [{ key => 'name', type => 'text', label => 'Name' }] });
my $fid = $form->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $form2 = make_form($tok, { title => 'Other', fields => [{ key => 'name', type => 'text', label => 'Name' }] });
my $oform = make_form($other, { title => 'Theirs', fields => [{ key => 'name', type => 'text', label => 'Name' }] });

sub link_of {
    my ($t, $f) = @_;
    my $r = api(POST => "/v1/forms/$f/links", token => $t, body => {});
    $r->code == 201 or die 'link: ' . $r->content;
    return $r->{json};
}
my ($la, $lb) = (link_of($tok, $fid), link_of($tok, $fid));
my $l2 = link_of($tok, $form2->{id});
my $lo = link_of($other, $oform->{id});
sub submit_via {
    my ($link, $name) = @_;
    my ($path) = $link ? $link->{url} =~ m{/api(/f/.*)$} : ("/f/$fid");
    my $r = api(POST => $path, body => { name => $name }, headers => { Accept => 'application/json' });
    $r->code == 201 or die 'submit: ' . $r->content;
    return $r->{json}{id};
}

# ---- a long poll through link A ------------------------------------------
# the feed's cursor now, so that only what follows counts
my $start = api(GET => "/v1/events?formId=$fid&type=submission.created", token => $tok)->{json}{nextCursor};
my $cur = defined $start ? "&cursor=$start" : '';
pipe(my $rd, my $wr) or die;
my $pid = fork // die;
if (!$pid) {
    close $rd;
    my $r = api(GET => "/v1/events?linkId=$la->{id}&wait=20$cur", token => $tok);
    print $wr JSON::PP->new->encode({ code => $r->code, json => $r->{json} });
    close $wr;
    POSIX::_exit(0);
}
close $wr;
# wait until the poll waits (counted by /metrics), then submit through B
# and without a link: the poll must not answer with those
ok wait_for(sub { (api(GET => '/metrics')->content // '') =~ /^formsvc_events_longpoll_waiters [1-9]/m }, 10,
            'the long poll waiting'), 'the long poll waits';
my $sb = submit_via($lb, 'B');
my $sn = submit_via(undef, 'none');
my $sa = submit_via($la, 'A');
my $got = do { local $/; <$rd> };
waitpid $pid, 0;
my $res = JSON::PP->new->decode($got);
is $res->{code}, 200, 'long poll with linkId: 200';
is_deeply [map { $_->{data}{id} } @{ $res->{json}{data} }], [$sa], "woken by link A's submission only";
is $res->{json}{data}[0]{data}{linkId}, $la->{id}, 'its linkId';

# without waiting: each link its own, formId agreeing or absent
my $ev = api(GET => "/v1/events?linkId=$lb->{id}$cur", token => $tok);
is_deeply [map { $_->{data}{id} } @{ $ev->{json}{data} }], [$sb], "link B's events";
$ev = api(GET => "/v1/events?formId=$fid&linkId=$la->{id}$cur", token => $tok);
is_deeply [map { $_->{data}{id} } @{ $ev->{json}{data} }], [$sa], 'formId and linkId together';
$ev = api(GET => "/v1/events?formId=$fid&type=submission.created$cur", token => $tok);
is scalar(@{ $ev->{json}{data} }), 3, 'without linkId: all three';
problem_ok api(GET => "/v1/events?formId=$form2->{id}&linkId=$la->{id}", token => $tok), 404, 'not-found',
    "events: a link of another form than formId: 404";
problem_ok api(GET => "/v1/events?linkId=$lo->{id}", token => $tok), 404, 'not-found',
    "events: another account's link: 404";
problem_ok api(GET => "/v1/events?linkId=" . fresh_id('lnk_'), token => $tok), 404, 'not-found',
    'events: no such link: 404';
my $bad = api(GET => "/v1/events?linkId=frm_x", token => $tok);
problem_ok $bad, 422, 'validation-failed', 'events: not a link id: 422';
is $bad->{json}{errors}[0]{pointer}, '/linkId', 'pointer /linkId';

# ---- the submissions list and its CSV -------------------------------------
my $S = "/v1/forms/$fid/submissions";
my $l = api(GET => "$S?linkId=$la->{id}", token => $tok);
is $l->code, 200, 'list with linkId';
is_deeply [map { $_->{id} } @{ $l->{json}{data} }], [$sa], "list: link A's only";
is_deeply [map { $_->{id} } @{ api(GET => "$S?linkId=$lb->{id}", token => $tok)->{json}{data} }], [$sb],
    "list: link B's only";
is scalar(@{ api(GET => $S, token => $tok)->{json}{data} }), 3, 'list without linkId: all';
my $csv = api(GET => "$S?linkId=$lb->{id}", token => $tok, headers => { Accept => 'text/csv' });
is $csv->code, 200, 'CSV with linkId';
my @rows = split /\r\n/, $csv->content;
is scalar(@rows), 2, 'CSV: the header and one row';
like $rows[1], qr/^\Q$sb\E,/, "CSV: link B's submission";
problem_ok api(GET => "$S?linkId=$l2->{id}", token => $tok), 404, 'not-found', "list: another form's link: 404";
problem_ok api(GET => "$S?linkId=$lo->{id}", token => $tok), 404, 'not-found', "list: another account's link: 404";
problem_ok api(GET => "/v1/forms/$oform->{id}/submissions?linkId=$lo->{id}", token => $tok), 404, 'not-found',
    "list: another account's form: 404";
$bad = api(GET => "$S?linkId=42", token => $tok);
problem_ok $bad, 422, 'validation-failed', 'list: not a link id: 422';
is $bad->{json}{errors}[0]{pointer}, '/linkId', 'pointer /linkId';
# a withdrawn link still filters (its submissions stay)
is api(DELETE => "/v1/forms/$fid/links/$lb->{id}", token => $tok)->code, 204, 'link B withdrawn';
is_deeply [map { $_->{id} } @{ api(GET => "$S?linkId=$lb->{id}", token => $tok)->{json}{data} }], [$sb],
    'a withdrawn link still filters';

# ---- MCP -----------------------------------------------------------------
my $n = 0;
sub call {
    my ($tool, $args) = @_;
    my $r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
                body => { jsonrpc => '2.0', id => ++$n, method => 'tools/call',
                          params => { name => $tool, arguments => $args } });
    return $r->{json}{result};
}
my $w = call('wait_for_submissions', { formId => $fid, linkId => $la->{id}, wait => 1 });
is_deeply [map { $_->{data}{id} } @{ $w->{structuredContent}{data} }], [$sa], 'MCP wait_for_submissions with linkId';
$w = call('list_submissions', { formId => $fid, linkId => $lb->{id} });
is_deeply [map { $_->{id} } @{ $w->{structuredContent}{data} }], [$sb], 'MCP list_submissions with linkId';
$w = call('export_submissions_csv', { formId => $fid, linkId => $la->{id} });
is $w->{structuredContent}{rows}, 1, 'MCP export_submissions_csv with linkId: one row';
$w = call('wait_for_submissions', { formId => $fid, linkId => $lo->{id} });
ok $w->{isError}, "MCP: another account's link is an error";
is $w->{structuredContent}{status}, 404, '... 404';

done_testing;
