# Durability of public submissions: with PostgreSQL stopped mid-suite no 2xx
# is given; JSON callers get 503 with Retry-After, HTML respondents their
# form back with everything typed and a notice (the last page of a form of
# two pages with the answers of the first in its state); after PostgreSQL
# returns the module recovers by itself.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use PublicTest;

my $fid = make_form(title => 'Outage',
    fields => [ { key => 'name', type => 'text', label => 'Name', required => JSON::PP::true },
                { key => 'age', type => 'integer', label => 'Age' } ]);
my $url = form_url($fid);
# this process has served the form once: it keeps a copy for outages
is req(GET => $url)->code, 200, 'page served while the database is up';
ok -s "$FindBin::Bin/logs/formsvc-forms/$fid.json", 'last-known copy kept for every child of this machine';
# a form that takes answers only through its links (settings.linkRequired)
my $lfid = make_form(title => 'Links only', fields => [ { key => 'name', type => 'text', label => 'Name' } ],
                     settings => { linkRequired => JSON::PP::true });
is req(GET => form_url($lfid))->code, 403, 'a form that needs a link, opened without one: 403';

# a form of two pages, its first page answered while the database is up:
# the last page, sent during the outage, comes back with every answer
my $pid = make_form(title => 'Outage, two pages',
    fields => [ { key => 'who', type => 'text', label => 'Who', required => JSON::PP::true },
                { key => 'p2', type => 'page', label => 'Two' },
                { key => 'what', type => 'text', label => 'What' } ]);
my $page2 = req(POST => form_url($pid), body => '_nav=next&who=Ida', type => 'application/x-www-form-urlencoded',
                headers => { Accept => 'text/html' })->content;
my %hidden = $page2 =~ /<input type="hidden" name="(_token|_state)" value="([^"]*)">/g;
like $page2, qr/Page 2 of 2/, 'a form of two pages: its second page while the database is up';
my $last = join '&', "_token=$hidden{_token}", "_state=$hidden{_state}", '_nav=submit', 'what=tea';

my $stopped = 0;
END { pg_ctl('start') if $stopped }
# Expected in the log meanwhile: the outage, and the 503s of these requests
# (this form, and the form never seen).
my $forms = qr/(?:\Q$fid\E|\Q$lfid\E|\Q$pid\E|frm_0{26})/;
my $r;
expect_log([outage_lines(), qr{FS00102: 503 service-unavailable for /api/f/$forms$},
            qr{FS00701: 503 service-unavailable \(page\) for /api/f/$forms$},
            qr{FS00702: 503 service-unavailable: form $forms given back}], sub {
    pg_ctl('stop');
    $stopped = 1;

    $r = req(POST => $url, body => '{"name":"Ada"}', type => 'application/json');
    is $r->code, 503, 'JSON post with the database down: 503';
    is $r->{json}{type}, base_url() . '/problems/service-unavailable', 'service-unavailable problem';
    ok $r->header('Retry-After') >= 1, 'Retry-After';
    ok $r->{json}{retryAfter} >= 1, 'retryAfter';

    $r = req(POST => $url, body => 'name=Grace+%3Cb%3E&age=85', type => 'application/x-www-form-urlencoded',
             headers => { Accept => 'text/html' });
    is $r->code, 503, 'HTML post with the database down: 503';
    like $r->header('Content-Type'), qr{text/html}, 'a page';
    ok $r->header('Retry-After') >= 1, 'page Retry-After';
    like $r->content, qr/class="notice" role="alert"/, 'with a notice';
    like $r->content, qr/please submit again/, 'that says to submit again';
    like $r->content, qr/name="name" value="Grace &lt;b&gt;"/, 'everything typed kept (escaped)';
    like $r->content, qr/name="age" value="85"/, 'numbers kept';
    like $r->content, qr/<form method="post"/, 'the form itself';

    $r = req(POST => form_url($pid), body => $last, type => 'application/x-www-form-urlencoded',
             headers => { Accept => 'text/html' });
    is $r->code, 503, 'the last page of two sent with the database down: 503';
    like $r->content, qr/Page 2 of 2/, 'that page again';
    like $r->content, qr/name="what" value="tea"/, 'with what was typed on it';
    my %again = $r->content =~ /<input type="hidden" name="(_token|_state)" value="([^"]*)">/g;
    ok $again{_state} && $again{_token} eq $hidden{_token}, 'the answers of page 1 carried on, the same token';
    $last = join '&', "_token=$again{_token}", "_state=$again{_state}", '_nav=submit', 'what=tea';

    $r = req(GET => $url, headers => { Accept => 'application/json' });
    is $r->code, 503, 'JSON view with the database down: 503';
    $r = req(GET => form_url($lfid));
    is $r->code, 403, 'the last-known copy of a form that needs a link is not shown without one';
    like $r->content, qr/This form needs a personal link/, 'the page says it needs the link';
    $r = req(GET => form_url('frm_00000000000000000000000000'));
    is $r->code, 503, 'a form never seen: 503 page';
    like $r->content, qr/Temporarily unavailable/, 'that says so';

    pg_ctl('start');
    $stopped = 0;
    $r = req(POST => $url, body => '{"name":"Ada"}', type => 'application/json');
    is $r->code, 201, 'after PostgreSQL returns: 201 without an httpd restart';
    my @codes = map { req(POST => $url, body => qq({"name":"n$_"}), type => 'application/json')->code } 1 .. 5;
    is_deeply \@codes, [(201) x 5], 'and every request after';
    $r = req(POST => form_url($pid), body => $last, type => 'application/x-www-form-urlencoded',
             headers => { Accept => 'text/html' });
    is $r->code, 303, 'the page given back, sent again: stored';
});
is psql("SELECT data->>'who' || ' ' || (data->>'what') FROM submissions WHERE form_id = '$pid'"), 'Ida tea',
    'with the answers of both pages';
is count_subs($fid), 6, 'nothing stored during the outage, everything after';

done_testing;
