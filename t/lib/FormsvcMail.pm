package FormsvcMail;
# Reading the mail the service sends: the test servers use the file
# transport (FormsvcMailTransport file t/logs/mail), one .eml per message.
use strict;
use warnings;
use FindBin;
use Exporter 'import';
use FormsvcTest ();

our @EXPORT = qw(mail_for mail_count_for wait_mail psql);
our @EXPORT_OK = qw(settle);

sub dir { "$FindBin::Bin/logs/mail" }

sub decode_qp {
    my $s = shift;
    $s =~ s/=\r?\n//g;
    $s =~ s/=([0-9A-F]{2})/chr hex $1/ge;
    return $s;
}

# Every message to $to: list of { raw, headers => {lc name => value}, body }.
sub mail_for {
    my $to = shift;
    my @out;
    opendir my $dh, dir() or return ();
    for my $f (sort grep { /\.eml$/ } readdir $dh) {
        open my $fh, '<:raw', dir() . "/$f" or next;
        my $raw = do { local $/; <$fh> };
        my ($head, $body) = split /\r\n\r\n/, $raw, 2;
        my %h;
        for (split /\r\n(?![ \t])/, $head) { my ($k, $v) = split /:\s*/, $_, 2; $h{lc $k} = $v }
        next unless ($h{to} // '') eq $to;
        push @out, { raw => $raw, headers => \%h, body => decode_qp($body), file => $f };
    }
    return @out;
}

sub mail_count_for { scalar(my @m = mail_for(shift)) }

# Waits (up to 30 s) until $n messages to $to exist; returns the newest
# (outbox ids, the file names, are time-ordered).
sub wait_mail {
    my ($to, $n) = @_;
    $n //= 1;
    my @m;
    FormsvcTest::wait_for(sub { @m = mail_for($to); @m >= $n }, 30, "$n message(s) to $to")
        or return undef;
    return (sort { $a->{file} cmp $b->{file} } @m)[-1];
}

# settle(FORM_ID, SINCE): waits (up to 30 s) until the form's mail jobs
# are done and the outbox is delivered (fs_mail_done turns jobs into
# outbox rows in one transaction; a row is marked sent once its file is
# written). Only rows made since SINCE (a time from the database, e.g.
# psql('SELECT now()') at the test's start) are waited for: another test's
# instance that stopped while its worker held a lease leaves rows that go
# out only when the lease lapses (5 minutes), and they are not this test's
# business.
sub settle {
    my ($fid, $since) = @_;
    FormsvcTest::wait_for(sub {
        FormsvcTest::psql("SELECT count(*) FROM mail_jobs WHERE form_id = '$fid'") == 0
            && FormsvcTest::psql("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL "
                                 . "AND created_at >= '$since'") == 0;
    }, 30, "the mail of form $fid to be delivered");
}

# psql: FormsvcTest's, exported here too.
{ no warnings 'once'; *psql = \&FormsvcTest::psql; }

1;
