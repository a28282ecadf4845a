/* The one format dispatcher: a profile written as any of the formats the
 * commands offer (record --format, report --format). A new output format
 * is added here, once, and both commands have it. */
#ifndef SMOLDER_EXPORT_ENCODE_H
#define SMOLDER_EXPORT_ENCODE_H
#include <stddef.h>
#include <stdio.h>

#include "export/pprof.h"

struct agent_stats;
struct profile;

enum encode_format {
	ENCODE_TOP,       /* the self/total table (export/top.h) */
	ENCODE_JSON,      /* the smolder.profile/v1 dump (export/json_dump.h) */
	ENCODE_COLLAPSED, /* "comm;root;...;leaf count" lines (export/collapsed.h) */
	ENCODE_PPROF,     /* gzip'd profile.proto (export/pprof.h) */
	ENCODE_SVG,       /* an interactive flame graph (export/flamegraph.h) */
};

/* The format names, for --help and error messages. */
#define ENCODE_FORMAT_NAMES "top, json, collapsed, pprof, svg"

struct encode_opts {
	enum encode_format format;
	const struct agent_stats *agent; /* json, top: the agent's own figures; NULL: none */
	const struct profile *base;      /* top, svg: differential against it; NULL */
	size_t top_rows;                 /* top: rows per table (0: all) */
	/* pprof: CPU time per sample and the time span; all 0: from the
	 * profile's meta (1e9 / frequency_hz, its window) */
	struct pprof_opts pprof;
	const char *title, *subtitle;    /* svg: NULL for the defaults */
	int icicle;                      /* svg: root at the top */
};

/* Defaults for format f: 20 top rows, no agent figures, no base. */
void encode__opts_init(struct encode_opts *o, enum encode_format f);
/* A format by name (the names above). 0, or -EINVAL (*f untouched). */
int encode__parse_format(const char *name, enum encode_format *f);
/* The name of a format ("pprof"). */
const char *encode__format_name(enum encode_format f);
/* Whether the format is binary (pprof): not for a terminal. */
int encode__is_binary(enum encode_format f);
/* Writes p to out. Returns the encoder's result: 0, -ENOMEM, -EIO on a
 * write error, -EINVAL for an option the format does not take (a base for
 * json, collapsed or pprof). */
int encode__write(const struct profile *p, const struct encode_opts *o, FILE *out);

#endif
