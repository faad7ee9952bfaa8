# A form that closes by itself says so: form.closed with reason closesAt,
# written by the closings worker within a second of the moment and once
# per cluster (every child of the server looks, and the statement run
# again and concurrently writes nothing more); reason maxSubmissions,
# written by the submission that fills the form as it commits (again after
# a deletion opened it and it filled again; spam fills nothing); reason
# owner for POST /close; none at closesAt for a form already full; and the
# events reach webhooks like the others.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use FormsvcTest::Receiver;
use POSIX ();

my ($tok) = signup();
verify_account($tok);
my $rcv = FormsvcTest::Receiver->start;
my $hook = api(POST => '/v1/webhooks', token => $tok,
               body => { url => $rcv->url('/closed'), events => ['form.closed'] });
is $hook->code, 201, 'a webhook for form.closed' or diag $hook->content;

my $F = [{ key => 'name', type => 'text', label => 'Name' }];
sub closed_events {
    my $fid = shift;
    my $r = api(GET => "/v1/events?formId=$fid&type=form.closed", token => $tok);
    return @{ $r->{json}{data} || [] };
}
sub submit {
    my ($fid, %o) = @_;
    return api(POST => "/f/$fid", body => 'name=Bot&_hp=http%3A%2F%2Fspam.example',
               headers => { 'Content-Type' => 'application/x-www-form-urlencoded' }) if $o{spam};
    return api(POST => "/f/$fid", body => { name => 'x' }, headers => { Accept => 'application/json' });
}

# ---- closesAt: the worker, within a second, once --------------------------
my $at = psql("SELECT fs_ts(now() + interval '2.5 seconds')");
my $f = make_form($tok, { title => 'Timed', fields => $F, settings => { closesAt => $at } });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published, closing in 2.5 s';
is scalar(closed_events($fid)), 0, 'no form.closed before closesAt';
my @ev;
ok wait_for(sub { @ev = closed_events($fid) }, 15, 'form.closed of closesAt'), 'form.closed written';
is scalar(@ev), 1, 'one event';
is $ev[0]{data}{reason}, 'closesAt', 'reason closesAt';
is $ev[0]{data}{id}, $fid, 'data: the form';
is $ev[0]{data}{status}, 'closed', 'status closed';
is $ev[0]{data}{closesAt}, $at, 'closesAt';
is $ev[0]{data}{closedAt}, $at, 'closedAt: the moment';
my $late = psql("SELECT extract(epoch FROM e.created_at - fs_public_closes_at(f.settings)) FROM events e "
              . "JOIN forms f ON f.id = e.form_id WHERE e.id = '$ev[0]{id}'");
