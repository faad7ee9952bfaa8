# The question types address, daterange, time and signature, and the
# bounds (minimum/maximum) of date, datetime, daterange and time: each
# defined (and the definitions a form refuses, 422 at the member), its
# schema, answered over JSON (good, and 422 with the pointer of the part
# at fault), answered as a browser without script answers (the page's
# inputs, posted as the page names them, redirects followed; a refused
# post shows the errors and keeps every answer), both sides of each date
# bound, the CSV (a column per part) and the insights; a signature's
# drawn image over JSON and as a multipart part, stored as a file. Then a
# real browser (t/js/axe_types_b.mjs, when node and Chromium are there):
# axe at 320 px in English and Arabic, light and dark, and the form sent
# without script and with script, drawing on the signature's pad.
use strict;
use warnings;
use utf8;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest;
use Apache::TestRequest ();
use HTTP::Request ();
use JSON::PP ();
use URI ();
use Digest::SHA ();
use MIME::Base64 ();
use URI::Escape qw(uri_escape_utf8);

binmode Test::More->builder->$_, ':encoding(UTF-8)' for qw(output failure_output todo_output);
my $J = JSON::PP->new->canonical;
my $T = JSON::PP::true;
my ($tok) = signup();

sub ua {
    my $ua = Apache::TestRequest::user_agent(reset => 1);
    $ua->requests_redirectable(['GET', 'HEAD', 'POST']);
    $ua->max_redirect(5);
    return $ua;
}
sub abs_url { my $u = shift; $u =~ m{^https?://} ? $u : Apache::TestRequest::resolve_url(BASE . $u) }
sub unent { my $s = shift; $s =~ s/&quot;/"/g; $s =~ s/&#39;/'/g; $s =~ s/&lt;/</g; $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; $s }

# What a person sees: the page, its form's action and hidden inputs, the
# value of each input and select by name, the errors by question.
sub page_of {
    my $r = shift;
    my $html = $r->decoded_content // $r->content // '';
    my %p = (res => $r, html => $html, code => $r->code);
    $p{action} = unent($1) if $html =~ /<form method="post" action="([^"]*)"/;
    push @{ $p{hidden} }, [$1, unent($2)] while $html =~ /<input type="hidden" name="([^"]+)" value="([^"]*)">/g;
    $p{inputs}{$1} = unent($2) while $html =~ /<input type="(?:text|date|time)" id="[^"]+" name="([^"]+)" value="([^"]*)"/g;
    while ($html =~ /<select id="[^"]+" name="([^"]+)"[^>]*>(.*?)<\/select>/g) {
        my ($n, $o) = ($1, $2);
        $p{inputs}{$n} = $o =~ /<option value="([^"]*)" selected>/ ? $1 : '';
    }
    $p{errors} = { map { $_ => 1 } $html =~ /<p class="err" id="f-(\w+)-err">/g };
    return \%p;
}
sub open_page { page_of(ua()->get(abs_url(shift), Accept => 'text/html')) }
sub post_page {
    my ($pg, @answers) = @_;
    my @pairs = (@{ $pg->{hidden} || [] }, @answers);
    my $req = HTTP::Request->new(POST => $pg->{action});
    my $body = join '&', map { uri_escape_utf8($_->[0]) . '=' . uri_escape_utf8($_->[1]) } @pairs;
    $req->header('Content-Type' => 'application/x-www-form-urlencoded');
    $req->header(Accept => 'text/html');
    $req->content($body);
    $req->header('Content-Length' => length $body);
    return page_of(ua()->request($req));
}
sub rows {
    my $fid = shift;
    [ map { $J->decode($_) } split /\n/,
      psql("SELECT data::text FROM submissions WHERE form_id = '$fid' ORDER BY id") ]
}
sub errors_of { [ map { "$_->{pointer} $_->{code}" } @{ $_[0]{json}{errors} || [] } ] }

