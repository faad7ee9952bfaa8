# Forms: create, list, get, patch (merge patch), delete, publish, close;
# states, auto-close, versions and ETags, slugs, quotas, idempotency,
# authorization with scopes and form: constraints.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;

my ($tok) = signup();
my ($other) = signup();
my $field = { key => 'email', type => 'email', label => 'Your e-mail', required => JSON::PP::true };

# ---- create ----
my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'Feedback' });
is $r->code, 201, 'create 201';
my $f = $r->{json};
like $f->{id}, qr/^frm_[0-9A-Z]{26}$/, 'frm_ id';
is $f->{status}, 'draft', 'new form is a draft';
is $f->{version}, 1, 'version 1';
is_deeply $f->{fields}, [], 'no fields';
is $f->{submissionCount}, 0, 'submissionCount 0';
is $f->{slug}, undef, 'slug null';
is $f->{publicUrl}, base_url() . "/f/$f->{id}", 'publicUrl by id';
is $f->{settings}{honeypot}, JSON::PP::true, 'honeypot defaults to true';
ok exists $f->{settings}{closesAt} && !defined $f->{settings}{closesAt}, 'closesAt null';
like $f->{createdAt}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'createdAt RFC 3339 ms';
is $f->{publishedAt}, undef, 'publishedAt null';
is $r->header('Location'), base_url() . "/v1/forms/$f->{id}", 'Location';
is $r->header('ETag'), '"1"', 'ETag on create';

my $slug = 'fb-' . $$ . '-' . time;
$r = api(POST => '/v1/forms', token => $tok, body => {
    title => 'Signup', description => "Two\nlines", slug => $slug,
    fields => [$field, { key => 'plan', type => 'select', label => 'Plan',
                         options => [{ value => 'free', label => 'Free' }, 'pro'] }],
    settings => { maxSubmissions => 2, confirmationMessage => 'Thanks!',
                  closesAt => '2099-01-01T01:00:00+01:00', redirectUrl => 'https://example.com/ok' } });
is $r->code, 201, 'create with fields and settings';
my $g = $r->{json};
is $g->{publicUrl}, base_url() . "/f/$slug", 'publicUrl by slug';
is scalar @{ $g->{fields} }, 2, 'two fields';
like $g->{fields}[0]{id}, qr/^fld_/, 'field ids';
is $g->{fields}[1]{position}, 1, 'positions';
is_deeply $g->{fields}[1]{options}, [{ value => 'free', label => 'Free' }, { value => 'pro', label => 'pro' }],
    'options normalised (string shorthand)';
is $g->{settings}{closesAt}, '2099-01-01T00:00:00.000Z', 'closesAt normalised to UTC';
is $g->{description}, "Two\nlines", 'description kept';

problem_ok(api(POST => '/v1/forms', token => $tok, body => { title => 'X', slug => $slug }),
           409, 'slug-taken', 'slug taken (same account)');
problem_ok(api(POST => '/v1/forms', token => $other, body => { title => 'X', slug => $slug }),
           409, 'slug-taken', 'slug unique across the service');

# ---- bad input on create ----
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'x' x 201, bogus => 1, slug => 'Bad_Slug',
    description => 5, settings => { maxSubmissions => 0, redirectUrl => 'ftp://x', honeypot => 'yes', zzz => 1 } });
problem_ok($r, 422, 'validation-failed', 'many errors at once');
my %ptr = map { ($_->{pointer} => $_->{code}) } @{ $r->{json}{errors} };
is $ptr{'/title'}, 'maxLength', 'title too long';
is $ptr{'/bogus'}, 'unknown', 'unknown member';
is $ptr{'/slug'}, 'pattern', 'bad slug';
is $ptr{'/description'}, 'type', 'description type';
is $ptr{'/settings/maxSubmissions'}, 'minimum', 'maxSubmissions minimum';
is $ptr{'/settings/redirectUrl'}, 'format', 'redirectUrl format';
is $ptr{'/settings/honeypot'}, 'type', 'honeypot type';
is $ptr{'/settings/zzz'}, 'unknown', 'unknown setting';
problem_ok(api(POST => '/v1/forms', token => $tok, body => {}), 422, 'validation-failed', 'title required');
is api(POST => '/v1/forms', token => $tok, body => {})->{json}{errors}[0]{pointer}, '/title', 'pointer /title';
problem_ok(api(POST => '/v1/forms', token => $tok, body => { title => 7 }), 422, 'validation-failed', 'title wrong type');
problem_ok(api(POST => '/v1/forms', token => $tok, body => '[1]'), 400, 'malformed-request', 'array body 400');
problem_ok(api(POST => '/v1/forms', token => $tok, body => '{"title":"a","title":"b"}'), 400, 'malformed-request', 'duplicate member 400');
problem_ok(api(POST => '/v1/forms', token => $tok, body => 'title=x', headers => { 'Content-Type' => 'text/plain' }),
           415, 'unsupported-media-type', 'text/plain 415');
