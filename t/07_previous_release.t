# A rolling upgrade: the previous release's module (built from git history
# by scripts/prev-release, cached under build/prev/) serves on the current
# schema at the same time as this module, on the same database. The schema
# only expands in a release (docs/deploy.md, "Rolling upgrades"): what the
# old module reads and writes is still there, and a schema ahead of it is
# served with a warning (FS00392, t/07_schema.t).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use JSON::PP ();
use MIME::Base64 ();

delete $ENV{LD_PRELOAD};  # no sanitizer runtime in git, make, the compiler (make test-asan)
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';

my ($prev) = `bash "$root/scripts/prev-release" commit 2>&1`;
plan skip_all => "no previous release to run: $prev" if $? >> 8 == 3;
die "prev-release: $prev" if $?;
my ($commit, $version) = split ' ', $prev;
my ($tree) = `bash "$root/scripts/prev-release" build`;
die 'the previous release did not build' if $? || !$tree;
chomp $tree;
my $current = do { open my $v, '<', "$root/VERSION" or die; local $/; <$v> =~ s/\s+//gr };
note "previous release $version ($commit), this one $current";

my $old = FormsvcInstance->start(name => 'prev-release', module => "$tree/build/mod_formsvc.so", source => $tree);
my $new = FormsvcInstance->start(name => 'this-release');

my $r = $old->api(GET => '/readyz');
is $r->code, 200, "the $version module is ready on the current schema";
is $r->{json}{moduleVersion}, $version, "and is the $version module";
is $new->api(GET => '/readyz')->{json}{moduleVersion}, $current, "beside the $current module";
my @sql = sort glob "$root/sql/[0-9][0-9][0-9][0-9]_*.sql";
my ($schema) = $sql[-1] =~ /(\d{4})_[^\/]*$/;
my @oldsql = sort glob "$tree/sql/[0-9][0-9][0-9][0-9]_*.sql";
my ($oldschema) = $oldsql[-1] =~ /(\d{4})_[^\/]*$/;
is $r->{json}{schemaVersion}, $schema + 0, 'on the current schema';
if ($schema > $oldschema) {
    like $old->error_log, qr/FS00392: database schema \d+ is newer than this module's \Q@{[$oldschema + 0]}\E/,
        'the old module says the schema is ahead of it';
} else {
    note "no migration since $version: the same schema ($schema)";
}

# signup and a key on the old module
my $email = sprintf 'prev%d.%d@example.com', $$, time;
$r = $old->api(POST => '/v1/signup', body => { email => $email });
is $r->code, 201, 'old: signup';
my $tok = $r->{json}{apiKey}{secret};
$r = $old->api(POST => '/v1/keys', token => $tok, body => { name => 'made by the old module' },
               headers => { 'Idempotency-Key' => "prev-key-$$" });
is $r->code, 201, 'old: a key';
my $key2 = $r->{json}{secret};
is $new->api(GET => '/v1/me', token => $key2)->code, 200, 'the new module accepts the key the old one made';

# a form made on the old module, published, submitted to on both
$r = $old->api(POST => '/v1/forms', token => $tok,
               body => { title => 'Across releases', fields => [{ key => 'name', type => 'text', label => 'Name' }] });
is $r->code, 201, 'old: create a form';
my $fid = $r->{json}{id};
is $old->api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'old: publish it';
$r = $old->api(POST => "/f/$fid", body => { name => 'to the old' }, headers => { 'Idempotency-Key' => "prev-sub-$$" });
is $r->code, 201, 'old: a public submission';
my $sold = $r->{json}{id};
$r = $new->api(POST => "/f/$fid", body => { name => 'to the new' }, headers => { 'Idempotency-Key' => "new-sub-$$" });
is $r->code, 201, 'new: a public submission to the same form';
my $snew = $r->{json}{id};
# the same Idempotency-Key on the other module: the first answer, stored once
$r = $new->api(POST => "/f/$fid", body => { name => 'to the old' }, headers => { 'Idempotency-Key' => "prev-sub-$$" });
is $r->code, 201, 'new: a retry of the old module\'s submission with its Idempotency-Key';
is $r->{json}{id}, $sold, 'is answered with the same submission';
is $r->header('Idempotent-Replayed'), 'true', 'as a replay';

for my $m ([old => $old], [new => $new]) {
    $r = $m->[1]->api(GET => "/v1/forms/$fid/submissions", token => $tok);
    is $r->code, 200, "$m->[0]: list submissions";
    is_deeply [sort map { $_->{id} } @{ $r->{json}{data} || [] }], [sort $sold, $snew],
        "$m->[0]: both submissions, each once";
}
$r = $new->api(GET => "/v1/forms/$fid", token => $key2);
is $r->code, 200, 'new: the form, with the old module\'s key';
is $r->{json}{status}, 'published', 'published';

# a form made on the new module, submitted to through the old one
$r = $new->api(POST => '/v1/forms', token => $key2,
               body => { title => 'New side', fields => [{ key => 'q', type => 'integer', label => 'Q' }] });
is $r->code, 201, 'new: create a form';
my $fid2 = $r->{json}{id};
is $new->api(POST => "/v1/forms/$fid2/publish", token => $key2)->code, 200, 'new: publish it';
is $old->api(POST => "/f/$fid2", body => { q => 7 }, headers => { 'Idempotency-Key' => "old-sub2-$$" })->code, 201,
    'old: a submission to the new module\'s form';
is $old->api(POST => "/f/$fid2", body => { q => 'seven' })->code, 422, 'old: still validates it';
$r = $old->api(GET => "/v1/forms/$fid2/submissions", token => $tok);
is scalar @{ $r->{json}{data} || [] }, 1, 'old: lists it';

# a file uploaded through the old module (its chunks in a partitioned
# table since sql/0053), read back by both, deleted by the old one
$r = $new->api(POST => '/v1/forms', token => $key2,
               body => { title => 'Files across releases', fields => [{ key => 'doc', type => 'file', label => 'Doc' }] });
my $fid3 = $r->{json}{id};
is $new->api(POST => "/v1/forms/$fid3/publish", token => $key2)->code, 200, 'new: publish a form with a file field';
my $bytes = join '', map { chr(($_ * 7) % 256) } 0 .. 300_000;   # more than one chunk of 256 KB
$r = $old->api(POST => "/f/$fid3", body => JSON::PP->new->encode(
        { doc => { name => 'a.bin', type => 'application/octet-stream', data => MIME::Base64::encode_base64($bytes, '') } }));
is $r->code, 201, 'old: a submission with a 300 KB file' or diag $r->content;
my $sfile = $r->{json}{id};
$r = $new->api(GET => "/v1/forms/$fid3/submissions/$sfile", token => $tok);
my $furl = $r->{json}{data}{doc}[0]{url} // '';
like $furl, qr{/files/fil_\w+$}, 'new: the submission names its file' or diag $r->content;
$furl =~ s{^.*?(?=/v1/)}{};   # (relative to each instance's own base)
for my $m ([old => $old], [new => $new]) {
    $r = $m->[1]->api(GET => $furl, token => $tok);
    is $r->code, 200, "$m->[0]: downloads it" or diag "$furl: " . substr($r->content, 0, 300);
    ok $r->content eq $bytes, "$m->[0]: the same bytes";
}
is $old->api(DELETE => "/v1/forms/$fid3/submissions/$sfile", token => $tok)->code, 204, 'old: deletes the submission';
is $new->api(GET => $furl, token => $tok)->code, 404, 'new: its file is gone';

unlike $old->error_log, qr/\[(?:[a-z_]*:)?(?:error|crit|alert|emerg)\]/, 'the old module logged no error';
$old->stop;
$new->stop;
done_testing;
