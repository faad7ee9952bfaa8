# Bearer authentication: missing, malformed, unknown, revoked, expired
# credentials; lastUsedAt; the access-log note.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

my ($secret, $acct) = signup();
my $kid = $acct->{apiKey}{id};

my $r = api(GET => '/v1/me');
is $r->code, 401, 'no credential 401';
is $r->{json}{type}, base_url() . '/problems/unauthorized', 'unauthorized problem';
like $r->header('WWW-Authenticate'), qr/^Bearer realm="formsvc"/, 'WWW-Authenticate Bearer';

for my $bad ('nonsense', 'svc_live_', $secret . 'x', substr($secret, 0, -1) . (substr($secret, -1) eq 'A' ? 'B' : 'A'),
             "svc_live_' OR '1'='1", 'svcc_' . substr($secret, 9)) {
    $r = api(GET => '/v1/me', token => $bad);
    is $r->code, 401, "bad credential 401 (" . substr($bad, 0, 20) . ")";
    is $r->header('Content-Type'), 'application/problem+json', 'as problem+json';
    like $r->header('WWW-Authenticate') // '', qr/error="invalid_token"/, 'invalid_token';
    is $r->{json}{instance}, '/api/v1/me', 'instance is the original path';
}
# well-formed (valid checksum) but unknown: goes to the database, still 401
{
    my $fake = 'svc_live_' . ('A' x 33);
    require Compress::Zlib;
    my $crc = Compress::Zlib::crc32($fake);
    my @b62 = ('0'..'9', 'A'..'Z', 'a'..'z'); my $s = '';
    for (1..6) { $s = $b62[$crc % 62] . $s; $crc = int($crc / 62) }
    $r = api(GET => '/v1/me', token => $fake . $s);
    is $r->code, 401, 'well-formed unknown secret 401';
}
# a key from another module's scheme is not ours
$r = api(GET => '/v1/me', headers => { Authorization => 'Basic dXNlcjpwYXNz' });
is $r->code, 401, 'Basic credentials on a bearer route 401';

# lastUsedAt: set on first use, not rewritten within the minute
$r = api(GET => "/v1/keys/$kid", token => $secret);
ok defined $r->{json}{lastUsedAt}, 'lastUsedAt set after use';
my $first = $r->{json}{lastUsedAt};
$r = api(GET => "/v1/keys/$kid", token => $secret);
is $r->{json}{lastUsedAt}, $first, 'not rewritten within a minute';
sql("UPDATE keys SET last_used_at = now() - interval '5 minutes' WHERE id = '$kid'");
$r = api(GET => "/v1/keys/$kid", token => $secret);
isnt $r->{json}{lastUsedAt}, $first, 'refreshed once older than a minute';

# expired key
$r = api(POST => '/v1/keys', token => $secret, body => { name => 'short' });
my $short = $r->{json};
is api(GET => '/v1/me', token => $short->{secret})->code, 200, 'new key works';
sql("UPDATE keys SET expires_at = now() - interval '1 second' WHERE id = '$short->{id}'");
is api(GET => '/v1/me', token => $short->{secret})->code, 401, 'expired key 401';

# revoked key: the next request fails
$r = api(POST => '/v1/keys', token => $secret, body => { name => 'doomed' });
my $doomed = $r->{json};
is api(DELETE => "/v1/keys/$doomed->{id}", token => $secret)->code, 200, 'revoked';
is api(GET => '/v1/me', token => $doomed->{secret})->code, 401, 'revoked key 401 at once';

# the access log carries the credential id, never the secret (lines are
# written after the answer: wait for the one of the revocation)
my $alog = "$FindBin::Bin/logs/formsvc_access.log";
sub slurp_log { open my $fh, '<', $_[0] or return ''; local $/; <$fh> }
wait_for(sub { slurp_log($alog) =~ m{"DELETE /api/v1/keys/\Q$doomed->{id}\E HTTP/1\.1" 200 cred=\Q$kid\E } }, 10,
         'the access log line of the revocation');
my $log = slurp_log($alog);
my $fh;
like $log, qr/cred=\Q$kid\E/, 'credential id in the access log note';
unlike $log, qr/\Q$secret\E/, 'no secret in the access log';
open $fh, '<', "$FindBin::Bin/logs/error_log" or die $!;
my $elog = do { local $/; <$fh> };
unlike $elog, qr/svc_live_[0-9A-Za-z]{20}/, 'no secret in the error log';

done_testing;
