# Slow readers hold no pooled database connection: 40 clients that ask for
# a large file download, and 40 that ask for a large CSV export, then read
# nothing (a 4 KB receive buffer), while /v1/me is probed. A download used
# to keep the request's connection while it wrote each chunk, and every
# answer kept it until the client had read it all: one child's DBDMax (10
# here) slow readers made every other request wait FormsvcDBTimeout (2 s
# here) and answer 503. Now a part is read with a connection taken for it
# and given back before the part is written: every probe answers 200, and
# PostgreSQL shows no session of this server busy or in a transaction for
# them; each waiting reader holds one part in memory (a chunk, a batch of
# about 256 KB of CSV). One child with 64 threads, so that threads are not
# what runs out.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql);
use HTTP::Request;
use LWP::UserAgent;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use Time::HiRes ();

my $inst = FormsvcInstance->start(name => 'slow-readers', conf => <<'CONF');
StartServers 1
ServerLimit 1
ThreadsPerChild 64
MaxRequestWorkers 64
MinSpareThreads 5
MaxSpareThreads 128
DBDMax 10
FormsvcDBTimeout 2
FormsvcRateLimit submit off
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified requests 100000
Timeout 120
CONF
sub api { $inst->api(@_) }
my ($port) = $inst->url =~ m{:(\d+)/};

my $r = api(POST => '/v1/signup', body => { email => sprintf('slow%d.%d@example.com', $$, time) });
die 'signup: ' . $r->status_line unless $r->code == 201;
my $tok = $r->{json}{apiKey}{secret};
my $uid = api(GET => '/v1/me', token => $tok)->{json}{user}{id};

# ---- a form with a file of 8 MB, and 800 submissions of 10 KB ------------------
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'Big', fields => [
    { key => 'note', type => 'textarea', label => 'Note' },
    { key => 'doc', type => 'file', label => 'Doc',
      validation => { accept => ['application/pdf'], maxSize => 10000000 } } ] });
