/* record's result: each event's window described (its span, host and
 * event), encoded in the format asked for and written to -o or standard
 * output, one JSON document or top table per event, one after the other. */
#ifndef SMOLDER_CLI_RECORD_OUTPUT_H
#define SMOLDER_CLI_RECORD_OUTPUT_H
#include <stdint.h>

#include "export/encode.h"

struct sampler;
struct utsname;

struct record_output {
	enum encode_format format;
	const char *output;     /* NULL: standard output */
	uint64_t deadline_ns;   /* CLOCK_MONOTONIC bound on the write; 0: none */
	unsigned freq_hz;       /* the first event's rate */
	uint64_t start_ns, end_ns; /* the recording's span, wall clock */
	const struct utsname *uts;
};

/* Describes, encodes and writes the sampler's finished windows; logs what
 * went wrong. Returns 0 or -errno. */
int record_output__write(struct sampler *s, const struct record_output *o);

#endif
