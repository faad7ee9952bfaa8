# Files by multipart/form-data, as a browser sends the page and
# as an agent does, streamed into the submission's transaction; the page
# (enctype, file inputs, errors that name the file, answers kept); every
# bad input: too large, too many, wrong type, truncated, never ending,
# thousands of parts. Nothing is stored by a refused request.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use IO::Socket::INET;
use Apache::TestRequest ();
use Digest::SHA qw(sha256_hex);
use JSON::PP ();

my ($tok) = signup();
my $form = make_form($tok, { title => 'Apply', fields => [
    { key => 'name', type => 'text', label => 'Name', required => JSON::PP::true },
    { key => 'cv', type => 'file', label => 'CV', required => JSON::PP::true,
      validation => { accept => ['application/pdf'], maxSize => 1000000, maxFiles => 2 } },
    { key => 'photo', type => 'file', label => 'Photo', validation => { accept => ['image/png'] } },
] });
my $fid = $form->{id};
api(POST => "/v1/forms/$fid/publish", token => $tok);

my $B = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
sub part {
    my ($name, $value, %o) = @_;
    my $h = qq{Content-Disposition: form-data; name="$name"};
    $h .= qq{; filename="$o{filename}"} if defined $o{filename};
    $h .= "\r\nContent-Type: $o{type}" if defined $o{type};
    return "--$B\r\n$h\r\n\r\n$value\r\n";
}
sub mp { join('', @_) . "--$B--\r\n" }
sub post_mp {
    my ($body, %o) = @_;
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$fid"));
    $req->header('Content-Type' => "multipart/form-data; boundary=$B");
    $req->header(Accept => $o{accept} // 'application/json');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    my $r = $ua->request($req);
    $r->{json} = json_of($r);
    return $r;
}
sub files_count { FormsTest::psql('SELECT count(*) FROM submission_files') }
sub subs_count { FormsTest::psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'") }
sub path_of { my $u = shift; $u =~ s{^https?://[^/]+}{}; $u =~ s{^\Q@{[BASE]}\E}{}; $u }

my $PDF = "%PDF-1.7\n" . join('', map { chr(($_ * 7) % 256) } 1 .. 600_000) . "\n%%EOF\n";
my $PNG = "\x89PNG\r\n\x1a\n" . ("\x00\x01" x 50);

# ---- the page ----------------------------------------------------------------
my $page = Apache::TestRequest::GET(BASE . "/f/$fid", Accept => 'text/html')->content;
like $page, qr/<form method="post" [^>]*enctype="multipart\/form-data"/, 'page: multipart form';
like $page, qr/<input type="file" id="f-cv" name="cv" required[^>]* multiple accept="application\/pdf">/, 'page: file input with accept and multiple';
like $page, qr/<p class="help" id="f-cv-limits">Files: at most 2, each up to 976 KB\.<\/p>/, 'page: says the limits';
like $page, qr/<input type="file" id="f-cv" name="cv" required aria-describedby="f-cv-limits"[ >]/,
    'page: the input is described by them (a screen reader says the limits before a file is chosen)';

# ---- a browser posts the page --------------------------------------------------
my $r = post_mp(mp(part(name => 'Ada'), part(cv => $PDF, filename => 'C:\\Users\\ada\\cv.pdf', type => 'application/pdf'),
                   part(photo => '', filename => '', type => 'application/octet-stream')), accept => 'text/html,*/*;q=0.8');
is $r->code, 303, 'browser post: 303' or diag $r->content;
like $r->header('Location') // '', qr{/f/$fid/thanks$}, 'to the thanks page';
my ($sid) = FormsTest::psql("SELECT id FROM submissions WHERE form_id = '$fid' ORDER BY created_at DESC LIMIT 1");
my $s = api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok)->{json};
is $s->{data}{name}, 'Ada', 'the text answer';
is $s->{data}{cv}[0]{name}, 'cv.pdf', 'the file, its name without the path';
is $s->{data}{cv}[0]{size}, length $PDF, 'its size';
is $s->{data}{cv}[0]{sha256}, sha256_hex($PDF), 'its SHA-256';
ok !exists $s->{data}{photo}, 'an empty file input is no file';
is FormsTest::psql("SELECT count(*) FROM submission_file_chunks c JOIN submission_files f ON f.id = c.file_id WHERE f.submission_id = '$sid'"), 3, 'stored in 3 chunks of 256 KB at most';
is FormsTest::psql("SELECT max(length(data)) FROM submission_file_chunks c JOIN submission_files f ON f.id = c.file_id WHERE f.submission_id = '$sid'"), 262144, 'chunk size 256 KB';
my $dl = api(GET => path_of($s->{data}{cv}[0]{url}), token => $tok);
ok $dl->content eq $PDF, 'downloaded bytes are the uploaded bytes';

# ---- an agent: multipart, JSON answer ---------------------------------------
$r = post_mp(mp(part(name => 'Bob'), part(cv => $PDF, filename => 'a.pdf', type => 'application/pdf'),
                part(cv => "%PDF-1.1 small", filename => 'b.pdf', type => 'application/pdf'),
                part(photo => $PNG, filename => 'p.png', type => 'image/png')));
is $r->code, 201, 'agent multipart: 201' or diag $r->content;
is scalar @{ $r->{json}{data}{cv} }, 2, 'two files in one field';
is $r->{json}{data}{photo}[0]{type}, 'image/png', 'and a photo';
like $r->{json}{data}{cv}[1]{url}, qr{/files/fil_}, 'with urls';

# ---- refusals: nothing stored ------------------------------------------------
my ($f0, $s0) = (files_count(), subs_count());
$r = post_mp(mp(part(name => 'Cy'), part(cv => $PDF . ('x' x 500_000), filename => 'big.pdf', type => 'application/pdf')));
is $r->code, 413, 'file over maxSize: 413';
is $r->{json}{errors}[0]{pointer}, '/cv/0', 'the problem points at the file';
like $r->{json}{detail}, qr/^CV: big\.pdf is larger than 1000000 bytes/, 'and names the field';

$r = post_mp(mp(part(name => 'Cy'), map { part(cv => '%PDF-x', filename => "$_.pdf", type => 'application/pdf') } 1 .. 3));
is $r->code, 422, 'three files for maxFiles 2: 422';
is $r->{json}{errors}[0]{pointer}, '/cv', 'pointer to the field';
like $r->{json}{errors}[0]{detail}, qr/^CV takes at most 2 files\.$/, 'saying how many';
$r = post_mp(mp(part(name => 'Cy'), part(cv => $PDF, filename => 'a.pdf', type => 'application/pdf'),
                map { part(photo => $PNG, filename => "$_.png", type => 'image/png') } 1 .. 2));
is $r->code, 422, 'two files for maxFiles 1: 422';
like $r->{json}{errors}[0]{detail}, qr/^Photo takes one file at most\.$/, 'in the singular, not "at most 1 files"';

$r = post_mp(mp(part(name => 'Cy'), part(cv => $PNG, filename => 'cv.pdf', type => 'application/pdf')));
is $r->code, 422, 'a png called pdf: 422';
like $r->{json}{errors}[0]{detail}, qr/the content of cv\.pdf is not application\/pdf/, 'says why';

$r = post_mp(mp(part(name => 'Cy'), part(cv => '%PDF-1', filename => 'cv.exe', type => 'application/x-msdownload')));
is $r->code, 422, 'a type the field does not accept: 422';

$r = post_mp(mp(part(name => 'Cy')));
is $r->code, 422, 'a required file missing: 422';
is $r->{json}{errors}[0]{pointer}, '/cv', 'required';

# the page again: the other answers kept, the file named
$r = post_mp(mp(part(name => 'Dora <b>'), part(cv => $PNG, filename => 'me.png', type => 'image/png')), accept => 'text/html');
is $r->code, 422, 'page: 422';
like $r->content, qr/value="Dora &lt;b&gt;"/, 'page: the other answer kept';
like $r->content, qr/CV \(me\.png\): this kind of file is not accepted here\./, 'page: which file and why';
$r = post_mp(mp(part(name => 'Eve'), part(cv => $PDF . ('x' x 500_000), filename => 'big.pdf', type => 'application/pdf')), accept => 'text/html');
is $r->code, 413, 'page: a file too large, 413';
like $r->content, qr/value="Eve"/, 'page: answer kept';
like $r->content, qr/class="err"[^>]*>Error: CV \(big\.pdf\): the file is larger than 976 KB, the most this question takes\./, 'page: the error by the field';

$r = post_mp(substr(mp(part(name => 'Cy'), part(cv => $PDF, filename => 'cv.pdf', type => 'application/pdf')), 0, 300_000));
is $r->code, 400, 'truncated multipart: 400';
$r = post_mp(mp(map { part("k$_" => 'x') } 1 .. 3000));
is $r->code, 400, 'thousands of tiny parts: 400';
like $r->{json}{detail}, qr/too many parts/, 'too many parts';
$r = post_mp(mp(part(name => 'Cy'), part(cv => '%PDF', filename => 'a.pdf', type => 'application/pdf')) . ('z' x (13 * 1024 * 1024)));
is $r->code, 413, 'a body over the form\'s whole limit: 413';

# a part that never ends: the request times out (RequestReadTimeout body=10)
{
    my $hp = Apache::TestRequest::hostport();
    my $sock = IO::Socket::INET->new(PeerAddr => $hp, Timeout => 10) or die "$hp: $!";
    my $head = mp(part(name => 'Slow')) =~ s/--\Q$B\E--\r\n\z//r;
    my $body = $head . part(cv => '%PDF-' . ('y' x 1000), filename => 'slow.pdf', type => 'application/pdf') =~ s/\r\n\z//r;
    print $sock "POST " . BASE . "/f/$fid HTTP/1.1\r\nHost: $hp\r\nAccept: application/json\r\n"
        . "Content-Type: multipart/form-data; boundary=$B\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n$body";
    my $t0 = time;
    my $out = '';
    $sock->timeout(40);
    while (sysread($sock, my $buf, 65536)) { $out .= $buf }
    my ($status) = $out =~ m{^HTTP/1\.1 (\d{3})};
    is $status, 408, 'a part that never ends: 408';
    ok time - $t0 < 30, 'within the read timeout';
}

# the database stalls mid-upload (inserts into the chunk table locked out past
# lock_timeout): a 503, nothing stored, the thread not stuck. A session that
# prepares its statements meanwhile (a pooled connection opened by any
# child) cannot prepare the chunk INSERT either (it needs the lock SHARE
# excludes) and says so in the log: expected here, until the lock is gone.
{
    my ($res, $took) = expect_log([qr{FS00102: 503 service-unavailable for /api/f/$fid$},
                                   qr{FS00312: preparing statements again failed: ERROR:  canceling statement due to lock timeout},
                                   qr{\[dbd:error\] .*(AH00632: failed to prepare SQL statements: ERROR:  canceling statement due to lock timeout|AH02655: Failed to acquire DBD connection from pool)},
                                   qr{FS00101: no database connection available},
                                   # the workers' rounds that open a session meanwhile
                                   outage_lines()], sub {
        # a session that holds the chunk table for 6 s
        my $lock = FormsvcTest::lock_tables('SHARE', 6, 'submission_file_chunks');
        my $t0 = time;
        my $res = post_mp(mp(part(name => 'Stall'), part(cv => $PDF, filename => 'cv.pdf', type => 'application/pdf')));
        my $took = time - $t0;
        waitpid $lock->{pid}, 0;
        return ($res, $took);
    });
    is $res->code, 503, 'database stalled during an upload: 503';
    ok $took < 12, 'within the time limits';
}

is files_count(), $f0, 'no file from any refused request';
is subs_count(), $s0, 'no submission either';
is FormsTest::psql('SELECT count(*) FROM submission_file_chunks c WHERE NOT EXISTS (SELECT 1 FROM submission_files f WHERE f.id = c.file_id)'), 0, 'no orphan chunk';

# a form without file fields still refuses file parts
my $plain = make_form($tok, { title => 'Plain', fields => [{ key => 'a', type => 'text', label => 'A' }] });
api(POST => "/v1/forms/$plain->{id}/publish", token => $tok);
my $ua = Apache::TestRequest::user_agent(reset => 1);
my $req = HTTP::Request->new(POST => Apache::TestRequest::resolve_url(BASE . "/f/$plain->{id}"));
$req->header('Content-Type' => "multipart/form-data; boundary=$B", Accept => 'application/json');
$req->content(mp(part(a => 'x', filename => 'x.txt', type => 'text/plain')));
is $ua->request($req)->code, 400, 'file part to a form without file fields: 400';

done_testing;
