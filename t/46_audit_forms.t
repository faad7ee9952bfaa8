# The audit trail records what a (delegated) credential did to forms:
# created, changed, fields changed, published, closed, deleted, and the
# deletion of a submission, with its actor.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsvcOAuth;

my ($secret, $acct) = signup();
my $r = exchange($secret, actor => 'form-builder', scope => 'forms:write submissions:write');
is $r->code, 200, 'delegated token for a sub-agent';
my $tok = $r->{json}{access_token};
my $tid = $r->{json}{key}{id};

$r = api(POST => '/v1/forms', token => $tok, body => {
    title => 'Audited', fields => [ { key => 'name', type => 'text', label => 'Name' } ] });
is $r->code, 201, 'form created by the sub-agent';
my $fid = $r->{json}{id};
is api(PATCH => "/v1/forms/$fid", token => $tok, body => { title => 'Audited 2' })->code, 200, 'changed';
is api(POST => "/v1/forms/$fid/fields", token => $tok, body => { key => 'age', type => 'integer', label => 'Age' })->code, 201, 'field added';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';
is api(POST => "/v1/forms/$fid/close", token => $tok)->code, 200, 'closed';
my $sid = 'sub_' . ('0' x 26); # an id below every partition's bound (sql/0046)
sql("INSERT INTO submissions (id, form_id, user_id, form_version, data) VALUES ('$sid', '$fid', '$acct->{user}{id}', 1, '{}')");
is api(DELETE => "/v1/forms/$fid/submissions/$sid", token => $tok)->code, 204, 'submission deleted';
is api(DELETE => "/v1/forms/$fid", token => $tok)->code, 204, 'form deleted';

$r = api(GET => '/v1/audit?actor=form-builder&limit=100', token => $secret);
is $r->code, 200, 'audit readable by the owner';
my @entries = @{ $r->{json}{data} };
my %by = map { ($_->{action} . ' ' . $_->{targetId}) => $_ } @entries;
for my $want ("form.created $fid", "form.changed $fid", "form.fields.changed $fid", "form.published $fid",
              "form.closed $fid", "submission.deleted $sid", "form.deleted $fid") {
    ok $by{$want}, "recorded: $want";
    is $by{$want} && $by{$want}{credentialId}, $tid, "by the delegated credential ($want)";
    is $by{$want} && $by{$want}{actor}, 'form-builder', "with its actor ($want)";
}
$r = api(GET => '/v1/audit?actor=nobody', token => $secret);
is scalar @{ $r->{json}{data} }, 0, 'another actor sees none of it';

done_testing;
