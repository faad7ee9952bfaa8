# Secrets stay out of the access log with the package's defaults: Debian's
# stock `CustomLog ... combined` on a host with Formsvc On writes no
# verification token, link token, client secret or access token from a
# URL, nor from a Referer; and the shipped formsvc_combined format
# (conf/formsvc.conf, used by the shipped site) adds the request id.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest ();
use LWP::UserAgent;
use Time::HiRes ();

my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
sub slurp { my $f = shift; open my $fh, '<', $f or return ''; local $/; <$fh> }
# the LogFormat lines of the shipped module configuration, as a2enmod reads them
my @formats = grep { /^\s*LogFormat\b/ } split /\n/, slurp("$root/conf/formsvc.conf");
ok scalar(grep { /\bformsvc_combined$/ } @formats), 'formsvc.conf defines formsvc_combined';
my $formats = join "\n", @formats;
my $inst = FormsvcInstance->start(name => 'accesslog', conf => <<"CONF");
# Debian's apache2.conf
LogFormat "%h %l %u %t \\"%r\\" %>s %O \\"%{Referer}i\\" \\"%{User-Agent}i\\"" combined
$formats
CustomLog "logs-combined" combined
CustomLog "logs-formsvc" formsvc_combined
CustomLog "logs-query" "%U%q"
CONF

my $ua = LWP::UserAgent->new(timeout => 10, max_redirect => 0);
my $base = $inst->url;
my @secrets = map { "SeCrEt${_}x" . int(rand(1e9)) } 1 .. 7;
my @reqs = (
    ["/verify?token=$secrets[0]"],
    ["/notify/confirm?token=$secrets[1]&x=1"],
    ["/f/frm_nothere?l=fsl_$secrets[2]", "$base/f/frm_other?l=fsl_$secrets[3]"],
    ["/v1/me?access_token=$secrets[4]"],
    ["/oauth/token?client_secret=$secrets[5]&grant_type=client_credentials"],
    ["/healthz", "https://elsewhere.example/page?token=$secrets[6]"],
);
my @ids;
for my $q (@reqs) {
    my $r = $ua->get("$base$q->[0]", $q->[1] ? (Referer => $q->[1]) : ());
    ok $r->code, "GET $q->[0]: " . $r->code;
    push @ids, $r->header('X-Request-Id') // '';
}
my $dir = $inst->root;
my ($comb, $fs, $qs) = ('', '', '');
FormsvcTest::wait_for(sub {
    ($comb, $fs, $qs) = map { slurp("$dir/$_") } qw(logs-combined logs-formsvc logs-query);
    (() = $comb =~ /\n/g) >= @reqs + 1 && (() = $fs =~ /\n/g) >= @reqs + 1 && (() = $qs =~ /\n/g) >= @reqs + 1;
}, 10, 'every request in the three access logs');
for my $i (0 .. $#secrets) {
    unlike $comb, qr/\Q$secrets[$i]\E/, "combined: secret $i is not in the log";
    unlike $fs, qr/\Q$secrets[$i]\E/, "formsvc_combined: secret $i is not in the log";
    unlike $qs, qr/\Q$secrets[$i]\E/, "%U%q: secret $i is not in the log";
}
like $comb, qr{"GET /api/verify\?token=REDACTED HTTP/1\.1"}, 'the request line is kept, the value replaced';
like $comb, qr{"GET /api/notify/confirm\?token=REDACTED&x=1 HTTP/1\.1"}, 'other parameters kept';
like $comb, qr{"\Q$base\E/f/frm_other\?l=REDACTED"}, 'the Referer too';
like $qs, qr{^/api/verify\?token=REDACTED$}m, '%q too';
for my $id (grep { length } @ids) {
    like $fs, qr/ \Q$id\E$/m, "formsvc_combined ends with the request id $id";
}
is scalar(grep { length } @ids), scalar(@reqs), 'every answer had a request id';

done_testing;