cmp_ok $late, '>=', 0, 'not before the moment';
cmp_ok $late, '<', 1 * ($ENV{FORMSVC_WAIT_SCALE} || 1), "within a second of it ($late s)";
is api(GET => "/v1/forms/$fid", token => $tok)->{json}{status}, 'closed', 'the form reads closed';
# once: the statement again, twice at once, and the children's own rounds
my @kids = map { my $p = fork // die; if (!$p) { psql('SELECT fs_form_closings_emit(1000)'); POSIX::_exit(0) } $p } 1 .. 2;
waitpid $_, 0 for @kids;
psql('SELECT fs_form_closings_emit(1000)');
is scalar(closed_events($fid)), 1, 'still one event after repeated and concurrent rounds';
is psql("SELECT count(*) FROM form_closings WHERE form_id = '$fid'"), 1, 'one closing row';

# ---- already full at closesAt: no second event ----------------------------
$at = psql("SELECT fs_ts(now() + interval '2 seconds')");
my $full = make_form($tok, { title => 'Full', fields => $F, settings => { closesAt => $at, maxSubmissions => 1 } });
is api(POST => "/v1/forms/$full->{id}/publish", token => $tok)->code, 200, 'published: max 1, closing in 2 s';
is submit($full->{id})->code, 201, 'the one submission';
ok wait_for(sub { psql("SELECT count(*) FROM form_closings WHERE form_id = '$full->{id}'") == 1 }, 15,
            'the closing handled'), 'closesAt passed and handled';
is_deeply [map { $_->{data}{reason} } closed_events($full->{id})], ['maxSubmissions'],
    'only the maxSubmissions event: it had closed already';
# the workers' rounds since (the second moment needed some) added nothing
is scalar(closed_events($fid)), 1, 'the first form: still one event after later rounds';

# ---- maxSubmissions: the filling submission --------------------------------
my $m = make_form($tok, { title => 'Max', fields => $F, settings => { maxSubmissions => 2 } });
my $mid = $m->{id};
is api(POST => "/v1/forms/$mid/publish", token => $tok)->code, 200, 'published: max 2';
is submit($mid)->code, 201, 'first';
is submit($mid, spam => 1)->code, 303, 'spam (answered as stored)';
is scalar(closed_events($mid)), 0, 'one and spam: not full, no event';
my $second = submit($mid);
is $second->code, 201, 'second fills it';
@ev = closed_events($mid);
is scalar(@ev), 1, 'form.closed at once (written with the submission)';
is $ev[0]{data}{reason}, 'maxSubmissions', 'reason maxSubmissions';
is $ev[0]{data}{submissionCount}, 2, 'submissionCount 2';
is $ev[0]{data}{maxSubmissions}, 2, 'maxSubmissions 2';
is submit($mid)->code, 409, 'third: 409';
is scalar(closed_events($mid)), 1, 'no second event for a refused submission';
is api(DELETE => "/v1/forms/$mid/submissions/$second->{json}{id}", token => $tok)->code, 204,
    'a deletion opens it again';
is submit($mid)->code, 201, 'filled again';
is scalar(closed_events($mid)), 2, 'a second closing, a second event';

# ---- the owner's close -----------------------------------------------------
my $o = make_form($tok, { title => 'Owner', fields => $F });
is api(POST => "/v1/forms/$o->{id}/publish", token => $tok)->code, 200, 'published';
is api(POST => "/v1/forms/$o->{id}/close", token => $tok)->code, 200, 'closed by its owner';
is_deeply [map { $_->{data}{reason} } closed_events($o->{id})], ['owner'], 'reason owner';

# ---- webhooks get them -----------------------------------------------------
my @got = $rcv->wait_received('/closed', 5, 30);
my %reasons;
$reasons{ JSON::PP::decode_json($_->{body})->{data}{reason} }++ for @got;
is_deeply \%reasons, { closesAt => 1, maxSubmissions => 3, owner => 1 }, 'the webhook received every form.closed'
    or diag explain [map { $_->{body} } @got];

# ---- an idle worker is quiet ---------------------------------------------------
# With no closesAt in its coming seconds, a child's round asks the database
# once a second. (A "no next moment" once read as "due now" made every
# child ask again every few milliseconds: hundreds of statements a second
# per child, for ever.) Counted with PostgreSQL's function statistics;
# time itself is the subject here: the calls of four seconds.
{
    psql("ALTER SYSTEM SET track_functions = 'pl'");
    psql('SELECT pg_reload_conf()');
    my $calls = sub { psql("SELECT COALESCE(sum(calls), 0) FROM pg_stat_user_functions "
                         . "WHERE funcname IN ('fs_form_closings_next', 'fs_form_closings_emit')") };
    # the workers' sessions count once they have read the reload and ended a round
    ok wait_for(sub { $calls->() > 0 }, 15, 'the closings rounds counted'), 'the rounds are counted';
    my $c0 = $calls->();
    sleep 4;
    my $rate = ($calls->() - $c0) / 4;
    cmp_ok $rate, '<', 40, sprintf('an idle worker asks about once a second per child (%.1f calls/s)', $rate);
    psql('ALTER SYSTEM RESET track_functions');
    psql('SELECT pg_reload_conf()');
}

done_testing;