# ---- definitions ------------------------------------------------------------------
my @fields = (
    { key => 'home', type => 'address', label => 'Home address', required => $T },
    { key => 'stay', type => 'daterange', label => 'Your stay', required => $T,
      validation => { minimum => '2026-06-01', maximum => '2026-09-30' } },
    { key => 'arrive', type => 'time', label => 'Arrival time',
      validation => { minimum => '08:00', maximum => '20:30' } },
    { key => 'born', type => 'date', label => 'Date of birth', validation => { maximum => '2008-06-01' } },
    { key => 'call', type => 'datetime', label => 'Call me at',
      validation => { minimum => '2026-06-01T09:00:00+02:00', maximum => '2026-06-30T17:00:00+02:00' } },
    { key => 'sign', type => 'signature', label => 'Signature', required => $T },
);
my $f = make_form($tok, { title => 'Booking', fields => \@fields });
my $fid = $f->{id};
is_deeply [map { $_->{type} } @{ $f->{fields} }], [qw(address daterange time date datetime signature)],
    'a form with an address, a date range, a time, a date and a datetime with bounds, a signature';
is $f->{fields}[1]{validation}{minimum}, '2026-06-01', 'the bounds are kept as sent';
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

for my $c (
    [{ key => 'd', type => 'date', label => 'D', validation => { minimum => '2026-02-01', maximum => '2026-01-31' } },
     '/fields/0/validation/minimum', 'a date minimum after its maximum'],
    [{ key => 'd', type => 'date', label => 'D', validation => { minimum => '2026-02-30' } },
     '/fields/0/validation/minimum', 'a date bound that is no date'],
    [{ key => 't', type => 'time', label => 'T', validation => { maximum => '8:00' } },
     '/fields/0/validation/maximum', 'a time bound that is not HH:MM'],
    [{ key => 't', type => 'datetime', label => 'T',
       validation => { minimum => '2026-01-01T10:00:00+02:00', maximum => '2026-01-01T07:59:59Z' } },
     '/fields/0/validation/minimum', 'a datetime minimum after its maximum (as instants)'],
    [{ key => 'a', type => 'address', label => 'A', placeholder => 'x' }, '/fields/0/placeholder',
     'a placeholder on an address'],
    [{ key => 'a', type => 'signature', label => 'A', validation => { minimum => '2026-01-01' } },
     '/fields/0/validation/minimum', 'bounds on a signature'],
) {
    my $r = api(POST => '/v1/forms', token => $tok, body => { title => 'x', fields => [$c->[0]] });
    is $r->code, 422, "$c->[2]: 422";
    is $r->{json}{errors}[0]{pointer}, $c->[1], "at $c->[1]";
}

# ---- the schema -----------------------------------------------------------------------
my $v = api(GET => "/f/$fid", headers => { Accept => 'application/json' })->{json};
my $s = $v->{schema}{properties};
is_deeply $s->{home}{required}, [qw(line1 city country)], 'an address requires line1, city and country';
is scalar @{ $s->{home}{properties}{country}{enum} }, 249, 'country is one of the 249 ISO 3166-1 alpha-2 codes';
is_deeply $s->{stay}{required}, [qw(start end)], 'a date range has a start and an end';
like $s->{stay}{description}, qr/end is on or after the start/, 'its description says what the schema cannot';
is $s->{arrive}{pattern}, '^(?:[01][0-9]|2[0-3]):[0-5][0-9](?![\s\S])', 'a time is HH:MM';
is scalar @{ $s->{arrive}{allOf} }, 2, 'its bounds as two patterns';
like $s->{call}{description}, qr/from 2026-06-01T09:00:00\+02:00 to 2026-06-30T17:00:00\+02:00/,
    'a datetime\'s bounds in its description';
is_deeply $s->{sign}{required}, ['name'], 'a signature is a typed name';

# ---- JSON -------------------------------------------------------------------------------
my %good = (home => { line1 => '1 Main St', city => 'Springfield', country => 'US', postalCode => '62701' },
            stay => { start => '2026-06-01', end => '2026-06-03' }, arrive => '08:00',
            born => '2008-06-01', call => '2026-06-01T07:00:00Z', sign => { name => 'Ada Lovelace' });
