# Slow uploads hold no pooled database connection and no transaction while
# their bodies arrive: anonymous multipart bodies dripping a few hundred
# bytes a second to a published form with a file field leave /v1/me,
# signup and form creation answering 200 at their usual latency, no
# session of the pool 'idle in transaction', and the event feed current
# (an open transaction with a transaction id hides every later event from
# GET /v1/events).
#
# One child of 60 threads and DBDMax 6 (its own instance), 24 drips: the
# drips alone would hold every pooled connection several times over if a
# body held one.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(sql uniq_email wait_for);
use IO::Socket::INET;
use POSIX ();
use Time::HiRes qw(time);

delete $ENV{LD_PRELOAD};
my $DRIPS = 24;

my $inst = FormsvcInstance->start(name => 'slowup', conf => <<"CONF");
ServerLimit 1
StartServers 1
ThreadsPerChild 60
MaxRequestWorkers 60
MinSpareThreads 5
MaxSpareThreads 60
DBDMin 0
DBDKeep 6
DBDMax 6
FormsvcDBTimeout 2
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota unverified requests 1000000
FormsvcQuota unverified forms 1000000
FormsvcUploadTempMax 1
CONF
my ($port) = $inst->url =~ m{:(\d+)/};

sub signup_ {
    my $r = $inst->api(POST => '/v1/signup', body => { email => uniq_email() });
    die 'signup: ' . $r->status_line unless $r->code == 201;
    return $r->{json}{apiKey}{secret};
}
sub form_ {
    my ($tok, $title, @fields) = @_;
    my $r = $inst->api(POST => '/v1/forms', token => $tok, body => { title => $title, fields => \@fields });
    die 'form: ' . $r->content unless $r->code == 201;
    my $id = $r->{json}{id};
    die 'publish' unless $inst->api(POST => "/v1/forms/$id/publish", token => $tok)->code == 200;
    return $id;
}

my $tok = signup_();
my $fid = form_($tok, 'Uploads', { key => 'name', type => 'text', label => 'Name' },
                { key => 'cv', type => 'file', label => 'CV' });
my $tok_b = signup_();
my $fid_b = form_($tok_b, 'Other account', { key => 'name', type => 'text', label => 'Name' });

