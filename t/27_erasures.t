# POST /v1/erasures {"email"}: a respondent's erasure request the owner
# received. Every submission of the account's forms whose email field
# answers that address (case and surrounding blanks ignored) goes, with its
# files (their events scrubbed of the answers); a form where the address is only in a text field, and
# another account's identical answers, are untouched. One audit entry and
# one submissions.erased event (a count, never the address).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();
use MIME::Base64 qw(encode_base64);

my $J = JSON::PP->new->utf8->canonical;
sub sqlq { my $s = shift; $s =~ s/'/''/g; "'$s'" }
my ($tok) = signup();
my ($otok) = signup();
my $uid = user_of($tok);
verify_account($tok); # for the webhook at the end
my $ouid = user_of($otok);
my $PNG = "\x89PNG\r\n\x1a\n" . ("\0" x 100) . 'IEND';

sub form {
    my ($t, $fields) = @_;
    my $f = make_form($t, { title => 'E', fields => $fields });
    api(POST => "/v1/forms/$f->{id}/publish", token => $t)->code == 200 or die 'publish';
    return $f->{id};
}
sub submit {
    my ($fid, $data) = @_;
    my $r = api(POST => "/f/$fid", body => $J->encode($data));
    $r->code == 201 or die 'submit: ' . $r->content;
    return $r->{json}{id};
}
my $f1 = form($tok, [{ key => 'email', type => 'email', label => 'E-mail' }, { key => 'n', type => 'text', label => 'N' }]);
my $f2 = form($tok, [{ key => 'contact', type => 'email', label => 'Contact' },
                     { key => 'photo', type => 'file', label => 'Photo' }]);
my $f3 = form($tok, [{ key => 'note', type => 'text', label => 'Note' }]);
my $fo = form($otok, [{ key => 'email', type => 'email', label => 'E-mail' }]);

my @gone = (submit($f1, { email => 'x@example.com', n => '1' }),
            submit($f1, { email => 'x@example.com', n => '2' }),
            submit($f1, { email => 'X@Example.COM', n => '3' }),
            submit($f2, { contact => 'x@example.com',
                          photo => { name => 'a.png', type => 'image/png', data => encode_base64($PNG, '') } }));
my @kept = (submit($f1, { email => 'other@example.com', n => '4' }),
            submit($f3, { note => 'x@example.com' }));
my $theirs = submit($fo, { email => 'x@example.com' });
is psql("SELECT count(*) FROM submission_files WHERE submission_id = " . sqlq($gone[3])), 1, 'a file of one of them';
ok wait_for(sub { psql("SELECT count(*) FROM events WHERE submission_id = " . sqlq($gone[0])) == 1 }, 10, 'an event'),
   'their events';

# ---- who may, what is checked -----------------------------------------------------
my $ro = api(POST => '/v1/keys', token => $tok, body => { name => 'ro', scopes => ['submissions:read'] })->{json}{secret};
my $one = api(POST => '/v1/keys', token => $tok, body => { name => 'one', scopes => ['submissions:write', "form:$f1"] })->{json}{secret};
my $rw = api(POST => '/v1/keys', token => $tok, body => { name => 'rw', scopes => ['submissions:write'] })->{json}{secret};
problem_ok(api(POST => '/v1/erasures', token => $ro, body => { email => 'x@example.com' }), 403,
           'insufficient-scope', 'submissions:read only: 403');
problem_ok(api(POST => '/v1/erasures', token => $one, body => { email => 'x@example.com' }), 403,
           'forbidden', 'a credential limited to one form: 403');
is api(POST => '/v1/erasures', body => { email => 'x@example.com' })->code, 401, 'no credential: 401';
my $r = api(POST => '/v1/erasures', token => $tok, body => { email => 'not an address' });
problem_ok($r, 422, 'validation-failed', 'not an address: 422');
is $r->{json}{errors}[0]{pointer}, '/email', 'at /email';
$r = api(POST => '/v1/erasures', token => $tok, body => { mail => 'x@example.com' });
problem_ok($r, 422, 'validation-failed', 'no email member: 422');
is psql("SELECT count(*) FROM submissions WHERE user_id = " . sqlq($uid)), 6, 'nothing deleted yet';

# ---- the erasure ------------------------------------------------------------------
$r = api(POST => '/v1/erasures', token => $rw, body => { email => ' X@example.com ' });
is $r->code, 200, 'erasure: 200' or diag $r->content;
is $r->{json}{deleted}, 4, 'four submissions, across two forms, whatever the case';
is_deeply [sort @{ $r->{json}{formIds} }], [sort $f1, $f2], 'the forms they were in';
my $evid = $r->{json}{eventId};
like $evid // '', qr/^evt_/, 'the summary event';
is psql("SELECT count(*) FROM submissions WHERE id IN (" . join(',', map { sqlq($_) } @gone) . ")"), 0, 'they are gone';
is psql("SELECT count(*) FROM submissions WHERE id IN (" . join(',', map { sqlq($_) } @kept, $theirs) . ")"), 3,
   'another address, a text field, another account: kept';
is psql("SELECT count(*) FROM submission_files WHERE submission_id = " . sqlq($gone[3])), 0, 'the file went with it';
my $gone_in = "(" . join(',', map { sqlq($_) } @gone) . ")";
is psql("SELECT count(*) FROM events WHERE submission_id IN $gone_in "
        . "AND (NOT (payload ? 'deleted') OR payload::text ILIKE '%example.com%')"), 0,
   'their events are scrubbed of the answers (as any deleted submission\'s)';
is psql("SELECT count(*) FROM events WHERE submission_id = " . sqlq($theirs)), 1, 'the other account\'s event stays';
my $ev = $J->decode(psql("SELECT json_build_object('type', type, 'payload', payload) FROM events WHERE id = " . sqlq($evid)));
is $ev->{type}, 'submissions.erased', 'one submissions.erased event';
is $ev->{payload}{count}, 4, 'with the count';
unlike $J->encode($ev), qr/example\.com/i, 'and not the address';
is psql("SELECT count(*) FROM audit WHERE user_id = " . sqlq($uid) . " AND action = 'submissions.erased'"), 1,
   'one audit entry';
my $a = api(GET => '/v1/audit', token => $tok);
ok((grep { $_->{action} eq 'submissions.erased' } @{ $a->{json}{data} || [] }), 'listed by GET /v1/audit');
is api(GET => "/v1/forms/$f1", token => $tok)->{json}{submissionCount}, 1, 'the form\'s count is down';

$r = api(POST => '/v1/erasures', token => $tok, body => { email => 'x@example.com' });
is $r->code, 200, 'again: 200';
is $r->{json}{deleted}, 0, 'nothing left';
ok !defined $r->{json}{eventId}, 'and no event';
is psql("SELECT count(*) FROM events WHERE user_id = " . sqlq($uid) . " AND type = 'submissions.erased'"), 1,
   'still one event';

# a webhook may subscribe to it
$r = api(POST => '/v1/webhooks', token => $tok, body => { url => 'https://example.com/h', events => ['submissions.erased'] });
is $r->code, 201, 'a webhook subscribes to submissions.erased' or diag $r->content;

done_testing;
