package FormsvcOAuth;
# Helpers for the OAuth tests: token requests (form-encoded, JSON, HTTP
# Basic), clients, and checks that a token endpoint error is both a problem
# document and an RFC 6749 5.2 error.
use strict;
use warnings;
use Test::More;
use MIME::Base64 ();
use URI::Escape ();
use FormsvcTest;

use Exporter 'import';
our @EXPORT = qw(token form_body basic new_client oauth_error_ok exchange
                 TOKEN_EXCHANGE ACCESS_TOKEN_TYPE);

use constant TOKEN_EXCHANGE => 'urn:ietf:params:oauth:grant-type:token-exchange';
use constant ACCESS_TOKEN_TYPE => 'urn:ietf:params:oauth:token-type:access_token';

# form_body([k => v, ...]): an x-www-form-urlencoded body, keeping order
# and repeats.
sub form_body {
    my @kv = @{ shift() };
    my @out;
    while (my ($k, $v) = splice @kv, 0, 2) {
        push @out, URI::Escape::uri_escape_utf8($k) . '=' . URI::Escape::uri_escape_utf8($v);
    }
    return join '&', @out;
}

sub basic { 'Basic ' . MIME::Base64::encode_base64("$_[0]:$_[1]", '') }

# token([k => v, ...] | RAW STRING, basic => [id, secret], bearer => SECRET,
#       json => HASHREF, headers => {...})
sub token {
    my ($params, %o) = @_;
    my %h = %{ $o{headers} || {} };
    $h{Authorization} = basic(@{ $o{basic} }) if $o{basic};
    my $body;
    if ($o{json}) {
        $body = $o{json};
    } else {
        $body = ref $params ? form_body($params) : $params;
        $h{'Content-Type'} //= 'application/x-www-form-urlencoded';
    }
    return api(POST => '/v1/token', body => $body, headers => \%h,
               (defined $o{bearer} ? (token => $o{bearer}) : ()));
}

# A token exchange with the subject in the Authorization header.
sub exchange {
    my ($bearer, @params) = @_;
    return token([grant_type => TOKEN_EXCHANGE, @params], bearer => $bearer);
}

# new_client(TOKEN, BODY): creates a client; returns (id, secret, json).
sub new_client {
    my ($tok, $body) = @_;
    my $r = api(POST => '/v1/clients', token => $tok, body => $body // {});
    die 'client creation failed: ' . $r->status_line . ' ' . $r->content unless $r->code == 201;
    return ($r->{json}{id}, $r->{json}{secret}, $r->{json});
}

# oauth_error_ok(RES, STATUS, ERROR, NAME[, SLUG]): status, problem+json with the
# slug of the OAuth error, the OAuth members, and no-store headers.
sub oauth_error_ok {
    my ($r, $status, $error, $name, $slug) = @_;
    my $j = $r->{json} || {};
    $slug //= $error =~ tr/_/-/r;
    my $ok = $r->code == $status
        && ($r->header('Content-Type') // '') eq 'application/problem+json'
        && ($j->{error} // '') eq $error
        && length($j->{error_description} // '')
        && ($j->{status} // 0) == $status
        && ($j->{type} // '') eq base_url() . "/problems/$slug"
        && ($r->header('Cache-Control') // '') =~ /no-store/
        && ($r->header('Pragma') // '') eq 'no-cache';
    ok $ok, $name or diag $r->code . ' ' . ($r->content // '');
    return $ok;
}

1;
