# The respondent's copy: settings.confirmation mails the
# address of the form's email field a plain-text copy after a stored
# submission, {{key}} replaced by the answers and never interpreted. Only
# verified accounts; each copy counts against the account's daily
# notifications quota, and one address receives at most
# FormsvcConfirmationMailsPerAddress (3 in the suite) a day from all forms
# together, exactly, under parallel submissions to two accounts' forms;
# tagged variants of an address (x+1@, x+2@, ...) count as one mailbox.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcMail qw(mail_for mail_count_for wait_mail settle);
use FormsTest qw(verify_account problem_ok);
use POSIX ();

sub fresh_verified {
    my ($tok) = signup();
    verify_account($tok);
    wait_for(sub { api(GET => '/v1/me', token => $tok)->{json}{quota}{tier} eq 'verified' }, 15, 'verified');
    return $tok;
}
my @FIELDS = ({ key => 'name', type => 'text', label => 'Name' },
              { key => 'email', type => 'email', label => 'E-mail' },
              { key => 'size', type => 'select', label => 'Size',
                options => [ { value => 's', label => 'Small' }, { value => 'l', label => 'Large' } ] });
my %CONF = (emailField => 'email', subject => 'Thanks {{name}}',
            body => "Hello {{ name }},\nyou chose {{size}}.{{unknown}}\n{{ email");
