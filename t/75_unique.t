# Duplicate rules: settings.uniqueBy refuses a second
# submission with the same normalised values (409 duplicate-submission, a
# page for people), exactly once under concurrency (40 identical posts
# released together: one 201); spam and deleted submissions do not count;
# uniqueBy must name fields, and a field in it cannot be removed. Own httpd
# instance, so that the per-address submission rate limit is off.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use FormsvcTest::Together;
use JSON::PP ();

my $J = JSON::PP->new->canonical->allow_nonref;
my $inst = FormsvcInstance->start(name => 'unique', conf => <<"CONF");
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
FormsvcQuota unverified forms 100
CONF
my $url = $inst->url;
my $P = "$url/problems/";
sub api { $inst->api(@_) }

my $r = api(POST => '/v1/signup', body => { email => sprintf('uq%d.%d@example.com', $$, time) });
die 'signup: ' . $r->status_line unless $r->code == 201;
my $tok = $r->{json}{apiKey}{secret};

my @FIELDS = ({ key => 'email', type => 'email', label => 'E-mail' },
              { key => 'name', type => 'text', label => 'Name' });
sub form {
    my (%settings) = @_;
    my $r = api(POST => '/v1/forms', token => $tok,
                body => { title => 'U', fields => [@FIELDS], settings => {%settings} });
    die $r->content unless $r->code == 201;
    is api(POST => "/v1/forms/$r->{json}{id}/publish", token => $tok)->code, 200, 'published';
    return $r->{json};
}
sub submit { my ($f, $b, %h) = @_; api(POST => "/f/$f", body => $b, headers => {%h}) }
sub html_post {
    my ($f, $b) = @_;
    api(POST => "/f/$f", body => $b,
        headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
}

# ---- settings.uniqueBy: syntax, and it names fields -------------------------------
$r = api(POST => '/v1/forms', token => $tok,
         body => { title => 'x', fields => [@FIELDS], settings => { uniqueBy => ['nope', 'email'] } });
is $r->code, 422, 'a uniqueBy key that is no field: 422';
is_deeply [ map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} } ],
    [ '/settings/uniqueBy/0 enum' ], 'pointer and code';
for ([ 'email', 'type' ], [ [], 'minItems' ], [ [ 'email', 'email' ], 'unique' ]) {
    $r = api(POST => '/v1/forms', token => $tok,
             body => { title => 'x', fields => [@FIELDS], settings => { uniqueBy => $_->[0] } });
    is $r->code, 422, "uniqueBy $_->[1]: 422";
    is_deeply [ map { $_->{code} } @{ $r->{json}{errors} } ], [ $_->[1] ], "code $_->[1]";
}

my $plain = form();
is $plain->{settings}{uniqueBy}, undef, 'uniqueBy null by default';
my $f = form(uniqueBy => ['email']);
is_deeply $f->{settings}{uniqueBy}, ['email'], 'uniqueBy kept';
my $fid = $f->{id};

# ---- duplicates refused, normalised -------------------------------------------------
$r = submit($fid, { email => 'Ada@Example.org', name => 'Ada' });
is $r->code, 201, 'first submission 201';
my $first = $r->{json}{id};
$r = submit($fid, { email => 'ADA@example.ORG', name => 'Someone else' });
is $r->code, 409, 'the same address in other case 409';
is $r->{json}{type}, "${P}duplicate-submission", 'duplicate-submission';
like $r->{json}{detail}, qr/same E-mail/, 'the detail names the field';
is submit($fid, { email => 'bob@example.org' })->code, 201, 'another address 201';
is api(GET => '/problems/duplicate-submission', headers => { Accept => 'application/json' })->code, 200,
    'the problem type is documented';

# a page for people
$r = html_post($fid, 'email=ADA%40example.org&name=Ada');
is $r->code, 409, 'HTML post of a duplicate: 409';
like $r->header('Content-Type'), qr{^text/html}, 'a page';
like $r->content, qr/same E-mail was already received/, 'that says why';
like $r->content, qr/value="ADA\@example\.org"/, 'with the answers kept';

