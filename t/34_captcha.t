# Bot checks (settings.captcha, settings.spamThreshold) against a local
# stand-in for the providers' siteverify API (t/bin/captcha_verify.py):
# the page's widget and its Content-Security-Policy, tokens checked
# (passed, refused, missing), a provider that answers too late with
# FormsvcCaptchaFailOpen Off (503) and On (taken; a virtual host of its own
# shows the per-host merge), a provider without a secret (503), the secret
# in no log line and no answer, and the spam score's flag.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use File::Path qw(make_path);
use JSON::PP ();
use URI ();
use LWP::UserAgent;
use Time::HiRes ();

my $J = JSON::PP->new->canonical;
my $dir = "$FindBin::Bin/logs/captcha";
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
my $SECRET = '0x4AAAAAAAsecret-TEST-' . $$;
my $open_port = FormsvcInstance::free_port();
my $inst = FormsvcInstance->start(name => 'captcha', conf => <<"CONF");
FormsvcRateLimit signup off
FormsvcRateLimit submit off
FormsvcQuota unverified forms 20
FormsvcCaptchaSecret turnstile $SECRET
FormsvcCaptchaSecret hcaptcha hc-$SECRET
FormsvcCaptchaVerifyURL turnstile http://127.0.0.1:$vport/siteverify
FormsvcCaptchaVerifyURL hcaptcha http://127.0.0.1:$vport/hc
FormsvcCaptchaTimeout 2
# every FS00423 line written (t checks the fail-open one after two fail-closed ones)
FormsvcLogRepeatInterval 0
Listen 127.0.0.1:$open_port
<VirtualHost 127.0.0.1:$open_port>
    ServerName localhost
    FormsvcCaptchaFailOpen On
</VirtualHost>
CONF
my $base = $inst->url;
my $ua = LWP::UserAgent->new(timeout => 30, max_redirect => 0);
# where a person lands after a post's 303: the page its Location names
sub landing {
    my $r = shift;
    my $to = $r->header('Location') // return $r;
    return $ua->get(URI->new_abs($to, $r->base), Accept => 'text/html');
}

my $r = $inst->api(POST => '/v1/signup', body => { email => uniq_email() });
is $r->code, 201, 'signup';
my $tok = $r->{json}{apiKey}{secret};

# --- settings are checked ----------------------------------------------------
$r = $inst->api(POST => '/v1/forms', token => $tok, body => {
    title => 'x', fields => [ { key => 'a', type => 'text', label => 'A' } ],
    settings => { captcha => { provider => 'nope', siteKey => 'k' }, spamThreshold => 0 } });
is $r->code, 422, 'an unknown provider and spamThreshold 0: 422';
my %ptr = map { $_->{pointer} => 1 } @{ $r->{json}{errors} || [] };
ok $ptr{'/settings/captcha/provider'}, 'pointer to the provider';
ok $ptr{'/settings/spamThreshold'}, 'pointer to spamThreshold';
$r = $inst->api(POST => '/v1/forms', token => $tok, body => {
    title => 'x', fields => [ { key => 'a', type => 'text', label => 'A' } ],
    settings => { captcha => { provider => 'turnstile', siteKey => 'a"b' } } });
is $r->code, 422, 'a site key with a quote: 422';

my $fields = [ { key => 'a', type => 'text', label => 'A' }, { key => 'b', type => 'text', label => 'B' } ];
my $ts = $inst->published_form($tok, fields => $fields,
                               settings => { captcha => { provider => 'turnstile', siteKey => '1x00000000000000000000AA' } });
my $hc = $inst->published_form($tok, fields => $fields,
                               settings => { captcha => { provider => 'hcaptcha', siteKey => '10000000-ffff-ffff-ffff-000000000001' } });
my $rc = $inst->published_form($tok, fields => $fields,
                               settings => { captcha => { provider => 'recaptcha', siteKey => '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI' } });
my $plain = $inst->published_form($tok, fields => $fields);
my $spammy = $inst->published_form($tok, fields => $fields, settings => { spamThreshold => 40 });

$r = $inst->api(GET => "/v1/forms/$ts", token => $tok);
is_deeply $r->{json}{settings}{captcha}, { provider => 'turnstile', siteKey => '1x00000000000000000000AA' },
    'the form keeps provider and site key';

