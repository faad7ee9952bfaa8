# POST /v1/erasures deletes the Idempotency-Key records of the submissions
# it erases: the record kept the first answer (the answers, sealed) for 24
# hours, and a retry with the same key and body was answered 201 with the
# erased submission as if it still existed. After the erasure the record
# is gone from the database and the retry is a new submission; another
# submission's record stays.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();

my $J = JSON::PP->new->utf8->canonical;
sub lit { my $s = shift; $s =~ s/'/''/g; "'$s'" }
my ($tok) = signup();
my $f = make_form($tok, { title => 'Replay', fields => [ { key => 'email', type => 'email', label => 'E-mail' } ] });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
sub submit {
    my ($email, $key) = @_;
    return api(POST => "/f/$fid", body => $J->encode({ email => $email }),
               headers => { 'Idempotency-Key' => $key, Accept => 'application/json' });
}
my $x = "rp$$\@example.org";
my $r = submit($x, "k-x-$$");
is $r->code, 201, 'a submission with an Idempotency-Key';
my $sid = $r->{json}{id};
my $other = submit("other$$\@example.org", "k-o-$$");
is $other->code, 201, 'another one';
is psql("SELECT count(*) FROM idempotency WHERE scope = " . lit($fid)), 2, 'their records';

$r = api(POST => '/v1/erasures', token => $tok, body => { email => $x });
is $r->{json}{deleted}, 1, 'the erasure deletes one submission' or diag $r->content;
is psql("SELECT count(*) FROM idempotency WHERE scope = " . lit($fid) . " AND key = " . lit("k-x-$$")), 0,
   'its Idempotency-Key record is gone';
is psql("SELECT count(*) FROM idempotency WHERE scope = " . lit($fid) . " AND key = " . lit("k-o-$$")), 1,
   'the other submission\'s record stays';
$r = submit($x, "k-x-$$");
is $r->code, 201, 'the retry is answered 201';
isnt $r->{json}{id}, $sid, 'as a new submission, not the erased one replayed';

done_testing;
