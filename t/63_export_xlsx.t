# GET /v1/forms/{id}/submissions as XLSX and as JSON Lines: the XLSX read
# back with python3-openpyxl and compared cell by cell with the CSV of the
# same form (typed cells, text never a formula), JSON Lines compared line
# by line with the JSON list, the filters, an empty form, the children's
# memory during a large export, the temporary file gone after an abort.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Apache::TestRequest ();
use JSON::PP ();
use IO::Uncompress::Unzip ();
use Encode ();
use File::Temp qw(tempdir);
use IO::Select;
use IO::Socket::INET;
use Time::HiRes ();

my $XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
my $J = JSON::PP->new->utf8->canonical;
my $tmp = tempdir(CLEANUP => 1);

# the cells of an XLSX body: [[{t => type, v => value}, ...], ...] with
# openpyxl's data types (s text, n number, b boolean, d date, f formula)
my $reader = "$tmp/read.py";
open my $py, '>', $reader or die $!;
print $py <<'PY';
import datetime, json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
ws = wb.worksheets[0]
out = []
# a second argument: only that many rows (a large sheet)
for row in ws.iter_rows(max_row=int(sys.argv[2]) if len(sys.argv) > 2 else None):
    cells = []
    for c in row:
        v = c.value
        t = c.data_type
        if isinstance(v, datetime.datetime):
            t, v = 'd', v.strftime('%Y-%m-%d')
        cells.append({'t': t, 'v': v})
    out.append(cells)
json.dump({'sheets': wb.sheetnames, 'rows': out}, sys.stdout)
PY
close $py;
my $n_read = 0;
sub cells_of {
    my ($body, $rows) = @_;
    my $f = "$tmp/x" . ++$n_read . '.xlsx';
    open my $fh, '>:raw', $f or die $!;
    print $fh $body;
    close $fh;
    my $out = `/usr/bin/python3 $reader $f @{[ $rows // '' ]} 2>&1`;
    return eval { $J->decode($out) } || do { diag 'openpyxl: ' . substr($out, -2000); undef };
}

# the CSV's cells, unquoted, each row an array
sub csv_rows {
    my $s = shift;
    my (@rows, @row, $cell);
    $cell = '';
    my $i = 0;
    while ($i < length $s) {
        my $c = substr $s, $i, 1;
        if ($c eq '"') {
            my $j = $i + 1;
            while (1) {
                my $q = index $s, '"', $j;
                if (substr($s, $q + 1, 1) eq '"') { $cell .= substr($s, $j, $q - $j) . '"'; $j = $q + 2; next }
                $cell .= substr $s, $j, $q - $j;
                $i = $q + 1;
                last;
            }
            next;
        }
        if ($c eq ',') { push @row, $cell; $cell = ''; $i++; next }
        if ($c eq "\r") { push @row, $cell; push @rows, [@row]; @row = (); $cell = ''; $i += 2; next }
        $cell .= $c;
        $i++;
    }
    return \@rows;
}

# what an XLSX cell says as CSV writes it: the CSV's neutralising quote
# in front of a formula-looking text (fs_csv.h) is the CSV's, not the data's
sub as_csv {
    my $c = shift;
    return '' unless defined $c->{v};
    return $c->{v} ? 'true' : 'false' if $c->{t} eq 'b';
    return $c->{v} if $c->{t} ne 's';
    my $v = $c->{v};
    $v = "'$v" if $v =~ /^[=+\-\@;\t\r]/;
    $v =~ s/([\r\n])([ \t]*)([=+\-\@;])/$1$2'$3/g;
    return $v;
}

