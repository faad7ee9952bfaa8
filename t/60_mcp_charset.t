# The charset of a JSON body: POST /mcp takes application/json in UTF-8
# only, as /v1 does (another charset is 415 unsupported-media-type), and a
# Content-Type that names its charset twice is 415 on both, whatever the
# two say; nothing is done for a refused request.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;

my ($secret) = signup();
my $accept = 'application/json, text/event-stream';
my $list = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

for my $ct ('application/json; charset=iso-8859-1', 'application/json; charset=utf-16',
            'application/json; charset=utf-8; charset=latin1', 'application/json;charset=utf-8;charset=utf-8') {
    my $r = api(POST => '/mcp', token => $secret, body => $list,
                headers => { Accept => $accept, 'Content-Type' => $ct });
    problem_ok($r, 415, 'unsupported-media-type', "POST /mcp as $ct");
}
for my $ct ('application/json', 'application/json; charset=utf-8', 'application/json; charset="UTF-8"') {
    my $r = api(POST => '/mcp', token => $secret, body => $list,
                headers => { Accept => $accept, 'Content-Type' => $ct });
    is $r->code, 200, "POST /mcp as $ct: 200";
    ok $r->{json}{result}{tools}, "POST /mcp as $ct: the tools";
}

my $count = sub { scalar @{ api(GET => '/v1/forms', token => $secret)->{json}{data} } };
my $before = $count->();
for my $ct ('application/json; charset=utf-8; charset=latin1', 'application/json; charset=latin1; charset=utf-8') {
    my $r = api(POST => '/v1/forms', token => $secret, body => '{"title":"Twice"}',
                headers => { 'Content-Type' => $ct });
    problem_ok($r, 415, 'unsupported-media-type', "POST /v1/forms as $ct");
}
is $count->(), $before, 'no form was made by a refused request';
my $r = api(POST => '/v1/forms', token => $secret, body => '{"title":"Once"}',
            headers => { 'Content-Type' => 'application/json; charset=utf-8' });
is $r->code, 201, 'one charset=utf-8 is taken';

done_testing;
