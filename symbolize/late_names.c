/* Naming a dump's unnamed frames from debug files found by build ID
 * (late_names.h). Each distinct frame is looked at once; each build ID's
 * debug file is opened once, as a symbol index of its own. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/hash.h"
#include "common/strtab.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "profile/mappings.h"
#include "profile/profile.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/late_names.h"
#include "symbolize/symindex.h"

/* Frames one function start may give (the function is the last). */
#define LOOKUP_MAX 32
/* Debug files opened at most: each is an index of a whole binary. */
#define FILES_MAX 4096

struct file_ent {
	const char *build_id; /* borrowed from the mappings */
	struct symindex *s;   /* NULL: no directory had it */
};

struct late_names {
	struct strtab *names;
	bool own_names;       /* names is ours (the string API) */
	const struct mappings *m;
	const char *const *dirs;
	size_t ndirs;
	struct debuginfod_fetch *fetch;
	struct u64map *renamed; /* frame id -> new id */
	struct u64map *by_id;   /* hash of a build ID -> file + 1 */
	struct file_ent *files;
	size_t nfiles, cap;
	struct late_names_stats stats;
	int err;
};

/* DIR/.build-id/xx/rest.debug of the first directory that has it as a
 * regular file; 0, or -ENOENT. */
static int find_debug_file(const struct late_names *l, const char *build_id, char *path, size_t size)
{
	struct stat st;
	size_t i;

	if (strlen(build_id) < 4)
		return -ENOENT;
	for (i = 0; i < l->ndirs; i++) {
		int n = snprintf(path, size, "%s/.build-id/%.2s/%s.debug", l->dirs[i], build_id, build_id + 2);

		if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
	}
	return -ENOENT;
}

/* Whether the file s indexes has the build ID hex. */
static bool same_build_id(const struct symindex *s, const char *hex)
{
	char got[MAPPING_BUILD_ID_HEX_MAX + 1];
	const unsigned char *id = NULL;
	size_t len = symindex__build_id(s, &id);

	if (!len)
		return false;
	mappings__hex(id, len, got);
	return strcmp(got, hex) == 0;
}

/* The index of build_id's debug file, opened at its first use; NULL when
 * none is found (remembered too). */
static struct symindex *debug_index(struct late_names *l, const struct mapping *e)
{
	uint64_t key = hash__bytes(e->build_id, strlen(e->build_id), 0), v;
	char path[4096];
	struct file_ent *f;
	bool found = false, fetched = false;

	if (u64map__get(l->by_id, key, &v) && v - 1 < l->nfiles && !strcmp(l->files[v - 1].build_id, e->build_id))
		return l->files[v - 1].s;
	if (l->nfiles == FILES_MAX)
		return NULL;
	if (l->nfiles == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct file_ent *grown = realloc(l->files, cap * sizeof(*grown));

		if (!grown) {
			l->err = -ENOMEM;
			return NULL;
		}
		l->files = grown;
		l->cap = cap;
	}
	f = &l->files[l->nfiles];
	f->build_id = e->build_id;
	f->s = NULL;
	if (find_debug_file(l, e->build_id, path, sizeof(path)) == 0)
		found = true;
	else if (l->fetch && debuginfod_fetch__debuginfo(l->fetch, e->build_id, path, sizeof(path)) == 0)
		found = fetched = true;
	if (found && symindex__new(path, e->module, l->names, &f->s) == 0) {
		if (same_build_id(f->s, e->build_id)) {
			l->stats.files++;
			l->stats.fetched += fetched;
		} else {
			/* a file put under another's name names nothing */
			l->stats.wrong_files++;
			symindex__delete(f->s);
			f->s = NULL;
		}
	} else {
		f->s = NULL;
	}
	if (u64map__put(l->by_id, key, l->nfiles + 1) != 0) {
		symindex__delete(f->s);
		l->err = -ENOMEM;
		return NULL;
	}
	return l->files[l->nfiles++].s;
}

