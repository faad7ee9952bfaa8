# Asks, continued: an ask's form takes answers only through its link (the
# page, the JSON view and every kind of post without it are 403
# link-required, as for any form with settings.linkRequired; a person
# without the link lands on a page that says so, a person with it on the
# thanks page); the submission through the link names its ask (askId in
# the list, the single GET, the CSV export, the askId= filter; MCP
# list_submissions); and the webhooks of ask.answered, ask.declined and
# ask.expired (the closings worker writes ask.expired once when expiresAt
# passes), received signed by the test receiver.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use FormsvcTest::Receiver qw(signature_ok);
use Apache::TestRequest ();
use HTTP::Request ();
use JSON::PP ();
use URI ();
use URI::Escape qw(uri_escape_utf8);

my $J = JSON::PP->new->canonical;
my ($tok) = signup();
verify_account($tok); # webhooks and more than a few forms
my ($other) = signup();
my $approval = {
    title => 'Ship it?', type => 'object',
    properties => { decision => { title => 'Decision', enum => ['approve', 'reject'] },
                    comment => { type => 'string', title => 'Comment' } },
    required => ['decision'],
};
sub ask { api(POST => '/v1/asks', token => $_[0], body => $_[1]) }
sub token_of { ($_[0]{url} =~ /l=(\S+)$/)[0] }

