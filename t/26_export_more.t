# GET /v1/me/export has the data that forms doing more keep: a drawn
# signature's image is a stored file, listed as a "file" line with its
# download URL (as a file field's files are); a submission line carries
# what the form made of the answers (calculated scores, the spam score,
# the ending reached) as the submission's own representation does; and
# the account's asks (the question, the address asked) are lines of kind
# "ask". The calculated values and spam score are written in the database
# (t/34_scores.t and t/34_partial_spam.t make them through the page).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();
use MIME::Base64 ();

my $J = JSON::PP->new->utf8->canonical;
sub lit { my $s = shift; $s =~ s/'/''/g; "'$s'" }
my ($tok) = signup();
verify_account($tok); # an ask with "to"
my $f = make_form($tok, { title => 'Signed', fields => [
    { key => 'sign', type => 'signature', label => 'Signature' } ] });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $png = "\x89PNG\r\n\x1a\n" . pack('N', 13) . 'IHDR' . pack('NNCCCCC', 1, 1, 8, 0, 0, 0, 0) . "\0\0\0\0"
        . pack('N', 0) . 'IEND' . "\xaeB`\x82";
my $r = api(POST => "/f/$fid", headers => { Accept => 'application/json' }, body => { sign => { name => 'Ada',
    image => { name => 's.png', type => 'image/png', data => MIME::Base64::encode_base64($png, '') } } });
is $r->code, 201, 'a signed submission' or diag $r->content;
my $sid = $r->{json}{id};
my $img = $r->{json}{data}{sign}{image} || {};
ok $img->{id}, 'its drawn image is a stored file';
psql("UPDATE submissions SET calculated = '{\"score\": 7}', spam_score = 12 WHERE id = " . lit($sid));
my $ask = api(POST => '/v1/asks', token => $tok, body => { to => "asked$$\@example.org", message => 'Approve?',
    schema => { type => 'object', properties => { ok => { enum => ['yes', 'no'] } } } });
is $ask->code, 201, 'an ask' or diag $ask->content;

my $x = api(GET => '/v1/me/export', token => $tok);
is $x->code, 200, 'GET /v1/me/export: 200';
my @lines = map { $J->decode($_) } grep { length } split /\n/, $x->content;
my ($s) = grep { $_->{kind} eq 'submission' && $_->{id} eq $sid } @lines;
ok $s, 'the submission line';
is_deeply $s->{calculated}, { score => 7 }, '  with what the form calculated';
is $s->{spamScore}, 12, '  and its spam score';
my ($file) = grep { $_->{kind} eq 'file' && $_->{submissionId} eq $sid } @lines;
ok $file, 'the signature\'s image is a file line';
is $file->{fieldKey}, 'sign', '  of the signature field';
is $file->{id}, $img->{id}, '  the stored file';
my $dl = api(GET => $file->{url} =~ s{^https?://[^/]+(?:/api)?}{}r, token => $tok);
is $dl->code, 200, '  its URL downloads it';
is $dl->content, $png, '  the image itself';
my ($a) = grep { $_->{kind} eq 'ask' } @lines;
ok $a, 'the ask is a line of kind ask';
is $a->{id}, $ask->{json}{id}, '  that ask';
is $a->{to}, "asked$$\@example.org", '  with the address asked';
is $a->{message}, 'Approve?', '  and the question';

done_testing;
