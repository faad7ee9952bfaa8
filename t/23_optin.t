# The service is opt-in per host: loaded, the module serves nothing until a
# server or <VirtualHost> says `Formsvc On` (as mod_status or
# mod_auth_openidc do nothing until configured). A host without it leaves
# /v1, /f, /mcp and /healthz to httpd (its own 404, no X-Request-Id); a
# host with it serves them.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use LWP::UserAgent;

my ($on, $plain) = map { FormsvcInstance::free_port() } 1 .. 2;
my $inst = FormsvcInstance->start(name => 'optin', enabled => 0,
    ready_url => "http://127.0.0.1:$on/healthz", conf => <<"CONF");
Listen 127.0.0.1:$on
Listen 127.0.0.1:$plain
<VirtualHost 127.0.0.1:$on>
    ServerName localhost
    Formsvc On
    FormsvcBaseURL http://127.0.0.1:$on
</VirtualHost>
<VirtualHost 127.0.0.1:$plain>
    ServerName localhost
</VirtualHost>
CONF
(my $main = $inst->url) =~ s{/api$}{};
my $ua = LWP::UserAgent->new(timeout => 10, max_redirect => 0);
for my $c (["main server", "$main/api"], ["virtual host without Formsvc On", "http://127.0.0.1:$plain"]) {
    my ($what, $base) = @$c;
    for my $path (qw(/v1/me /f/frm_x /mcp /healthz)) {
        my $r = $ua->get("$base$path");
        is $r->code, 404, "$what: $path is httpd's 404";
        unlike $r->header('Content-Type') // '', qr/problem\+json/, "$what: $path is no problem document";
        ok !defined $r->header('X-Request-Id'), "$what: $path carries no request id of the module";
    }
}
my $r = $ua->get("http://127.0.0.1:$on/v1/me");
is $r->code, 401, 'virtual host with Formsvc On: /v1/me is served (401 without a key)';
like $r->header('Content-Type') // '', qr{application/problem\+json}, 'as a problem document';
is $ua->get("http://127.0.0.1:$on/healthz")->code, 200, 'and /healthz answers there';

# The shipped configuration: off in the module's file, on in the site file.
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
sub slurp { my $f = shift; open my $fh, '<', $f or die "$f: $!"; local $/; <$fh> }
unlike slurp("$root/conf/formsvc.conf"), qr/^[ \t]*Formsvc[ \t]+On/mi, 'formsvc.conf turns the service on nowhere';
like slurp("$root/conf/site/formsvc.conf"), qr/<VirtualHost[^>]*>.*^[ \t]*Formsvc[ \t]+On\b.*<\/VirtualHost>/msi,
    'the shipped site turns it on in its <VirtualHost>';
like slurp("$root/conf/dev.conf.in"), qr/^Formsvc On$/m, 'make run turns it on';

done_testing;
