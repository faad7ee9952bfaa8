# Request bodies that cannot be read are answered as httpd answers them
# (ap_map_http_request_error): a client too slow to send
# its body gets 408 request-timeout (it used to get 400), a body over
# LimitRequestBody gets httpd's own 413 and nothing after it, and a body
# over the module's own limit, read in chunks, gets the 413 problem. An
# instance of its own, with a short body timeout and a small
# LimitRequestBody on one path.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use IO::Socket::INET;
use JSON::PP ();
use Time::HiRes ();

my $inst = FormsvcInstance->start(name => 'body', conf => <<'CONF');
LoadModule reqtimeout_module /usr/lib/apache2/modules/mod_reqtimeout.so
RequestReadTimeout handshake=0 header=10 body=2
FormsvcRateLimit signup off
<Location /api/v1/recover>
    LimitRequestBody 100
</Location>
CONF
my ($port) = $inst->url =~ m{:(\d+)/};

# Sends $head, then $body, then waits for the whole answer (the server
# closes the connection after a body error). Returns (status, headers and
# body as text, seconds taken).
sub raw {
    my ($head, $body) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or die $!;
    my $t0 = Time::HiRes::time();
    print $s $head;
    print $s $body if defined $body;
    my $out = '';
    $s->timeout(15);
    while (1) {
        my $n = sysread($s, my $buf, 65536);
        last unless $n;
        $out .= $buf;
    }
    close $s;
    my ($status) = $out =~ m{^HTTP/1\.1 (\d{3})};
    return ($status // 0, $out, Time::HiRes::time() - $t0);
}

sub problem_type {
    my ($out) = @_;
    my ($json) = $out =~ /\r\n\r\n(\{.*\})\s*\z/s or return '';
    my $d = eval { JSON::PP->new->decode($json) } or return '';
    return $d->{type} // '';
}

# ---- a body that stops arriving: 408, not 400
{
    my ($status, $out, $secs) = raw(
        "POST /api/v1/signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      . "Content-Length: 60\r\nConnection: close\r\n\r\n",
        '{"email": "slow');
    is $status, 408, 'a body that stops arriving: 408';
    like problem_type($out), qr{/problems/request-timeout$}, 'problem request-timeout';
    like $out, qr{Content-Type: application/problem\+json}i, 'as a problem document';
    cmp_ok $secs, '<', 8, 'after the body timeout (2 s)';
}

# the same with a chunked body that stops after the first chunk
{
    my ($status, $out) = raw(
        "POST /api/v1/signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        "6\r\n{\"emai\r\n");
    is $status, 408, 'a chunked body that stops arriving: 408';
    like problem_type($out), qr{/problems/request-timeout$}, 'problem request-timeout';
}

# ---- a chunked body over LimitRequestBody: httpd's 413, and only that
{
    my $chunk = 'x' x 80;
    my ($status, $out) = raw(
        "POST /api/v1/recover HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        sprintf("%x\r\n%s\r\n", length $chunk, $chunk) x 2 . "0\r\n\r\n");
    is $status, 413, 'chunked body over LimitRequestBody: 413';
    my @lines = $out =~ m{^HTTP/1\.1 \d{3}}mg;
    is scalar(@lines), 1, 'one answer, nothing written after httpd answered';
    unlike $out, qr{malformed-request}, 'no 400 problem after it';
}

# ---- a chunked body over the module's own limit (16 KiB at /v1/token):
# read in chunks, refused at the limit with the 413 problem
{
    my $chunk = 'a=' . ('b' x 4094);
    my ($status, $out) = raw(
        "POST /api/v1/token HTTP/1.1\r\nHost: x\r\n"
      . "Content-Type: application/x-www-form-urlencoded\r\n"
      . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        sprintf("%x\r\n%s\r\n", length $chunk, $chunk) x 5 . "0\r\n\r\n");
    is $status, 413, 'chunked body over the module limit: 413';
    like problem_type($out), qr{/problems/payload-too-large$}, 'problem payload-too-large';
}

# ---- and a body within the limits still reads whole, in several chunks
{
    my $body = '{"email": "body-read-' . $$ . '@example.com"}';
    my @parts = ($body =~ /(.{1,7})/gs);
    my ($status, $out) = raw(
        "POST /api/v1/signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        join('', map { sprintf("%x\r\n%s\r\n", length $_, $_) } @parts) . "0\r\n\r\n");
    is $status, 201, 'a chunked body read whole: signup 201';
}

my $log = $inst->error_log;
unlike $log, qr/FS00103/, 'no 500 on the way';
$inst->stop;
done_testing;
