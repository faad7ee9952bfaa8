/* fs_store_files: uploaded files of submissions (sql/0032,
 * mod_formsvc/store/files_store.c). Conventions: fs_store.h.
 *
 * A submission with files is stored in one transaction on the request's
 * connection, opened once the whole body has arrived (the files wait in
 * a spool, http/files.h): fs_store_tx_begin, then per file
 * fs_store_file_put (its row and first chunk) and its other chunks
 * (fs_store_file_chunk, binary), then the submission itself (fs_store_public_submit)
 * and fs_store_tx_commit. Until the commit nothing is visible; a request
 * that ends without it is rolled back by a cleanup of the pool given to
 * fs_store_tx_begin. The same transaction holds a /v1 POST with an
 * Idempotency-Key: its claim, its work and its answer (http/idempotency.h). */
#ifndef FS_STORE_FILES_H
#define FS_STORE_FILES_H

#include "fs_store.h"

typedef struct fs_tx fs_tx;
/* Opens a transaction on st's connection; p's cleanup rolls it back
 * unless it was committed. 503 when no connection can be had. */
fs_error *fs_store_tx_begin(fs_store *st, apr_pool_t *p, fs_tx **out);
/* Commits: NULL only when PostgreSQL answered COMMIT (a transaction that
 * failed, or that a renewed session lost, is a problem: nothing stored).
 * The answer is awaited up to fs_store_commit_timeout; none by then, or
 * the connection lost after COMMIT left: 504 outcome-unknown. */
fs_error *fs_store_tx_commit(fs_tx *tx);
/* Rolls back now (the transaction ends before the answer is sent); no
 * operation when tx is NULL or already ended. */
void fs_store_tx_rollback(fs_tx *tx);
/* 1 while the transaction is open on the server (not lost to a renewed
 * session, not failed). */
int fs_store_tx_alive(fs_tx *tx);

typedef struct fs_new_file {
    const char *id, *sub_id, *form_id, *field_key, *name, *type;
} fs_new_file;
/* A whole file: its row (size bytes, its SHA-256, in chunks of 256 KB)
 * and its first chunk (first_len bytes, sent as a binary bytea parameter;
 * NULL for an empty file); 404 not-found when form_id is gone. */
fs_error *fs_store_file_put(fs_store *st, const fs_new_file *f, long long size, const char *sha256,
                            int chunks, const void *first, apr_size_t first_len);
/* Chunk seq (1, 2, ...) of file_id: len bytes, sent as a binary bytea
 * parameter (no escaping, no copy). */
fs_error *fs_store_file_chunk(fs_store *st, const char *file_id, int seq, const void *data,
                              apr_size_t len);

/* Bytes of files the owner of form_id stores (this transaction's
 * included) and their quota by tier (bytes). */
fs_error *fs_store_files_usage(fs_store *st, const char *form_id, long long quota_unverified,
                               long long quota_verified, long long *used, long long *quota);
/* Bytes of files user_id stores, and its quota by tier. */
fs_error *fs_store_files_used(fs_store *st, const char *user_id, long long quota_unverified,
                              long long quota_verified, long long *used, long long *quota);

typedef struct fs_file_meta {
    const char *id, *name, *type, *sha256;
    long long size;
    int chunks;
} fs_file_meta;
/* File file_id of submission sub_id of form form_id; *out NULL when none. */
fs_error *fs_store_file_get(fs_store *st, const char *form_id, const char *sub_id,
                            const char *file_id, fs_file_meta **out);
/* Chunk seq of file_id, as binary: *data (len bytes, in p) is NULL when
 * there is no such chunk. */
fs_error *fs_store_file_read_chunk(fs_store *st, apr_pool_t *p, const char *file_id, int seq,
                                   const char **data, apr_size_t *len);

#endif
