# Submission data does not leave through the event feed or webhooks without
# submissions:read: GET /v1/events leaves submission.created
# events out for a credential without it; POST /v1/webhooks subscribing to
# them is 403 insufficient-scope naming submissions:read. form: constraints
# narrow both to the credential's forms.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use MIME::Base64 ();

my ($tok, $su) = signup();
sql("UPDATE users SET verified = true WHERE id = '$su->{user}{id}'"); # keys and webhooks quotas
my $P = base_url() . '/problems/';

sub form {
    my $r = api(POST => '/v1/forms', token => $tok, body => {
        title => shift, fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
    die $r->content unless $r->code == 201;
    my $id = $r->{json}{id};
    die 'publish' unless api(POST => "/v1/forms/$id/publish", token => $tok)->code == 200;
    return $id;
}
sub key {
    my $r = api(POST => '/v1/keys', token => $tok, body => { name => 'k', scopes => [@_] });
    die $r->content unless $r->code == 201;
    return $r->{json}{secret};
}
sub feed {
    my ($k, $q) = @_;
    my $r = api(GET => '/v1/events?limit=100' . ($q // ''), token => $k);
    die $r->content unless $r->code == 200;
    return $r->{json};
}
sub kinds { [ map { "$_->{type} $_->{formId}" } @{ $_[0]{data} } ] }

my $f1 = form('One');
my $f2 = form('Two');
is api(POST => "/f/$f1", body => { name => 'secret one' })->code, 201, 'submission to f1';
is api(POST => "/f/$f2", body => { name => 'secret two' })->code, 201, 'submission to f2';

# ---- the feed ------------------------------------------------------------------
my $all = feed($tok);
is_deeply kinds($all), [ "form.published $f1", "form.published $f2",
                         "submission.created $f1", "submission.created $f2" ],
    'full access: every event';

my $hooks_only = feed(key('webhooks:read'));
is_deeply kinds($hooks_only), [ "form.published $f1", "form.published $f2" ],
    'webhooks:read alone: no submission.created events';
unlike join(' ', map { JSON::PP->new->canonical->encode($_) } @{ $hooks_only->{data} }),
    qr/secret (?:one|two)/, 'no answer appears anywhere in the feed';
is MIME::Base64::decode_base64url($hooks_only->{nextCursor}), "events:$hooks_only->{data}[-1]{id}",
    'nextCursor is the last event it saw';
ok !$hooks_only->{hasMore}, 'hasMore counts only what it may see';

# paging through the filtered feed, one event a page
my $k = key('webhooks:read');
my ($after, @seen) = (undef);
for (1 .. 5) {
    my $r = feed($k, '&limit=1' . ($after ? "&after=$after" : ''));
    push @seen, map { $_->{type} } @{ $r->{data} };
    $after = $r->{nextCursor};
    last unless $r->{hasMore};
}
is_deeply \@seen, [ 'form.published', 'form.published' ], 'paging: one page each, no submission';

is_deeply kinds(feed(key('webhooks:read', 'submissions:read'))), kinds($all),
    'webhooks:read + submissions:read: every event';
is_deeply kinds(feed(key('webhooks:read', 'submissions:write'))), kinds($all),
    'submissions:write implies read';

# form: constraints
is_deeply kinds(feed(key('webhooks:read', 'submissions:read', "form:$f2"))),
    [ "form.published $f2", "submission.created $f2" ], 'form-constrained: only its form';
is_deeply kinds(feed(key('webhooks:read', "form:$f2"))), [ "form.published $f2" ],
    'form-constrained without submissions:read: its form, no submissions';

# ---- webhooks --------------------------------------------------------------------
my $url = 'http://127.0.0.1:9/hook';
sub hook { api(POST => '/v1/webhooks', token => $_[1], body => $_[0]) }
my $w = key('webhooks:write');
my $r = hook({ url => $url, events => [ 'form.published', 'submission.created' ] }, $w);
is $r->code, 403, 'webhooks:write alone cannot route submissions';
is $r->{json}{type}, "${P}insufficient-scope", 'insufficient-scope';
is $r->{json}{requiredScope}, 'submissions:read', 'requiredScope names submissions:read';
like $r->header('WWW-Authenticate'), qr/scope="submissions:read"/, 'and WWW-Authenticate says so';
is hook({ url => $url, events => ['form.closed'] }, $w)->code, 201, 'form events need only webhooks:write';
is hook({ url => $url, events => ['submission.created'] },
        key('webhooks:write', 'submissions:read'))->code, 201, 'with submissions:read: 201';
is hook({ url => $url, events => ['submission.created'] }, $tok)->code, 201, 'full access: 201';
$r = hook({ url => $url, events => ['submission.created'] }, key('webhooks:read', 'submissions:read'));
is $r->{json}{requiredScope}, 'webhooks:write', 'webhooks:write is still needed';

my $fk = key('webhooks:write', 'submissions:read', "form:$f2");
is hook({ url => $url, events => ['submission.created'], formId => $f1 }, $fk)->code, 422,
    'form-constrained: not for another form';
is hook({ url => $url, events => ['submission.created'], formId => $f2 }, $fk)->code, 201,
    'form-constrained: its own form';

done_testing;
