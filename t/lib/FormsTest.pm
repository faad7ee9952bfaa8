package FormsTest;
# Helpers for the forms, fields and submissions tests: SQL through psql
# against the test database (until the public submission endpoint exists,
# submissions are inserted this way), and small builders.
use strict;
use warnings;
use FormsvcTest;
use Time::HiRes ();
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

# A well-formed id that exists nowhere; as the module's ids, it begins
# with the time it was made (submissions, files and events are partitioned
# by that time, sql/0046: an id from decades ahead has no partition).
sub fresh_id {
    my $p = shift;
    my @d = split //, '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    my $ms = int(Time::HiRes::time() * 1000);
    $p . join('', map { $d[($ms >> (45 - 5 * $_)) & 31] } 0 .. 9) . join('', map { $d[rand 32] } 1 .. 16);
}

my $subn = 0;
# insert_submission($form_id, \%data, spam => 0|1, created => 'timestamp')
sub insert_submission {
    my ($form, $data, %o) = @_;
    my $json = JSON::PP->new->utf8->canonical->encode($data);
    # an id as the module makes them: the time part is the row's creation
    # time (sql/0044: list windows are id ranges too)
    my $seq = sprintf '%016d', ++$subn + $$ * 1000;
    my $spam = $o{spam} ? 'true' : 'false';
    my $created = $o{created} ? sqlq($o{created}) . '::timestamptz' : 'clock_timestamp()';
    return psql(($o{spam} ? '' : "INSERT INTO form_counts (form_id, shard, n) VALUES (" . sqlq($form) . ", 0, 1) "
                        . "ON CONFLICT (form_id, shard) DO UPDATE SET n = form_counts.n + 1;")
       . "INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) "
       . "SELECT 'sub_' || fs_id_time(c.t) || '$seq', f.id, f.user_id, f.version, " . sqlq($json) . "::jsonb, $spam, c.t "
       . "FROM forms f, (SELECT $created AS t) c WHERE f.id = " . sqlq($form) . " RETURNING id");
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
