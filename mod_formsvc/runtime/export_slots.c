/* export_slots: the XLSX exports running at once, across children. */
#include "runtime/export_slots.h"
#include "runtime/config_global.h"
#include "runtime/log.h"

#include <apr_atomic.h>
#include <apr_file_info.h>
#include <apr_shm.h>
#include <apr_strings.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

APLOG_USE_MODULE(formsvc);

#define SEGMENT_KEY "formsvc-export-slots"
#define MAGIC 0x66736573u /* "fses" */

typedef struct segment {
    apr_uint32_t magic;
    volatile apr_uint32_t pid[FORMSVC_EXPORT_SLOTS_MAX]; /* 0: free */
} segment;

/* the process tree's segment; NULL when it could not be made */
static segment *seg;

static int gone(apr_uint32_t pid);

/* The workbook files (formsvc-xlsx-<pid>-XXXXXX) of children that died
 * while making one (killed by a stop or restart that did not wait for
 * them, or crashed): nothing else would ever remove them. A file whose
 * child still runs (an old generation finishing its exports after a
 * graceful restart) is kept. */
static void sweep(apr_pool_t *ptemp, server_rec *s) {
    const char *dir = formsvc_global_conf()->upload_tmp_dir;
    apr_dir_t *d;
    if (!dir || apr_dir_open(&d, dir, ptemp) != APR_SUCCESS)
        return;
    apr_finfo_t fi;
    int removed = 0;
    while (apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE, d) == APR_SUCCESS) {
        if (fi.filetype != APR_REG || strncmp(fi.name, "formsvc-xlsx-", 13))
            continue;
        char *end;
        unsigned long pid = strtoul(fi.name + 13, &end, 10);
        if (end == fi.name + 13 || *end != '-' || pid == 0 || pid > 0xffffffffUL ||
            !gone((apr_uint32_t)pid))
            continue;
        if (apr_file_remove(apr_pstrcat(ptemp, dir, "/", fi.name, NULL), ptemp) == APR_SUCCESS)
            removed++;
    }
    apr_dir_close(d);
    if (removed)
        FORMSVC_SLOG(s, APLOG_NOTICE, 0, 00381,
                     "removed %d XLSX export file(s) that children killed while making them "
                     "left in %s",
                     removed, dir);
}

int formsvc_export_slots_post_config(apr_pool_t *pconf, server_rec *s) {
    apr_pool_t *ptemp; /* the sweep's directory reads, freed after it */
    apr_pool_create(&ptemp, pconf);
    sweep(ptemp, s);
    apr_pool_destroy(ptemp);
    apr_pool_t *proc = s->process->pool; /* the same segment after restarts */
    apr_shm_t *shm = NULL;
    apr_pool_userdata_get((void **)&shm, SEGMENT_KEY, proc);
    if (shm && (apr_shm_size_get(shm) != sizeof(segment) ||
                ((segment *)apr_shm_baseaddr_get(shm))->magic != MAGIC))
        shm = NULL; /* another layout's: start anew */
    if (!shm) {
        apr_status_t rv = apr_shm_create(&shm, sizeof(segment), NULL, proc);
        if (rv != APR_SUCCESS) {
            FORMSVC_SLOG(s, APLOG_ERR, rv, 00802,
                         "cannot create shared memory for the XLSX exports' count; "
                         "FormsvcXlsxExports is not enforced");
            seg = NULL;
            return OK;
        }
        apr_pool_userdata_set(shm, SEGMENT_KEY, apr_pool_cleanup_null, proc);
        segment *fresh = apr_shm_baseaddr_get(shm);
        memset(fresh, 0, sizeof(*fresh));
        fresh->magic = MAGIC;
    }
    seg = apr_shm_baseaddr_get(shm);
    return OK;
}

static apr_status_t give(void *slot) {
    apr_atomic_set32(slot, 0);
    return APR_SUCCESS;
}

/* a child that is gone: kill(pid, 0) finds no such process */
static int gone(apr_uint32_t pid) {
    return pid && kill((pid_t)pid, 0) == -1 && errno == ESRCH;
}

int formsvc_export_slot_take(request_rec *r) {
    if (!seg)
        return 1;
    int max = formsvc_global_conf()->xlsx_exports;
    apr_uint32_t me = (apr_uint32_t)getpid();
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < max && i < FORMSVC_EXPORT_SLOTS_MAX; i++) {
            apr_uint32_t was = apr_atomic_read32(&seg->pid[i]);
            /* a free slot; on the second pass, one a dead child left */
            if (was && (pass == 0 || !gone(was)))
                continue;
            if (apr_atomic_cas32(&seg->pid[i], me, was) == was) {
                apr_pool_cleanup_register(r->pool, (void *)&seg->pid[i], give,
                                          apr_pool_cleanup_null);
                return 1;
            }
        }
    return 0;
}
