/* fs_batchq with real threads: every submitter gets exactly its own
 * outcome, one batch at a time, led by a thread whose item is in it; the
 * lead passes to the oldest waiter; a failed store loses nothing (its
 * items get their outcome, what queued behind it is stored by the next
 * leader). Worker threads count what they saw; only the main thread
 * asserts. The store callback keeps its own counters without atomics, so
 * two batches stored at once would be a data race that `make test-tsan`
 * reports. */
#include "fs_batchq.h"
#include "fs_test.h"

#include <apr_portable.h>
#include <apr_thread_proc.h>
#include <stdatomic.h>
#include <unistd.h>

#define FAILED -1L

typedef struct tstate {
    fs_batchq *q;
    int max, iterations, fail_every;
    atomic_int in_store, overlap, not_own, too_big, bad, retries, started;
    /* the store's own, written by one leader at a time */
    long batches, stored, sizes[64];
    int wait_for_queued; /* the first batch waits until this many queued */
    int waited_too_long;
} tstate;

typedef struct sub {
    tstate *sh;
    apr_os_thread_t owner;
    long value, outcome; /* outcome: written by the store */
    int stored;          /* times stored, written by the store */
} sub;

static void store(fs_batchq_item *const *items, int n) {
    sub *lead = items[0]->data;
    tstate *sh = lead->sh;
    if (atomic_fetch_add(&sh->in_store, 1) != 0)
        atomic_fetch_add(&sh->overlap, 1);
    if (!apr_os_thread_equal(lead->owner, apr_os_thread_current()))
        atomic_fetch_add(&sh->not_own, 1);
    if (n < 1 || n > sh->max)
        atomic_fetch_add(&sh->too_big, 1);
    if (sh->batches < 64)
        sh->sizes[sh->batches] = n;
    sh->batches++;
    if (sh->batches == 1 && sh->wait_for_queued) {
        apr_time_t until = apr_time_now() + apr_time_from_sec(60);
        while (fs_batchq_queued(sh->q) < sh->wait_for_queued && apr_time_now() < until)
            apr_sleep(apr_time_from_msec(1));
        sh->waited_too_long = fs_batchq_queued(sh->q) < sh->wait_for_queued;
    }
    int fail = sh->fail_every && sh->batches % sh->fail_every == 0;
    for (int i = 0; i < 3; i++)
        apr_thread_yield(); /* others queue meanwhile */
    for (int i = 0; i < n; i++) {
        sub *s = items[i]->data;
        if (fail) {
            s->outcome = FAILED;
            continue;
        }
        s->outcome = s->value * 2 + 1;
        s->stored++;
        sh->stored++;
    }
    atomic_fetch_sub(&sh->in_store, 1);
}

/* Submits value until it is stored (a failed batch is tried again, as a
 * client would); counts what is wrong. */
static void submit_one(tstate *sh, long value) {
    for (int attempt = 0; attempt < 100; attempt++) {
        sub s = {sh, apr_os_thread_current(), value, 0, 0};
        fs_batchq_item it = {&s, NULL, 0, NULL};
        if (fs_batchq_submit(sh->q, &it) != 0) {
            atomic_fetch_add(&sh->bad, 1);
            return;
        }
        if (s.outcome == FAILED && s.stored == 0) {
            atomic_fetch_add(&sh->retries, 1);
            continue;
        }
        if (s.outcome != value * 2 + 1 || s.stored != 1)
            atomic_fetch_add(&sh->bad, 1);
        return;
    }
    atomic_fetch_add(&sh->bad, 1);
}

typedef struct worker {
    tstate *sh;
    long id;
} worker;

static void *submitter(void *data) {
    worker *w = data;
    atomic_fetch_add(&w->sh->started, 1);
    for (int i = 0; i < w->sh->iterations; i++)
        submit_one(w->sh, (w->id << 20) | i);
    return NULL;
}

static void run(apr_pool_t *p, tstate *sh, int n) {
    worker w[64];
    void *args[64];
    for (int i = 0; i < n; i++) {
        w[i] = (worker){sh, i + 1};
        args[i] = &w[i];
    }
    fs_test_threads(p, n, submitter, args);
}

static void make_queue(apr_pool_t *p, tstate *sh, int max) {
    sh->max = max;
    sh->q = fs_batchq_create(p, max, store);
    assert_non_null(sh->q);
}

static void assert_clean(tstate *sh) {
    assert_int_equal(atomic_load(&sh->overlap), 0);
    assert_int_equal(atomic_load(&sh->not_own), 0);
    assert_int_equal(atomic_load(&sh->too_big), 0);
    assert_int_equal(atomic_load(&sh->bad), 0);
    assert_int_equal(fs_batchq_queued(sh->q), 0);
}

/* 32 threads submitting many items each, batches of at most 8: each gets
 * its own outcome, stored exactly once, and nothing is left queued. */
static void each_gets_its_own(void **state) {
    tstate sh = {0};
    make_queue(*state, &sh, 8);
    sh.iterations = fs_test_iterations(300);
    alarm(300); /* a lost wake-up hangs: end the run */
    run(*state, &sh, 32);
    alarm(0);
    assert_clean(&sh);
    assert_int_equal(sh.stored, 32L * sh.iterations);
    assert_true(sh.batches <= sh.stored);
}

/* Every third batch fails: its items are answered FAILED (and tried
 * again), what queued behind it is stored by the next leader, nobody
 * waits forever and nobody is stored twice. */
static void failed_batches_lose_nothing(void **state) {
    tstate sh = {0};
    make_queue(*state, &sh, 8);
    sh.fail_every = 3;
    sh.iterations = fs_test_iterations(200);
    alarm(300);
    run(*state, &sh, 16);
    alarm(0);
    assert_clean(&sh);
    assert_int_equal(sh.stored, 16L * sh.iterations);
    assert_true(atomic_load(&sh.retries) > 0);
}

static void *APR_THREAD_FUNC first(apr_thread_t *t, void *data) {
    (void)t;
    tstate *sh = data;
    submit_one(sh, 7);
    return NULL;
}

/* The lead passes on: a first thread stores alone and holds its batch
 * until 7 others queued behind it; then the oldest of them stores 4 (the
 * most a batch takes) and the next one the last 3. */
static void lead_passes_to_the_oldest(void **state) {
    apr_pool_t *p = *state;
    tstate sh = {0};
    make_queue(p, &sh, 4);
    sh.wait_for_queued = 7;
    sh.iterations = 1;
    apr_thread_t *a;
    assert_int_equal(apr_thread_create(&a, NULL, first, &sh, p), APR_SUCCESS);
    apr_time_t until = apr_time_now() + apr_time_from_sec(60);
    while (!atomic_load(&sh.in_store) && apr_time_now() < until)
        apr_sleep(apr_time_from_msec(1));
    assert_int_equal(atomic_load(&sh.in_store), 1);
    run(p, &sh, 7);
    apr_status_t rv;
    apr_thread_join(&rv, a);
    assert_clean(&sh);
    assert_false(sh.waited_too_long);
    assert_int_equal(sh.batches, 3);
    assert_int_equal(sh.sizes[0], 1);
    assert_int_equal(sh.sizes[1], 4);
    assert_int_equal(sh.sizes[2], 3);
    assert_int_equal(sh.stored, 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        FS_TEST(each_gets_its_own),
        FS_TEST(failed_batches_lose_nothing),
        FS_TEST(lead_passes_to_the_oldest),
    };
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
