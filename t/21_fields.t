# Fields: every type with its rules, adding, changing, removing, replacing
# the list atomically, contradictions reported with pointers, limits,
# patterns (invalid, outside the subset, pathological), unicode.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;

my $T = JSON::PP::true;
my $F = JSON::PP::false;
my ($tok) = signup();
my ($other) = signup();
my $form = make_form($tok, { title => 'Fields' });
my $fid = $form->{id};
my $base = "/v1/forms/$fid/fields";

sub errs { my $r = shift; return { map { ($_->{pointer} => $_->{code}) } @{ $r->{json}{errors} || [] } } }

# ---- every type ----
my @all = (
    { key => 'name', type => 'text', label => 'Name', required => $T, placeholder => 'Ada',
      validation => { minLength => 1, maxLength => 80, pattern => '^[^0-9]+$' } },
    { key => 'bio', type => 'textarea', label => 'Bio', description => "Tell us\nmore", validation => { maxLength => 2000 } },
    { key => 'email', type => 'email', label => 'E-mail', required => $T },
    { key => 'site', type => 'url', label => 'Web site' },
    { key => 'phone', type => 'tel', label => 'Phone', validation => { pattern => '^\+?[0-9 ]{6,20}$' } },
    { key => 'budget', type => 'number', label => 'Budget', validation => { minimum => 0.5, maximum => 1e6 } },
    { key => 'seats', type => 'integer', label => 'Seats', validation => { minimum => 1, maximum => 500 } },
    { key => 'consent', type => 'boolean', label => 'I agree', required => $T },
    { key => 'day', type => 'date', label => 'Day' },
    { key => 'at', type => 'datetime', label => 'When' },
    { key => 'plan', type => 'select', label => 'Plan', options => [{ value => 'free', label => 'Free' }, { value => 'pro', label => 'Pro' }] },
    { key => 'topics', type => 'multiselect', label => 'Topics', options => ['a', 'b', 'c'], validation => { minItems => 1, maxItems => 2 } },
    { key => 'score', type => 'rating', label => 'Score' },
    { key => 'ref', type => 'hidden' },
    { key => 'company', type => 'text', label => 'Company', visibleIf => { field => 'plan', equals => 'pro' } },
    { key => 'why', type => 'text', label => 'Why', visibleIf => { field => 'score', in => [1, 2] } },
);
verify_account($tok); # 16 fields; the unverified tier allows 20 anyway
my $r = api(PUT => $base, token => $tok, body => { fields => \@all });
is $r->code, 200, 'PUT every type' or diag $r->content;
my $got = $r->{json}{fields};
is scalar @$got, scalar @all, 'all stored';
is_deeply [map { $_->{type} } @$got], [map { $_->{type} } @all], 'types in order';
is_deeply [map { $_->{position} } @$got], [0 .. $#all], 'positions';
my %byk = map { ($_->{key} => $_) } @$got;
is $byk{ref}{label}, 'ref', 'hidden field label defaults to its key';
is $byk{score}{validation}{maximum}, 5, 'rating maximum defaults to 5';
is_deeply $byk{name}{validation}, { minLength => 1, maxLength => 80, pattern => '^[^0-9]+$' }, 'validation kept';
is $byk{name}{placeholder}, 'Ada', 'placeholder';
is $byk{bio}{description}, "Tell us\nmore", 'description';
is $byk{email}{description}, undef, 'absent description is null';
is_deeply $byk{company}{visibleIf}, { field => 'plan', equals => 'pro' }, 'visibleIf equals';
is_deeply $byk{why}{visibleIf}, { field => 'score', in => [1, 2] }, 'visibleIf in';
is $byk{consent}{required}, $T, 'required boolean';
is $byk{site}{required}, $F, 'required defaults to false';
for my $k (qw(id key type label description required placeholder options validation visibleIf position)) {
    ok exists $byk{plan}{$k}, "field has $k";
}
is $r->{json}{version}, 2, 'PUT raised the version';

# ---- GET one field ----
$r = api(GET => "$base/$byk{plan}{id}", token => $tok);
is $r->code, 200, 'GET field';
is $r->{json}{key}, 'plan', 'the field';
problem_ok(api(GET => "$base/" . fresh_id('fld_'), token => $tok), 404, 'not-found', 'unknown field id');
problem_ok(api(GET => "$base/sub_123", token => $tok), 404, 'not-found', 'wrong prefix field id');
problem_ok(api(GET => "$base/$byk{plan}{id}", token => $other), 404, 'not-found', 'other account field');

# ---- POST one field ----
$r = api(POST => $base, token => $tok, body => { key => 'extra', type => 'text', label => 'Extra', position => 0 });
is $r->code, 201, 'add a field';
like $r->{json}{id}, qr/^fld_/, 'new field id';
is $r->{json}{position}, 0, 'inserted at position 0';
like $r->header('Location'), qr{/v1/forms/$fid/fields/fld_}, 'Location';
is $r->header('ETag'), '"3"', 'ETag of the new form version';
my $extra = $r->{json}{id};
$r = api(GET => "/v1/forms/$fid", token => $tok);
is $r->{json}{fields}[0]{key}, 'extra', 'first now';
is $r->{json}{fields}[1]{position}, 1, 'others renumbered';
$r = api(POST => $base, token => $tok, body => { key => 'last', type => 'integer', label => 'Last' });
is $r->{json}{position}, scalar(@all) + 1, 'appended at the end';
problem_ok(api(POST => $base, token => $tok, body => { key => 'extra', type => 'text', label => 'Dup' }), 422, 'validation-failed', 'duplicate key');
is errs(api(POST => $base, token => $tok, body => { key => 'extra', type => 'text', label => 'Dup' }))->{'/key'}, 'unique', 'pointer /key unique';
is errs(api(POST => $base, token => $tok, body => { key => 'x1', type => 'text', label => 'X', position => 999 }))->{'/position'}, 'maximum', 'position out of range';
is errs(api(POST => $base, token => $tok, body => { key => 'extra', type => 'text', label => 'Dup', position => 0 }))->{'/key'}, 'unique', 'duplicate key inserted first: still /key';
is errs(api(POST => $base, token => $tok, body => { key => 'x1', type => 'text', label => 'X', id => 'fld_x' }))->{'/id'}, 'unknown', 'id is not settable';
problem_ok(api(POST => "/v1/forms/$fid/fields", token => $other, body => { key => 'z', type => 'text', label => 'Z' }), 404, 'not-found', 'add to another account form');
problem_ok(api(POST => '/v1/forms/' . fresh_id('frm_') . '/fields', token => $tok, body => { key => 'z', type => 'text', label => 'Z' }), 404, 'not-found', 'add to unknown form');

# ---- PATCH one field ----
$r = api(PATCH => "$base/$extra", token => $tok, body => { label => 'Extra!', validation => { maxLength => 10 } });
is $r->code, 200, 'patch field';
is $r->{json}{label}, 'Extra!', 'label changed';
is $r->{json}{validation}{maxLength}, 10, 'validation merged';
is $r->{json}{id}, $extra, 'id kept';
$r = api(PATCH => "$base/$extra", token => $tok, body => { validation => { maxLength => undef }, placeholder => 'p' });
is_deeply $r->{json}{validation}, {}, 'null removes a rule';
$r = api(PATCH => "$base/$extra", token => $tok, body => { position => 3 });
is $r->{json}{position}, 3, 'moved';
$r = api(PATCH => "$base/$extra", token => $tok, body => { type => 'select' });
problem_ok($r, 422, 'validation-failed', 'type change without options');
is errs($r)->{'/options'}, 'required', 'pointer /options';
is errs($r)->{'/placeholder'}, 'unknown', 'placeholder no longer applies';
$r = api(PATCH => "$base/$extra", token => $tok, body => { type => 'select', placeholder => undef, options => ['x', 'y'] });
is $r->{json}{type}, 'select', 'type changed with options';
is errs(api(PATCH => "$base/$extra", token => $tok, body => { id => 'fld_other' }))->{'/id'}, 'enum', 'id cannot change';
is errs(api(PATCH => "$base/$extra", token => $tok, body => { key => 'email' }))->{'/key'}, 'unique', 'rename onto a taken key';
$r = api(PATCH => "$base/$byk{plan}{id}", token => $tok, body => { key => 'tier' });
problem_ok($r, 422, 'validation-failed', 'renaming a field another depends on');
like $r->{json}{errors}[0]{detail}, qr/company/, 'names the dependent field';
$r = api(PATCH => "$base/$byk{plan}{id}", token => $tok, body => { options => ['free'] });
problem_ok($r, 422, 'validation-failed', 'removing the option a visibleIf uses');
problem_ok(api(PATCH => "$base/" . fresh_id('fld_'), token => $tok, body => { label => 'x' }), 404, 'not-found', 'patch unknown field');
problem_ok(api(PATCH => "$base/$extra", token => $other, body => { label => 'x' }), 404, 'not-found', 'patch another account field');

# ---- If-Match on field edits ----
my $etag = api(GET => "/v1/forms/$fid", token => $tok)->header('ETag');
is api(PATCH => "$base/$extra", token => $tok, body => { label => 'E1' }, headers => { 'If-Match' => $etag })->code, 200, 'field edit with current ETag';
problem_ok(api(PATCH => "$base/$extra", token => $tok, body => { label => 'E2' }, headers => { 'If-Match' => $etag }), 412, 'precondition-failed', 'field edit with stale ETag');
problem_ok(api(POST => $base, token => $tok, body => { key => 'q1', type => 'text', label => 'Q' }, headers => { 'If-Match' => $etag }), 412, 'precondition-failed', 'add with stale ETag');
problem_ok(api(PUT => $base, token => $tok, body => { fields => [] }, headers => { 'If-Match' => $etag }), 412, 'precondition-failed', 'PUT with stale ETag');
problem_ok(api(DELETE => "$base/$extra", token => $tok, headers => { 'If-Match' => $etag }), 412, 'precondition-failed', 'DELETE field with stale ETag');
is api(GET => "$base/$extra", token => $tok)->{json}{label}, 'E1', 'stale edits changed nothing';

# ---- concurrent adds without If-Match: all land (each is re-applied to the newer list) ----
my $cf = make_form($tok, { title => 'concurrent' });
my @kids;
for my $i (1 .. 5) {
    my $pid = fork();
    if (!$pid) {
        my $x = api(POST => "/v1/forms/$cf->{id}/fields", token => $tok, body => { key => "c$i", type => 'text', label => "C$i" });
        exit($x->code == 201 ? 0 : 1);
    }
    push @kids, $pid;
}
my $fails = 0;
for (@kids) { waitpid($_, 0); $fails++ if $? }
is $fails, 0, 'five concurrent adds succeed';
$r = api(GET => "/v1/forms/$cf->{id}", token => $tok);
is_deeply [sort map { $_->{key} } @{ $r->{json}{fields} }], [map { "c$_" } 1 .. 5], 'no add was lost';
is $r->{json}{version}, 6, 'one version per add';

# ---- DELETE one field ----
problem_ok(api(DELETE => "$base/$byk{plan}{id}", token => $tok), 409, 'conflict', 'cannot delete a field another depends on');
is api(DELETE => "$base/$extra", token => $tok)->code, 204, 'delete field';
problem_ok(api(DELETE => "$base/$extra", token => $tok), 404, 'not-found', 'delete twice');
problem_ok(api(DELETE => "$base/not-an-id", token => $tok), 404, 'not-found', 'delete malformed id');
problem_ok(api(DELETE => "/v1/forms/" . fresh_id('frm_') . "/fields/$extra", token => $tok), 404, 'not-found', 'delete on unknown form');

# ---- contradictions, all reported with pointers ----
my $before = api(GET => "/v1/forms/$fid", token => $tok)->{json};
$r = api(PUT => $base, token => $tok, body => { fields => [
    { key => 'a', type => 'text', label => 'A', validation => { minLength => 5, maxLength => 2 } },
    { key => 'b', type => 'integer', label => 'B', validation => { minimum => 10, maximum => 1 } },
    { key => 'c', type => 'select', label => 'C', options => [{ value => 'x' }, { value => 'y' }, { value => 'x' }] },
    { key => 'd', type => 'select', label => 'D' },
    { key => 'e', type => 'text', label => 'E', visibleIf => { field => 'e', equals => 'x' } },
    { key => 'f', type => 'text', label => 'F', visibleIf => { field => 'nope', equals => 'x' } },
    { key => 'g', type => 'multiselect', label => 'G', options => ['1', '2'], validation => { minItems => 3 } },
    { key => 'h', type => 'text', label => 'H', validation => { pattern => '(' } },
    { key => 'i', type => 'rating', label => 'I', validation => { maximum => 11 } },
    { key => 'j', type => 'boolean', label => 'J', validation => { minLength => 1 } },
    { key => 'k', type => 'text', label => 'K', required => $T, validation => { maxLength => 0 } },
    { key => 'l', type => 'text', label => 'L', options => ['x'] },
    { key => 'Bad-Key', type => 'colour', label => '' },
    { key => 'm', type => 'text', label => 'M', visibleIf => { field => 'b', equals => 'ten' } },
    { key => 'n', type => 'text', label => 'N', visibleIf => { field => 'c', equals => 'z' } },
    { key => 'o', type => 'text', label => 'O', visibleIf => { field => 'g', equals => '1' } },
    { key => 'p', type => 'text', label => 'P', visibleIf => { field => 'a', equals => 'x', in => ['y'] } },
    { key => 'q', type => 'text', label => 'Q', bogus => 1, validation => { maxlength => 3 } },
    'not an object',
] });
problem_ok($r, 422, 'validation-failed', 'self-contradicting definitions 422');
my $e = errs($r);
is $e->{'/fields/0/validation/minLength'}, 'maximum', 'minLength > maxLength';
is $e->{'/fields/1/validation/minimum'}, 'maximum', 'minimum > maximum';
is $e->{'/fields/2/options/2/value'}, 'unique', 'duplicate option value';
is $e->{'/fields/3/options'}, 'required', 'select without options';
is $e->{'/fields/6/validation/minItems'}, 'maximum', 'minItems above the number of options';
is $e->{'/fields/7/validation/pattern'}, 'pattern', 'pattern does not compile';
is $e->{'/fields/8/validation/maximum'}, 'maximum', 'rating maximum above 10';
is $e->{'/fields/9/validation/minLength'}, 'unknown', 'minLength does not apply to boolean';
is $e->{'/fields/10/validation/maxLength'}, 'minimum', 'required with maxLength 0';
is $e->{'/fields/11/options'}, 'unknown', 'options on a text field';
is $e->{'/fields/12/key'}, 'pattern', 'bad key';
is $e->{'/fields/12/type'}, 'enum', 'unknown type';
is $e->{'/fields/16/visibleIf'}, 'required', 'equals and in together';
is $e->{'/fields/17/bogus'}, 'unknown', 'unknown member of a field';
is $e->{'/fields/17/validation/maxlength'}, 'unknown', 'unknown validation member';
is $e->{'/fields/18'}, 'type', 'a field that is not an object';
is_deeply api(GET => "/v1/forms/$fid", token => $tok)->{json}, $before, 'failed PUT left the old list intact';
# list-level rules (only checked when every field parses)
$r = api(PUT => $base, token => $tok, body => { fields => [
    { key => 'a', type => 'text', label => 'A' },
    { key => 'b', type => 'integer', label => 'B' },
    { key => 'c', type => 'select', label => 'C', options => ['x'] },
    { key => 'g', type => 'multiselect', label => 'G', options => ['1'] },
    { key => 'e', type => 'text', label => 'E', visibleIf => { field => 'e', equals => 'x' } },
    { key => 'f', type => 'text', label => 'F', visibleIf => { field => 'nope', equals => 'x' } },
    { key => 'm', type => 'text', label => 'M', visibleIf => { field => 'b', equals => 'ten' } },
    { key => 'n', type => 'text', label => 'N', visibleIf => { field => 'c', in => ['x', 'z'] } },
    { key => 'o', type => 'text', label => 'O', visibleIf => { field => 'g', equals => '1' } },
    { key => 'a', type => 'text', label => 'A again' },
] });
$e = errs($r);
is $e->{'/fields/4/visibleIf/field'}, 'enum', 'visibleIf naming itself';
is $e->{'/fields/5/visibleIf/field'}, 'enum', 'visibleIf naming a missing field';
is $e->{'/fields/6/visibleIf/equals'}, 'type', 'equals of the wrong type';
is $e->{'/fields/7/visibleIf/in/1'}, 'type', 'in value that is not an option';
is $e->{'/fields/8/visibleIf/field'}, 'enum', 'visibleIf on a multiselect';
is $e->{'/fields/9/key'}, 'unique', 'duplicate key';
$r = api(PUT => $base, token => $tok, body => { fields => [
    { key => 'a', type => 'text', label => 'A', visibleIf => { field => 'b', equals => 'x' } },
    { key => 'b', type => 'text', label => 'B', visibleIf => { field => 'a', equals => 'y' } } ] });
problem_ok($r, 422, 'validation-failed', 'visibleIf cycle');
like $r->{json}{errors}[0]{detail}, qr/cycle/, 'says cycle';
is_deeply api(GET => "/v1/forms/$fid", token => $tok)->{json}, $before, 'still intact';

# ---- PUT keeps ids it is given ----
my @keep = map { { %$_ } } @{ $before->{fields} };
@keep = reverse @keep;
$_->{label} .= ' (r)' for @keep;
# reversing breaks nothing: visibleIf does not depend on order
$r = api(PUT => $base, token => $tok, body => { fields => \@keep });
is $r->code, 200, 'PUT with the ids of existing fields';
is_deeply [map { $_->{id} } @{ $r->{json}{fields} }], [map { $_->{id} } @keep], 'ids kept, order as given';
is errs(api(PUT => $base, token => $tok, body => { fields => [{ id => fresh_id('fld_'), key => 'a', type => 'text', label => 'A' }] }))->{'/fields/0/id'},
   'enum', 'PUT with an unknown field id';
is errs(api(PUT => $base, token => $tok, body => { fields => [{ id => $keep[0]{id}, key => 'a', type => 'text', label => 'A' }, { id => $keep[0]{id}, key => 'b', type => 'text', label => 'B' }] }))->{'/fields/1/id'},
   'unique', 'PUT with the same id twice';
is errs(api(PUT => $base, token => $tok, body => { fields => 'x' }))->{'/fields'}, 'type', 'fields not an array';
is errs(api(PUT => $base, token => $tok, body => {}))->{'/fields'}, 'required', 'fields required';
is errs(api(PUT => $base, token => $tok, body => { fields => [], more => 1 }))->{'/more'}, 'unknown', 'unknown member of PUT';

# ---- limits: labels, options, fields ----
$e = errs(api(POST => $base, token => $tok, body => { key => 'long', type => 'text', label => 'x' x 201, description => 'd' x 2001, placeholder => 'p' x 201 }));
is $e->{'/label'}, 'maxLength', 'label over 200 characters';
is $e->{'/description'}, 'maxLength', 'description over 2000';
is $e->{'/placeholder'}, 'maxLength', 'placeholder over 200';
is api(POST => $base, token => $tok, body => JSON::PP->new->utf8->encode({ key => 'l200', type => 'text', label => "\x{1F600}" x 200 }))->code,
   201, '200 emoji are 200 characters';
$e = errs(api(POST => $base, token => $tok, body => { key => 'lbl', type => 'text', label => "a\tb" }));
is $e->{'/label'}, 'pattern', 'control character in a label';
$e = errs(api(POST => $base, token => $tok, body => { key => 'o201', type => 'select', label => 'O', options => [map { "v$_" } 1 .. 201] }));
is $e->{'/options'}, 'maxItems', '201 options';
is api(POST => $base, token => $tok, body => { key => 'o200', type => 'select', label => 'O', options => [map { "v$_" } 1 .. 200] })->code, 201, '200 options';
is errs(api(POST => $base, token => $tok, body => { key => 'o0', type => 'select', label => 'O', options => [] }))->{'/options'}, 'minItems', 'no options';
is errs(api(POST => $base, token => $tok, body => { key => 'ov', type => 'select', label => 'O', options => [{ value => 'v' x 201 }] }))->{'/options/0/value'}, 'maxLength', 'option value too long';
is errs(api(POST => $base, token => $tok, body => { key => 'ow', type => 'select', label => 'O', options => [{ value => 1 }] }))->{'/options/0/value'}, 'type', 'option value wrong type';
is errs(api(POST => $base, token => $tok, body => { key => 'ox', type => 'select', label => 'O', options => [{ value => 'a', colour => 'red' }] }))->{'/options/0/colour'}, 'unknown', 'unknown option member';
# unicode option values, byte-exact
my @uopts = ("caf\x{e9}", "cafe\x{301}", "\x{1F600}", "\x{65e5}\x{672c}\x{8a9e}", "a/b~c");
$r = api(POST => $base, token => $tok, body => JSON::PP->new->utf8->encode({ key => 'uni', type => 'multiselect', label => "\x{2713} Pick", options => \@uopts }));
is $r->code, 201, 'unicode options (NFC and NFD forms are different values)';
is_deeply [map { uni($_->{value}) } @{ api(GET => "$base/$r->{json}{id}", token => $tok)->{json}{options} }], \@uopts, 'option values byte-exact';
is uni($r->{json}{label}), "\x{2713} Pick", 'unicode label';
# 101 fields (verified tier: 100), 21 fields on the unverified tier (20)
my @hundred = map { { key => "f$_", type => 'text', label => "F$_" } } 1 .. 100;
my $ok = api(PUT => $base, token => $tok, body => { fields => \@hundred });
is $ok->code, 200, '100 fields on the verified tier';
$r = api(PUT => $base, token => $tok, body => { fields => [@hundred, { key => 'f101', type => 'text', label => 'F101' }] });
problem_ok($r, 403, 'quota-exceeded', '101 fields');
is $r->{json}{quota}, 'fields', 'quota fields';
is $r->{json}{limit}, 100, 'limit 100';
is $r->{json}{used}, 100, 'used';
problem_ok(api(POST => $base, token => $tok, body => { key => 'f101', type => 'text', label => 'F101' }), 403, 'quota-exceeded', 'adding the 101st field');
is scalar @{ api(GET => "/v1/forms/$fid", token => $tok)->{json}{fields} }, 100, 'still 100';
my ($un) = signup();
problem_ok(api(POST => '/v1/forms', token => $un, body => { title => 'big', fields => [@hundred[0 .. 20]] }), 403, 'quota-exceeded', '21 fields on the unverified tier');
is api(POST => '/v1/forms', token => $un, body => { title => 'big', fields => [@hundred[0 .. 19]] })->code, 201, '20 fields on the unverified tier';

# ---- patterns ----
my $pf = make_form($un, { title => 'patterns' });
my $pb = "/v1/forms/$pf->{id}/fields";
for my $case (
    ['^(a+)+$', 'nested repetition'], ['(a|a)*b', 'overlapping alternation'], ['^(\w+\s?)*$', 'word-space nest'],
    ['(x+x+)+y', 'x+x+'],
) {
    $r = api(POST => $pb, token => $un, body => { key => 'p', type => 'text', label => 'P', validation => { pattern => $case->[0] } });
    problem_ok($r, 422, 'validation-failed', "pathological pattern refused: $case->[1]");
    like $r->{json}{errors}[0]{detail}, qr/catastroph/, 'says why';
}
for my $case (['(?i)abc', 'inline flags'], ['(?<n>a)', 'named group'], ['a++', 'possessive'], ['[[:alpha:]]', 'POSIX class'],
              ['\\Aabc', '\\A'], ['a{', 'lone brace'], ['[]', 'empty class'], ['\\p{L}', '\\p'], ['[^\\S]', 'negated \\S'],
              ['(?R)', 'recursion'], ['\\k<n>', 'named backreference']) {
    is errs(api(POST => $pb, token => $un, body => { key => 'p', type => 'text', label => 'P', validation => { pattern => $case->[0] } }))->{'/validation/pattern'},
       'pattern', "outside the subset: $case->[1]";
}
is errs(api(POST => $pb, token => $un, body => { key => 'p', type => 'text', label => 'P', validation => { pattern => 'x' x 1001 } }))->{'/validation/pattern'},
   'maxLength', 'pattern over 1000 characters';
for my $pat ('^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$', '^\d{5}(-\d{4})?$', '(?:ab)+c', '^(?=.*\d).{8,}$', '\bword\b', '^\u00e9\x41$', '[\s\S]') {
    $r = api(PUT => $pb, token => $un, body => { fields => [{ key => 'p', type => 'text', label => 'P', validation => { pattern => $pat } }] });
    is $r->code, 200, "pattern accepted: $pat";
}
is errs(api(POST => $pb, token => $un, body => { key => 'q', type => 'number', label => 'Q', validation => { pattern => 'x' } }))->{'/validation/pattern'},
   'unknown', 'pattern does not apply to numbers';

# ---- wrong types everywhere ----
$e = errs(api(POST => $pb, token => $un, body => { key => 5, type => [], label => {}, required => 'yes', description => 1, placeholder => 2, visibleIf => 'x', validation => [] }));
is $e->{'/key'}, 'type', 'key type';
is $e->{'/type'}, 'type', 'type type';
is $e->{'/label'}, 'type', 'label type';
is $e->{'/required'}, 'type', 'required type';
is $e->{'/description'}, 'type', 'description type';
is $e->{'/visibleIf'}, 'type', 'visibleIf type';
$e = errs(api(POST => $pb, token => $un, body => { key => 'n', type => 'integer', label => 'N', validation => { minimum => 1.5, maximum => '9' } }));
is $e->{'/validation/minimum'}, 'type', 'integer bound must be an integer';
is $e->{'/validation/maximum'}, 'type', 'bound must be a number';
$e = errs(api(POST => $pb, token => $un, body => '{"key":"n","type":"integer","label":"N","validation":{"maximum":99999999999999999999999}}'));
ok $e->{'/validation/maximum'}, 'integer beyond 2^53 refused';
$e = errs(api(POST => $pb, token => $un, body => { key => 'n', type => 'text', label => 'N', validation => { maxLength => -1, minLength => 'a' } }));
is $e->{'/validation/maxLength'}, 'minimum', 'negative maxLength';
is $e->{'/validation/minLength'}, 'type', 'minLength wrong type';

# ---- published forms keep a field ----
my $pub = make_form($un, { title => 'pub', fields => [{ key => 'a', type => 'text', label => 'A' }] });
api(POST => "/v1/forms/$pub->{id}/publish", token => $un);
problem_ok(api(PUT => "/v1/forms/$pub->{id}/fields", token => $un, body => { fields => [] }), 409, 'invalid-state', 'a published form cannot lose all fields');
problem_ok(api(DELETE => "/v1/forms/$pub->{id}/fields/$pub->{fields}[0]{id}", token => $un), 409, 'invalid-state', 'nor its last field');

# ---- scopes ----
my $ro = api(POST => '/v1/keys', token => $un, body => { name => 'ro', scopes => ['forms:read'] })->{json}{secret};
problem_ok(api(POST => $pb, token => $ro, body => { key => 'z', type => 'text', label => 'Z' }), 403, 'insufficient-scope', 'forms:read cannot add fields');
problem_ok(api(PUT => $pb, token => $ro, body => { fields => [] }), 403, 'insufficient-scope', 'forms:read cannot PUT fields');
is api(GET => "$pb/" . api(GET => "/v1/forms/$pf->{id}", token => $un)->{json}{fields}[0]{id}, token => $ro)->code, 200, 'forms:read reads a field';
my $cons = api(POST => '/v1/keys', token => $un, body => { name => 'c', scopes => ['forms:write', "form:$pub->{id}"] })->{json}{secret};
problem_ok(api(POST => $pb, token => $cons, body => { key => 'z', type => 'text', label => 'Z' }), 404, 'not-found', 'form-constrained key: other form 404');
is api(POST => "/v1/forms/$pub->{id}/fields", token => $cons, body => { key => 'z', type => 'text', label => 'Z' })->code, 201, 'form-constrained key edits its form';

done_testing;
