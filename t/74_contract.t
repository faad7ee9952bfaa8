# Contract fixes: the events feed pages with cursor (after is
# its alias) and sends Link rel="next"; form:<id> constraints of a new key
# or client must name forms of the account.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use MIME::Base64 ();

my ($tok) = signup();
my $P = base_url() . '/problems/';

sub form {
    my $t = shift // $tok;
    my $r = api(POST => '/v1/forms', token => $t, body => {
        title => 'F', fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
    die $r->content unless $r->code == 201;
    return $r->{json}{id};
}
sub events { my ($q, $t) = @_; api(GET => "/v1/events$q", token => $t // $tok) }

# ---- the events feed: cursor, Link, after as an alias ---------------------------
my $f = form();
is api(POST => "/v1/forms/$f/publish", token => $tok)->code, 200, 'publish';
is api(POST => "/f/$f", body => { name => "n$_" })->code, 201, "submission $_" for 1 .. 4;

my $all = events('?limit=100')->{json}{data};
is scalar @$all, 5, 'five events';

my $r = events('?limit=2');
is $r->code, 200, 'first page';
my $cur = $r->{json}{nextCursor};
is MIME::Base64::decode_base64url($cur), "events:$all->[1]{id}", 'nextCursor is opaque (events:<id>)';
ok $r->{json}{hasMore}, 'hasMore';
my $link = $r->header('Link');
like $link, qr/^<[^>]+>; rel="next"$/, 'Link rel="next"';
my ($next) = $link =~ /^<([^>]+)>/;
like $next, qr{/v1/events\?limit=2&cursor=\Q$cur\E$}, 'Link keeps limit, carries cursor';

# follow the cursor to the end
my (@seen, $c) = ();
for (1 .. 5) {
    $r = events('?limit=2' . ($c ? "&cursor=$c" : ''));
    push @seen, map { $_->{id} } @{ $r->{json}{data} };
    $c = $r->{json}{nextCursor};
    if (!$r->{json}{hasMore}) { ok !defined $r->header('Link'), 'no Link on the last page'; last }
}
is_deeply \@seen, [ map { $_->{id} } @$all ], 'cursor pages: every event once, in order';
$r = events("?cursor=$c");
is_deeply $r->{json}{data}, [], 'nothing after the last';
is $r->{json}{nextCursor}, $c, 'the cursor stays when nothing is new';

# after: an alias taking the cursor or an event id
is_deeply [ map { $_->{id} } @{ events("?after=$cur")->{json}{data} } ],
    [ map { $_->{id} } @$all[ 2 .. 4 ] ], 'after=<cursor>';
is_deeply [ map { $_->{id} } @{ events("?after=$all->[1]{id}")->{json}{data} } ],
    [ map { $_->{id} } @$all[ 2 .. 4 ] ], 'after=<event id> still works';
$r = events("?after=$all->[1]{id}&limit=1");
like $r->header('Link') // '', qr/\?limit=1&cursor=/, 'the Link drops after';
unlike $r->header('Link') // '', qr/after=/, 'no after in the Link';

# bad cursors
is events('?cursor=nonsense')->{json}{type}, "${P}malformed-request", 'malformed cursor 400';
my $keys_cur = MIME::Base64::encode_base64url("keys:$all->[0]{id}");
is events("?cursor=$keys_cur")->code, 400, "another list's cursor 400";
is events("?cursor=$cur&after=$cur")->code, 400, 'cursor and after together 400';
my ($other) = signup();
is events("?cursor=$cur", $other)->code, 400, "another account's cursor 400";

# ---- form: constraints name forms of the account ------------------------------
my ($tok2) = signup();
my $foreign = form($tok2);
my $missing = 'frm_' . ('0' x 26);

for my $path ('/v1/keys', '/v1/clients') {
    $r = api(POST => $path, token => $tok, body => { name => 'x', scopes => [ 'forms:read', "form:$f" ] });
    is $r->code, 201, "$path: own form 201";
    $r = api(POST => $path, token => $tok, body => { name => 'x', scopes => [ 'forms:read', "form:$missing" ] });
    is $r->code, 422, "$path: a form that does not exist 422";
    is $r->{json}{errors}[0]{pointer}, '/scopes/1', 'pointer to the item';
    is $r->{json}{errors}[0]{code}, 'enum', 'code enum';
    $r = api(POST => $path, token => $tok,
             body => { name => 'x', scopes => [ "form:$f", 'forms:read', "form:$foreign" ] });
    is $r->code, 422, "$path: another account's form 422";
    is_deeply [ map { $_->{pointer} } @{ $r->{json}{errors} } ], [ '/scopes/2' ], 'only that item';
}

# a delegate limited to one form, asking for another form of the account:
# that form exists, so the answer is the subset rule's 403, not 422
my $g = form();
my $d = api(POST => '/v1/keys', token => $tok, body => { name => 'd', scopes => [ 'keys:write', 'forms:read', "form:$f" ] })->{json}{secret};
$r = api(POST => '/v1/keys', token => $d, body => { name => 'x', scopes => [ 'forms:read', "form:$g" ] });
is $r->code, 403, 'delegate: another form of the account is 403 (subset rule)';
$r = api(POST => '/v1/keys', token => $d, body => { name => 'x', scopes => [ 'forms:read', "form:$missing" ] });
is $r->code, 422, 'delegate: a missing form is 422';

done_testing;
