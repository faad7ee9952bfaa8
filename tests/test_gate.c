/* fs_gate with real threads: never more holders than places, waits that
 * end in bounded time, places handed over and never lost (a lost wake-up
 * shows as a timeout, a lost place as a gate that stays full), one probe at
 * a time while the resource is suspected down, and the back-off. Worker
 * threads count what they saw; only the main thread asserts. `make
 * test-tsan` runs these under ThreadSanitizer. */
#include "fs_gate.h"
#include "fs_test.h"

#include <apr_thread_mutex.h>
#include <stdatomic.h>
#include <unistd.h>

#define NTHREADS 32

/* What the threads of one test share. */
typedef struct shared {
    fs_gate *g;
    int max, iterations;
    atomic_int holders, max_seen, over, ok, busy, down, probes, probing, waits, pings, done;
    _Atomic apr_time_t last_ok, last_bad; /* the resource's clocks */
    /* the shortest and longest time an enter took to be refused */
    _Atomic apr_interval_time_t slowest_refusal, fastest_refusal;
    int ping_answer;
} shared;

static apr_time_t clock_ok(void *ctx) {
    return atomic_load(&((shared *)ctx)->last_ok);
}
static apr_time_t clock_bad(void *ctx) {
    return atomic_load(&((shared *)ctx)->last_bad);
}
static void on_wait(void *ctx) {
    atomic_fetch_add(&((shared *)ctx)->waits, 1);
}
static int ping(void *ctx) {
    shared *sh = ctx;
    atomic_fetch_add(&sh->pings, 1);
    return sh->ping_answer;
}

static void make_gate(apr_pool_t *p, shared *sh, int max, apr_interval_time_t timeout,
                      apr_interval_time_t probe_wait) {
    fs_gate_conf conf = {max, timeout, probe_wait, clock_ok, clock_bad, NULL, on_wait, sh};
    sh->max = max;
    atomic_init(&sh->fastest_refusal, APR_INT64_MAX);
    sh->g = fs_gate_create(p, &conf);
    assert_non_null(sh->g);
}

static void run(apr_pool_t *p, shared *sh, int n, void *(*fn)(void *)) {
    void *args[64];
    for (int i = 0; i < n; i++)
        args[i] = sh;
    fs_test_threads(p, n, fn, args);
}

static void note_max(atomic_int *m, int v) {
    int old = atomic_load(m);
    while (v > old && !atomic_compare_exchange_weak(m, &old, v))
        ;
}

/* Holds a place for a moment, counting holders. */
static void hold(shared *sh) {
    int h = atomic_fetch_add(&sh->holders, 1) + 1;
    note_max(&sh->max_seen, h);
    if (sh->max && h > sh->max)
        atomic_fetch_add(&sh->over, 1);
    for (int i = 0; i < 3; i++)
        apr_thread_yield();
    atomic_fetch_sub(&sh->holders, 1);
}

/* An enter, timed when it is refused; a place taken is held and left. */
static int enter_hold_leave(shared *sh) {
    int probe;
    apr_time_t t0 = apr_time_now();
    int rc = fs_gate_enter(sh->g, &probe);
    if (rc == FS_GATE_OK) {
        atomic_fetch_add(&sh->ok, 1);
        hold(sh);
        fs_gate_leave(sh->g, probe);
        return rc;
    }
    apr_interval_time_t took = apr_time_now() - t0;
    apr_interval_time_t m = atomic_load(&sh->slowest_refusal);
    while (took > m && !atomic_compare_exchange_weak(&sh->slowest_refusal, &m, took))
        ;
    m = atomic_load(&sh->fastest_refusal);
    while (took < m && !atomic_compare_exchange_weak(&sh->fastest_refusal, &m, took))
        ;
    atomic_fetch_add(rc == FS_GATE_BUSY ? &sh->busy : &sh->down, 1);
    return rc;
}

static void *contender(void *data) {
    shared *sh = data;
    for (int i = 0; i < sh->iterations; i++)
        enter_hold_leave(sh);
    return NULL;
}

/* The gate is empty and whole: nobody waits, nobody holds, and every
 * place can be taken at once. */
static void assert_gate_whole(shared *sh) {
    assert_int_equal(fs_gate_in_use(sh->g), 0);
    assert_int_equal(fs_gate_waiting(sh->g), 0);
    int probe[64];
    for (int i = 0; i < sh->max; i++)
        assert_int_equal(fs_gate_enter(sh->g, &probe[i]), FS_GATE_OK);
    assert_int_equal(fs_gate_in_use(sh->g), sh->max);
    for (int i = 0; i < sh->max; i++)
        fs_gate_leave(sh->g, probe[i]);
    assert_int_equal(fs_gate_in_use(sh->g), 0);
}

/* 32 threads through 4 places: never a fifth holder, every enter gets a
 * place well within the (long) limit, so no waiter was forgotten. */
