/* profile.proto encoder: frames -> functions, locations (with inlining),
 * mappings; see pprof.h for how collapsed frames map onto pprof. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "profile/frame_name.h"
#include "profile/mappings.h"
#include "profile/profile.h"
#include "common/hash.h"
#include "common/hashidx.h"
#include "common/strtab.h"
#include "common/u64map.h"
#include "export/gzip.h"
#include "export/pprof.h"
#include "export/protobuf.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2 };
enum { MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
       MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10 };
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };

/* A location's key starts with its mapping and its address's two words. */
#define LOC_HEAD 3
#define KERNEL_MAPPING "[kernel.kallsyms]"
#define JIT_MAPPING "[jit]"
#define UNKNOWN_NAME FRAME_UNKNOWN
#define NO_STACK_NAME "[no stack]"

/* A frame as pprof sees it: its function (name and file), its line, its
 * mapping's file name (sid; 0: the group's exe). */
struct finfo {
	uint32_t fn;      /* function id */
	uint32_t line;    /* 0: none */
	uint32_t map;     /* sid of the module's file name; 0: the exe */
	uint64_t addr;    /* "MODULE+0xSTART": START, its binary's ELF vaddr */
	bool inlined;     /* into the frame below it */
	bool bracket;     /* map is the NAME of a "[NAME]" frame */
};

/* Distinct locations: (mapping id, address low and high words, then
 * (function id, line) per Line, leaf-most first) sequences in an arena,
 * found through an open-addressing index. */
struct loc {
	size_t off;   /* into arena: mapping id, then n - 1 function ids */
	uint32_t n;
	uint32_t hash32;
};

struct enc {
	const struct profile *p;
	const struct strtab *names;
	struct strtab *strs;        /* pprof string table: index = id, 0 = "" */
	struct u64map *frame_info;  /* frame id -> index into finfo + 1 */
	struct finfo *finfo;
	size_t nfinfo, finfo_cap;
	struct u64map *mapping_ids; /* mapping filename sid -> mapping id */
	uint32_t *mapping_files;    /* mapping id - 1 -> filename sid */
	size_t nmappings, mappings_cap;
	struct u64map *functions;   /* name sid | file sid << 32 -> function id */
	uint32_t *fn_name, *fn_file; /* function id - 1 -> sids */
	size_t nfns, fn_name_cap, fn_file_cap;
	bool has_lines, has_files, has_inlines;
	uint32_t *arena;
	size_t arena_len, arena_cap;
	struct loc *locs;
	size_t nlocs, locs_cap;
	struct hashidx loc_index;   /* values: location id (index + 1) */
	uint32_t *key;              /* scratch: one location's key */
	size_t key_cap;
	uint64_t *loc_ids;          /* scratch: one sample's location ids */
	size_t loc_ids_cap;

	/* Current group. */
	uint32_t exe_map;           /* mapping id of the group's exe */
	uint32_t exe_base_sid;      /* sid of the exe's file name, 0 if none */
	struct protobuf labels;     /* the group's encoded Label fields */

	uint64_t period;
	bool off_cpu;  /* values are nanoseconds (off-cpu, wall): one value a sample */
	const char *time_type; /* ... their sample type: "off_cpu", "wall" */
	struct protobuf out, msg, sub;
	int err;
};

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

static int sid_n(struct enc *e, const char *s, size_t len, uint32_t *id)
{
	return strtab__intern(e->strs, s, len, id);
}

static int sid(struct enc *e, const char *s, uint32_t *id)
{
	return strtab__intern_cstr(e->strs, s, id);
}

static int mapping_of(struct enc *e, uint32_t file_sid, uint32_t *id)
{
	uint64_t v;

	if (u64map__get(e->mapping_ids, file_sid, &v)) {
		*id = (uint32_t)v;
		return 0;
	}
	if (grow((void **)&e->mapping_files, &e->mappings_cap, e->nmappings + 1,
		 sizeof(*e->mapping_files)) < 0)
		return -ENOMEM;
	if (u64map__put(e->mapping_ids, file_sid, e->nmappings + 1) < 0)
		return -ENOMEM;
	e->mapping_files[e->nmappings++] = file_sid;
	*id = (uint32_t)e->nmappings;
	return 0;
}

