# formsvc: drives everything. The two commands that matter: `make run`, `make test`.
# The core (mod_formsvc/core, mod_formsvc/store) never includes httpd headers and
# is built here into build/libfscore.a; Makefile.apxs links it into the module.

APXS      ?= /usr/bin/apxs
BUILD     ?= build
SANITIZE  ?=
OPT       ?= -O2
CC        ?= cc
CFLAGS_EXTRA ?=

APR_CFLAGS := $(shell apr-1-config --cflags --cppflags --includes 2>/dev/null) \
              $(shell apu-1-config --includes 2>/dev/null)
CFLAGS_CORE = -std=c11 -Wall -Wextra -Werror -fPIC -g $(OPT) $(SANITIZE) \
              -Iinclude $(APR_CFLAGS) -I/usr/include/json-c -I/usr/include/postgresql $(CFLAGS_EXTRA)
LIBS_CORE   = -lxlsxwriter -lcurl -ljson-c -lcrypto -lz -lpcre2-8 -lpq -laprutil-1 -lapr-1

CORE_SRC := $(sort $(wildcard mod_formsvc/core/*.c mod_formsvc/store/*.c))
CORE_OBJ := $(patsubst mod_formsvc/%.c,$(BUILD)/obj/%.o,$(CORE_SRC))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))

.PHONY: all deps module core unit unit-valgrind unit-tsan test-tsan equivalence test test-sql schema test-asan run cluster cluster-stop cluster-test install uninstall deb source-deb deb-smoke clean fuzz bench bench-data soak slowloris format format-check check-includes
all: module

deps:
	@bash scripts/install-deps

core: $(BUILD)/libfscore.a

$(BUILD)/obj/%.o: mod_formsvc/%.c $(wildcard include/*.h mod_formsvc/*/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $<"; $(CC) $(CFLAGS_CORE) -c $< -o $@

$(BUILD)/libfscore.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

module: $(BUILD)/libfscore.a
	$(MAKE) -f Makefile.apxs BUILD=$(BUILD) APXS=$(APXS) SANITIZE="$(SANITIZE)" OPT="$(OPT)"

$(BUILD)/tests/%: tests/%.c $(BUILD)/libfscore.a tests/fs_test.h
	@mkdir -p $(dir $@)
	@echo "  CC $@"; $(CC) $(CFLAGS_CORE) -Itests $< -o $@ $(BUILD)/libfscore.a $(LIBS_CORE) -lcmocka $(SANITIZE)

unit: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $$t; done

# The unit tests again under valgrind: any error or leak fails.
unit-valgrind: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== valgrind $$t"; \
	  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	    $$t >/dev/null; done

# The unit tests built with ThreadSanitizer into build-tsan/ (the core and
# the tests; APR itself is not instrumented, its pthread locks are seen
# through TSan's interceptors): any report (a data race, a lock-order
# inversion, a mutex misused) fails the run. tests/tsan.supp says what is
# suppressed and why. docs/testing.md, "ThreadSanitizer".
TSAN_BUILD ?= build-tsan
TSAN_OPTIONS_RUN = halt_on_error=1 exitcode=66 second_deadlock_stack=1 \
                   suppressions=$(CURDIR)/tests/tsan.supp
test-tsan:
	@$(MAKE) -s BUILD=$(TSAN_BUILD) SANITIZE=-fsanitize=thread OPT=-O1 unit-tsan

unit-tsan: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== tsan $$t"; \
	  TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" $$t; done

# The server accepts a body exactly when python3-jsonschema accepts it
# against the published schema (tests/equivalence/equivalence.py).
$(BUILD)/fs_equiv: tests/equivalence/fs_equiv.c $(BUILD)/libfscore.a
	$(CC) $(CFLAGS_CORE) $< -o $@ $(BUILD)/libfscore.a $(LIBS_CORE) $(SANITIZE)

equivalence: $(BUILD)/fs_equiv
	/usr/bin/python3 tests/equivalence/equivalence.py $(BUILD)/fs_equiv

# make test: install what is missing, check the C sources' format and the
# rooms' include rules, build, then every cmocka and Apache::Test test
# against a throwaway PostgreSQL on a free port.
test: deps format-check check-includes
	@bash scripts/test

# the SQL tests alone (make test runs them too): docs/testing.md, "SQL tests"
test-sql:
	@bash scripts/pgtap test

# sql/schema.sql anew from a database migrated from sql/ (after a new migration)
schema:
	@bash scripts/pgtap schema

test-asan: deps
	@FORMSVC_ASAN=1 bash scripts/test

run: deps
	@bash scripts/run

# The cluster on one machine under var/cluster/ (docs/deploy.md, "Cluster"):
# HAProxy, three httpd nodes, PostgreSQL primary + standby with
# pg_auto_failover, pgBackRest, memcached; scripts/cluster for the rest.
cluster: deps
	@bash scripts/cluster up

cluster-stop:
	@bash scripts/cluster down

# Every scenario of docs/deploy.md, "Scenarios", on the cluster under load:
# a table in var/cluster/test/results.md; several minutes, not in make test.
cluster-test: deps module
	@perl scripts/cluster-test $(SCENARIOS)

# Slow clients (200 and 1,000) against a `make run` httpd, with the latency
# of a normal GET meanwhile (docs/deploy.md, "Slow clients").
slowloris: deps
	@bash scripts/slowloris

# the suite RUNS times (default 10) from fresh clones under stress-ng (docs/testing.md)
soak:
	@bash scripts/soak $(RUNS)

bench:
	@bash scripts/install-deps bench
	@bash bench/run

# ten million submissions and a year of events, generated once under
# var/bench-data (bench/data clean removes them); figures in docs/performance.md
bench-data:
	@bash bench/data

fuzz:
	@bash scripts/install-deps fuzz
	@bash fuzz/run

# Into this machine's Apache (Debian layout), without a package: the module,
# formsvc.load/.conf in mods-available (an edited formsvc.conf is kept; the
# new one goes beside it as .dist), formsvc-server.conf in conf-available,
# formsvc-admin in /usr/sbin, the migrations in /usr/share/formsvc/sql.
install: module
	@bash scripts/install install $(BUILD)/mod_formsvc.so

uninstall:
	@bash scripts/install uninstall

# The Debian package (debian/, debhelper + dh-apache2), in build/deb/.
# Only the package's build dependencies (debian/control), not the test toolchain.
deb:
	@bash scripts/install-deps deb
	@bash scripts/deb

# The source package (format 3.0 (native): .dsc and .tar.xz) in build/deb/;
# dpkg-source -x then dpkg-buildpackage -b builds the package from it.
source-deb:
	@bash scripts/deb source

# The whole Debian path (dpkg -i, setup-db, a2enmod, start, a signup, purge)
# in a copy-on-write overlay of this machine: root, ports 80 and 5432 free.
deb-smoke: deb
	@bash scripts/deb-smoke

# The C sources as .clang-format wants them: `make format` rewrites them,
# `make format-check` only says which differ (and fails); make test runs it.
FORMAT_FILES = $(wildcard include/*.h mod_formsvc/*.c mod_formsvc/*/*.c mod_formsvc/*/*.h tests/*.c tests/*.h fuzz/*.c fuzz/*.h)
format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run -Werror $(FORMAT_FILES)

# Which room may include which, and no include cycle of more than two
# modules (docs/architecture.md, "Rooms"); make test runs it.
check-includes:
	@python3 scripts/check-includes

clean:
	rm -rf $(BUILD) t/logs t/conf/httpd.conf t/conf/extra.conf t/conf/apache_test_config.pm t/htdocs/index.html
