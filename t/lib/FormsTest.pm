package FormsTest;
# Helpers for the forms, fields and submissions tests: SQL through psql
# against the test database (until the public submission endpoint exists,
# submissions are inserted this way), and small builders.
use strict;
use warnings;
use FormsvcTest;
use Exporter 'import';

our @EXPORT = qw(psql insert_submission make_form user_of verify_account problem_ok
                 fresh_id uni);

# A JSON string from a response as characters, whichever way it was decoded.
sub uni {
    my $s = shift;
    return $s if !defined $s || $s =~ /[^\x00-\xff]/;
    my $c = $s;
    utf8::downgrade($c);
    utf8::decode($c);
    return $c;
}

# psql: FormsvcTest's, exported here too.
{ no warnings 'once'; *psql = \&FormsvcTest::psql; }

sub sqlq { my $s = shift; $s =~ s/'/''/g; "'$s'" }

# A well-formed id that exists nowhere.
sub fresh_id { my $p = shift; $p . '01' . join('', map { ('A'..'H','J','K','M','N','P'..'T','V'..'Z',0..9)[rand 32] } 1..24) }

my $subn = 0;
# insert_submission($form_id, \%data, spam => 0|1, created => 'timestamp')
sub insert_submission {
    my ($form, $data, %o) = @_;
    my $json = JSON::PP->new->utf8->canonical->encode($data);
    my $id = sprintf 'sub_%010d%016d', time % 1e10, ++$subn + $$ * 1000;
    $id =~ tr/0-9/0-9/;
    my $spam = $o{spam} ? 'true' : 'false';
    my $created = $o{created} ? sqlq($o{created}) : 'clock_timestamp()';
    psql("INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) "
       . "SELECT " . sqlq($id) . ", f.id, f.user_id, f.version, " . sqlq($json) . "::jsonb, $spam, $created "
       . "FROM forms f WHERE f.id = " . sqlq($form) . ";"
       . ($o{spam} ? '' : "INSERT INTO form_counts (form_id, shard, n) VALUES (" . sqlq($form) . ", 0, 1) "
                        . "ON CONFLICT (form_id, shard) DO UPDATE SET n = form_counts.n + 1"));
    return $id;
}

sub user_of { my $token = shift; api(GET => '/v1/me', token => $token)->{json}{user}{id} }

sub verify_account {
    my $token = shift;
    my $uid = user_of($token);
    psql("UPDATE users SET verified = true WHERE id = " . sqlq($uid));
}

# make_form($token, {title => ...}) -> form json
sub make_form {
    my ($token, $body) = @_;
    my $r = api(POST => "/v1/forms", token => $token, body => JSON::PP->new->utf8->encode($body));
    die 'make_form: ' . $r->status_line . ' ' . $r->content unless $r->code == 201;
    return $r->{json};
}

# problem_ok($res, $status, $slug, $name): checks status, media type and slug.
sub problem_ok {
    my ($r, $status, $slug, $name) = @_;
    my $ok = $r->code == $status
        && ($r->header('Content-Type') // '') eq 'application/problem+json'
        && ($r->{json}{type} // '') =~ m{/problems/\Q$slug\E$};
    Test::More::ok($ok, $name) or Test::More::diag($r->code . ' ' . ($r->content // ''));
    return $ok;
}

1;
