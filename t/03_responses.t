# One way out (response.c): every answer goes through
# formsvc_send_body, so HEAD carries the Content-Length of the body GET
# sends (the problem-type page and the verification pages used to write
# their HTML themselves and answered HEAD without one); the pages the glue
# used to write by hand come from fs_html, with its style sheet allowed by
# hash (no 'unsafe-inline'); a query parameter that cannot be decoded is a
# 400 problem, not a value of its own.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

# ---- HEAD answers as GET, without the body ------------------------------
for my $case (['/problems/validation-failed', {}, 'problem-type page (HTML)'],
              ['/problems/validation-failed', { Accept => 'application/json' }, 'problem type as JSON'],
              ['/healthz', {}, 'healthz'],
              ['/openapi.json', {}, 'OpenAPI document']) {
    my ($path, $h, $what) = @$case;
    my $g = api(GET => $path, headers => $h);
    my $hd = api(HEAD => $path, headers => $h);
    is $hd->code, $g->code, "$what: HEAD status as GET";
    is $hd->content, '', "$what: HEAD has no body";
    is $hd->header('Content-Type'), $g->header('Content-Type'), "$what: same Content-Type";
    is $hd->header('Content-Length'), length($g->content), "$what: Content-Length of GET's body";
}

# The link of a verification mail: HEAD (link checkers) spends nothing and
# answers a page, with its length.
my $hd = api(HEAD => '/verify?token=' . ('A' x 43));
is $hd->code, 200, 'HEAD /verify: 200';
is $hd->content, '', 'HEAD /verify: no body';
like $hd->header('Content-Type') // '', qr{^text/html}, 'HEAD /verify: an HTML page';
ok(($hd->header('Content-Length') // 0) > 0, 'HEAD /verify: Content-Length of its page');

# ---- pages from fs_html -------------------------------------------------
for my $case (['/problems/not-found', 200, 'problem-type page'],
              ['/verify?token=' . ('A' x 43), 200, 'verification button page'],
              ['/verify?token=short', 400, 'link-not-valid page']) {
    my ($path, $code, $what) = @$case;
    my $r = api(GET => $path);
    is $r->code, $code, "$what: $code";
    like $r->header('Content-Type') // '', qr{^text/html; charset=utf-8}, "$what: HTML";
    is $r->header('X-Content-Type-Options'), 'nosniff', "$what: nosniff";
    my $csp = $r->header('Content-Security-Policy') // '';
    like $csp, qr/default-src 'none'/, "$what: CSP default-src 'none'";
    like $csp, qr/style-src 'sha256-[A-Za-z0-9+\/=]+'/, "$what: style allowed by its hash";
    unlike $csp, qr/unsafe-inline/, "$what: no 'unsafe-inline'";
    like $r->content, qr{^<!doctype html>}, "$what: a whole document";
    like $r->content, qr{<meta name="referrer" content="no-referrer">}, "$what: no Referer from the page";
}
# a 43-character token with markup is shown escaped in the button's form
my $r = api(GET => '/verify?token=' . ('A' x 41) . '%22%3C');
is $r->code, 200, 'a well-formed link with markup in its token';
like $r->content, qr{name="token" value="A{41}&quot;&lt;"}, 'the token is escaped in the page';
unlike $r->content, qr{A{41}"<}, 'and never raw';

# ---- query parameters that cannot be decoded ----------------------------
my ($key) = signup();
for my $q ('limit=%zz', 'cursor=%', 'status=%00', 'status=%ff') {
    my $x = api(GET => "/v1/forms?$q", token => $key);
    is $x->code, 400, "?$q: 400";
    is $x->{json}{type}, base_url() . '/problems/malformed-request', "?$q: malformed-request";
}
is api(GET => '/v1/forms?status=dr%61ft', token => $key)->code, 200, 'escapes are decoded';
is api(GET => '/v1/forms?limit=5&&cursor', token => $key)->code, 400,
   'an empty cursor is still a (malformed) cursor';
is api(GET => '/v1/forms?&&limit=5', token => $key)->code, 200, 'empty items are skipped';

done_testing;
