# The mail an account's forms queued for others follows the erasures.
# A respondent's copy (settings.confirmation, with the private edit link of
# settings.allowEdits) and a resume URL mailed to a respondent
# (settings.partial) wait in the outbox until sent, hours when the SMTP
# server refuses (retries back off), and a sent message is kept 7 days:
# - POST /v1/erasures {"email"}: every message of the account's forms to
#   that address, waiting or sent, goes at once; mail to other addresses,
#   and another account's mail to the same address, stay;
# - DELETE /v1/me: every message the account's forms and asks queued,
#   waiting or sent, goes in the 202's transaction (none leaves after it);
# - a submission deleted: the mail about it goes with it; a form deleted:
#   its mail (a resume URL, an ask) goes with it.
# The waiting state is made by moving a message's next attempt an hour on,
# as a failed attempt does; the resume mail is queued by the function the
# page calls (fs_partial_mail), as t/34_partial.t's page steps do.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use JSON::PP ();

my $J = JSON::PP->new->utf8->canonical;
sub sqlq { my $s = shift; $s =~ s/'/''/g; "'$s'" }
my $tag = "$$." . time;
my ($x, $y, $z) = map { "er$_.$tag\@example.org" } qw(x y z);

sub account {
    my ($mark) = @_;
    my ($tok) = signup();
    verify_account($tok);
    wait_for(sub { api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 5, 'verified');
    my $f = make_form($tok, { title => 'Mail', fields => [
        { key => 'name', type => 'text', label => 'Name' },
        { key => 'email', type => 'email', label => 'E-mail' } ],
        settings => { allowEdits => { untilHours => 24 },
                      confirmation => { emailField => 'email', subject => 'Thanks {{name}}',
                                        body => "You said {{name}} to $mark." } } });
    api(POST => "/v1/forms/$f->{id}/publish", token => $tok)->code == 200 or die 'publish';
    return ($tok, $f->{id});
}
sub submit {
    my ($fid, $email) = @_;
    my $r = api(POST => "/f/$fid", body => $J->encode({ name => 'N', email => $email }),
                headers => { Accept => 'application/json' });
    $r->code == 201 or die 'submit: ' . $r->content;
    return $r->{json}{id};
}
sub to { my ($addr) = @_; psql("SELECT count(*) FROM outbox WHERE lower(recipient) = " . sqlq(lc $addr)) }
# a message to the address held back as after a refused attempt
sub hold {
    my ($addr) = @_;
    psql("UPDATE outbox SET sent_at = NULL, attempts = 1, next_attempt_at = now() + interval '1 hour' "
         . "WHERE lower(recipient) = " . sqlq(lc $addr));
}
sub resume_mail {
    my ($fid, $addr) = @_;
    my $id = 'msg_' . $tag . '_' . int(rand 1e9);
    my $o = psql("SELECT fs_partial_mail(" . join(', ', map { sqlq($_) } $fid, $addr, lc $addr, $id,
                 "To: $addr\r\nSubject: resume\r\n\r\nhttps://forms.example/f/$fid?resume=secret\r\n")
                 . ", 100, 100, 100); "
                 # held in the same transaction: the mail worker never sees it
                 . "UPDATE outbox SET attempts = 1, next_attempt_at = now() + interval '1 hour' WHERE id = " . sqlq($id));
    is $o, 'queued', "a resume URL mailed to $addr is queued";
}

my ($tok, $fid) = account("ours$$");
my ($otok, $ofid) = account("theirs$$");
submit($fid, $x);
submit($fid, $y);
submit($ofid, $x);
ok wait_for(sub { to($x) == 2 && to($y) == 1 }, 20, 'the copies queued'),
   'the respondents\' copies are in the outbox';
# the copy to x of our form waits for a retry; a resume URL to x waits too
psql("UPDATE outbox SET sent_at = NULL, attempts = 1, next_attempt_at = now() + interval '1 hour' "
     . "WHERE lower(recipient) = " . sqlq(lc $x) . " AND message LIKE '%ours$$%'");
resume_mail($fid, $x);
is to($x), 3, 'three messages to x: our copy and resume URL, the other account\'s copy';

# ---- POST /v1/erasures -------------------------------------------------------------
my $r = api(POST => '/v1/erasures', token => $tok, body => { email => uc $x });
is $r->code, 200, 'erasure: 200' or diag $r->content;
is $r->{json}{deleted}, 1, 'one submission erased';
is to($x), 1, 'the mail of our forms to x is gone, waiting or sent; the other account\'s stays';
is psql("SELECT count(*) FROM outbox WHERE lower(recipient) = " . sqlq(lc $x) . " AND message LIKE '%theirs$$%'"), 1,
   'what stays is the other account\'s copy';
is to($y), 1, 'the copy to another address stays';

# ---- DELETE /v1/me -----------------------------------------------------------------
hold($y);
resume_mail($fid, $z);
# an agent's question mailed to a person (POST /v1/asks with to)
my $q = "erq.$tag\@example.org";
my $ask = api(POST => '/v1/asks', token => $tok, body => { to => $q, message => 'Approve?',
    schema => { type => 'object', properties => { ok => { enum => ['yes', 'no'] } } } });
is $ask->code, 201, 'an ask mailed to a person' or diag $ask->content;
is to($q), 1, 'its mail is in the outbox';
hold($q);
my $email = api(GET => '/v1/me', token => $tok)->{json}{user}{email};
$r = api(DELETE => '/v1/me', token => $tok, body => { confirm => $email });
is $r->code, 202, 'account erasure: 202' or diag $r->content;
is to($y), 0, 'the waiting copy to a respondent went with the 202';
is to($z), 0, 'the waiting resume URL went with the 202';
is to($q), 0, 'the waiting ask went with the 202';
is to($x), 1, 'the other account\'s mail stays';

# ---- a submission deleted --------------------------------------------------------
# (the owner's delete here; bulk deletes, retention and erasures delete
# the same rows)
my $w = "erw.$tag\@example.org";
my $sid = submit($ofid, $w);
ok wait_for(sub { to($w) == 1 }, 20, 'the copy queued'), 'a copy to w is in the outbox';
hold($w);
is api(DELETE => "/v1/forms/$ofid/submissions/$sid", token => $otok)->code, 204, 'the owner deletes it';
is to($w), 0, 'the copy waiting for a retry is gone with it';

# ---- a form deleted --------------------------------------------------------------
# (its resume URL mailed, waiting: not sent for a form that is gone)
my $v = "erv.$tag\@example.org";
resume_mail($ofid, $v);
is to($v), 1, 'a resume URL of the form waits';
is api(DELETE => "/v1/forms/$ofid", token => $otok)->code, 204, 'the owner deletes the form';
is to($v), 0, 'the waiting resume URL is gone with it';

done_testing;