/* The function id of (name, file) sids, added if new. */
static int function_of(struct enc *e, uint32_t name, uint32_t file, uint32_t *id)
{
	uint64_t key = name | (uint64_t)file << 32, v;

	if (u64map__get(e->functions, key, &v)) {
		*id = (uint32_t)v;
		return 0;
	}
	if (grow((void **)&e->fn_name, &e->fn_name_cap, e->nfns + 1, sizeof(*e->fn_name)) < 0 ||
	    grow((void **)&e->fn_file, &e->fn_file_cap, e->nfns + 1, sizeof(*e->fn_file)) < 0)
		return -ENOMEM;
	if (u64map__put(e->functions, key, e->nfns + 1) < 0)
		return -ENOMEM;
	e->fn_name[e->nfns] = name;
	e->fn_file[e->nfns] = file;
	*id = (uint32_t)++e->nfns;
	return 0;
}

/* Classifies a frame once: its function (name with suffix and place
 * stripped, and the file of its place), its line, its mapping's filename
 * sid (0 = the group's exe) and whether it is inlined. */
static int frame_info(struct enc *e, uint32_t frame, const struct finfo **out)
{
	struct frame_parts fp;
	struct finfo fi;
	uint32_t name = 0, file = 0;
	uint64_t v;
	int rc = 0;

	if (u64map__get(e->frame_info, frame, &v)) {
		*out = &e->finfo[v - 1];
		return 0;
	}
	memset(&fi, 0, sizeof(fi));
	frame_name__parse(frame ? strtab__str(e->names, frame) : NULL, &fp);
	switch (fp.kind) {
	case FRAME_KERNEL:
		rc = sid(e, KERNEL_MAPPING, &fi.map);
		break;
	case FRAME_JIT:
	case FRAME_INTERPRETED:
		rc = sid(e, JIT_MAPPING, &fi.map);
		break;
	case FRAME_INLINED:
		fi.inlined = true;
		e->has_inlines = true;
		break;
	case FRAME_MODULE_OFFSET:
		rc = sid_n(e, fp.module, fp.module_len, &fi.map);
		fi.addr = fp.start;
		break;
	case FRAME_BRACKETED:
		/* Resolved per group: the exe when MODULE is its file name. */
		fi.bracket = true;
		rc = sid_n(e, fp.module, fp.module_len, &fi.map);
		break;
	case FRAME_FUNCTION:
	case FRAME_UNKNOWN_CODE:
		break;
	}
	if (rc < 0 || (rc = sid_n(e, fp.name, fp.func_len, &name)) < 0 ||
	    (fp.file && (rc = sid_n(e, fp.file, fp.file_len, &file)) < 0) ||
	    (rc = function_of(e, name, file, &fi.fn)) < 0)
		return rc;
	fi.line = fp.line;
	e->has_files |= file != 0;
	e->has_lines |= fp.line != 0;
	if (grow((void **)&e->finfo, &e->finfo_cap, e->nfinfo + 1, sizeof(*e->finfo)) < 0 ||
	    u64map__put(e->frame_info, frame, e->nfinfo + 1) < 0)
		return -ENOMEM;
	e->finfo[e->nfinfo] = fi;
	*out = &e->finfo[e->nfinfo++];
	return 0;
}

static uint32_t key_hash(const uint32_t *k, size_t n)
{
	return (uint32_t)hash__bytes(k, n * sizeof(*k), 0x9e3779b97f4a7c15ull);
}

static uint32_t loc_hash_of(const void *ctx, uint32_t id)
{
	return ((const struct enc *)ctx)->locs[id - 1].hash32;
}

