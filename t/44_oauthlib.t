# A standard OAuth 2.0 client library, unchanged, against the token
# endpoint: Debian's python3-requests-oauthlib (BackendApplicationClient +
# OAuth2Session.fetch_token), then the token on GET /v1/me. The driver is
# t/bin/oauthlib_client.py.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;
use JSON::PP ();

my $py = '/usr/bin/python3';
plan skip_all => 'python3-requests-oauthlib is not installed (make deps)'
    unless system($py, '-c', 'import requests_oauthlib') == 0;

my ($root) = signup();
my ($cid, $secret) = new_client($root, { name => 'oauthlib',
                                        scopes => ['keys:read', 'account:read', 'forms:read'] });
my $out = `$py $FindBin::Bin/bin/oauthlib_client.py ${\ base_url()} $cid $secret`;
is $?, 0, 'the client script ran' or diag $out;
my $res = eval { JSON::PP->new->decode($out) } || {};

is $res->{basic}{token_type}, 'Bearer', 'Basic: token_type';
is $res->{basic}{expires_in}, 3600, 'Basic: expires_in';
is_deeply $res->{basic}{scope}, ['forms:read', 'keys:read', 'account:read'],
    'Basic: the library parsed the scope';
is $res->{basic}{me_status}, 200, 'the library used the token on GET /v1/me';
is $res->{basic}{me_client}, $cid, 'as the client';

is $res->{body}{token_type}, 'Bearer', 'body credentials: token_type';
is_deeply $res->{body}{scope}, ['keys:read'], 'narrowed scope';
is $res->{body}{keys_status}, 200, 'narrowed token reads keys';
is $res->{body}{me_status}, 403, 'but not the account';

is_deeply $res->{wrong_secret}, { class => 'InvalidClientError', error => 'invalid_client',
                                  status => 401 }, 'wrong secret: InvalidClientError';
is_deeply $res->{wide_scope}, { class => 'InvalidScopeError', error => 'invalid_scope' },
    'wide scope: InvalidScopeError';

done_testing;