# ---- a browser that follows every redirect (as t/77_asks.t) -------------------
sub ua {
    my $ua = Apache::TestRequest::user_agent(reset => 1);
    $ua->requests_redirectable(['GET', 'HEAD', 'POST']);
    $ua->max_redirect(5);
    return $ua;
}
sub unent { my $s = shift; $s =~ s/&quot;/"/g; $s =~ s/&#39;/'/g; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; $s }
sub abs_url { my $u = shift; $u =~ m{^https?://} ? $u : Apache::TestRequest::resolve_url(BASE . $u) }
sub page_forms {
    my $html = shift;
    my @f;
    while ($html =~ m{<form method="post" action="([^"]*)"[^>]*>(.*?)</form>}sg) {
        my ($action, $inner) = (unent($1), $2);
        my @hidden;
        push @hidden, [$1, unent($2)] while $inner =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
        push @f, { action => $action, hidden => \@hidden, html => $inner };
    }
    return @f;
}
sub post_form {
    my ($action, $fields) = @_;
    my $req = HTTP::Request->new(POST => abs_url($action));
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html,*/*;q=0.8');
    $req->content(join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @$fields);
    return ua()->request($req);
}
sub open_url { ua()->get(abs_url($_[0]), Accept => 'text/html,*/*;q=0.8') }
sub landed { URI->new($_[0]->request->uri)->path }

# ---- webhooks of the asks' events (the receiver answers /asks with 200) -------
my $rcv = FormsvcTest::Receiver->start;
my $r = api(POST => '/v1/webhooks', token => $tok,
            body => { url => $rcv->url('/asks'), events => ['ask.answered', 'ask.declined', 'ask.expired'] });
is $r->code, 201, 'a webhook subscribes to ask.answered, ask.declined and ask.expired' or diag $r->content;
my $wh = $r->{json};
is_deeply $wh->{events}, ['ask.answered', 'ask.declined', 'ask.expired'], 'its events';
my $nosubs = api(POST => '/v1/keys', token => $tok,
                 body => { name => 'no answers', scopes => ['webhooks:write', 'webhooks:read'] })->{json}{secret};
problem_ok api(POST => '/v1/webhooks', token => $nosubs,
               body => { url => $rcv->url('/x'), events => ['ask.answered'] }),
    403, 'insufficient-scope', 'ask.answered carries the answer: it needs submissions:read';
$r = api(POST => '/v1/webhooks', token => $nosubs, body => { url => $rcv->url('/x'), events => ['ask.declined', 'ask.expired'] });
is $r->code, 201, 'ask.declined and ask.expired do not';
api(DELETE => "/v1/webhooks/$r->{json}{id}", token => $tok);
$r = api(POST => '/v1/webhooks', token => $tok, body => { url => $rcv->url('/x'), events => ['ask.nope'] });
problem_ok $r, 422, 'validation-failed', 'an unknown type is 422';
like $r->{json}{errors}[0]{detail}, qr/ask\.answered, ask\.declined, ask\.expired/, 'the detail lists the types';

# ---- the ask's form without its link: 403 link-required everywhere ------------
my $a = ask($tok, { message => 'Ship 2.0?', schema => $approval, metadata => { ticket => 'T-1' } })->{json};
ok $a->{url}, 'an ask';
my $fid = $a->{formId};
is api(GET => "/v1/forms/$fid", token => $tok)->{json}{settings}{linkRequired}, JSON::PP::true,
    "its form's settings say linkRequired";
problem_ok api(GET => "/f/$fid", headers => { Accept => 'application/json' }), 403, 'link-required',
    'the JSON view without the link';
problem_ok api(POST => "/f/$fid", body => { decision => 'approve' }), 403, 'link-required',
    'a JSON post without the link';
problem_ok api(POST => "/f/$fid?dryRun=true", body => { decision => 'approve' }), 403, 'link-required',
    'a dry run without the link';
$r = open_url("/f/$fid");
is $r->code, 403, 'a person opening the form without the link lands on a 403 page';
is landed($r), BASE . "/f/$fid", 'at the address they opened';
like $r->decoded_content, qr/This form needs a personal link/, 'which says the form needs the link';
unlike $r->decoded_content, qr/name="decision"/, 'and shows no question';
$r = post_form("/f/$fid", [[decision => 'approve']]);
is $r->code, 403, 'a person posting the form without the link: the same page';
like $r->decoded_content, qr/This form needs a personal link/, 'saying so';
is scalar @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} }, 0, 'nothing stored';
is api(GET => "/v1/asks/$a->{id}", token => $tok)->{json}{status}, 'pending', 'the ask is still pending';
# a wrong token is still 404, a page for people
problem_ok api(POST => "/f/$fid?l=fsl_nope", body => { decision => 'approve' }), 404, 'not-found',
    'a token of no link: 404 as before';

# ---- through the link: the person answers and lands on the thanks page --------
my $page = open_url($a->{url});
is $page->code, 200, 'the page through the link';
my ($form) = grep { $_->{html} =~ /name="decision"/ } page_forms($page->decoded_content);
ok $form, 'with the questions';
$r = post_form($form->{action}, [@{ $form->{hidden} }, [decision => 'approve'], [comment => 'Yes.']]);
is $r->code, 200, 'the answer lands on a page';
is $r->previous && $r->previous->code, 303, 'after a 303';
is landed($r), BASE . "/f/$fid/thanks", 'the thanks page';
is api(GET => "/v1/asks/$a->{id}", token => $tok)->{json}{status}, 'answered', 'the ask is answered';

# ---- askId on the submission ---------------------------------------------------
$r = api(GET => "/v1/forms/$fid/submissions", token => $tok);
my ($s) = @{ $r->{json}{data} };
is $s->{askId}, $a->{id}, 'the list names the ask';
is $s->{linkId}, $a->{linkId}, 'and the link';
is api(GET => "/v1/forms/$fid/submissions/$s->{id}", token => $tok)->{json}{askId}, $a->{id},
    'the single GET too';
$r = api(GET => "/v1/forms/$fid/submissions?askId=$a->{id}", token => $tok);
is_deeply [ map { $_->{id} } @{ $r->{json}{data} } ], [ $s->{id} ], 'askId= filters to its submission';
my $b = ask($tok, { message => 'Another?', schema => $approval })->{json};
problem_ok api(GET => "/v1/forms/$fid/submissions?askId=$b->{id}", token => $tok), 404, 'not-found',
    'an ask of another form: 404';
my $oa = ask($other, { message => 'Theirs?', schema => $approval })->{json};
problem_ok api(GET => "/v1/forms/$fid/submissions?askId=$oa->{id}", token => $tok), 404, 'not-found',
    "another account's ask: 404";
$r = api(GET => "/v1/forms/$fid/submissions?askId=frm_nope", token => $tok);
problem_ok $r, 422, 'validation-failed', 'a malformed askId: 422';
is $r->{json}{errors}[0]{pointer}, '/askId', 'at /askId';
$r = api(GET => "/v1/forms/$fid/submissions?askId=$a->{id}&linkId=$a->{linkId}", token => $tok);
is scalar @{ $r->{json}{data} }, 1, 'with its own linkId too';
$r = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' });
my @csv = split /\r?\n/, $r->decoded_content;
my @head = split /,/, $csv[0];
my ($ai) = grep { $head[$_] eq 'askId' } 0 .. $#head;
ok defined $ai, 'the CSV of an ask\'s form has an askId column' or diag $csv[0];
like $csv[1], qr/\Q$a->{id}\E/, 'holding the ask' if defined $ai;
# a plain link, even with an askId in its metadata, names no ask
my $plain = api(POST => '/v1/forms', token => $tok, body => { title => 'Plain', fields => [
    { key => 'q', type => 'text', label => 'Q' } ] })->{json};
api(POST => "/v1/forms/$plain->{id}/publish", token => $tok);
my $pl = api(POST => "/v1/forms/$plain->{id}/links", token => $tok,
             body => { metadata => { askId => $a->{id} } })->{json};
is api(POST => "/f/$plain->{id}?l=" . ($pl->{url} =~ /l=(\S+)$/)[0], body => { q => 'x' })->code, 201,
    'a submission through a plain link';
($s) = @{ api(GET => "/v1/forms/$plain->{id}/submissions", token => $tok)->{json}{data} };
ok !exists $s->{askId}, 'has no askId (the metadata is the owner\'s, not an ask)';
$r = api(GET => "/v1/forms/$plain->{id}/submissions", token => $tok, headers => { Accept => 'text/csv' });
unlike((split /\r?\n/, $r->decoded_content)[0], qr/askId/, 'nor an askId column in its CSV');
# MCP list_submissions with askId
$r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
         body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                   params => { name => 'list_submissions', arguments => { formId => $fid, askId => $a->{id} } } });
