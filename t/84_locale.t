# Languages of the public pages: settings.locale sets
# <html lang> and dir and translates every built-in string of the form page,
# the thank-you and closed pages and the field errors shown on the page
# after an HTML post; "auto" follows Accept-Language (q-values), with Vary
# and a cached page per language. The JSON view and problems stay English,
# with a messageCode per field error. A missing or broken language file
# stops httpd (FS03601).
use strict;
use warnings;
use utf8;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use PublicTest;
use FormsvcInstance;
use File::Path qw(make_path);
use File::Copy qw(copy);
use JSON::PP ();

binmode Test::More->builder->$_, ':encoding(UTF-8)' for qw(output failure_output todo_output);

my @fields = (
    { key => 'name', type => 'text', label => 'Name', required => JSON::PP::true, position => 0 },
    { key => 'age', type => 'integer', label => 'Age', position => 1,
      validation => { minimum => 18 } },
    { key => 'size', type => 'select', label => 'Size', position => 2,
      options => [ { value => 's', label => 'S' } ] },
    { key => 'stars', type => 'rating', label => 'Stars', position => 3,
      validation => { maximum => 3 } },
);

sub page {
    my ($url, %h) = @_;
    my $r = req(GET => $url, headers => { Accept => 'text/html', %h });
    return ($r, $r->decoded_content // '');
}

sub html_lang { my $h = shift; return $h =~ /<html lang="([^"]*)" dir="([^"]*)">/ ? "$1 $2" : '' }

# ---- a fixed language ------------------------------------------------------
my $de = make_form(fields => \@fields, title => 'Umfrage', settings => { locale => 'de' });
my ($r, $h) = page(form_url($de));
is $r->code, 200, 'German form: 200';
is html_lang($h), 'de ltr', '<html lang="de" dir="ltr">';
like $h, qr{<button type="submit">Absenden</button>}, 'the button';
like $h, qr{<span class="req">\(Pflichtfeld\)</span>}, 'the required mark';
like $h, qr{Bitte wählen…</option>}, 'the select\'s first option';
like $h, qr{>2 von 3</label>}, 'the rating\'s labels';
like $h, qr{Dieses Feld bitte leer lassen}, 'the honeypot\'s label';
unlike $h, qr/Submit|\(required\)|Choose…| of 3</, 'no English left';
unlike $r->header('Vary') // '', qr/Accept-Language/, 'a fixed language does not vary';

# the answers refused: the field errors in German
$r = req(POST => form_url($de), type => 'application/x-www-form-urlencoded',
         body => 'age=7&size=x', headers => { Accept => 'text/html' });
$h = $r->decoded_content;
is $r->code, 422, 'German page post with errors: 422';
is html_lang($h), 'de ltr', 'the error page in German';
like $h, qr{<h2 id="summary-title">Bei 3 Antworten gibt es Probleme</h2>}, 'the summary';
like $h, qr{Fehler: Name ist ein Pflichtfeld\.}, 'required';
like $h, qr{Fehler: Age muss mindestens 18 sein\.}, 'minimum, with its number';
like $h, qr{Fehler: Size muss eine der angebotenen Auswahlmöglichkeiten sein\.}, 'enum';
unlike $h, qr/is required|must be/, 'no English message';

# the same refusal as JSON: English, with the message's code and arguments
$r = req(POST => form_url($de), type => 'application/json', body => '{"age":7}');
is $r->code, 422, 'JSON post: 422';
my %e = map { $_->{pointer} => $_ } @{ $r->{json}{errors} };
is $e{'/name'}{detail}, 'Name is required.', 'the problem stays English';
is $e{'/name'}{messageCode}, 'required', 'with a messageCode';
is_deeply $e{'/age'}{messageParams}, { label => 'Age', n => '18' }, 'and its arguments';
is $e{'/age'}{messageCode}, 'minimum', 'minimum\'s code';

# the JSON view is English and does not vary
$r = req(GET => form_url($de), headers => { Accept => 'application/json' });
is $r->code, 200, 'JSON view';
is $r->{json}{title}, 'Umfrage', 'the form\'s own words as written';

# thanks: the page in German, the JSON in English; the 303's own page too
$r = req(POST => form_url($de), type => 'application/x-www-form-urlencoded', body => 'name=Ada',
         headers => { Accept => 'text/html' });
is $r->code, 303, 'accepted';
like $r->decoded_content, qr{<title>Vielen Dank</title>.*Ihre Antworten sind eingegangen\.}s,
    'the 303\'s small page in German';
($r, $h) = page(form_url($de) . '/thanks');
is html_lang($h), 'de ltr', 'thank-you page in German';
like $h, qr{Vielen Dank\. Ihre Antworten sind eingegangen\.}, 'the default thanks';
$r = req(GET => form_url($de) . '/thanks', headers => { Accept => 'application/json' });
is $r->{json}{message}, 'Thank you. Your answers were received.', 'JSON thanks in English';

# not open yet (settings.opensAt): the page says when, in the form's language
my $later = make_form(fields => \@fields, status => 'published',
                      settings => { locale => 'de', opensAt => '2099-05-01T09:30:00Z' });
($r, $h) = page(form_url($later));
is html_lang($h), 'de ltr', 'not-open page in German';
like $h, qr{Dieses Formular ist noch nicht geöffnet\. Es öffnet am 2099-05-01 um 09:30 UTC\.},
    'with the date and time of opensAt';
$later = make_form(fields => \@fields, status => 'published',
                   settings => { locale => 'he', opensAt => '2099-05-01T09:30:00Z' });
($r, $h) = page(form_url($later));
like $h, qr{הטופס הזה עדיין לא פתוח}, 'and in Hebrew';

# a respondent link that is not this form's: the page says so in the form's language
my $linked = make_form(fields => \@fields, status => 'published', settings => { locale => 'de' });
($r, $h) = page(form_url($linked) . '?l=fsl_0000000000000000000000000000000000000');
ok $r->code >= 400, 'a foreign link: refused (' . $r->code . ')';
like $h, qr{Dieser Link ist ungültig|Dieser Link ist abgelaufen|Dieser Link wurde bereits verwendet},
    'the link page in German';

# settings.uniqueBy: the repeated answer's notice in the form's language
my $uniq = make_form(fields => \@fields, status => 'published',
                     settings => { locale => 'he', uniqueBy => ['name'] });
for my $try (1, 2) {
    $r = req(POST => form_url($uniq), type => 'application/x-www-form-urlencoded',
             body => 'name=Dana&stars=3', headers => { Accept => 'text/html' });
}
is $r->code, 409, 'the same name again: 409';
like $r->decoded_content, qr{כבר התקבלה תשובה עם אותם ערכים}, 'with the notice in Hebrew';

# a refused upload: the file named, the reason in the form's language
my $up = make_form(status => 'published', settings => { locale => 'de' },
                   fields => [ { key => 'cv', type => 'file', label => 'Lebenslauf', position => 0,
                                 validation => { accept => ['application/pdf'] } } ]);
my $mb = 'xLOCALEx';
my $mbody = "--$mb\r\nContent-Disposition: form-data; name=\"cv\"; filename=\"bild.png\"\r\n"
          . "Content-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n0000\r\n--$mb--\r\n";
$r = req(POST => form_url($up), type => "multipart/form-data; boundary=$mb", body => $mbody,
         headers => { Accept => 'text/html' });
is $r->code, 422, 'an upload of a type the question does not take: 422';
like $r->decoded_content, qr{Lebenslauf \(bild\.png\): Diese Art von Datei wird hier nicht angenommen\.},
    'the page names the file and says why, in German';

# closed: the GET page and an HTML post's 409
my $closed = make_form(fields => \@fields, status => 'closed', settings => { locale => 'fr' });
($r, $h) = page(form_url($closed));
is html_lang($h), 'fr ltr', 'closed page in French';
like $h, qr{Ce formulaire est fermé et n’accepte plus de réponses\.}, 'the closed message';
$r = req(POST => form_url($closed), type => 'application/x-www-form-urlencoded', body => 'name=x',
         headers => { Accept => 'text/html' });
is $r->code, 409, 'post to a closed form: 409';
like $r->decoded_content, qr{Ce formulaire est fermé}, 'in French';

# right to left, and the fallbacks of tags
my %dir = (he => 'he rtl', ar => 'ar rtl', 'pt-BR' => 'pt ltr', 'zh-TW' => 'zh-Hans ltr',
           'ZH' => 'zh-Hans ltr', ja => 'ja ltr');
my %button = (he => 'שליחה', ar => 'إرسال', 'pt-BR' => 'Enviar', 'zh-TW' => '提交', 'ZH' => '提交',
              ja => '送信');
for my $tag (sort keys %dir) {
    my $f = make_form(fields => \@fields, settings => { locale => $tag });
    ($r, $h) = page(form_url($f));
    is html_lang($h), $dir{$tag}, "locale $tag: $dir{$tag}";
    like $h, qr{<button type="submit">\Q$button{$tag}\E</button>}, "locale $tag: its button";
}
my $none = make_form(fields => \@fields);
($r, $h) = page(form_url($none));
is html_lang($h), 'en ltr', 'no locale: English';
like $h, qr{<button type="submit">Submit</button>}, 'Submit';

# ---- auto ------------------------------------------------------------------
my $auto = make_form(fields => \@fields, settings => { locale => 'auto' });
my @cases = (
    [ 'sv, de;q=0.5, ja;q=0.8', 'ja ltr', '送信' ],
    [ 'fr-CH, fr;q=0.9, de;q=0.95', 'fr ltr', 'Envoyer' ],
    [ 'en;q=0.2, nl;q=0.9, pl;q=0.8', 'nl ltr', 'Versturen' ],
    [ 'fr;q=0, it', 'it ltr', 'Invia' ],
    [ 'he', 'he rtl', 'שליחה' ],
    [ 'sv, fi;q=0.5', 'en ltr', 'Submit' ],
    [ '*', 'en ltr', 'Submit' ],
    [ undef, 'en ltr', 'Submit' ],
);
for my $round (1, 2) { # the second round from the cache
    for my $c (@cases) {
        my ($al, $want, $button) = @$c;
        ($r, $h) = page(form_url($auto), defined $al ? ('Accept-Language' => $al) : ());
        my $what = sprintf 'auto, %s (round %d)', $al // 'no Accept-Language', $round;
        is html_lang($h), $want, "$what: $want";
        like $h, qr{<button type="submit">\Q$button\E</button>}, "$what: $button";
        like $r->header('Vary') // '', qr/Accept-Language/, "$what: Vary: Accept-Language";
    }
}
$r = req(POST => form_url($auto), type => 'application/x-www-form-urlencoded', body => 'age=x',
         headers => { Accept => 'text/html', 'Accept-Language' => 'es-MX, en;q=0.5' });
is $r->code, 422, 'auto: a post with errors';
$h = $r->decoded_content;
is html_lang($h), 'es ltr', 'answered in Spanish';
like $h, qr{Error: Name: este campo es obligatorio\.}, 'its errors in Spanish';
like $r->header('Vary') // '', qr/Accept-Language/, 'Vary on the error page too';

# ---- the setting through the API --------------------------------------------
my ($tok) = signup();
$r = api(POST => '/v1/forms', token => $tok, body => { title => 'L', settings => { locale => 'pt-BR' } });
is $r->code, 201, 'created with locale pt-BR';
is $r->{json}{settings}{locale}, 'pt-BR', 'kept as given';
my $fid = $r->{json}{id};
for my $bad ([ 'sv', 'enum' ], [ 'de_DE', 'format' ], [ '', 'format' ], [ 5, 'type' ]) {
    $r = api(PATCH => "/v1/forms/$fid", token => $tok,
             body => { settings => { locale => $bad->[0] } },
             headers => { 'Content-Type' => 'application/merge-patch+json' });
    is $r->code, 422, "locale '$bad->[0]' refused";
    my ($err) = grep { $_->{pointer} eq '/settings/locale' } @{ $r->{json}{errors} // [] };
    is $err && $err->{code}, $bad->[1], "  as $bad->[1]";
}
$r = api(PATCH => "/v1/forms/$fid", token => $tok, body => { settings => { locale => undef } },
         headers => { 'Content-Type' => 'application/merge-patch+json' });
is $r->code, 200, 'locale removed (null)';
ok !exists $r->{json}{settings}{locale}, 'gone from the settings';

# ---- startup: a missing or broken file stops httpd ----------------------------
my $dir = "$FindBin::Bin/logs/locales-broken";
make_path($dir);
copy($_, $dir) or die $! for glob "$ENV{FORMSVC_ROOT}/share/locales/*.json";
chmod 0644, glob "$dir/*.json";
open my $fh, '>', "$dir/nl.json" or die $!;
print $fh '{"page.submit": "Versturen"}';
close $fh;
my $inst = eval { FormsvcInstance->start(name => 'locales', conf => "FormsvcLocaleDir \"$dir\"\n") };
ok !$inst, 'a language file without every key stops httpd';
like $@, qr/FS03601.*nl\.json: the key \S+ is missing/, 'FS03601 names the file and the key';
unlink "$dir/nl.json";
$inst = eval { FormsvcInstance->start(name => 'locales', conf => "FormsvcLocaleDir \"$dir\"\n") };
ok !$inst, 'a missing language file stops httpd';
like $@, qr/FS03601.*cannot open \S*nl\.json/, 'FS03601 says which';

done_testing;
