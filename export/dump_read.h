/* Reading a dump file back (for `smolder upload`, the uploader and
 * `smolder report`): gzip or plain JSON, size-limited, fully validated
 * against smolder.profile/v1 before anything uses it. Dumps handed to us are
 * hostile input. */
#ifndef SMOLDER_EXPORT_DUMP_READ_H
#define SMOLDER_EXPORT_DUMP_READ_H
#include <stddef.h>
#include <stdint.h>

#include "profile/agent_stats.h"

/* Largest dump file accepted, and largest decompressed JSON. */
#define DUMP_MAX_FILE (256u << 20)
#define DUMP_MAX_JSON (1024u << 20)

struct dump_label {
	const char *name, *value;
};

struct dump_stack {
	const char *stack; /* "root;...;leaf" */
	uint64_t count;
};

struct dump_profile {
	/* service_name, exe, comm[, pid][, thread], then labels a newer agent
	 * added, in file order */
	const struct dump_label *labels;
	size_t nlabels;
	uint64_t samples;
	const struct dump_stack *stacks;
	size_t nstacks;
};

/* Documents one file may hold: a recording of several events writes one
 * per event, one after the other (one per line). */
#define DUMP_MAX_DOCUMENTS 16u

/* A validated dump: one document of a file, and the documents after it.
 * All strings live as long as the dump. */
struct dump {
	struct dump *next;              /* the file's next document, NULL */
	size_t index;                   /* 0 for the file's first */
	/* this document alone, gzip'd: set when the file holds several and
	 * the reader asked for the file's gzip form (each is sent alone) */
	const void *doc_gz;
	size_t doc_gzlen;
	const char *schema;             /* "smolder.profile/v1" */
	const char *window_id;          /* window.id, "" when absent (older dumps) */
	uint64_t start_ns, end_ns;
	const char *hostname, *kernel, *arch;
	const char *event_name, *event_unit;
	uint64_t frequency_hz;
	const struct dump_label *labels; /* global labels */
	size_t nlabels;
	const struct dump_profile *profiles;
	size_t nprofiles;
	uint64_t total_samples;         /* stats.samples */
	uint64_t dropped;               /* stats.dropped */
	struct agent_stats stats;       /* the agent's counters (absent ones 0) */
	/* the binaries its unnamed frames are in (profile/mappings.h); NULL
	 * when the document lists none */
	const struct mappings *mappings;
};

/* Parses and validates the JSON text buf[0..len): one document, or
 * several one after the other (whitespace between them), chained by
 * `next`. On failure returns -EINVAL
 * (or -ENOMEM) and writes what is wrong into err (e.g. "profiles[2].stacks[5].count:
 * not a non-negative integer", "not JSON: line 3: unexpected token", "schema is
 * 'foo/v2', expected smolder.profile/v1"). */
int dump__parse(const char *buf, size_t len, struct dump **out, char *err, size_t errlen);

/* Reads a file (gzip detected by its magic bytes, else plain JSON), at most
 * DUMP_MAX_FILE bytes and DUMP_MAX_JSON decompressed, opened O_NOFOLLOW.
 * On success also returns the file's gzip form in *gz (the file's bytes when
 * it was gzip, else a gzip of it; malloc'd, caller frees) when gz != NULL.
 * Errors: -errno for I/O, -EINVAL/-EFBIG with err naming the problem
 * ("empty file", "truncated gzip data", ...). */
int dump__read_file(const char *path, struct dump **out, void **gz, size_t *gzlen,
		    char *err, size_t errlen);
/* Same, relative to a directory fd (the spool). */
int dump__read_fileat(int dirfd, const char *name, struct dump **out, void **gz, size_t *gzlen,
		      char *err, size_t errlen);
/* The document's JSON tree (jansson's json_t), owned by d: for writing
 * it again changed (export/dump_rename.h). */
struct json_t;
const struct json_t *dump__json(const struct dump *d);

/* Frees d and the documents after it. */
void dump__delete(struct dump *d);

#endif
