package FormsvcTest;
# Helpers for the Apache::Test suite: JSON requests against the real httpd,
# signing up fresh accounts, and reading problem documents.
use strict;
use warnings;
use Apache::Test;
use Apache::TestRequest ();
use JSON::PP ();
use Exporter 'import';

our @EXPORT = qw(api json_of signup base_url BASE uniq_email pg_ctl);

use constant BASE => '/api';
my $json = JSON::PP->new->canonical->allow_nonref;
my $n = 0;

sub base_url { Apache::TestRequest::module2url('', { path => BASE }) =~ s{/$}{}r }

sub uniq_email { sprintf 'u%d.%d.%d@example.com', $$, time, ++$n }

# api(METHOD, PATH, body => REF|STRING, token => SECRET, headers => {...})
# Returns the HTTP::Response; the decoded body is in $res->{json}.
sub api {
    my ($method, $path, %o) = @_;
    my @h;
    push @h, Authorization => "Bearer $o{token}" if defined $o{token};
    my %hdr = %{ $o{headers} || {} };
    my $body = $o{body};
    if (ref $body) {
        $body = $json->encode($body);
        $hdr{'Content-Type'} //= 'application/json';
    } elsif (defined $body) {
        $hdr{'Content-Type'} //= 'application/json';
    }
    push @h, %hdr;
    my $url = BASE . $path;
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $res;
    if ($method eq 'GET') { $res = Apache::TestRequest::GET($url, @h) }
    elsif ($method eq 'HEAD') { $res = Apache::TestRequest::HEAD($url, @h) }
    else {
        my $req = HTTP::Request->new($method => Apache::TestRequest::resolve_url($url));
        $req->header(@h) if @h;
        $req->content($body) if defined $body;
        $req->header('Content-Length' => length($body // '')) ;
        $res = $ua->request($req);
    }
    $res->{json} = json_of($res);
    return $res;
}

sub json_of {
    my $res = shift;
    my $ct = $res->header('Content-Type') // '';
    return undef unless $ct =~ m{json};
    return eval { $json->decode($res->decoded_content // $res->content) };
}

# A fresh account: returns ($secret, $signup_result).
sub signup {
    my $res = api(POST => '/v1/signup', body => { email => uniq_email() });
    die "signup failed: " . $res->status_line . " " . $res->content unless $res->code == 201;
    return ($res->{json}{apiKey}{secret}, $res->{json});
}

# Controls the test PostgreSQL: pg_ctl('restart'|'stop'|'start').
sub pg_ctl {
    my $cmd = shift;
    my $dir = $ENV{FORMSVC_PGDIR} or die "FORMSVC_PGDIR not set";
    my @args = ($cmd, $dir);
    push @args, $ENV{FORMSVC_PGPORT} if $cmd eq 'start';
    system('bash', "$ENV{FORMSVC_ROOT}/scripts/pg", @args) == 0 or die "pg $cmd failed";
}

1;