/* The new name of "MODULE+0xSTART", or 0 when it keeps its own. */
static uint32_t name_of(struct late_names *l, const struct frame_parts *fp)
{
	uint32_t frames[LOOKUP_MAX];
	const struct mapping *e;
	struct frame_parts got;
	struct symindex *s;
	bool ambiguous;
	size_t n = 0;

	e = mappings__find(l->m, fp->module, fp->module_len, &ambiguous);
	if (!e || !*e->build_id) {
		if (ambiguous)
			l->stats.ambiguous++;
		else
			l->stats.no_build_id++;
		return 0;
	}
	s = debug_index(l, e);
	if (!s) {
		l->stats.no_file++;
		return 0;
	}
	if (symindex__lookup(s, fp->start, fp->start, frames, LOOKUP_MAX, &n) != 0 || !n) {
		l->stats.no_symbol++;
		return 0;
	}
	/* the function, not what was inlined at its first instruction */
	frame_name__parse(strtab__str(l->names, frames[n - 1]), &got);
	if (got.kind != FRAME_FUNCTION) {
		l->stats.no_symbol++;
		return 0;
	}
	l->stats.named++;
	return frames[n - 1];
}

uint32_t late_names__rename_id(struct late_names *l, uint32_t id)
{
	struct frame_parts fp;
	uint64_t v;
	uint32_t to;

	if (l->err || u64map__get(l->renamed, id, &v))
		return l->err ? id : (uint32_t)v;
	frame_name__parse(strtab__str(l->names, id), &fp);
	to = fp.kind == FRAME_MODULE_OFFSET ? name_of(l, &fp) : 0;
	if (!to)
		to = id;
	if (u64map__put(l->renamed, id, to) != 0)
		l->err = -ENOMEM;
	return to;
}

const char *late_names__name(struct late_names *l, const char *frame, size_t len)
{
	uint32_t id, to;

	if (strtab__intern(l->names, frame, len, &id) != 0) {
		l->err = -ENOMEM;
		return NULL;
	}
	to = late_names__rename_id(l, id);
	return to != id ? strtab__str(l->names, to) : NULL;
}

int late_names__new(struct strtab *names, const struct mappings *m, const char *const *dirs, size_t ndirs,
		    struct debuginfod_fetch *fetch, struct late_names **out)
{
	struct late_names *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->own_names = !names;
	l->names = names ? names : strtab__new();
	l->m = m;
	l->dirs = dirs;
	l->ndirs = ndirs;
	l->fetch = fetch;
	l->renamed = u64map__new(1024);
	l->by_id = u64map__new(64);
	if (!l->names || !l->renamed || !l->by_id) {
		late_names__delete(l);
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

void late_names__set_mappings(struct late_names *l, const struct mappings *m)
{
	l->m = m;
	u64map__clear(l->renamed);
}

const struct late_names_stats *late_names__stats(const struct late_names *l)
{
	return &l->stats;
}

int late_names__error(const struct late_names *l)
{
	return l->err;
}

void late_names__delete(struct late_names *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nfiles; i++)
		symindex__delete(l->files[i].s);
	free(l->files);
	u64map__delete(l->renamed);
	u64map__delete(l->by_id);
	if (l->own_names)
		strtab__delete(l->names);
	free(l);
}

static uint32_t rename_frame(void *ctx, uint32_t id)
{
	return late_names__rename_id(ctx, id);
}

int late_names__apply(struct profile *p, struct strtab *names, const struct mappings *m, const char *const *dirs,
		      size_t ndirs, struct debuginfod_fetch *fetch, struct late_names_stats *stats)
{
	struct late_names *l;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if (!mappings__count(m) || (!ndirs && !fetch))
		return 0;
	rc = late_names__new(names, m, dirs, ndirs, fetch, &l);
	if (rc < 0)
		return rc;
	rc = profile__rename_frames(p, rename_frame, l);
	if (!rc && l->err)
		rc = l->err; /* a frame past the failure kept its name */
	*stats = l->stats;
	late_names__delete(l);
	return rc;
}
