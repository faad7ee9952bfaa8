# GET /v1/forms/{id}/insights against a direct computation over the
# submissions: several forms and windows, before and after the tally is
# rolled up, and after deletions (one by id, in bulk, by erasure); spam
# left out; wrong parameters, another account's form (404), the scope, and
# the MCP tool get_insights.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();
use List::Util qw(sum);

my ($tok) = signup();
my ($other) = signup();
my $FIELDS = [
    { key => 'plan', type => 'select', label => 'Plan', options => [{ value => 'free', label => 'Free' }, { value => 'pro', label => 'Pro' }, { value => 'team', label => 'Team' }] },
    { key => 'topics', type => 'multiselect', label => 'Topics', options => ['a', 'b', 'c'] },
    { key => 'ok', type => 'boolean', label => 'OK' },
    { key => 'score', type => 'rating', label => 'Score' },
    { key => 'qty', type => 'integer', label => 'Qty' },
    { key => 'price', type => 'number', label => 'Price' },
    { key => 'comment', type => 'textarea', label => 'Comment' },
];
my @forms = map { make_form($tok, { title => "Insights $_", fields => $FIELDS })->{id} } 1 .. 2;
is api(POST => "/v1/forms/$_/publish", token => $tok)->code, 200, 'published' for @forms;

