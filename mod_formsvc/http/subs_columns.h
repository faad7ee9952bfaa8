/* subs_columns: the columns of a form's submissions export, one list for
 * the CSV (handle_submissions.c) and the XLSX (subs_export.c), so the two
 * cannot drift (docs/forms.md, "CSV export", says what each column is).
 * In order: id, createdAt, formVersion, spam (when the export includes
 * spam), one per question (a part of an address, a date range or a
 * signature, or a matrix's row, "key.sub"), linkId and linkMetadata,
 * askId, ownerStatus, ownerTags and ownerNote, endingKey, what the server
 * calculated (fs_scores.h), spamScore; each group only when the form has
 * what fills it. */
#ifndef FORMSVC_SUBS_COLUMNS_H
#define FORMSVC_SUBS_COLUMNS_H

#include "fs_error.h"
#include "http/forms_access.h"

#include <httpd.h>

typedef struct formsvc_sub_cols {
    int with_spam;      /* spam: the export includes spam */
    int links;          /* linkId, linkMetadata: the form has had a link */
    int asked;          /* askId: the form is an ask's */
    int owned;          /* ownerStatus, ownerTags, ownerNote: its owner changed one */
    int ended;          /* endingKey: the form has settings.endings */
    int scored;         /* spamScore: the form has settings.spamThreshold */
    int nq;             /* the answer columns ... */
    const char **keys;  /* ... by key: "key", or "key.sub" (fs_field_column_value) */
    int *as_date;       /* the question is a date (a date cell in XLSX) */
    int parted;         /* some key is "key.sub" */
    int ncalc;          /* the calculated columns ... */
    const char **calc;  /* ... by name (fs_scores_csv_columns; fs_scores_values reads them) */
    int n;              /* every column ... */
    const char **names; /* ... by name, in order, unescaped */
} formsvc_sub_cols;

/* The columns of form's export; memory from r->pool. The store is asked
 * whether the form has had links, owner changes and an ask. */
fs_error *formsvc_sub_cols_make(request_rec *r, const formsvc_form *form, int with_spam,
                                formsvc_sub_cols *c);

#endif
