# GET /v1/me/export holds the account's unfinished partial answers
# (settings.partial) as lines of kind "partial", as GET
# .../submissions?completed=false shows them: they are answers the account
# keeps (privacy.md), and the export is to have every piece of its data.
# Another account's partials are not in it. On the old code the export
# had no partial line.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(make_form);
use JSON::PP ();
use URI::Escape qw(uri_escape_utf8);

my $J = JSON::PP->new->utf8->canonical;
my $T = JSON::PP::true;

# a form of two pages keeping partial answers, and one "save and continue
# later" on its first page
sub partial_of {
    my ($tok, $name) = @_;
    my $f = make_form($tok, { title => 'Partial', settings => { partial => $T }, fields => [
        { key => 'name', type => 'text', label => 'Name' },
        { key => 'p2', type => 'page', label => 'Two' },
        { key => 'more', type => 'text', label => 'More' } ] });
    my $fid = $f->{id};
    is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
    my $page = api(GET => "/f/$fid", headers => { Accept => 'text/html' });
    my ($t) = $page->content =~ /<input type="hidden" name="_token" value="([^"]*)">/;
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) }
        ['_token', $t // ''], ['name', $name], ['_nav', 'save'];
    my $r = api(POST => "/f/$fid", body => $body,
                headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
    is $r->code, 200, "saved for later ($name)";
    my $list = api(GET => "/v1/forms/$fid/submissions?completed=false", token => $tok);
    is scalar @{ $list->{json}{data} || [] }, 1, '  one partial in the list';
    return ($fid, $list->{json}{data}[0]);
}

my ($tok) = signup();
my ($other) = signup();
my ($fid, $item) = partial_of($tok, 'Ada');
my ($ofid, $oitem) = partial_of($other, 'Zed');

my $x = api(GET => '/v1/me/export', token => $tok);
is $x->code, 200, 'GET /v1/me/export: 200';
my @lines = map { $J->decode($_) } grep { length } split /\n/, $x->content;
my @p = grep { $_->{kind} eq 'partial' } @lines;
is scalar @p, 1, 'one line of kind partial';
my %want = (%$item, kind => 'partial');
is_deeply $p[0], \%want, '  as the list shows it (id, formId, data, page, times), with its kind';
is $p[0]{data}{name}, 'Ada', '  with the answers so far';
ok !(grep { ($_->{id} // '') eq $oitem->{id} || ($_->{formId} // '') eq $ofid } @lines),
   "another account's partial and form are not in it";

# the export link checks completed=false as the export of its format
# does: JSON Lines only (before, csv and xlsx gave a URL that answered 422)
for my $fmt (qw(csv xlsx)) {
    my $l = api(GET => "/v1/forms/$fid/submissions/export/link?format=$fmt&completed=false", token => $tok);
    is $l->code, 422, "export link, $fmt of completed=false: 422";
    is $l->{json}{errors}[0]{pointer}, '/completed', '  at /completed';
}
my $l = api(GET => "/v1/forms/$fid/submissions/export/link?format=jsonl&completed=false", token => $tok);
is $l->code, 200, 'export link, jsonl of completed=false: 200';
my $path = substr $l->{json}{url} // '', length base_url();
my $j = api(GET => $path, token => $tok, headers => $l->{json}{headers});
is $j->code, 200, '  its URL answers 200';
is scalar(grep { length } split /\n/, $j->content), 1, '  with the partial';

done_testing;
