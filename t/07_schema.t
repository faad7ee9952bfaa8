# A database whose schema is behind the module is reported as such, not as
# "database not reachable": mod_dbd opens no connection when preparing a
# statement fails, so the module asks on a connection of its own. Private
# httpd instances on databases of their own: one a migration behind, one
# never migrated, one that does not exist. Also: without
# FormsvcMailTransport the module warns at start and spools under /var.
use strict;
use warnings;
use Test::More;
use FindBin; use lib "$FindBin::Bin/lib";
use FormsvcInstance;
use FormsvcTest qw(psql);
use File::Temp qw(tempdir);
use File::Copy qw(copy);
use Time::HiRes ();
use Fcntl ();

delete $ENV{LD_PRELOAD};  # no sanitizer runtime in psql (make test-asan)
my $root = $ENV{FORMSVC_ROOT} or die 'FORMSVC_ROOT not set';
my @sql = sort glob "$root/sql/[0-9][0-9][0-9][0-9]_*.sql";
my ($need) = map { /(\d{4})_[^\/]*$/ ? $1 + 0 : () } $sql[-1];
my ($prev) = map { /(\d{4})_[^\/]*$/ ? $1 + 0 : () } $sql[-2];

sub migrate {
    my ($db, $dir) = @_;
    system('bash', "$root/scripts/formsvc-admin", '--sql-dir', $dir, 'migrate', '--', '-h', $ENV{FORMSVC_PGSOCK},
           '-p', $ENV{FORMSVC_PGPORT}, '-U', 'postgres', $db) == 0 or die 'migrate';
}
my @dbs = ("formsvc_behind_$$", "formsvc_empty_$$");
psql("CREATE DATABASE $_", db => 'postgres') for @dbs;
END { eval { psql("DROP DATABASE IF EXISTS $_ WITH (FORCE)", db => 'postgres') } for @dbs }

# every migration but the newest
my $dir = tempdir(CLEANUP => 1);
copy($_, $dir) or die for @sql[0 .. $#sql - 1];
migrate($dbs[0], $dir);

my $msg = qr/schema $prev, module needs $need: run formsvc-admin migrate/;
my $inst = FormsvcInstance->start(name => 'behind', db => $dbs[0]);
my $r = $inst->api(GET => '/readyz');
is $r->code, 503, 'readyz 503 with the schema a migration behind';
is $r->{json}{detail}, "schema $prev, module needs $need: run formsvc-admin migrate", 'and says which, and what to do';
like $inst->error_log, qr/FS003(07|23): database $msg/, 'the error log says the same at start';
unlike $inst->error_log, qr/FS00306/, 'not "database not reachable"';
# one rule for a schema behind: /v1, /f and /mcp refuse too, naming the fix
# (before, only /readyz said so and the rest answered 200)
for my $c (['GET', '/v1/me'], ['POST', '/v1/signup'], ['GET', '/f/frm_00000000000000000000000000'], ['POST', '/mcp']) {
    $r = $inst->api($c->[0] => $c->[1], body => $c->[0] eq 'POST' ? { email => "behind$$\@example.com" } : undef);
    is $r->code, 503, "$c->[0] $c->[1]: 503 with the schema behind";
    like $r->{json}{detail} // '', qr/schema $prev, module needs $need: run formsvc-admin migrate/, "$c->[0] $c->[1]: naming formsvc-admin migrate";
}
is $inst->api(GET => '/healthz')->code, 200, 'healthz still 200';

# migrating while httpd runs: ready without a restart
migrate($dbs[0], "$root/sql");
my $code = 0;
FormsvcTest::wait_for(sub { $r = $inst->api(GET => '/readyz'); ($code = $r->code) == 200 }, 10, '/readyz 200');
is $code, 200, 'readyz 200 once migrated, without a restart';
is $r->{json}{schemaVersion}, $need, 'schemaVersion is the newest';
# every child: within its two-second memory of the last answer
$code = 0;
my $try = 0;
FormsvcTest::wait_for(sub {
    $try++;
    ($code = $inst->api(POST => '/v1/signup', body => { email => "behind$try.$$\@example.com" })->code) == 201;
}, 10, '/v1 to serve again');
is $code, 201, 'and /v1 serves again';
$inst->stop;

# a schema newer than the module (a downgrade, or a machine not upgraded
# yet): served, and said
my $ahead = $need + 1;
psql("INSERT INTO schema_migrations (version, name) VALUES ($ahead, 'from_the_future')", db => $dbs[0]);
$inst = FormsvcInstance->start(name => 'ahead', db => $dbs[0]);
is $inst->api(GET => '/readyz')->code, 200, 'schema ahead: ready';
is $inst->api(POST => '/v1/signup', body => { email => "ahead$$\@example.com" })->code, 201, 'and serving';
like $inst->error_log, qr/FS00392: database schema $ahead is newer than this module's $need/, 'the error log says the schema is ahead';
$inst->stop;
psql("DELETE FROM schema_migrations WHERE version = $ahead", db => $dbs[0]);

# never migrated: no schema_migrations at all
$inst = FormsvcInstance->start(name => 'empty', db => $dbs[1]);
$r = $inst->api(GET => '/readyz');
is $r->code, 503, 'readyz 503 on a database never migrated';
is $r->{json}{detail}, "schema 0, module needs $need: run formsvc-admin migrate", 'schema 0';
like $inst->error_log, qr/FS003(07|23): database schema 0, module needs $need/, 'logged';
$inst->stop;

# a database that does not exist: unreachable, said as such
$inst = FormsvcInstance->start(name => 'nodb', db => "formsvc_nonexistent_$$");
$r = $inst->api(GET => '/readyz');
is $r->code, 503, 'readyz 503 when the database does not exist';
is $r->{json}{detail}, 'The database cannot be reached.', 'said as unreachable';
like $inst->error_log, qr/FS00306: database not reachable at start \(.*formsvc_nonexistent_$$.*does not exist/,
    'the log names libpq\'s reason';
unlike $inst->error_log, qr/module needs/, 'no schema message';
$inst->stop;

# No FormsvcMailTransport: a warning, and the spool under /var (made at
# start when root; removed again when this test made it).
SKIP: {
    skip 'needs root to make /var/spool/formsvc', 3 unless $> == 0;
    # the directory is the machine's: another suite running at the same
    # time (another checkout) makes and removes it too, so one at a time
    open my $lock, '>', '/tmp/formsvc-test-var-spool.lock' or die $!;
    flock $lock, Fcntl::LOCK_EX() or die $!;
    my $made = !-e '/var/spool/formsvc';
    $inst = FormsvcInstance->start(name => 'nomail', mail => 0);
    like $inst->error_log, qr{FS00615: no FormsvcMailTransport: .* files in /var/spool/formsvc/mail, not sent; set FormsvcMailTransport smtp},
        'warns at start when no mail transport is set';
    ok -d '/var/spool/formsvc/mail', 'and spools under /var/spool/formsvc/mail';
    is +(getpwuid((stat '/var/spool/formsvc/mail')[4]))[0], 'www-data', 'owned by the children\'s user';
    $inst->stop;
    if ($made) { rmdir '/var/spool/formsvc/mail'; rmdir '/var/spool/formsvc' }
    close $lock;
}

done_testing;