# --- the page and its policy ------------------------------------------------
sub page { $ua->get("$base/f/$_[0]", Accept => 'text/html') }
$r = page($ts);
is $r->code, 200, 'turnstile page';
my $csp = $r->header('Content-Security-Policy') // '';
like $csp, qr/ script-src https:\/\/challenges\.cloudflare\.com;/, 'script-src: the provider only';
like $csp, qr/ frame-src https:\/\/challenges\.cloudflare\.com;/, 'frame-src: the provider only';
unlike $csp, qr/connect-src|hcaptcha|google/, 'nothing else';
like $r->content, qr/<div class="cf-turnstile" data-sitekey="1x00000000000000000000AA"><\/div>/, 'the widget';
like $r->content, qr{<script src="https://challenges\.cloudflare\.com/turnstile/v0/api\.js" async defer></script>},
    "the provider's script";
like $r->content, qr/<noscript><p class="desc">This form checks that answers come from a person/,
    'without script the page says the check needs it';
my ($ptoken) = $r->content =~ /name="_token" value="([^"]+)"/;

$r = page($hc);
$csp = $r->header('Content-Security-Policy') // '';
like $csp, qr/ script-src https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com;/, 'hcaptcha: script-src';
like $csp, qr/ connect-src https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com;/, 'hcaptcha: connect-src';
like $csp, qr/ frame-src https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com;/, 'hcaptcha: frame-src';
like $csp, qr/style-src [^;]* https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com;/, 'hcaptcha: style-src';
like $r->content, qr/class="h-captcha"/, 'hcaptcha widget';

