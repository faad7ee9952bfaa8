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
# - an hourly digest listing an erased submission, waiting or sent, goes;
#   a waiting one is written again for the others it listed, without it;
#   a digest written while the deletion was under way is not queued;
# - an ask mailed to the address: its answer goes (the ask's form has no
#   email field), the ask forgets the address.
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
    wait_for(sub { api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 15, 'verified');
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

# ---- an hourly digest --------------------------------------------------------------
# (the account's own address is a confirmed recipient; the hour is ended by
# moving the jobs an hour back, as time would)
{
    my ($dt) = signup();
    verify_account($dt);
    wait_for(sub { api(GET => '/v1/me', token => $dt)->{json}{quota}{tier} eq 'verified' }, 15, 'verified');
    my $own = api(GET => '/v1/me', token => $dt)->{json}{user}{email};
    my $f = make_form($dt, { title => 'Digest', fields => [
        { key => 'name', type => 'text', label => 'Name' },
        { key => 'email', type => 'email', label => 'E-mail' } ],
        settings => { notify => { emails => [ $own ], mode => 'hourly' } } });
    api(POST => "/v1/forms/$f->{id}/publish", token => $dt)->code == 200 or die 'publish';
    my ($dx, $dy) = map { "dg$_.$tag\@example.org" } qw(x y);
    my $post = sub {
        my ($name, $email) = @_;
        my $r = api(POST => "/f/$f->{id}", body => $J->encode({ name => $name, email => $email }),
                    headers => { Accept => 'application/json' });
        $r->code == 201 or die 'submit: ' . $r->content;
        return $r->{json}{id};
    };
    my $sx = $post->("Xavier$$", $dx);
    my $sy = $post->("Yolanda$$", $dy);
    my $jobs = sub { psql("SELECT count(*) FROM mail_jobs WHERE form_id = '$f->{id}' AND kind = 'digest'") };
    my $digests = sub { psql("SELECT count(*) FROM outbox WHERE form_id = '$f->{id}' AND message LIKE '%in the last hour%'") };
    is $jobs->(), 2, 'two submissions wait for the digest';
    psql("UPDATE mail_jobs SET created_at = created_at - interval '1 hour' WHERE form_id = '$f->{id}'");
    ok wait_for(sub { $digests->() == 1 }, 20, 'the digest written'), 'the digest is in the outbox';
    # it waits for a retry, as after a refused attempt
    psql("UPDATE outbox SET sent_at = NULL, attempts = 1, next_attempt_at = now() + interval '1 hour' "
         . "WHERE form_id = '$f->{id}'");
    like psql("SELECT message FROM outbox WHERE form_id = '$f->{id}'"), qr/Xavier$$/, 'it carries x\'s answers';
    is_deeply [ sort split /,/, psql("SELECT array_to_string(submission_ids, ',') FROM outbox WHERE form_id = '$f->{id}'") ],
        [ sort $sx, $sy ], 'and names the two submissions it lists';
    my $r = api(POST => '/v1/erasures', token => $dt, body => { email => $dx });
    is $r->{json}{deleted}, 1, 'x erased';
    is $digests->(), 0, 'the waiting digest with x\'s answers is gone';
    is psql("SELECT string_agg(submission_id, ',') FROM mail_jobs WHERE form_id = '$f->{id}' AND kind = 'digest'"),
        $sy, 'y waits for the next digest, x does not';
    psql("UPDATE mail_jobs SET created_at = created_at - interval '1 hour' WHERE form_id = '$f->{id}'");
    ok wait_for(sub { $digests->() == 1 }, 20, 'the digest written again'), 'the digest is written again';
    my $m = psql("SELECT message FROM outbox WHERE form_id = '$f->{id}'");
    like $m, qr/Yolanda$$/, 'with y\'s answers';
    unlike $m, qr/Xavier$$/, 'without x\'s';
    like $m, qr/^Subject: 1 new submission: /m, 'one submission';
    ok wait_for(sub { psql("SELECT count(*) FROM outbox WHERE form_id = '$f->{id}' AND sent_at IS NOT NULL") == 1 }, 20,
                'the digest sent'), 'it is sent';
    $r = api(POST => '/v1/erasures', token => $dt, body => { email => $dy });
    is $r->{json}{deleted}, 1, 'y erased';
    is $digests->(), 0, 'the sent digest kept in the outbox goes too';
    is $jobs->(), 0, 'and nothing is queued again for a sent one';

    # a digest written while the deletion of a submission it lists is under
    # way (the deletion in the same transaction stands for one committed an
    # instant before the digest is queued): not queued, the job left
    # claimed again
    my $sz = $post->("Zoe$$", "dgz.$tag\@example.org");
    $post->("Walt$$", "dgw.$tag\@example.org");
    my $uid = psql("SELECT user_id FROM forms WHERE id = '$f->{id}'");
    # the two jobs claimed, as the mail worker's claim leases them
    my $claimed = psql("WITH c AS (UPDATE mail_jobs SET leased_until = now() + interval '1 hour' "
                       . "WHERE form_id = '$f->{id}' RETURNING id) SELECT jsonb_agg(id) FROM c");
    is scalar(() = $claimed =~ /\d+/g), 2, 'a digest of two claimed';
    my $out = psql("BEGIN; DELETE FROM submissions WHERE id = '$sz'; "
        . "SELECT queued || '/' || dropped FROM fs_mail_done('$claimed', '$uid', "
        . sqlq($J->encode([ { id => "msg_$tag.z", to => $own, mailbox => lc $own, kind => 'notify',
                              message => "Subject: 1 new submission\r\n\r\nZoe$$", submissionIds => [ $sz ] } ]))
        . ", 100, 100, 100); "
        . "SELECT count(*) FROM mail_jobs WHERE form_id = '$f->{id}' AND leased_until = '-infinity'; "
        . "SELECT count(*) FROM outbox WHERE id = 'msg_$tag.z'; ROLLBACK;");
    is $out, "0/0\n1\n0", 'nothing queued, the job left given back to be claimed again';
}

# ---- an ask put to a person -------------------------------------------------------
{
    my ($at) = signup();
    verify_account($at);
    wait_for(sub { api(GET => '/v1/me', token => $at)->{json}{quota}{tier} eq 'verified' }, 15, 'verified');
    my $p = "erask.$tag\@example.org";
    my $ask = api(POST => '/v1/asks', token => $at, body => { to => $p, message => 'Approve?',
        schema => { type => 'object', properties => { decision => { enum => ['yes', 'no'] } } } });
    is $ask->code, 201, 'an ask mailed to a person' or diag $ask->content;
    my $a = $ask->{json};
    my ($l) = $a->{url} =~ /l=(\S+)$/;
    my $r = api(POST => "/f/$a->{formId}?l=$l", body => $J->encode({ decision => 'yes' }),
                headers => { Accept => 'application/json' });
    is $r->code, 201, 'the person answers' or diag $r->content;
    ok wait_for(sub { api(GET => "/v1/asks/$a->{id}", token => $at)->{json}{status} eq 'answered' }, 10,
                'answered'), 'the ask is answered';
    is psql("SELECT count(*) FROM notify_recipients WHERE lower(email) = " . sqlq(lc $p)), 1,
       'the ask\'s form lists the address';
    $r = api(POST => '/v1/erasures', token => $at, body => { email => uc $p });
    is $r->code, 200, 'erasure of the asked address: 200' or diag $r->content;
    is $r->{json}{deleted}, 1, 'the answer goes, though the ask\'s form has no email field';
    my $g = api(GET => "/v1/asks/$a->{id}", token => $at)->{json};
    is $g->{to}, undef, 'the ask forgets the address';
    is $g->{answer}, undef, 'and has no answer left';
    is psql("SELECT count(*) FROM notify_recipients WHERE lower(email) = " . sqlq(lc $p)), 0,
       'nor does its form';
    is psql("SELECT count(*) FROM asks WHERE lower(recipient) = " . sqlq(lc $p)), 0, 'no ask holds it';
}

done_testing;
