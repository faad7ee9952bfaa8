# The session of a submission ended by the server while its statement
# waits (an outside LOCK TABLE submissions IN SHARE MODE holds it, then
# pg_terminate_backend ends it), against an instance of this test's own:
# - an upload (files and submission in one transaction): the answer is a
#   clean 503 with nothing stored, or 201 with everything stored; never the
#   submission and its event without its files (a session renewed under
#   the transaction ran the statement alone and committed it);
# - submissions stored together (one statement for several): each 201 is
#   stored, each 503 is not, and no 500.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql lock_tables end_lock);
use JSON::PP ();
use MIME::Base64 qw(encode_base64);
use POSIX ();
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};

# waits with FormsvcTest::wait_for; dies when what it waits for does not happen
sub wait_or_die {
    my ($what, $cond, $secs) = @_;
    return FormsvcTest::wait_for($cond, $secs // 20, $what) || die "timed out waiting for $what";
}

my $J = JSON::PP->new->utf8->canonical;
my $app = "fstx$$";
my $inst = FormsvcInstance->start(name => 'txfaults', conf => <<"CONF");
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=postgres connect_timeout=2 application_name=$app"
FormsvcRateLimit submit off
FormsvcRateLimit signup off
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified requests 1000000
FormsvcLogRepeatInterval 0
CONF

my $tok = $inst->api(POST => '/v1/signup', body => { email => sprintf('tx%d.%d@example.com', $$, time) })
    ->{json}{apiKey}{secret};
ok $tok, 'signed up';

sub form {
    my $fields = shift;
    my $r = $inst->api(POST => '/v1/forms', token => $tok, body => { title => 'Tx', fields => $fields });
    die 'form: ' . $r->content unless $r->code == 201;
    my $id = $r->{json}{id};
    $inst->api(POST => "/v1/forms/$id/publish", token => $tok)->code == 200 or die 'publish';
    return $id;
}

# A session of the test that holds submissions IN SHARE MODE until its
# backend is terminated: every INSERT into submissions waits.
sub lock_submissions {
    my $lock = lock_tables('SHARE', 60, 'submissions');
    $lock->{granted} or die 'timed out waiting for the lock';
    return $lock;
}
sub unlock_submissions { end_lock(shift) }
# The instance's sessions that wait for the lock on submissions.
sub waiting {
    return grep { length } split /\n/, psql(
        "SELECT DISTINCT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
      . "WHERE l.relation = 'submissions'::regclass AND NOT l.granted AND a.application_name = '$app'");
}

# Posts in a process of its own; the result (status and body) in a file.
sub post_async {
    my ($path, $body, $file) = @_;
    my $pid = fork // die;
    if (!$pid) {
        my $r = $inst->api(POST => $path, body => $body);
        open my $fh, '>', $file or die; print $fh $r->code, "\n", $r->content; close $fh;
        POSIX::_exit(0);
    }
    return $pid;
}
sub result_of {
    my $file = shift;
    open my $fh, '<', $file or return (0, '');
    my $code = <$fh>; chomp $code;
    local $/; my $body = <$fh> // '';
    unlink $file;
    return ($code, $body);
}

# ---- an upload whose session is ended while its submission waits ----------
{
    my $fid = form([{ key => 'name', type => 'text', label => 'Name' },
                    { key => 'doc', type => 'file', label => 'Doc',
                      validation => { accept => ['application/pdf'] } }]);
    my $PDF = "%PDF-1.4\n" . ('x' x 70000) . "\n%%EOF";
    my $out = "$FindBin::Bin/logs/txfault.$$";
    for my $round (1 .. 2) {
        my $marker = "upload-$$-$round";
        my $locker = lock_submissions();
        my $client = post_async("/f/$fid", $J->encode({ name => $marker,
            doc => { name => 'a.pdf', type => 'application/pdf', data => encode_base64($PDF, '') } }), $out);
        my ($victim) = wait_or_die('the upload waiting on the lock', sub { (waiting())[0] });
        is psql("SELECT pg_terminate_backend($victim, 5000)"), 't', "round $round: the upload's session terminated";
        # the module must not run the submission again on a renewed session:
        # if it does, that statement waits for the lock too; give it the time
        # to get there, then let everything go (a window for a wrong retry to
        # show: a slow machine makes it less sharp, never wrong)
        sleep 0.5;
        unlock_submissions($locker);
        waitpid($client, 0);
        my ($code, $body) = result_of($out);
        my $subs = psql("SELECT count(*) FROM submissions WHERE form_id = '$fid' AND data->>'name' = '$marker'");
        my $events = psql("SELECT count(*) FROM events WHERE payload->>'formId' = '$fid' "
                        . "AND payload->'data'->>'name' = '$marker'");
        my $files = psql("SELECT count(*) FROM submission_files sf JOIN submissions s ON s.id = sf.submission_id "
                       . "WHERE s.form_id = '$fid' AND s.data->>'name' = '$marker'");
        ok $code == 503 || $code == 201, "round $round: 503 or 201 (got $code)" or diag $body;
        if ($code == 201) {
            is "$subs $events $files", '1 1 1', "round $round: 201, and the submission, its event and its file stored";
        } else {
            is "$subs $events $files", '0 0 0', "round $round: $code, and nothing stored (no submission without its file)";
        }
    }
    # the instance still takes uploads
    my $r = $inst->api(POST => "/f/$fid", body => $J->encode({ name => 'after',
        doc => { name => 'b.pdf', type => 'application/pdf', data => encode_base64($PDF, '') } }));
    is $r->code, 201, 'an upload after: 201';
    like $inst->error_log, qr/FS00395: statement \w+: database connection lost inside a transaction/,
        'logged: the transaction failed with its session (FS00395), not renewed under it';
}

# ---- submissions stored together, their session ended mid-statement -------
{
    my $fid = form([{ key => 'name', type => 'text', label => 'Name' }]);
    my $locker = lock_submissions();
    my $n = 12;
    my @kids;
    my $dir = "$FindBin::Bin/logs/txbatch.$$";
    mkdir $dir;
    for my $i (1 .. $n) {
        push @kids, post_async("/f/$fid", $J->encode({ name => "batch-$$-$i" }), "$dir/$i");
    }
    my @victims = wait_or_die('the batch waiting on the lock', sub { my @w = waiting(); @w ? \@w : undef });
    @victims = @{ $victims[0] };
    cmp_ok scalar @victims, '>=', 1, scalar(@victims) . ' session(s) waiting';
    psql("SELECT pg_terminate_backend($_, 5000)") for @victims;
    sleep 0.5;   # as above: a window for a wrong retry to reach the lock
    unlock_submissions($locker);
    waitpid($_, 0) for @kids;
    my (%codes, @wrong);
    for my $i (1 .. $n) {
        my ($code, $body) = result_of("$dir/$i");
        $codes{$code}++;
        my $stored = psql("SELECT count(*) FROM submissions WHERE form_id = '$fid' AND data->>'name' = 'batch-$$-$i'");
        push @wrong, "$i: $code, stored $stored" unless ($code == 201 && $stored == 1) || ($code == 503 && $stored == 0);
    }
    rmdir $dir;
    is_deeply \@wrong, [], 'every 201 stored once, every 503 not stored: ' . join(', ', map { "$_ x $codes{$_}" } sort keys %codes);
    ok !$codes{500}, 'no 500';
}

$inst->stop;
done_testing;
