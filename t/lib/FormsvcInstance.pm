package FormsvcInstance;
# Extra httpd instances for tests that need their own configuration or a
# second "machine": each gets its own port, ServerRoot under t/logs, and the
# same PostgreSQL as the main test server (from the environment that
# scripts/test sets). start() waits until /healthz answers; stop() (also
# run at exit) shuts the instance down and waits for it.
use strict;
use warnings;
use File::Path qw(make_path remove_tree);
use FindBin;
use HTTP::Request;
use LWP::UserAgent;
use JSON::PP ();
use POSIX ();
use Time::HiRes ();
use FormsvcTest ();

my $json = JSON::PP->new->canonical->allow_nonref;
my @running;

sub free_port {
    require IO::Socket::INET;
    my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0,
                                  ReuseAddr => 1) or die "no free port: $!";
    return $s->sockport;
}

# start(name => 'a', conf => "extra directives\n", db => 'formsvc',
#       mail => 0 (no FormsvcMailTransport: the module's default),
#       enabled => 0 (no `Formsvc On` in the main server: the module's default),
#       keep_loaded => 1 (the module preloaded: it is not unloaded at a restart),
#       ready_url => URL answering 200 once it is up; default its /healthz,
#       module => another mod_formsvc.so (default FORMSVC_MODULE), with
#       source => the tree it was built from (its share/locales),
#       fsize => the largest file its processes may write, in bytes
#       (prlimit: a write past it fails with EFBIG, as on a full disk))
sub start {
    my ($class, %o) = @_;
    my $name = $o{name} or die 'name';
    my $root = "$FindBin::Bin/logs/inst-$name";
    remove_tree($root);
    make_path("$root/mail");
    my $port = free_port();
    my $asroot = $> == 0;
    my $user = $asroot ? "User www-data\nGroup www-data\n" : '';
    system('chown', '-R', 'www-data:', "$root/mail") if $asroot;
    my $mods = '/usr/lib/apache2/modules';
    my $db = $o{db} // 'formsvc';
    my $module = $o{module} // $ENV{FORMSVC_MODULE};
    my $source = $o{source} // $ENV{FORMSVC_ROOT};
    my $mail = (exists $o{mail} && !$o{mail}) ? '' : <<"MAIL";
FormsvcMailTransport file "$FindBin::Bin/logs/mail"
FormsvcMailFrom "formsvc tests <no-reply\@formsvc.test>"
MAIL
    my $on = (exists $o{enabled} && !$o{enabled}) ? '' : 'Formsvc On';
    my $conf = <<"CONF";
ServerRoot "$root"
Listen 127.0.0.1:$port
ServerName 127.0.0.1:$port
PidFile "$root/httpd.pid"
DefaultRuntimeDir "$root"
ErrorLog "$root/error_log"
LogLevel warn
LoadModule mpm_event_module $mods/mod_mpm_event.so
LoadModule authn_core_module $mods/mod_authn_core.so
LoadModule authz_core_module $mods/mod_authz_core.so
LoadModule remoteip_module $mods/mod_remoteip.so
LoadModule dbd_module $mods/mod_dbd.so
LoadModule formsvc_module "$module"
$user
StartServers 3
MinSpareThreads 5
MaxSpareThreads 60
ServerLimit 4
ThreadsPerChild 10
MaxRequestWorkers 40
LogFormat "%P %a %>s %r" pid
CustomLog "$root/access_log" pid
RemoteIPHeader X-Client-IP
RemoteIPInternalProxy 127.0.0.1
DBDriver pgsql
DBDParams "host=$ENV{FORMSVC_PGSOCK} port=$ENV{FORMSVC_PGPORT} dbname=$db user=postgres connect_timeout=2"
DBDMin 0
DBDKeep 2
DBDMax 10
# the service is off by default (opt in per host): on here, and so in
# every <VirtualHost> a test adds, unless it says Formsvc Off
$on
FormsvcBaseURL http://127.0.0.1:$port/api
FormsvcSecretPepperFile "$ENV{FORMSVC_PEPPER}"
FormsvcLocaleDir "$source/share/locales"
$mail
CONF
    my $base_conf = $conf;
    $conf .= $o{conf} // '';
    open my $fh, '>', "$root/httpd.conf" or die $!;
    print $fh $conf;
    close $fh;
    # what the configuration check says goes to stderr (no error log yet)
    my $httpd = $ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2';
    # keep_loaded: the module preloaded, so that it stays mapped across
    # restarts (as when linked into httpd, or where dlclose does not
    # unload): its statics then outlive a configuration generation
    my $env = $o{keep_loaded} ? "LD_PRELOAD='$module' " : '';
    $env .= "prlimit --fsize=$o{fsize} " if $o{fsize};
    my $said = `$env$httpd -f "$root/httpd.conf" -k start 2>&1`;
    $? == 0 or die "apache2 instance $name did not start: $said" . slurp("$root/error_log");
    my $self = bless { name => $name, root => $root, port => $port,
                       url => "http://127.0.0.1:$port/api", base_conf => $base_conf }, $class;
    push @running, $self;
    my $ua = LWP::UserAgent->new(timeout => 5);
    FormsvcTest::wait_for(sub { $ua->get($o{ready_url} // "$self->{url}/healthz")->code == 200 }, 30,
                          "instance $name to answer")
        or die "instance $name does not answer: " . slurp("$root/error_log");
    return $self;
}

# reload(conf => "extra directives\n"): the instance's configuration with
# these extra directives instead of those start() was given, taken by a
# graceful restart. Returns once no child of the old generation is left
# and the new one answers /healthz: every request from then on is served
# with the new settings.
sub reload {
    my ($self, %o) = @_;
    open my $fh, '>', "$self->{root}/httpd.conf" or die $!;
    print $fh $self->{base_conf} . ($o{conf} // '');
    close $fh;
    my %old = map { $_ => 1 } $self->children;
    my $httpd = $ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2';
    my $said = `$httpd -f "$self->{root}/httpd.conf" -k graceful 2>&1`;
    $? == 0 or die "graceful restart of instance $self->{name} failed: $said";
    my $ua = LWP::UserAgent->new(timeout => 5, keep_alive => 0);
    FormsvcTest::wait_for(sub {
        my @now = $self->children;
        @now && !grep({ $old{$_} } @now) && $ua->get("$self->{url}/healthz")->code == 200;
    }, 30, "instance $self->{name}: the new generation") and return $self;
    die "instance $self->{name}: the old children are still there after a graceful restart\n"
        . slurp("$self->{root}/error_log");
}

sub slurp { my $f = shift; open my $fh, '<', $f or return ''; local $/; <$fh> }

sub url { $_[0]{url} }
sub root { $_[0]{root} }
sub error_log { slurp("$_[0]{root}/error_log") }
sub mail_dir { "$_[0]{root}/mail" }

# The pids of the instance's children (ps), and how many threads a
# process runs (/proc): a child has started once it runs ThreadsPerChild.
sub children {
    my $self = shift;
    my $ppid = slurp("$self->{root}/httpd.pid") =~ s/\s+//gr;
    return () unless $ppid =~ /^\d+$/;
    return grep { /^\d+$/ } map { s/\s+//gr } split /\n/, `ps -o pid= --ppid $ppid`;
}
sub threads_of { my $pid = pop; slurp("/proc/$pid/status") =~ /^Threads:\s+(\d+)/m ? $1 : 0 }

# What the shipped conf/formsvc-server.conf sets for DIRECTIVE (a number).
sub shipped {
    my $d = pop;
    my $root = $ENV{FORMSVC_ROOT} // "$FindBin::Bin/..";
    return slurp("$root/conf/formsvc-server.conf") =~ /^\s*\Q$d\E\s+(\d+)/m ? $1 : undef;
}

# wait_children(N, THREADS): waits (up to 30 s) until the instance runs N
# children, each with THREADS threads (its ThreadsPerChild started); true
# when it does.
sub wait_children {
    my ($self, $n, $threads) = @_;
    return FormsvcTest::wait_for(sub {
        my @c = $self->children;
        @c == $n && !grep { threads_of($_) < $threads } @c;
    }, 30, "$n children of $threads threads");
}

# How many connections to the instance's port the server still holds: on
# its side, in any state but listening and TIME_WAIT (/proc/net/tcp).
sub open_connections {
    my $self = shift;
    my $hex = sprintf '%04X', $self->{port};
    return scalar grep { my @f = split ' '; $f[1] =~ /:\Q$hex\E$/ && $f[3] ne '0A' && $f[3] ne '06' }
        split /\n/, slurp('/proc/net/tcp');
}

# The pids that answered requests, from the access log.
sub pids {
    my $self = shift;
    my %p;
    for (split /\n/, slurp("$self->{root}/access_log")) { $p{$1}++ if /^(\d+) / }
    return keys %p;
}

# request(METHOD, PATH, body => REF|STRING, token => SECRET, headers => {...}):
# the HTTP::Request that api sends (a reference body as JSON), to send it
# some other way (FormsvcTest::Together).
sub request {
    my ($self, $method, $path, %o) = @_;
    my $req = HTTP::Request->new($method => $self->{url} . $path);
    $req->header(Authorization => "Bearer $o{token}") if defined $o{token};
    my %h = %{ $o{headers} || {} };
    $req->header($_ => $h{$_}) for keys %h;
    if (defined $o{body}) {
        my $b = ref $o{body} ? $json->encode($o{body}) : $o{body};
        $req->header('Content-Type' => 'application/json') unless $req->header('Content-Type');
        $req->content($b);
        $req->header('Content-Length' => length $b);
    }
    return $req;
}

# published_form(TOKEN, title => ..., fields => [...], settings => {...}):
# creates a form (by default one text field "a") and publishes it; returns
# its id, and dies when either fails. settings is sent only when given.
sub published_form {
    my ($self, $tok, %o) = @_;
    my $r = $self->api(POST => '/v1/forms', token => $tok, body => {
        title => $o{title} // 'A form', fields => $o{fields} // [ { key => 'a', type => 'text', label => 'A' } ],
        (exists $o{settings} ? (settings => $o{settings}) : ()) });
    die 'form: ' . $r->status_line . ' ' . $r->content unless $r->code == 201;
    my $id = $r->{json}{id};
    $r = $self->api(POST => "/v1/forms/$id/publish", token => $tok);
    die 'publish: ' . $r->status_line unless $r->code == 200;
    return $id;
}

# api(METHOD, PATH, body => REF, token => SECRET, headers => {...})
sub api {
    my ($self, $method, $path, %o) = @_;
    my $req = $self->request($method, $path, %o);
    my $ua = LWP::UserAgent->new(timeout => 30, max_redirect => 0);
    my $res = $ua->request($req);
    my $ct = $res->header('Content-Type') // '';
    $res->{json} = $ct =~ /json/ ? eval { $json->decode($res->content) } : undef;
    return $res;
}

sub stop {
    my $self = shift;
    return unless $self->{port};
    my $pidf = "$self->{root}/httpd.pid";
    system($ENV{FORMSVC_HTTPD} // '/usr/sbin/apache2', '-f', "$self->{root}/httpd.conf", '-k', 'stop');
    FormsvcTest::wait_for(sub { !-e $pidf }, 30, "instance $self->{name} to stop");
    delete $self->{port};
}

# Runs $n processes at once, each calling $code->($i); returns the sum of
# what they return (each an integer 0..250, passed back as the exit code).
sub burst {
    my ($class, $n, $code) = @_;
    my @kids;
    for my $i (1 .. $n) {
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            my $v = eval { $code->($i) } // 255;
            POSIX::_exit($v);
        }
        push @kids, $pid;
    }
    my $sum = 0;
    for (@kids) {
        waitpid($_, 0);
        my $v = $? >> 8;
        die "burst worker failed" if $v == 255 || ($? & 127);   # died, or killed by a signal
        $sum += $v;
    }
    return $sum;
}

# $n processes POST {"name": "k<i>"} to $url (JSON) again and again until
# the returned sub is called, which stops them and returns how many
# answers were 201 and how many were anything else (printed). A request
# that got no answer (the server stopping: LWP's own "Internal response")
# is neither; a client that died without reporting counts as one
# "anything else". For graceful restarts under load (t/16, t/92).
sub submitters {
    my ($class, $n, $url, %o) = @_;
    my $stopfile = "$FindBin::Bin/logs/submitters.stop.$$";
    unlink $stopfile;
    my @kids;
    for my $k (1 .. $n) {
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            my ($ok, $bad) = (0, 0);
            my $ua = LWP::UserAgent->new(timeout => 30, keep_alive => $o{keep_alive} ? 1 : 0);
            while (!-e $stopfile) {
                my $res = $ua->post($url, 'Content-Type' => 'application/json',
                                    Content => $json->encode({ name => "k$k" }));
                if ($res->code == 201) { $ok++ }
                elsif (($res->header('Client-Warning') // '') eq 'Internal response') {
                    Time::HiRes::sleep(0.05);   # no server at the moment: try again after a pause
                }
                else { $bad++; print STDERR "# client $k: ", $res->status_line, "\n" }
            }
            open my $fh, '>', "$stopfile.$k" or die; print $fh "$ok $bad\n"; close $fh;
            POSIX::_exit(0);
        }
        push @kids, $pid;
    }
    return sub {
        open my $sf, '>', $stopfile or die; close $sf;
        waitpid($_, 0) for @kids;
        my ($ok, $bad) = (0, 0);
        for my $k (1 .. $n) {
            # a client that died reported nothing: that counts as a failure
            open my $fh, '<', "$stopfile.$k"
                or do { print STDERR "# client $k: no report (it died)\n"; $bad++; next };
            my ($o, $b) = split ' ', <$fh>;
            $ok += $o; $bad += $b;
            unlink "$stopfile.$k";
        }
        unlink $stopfile;
        return ($ok, $bad);
    };
}

END { local $?; $_->stop for @running }   # (stop must not change the exit status)

1;
