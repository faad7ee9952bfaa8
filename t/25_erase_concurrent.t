# The background erasure of an account (DELETE /v1/me) with several httpd
# children: each child's worker runs the erasure every two seconds, and
# two steps at once on the same account used to delete the same rows in
# different orders (their tallies' triggers as well): "deadlock detected"
# (FS00318), lock and statement timeouts in the error log, and an erasure
# several times slower. One step at a time across every child: the
# account goes, and the log says nothing of it.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(psql verify_account user_of);
use FormsvcInstance;

# three children (FormsvcInstance's StartServers), each running the erasure
my $inst = FormsvcInstance->start(name => 'erasemany');
ok $inst->wait_children(3, 10 + 2), 'three children';

my ($tok) = signup();
verify_account($tok);
my $uid = user_of($tok);
my @forms = map { $inst->published_form($tok, title => "F$_") } 1 .. 2;
# 40,000 submissions over two forms and two days (their tallies), with
# events: some 80 steps of erasure
for my $fid (@forms) {
    psql("INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) "
         . "SELECT 'sub_' || fs_id_time(c.t) || lpad(g::text, 16, '0'), f.id, f.user_id, f.version, "
         . "  jsonb_build_object('a', md5(g::text)), g % 7 = 0, c.t "
         . "FROM forms f, generate_series(1, 20000) g, "
         . "  LATERAL (SELECT clock_timestamp() - g * interval '4 s' AS t) c WHERE f.id = '$fid'");
}
is psql("SELECT count(*) FROM submissions WHERE user_id = '$uid'"), 40000, 'the account holds 40,000 submissions';

my $email = psql("SELECT email FROM users WHERE id = '$uid'");
my $del = $inst->api(DELETE => '/v1/me', token => $tok, body => { confirm => $email });
is $del->code, 202, 'DELETE /v1/me: 202';

ok wait_for(sub { psql("SELECT count(*) FROM users WHERE id = '$uid'") == 0 }, 90, 'the account erased'),
    'the background erasure removed the account';
is psql("SELECT count(*) FROM submissions WHERE user_id = '$uid'"), 0, 'and its submissions';

$inst->stop;
my $log = $inst->error_log;
unlike $log, qr/fs_account_purge/, 'no erasure step failed (no deadlock, lock or statement timeout)'
    or diag join "\n", grep { /fs_account_purge/ } split /\n/, $log;
unlike $log, qr/\[formsvc:(?:error|crit|alert|emerg)\]/, 'no error of the module in its log';

done_testing;