static void never_more_than_max(void **state) {
    shared sh = {0};
    make_gate(*state, &sh, 4, apr_time_from_sec(60), apr_time_from_sec(1));
    sh.iterations = fs_test_iterations(400);
    run(*state, &sh, NTHREADS, contender);
    assert_int_equal(atomic_load(&sh.over), 0);
    assert_int_equal(atomic_load(&sh.busy) + atomic_load(&sh.down), 0);
    assert_int_equal(atomic_load(&sh.ok), NTHREADS * sh.iterations);
    assert_true(atomic_load(&sh.max_seen) <= 4);
    assert_true(atomic_load(&sh.waits) > 0); /* they did queue */
    assert_gate_whole(&sh);
}

/* The same without a time limit (cond_wait, not timedwait): a lost
 * wake-up hangs here, and the alarm ends the run. */
static void no_limit_no_lost_wakeup(void **state) {
    shared sh = {0};
    make_gate(*state, &sh, 3, 0, apr_time_from_sec(1));
    sh.iterations = fs_test_iterations(400);
    alarm(300);
    run(*state, &sh, NTHREADS, contender);
    alarm(0);
    assert_int_equal(atomic_load(&sh.over), 0);
    assert_int_equal(atomic_load(&sh.ok), NTHREADS * sh.iterations);
    assert_gate_whole(&sh);
}

static void *enter_once(void *data) {
    enter_hold_leave(data);
    atomic_fetch_add(&((shared *)data)->done, 1);
    return NULL;
}

/* Every place held by the main thread: 16 threads are each refused after
 * the timeout (not before, and not much after), and leave the queue. */
static void timeouts_are_bounded(void **state) {
    shared sh = {0};
    apr_interval_time_t limit = apr_time_from_msec(50);
    make_gate(*state, &sh, 2, limit, apr_time_from_sec(1));
    int pa, pb;
    assert_int_equal(fs_gate_enter(sh.g, &pa), FS_GATE_OK);
    assert_int_equal(fs_gate_enter(sh.g, &pb), FS_GATE_OK);
    run(*state, &sh, 16, enter_once);
    assert_int_equal(atomic_load(&sh.busy), 16);
    assert_int_equal(atomic_load(&sh.waits), 16);
    assert_true(atomic_load(&sh.fastest_refusal) >= limit);
    /* a loaded machine may be late by seconds; a wait without a bound
     * would never come back */
    assert_true(atomic_load(&sh.slowest_refusal) < limit + apr_time_from_sec(20));
    assert_int_equal(fs_gate_waiting(sh.g), 0);
    assert_int_equal(fs_gate_in_use(sh.g), 2);
    fs_gate_leave(sh.g, pa);
    fs_gate_leave(sh.g, pb);
    assert_gate_whole(&sh);
}

/* One place and waits so short that timeouts race hand-overs all the time:
 * a place handed to a waiter that has just timed out must not be lost
 * (the gate would stay full), nor given twice. */
static void timeouts_race_handovers(void **state) {
    shared sh = {0};
    make_gate(*state, &sh, 1, apr_time_from_msec(1), apr_time_from_sec(1));
    sh.iterations = fs_test_iterations(500);
    run(*state, &sh, 16, contender);
    assert_int_equal(atomic_load(&sh.over), 0);
    assert_int_equal(atomic_load(&sh.ok) + atomic_load(&sh.busy), 16 * sh.iterations);
    assert_true(atomic_load(&sh.ok) > 0);
    assert_int_equal(atomic_load(&sh.down), 0);
    assert_gate_whole(&sh);
}

/* The resource suspected down: of the threads that arrive, one probes;
 * the others wait for its verdict, and when it answers (its clock moves)
 * they all get places. Several rounds, one new trouble each. */
static void *prober_answers(void *data) {
    shared *sh = data;
    int probe;
    int rc = fs_gate_enter(sh->g, &probe);
    if (rc != FS_GATE_OK) {
        atomic_fetch_add(&sh->down, 1);
        return NULL;
    }
    atomic_fetch_add(&sh->ok, 1);
    if (probe) {
        atomic_fetch_add(&sh->probes, 1);
        if (atomic_fetch_add(&sh->probing, 1) != 0)
            atomic_fetch_add(&sh->over, 1);
        for (int i = 0; i < 10; i++)
            apr_thread_yield();
        atomic_fetch_sub(&sh->probing, 1);
        atomic_store(&sh->last_ok, atomic_load(&sh->last_bad) + 1); /* it answered */
    }
    fs_gate_leave(sh->g, probe);
    return NULL;
}

static void one_probe_then_all_in(void **state) {
    shared sh = {0};
    make_gate(*state, &sh, 0, apr_time_from_sec(60), apr_time_from_sec(60));
    int rounds = fs_test_iterations(20);
    for (int r = 0; r < rounds; r++) {
        atomic_store(&sh.last_bad, apr_time_now() + 2); /* trouble, newer than any answer */
        atomic_store(&sh.probes, 0);
        run(*state, &sh, 16, prober_answers);
        assert_int_equal(atomic_load(&sh.probes), 1);
    }
    assert_int_equal(atomic_load(&sh.over), 0);
    assert_int_equal(atomic_load(&sh.down), 0);
    assert_int_equal(atomic_load(&sh.ok), 16 * rounds);
    assert_int_equal(fs_gate_in_use(sh.g), 0);
}

