/* shmcb_counter: why httpd's shmcb socache cannot hold rate-limit counters
 * (docs/architecture.md, "Rate-limit stores and httpd's providers").
 *
 * Loads Debian's mod_socache_shmcb.so (with stubs for the few httpd
 * functions it calls) and uses it the way a rate limiter would: retrieve,
 * add one, store, as if under a global mutex (one thread here). A counter
 * of a one-hour window is stored once; then another key of the same
 * subcache (shmcb picks it by the key's first byte) is counted, as a busy
 * account's per-minute counter would be. shmcb appends every store to a
 * cyclic buffer and frees space only from its head, so the live hour
 * counter at the head is scrolled out once the buffer wraps. Prints after
 * how many hits that happens for each cache size given.
 *
 *   gcc -o shmcb_counter bench/shmcb_counter.c -I/usr/include/apache2 \
 *       $(apr-1-config --includes --cppflags --link-ld) -ldl -rdynamic
 *   ./shmcb_counter 65536 1048576 16777216
 */
#include <httpd.h>
#include <ap_socache.h>
#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <dlfcn.h>
#include <http_config.h>
#include <stdio.h>
#include <string.h>

static const ap_socache_provider_t *prov;
/* stubs for what the module needs from httpd */
void ap_log_error_(const char *f, int l, int mi, int lv, apr_status_t st, const server_rec *s,
                   const char *fmt, ...) {
}
void ap_log_rerror_(const char *f, int l, int mi, int lv, apr_status_t st, const request_rec *r,
                    const char *fmt, ...) {
}
int ap_rprintf(request_rec *r, const char *fmt, ...) {
    return 0;
}
int ap_rwrite(const void *b, int n, request_rec *r) {
    return n;
}
char *ap_runtime_dir_relative(apr_pool_t *p, const char *f) {
    return apr_pstrdup(p, f);
}
char *ap_server_root_relative(apr_pool_t *p, const char *f) {
    return apr_pstrdup(p, f);
}
apr_status_t ap_register_provider(apr_pool_t *p, const char *g, const char *n, const char *v,
                                  const void *pr) {
    prov = pr;
    return 0;
}

int main(int argc, char **argv) {
    apr_initialize();
    apr_pool_t *p;
    apr_pool_create(&p, NULL);
    void *h = dlopen("/usr/lib/apache2/modules/mod_socache_shmcb.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    module *m = dlsym(h, "socache_shmcb_module");
    m->register_hooks(p);
    for (int i = 1; i < argc; i++) {
        ap_socache_instance_t *inst;
        const char *size = argv[i];
        const char *err = prov->create(&inst, apr_psprintf(p, "x(%s)", size), p, p);
        if (err) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        struct ap_socache_hints hints = {16, 8, 0};
        if (prov->init(inst, "demo", &hints, NULL, p))
            return 1;
        apr_time_t now = apr_time_now(), hour = now + apr_time_from_sec(3600),
                   minute = now + apr_time_from_sec(60);
        /* key A: a signup counter of an hour's window, one hit. shmcb picks the
         * subcache by the first byte of the key: A and B share one. */
        unsigned char a[16] = {7, 'A'}, b[16] = {7, 'B'};
        unsigned int one = 1;
        prov->store(inst, NULL, a, 16, hour, (unsigned char *)&one, 4, p);
        for (unsigned n = 1; n <= 1000000; n++) {
            unsigned int v = 0, len = 4;
            if (prov->retrieve(inst, NULL, b, 16, (unsigned char *)&v, &len, p) != APR_SUCCESS)
                v = 0;
            v++;
            prov->store(inst, NULL, b, 16, minute, (unsigned char *)&v, 4, p);
            len = 4;
            unsigned int va = 0;
            if (prov->retrieve(inst, NULL, a, 16, (unsigned char *)&va, &len, p) != APR_SUCCESS) {
                printf("shmcb %s bytes: the live one-hour counter was dropped after %u hits on "
                       "another "
                       "key of its subcache (its count %u was lost)\n",
                       size, n, one);
                goto next;
            }
        }
        printf("shmcb %s bytes: kept after 1000000 hits\n", size);
    next:;
    }
    return 0;
}
