/* fs_tz: IANA time zones without the C library's global state.
 * localtime_r and mktime read the zone from TZ, process-wide: switching it
 * per request is not thread-safe under a threaded MPM. This reads the TZif
 * file of a zone (RFC 8536, version 2 or later) into a pool and answers
 * from it alone, the POSIX TZ footer included (slim files end their table
 * at the last rule change and leave later years to the footer). */
#ifndef FS_TZ_H
#define FS_TZ_H

#include <apr_pools.h>

#define FS_ZONEINFO_DIR "/usr/share/zoneinfo"

typedef struct fs_tz fs_tz;

/* 1 when name looks like an IANA zone name: 1..64 characters, segments of
 * letters, digits, '_', '-', '+' separated by '/', none beginning with '.'
 * or '-'; not under posix/ or right/. Says nothing about the file. */
int fs_tz_name_valid(const char *name);

/* Loads zone name from dir (NULL: FS_ZONEINFO_DIR) into p; NULL when the
 * name is not valid, the file is missing, or it is not a TZif file of
 * version 2 or later this reader understands. */
fs_tz *fs_tz_load(apr_pool_t *p, const char *dir, const char *name);

/* The UTC offset in seconds east of Greenwich at the instant t (seconds
 * since the epoch). */
long fs_tz_offset_at(const fs_tz *z, long long t);

/* The instant of a local wall-clock time (seconds since the epoch as if
 * the wall clock were UTC) and its offset. An ambiguous time (clocks set
 * back) is the earlier instant; a time in a gap (clocks set forward) is
 * moved forward by the gap, as JavaScript's Temporal ("compatible") and
 * java.time do. */
long long fs_tz_from_local(const fs_tz *z, long long wall, long *offset);

/* "YYYY-MM-DDThh:mm[:ss]" (what <input type=datetime-local> sends) in zone
 * z as RFC 3339 with the zone's offset ("2026-07-01T14:30:00+02:00"), in
 * p; NULL when s is not such a time or the offset is not whole minutes
 * (local mean time before about 1900). */
const char *fs_tz_local_to_rfc3339(apr_pool_t *p, const fs_tz *z, const char *s);

#endif
