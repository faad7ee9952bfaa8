/* files: uploaded files on the httpd side: the
 * upload of a submission's files into its transaction (from a JSON body's
 * base64 or, streamed, from multipart parts), and the owner's download.
 * The rules (accept, magic bytes, names, hashing) are the core's
 * (fs_file.h); the SQL is the store's (fs_store_files.h). */
#ifndef FORMSVC_FILES_H
#define FORMSVC_FILES_H

#include <httpd.h>
#include <http_config.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"
#include "fs_file.h"

/* The settings of FormsvcFileMaxJSONBody, FormsvcFileMaxSize,
 * FormsvcFileMaxFiles and the file quotas (runtime/config_global.h). */
apr_off_t formsvc_file_json_max(void);
/* Lowers the file fields of fs to the directives' ceilings. */
void formsvc_files_ceilings(fs_fieldset *fs);
/* Storage quota of an account by tier, in bytes. */
long long formsvc_file_quota(int verified);

/* The files of one submission. As they arrive (formsvc_upload_begin,
 * _data, _end) they are checked and spooled: memory for the first 256 KB,
 * then a file in FormsvcUploadTempDir, unlinked when made and closed with
 * r->pool; the database is not asked meanwhile. Once the body is read,
 * formsvc_upload_save writes them in a transaction that the
 * submission joins and formsvc_upload_commit (or _rollback) ends (a
 * cleanup of r->pool rolls it back otherwise). Problems name the field:
 * 413 payload-too-large for a file over its maxSize or the owner's
 * storage, 422 validation-failed (pointer /key or /key/i) for a file of a
 * type the field does not accept, whose content does not match its type,
 * or one too many; 503 when the spool cannot be written. */
typedef struct formsvc_upload formsvc_upload;
formsvc_upload *formsvc_upload_new(request_rec *r, const fs_fieldset *fs, const char *form_id,
                                   const char *sub_id);
/* A file of field key begins: name and declared Content-Type as sent. */
fs_error *formsvc_upload_begin(formsvc_upload *u, const char *key, const char *name,
                               const char *ctype);
fs_error *formsvc_upload_data(formsvc_upload *u, const char *buf, apr_size_t len);
fs_error *formsvc_upload_end(formsvc_upload *u);
/* The files of a JSON body (validated by fs_validate): each decoded and
 * stored, and each file field's value replaced by its metadata. */
fs_error *formsvc_upload_json(formsvc_upload *u, json_object *obj);
/* Sets each file field that got files to the array of their metadata
 * ({id, name, type, size, sha256, url}) in obj. */
void formsvc_upload_values(formsvc_upload *u, json_object *obj);
/* Stubs standing for the files in obj, as a JSON body would send them
 * ({name, type, data: ""}), for fs_validate to count; returns obj. */
json_object *formsvc_upload_stubs(formsvc_upload *u, json_object *obj);
/* 1 when any file was received and checked. */
int formsvc_upload_any(const formsvc_upload *u);
/* Opens the transaction and writes the spooled files into it, then checks
 * the owner's storage quota counting them (413 naming the first file past
 * it). On a problem the transaction is rolled back. */
fs_error *formsvc_upload_save(formsvc_upload *u);
/* Commits the transaction (the submission was stored in it). */
fs_error *formsvc_upload_commit(formsvc_upload *u);
/* Rolls it back now, before an answer that stores nothing is sent. No
 * operation when u is NULL or nothing is open. */
void formsvc_upload_rollback(formsvc_upload *u);

/* The most a multipart body may carry for the file fields of fs. */
apr_off_t formsvc_files_max_body(const fs_fieldset *fs);

/* Reads r's multipart/form-data body as it arrives (never whole) into
 * *pairs, at most max_total bytes (413 beyond), each non-file value at
 * most max_value. With take_files, file parts go to u, or are read and
 * dropped when u is NULL; without, a file part is a 400. hash, when set,
 * is fed every byte of the body. A problem with a file (413 too large,
 * 422 not accepted, not its type, one too many) does not stop the read:
 * the rest of the body is read (its files dropped) so that every other
 * answer is kept, and the first such problem is left in *file_err. The
 * return value is the problem that ends the request: a malformed body
 * (400), one too large (413), too slow (408), or the database (5xx). */
fs_error *formsvc_multipart_read(request_rec *r, const char *boundary, apr_off_t max_value,
                                 apr_off_t max_total, int take_files, formsvc_upload *u,
                                 fs_sha256 *hash, apr_array_header_t **pairs, fs_error **file_err);

/* {"used": bytes, "quota": bytes} of the account's uploaded files (for
 * /v1/me; owned by the caller), or NULL with *e set. */
json_object *formsvc_files_storage_json(request_rec *r, const char *user_id, fs_error **e);

#endif