# answers spread over the last ten days, some through the public side
srand(42);
my @plans = ('free', 'pro', 'team');
sub answers {
    my %d;
    $d{plan} = $plans[rand 3] if rand() < 0.9;
    $d{topics} = [grep { rand() < 0.5 } 'a', 'b', 'c'] if rand() < 0.8;
    $d{ok} = rand() < 0.6 ? JSON::PP::true : JSON::PP::false if rand() < 0.9;
    $d{score} = 1 + int rand 5 if rand() < 0.85;
    $d{qty} = int(rand 100) - 10 if rand() < 0.7;
    $d{price} = int(rand 100000) / 100 if rand() < 0.7;
    $d{comment} = rand() < 0.3 ? '' : 'text ' . int rand 1000 if rand() < 0.6;
    return \%d;
}
# forty a form in one statement (ids begin with their time, as the
# module makes them), through the triggers like any other insert
my $J = JSON::PP->new->canonical;
my $seq = 0;
for my $fid (@forms) {
    my @rows = map { sprintf "(%d, %s, %s)", int(rand 10 * 86400), "'" . ($J->encode(answers()) =~ s/'/''/gr) . "'",
                             $_ % 13 == 0 ? 'true' : 'false' } 1 .. 40;
    psql("INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) "
         . "SELECT 'sub_' || fs_id_time(c.t) || lpad((row_number() OVER () + " . ($seq += 1000) . " + " . $$ . "::bigint * 100000)::text, 16, '0'), "
         . "f.id, f.user_id, f.version, v.d::jsonb, v.spam, c.t "
         . "FROM forms f, (VALUES " . join(', ', @rows) . ") v(ago, d, spam), "
         . "LATERAL (SELECT now() - make_interval(secs => v.ago) AS t) c WHERE f.id = '$fid'");
    psql("INSERT INTO form_counts (form_id, shard, n) SELECT '$fid', 0, count(*) FROM submissions "
         . "WHERE form_id = '$fid' AND NOT spam ON CONFLICT (form_id, shard) DO UPDATE SET n = EXCLUDED.n");
    for (1 .. 3) {
        my $r = api(POST => "/f/$fid", body => answers(), headers => { Accept => 'application/json' });
        $r->code == 201 or diag $r->content;
    }
}

# the direct computation: every non-spam submission of the form in the window
sub expected {
    my ($fid, $since, $until) = @_;
    my $rows = psql("SELECT coalesce(json_agg(s.data), '[]') FROM submissions s WHERE s.form_id = '$fid' AND NOT s.spam "
                    . "AND s.created_at >= date_trunc('day', '$since'::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' "
                    . "AND s.created_at < (date_trunc('day', ('$until'::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC') "
                    . "+ interval '1 day') AT TIME ZONE 'UTC'");
    my @subs = @{ JSON::PP->new->decode($rows) };
    my %q;
    for my $f (@$FIELDS) {
        my $k = $f->{key};
        my @v = grep { defined && !(ref eq 'ARRAY' && !@$_) && !(!ref && $_ eq '') } map { $_->{$k} } @subs;
        my %e = (answered => scalar @v);
        if ($f->{type} eq 'select' || $f->{type} eq 'multiselect') {
            my %c = map { ((ref $_ ? $_->{value} : $_) => 0) } @{ $f->{options} };
            $c{$_}++ for map { ref eq 'ARRAY' ? @$_ : $_ } @v;
            $e{options} = \%c;
        } elsif ($f->{type} eq 'boolean') {
            my %c = (true => 0, false => 0);
            $c{$_ ? 'true' : 'false'}++ for @v;
            $e{options} = \%c;
        } elsif ($f->{type} =~ /^(rating|integer|number)$/) {
            my @s = sort { $a <=> $b } @v;
            $e{min} = $s[0];
            $e{max} = $s[-1];
            $e{median} = @s ? $s[int((@s + 1) / 2) - 1] : undef;
            $e{mean} = @s ? sum(@s) / @s : undef;
            if ($f->{type} eq 'rating') { my %h; $h{$_}++ for @s; $e{histogram} = \%h }
        }
        $q{$k} = \%e;
    }
    return { submissions => scalar @subs, questions => \%q };
}
sub got {
    my ($fid, $since, $until, $t) = @_;
    my $r = api(GET => "/v1/forms/$fid/insights?since=" . uri($since) . "&until=" . uri($until), token => $t // $tok);
    $r->code == 200 or return { error => $r->code . ' ' . $r->content };
    my %q;
    for my $x (@{ $r->{json}{questions} }) {
        my %e = (answered => $x->{answered});
        $e{options} = { map { ((JSON::PP::is_bool($_->{value}) ? ($_->{value} ? 'true' : 'false') : $_->{value}) => $_->{count}) }
                        @{ $x->{options} } } if $x->{options};
        if (exists $x->{min}) {
            $e{$_} = $x->{$_} for qw(min max median mean);
        }
        $e{histogram} = { map { ($_->{value} => $_->{count}) } @{ $x->{histogram} } } if $x->{histogram};
        $q{$x->{key}} = \%e;
    }
    return { submissions => $r->{json}{submissions}, questions => \%q };
}
sub uri { my $s = shift; $s =~ s/\+/%2B/g; $s =~ s/:/%3A/g; $s }
sub same {
    my ($g, $e, $name) = @_;
    # means compared to 1e-9
    for my $k (keys %{ $e->{questions} }) {
        for my $m (qw(mean)) {
            next unless defined $e->{questions}{$k}{$m} && defined $g->{questions}{$k}{$m};
            $g->{questions}{$k}{$m} = $e->{questions}{$k}{$m} if abs($g->{questions}{$k}{$m} - $e->{questions}{$k}{$m}) < 1e-9;
        }
    }
    is_deeply $g, $e, $name or diag explain $g, $e;
}
my @windows = map { [ psql("SELECT fs_ts(now() - interval '$_->[0]')"), psql("SELECT fs_ts(now() + interval '$_->[1]')") ] }
    ['30 days', '1 minute'], ['3 days', '1 minute'], ['6 days', '-4 days'], ['9 days 12 hours', '-9 days'];
sub check_all {
    my $when = shift;
    for my $fid (@forms) {
        for my $w (@windows) {
            same(got($fid, @$w), expected($fid, @$w), "$when: $fid from $w->[0] to $w->[1]");
        }
    }
}
cmp_ok expected($forms[0], @{ $windows[0] })->{submissions}, '>', 30, 'the comparison has something to compare';
check_all('as stored (tally not rolled up yet, or partly)');
ok wait_for(sub { psql("SELECT count(*) FROM insight_tally WHERE form_id IN ('$forms[0]', '$forms[1]')") == 0 }, 20,
            'the insight tally rolled up'), 'rolled up by the tally worker';
check_all('rolled up');

# ---- deletions: one by id, in bulk, by erasure ----------------------------------
my @ids = split /\n/, psql("SELECT id FROM submissions WHERE form_id = '$forms[0]' AND NOT spam ORDER BY id LIMIT 3");
is api(DELETE => "/v1/forms/$forms[0]/submissions/$_", token => $tok)->code, 204, 'deleted one' for @ids[0, 1];
my $before = psql("SELECT fs_ts(now() - interval '7 days')");
is api(DELETE => "/v1/forms/$forms[1]/submissions?before=" . uri($before), token => $tok)->code, 200, 'bulk delete';
check_all('after deletions');
ok wait_for(sub { psql("SELECT count(*) FROM insight_tally WHERE form_id IN ('$forms[0]', '$forms[1]')") == 0 }, 20,
            'rolled up again'), 'the deletions rolled up';
check_all('after deletions, rolled up');
is psql("SELECT count(*) FROM insight_counts WHERE n <= 0"), 0, 'no count at zero or below is kept';
# a form deleted takes its counts
is api(DELETE => "/v1/forms/$forms[1]", token => $tok)->code, 204, 'form deleted';
is psql("SELECT count(*) FROM insight_counts WHERE form_id = '$forms[1]'"), 0, 'its counts went with it';

# ---- the answer's shape, parameters, access -----------------------------------------
my $r = api(GET => "/v1/forms/$forms[0]/insights", token => $tok);
is $r->code, 200, 'without a range: the last 30 days';
my %by = map { ($_->{key} => $_) } @{ $r->{json}{questions} };
is_deeply [map { $_->{value} } @{ $by{plan}{options} }], ['free', 'pro', 'team'], 'options in the field\'s order';
is_deeply [map { $_->{value} } @{ $by{ok}{options} }], [JSON::PP::true, JSON::PP::false], 'boolean options true, false';
ok !exists $by{comment}{options} && !exists $by{comment}{min}, 'a text question: answered only';
like $r->{json}{since}, qr/T00:00:00\.000Z$/, 'since: the start of a UTC day';
my $e = api(GET => "/v1/forms/$forms[0]/insights?since=yesterday&until=2026-13-01T00:00:00Z", token => $tok);
problem_ok $e, 422, 'validation-failed', 'bad times: 422';
is_deeply [sort map { $_->{pointer} } @{ $e->{json}{errors} }], ['/since', '/until'], 'both pointers';
problem_ok api(GET => "/v1/forms/$forms[0]/insights?since=2020-01-01T00:00:00Z&until=2026-01-01T00:00:00Z", token => $tok),
    422, 'validation-failed', 'more than 366 days: 422';
problem_ok api(GET => "/v1/forms/$forms[0]/insights?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", token => $tok),
    422, 'validation-failed', 'until before since: 422';
problem_ok api(GET => "/v1/forms/$forms[0]/insights", token => $other), 404, 'not-found', "another account's form: 404";
problem_ok api(GET => "/v1/forms/" . fresh_id('frm_') . "/insights", token => $tok), 404, 'not-found', 'no such form: 404';
my $fr = api(POST => '/v1/keys', token => $tok, body => { name => 'f', scopes => ['forms:read'] })->{json}{secret};
problem_ok api(GET => "/v1/forms/$forms[0]/insights", token => $fr), 403, 'insufficient-scope', 'forms:read alone: 403';

# ---- MCP ------------------------------------------------------------------------------
$r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
         body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                   params => { name => 'get_insights', arguments => { formId => $forms[0], since => $windows[1][0] } } });
my $sc = $r->{json}{result}{structuredContent};
ok !$r->{json}{result}{isError}, 'MCP get_insights';
is $sc->{submissions}, expected($forms[0], $windows[1][0], psql("SELECT fs_ts(now())"))->{submissions}, '... its submissions';
ok $sc->{untrustedRespondentData}, '... marked as respondents\' data';

done_testing;
