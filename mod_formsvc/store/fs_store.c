/* fs_store: the table of every statement, gathered from the per-resource
 * stmts_*.c files. Built once at configuration time (single-threaded). */
#include "fs_store.h"
#include "stmts.h"

static fs_stmt all[256];
static int n_all = -1;

static void gather(const fs_stmt *list)
{
    for (; list->label; list++)
        if (n_all < (int)(sizeof(all) / sizeof(all[0])))
            all[n_all++] = *list;
}

const fs_stmt *fs_store_statements(int *count)
{
    if (n_all < 0) {
        n_all = 0;
        gather(fs_stmts_account);
        gather(fs_stmts_oauth);
        gather(fs_stmts_ratelimit);
        gather(fs_stmts_quota);
        gather(fs_stmts_verify);
        gather(fs_stmts_forms);
        gather(fs_stmts_public);
        gather(fs_stmts_webhooks);
    }
    *count = n_all;
    return all;
}
