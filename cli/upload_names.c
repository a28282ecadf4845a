/* Documents named again before upload (upload_names.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/upload_names.h"
#include "common/log.h"
#include "export/dump_read.h"
#include "export/dump_rename.h"
#include "export/gzip.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/late_names.h"

#define MAX_DIRS 16

struct upload_names {
	const char *dirs[MAX_DIRS + 1];
	size_t ndirs;
	struct debuginfod_fetch *fetch;
	struct late_names *names;
	size_t documents, renamed;
};

int upload_names__new(const char *const *dirs, size_t ndirs, const char *urls, struct upload_names **out)
{
	struct upload_names *u = calloc(1, sizeof(*u));
	char msg[256];
	size_t i;

	if (!u) {
		log__error("out of memory");
		return 1;
	}
	for (i = 0; i < ndirs && i < MAX_DIRS; i++)
		u->dirs[u->ndirs++] = dirs[i];
	u->dirs[u->ndirs++] = LATE_NAMES_DEFAULT_DIR;
	if (urls && debuginfod_fetch__open(urls, &u->fetch, msg, sizeof(msg)) < 0) {
		log__error("--debuginfod: %s", msg);
		free(u);
		return 1;
	}
	if (late_names__new(NULL, NULL, u->dirs, u->ndirs, u->fetch, &u->names) < 0) {
		log__error("out of memory");
		upload_names__delete(u);
		return 1;
	}
	*out = u;
	return 0;
}

void upload_names__delete(struct upload_names *u)
{
	if (!u)
		return;
	late_names__delete(u->names);
	debuginfod_fetch__close(u->fetch);
	free(u);
}

static const char *rename_frame(void *ctx, const char *frame, size_t len)
{
	return late_names__name(ctx, frame, len);
}

int upload_names__document(struct upload_names *u, const struct dump *doc, const char *name, struct dump **out,
			   void **gz, size_t *gzlen)
{
	char *text = NULL, err[256];
	size_t len = 0;
	long n;
	int rc;

	*out = NULL;
	u->documents++;
	if (!doc->mappings)
		return 0; /* no binary to look up */
	late_names__set_mappings(u->names, doc->mappings);
	n = dump_rename__document(doc, rename_frame, u->names, &text, &len);
	if (n < 0 || late_names__error(u->names)) {
		log__error("%s: naming its functions: %s", name, strerror(ENOMEM));
		free(text);
		return -ENOMEM;
	}
	if (n == 0) {
		free(text);
		return 0;
	}
	/* the document written again is read as any: what leaves is valid */
	rc = dump__parse(text, len, out, err, sizeof(err));
	if (rc == 0)
		rc = gzip__compress(text, len, gz, gzlen);
	free(text);
	if (rc) {
		log__error("%s: its named document: %s", name, rc == -EINVAL ? err : strerror(-rc));
		dump__delete(*out);
		*out = NULL;
		return rc;
	}
	u->renamed++;
	return 0;
}

void upload_names__report(const struct upload_names *u)
{
	const struct late_names_stats *st = late_names__stats(u->names);
	size_t left = st->no_build_id + st->ambiguous + st->no_file + st->no_symbol;

	log__notice("named %zu of %zu stripped functions in %zu of %zu documents from %zu debug files "
		    "(%zu from debuginfod)%s", st->named, st->named + left, u->renamed, u->documents, st->files,
		    st->fetched, left ? "; the others are sent as they were" : "");
	if (st->wrong_files)
		log__warn("%zu debug files found under a build ID were another binary's: not used", st->wrong_files);
}
