# /f/{idOrSlug} whose id or slug decodes to bytes that are not UTF-8 (%ff,
# an overlong %c0%80, a surrogate's %ed%a0%80) is a form that does not
# exist: 404, on the page, its JSON view, a post, /thanks, /decline and
# /declined (the database refused such bytes as a parameter: a 500 and an
# error-log line each).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

for my $ref ('%ff', '%c0%80', '%ed%a0%80', 'ok-slug%fe') {
    for my $req ([GET => "/f/$ref", 'application/json'], [GET => "/f/$ref", 'text/html'],
                 [POST => "/f/$ref", 'application/json', '{"a":1}'],
                 [GET => "/f/$ref/thanks", 'application/json'], [GET => "/f/$ref/declined", 'text/html'],
                 [POST => "/f/$ref/decline", 'application/json', '']) {
        my ($m, $path, $accept, $body) = @$req;
        my $r = api($m => $path, headers => { Accept => $accept }, defined $body ? (body => $body) : ());
        is $r->code, 404, "$m $path ($accept): 404" or diag $r->content;
    }
}
my $r = api(GET => '/f/%ff', headers => { Accept => 'application/json' });
is $r->header('Content-Type'), 'application/problem+json', 'the JSON view answers a problem';
is $r->{json}{type}, base_url() . '/problems/not-found', 'not-found';

done_testing;
