# An MCP session belongs to the account, not to the credential that
# started it, so its stream (GET /mcp) may be opened by any credential of
# the account: the stream tells that credential only of the resources it
# may read itself (forms:read for a form, submissions:read for its
# submissions, and the form within its form: constraints), whoever
# subscribed to them.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest qw(api signup base_url wait_for);
use IO::Socket::INET;
use IO::Select;
use Time::HiRes ();

my ($tok) = signup();
my %form;
for my $t (qw(A B)) {
    $form{$t} = api(POST => '/v1/forms', token => $tok, body => { title => "Form $t",
        fields => [{ key => 'n', type => 'text', label => 'N' }] })->{json}{id};
    is api(POST => "/v1/forms/$form{$t}/publish", token => $tok)->code, 200, "form $t published";
}
my $H = { Accept => 'application/json, text/event-stream' };
my $init = api(POST => '/mcp', token => $tok, headers => $H,
    body => { jsonrpc => '2.0', id => 1, method => 'initialize',
              params => { protocolVersion => '2025-06-18', capabilities => {}, clientInfo => { name => 't', version => '1' } } });
my $sid = $init->header('Mcp-Session-Id');
like $sid // '', qr/^mcs_/, 'the owner key starts a session';
my %uri = (subsA => "formsvc://forms/$form{A}/submissions", subsB => "formsvc://forms/$form{B}/submissions",
           formB => "formsvc://forms/$form{B}");
for my $u (sort values %uri) {
    my $r = api(POST => '/mcp', token => $tok, headers => { %$H, 'Mcp-Session-Id' => $sid },
        body => { jsonrpc => '2.0', id => 2, method => 'resources/subscribe', params => { uri => $u } });
    ok $r->{json}{result}, "the owner key subscribes to $u";
}
sub key_with {
    my $r = api(POST => '/v1/keys', token => $tok, body => { name => 'narrow', scopes => [@_] });
    die 'key: ' . $r->content unless $r->code == 201;
    return $r->{json}{secret};
}
my $only_a = key_with('forms:read', 'submissions:read', "form:$form{A}");
my $forms_only = key_with('forms:read');

my ($host, $port, $path) = base_url() =~ m{^http://([^:/]+):(\d+)(/.*)?$};
$path //= '';
sub stream {
    my $key = shift;
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 5) or die "connect: $!";
    print $s "GET $path/mcp HTTP/1.1\r\nHost: $host:$port\r\nAuthorization: Bearer $key\r\n"
        . "Accept: text/event-stream\r\nMcp-Session-Id: $sid\r\n\r\n";
    return { sock => $s, buf => '' };
}
sub read_until {
    my ($st, $re, $secs) = @_;
    my $sel = IO::Select->new($st->{sock});
    my $end = Time::HiRes::time() + $secs * ($ENV{FORMSVC_WAIT_SCALE} || 1);
    while ($st->{buf} !~ $re) {
        my $left = $end - Time::HiRes::time();
        return 0 if $left <= 0;
        next unless $sel->can_read($left);
        my $n = sysread($st->{sock}, my $chunk, 65536);
        return $st->{buf} =~ $re if !$n;
        $st->{buf} .= $chunk;
    }
    return 1;
}
my %st = (owner => stream($tok), only_a => stream($only_a), forms_only => stream($forms_only));
for my $k (sort keys %st) {
    ok read_until($st{$k}, qr/retry: 1000/, 10), "$k: the stream is open" or diag $st{$k}{buf};
}
# in this order: B's submission, A's submission, B closed
my $submit = sub { api(POST => "/f/$_[0]", headers => { Accept => 'application/json' }, body => { n => 'x' })->code };
is $submit->($form{B}), 201, 'a submission to B';
is $submit->($form{A}), 201, 'a submission to A';
is api(POST => "/v1/forms/$form{B}/close", token => $tok)->code, 200, 'B closed';

my $note = sub { qr/data: \{[^\n]*resources\/updated[^\n]*"\Q$_[0]\E"/ };
ok read_until($st{owner}, $note->($uri{formB}), 10), 'owner: told that B was closed' or diag $st{owner}{buf};
like $st{owner}{buf}, $note->($uri{$_}), "owner: told of $_" for qw(subsA subsB);

ok read_until($st{only_a}, $note->($uri{subsA}), 10), "a key limited to A: told of A's submissions"
    or diag $st{only_a}{buf};
unlike $st{only_a}{buf}, qr/\Q$form{B}\E/, 'a key limited to A: never told of form B, nor of its submissions';

ok read_until($st{forms_only}, $note->($uri{formB}), 10), 'forms:read only: told that B was closed'
    or diag $st{forms_only}{buf};
unlike $st{forms_only}{buf}, qr/\/submissions/, 'forms:read only: never told of submissions';

close $_->{sock} for values %st;
done_testing;