$r = page($rc);
$csp = $r->header('Content-Security-Policy') // '';
like $csp, qr{ script-src https://www\.google\.com/recaptcha/ https://www\.gstatic\.com/recaptcha/;},
    'recaptcha: script-src';
like $csp, qr{ frame-src https://www\.google\.com/recaptcha/ https://recaptcha\.google\.com/recaptcha/;},
    'recaptcha: frame-src';
like $r->content, qr{<noscript><iframe src="https://www\.google\.com/recaptcha/api/fallback\?k=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI"},
    "recaptcha: the provider's fallback without script";
like $r->content, qr/<textarea id="f-g-recaptcha-response" name="g-recaptcha-response"/,
    'recaptcha: its answer box';

$r = page($plain);
$csp = $r->header('Content-Security-Policy') // '';
unlike $csp, qr/script-src|frame-src|connect-src|cloudflare|hcaptcha|google/, 'a form without captcha: policy unchanged';
unlike $r->content, qr/<script|captcha/, 'a form without captcha: no widget, no script';

$r = $ua->get("$base/f/$ts", Accept => 'application/json');
is_deeply $J->decode($r->content)->{submit}{captcha},
    { provider => 'turnstile', siteKey => '1x00000000000000000000AA', header => 'Formsvc-Captcha-Token' },
    'the JSON view names the provider, its site key and the header a JSON post carries the token in';
ok !exists $J->decode(page($plain) && $ua->get("$base/f/$plain", Accept => 'application/json')->content)->{submit}{captcha},
    'not on a form without captcha';

# --- tokens checked --------------------------------------------------------------
sub count { my ($f, $q) = @_; scalar @{ $inst->api(GET => "/v1/forms/$f/submissions?limit=100" . ($q // ''), token => $tok)->{json}{data} || [] } }
sub post_json {
    my ($f, $body, $token, $at) = @_;
    my @h = ('Content-Type' => 'application/json', Accept => 'application/json');
    push @h, 'Formsvc-Captcha-Token' => $token if defined $token;
    return $ua->post(($at // $base) . "/f/$f", @h, Content => $J->encode($body));
}
sub type_of { (eval { $J->decode($_[0]->content) } || {})->{type} // '' }

$r = post_json($ts, { a => 'x' });
is $r->code, 403, 'JSON without a token: 403';
like type_of($r), qr{/problems/captcha-failed$}, 'captcha-failed';
$r = post_json($ts, { a => 'x' }, 'bad-1');
is $r->code, 403, 'a token the provider refuses: 403';
is count($ts), 0, 'nothing stored';
$r = post_json($ts, { a => 'x' }, 'good-1');
is $r->code, 201, 'a good token: 201';
is count($ts), 1, 'stored';
my @seen = map { $J->decode($_) } do { local @ARGV = "$dir/seen"; <> };
my ($sent) = grep { ($_->{response} // '') eq 'good-1' } @seen;
is $sent->{secret}, $SECRET, "the host's secret went to the provider";
is $sent->{remoteip}, '127.0.0.1', "with the respondent's address";
ok !grep({ ($_->{response} // '') eq '' } @seen), 'no request to the provider without a token';

# the HTML post: the widget's input; refused, the page again with the answers
$r = $ua->post("$base/f/$ts", Accept => 'text/html',
               Content => [ a => 'typed', _token => $ptoken, 'cf-turnstile-response' => 'bad-2' ]);
is $r->code, 403, 'HTML post refused by the provider: 403';
like $r->header('Content-Type') // '', qr{text/html}, 'a page';
like $r->content, qr/The check that you are a person did not pass/, 'saying so';
like $r->content, qr/value="typed"/, 'with the answers kept';
$r = $ua->post("$base/f/$ts", Accept => 'text/html',
               Content => [ a => 'typed', _token => $ptoken, 'cf-turnstile-response' => 'good-2' ]);
is $r->code, 303, 'HTML post with a good token: 303';
like landing($r)->request->uri, qr{/f/\Q$ts\E/thanks}, 'the person lands on the thanks page';
is count($ts), 2, 'stored, the token not among the answers';
my $subs = $inst->api(GET => "/v1/forms/$ts/submissions?limit=1", token => $tok)->{json}{data};
is_deeply $subs->[0]{data}, { a => 'typed' }, 'the answers only';

# a form of several pages: the widget on the last page only, the token
# checked at its Submit (Next stores nothing and needs none)
my $paged = $inst->published_form($tok, fields => [
    { key => 'p1', type => 'page', label => 'One' }, { key => 'a', type => 'text', label => 'A' },
    { key => 'p2', type => 'page', label => 'Two' }, { key => 'b', type => 'text', label => 'B' } ],
    settings => { captcha => { provider => 'turnstile', siteKey => '1x00000000000000000000AA' } });
$r = page($paged);
unlike $r->content, qr/cf-turnstile/, 'page 1 of 2: no widget';
my ($ptok2) = $r->content =~ /name="_token" value="([^"]+)"/;
$r = $ua->post("$base/f/$paged", Accept => 'text/html', Content => [ a => 'one', _token => $ptok2, _nav => 'next' ]);
is $r->code, 200, 'Next: page 2, no token asked';
like $r->content, qr/<div class="cf-turnstile" data-sitekey=/, 'page 2 (the last): the widget';
my ($state) = $r->content =~ /name="_state" value="([^"]+)"/;
$r = $ua->post("$base/f/$paged", Accept => 'text/html',
               Content => [ b => 'two', _token => $ptok2, _state => $state, _nav => 'submit', 'cf-turnstile-response' => 'bad-p' ]);
is $r->code, 403, 'Submit with a refused token: 403, the page again';
like $r->content, qr/value="two"/, 'its answers kept';
$r = $ua->post("$base/f/$paged", Accept => 'text/html',
               Content => [ b => 'two', _token => $ptok2, _state => $state, _nav => 'submit', 'cf-turnstile-response' => 'good-p' ]);
is $r->code, 303, 'Submit with a good token: stored';
like landing($r)->request->uri, qr{/f/\Q$paged\E/thanks}, 'the person lands on the thanks page';
is_deeply $inst->api(GET => "/v1/forms/$paged/submissions", token => $tok)->{json}{data}[0]{data},
    { a => 'one', b => 'two' }, 'both pages\' answers';

# --- a provider that does not answer in time -------------------------------
$r = post_json($ts, { a => 'x' }, 'slow-1');
is $r->code, 503, 'fail closed (default): 503';
ok $r->header('Retry-After'), 'with Retry-After';
is count($ts), 2, 'nothing stored';
$r = post_json($ts, { a => 'x' }, 'broken-1');
is $r->code, 503, 'the provider answering 500: 503';
$r = post_json($ts, { a => 'open' }, 'slow-2', "http://127.0.0.1:$open_port/api");
is $r->code, 201, 'FormsvcCaptchaFailOpen On in a virtual host: taken unchecked';
is count($ts), 3, 'stored';
ok wait_for(sub { $inst->error_log =~ /FS00423: .*taken unchecked/ }, 10, 'the fail-open line'),
    'the unchecked submission is logged';
my ($unchecked, @checked) = @{ $inst->api(GET => "/v1/forms/$ts/submissions?limit=3", token => $tok)->{json}{data} };
is $unchecked->{data}{a}, 'open', 'the newest is the one taken unchecked';
is $unchecked->{captchaUnchecked}, JSON::PP::true, 'and says so: captchaUnchecked true';
ok !grep({ exists $_->{captchaUnchecked} } @checked), 'the checked ones carry no such member';
my $uev;
wait_for(sub {
    ($uev) = grep { ($_->{data}{id} // '') eq ($unchecked->{id} // 'x') }
             @{ $inst->api(GET => '/v1/events?limit=100', token => $tok)->{json}{data} // [] };
    $uev }, 10, 'its submission.created event');
ok $uev && $uev->{data}{captchaUnchecked}, 'its submission.created event says so too' or diag explain $uev;

# --- no secret for the provider --------------------------------------------
$r = post_json($rc, { a => 'x' }, 'good-3');
is $r->code, 503, 'a provider without a secret on this host: 503';
ok wait_for(sub { $inst->error_log =~ /FS00420: .*recaptcha/ }, 10, 'FS00420'), 'said in the log';

# --- spam score ---------------------------------------------------------------
$r = post_json($spammy, { a => 'hello', b => 'world' });
is $r->code, 201, 'a plain answer';
$r = post_json($spammy, { a => 'see http://x.example and https://y.example', b => 'www.z.example' });
is $r->code, 201, 'three links: taken (stored flagged)';
$r = post_json($spammy, { a => 'same answer', b => 'same answer' });
is $r->code, 201, 'the same answer twice: under the threshold';
is count($spammy), 2, 'the flagged one is left out of the list';
my $all = $inst->api(GET => "/v1/forms/$spammy/submissions?limit=10&spam=true", token => $tok)->{json}{data};
is scalar(grep { $_->{spam} } @$all), 1, 'and listed with spam=true, flagged';
my %score = map { ($_->{data}{a} => $_->{spamScore}) } @$all;
is_deeply \%score, { 'hello' => 0, 'see http://x.example and https://y.example' => 50, 'same answer' => 25 },
    'each submission carries its spamScore';
$r = post_json($plain, { a => 'see http://x.example and https://y.example', b => 'www.z.example' });
is $r->code, 201, 'without spamThreshold: taken';
is count($plain), 1, 'not flagged';

# the score in the CSV export (a form with spamThreshold) and the events
$r = $inst->api(GET => "/v1/forms/$spammy/submissions?spam=true", token => $tok,
                headers => { Accept => 'text/csv' });
is $r->code, 200, 'CSV export';
my ($head, @rows) = split /\r\n/, $r->content;
like $head, qr/,spamScore$/, 'a spamScore column';
is_deeply [ sort map { (split /,/)[-1] } @rows ], [ 0, 25, 50 ], 'with each score';
$r = $inst->api(GET => "/v1/forms/$plain/submissions", token => $tok, headers => { Accept => 'text/csv' });
unlike((split /\r\n/, $r->content)[0], qr/spamScore/, 'no such column without spamThreshold');
$r = $inst->api(GET => "/v1/events?formId=$spammy", token => $tok);
my @created = grep { $_->{type} eq 'submission.created' && $_->{formId} eq $spammy } @{ $r->{json}{data} || [] };
is_deeply [ sort map { $_->{data}{spamScore} } @created ], [ 0, 25 ],
    'submission.created carries the score (none for the flagged one)';
$r = post_json($spammy, { a => 'plain again' });
ok !exists $J->decode($r->content)->{spamScore}, "the respondent's answer does not say the score";

# time to fill: a page posted the moment it was served (its token says when)
# (the server counts whole seconds: under 2 s of the client's clock from
# before the page to after the post is under 3 s for it; a machine too
# busy for that skips the two checks rather than fail)
my $t0 = Time::HiRes::time();
my ($stok) = page($spammy)->content =~ /name="_token" value="([^"]+)"/;
$r = $ua->post("$base/f/$spammy", Accept => 'text/html', Content => [ a => 'quick', b => 'post', _token => $stok ]);
my $took = Time::HiRes::time() - $t0;
is $r->code, 303, 'an HTML post right after its page: answered as a success';
my $land = landing($r);
is $land->code, 200, 'the person lands on a page (200)';
like $land->request->uri, qr{/f/\Q$spammy\E/thanks}, 'the thanks page, as for any submission';
$all = $inst->api(GET => "/v1/forms/$spammy/submissions?limit=10&spam=true", token => $tok)->{json}{data};
my ($quick) = grep { $_->{data}{a} eq 'quick' } @$all;
SKIP: {
    skip "page and post took ${took}s", 1 unless $took < 7;
    ok $quick->{spamScore} >= 25, 'filled in under 8 s: at least 25';
}
SKIP: {
    skip "page and post took ${took}s", 2 unless $took < 2;
    is $quick->{spamScore}, 50, 'filled in under 3 s: 50';
    ok $quick->{spam}, 'stored flagged (threshold 40)';
}

# --- the secret is nowhere -------------------------------------------------
for my $f ($ts, $hc) {
    $r = $inst->api(GET => "/v1/forms/$f", token => $tok);
    unlike $r->content, qr/\Q$SECRET\E/, 'not in the form';
    $r = $ua->get("$base/f/$f", Accept => 'application/json');
    unlike $r->content, qr/\Q$SECRET\E/, 'not in the public view';
}
unlike $inst->error_log, qr/\Q$SECRET\E/, 'not in the error log';
unlike $inst->error_log, qr/good-|bad-|slow-/, 'nor the tokens';

$inst->stop;
done_testing;