problem_ok(api(POST => '/v1/forms', token => $tok, body => { title => 'a', fields => {} }), 422, 'validation-failed', 'fields not an array');
my $utitle = "Caf\x{e9} \x{1F600} \x{65e5}\x{672c} e\x{301}";
$r = api(POST => '/v1/forms', token => $tok, body => JSON::PP->new->utf8->encode({ title => $utitle }));
is $r->code, 201, 'unicode title';
my $uni = $r->{json};
is uni(api(GET => "/v1/forms/$uni->{id}", token => $tok)->{json}{title}), $utitle, 'unicode title byte-exact (combining mark kept)';
ok index(api(GET => "/v1/forms/$uni->{id}", token => $tok)->content, "\xF0\x9F\x98\x80") >= 0, 'emoji raw UTF-8 on the wire';

# ---- quota (unverified: 3 forms) ----
problem_ok(api(POST => '/v1/forms', token => $tok, body => { title => 'Fourth' }), 403, 'quota-exceeded', 'forms quota');
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Fourth' });
is $r->{json}{quota}, 'forms', 'quota member';
is $r->{json}{limit}, 3, 'limit member';
is $r->{json}{used}, 3, 'used member';
$r = api(GET => '/v1/me', token => $tok);
is_deeply $r->{json}{quota}{limits}{forms}, { limit => 3, used => 3 }, '/v1/me shows forms usage';

# ---- get / list ----
$r = api(GET => "/v1/forms/$f->{id}", token => $tok);
is $r->code, 200, 'get 200';
is $r->header('ETag'), '"1"', 'ETag is the version';
is $r->{json}{id}, $f->{id}, 'same form';
$r = api(HEAD => "/v1/forms/$f->{id}", token => $tok);
is $r->code, 200, 'HEAD';
is $r->content, '', 'HEAD has no body';
$r = api(GET => "/v1/forms/$f->{id}", token => $tok, headers => { 'If-None-Match' => '"1"' });
is $r->code, 304, 'If-None-Match 304';
$r = api(GET => '/v1/forms', token => $tok);
is $r->code, 200, 'list 200';
is scalar @{ $r->{json}{data} }, 3, 'three forms';
is $r->{json}{data}[0]{id}, $uni->{id}, 'newest first';
$r = api(GET => '/v1/forms?limit=2', token => $tok);
ok $r->{json}{nextCursor}, 'next cursor';
like $r->header('Link'), qr/rel="next"/, 'Link header';
$r = api(GET => "/v1/forms?limit=2&cursor=$r->{json}{nextCursor}", token => $tok);
is scalar @{ $r->{json}{data} }, 1, 'second page';
is $r->{json}{nextCursor}, undef, 'last page';
problem_ok(api(GET => '/v1/forms?status=open', token => $tok), 422, 'validation-failed', 'bad status filter');
problem_ok(api(GET => '/v1/forms?limit=0', token => $tok), 422, 'validation-failed', 'limit 0');
problem_ok(api(GET => '/v1/forms?cursor=!!', token => $tok), 400, 'malformed-request', 'bad cursor');
problem_ok(api(GET => '/v1/forms?cursor=' . 'a2V5czprZXlfMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA', token => $tok), 400, 'malformed-request', 'foreign cursor');
is scalar @{ api(GET => '/v1/forms?status=draft', token => $tok)->{json}{data} }, 3, 'status=draft';
is scalar @{ api(GET => '/v1/forms?status=published', token => $tok)->{json}{data} }, 0, 'status=published';
is scalar @{ api(GET => '/v1/forms', token => $other)->{json}{data} }, 0, 'other account sees none';

