# The formsvc-scope authorization provider guarding a location that is not
# the module's own (see t/conf/extra.conf.in: /guarded).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use Apache::TestRequest ();

my ($secret) = signup();
my $reader = api(POST => '/v1/keys', token => $secret, body => { name => 'r', scopes => ['forms:read'] })->{json}{secret};
my $keys = api(POST => '/v1/keys', token => $secret, body => { name => 'k', scopes => ['keys:read'] })->{json}{secret};
my $writer = api(POST => '/v1/keys', token => $secret, body => { name => 'w', scopes => ['forms:write'] })->{json}{secret};

sub get { my $t = shift; Apache::TestRequest::GET('/guarded/secret.txt', defined $t ? (Authorization => "Bearer $t") : ()) }

my $r = get(undef);
is $r->code, 401, 'no credential 401';
like $r->header('WWW-Authenticate') // '', qr/^Bearer/, 'Bearer challenge';
$r = get('svc_live_garbage');
is $r->code, 401, 'bad credential 401';
is get($secret)->code, 200, 'full-access key passes';
is get($reader)->code, 200, 'forms:read passes';
is get($writer)->code, 200, 'forms:write implies forms:read';
like get($reader)->content, qr/guarded content/, 'the file is served';
# mod_authz_core logs the refusal (AH01631 at error level)
is expect_log([qr{\[authz_core:error\] .*AH01631: user usr_\w+: authorization failure for "/guarded/secret\.txt"}],
              sub { get($keys) })->code, 403, 'keys:read only: 403';
api(DELETE => '/v1/keys/' . api(GET => '/v1/keys', token => $secret)->{json}{data}[0]{id}, token => $secret);
done_testing;
