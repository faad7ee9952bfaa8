/* fs_store_edits: editing after sending (settings.allowEdits,
 * mod_formsvc/store/edits_store.c, sql/0065): the submission an edit
 * link opens, the edit itself, and the versions of a submission's
 * answers. Conventions: fs_store.h. */
#ifndef FS_STORE_EDITS_H
#define FS_STORE_EDITS_H

#include "fs_store.h"

/* Submission sid of form form_id as its edit page shows it: *data its
 * current answers (JSON text), *open 1 while it may be edited (created
 * less than hours ago), 0 when the time is over. *data NULL: no such
 * submission of the form. */
fs_error *fs_store_edit_get(fs_store *st, const char *sid, const char *form_id, int hours,
                            const char **data, int *open);

/* An edit (fs_submission_edit, sql/0065). */
typedef struct fs_edit {
    const char *form_id, *sid;
    const char *data_json;    /* the checked answers */
    const char *uniq_hash;    /* fs_unique_hash of them, NULL: no uniqueBy */
    const char *ending;       /* the ending they reach, or NULL */
    const char *form_version; /* the version they were checked against */
    int hours;                /* settings.allowEdits.untilHours */
    const char *event_id;     /* the submission.updated event's id */
    const char *calculated;   /* fs_calculated of them (JSON), or NULL */
} fs_edit;
typedef enum {
    FS_EDIT_OK,
    FS_EDIT_GONE,      /* no such submission of a published form */
    FS_EDIT_STALE,     /* the form changed since the answers were checked */
    FS_EDIT_EXPIRED,   /* untilHours are over */
    FS_EDIT_DUPLICATE, /* another submission holds the uniqueBy values */
} fs_edit_outcome;
/* Stores the edit; *json the submission as the owner sees it when OK. */
fs_error *fs_store_edit_save(fs_store *st, const fs_edit *in, fs_edit_outcome *out,
                             const char **json);

/* The versions of submission sid (of form_id, user_id's), newest first:
 * items with id "ver_" and the version in 26 digits (the cursor's), and
 * json {version, formVersion, data, createdAt[, ending]}; after such an
 * id or NULL. A submission never edited has one version, itself. */
fs_error *fs_store_versions_list(fs_store *st, const char *sid, const char *form_id,
                                 const char *user_id, const char *after, int limit,
                                 fs_list_page *out);

#endif