# ---- unknown, wrong-prefix, other account ids: identical 404s ----
my $missing = api(GET => '/v1/forms/' . fresh_id('frm_'), token => $tok);
problem_ok($missing, 404, 'not-found', 'unknown id 404');
for my $bad ("key_" . substr($f->{id}, 4), 'frm_short', $slug, lc $f->{id}) {
    problem_ok(api(GET => "/v1/forms/$bad", token => $tok), 404, 'not-found', "bad id $bad 404");
}
my $foreign = api(GET => "/v1/forms/$f->{id}", token => $other);
problem_ok($foreign, 404, 'not-found', 'other account form 404');
is $foreign->{json}{detail}, $missing->{json}{detail}, 'same detail as a missing form';
for my $m (['PATCH', { title => 'x' }], ['DELETE'], ['POST', undef, '/publish'], ['POST', undef, '/close']) {
    my ($meth, $body, $suffix) = @$m;
    problem_ok(api($meth => "/v1/forms/$f->{id}" . ($suffix // ''), token => $other, ($body ? (body => $body) : ())),
               404, "not-found", "$meth" . ($suffix // "") . " on another account's form 404");
}

# ---- patch ----
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => 'Feedback 2', description => 'About us' },
         headers => { 'Content-Type' => 'application/merge-patch+json' });
is $r->code, 200, 'merge patch 200';
is $r->{json}{title}, 'Feedback 2', 'title changed';
is $r->{json}{version}, 2, 'version +1';
is $r->header('ETag'), '"2"', 'new ETag';
ok $r->{json}{updatedAt} ge $f->{updatedAt}, 'updatedAt moved';
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => 'Feedback 2', description => 'About us' });
is $r->{json}{version}, 2, 'a patch that changes nothing keeps the version';
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { description => undef, settings => { maxSubmissions => 5 } });
is $r->{json}{description}, undef, 'null removes description';
is $r->{json}{settings}{maxSubmissions}, 5, 'settings merged';
is $r->{json}{settings}{honeypot}, JSON::PP::true, 'other settings kept';
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => { maxSubmissions => undef, honeypot => JSON::PP::false } });
is $r->{json}{settings}{maxSubmissions}, undef, 'null in settings removes the member';
is $r->{json}{settings}{honeypot}, JSON::PP::false, 'honeypot off';
# redirectUrl cannot carry anything that would change the page's CSP
for my $bad ('https://a.example;script-src *', 'https://a.example,https://evil.example',
             "https://a.example/ 'unsafe-inline'", 'https://a.example/"', 'https://u:p@a.example/',
             'https://[::1]/', "https://a.example/caf\xc3\xa9") {
    my $b = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => { redirectUrl => $bad } });
    problem_ok($b, 422, 'validation-failed', "redirectUrl $bad refused");
    is $b->{json}{errors}[0]{pointer}, '/settings/redirectUrl', 'pointer /settings/redirectUrl';
}
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => { redirectUrl => 'https://a.example/done?x=%3B%2C' } });
is $r->{json}{settings}{redirectUrl}, 'https://a.example/done?x=%3B%2C', 'percent-encoded ; and , are fine';
my $v = $r->{json}{version};
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { slug => "p$slug" });
is $r->{json}{publicUrl}, base_url() . "/f/p$slug", 'slug set by patch';
problem_ok(api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { slug => $slug }), 409, 'slug-taken', 'patch to a taken slug');
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { slug => undef });
is $r->{json}{slug}, undef, 'slug removed';
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => undef, status => 'published', fields => [], version => 9 });
problem_ok($r, 422, 'validation-failed', 'bad patch');
%ptr = map { ($_->{pointer} => $_->{code}) } @{ $r->{json}{errors} };
is $ptr{'/title'}, 'required', 'title cannot be removed';
is $ptr{'/status'}, 'unknown', 'status is not patchable';
is $ptr{'/fields'}, 'unknown', 'fields are not patched here';
problem_ok(api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => 'x' }), 422, 'validation-failed', 'settings wrong type');

# ---- If-Match ----
$r = api(GET => "/v1/forms/$f->{id}", token => $tok);
my $etag = $r->header('ETag');
my ($cur) = $etag =~ /(\d+)/;
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => 'A' }, headers => { 'If-Match' => $etag });
is $r->code, 200, 'PATCH with the current ETag';
problem_ok(api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => 'B' }, headers => { 'If-Match' => $etag }),
           412, 'precondition-failed', 'stale If-Match 412');
is api(GET => "/v1/forms/$f->{id}", token => $tok)->{json}{title}, 'A', 'stale write changed nothing';
problem_ok(api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => 'B' }, headers => { 'If-Match' => 'W/"' . ($cur + 1) . '"' }),
           412, 'precondition-failed', 'weak ETag never matches');
