# The authorization page in trouble: a person reads a page, never a
# problem document. Too many sign-in codes asked for from one address
# (the recover limit) gives the sign-in page again with the reason and
# Retry-After, the API key way still offered; a database that cannot be
# reached gives a page that says so (503, Retry-After). Each on an
# instance of its own (the suite's server has limits no test reaches).
use strict;
use warnings;
use utf8;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use FormsvcAuthorize;
use HTTP::Request::Common ();
use URI;

my $CB = 'https://app.example/trouble-cb';
my $app = register_app(redirect_uris => [$CB], name => 'Trouble assistant');

sub url_on {
    my ($inst) = @_;
    my $u = URI->new($inst->url . '/oauth/authorize');
    $u->query_form(response_type => 'code', client_id => $app->{client_id}, redirect_uri => $CB,
                   code_challenge => (pkce())[1], code_challenge_method => 'S256', state => 'st');
    return $u->as_string;
}

# a step of the page, posted back to the instance it came from
sub post_on {
    my ($inst, $ua, $page, %f) = @_;
    my @kv;
    my ($form) = $page->decoded_content =~ m{(<form.*?</form>)}s;
    while ($form =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g) {
        push @kv, $1, $2 unless $1 eq 'step';
    }
    s/&amp;/&/g for @kv;
    return $ua->request(HTTP::Request::Common::POST($inst->url . '/oauth/authorize', [@kv, %f]));
}

{
    my $inst = FormsvcInstance->start(name => 'authz-limit', conf => "FormsvcRateLimit recover 2 3600\n");
    my $ua = browser();
    $ua->default_header('X-Client-IP' => '198.51.100.77');
    my $page = $ua->get(url_on($inst));
    is $page->code, 200, 'the sign-in page';
    my @codes;
    for my $i (1 .. 3) {
        my $r = post_on($inst, $ua, $page, step => 'email', email => "trouble$i-$$\@example.com");
        push @codes, $r->code;
        next unless $i == 3;
        is_deeply \@codes, [200, 200, 429], 'two codes, then the third from the same address is 429';
        like $r->header('Content-Type'), qr{^text/html}, 'as a page, not problem+json';
        ok(($r->header('Retry-After') // 0) > 0, 'with Retry-After');
        like $r->decoded_content, qr/Too many sign-in codes were asked for just now/, 'saying why';
        like $r->decoded_content, qr/<label for="email">/, 'the sign-in again';
        like $r->decoded_content, qr/name="key"/, 'the API key way still offered';
        like $r->header('Content-Security-Policy') // '', qr/frame-ancestors 'none'/, 'the page keeps its CSP';
        my $ar = browser();
        $ar->default_header('X-Client-IP' => '198.51.100.77', 'Accept-Language' => 'ar');
        my $p = $ar->get(url_on($inst));
        my $again = post_on($inst, $ar, $p, step => 'email', email => "trouble-ar-$$\@example.com");
        is $again->code, 429, 'in Arabic too';
        like $again->decoded_content, qr/<html lang="ar" dir="rtl">.*رموز تسجيل الدخول/s, 'the reason in Arabic';
    }
    $inst->stop;
}

{
    my $inst = FormsvcInstance->start(name => 'authz-nodb', db => "formsvc_nonexistent_$$");
    my $ua = browser();
    my $r = $ua->get(url_on($inst));
    is $r->code, 503, 'no database: 503';
    like $r->header('Content-Type'), qr{^text/html}, 'as a page';
    ok(($r->header('Retry-After') // 0) > 0, 'with Retry-After');
    like $r->decoded_content, qr/The service has a temporary problem\. Nothing was shared\./, 'saying nothing was shared';
    like $inst->error_log, qr/FS00306/, 'the log says the database is away';
    $inst->stop;
}

done_testing;
