# Account recovery: only verified accounts, the same answer for every
# address (no enumeration), single-use codes, 5 tries, revokeExistingKeys.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcMail;

sub code_of { my $m = shift; $m->{body} =~ /^    ([A-Z2-9]{8})\r?$/m ? $1 : undef }
sub outbox_for { my $e = shift; psql("SELECT count(*) FROM outbox WHERE recipient = '$e'") }

# a verified account (verified the real way)
sub verified_account {
    my ($key, $su) = signup();
    api(POST => '/v1/verify/send', token => $key)->code == 202 or die 'send';
    my $m = wait_mail($su->{user}{email}) or die 'no mail';
    api(POST => '/v1/verify/confirm', token => $key, body => { code => code_of($m) })->code == 200
        or die 'confirm';
    return ($key, $su);
}

my ($key, $su) = verified_account();
my $email = $su->{user}{email};

# unknown and unverified addresses get the same answer, and no mail
my ($ukey, $usu) = signup();
my $unknown = 'nobody.' . $$ . '.' . time . '@example.com';
my @answers;
for my $e ($email, uc $email, $usu->{user}{email}, $unknown) {
    my $r = api(POST => '/v1/recover', body => { email => "  $e " });
    push @answers, [$r->code, $r->content];
}
is $answers[0][0], 202, 'recover 202';
is_deeply [map { $_->[0] } @answers], [202, 202, 202, 202], '202 for every address';
is_deeply [map { $_->[1] } @answers], [($answers[0][1]) x 4], 'and the same body';
is outbox_for($usu->{user}{email}), 0, 'no mail for an unverified account';
is outbox_for($unknown), 0, 'none for an unknown address';
is outbox_for($email), 2, 'one recovery mail for the verified account (plus the verification mail)';

my $m = wait_mail($email, 2);
is $m->{headers}{subject}, 'Account recovery code', 'the recovery mail';
my $code = code_of($m);
ok $code, 'with a code';

# bad input
my $r = api(POST => '/v1/recover', body => {});
is $r->code, 422, 'recover without email 422';
is $r->{json}{errors}[0]{pointer}, '/email', 'pointer /email';
$r = api(POST => '/v1/recover', body => { email => 'not an address' });
is $r->code, 422, 'a malformed address 422';
$r = api(POST => '/v1/recover', body => 'email=x', headers => { 'Content-Type' => 'text/plain' });
is $r->code, 415, 'not JSON 415';
$r = api(POST => '/v1/recover/confirm', body => { email => $email });
is $r->code, 422, 'confirm without code 422';
$r = api(POST => '/v1/recover/confirm', body => { email => $email, code => $code, revokeExistingKeys => 'yes' });
is $r->code, 422, 'revokeExistingKeys must be boolean';
is $r->{json}{errors}[0]{pointer}, '/revokeExistingKeys', 'pointer';

# wrong code, unknown and unverified addresses: one indistinguishable answer
my $wrong = $code eq 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
my @bodies;
for my $e ($email, $unknown, $usu->{user}{email}) {
    my $x = api(POST => '/v1/recover/confirm', body => { email => $e, code => $wrong });
    is $x->code, 422, "wrong code for $e: 422";
    push @bodies, $x->{json}{errors};
}
is $bodies[0][0]{code}, 'enum', 'a wrong code is code enum';
is_deeply $bodies[1], $bodies[0], 'unknown address: the same problem';
is_deeply $bodies[2], $bodies[0], 'unverified address: the same problem';

# the right code (with revokeExistingKeys)
$r = api(POST => '/v1/recover/confirm',
         body => { email => uc($email), code => lc $code, revokeExistingKeys => JSON::PP::true });
is $r->code, 201, 'recover/confirm 201';
is $r->{json}{user}{id}, $su->{user}{id}, 'the same user';
is $r->{json}{apiKey}{name}, 'recovered', 'a key named recovered';
is $r->{json}{apiKey}{scopes}, undef, 'with full access';
like $r->header('Location'), qr{/v1/me$}, 'Location';
my $new = $r->{json}{apiKey}{secret};
is api(GET => '/v1/me', token => $new)->code, 200, 'the new key works';
is api(GET => '/v1/me', token => $key)->code, 401, 'the old key was revoked';
$r = api(POST => '/v1/recover/confirm', body => { email => $email, code => $code });
is $r->code, 422, 'the code works once';

# without revoking: old keys keep working; a resend within 60 s sends nothing
my ($k2, $s2) = verified_account();
my $e2 = $s2->{user}{email};
is api(POST => '/v1/recover', body => { email => $e2 })->code, 202, 'recover';
is api(POST => '/v1/recover', body => { email => $e2 })->code, 202, 'again at once: still 202';
is outbox_for($e2), 2, 'but only one recovery mail is queued';
$m = wait_mail($e2, 2);
$r = api(POST => '/v1/recover/confirm', body => { email => $e2, code => code_of($m) });
is $r->code, 201, 'recovered without revoking';
is api(GET => '/v1/me', token => $k2)->code, 200, 'the old key still works';

# brute force: 5 wrong codes void the code
my ($k3, $s3) = verified_account();
my $e3 = $s3->{user}{email};
api(POST => '/v1/recover', body => { email => $e3 });
$m = wait_mail($e3, 2);
my $c3 = code_of($m);
my $w3 = $c3 eq 'ZZZZZZZZ' ? 'YYYYYYYY' : 'ZZZZZZZZ';
for (1 .. 5) { api(POST => '/v1/recover/confirm', body => { email => $e3, code => $w3 }) }
$r = api(POST => '/v1/recover/confirm', body => { email => $e3, code => $c3 });
is $r->code, 422, 'after 5 wrong tries the right code is refused';
is api(GET => '/v1/me', token => $k3)->code, 200, 'and nothing changed for the account';
is psql("SELECT count(*) FROM keys WHERE user_id = '$s3->{user}{id}' AND name = 'recovered'"), 0,
   'no key was made';

# an expired code
my ($k4, $s4) = verified_account();
api(POST => '/v1/recover', body => { email => $s4->{user}{email} });
$m = wait_mail($s4->{user}{email}, 2);
psql("UPDATE account_codes SET expires_at = now() - interval '1 second' WHERE user_id = '$s4->{user}{id}' AND purpose = 'recover'");
is api(POST => '/v1/recover/confirm', body => { email => $s4->{user}{email}, code => code_of($m) })->code,
   422, 'an expired code is refused';
done_testing;
