# The owner's strings on the public page
# (settings.submitLabel, settings.closedMessage), always escaped, and
# settings.opensAt: before it the page says when the form opens, the JSON
# view gives opensAt, a POST is 409 form-not-open; opensAt < closesAt is
# validated; the per-child form cache never serves the "not open" page past
# opensAt nor the open page past closesAt. Item 6: a datetime field's
# timeZone: a form post's local time is stored as RFC 3339 with that zone's
# offset (DST included).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Time::HiRes qw(time sleep);
use POSIX qw(strftime floor);

my $XSS = q{<script>alert('x')</script>"&};
my $XSS_ESC = q{&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;};
sub at { strftime('%Y-%m-%dT%H:%M:%SZ', gmtime(floor(shift))) }

my ($tok) = signup();
my @fields = ({ key => 'name', type => 'text', label => 'Name' });

# ---- validation --------------------------------------------------------
my $r = api(POST => '/v1/forms', token => $tok,
            body => { title => 'T', fields => \@fields,
                      settings => { opensAt => at(time + 3600), closesAt => at(time + 3600) } });
problem_ok($r, 422, 'validation-failed', 'opensAt equal to closesAt: 422');
is $r->{json}{errors}[0]{pointer}, '/settings/opensAt', 'pointer /settings/opensAt';
$r = api(POST => '/v1/forms', token => $tok,
         body => { title => 'T', settings => { opensAt => 'tomorrow', submitLabel => "a\nb",
                                               closedMessage => '' } });
problem_ok($r, 422, 'validation-failed', 'bad opensAt, submitLabel, closedMessage: 422');
my %code = map { $_->{pointer} => $_->{code} } @{ $r->{json}{errors} || [] };
is $code{'/settings/opensAt'}, 'format', 'opensAt format';
is $code{'/settings/submitLabel'}, 'pattern', 'submitLabel one line';
is $code{'/settings/closedMessage'}, 'minLength', 'closedMessage not empty';
$r = api(POST => '/v1/forms', token => $tok,
         body => { title => 'T', settings => { submitLabel => 'x' x 101 } });
problem_ok($r, 422, 'validation-failed', 'submitLabel over 100 characters: 422');

# ---- a form that opens in 3 s and closes 3 s later ----------------------
my $t0 = time;
my ($opens, $closes) = (at($t0 + 4), at($t0 + 7));
my $f = make_form($tok, { title => "Sched $XSS", fields => \@fields,
                          settings => { submitLabel => "Send $XSS", closedMessage => "Gone $XSS",
                                        opensAt => $opens, closesAt => $closes } });
(my $opens_ms = $opens) =~ s/Z$/.000Z/;
is $f->{settings}{opensAt}, $opens_ms, 'opensAt normalised like closesAt';
is $f->{settings}{submitLabel}, "Send $XSS", 'submitLabel stored as given';
$r = api(PATCH => "/v1/forms/$f->{id}", token => $tok, body => { settings => { opensAt => $closes } });
problem_ok($r, 422, 'validation-failed', 'PATCH: opensAt not before the stored closesAt: 422');
$r = api(POST => "/v1/forms/$f->{id}/publish", token => $tok);
is $r->code, 200, 'published before it opens';
my $url = "/f/$f->{id}";

# before opensAt: twice each, so that the second comes from the cache
for my $n (1, 2) {
    $r = api(GET => $url);
    is $r->code, 200, "page before opensAt ($n): 200";
    like $r->content, qr/This form is not open yet\. It opens on \Q@{[substr $opens, 0, 10]}\E at \Q@{[substr $opens, 11, 5]}\E UTC/,
         "page before opensAt ($n): says when it opens";
    unlike $r->content, qr/<form /, "page before opensAt ($n): no form";
    unlike $r->content, qr/<script/, "page before opensAt ($n): no markup from the owner";
    $r = api(GET => $url, headers => { Accept => 'application/json' });
    is $r->{json}{opensAt}, $opens_ms, "JSON view before opensAt ($n): opensAt";
    is $r->{json}{status}, 'published', "JSON view before opensAt ($n): published";
}
$r = api(POST => $url, body => { name => 'early' });
problem_ok($r, 409, 'form-not-open', 'POST before opensAt: 409 form-not-open');
is $r->{json}{opensAt}, $opens_ms, 'the problem gives opensAt';
$r = api(POST => $url, body => 'name=early', headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 409, 'HTML post before opensAt: 409';
like $r->content, qr/This form is not open yet/, 'HTML post before opensAt: the page says so';
$r = api(POST => "$url?dryRun=true", body => { name => 'early' });
problem_ok($r, 409, 'form-not-open', 'dry run before opensAt: 409 form-not-open');
is count_rows($f->{id}), 0, 'nothing stored before opensAt';

# after opensAt: the cached "not open" page is gone (the clock is the
# subject: until 0.3 s past opensAt)
sleep($t0 + 4.3 - time) if time < $t0 + 4.3;
$r = api(GET => $url);
is $r->code, 200, 'page after opensAt: 200';
like $r->content, qr/<form /, 'page after opensAt: the form (not the cached "not open" page)';
like $r->content, qr{<button type="submit">Send \Q$XSS_ESC\E</button>}, 'submitLabel on the button, escaped';
unlike $r->content, qr/<script/, 'no markup from the owner';
like $r->content, qr{<title>Sched \Q$XSS_ESC\E</title>}, 'title escaped';
$r = api(GET => $url); # from the cache
like $r->content, qr/<form /, 'page after opensAt, again: the form';
$r = api(POST => $url, body => { name => 'on time' });
is $r->code, 201, 'POST after opensAt: 201';

# after closesAt: the cached open page is gone; closedMessage shown escaped
sleep($t0 + 7.3 - time) if time < $t0 + 7.3;   # until 0.3 s past closesAt
$r = api(GET => $url);
is $r->code, 200, 'page after closesAt: 200';
unlike $r->content, qr/<form /, 'page after closesAt: no form';
like $r->content, qr{Gone \Q$XSS_ESC\E}, 'closedMessage shown, escaped';
unlike $r->content, qr/<script/, 'no markup from the owner';
$r = api(POST => $url, body => 'name=late', headers => { 'Content-Type' => 'application/x-www-form-urlencoded' });
is $r->code, 409, 'HTML post after closesAt: 409';
like $r->content, qr{Gone \Q$XSS_ESC\E}, 'HTML post after closesAt: closedMessage';
problem_ok(api(POST => $url, body => { name => 'late' }), 409, 'form-closed', 'JSON post after closesAt: form-closed');

# without closedMessage the built-in sentence; without submitLabel "Submit"
my $g = make_form($tok, { title => 'Plain', fields => \@fields });
api(POST => "/v1/forms/$g->{id}/publish", token => $tok);
$r = api(GET => "/f/$g->{id}");
like $r->content, qr{<button type="submit">Submit</button>}, 'default button label';
api(POST => "/v1/forms/$g->{id}/close", token => $tok);
like api(GET => "/f/$g->{id}")->content, qr/This form is closed and no longer takes answers\./,
     'default closed sentence';
is api(GET => "/f/$g->{id}", headers => { Accept => 'application/json' })->{json}{opensAt}, undef,
   'no opensAt in the JSON view when not set';

# ---- item 6: time zones ---------------------------------------------------
$r = api(POST => '/v1/forms', token => $tok,
         body => { title => 'TZ', fields => [{ key => 'at', type => 'datetime', label => 'At',
                                                timeZone => 'Mars/Olympus' }] });
problem_ok($r, 422, 'validation-failed', 'unknown time zone: 422');
is $r->{json}{errors}[0]{pointer}, '/fields/0/timeZone', 'pointer /fields/0/timeZone';
problem_ok(api(POST => '/v1/forms', token => $tok,
               body => { title => 'TZ', fields => [{ key => 'd', type => 'date', label => 'D', timeZone => 'UTC' }] }),
           422, 'validation-failed', 'timeZone on a date field: 422');
my $tz = make_form($tok, { title => 'TZ', fields => [
    { key => 'at', type => 'datetime', label => 'At', timeZone => 'Europe/Berlin' },
    { key => 'utc', type => 'datetime', label => 'UTC' },
    { key => 'n', type => 'integer', label => 'N' } ] });
is $tz->{fields}[0]{timeZone}, 'Europe/Berlin', 'timeZone stored';
ok !exists $tz->{fields}[1]{timeZone}, 'no timeZone when unset';
api(POST => "/v1/forms/$tz->{id}/publish", token => $tok);
my $form = sub { api(POST => "/f/$tz->{id}", body => shift,
                     headers => { 'Content-Type' => 'application/x-www-form-urlencoded' }) };
my %want = ('2026-07-01T14:30' => '2026-07-01T14:30:00+02:00',   # summer time
            '2026-11-21T14:30:05' => '2026-11-21T14:30:05+01:00', # winter
            '2026-03-29T02:30' => '2026-03-29T03:30:00+02:00',    # in the spring gap
            '2026-10-25T02:30' => '2026-10-25T02:30:00+02:00');   # twice: the first
for my $local (sort keys %want) {
    (my $enc = $local) =~ s/:/%3A/g;
    $r = $form->("at=$enc&utc=$enc");
    is $r->code, 303, "form post at=$local: 303";
    my $row = psql("SELECT data->>'at' || ' ' || (data->>'utc') FROM submissions WHERE form_id = '$tz->{id}' "
                   . "ORDER BY created_at DESC, id DESC LIMIT 1");
    (my $utc = $local) =~ s/^(.{16})$/$1:00/;
    is $row, "$want{$local} ${utc}Z", "stored $want{$local} (Europe/Berlin), the other field as UTC";
}
$r = api(POST => "/f/$tz->{id}", body => { at => '2026-07-01T14:30:00+02:00' });
is $r->code, 201, 'JSON: an RFC 3339 value as before';
$r = $form->('at=2026-07-01T14%3A30&n=x');
is $r->code, 422, 'invalid post: 422 page';
like $r->content, qr{name="at" value="2026-07-01T14:30:00"}, 'the local time shown again, in the zone';

sub count_rows { psql("SELECT count(*) FROM submissions WHERE form_id = '" . shift() . "'") }

done_testing;
