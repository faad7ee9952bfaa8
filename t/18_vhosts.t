# Per-virtual-host behaviour. The instance has the
# usual global FormsvcBaseURL (http, the main server's port) and three
# virtual hosts: a TLS one without a base URL of its own (the inherited
# http one must not leak into https answers), a TLS one with its own, and
# one with `Formsvc Off` (nothing of the service there). The certificate
# is self-signed, made here with openssl.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcInstance;
use File::Path qw(make_path);
use JSON::PP ();
use LWP::UserAgent;

my $mods = '/usr/lib/apache2/modules';
plan skip_all => 'mod_ssl and openssl needed'
    unless -e "$mods/mod_ssl.so" && system('openssl version >/dev/null 2>&1') == 0;

my $dir = "$FindBin::Bin/logs/vhost-tls";
make_path($dir);
system('openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2',
       '-subj', '/CN=localhost', '-keyout', "$dir/key.pem", '-out', "$dir/cert.pem") == 0
    or die 'openssl req failed';

my ($tls, $tls_own, $off) = map { FormsvcInstance::free_port() } 1 .. 3;
my $inst = FormsvcInstance->start(name => 'vhosts', conf => <<"CONF");
<IfModule !mod_ssl.c>
    LoadModule ssl_module $mods/mod_ssl.so
</IfModule>
SSLSessionCache none
FormsvcRateLimit signup off
Listen 127.0.0.1:$tls
Listen 127.0.0.1:$tls_own
Listen 127.0.0.1:$off
<VirtualHost 127.0.0.1:$tls>
    ServerName localhost
    SSLEngine on
    SSLCertificateFile "$dir/cert.pem"
    SSLCertificateKeyFile "$dir/key.pem"
</VirtualHost>
<VirtualHost 127.0.0.1:$tls_own>
    ServerName localhost
    SSLEngine on
    SSLCertificateFile "$dir/cert.pem"
    SSLCertificateKeyFile "$dir/key.pem"
    FormsvcBaseURL https://forms.example.test/api
</VirtualHost>
<VirtualHost 127.0.0.1:$off>
    ServerName localhost
    Formsvc Off
</VirtualHost>
CONF

my $ua = LWP::UserAgent->new(timeout => 10, max_redirect => 0,
                             ssl_opts => { verify_hostname => 0, SSL_verify_mode => 0 });
my $json = JSON::PP->new;
sub problem_type {
    my $r = shift;
    my $j = eval { $json->decode($r->content) } || {};
    return $j->{type} // '';
}
sub signup_at {
    my $base = shift;
    return $ua->post("$base/v1/signup", 'Content-Type' => 'application/json',
                     Content => $json->encode({ email => uniq_email() }));
}

my $plain = "http://127.0.0.1:$inst->{port}/api";
my $r = $ua->get("$plain/v1/nothing");
is $r->code, 404, 'plain host: 404';
is problem_type($r), "$plain/problems/not-found", 'plain host: problem type under the http base URL';
$r = signup_at($plain);
is $r->code, 201, 'plain host: signup';
is $r->header('Location'), "$plain/v1/me", 'plain host: Location is http';

my $https = "https://127.0.0.1:$tls/api";
$r = $ua->get("$https/v1/nothing");
is $r->code, 404, 'TLS host: 404';
like problem_type($r), qr{^https://127\.0\.0\.1:$tls/api/problems/not-found$},
    'TLS host without its own base URL: problem type is https, this host and port';
$r = signup_at($https);
is $r->code, 201, 'TLS host: signup';
like $r->header('Location') // '', qr{^https://127\.0\.0\.1:$tls/api/v1/me$}, 'TLS host: Location is https';
unlike $r->content, qr{http://}, 'no http URL in the answer';

$r = $ua->get("https://127.0.0.1:$tls_own/api/v1/nothing");
is problem_type($r), 'https://forms.example.test/api/problems/not-found',
    'TLS host with its own FormsvcBaseURL: that one';

for my $path ('/api/v1/forms', '/api/healthz', '/api/v1/signup') {
    $r = $ua->get("http://127.0.0.1:$off$path");
    is $r->code, 404, "Formsvc Off: $path is not served";
    unlike $r->header('Content-Type') // '', qr/problem\+json/, "Formsvc Off: $path is httpd's own 404";
}
is $ua->get("$plain/healthz")->code, 200, 'the main server still serves';

my @warned = $inst->error_log =~ /FS00308: /g;
ok scalar(@warned) >= 1, 'the inherited http base URL on a TLS host is pointed out in the log';
like $inst->error_log, qr/FS00308: .* on the TLS virtual host localhost:$tls;/, 'naming the port it was reached on (not :0)';
$inst->stop;

# Serve only where configured: Off for the server, On in one virtual host.
my $on = FormsvcInstance::free_port();
my $opt = FormsvcInstance->start(name => 'vhosts-optin', ready_url => "http://127.0.0.1:$on/api/healthz",
                                 conf => <<"CONF");
Formsvc Off
Listen 127.0.0.1:$on
<VirtualHost 127.0.0.1:$on>
    Formsvc On
    FormsvcBaseURL http://127.0.0.1:$on/api
</VirtualHost>
CONF
is $ua->get($opt->url . '/healthz')->code, 404, 'Formsvc Off in the main server: not served there';
is $ua->get("http://127.0.0.1:$on/api/healthz")->code, 200, 'Formsvc On in a virtual host: served there';
$r = $ua->get("http://127.0.0.1:$on/api/v1/nothing");
is problem_type($r), "http://127.0.0.1:$on/api/problems/not-found", 'with its own base URL';
$opt->stop;
done_testing;
