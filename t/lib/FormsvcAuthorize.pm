package FormsvcAuthorize;
# Playing the person on the OAuth authorize page: a browser with a cookie
# jar that opens the page, signs in with the code mailed to the account
# (read from the test mail sink) or a pasted key, and approves or denies.
# Also a PKCE pair and a dynamic registration.
use strict;
use warnings;
use Apache::TestRequest ();
use Digest::SHA ();
use HTTP::Cookies;
use HTTP::Request::Common ();
use LWP::UserAgent;
use MIME::Base64 ();
use URI;
use FormsvcTest;
use FormsvcMail;

use Exporter 'import';
our @EXPORT = qw(browser pkce register_app authorize_url csrf_of sign_in_by_mail approve
                 query_of verified_account);

sub browser {
    my $ua = LWP::UserAgent->new(cookie_jar => HTTP::Cookies->new, max_redirect => 0);
    $ua->default_header('Accept-Language' => 'en');
    return $ua;
}

sub b64url { MIME::Base64::encode_base64url(shift) }

# (verifier, S256 challenge)
sub pkce {
    my $v = b64url(join '', map { chr int rand 256 } 1 .. 32);
    return ($v, b64url(Digest::SHA::sha256($v)));
}

# register_app(redirect_uris => [...], name => ...): the registration's JSON
sub register_app {
    my %o = @_;
    my $r = api(POST => '/oauth/register',
                body => { redirect_uris => $o{redirect_uris} // ['https://app.example/cb'],
                          client_name => $o{name} // 'Test assistant',
                          token_endpoint_auth_method => 'none' });
    die 'registration failed: ' . $r->status_line . ' ' . $r->content unless $r->code == 201;
    return $r->{json};
}

sub authorize_url {
    my %q = @_;
    my $u = URI->new(Apache::TestRequest::resolve_url(BASE . '/oauth/authorize'));
    $u->query_form(map { $_ => $q{$_} } sort keys %q);
    return $u->as_string;
}

sub csrf_of { $_[0]->decoded_content =~ /name="csrf" value="([^"]+)"/ ? $1 : undef }

# The hidden inputs of the first form of a page, as a list of pairs.
sub hidden_of {
    my $html = shift;
    my @kv;
    my ($form) = $html =~ m{(<form.*?</form>)}s;
    while ($form =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g) {
        my ($k, $v) = ($1, $2);
        $v =~ s/&quot;/"/g; $v =~ s/&#39;/'/g; $v =~ s/&lt;/</g; $v =~ s/&gt;/>/g; $v =~ s/&amp;/&/g;
        push @kv, $k, $v unless $k eq 'step';
    }
    return @kv;
}

sub post_page {
    my ($ua, $page, %fields) = @_;
    my @kv = hidden_of($page->decoded_content);
    return $ua->request(HTTP::Request::Common::POST(
        Apache::TestRequest::resolve_url(BASE . '/oauth/authorize'), [@kv, %fields]));
}

# sign_in_by_mail(UA, PAGE, EMAIL): the e-mail step, the mailed code, the
# code step; returns the consent page.
sub sign_in_by_mail {
    my ($ua, $page, $email) = @_;
    my $before = mail_count_for($email);
    my $r = post_page($ua, $page, step => 'email', email => $email);
    die 'email step: ' . $r->status_line unless $r->code == 200;
    my $m = wait_mail($email, $before + 1) or die "no sign-in mail to $email";
    my ($code) = $m->{body} =~ /^    ([A-Z2-9]{8})\r?$/m or die 'no code in the mail';
    return post_page($ua, $r, step => 'code', code => $code);
}

sub approve { my ($ua, $page, $d) = @_; post_page($ua, $page, step => 'consent', decision => $d // 'approve') }

sub query_of { my %q = URI->new(shift)->query_form; \%q }

# A fresh account whose address is verified: (key, signup json)
sub verified_account {
    my ($key, $su) = signup();
    psql("UPDATE users SET verified = true WHERE id = '$su->{user}{id}'");
    return ($key, $su);
}

1;