/* The location id of key[0..n) (mapping id, function ids), added if new. */
static int location_of(struct enc *e, const uint32_t *k, size_t n, uint64_t *id)
{
	uint32_t h = key_hash(k, n), v;
	size_t s;

	if (hashidx__reserve(&e->loc_index, e->nlocs, loc_hash_of, e) < 0)
		return -ENOMEM;
	for (s = hashidx__home(&e->loc_index, h); (v = e->loc_index.slots[s]);
	     s = hashidx__next(&e->loc_index, s)) {
		const struct loc *l = &e->locs[v - 1];

		if (l->hash32 == h && l->n == n && !memcmp(e->arena + l->off, k, n * sizeof(*k))) {
			*id = v;
			return 0;
		}
	}
	if (e->nlocs >= UINT32_MAX - 1 ||
	    grow((void **)&e->locs, &e->locs_cap, e->nlocs + 1, sizeof(*e->locs)) < 0 ||
	    grow((void **)&e->arena, &e->arena_cap, e->arena_len + n, sizeof(*e->arena)) < 0)
		return -ENOMEM;
	memcpy(e->arena + e->arena_len, k, n * sizeof(*k));
	e->locs[e->nlocs].off = e->arena_len;
	e->locs[e->nlocs].n = (uint32_t)n;
	e->locs[e->nlocs].hash32 = h;
	e->arena_len += n;
	e->loc_index.slots[s] = (uint32_t)++e->nlocs;
	*id = e->nlocs;
	return 0;
}

static int add_label(struct protobuf *b, struct enc *e, const char *key, const char *value)
{
	struct protobuf l;
	uint32_t k, v;
	int rc;

	if (!value || !*value)
		return 0;
	if (sid(e, key, &k) < 0 || sid(e, value, &v) < 0)
		return -ENOMEM;
	protobuf__init(&l);
	protobuf__int64(&l, LABEL_KEY, k);
	protobuf__int64(&l, LABEL_STR, v);
	rc = protobuf__message(b, SAMPLE_LABEL, &l);
	protobuf__free(&l);
	return rc;
}

static const char *str_or_null(const struct strtab *t, uint32_t id)
{
	return id ? strtab__str(t, id) : NULL;
}

static int begin_group(struct enc *e, size_t g)
{
	struct profile_group grp;
	const char *exe, *base;
	char pid[16];
	uint32_t exe_sid;

	profile__group(e->p, g, &grp);
	protobuf__reset(&e->labels);
	exe = str_or_null(e->names, grp.key.exe);
	if (add_label(&e->labels, e, "service_name", str_or_null(e->names, grp.key.service_name)) < 0 ||
	    add_label(&e->labels, e, "exe", exe) < 0 ||
	    add_label(&e->labels, e, "comm", str_or_null(e->names, grp.key.comm)) < 0 ||
	    add_label(&e->labels, e, "user", str_or_null(e->names, grp.key.user)) < 0)
		return -ENOMEM;
	if (grp.key.pid >= 0) {
		snprintf(pid, sizeof(pid), "%d", (int)grp.key.pid);
		if (add_label(&e->labels, e, "pid", pid) < 0)
			return -ENOMEM;
	}
	if (add_label(&e->labels, e, "thread", str_or_null(e->names, grp.key.thread)) < 0)
		return -ENOMEM;
	if (!exe || !*exe)
		exe = UNKNOWN_NAME;
	if (sid(e, exe, &exe_sid) < 0 || mapping_of(e, exe_sid, &e->exe_map) < 0)
		return -ENOMEM;
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	e->exe_base_sid = 0;
	if (*base && sid(e, base, &e->exe_base_sid) < 0)
		return -ENOMEM;
	return 0;
}

/* The mapping of a frame that is no inlined one (NULL: the exe). */
static int mapping_id_for(struct enc *e, const struct finfo *fi, uint32_t *id)
{
	uint32_t file = fi ? fi->map : 0;
	const char *name;
	char buf[512];

	if (!file || file == e->exe_base_sid) {
		*id = e->exe_map;
		return 0;
	}
	/* "[libfoo.so]" names a file; "[anon]", "[vdso]" stay pseudo-mappings
	 * in brackets, which pprof never takes for the main binary. */
	name = strtab__str(e->strs, file);
	if (fi->bracket && name && !strchr(name, '.')) {
		snprintf(buf, sizeof(buf), "[%s]", name);
		if (sid(e, buf, &file) < 0)
			return -ENOMEM;
	}
	return mapping_of(e, file, id);
}

