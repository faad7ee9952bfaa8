# Operations endpoints, routing, 404/405 problems, problem pages.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my $r = api(GET => '/healthz');
is $r->code, 200, 'healthz 200';
is $r->{json}{status}, 'ok', 'healthz body';

$r = api(GET => '/readyz');
is $r->code, 200, 'readyz 200 with a migrated database';
ok $r->{json}{schemaVersion} >= 1, 'readyz reports the schema version';
my $release = do { open my $v, '<', "$ENV{FORMSVC_ROOT}/VERSION" or die $!; local $/; <$v> =~ s/\s+//gr };
is $release, '0.3.0', 'the release is 0.3.0';
is $r->{json}{moduleVersion}, $release, 'readyz reports the module version from VERSION';

$r = api(GET => '/v1/nothing-here');
is $r->code, 404, 'unknown route 404';
is $r->header('Content-Type'), 'application/problem+json', 'as problem+json';
is $r->{json}{type}, base_url() . '/problems/not-found', 'type is an absolute URL under the base path';
is $r->{json}{instance}, '/api/v1/nothing-here', 'instance is the request path';
is $r->{json}{status}, 404, 'status member';

$r = api(PUT => '/v1/signup', body => {});
is $r->code, 405, 'wrong method 405';
like $r->header('Allow'), qr/POST/, 'Allow lists POST';
is $r->{json}{type}, base_url() . '/problems/method-not-allowed', '405 problem type';

$r = api(GET => '/problems/validation-failed');
is $r->code, 200, 'problem page served';
like $r->content, qr/Validation failed/, 'problem page explains';
$r = api(GET => '/problems/validation-failed', headers => { Accept => 'application/json' });
is $r->{json}{status}, 422, 'problem page as JSON';
$r = api(GET => '/problems/no-such-thing');
is $r->code, 404, 'unknown problem slug 404';

# outside the base path nothing is ours
my $raw = Apache::TestRequest::GET('/v1/signup');
isnt $raw->header('Content-Type') // '', 'application/problem+json', 'paths outside FormsvcBaseURL are not served';

$r = api(GET => '/.formsvc/error');
is $r->code, 404, 'the internal error document is not reachable directly';

done_testing;