is api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => 'B' }, headers => { 'If-Match' => '*' })->code, 200, 'If-Match *';
# concurrent PATCHes with the same If-Match: exactly one wins
$etag = api(GET => "/v1/forms/$f->{id}", token => $tok)->header('ETag');
my @kids;
for my $i (1 .. 6) {
    my $pid = fork();
    if (!$pid) {
        my $x = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { title => "T$i" }, headers => { 'If-Match' => $etag });
        exit($x->code == 200 ? 0 : $x->code == 412 ? 1 : 2);
    }
    push @kids, $pid;
}
my %codes;
for (@kids) { waitpid($_, 0); $codes{$? >> 8}++ }
is $codes{0}, 1, 'one concurrent PATCH wins';
is $codes{1}, 5, 'the others get 412';
ok !$codes{2}, 'nothing else';
($cur) = $etag =~ /(\d+)/;
is api(GET => "/v1/forms/$f->{id}", token => $tok)->{json}{version}, $cur + 1, 'version rose once';

# ---- publish / close ----
problem_ok(api(POST => "/v1/forms/$f->{id}/close", token => $tok), 409, 'invalid-state', 'close a draft 409');
problem_ok(api(POST => "/v1/forms/$f->{id}/publish", token => $tok), 409, 'invalid-state', 'publish without fields 409');
$r = api(POST => "/v1/forms/$g->{id}/publish", token => $tok);
is $r->code, 200, 'publish';
is $r->{json}{status}, 'published', 'published';
like $r->{json}{publishedAt}, qr/Z$/, 'publishedAt set';
is $r->{json}{version}, $g->{version} + 1, 'publish raises version';
problem_ok(api(POST => "/v1/forms/$g->{id}/publish", token => $tok), 409, 'invalid-state', 'publish twice 409');
problem_ok(api(POST => "/v1/forms/$g->{id}/publish", token => $tok, body => { now => 1 }), 422, 'validation-failed', 'publish takes no members');
problem_ok(api(POST => "/v1/forms/$g->{id}/close", token => $tok, headers => { 'If-Match' => '"1"' }), 412, 'precondition-failed', 'close with stale If-Match');
$r = api(POST => "/v1/forms/$g->{id}/close", token => $tok);
is $r->{json}{status}, 'closed', 'closed';
problem_ok(api(POST => "/v1/forms/$g->{id}/close", token => $tok), 409, 'invalid-state', 'close twice 409');
is api(POST => "/v1/forms/$g->{id}/publish", token => $tok)->{json}{status}, 'published', 'closed -> published';

# ---- auto-close: maxSubmissions and closesAt ----
insert_submission($g->{id}, { email => 'a@example.com' });
is api(GET => "/v1/forms/$g->{id}", token => $tok)->{json}{status}, 'published', 'below maxSubmissions';
insert_submission($g->{id}, { email => 'b@example.com' });
# written behind the module's back, like another machine's submission: the
# owner's view (kept in memory up to 1 s, http/owner_cache.h) shows it
# within a second (its TTL is the subject: 1 s and a margin)
select undef, undef, undef, 1.1;
$r = api(GET => "/v1/forms/$g->{id}", token => $tok);
is $r->{json}{status}, 'closed', 'maxSubmissions reached: closed by itself';
is $r->{json}{submissionCount}, 2, 'submissionCount';
is scalar @{ api(GET => '/v1/forms?status=closed', token => $tok)->{json}{data} }, 1, 'status filter sees the effective status';
problem_ok(api(POST => "/v1/forms/$g->{id}/publish", token => $tok), 409, 'invalid-state', 'publishing would close at once');
$r = api(PATCH => "/v1/forms/$g->{id}", token => $tok, body => { settings => { maxSubmissions => 10, closesAt => '2000-01-01T00:00:00Z' } });
is $r->{json}{status}, 'closed', 'closesAt in the past: closed';
$r = api(PATCH => "/v1/forms/$g->{id}", token => $tok, body => { settings => { closesAt => undef } });
is $r->{json}{status}, 'published', 'reopens when the limits allow again';
is api(POST => "/v1/forms/$g->{id}/close", token => $tok)->{json}{status}, 'closed', 'explicit close';