static int add_sample(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct enc *e = ctx;
	size_t nloc = 0, i = n;
	int64_t values[2];
	int rc;

	if (grow((void **)&e->loc_ids, &e->loc_ids_cap, n + 1, sizeof(*e->loc_ids)) < 0 ||
	    grow((void **)&e->key, &e->key_cap, 2 * n + LOC_HEAD + 2, sizeof(*e->key)) < 0)
		return -ENOMEM;
	/* pprof drops samples without a location: an empty stack becomes one
	 * pseudo-frame in the exe, so totals stay equal to the samples. */
	if (n == 0) {
		uint32_t name;

		if (sid(e, NO_STACK_NAME, &name) < 0 || function_of(e, name, 0, &e->key[LOC_HEAD]) < 0)
			return -ENOMEM;
		e->key[0] = e->exe_map;
		e->key[1] = e->key[2] = 0;
		e->key[LOC_HEAD + 1] = 0;
		if ((rc = location_of(e, e->key, LOC_HEAD + 2, &e->loc_ids[nloc])) < 0)
			return rc;
		nloc++;
	}
	/* Leaf first: inlined frames, then the frame they were inlined into. */
	while (i > 0) {
		size_t k = LOC_HEAD;
		const struct finfo *fi = NULL;
		uint32_t map;

		for (;;) {
			i--;
			if ((rc = frame_info(e, frames[i], &fi)) < 0)
				return rc;
			e->key[k++] = fi->fn;
			e->key[k++] = fi->line;
			if (!fi->inlined || i == 0)
				break;
		}
		/* Inlined frames at the root, with nothing they were inlined
		 * into, form a location of their own in the exe. */
		if ((rc = mapping_id_for(e, fi->inlined ? NULL : fi, &map)) < 0)
			return rc;
		e->key[0] = map;
		e->key[1] = (uint32_t)fi->addr;
		e->key[2] = (uint32_t)(fi->addr >> 32);
		if ((rc = location_of(e, e->key, k, &e->loc_ids[nloc])) < 0)
			return rc;
		nloc++;
	}
	values[0] = count > INT64_MAX ? INT64_MAX : (int64_t)count;
	values[1] = e->period && count > (uint64_t)INT64_MAX / e->period ? INT64_MAX
									: (int64_t)(count * e->period);
	protobuf__reset(&e->msg);
	protobuf__packed_uint64(&e->msg, SAMPLE_LOCATION_ID, e->loc_ids, nloc);
	protobuf__packed_int64(&e->msg, SAMPLE_VALUE, values, e->off_cpu ? 1 : 2);
	protobuf__raw(&e->msg, e->labels.buf, e->labels.len);
	if (e->labels.err)
		return e->labels.err;
	return protobuf__message(&e->out, PROFILE_SAMPLE, &e->msg);
}

static int value_type(struct enc *e, uint32_t field, const char *type, const char *unit)
{
	uint32_t t, u;

	if (sid(e, type, &t) < 0 || sid(e, unit, &u) < 0)
		return -ENOMEM;
	protobuf__reset(&e->msg);
	protobuf__int64(&e->msg, VALUE_TYPE_TYPE, t);
	protobuf__int64(&e->msg, VALUE_TYPE_UNIT, u);
	return protobuf__message(&e->out, field, &e->msg);
}

/* A mapping's file name and build ID from the binaries the profile knows
 * (profile/mappings.h), by the file name the frames gave it: the file's
 * path and build ID when one binary has that name, else the name alone. */
