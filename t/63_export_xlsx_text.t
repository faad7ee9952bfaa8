# What a respondent types cannot break the owner's XLSX export: U+FFFE and
# U+FFFF (valid UTF-8, taken in answers, but no XML characters) made the
# worksheet's XML ill-formed, so the workbook did not open at all; and
# text holding an escape of the format as typed ("_x0041_") was shown by
# spreadsheets as what the escape means ("A"). Answers sent through the
# public endpoint, the workbook read back with python3-openpyxl and its
# sheet's XML read directly.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();
use IO::Uncompress::Unzip qw(unzip $UnzipError);
use Encode ();
use File::Temp qw(tempdir);

my $XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
my $J = JSON::PP->new->utf8->canonical;
my $tmp = tempdir(CLEANUP => 1);

my ($tok) = signup();
my $form = make_form($tok, { title => 'Typed text', fields => [
    { key => 'name', type => 'text', label => 'Name' } ] });
my $fid = $form->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

my @answers = ("x\x{fffe}y\x{ffff}z", '_x0041_', 'a_x0000_x0041_b', "tab\tand _x00e9 stays");
for my $a (@answers) {
    my $r = api(POST => "/f/$fid", body => $J->encode({ name => $a }),
                headers => { Accept => 'application/json' });
    is $r->code, 201, 'answer ' . join(' ', map { sprintf 'U+%04X', ord } split //, substr $a, 0, 3) . '... taken'
        or diag $r->content;
}

my $x = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => $XLSX });
is $x->code, 200, 'the XLSX export answers 200';
my $file = "$tmp/t.xlsx";
open my $fh, '>:raw', $file or die $!;
print $fh $x->content;
close $fh;

# the workbook opens (it did not: "not well-formed (invalid token)")
my $py = "$tmp/read.py";
open my $p, '>', $py or die $!;
print $p <<'PY';
import json, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1], read_only=True).worksheets[0]
json.dump([[c.value for c in row] for row in ws.iter_rows()], sys.stdout)
PY
close $p;
my $out = `/usr/bin/python3 $py $file 2>&1`;
my $rows = eval { $J->decode($out) };
ok $rows, 'openpyxl opens the workbook' or diag substr $out, -1000;
my $col;
for my $i (0 .. $#{ $rows->[0] // [] }) { $col = $i if ($rows->[0][$i] // '') eq 'name' }
my %got = map { ($_->[$col] // '') => 1 } @{ $rows // [] }[1 .. $#{ $rows // [] }];
ok $got{"x\x{fffd}y\x{fffd}z"}, 'U+FFFE and U+FFFF became U+FFFD' or diag explain [keys %got];

# the sheet's XML: well-formed, and the typed escapes escaped themselves
my $xml;
unzip \($x->content) => \$xml, Name => 'xl/worksheets/sheet1.xml' or diag $UnzipError;
$xml //= '';
unlike $xml, qr/\xEF\xBF[\xBE\xBF]/, 'no U+FFFE or U+FFFF in the sheet XML';
$xml = Encode::decode('UTF-8', $xml);
like $xml, qr{<t>_x005F_x0041_</t>}, '"_x0041_" written so that it reads back as typed';
like $xml, qr{<t>a_x005F_x0000_x005F_x0041_b</t>}, 'two escapes in a row, each escaped';
like $xml, qr{tab\tand _x00e9 stays}, 'an unfinished escape left as it is';

done_testing;
