# The mail of one large submission is written in bounded memory: an
# anonymous multipart post (six textareas of 10,000 line ends each, about
# 60 KB) to a form with settings.notify (a mail per submission) and
# settings.confirmation (a respondent's copy whose body is 833
# placeholders of one of those answers). Writing those messages used to
# concatenate once per line and once per placeholder, so the child grew
# with the square of the input: about 1 GB for the notification and 3 GB
# for the copy, kept after the job. Now the child's peak and its resident
# size after the job grow by far less than 100 MB, and the copy is cut at
# FS_MAIL_TEXT_MAX (256 KB of text) with a note. One child, so that the
# worker that writes the mail is the process measured.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcMail qw(wait_mail);
use FormsvcTest qw(sql);
use HTTP::Request;
use LWP::UserAgent;

my $inst = FormsvcInstance->start(name => 'mail-memory', conf => <<'CONF');
StartServers 1
ServerLimit 1
MaxRequestWorkers 10
FormsvcRateLimit submit off
CONF
sub api { $inst->api(@_) }

# the child's VmHWM (peak) and VmRSS in KB
sub child_mem {
    my $ppid = do { open my $fh, '<', $inst->root . '/httpd.pid' or die $!; local $/; <$fh> + 0 };
    my @kids;
    for my $st (glob '/proc/[0-9]*/stat') {
        open my $fh, '<', $st or next;
        my $line = <$fh> // next;
        push @kids, $1 if $line =~ /^(\d+) \(.*\) \S (\d+)/ && $2 == $ppid;
    }
    die 'one child expected, found ' . scalar(@kids) unless @kids == 1;
    open my $fh, '<', "/proc/$kids[0]/status" or die $!;
    my %m = map { /^(\w+):\s+(\d+) kB/ ? ($1 => $2) : () } <$fh>;
    return ($m{VmHWM}, $m{VmRSS}, $kids[0]);
}

my $email = sprintf 'owner%d.%d@example.com', $$, time;
my $r = api(POST => '/v1/signup', body => { email => $email });
die 'signup: ' . $r->status_line unless $r->code == 201;
my $tok = $r->{json}{apiKey}{secret};
my $uid = api(GET => '/v1/me', token => $tok)->{json}{user}{id};
sql("UPDATE users SET verified = true WHERE id = '$uid'");
FormsvcTest::wait_for(sub { api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 15, 'verified');

my @fields = ((map { { key => "t$_", type => 'textarea', label => "T$_" } } 1 .. 6),
              { key => 'email', type => 'email', label => 'E-mail' });
my $body = '{{t1}}' x 833;
$r = api(POST => '/v1/forms', token => $tok, body => {
    title => 'Large', fields => \@fields,
    settings => { notify => { emails => [$email] },
                  confirmation => { emailField => 'email', subject => 'Copy {{t2}}', body => $body } } });
is $r->code, 201, 'a form with notify and confirmation' or diag $r->content;
my $fid = $r->{json}{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

sub post_multipart {
    my %v = @_;
    my $B = 'mailmemoryboundary';
    my $b = join '', map { "--$B\r\nContent-Disposition: form-data; name=\"$_\"\r\n\r\n$v{$_}\r\n" }
        sort keys %v;
    $b .= "--$B--\r\n";
    my $req = HTTP::Request->new(POST => $inst->url . "/f/$fid");
    $req->header('Content-Type' => "multipart/form-data; boundary=$B", Accept => 'application/json');
    $req->content($b);
    return (LWP::UserAgent->new(timeout => 60)->request($req), length $b);
}

# a small one first: the worker and its pools are warm before measuring
my $small = sprintf 'small%d.%d@example.org', $$, time;
my ($res) = post_multipart(t1 => "a\nb", email => $small);
is $res->code, 201, 'a small submission' or diag $res->content;
ok wait_mail($small), 'its copy is written';
ok wait_mail($email), 'and the notification';
select undef, undef, undef, 0.5;   # its job's pools freed after the mail is written: not visible, a margin
my ($hwm0, $rss0, $pid) = child_mem();

my $resp = sprintf 'large%d.%d@example.org', $$, time;
my $lines = "\n" x 10000;
my ($big, $len) = post_multipart((map { ("t$_" => $lines) } 1 .. 6), email => $resp);
is $big->code, 201, "the large submission ($len bytes): 201" or diag $big->content;
my $copy = wait_mail($resp);
ok $copy, 'the copy to the respondent is written';
# ok, not like: a failure would print the whole body
ok index($copy->{body} // '', '[... cut here: a mail carries at most 256 KB of text]') >= 0,
    'cut at the cap, with a note';
my $text = ($copy->{body} // '') =~ s/\r\n/\n/gr;
cmp_ok length($text), '<', 262144 + 1000, 'its text is the cap and the lines after it';
cmp_ok length($text), '>', 262144, '... all of it';
my $note = wait_mail($email, 2);
ok $note, 'the notification is written';
ok +($note->{body} // '') =~ /T6:\r\n(  \r\n){100}/, 'with every answer, lines indented';
my $hits = () = ($note->{body} // '') =~ /\r\n  (?=\r\n)/g;
cmp_ok $hits, '>=', 60000, 'all 60,000 lines';
# the job is over once both are written; its pools are gone (not visible:
# a margin of 0.5 s)
select undef, undef, undef, 0.5;
my ($hwm1, $rss1, $pid1) = child_mem();
is $pid1, $pid, 'the same child';
my ($grew, $kept) = (($hwm1 - $hwm0) / 1024, ($rss1 - $rss0) / 1024);
diag sprintf 'child peak +%.1f MB, resident after the job +%.1f MB', $grew, $kept;
cmp_ok $grew, '<', 100, 'the peak grew by less than 100 MB';
cmp_ok $kept, '<', 50, 'less than 50 MB kept after the job';

$inst->stop;
done_testing;
