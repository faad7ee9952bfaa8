/* public_cache: the last-known copy of each public form this process has
 * served, so that an HTML respondent whose post meets a database outage
 * gets the form back with everything typed (contract, section 6). Never
 * used while the database answers. Bounded: at most CACHE_MAX entries;
 * when full it starts again empty. */
#include "public.h"

#include <apr_strings.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_MAX 512
#define N_CELLS 8

typedef struct entry {
    char *cell[N_CELLS]; /* malloc'ed: id, slug, title, description, status, version, fields, settings */
} entry;

static entry cache[CACHE_MAX];
static int n_cache;
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

static const char **cells(const formsvc_pubform *f)
{
    return (const char **)f; /* formsvc_pubform is N_CELLS strings in this order */
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int find(const char *ref)
{
    for (int i = 0; i < n_cache; i++)
        if (!strcmp(cache[i].cell[0], ref) || (cache[i].cell[1] && !strcmp(cache[i].cell[1], ref)))
            return i;
    return -1;
}

static void drop(entry *e)
{
    for (int c = 0; c < N_CELLS; c++) {
        free(e->cell[c]);
        e->cell[c] = NULL;
    }
}

void formsvc_public_cache_put(const formsvc_pubform *f)
{
    const char **src = cells(f);
    pthread_rwlock_rdlock(&lock);
    int i = find(f->id);
    int fresh = i >= 0 && same(cache[i].cell[5], f->version) && same(cache[i].cell[4], f->status) &&
                same(cache[i].cell[1], f->slug);
    pthread_rwlock_unlock(&lock);
    if (fresh)
        return;
    pthread_rwlock_wrlock(&lock);
    i = find(f->id);
    if (i < 0) {
        if (n_cache == CACHE_MAX) {
            for (int k = 0; k < n_cache; k++)
                drop(&cache[k]);
            n_cache = 0;
        }
        i = n_cache++;
    } else {
        drop(&cache[i]);
    }
    for (int c = 0; c < N_CELLS; c++)
        cache[i].cell[c] = src[c] ? strdup(src[c]) : NULL;
    if (!cache[i].cell[0]) /* out of memory: forget the entry */
        cache[i] = cache[--n_cache];
    pthread_rwlock_unlock(&lock);
}

int formsvc_public_cache_get(apr_pool_t *p, const char *ref, formsvc_pubform *out)
{
    const char **dst = (const char **)out;
    pthread_rwlock_rdlock(&lock);
    int i = find(ref);
    if (i >= 0)
        for (int c = 0; c < N_CELLS; c++)
            dst[c] = cache[i].cell[c] ? apr_pstrdup(p, cache[i].cell[c]) : NULL;
    pthread_rwlock_unlock(&lock);
    return i >= 0;
}
