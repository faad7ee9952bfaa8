# GET /openapi.json: valid OpenAPI 3.1 that describes every route of the
# router tables (read from the C sources), with the route's method, scope,
# publicity and problem responses.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use File::Temp qw(tempfile);

my $r = api(GET => '/openapi.json');
is $r->code, 200, 'public: 200 without a credential';
like $r->header('Content-Type'), qr{^application/json}, 'application/json';
my $doc = $r->{json};
ok $doc, 'valid JSON' or BAIL_OUT('no document');
like $doc->{openapi}, qr/^3\.1\.\d+$/, 'openapi 3.1.x';
is $doc->{info}{version}, '0.3.0', 'info.version is the release (VERSION)';
is $doc->{servers}[0]{url}, base_url(), 'servers: the base URL';
is_deeply $doc->{components}{securitySchemes}{bearer}, { type => 'http', scheme => 'bearer',
    description => $doc->{components}{securitySchemes}{bearer}{description} }, 'bearer security scheme';
is_deeply $doc->{security}, [{ bearer => [] }], 'bearer by default';
ok $doc->{components}{schemas}{Problem}, 'a shared Problem schema';
is system('python3', "$ENV{FORMSVC_ROOT}/scripts/gen-openapi", '--check'), 0,
   'share/openapi.json is what scripts/gen-openapi writes';
is api(HEAD => '/openapi.json')->code, 200, 'HEAD';
is api(POST => '/openapi.json', body => {})->code, 405, 'POST: 405';

# ---- the routes of the C tables --------------------------------------------
my %scope_name;
{
    open my $fh, '<', "$ENV{FORMSVC_ROOT}/include/fs_scope.h" or die $!;
    local $/; my $h = <$fh>;
    # FS_SC_FORMS_WRITE -> forms:write
    $scope_name{$1} = lc("$2:$3") while $h =~ /\b(FS_SC_([A-Z]+)_([A-Z]+))\b/g;
}
my @routes;
for my $file (glob "$ENV{FORMSVC_ROOT}/mod_formsvc/{runtime,http,handlers,public}/*.c") {
    open my $fh, '<', $file or die $!;
    local $/; my $src = <$fh>;
    while ($src =~ /const formsvc_route formsvc_routes_\w+\[\]\s*=\s*\{(.*?)\{0, NULL/sg) {
        my $table = $1;
        while ($table =~ /\{\s*M_(\w+),\s*"([^"]+)",\s*\w+,\s*(\w+),\s*(\d)\s*\}/g) {
            push @routes, { method => lc $1, path => $2, scope => $3, auth => $4 };
        }
    }
}
cmp_ok scalar @routes, '>=', 40, 'routes read from the C tables (' . scalar(@routes) . ')';
sub norm { my $p = shift; $p =~ s/\{[^}]*\}/{}/g; $p }
my %doc_ops; # "get /v1/forms/{}" -> operation
for my $p (keys %{ $doc->{paths} }) {
    for my $m (keys %{ $doc->{paths}{$p} }) {
        $doc_ops{"$m " . norm($p)} = $doc->{paths}{$p}{$m};
    }
}
my %in_c;
for my $rt (@routes) {
    next if $rt->{path} =~ m{^/\.formsvc/}; # internal error document
    my $k = "$rt->{method} " . norm($rt->{path});
    $in_c{$k} = 1;
    my $o = $doc_ops{$k};
    ok $o, "documented: $k" or next;
    if ($rt->{auth}) {
        ok !(defined $o->{security} && !@{ $o->{security} }), "$k: needs a credential as documented";
        ok $o->{responses}{401}, "$k: 401 documented";
    } else {
        # security: [] (none) or an alternative {} (optional credentials)
        ok defined $o->{security} && (!@{ $o->{security} } || grep({ !%$_ } @{ $o->{security} })),
           "$k: public as documented";
    }
    if ($rt->{scope} ne '0') {
        is $o->{'x-required-scope'}, $scope_name{ $rt->{scope} }, "$k: scope $scope_name{ $rt->{scope} }";
        ok $o->{responses}{403}, "$k: 403 documented";
    }
    if ($rt->{path} =~ m{^/v1/}) {
        my @problems = grep {
            my $resp = $o->{responses}{$_};
            $resp = $doc->{components}{responses}{ $1 } if $resp->{'$ref'} && $resp->{'$ref'} =~ m{/(\w+)$};
            $resp->{content}{'application/problem+json'}
        } grep { /^[45]/ } keys %{ $o->{responses} };
        ok @problems >= 2, "$k: problem responses as application/problem+json";
        ok $o->{operationId}, "$k: operationId";
    }
}
# every documented operation exists (the public form is served by a
# handler that may live on another branch until merged)
for my $k (sort keys %doc_ops) {
    next if $k =~ m{ /f/};
    ok $in_c{$k}, "routed: $k";
}
# every path of the document is written in the docs a person reads (the
# OpenAPI document is made from scripts/gen-openapi, the docs by hand: a
# route added to one only shows here)
{
    my $docs = '';
    for my $f (grep { !/architecture\.md$/ } glob "$ENV{FORMSVC_ROOT}/docs/*.md") {
        open my $fh, '<', $f or die "$f: $!";
        local $/; $docs .= <$fh>;
    }
    $docs = norm($docs);
    for my $p (sort keys %{ $doc->{paths} }) {
        ok index($docs, norm($p)) >= 0, "$p is in docs/*.md";
    }
}
# every $ref resolves
my $json = JSON::PP->new->canonical->encode($doc);
my %refs = map { $_ => 1 } $json =~ /"\$ref":"#\/([^"]+)"/g;
for my $ref (sort keys %refs) {
    my $node = $doc;
    $node = $node->{$_} for split m{/}, $ref;
    ok $node, "\$ref #/$ref resolves";
}

# ---- the official OpenAPI 3.1 schema ---------------------------------------
SKIP: {
    my $js = "$FindBin::Bin/js";
    skip 'node or t/js/node_modules missing (FORMSVC_SKIP_NODE)', 2
        unless node_ready('@seriousme/openapi-schema-validator');
    my ($fh, $file) = tempfile(SUFFIX => '.json', UNLINK => 1);
    print $fh $r->content; close $fh;
    open my $out, '-|', 'node', "$js/validate_openapi.mjs", $file or die "node: $!";
    local $/; my $res = JSON::PP->new->decode(<$out>); close $out;
    ok $res->{valid}, 'valid against the OpenAPI schema' or diag explain $res->{errors};
    like $res->{version}, qr/^3\.1/, 'validated as 3.1';
}

done_testing;
