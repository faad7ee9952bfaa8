# The module's database sessions keep one generic plan per prepared
# statement and never JIT-compile (plan_cache_mode = force_generic_plan,
# jit = off): the module sets them on each session itself (store/fs_db.c),
# whatever DBDParams say, because with PostgreSQL's defaults every
# execution is planned anew over all the partitions of a table
# (docs/performance.md, "Generic plans"). Each child says at its start what
# its session reads back (FS02193, info); a session left planning anew
# would be FS02192, one whose settings cannot be read FS02191.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcTest;

# the test database's own defaults are PostgreSQL's: the module's setting
# is not inherited from the server or the database
is psql('SHOW plan_cache_mode'), 'auto', "a session of the test database's own plans with the default (auto)";
is psql('SHOW jit'), 'on', "and may JIT-compile (jit = on)";

my ($secret) = signup();
is api(GET => '/v1/me', token => $secret)->code, 200, 'the server answers';

my $log = "$FindBin::Bin/logs/error_log";
my $text = '';
wait_for(sub {
    open my $fh, '<', $log or return 0;
    local $/; $text = <$fh>; close $fh;
    return $text =~ /FS02193: /;
}, 10, 'a child to say how its database sessions plan');
my @said = $text =~ /FS02193: ([^\n]*)/g;
ok scalar @said, 'children said how their sessions plan (FS02193)';
is_deeply [ grep { !/\(plan_cache_mode=force_generic_plan, jit=off\)$/ } @said ], [],
    'every one read back force_generic_plan and jit off through its pooled session';
unlike $text, qr/FS0219[012]: /, 'no session refused the settings or planned anew';

done_testing;
