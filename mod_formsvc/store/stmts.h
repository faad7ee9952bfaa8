/* Per-resource statement lists, each ending with {NULL, NULL}. */
#ifndef FS_STMTS_H
#define FS_STMTS_H
#include "fs_store.h"
extern const fs_stmt fs_stmts_account[];
extern const fs_stmt fs_stmts_oauth[];
extern const fs_stmt fs_stmts_ratelimit[];
extern const fs_stmt fs_stmts_quota[];
extern const fs_stmt fs_stmts_verify[];
extern const fs_stmt fs_stmts_forms[];
extern const fs_stmt fs_stmts_public[];
extern const fs_stmt fs_stmts_webhooks[];
#endif
