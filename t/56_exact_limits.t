# Exact limits under concurrency: a form's
# settings.maxSubmissions stores exactly N submissions with 64 posters at
# once, and every count quota (keys, delegated tokens, OAuth clients,
# webhooks, forms, fields of a form, pending asks) admits exactly its limit
# out of 20 parallel creations, as does the per-address limit of OAuth
# dynamic registrations. Requests really overlap: pre-forked children open
# their connection first and are released together. Own httpd instance, so
# that the per-address submission rate limit is off and the quotas are
# small; see docs/security-notes/limits.md.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use FormsvcTest::Together;
use URI::Escape ();

# asks below forms: each ask makes a form
my %Q = (keys => 5, clients => 3, webhooks => 4, forms => 4, fields => 6, asks => 3);
my $REGISTER = 5; # OAuth registrations per address and day
my $inst = FormsvcInstance->start(name => 'limits', conf => <<"CONF");
ThreadsPerChild 16
MaxRequestWorkers 64
# every child kept (MaxSpareThreads = MaxRequestWorkers): the base's 60
# stops a child whenever all 64 threads are idle, and the next burst then
# finds the scoreboard full (AH03490, an error line in this log)
MaxSpareThreads 64
DBDMax 16
FormsvcRateLimit submit off
FormsvcRateLimit signup 100000 3600
FormsvcRateLimit token 100000 60
FormsvcQuota unverified requests 100000
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified keys $Q{keys}
FormsvcQuota unverified clients $Q{clients}
FormsvcQuota unverified webhooks $Q{webhooks}
FormsvcQuota unverified forms $Q{forms}
FormsvcQuota unverified fields $Q{fields}
FormsvcQuota unverified asks $Q{asks}
FormsvcRateLimit register $REGISTER 86400
FormsvcWebhookAllowPrivate On
CONF
my $url = $inst->url;
my $P = "$url/problems/";

my $n = 0;
sub signup {
    my $r = $inst->api(POST => '/v1/signup',
                       body => { email => sprintf('lim%d.%d.%d@example.com', $$, time, ++$n) });
    die 'signup: ' . $r->status_line unless $r->code == 201;
    return ($r->{json}{apiKey}{secret}, $r->{json}{user}{id});
}


