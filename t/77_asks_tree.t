# An ask's url carries its respondent link's token: a capability to answer
# for the person asked. A delegate reads, lists and deletes only the links
# made inside its own delegation tree, so GET /v1/asks and
# GET /v1/asks/{id} show the url only to an owner key and to a delegate in
# whose tree the ask was made; any other credential of the account sees
# the ask with url null (and cannot answer it in the person's place).
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest qw(api signup);
use FormsTest qw(problem_ok);

my ($owner) = signup();
sub key_with {
    my $r = api(POST => '/v1/keys', token => $owner, body => { name => 'agent', scopes => [@_] });
    die 'key: ' . $r->content unless $r->code == 201;
    return $r->{json}{secret};
}
my $reader = key_with('forms:read', 'submissions:read');
my $asker = key_with('forms:write', 'submissions:read');
my $x = api(POST => '/v1/token', body => { grant_type => 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token => $asker, subject_token_type => 'urn:ietf:params:oauth:token-type:access_token', actor => 'sub-agent' });
is $x->code, 200, "a token delegated from the asker";
my $child = $x->{json}{access_token};

my $schema = { type => 'object', properties => { decision => { enum => ['approve', 'reject'] } },
               required => ['decision'] };
sub ask {
    my $r = api(POST => '/v1/asks', token => $_[0], body => { message => 'May I deploy?', schema => $schema });
    die 'ask: ' . $r->content unless $r->code == 201;
    return $r->{json};
}
my %ask = (owner => ask($owner), asker => ask($asker), child => ask($child));
like $ask{$_}{url}, qr/[?&]l=fsl_/, "$_: the new ask has its url" for sort keys %ask;

# who sees which url: the owner every one, a delegate those made in its tree
my %sees = (
    owner  => { owner => 1, asker => 1, child => 1 },
    asker  => { owner => 0, asker => 1, child => 1 },
    child  => { owner => 0, asker => 0, child => 1 },
    reader => { owner => 0, asker => 0, child => 0 },
);
my %tok = (owner => $owner, asker => $asker, child => $child, reader => $reader);
for my $who (sort keys %sees) {
    my $list = api(GET => '/v1/asks', token => $tok{$who});
    is $list->code, 200, "$who lists the asks";
    my %in = map { $_->{id} => $_ } @{ $list->{json}{data} || [] };
    for my $made (sort keys %ask) {
        my $one = api(GET => "/v1/asks/$ask{$made}{id}", token => $tok{$who});
        is $one->code, 200, "$who reads the ask made by $made";
        if ($sees{$who}{$made}) {
            is $one->{json}{url}, $ask{$made}{url}, "$who: the url of the ask made by $made";
            is $in{ $ask{$made}{id} }{url}, $ask{$made}{url}, "$who: listed with its url";
        } else {
            ok exists $one->{json}{url} && !defined $one->{json}{url},
                "$who: no url for the ask made by $made (its link is outside the tree)";
            ok exists $in{ $ask{$made}{id} } && !defined $in{ $ask{$made}{id} }{url}, "$who: listed, url null";
        }
    }
}
# the link route agrees: outside the tree, 404
problem_ok api(GET => "/v1/forms/$ask{asker}{formId}/links/$ask{asker}{linkId}", token => $reader),
    404, 'not-found', "the reader: the asker's link is 404 on the link route too";
is api(GET => "/v1/forms/$ask{asker}{formId}/links/$ask{asker}{linkId}", token => $asker)->code, 200,
    'the asker reads its own link';

done_testing;