my $r = api(POST => "/f/$fid", body => \%good);
is $r->code, 201, 'JSON: every answer on its bounds: 201' or diag $r->content;
$r = api(POST => "/f/$fid", body => { %good,
    home => { line1 => '', city => 'Springfield', country => 'us', street => 'x' },
    stay => { start => '2026-05-31', end => '2026-10-01' }, arrive => '20:31', born => '2008-06-02',
    call => '2026-06-01T06:59:59Z', sign => { name => '' } });
is $r->code, 422, 'JSON: every answer just past its bounds: 422';
is_deeply [sort @{ errors_of($r) }],
    [sort '/home/line1 required', '/home/country enum', '/home/street unknown', '/stay/start minimum',
     '/stay/end maximum', '/arrive maximum', '/born maximum', '/call minimum', '/sign/name required'],
    'each at the part at fault';
$r = api(POST => "/f/$fid", body => { %good, stay => { start => '2026-06-03', end => '2026-06-02' },
                                      arrive => '07:59', call => '2026-06-30T15:00:01Z' });
is_deeply [sort @{ errors_of($r) }], [sort '/stay/end minimum', '/arrive minimum', '/call maximum'],
    'an end before its start, a time before its minimum, a datetime after its maximum';
$r = api(POST => "/f/$fid", body => { %good, home => '1 Main St', sign => 'Ada', stay => { start => '2026-06-02' } });
is_deeply [sort @{ errors_of($r) }], [sort '/home type', '/sign type', '/stay/end required'],
    'an answer with parts is an object, each required part given';

# ---- the page, without script -------------------------------------------------------
my $p = open_page("/f/$fid");
is $p->{code}, 200, 'the page';
like $p->{html}, qr{<fieldset class="q" id="q-home"><legend>Home address}, 'an address is a group';
like $p->{html}, qr{name="home\.line1" value="" required maxlength="200" autocomplete="address-line1"},
    'its first line, with its autocomplete token';
like $p->{html}, qr{name="home\.postalCode" value="" maxlength="20" autocomplete="postal-code"}, 'its postal code';
like $p->{html}, qr{<select id="f-home-5" name="home\.country" autocomplete="country" required>}, 'its country';
like $p->{html}, qr{<option value="DE">Germany</option>}, 'named in the page\'s language';
like $p->{html}, qr{type="date" id="f-stay-0" name="stay\.start" value="" required aria-describedby="f-stay-bounds" min="2026-06-01" max="2026-09-30"},
    'the start of the range, with its bounds';
like $p->{html}, qr{<p class="help" id="f-stay-bounds">From 2026-06-01 to 2026-09-30\.</p>}, 'said in words';
like $p->{html}, qr{type="time" id="f-arrive" name="arrive" value="" aria-describedby="f-arrive-bounds" min="08:00" max="20:30"},
    'a time input with its bounds';
like $p->{html}, qr{type="date" id="f-born" name="born" value="" aria-describedby="f-born-bounds" max="2008-06-01"},
    'a date input with its maximum';
like $p->{html}, qr{name="call" value="" aria-describedby="f-call-bounds" step="1" min="2026-06-01T07:00:00" max="2026-06-30T15:00:00"},
    'a datetime-local input with its bounds in UTC, as the form reads its value';
like $p->{html}, qr{name="sign\.name" value="" required aria-describedby="f-sign-sign" maxlength="200" autocomplete="name"},
    'the signature\'s name, described by the sentence that says typing it signs (heard on reaching the input)';
like $p->{html}, qr{<p class="help" id="f-sign-sign">Typing your full name here signs this form\.</p>}, 'that sentence';

my @bad = (['home.line1', '1 Main St'], ['home.city', 'Springfield'], ['home.country', 'XX'],
           ['stay.start', '2026-06-05'], ['stay.end', '2026-06-04'], ['arrive', '21:00'],
           ['born', '2010-01-01'], ['call', '2026-06-01T06:00'], ['sign.name', 'Ada Lovelace']);