static int mapping_details(struct enc *e, uint32_t file_sid, uint32_t *path_sid, uint32_t *id_sid)
{
	const struct mappings *m = profile__meta_const(e->p)->mappings;
	const char *file = strtab__str(e->strs, file_sid), *base;
	const struct mapping *b;
	bool ambiguous;

	*path_sid = file_sid;
	*id_sid = 0;
	if (!m || !file || file[0] == '[')
		return 0;
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	b = mappings__find(m, base, strlen(base), &ambiguous);
	/* the exe's mapping is named by its path: only that file's entry */
	if (!b || (base != file && strcmp(b->path, file) != 0))
		return 0;
	if (*b->path && sid(e, b->path, path_sid) < 0)
		return -ENOMEM;
	if (*b->build_id && sid(e, b->build_id, id_sid) < 0)
		return -ENOMEM;
	return 0;
}

static int write_tables(struct enc *e)
{
	size_t i, j;

	for (i = 0; i < e->nmappings; i++) {
		uint32_t path, build_id;

		if (mapping_details(e, e->mapping_files[i], &path, &build_id) < 0)
			return -ENOMEM;
		protobuf__reset(&e->msg);
		protobuf__uint64(&e->msg, MAPPING_ID, i + 1);
		protobuf__int64(&e->msg, MAPPING_FILENAME, path);
		if (build_id)
			protobuf__int64(&e->msg, MAPPING_BUILD_ID, build_id);
		protobuf__uint64(&e->msg, MAPPING_HAS_FUNCTIONS, 1);
		if (e->has_files)
			protobuf__uint64(&e->msg, MAPPING_HAS_FILENAMES, 1);
		if (e->has_lines)
			protobuf__uint64(&e->msg, MAPPING_HAS_LINE_NUMBERS, 1);
		if (e->has_inlines)
			protobuf__uint64(&e->msg, MAPPING_HAS_INLINE_FRAMES, 1);
		protobuf__message(&e->out, PROFILE_MAPPING, &e->msg);
	}
	for (i = 0; i < e->nlocs; i++) {
		const uint32_t *k = e->arena + e->locs[i].off;

		protobuf__reset(&e->msg);
		protobuf__uint64(&e->msg, LOCATION_ID, i + 1);
		protobuf__uint64(&e->msg, LOCATION_MAPPING_ID, k[0]);
		if (k[1] || k[2])
			protobuf__uint64(&e->msg, LOCATION_ADDRESS, k[1] | (uint64_t)k[2] << 32);
		for (j = LOC_HEAD; j + 1 < e->locs[i].n; j += 2) {
			protobuf__reset(&e->sub);
			protobuf__uint64(&e->sub, LINE_FUNCTION_ID, k[j]);
			if (k[j + 1])
				protobuf__int64(&e->sub, LINE_LINE, k[j + 1]);
			protobuf__message(&e->msg, LOCATION_LINE, &e->sub);
		}
		protobuf__message(&e->out, PROFILE_LOCATION, &e->msg);
	}
	/* Functions in id order: the order they were met, as the profile's */
	for (i = 0; i < e->nfns; i++) {
		protobuf__reset(&e->msg);
		protobuf__uint64(&e->msg, FUNCTION_ID, i + 1);
		protobuf__int64(&e->msg, FUNCTION_NAME, e->fn_name[i]);
		protobuf__int64(&e->msg, FUNCTION_SYSTEM_NAME, e->fn_name[i]);
		if (e->fn_file[i])
			protobuf__int64(&e->msg, FUNCTION_FILENAME, e->fn_file[i]);
		protobuf__message(&e->out, PROFILE_FUNCTION, &e->msg);
	}
	return e->out.err;
}

static void enc_free(struct enc *e)
{
	strtab__delete(e->strs);
	u64map__delete(e->frame_info);
	free(e->finfo);
	u64map__delete(e->mapping_ids);
	u64map__delete(e->functions);
	free(e->fn_name);
	free(e->fn_file);
	free(e->mapping_files);
	free(e->arena);
	free(e->locs);
	hashidx__fini(&e->loc_index);
	free(e->key);
	free(e->loc_ids);
	protobuf__free(&e->labels);
	protobuf__free(&e->out);
	protobuf__free(&e->msg);
	protobuf__free(&e->sub);
}

static int64_t clamp64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

