# GET /v1/me/export: every piece of the account's data as JSON Lines, one
# object per line with its kind, streamed (attachment), with no secret
# material; owner key only. A big-ish account (thousands of submissions of
# 8 KB) exported to a client that reads nothing leaves the child's memory
# flat (one page per reader), and read to its end has every submission.
# GET /v1/me/export/link (the MCP tool export_account) says where it is.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use FormsvcOAuth;
use FormsvcInstance;
use JSON::PP ();
use MIME::Base64 qw(encode_base64);
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use Time::HiRes ();

my $J = JSON::PP->new->utf8->canonical;
sub sqlq { my $s = shift; $s =~ s/'/''/g; "'$s'" }
my ($tok, $su) = signup();
my ($other) = signup();
my $uid = user_of($tok);
verify_account($tok); # webhooks need a verified account

# ---- an account with one of everything --------------------------------------
my $PNG = "\x89PNG\r\n\x1a\n" . ("\0" x 100) . 'IEND';
my $form = make_form($tok, { title => 'Export', fields => [
    { key => 'name', type => 'text', label => 'Name' },
    { key => 'photo', type => 'file', label => 'Photo' } ] });
my $fid = $form->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
my $sub = api(POST => "/f/$fid", body => $J->encode({ name => 'Ada',
    photo => { name => 'a.png', type => 'image/png', data => encode_base64($PNG, '') } }));
is $sub->code, 201, 'a submission with a file' or diag $sub->content;
my $link = api(POST => "/v1/forms/$fid/links", token => $tok, body => { prefill => { name => 'Bo' } });
is $link->code, 201, 'a link';
my $wh = api(POST => '/v1/webhooks', token => $tok, body => { url => 'https://example.com/hook', events => ['form.published'] });
is $wh->code, 201, 'a webhook' or diag $wh->content;
my $key = api(POST => '/v1/keys', token => $tok, body => { name => 'ro', scopes => ['account:read'] });
is $key->code, 201, 'a delegated key';
my $cl = api(POST => '/v1/clients', token => $tok, body => { name => 'etl' });
is $cl->code, 201, 'a client';
make_form($other, { title => 'Not mine' });

my $r = api(GET => '/v1/me/export', token => $tok);
is $r->code, 200, 'export: 200' or diag $r->content;
is $r->header('Content-Type'), 'application/x-ndjson', 'JSON Lines';
like $r->header('Content-Disposition') // '', qr/^attachment; filename="formsvc-export-\Q$uid\E\.jsonl"$/,
     'an attachment';
my $body = $r->content;
my (%kinds, @bad, %by);
my $n = 0;
for my $l (split /\n/, $body) {
    $n++;
    my $o = eval { $J->decode($l) };
    push(@bad, $n), next unless ref $o eq 'HASH' && $o->{kind};
    $kinds{ $o->{kind} }++;
    push @{ $by{ $o->{kind} } }, $o;
}
is_deeply \@bad, [], 'every line is a JSON object with a kind';
like $body, qr/\n\z/, 'every line ends with a newline';
ok $kinds{$_}, "kind $_ present" for qw(account form field submission file link webhook key client audit);
is $by{account}[0]{id}, $uid, 'the account';
is $kinds{field}, 2, 'one line per field';
is $by{submission}[0]{data}{name}, 'Ada', 'the submission\'s answers';
like $by{file}[0]{url}, qr{/v1/forms/\Q$fid\E/submissions/\Q$sub->{json}{id}\E/files/fil_}, 'the file\'s download URL';
is $by{file}[0]{name}, 'a.png', 'and its metadata';
ok !(grep { $_->{title} eq 'Not mine' } @{ $by{form} }), 'no other account\'s form';
my $d = api(GET => $by{file}[0]{url} =~ s{^https?://[^/]+(?:/api)?}{}r, token => $tok);
is $d->content, $PNG, 'the download URL gives the file';

# the owner's state and a link's metadata, written member by member: the
# line's bytes are json-c's (escapes of quotes, backslashes, line breaks
# and control characters; '/' and UTF-8 as they are); the spam score when
# the form computed one (t/26_export_more.t)
my $sid = $sub->{json}{id};
psql("UPDATE submissions SET owner_status = 'done', tags = ARRAY['a', 'b/c'], "
     . "note = E'say \"hi\"\\n\\\\ \\x01 / caf\\u00e9', link_id = " . sqlq($link->{json}{id})
     . ", link_metadata = '{\"k\": \"v/w\"}' WHERE id = " . sqlq($sid));
my $line = (grep { /"kind":"submission"/ } split /\n/, api(GET => '/v1/me/export', token => $tok)->content)[0] // '';
like $line, qr/^\{"kind":"submission","id":"\Q$sid\E","formId":"\Q$fid\E","formVersion":\d+,"spam":false,"createdAt":"[^"]+","status":"done","tags":\["a","b\/c"\],"note":"say \\"hi\\"\\n\\\\ \\u0001 \/ caf\x{c3}\x{a9}","linkId":"\Q$link->{json}{id}\E","metadata":\{"k":"v\/w"\},(?:"spamScore":\d+,)?"data":\{/,
     'a submission\'s line: its owner\'s state and link, escaped as json-c does';

# no secret material: the secrets, their hashes, the link's token, the webhook's secret
my @secrets = ($tok, $key->{json}{secret}, $cl->{json}{secret});
push @secrets, split /\n/, psql("SELECT secret_hash FROM keys WHERE user_id = " . sqlq($uid)
                                . " UNION ALL SELECT secret_hash FROM clients WHERE user_id = " . sqlq($uid)
                                . " UNION ALL SELECT token_hash FROM links WHERE user_id = " . sqlq($uid)
                                . " UNION ALL SELECT token_sealed FROM links WHERE user_id = " . sqlq($uid)
                                . " UNION ALL SELECT secret FROM webhooks WHERE user_id = " . sqlq($uid));
cmp_ok scalar(@secrets), '>=', 8, 'the secrets and hashes to look for';
is scalar(grep { index($body, $_) >= 0 } @secrets), 0, 'none of them is in the export';
my $prefix = substr($tok, 0, index($tok, '_') + 1);
unlike $body, qr/\Q$prefix\E[A-Za-z0-9]{20,}/, 'nothing shaped like a secret';
unlike $body, qr/"(secret|secretHash|secret_hash|tokenHash|token_hash)"/, 'no secret member';

# ---- who may ------------------------------------------------------------------
problem_ok(api(GET => '/v1/me/export', token => $key->{json}{secret}), 403, 'forbidden', 'a delegated key: 403');
is api(GET => '/v1/me/export')->code, 401, 'no credential: 401';
is api(HEAD => '/v1/me/export', token => $tok)->code, 200, 'HEAD: 200';

# ---- the link (the MCP tool) ----------------------------------------------------
$r = api(GET => '/v1/me/export/link', token => $tok);
is $r->code, 200, 'the link: 200';
like $r->{json}{url}, qr{/v1/me/export$}, 'the route\'s URL';
$r = api(POST => '/mcp', token => $tok, headers => { Accept => 'application/json, text/event-stream' },
         body => { jsonrpc => '2.0', id => 1, method => 'tools/call',
                   params => { name => 'export_account', arguments => {} } });
my $res = $r->{json}{result};
ok $res && !$res->{isError}, 'MCP export_account' or diag $r->content;
like $res->{structuredContent}{url} // '', qr{/v1/me/export$}, 'returns the download URL, not the data';

# ---- a big-ish account, streamed in constant memory -------------------------------
my $inst = FormsvcInstance->start(name => 'export', conf => <<'CONF');
StartServers 1
ServerLimit 1
ThreadsPerChild 8
MaxRequestWorkers 8
MinSpareThreads 1
MaxSpareThreads 16
Timeout 120
CONF
my ($port) = $inst->url =~ m{:(\d+)/};
$r = $inst->api(POST => '/v1/signup', body => { email => sprintf('exp%d.%d@example.com', $$, time) });
my $btok = $r->{json}{apiKey}{secret};
my $buid = $r->{json}{user}{id};
$r = $inst->api(POST => '/v1/forms', token => $btok, body => { title => 'Big', fields => [
    { key => 'note', type => 'textarea', label => 'Note' } ] });
my $bfid = $r->{json}{id};
ok $bfid, 'the instance: a form' or diag $r->code . ' ' . $r->content;
my $N = 4000;
psql("INSERT INTO submissions (id, form_id, user_id, form_version, data) "
     # ids begin with their time, as the module makes them (lists seek by it)
     . "SELECT 'sub_' || fs_id_time(now()) || 'EXP' || lpad(g::text, 13, '0'), '$bfid', '$buid', 1, "
     . "jsonb_build_object('note', repeat('y', 8000)) FROM generate_series(1, $N) g");

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
$inst->api(GET => '/v1/me/export', token => $btok); # warm the child up once
my $rss0 = child_rss();
my @socks;
for (1 .. 4) {
    socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
    setsockopt($s, SOL_SOCKET, SO_RCVBUF, 4096) or die "SO_RCVBUF: $!";
    connect($s, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "connect: $!";
    syswrite $s, "GET /api/v1/me/export HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nAuthorization: Bearer $btok\r\n"
               . "Connection: close\r\n\r\n";
    push @socks, $s;
}
ok wait_for(sub { my $v = ''; vec($v, fileno($_), 1) = 1 for @socks;
                  select(my $o = $v, undef, undef, 0) > 0 }, 20, 'the answers begin'), 'the exports are being answered';
Time::HiRes::sleep(1); # let the writers fill the sockets and block
my $grew = child_rss() - $rss0;
diag sprintf 'export of %d x 8 KB (%.0f MB each): the child holds %.1f MB more while 4 readers wait',
    $N, $N * 8 / 1024, $grew;
cmp_ok $grew, '<', 16, 'memory stays within a page per reader (the four exports are over 120 MB)';
close $_ for @socks;
$r = $inst->api(GET => '/v1/me/export', token => $btok);
is $r->code, 200, 'the big export: 200' or diag $r->code . ' ' . substr($r->content, 0, 300);
my $subs = () = $r->content =~ /"kind":"submission"/g;
is $subs, $N, 'read to its end, the export has every submission';
$inst->stop;

done_testing;
