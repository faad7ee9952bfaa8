# What a 503 means when PostgreSQL stops answering: the sessions of an
# instance of this test's own are frozen (SIGSTOP, every one of them as it
# appears) for longer than FormsvcDBTimeout while submissions are in
# flight, then resumed. A statement that did not answer in time had its
# commit held back, so PostgreSQL rolls it back when it resumes: every
# submission answered 503 is NOT stored, every 201 is stored, and nothing
# else is answered (a commit that was sent is awaited well past the
# freeze: 504 outcome-unknown only past that).
#
# A session is kept stopped only when it was stopped idle (pg_stat_activity
# still shows the state it had then): it has committed all it had, and the
# next statement sent to it gets no answer. One stopped amid a statement or
# its commit is resumed at once and caught idle at a later scan: a batch
# leader held in its commit wait would keep its whole child (submissions
# are batched per child) from sending anything to a frozen session, and
# with every child held so the freeze proved nothing (all 201). The freeze
# lasts until a submission's statement was cut before its commit (its
# FS00316), at least 5 s, at most 60.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql wait_for);
use JSON::PP ();
use LWP::UserAgent;
use POSIX ();
use Time::HiRes qw(time sleep);

delete $ENV{LD_PRELOAD};


my $J = JSON::PP->new->utf8->canonical;
my $app = "fsfz$$";
my $inst = FormsvcInstance->start(name => 'frozen96', conf => <<"CONF");
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=formsvc user=postgres connect_timeout=2 application_name=$app"
DBDKeep 4
FormsvcDBTimeout 2
FormsvcRateLimit submit off
FormsvcRateLimit signup off
FormsvcQuota unverified submissions 100000
FormsvcQuota unverified requests 1000000
FormsvcLogRepeatInterval 0
CONF

my $tok = $inst->api(POST => '/v1/signup', body => { email => sprintf('fz%d.%d@example.com', $$, time) })
    ->{json}{apiKey}{secret};
my $r = $inst->api(POST => '/v1/forms', token => $tok,
                   body => { title => 'Frozen', fields => [{ key => 'name', type => 'text', label => 'Name' }] });
my $fid = $r->{json}{id};
is $inst->api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'a form published';