# ---- scopes and form: constraints ----
my $ro = api(POST => '/v1/keys', token => $tok, body => { name => 'ro', scopes => ['forms:read'] })->{json}{secret};
is api(GET => "/v1/forms/$f->{id}", token => $ro)->code, 200, 'forms:read reads';
$r = api(POST => '/v1/forms', token => $ro, body => { title => 'x' });
problem_ok($r, 403, 'insufficient-scope', 'forms:read cannot create');
is $r->{json}{requiredScope}, 'forms:write', 'requiredScope';
for my $m (['PATCH', "/v1/forms/$f->{id}", { title => 'x' }], ['DELETE', "/v1/forms/$f->{id}"],
           ['POST', "/v1/forms/$f->{id}/publish"], ['POST', "/v1/forms/$f->{id}/close"]) {
    problem_ok(api($m->[0] => $m->[1], token => $ro, ($m->[2] ? (body => $m->[2]) : ())), 403, 'insufficient-scope', "forms:read cannot $m->[0] $m->[1]");
}
my $acct = api(POST => '/v1/keys', token => $tok, body => { name => 'acct', scopes => ['account:read'] })->{json}{secret};
problem_ok(api(GET => '/v1/forms', token => $acct), 403, 'insufficient-scope', 'no forms scope: list 403');
problem_ok(api(GET => "/v1/forms/$f->{id}", token => $acct), 403, 'insufficient-scope', 'no forms scope: get 403');
my $one = api(POST => '/v1/keys', token => $tok, body => { name => 'one', scopes => ['forms:write', "form:$g->{id}"] })->{json}{secret};
is api(GET => "/v1/forms/$g->{id}", token => $one)->code, 200, 'constrained key sees its form';
problem_ok(api(GET => "/v1/forms/$f->{id}", token => $one), 404, 'not-found', 'constrained key: other form 404');
problem_ok(api(PATCH => "/v1/forms/$f->{id}", token => $one, body => { title => 'x' }), 404, 'not-found', 'constrained key: patch other form 404');
$r = api(GET => '/v1/forms', token => $one);
is_deeply [map { $_->{id} } @{ $r->{json}{data} }], [$g->{id}], 'constrained list holds only its form';
problem_ok(api(POST => '/v1/forms', token => $one, body => { title => 'x' }), 403, 'insufficient-scope', 'constrained key cannot create forms');
problem_ok(api(GET => '/v1/forms'), 401, 'unauthorized', 'no credential 401');

# ---- idempotency ----
my ($itok) = signup();
my $key = "idem-$$";
my $r1 = api(POST => '/v1/forms', token => $itok, body => { title => 'Once' }, headers => { 'Idempotency-Key' => $key });
is $r1->code, 201, 'first idempotent create';
ok !$r1->header('Idempotent-Replayed'), 'not a replay';
my $r2 = api(POST => '/v1/forms', token => $itok, body => '{ "title" : "Once" }', headers => { 'Idempotency-Key' => $key });
is $r2->code, 201, 'replay status';
is $r2->header('Idempotent-Replayed'), 'true', 'Idempotent-Replayed: true';
is $r2->{json}{id}, $r1->{json}{id}, 'same form';
is $r2->header('Location'), $r1->header('Location'), 'same Location';
is scalar @{ api(GET => '/v1/forms', token => $itok)->{json}{data} }, 1, 'stored once';
problem_ok(api(POST => '/v1/forms', token => $itok, body => { title => 'Other' }, headers => { 'Idempotency-Key' => $key }),
           422, 'validation-failed', 'same key, different body 422');
is api(POST => '/v1/forms', token => $other, body => { title => 'Once' }, headers => { 'Idempotency-Key' => $key })->header('Idempotent-Replayed'),
   undef, 'keys are per account';
problem_ok(api(POST => '/v1/forms', token => $itok, body => { title => 'x' }, headers => { 'Idempotency-Key' => 'x' x 256 }),
           400, 'malformed-request', 'over-long key 400');
problem_ok(api(POST => '/v1/forms', token => $itok, body => { title => 'x' }, headers => { 'Idempotency-Key' => "a b" }),
           400, 'malformed-request', 'key with a space 400');
# a failed request does not keep its key
problem_ok(api(POST => '/v1/forms', token => $itok, body => { title => '' }, headers => { 'Idempotency-Key' => "$key-2" }),
           422, 'validation-failed', 'invalid body with a key');
is api(POST => '/v1/forms', token => $itok, body => { title => 'Fixed' }, headers => { 'Idempotency-Key' => "$key-2" })->code,
   201, 'the key is free again after a failure';
