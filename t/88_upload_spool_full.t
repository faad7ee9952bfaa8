# An upload the spool has no room for (FormsvcUploadTempMax here; a full or
# unwritable FormsvcUploadTempDir takes the same path): a browser's post
# gets the form back with everything typed (before and after the file) and
# a notice, 503 with Retry-After, as when the database is away; before,
# the read stopped at the file and the browser got a problem+json, every
# answer lost. A script's post still gets the 503 problem. Nothing is
# stored; the next upload that fits goes in.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql uniq_email);
use HTTP::Request::Common ();
use LWP::UserAgent;

delete $ENV{LD_PRELOAD};
my $inst = FormsvcInstance->start(name => 'spoolfull', conf => <<"CONF");
FormsvcUploadTempMax 1
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified submissions 1000000
CONF

my $tok = $inst->api(POST => '/v1/signup', body => { email => uniq_email() })->{json}{apiKey}{secret};
ok $tok, 'signed up';
my $fid = $inst->published_form($tok, fields => [
    { key => 'name', type => 'text', label => 'Name' },
    { key => 'cv', type => 'file', label => 'CV' },
    { key => 'note', type => 'text', label => 'Note' } ]);

my $ua = LWP::UserAgent->new(timeout => 30, max_redirect => 0);
sub upload {
    my ($accept, $data, $n) = @_;
    return $ua->request(HTTP::Request::Common::POST($inst->url . "/f/$fid", Accept => $accept,
        Content_Type => 'form-data',
        Content => [ name => "before$n",
                     cv => [ undef, 'x.bin', 'Content-Type' => 'application/octet-stream', Content => $data ],
                     note => "after$n" ]));
}

my $r = upload('text/html', 'y' x 1_500_000, 1);
is $r->code, 503, 'a browser upload past the spool: 503';
is $r->header('Retry-After'), 30, '... Retry-After: 30';
like $r->header('Content-Type') // '', qr{^text/html}, '... an HTML page, not problem+json';
my $page = $r->decoded_content // '';
like $page, qr/value="before1"/, '... the answer before the file given back';
like $page, qr/value="after1"/, '... and the one after it';
like $page, qr/role="alert"/, '... with the notice';
like $inst->error_log, qr/FS03776/, 'FS03776 logged';

$r = upload('application/json', 'y' x 1_500_000, 2);
is $r->code, 503, 'a script upload past the spool: 503';
like $r->header('Content-Type') // '', qr{^application/problem\+json}, '... a problem';
ok $r->header('Retry-After'), '... with Retry-After';

is psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 0, 'nothing stored';
$r = upload('text/html', 'hello', 3);
is $r->code, 303, 'the next upload that fits goes in (303)';
is psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 1, 'stored once';

$inst->stop;
done_testing;