int pprof__encode(const struct profile *p, const struct pprof_opts *o, void **buf, size_t *len)
{
	struct enc e;
	size_t g, i, nstr;
	uint32_t cpu, ns;
	int rc;

	memset(&e, 0, sizeof(e));
	e.p = p;
	e.names = profile__names(p);
	e.off_cpu = profile__meta_const(p)->event_unit &&
		    strcmp(profile__meta_const(p)->event_unit, "nanoseconds") == 0;
	e.period = e.off_cpu ? 0 : o->period_ns;
	/* off-cpu: the time threads waited, as Go's own tools name it; wall
	 * (report --event wall): on and off the CPU together */
	e.time_type = profile__meta_const(p)->event_name &&
			      strcmp(profile__meta_const(p)->event_name, "wall") == 0 ? "wall" : "off_cpu";
	e.strs = strtab__new();
	e.frame_info = u64map__new(1024);
	e.mapping_ids = u64map__new(64);
	e.functions = u64map__new(1024);
	rc = -ENOMEM;
	if (!e.strs || !e.frame_info || !e.mapping_ids || !e.functions)
		goto out;
	if (e.off_cpu)
		rc = value_type(&e, PROFILE_SAMPLE_TYPE, e.time_type, "nanoseconds");
	else if ((rc = value_type(&e, PROFILE_SAMPLE_TYPE, "samples", "count")) >= 0)
		rc = value_type(&e, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	if (rc < 0)
		goto out;
	for (g = 0; g < profile__ngroups(p); g++) {
		if ((rc = begin_group(&e, g)) < 0 ||
		    (rc = profile__foreach_stack(p, g, add_sample, &e)) < 0)
			goto out;
	}
	if ((rc = write_tables(&e)) < 0)
		goto out;
	/* Index 0 is "", as profile.proto requires; strtab ids start at 1. */
	protobuf__string(&e.out, PROFILE_STRING_TABLE, "");
	nstr = strtab__count(e.strs);
	for (i = 1; i <= nstr; i++)
		protobuf__bytes(&e.out, PROFILE_STRING_TABLE, strtab__str(e.strs, (uint32_t)i),
				strtab__len(e.strs, (uint32_t)i));
	if (o->time_ns)
		protobuf__int64(&e.out, PROFILE_TIME_NANOS, clamp64(o->time_ns));
	if (o->duration_ns)
		protobuf__int64(&e.out, PROFILE_DURATION_NANOS, clamp64(o->duration_ns));
	/* The strings of period_type already are in the table (sample types):
	 * the table is complete before this, as it must be. */
	if (sid(&e, e.off_cpu ? e.time_type : "cpu", &cpu) < 0 || sid(&e, "nanoseconds", &ns) < 0 ||
	    strtab__count(e.strs) != nstr) {
		rc = -ENOMEM;
		goto out;
	}
	protobuf__reset(&e.msg);
	protobuf__int64(&e.msg, VALUE_TYPE_TYPE, cpu);
	protobuf__int64(&e.msg, VALUE_TYPE_UNIT, ns);
	protobuf__message(&e.out, PROFILE_PERIOD_TYPE, &e.msg);
	if (e.period)
		protobuf__int64(&e.out, PROFILE_PERIOD, clamp64(e.period));
	if ((rc = e.out.err) < 0)
		goto out;
	*buf = e.out.buf;
	*len = e.out.len;
	e.out.buf = NULL;
	rc = 0;
out:
	enc_free(&e);
	return rc;
}

int pprof__write(const struct profile *p, const struct pprof_opts *o, FILE *out)
{
	void *raw = NULL, *gz = NULL;
	size_t rawlen = 0, gzlen = 0;
	int rc;

	if ((rc = pprof__encode(p, o, &raw, &rawlen)) < 0)
		return rc;
	rc = gzip__compress(raw, rawlen, &gz, &gzlen);
	free(raw);
	if (rc < 0)
		return rc;
	if (fwrite(gz, 1, gzlen, out) != gzlen || fflush(out) != 0 || ferror(out))
		rc = -EIO;
	free(gz);
	return rc;
}
