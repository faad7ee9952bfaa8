# Respondent links: the owner's API (create with prefill
# checked against the fields, list with a cursor, get, delete, scopes,
# other accounts), the public side (the page and the JSON view prefilled,
# a submission through a link with linkId and metadata, in the event and
# the CSV), 409 link-used and 410 link-expired as problems and as pages,
# plain URL prefill of visible fields, and the form cache never serving a
# prefilled page to others.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();

my $T = JSON::PP::true;
my ($tok) = signup();
my ($other) = signup();
my $form = make_form($tok, { title => 'Links', slug => "links-$$-" . time, fields => [
    { key => 'name', type => 'text', label => 'Name', required => $T },
    { key => 'email', type => 'email', label => 'E-mail' },
    { key => 'qty', type => 'integer', label => 'Qty', validation => { maximum => 10 } },
    { key => 'src', type => 'hidden' },
] });
my $fid = $form->{id};
my $slug = $form->{slug};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $L = "/v1/forms/$fid/links";

# ---- create --------------------------------------------------------------
my $r = api(POST => $L, token => $tok, body => {
    prefill => { name => 'Ada', src => 'mail-42' }, metadata => { crm => 'c-1', tier => [1, 2] },
    maxUses => 2 });
is $r->code, 201, 'create 201' or diag $r->content;
my $lk = $r->{json};
like $lk->{id}, qr/^lnk_[0-9A-Z]{26}$/, 'id lnk_';
like $lk->{url}, qr{^\Q${\ base_url()}\E/f/\Q$slug\E\?l=fsl_[0-9A-Za-z]+$}, 'url: the slug and the token';
is_deeply $lk->{prefill}, { name => 'Ada', src => 'mail-42' }, 'prefill';
is_deeply $lk->{metadata}, { crm => 'c-1', tier => [1, 2] }, 'metadata';
is $lk->{maxUses}, 2, 'maxUses';
is $lk->{uses}, 0, 'uses 0';
is $lk->{expiresAt}, undef, 'expiresAt null';
ok $lk->{createdAt}, 'createdAt';
is $r->header('Location'), base_url() . "$L/$lk->{id}", 'Location';
my ($token) = $lk->{url} =~ /l=(\S+)$/;
is sql("SELECT count(*) FROM links WHERE token_hash LIKE '%$token%' OR token_sealed LIKE '%$token%'"), 0,
    'the token is stored neither plain nor in the hash column';

# prefill checked against the fields: 422 with pointers
$r = api(POST => $L, token => $tok, body => {
    prefill => { qty => 'many', email => 'nope', colour => 'red' }, maxUses => 0,
    expiresAt => '2001-01-01T00:00:00Z', metadata => { big => 'x' x 5000 }, extra => 1 });
problem_ok $r, 422, 'validation-failed', 'bad link: 422';
is_deeply [ sort map { "$_->{pointer} $_->{code}" } @{ $r->{json}{errors} } ],
    [ sort '/prefill/qty type', '/prefill/email format', '/prefill/colour unknown', '/maxUses minimum',
      '/expiresAt minimum', '/metadata maxLength', '/extra unknown' ], 'every error with its pointer'
    or diag $r->content;
$r = api(POST => $L, token => $tok, body => { prefill => { qty => 11 } });
is $r->{json}{errors}[0]{pointer} . ' ' . $r->{json}{errors}[0]{code}, '/prefill/qty maximum',
    'prefill obeys the field validation';
$r = api(POST => $L, token => $tok, body => { prefill => 'x' });
is $r->{json}{errors}[0]{pointer}, '/prefill', 'prefill not an object';

# a link that expires soon, one without limits
my $exp = api(POST => $L, token => $tok, body => { expiresAt => '2099-01-01T00:00:00Z' })->{json};
is $exp->{expiresAt}, '2099-01-01T00:00:00.000Z', 'expiresAt normalised';
my $free = api(POST => $L, token => $tok, body => {})->{json};
ok $free->{id}, 'an empty body makes a plain link';
is_deeply $free->{prefill}, {}, 'prefill {} by default';
is $free->{metadata}, undef, 'metadata null by default';

