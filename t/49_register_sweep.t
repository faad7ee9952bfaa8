# OAuth dynamic registrations that no one authorizes are swept 24 hours
# after they were made (docs/oauth.md, "Dynamic client registration"): the
# mail worker's oauth sweep, every ten minutes, the first time seconds
# after a child starts. Registrations made here are aged in the database
# (25 hours, and 23 hours for one that must stay); an instance of its own
# starts fresh children, whose first sweep (or the first sweep of the
# suite's own server, when it started moments ago) deletes the old unused
# one, and leaves the young one and an old one that was authorized.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(api psql wait_for);
use Time::HiRes ();

my $CB = 'http://127.0.0.1:1/cb';
my %id;
for my $which (qw(old young used)) {
    my $r = api(POST => '/oauth/register', body => { redirect_uris => [$CB], client_name => "sweep $which $$" });
    is $r->code, 201, "registration $which" or diag $r->content;
    $id{$which} = $r->{json}{client_id};
}
psql("UPDATE oauth_apps SET created_at = now() - interval '25 hours' WHERE id IN ('$id{old}', '$id{used}');"
   . "UPDATE oauth_apps SET created_at = now() - interval '23 hours' WHERE id = '$id{young}';"
   . "UPDATE oauth_apps SET authorized_at = now() - interval '24 hours' WHERE id = '$id{used}'");
sub exists_app { psql("SELECT count(*) FROM oauth_apps WHERE id = '$_[0]'") }

my $inst = FormsvcInstance->start(name => 'regsweep', conf => '');
my $t0 = Time::HiRes::time(); # its children have started
my $gone = wait_for(sub { exists_app($id{old}) == 0 }, 30, 'the oauth sweep');
my $took = Time::HiRes::time() - $t0;
ok $gone, sprintf('a registration unused for 25 hours is swept (after %.1f s)', $took);
cmp_ok $took, '<', 20, 'by the first run of the sweep, seconds after the children start';
is exists_app($id{young}), 1, 'one of 23 hours stays';
is exists_app($id{used}), 1, 'an old one that was authorized stays';
my $r = api(GET => "/oauth/authorize?response_type=code&client_id=$id{old}&redirect_uri="
            . "http%3A%2F%2F127.0.0.1%3A1%2Fcb&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeKt8URWbuGJSstw-cM&"
            . "code_challenge_method=S256&state=s");
is $r->code, 400, 'the swept client can no longer start an authorization (unknown client)';
unlike $inst->error_log, qr/\[(?:error|crit|alert|emerg)\]/, 'no errors logged';
$inst->stop;
psql("DELETE FROM oauth_apps WHERE id IN ('$id{young}', '$id{used}')");
done_testing;
