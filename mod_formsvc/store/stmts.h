/* Per-resource statement lists, each ending with {NULL, NULL}. */
#ifndef FS_STMTS_H
#define FS_STMTS_H
#include "fs_store.h"
extern const fs_stmt fs_stmts_account[];
extern const fs_stmt fs_stmts_public[];
#endif
