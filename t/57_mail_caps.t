# Mail bombing: verification and recovery mail is capped
# per account and per address (FormsvcAccountMailsPerDay, default 5 in any
# 24 hours) on top of the resend interval; over the cap POST
# /v1/verify/send is 429 with Retry-After, POST /v1/recover still 202 with
# nothing sent. Counted in PostgreSQL under row locks: exact with parallel
# requests. Its own httpd with FormsvcVerifyResendInterval 0, so that only
# the daily cap holds; the interval itself is checked on the main server.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest;
use POSIX ();

my $m = FormsvcInstance->start(name => 'mailcap', conf => <<'CONF');
FormsvcVerifyResendInterval 0
FormsvcRateLimit signup 100000 3600
FormsvcRateLimit recover 100000 3600
FormsvcQuota unverified requests 100000
CONF

my $n = 0;
sub addr { sprintf 'mc%d.%d.%d@example.com', $$, time, ++$n }
sub isignup {
    my $e = shift;
    my $r = $m->api(POST => '/v1/signup', body => { email => $e });
    die $r->content unless $r->code == 201;
    return ($r->{json}{apiKey}{secret}, $r->{json}{user}{id});
}
sub outbox_for { my $e = lc shift; sql("SELECT count(*) FROM outbox WHERE lower(recipient) = '$e'") }

# $code->() in $k processes at once; a list of their exit codes
sub parallel {
    my ($k, $code) = @_;
    my @kids = map {
        my $pid = fork // die "fork: $!";
        if (!$pid) { POSIX::_exit($code->()) }
        $pid;
    } 1 .. $k;
    return map { waitpid($_, 0); $? >> 8 } @kids;
}
sub tally { my %t; $t{$_}++ for @_; \%t }

# verify/send: 0 = 202, 1 = 429 rate-limited with Retry-After = retryAfter > 86000
sub send_code {
    my ($r) = @_;
    return 0 if $r->code == 202;
    return 1 if $r->code == 429 && ($r->{json}{type} // '') =~ m{/problems/rate-limited$}
        && ($r->header('Retry-After') // 0) == ($r->{json}{retryAfter} // -1)
        && $r->{json}{retryAfter} > 86000 && $r->{json}{retryAfter} <= 86400;
    return 2;
}

# ---- one account, 12 sends at once: exactly 5 mails ----------------------------
my $x = addr();
my ($ka, $ua) = isignup($x);
my $t = tally(parallel(12, sub { send_code($m->api(POST => '/v1/verify/send', token => $ka)) }));
is $t->{0}, 5, '12 parallel verify/send: exactly 5 are 202';
is $t->{1}, 7, 'the other 7 are 429 rate-limited, Retry-After until the oldest mail is a day old';
ok !$t->{2}, 'no other answer';
is outbox_for($x), 5, 'exactly 5 mails queued for the address';
my $r = $m->api(POST => '/v1/verify/send', token => $ka);
is $r->code, 429, 'a sixth later: 429';
like $r->{json}{detail}, qr/5 verification or recovery mails in the last 24 hours/, 'detail says why';

# ---- the address keeps its count when its account goes --------------------------
sql("DELETE FROM users WHERE id = '$ua'");
my ($kb) = isignup($x);
$r = $m->api(POST => '/v1/verify/send', token => $kb);
is $r->code, 429, 'a new account with the same address: 429 (the address had its 5 mails)';
is outbox_for($x), 5, 'still 5 mails for the address';
my ($kc) = isignup(addr());
is $m->api(POST => '/v1/verify/send', token => $kc)->code, 202, 'another address is not affected';

# no raw address in the counter table
my $addr_keys = sql("SELECT count(*) FROM mail_quota WHERE key LIKE 'addr:%'");
ok $addr_keys >= 2, "address keys counted ($addr_keys)";
is sql("SELECT count(*) FROM mail_quota WHERE key LIKE '%\@%'"), 0, 'stored as hashes, never as addresses';

# ---- recovery: always 202, at most 5 mails, shared with verification ------------------
my $y = addr();
my (undef, $uy) = isignup($y);
sql("UPDATE users SET verified = true WHERE id = '$uy'");
my @codes = parallel(8, sub { $m->api(POST => '/v1/recover', body => { email => $y })->code == 202 ? 0 : 2 });
is_deeply \@codes, [ (0) x 8 ], '8 parallel recover requests: all 202 (nothing to enumerate)';
is outbox_for($y), 5, 'exactly 5 recovery mails';
is $m->api(POST => '/v1/recover', body => { email => $y })->code, 202, 'a ninth: 202';
is outbox_for($y), 5, 'and nothing sent';

# ---- the resend interval (main server, 60 s) is exact too ----------------------------
my ($kd, $sd) = signup();
$t = tally(parallel(10, sub {
    my $r = api(POST => '/v1/verify/send', token => $kd);
    return $r->code == 202 ? 0 : $r->code == 429 && $r->{json}{retryAfter} <= 60 ? 1 : 2;
}));
is $t->{0}, 1, '10 parallel sends within the interval: exactly one 202';
is $t->{1}, 9, 'the other 9: 429 with retryAfter within the interval';
is outbox_for($sd->{user}{email}), 1, 'one mail';

done_testing;
