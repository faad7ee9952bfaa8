# docs/mcp.md's walkthrough, kept true: scripts/assistant-walkthrough runs
# its steps with curl and jq against the suite's server (discovery, dynamic
# registration, PKCE, the authorize page with the mailed code, the token,
# MCP initialize with elicitation, ask_human answered in the client through
# elicitation/create, ask_human with the link answered by the person while
# get_ask waits, the owner's grants) and stops at the first step that does
# not answer as documented.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest qw(base_url);

delete $ENV{LD_PRELOAD};
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
# jq and curl are installed by scripts/install-deps: missing is a broken
# set-up, not a reason to pass
my $tools = system('jq --version >/dev/null 2>&1') == 0 && system('curl --version >/dev/null 2>&1') == 0;
ok $tools, 'jq and curl are there (scripts/install-deps)';
SKIP: {
    skip 'jq or curl missing', 4 unless $tools;
    local $ENV{BASE} = base_url();
    local $ENV{MAIL} = "$FindBin::Bin/logs/mail";
    my $out = `bash $root/scripts/assistant-walkthrough 2>&1`;
    is $?, 0, 'every step of the walkthrough answered as documented' or diag $out;
    like $out, qr/"status":"answered","elicitation":"accepted","answer":\{[^}]*"decision":"approve"/,
        'ask_human answered in the client (elicitation)';
    like $out, qr/"status":"answered","answer":\{[^}]*"decision":"reject"/, 'ask_human answered through the link';
    like $out, qr/"clientName":"My assistant"/, 'the owner sees the grant';
}

done_testing;