/* A probe that gets no answer: the others are answered DOWN after
 * probe_wait, not later, while the probe still holds its place. */
static void *prober_silent(void *data) {
    shared *sh = data;
    int probe;
    apr_time_t t0 = apr_time_now();
    int rc = fs_gate_enter(sh->g, &probe);
    if (rc == FS_GATE_OK && probe) {
        atomic_fetch_add(&sh->probes, 1);
        /* hold it until every other thread has its answer (bounded) */
        apr_time_t until = apr_time_now() + apr_time_from_sec(60);
        while (atomic_load(&sh->done) < 15 && apr_time_now() < until)
            apr_sleep(apr_time_from_msec(1));
        fs_gate_leave(sh->g, probe);
        return NULL;
    }
    if (rc == FS_GATE_OK) {
        atomic_fetch_add(&sh->ok, 1);
        fs_gate_leave(sh->g, probe);
    } else {
        apr_interval_time_t took = apr_time_now() - t0;
        apr_interval_time_t m = atomic_load(&sh->slowest_refusal);
        while (took > m && !atomic_compare_exchange_weak(&sh->slowest_refusal, &m, took))
            ;
        atomic_fetch_add(rc == FS_GATE_DOWN ? &sh->down : &sh->busy, 1);
    }
    atomic_fetch_add(&sh->done, 1);
    return NULL;
}

static void silent_probe_others_down(void **state) {
    shared sh = {0};
    apr_interval_time_t wait = apr_time_from_msec(100);
    make_gate(*state, &sh, 0, apr_time_from_sec(60), wait);
    atomic_store(&sh.last_bad, apr_time_now() + 1);
    run(*state, &sh, 16, prober_silent);
    assert_int_equal(atomic_load(&sh.probes), 1);
    assert_int_equal(atomic_load(&sh.down), 15);
    assert_true(atomic_load(&sh.slowest_refusal) < wait + apr_time_from_sec(20));
    assert_int_equal(fs_gate_in_use(sh.g), 0);
}

/* A failed ping answers DOWN and lets the next caller probe again; after
 * fs_gate_unreachable the resource is down without a ping for the
 * back-off, until an answer comes. */
static void ping_and_backoff(void **state) {
    shared sh = {0};
    fs_gate_conf conf = {
        2, apr_time_from_sec(1), apr_time_from_msec(100), clock_ok, clock_bad, ping, NULL, &sh};
    fs_gate *g = fs_gate_create(*state, &conf);
    assert_non_null(g);
    int probe;
    assert_int_equal(fs_gate_enter(g, &probe), FS_GATE_OK); /* not suspected: no ping */
    assert_int_equal(probe, 0);
    fs_gate_leave(g, probe);
    assert_int_equal(atomic_load(&sh.pings), 0);

    atomic_store(&sh.last_bad, apr_time_now());
    sh.ping_answer = 0;
    assert_int_equal(fs_gate_enter(g, &probe), FS_GATE_DOWN);
    assert_int_equal(probe, 0);
    assert_int_equal(fs_gate_enter(g, &probe), FS_GATE_DOWN); /* probes again */
    assert_int_equal(atomic_load(&sh.pings), 2);
    assert_int_equal(fs_gate_in_use(g), 0);

    sh.ping_answer = 1;
    assert_int_equal(fs_gate_enter(g, &probe), FS_GATE_OK);
    assert_int_equal(probe, 1);
    fs_gate_leave(g, probe);

    fs_gate_unreachable(g, apr_time_now());
    assert_int_equal(fs_gate_enter(g, &probe), FS_GATE_DOWN); /* in the back-off */
    assert_int_equal(atomic_load(&sh.pings), 3);
    atomic_store(&sh.last_ok, apr_time_now() + 1); /* an answer since */
    assert_int_equal(fs_gate_enter(g, &probe), FS_GATE_OK);
    assert_int_equal(probe, 0);
    fs_gate_leave(g, probe);
    assert_int_equal(fs_gate_in_use(g), 0);
    /* no gate: everything passes */
    assert_int_equal(fs_gate_enter(NULL, &probe), FS_GATE_OK);
    fs_gate_leave(NULL, probe);
    fs_gate_unreachable(NULL, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        FS_TEST(never_more_than_max),   FS_TEST(no_limit_no_lost_wakeup),
        FS_TEST(timeouts_are_bounded),  FS_TEST(timeouts_race_handovers),
        FS_TEST(one_probe_then_all_in), FS_TEST(silent_probe_others_down),
        FS_TEST(ping_and_backoff),
    };
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
