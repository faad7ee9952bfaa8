# A form of several pages in a real browser: headless Chromium walks it
# as a person does (t/js/pages_browser.mjs, over the DevTools protocol,
# no npm package): Enter presses Next, Back leaves a page the browser's
# own checks would hold, everything typed is kept, Submit lands on the
# thanks page; at 320 px in light and dark and right to left, nothing is
# wider than the screen, every control is labelled, the progress bar is
# named. Skipped where Chromium is not installed (scripts/install-deps
# screenshot installs it).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();

my ($chromium) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
plan skip_all => 'no chromium' unless $chromium;
my ($maj, $min) = (`node --version 2>/dev/null` // '') =~ /^v(\d+)\.(\d+)/;
plan skip_all => 'no node with WebSocket' unless $maj && ($maj > 20 || ($maj == 20 && $min >= 10));

my $T = JSON::PP::true;
my ($tok) = signup();
my @fields = (
    { key => 'p_you', type => 'page', label => 'About you' },
    { key => 'name', type => 'text', label => 'Name', required => $T },
    { key => 'member', type => 'boolean', label => 'I am a member' },
    { key => 'p_visit', type => 'page', label => 'Your visit', description => 'When and how.' },
    { key => 'email', type => 'email', label => 'E-mail', required => $T },
    { key => 'p_last', type => 'page', label => 'Last words' },
    { key => 'stars', type => 'rating', label => 'Stars', required => $T },
);
my @ids;
for my $locale (undef, 'he') {
    my $f = make_form($tok, { title => 'Pages in a browser', fields => \@fields,
                              $locale ? (settings => { locale => $locale }) : () });
    is api(POST => "/v1/forms/$f->{id}/publish", token => $tok)->code, 200, 'published' . ($locale ? " ($locale)" : '');
    push @ids, $f->{id};
}
my $url = sub { Apache::TestRequest::resolve_url(BASE . "/f/$_[0]") };
my @out = `node --experimental-websocket --no-warnings "$FindBin::Bin/js/pages_browser.mjs" $chromium '@{[ $url->($ids[0]) ]}' '@{[ $url->($ids[1]) ]}' 2>&1`;
my $n = 0;
for (@out) {
    my $c = eval { JSON::PP->new->decode($_) } or do { diag $_; next };
    ok $c->{ok}, $c->{name} or diag $c->{diag};
    $n++;
}
cmp_ok $n, '>=', 25, 'every check of the walk reported';
my $s = api(GET => "/v1/forms/$ids[0]/submissions", token => $tok)->{json}{data}[0];
is_deeply $s && $s->{data}, { name => 'Ada', member => JSON::PP::false, email => 'ada@example.org', stars => 4 },
    'the browser\'s submission: every page\'s answers';

done_testing;
