# Partial answers, edits, deletes and scores under concurrency, each
# checked against the database: one resume URL completed from 16 browsers at once is one
# submission (the rest see the thanks page or a page that says the
# answers were sent, never an error); 24 partials completed at once on a
# form with maxSubmissions take exactly its number (the rest 409 pages);
# 16 edits of one submission at once make versions numbered without gaps
# or duplicates and one submission.updated per version; 16 new
# submissions, 12 edits and 12 deletes of the same 12 at once leave the
# insight tallies equal to a recount and submissionCount exact; 48 quiz
# answers at once each stored with its own score. Own httpd
# instance: the submission rate limit is off.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use FormsvcTest::Together;
use HTTP::Request ();
use JSON::PP ();
use LWP::UserAgent;
use URI::Escape qw(uri_escape_utf8);

my $T = JSON::PP::true;
my $inst = FormsvcInstance->start(name => 'partrace', conf => <<"CONF");
ThreadsPerChild 16
MaxRequestWorkers 64
MaxSpareThreads 64
DBDMax 16
FormsvcRateLimit submit off
FormsvcRateLimit signup 100000 3600
FormsvcQuota unverified requests 100000
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified forms 100
CONF
my $url = $inst->url;
sub api { $inst->api(@_) }
my $r = api(POST => '/v1/signup', body => { email => sprintf('pr%d.%d@example.com', $$, time) });
die 'signup: ' . $r->status_line unless $r->code == 201;
my $tok = $r->{json}{apiKey}{secret};

