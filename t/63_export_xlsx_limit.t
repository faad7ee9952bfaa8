# FormsvcXlsxExports: the server makes at most that many XLSX exports at
# once, counted across its children (slots in shared memory); one more is
# 503 with Retry-After, and a slot that a killed child held is taken back;
# the file a killed child left is removed at the next restart.
# An instance of its own (FormsvcXlsxExports 2, its own temporary
# directory, so that the exports being made can be counted by their files).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(psql verify_account);
use FormsvcInstance;
use File::Path qw(make_path remove_tree);
use LWP::UserAgent;
use POSIX ();
use Time::HiRes ();

my $XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
my $tmp = "$FindBin::Bin/logs/xlsx-limit-tmp";
remove_tree($tmp);
make_path($tmp);
system('chown', 'www-data:', $tmp) if $> == 0;
my $inst = FormsvcInstance->start(name => 'xlsxlimit',
    conf => "FormsvcXlsxExports 2\nFormsvcUploadTempDir \"$tmp\"\nFormsvcQuota verified requests 100000\n");

my ($tok) = signup();
verify_account($tok);
my $fid = $inst->published_form($tok, title => 'Big');
# 60,000 submissions of 200 characters: an export of a second or more
psql("INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) "
     . "SELECT 'sub_' || fs_id_time(c.t) || lpad(g::text, 16, '0'), f.id, f.user_id, f.version, "
     . "  jsonb_build_object('a', repeat('x', 200) || g), false, c.t "
     . "FROM forms f, generate_series(1, 60000) g, "
     . "  LATERAL (SELECT clock_timestamp() - g * interval '1 ms' AS t) c WHERE f.id = '$fid'");
my $url = $inst->url . "/v1/forms/$fid/submissions";
sub building { opendir my $d, $tmp or return (); grep { /^formsvc-xlsx-\d+-/ } readdir $d }
sub export_status {
    my $res = LWP::UserAgent->new(timeout => 60)->get($url, Authorization => "Bearer $tok", Accept => $XLSX);
    return $res;
}

my $one = export_status();
is $one->code, 200, 'one export: 200';
is $one->header('Content-Type'), $XLSX, 'a spreadsheet';

# ---- eight at once: at most two made at any moment ----
my $stop = "$tmp.stop";
unlink $stop, "$tmp.max";
my $poller = fork // die;
if (!$poller) {   # counts the workbooks being made, until told to stop
    my $max = 0;
    while (!-e $stop) {
        my $n = () = building();
        $max = $n if $n > $max;
        Time::HiRes::sleep(0.002);
    }
    open my $fh, '>', "$tmp.max" or die; print $fh $max; close $fh;
    POSIX::_exit(0);
}
# each worker: 1 for a 200 spreadsheet, 10 for a 503 service-unavailable
# with Retry-After 10, 0 for anything else
my $sum = FormsvcInstance->burst(8, sub {
    my $r = export_status();
    return 1 if $r->code == 200 && ($r->header('Content-Type') // '') eq $XLSX;
    return 10 if $r->code == 503 && ($r->header('Retry-After') // '') eq '10'
              && ($r->content // '') =~ m{problems/service-unavailable};
    return 0;
});
open my $sf, '>', $stop or die; close $sf;
waitpid $poller, 0;
my $max = do { open my $fh, '<', "$tmp.max" or die; local $/; <$fh> };
my ($ok, $busy) = ($sum % 10, int($sum / 10));
is $ok + $busy, 8, "eight exports at once: each a spreadsheet or a 503 ($ok and $busy)";
cmp_ok $ok, '>=', 2, 'two made';
cmp_ok $busy, '>=', 1, 'one more refused with 503, Retry-After: 10';
cmp_ok $max, '<=', 2, "never more than two workbooks being made at once (at most $max seen)";
cmp_ok $max, '>=', 1, 'the count saw them';
like $inst->error_log, qr/FS00432: .*FormsvcXlsxExports \(2\) exports run already/, 'FS00432 logged';
# (a slot goes back when the server is done with the request, which may be
# a moment after the client has the whole file)
ok wait_for(sub { export_status()->code == 200 }, 15, 'a slot given back'),
    'the slots given back: the next export is made';

# ---- a slot of a killed child is taken back ----
my @clients;
for (1 .. 2) {
    my $pid = fork // die;
    if (!$pid) {   # until it gets a slot (the last export's may not be back yet)
        for (1 .. 100) { last if export_status()->code != 503; Time::HiRes::sleep(0.1) }
        POSIX::_exit(0);
    }
    push @clients, $pid;
}
my @held;   # the two workbooks being made, as seen when both were
ok wait_for(sub { @held = building(); @held >= 2 }, 30, 'two workbooks being made'), 'two exports hold both slots';
my %child = map { /^formsvc-xlsx-(\d+)-/ ? ($1 => 1) : () } @held;
kill 'KILL', keys %child;
ok wait_for(sub { !grep { kill 0, $_ } keys %child }, 30, 'the children gone'), 'their children killed';
waitpid $_, 0 for @clients;
is scalar(building()), 2, 'both killed while making their workbooks (each leaves its named file, as documented)';
my $after = export_status();
is $after->code, 200, 'the next export is made: the dead children\'s slots were taken back'
    or diag $after->content;
# the next configuration generation removes what the dead children left
# (and nothing of a child that runs)
$inst->reload(conf => "FormsvcXlsxExports 2\nFormsvcUploadTempDir \"$tmp\"\nFormsvcQuota verified requests 100000\n");
ok wait_for(sub { !building() }, 15, 'the files of the killed children removed'),
    'a restart removes the files the killed children left';
like $inst->error_log, qr/FS00381: removed 2 XLSX export file\(s\) that children killed while making them left in \Q$tmp\E/,
    'FS00381 says so';
is export_status()->code, 200, 'an export after the restart';
$inst->stop;
unlike $inst->error_log, qr/\[formsvc:(?:error|crit|alert|emerg)\]|segfault|Segmentation/i, 'no error of the module in its log';

done_testing;
