/* Fuzz target: reading dumps handed to `upload`/`report`/the uploader
 * (export/dump_read.c): dump__parse on the input, and dump__read_file on it
 * as a file (gzip or plain, and its gzip form). Every string of a validated
 * dump is walked, in every document of the file. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "export/dump_read.h"
#include "tests/fuzz/fuzz.h"

static void walk_labels(const struct dump_label *l, size_t n)
{
	size_t i;

	FUZZ_CHECK(n == 0 || l != NULL);
	for (i = 0; i < n; i++) {
		fuzz_touch(l[i].name, strlen(l[i].name));
		fuzz_touch(l[i].value, strlen(l[i].value));
	}
}

static void walk(const struct dump *d)
{
	size_t i, j;
	uint64_t sum;

	fuzz_touch(d->schema, strlen(d->schema));
	fuzz_touch(d->window_id, strlen(d->window_id));
	fuzz_touch(d->hostname, strlen(d->hostname));
	fuzz_touch(d->kernel, strlen(d->kernel));
	fuzz_touch(d->arch, strlen(d->arch));
	fuzz_touch(d->event_name, strlen(d->event_name));
	fuzz_touch(d->event_unit, strlen(d->event_unit));
	walk_labels(d->labels, d->nlabels);
	FUZZ_CHECK(d->nprofiles == 0 || d->profiles != NULL);
	for (i = 0; i < d->nprofiles; i++) {
		const struct dump_profile *p = &d->profiles[i];

		walk_labels(p->labels, p->nlabels);
		sum = 0;
		for (j = 0; j < p->nstacks; j++) {
			fuzz_touch(p->stacks[j].stack, strlen(p->stacks[j].stack));
			sum += p->stacks[j].count;
		}
		/* the format's invariant, which the reader validates */
		FUZZ_CHECK(sum == p->samples);
	}
}

/* Every document of the file (a recording of several events), and each
 * one's own gzip form when there are several and it was asked for. */
static void walk_all(const struct dump *d, int asked_gz)
{
	size_t n = 0;

	for (; d; d = d->next, n++) {
		FUZZ_CHECK(d->index == n);
		FUZZ_CHECK(n < DUMP_MAX_DOCUMENTS);
		walk(d);
		if (d->doc_gz)
			fuzz_touch(d->doc_gz, d->doc_gzlen);
		FUZZ_CHECK(!d->doc_gz || asked_gz);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	struct dump *d;
	void *gz = NULL;
	size_t gzlen = 0;

	memset(err, 'x', sizeof(err));
	if (dump__parse((const char *)data, size, &d, err, sizeof(err)) == 0) {
		walk_all(d, 0);
		dump__delete(d);
	} else {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	}
	memset(err, 'x', sizeof(err));
	if (dump__read_file(fuzz_tmp_write(data, size), &d, (size & 1) ? &gz : NULL,
			    (size & 1) ? &gzlen : NULL, err, sizeof(err)) == 0) {
		walk_all(d, (size & 1) != 0);
		dump__delete(d);
		if (gz)
			fuzz_touch(gz, gzlen);
		free(gz);
	} else {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	}
	return 0;
}
