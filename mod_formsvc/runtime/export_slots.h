/* export_slots: how many XLSX exports run at once on this server, across
 * its children (FormsvcXlsxExports). An XLSX export holds disk for its
 * length (the worksheet's XML and the workbook, up to about 1 GB at the
 * largest size: docs/forms.md), so the server runs at most that many and
 * answers 503 beyond.
 *
 * The slots are in shared memory made once per httpd process tree (the
 * process pool, as the metrics' segment): children of every generation
 * share them across graceful restarts. A slot holds the pid of the child
 * whose export has it; taking one is a compare-and-swap of a free (0)
 * slot, so no lock is held; a slot whose child has died (killed while
 * exporting) is taken back by the next export that finds none free. */
#ifndef FORMSVC_EXPORT_SLOTS_H
#define FORMSVC_EXPORT_SLOTS_H

#include <httpd.h>

/* the most FormsvcXlsxExports takes */
#define FORMSVC_EXPORT_SLOTS_MAX 256

/* post_config: makes (or finds again) the slots' shared memory. */
int formsvc_export_slots_post_config(apr_pool_t *pconf, server_rec *s);

/* A slot for an export of r, given back by r->pool's cleanup: 1, or 0
 * when FormsvcXlsxExports exports already run (or the shared memory could
 * not be made: then every export may run, as before). */
int formsvc_export_slot_take(request_rec *r);

#endif
