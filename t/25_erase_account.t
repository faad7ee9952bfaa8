# DELETE /v1/me: the account's erasure. Who may (owner key, confirmation),
# what stops at once (every credential 401, public forms 410, webhooks and
# mail), and what the background job deletes: the account's rows in EVERY
# table of the schema, read from pg_catalog, each table either mapped here
# (how to find the account's rows) or listed as holding no account data, so
# that a table added later cannot be forgotten. Another account's rows are
# untouched, and the address may sign up again.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use FormsvcOAuth;
use IO::Socket::INET;
use POSIX ();
use JSON::PP ();
use MIME::Base64 qw(encode_base64);
use Digest::SHA qw(sha256_hex);

my $J = JSON::PP->new->utf8->canonical;

# a webhook receiver that answers 200 to everything
my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 16,
                                ReuseAddr => 1, Proto => 'tcp') or die "listen: $!";
my $port = $srv->sockport;
my $rpid = fork // die;
if (!$rpid) {
    while (my $c = $srv->accept) {
        my %h;
        while (my $l = <$c>) { $l =~ s/\r?\n\z//; last if $l eq ''; my ($k, $v) = split /:\s*/, $l, 2; $h{lc $k} = $v if defined $v }
        my $b = ''; read($c, $b, $h{'content-length'} // 0);
        print $c "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
        close $c;
    }
    POSIX::_exit(0);
}
END { kill 'TERM', $rpid if $rpid }
close $srv;

# Fills an account with a row in every table the API reaches.
my $PNG = "\x89PNG\r\n\x1a\n" . ("\0" x 100) . 'IEND';
sub populate {
    my ($tok) = @_;
    verify_account($tok); # notify mail needs a verified account
    my %o = (forms => [], keys => [], webhooks => [], files => []);
    my $form = make_form($tok, { title => 'Erase me', slug => "erase-$$-" . int(rand 1e9), fields => [
        { key => 'name', type => 'text', label => 'Name' },
        { key => 'email', type => 'email', label => 'E-mail' },
        { key => 'photo', type => 'file', label => 'Photo' } ],
        settings => { notify => { emails => ['ops-' . int(rand 1e9) . '@example.com'] } } });
    push @{ $o{forms} }, $form->{id};
    my $fid = $form->{id};
    api(POST => "/v1/forms/$fid/publish", token => $tok)->code == 200 or die 'publish';
    my $wh = api(POST => '/v1/webhooks', token => $tok,
                 body => { url => "http://127.0.0.1:$port/hook", events => ['submission.created'] });
    $wh->code == 201 or die 'webhook: ' . $wh->content;
    push @{ $o{webhooks} }, $wh->{json}{id};
    my $link = api(POST => "/v1/forms/$fid/links", token => $tok, body => { prefill => { name => 'Ada' } });
    $link->code == 201 or die 'link: ' . $link->content;
    api(GET => "/f/$fid"); # a view
    my $ask = api(POST => '/v1/asks', token => $tok, body => { message => 'Erase?',
        schema => { type => 'object', properties => { ok => { enum => ['yes', 'no'] } } } });
    $ask->code == 201 or die 'ask: ' . $ask->content;
    push @{ $o{forms} }, $ask->{json}{formId};
    $o{ask} = $ask->{json}{id};
    # a queued bulk delete (the API queues one for more than 1,000
    # submissions: written here; one of 2000 deletes nothing)
    psql("INSERT INTO submission_purges (id, user_id, form_id, before) SELECT 'prg_' || md5(random()::text), "
       . "user_id, id, '2000-01-01T00:00:00Z' FROM forms WHERE id = " . sqlq($fid));
    for my $i (1 .. 3) {
        my $r = api(POST => "/f/$fid", headers => { 'Idempotency-Key' => "k-$i-$$" },
                    body => $J->encode({ name => "n$i", email => "p$i\@example.com",
                                         photo => { name => 'a.png', type => 'image/png', data => encode_base64($PNG, '') } }));
        $r->code == 201 or die 'submit: ' . $r->content;
        push @{ $o{files} }, $r->{json}{data}{photo}[0]{id} if ref $r->{json}{data}{photo} eq 'ARRAY';
    }
    my $k = api(POST => '/v1/keys', token => $tok, headers => { 'Idempotency-Key' => "key-$$" },
                body => { name => 'delegate', scopes => ['account:read', 'account:write', 'forms:read'] });
    $k->code == 201 or die 'key: ' . $k->content;
    $o{delegate} = $k->{json}{secret};
    my $c = api(POST => '/v1/clients', token => $tok, body => { name => 'etl' });
    $c->code == 201 or die 'client: ' . $c->content;
    my $t = token([grant_type => 'client_credentials'], basic => [$c->{json}{id}, $c->{json}{secret}]);
    $t->code == 200 or die 'token: ' . $t->content;
    $o{access} = $t->{json}{access_token};
    $o{client} = [$c->{json}{id}, $c->{json}{secret}];
    api(POST => '/v1/me/verify', token => $tok); # an account code, if the route takes it
    # an MCP session with a subscription, and a stream's lease (written:
    # a real stream would hold a connection through the test)
    my $init = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
                   body => { jsonrpc => '2.0', id => 1, method => 'initialize',
                             params => { protocolVersion => '2025-06-18', capabilities => {},
                                         clientInfo => { name => 'erase', version => '1' } } });
    my $sid = $init->header('Mcp-Session-Id') or die 'mcp session';
    my $sr = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream', 'Mcp-Session-Id' => $sid },
                 body => { jsonrpc => '2.0', id => 2, method => 'resources/subscribe',
                           params => { uri => "formsvc://forms/$fid/submissions" } });
    $sr->{json}{result} or die 'subscribe: ' . $sr->content;
    $o{sessions} = [$sid];
    my $me = api(GET => '/v1/me', token => $tok)->{json};
    $o{uid} = $me->{user}{id};
    psql("INSERT INTO mcp_streams (id, user_id, session_id, lease_until) VALUES ('mst_' || md5(random()::text), "
       . sqlq($o{uid}) . ", " . sqlq($o{sessions}[0]) . ", now() + interval '1 minute')");
    # an elicitation request sent to the session's client (as ask_human
    # with elicitation records it)
    psql("INSERT INTO mcp_requests (id, session_id, user_id, ask_id) VALUES ('mrq_' || md5(random()::text), "
       . sqlq($o{sessions}[0]) . ", " . sqlq($o{uid}) . ", " . sqlq($o{ask}) . ")");
    # a partial answer begun on one of its forms (settings.partial keeps
    # them at each page step; t/34_partial.t makes them through the page)
    psql("INSERT INTO submission_partials (id, form_id, user_id, form_version, data, page, resume_hash, expires_at) "
       . "VALUES ('sub_' || md5(random()::text), " . sqlq($o{forms}[0]) . ", " . sqlq($o{uid})
       . ", 1, '{}', 1, md5(random()::text), now() + interval '30 days')");
    # a version of an edited submission (settings.allowEdits keeps the
    # answers of each edit; t/34_edits.t makes them through the page)
    psql("INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version, data, created_at) "
       . "SELECT id, 1, form_id, user_id, form_version, data, created_at FROM submissions WHERE user_id = "
       . sqlq($o{uid}) . " ORDER BY id LIMIT 1");
    $o{email} = lc $me->{user}{email};
    return \%o;
}

