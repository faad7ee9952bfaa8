# Tiers and quotas: GET /v1/me shows every limit of the tier and its use;
# the verified tier applies at once; the key quota is 403 quota-exceeded.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;


my ($key, $su) = signup();
my $uid = $su->{user}{id};
my $r = api(GET => '/v1/me', token => $key);
is $r->code, 200, 'GET /v1/me';
my $q = $r->{json}{quota};
is $q->{tier}, 'unverified', 'a new account is unverified';
my %want = (forms => 3, fields => 20, submissions => 100, keys => 6, clients => 1, webhooks => 0,
            requests => 100000);   # keys and requests are set in t/conf/extra.conf.in
for my $k (sort keys %want) {
    is $q->{limits}{$k}{limit}, $want{$k}, "unverified $k limit";
}
is $q->{limits}{keys}{used}, 1, 'the signup key is used';
is $q->{limits}{forms}{used}, 0, 'no forms yet';
is $q->{limits}{submissions}{used}, 0, 'no submissions yet';
like $q->{limits}{submissions}{resetsAt}, qr/^\d{4}-\d\d-01T00:00:00\.000Z$/, 'the monthly quota renews on the 1st (UTC)';
ok $q->{limits}{requests}{used} >= 1, 'this request counts against the minute';
is $r->header('RateLimit-Limit'), 100000, 'RateLimit-Limit is the tier figure';

# use shows what exists
# (through the real endpoints: a form, published, one answer and one
# honeypot catch, which is stored as spam and does not count)
$r = api(POST => '/v1/forms', token => $key, body => { title => 't', fields => [
    { key => 'a', type => 'text', label => 'A' }, { key => 'b', type => 'text', label => 'B' } ] });
my $fid = $r->{json}{id};
is api(POST => "/v1/forms/$fid/publish", token => $key)->code, 200, 'published';
is api(POST => "/f/$fid", body => { a => 'x' })->code, 201, 'one submission';
is api(POST => "/f/$fid", body => 'a=y&_hp=spam', headers => { 'Content-Type' => 'application/x-www-form-urlencoded' })->code,
   303, 'a honeypot catch is answered as a success';
is psql("SELECT count(*) FROM submissions WHERE form_id = '$fid' AND spam"), 1, 'and stored as spam';
$q = api(GET => '/v1/me', token => $key)->{json}{quota};
is $q->{limits}{forms}{used}, 1, 'forms used';
is $q->{limits}{fields}{used}, 2, 'fields used: the largest form';
is $q->{limits}{submissions}{used}, 1, 'submissions this month, spam not counted';

# the key quota: 6 active keys
for my $i (2 .. 6) {
    is api(POST => '/v1/keys', token => $key, body => { name => "k$i" })->code, 201, "key $i";
}
$r = api(POST => '/v1/keys', token => $key, body => { name => 'k7' });
is $r->code, 403, 'key 7 is over the quota';
like $r->{json}{type}, qr{/problems/quota-exceeded$}, 'quota-exceeded';
is $r->{json}{quota}, 'keys', 'names the quota';

# verification lifts the quotas at once, on the same credential
psql("UPDATE users SET verified = true WHERE id = '$uid'");
$r = api(GET => '/v1/me', token => $key);
$q = $r->{json}{quota};
is $q->{tier}, 'verified', 'verified tier at once';
my %ver = (forms => 1000, fields => 100, submissions => 100000, keys => 100, clients => 50,
           webhooks => 20, requests => 1200);
for my $k (sort keys %ver) {
    is $q->{limits}{$k}{limit}, $ver{$k}, "verified $k limit";
}
is $r->header('RateLimit-Limit'), 1200, 'the verified request rate applies at once';
is api(POST => '/v1/keys', token => $key, body => { name => 'k7' })->code, 201,
   'a seventh key once verified';
done_testing;