$p = post_page($p, @bad);
is $p->{code}, 422, 'a refused post: 422';
is_deeply $p->{errors}, { map { $_ => 1 } qw(home stay arrive born call) }, 'errors on those questions';
like $p->{html}, qr{Home address: choose a country from the list}, 'the country error in words';
like $p->{html}, qr{Your stay: the end must not be before the start\.}, 'the range\'s';
like $p->{html}, qr{Arrival time must be on or before 20:30\.}, 'the time\'s';
like $p->{html}, qr{<li><a href="#f-home-5">Home address: choose a country},
    'the summary links to the address\'s part in error, the country';
like $p->{html}, qr{<li><a href="#f-stay-1">Your stay: the end}, 'and to the date range\'s end';
like $p->{html}, qr{<select id="f-home-5" name="home\.country"}, 'which is the country\'s input';
# only the part in error is marked and described by the error: a screen
# reader does not say "invalid" on the lines typed right
like $p->{html}, qr{<select id="f-home-5" name="home\.country" autocomplete="country" required aria-invalid="true" aria-describedby="f-home-err">},
    'the country is marked invalid, described by the error';
like $p->{html}, qr{id="f-home-0" name="home\.line1" value="1 Main St" required maxlength=}, 'the first line, right, is not';
unlike $p->{html}, qr{name="home\.(?:line1|line2|city|region|postalCode)"[^>]*aria-invalid}, 'nor any other line of the address';
like $p->{html}, qr{id="f-stay-1" name="stay\.end" value="2026-06-04" required aria-invalid="true" aria-describedby="f-stay-bounds f-stay-err"},
    'the range\'s end, in error, is marked and described by its bounds and the error';
like $p->{html}, qr{id="f-stay-0" name="stay\.start" value="2026-06-05" required aria-describedby="f-stay-bounds" min=},
    'its start by its bounds only';
is_deeply { map { $_ => $p->{inputs}{$_} } qw(home.line1 home.city stay.start stay.end arrive born call sign.name) },
    { 'home.line1' => '1 Main St', 'home.city' => 'Springfield', 'stay.start' => '2026-06-05',
      'stay.end' => '2026-06-04', arrive => '21:00', born => '2010-01-01', call => '2026-06-01T06:00:00',
      'sign.name' => 'Ada Lovelace' }, 'every answer kept';
$p = post_page($p, ['home.line1', '1 Main St'], ['home.line2', ''], ['home.city', 'Springfield'],
               ['home.region', ''], ['home.postalCode', ''], ['home.country', 'DE'],
               ['stay.start', '2026-06-05'], ['stay.end', '2026-06-09'], ['arrive', '09:30'],
               ['born', '2000-01-01'], ['call', '2026-06-02T08:00'], ['sign.name', 'Ada Lovelace']);
my $first = $p->{res}; $first = $first->previous while $first->previous;
is $first->code, 303, 'corrected: 303';
is(URI->new($p->{res}->request->uri)->path, BASE . "/f/$fid/thanks", 'followed to the thanks page');
is_deeply rows($fid)->[-1],
    { home => { line1 => '1 Main St', city => 'Springfield', country => 'DE' },
      stay => { start => '2026-06-05', end => '2026-06-09' }, arrive => '09:30', born => '2000-01-01',
      call => '2026-06-02T08:00:00Z', sign => { name => 'Ada Lovelace' } },
    'stored as a JSON post would have sent it (empty parts are no answer)';
$p = post_page(open_page("/f/$fid"), ['home.line1', 'x'], ['sign.name', 'Bo']);
ok $p->{errors}{home} && $p->{errors}{stay}, 'a partly answered address and no range: 422 on both';
like $p->{html}, qr{Home address: the city or town is required\.}, 'the part missing named';