# Submitters: each posts one submission after another, each with a name
# of its own, and writes "name status" per answer.
my $dir = "$FindBin::Bin/logs/frozen96.$$";
mkdir $dir;
my $stop = "$dir/stop";
my $n = 16;
my @kids;
for my $k (1 .. $n) {
    my $pid = fork // die;
    if (!$pid) {
        my $ua = LWP::UserAgent->new(timeout => 90);
        open my $out, '>', "$dir/$k" or die;
        $out->autoflush(1);
        for (my $i = 1; !-e $stop; $i++) {
            my $name = "fz-$k-$i";
            my $res = $ua->post($inst->url . "/f/$fid", 'Content-Type' => 'application/json',
                                Content => $J->encode({ name => $name }));
            my $type = ($res->header('Content-Type') // '') =~ /json/
                ? (eval { $J->decode($res->content)->{type} } // '') : '';
            print $out "$name ", $res->code, " $type\n";
        }
        close $out;
        POSIX::_exit(0);
    }
    push @kids, $pid;
}
my %frozen;
END { kill 'CONT', keys %frozen if %frozen } # never leave a session stopped
# a scan that hangs (a session stopped holding what psql needs) must not
# leave the sessions stopped either
$SIG{ALRM} = sub { kill 'CONT', keys %frozen; die "timed out with sessions frozen\n" };
alarm 240;
my $before = 0;
wait_for(sub { ($before = psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'")) >= 50 }, 60,
         '50 submissions stored');
cmp_ok $before, '>=', 50, 'submissions are being stored';

# Freeze every session of the instance, the new ones too, each as it is
# seen idle (FormsvcDBTimeout is 2): for at least 5 s and until a commit
# was cut (this loop acts every 20 ms; it does not only wait).
my $cut = qr/FS00316: statement fs_public_submit\w*: no answer from the database within 2000 ms; connection dropped before its commit \(not stored\)/;
my $tf = time;
my $retried = 0;
until ((time - $tf > 5 && $inst->error_log =~ $cut) || time - $tf > 60) {
    my @stopped = grep { $_ && !$frozen{$_} && kill 'STOP', $_ }
        split /\n/, psql("SELECT pid FROM pg_stat_activity WHERE application_name = '$app'");
    if (@stopped) {
        my %idle = map { $_ => 1 } split /\n/,
            psql('SELECT pid FROM pg_stat_activity WHERE state = \'idle\' AND pid IN (' . join(',', @stopped) . ')');
        for my $pid (@stopped) {
            if ($idle{$pid}) { $frozen{$pid} = 1 } else { kill 'CONT', $pid; $retried++ }
        }
    }
    sleep 0.02;
}
my $held = time - $tf;
kill 'CONT', keys %frozen;
cmp_ok scalar(keys %frozen), '>', 0, sprintf('%d sessions frozen (%d caught busy, let go and caught again) for %.1f s, then resumed',
                                             scalar(keys %frozen), $retried, $held);
# the submissions go on with the database back (one more stored), then stop
my $at_resume = psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'");
wait_for(sub { psql("SELECT count(*) FROM submissions WHERE form_id = '$fid'") > $at_resume }, 30,
         'a submission stored after the resume');
open my $sf, '>', $stop or die; close $sf;
waitpid($_, 0) for @kids;

# every session frozen mid-statement has run it by now and ended (its
# client had shut the connection), or is idle again
my $busy;
my $list = join ',', keys %frozen;
wait_for(sub { !($busy = psql("SELECT count(*) FROM pg_stat_activity WHERE pid IN ($list) AND state <> 'idle'")) },
         30, 'the frozen sessions to finish');
is $busy, 0, 'the frozen sessions have finished';

my %stored = map { $_ => 1 } split /\n/,
    psql("SELECT data->>'name' FROM submissions WHERE form_id = '$fid'");
my (%codes, @wrong);
for my $k (1 .. $n) {
    # a submitter that wrote nothing died: that is wrong too
    open my $in, '<', "$dir/$k" or do { push @wrong, "submitter $k: no report"; next };
    while (<$in>) {
        my ($name, $code, $type) = split ' ';
        $type //= '';
        $codes{$code}++;
        my $s = $stored{$name} ? 'stored' : 'not stored';
        push @wrong, "$name: $code $type, $s"
            unless ($code == 201 && $stored{$name}) || ($code == 503 && !$stored{$name});
    }
    close $in;
    unlink "$dir/$k";
}
unlink $stop;
rmdir $dir;
my $summary = join ', ', map { "$_ x $codes{$_}" } sort keys %codes;
ok $codes{503}, "some submissions were refused while the database was frozen ($summary)";
ok $codes{201}, 'and the others stored';
is_deeply \@wrong, [], 'every 201 is stored and every 503 is not (nothing else answered)'
    or diag explain [ @wrong[0 .. ($#wrong < 9 ? $#wrong : 9)] ];
like $inst->error_log, $cut, 'logged: no answer before the commit, not stored (FS00316)';

# An upload opens a transaction of its own (BEGIN, the file's chunks, the
# submission, COMMIT), and what comes before its BEGIN (the check that the
# session has every statement prepared) is bounded by FormsvcDBTimeout as
# every statement is: with every session frozen idle, an upload is a 503
# within a few times the limit, not a thread held for as long as the
# database stays silent, and it stores nothing.
$r = $inst->api(POST => '/v1/forms', token => $tok,
                body => { title => 'Frozen files', fields => [{ key => 'doc', type => 'file', label => 'Doc' }] });
my $ffid = $r->{json}{id};
is $inst->api(POST => "/v1/forms/$ffid/publish", token => $tok)->code, 200, 'a form with a file field published';
my $upload = sub {
    my $ua = LWP::UserAgent->new(timeout => 40);
    return $ua->post($inst->url . "/f/$ffid", Accept => 'application/json', 'Content-Type' => 'form-data',
                     Content => [doc => [undef, 'frozen.txt', 'Content-Type' => 'text/plain', Content => 'x' x 1000]]);
};
is $upload->()->code, 201, 'an upload before the freeze: 201';
# The freeze: the postmaster first (no new session can start: a child
# without an idle pooled session fails to connect within connect_timeout),
# then every session of the instance, listed just before; backends that
# started in between (children of the postmaster not there before the
# list) are frozen too. psql cannot connect until it is all resumed.
my $pgdata = psql('SHOW data_directory');
open my $pmf, '<', "$pgdata/postmaster.pid" or die "$pgdata/postmaster.pid: $!";
chomp(my $pm = <$pmf>);
close $pmf;
my $backends = sub { my %b; for (glob '/proc/[0-9]*/stat') { open my $fh, '<', $_ or next; my @f = split ' ', scalar <$fh>; $b{$f[0]} = 1 if $f[3] == $pm } \%b };
my $was = $backends->();
my @app = grep { $_ } split /\n/, psql("SELECT pid FROM pg_stat_activity WHERE application_name = '$app'");
%frozen = ($pm => 1);
kill 'STOP', $pm;
my $now = $backends->();
$frozen{$_} = 1 for grep { kill 'STOP', $_ } @app, grep { !$was->{$_} } keys %$now;
my $t0 = time;
my $res = $upload->();
my $took = time - $t0;
kill 'CONT', keys %frozen;
diag sprintf 'froze the postmaster and %d sessions', scalar(keys %frozen) - 1;
is $res->code, 503, sprintf('an upload while the database is frozen: 503 after %.1f s', $took)
    or diag $res->status_line, ' ', substr($res->decoded_content // '', 0, 300);
cmp_ok $took, '<', 30, 'within a few times FormsvcDBTimeout (2 s), not as long as the freeze';
is psql("SELECT count(*) FROM submissions WHERE form_id = '$ffid'"), 1, 'nothing of it stored';
wait_for(sub { $upload->()->code == 201 }, 30, 'uploads stored again after the resume');
is psql("SELECT count(*) FROM submissions WHERE form_id = '$ffid'"), 2, 'the next upload stored once';

alarm 0;
$inst->stop;
done_testing;