my $res = $r->{json}{result};
ok !$res->{isError}, 'MCP list_submissions with askId' or diag $r->content;
is_deeply [ map { $_->{askId} } @{ $res->{structuredContent}{data} || [] } ], [ $a->{id} ],
    'the submission of that ask';

# ---- settings.linkRequired on any form -------------------------------------------
problem_ok api(PATCH => "/v1/forms/$plain->{id}", token => $tok, body => { settings => { linkRequired => 'yes' } }),
    422, 'validation-failed', 'linkRequired is a boolean';
$r = api(PATCH => "/v1/forms/$plain->{id}", token => $tok, body => { settings => { linkRequired => JSON::PP::true } });
is $r->code, 200, 'an owner sets linkRequired' or diag $r->content;
is $r->{json}{settings}{linkRequired}, JSON::PP::true, 'kept';
problem_ok api(POST => "/f/$plain->{id}", body => { q => 'y' }), 403, 'link-required', 'then a post without a link is 403';
my $pl2 = api(POST => "/v1/forms/$plain->{id}/links", token => $tok, body => {})->{json};
is api(POST => "/f/$plain->{id}?l=" . ($pl2->{url} =~ /l=(\S+)$/)[0], body => { q => 'y' })->code, 201,
    'and one through a link is taken';
$r = api(PATCH => "/v1/forms/$plain->{id}", token => $tok, body => { settings => { linkRequired => JSON::PP::false } });
ok !exists $r->{json}{settings}{linkRequired}, 'false: absent';
is api(POST => "/f/$plain->{id}", body => { q => 'z' })->code, 201, 'and the form takes answers without a link again';

# ---- decline and expiry --------------------------------------------------------
$r = post_form("/f/$b->{formId}/decline?l=" . token_of($b), []);
is landed($r), BASE . "/f/$b->{formId}/declined", 'the person declines the second ask';
my $c = ask($tok, { message => 'Soon?', schema => $approval, expiresIn => 60, metadata => { n => 3 } })->{json};
# the answered and the declined ask pass their expiresAt in the same moment:
# the worker's statement that writes c's event passes them over
psql("UPDATE asks SET expires_at = now() - interval '1 second' WHERE id IN ('$c->{id}', '$a->{id}', '$b->{id}');"
     . "UPDATE links SET expires_at = now() - interval '1 second' WHERE id = '$c->{linkId}'");
ok wait_for(sub { psql("SELECT count(*) FROM events WHERE type = 'ask.expired' "
                       . "AND payload->>'askId' = '$c->{id}'") == 1 }, 20, 'ask.expired'),
    'the closings worker writes ask.expired when expiresAt has passed';
$r = api(GET => "/v1/events?askId=$c->{id}", token => $tok);
is_deeply [ map { $_->{type} } @{ $r->{json}{data} } ], ['ask.expired'], 'one ask.expired in the feed of that ask';
my ($xe) = @{ $r->{json}{data} };
is_deeply [ @{ $xe->{data} }{qw(askId formId linkId)} ], [ $c->{id}, $c->{formId}, $c->{linkId} ], 'naming the ask';
is_deeply $xe->{data}{metadata}, { n => 3 }, 'with its metadata';
ok $xe->{data}{expiredAt} && $xe->{data}{expiresAt}, 'expiresAt and expiredAt';
is api(GET => "/v1/events?type=ask.expired&askId=$c->{id}", token => $tok)->code, 200, 'type=ask.expired';
is api(GET => "/v1/asks/$c->{id}", token => $tok)->{json}{status}, 'expired', 'the ask is expired';
problem_ok api(POST => "/f/$c->{formId}?l=" . token_of($c), body => { decision => 'approve' }), 410, 'link-expired',
    'its link takes no answer';
is psql("SELECT count(*) FROM events WHERE type = 'ask.expired' AND payload->>'askId' IN ('$a->{id}', '$b->{id}')"),
    0, 'the answered and the declined ask expire without an event';

# ---- the webhooks: answered, declined, expired, each once, signed ------------------
my @got = $rcv->wait_received('/asks', 3, 30);
is scalar @got, 3, 'three deliveries';
my %by;
push @{ $by{ $J->decode($_->{body})->{type} } }, $_ for @got;
is_deeply { map { $_ => scalar @{ $by{$_} } } keys %by }, { 'ask.answered' => 1, 'ask.declined' => 1, 'ask.expired' => 1 },
    'one of each type';
ok !(grep { !signature_ok($_, $wh->{secret}) } @got), 'each signed with the webhook\'s secret';
my $ans = $J->decode($by{'ask.answered'}[0]{body});
is $ans->{data}{askId}, $a->{id}, 'ask.answered names the ask';
is_deeply $ans->{data}{answer}, { decision => 'approve', comment => 'Yes.' }, 'and carries the answer';
is_deeply $ans->{data}{metadata}, { ticket => 'T-1' }, 'and the metadata';
is $J->decode($by{'ask.declined'}[0]{body})->{data}{askId}, $b->{id}, 'ask.declined names the declined ask';
is $J->decode($by{'ask.expired'}[0]{body})->{data}{askId}, $c->{id}, 'ask.expired the expired one';
done_testing;