# ---- CSV and insights ---------------------------------------------------------------
my $csv = api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' });
is $csv->code, 200, 'the CSV export';
my @lines = split /\r\n/, $csv->decoded_content;
is $lines[0], 'id,createdAt,formVersion,home.line1,home.line2,home.city,home.region,home.postalCode,'
    . 'home.country,stay.start,stay.end,arrive,born,call,sign.name,sign.image',
    'a column per part of an address, a date range and a signature (its image\'s URL)';
is scalar(grep { /,1 Main St,,Springfield,,,DE,2026-06-05,2026-06-09,09:30,2000-01-01,2026-06-02T08:00:00Z,Ada Lovelace,$/ } @lines), 1,
    'each part in its column';
my $ins = api(GET => "/v1/forms/$fid/insights", token => $tok);
is $ins->code, 200, 'insights';
my %q = map { $_->{key} => $_ } @{ $ins->{json}{questions} };
is $ins->{json}{submissions}, 2, 'of the two submissions';
is_deeply [map { $q{$_}{answered} } qw(home stay arrive born call sign)], [2, 2, 2, 2, 2, 2],
    'each new question counted as answered';
is $q{home}{type}, 'address', 'with its type';
is_deeply $q{home}{countries}, [{ value => 'DE', count => 1 }, { value => 'US', count => 1 }],
    'an address: the countries given, most answers first, then by code';