# no value: not checked
is submit($fid, { name => 'anon' })->code, 201, 'no e-mail 201';
is submit($fid, { name => 'anon' })->code, 201, 'no e-mail again 201';

# ---- Idempotency-Key: a repeat replays, it is not a duplicate -------------------------
$r = submit($fid, { email => 'idem@example.org' }, 'Idempotency-Key' => "k$$");
is $r->code, 201, 'with a key 201';
$r = submit($fid, { email => 'idem@example.org' }, 'Idempotency-Key' => "k$$");
is $r->code, 201, 'the same request again: replayed 201';
is $r->header('Idempotent-Replayed'), 'true', 'replayed';

# ---- spam does not count; deleting frees the values ----------------------------------
$r = html_post($fid, 'email=spam%40example.org&_hp=x');
is $r->code, 303, 'spam answered as success';
$r = html_post($fid, 'email=ada%40example.org&_hp=x');
is $r->code, 303, 'spam repeating a stored address: answered as success too';
is submit($fid, { email => 'spam@example.org' })->code, 201, 'a spam submission holds no address';
is api(DELETE => "/v1/forms/$fid/submissions/$first", token => $tok)->code, 204, 'delete the first';
is submit($fid, { email => 'ada@example.org' })->code, 201, 'its address is free again';
is sql("SELECT count(*) FROM submissions WHERE form_id = '$fid' AND spam AND uniq_hash IS NOT NULL"), 0,
    'spam stores no hash';

# ---- forms without uniqueBy: unchanged -------------------------------------------------
is submit($plain->{id}, { email => 'x@example.org' })->code, 201, 'no rule: 201';
is submit($plain->{id}, { email => 'x@example.org' })->code, 201, 'no rule: the same again 201';
is sql("SELECT count(*) FROM submissions WHERE form_id = '$plain->{id}' AND uniq_hash IS NOT NULL"), 0,
    'no hash stored without a rule';

# ---- a field in uniqueBy cannot go; the rule can -----------------------------------------
my ($email_field) = grep { $_->{key} eq 'email' } @{ $f->{fields} };
$r = api(DELETE => "/v1/forms/$fid/fields/$email_field->{id}", token => $tok);
is $r->code, 422, 'removing a field uniqueBy names: 422';
is $r->{json}{errors}[0]{pointer}, '/settings/uniqueBy/0', 'pointer to the rule';
$r = api(PATCH => "/v1/forms/$fid/fields/$email_field->{id}", token => $tok, body => { key => 'mail' },
         headers => { 'Content-Type' => 'application/merge-patch+json' });
is $r->code, 422, 'renaming it: 422';
$r = api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => { uniqueBy => ['name', 'x'] } },
         headers => { 'Content-Type' => 'application/merge-patch+json' });
is $r->code, 422, 'PATCH naming no field: 422';
is $r->{json}{errors}[0]{pointer}, '/settings/uniqueBy/1', 'pointer';
$r = api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => { uniqueBy => undef } },
         headers => { 'Content-Type' => 'application/merge-patch+json' });
is $r->code, 200, 'uniqueBy removed';
is $r->{json}{settings}{uniqueBy}, undef, 'null';
is submit($fid, { email => 'ada@example.org' })->code, 201, 'no rule now: the address again 201';

# ---- exact under concurrency ------------------------------------------------------------

for my $max (undef, 1000) {    # the plain statement, and the one that locks the form row
    my $g = form(uniqueBy => [ 'email', 'name' ], defined $max ? (maxSubmissions => $max) : ());
    my @c = together(40, sub {
        $inst->request(POST => "/f/$g->{id}",
                       body => { email => ($_[0] % 2 ? 'Same@Example.org' : 'same@example.org'), name => 'S' });
    });
    my $what = defined $max ? 'with maxSubmissions' : 'plain';
    is codes(@c), '201:1 409:39', "$what: 40 identical submissions at once, exactly one 201";
    is sql("SELECT count(*) FROM submissions WHERE form_id = '$g->{id}'"), 1, "$what: one stored";
}

done_testing;
