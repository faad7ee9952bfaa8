# Secrets reach no log line even where a client puts them by mistake: an
# edit link's or a resume URL's token after a ';' instead of '&', with its
# '=' escaped, as a path parameter, and in a request whose path httpd
# cannot normalise (".." above the root, a bad %-escape), for which
# httpd's core wrote the whole target, query included, to the error log
# (AH10244). formsvc refuses such a request first (400, FS00360 at info
# with the line redacted). On the old code the access log held the secret
# for the first three, and the error log for the last two.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use Apache::Test ();
use Apache::TestRequest ();
use IO::Socket::INET;

my $hex = join '', map { sprintf '%02x', int rand 256 } 1 .. 32;   # this run's secret
my @c32 = split //, '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
my $sid = 'sub_' . join '', map { $c32[rand 32] } 1 .. 26;   # marks this run's lines
my $tok = "$sid.frs_$hex";
my $etok = "$sid.fes_$hex";

# raw requests: the client library would normalise these paths
my $hostport = Apache::TestRequest::hostport();
my ($host, $port) = split /:/, $hostport;
sub raw {
    my $target = shift;
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 10) or die "connect: $!";
    print $s "GET $target HTTP/1.1\r\nHost: $hostport\r\nConnection: close\r\n\r\n";
    my $status = <$s> // '';
    local $/;
    my $rest = <$s>;
    close $s;
    return $status =~ m{^HTTP/1\.1 (\d+)} ? $1 : 0;
}
my $B = FormsvcTest::BASE;
my $f = "$B/f/frm_01M8EYH693TYM23BEF60PWFW3R";

ok raw("$f?x=1;resume=$tok") > 0, 'a resume token after a ";"';
ok raw("$f?resume%3D$tok") > 0, 'a resume token with its "=" escaped';
ok raw("$f;edit=$etok") > 0, 'an edit token as a path parameter';
is raw("/..$B/f/x?resume=$tok"), 400, 'a path above the root with a resume token: 400';
is raw("$f%zz?edit=$etok"), 400, 'a bad %-escape with an edit token: 400';
# nothing to redact: httpd's own refusal and line, as before
is expect_log([qr/AH10244: invalid URI path \(\Q$f\E%zz\?a=b\)/], sub { raw("$f%zz?a=b") }), 400,
   'a bad %-escape without a secret: 400 (httpd)';

my $alog = Apache::Test::vars('t_logs') . '/access_log';
my $elog = Apache::Test::vars('t_logs') . '/error_log';
sub lines_of { my $f = shift; open my $fh, '<', $f or return (); my @l = <$fh>; close $fh; @l }
ok wait_for(sub { grep { /%zz\?edit=/ } lines_of($alog) }, 10, 'the last request logged'),
   'the requests are in the access log';
is scalar(grep { index($_, $hex) >= 0 } lines_of($alog)), 0, 'the secret is in no access-log line';
is scalar(grep { /\Q$sid\E\.frs_REDACTED/ } lines_of($alog)), 2, 'the lines say where it was (frs_REDACTED)';
is scalar(grep { /\Q$sid\E\.fes_REDACTED/ } lines_of($alog)), 1, '  (fes_REDACTED)';
is scalar(grep { index($_, $hex) >= 0 } lines_of($elog)), 0, 'the secret is in no error-log line';
ok scalar(grep { /FS00360: invalid URI path, refused with 400: GET \/\.\.\S*\/f\/x\?resume=REDACTED/ } lines_of($elog)),
   'the refusal logged with the line redacted (FS00360)';

done_testing;