# ---- list, get, scopes, other accounts -----------------------------------
$r = api(GET => "$L?limit=2", token => $tok);
is $r->code, 200, 'list 200';
is_deeply [ map { $_->{id} } @{ $r->{json}{data} } ], [ $free->{id}, $exp->{id} ], 'newest first';
ok $r->{json}{nextCursor}, 'a next cursor';
is $r->{json}{data}[0]{url}, $free->{url}, 'the list carries the url';
$r = api(GET => "$L?limit=2&cursor=$r->{json}{nextCursor}", token => $tok);
is_deeply [ map { $_->{id} } @{ $r->{json}{data} } ], [ $lk->{id} ], 'second page';
is $r->{json}{nextCursor}, undef, 'last page';
$r = api(GET => "$L/$lk->{id}", token => $tok);
is $r->code, 200, 'get 200';
is $r->{json}{url}, $lk->{url}, 'get rebuilds the same url';
problem_ok api(GET => "$L/$lk->{id}", token => $other), 404, 'not-found', "another account's form: 404";
problem_ok api(GET => $L, token => $other), 404, 'not-found', "another account's list: 404";
problem_ok api(POST => $L, token => $other, body => {}), 404, 'not-found', "create on another's form: 404";
problem_ok api(DELETE => "$L/$lk->{id}", token => $other), 404, 'not-found', "delete another's: 404";
problem_ok api(GET => "$L/lnk_nope", token => $tok), 404, 'not-found', 'malformed link id: 404';
my $ro = api(POST => '/v1/keys', token => $tok, body => { name => 'ro', scopes => ['forms:read'] })->{json}{secret};
is api(GET => $L, token => $ro)->code, 200, 'forms:read lists';
problem_ok api(POST => $L, token => $ro, body => {}), 403, 'insufficient-scope', 'forms:read cannot create';
problem_ok api(DELETE => "$L/$free->{id}", token => $ro), 403, 'insufficient-scope', 'nor delete';
problem_ok api(GET => $L), 401, 'unauthorized', 'no credential: 401';

# ---- the page and the JSON view through the link --------------------------
my ($path) = $lk->{url} =~ m{/api(/f/.*)$};
$r = api(GET => $path, headers => { Accept => 'text/html' });
is $r->code, 200, 'page through the link';
like $r->content, qr/name="name"[^>]*value="Ada"|value="Ada"[^>]*name="name"/, 'visible field prefilled';
like $r->content, qr/name="src"[^>]*value="mail-42"|value="mail-42"[^>]*name="src"/, 'hidden field prefilled';
like $r->content, qr/action="[^"]*\?l=\Q$token\E"/, 'the form posts through the link';
is $r->header('Cache-Control'), 'no-store', 'the page of a link is not stored';
$r = api(GET => $path, headers => { Accept => 'application/json' });
is_deeply $r->{json}{prefill}, { name => 'Ada', src => 'mail-42' }, 'JSON view: prefill';
like $r->{json}{submit}{action}, qr{/f/\Q$fid\E\?l=\Q$token\E$}, 'JSON view: the submit URL carries the link';
$r = api(GET => "/f/$fid", headers => { Accept => 'application/json' });
ok !exists $r->{json}{prefill}, 'no prefill without a link';
unlike $r->{json}{submit}{action}, qr/\?/, 'nor a link in the action';

# plain URL prefill fills visible fields too; never cached for others
$r = api(GET => "/f/$fid?email=a%40b.org&name=Bo&qty=3", headers => { Accept => 'text/html' });
like $r->content, qr/value="a\@b\.org"/, 'plain prefill: a visible email field';
like $r->content, qr/value="Bo"/, 'plain prefill: a visible text field';
for (1 .. 2) {
    $r = api(GET => "/f/$fid", headers => { Accept => 'text/html' });
    unlike $r->content, qr/value="(?:Bo|Ada|a\@b\.org)"/, "the plain page never shows another's prefill ($_)";
}
$r = api(GET => "/f/$fid", headers => { Accept => 'application/json' });
ok !exists $r->{json}{prefill}, 'nor the plain JSON view after a link view';

# a token of another form, or garbage: 404
my $oform = make_form($other, { title => 'O', fields => [ { key => 'name', type => 'text', label => 'N' } ] });
api(POST => "/v1/forms/$oform->{id}/publish", token => $other);
problem_ok api(GET => "/f/$oform->{id}?l=$token", headers => { Accept => 'application/json' }), 404,
    'not-found', "a link on another form's URL: 404";