sub mkform {
    my ($tok, $conf, $fields) = @_;
    return api(POST => '/v1/forms', token => $tok, body => {
        title => 'Order', fields => $fields // \@FIELDS, settings => { confirmation => $conf } });
}
sub publish { api(POST => "/v1/forms/$_[1]/publish", token => $_[0])->code }
sub submit {
    my ($fid, $body) = @_;
    return api(POST => "/f/$fid", body => $body, headers => { Accept => 'application/json' });
}
# the time of the test's start: only this file's mail is waited for
# (FormsvcMail::settle)
my $T0 = FormsTest::psql('SELECT now()');
sub addr { sprintf 'resp%d.%d.%s@example.org', $$, time, shift }

# ---- who may, and what is a valid confirmation ------------------------------------
my ($ut) = signup();
problem_ok(mkform($ut, \%CONF), 403, 'quota-exceeded', 'unverified: confirmation is 403');

my $tok = fresh_verified();
my $r = mkform($tok, { %CONF, emailField => 'name' });
is $r->code, 422, 'emailField naming a text field: 422';
is $r->{json}{errors}[0]{pointer}, '/settings/confirmation/emailField', 'at emailField';
$r = mkform($tok, { %CONF, emailField => 'gone' });
is $r->code, 422, 'emailField naming no field: 422';
$r = mkform($tok, { %CONF, subject => "Hi\r\nBcc: victim\@example.org" });
is $r->code, 422, 'a subject of two lines: 422';
is $r->{json}{errors}[0]{pointer}, '/settings/confirmation/subject', 'at subject';
$r = mkform($tok, { %CONF, body => 'x' x 5001 });
is $r->code, 422, 'a body over 5000 characters: 422';
$r = mkform($tok, { emailField => 'email' });
is $r->code, 422, 'subject and body are required';

$r = mkform($tok, \%CONF);
is $r->code, 201, 'a form with confirmation';
my $fid = $r->{json}{id};
is_deeply $r->{json}{settings}{confirmation}, \%CONF, 'settings.confirmation as sent';
is publish($tok, $fid), 200, 'published';
# the field it names cannot go first
$r = api(PUT => "/v1/forms/$fid/fields", token => $tok, body => { fields => [ $FIELDS[0], $FIELDS[2] ] });
is $r->code, 422, 'removing the email field while confirmation names it: 422';
my $pub = api(GET => "/f/$fid", headers => { Accept => 'application/json' });
unlike $pub->content, qr/Hello|Thanks/, 'the JSON view does not show the template';
is $pub->{json}{confirmationMail}{emailField}, 'email', 'it says which field gets a copy';
$pub = api(GET => "/f/$fid", headers => { Accept => 'text/html' });
like $pub->content, qr/A copy of your answers is sent to the address you enter under \x{201c}E-mail\x{201d}|A copy of your answers is sent to the address you enter under \xe2\x80\x9cE-mail\xe2\x80\x9d/,
    'the page says so, naming the field';
unlike $pub->content, qr/Hello/, 'and not the template';

# ---- the copy --------------------------------------------------------------------------
my $to = addr('a');
$r = submit($fid, { name => 'Eve {{size}} <b>x</b>', email => $to, size => 'l' });
is $r->code, 201, 'a submission';
my $m = wait_mail($to);
ok $m, 'the respondent gets a copy';
is $m->{headers}{subject}, 'Thanks Eve {{size}} <b>x</b>', 'subject filled, the answer taken as it is';
like $m->{body}, qr/^Hello Eve \{\{size\}\} <b>x<\/b>,\r?\nyou chose Large\.\r?\n\{\{ email/m,
    'body: placeholders by answers (option label), unknown ones empty, a broken one left';
like $m->{body}, qr/for the form "Order"/, 'says which form';
like $m->{headers}{'content-type'}, qr{text/plain}, 'plain text';
ok !$m->{headers}{'list-unsubscribe'}, 'a single copy, no list headers';
is api(GET => '/v1/me', token => $tok)->{json}{quota}{limits}{notifications}{used}, 1,
    '/v1/me: the copy counts as one notification of the day';

# no address, no copy; spam, no copy
is submit($fid, { name => 'No mail' })->code, 201, 'a submission without an address';
$r = api(POST => "/f/$fid", body => "name=Bot&email=" . addr('spam') . '&_hp=x',
         headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 303, 'spam answered as a success';
settle($fid, $T0);
is mail_count_for(addr('spam')), 0, 'spam gets no copy';
is api(GET => '/v1/me', token => $tok)->{json}{quota}{limits}{notifications}{used}, 1,
    'neither counted';

# ---- one address, two accounts' forms, 8 parallel submissions: exactly 3 copies ----------
my @forms;
for (1 .. 2) {
    my $t = fresh_verified();
    my $f = mkform($t, \%CONF)->{json}{id};
    publish($t, $f);
    push @forms, $f;
}
my $victim = addr('victim');
my @kids = map {
    my $i = $_;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        POSIX::_exit(submit($forms[$i % 2], { name => "N$i", email => $victim })->code == 201 ? 0 : 1);
    }
    $pid;
} 1 .. 8;
my $ok = 0;
for (@kids) { waitpid($_, 0); $ok++ if $? == 0 }
is $ok, 8, '8 parallel submissions stored';
settle($_, $T0) for @forms;
is mail_count_for($victim), 3, 'the address gets exactly 3 copies a day';
is FormsTest::psql("SELECT sum(sent) FROM mail_daily WHERE key LIKE 'notify:%' AND key IN "
                   . "(SELECT 'notify:' || user_id FROM forms WHERE id IN ('$forms[0]', '$forms[1]'))"), 3,
    'the accounts are charged only for the copies sent';

# ---- one mailbox behind six tags: exactly 3 copies in all (sql/0038) ----------------
# x+0@ ... x+4@ and X+5@ in capitals are one mailbox; a dot makes another
my $t2 = fresh_verified();
my $f2 = mkform($t2, \%CONF)->{json}{id};
publish($t2, $f2);
my $box = sprintf 'tag%d.%d', $$, time;
my @tagged = ((map { "$box+$_\@example.org" } 0 .. 4), uc("$box+5") . '@EXAMPLE.ORG');
my $stored = 0;
for my $a (@tagged) { $stored++ if submit($f2, { name => 'T', email => $a })->code == 201 }
is $stored, 6, '6 submissions, each with a tagged variant of one address';
settle($f2, $T0);
my $copies = 0;
$copies += mail_count_for($_) for @tagged;
is $copies, 3, 'the mailbox gets exactly 3 copies, not 3 per tag';
my $dotted = "$box.x\@example.org";
is submit($f2, { name => 'D', email => $dotted })->code, 201, 'a dotted local part';
ok wait_mail($dotted), 'is another mailbox: it gets its copy';

done_testing;
