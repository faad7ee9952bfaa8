# Retention bounds unfinished partial answers as it bounds submissions:
# a partial whose answers were last changed longer ago than the form's
# effective retention (settings.retentionDays here) is deleted by the
# retention task, even when its own expiry (partialExpiresDays) is later;
# a recent one, and an old one of a form without retention, stay. The
# clock is moved by setting the rows' times back in the database; the task
# runs every second (t/conf/extra.conf.in's FormsvcRetentionInterval 1)
# and is waited for.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;

my ($tok) = signup();
my $uid = user_of($tok);
sub lit { my $s = shift; $s =~ s/'/''/g; "'$s'" }
my $n = 0;
# a partial answer (t/34_partial.t makes them through the page) last
# changed $age days ago, expiring in 300 days
sub partial {
    my ($fid, $age) = @_;
    my $id = 'sub_' . lc(sprintf '%026d', time * 1000 + $n++) . "p$$";
    psql("INSERT INTO submission_partials (id, form_id, user_id, form_version, data, page, resume_hash, "
         . "created_at, updated_at, expires_at) VALUES (" . lit($id) . ", " . lit($fid) . ", " . lit($uid)
         . ", 1, '{\"email\": \"p\@example.org\"}', 1, md5(random()::text), "
         . "now() - make_interval(days => $age), now() - make_interval(days => $age), now() + interval '300 days')");
    return $id;
}
sub exists_p { psql("SELECT count(*) FROM submission_partials WHERE id = " . lit($_[0])) }

my $kept = make_form($tok, { title => 'Kept 30 days', settings => { retentionDays => 30 },
                             fields => [ { key => 'email', type => 'email', label => 'E-mail' } ] });
my $plain = make_form($tok, { title => 'Kept', fields => [ { key => 'email', type => 'email', label => 'E-mail' } ] });
my $old = partial($kept->{id}, 40);
my $recent = partial($kept->{id}, 10);
my $elsewhere = partial($plain->{id}, 40);
# (the old one may already be gone: the task runs every second; psql dies
# when an insert fails)
is exists_p($recent) + exists_p($elsewhere), 2, 'the partial answers are written';
ok wait_for(sub { !exists_p($old) }, 20, 'the retention task'),
   'a partial last changed 40 days ago, of a form kept 30 days, is deleted (its expiry is later)';
is exists_p($recent), 1, 'one last changed 10 days ago stays';
is exists_p($elsewhere), 1, 'one of a form without retention stays (until its expiry)';

done_testing;