problem_ok api(GET => "/f/$fid?l=fsl_garbage", headers => { Accept => 'application/json' }), 404,
    'not-found', 'a malformed token: 404';

# ---- a submission through the link ---------------------------------------
$r = api(POST => $path, body => { name => 'Ada', src => 'mail-42', qty => 2 });
is $r->code, 201, 'submission through the link 201' or diag $r->content;
my $sub = $r->{json};
is $sub->{linkId}, $lk->{id}, 'the answer carries linkId';
ok !exists $sub->{metadata}, 'but not the metadata: the owner\'s, never the respondent\'s';
$r = api(GET => "/v1/forms/$fid/submissions/$sub->{id}", token => $tok);
is $r->{json}{linkId}, $lk->{id}, 'stored: linkId';
is_deeply $r->{json}{metadata}, { crm => 'c-1', tier => [1, 2] }, 'stored: metadata';
is api(GET => "$L/$lk->{id}", token => $tok)->{json}{uses}, 1, 'uses 1';
# dryRun checks the link and does not use it
is api(POST => "$path&dryRun=true", body => { name => 'Ada' })->code, 200, 'dryRun through the link';
is api(GET => "$L/$lk->{id}", token => $tok)->{json}{uses}, 1, 'dryRun does not use the link';

# an HTML post through the link, then the link is used up
$r = api(POST => $path, body => 'name=Bea&src=mail-42',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
is $r->code, 303, 'HTML post through the link: 303';
$r = api(POST => $path, body => { name => 'Cy' });
problem_ok $r, 409, 'link-used', 'a used-up link: 409 link-used';
$r = api(POST => $path, body => 'name=Cy',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
is $r->code, 409, 'HTML post on a used-up link: 409';
like $r->header('Content-Type'), qr{^text/html}, 'as a page';
like $r->content, qr/already been used/, 'that says so';
$r = api(GET => $path, headers => { Accept => 'text/html' });
is $r->code, 409, 'opening a used-up link: 409 page';
problem_ok api(GET => $path, headers => { Accept => 'application/json' }), 409, 'link-used',
    'its JSON view: 409 problem';
is api(GET => "$L/$lk->{id}", token => $tok)->{json}{status}, 'used', 'the owner sees status used';
is scalar(grep { ($_->{linkId} // '') eq $lk->{id} }
          @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} }), 2,
    'two submissions carry the link';

# the event (and so the webhook payload) carries linkId and metadata
my @ev = grep { ($_->{data}{id} // '') eq $sub->{id} }
    @{ api(GET => '/v1/events?limit=100', token => $tok)->{json}{data} };
is $ev[0]{data}{linkId}, $lk->{id}, 'event: linkId';
is_deeply $ev[0]{data}{metadata}, { crm => 'c-1', tier => [1, 2] }, 'event: metadata';

# CSV: link columns
$r = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' });
my @lines = split /\r\n/, $r->content;
is $lines[0], 'id,createdAt,formVersion,name,email,qty,src,linkId,linkMetadata', 'CSV: link columns';
like $r->content, qr/\Q$lk->{id}\E,"\{""crm"":""c-1"",""tier"":\[1,2\]\}"/, 'CSV: the link and its metadata';

# ---- expiry and deletion: 410 --------------------------------------------
sql("UPDATE links SET expires_at = now() - interval '1 second' WHERE id = '$exp->{id}'");
my ($epath) = $exp->{url} =~ m{/api(/f/.*)$};
problem_ok api(POST => $epath, body => { name => 'Late' }), 410, 'link-expired', 'an expired link: 410';
$r = api(GET => $epath, headers => { Accept => 'text/html' });
is $r->code, 410, 'opening an expired link: 410 page';
like $r->content, qr/expired/, 'that says so';
is api(DELETE => "$L/$free->{id}", token => $tok)->code, 204, 'delete 204';
problem_ok api(GET => "$L/$free->{id}", token => $tok), 404, 'not-found', 'a deleted link is gone';
problem_ok api(DELETE => "$L/$free->{id}", token => $tok), 404, 'not-found', 'and cannot be deleted twice';
my ($fpath) = $free->{url} =~ m{/api(/f/.*)$};
problem_ok api(POST => $fpath, body => { name => 'X' }), 410, 'link-expired', 'a deleted link: 410';
is scalar(grep { $_->{id} eq $free->{id} } @{ api(GET => $L, token => $tok)->{json}{data} }), 0,
    'nor listed';

# ---- MCP: the same routes as tools -----------------------------------------
my $id = 0;
sub tool {
    my ($name, $args) = @_;
    my $r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
                body => { jsonrpc => '2.0', id => ++$id, method => 'tools/call',
                          params => { name => $name, arguments => $args } });
    return $r->{json}{result};
}
my $tools = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
                body => { jsonrpc => '2.0', id => ++$id, method => 'tools/list' })->{json}{result}{tools};
is scalar(grep { $_->{name} =~ /^(?:create_link|list_links|get_link|delete_link)$/ } @$tools), 4,
   'tools/list has create_link, list_links, get_link, delete_link';
my $m = tool(create_link => { formId => $fid, prefill => { name => 'Mo' }, metadata => 'opaque', maxUses => 1 });
ok !$m->{isError}, 'create_link' or diag explain $m;
my $ml = $m->{structuredContent};
like $ml->{url}, qr/\?l=fsl_/, 'create_link: the url';
is $ml->{metadata}, 'opaque', 'create_link: metadata any JSON';
$m = tool(create_link => { formId => $fid, prefill => { qty => 'x' } });
ok $m->{isError}, 'create_link with a bad prefill: an error';
is $m->{structuredContent}{errors}[0]{pointer}, '/prefill/qty', 'with its pointer';
is tool(get_link => { formId => $fid, linkId => $ml->{id} })->{structuredContent}{url}, $ml->{url}, 'get_link';
ok((grep { $_->{id} eq $ml->{id} } @{ tool(list_links => { formId => $fid, limit => 100 })->{structuredContent}{data} }),
   'list_links');
ok tool(delete_link => { formId => $fid, linkId => $ml->{id} })->{structuredContent}{deleted}, 'delete_link';
is tool(get_link => { formId => $fid, linkId => $ml->{id} })->{structuredContent}{status}, 404, 'then 404';

# without a link, the form takes submissions as before
$r = api(POST => "/f/$fid", body => { name => 'Plain' });
is $r->code, 201, 'plain submission 201';
ok !exists $r->{json}{linkId}, 'without linkId';

# ---- the database away: the page given back still posts through the link ----
my $ol = api(POST => $L, token => $tok, body => { prefill => { name => 'Out' } })->{json};
my ($opath) = $ol->{url} =~ m{/api(/f/.*)$};
my ($otoken) = $ol->{url} =~ /l=(\S+)$/;
is api(GET => $opath, headers => { Accept => 'text/html' })->code, 200, 'page served while the database is up';
my $stopped = 0;
END { pg_ctl('start') if $stopped }
my $F = qr/(?:\Q$fid\E|\Q$slug\E)/;
expect_log([FormsvcTest::outage_lines(), qr{FS00102: 503 service-unavailable for /api/f/$F},
            qr{FS00701: 503 service-unavailable \(page\) for /api/f/$F},
            qr{FS00702: 503 service-unavailable: form \Q$fid\E given back}], sub {
    pg_ctl('stop');
    $stopped = 1;
    $r = api(POST => $opath, body => 'name=Kept',
             headers => { 'Content-Type' => 'application/x-www-form-urlencoded', Accept => 'text/html' });
    is $r->code, 503, 'HTML post through a link with the database down: 503 page';
    like $r->content, qr/action="[^"]*\?l=\Q$otoken\E"/, 'whose form still posts through the link';
    $r = api(GET => $opath, headers => { Accept => 'text/html' });
    is $r->code, 503, 'opening the link with the database down: 503 page';
    like $r->content, qr/action="[^"]*\?l=\Q$otoken\E"/, 'that posts through the link';
    pg_ctl('start');
    $stopped = 0;
    # the first requests after a restart may still meet a dead connection
    wait_for(sub { api(GET => "$L/$ol->{id}", token => $tok)->code == 200 }, 20, 'the API back after the restart');
});
$r = api(POST => $opath, body => { name => 'Back' });
is $r->code, 201, 'after PostgreSQL returns, the link works';
is $r->{json}{linkId}, $ol->{id}, 'with its id';

done_testing;