# ---- count quotas: 20 parallel creations, exactly the limit admitted --------
# name => [admitted, setup(token, user) -> (path, token, stored-count sql),
#          body(i), ok status, quota name, stored]
my %resources = (
    keys => [ $Q{keys} - 1,    # the signup key is one of the active keys
              sub { my ($t, $u) = @_; ('/v1/keys', $t,
                  "SELECT count(*) FROM keys WHERE user_id = '$u' AND revoked_at IS NULL "
                  . "AND client_id IS NULL") },
              sub { { name => "k$_[0]" } }, 201, 'keys', $Q{keys} ],
    tokens => [ $Q{keys} - 1,  # delegated tokens count against the key quota
              sub { my ($t, $u) = @_; ('/v1/token', $t,
                  "SELECT count(*) FROM keys WHERE user_id = '$u' AND revoked_at IS NULL "
                  . "AND client_id IS NULL") },
              sub { 'grant_type=' . URI::Escape::uri_escape('urn:ietf:params:oauth:grant-type:token-exchange')
                    . "&actor=agent$_[0]" }, 200, 'keys', $Q{keys} ],
    clients => [ $Q{clients},
              sub { my ($t, $u) = @_; ('/v1/clients', $t,
                  "SELECT count(*) FROM clients WHERE user_id = '$u' AND revoked_at IS NULL") },
              sub { { name => "c$_[0]" } }, 201, 'clients' ],
    webhooks => [ $Q{webhooks},
              sub { my ($t, $u) = @_; ('/v1/webhooks', $t,
                  "SELECT count(*) FROM webhooks WHERE user_id = '$u'") },
              sub { { url => "http://127.0.0.1:9/h$_[0]", events => ['form.closed'] } }, 201,
              'webhooks' ],
    forms => [ $Q{forms},
              sub { my ($t, $u) = @_; ('/v1/forms', $t,
                  "SELECT count(*) FROM forms WHERE user_id = '$u'") },
              sub { { title => "f$_[0]" } }, 201, 'forms' ],
    fields => [ $Q{fields},
              sub { my ($t, $u) = @_;
                    my $r = $inst->api(POST => '/v1/forms', token => $t, body => { title => 'f' });
                    die 'form: ' . $r->status_line unless $r->code == 201;
                    my $fid = $r->{json}{id};
                    ("/v1/forms/$fid/fields", $t,
                     "SELECT jsonb_array_length(fields) FROM forms WHERE id = '$fid'") },
              sub { { key => "q$_[0]", type => 'text', label => "Q$_[0]" } }, 201, 'fields' ],
    asks => [ $Q{asks},
              sub { my ($t, $u) = @_; ('/v1/asks', $t,
                  "SELECT count(*) FROM asks WHERE user_id = '$u'") },
              sub { { message => "Q$_[0]?", schema => { type => 'object',
                      properties => { ok => { type => 'boolean', title => 'OK' } } } } }, 201, 'asks' ],
);
for my $name (sort keys %resources) {
    my ($want, $setup, $body, $ok, $quota, $stored) = @{ $resources{$name} };
    $stored //= $want;
    for my $round (1, 2) {
        my ($tok, $uid) = signup();
        my ($path, $bearer, $count_sql) = $setup->($tok, $uid);
        my @res = together(20, sub {
            my $b = $body->($_[0]);
            $inst->request(POST => $path, token => $bearer, body => $b,
                    ref $b ? () : (headers => { 'Content-Type' => 'application/x-www-form-urlencoded' }));
        });
        my @won = grep { $_->{code} == $ok } @res;
        my @refused = grep { $_->{code} == 403 && ($_->{json}{type} // '') eq "${P}quota-exceeded" } @res;
        is scalar(@won), $want, "$name round $round: exactly $want of 20 admitted"
            or diag codes(@res);
        is scalar(@refused), 20 - $want, "$name round $round: the others are 403 quota-exceeded";
        is sql($count_sql), $stored, "$name round $round: $stored in the database";
        my $limit = $quota eq 'keys' ? $Q{keys} : $Q{$quota};
        ok !(grep { $_->{json}{quota} ne $quota || $_->{json}{limit} != $limit
                    || $_->{json}{used} != $limit } @refused),
            "$name round $round: each refusal names the quota, its limit and the use";
    }
}

# ---- OAuth registrations per address: 20 parallel, exactly the limit -----------
# (a day's window, so that a round does not straddle two; another address
# each round)
FormsvcTest::clear_of_boundary(86400);
for my $round (1, 2) {
    my $ip = "198.51.100." . (60 + $round);
    my @res = together(20, sub {
        $inst->request(POST => '/oauth/register', headers => { 'X-Client-IP' => $ip },
                       body => { redirect_uris => ['http://127.0.0.1:1/cb'], client_name => "r$round-$_[0]" })
    });
    is scalar(grep { $_->{code} == 201 } @res), $REGISTER,
        "registrations round $round: exactly $REGISTER of 20 from one address" or diag codes(@res);
    is scalar(grep { $_->{code} == 429 } @res), 20 - $REGISTER, "registrations round $round: the others 429";
}

# ---- maxSubmissions: 64 posters, exactly N stored ----------------------------
my $owner;
sub limited_form {
    my ($max) = @_;
    ($owner) = signup();
    return $inst->published_form($owner, title => "max $max", settings => { maxSubmissions => $max });
}
sub stored { sql("SELECT count(*) FROM submissions WHERE form_id = '$_[0]'") }

for my $max (3, 50) {
    for my $round (1, 2) {
        # one form in the first round; in the second, half its places are
        # freed by deleting submissions, and 64 posters race for them
        my $fid = limited_form($max);
        my @res = together(64, sub { $inst->request(POST => "/f/$fid", body => { a => "r$round-$_[0]" }) });
        if ($round == 2) {
            my @ids = split /\n/, sql("SELECT id FROM submissions WHERE form_id = '$fid' "
                                      . "ORDER BY id LIMIT " . int($max / 2 + 0.5));
            is $inst->api(DELETE => "/v1/forms/$fid/submissions/$_", token => $owner)->code, 204,
                'delete a submission' for @ids;
            my $f = $inst->api(GET => "/v1/forms/$fid", token => $owner)->{json};
            is $f->{status}, 'published', "max $max: deleting submissions reopens the form";
            @res = together(64, sub { $inst->request(POST => "/f/$fid", body => { a => "again-$_[0]" }) });
            is scalar(grep { $_->{code} == 201 } @res), scalar(@ids),
                "max $max: exactly the freed places are taken again" or diag codes(@res);
        } else {
            is scalar(grep { $_->{code} == 201 } @res), $max, "max $max: exactly $max of 64 answered 201"
                or diag codes(@res);
        }
        is scalar(grep { $_->{code} == 409 && ($_->{json}{type} // '') eq "${P}form-closed" } @res),
            64 - scalar(grep { $_->{code} == 201 } @res), "max $max round $round: the rest are 409 form-closed";
        is stored($fid), $max, "max $max round $round: $max stored";
        my $f = $inst->api(GET => "/v1/forms/$fid", token => $owner)->{json};
        is $f->{status}, 'closed', "max $max round $round: the form closed itself";
        is $f->{submissionCount}, $max, "max $max round $round: submissionCount $max";
    }
}

# ---- Idempotency-Key on the last place -----------------------------------------
# 16 concurrent repeats of one submission (one key) to a form with one
# place: one is stored, every repeat gets its answer (a replay), none is
# refused as closed; a later retry replays too.
for my $round (1, 2) {
    my $fid = limited_form(1);
    my $key = "last-$$-$round";
    my @res = together(16, sub { $inst->request(POST => "/f/$fid", body => { a => 'same' },
                                      headers => { 'Idempotency-Key' => $key }) });
    is scalar(grep { $_->{code} == 201 } @res), 16, "idempotent repeats round $round: all 201"
        or diag codes(@res);
    is scalar(grep { ($_->{replayed} // '') eq 'true' } @res), 15, 'fifteen of them replays';
    is stored($fid), 1, 'one stored';
    my %ids = map { $_->{json}{id} => 1 } @res;
    is scalar(keys %ids), 1, 'all answered with the same submission';
    my $r = $inst->api(POST => "/f/$fid", body => { a => 'same' }, headers => { 'Idempotency-Key' => $key });
    is $r->code, 201, 'a retry after the form closed is still its first answer';
    is $r->code == 201 && $r->{json}{id}, (keys %ids)[0], 'the same submission';
    is $inst->api(POST => "/f/$fid", body => { a => 'other' })->code, 409, 'another is 409';
}

my @bad = grep { /\[[a-z_]+:(error|crit|alert|emerg)\]/ } split /\n/, $inst->error_log;
is scalar(@bad), 0, 'no errors in the instance log' or diag join "\n", @bad[0 .. ($#bad > 10 ? 10 : $#bad)];
done_testing;
