# The storage quota of uploaded files (reported in /v1/me, a
# submission past it refused with nothing stored, freed by deleting), the
# CSV export's file cells, and the memory bound: 10 MB uploads, streamed,
# cost the httpd children a bounded amount of memory (RSS via /proc).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Apache::TestRequest ();
use JSON::PP ();
use MIME::Base64 qw(encode_base64);

my $J = JSON::PP->new->utf8->canonical;
my ($tok) = signup();
my $uid = user_of($tok);
my $form = make_form($tok, { title => 'Uploads', fields => [
    { key => 'note', type => 'text', label => 'Note' },
    { key => 'blob', type => 'file', label => 'Blob' },
] });
my $fid = $form->{id};
api(POST => "/v1/forms/$fid/publish", token => $tok);

# ---- quota ---------------------------------------------------------------
my $me = api(GET => '/v1/me', token => $tok)->{json};
is_deeply $me->{storage}, { used => 0, quota => 50 * 1024 * 1024 }, '/v1/me: storage of an unverified account';

my $r = api(POST => "/f/$fid", body => $J->encode({ note => 'one', blob => { name => 'a.txt', type => 'text/plain', data => encode_base64('hello', '') } }));
is $r->code, 201, 'a small file: 201';
my $sid = $r->{json}{id};
is api(GET => '/v1/me', token => $tok)->{json}{storage}{used}, 5, 'used: 5 bytes';

# the account nearly full: a stored file of (almost) 50 MB, written directly
FormsTest::psql("INSERT INTO submission_files (id, submission_id, user_id, field_key, name, content_type, size, sha256) "
    . "VALUES ('fil_01BIGBIGBIGBIGBIGBIGBIGBIG', '$sid', '$uid', 'blob', 'big.bin', 'application/octet-stream', "
    . (50 * 1024 * 1024 - 100) . ", 'x')");
is api(GET => '/v1/me', token => $tok)->{json}{storage}{used}, 50 * 1024 * 1024 - 95, 'used counts every file';
my $files = FormsTest::psql('SELECT count(*) FROM submission_files');
$r = api(POST => "/f/$fid", body => $J->encode({ note => 'two', blob => { name => 'b.txt', type => 'text/plain', data => encode_base64('x' x 200, '') } }));
is $r->code, 413, 'past the storage quota: 413';
like $r->{json}{detail}, qr/no storage left/, 'says so';
is FormsTest::psql('SELECT count(*) FROM submission_files'), $files, 'nothing stored';
# multipart: stopped as soon as the upload passes the storage left, the
# page says so by the field
my $MB = 'qUoTaBoUnDaRy';
my $mbody = "--$MB\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nkept\r\n"
          . "--$MB\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n"
          . "Content-Type: application/octet-stream\r\n\r\n" . ('b' x 300_000) . "\r\n--$MB--\r\n";
for my $accept ('application/json', 'text/html') {
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$fid"));
    $req->header('Content-Type' => "multipart/form-data; boundary=$MB", Accept => $accept,
                 'Content-Length' => length $mbody);
    $req->content($mbody);
    my $res = $ua->request($req);
    is $res->code, 413, "multipart past the storage quota ($accept): 413";
    like $res->content, $accept =~ /json/ ? qr/no storage left/ : qr/Blob: the form cannot take files right now\./, 'says so';
    like $res->content, qr/value="kept"/, 'the page keeps the other answer' if $accept eq 'text/html';
}
is FormsTest::psql('SELECT count(*) FROM submission_files'), $files, 'nothing stored';
$r = api(POST => "/f/$fid", body => $J->encode({ note => 'three' }));
is $r->code, 201, 'a submission without a file still goes in';

# a closed form: 409, its files read and dropped
is api(POST => "/v1/forms/$fid/close", token => $tok)->code, 200, 'close the form';
{
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$fid"));
    $req->header('Content-Type' => "multipart/form-data; boundary=$MB", Accept => 'application/json',
                 'Content-Length' => length $mbody);
    $req->content($mbody);
    is $ua->request($req)->code, 409, 'closed form with a file: 409';
    is FormsTest::psql('SELECT count(*) FROM submission_files'), $files, 'nothing stored';
}
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'publish again';
verify_account($tok);
is api(GET => '/v1/me', token => $tok)->{json}{storage}{quota}, 10240 * 1024 * 1024, 'verified: 10 GB';
$r = api(POST => "/f/$fid", body => $J->encode({ note => 'four', blob => { name => 'b.txt', type => 'text/plain', data => encode_base64('x' x 200, '') } }));
is $r->code, 201, 'verified: the file goes in';