sub unent { my $s = shift; $s =~ s/&quot;/"/g; $s =~ s/&#39;/'/g; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; $s }
sub abs_url { my $u = shift; $u =~ m{^https?://} ? $u : "$url$u" }
sub page_of {
    my $res = shift;
    my $html = $res->decoded_content // $res->content // '';
    my %p = (res => $res, html => $html, code => $res->code);
    $p{action} = unent($1) if $html =~ /<form method="post" action="([^"]*)"/;
    push @{ $p{hidden} }, [$1, unent($2)] while $html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
    $p{url} = unent($1) if $html =~ /<p class="desc resume">[^<]*<a href="([^"]*)">/;
    return \%p;
}
sub ua { LWP::UserAgent->new(timeout => 60, max_redirect => 0) }
sub open_page { page_of(ua()->get(abs_url(shift), Accept => 'text/html')) }
# the request a browser sends for the page's form
sub post_req {
    my ($pg, %o) = @_;
    my @pairs = (@{ $pg->{hidden} || [] }, @{ $o{answers} || [] });
    push @pairs, ['_nav', $o{nav}] if $o{nav};
    my $req = HTTP::Request->new(POST => abs_url($pg->{action}));
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return $req;
}
sub post_page { page_of(ua()->request(post_req(@_))) }
sub form {
    my (%settings) = @_;
    return $inst->published_form($tok, title => 'Race', settings => { partial => $T, %settings }, fields => [
        { key => 'p1', type => 'page', label => 'One' },
        { key => 'name', type => 'text', label => 'Name', required => $T },
        { key => 'p2', type => 'page', label => 'Two' },
        { key => 'stars', type => 'rating', label => 'Stars', required => $T } ]);
}
# a filling-in on its last page (a partial row kept)
sub on_page_two {
    my ($fid, $name) = @_;
    my $p = post_page(open_page("/f/$fid"), nav => 'next', answers => [[name => $name]]);
    die "page 2: $p->{code}" unless $p->{code} == 200 && grep { $_->[0] eq '_resume' } @{ $p->{hidden} || [] };
    return $p;
}
# what each child's Submit got: its status, and a word for its page
sub submit_all {
    my ($pages, $stars) = @_;
    my $go = release_together(scalar @$pages, sub {
        my $req = post_req($pages->[$_[0]], nav => 'submit', answers => [[stars => $stars]]);
        my $ua = ua();
        return sub {
            my $res = $ua->request($req);
            my $c = $res->content // '';
            return $res->code . ($c =~ /were sent already/ ? ':sent' : $c =~ /closed|no longer/i ? ':closed' : '')
                 . ($res->code >= 500 ? ':' . substr($c, 0, 120) : '');
        };
    });
    return $go->();
}
sub tally { my %c; $c{ $_ // 'died' }++ for @_; join ' ', map { "$_ x$c{$_}" } sort keys %c }

# ---- one resume URL completed from 16 browsers at once ---------------------
{
    my $fid = form();
    my $p = on_page_two($fid, 'Ada');
    my @pages = map { open_page($p->{url}) } 1 .. 16;
    is scalar(grep { $_->{code} == 200 } @pages), 16, 'the resume URL opened in 16 browsers';
    my @got = submit_all(\@pages, 5);
    is scalar(grep { defined && /^303/ } @got), 16, 'all 16 Submits answered 303 (the thanks page)'
        or diag tally(@got);
    is sql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 1, 'one submission';
    is sql("SELECT count(*) FROM submission_partials WHERE form_id = '$fid'"), 0, 'no partial left';
    is sql("SELECT count(*) FROM events WHERE form_id = '$fid' AND type = 'submission.completed'"), 1,
        'one submission.completed';
}

# ---- 24 partials completed at once, maxSubmissions 5 -------------------------
{
    my $fid = form(maxSubmissions => 5);
    my @pages = map { on_page_two($fid, "P$_") } 1 .. 24;
    my @got = submit_all(\@pages, 4);
    is scalar(grep { defined && /^303/ } @got), 5, 'maxSubmissions 5: 5 of 24 completions stored' or diag tally(@got);
    is scalar(grep { defined && /^409/ } @got), 19, 'the rest 409' or diag tally(@got);
    is sql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 5, 'five in the database';
    is api(GET => "/v1/forms/$fid", token => $tok)->{json}{status}, 'closed', 'the form reads closed';
    is sql("SELECT count(*) FROM events WHERE form_id = '$fid' AND type = 'form.closed'"), 1, 'one form.closed';
}

# ---- 16 edits of one submission at once -----------------------------------
{
    my $fid = $inst->published_form($tok, title => 'Edits', settings => { allowEdits => { untilHours => 2 } },
        fields => [{ key => 'name', type => 'text', label => 'Name' }]);
    my $sent = ua()->request(post_req(open_page("/f/$fid"), answers => [[name => 'first']]));
    my ($edit) = ($sent->header('Location') // '') =~ m{(\?edit=sub_\w+\.fes_[0-9a-f]+)};
    ok $edit, 'sent, with an edit token' or diag $sent->code . ' ' . ($sent->header('Location') // '');
    my ($sid) = $edit =~ /edit=(sub_\w+)\./;
    my $go = release_together(16, sub {
        my $i = shift;
        my $req = post_req(open_page("/f/$fid$edit"), answers => [[name => "edit $i"]]);
        my $ua = ua();
        return sub { $ua->request($req)->code };
    });
    my @got = $go->();
    is scalar(grep { defined && $_ == 303 } @got), 16, '16 edits at once: all 303' or diag tally(@got);
    is sql("SELECT string_agg(version::text, ',' ORDER BY version) FROM submission_versions WHERE submission_id = '$sid'"),
        join(',', 1 .. 17), 'versions 1 to 17, no gap, no duplicate';
    is sql("SELECT owner_version FROM submissions WHERE id = '$sid'"), 17, 'the submission at version 17';
    is sql("SELECT count(*) FROM events WHERE submission_id = '$sid' AND type = 'submission.updated'"), 16,
        'one submission.updated per edit';
    is sql("SELECT data->>'name' FROM submissions WHERE id = '$sid'"),
       sql("SELECT data->>'name' FROM submission_versions WHERE submission_id = '$sid' AND version = 17"),
       'the submission holds the last version';
}

# ---- insights under parallel submissions, edits and deletes -----------------
# 12 submissions with edit links; then at once: 16 new submissions, an edit
# and a delete of each of the 12 (the same submission edited and deleted
# at the same moment); the tallies equal a recount of the rows left.
{
    my $fid = $inst->published_form($tok, title => 'Insights', settings => { allowEdits => { untilHours => 2 } },
        fields => [{ key => 'color', type => 'select', label => 'Color',
                     options => [map { { value => $_, label => $_ } } qw(red green blue)] },
                   { key => 'n', type => 'integer', label => 'N' }]);
    my @colors = qw(red green blue);
    my @edits;
    for my $i (0 .. 11) {
        my $sent = ua()->request(post_req(open_page("/f/$fid"), answers => [[color => $colors[$i % 3]], [n => $i]]));
        my ($e) = ($sent->header('Location') // '') =~ m{(\?edit=sub_\w+\.fes_[0-9a-f]+)};
        push @edits, $e;
    }
    is scalar(grep { $_ } @edits), 12, 'twelve submissions with edit links';
    my $go = release_together(40, sub {
        my $i = shift;
        my $ua = ua();
        if ($i < 16) {
            my $req = $inst->request(POST => "/f/$fid", body => { color => $colors[$i % 3], n => 100 + $i });
            return sub { 'new ' . $ua->request($req)->code };
        }
        if ($i < 28) {
            my $k = $i - 16;
            my $req = post_req(open_page("/f/$fid$edits[$k]"), answers => [[color => $colors[($k + 1) % 3]], [n => 50 + $k]]);
            return sub { 'edit ' . $ua->request($req)->code };
        }
        my ($sid) = $edits[$i - 28] =~ /edit=(sub_\w+)\./;
        my $req = $inst->request(DELETE => "/v1/forms/$fid/submissions/$sid", token => $tok);
        return sub { 'delete ' . $ua->request($req)->code };
    });
    my @got = $go->();
    is scalar(grep { defined && /^new 201$/ } @got), 16, '16 new submissions' or diag tally(@got);
    is scalar(grep { defined && /^delete 204$/ } @got), 12, '12 deletes' or diag tally(@got);
    is scalar(grep { defined && /^edit (303|404|410)$/ } @got), 12, 'each edit stored or told the submission is gone'
        or diag tally(@got);
    is sql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 16, '16 rows left';
    is api(GET => "/v1/forms/$fid", token => $tok)->{json}{submissionCount}, 16, 'submissionCount 16';
    my $diff = sql(<<"SQL");
WITH t AS (SELECT day, key, kind, value, sum(n) AS n FROM (
             SELECT day, key, kind, value, n FROM insight_counts WHERE form_id = '$fid'
             UNION ALL SELECT day, key, kind, value, n FROM insight_tally WHERE form_id = '$fid') u
           GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0),
     r AS (SELECT (s.created_at AT TIME ZONE 'UTC')::date AS day, x.key, x.kind, x.value, count(*) AS n
             FROM submissions s JOIN forms f ON f.id = s.form_id,
                  LATERAL fs_insight_items(s.data, f.fields) x
            WHERE s.form_id = '$fid' AND NOT s.spam GROUP BY 1, 2, 3, 4)
SELECT coalesce(string_agg(key || '/' || kind || '/' || value || ' ' || coalesce(t.n, 0) || '<>' || coalesce(r.n, 0), '; '), '')
  FROM t FULL JOIN r USING (day, key, kind, value) WHERE t.n IS DISTINCT FROM r.n
SQL
    is $diff, '', 'the insight tallies equal a recount of the rows';
    is sql("SELECT count(*) FROM events WHERE form_id = '$fid' AND payload ? 'data' "
         . "AND NOT EXISTS (SELECT 1 FROM submissions s WHERE s.id = events.submission_id)"), 0,
        'no event of a deleted submission keeps its answers (also of one edited as it went)';
}

# ---- a quiz's score under many parallel posts (the batched insert) ----------
{
    my $fid = $inst->published_form($tok, title => 'Quiz', fields => [
        { key => 'capital', type => 'select', label => 'Capital',
          options => [{ value => 'paris', label => 'Paris', score => 3 }, { value => 'lyon', label => 'Lyon', score => 1 },
                      { value => 'nice', label => 'Nice' }] },
        { key => 'year', type => 'integer', label => 'Year', correct => 1789 } ]);
    my @cap = qw(paris lyon nice);
    my @res = together(48, sub { my $i = shift;
        $inst->request(POST => "/f/$fid", body => { capital => $cap[$i % 3], year => ($i % 2 ? 1789 : 1700 + $i) }) });
    is scalar(grep { $_->{code} == 201 } @res), 48, '48 quiz answers at once: 201' or diag codes(@res);
    my $wrong = sql("SELECT count(*) FROM submissions WHERE form_id = '$fid' AND (calculated->>'score')::int IS DISTINCT FROM "
                  . "(CASE data->>'capital' WHEN 'paris' THEN 3 WHEN 'lyon' THEN 1 ELSE 0 END "
                  . " + CASE WHEN data->>'year' = '1789' THEN 1 ELSE 0 END)");
    is $wrong, 0, 'every stored row has its own score'
        or diag sql("SELECT string_agg(data::text || ' ' || coalesce(calculated::text, 'null'), E'\\n') FROM submissions WHERE form_id = '$fid'");
}

# ---- "save and continue later" double-posted --------------------------------
{
    my $fid = form();
    my $first = open_page("/f/$fid");
    my $go = release_together(16, sub {
        my $req = post_req($first, nav => 'save', answers => [[name => 'Twice']]);
        my $ua = ua();
        return sub { $ua->request($req)->code };
    });
    my @got = $go->();
    is scalar(grep { defined && $_ == 200 } @got), 16, 'page 1 saved 16 times at once: 200 each' or diag tally(@got);
    is sql("SELECT count(*) FROM submission_partials WHERE form_id = '$fid'"), 1, 'one partial row';
    is sql("SELECT count(*) FROM events WHERE form_id = '$fid' AND type = 'submission.partial'"), 1,
        'one submission.partial event';
}

# ---- completions through a link with maxUses, and of one uniqueBy value -----
{
    my $fid = form();
    my $r = api(POST => "/v1/forms/$fid/links", token => $tok, body => { maxUses => 3 });
    die 'link: ' . $r->content unless $r->code == 201;
    my $lid = $r->{json}{id};
    my ($path) = $r->{json}{url} =~ m{^\Q$url\E(/f/.*)$};
    my @pages = map {
        my $p = post_page(open_page($path), nav => 'next', answers => [[name => "L$_"]]);
        $p->{code} == 200 ? $p : ();
    } 1 .. 12;
    is scalar(@pages), 12, 'twelve filling-ins started through a link of maxUses 3';
    my @got = submit_all(\@pages, 3);
    is scalar(grep { defined && /^303/ } @got), 3, 'completed at once: 3 stored' or diag tally(@got);
    is scalar(grep { defined && /^409/ } @got), 9, 'the rest 409' or diag tally(@got);
    is sql("SELECT count(*) FROM submissions WHERE link_id = '$lid'"), 3, 'three through the link';
    is sql("SELECT uses FROM links WHERE id = '$lid'"), 3, 'uses 3';

    my $uf = form(uniqueBy => ['name']);
    @pages = map { on_page_two($uf, 'Same name') } 1 .. 12;
    @got = submit_all(\@pages, 2);
    is scalar(grep { defined && /^303/ } @got), 1, 'twelve completions of one uniqueBy value at once: one stored'
        or diag tally(@got);
    is scalar(grep { defined && /^409/ } @got), 11, 'the rest 409' or diag tally(@got);
    is sql("SELECT count(*) FROM submissions WHERE form_id = '$uf'"), 1, 'one in the database';
}

# ---- 16 identical edits at once: one change --------------------------------
{
    my $fid = $inst->published_form($tok, title => 'Same edits', settings => { allowEdits => { untilHours => 2 } },
        fields => [{ key => 'name', type => 'text', label => 'Name' }]);
    my $sent = ua()->request(post_req(open_page("/f/$fid"), answers => [[name => 'first']]));
    my ($edit) = ($sent->header('Location') // '') =~ m{(\?edit=sub_\w+\.fes_[0-9a-f]+)};
    my ($sid) = ($edit // '') =~ /edit=(sub_\w+)\./;
    my $go = release_together(16, sub {
        my $req = post_req(open_page("/f/$fid$edit"), answers => [[name => 'the same']]);
        my $ua = ua();
        return sub { $ua->request($req)->code };
    });
    my @got = $go->();
    is scalar(grep { defined && $_ == 303 } @got), 16, '16 identical edits at once: all 303' or diag tally(@got);
    is sql("SELECT string_agg(version::text, ',' ORDER BY version) FROM submission_versions WHERE submission_id = '$sid'"),
        '1,2', 'one new version';
    is sql("SELECT count(*) FROM events WHERE submission_id = '$sid' AND type = 'submission.updated'"), 1,
        'one submission.updated';
}

# ---- a bulk delete racing new submissions, deletes and exports ---------------
{
    my $fid = $inst->published_form($tok, title => 'Bulk', fields => [
        { key => 'color', type => 'select', label => 'Color', options => [map { { value => $_, label => $_ } } qw(red blue)] }]);
    my @old = map { api(POST => "/f/$fid", body => { color => $_ % 2 ? 'red' : 'blue' })->{json}{id} } 1 .. 40;
    is scalar(grep { $_ } @old), 40, 'forty submissions';
    my $before = sql("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')");
    ok FormsvcTest::wait_for(sub { sql("SELECT now() > '$before'::timestamptz") eq 't' }, 5, 'the clock past'), 'a time after them';
    my $go = release_together(36, sub {
        my $i = shift;
        my $ua = ua();
        my $req = $i < 24 ? $inst->request(POST => "/f/$fid", body => { color => 'red' })
                : $i < 32 ? $inst->request(DELETE => "/v1/forms/$fid/submissions/$old[$i - 24]", token => $tok)
                : $i < 34 ? $inst->request(DELETE => "/v1/forms/$fid/submissions?before=$before", token => $tok)
                : $inst->request(GET => "/v1/forms/$fid/submissions", token => $tok,
                                 headers => { Accept => $i == 34 ? 'text/csv' : 'application/x-ndjson' });
        return sub {
            my $res = $ua->request($req);
            my $c = $res->content // '';
            my @ids = $c =~ /"id":"(sub_\w+)"|^(sub_\w+),/mg;
            @ids = grep { defined } @ids;
            return $i < 24 ? 'new ' . $res->code
                 : $i < 32 ? 'del ' . $res->code
                 : $i < 34 ? 'bulk ' . $res->code . ' ' . ($c =~ /"deleted":(\d+)/ ? $1 : '?')
                 : 'export ' . $res->code . ' ' . scalar(@ids) . ' ' . scalar(keys %{ { map { $_ => 1 } @ids } });
        };
    });
    my @got = $go->();
    is scalar(grep { defined && /^new 201$/ } @got), 24, '24 new submissions' or diag tally(@got);
    my $bulk = 0; $bulk += $_ for map { /^bulk 200 (\d+)$/ ? $1 : 1000 } grep { defined && /^bulk/ } @got;
    my $single = grep { defined && /^del 204$/ } @got;
    is $bulk + $single, 40, 'the two bulk deletes and the 8 deletes together deleted the forty, each once'
        or diag tally(@got);
    ok !(grep { defined && /^export/ && !/^export 200 (\d+) \1$/ } @got), 'each export 200, no id twice'
        or diag tally(@got);
    is sql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 24, 'the 24 new ones left';
    is api(GET => "/v1/forms/$fid", token => $tok)->{json}{submissionCount}, 24, 'submissionCount 24';
    is sql("SELECT count(*) FROM events WHERE form_id = '$fid' AND type = 'submissions.deleted'"), 2,
        'two submissions.deleted events';
    is sql("SELECT sum((payload->>'count')::int) FROM events WHERE form_id = '$fid' AND type = 'submissions.deleted'"),
        $bulk, 'their counts as answered';
    my $diff = sql(<<"SQL");
WITH t AS (SELECT day, key, kind, value, sum(n) AS n FROM (
             SELECT day, key, kind, value, n FROM insight_counts WHERE form_id = '$fid'
             UNION ALL SELECT day, key, kind, value, n FROM insight_tally WHERE form_id = '$fid') u
           GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0),
     r AS (SELECT (s.created_at AT TIME ZONE 'UTC')::date AS day, x.key, x.kind, x.value, count(*) AS n
             FROM submissions s JOIN forms f ON f.id = s.form_id,
                  LATERAL fs_insight_items(s.data, f.fields) x
            WHERE s.form_id = '$fid' AND NOT s.spam GROUP BY 1, 2, 3, 4)
SELECT coalesce(string_agg(key || '/' || kind || '/' || value || ' ' || coalesce(t.n, 0) || '<>' || coalesce(r.n, 0), '; '), '')
  FROM t FULL JOIN r USING (day, key, kind, value) WHERE t.n IS DISTINCT FROM r.n
SQL
    is $diff, '', 'the insight tallies equal a recount';
}

# ---- spamThreshold under many parallel posts ----------------------------------
{
    my $fid = $inst->published_form($tok, title => 'Spam', settings => { spamThreshold => 30 },
        fields => [{ key => 'a', type => 'text', label => 'A' }, { key => 'b', type => 'text', label => 'B' },
                   { key => 'i', type => 'integer', label => 'I' }]);
    my $spammy = { a => 'http://x.example/1 http://x.example/2 http://x.example/3 zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
                   b => 'http://x.example/1 http://x.example/2 http://x.example/3 zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' };
    my @res = together(48, sub { my $i = shift;
        $inst->request(POST => "/f/$fid", body => { %{ $i % 2 ? $spammy : { a => 'hello', b => 'world' } }, i => $i }) });
    is scalar(grep { $_->{code} == 201 } @res), 48, '48 posts at once, every other spammy: 201' or diag codes(@res);
    is sql("SELECT string_agg(g, ' ' ORDER BY g) FROM (SELECT DISTINCT (data->>'a' LIKE 'http%')::text || ':' "
         . "|| spam_score || ':' || spam AS g FROM submissions WHERE form_id = '$fid') x") =~ tr/ //, 1,
        'one score and one spam flag for each kind of answers'
        or diag sql("SELECT string_agg(data->>'i' || ' ' || spam_score || ' ' || spam, '; ') FROM submissions WHERE form_id = '$fid'");
    is sql("SELECT count(*) FROM submissions WHERE form_id = '$fid' AND spam <> (spam_score >= 30)"), 0,
        'spam exactly when the score reaches the threshold';
}

my @bad = grep { /\[[a-z_]+:(error|crit|alert|emerg)\]/ } split /\n/, $inst->error_log;
is scalar(@bad), 0, 'no errors in the instance log' or diag join "\n", @bad[0 .. ($#bad > 10 ? 10 : $#bad)];
done_testing;
