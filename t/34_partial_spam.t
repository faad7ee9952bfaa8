# Partial answers go through the spam score: on a form with
# settings.partial and settings.spamThreshold, answers so far that score
# at or above the threshold (three links: 50 against 40) are not kept,
# neither at "save and continue later" nor at Next, as a filled honeypot's
# are not; so a bot cannot fill the owner's partials (and the
# submission.partial events and webhooks) with what the checks keep out
# of the submissions. Clean answers are kept as before. On the old code
# both flagged steps made a partial with the links.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(make_form);
use JSON::PP ();
use URI::Escape qw(uri_escape_utf8);

my $T = JSON::PP::true;
my ($tok) = signup();
my $f = make_form($tok, { title => 'Partial spam', settings => { partial => $T, spamThreshold => 40 },
    fields => [
        { key => 'name', type => 'text', label => 'Name' },
        { key => 'msg', type => 'textarea', label => 'Message' },
        { key => 'p2', type => 'page', label => 'Two' },
        { key => 'more', type => 'text', label => 'More' } ] });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

sub step {
    my ($nav, %a) = @_;
    my $page = api(GET => "/f/$fid", headers => { Accept => 'text/html' });
    my ($t) = $page->content =~ /<input type="hidden" name="_token" value="([^"]*)">/;
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) }
        ['_token', $t // ''], (map { [$_, $a{$_}] } sort keys %a), ['_nav', $nav];
    return api(POST => "/f/$fid", body => $body,
               headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
}
sub partials {
    my $l = api(GET => "/v1/forms/$fid/submissions?completed=false", token => $tok);
    return @{ $l->{json}{data} || [] };
}
my $links = 'see http://a.example http://b.example www.c.example';

my $r = step('save', name => 'Bot', msg => $links);
is $r->code, 200, 'save with three links: 200';
is scalar(partials()), 0, '  nothing kept';
$r = step('next', name => 'Bot', msg => $links);
is $r->code, 200, 'Next with three links: 200';
like $r->content, qr/Page 2 of 2/, '  the next page, as for anyone';
is scalar(partials()), 0, '  nothing kept';

$r = step('save', name => 'Ann', msg => 'see you at http://a.example');
is $r->code, 200, 'save with one link (15): 200';
like $r->content, qr{<h1>Your answers are saved</h1>}, '  saved';
my @p = partials();
is scalar @p, 1, '  kept';
is $p[0]{data}{name}, 'Ann', '  with the answers so far';

done_testing;