my ($tok) = signup();
verify_account($tok);   # more forms than an unverified account's 3
ok wait_for(sub { api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 15, 'verified'), 'the account verified';
my $form = make_form($tok, { title => 'Sheet', fields => [
    { key => 'name', type => 'text', label => 'Name' },
    { key => 'qty', type => 'number', label => 'Quantity' },
    { key => 'born', type => 'date', label => 'Born' },
    { key => 'tags', type => 'multiselect', label => 'Tags', options => ['a', 'b', "c\x{e9}"] },
    { key => 'ok', type => 'boolean', label => 'OK' },
] });
my $fid = $form->{id};
my $base = "/v1/forms/$fid/submissions";
my $long = join '', map { chr(0x41 + $_ % 26) . "\x{e9}" } 1 .. 9000;   # 18,000 characters
insert_submission($fid, { name => "Zo\x{eb} \x{65e5}\x{672c} \x{1f389}", qty => 42, born => '1990-05-17', tags => ['a', "c\x{e9}"], ok => JSON::PP::true },
                  created => '2026-03-01T10:00:00Z');
insert_submission($fid, { name => '=1+1', qty => 3.25, born => '2024-02-29', ok => JSON::PP::false }, created => '2026-03-02T10:00:00Z');
insert_submission($fid, { name => "line one\n=HYPERLINK(\"http://evil\")", qty => -7 }, created => '2026-03-03T10:00:00Z');
insert_submission($fid, { name => $long, qty => 12345678901 }, created => '2026-03-04T10:00:00Z');
insert_submission($fid, { name => '@SUM(A1)', born => 'not a date' }, created => '2026-03-05T10:00:00Z');
insert_submission($fid, { name => 'spam', qty => 1 }, spam => 1, created => '2026-03-06T10:00:00Z');

sub compare_with_csv {
    my ($query, $what, $of) = @_;   # $of: another form's id
    my ($b, $id) = $of ? ("/v1/forms/$of/submissions", $of) : ($base, $fid);
    my $c = api(GET => "$b$query", token => $tok, headers => { Accept => 'text/csv' });
    my $x = api(GET => "$b$query", token => $tok, headers => { Accept => $XLSX });
    is $x->code, 200, "$what: XLSX 200" or diag $x->content;
    is $x->header('Content-Type'), $XLSX, "$what: its media type";
    like $x->header('Content-Disposition') // '', qr/^attachment; filename="$id-submissions\.xlsx"$/, "$what: an attachment";
    is $x->header('Content-Length'), length $x->content, "$what: its length said";
    my $sheet = cells_of($x->content);
    my $csv = csv_rows(Encode::decode('UTF-8', $c->content));
    my @got = map { [map { as_csv($_) } @$_] } @{ $sheet->{rows} };
    # openpyxl gives trailing empty cells of a row as None: the CSV has them
    for my $i (0 .. $#got) { push @{ $got[$i] }, '' while @{ $got[$i] } < @{ $csv->[$i] // [] } }
    # numbers: as numbers, compared by value
    for my $i (1 .. $#got) {
        for my $j (0 .. $#{ $got[$i] }) {
            next unless $sheet->{rows}[$i][$j] && $sheet->{rows}[$i][$j]{t} eq 'n' && defined $csv->[$i][$j];
            $got[$i][$j] = $csv->[$i][$j] if $csv->[$i][$j] =~ /^-?[0-9.eE+]+$/ && $csv->[$i][$j] == $got[$i][$j];
        }
    }
    is_deeply \@got, $csv, "$what: the XLSX's cells are the CSV's" or diag substr(explain(\@got, $csv), 0, 3000);
    return $sheet;
}

my $sheet = compare_with_csv('', 'all');
my @rows = @{ $sheet->{rows} };
is_deeply $sheet->{sheets}, ['Submissions'], 'one worksheet';
is_deeply [map { $_->{v} } @{ $rows[0] }], [qw(id createdAt formVersion name qty born tags ok)], 'the header row: the CSV columns';
is scalar @rows, 6, 'header and five submissions (not the spam)';
my %by = map { (($_->[3]{v} // '') =~ /^(.{0,8})/)[0] => $_ } @rows[1 .. $#rows];
my $zoe = $by{"Zo\x{eb} \x{65e5}\x{672c} \x{1f389}"};
is $zoe->[3]{v}, "Zo\x{eb} \x{65e5}\x{672c} \x{1f389}", 'unicode text as it was sent';
is_deeply $zoe->[4], { t => 'n', v => 42 }, 'a number is a number cell';
is_deeply $zoe->[5], { t => 'd', v => '1990-05-17' }, 'a date field is a date cell';
is_deeply $zoe->[6], { t => 's', v => "a; c\x{e9}" }, 'a multiselect joined as the CSV joins it';
is_deeply $zoe->[7], { t => 'b', v => JSON::PP::true }, 'a boolean is a boolean cell';
is_deeply $zoe->[2], { t => 'n', v => 1 }, 'formVersion a number';
my $f = $by{'=1+1'};
is_deeply $f->[3], { t => 's', v => '=1+1' }, 'formula-looking text is a text cell, exactly as sent';
is_deeply $f->[4], { t => 'n', v => 3.25 }, 'a decimal number';
is_deeply $f->[5], { t => 'd', v => '2024-02-29' }, 'a leap day';
is $by{'@SUM(A1)'}[3]{t}, 's', '@ text is text';
is_deeply $by{'@SUM(A1)'}[5], { t => 's', v => 'not a date' }, 'what is no simple date stays text';
is $by{"line one"}[3]{v}, "line one\n=HYPERLINK(\"http://evil\")", 'a formula on a later line is text too';
my ($longrow) = grep { length($_->[3]{v} // '') > 100 } @rows;
ok $longrow->[3]{v} eq $long, 'long text (18,000 characters) whole';
is_deeply $longrow->[4], { t => 'n', v => 12345678901 }, 'a large integer';

# ---- the optional columns: a link's, the owner's state ----
my $lnk = api(POST => "/v1/forms/$fid/links", token => $tok, body => { metadata => { team => '=red', n => 3 } });
is $lnk->code, 201, 'a respondent link' or diag $lnk->content;
psql("UPDATE submissions SET link_id = '$lnk->{json}{id}', link_metadata = '{\"team\": \"=red\", \"n\": 3}' "
     . "WHERE id = '$zoe->[0]{v}'");
my $pr = api(PATCH => "$base/$f->[0]{v}", token => $tok, headers => { 'If-Match' => '"1"' },
             body => { status => 'done', tags => ['vip', 'late'], note => "=cmd|' /C calc'!A0" });
is $pr->code, 200, 'the owner changed a submission' or diag $pr->content;
my $opt = compare_with_csv('', 'with linkId, linkMetadata and the owner\'s columns');
is_deeply [map { $_->{v} } @{ $opt->{rows}[0] }],
          [qw(id createdAt formVersion name qty born tags ok linkId linkMetadata ownerStatus ownerTags ownerNote)],
          'the header: the link\'s and the owner\'s columns after the fields';
my ($patched) = grep { ($_->[0]{v} // '') eq $f->[0]{v} } @{ $opt->{rows} };
is_deeply $patched->[12], { t => 's', v => "=cmd|' /C calc'!A0" }, 'a formula-looking note is text';

# ---- every other kind of column: parts, a matrix's rows, the ending, the
# calculated ones, the spam score (one list of columns for both exports) ----
my $wide = make_form($tok, { title => 'Wide', fields => [
    { key => 'home', type => 'address', label => 'Home' },
    { key => 'stay', type => 'daterange', label => 'Stay' },
    { key => 'grid', type => 'matrix', label => 'Grid', rows => [{ key => 'r1', label => 'R1' }, { key => 'r2', label => 'R2' }],
      columns => [{ value => 'x', label => 'X' }, { value => 'y', label => 'Y' }] },
    { key => 'city', type => 'text', label => 'Capital of France', correct => 'Paris' },
    { key => 'note', type => 'textarea', label => 'Note' } ],
    settings => { spamThreshold => 100,
                  endings => [{ key => 'good', when => { field => 'city', op => 'equals', value => 'Paris' }, message => 'Well done.' }],
                  variables => [{ name => 'n', type => 'number', initial => 2 }] } });
ok $wide->{id}, 'a form with parts, a matrix, a quiz, an ending, a variable and spamThreshold' or diag explain $wide;
is api(POST => "/v1/forms/$wide->{id}/publish", token => $tok)->code, 200, 'published';
for my $b ({ home => { line1 => '1 Rue =A1', city => 'Lyon', country => 'FR' }, stay => { start => '2026-06-01', end => '2026-06-03' },
             grid => { r1 => 'x', r2 => 'y' }, city => 'Paris', note => 'hello' },
           { city => 'Rome', grid => { r1 => 'y' } }) {
    my $r = api(POST => "/f/$wide->{id}", body => $b);
    is $r->code, 201, 'a submission to it' or diag $r->content;
}
my $ws = compare_with_csv('', 'every kind of column', $wide->{id});
is_deeply [map { $_->{v} } @{ $ws->{rows}[0] }],
          [qw(id createdAt formVersion home.line1 home.line2 home.city home.region home.postalCode home.country
              stay.start stay.end grid.r1 grid.r2 city note endingKey calculatedScore calculatedMax calculated.n spamScore)],
          'the header: parts, rows, the ending, the calculated columns and spamScore, as the CSV has them';
my ($paris) = grep { ($_->[13]{v} // '') eq 'Paris' } @{ $ws->{rows} };
is_deeply [ map { $_->{t} } @{$paris}[16, 17, 18, 19] ], [qw(n n n n)], 'the score, max, a number variable and the spam score are number cells';
is $paris->[3]{v}, '1 Rue =A1', 'a part is text as sent';

# ---- filters ----
compare_with_csv('?since=2026-03-02T00:00:00Z&until=2026-03-04T00:00:00Z', 'since and until');
my $s = compare_with_csv('?spam=true', 'spam=true');
is $s->{rows}[0][3]{v}, 'spam', 'spam=true: the spam column';
is scalar @{ $s->{rows} }, 7, 'and the spam submission';
problem_ok(api(GET => "$base?since=yesterday", token => $tok, headers => { Accept => $XLSX }), 422, 'validation-failed', 'a bad filter: 422');
problem_ok(api(GET => "$base?completed=false", token => $tok, headers => { Accept => $XLSX }), 422, 'validation-failed', 'partial answers are JSON only');

# ---- negotiation ----
problem_ok(api(GET => $base, token => $tok, headers => { Accept => 'text/html' }), 406, 'not-acceptable', 'text/html: 406');
is api(GET => $base, token => $tok, headers => { Accept => '*/*' })->header('Content-Type'), 'application/json', '*/*: JSON';
is api(GET => $base, token => $tok, headers => { Accept => "$XLSX, application/json;q=0.9" })->header('Content-Type'), $XLSX, 'XLSX by q';
is api(GET => $base, token => $tok, headers => { Accept => 'application/*' })->header('Content-Type'), 'application/json', 'application/*: JSON first';
is api(GET => $base, token => $tok, headers => { Accept => "application/x-ndjson, $XLSX" })->header('Content-Type'), 'application/x-ndjson', 'a tie: JSON Lines before XLSX';

# ---- JSON Lines ----
sub json_list {
    my ($query) = @_;
    my (@items, $cursor);
    for (;;) {
        my $sep = $query =~ /\?/ ? '&' : '?';
        my $r = api(GET => "$base$query${sep}limit=2" . ($cursor ? "&cursor=$cursor" : ''), token => $tok);
        my $j = $J->decode($r->content);
        push @items, @{ $j->{data} };
        last unless $cursor = $j->{nextCursor};
    }
    return \@items;
}
for my $q ('', '?spam=true', '?since=2026-03-03T00:00:00Z') {
    my $r = api(GET => "$base$q", token => $tok, headers => { Accept => 'application/x-ndjson' });
    is $r->code, 200, "JSON Lines$q: 200";
    is $r->header('Content-Type'), 'application/x-ndjson', 'its media type';
    like $r->header('Content-Disposition') // '', qr/^attachment; filename="$fid-submissions\.jsonl"$/, 'an attachment';
    my $body = $r->content;
    like $body, qr/\n\z/, 'every line ends with a newline';
    my @lines = map { $J->decode($_) } split /\n/, $body;
    my $list = json_list($q);
    cmp_ok scalar @$list, '>', 0, 'the JSON list has items';
    is_deeply \@lines, $list, "JSON Lines$q: line for line the JSON list's items";
}

# ---- where to download it: REST, and the MCP tool get_export_url ----
my $l = api(GET => "$base/export/link?format=xlsx&since=2026-03-02T00:00:00Z", token => $tok);
is $l->code, 200, 'export/link: 200';
is $l->{json}{url}, base_url() . "$base?since=2026-03-02T00:00:00Z", 'the list URL with the filters, without format';
is_deeply $l->{json}{headers}, { Accept => $XLSX }, 'the Accept that picks XLSX';
is $l->{json}{method}, 'GET', 'GET';
(my $lpath = $l->{json}{url}) =~ s{^\Q@{[ base_url() ]}\E}{};
my $lx = api(GET => $lpath, token => $tok, headers => $l->{json}{headers});
is $lx->header('Content-Type'), $XLSX, 'following it gives the XLSX';
is scalar @{ cells_of($lx->content)->{rows} }, 5, 'with the filter: the header and four submissions';
problem_ok(api(GET => "$base/export/link?format=pdf", token => $tok), 422, 'validation-failed', 'an unknown format: 422');
problem_ok(api(GET => "$base/export/link", token => $tok), 422, 'validation-failed', 'no format: 422');
problem_ok(api(GET => "$base/export/link?format=csv&since=soon", token => $tok), 422, 'validation-failed', 'a bad filter: 422');
my $mcp = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
              body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                        params => { name => 'get_export_url', arguments => { formId => $fid, format => 'jsonl', spam => JSON::PP::true } } });
my $mres = $mcp->{json}{result};
ok $mres && !$mres->{isError}, 'MCP get_export_url' or diag $mcp->content;
like $mres->{structuredContent}{url}, qr{\Q$base\E\?spam=true$}, 'its URL with the filter';
is_deeply $mres->{structuredContent}{headers}, { Accept => 'application/x-ndjson' }, 'and the Accept of JSON Lines';

# ---- an empty form ----
my $empty = make_form($tok, { title => 'Empty', fields => [{ key => 'x', type => 'text', label => 'X' }] });
my $e = api(GET => "/v1/forms/$empty->{id}/submissions", token => $tok, headers => { Accept => $XLSX });
is $e->code, 200, 'an empty form: XLSX 200';
is_deeply cells_of($e->content)->{rows}, [[map { { t => 's', v => $_ } } qw(id createdAt formVersion x)]], 'the header row only';
$e = api(GET => "/v1/forms/$empty->{id}/submissions", token => $tok, headers => { Accept => 'application/x-ndjson' });
is $e->code, 200, 'an empty form: JSON Lines 200';
is $e->content, '', 'no line';

# ---- a large export: memory, and the file after an abort ----
my $big = make_form($tok, { title => 'Big', fields => [{ key => 'note', type => 'text', label => 'Note' }, { key => 'n', type => 'number', label => 'N' }] });
my $uid = user_of($tok);
my $N = 6000;
# ~2 KB of hex a row, which compresses about 2:1 (a zip of ~12 MB)
psql("INSERT INTO submissions (id, form_id, user_id, form_version, data) "
     . "SELECT 'sub_' || fs_id_time(now()) || 'XLS' || lpad(g::text, 13, '0'), '$big->{id}', '$uid', 1, "
     . "jsonb_build_object('note', (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 64) i), 'n', g) "
     . "FROM generate_series(1, $N) g");
my $pidfile = "$FindBin::Bin/logs/httpd.pid";
sub children {
    open my $ph, '<', $pidfile or die "$pidfile: $!";
    my $parent = <$ph> + 0;
    my %rss;
    for my $st (glob '/proc/[0-9]*/status') {
        open my $fh, '<', $st or next;
        my ($pid) = $st =~ m{/proc/(\d+)/};
        my ($ppid, $rss) = (0, 0);
        while (<$fh>) { $ppid = $1 if /^PPid:\s+(\d+)/; $rss = $1 if /^VmRSS:\s+(\d+)/ }
        $rss{$pid} = $rss if $ppid == $parent;
    }
    return \%rss;
}
my $bigpath = "/v1/forms/$big->{id}/submissions";
api(GET => $bigpath, token => $tok, headers => { Accept => $XLSX });   # a child's first: its libraries' pages
# the children's RSS by pid, over the same children before and after (the
# event MPM may start another child meanwhile: then measured again)
my ($before, $after, $bx, $took, $same);
for my $try (1 .. 3) {
    my $start = children();
    my @pids = sort keys %$start;
    $before = 0; $before += $start->{$_} for @pids;
    # three in a row: a file held per export (7 MB each) would pass the
    # bound; a workbook kept in memory (its XML: about 100 MB) far more
    my $t0 = Time::HiRes::time();
    $bx = api(GET => $bigpath, token => $tok, headers => { Accept => $XLSX }) for 1 .. 3;
    $took = (Time::HiRes::time() - $t0) / 3;
    my $end = children();
    $after = 0; $after += $end->{$_} // 0 for @pids;
    last if $same = join(' ', sort keys %$end) eq join(' ', @pids);
    diag 'the MPM changed its children while measuring: measuring again';
}
is $bx->code, 200, "a large export ($N rows): 200";
my $bs = cells_of($bx->content, 2);
# the rows counted in the sheet's XML (openpyxl takes seconds for them all)
my $xml = '';
IO::Uncompress::Unzip::unzip(\$bx->content, \$xml, Name => 'xl/worksheets/sheet1.xml')
    or diag "unzip: $IO::Uncompress::Unzip::UnzipError";
my $nrows = () = $xml =~ /<row /g;
is $nrows, $N + 1, 'every row in it';
unlike $xml, qr/<f>/, 'no formula anywhere';
is_deeply $bs->{rows}[1][4], { t => 'n', v => $N }, 'the newest first, its number a number';
diag sprintf 'XLSX of %d rows x 2 KB: %.1f MB in %.2f s each; RSS of the children %d kB before three, %d kB after',
    $N, length($bx->content) / 1e6, $took, $before, $after;
SKIP: {
    skip 'the MPM kept changing its children', 1 unless $same;
    # a thread's first large export grows its malloc arena by a few MB
    # (t/26 allows 16 MB for four exports at once)
    cmp_ok $after - $before, '<', 16 * 1024, 'three exports: the children grew by less than 16 MB (the rows are 12 MB, the file 7 MB each time)';
}

# an abort while the file is sent: the file is gone (it is unlinked before
# the first byte) and no child holds it open afterwards
my @dirs = grep { -d } ($ENV{TMPDIR} // (), '/tmp', '/var/tmp');
sub leftovers {
    my @pids = keys %{ children() };
    my @files = map { my $d = $_; map { glob "$d/formsvc-xlsx-$_-*" } @pids } @dirs;
    my @open = grep { (readlink($_) // '') =~ /formsvc-xlsx-/ } map { glob "/proc/$_/fd/*" } @pids;
    return (@files, @open);
}
my ($port) = base_url() =~ m{:(\d+)};
my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp') or die "connect: $!";
setsockopt($sock, Socket::SOL_SOCKET(), Socket::SO_RCVBUF(), 4096);
print $sock "GET /api$bigpath HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nAuthorization: Bearer $tok\r\n"
          . "Accept: $XLSX\r\nConnection: close\r\n\r\n";
my $head = '';
my $sel = IO::Select->new($sock);   # (a read that would block never lets wait_for's limit apply)
ok wait_for(sub { sysread($sock, $head, 4096, length $head) if $sel->can_read(0.2); $head =~ /\r\n\r\n/ }, 60,
            'the answer begins'), 'the answer begins';
like $head, qr{^HTTP/1\.1 200}, 'a 200';
my @during = leftovers();
ok grep({ m{^/proc/} } @during), 'while it is sent, a child holds the file open' or diag "@during";
ok !grep({ !m{^/proc/} } @during), 'while it is sent, no file of it is in the directory' or diag "@during";
close $sock;
ok wait_for(sub { !leftovers() }, 30, 'the file closed'), 'after the abort no child holds it, no file is left' or diag join ' ', leftovers();

done_testing;
