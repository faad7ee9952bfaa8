# A problem's instance is a URI reference, and the problem valid JSON in
# UTF-8, whatever bytes the request's path decodes to: %ff, an overlong
# %c0%80, a lone surrogate's %ed%a0%80, a control character or a space
# are escaped again, not copied into the body.
use strict;
use warnings;
use Test::More;
use Encode ();
use JSON::PP ();
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my ($token) = signup();

sub strict_json {
    my $res = shift;
    my $text = eval { Encode::decode('UTF-8', $res->content, Encode::FB_CROAK) };
    return undef unless defined $text;
    return eval { JSON::PP->new->decode($text) };
}

for my $case (['/v1/forms/%ff', '/api/v1/forms/%FF', $token],
              ['/v1/forms/%c0%80', '/api/v1/forms/%C0%80', $token],
              ['/v1/forms/%ed%a0%80/fields/x', '/api/v1/forms/%ED%A0%80/fields/x', $token],
              ['/v1/webhooks/a%0ab%20c', '/api/v1/webhooks/a%0Ab%20c', $token],
              ['/v1/nothing-%fe', '/api/v1/nothing-%FE', undef]) {
    my ($path, $instance, $tok) = @$case;
    my $r = api(GET => $path, defined $tok ? (token => $tok) : ());
    is $r->code, 404, "$path: 404";
    is $r->header('Content-Type'), 'application/problem+json', "$path: a problem";
    my $p = strict_json($r);
    ok $p, "$path: the problem is valid JSON in UTF-8" or diag $r->content;
    is $p && $p->{instance}, $instance, "$path: instance escaped again";
}

# A path of plain characters is its instance unchanged.
my $r = api(GET => '/v1/forms/frm_nothing', token => $token);
is strict_json($r)->{instance}, '/api/v1/forms/frm_nothing', 'a plain path is kept as it is';

done_testing;
