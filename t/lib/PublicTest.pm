package PublicTest;
# Helpers for the public form tests: forms written straight into the test
# PostgreSQL (the owner API is built elsewhere), raw requests with any body
# and content type, and reading the database back.
use strict;
use warnings;
use Apache::Test;
use Apache::TestRequest ();
use JSON::PP ();
use FormsvcTest;
use Exporter 'import';

our @EXPORT = qw(psql make_form user_id_of req form_url count_subs);

my $json = JSON::PP->new->canonical;

# Under `make test-asan` the sanitizer runtime is preloaded for httpd; the
# tools these tests start (psql, pg_ctl) must not inherit it.
delete $ENV{LD_PRELOAD};

# psql: FormsvcTest's, exported here too.
{ no warnings 'once'; *psql = \&FormsvcTest::psql; }

sub quote { my $s = shift; return 'NULL' unless defined $s; $s =~ s/'/''/g; "'$s'" }

my @B32 = split //, '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
sub new_id {
    my $prefix = shift;
    my $ms = int(Time::HiRes::time() * 1000);
    my $t = '';
    for (1 .. 10) { $t = $B32[$ms % 32] . $t; $ms = int($ms / 32) }
    return $prefix . $t . join '', map { $B32[int rand 32] } 1 .. 16;
}
use Time::HiRes ();

my $user;
sub user_id_of {
    return $user if $user;
    my (undef, $res) = signup();
    return $user = $res->{user}{id};
}

# make_form(fields => [...], settings => {...}, status => 'published',
#           slug => ..., title => ..., description => ..., user => usr_id) → form id
sub make_form {
    my %o = @_;
    my $id = new_id('frm_');
    my $fields = $json->encode($o{fields} // []);
    my $settings = $json->encode($o{settings} // {});
    psql(sprintf "INSERT INTO forms (id, user_id, slug, title, description, status, fields, settings, "
        . "published_at) VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, now())",
        quote($id), quote($o{user} // user_id_of()), quote($o{slug}), quote($o{title} // 'A form'),
        quote($o{description}), quote($o{status} // 'published'), quote($fields), quote($settings));
    return $id;
}

sub form_url { FormsvcTest::BASE . '/f/' . shift }

# req(METHOD, PATH, body => STRING, type => CT, headers => {...}) → response
# with ->{json} decoded when JSON.
sub req {
    my ($method, $path, %o) = @_;
    my $ua = Apache::TestRequest::user_agent(reset => 1, requests_redirectable => 0);
    my $r = HTTP::Request->new($method => Apache::TestRequest::resolve_url($path));
    my %h = %{ $o{headers} || {} };
    $r->header($_ => $h{$_}) for keys %h;
    if (defined $o{body}) {
        $r->header('Content-Type' => $o{type}) if defined $o{type};
        $r->content($o{body});
        $r->header('Content-Length' => length $o{body});
    }
    my $res = $ua->request($r);
    $res->{json} = json_of($res);
    return $res;
}

sub count_subs {
    my ($form, $where) = @_;
    return psql("SELECT count(*) FROM submissions WHERE form_id = " . quote($form)
                . ($where ? " AND $where" : ''));
}

1;