# How to find an account's rows in each table; %$a: uid, email, forms, webhooks, files.
sub in_list { my $l = shift; @$l ? '(' . join(',', map { sqlq($_) } @$l) . ')' : "(NULL)" }
sub sqlq { my $s = shift; $s =~ s/'/''/g; "'$s'" }
my %MAP = (
    users                  => sub { "id = " . sqlq($_[0]{uid}) },
    map({ my $t = $_; ($t => sub { "user_id = " . sqlq($_[0]{uid}) }) }
        qw(audit clients events forms keys links submissions webhooks account_codes file_usage
           submission_files submission_months submission_tally submission_purges asks mcp_sessions
           mcp_streams mcp_requests submission_partials submission_versions)),
    mcp_subscriptions      => sub { "session_id IN " . in_list($_[0]{sessions} || []) },
    deliveries             => sub { "webhook_id IN " . in_list($_[0]{webhooks}) },
    form_counts            => sub { "form_id IN " . in_list($_[0]{forms}) },
    form_closings          => sub { "form_id IN " . in_list($_[0]{forms}) },
    insight_counts         => sub { "form_id IN " . in_list($_[0]{forms}) },
    insight_tally          => sub { "form_id IN " . in_list($_[0]{forms}) },
    submission_state_forms => sub { "form_id IN " . in_list($_[0]{forms}) },
    form_views             => sub { "form_id IN " . in_list($_[0]{forms}) },
    form_view_days         => sub { "form_id IN " . in_list($_[0]{forms}) },
    submission_hours       => sub { "form_id IN " . in_list($_[0]{forms}) },
    submission_days        => sub { "form_id IN " . in_list($_[0]{forms}) },
    submission_hour_tally  => sub { "form_id IN " . in_list($_[0]{forms}) },
    submission_hours_backlog => sub { "form_id IN " . in_list($_[0]{forms}) },
    mail_jobs              => sub { "form_id IN " . in_list($_[0]{forms}) },
    notify_recipients      => sub { "form_id IN " . in_list($_[0]{forms}) },
    submission_file_chunks => sub { "file_id IN " . in_list($_[0]{files}) },
    idempotency            => sub { "scope IN " . in_list([@{ $_[0]{forms} }, @{ $_[0]{key_ids} || [] }]) },
    mail_daily             => sub { "key = " . sqlq("notify:$_[0]{uid}") },
    mail_quota             => sub { "key IN (" . sqlq("user:$_[0]{uid}") . ", " . sqlq('addr:' . sha256_hex($_[0]{email})) . ")" },
    # mail to the account's address, and what its forms mailed others
    # (sql/0074: the notify recipients' confirmation requests here)
    outbox                 => sub { "lower(recipient) = " . sqlq($_[0]{email}) . " OR user_id = " . sqlq($_[0]{uid}) },
    oauth_grants           => sub { "user_id = " . sqlq($_[0]{uid}) },
    oauth_logins           => sub { "user_id = " . sqlq($_[0]{uid}) . " OR code_user = " . sqlq($_[0]{uid}) },
    oauth_codes            => sub { "grant_id IN (SELECT id FROM oauth_grants WHERE user_id = " . sqlq($_[0]{uid}) . ")" },
    oauth_refresh          => sub { "grant_id IN (SELECT id FROM oauth_grants WHERE user_id = " . sqlq($_[0]{uid}) . ")" },
);
# Tables that hold no account's data: the schema's own bookkeeping (the
# migrations, the pepper's fingerprint, where the partitions begin), and
# rows keyed by a keyed hash of a client address or of a rate-limit bucket
# that expire with their window (docs/privacy.md).
# oauth_apps: dynamically registered clients, which belong to no account
# (their grants do).
my %NO_ACCOUNT_DATA = map { $_ => 1 } qw(schema_migrations pepper_fingerprint partition_plan ratelimit
                                         token_failures oauth_apps);

my @tables = split /\n/, psql("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                              . "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
                              . "ORDER BY 1");
ok @tables > 10, 'the schema\'s tables read from pg_catalog';
for my $t (@tables) {
    ok $MAP{$t} || $NO_ACCOUNT_DATA{$t},
       "table $t: mapped to the account or listed as holding no account data";
}

sub counts {
    my ($a) = @_;
    my %n;
    for my $t (sort keys %MAP) {
        next unless grep { $_ eq $t } @tables;
        $n{$t} = psql("SELECT count(*) FROM $t WHERE " . $MAP{$t}->($a));
    }
    return \%n;
}

my ($tok) = signup();
my ($otok) = signup();
my $A = populate($tok);
my $B = populate($otok);
for my $x ($A, $B) {
    my $uid = sqlq($x->{uid});
    $x->{key_ids} = [split /\n/, psql("SELECT id FROM keys WHERE user_id = $uid")];
    # files by their ids as stored (the answer's metadata may not carry them)
    $x->{files} = [split /\n/, psql("SELECT id FROM submission_files WHERE user_id = $uid")];
}
# rows the API makes only now and then (a code, an hourly view flush, a
# digest due, account mail, counters folded later), written directly
# (a mail counter with a mail sent just now: the outbox sweep removes
# counters without a mail for 25 hours)
for my $x ($A, $B) {
    my ($uid, $f, $em) = (sqlq($x->{uid}), sqlq($x->{forms}[0]), sqlq($x->{email}));
    psql("INSERT INTO account_codes (user_id, purpose, code_hash, expires_at) "
         . "VALUES ($uid, 'verify', 'x', now() + interval '1 day') ON CONFLICT DO NOTHING;"
         . "INSERT INTO form_views (form_id, hour, views) VALUES ($f, date_trunc('hour', now()), 1) "
         . "ON CONFLICT DO NOTHING;"
         . "INSERT INTO form_closings (form_id, closes_at) VALUES ($f, now()) ON CONFLICT DO NOTHING;"
         . "INSERT INTO submission_state_forms (form_id) VALUES ($f) ON CONFLICT DO NOTHING;"
         . "INSERT INTO mail_quota (key, sent) VALUES ('user:' || $uid, ARRAY[now()]) ON CONFLICT DO NOTHING;"
         . "INSERT INTO outbox (id, recipient, message, sent_at) VALUES ('out_' || $uid, $em, 'x', now());"
         # an application's grant, its code, refresh token and the authorize page's session
         . "INSERT INTO oauth_apps (id, name, redirect_uris, reg_addr) VALUES ('app_' || $uid, 'x', '[]', 'x');"
         . "INSERT INTO oauth_grants (id, user_id, app_id, scopes) VALUES ('grt_' || $uid, $uid, 'app_' || $uid, '[]');"
         . "INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, challenge, expires_at) "
         . "VALUES ('c_' || $uid, 'grt_' || $uid, 'x', 'x', now());"
         . "INSERT INTO oauth_refresh (token_hash, grant_id, expires_at) VALUES ('r_' || $uid, 'grt_' || $uid, now());"
         . "INSERT INTO oauth_logins (session_hash, user_id, code_user, expires_at) "
         . "VALUES ('s_' || $uid, $uid, $uid, now())");
}
psql("INSERT INTO mail_jobs (kind, form_id) VALUES ('digest', " . sqlq($A->{forms}[0]) . ")");
ok wait_for(sub { psql("SELECT count(*) FROM deliveries WHERE webhook_id = " . sqlq($A->{webhooks}[0])) >= 3 }, 20,
            'the deliveries'), 'webhook deliveries exist';
# submission_tally rows are folded into the counters by a worker within a
# second or so: wait for that, so that the other account's counts stay put
ok wait_for(sub { psql("SELECT count(*) FROM submission_tally WHERE user_id IN ("
                       . sqlq($A->{uid}) . ", " . sqlq($B->{uid}) . ")") == 0
                  && psql("SELECT count(*) FROM submission_hour_tally WHERE form_id IN "
                          . in_list([@{ $A->{forms} }, @{ $B->{forms} }])) == 0 }, 20, 'the tally folded'),
   'the submission tallies are folded';
ok wait_for(sub { psql("SELECT count(*) FROM insight_tally WHERE form_id IN "
                       . in_list([@{ $A->{forms} }, @{ $B->{forms} }])) == 0 }, 20, 'the answer tally folded'),
   'the answer tallies are folded';
# the mail the forms queued for others (the notify recipients'
# confirmation requests) is in the outbox, so that the counts stay put
ok wait_for(sub { psql("SELECT count(*) FROM mail_jobs WHERE kind <> 'digest' AND form_id IN "
                       . in_list([@{ $A->{forms} }, @{ $B->{forms} }])) == 0
                  && psql("SELECT count(DISTINCT user_id) FROM outbox WHERE user_id IN ("
                          . sqlq($A->{uid}) . ", " . sqlq($B->{uid}) . ")") == 2 }, 20, 'the forms\' mail queued'),
   'the forms\' mail to others is in the outbox';
my $before = counts($A);
my $other_before = counts($B);
# (tallies are empty once folded; the backlog holds only forms older than
# sql/0047)
for my $t (grep { !/^(submission_tally|insight_tally|submission_hour_tally|submission_hours_backlog)$/ } sort keys %$before) {
    cmp_ok $before->{$t}, '>', 0, "before: the account has rows in $t";
}
note "before: " . join(' ', map { "$_=$before->{$_}" } sort keys %$before);

# ---- who may -----------------------------------------------------------------
my $r = api(DELETE => '/v1/me', token => $A->{delegate}, body => { confirm => $A->{email} });
problem_ok($r, 403, 'forbidden', 'a delegated key: 403');
$r = api(DELETE => '/v1/me', token => $A->{access}, body => { confirm => $A->{email} });
is $r->code, 403, 'a client\'s access token: 403';
$r = api(DELETE => '/v1/me', token => $tok, body => { confirm => 'someone@example.com' });
problem_ok($r, 422, 'validation-failed', 'a wrong confirmation: 422');
is $r->{json}{errors}[0]{pointer}, '/confirm', 'its pointer';
$r = api(DELETE => '/v1/me', token => $tok, body => {});
problem_ok($r, 422, 'validation-failed', 'no confirmation: 422');
is $r->{json}{errors}[0]{pointer}, '/confirm', 'its pointer';
$r = api(DELETE => '/v1/me', token => $tok);
problem_ok($r, 422, 'validation-failed', 'no body: 422');
is api(GET => '/v1/me', token => $tok)->code, 200, 'nothing happened yet';

# ---- erase -------------------------------------------------------------------
my $fid = $A->{forms}[0];
is api(GET => "/f/$fid", headers => { Accept => 'application/json' })->code, 200, 'the public form is served (and cached)';
$r = api(DELETE => '/v1/me', token => $tok, body => { confirm => uc $A->{email} });
is $r->code, 202, 'erasure: 202 (the address compared as signup normalises it)' or diag $r->content;
is $r->{json}{status}, 'erasing', 'the body says what happens';
like $r->{json}{detail}, qr/background/, 'in words';
cmp_ok $r->{json}{revokedCredentials}, '>=', 3, 'keys and tokens revoked';

is api(GET => '/v1/me', token => $tok)->code, 401, 'the owner key: 401';
is api(GET => '/v1/me', token => $A->{delegate})->code, 401, 'the delegated key: 401';
is api(GET => '/v1/forms', token => $A->{access})->code, 401, 'the access token: 401';
is token([grant_type => 'client_credentials'], basic => $A->{client})->code, 401, 'the client: no new token';
# 410 until the background job has deleted the form's row; a busy machine's
# test may be slower than that job, and then the form is simply gone (404):
# either way nothing of the account is served or stored
for my $try ([GET => "/f/$fid", headers => { Accept => 'application/json' }, 'the public form'],
             [POST => "/f/$fid", body => $J->encode({ name => 'late' }), 'a submission']) {
    my $what = pop @$try;
    my $got = api(@$try);
    if ($got->code == 404 && psql("SELECT count(*) FROM forms WHERE id = " . sqlq($fid)) == 0) {
        problem_ok($got, 404, 'not-found', "$what: 404 not-found (the background job already deleted the form)");
    } else {
        problem_ok($got, 410, 'form-deleted', "$what: 410 form-deleted");
    }
}
{   # the person who opens the form's page reads a page that says so
    my $p = api(GET => "/f/$fid", headers => { Accept => 'text/html' });
    ok(($p->code == 410 && $p->decoded_content =~ /This form is no longer available/) ||
       ($p->code == 404 && $p->decoded_content =~ /Form not found/), 'the page in a browser: 410 (or 404) as a page')
        or diag $p->code . ' ' . $p->decoded_content;
    like $p->header('Content-Type'), qr{^text/html}, '  in HTML';
}
is psql("SELECT count(*) FROM webhooks WHERE user_id = " . sqlq($A->{uid}) . " AND enabled"), 0,
   'its webhooks are disabled (the dispatcher skips them)';
is psql("SELECT count(*) FROM mail_jobs WHERE form_id IN " . in_list($A->{forms})), 0,
   'its pending mail is cancelled';
is psql("SELECT count(*) FROM outbox WHERE user_id = " . sqlq($A->{uid})), 0,
   'the mail its forms queued for others is deleted with the answer, waiting or sent';

# ---- the background job --------------------------------------------------------
ok wait_for(sub { psql("SELECT count(*) FROM users WHERE id = " . sqlq($A->{uid})) == 0 }, 60,
            'the erasure job'), 'the background job deleted the account';
# the -1 of each erased answer is in the answer tally until the next rollup
# drops it (its form is gone): within a second or so
ok wait_for(sub { psql("SELECT count(*) FROM insight_tally WHERE form_id IN " . in_list($A->{forms})) == 0 }, 20,
            'the answer tally of the erased forms dropped'), 'the answer tally dropped';
my $after = counts($A);
is $after->{$_}, 0, "after: no row of the account in $_" for sort keys %$after;
is_deeply counts($B), $other_before, 'another account\'s rows are untouched';
is api(GET => '/v1/me', token => $otok)->code, 200, 'and its key works';

# ---- the address again ----------------------------------------------------------
$r = api(POST => '/v1/signup', body => { email => $A->{email} });
is $r->code, 201, 'the address signs up again' or diag $r->content;
isnt $r->{json}{user}{id}, $A->{uid}, 'as a new account';

done_testing;
