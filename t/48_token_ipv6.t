# The token endpoint's brute-force counter counts an
# IPv6 client by its /64, as the other per-address limits do, so rotating
# through the addresses of one /64 does not escape it; and token_failures
# stores no raw client address. Its own httpd, whose mod_remoteip trusts
# X-Client-IP from 127.0.0.1 (t/lib/FormsvcInstance.pm).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use MIME::Base64 ();

my $m = FormsvcInstance->start(name => 'tok6', conf => <<'CONF');
FormsvcRateLimit token 100000 60
CONF

my $r = $m->api(POST => '/v1/signup', body => { email => sprintf('t6.%d.%d@example.com', $$, time) });
is $r->code, 201, 'signup';
my $tok = $r->{json}{apiKey}{secret};
$r = $m->api(POST => '/v1/clients', token => $tok, body => {});
is $r->code, 201, 'client';
my ($cid, $secret) = ($r->{json}{id}, $r->{json}{secret});
my $wrong = $secret =~ s/^(svcc_)(.)/$1 . ($2 eq 'a' ? 'b' : 'a')/er;

sub token_from {
    my ($ip, $s) = @_;
    return $m->api(POST => '/v1/token', body => 'grant_type=client_credentials',
                   headers => { 'Content-Type' => 'application/x-www-form-urlencoded',
                                'X-Client-IP' => $ip,
                                Authorization => 'Basic ' . MIME::Base64::encode_base64("$cid:$s", '') });
}

# Each failure from another address of 2001:db8:6:6::/64. The counter has
# fixed one-minute windows of 20: at most two windows' worth are needed.
my ($n, $last) = (0, undef);
while ($n < 45) {
    $n++;
    $last = token_from(sprintf('2001:db8:6:6:%x:%x::1', $n, $$ & 0xffff), $wrong);
    last if $last->code == 429;
}
is $last->code, 429, "rotating through one /64 is refused ($n attempts)";
ok $n > 1 && $n <= 41, 'after at most two windows of 20 failures';
is token_from('2001:db8:6:6:ffff::9', $secret)->code, 429,
   'the right secret from yet another address of that /64: 429 too';
is token_from('2001:db8:6:7::1', $secret)->code, 200, 'another /64 is not affected';
is token_from('198.51.100.66', $secret)->code, 200, 'nor an IPv4 client';

# No raw address in the table: keys are 64 hex characters.
my $rows = sql("SELECT count(*) FROM token_failures");
ok $rows >= 1, "token_failures has rows ($rows)";
is sql("SELECT count(*) FROM token_failures WHERE addr !~ '^[0-9a-f]{64}\$'"), 0,
   'every key is a 64-hex-character hash';

done_testing;
