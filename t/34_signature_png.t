# A signature's drawn image is read as a PNG beyond its first 8 bytes: it
# must begin with its IHDR chunk, of a width and height from 1 to 4096
# pixels, and end with its IEND chunk. A decompression bomb (a 200 KB file
# that claims 15000 x 15000 pixels, 225 MB once decoded), a PNG with a
# page appended after IEND, and the PNG signature followed by anything
# else are refused (422 at /sign/image), over JSON and multipart; a real
# PNG (made here with zlib) is taken. On the old code all three were
# stored. A file field's PNG is checked by its first bytes only, as before.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;
use FormsTest qw(make_form);
use JSON::PP ();
use MIME::Base64 ();
use Compress::Zlib ();

my ($tok) = signup();
my $f = make_form($tok, { title => 'Signed', fields => [
    { key => 'sign', type => 'signature', label => 'Signature' },
    { key => 'doc', type => 'file', label => 'A picture', validation => { accept => ['image/png'] } } ] });
my $fid = $f->{id};
is api(POST => "/v1/forms/$fid/publish", token => $tok)->code, 200, 'published';

sub chunk { my ($t, $d) = @_; pack('N', length $d) . $t . $d . pack('N', Compress::Zlib::crc32($t . $d)) }
sub png {
    my ($w, $h, $after) = @_;
    my $raw = join '', map { "\0" . ("\0" x $w) } 1 .. $h;   # filter byte + a grey row
    return "\x89PNG\r\n\x1a\n" . chunk('IHDR', pack('NNCCCCC', $w, $h, 8, 0, 0, 0, 0))
         . chunk('IDAT', Compress::Zlib::compress($raw, 9)) . chunk('IEND', '') . ($after // '');
}
sub sign_json {
    my ($bytes) = @_;
    return api(POST => "/f/$fid", headers => { Accept => 'application/json' }, body => { sign => { name => 'Ada',
        image => { name => 's.png', type => 'image/png', data => MIME::Base64::encode_base64($bytes, '') } } });
}
sub pointers { [map { $_->{pointer} } @{ $_[0]->{json}{errors} || [] }] }

my $r = sign_json(png(600, 150));
is $r->code, 201, 'a drawn PNG of 600 x 150: 201' or diag $r->content;
my $bomb = png(15000, 15000);
ok length($bomb) < 256 * 1024, sprintf 'the bomb is small (%d bytes)', length $bomb;
$r = sign_json($bomb);
is $r->code, 422, 'a PNG that claims 15000 x 15000 pixels: 422';
is_deeply pointers($r), ['/sign/image'], '  at /sign/image';
$r = sign_json(png(10, 10, '<html><script>alert(1)</script></html>'));
is $r->code, 422, 'a PNG with a page after IEND: 422';
$r = sign_json("\x89PNG\r\n\x1a\n" . ("\x00\x01" x 50));
is $r->code, 422, 'the PNG signature and anything else: 422';

# multipart: the image as the page's pad posts it
my $B = 'xYzB' . int rand 1e9;
my $mp = "--$B\r\nContent-Disposition: form-data; name=\"sign.name\"\r\n\r\nAda\r\n"
       . "--$B\r\nContent-Disposition: form-data; name=\"sign.image\"; filename=\"signature.png\"\r\n"
       . "Content-Type: image/png\r\n\r\n$bomb\r\n--$B--\r\n";
$r = api(POST => "/f/$fid", body => $mp, headers => { 'Content-Type' => "multipart/form-data; boundary=$B",
                                                      Accept => 'application/json' });
is $r->code, 422, 'multipart: the bomb as the pad image: 422';
is_deeply pointers($r), ['/sign/image'], '  at /sign/image';

# a file field: its first bytes only, as before
$r = api(POST => "/f/$fid", headers => { Accept => 'application/json' }, body => { doc => [{ name => 'p.png',
    type => 'image/png', data => MIME::Base64::encode_base64(png(10, 10, 'tail'), '') }] });
is $r->code, 201, 'a file field takes a PNG with bytes after IEND, as before' or diag $r->content;

is scalar @{ api(GET => "/v1/forms/$fid/submissions", token => $tok)->{json}{data} }, 2,
   'two submissions stored, none of the refused';

done_testing;
