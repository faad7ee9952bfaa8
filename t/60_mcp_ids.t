# A JSON-RPC id comes back exactly as sent, or the request is refused: an
# integer id beyond -(2^63-1)..2^63-1 was answered with another id (json-c
# clamps it: 2^64 came back as 18446744073709551615, -2^63-1 as -2^63),
# which the client matches to no request of its own.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my ($secret) = signup();
my %h = (Accept => 'application/json, text/event-stream');

for my $id ('9223372036854775807', '-9223372036854775807', '0', '"x"') {
    my $r = api(POST => '/mcp', token => $secret, headers => \%h,
                body => qq({"jsonrpc":"2.0","id":$id,"method":"ping"}));
    is $r->code, 200, "id $id: 200";
    like $r->content, qr/"id":\Q$id\E[,}]/, "id $id: the same id in the answer" or diag $r->content;
}
for my $id ('9223372036854775808', '18446744073709551616', '-9223372036854775809', '1' x 400) {
    my $r = api(POST => '/mcp', token => $secret, headers => \%h,
                body => qq({"jsonrpc":"2.0","id":$id,"method":"ping"}));
    is $r->code, 400, 'id ' . substr($id, 0, 24) . ': 400';
    is $r->{json}{error}{code}, -32600, 'invalid request';
    ok exists $r->{json}{id} && !defined $r->{json}{id}, 'answered with id null, not another number'
        or diag $r->content;
}

done_testing;