# CSV: a file cell is its name and API URL
my $csv = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' });
like $csv->content, qr{b\.txt <https?://[^>]+/v1/forms/$fid/submissions/sub_\w+/files/fil_\w+>}, 'CSV: name <url>';

is api(DELETE => "/v1/forms/$fid/submissions/$sid", token => $tok)->code, 204, 'delete the submission with the big file';
is api(GET => '/v1/me', token => $tok)->{json}{storage}{used}, 200, 'the space is freed at once';
is api(DELETE => "/v1/forms/$fid", token => $tok)->code, 204, 'delete the form';
is api(GET => '/v1/me', token => $tok)->{json}{storage}{used}, 0, 'all freed';

# ---- memory: 10 MB uploads cost bounded memory --------------------------------
my $f2 = make_form($tok, { title => 'Big', fields => [{ key => 'blob', type => 'file', label => 'Blob' }] });
api(POST => "/v1/forms/$f2->{id}/publish", token => $tok);
my $pidfile = "$FindBin::Bin/logs/httpd.pid";
open my $ph, '<', $pidfile or die "$pidfile: $!";
chomp(my $parent = <$ph>);
# each child's RSS by pid: the event MPM starts another child whenever its
# maintenance (once a second) sees fewer than MinSpareThreads idle threads,
# which a long upload on a loaded machine can cause at any moment; a new
# child's own start (20-25 MB) is not memory an upload kept, so the checks
# below compare the same children before and after, and measure again if
# the set changed while they ran
sub children_rss {
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
sub sum_of { my ($rss, $pids) = @_; my $s = 0; $s += $rss->{$_} // 0 for @$pids; return $s }
my $B = 'xYzBoUnDaRy';
my $blob = join '', map { chr(($_ * 31) % 256) } 1 .. 10 * 1024 * 1024 - 1;
my $body = "--$B\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"big.bin\"\r\n"
         . "Content-Type: application/octet-stream\r\n\r\n$blob\r\n--$B--\r\n";
sub upload {
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$f2->{id}"));
    $req->header('Content-Type' => "multipart/form-data; boundary=$B", Accept => 'application/json',
                 'Content-Length' => length $body);
    $req->content($body);
    return $ua->request($req);
}
# warm-up: each worker thread and pooled connection grows its buffers
# once (libpq's output buffer takes a 256 KB chunk; APR's allocators)
my $ok = 0;
for (1 .. 3) { $ok++ if upload()->code == 201 }
is $ok, 3, 'three 10 MB uploads: 201 (warm-up)';
my ($before, $peak, @rss, $same);
for my $attempt (1 .. 3) {
    if ($attempt > 1) { # the storage taken by the attempt before is given back
        api(DELETE => "/v1/forms/$f2->{id}/submissions/$_->{id}", token => $tok)
            for @{ api(GET => "/v1/forms/$f2->{id}/submissions?limit=100", token => $tok)->{json}{data} };
    }
    my $start = children_rss();
    my @pids = sort keys %$start;
    $before = sum_of($start, \@pids);
    @rss = ();
    $ok = 0;
    # the peak while uploading, not only what is left after: a sampler process
    my $peakf = "$FindBin::Bin/logs/files_peak.$$";
    my $sampler = fork // die "fork: $!";
    if (!$sampler) {
        my $pk = 0;
        while (!-e "$peakf.stop") {
            my $v = sum_of(children_rss(), \@pids);
            $pk = $v if $v > $pk;
            select undef, undef, undef, 0.005;   # a sample every 5 ms (a pace, not a wait)
        }
        open my $o, '>', $peakf or die; print $o $pk; close $o;
        exit 0;
    }
    for (1 .. 6) { $ok++ if upload()->code == 201; push @rss, sum_of(children_rss(), \@pids) }
    open my $stop, '>', "$peakf.stop" or die; close $stop;
    waitpid $sampler, 0;
    open my $pk, '<', $peakf or die; chomp($peak = <$pk>); unlink $peakf, "$peakf.stop";
    $same = join(' ', sort keys %{ children_rss() }) eq join(' ', @pids);
    diag "children measured: @pids";
    last if $same;
    diag "the MPM changed its children while measuring (before: @pids): measuring again";
}
ok $same, 'the same httpd children before and after the measured uploads';
ok $before > 0, "children's RSS measured: $before kB";
is $ok, 6, 'six more 10 MB uploads';
diag "peak RSS of the children while uploading: $peak kB (before $before)";
ok $peak - $before < 10 * 1024, 'peak while uploading: less than one file above the start (' . ($peak - $before) . ' kB)';
my $growth = $rss[-1] - $before;
diag "RSS of the httpd children (kB): before $before, after each upload @rss";
ok $growth < 10 * 1024, "bounded memory: grew $growth kB over 60 MB uploaded (< 10 MB, less than one file)";
my $dl = api(GET => "/v1/forms/$f2->{id}/submissions", token => $tok)->{json}{data}[0]{data}{blob}[0];
is $dl->{size}, length $blob, 'stored whole';

done_testing;
