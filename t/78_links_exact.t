# Respondent links under concurrency: a link with
# maxUses=N takes exactly N of 40 parallel submissions (the others 409
# link-used), also on a form with maxSubmissions (both locks); 16 repeats
# of one submission (one Idempotency-Key) through a maxUses=1 link are one
# submission and all answered 201; the per-form links quota admits exactly
# its limit out of 20 parallel creations. Requests really overlap:
# pre-forked children open their connection first and are released
# together. Own httpd instance: the submission rate limit is off and the
# links quota small.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use FormsvcTest::Together;

my $QL = 5;
my $inst = FormsvcInstance->start(name => 'links', conf => <<"CONF");
ThreadsPerChild 16
MaxRequestWorkers 64
# every child kept (MaxSpareThreads = MaxRequestWorkers): the base's 60
# stops a child whenever all 64 threads are idle, and the next burst then
# finds the scoreboard full (AH03490, an error line in this log)
MaxSpareThreads 64
DBDMax 16
FormsvcRateLimit submit off
FormsvcRateLimit signup 100000 3600
FormsvcQuota unverified requests 100000
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified links $QL
FormsvcQuota unverified forms 20
CONF
my $url = $inst->url;
my $P = "$url/problems/";

my $n = 0;
my ($tok) = do {
    my $r = $inst->api(POST => '/v1/signup', body => { email => sprintf('lnk%d.%d@example.com', $$, time) });
    die 'signup: ' . $r->status_line unless $r->code == 201;
    $r->{json}{apiKey}{secret};
};


sub form { my (%settings) = @_; $inst->published_form($tok, title => 'race', settings => \%settings) }
sub link_path {
    my ($fid, %b) = @_;
    my $r = $inst->api(POST => "/v1/forms/$fid/links", token => $tok, body => \%b);
    die 'link: ' . $r->status_line . ' ' . $r->content unless $r->code == 201;
    my ($path) = $r->{json}{url} =~ m{^\Q$url\E(/f/.*)$} or die "url $r->{json}{url}";
    return ($r->{json}{id}, $path);
}
sub through { sql("SELECT count(*) FROM submissions WHERE link_id = '$_[0]'") }

# ---- maxUses: exactly N of 40 ---------------------------------------------
for my $case ([3, {}], [10, {}], [4, { maxSubmissions => 30 }]) {
    my ($max, $settings) = @$case;
    my $fid = form(%$settings);
    my ($lid, $path) = link_path($fid, maxUses => $max, metadata => { n => $max });
    my $what = "maxUses $max" . (%$settings ? ' with maxSubmissions' : '');
    my @res = together(40, sub { $inst->request(POST => $path, body => { a => "r$_[0]" }) });
    is scalar(grep { $_->{code} == 201 } @res), $max, "$what: exactly $max of 40 answered 201"
        or diag codes(@res);
    is scalar(grep { $_->{code} == 409 && ($_->{json}{type} // '') eq "${P}link-used" } @res),
        40 - $max, "$what: the rest are 409 link-used";
    is through($lid), $max, "$what: $max stored through the link";
    is sql("SELECT uses FROM links WHERE id = '$lid'"), $max, "$what: uses $max";
    ok !(grep { $_->{code} == 201 && ($_->{json}{linkId} // '') ne $lid } @res),
        "$what: every answer names the link";
}

# ---- one Idempotency-Key through a maxUses=1 link ---------------------------
{
    my $fid = form();
    my ($lid, $path) = link_path($fid, maxUses => 1);
    my $key = "k-$$"; # here: $$ in a burst child is the child's
    my @res = together(16, sub { $inst->request(POST => $path, body => { a => 'same' },
                                      headers => { 'Idempotency-Key' => $key }) });
    is scalar(grep { $_->{code} == 201 } @res), 16, 'repeats through the link: all 201' or diag codes(@res);
    is scalar(grep { ($_->{replayed} // '') eq 'true' } @res), 15, 'fifteen replays';
    is through($lid), 1, 'one stored';
    my $r = $inst->api(POST => $path, body => { a => 'same' }, headers => { 'Idempotency-Key' => $key });
    is $r->code, 201, 'a later retry replays although the link is used up' or diag $r->content;
    is $inst->api(POST => $path, body => { a => 'other' })->code, 409, 'another submission is 409';
}

# ---- the links quota: exactly $QL of 20 ----------------------------------
{
    my $fid = form();
    my @res = together(20, sub { $inst->request(POST => "/v1/forms/$fid/links", token => $tok, body => {}) });
    my @refused = grep { $_->{code} == 403 && ($_->{json}{type} // '') eq "${P}quota-exceeded" } @res;
    is scalar(grep { $_->{code} == 201 } @res), $QL, "links quota: exactly $QL of 20 created" or diag codes(@res);
    is scalar(@refused), 20 - $QL, 'the others 403 quota-exceeded';
    ok !(grep { $_->{json}{quota} ne 'links' || $_->{json}{limit} != $QL || $_->{json}{used} != $QL } @refused),
        'each names the quota links, its limit and the use';
    is sql("SELECT count(*) FROM links WHERE form_id = '$fid'"), $QL, "$QL in the database";
    my $one = $inst->api(GET => "/v1/forms/$fid/links?limit=1", token => $tok)->{json}{data}[0];
    is $inst->api(DELETE => "/v1/forms/$fid/links/$one->{id}", token => $tok)->code, 204, 'delete one';
    is $inst->api(POST => "/v1/forms/$fid/links", token => $tok, body => {})->code, 201,
        'a deleted link frees its place';
    my $f2 = form();
    is $inst->api(POST => "/v1/forms/$f2/links", token => $tok, body => {})->code, 201,
        'the quota is per form';
}

my @bad = grep { /\[[a-z_]+:(error|crit|alert|emerg)\]/ } split /\n/, $inst->error_log;
is scalar(@bad), 0, 'no errors in the instance log' or diag join "\n", @bad[0 .. ($#bad > 10 ? 10 : $#bad)];
done_testing;
