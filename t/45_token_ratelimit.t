# The token endpoint's brute-force brake: after 20 failed client
# authentications from one address within a minute, client_credentials
# requests from that address are 429 until the minute is over, even with
# the right secret. Kept in its own file, after every other token test:
# the suite's requests all come from 127.0.0.1.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;
use Apache::Test ();

my ($root) = signup();
my ($cid, $secret) = new_client($root, {});
my $wrong = $secret =~ s/^(svcc_)(.)/$1 . ($2 eq 'a' ? 'b' : 'a')/er;

# The counter works in fixed one-minute windows, so a window may end while
# this loop runs: then up to 20 more failures are needed. Started clear of
# a window's end, so that the checks after the loop are in the window
# that refused.
FormsvcTest::clear_of_boundary(60, 20);
my ($r, $n) = (undef, 0);
while ($n < 45) {
    $r = token([grant_type => 'client_credentials'], basic => [$cid, $wrong]);
    $n++;
    last if $r->code == 429;
    is $r->code, 401, "failure $n: 401" if $n <= 5;
}
oauth_error_ok $r, 429, 'temporarily_unavailable', 'brute force: 429', 'rate-limited';
ok $n > 1 && $n <= 41, "limited after at most two windows of 20 failures ($n attempts)";
like $r->header('Retry-After'), qr/^\d+$/, 'Retry-After';
ok $r->{json}{retryAfter} >= 1 && $r->{json}{retryAfter} <= 60, 'retryAfter within the minute';
$r = token([grant_type => 'client_credentials'], basic => [$cid, $secret]);
is $r->code, 429, 'the right secret from the same address is refused too';
is api(GET => '/v1/me', token => $root)->code, 200, 'other endpoints are not affected';
$r = exchange($root, actor => 'not throttled');
is $r->code, 200, 'token exchange (bearer-authenticated) is not throttled';

# none of the OAuth tests (t/40..45) caused a 500 or an unexpected error line
my $log = Apache::Test::vars('t_logs') . '/error_log';
open my $fh, '<', $log or die "$log: $!";
my @bad = grep { /\[formsvc:(?:error|crit|alert|emerg)\]/ &&
                 m{/v1/(?:token|clients|audit)|/\.well-known/|fs_(?:client|token|audit)_|AH1050} } <$fh>;
close $fh;
is scalar @bad, 0, 'no error lines from the OAuth endpoints' or diag @bad;

done_testing;
