# E-mail verification: send (202, mail through the outbox), resend
# throttle, confirm by code (wrong, malformed, brute-forced, expired,
# reused), the GET /verify link, scopes, and the outbox status.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcMail;

sub code_of { my $m = shift; $m->{body} =~ /^    ([A-Z2-9]{8})\r?$/m ? $1 : undef }
sub token_of { my $m = shift; $m->{body} =~ m{/verify\?token=([A-Za-z0-9_-]+)} ? $1 : undef }
# Presses the button of the link's page: POST /verify with the token.
sub press { api(POST => '/verify', body => 'token=' . shift,
                headers => { 'Content-Type' => 'application/x-www-form-urlencoded' }) }

my ($key, $su) = signup();
my $email = $su->{user}{email};

my $r = api(POST => '/v1/verify/send', token => $key);
is $r->code, 202, 'verify/send 202';
is $r->{json}{sentTo}, $email, 'sentTo';
like $r->{json}{expiresAt}, qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'expiresAt RFC 3339';

$r = api(POST => '/v1/verify/send', token => $key, body => {});
is $r->code, 429, 'a resend within 60 s is 429';
like $r->{json}{type}, qr{/problems/rate-limited$}, 'rate-limited';
ok $r->{json}{retryAfter} >= 1 && $r->{json}{retryAfter} <= 60, 'retryAfter within the minute';
is $r->header('Retry-After'), $r->{json}{retryAfter}, 'Retry-After equals retryAfter';

my $m = wait_mail($email);
ok $m, 'the mail was delivered by the worker';
is mail_count_for($email), 1, 'exactly one mail (the throttled resend sent none)';
my $h = $m->{headers};
like $h->{from}, qr/no-reply\@formsvc\.test/, 'From is FormsvcMailFrom';
is $h->{subject}, 'Verify your e-mail address', 'Subject';
like $h->{date}, qr/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d \+0000$/, 'RFC 5322 Date';
like $h->{'message-id'}, qr/^<[^<>\s]+\@formsvc\.test>$/, 'Message-ID';
is $h->{'content-type'}, 'text/plain; charset=utf-8', 'plain text';
unlike $m->{raw}, qr/(?<!\r)\n/, 'CRLF line ends only';
my $code = code_of($m);
my $token = token_of($m);
ok $code, 'the mail holds an 8-character code';
like $m->{body}, qr{\Q@{[base_url()]}\E/verify\?token=}, 'and a link under the base URL';

# the code is stored hashed only
my $uid = $su->{user}{id};
my $stored = psql("SELECT code_hash FROM account_codes WHERE user_id = '$uid'");
unlike $stored, qr/\Q$code\E/i, 'the code is not stored in the clear';
is length($stored), 64, 'but as a hash';