my ($us) = grep { ($_->{data}{home}{country} // '') eq 'US' } @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} };
is api(DELETE => "/v1/forms/$fid/submissions/$us->{id}", token => $tok)->code, 204, 'the US answer deleted';
is_deeply api(GET => "/v1/forms/$fid/insights", token => $tok)->{json}{questions}[0]{countries}, [{ value => 'DE', count => 1 }],
    'its country counted no more';

# ---- a signature's drawn image: a file, stored as file fields' are --------------
# a PNG's frame (IHDR of 60 x 15 first, IEND last: what the server reads)
my $PNG = "\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR" . pack('NN', 60, 15) . "\x08\0\0\0\0CRC!"
        . ("\x00\x01" x 50) . "\0\0\0\0IEND\xae\x42\x60\x82";
$r = api(POST => "/f/$fid", body => { %good, sign => { name => 'Ada Lovelace',
    image => { name => 'sig.png', type => 'image/png', data => MIME::Base64::encode_base64($PNG, '') } } });
is $r->code, 201, 'JSON: a signature with its drawn image: 201' or diag $r->content;
my $img = rows($fid)->[-1]{sign}{image};
is $img->{type}, 'image/png', 'stored as a file: its metadata in the answer';
is $img->{size}, length $PNG, 'its size';
my $dl = api(GET => ($img->{url} =~ s{^https?://[^/]+\Q@{[BASE]}\E}{}r), token => $tok);
is $dl->code, 200, 'the owner downloads it';
is $dl->content, $PNG, 'byte for byte';
$r = api(POST => "/f/$fid", body => { %good, sign => { name => 'Ada',
    image => { name => 'sig.png', type => 'image/png', data => MIME::Base64::encode_base64('GIF89a....', '') } } });
is $r->code, 422, 'an image that is no PNG: 422';
is $r->{json}{errors}[0]{pointer}, '/sign/image', 'at the image';
$r = api(POST => "/f/$fid", body => { %good, sign => { name => 'Ada',
    image => { name => 's.png', type => 'image/jpeg', data => 'iVBO' } } });
is_deeply errors_of($r), ['/sign/image/type const'], 'a PNG only, as the schema says';
my $B = '----TypesB7MA4YWxkTrZu0gW';
my $mp = join('', map { my ($n, $v, $fn, $t) = @$_;
                        "--$B\r\nContent-Disposition: form-data; name=\"$n\"" . ($fn ? "; filename=\"$fn\"\r\nContent-Type: $t" : '')
                        . "\r\n\r\n$v\r\n" }
             ['home.line1', '2 Side St'], ['home.city', 'Leeds'], ['home.country', 'GB'],
             ['stay.start', '2026-07-01'], ['stay.end', '2026-07-02'], ['sign.name', 'Bo'],
             ['sign.image', $PNG, 'signature.png', 'image/png']) . "--$B--\r\n";
$r = api(POST => "/f/$fid", body => $mp, headers => { 'Content-Type' => "multipart/form-data; boundary=$B", Accept => 'application/json' });
is $r->code, 201, 'a multipart post with the drawn image as the part sign.image: 201' or diag $r->content;
is rows($fid)->[-1]{sign}{image}{sha256}, Digest::SHA::sha256_hex($PNG), 'its image stored';
like api(GET => "/v1/forms/$fid/submissions", token => $tok, headers => { Accept => 'text/csv' })->decoded_content,
    qr{,Bo,https?://\S+/files/fil_\w+\r\n}, 'the CSV cell of an image is its URL';

# ---- a real browser: axe at 320 px, English and Arabic, light and dark; no script --
SKIP: {
    my $CHROMIUM = $ENV{FORMSVC_CHROMIUM} // '/usr/bin/chromium';
    skip "no $CHROMIUM", 1 if !-x $CHROMIUM && $ENV{FORMSVC_SKIP_NODE};
    ok -x $CHROMIUM, "$CHROMIUM is installed" or last SKIP;
    skip 'node or t/js/node_modules missing', 1 unless node_ready('playwright-core', 'axe-core');
    my $bf = make_form($tok, { title => 'Booking', settings => { locale => 'auto' }, fields => \@fields });
    is api(POST => "/v1/forms/$bf->{id}/publish", token => $tok)->code, 200, 'the same form, in the visitor\'s language';
    require File::Temp;
    my $plan = File::Temp->new(SUFFIX => '.json');
    print $plan JSON::PP->new->utf8->encode({
        chromium => $CHROMIUM, url => Apache::TestRequest::resolve_url(BASE . "/f/$bf->{id}"),
        shots => [qw(home stay arrive born sign)],
        answers => [{ selector => '#f-home-0', value => '1 Main St' }, { selector => '#f-home-2', value => 'Lyon' },
                    { selector => '#f-home-5', value => 'FR', kind => 'select' },
                    { selector => '#f-stay-0', value => '2026-06-05' }, { selector => '#f-stay-1', value => '2026-06-09' },
                    { selector => '#f-arrive', value => '09:30' }, { selector => '#f-call', value => '2026-06-02T08:00' },
                    { selector => '#f-sign-0', value => 'Ada Lovelace' }] });
    close $plan;
    delete local $ENV{LD_PRELOAD}; # make test-asan's sanitizer runtime is httpd's, not the browser's
    my $JU = JSON::PP->new->utf8;
    open my $fh, '-|', 'node', "$FindBin::Bin/js/axe_types_b.mjs", $plan->filename or die "node: $!";
    my $done;
    while (my $line = <$fh>) {
        my $m = eval { $JU->decode($line) };
        unless ($m) { diag "node: $line"; next }
        if ($m->{done}) { $done = $m; next }
        ok $m->{ok}, $m->{name} or diag $m->{diag};
    }
    close $fh;
    is $?, 0, 'the browser run exited cleanly';
    ok $done, 'the browser run went through' and note "browser run: $done->{ms} ms";
    my @br = @{ rows($bf->{id}) };
    is scalar @br, 2, 'the browser sent the form twice';
    is $br[1]{sign}{image}{type}, 'image/png', 'with script: the drawn signature stored as a PNG file';
    ok $br[1]{sign}{image}{size} > 100 && $br[1]{sign}{image}{size} <= 262144, 'of a bounded size';
    delete $br[1]{sign}{image};
    is_deeply $br[1], $br[0], 'the rest as without script';
    is_deeply $br[0],
        { home => { line1 => '1 Main St', city => 'Lyon', country => 'FR' },
          stay => { start => '2026-06-05', end => '2026-06-09' }, arrive => '09:30',
          call => '2026-06-02T08:00:00Z', sign => { name => 'Ada Lovelace' } },
        'what the browser posted without script is stored (the typed name is the signature)';
}

done_testing;
