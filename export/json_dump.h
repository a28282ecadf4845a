/* The smolder.profile/v1 JSON dump of a profile window (doc/format.md). */
#ifndef SMOLDER_EXPORT_JSON_DUMP_H
#define SMOLDER_EXPORT_JSON_DUMP_H
#include <stddef.h>
#include <stdio.h>

struct agent_stats;
struct profile;

#define JSON_DUMP_SCHEMA "smolder.profile/v1"

/* Writes the dump of p to out, its "stats" being p's sample accounting and
 * agent's counters (agent NULL: zeros, as for a merge of dumps): one compact JSON document (no insignificant
 * whitespace, keys in the fixed order of doc/format.md) followed by '\n'.
 * Strings that are not valid UTF-8 have each bad byte replaced by U+FFFD.
 * Returns 0, -ENOMEM, or -EIO when out reports a write error (out may then
 * hold a partial document: write to a temp file, see atomic_file.h).
 * Allocates per call (the whole document is built before writing); does not
 * modify p; not thread-safe with writers of p. */
int json_dump__write(const struct profile *p, const struct agent_stats *agent, FILE *out);

/* Same document in a malloc'd buffer (*buf NUL-terminated, *len without the
 * NUL; the caller frees *buf). Returns 0 or -ENOMEM; *buf and *len are
 * untouched on failure. */
int json_dump__to_buffer(const struct profile *p, const struct agent_stats *agent, char **buf,
			 size_t *len);

#endif