# bad input
$r = api(POST => '/v1/verify/confirm', token => $key, body => {});
is $r->code, 422, 'no code 422';
is $r->{json}{errors}[0]{pointer}, '/code', 'pointer /code';
is $r->{json}{errors}[0]{code}, 'required', 'required';
$r = api(POST => '/v1/verify/confirm', token => $key, body => { code => 12345678 });
is $r->{json}{errors}[0]{code}, 'type', 'a number is a type error';
$r = api(POST => '/v1/verify/confirm', token => $key, body => { code => 'AAAAAAAA', x => 1 });
is $r->code, 422, 'unknown member 422';
ok((grep { $_->{pointer} eq '/x' && $_->{code} eq 'unknown' } @{ $r->{json}{errors} }), 'reported as unknown');
$r = api(POST => '/v1/verify/confirm', token => $key, body => 'code=x',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 415, 'not JSON 415';
$r = api(POST => '/v1/verify/confirm', token => $key, body => '{"code":');
is $r->code, 400, 'malformed JSON 400';

# a wrong code costs a try
my $wrong = $code eq 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
$r = api(POST => '/v1/verify/confirm', token => $key, body => { code => $wrong });
is $r->code, 422, 'wrong code 422';
is $r->{json}{errors}[0]{code}, 'enum', 'code enum (a code of the contract\'s list)';
like $r->{json}{errors}[0]{detail}, qr/1 try left|\d tries left/, 'says how many tries are left';
like $r->{json}{errors}[0]{detail}, qr/4 tries left/, '4 tries left (the malformed ones counted nothing... )'
    or diag $r->content;

# the right code, typed sloppily
my $typed = lc(substr($code, 0, 4)) . '-' . substr($code, 4);
$r = api(POST => '/v1/verify/confirm', token => $key, body => { code => $typed });
is $r->code, 200, 'the right code 200';
is $r->{json}{user}{verified}, JSON::PP::true, 'user verified';
is api(GET => '/v1/me', token => $key)->{json}{quota}{tier}, 'verified', 'the verified tier at once';
$r = api(POST => '/v1/verify/confirm', token => $key, body => { code => $code });
is $r->code, 409, 'confirming again is 409';
like $r->{json}{type}, qr{/problems/already-verified$}, 'already-verified';
$r = api(POST => '/v1/verify/send', token => $key);
is $r->code, 409, 'send on a verified account is 409 already-verified';
$r = press($token);
is $r->code, 400, 'the link of a used code no longer works';

# --- the link ---
my ($k2, $s2) = signup();
is api(POST => '/v1/verify/send', token => $k2)->code, 202, 'second account: send';
$m = wait_mail($s2->{user}{email});
my $link_token = token_of($m);
# GET only shows a page with a button: a mail scanner fetching the link
# spends nothing
for (1 .. 2) {
    $r = api(GET => "/verify?token=$link_token");
    is $r->code, 200, 'the link answers a page';
    like $r->content, qr{<form method="post" action="verify">}, 'with a form that POSTs to /verify';
    like $r->content, qr{name="token" value="\Q$link_token\E"}, 'carrying the token';
    like $r->header('Content-Security-Policy'), qr/form-action 'self'/, 'the form may post to us';
    is $r->header('Referrer-Policy'), 'no-referrer', 'the token does not leak as a Referer';
    is api(GET => '/v1/me', token => $k2)->{json}{user}{verified}, JSON::PP::false, 'GET verifies nothing';
}
is api(HEAD => "/verify?token=$link_token")->code, 200, 'HEAD neither';
$r = press($link_token);
is $r->code, 200, 'the button verifies';
like $r->header('Content-Type'), qr{^text/html}, 'an HTML page';
like $r->content, qr/verified/, 'that says so';
is $r->header('Referrer-Policy'), 'no-referrer', 'no Referer';
like $r->header('Content-Security-Policy'), qr/default-src 'none'/, 'CSP';
is api(GET => '/v1/me', token => $k2)->{json}{user}{verified}, JSON::PP::true, 'account verified';
is press($link_token)->code, 400, 'the link works once';
is api(POST => '/v1/verify/confirm', token => $k2, body => { code => code_of($m) })->code, 409,
   'and its code is spent too';
for my $bad ('', '?token=', '?token=abc', '?token=%00%ff', '?token=' . ('x' x 5000)) {
    my $x = api(GET => "/verify$bad");
    is $x->code, 400, "bad link '$bad' is 400" if length $bad < 100;
    is $x->code, 400, 'a very long token is 400' if length $bad >= 100;
}
for my $bad ('', 'token=', 'token=abc', 'token=' . ('A' x 43), 'token=%00%ff', 'x=1') {
    is press($bad)->code, 400, "POST /verify with '$bad' is 400";
}
is api(POST => '/verify', body => 'token=' . ('A' x 43))->code, 415, 'POST /verify wants a form body';

# the token never reaches an access log: the module's note carries the
# request line with credential values redacted (LogFormat %<{formsvc-request}n)
# (lines are written after the answer: wait for the last request's in both logs)
my $tdir = Apache::Test::vars('t_logs');
my $logs = '';
wait_for(sub {
    $logs = '';
    for my $f ("$tdir/access_log", "$tdir/formsvc_access.log") {
        open my $fh, '<', $f or next;
        local $/; $logs .= <$fh>;
    }
    my @last = $logs =~ m{"POST /api/verify HTTP/1\.1" 415 }g;
    @last >= 2;
}, 10, 'the access log lines of the last /verify request');
like $logs, qr{GET /api/verify\?token=REDACTED HTTP/1\.1}, 'the link is logged redacted';
unlike $logs, qr/\Q$link_token\E/, 'no token in any access log';

# --- brute force: 5 wrong codes void the code ---
my ($k3, $s3) = signup();
is api(POST => '/v1/verify/send', token => $k3)->code, 202, 'third account: send';
$m = wait_mail($s3->{user}{email});
my $c3 = code_of($m);
my $w3 = $c3 eq 'ZZZZZZZZ' ? 'YYYYYYYY' : 'ZZZZZZZZ';
my @left;
for (1 .. 5) {
    my $x = api(POST => '/v1/verify/confirm', token => $k3, body => { code => $w3 });
    push @left, $x->code;
}
is_deeply \@left, [422, 422, 422, 422, 422], 'five wrong codes: 422 each';
$r = api(POST => '/v1/verify/confirm', token => $k3, body => { code => $c3 });
is $r->code, 422, 'then even the right code is refused';
like $r->{json}{errors}[0]{detail}, qr/no valid code/i, 'the code is void';
is press(token_of($m))->code, 400, 'and so is its link';
is api(GET => '/v1/me', token => $k3)->{json}{user}{verified}, JSON::PP::false, 'still unverified';

# --- an expired code ---
my ($k4, $s4) = signup();
is api(POST => '/v1/verify/send', token => $k4)->code, 202, 'fourth account: send';
$m = wait_mail($s4->{user}{email});
psql("UPDATE account_codes SET expires_at = now() - interval '1 second' WHERE user_id = '$s4->{user}{id}'");
$r = api(POST => '/v1/verify/confirm', token => $k4, body => { code => code_of($m) });
is $r->code, 422, 'an expired code is refused';
is press(token_of($m))->code, 400, 'an expired link too';

# --- scopes ---
my $ro = api(POST => '/v1/keys', token => $k4, body => { name => 'ro', scopes => ['account:read'] })
    ->{json}{secret};
$r = api(POST => '/v1/verify/send', token => $ro);
is $r->code, 403, 'verify/send needs account:write';
is $r->{json}{requiredScope}, 'account:write', 'requiredScope';
is api(POST => '/v1/verify/send')->code, 401, 'and a credential';
is api(POST => '/v1/verify/confirm', body => { code => 'AAAAAAAA' })->code, 401, 'confirm too';
is api(GET => '/v1/verify/send', token => $k4)->code, 405, 'GET is 405';

# --- the outbox ---
$r = api(GET => '/readyz/outbox');
is $r->code, 200, 'outbox status 200';
is $r->{json}{status}, 'ok', 'ok';
psql("INSERT INTO outbox (id, recipient, message, created_at, next_attempt_at) VALUES "
     . "('msg_stuck$$', 'x\@example.com', 'x', now() - interval '1 hour', now() + interval '1 day')");
$r = expect_log([qr{FS00102: 503 service-unavailable for /api/readyz/outbox$}], sub { api(GET => '/readyz/outbox') });
is $r->code, 503, 'a stuck outbox is 503';
ok $r->{json}{oldestPendingSeconds} >= 3600, 'with the age of the oldest message';
psql("DELETE FROM outbox WHERE id = 'msg_stuck$$'");
is api(GET => '/readyz/outbox')->code, 200, 'and 200 again once it drains';
is psql("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL AND created_at < now() - interval '1 minute'"), 0,
   'nothing else waits';
done_testing;