is $r->code, 201, 'a form with a file field' or diag $r->content;
my $fid = $r->{json}{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $B = 'slowreadersboundary';
my $pdf = "%PDF-1.4\n" . ('x' x (8 * 1024 * 1024)) . "\n%%EOF";
my $body = "--$B\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nfile\r\n"
         . "--$B\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"big.pdf\"\r\n"
         . "Content-Type: application/pdf\r\n\r\n$pdf\r\n--$B--\r\n";
my $req = HTTP::Request->new(POST => $inst->url . "/f/$fid");
$req->header('Content-Type' => "multipart/form-data; boundary=$B", Accept => 'application/json');
$req->content($body);
$r = LWP::UserAgent->new(timeout => 120)->request($req);
is $r->code, 201, 'an 8 MB file uploaded' or diag $r->content;
my $file_url = eval { JSON::PP->new->decode($r->content)->{data}{doc}[0]{url} } // '';
(my $file_path = $file_url) =~ s{^https?://[^/]+}{};
like $file_path, qr{/files/fil_}, 'its URL';
sql("INSERT INTO submissions (id, form_id, user_id, form_version, data) "
    # ids begin with their time, as the module makes them (lists seek by it)
    . "SELECT 'sub_' || fs_id_time(now()) || 'SLOW' || lpad(g::text, 12, '0'), '$fid', '$uid', 1, "
    . "jsonb_build_object('note', repeat('y', 10000)) FROM generate_series(1, 800) g");
my $csv_path = "/api/v1/forms/$fid/submissions";
cmp_ok pool_timeouts(), '>=', 0, "/metrics counts the requests that got no pooled connection";

# a client that sends its request and reads nothing, through a 4 KB window
sub slow_reader {
    my ($path, $accept) = @_;
    socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
    setsockopt($s, SOL_SOCKET, SO_RCVBUF, 4096) or die "SO_RCVBUF: $!";
    connect($s, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "connect: $!";
    syswrite $s, "GET $path HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nAuthorization: Bearer $tok\r\n"
               . "Accept: $accept\r\nConnection: close\r\n\r\n";
    return $s;
}
# sessions holding a transaction open after a chunk read or an export
# batch: none while the readers wait. (A batch statement may be running at
# the moment of a look: readers fill their sockets' buffers, several MB on
# loopback, before they block; running is not waiting on a client.)
sub held_sessions {
    sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        . "AND pid <> pg_backend_pid() AND state IN ('idle in transaction', "
        . "'idle in transaction (aborted)') AND (query LIKE '%submission_file_chunks%' "
        . "OR query LIKE '%fs_ts(s.created_at)%')");
}
# requests of the instance that got no pooled connection within
# FormsvcDBTimeout (503)
sub pool_timeouts {
    my $m = api(GET => '/metrics')->content;
    return $m =~ /^formsvc_db_pool_errors_total\{reason="timeout"\} (\d+)$/m ? $1 : -1;
}
# the one child's VmRSS in MB
sub child_rss {
    my $ppid = do { open my $fh, '<', $inst->root . '/httpd.pid' or die $!; local $/; <$fh> + 0 };
    for my $st (glob '/proc/[0-9]*/stat') {
        open my $fh, '<', $st or next;
        my $line = <$fh> // next;
        next unless $line =~ /^(\d+) \(.*\) \S (\d+)/ && $2 == $ppid;
        open my $sf, '<', "/proc/$1/status" or next;
        for (<$sf>) { return $1 / 1024 if /^VmRSS:\s+(\d+) kB/ }
    }
    return -1;
}
sub probe_me {
    my ($n) = @_;
    my ($ok, $bad, $max) = (0, 0, 0);
    for (1 .. $n) {
        my $t0 = Time::HiRes::time();
        my $c = api(GET => '/v1/me', token => $tok)->code;
        my $dt = Time::HiRes::time() - $t0;
        $max = $dt if $dt > $max;
        $c == 200 ? $ok++ : $bad++;
        diag "probe: $c" unless $c == 200;
        Time::HiRes::sleep(0.2);   # probes spread over the time the readers are held
    }
    return ($ok, $bad, $max);
}

for my $case (['file download', $file_path, 'application/pdf'],
              ['CSV export', $csv_path, 'text/csv']) {
    my ($name, $path, $accept) = @$case;
    my $rss0 = child_rss();
    my @socks = map { slow_reader($path, $accept) } 1 .. 40;
    # every reader's request reached a thread: the first bytes of each answer
    # are waiting in its socket
    my $ready = 0;
    FormsvcTest::wait_for(sub {
        ($ready = grep { my $v = ''; vec($v, fileno($_), 1) = 1; select(my $o = $v, undef, undef, 0) > 0 } @socks) == 40;
    }, 10, "$name: 40 readers answered");
    is $ready, 40, "$name: 40 slow readers are being answered";
    my $timeouts = pool_timeouts();
    my ($ok, $bad, $max, $held) = (0, 0, 0, 0);
    for (1 .. 3) {
        my @p = probe_me(5);
        $ok += $p[0]; $bad += $p[1]; $max = $p[2] if $p[2] > $max;
        $held += held_sessions();
    }
    diag sprintf '%s: /v1/me %d x 200, %d other, slowest %.2f s', $name, $ok, $bad, $max;
    is $bad, 0, "$name: /v1/me answers 200 throughout (no 503)";
    cmp_ok $max, '<', 5, "$name: each probe answered within 5 s (a loaded machine; the 503s came after 2 s)";
    is $held, 0, "$name: no pooled session left in a transaction for them";
    is pool_timeouts() - $timeouts, 0, "$name: no request went without a pooled connection";
    # what each waiting reader holds is one part: a 256 KB chunk, or a
    # batch of rows of about 256 KB of CSV (it was 500 rows, 5 MB here)
    my $grew = child_rss() - $rss0;
    diag sprintf '%s: the child holds %.0f MB more while 40 readers wait', $name, $grew;
    cmp_ok $grew, '<', 150, "$name: memory stays within a part per reader";
    close $_ for @socks;
}

# a reader that takes everything gets all of it
my $whole = api(GET => $file_path =~ s{^/api}{}r, token => $tok);
is length($whole->content), length($pdf), 'the file read to its end is whole';
my $csv = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' });
my $rows = () = $csv->content =~ /^sub_\w{10}SLOW/mg;
is $rows, 800, 'the CSV export read to its end has every row';

$inst->stop;
done_testing;