# keys
my $k1 = api(POST => '/v1/keys', token => $itok, body => { name => 'ci' }, headers => { 'Idempotency-Key' => "$key-k" });
my $k2 = api(POST => '/v1/keys', token => $itok, body => { name => 'ci' }, headers => { 'Idempotency-Key' => "$key-k" });
is $k1->code, 201, 'key created';
is $k2->header('Idempotent-Replayed'), 'true', 'key replayed';
is $k2->{json}{secret}, $k1->{json}{secret}, 'the secret is replayed';
is api(GET => "/v1/keys/$k1->{json}{id}", token => $k2->{json}{secret})->code, 200, 'replayed secret works';
problem_ok(api(POST => '/v1/keys', token => $itok, body => { name => 'other' }, headers => { 'Idempotency-Key' => "$key-k" }),
           422, 'validation-failed', 'key: same Idempotency-Key, other body');
problem_ok(api(POST => '/v1/keys', token => $itok, body => { name => 'ci' }, headers => { 'Idempotency-Key' => $key }),
           422, 'validation-failed', 'same key on another endpoint 422');
my $stored = psql("SELECT body FROM idempotency WHERE key = '$key-k'");
unlike $stored, qr/\Q$k1->{json}{secret}\E/, 'the stored answer does not hold the secret in clear';
# a request still running with the same key: 409; abandoned for a minute: taken over
use Digest::SHA qw(sha256_hex);
sub fingerprint { join '', map { pack('Q>', length $_) . $_ } @_ }
# records belong to the credential that made them: scope = key id
my $ikid = api(GET => '/v1/me', token => $itok)->{json}{credential}{id};
my $fp = sha256_hex(fingerprint('POST', '/v1/forms', '{"title":"Running"}'));
psql("INSERT INTO idempotency (scope, key, request_hash, status, body) VALUES ('$ikid', '$key-run', '$fp', 0, '')");
$r = api(POST => '/v1/forms', token => $itok, body => { title => 'Running' }, headers => { 'Idempotency-Key' => "$key-run" });
problem_ok($r, 409, 'conflict', 'same key while the first request runs: 409');
is $r->header('Retry-After'), '1', 'with Retry-After';
psql("UPDATE idempotency SET created_at = now() - interval '2 minutes' WHERE key = '$key-run'");
is api(POST => '/v1/forms', token => $itok, body => { title => 'Running' }, headers => { 'Idempotency-Key' => "$key-run" })->code,
   201, 'an abandoned claim is taken over';
psql("UPDATE idempotency SET created_at = now() - interval '25 hours' WHERE key = '$key'");
$r = api(POST => '/v1/forms', token => $itok, body => { title => 'Other' }, headers => { 'Idempotency-Key' => $key });
isnt $r->code, 422, 'after 24 hours the key can be used again';

# fixes in shared code found on the way: APR's formatter has no %zu / %lld
$r = api(POST => '/v1/keys', token => $itok, body => { name => 'bad', scopes => ['forms:read', 'bogus'] });
is $r->{json}{errors}[0]{pointer}, '/scopes/1', 'scope error pointer names the item';
$r = api(POST => "/v1/keys/$k1->{json}{id}/roll", token => $itok, body => { expiresIn => 60 });
is $r->code, 201, 'roll with expiresIn';

# ---- delete ----
problem_ok(api(DELETE => "/v1/forms/$uni->{id}", token => $tok, headers => { 'If-Match' => '"99"' }), 412, 'precondition-failed', 'delete with stale If-Match');
is api(DELETE => "/v1/forms/$uni->{id}", token => $tok)->code, 204, 'delete 204';
problem_ok(api(GET => "/v1/forms/$uni->{id}", token => $tok), 404, 'not-found', 'gone');
problem_ok(api(DELETE => "/v1/forms/$uni->{id}", token => $tok), 404, 'not-found', 'delete twice 404');
my $sid = insert_submission($g->{id}, { email => 'c@example.com' });
is api(DELETE => "/v1/forms/$g->{id}", token => $tok)->code, 204, 'delete a form with submissions';
is psql("SELECT count(*) FROM submissions WHERE id = '$sid'"), '0', 'its submissions are gone';
is api(POST => '/v1/forms', token => $tok, body => { title => 'again', slug => $slug })->code, 201, 'the slug is free again, and the quota';

problem_ok(api(PUT => '/v1/forms', token => $tok, body => {}), 405, 'method-not-allowed', 'PUT /v1/forms 405');

done_testing;
