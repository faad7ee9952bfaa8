# A pattern is read by one engine: what the owner API accepted when the
# field was defined is what checks the answers (ECMA-262 escapes included).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my ($key) = signup();
my $r = api(POST => '/v1/forms', token => $key, body => { title => 'Codes', fields => [
    { key => 'code', type => 'text', label => 'Code', required => JSON::PP::true,
      validation => { pattern => '^\u0041[0-9]{2}\d$' } },
    { key => 'word', type => 'text', label => 'Word', validation => { pattern => '^[\s\S]{2}$' } } ] });
is $r->code, 201, 'ECMA-262 escapes accepted in a definition';
my $fid = $r->{json}{id};
is api(POST => "/v1/forms/$fid/publish", token => $key)->code, 200, 'published';
is api(POST => "/f/$fid", body => { code => 'A123', word => 'ok' })->code, 201, 'a matching answer is stored';
$r = api(POST => "/f/$fid", body => { code => 'B123', word => 'abc' });
is $r->code, 422, 'non-matching answers refused';
my %codes = map { $_->{pointer} => $_->{code} } @{ $r->{json}{errors} };
is $codes{'/code'}, 'pattern', '/code: pattern';
is $codes{'/word'}, 'pattern', '/word: pattern';
my $schema = api(GET => "/f/$fid", headers => { Accept => 'application/json' })->{json}{schema};
is $schema->{properties}{code}{allOf}[0]{pattern}, '^\u0041[0-9]{2}\d$', 'the schema publishes the pattern as written';
done_testing;
