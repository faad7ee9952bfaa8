# An XLSX export that meets a temporary directory without room: the
# workbook's files cannot all be written. An instance of its own, started
# with a file-size limit (RLIMIT_FSIZE, 4 MB), so that a file of the
# export fails to grow past it as on a full disk (EFBIG instead of
# ENOSPC, the same path: libxlsxwriter ignores both on its own files).
# Expected: a 503 with Retry-After before any byte, FS00380 naming the
# directory and the reason, and nothing left on the disk (no file, no
# descriptor a child keeps of an unlinked one). Never a 200 whose sheet
# lost rows. A small export keeps working.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(psql verify_account);
use FormsvcInstance;
use File::Path qw(make_path remove_tree);
use LWP::UserAgent;

my $XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
my $tmp = "$FindBin::Bin/logs/xlsx-disk-tmp";
remove_tree($tmp);
make_path($tmp);
system('chown', 'www-data:', $tmp) if $> == 0;
my $inst = FormsvcInstance->start(name => 'xlsxdisk', fsize => 4 * 1024 * 1024,
    conf => "FormsvcUploadTempDir \"$tmp\"\nFormsvcQuota verified requests 100000\n");

my ($tok) = signup();
verify_account($tok);
my $big = $inst->published_form($tok, title => 'Big');
my $small = $inst->published_form($tok, title => 'Small');
# 30,000 submissions of about 250 characters: some 14 MB of the sheet's
# XML, past the limit; the zip of it (about 1.5 MB) would not be
for my $f ([$big, 30000], [$small, 20]) {
    psql("INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) "
         . "SELECT 'sub_' || fs_id_time(c.t) || lpad(g::text, 16, '0'), f.id, f.user_id, f.version, "
         . "  jsonb_build_object('a', md5(g::text) || repeat('x', 200) || g), false, c.t "
         . "FROM forms f, generate_series(1, $f->[1]) g, "
         . "  LATERAL (SELECT clock_timestamp() - g * interval '1 ms' AS t) c WHERE f.id = '$f->[0]'");
}
my $ua = LWP::UserAgent->new(timeout => 60);
sub export { $ua->get($inst->url . "/v1/forms/$_[0]/submissions", Authorization => "Bearer $tok", Accept => $XLSX) }

# what of the directory the children hold: files in it, and descriptors
# of (unlinked) files in it
sub files_left { opendir my $d, $tmp or return (); grep { !/^\.\.?$/ } readdir $d }
sub held {
    my @fds = map { glob "/proc/$_/fd/*" } $inst->children;
    grep { (readlink($_) // '') =~ /^\Q$tmp\E\// } @fds;
}

my $res = export($big);
is $res->code, 503, 'the export that does not fit: 503, not a spreadsheet'
    or diag substr($res->content, 0, 300);
like $res->header('Content-Type') // '', qr{^application/problem\+json}, 'a problem document';
like $res->content, qr{problems/service-unavailable}, 'service-unavailable';
is $res->header('Retry-After'), '30', 'Retry-After: 30';
like $inst->error_log, qr/FS00380: XLSX export of \Q$big\E: cannot write the rows in \Q$tmp\E \(FormsvcUploadTempDir\): File too large; \d+ MB free there/,
    'FS00380 names the directory and the reason';
ok wait_for(sub { !files_left() && !held() }, 15, 'the disk given back'),
    'nothing left: no file in the directory, no descriptor of an unlinked one in a child'
    or diag join ' ', files_left(), held();

my $ok = export($small);
is $ok->code, 200, 'a small export still made';
is substr($ok->content, 0, 4), "PK\x03\x04", 'a zip';

$inst->stop;
unlike $inst->error_log, qr/\[formsvc:(?:crit|alert|emerg)\]|segfault|Segmentation/i, 'no crash';

done_testing;
