/* Statements of quotas and usage. */
#include "stmts.h"

const fs_stmt fs_stmts_quota[] = {
    /* 1 user id: usage json (fs_account_usage) */
    {"fs_account_usage", "SELECT fs_account_usage(%s)::text"},
    {NULL, NULL}};
