# README.md, "The first five minutes": every command of its sh blocks run
# as a reader types it (bash, curl, python3), in order, against the test
# server. What a reader has to fill in (KEY=svc_live_…, key_…, lnk_…, a
# mailed code) is filled in from the answers before; the account's address
# and the form's slug are made unique to this run. Each command must
# succeed (every curl answer 2xx/3xx unless its "# -> NNN slug" comment
# says otherwise), and the members of the JSON its "# ->" comment shows
# must be in its answer.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcMail;
use File::Temp qw(tempdir);
use JSON::PP ();

my $root = $ENV{FORMSVC_ROOT} or plan skip_all => 'FORMSVC_ROOT not set (run through make test)';
open my $fh, '<', "$root/README.md" or die "README.md: $!";
my $readme = do { local $/; <$fh> };
my ($part) = $readme =~ /^## The first five minutes\n(.*?)^## Documentation/ms;
ok $part, 'README.md has "The first five minutes"' or BAIL_OUT('no section');
my @blocks = $part =~ /^```sh\n(.*?)^```/msg;
cmp_ok scalar @blocks, '>=', 8, scalar(@blocks) . ' sh blocks';

# The commands of a block, each with its "# ->" comment (what it answers)
# and whether it comes after a "(verified accounts" comment.
sub complete { my $c = shift; return 0 if $c =~ /[\\|]\s*$/; system('bash', '-n', '-c', $c) == 0 }
my @cmds;
for my $b (@blocks) {
    my ($cur, $verified) = ('', 0);
    for my $line (split /\n/, $b) {
        if ($cur eq '' && $line =~ /^\s*#/) {
            if ($line =~ /^#\s*->/ || (@cmds && $cmds[-1]{expect} && $line =~ /^#\s{2,}/)) {
                $cmds[-1]{expect} .= "$line\n" if @cmds;
            }
            $verified = 1 if $line =~ /\(verified accounts/;
            next;
        }
        next if $cur eq '' && $line =~ /^\s*$/;
        $cur .= "$line\n";
        open(my $null, '>', '/dev/null'); # bash -n complains on stderr while incomplete
        local *STDERR = $null;
        next unless complete($cur);
        push @cmds, { cmd => $cur, expect => '', verified => $verified };
        $cur = '';
    }
    is $cur, '', 'every command of the block is complete';
}
cmp_ok scalar @cmds, '>=', 30, scalar(@cmds) . ' commands';

my $dir = tempdir(CLEANUP => 1);
# var/mail as make run has it (the test servers write their mail to t/logs/mail)
mkdir "$dir/var";
symlink FormsvcMail::dir(), "$dir/var/mail" or die "symlink: $!";
# each curl writes its status to stderr (curl reads $HOME/.curlrc)
open my $rc, '>', "$dir/.curlrc" or die $!;
print $rc "write-out = \"%{stderr}\\n\@\@status %{http_code}\\n\"\n";
close $rc;

my $email = uniq_email();
my $slug = 'contact-' . lc($email =~ s/\W+/-/gr);
my %env = (BASE => base_url());
my %id; # placeholders: key_… lnk_… whk_… evt_… and the mailed codes
my ($verified, @deferred) = (0);
my $J = JSON::PP->new;

sub run_file {
    my $c = shift;
    my $cmd = $c->{cmd};
    my $show = substr($cmd =~ s/\s+/ /gr, 0, 100);
    return (undef) if $cmd !~ /\bcurl\b|^grep /;
    $cmd =~ s/agent\@example\.com/$email/g;
    $cmd =~ s{("slug": "|/f/)contact\b}{$1$slug}g;
    for my $p (qw(key lnk whk evt)) {
        $cmd =~ s/\b${p}_…/$id{$p} \/\/ "${p}_missing"/ge;
    }
    $cmd =~ s/grt_…/grt_00000000000000000000000000/g; # none yet: 404
    $cmd =~ s/"code":"K7QM4XPA"/"code":"$id{verify}"/ if $id{verify};
    $cmd =~ s/"code":"…"/"code":"$id{recover}"/ if $id{recover};
    my ($var) = $cmd =~ /^(\w+)=\$\(/;
    $cmd .= qq{printf '\\n\@\@var %s\\n' "\$$var"\n} if $var;
    open my $sh, '>', "$dir/cmd.sh" or die $!;
    print $sh $cmd;
    close $sh;
    local %ENV = (%ENV, %env, HOME => $dir);
    my $out = qx{cd '$dir' && bash cmd.sh 2>&1}; # as typed: no pipefail (curl | head)
    return ($out, $? >> 8, $show, $var);
}

sub check {
    my $c = shift;
    my ($out, $exit, $show, $var) = run_file($c);
    return unless defined $out;
    is $exit, 0, "runs: $show" or diag $out;
    my @status = $out =~ /^\@\@status (\d{3})$/mg;
    (my $body = $out) =~ s/^\@\@(?:status|var) .*\n?//mg;
    $body =~ s/\n+$//;
    my ($want, $slugw) = $c->{expect} =~ /->\s*(\d{3})(?:\s+([a-z-]+))?/;
    $want //= 404 if $c->{cmd} =~ /grt_…/;
    if (!@status && $c->{cmd} =~ /^grep /) {
        like $body, qr/\S/, "prints something: $show";
    } elsif ($want && $want >= 400) {
        is $status[-1], $want, "answers $want: $show" or diag $out;
        like $body, qr{"type"\s*:\s*"[^"]*/problems/\Q$slugw\E"}, "the problem $slugw" if $slugw;
    } else {
        ok @status && !grep({ $_ < 200 || $_ >= 400 } @status), "answers 2xx/3xx: $show" or diag $out;
        is $status[-1], $want, "answers $want" if $want;
    }
    for my $m ($c->{expect} =~ /"(\w+)":/g) {
        like $body, qr/"\Q$m\E"\s*:/, "its answer has $m, as the README shows";
    }
    my $doc = eval { $J->decode($body) };
    if ($var) {
        my ($v) = $out =~ /^\@\@var (.*)$/m;
        ok length($v // ''), "$var set" or diag $out;
        $env{$var} = $v;
    }
    return unless ref $doc eq 'HASH';
    # what the next commands fill in
    my $cmd = $c->{cmd};
    if ($doc->{apiKey}{secret}) { $env{KEY} = $doc->{apiKey}{secret} }
    if ($cmd =~ m{/v1/keys -H} && $cmd =~ /-X POST/) { $id{key} = $doc->{id} }
    if ($cmd =~ m{/v1/forms -H} && $cmd =~ /-X POST/) { $env{FORM} = $doc->{id} }
    if ($cmd =~ m{/links -H} && $cmd =~ /-X POST/) { $env{LINK} = $doc->{url}; $id{lnk} = $doc->{id} }
    if ($cmd =~ m{/v1/webhooks -H} && $cmd =~ /-X POST/) { $id{whk} = $doc->{id} }
    if ($cmd =~ m{/v1/clients -H} && $cmd =~ /-X POST/) { @env{qw(CLIENT_ID CLIENT_SECRET)} = @$doc{qw(id secret)} }
    if ($cmd =~ m{/v1/events\?wait} && ref $doc->{data} eq 'ARRAY' && @{ $doc->{data} }) {
        $id{evt} = $doc->{data}[0]{id}; # not the last: after it, the wait would last
    }
    if ($cmd =~ m{/v1/verify/send}) {
        my $m = wait_mail($email);
        ($id{verify}) = ($m && $m->{body} =~ /^    ([A-Z2-9]{8})\r?$/m) or fail 'the verification code mailed';
    }
    if ($cmd =~ m{/v1/recover -H}) {
        my $m = wait_mail($email, 2);
        ($id{recover}) = ($m && $m->{body} =~ /^    ([A-Z2-9]{8})\r?$/m) or fail 'the recovery code mailed';
    }
}

for my $c (@cmds) {
    if ($c->{verified} && !$verified) { push @deferred, $c; next }
    check($c);
    if ($c->{cmd} =~ m{/v1/verify/confirm}) {
        $verified = 1;
        check($_) for splice @deferred;
    }
}
is scalar @deferred, 0, 'the commands for verified accounts ran once verified';

done_testing;