# Probes: GET /v1/me (and every fifth time a signup, every seventh a form
# created); returns the latencies and the codes that were not 2xx.
sub probes {
    my ($n) = @_;
    my (@lat, @bad);
    for my $i (1 .. $n) {
        my $t0 = time;
        my $r = $inst->api(GET => '/v1/me', token => $tok);
        push @lat, time - $t0;
        push @bad, 'me ' . $r->code unless $r->code == 200;
        if ($i % 5 == 0) {
            $r = $inst->api(POST => '/v1/signup', body => { email => uniq_email() });
            push @bad, 'signup ' . $r->code unless $r->code == 201;
        }
        if ($i % 7 == 0) {
            $r = $inst->api(POST => '/v1/forms', token => $tok, body => { title => "p$i",
                fields => [ { key => 'a', type => 'text', label => 'A' } ] });
            push @bad, 'form ' . $r->code unless $r->code == 201;
        }
    }
    return (\@lat, \@bad);
}
sub p99 { my @s = sort { $a <=> $b } @{ $_[0] }; $s[ int(0.99 * $#s) ] }

sub idle_in_tx {
    sql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        . "AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()");
}

# $n anonymous multipart bodies to the form, each announcing 10 MB and
# sending one file part's header, then 70 bytes every 0.1 s, until the
# returned sub is called (at most 120 s). The sub stops them and returns
# how many were still open. Waits until every one has dripped for $secs
# seconds (default 1).
sub drips {
    my ($n, $secs) = @_;
    my $rounds = 10 * ($secs // 1);
    my $dir = "$FindBin::Bin/logs/drips.$$";
    mkdir $dir;
    unlink glob "$dir/*";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        my $b = 'DripDripDrip';
        my @s;
        for (1 .. $n) {
            my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) or next;
            my $head = "--$b\r\nContent-Disposition: form-data; name=\"cv\"; filename=\"cv.bin\"\r\n"
                . "Content-Type: application/octet-stream\r\n\r\n";
            print $s "POST /api/f/$fid HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                . "Content-Type: multipart/form-data; boundary=$b\r\nContent-Length: 10000000\r\n\r\n$head";
            push @s, $s;
        }
        local $SIG{PIPE} = 'IGNORE';
        my $end = time + 120;
        for (my $round = 1; time < $end && !-e "$dir/stop"; $round++) {
            my $open = 0;
            for my $s (@s) { next unless $s; if (print $s ('x' x 70)) { $open++ } else { $s = undef } }
            if ($round == $rounds) { open my $f, '>', "$dir/in.tmp"; print $f $open; close $f; rename "$dir/in.tmp", "$dir/in" }
            Time::HiRes::sleep(0.1);   # the pace of the drip: 70 bytes every 100 ms
        }
        my $open = grep { $_ } @s;
        open my $f, '>', "$dir/out"; print $f $open; close $f;
        close $_ for grep { $_ } @s;
        POSIX::_exit(0);
    }
    wait_for(sub { -e "$dir/in" }, 30, 'the drips under way');
    my $in = do { local (@ARGV, $/) = ("$dir/in"); <> } // 0;
    return ($in, sub {
        open my $f, '>', "$dir/stop"; close $f;
        waitpid($pid, 0);
        my $out = do { local (@ARGV, $/) = ("$dir/out"); <> } // 0;
        unlink glob "$dir/*"; rmdir $dir;
        return $out;
    });
}

# ---- the API while 24 bodies drip ------------------------------------------------
my ($lat0, $bad0) = probes(30);
is_deeply $bad0, [], 'probes without drips: all 2xx';

my ($in, $stop) = drips($DRIPS);
is $in, $DRIPS, "$DRIPS drips under way";
my @idle = (idle_in_tx());
my ($lat1, $bad1) = probes(30);
push @idle, idle_in_tx();
my $open = $stop->();
is $open, $DRIPS, 'the drips were still open when stopped (the server waited for them)';
is_deeply $bad1, [], 'probes during the drips: no 503, all 2xx';
is_deeply \@idle, [0, 0], "no session 'idle in transaction' during the drips";
my ($p0, $p1) = (p99($lat0), p99($lat1));
cmp_ok $p1, '<', ($p0 * 5 > 1 ? $p0 * 5 : 1),
    sprintf('p99 of /v1/me with drips %.0f ms, without %.0f ms', $p1 * 1000, $p0 * 1000);
is sql("SELECT count(*) FROM submissions WHERE form_id = '$fid'"), 0, 'nothing stored from the drips';

# ---- the event feed while one body drips (of another account's form) ------------
($in, $stop) = drips(1, 3);
is $in, 1, 'one slow upload under way (dripping for 3 s)';
my $r = $inst->api(POST => "/f/$fid_b", body => { name => 'Grace' });
is $r->code, 201, 'a submission to another account meanwhile';
my $sid = $r->{json}{id};
my $t0 = time;
my $seen = wait_for(sub {
    $r = $inst->api(GET => '/v1/events', token => $tok_b);
    grep { $_->{type} eq 'submission.created' && ($_->{data}{id} // '') eq $sid } @{ $r->{json}{data} || [] };
}, 5, 'the event in the feed');
ok $seen, sprintf('its event is in the feed while the upload drips (%.1f s)', time - $t0);
is idle_in_tx(), 0, "no session 'idle in transaction' during the slow upload";
is $stop->(), 1, 'the slow upload was still open';

# ---- refused before the body: a closed form, a body over the form's limits --------
sub headers_only { # the answer to a multipart POST whose body never comes
    my ($path, $len) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Timeout => 10) or die $!;
    print $s "POST /api$path HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        . "Content-Type: multipart/form-data; boundary=QQ\r\nContent-Length: $len\r\n\r\n";
    my ($buf, $t0) = ('', time);
    my $sel = IO::Select->new($s);
    while (time - $t0 < 10 && $buf !~ /\r\n\r\n/) {
        last unless $sel->can_read(10 - (time - $t0));
        last unless sysread($s, $buf, 4096, length $buf);
    }
    close $s;
    return ($buf =~ m{^HTTP/1\.1 (\d+)} ? $1 : 0);
}
require IO::Select;
my $fid_c = form_($tok, 'Closed', { key => 'cv', type => 'file', label => 'CV' });
is $inst->api(POST => "/v1/forms/$fid_c/close", token => $tok)->code, 200, 'a form closed';
is headers_only("/f/$fid_c", 1000), 409, 'a closed form: 409 before the body';
is headers_only("/f/$fid_b", 10_000_000), 413, 'over the limit of a form without files: 413 before the body';
is headers_only('/f/frm_nosuchform', 1000), 404, 'no such form: 404 before the body';

# ---- uploads still work, small and spooled to a file ----------------------------
my $big = join '', map { chr(($_ * 7) % 256) } 1 .. 700_000; # past the 256 KB kept in memory
require Digest::SHA;
require HTTP::Request::Common;
my $ua = LWP::UserAgent->new(timeout => 30);
for my $case ([small => 'hello'], [large => $big]) {
    my ($name, $data) = @$case;
    my $req = HTTP::Request::Common::POST($inst->url . "/f/$fid", Accept => 'application/json',
        Content_Type => 'form-data',
        Content => [ name => 'Ada', cv => [ undef, "$name.bin", 'Content-Type' => 'application/octet-stream',
                                             Content => $data ] ]);
    $r = $ua->request($req);
    is $r->code, 201, "$name upload stored";
    my $j = eval { JSON::PP->new->decode($r->content) } || {};
    my $m = $j->{data}{cv}[0] || {};
    is $m->{size}, length $data, "$name: size";
    is $m->{sha256}, Digest::SHA::sha256_hex($data), "$name: sha256";
    my $g = $inst->api(GET => "/v1/forms/$fid/submissions/$j->{id}/files/$m->{id}", token => $tok);
    is $g->code, 200, "$name: downloaded";
    ok $g->content eq $data, "$name: the same bytes";
}
# FormsvcUploadTempMax 1 (MB per child): what an upload spools on disk is
# given back when it ends (three 700 KB uploads in a row, 430 KB each on
# disk), and one that would pass it alone is refused
sub upload {
    my ($data) = @_;
    $ua->request(HTTP::Request::Common::POST($inst->url . "/f/$fid", Accept => 'application/json',
        Content_Type => 'form-data',
        Content => [ cv => [ undef, 'x.bin', 'Content-Type' => 'application/octet-stream',
                             Content => $data ] ]));
}
is upload($big)->code, 201, "a 700 KB upload again: $_" for 1 .. 2;
$r = upload('y' x 1_500_000);
is $r->code, 503, 'an upload past FormsvcUploadTempMax: 503';
ok(($r->header('Retry-After') // 0) >= 1, 'with Retry-After');
like $inst->error_log, qr/FS03776/, 'logged (FS03776)';
is upload('hello')->code, 201, 'and the next upload goes in';
is idle_in_tx(), 0, "no session left 'idle in transaction'";

# the storage counters (sql/0040) follow the files, and go with the account
my $uid = sql("SELECT user_id FROM forms WHERE id = '$fid'");
is $inst->api(GET => '/v1/me', token => $tok)->{json}{storage}{used}, 2 * 5 + 3 * length $big,
    '/v1/me: storage used, every upload';
is sql("SELECT sum(bytes) FROM file_usage WHERE user_id = '$uid'"),
    sql("SELECT sum(size) FROM submission_files WHERE user_id = '$uid'"), 'counters = the sum of the files';
sql("DELETE FROM submissions WHERE form_id = '$fid' AND id IN (SELECT submission_id FROM submission_files WHERE size = 5)");
is $inst->api(GET => '/v1/me', token => $tok)->{json}{storage}{used}, 3 * length $big, 'deleted files are taken off';
sql("DELETE FROM users WHERE id = '$uid'");
is sql("SELECT count(*) FROM file_usage WHERE user_id = '$uid'"), 0, 'an account deleted: no counter left';
is sql("SELECT count(*) FROM submission_files WHERE user_id = '$uid'"), 0, 'nor files';

# FormsvcUploadTempDir: a directory that does not exist fails configtest
for my $case (['/nonexistent-formsvc-spool', 0], [$inst->root, 1]) {
    my ($dir, $ok) = @$case;
    my $f = $inst->root . '/configtest.conf';
    open my $fh, '>', $f or die $!;
    print $fh FormsvcInstance::slurp($inst->root . '/httpd.conf'), "\nFormsvcUploadTempDir \"$dir\"\n";
    close $fh;
    my $httpd = $ENV{FORMSVC_HTTPD} // "/usr/sbin/apache2";
    my $out = `$httpd -t -f $f 2>&1` // "";
    my $rc = $?;
    if ($ok) { is $rc, 0, 'FormsvcUploadTempDir of a directory: Syntax OK' or diag $out }
    else {
        isnt $rc, 0, 'FormsvcUploadTempDir of no directory: configtest fails';
        like $out, qr/FormsvcUploadTempDir: \Q$dir\E is not a directory/, 'and says why';
    }
}
done_testing;
