# The Allow header of 405 answers. httpd's method
# registry maps both "GET" and "HEAD" to M_GET and is a hash made anew, with
# a new seed, at every start and restart; names taken from it
# (ap_method_name_of) came out as "Allow: HEAD" for a 405 of /v1/me after
# about every other start. So: several restarts of an httpd of this test's
# own, and after each the exact Allow of several 405s. With the old code
# all of them pass about once in 2^8 runs.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest ();
use Time::HiRes ();

delete $ENV{LD_PRELOAD};

my %want = (
    'PUT /v1/me'                      => 'GET, HEAD, DELETE',
    'PUT /v1/keys'                    => 'GET, HEAD, POST',
    'POST /v1/forms/frm_x'            => 'GET, HEAD, PATCH, DELETE',
    'GET /v1/forms/frm_x/fields'      => 'POST, PUT',
    'DELETE /f/frm_x'                 => 'GET, HEAD, POST, OPTIONS',
    'PUT /mcp'                        => 'GET, HEAD, POST, DELETE',
    'PATCH /verify'                   => 'GET, HEAD, POST',
    'POST /openapi.json'              => 'GET, HEAD',
);

my $inst = FormsvcInstance->start(name => 'allow');
my @apache = ($ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2', '-f', $inst->root . '/httpd.conf');
sub generations { scalar(() = $inst->error_log =~ /resuming normal operations/g) }

for my $gen (1 .. 8) {
    if ($gen > 1) {
        # a full restart: the parent reads its configuration again (and
        # makes the method registry anew), every child is replaced
        my $before = generations();
        system(@apache, '-k', 'restart') == 0 or die 'restart failed';
        FormsvcTest::wait_for(sub { generations() > $before }, 10, 'the restart');
        FormsvcTest::wait_for(sub { $inst->api(GET => '/healthz')->code == 200 }, 10, '/healthz 200');
    }
    my @wrong;
    for my $k (sort keys %want) {
        my ($m, $path) = split / /, $k;
        my $r = $inst->api($m => $path);
        my $allow = $r->header('Allow') // '(none)';
        push @wrong, "$k: " . $r->code . " Allow: $allow" if $r->code != 405 || $allow ne $want{$k};
    }
    is_deeply \@wrong, [], "start $gen: every 405 lists exactly its methods" or diag join "\n", @wrong;
}
my @crash = grep { /Segmentation fault|Assertion|exit signal|AH00052|AH00060/ } split /\n/, $inst->error_log;
is scalar(@crash), 0, 'no child crashed across the restarts' or diag join "\n", @crash;
done_testing;
