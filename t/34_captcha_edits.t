# Edits after sending on a form with a captcha (settings.captcha with
# settings.allowEdits), against the local stand-in for the provider
# (t/bin/captcha_verify.py): an edit needs a token as a submission does;
# one whose check cannot be made (the provider too slow) is refused with
# 503 even on a host with FormsvcCaptchaFailOpen On, whose submissions it
# takes unchecked, since captchaUnchecked is the first answers' flag and an
# edit cannot say it. On the old code that edit replaced the answers, the
# submission still saying it was checked.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use File::Path qw(make_path);
use JSON::PP ();
use LWP::UserAgent;

my $J = JSON::PP->new->canonical;
my $dir = "$FindBin::Bin/logs/captcha_edits";
make_path($dir);
unlink "$dir/port", "$dir/seen";
my $vpid = fork // die "fork: $!";
if (!$vpid) {
    exec 'python3', "$FindBin::Bin/bin/captcha_verify.py", "$dir/port", "$dir/seen";
    die "exec: $!";
}
END { kill 'TERM', $vpid if $vpid; }
ok wait_for(sub { -s "$dir/port" }, 20, 'the verify server'), 'the local verify server listens';
my $vport = do { local (@ARGV, $/) = "$dir/port"; <> };
my $inst = FormsvcInstance->start(name => 'captcha_edits', conf => <<"CONF");
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcCaptchaSecret turnstile edit-secret-$$
FormsvcCaptchaVerifyURL turnstile http://127.0.0.1:$vport/siteverify
FormsvcCaptchaTimeout 2
FormsvcCaptchaFailOpen On
CONF
my $base = $inst->url;
my $ua = LWP::UserAgent->new(timeout => 30, max_redirect => 0);
my $r = $inst->api(POST => '/v1/signup', body => { email => uniq_email() });
my $tok = $r->{json}{apiKey}{secret};
my $fid = $inst->published_form($tok, settings => {
    captcha => { provider => 'turnstile', siteKey => '1x00000000000000000000AA' },
    allowEdits => { untilHours => 2 } });

my ($ptok) = $ua->get("$base/f/$fid", Accept => 'text/html')->content =~ /name="_token" value="([^"]+)"/;
$r = $ua->post("$base/f/$fid", Accept => 'text/html',
               Content => [ a => 'first', _token => $ptok, 'cf-turnstile-response' => 'good-1' ]);
is $r->code, 303, 'sent with a good token';
my ($edit) = ($r->header('Location') // '') =~ /[?&]edit=([^&]+)/;
ok $edit, 'the thanks page carries the edit token' or BAIL_OUT('no edit token');
my ($sid) = $edit =~ /^(sub_\w+)\./;

sub edit_json {
    my ($body, $token) = @_;
    my @h = ('Content-Type' => 'application/json', Accept => 'application/json');
    push @h, 'Formsvc-Captcha-Token' => $token if defined $token;
    return $ua->post("$base/f/$fid?edit=$edit", @h, Content => $J->encode($body));
}
sub answers { $inst->api(GET => "/v1/forms/$fid/submissions/$sid", token => $tok)->{json} }

$r = edit_json({ a => 'no token' });
is $r->code, 403, 'an edit without a token: 403';
$r = edit_json({ a => 'too slow' }, 'slow-1');
is $r->code, 503, 'an edit whose check cannot be made: 503, even failing open';
ok $r->header('Retry-After'), '  with Retry-After';
my $s = answers();
is $s->{data}{a}, 'first', '  the answers are not changed';
ok !$s->{captchaUnchecked}, '  and the submission is checked, as it says';
$r = edit_json({ a => 'second' }, 'good-2');
is $r->code, 200, 'an edit with a good token: 200';
is answers()->{data}{a}, 'second', '  changed';
ok wait_for(sub { $inst->error_log =~ /FS00423: .*could not be made.*; refused with 503/ }, 10, 'FS00423'),
   'logged as refused (FS00423)';
unlike $inst->error_log, qr/taken unchecked/, 'nothing was taken unchecked';

$inst->stop;
done_testing;
