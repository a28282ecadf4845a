/* Reading and validating smolder.profile/v1 dumps, which are hostile input.
 * Long file: one format's every rule in one place, so that a reader of the
 * format finds what a dump may hold, field by field, in one file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/fileio.h"
#include "export/dump_read.h"
#include "export/gzip.h"
#include "profile/mappings.h"

#define SCHEMA "smolder.profile/v1"
#define MAX_PROFILES 100000u
#define MAX_STACKS 10000000u
#define MAX_LABELS 256u
/* A profile's labels: the five this reader knows and any string labels a
 * newer agent adds (kept for --label filters, otherwise ignored). */
#define MAX_PROFILE_LABELS 32u
#define MAX_WINDOW_ID 512u
/* The deepest valid document nests 4 levels (profiles[].stacks[].{}); the
 * parser recurses per level, so hostile nesting is refused before parsing. */
#define MAX_DEPTH 32
#define PATH_LEN 160

/* The public dump followed by what keeps its strings and arrays alive. */
struct dump_impl {
	struct dump d;
	size_t text_off, text_len;   /* the document's bytes in the file's JSON */
	void *doc_gz;                /* d.doc_gz, owned */
	json_t *root;
	struct dump_label *labels;   /* global labels, then every profile's */
	struct dump_profile *profiles;
	struct dump_stack *stacks;   /* every profile's, back to back */
	struct mappings *mappings;   /* d.mappings, owned; NULL: none listed */
};

struct ctx {
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Copies hostile text into a message: bounded, printable ASCII only. */
static void clean(char *out, size_t size, const char *in)
{
	size_t i, n = 0;

	for (i = 0; in[i] && n + 4 < size; i++, n++) {
		unsigned char ch = (unsigned char)in[i];

		out[n] = (ch >= 0x20 && ch < 0x7f && ch != '\'') ? (char)ch : '?';
	}
	if (in[i] && n + 4 <= size) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

static void path_key(char *out, size_t size, const char *parent, const char *key)
{
	char k[48];

	clean(k, sizeof(k), key);
	/* A truncated path still names where the problem is. */
	if (snprintf(out, size, "%s%s%s", parent, *parent ? "." : "", k) < 0)
		out[0] = '\0';
}

static void path_index(char *out, size_t size, const char *parent, const char *key, size_t i)
{
	if (snprintf(out, size, "%s%s%s[%zu]", parent, *parent && *key ? "." : "", key, i) < 0)
		out[0] = '\0';
}

static json_t *get(struct ctx *c, json_t *obj, const char *parent, const char *key, int *err)
{
	json_t *v = json_object_get(obj, key);
	char p[PATH_LEN];

	if (!v) {
		path_key(p, sizeof(p), parent, key);
		*err = fail(c, "%s: missing", p);
	}
	return v;
}

static int get_object(struct ctx *c, json_t *obj, const char *parent, const char *key, json_t **out)
{
	char p[PATH_LEN];
	int err = 0;
	json_t *v = get(c, obj, parent, key, &err);

	if (!v)
		return err;
	if (!json_is_object(v)) {
		path_key(p, sizeof(p), parent, key);
		return fail(c, "%s: not an object", p);
	}
	*out = v;
	return 0;
}

static int get_string(struct ctx *c, json_t *obj, const char *parent, const char *key,
		      const char **out)
{
	char p[PATH_LEN];
	int err = 0;
	json_t *v = get(c, obj, parent, key, &err);

	if (!v)
		return err;
	if (!json_is_string(v)) {
		path_key(p, sizeof(p), parent, key);
		return fail(c, "%s: not a string", p);
	}
	*out = json_string_value(v);
	return 0;
}

static int count_value(struct ctx *c, json_t *v, const char *path, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return fail(c, "%s: not a non-negative integer", path);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_count(struct ctx *c, json_t *obj, const char *parent, const char *key, uint64_t *out)
{
	char p[PATH_LEN];
	int err = 0;
	json_t *v = get(c, obj, parent, key, &err);

	if (!v)
		return err;
	path_key(p, sizeof(p), parent, key);
	return count_value(c, v, p, out);
}

/* Objects of the format are closed: an unknown key means a different or
 * broken writer, and silently ignoring it would hide that. */
static int closed(struct ctx *c, json_t *obj, const char *parent, const char *const *keys)
{
	const char *key;
	json_t *v;
	size_t i;
	char p[PATH_LEN];

	json_object_foreach(obj, key, v) {
		for (i = 0; keys[i]; i++)
			if (strcmp(keys[i], key) == 0)
				break;
		if (!keys[i]) {
			path_key(p, sizeof(p), parent, key);
			return fail(c, "%s: unexpected key", p);
		}
	}
	return 0;
}

static int no_controls(struct ctx *c, const char *s, size_t len, const char *path)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f)
			return fail(c, "%s: control character 0x%02x at byte %zu", path, ch, i);
	}
	return 0;
}

/* Refuses nesting deeper than MAX_DEPTH before jansson recurses into it. */
static int check_depth(struct ctx *c, const char *buf, size_t len)
{
	size_t i;
	int depth = 0, in_str = 0;

	for (i = 0; i < len; i++) {
		char ch = buf[i];

		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = 0;
			continue;
		}
		if (ch == '"') {
			in_str = 1;
		} else if (ch == '{' || ch == '[') {
			if (++depth > MAX_DEPTH)
				return fail(c, "not JSON: nested deeper than %d levels", MAX_DEPTH);
		} else if (ch == '}' || ch == ']') {
			depth--;
		}
	}
	return 0;
}

static int parse_labels(struct ctx *c, json_t *obj, const char *path, struct dump_label *out,
			size_t *n)
{
	const char *key;
	json_t *v;
	size_t i = 0;
	char p[PATH_LEN];

	if (json_object_size(obj) > MAX_LABELS)
		return fail(c, "%s: more than %u labels", path, MAX_LABELS);
	json_object_foreach(obj, key, v) {
		if (!json_is_string(v)) {
			path_key(p, sizeof(p), path, key);
			return fail(c, "%s: not a string", p);
		}
		if (i >= MAX_LABELS)
			break;
		out[i].name = key;
		out[i].value = json_string_value(v);
		i++;
	}
	*n = i;
	return 0;
}

static int parse_agent_host(struct ctx *c, json_t *root, struct dump *d)
{
	static const char *const agent_keys[] = {"name", "version", NULL};
	static const char *const host_keys[] = {"hostname", "kernel", "arch", NULL};
	json_t *agent, *host;
	const char *name, *version;
	char v[48];
	int err;

	if ((err = get_object(c, root, "", "agent", &agent)) ||
	    (err = closed(c, agent, "agent", agent_keys)) ||
	    (err = get_string(c, agent, "agent", "name", &name)) ||
	    (err = get_string(c, agent, "agent", "version", &version)))
		return err;
	if (strcmp(name, "smolder") != 0) {
		clean(v, sizeof(v), name);
		return fail(c, "agent.name is '%s', expected smolder", v);
	}
	if (!*version)
		return fail(c, "agent.version: empty");
	if ((err = get_object(c, root, "", "host", &host)) ||
	    (err = closed(c, host, "host", host_keys)) ||
	    (err = get_string(c, host, "host", "hostname", &d->hostname)) ||
	    (err = get_string(c, host, "host", "kernel", &d->kernel)) ||
	    (err = get_string(c, host, "host", "arch", &d->arch)))
		return err;
	return 0;
}

static int parse_window_event(struct ctx *c, json_t *root, struct dump *d)
{
	static const char *const window_keys[] = {"start_ns", "end_ns", "id", NULL};
	static const char *const event_keys[] = {"name", "unit", "frequency_hz", NULL};
	json_t *window, *event, *id;
	int err;

	if ((err = get_object(c, root, "", "window", &window)) ||
	    (err = closed(c, window, "window", window_keys)) ||
	    (err = get_count(c, window, "window", "start_ns", &d->start_ns)) ||
	    (err = get_count(c, window, "window", "end_ns", &d->end_ns)))
		return err;
	if (d->start_ns > d->end_ns)
		return fail(c, "window: start_ns %" PRIu64 " is after end_ns %" PRIu64, d->start_ns,
			    d->end_ns);
	d->window_id = "";
	id = json_object_get(window, "id");
	if (id) {
		size_t len;

		if (!json_is_string(id))
			return fail(c, "window.id: not a string");
		len = json_string_length(id);
		if (len == 0 || len > MAX_WINDOW_ID)
			return fail(c, "window.id: length %zu not in 1..%u", len, MAX_WINDOW_ID);
		if ((err = no_controls(c, json_string_value(id), len, "window.id")))
			return err;
		d->window_id = json_string_value(id);
	}
	if ((err = get_object(c, root, "", "event", &event)) ||
	    (err = closed(c, event, "event", event_keys)) ||
	    (err = get_string(c, event, "event", "name", &d->event_name)) ||
	    (err = get_string(c, event, "event", "unit", &d->event_unit)) ||
	    (err = get_count(c, event, "event", "frequency_hz", &d->frequency_hz)))
		return err;
	if (!*d->event_unit)
		return fail(c, "event.unit: empty");
	return 0;
}

static void read_count(json_t *v, void *base, size_t offset)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		*(uint64_t *)((char *)base + offset) = (uint64_t)json_integer_value(v);
}

/* A counter of a runtime block, by the block's and the counter's names. */
static void read_runtime_count(struct agent_stats *out, const char *runtime, const char *counter,
			       json_t *v)
{
	struct agent_runtime_stats *r;
	const struct agent_stat_field *f;

	for (f = agent_runtime_stats__fields; f->name; f++)
		if (strcmp(f->name, counter) == 0)
			break;
	/* blocks beyond AGENT_RUNTIMES_MAX, counters this agent does not
	 * know: a newer agent's, ignored as unknown flat counters are */
	if (f->name && (r = agent_stats__runtime(out, runtime)) != NULL)
		read_count(v, r, f->offset);
}

/* The counters agent_stats knows, from a validated "stats" object: flat,
 * nested in "unwind", in "runtimes", and the flat keys earlier dumps had
 * for what runtime blocks hold now. */
static void read_agent_stats(json_t *stats, json_t *unwind, json_t *runtimes,
			     struct agent_stats *out)
{
	const struct agent_stat_field *f;
	const struct agent_stat_former *old;
	const char *name, *key;
	json_t *block, *v;

	for (f = agent_stats__fields; f->name; f++) {
		int nested = strncmp(f->name, "unwind.", 7) == 0;

		read_count(json_object_get(nested ? unwind : stats, f->name + (nested ? 7 : 0)), out,
			   f->offset);
	}
	for (old = agent_stats__former; old->key; old++)
		if ((v = json_object_get(stats, old->key)) != NULL)
			read_runtime_count(out, old->runtime, old->counter, v);
	json_object_foreach(runtimes, name, block)
		json_object_foreach(block, key, v)
			read_runtime_count(out, name, key, v);
}

/* "runtimes": an object of readers, each an object of counters. */
static int check_runtimes(struct ctx *c, json_t *runtimes)
{
	const char *name, *key;
	json_t *block, *v;
	char p[PATH_LEN], q[PATH_LEN];
	uint64_t x;
	int err;

	if (!json_is_object(runtimes))
		return fail(c, "stats.runtimes: not an object");
	json_object_foreach(runtimes, name, block) {
		path_key(p, sizeof(p), "stats.runtimes", name);
		if (!json_is_object(block))
			return fail(c, "%s: not an object", p);
		json_object_foreach(block, key, v) {
			path_key(q, sizeof(q), p, key);
			if ((err = count_value(c, v, q, &x)))
				return err;
		}
	}
	return 0;
}

static int parse_stats(struct ctx *c, json_t *root, struct dump *d, uint64_t *dropped)
{
	static const char *const required[] = {"samples", "lost", "dropped", "throttled",
					       "kernel_only", "idle", "corrupt", "processes",
					       "binaries", "agent_cpu_ns", "agent_rss_bytes", NULL};
	static const char *const unwind_keys[] = {"complete", "truncated", "no_cfi", "no_map",
						  "bad_pc", "depth", NULL};
	json_t *stats, *unwind, *runtimes, *v;
	const char *key;
	uint64_t x;
	size_t i;
	char p[PATH_LEN];
	int err;

	if ((err = get_object(c, root, "", "stats", &stats)))
		return err;
	for (i = 0; required[i]; i++)
		if ((err = get_count(c, stats, "stats", required[i], &x)))
			return err;
	if ((err = get_object(c, stats, "stats", "unwind", &unwind)) ||
	    (err = closed(c, unwind, "stats.unwind", unwind_keys)))
		return err;
	for (i = 0; unwind_keys[i]; i++)
		if ((err = get_count(c, unwind, "stats.unwind", unwind_keys[i], &x)))
			return err;
	runtimes = json_object_get(stats, "runtimes");
	if (runtimes && (err = check_runtimes(c, runtimes)))
		return err;
	/* Newer agents may add counters: allowed, but they must be counters. */
	json_object_foreach(stats, key, v) {
		if (strcmp(key, "unwind") == 0 || strcmp(key, "runtimes") == 0)
			continue;
		path_key(p, sizeof(p), "stats", key);
		if ((err = count_value(c, v, p, &x)))
			return err;
	}
	get_count(c, stats, "stats", "samples", &d->total_samples);
	get_count(c, stats, "stats", "dropped", dropped);
	read_agent_stats(stats, unwind, runtimes, &d->stats);
	return 0;
}

/* Open-addressing set of stack strings, to find duplicates in a profile. */
struct strset {
	const char **slot;
	size_t *len;
	size_t mask;
};

static int strset_init(struct strset *s, size_t n)
{
	size_t cap = 16;

	while (cap < n * 2)
		cap *= 2;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->len = calloc(cap, sizeof(*s->len));
	s->mask = cap - 1;
	if (!s->slot || !s->len) {
		free(s->slot);
		free(s->len);
		return -ENOMEM;
	}
	return 0;
}

/* Returns 1 when the string was already there. */
static int strset_add(struct strset *s, const char *str, size_t len)
{
	size_t i = (size_t)hash__bytes(str, len, 0) & s->mask;

	while (s->slot[i]) {
		if (s->len[i] == len && memcmp(s->slot[i], str, len) == 0)
			return 1;
		i = (i + 1) & s->mask;
	}
	s->slot[i] = str;
	s->len[i] = len;
	return 0;
}

static void strset_free(struct strset *s)
{
	free(s->slot);
	free(s->len);
}

/* service_name, exe, comm, [pid], [thread], then the labels this reader
 * does not know, in file order. */
static int parse_profile_labels(struct ctx *c, json_t *labels, const char *path,
				struct dump_label *out, size_t *n)
{
	static const char *const keys[] = {"service_name", "exe", "comm", "pid", "thread", NULL};
	const char *pid, *key;
	char p[PATH_LEN];
	json_t *v;
	size_t i, k = 0;
	int err;

	if (json_object_size(labels) > MAX_PROFILE_LABELS)
		return fail(c, "%s: more than %u labels", path, MAX_PROFILE_LABELS);
	for (i = 0; i < 3; i++) {
		out[k].name = keys[i];
		if ((err = get_string(c, labels, path, keys[i], &out[k].value)))
			return err;
		k++;
	}
	v = json_object_get(labels, "pid");
	if (v) {
		if (!json_is_string(v))
			return fail(c, "%s.pid: not a string", path);
		pid = json_string_value(v);
		/* Decimal without leading zeros: one pid, one spelling. */
		for (i = 0; pid[i] >= '0' && pid[i] <= '9'; i++)
			;
		if (i == 0 || pid[i] || i > 20 || (pid[0] == '0' && i > 1) ||
		    json_string_length(v) != i)
			return fail(c, "%s.pid: not a decimal pid", path);
		out[k].name = "pid";
		out[k].value = pid;
		k++;
	}
	if (json_object_get(labels, "thread")) {
		out[k].name = "thread";
		if ((err = get_string(c, labels, path, "thread", &out[k].value)))
			return err;
		k++;
	}
	json_object_foreach(labels, key, v) {
		for (i = 0; keys[i] && strcmp(keys[i], key) != 0; i++)
			;
		if (keys[i])
			continue;
		if (!json_is_string(v)) {
			path_key(p, sizeof(p), path, key);
			return fail(c, "%s: not a string", p);
		}
		out[k].name = key;
		out[k].value = json_string_value(v);
		k++;
	}
	*n = k;
	return 0;
}

static int parse_profile(struct ctx *c, json_t *prof, size_t pi, struct dump_profile *out,
			 struct dump_label *labels, struct dump_stack *stacks, struct strset *set)
{
	static const char *const keys[] = {"labels", "samples", "stacks", NULL};
	static const char *const stack_keys[] = {"stack", "count", NULL};
	json_t *jlabels, *jstacks, *st, *v;
	char path[PATH_LEN], p[PATH_LEN], q[PATH_LEN];
	uint64_t sum = 0;
	size_t i, n;
	int err;

	path_index(path, sizeof(path), "", "profiles", pi);
	if (!json_is_object(prof))
		return fail(c, "%s: not an object", path);
	if ((err = closed(c, prof, path, keys)) ||
	    (err = get_object(c, prof, path, "labels", &jlabels)))
		return err;
	path_key(p, sizeof(p), path, "labels");
	if ((err = parse_profile_labels(c, jlabels, p, labels, &out->nlabels)) ||
	    (err = get_count(c, prof, path, "samples", &out->samples)))
		return err;
	out->labels = labels;
	if (out->samples < 1)
		return fail(c, "%s.samples: must be >= 1", path);
	jstacks = json_object_get(prof, "stacks");
	if (!jstacks)
		return fail(c, "%s.stacks: missing", path);
	if (!json_is_array(jstacks))
		return fail(c, "%s.stacks: not an array", path);
	n = json_array_size(jstacks);
	if (n == 0)
		return fail(c, "%s.stacks: empty", path);
	memset(set->slot, 0, (set->mask + 1) * sizeof(*set->slot));
	for (i = 0; i < n; i++) {
		st = json_array_get(jstacks, i);
		path_index(p, sizeof(p), path, "stacks", i);
		if (!json_is_object(st))
			return fail(c, "%s: not an object", p);
		if ((err = closed(c, st, p, stack_keys)) ||
		    (err = get_string(c, st, p, "stack", &stacks[i].stack)) ||
		    (err = get_count(c, st, p, "count", &stacks[i].count)))
			return err;
		v = json_object_get(st, "stack");
		path_key(q, sizeof(q), p, "stack");
		if ((err = no_controls(c, stacks[i].stack, json_string_length(v), q)))
			return err;
		if (stacks[i].count < 1)
			return fail(c, "%s.count: must be >= 1", p);
		if (strset_add(set, stacks[i].stack, json_string_length(v)))
			return fail(c, "%s: duplicate stack", q);
		if (sum > UINT64_MAX - stacks[i].count)
			return fail(c, "%s: stack counts overflow", path);
		sum += stacks[i].count;
	}
	if (sum != out->samples)
		return fail(c, "%s: stack counts sum to %" PRIu64 ", samples says %" PRIu64, path, sum,
			    out->samples);
	out->stacks = stacks;
	out->nstacks = n;
	return 0;
}

static int parse_profiles(struct ctx *c, json_t *root, struct dump_impl *di, uint64_t dropped)
{
	json_t *profiles, *prof, *st;
	size_t np, i, nstacks = 0, maxstacks = 0, nl = di->d.nlabels, ns = 0, npl = 0, lo = 0;
	uint64_t sum = 0;
	struct strset set;
	int err;

	profiles = json_object_get(root, "profiles");
	if (!profiles)
		return fail(c, "profiles: missing");
	if (!json_is_array(profiles))
		return fail(c, "profiles: not an array");
	np = json_array_size(profiles);
	if (np > MAX_PROFILES)
		return fail(c, "profiles: more than %u profiles", MAX_PROFILES);
	/* Size the arrays first; the per-profile checks come below. */
	for (i = 0; i < np; i++) {
		size_t n;

		prof = json_array_get(profiles, i);
		st = json_is_object(prof) ? json_object_get(prof, "labels") : NULL;
		n = json_is_object(st) ? json_object_size(st) : 0;
		/* more than that is refused before any is stored */
		npl += n < MAX_PROFILE_LABELS ? n : MAX_PROFILE_LABELS;
		st = json_is_object(prof) ? json_object_get(prof, "stacks") : NULL;
		n = json_is_array(st) ? json_array_size(st) : 0;
		nstacks += n;
		if (n > maxstacks)
			maxstacks = n;
		if (nstacks > MAX_STACKS)
			return fail(c, "profiles: more than %u stacks", MAX_STACKS);
	}
	di->profiles = calloc(np ? np : 1, sizeof(*di->profiles));
	di->stacks = calloc(nstacks ? nstacks : 1, sizeof(*di->stacks));
	/* Global labels are already in di->labels[0..nl); each profile's follow. */
	if (!di->profiles || !di->stacks || npl > SIZE_MAX / sizeof(*di->labels) - nl - 1)
		return -ENOMEM;
	{
		struct dump_label *l = realloc(di->labels, (nl + npl + 1) * sizeof(*l));

		if (!l)
			return -ENOMEM;
		di->labels = l;
		di->d.labels = l;
	}
	if (strset_init(&set, maxstacks))
		return -ENOMEM;
	for (i = 0; i < np; i++) {
		err = parse_profile(c, json_array_get(profiles, i), i, &di->profiles[i],
				    di->labels + nl + lo, di->stacks + ns, &set);
		if (err)
			goto out_set;
		lo += di->profiles[i].nlabels;
		ns += di->profiles[i].nstacks;
		if (sum > UINT64_MAX - di->profiles[i].samples) {
			err = fail(c, "profiles: samples overflow");
			goto out_set;
		}
		sum += di->profiles[i].samples;
	}
	/* Every decoded sample is aggregated or dropped (format.md §2, 2). */
	if (dropped > di->d.total_samples || sum != di->d.total_samples - dropped) {
		err = fail(c, "profiles: samples sum to %" PRIu64 ", stats.samples - stats.dropped "
			   "is %" PRIu64 " - %" PRIu64, sum, di->d.total_samples, dropped);
		goto out_set;
	}
	di->d.profiles = di->profiles;
	di->d.nprofiles = np;
	err = 0;
out_set:
	strset_free(&set);
	return err;
}

/* One document of buf (whitespace before it skipped by the caller); *used
 * is how many bytes it took. */
/* "mappings" (optional: dumps before it have none): the binaries the
 * unnamed frames are in, each {module, path, build_id}. */
static int parse_mappings(struct ctx *c, json_t *root, struct dump_impl *di)
{
	static const char *const keys[] = {"module", "path", "build_id", NULL};
	json_t *arr = json_object_get(root, "mappings"), *e;
	char path[PATH_LEN];
	size_t i;
	int rc;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return fail(c, "mappings: not an array");
	if (json_array_size(arr) > MAPPINGS_MAX)
		return fail(c, "mappings: more than %u", MAPPINGS_MAX);
	di->mappings = mappings__new();
	if (!di->mappings)
		return -ENOMEM;
	json_array_foreach(arr, i, e) {
		const char *module, *file, *id;

		path_index(path, sizeof(path), "", "mappings", i);
		if (!json_is_object(e))
			return fail(c, "%s: not an object", path);
		if ((rc = closed(c, e, path, keys)) || (rc = get_string(c, e, path, "module", &module)) ||
		    (rc = get_string(c, e, path, "path", &file)) || (rc = get_string(c, e, path, "build_id", &id)) ||
		    (rc = no_controls(c, module, strlen(module), path)) ||
		    (rc = no_controls(c, file, strlen(file), path)))
			return rc;
		rc = mappings__add(di->mappings, module, file, *id ? id : NULL);
		if (rc == -EINVAL)
			return fail(c, "%s: an empty module, or a build_id that is not lowercase hex", path);
		if (rc < 0)
			return rc;
	}
	di->d.mappings = di->mappings;
	return 0;
}

static int parse_document(struct ctx *c0, const char *buf, size_t len, size_t *used,
			  struct dump **out)
{
	static const char *const root_keys[] = {"schema", "agent", "host", "window", "event",
						"labels", "profiles", "mappings", "stats", NULL};
	struct ctx *c = c0;
	struct dump_impl *di;
	json_error_t jerr;
	json_t *root, *labels;
	const char *schema;
	char v[64];
	uint64_t dropped = 0;
	int rc;

	/* the first value only: a recording of several events is a
	 * document each, one after the other */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &jerr);
	if (!root) {
		char t[JSON_ERROR_TEXT_LENGTH];

		clean(t, sizeof(t), jerr.text);
		return fail(c, "not JSON: line %d, column %d: %s", jerr.line, jerr.column, t);
	}
	*used = (size_t)jerr.position;
	if (*used == 0 || *used > len)
		*used = len;
	di = calloc(1, sizeof(*di));
	if (!di) {
		json_decref(root);
		return -ENOMEM;
	}
	di->root = root;
	if (!json_is_object(root)) {
		rc = fail(c, "not a JSON object");
		goto out_free;
	}
	/* The schema first: a different format gets one clear message. */
	if ((rc = get_string(c, root, "", "schema", &schema)))
		goto out_free;
	if (strcmp(schema, SCHEMA) != 0) {
		clean(v, sizeof(v), schema);
		rc = fail(c, "schema is '%s', expected " SCHEMA, v);
		goto out_free;
	}
	di->d.schema = schema;
	if ((rc = closed(c, root, "", root_keys)) || (rc = parse_agent_host(c, root, &di->d)) ||
	    (rc = parse_window_event(c, root, &di->d)) ||
	    (rc = get_object(c, root, "", "labels", &labels)) ||
	    (rc = parse_stats(c, root, &di->d, &dropped)))
		goto out_free;
	di->labels = calloc(MAX_LABELS + 1, sizeof(*di->labels));
	if (!di->labels) {
		rc = -ENOMEM;
		goto out_free;
	}
	di->d.labels = di->labels;
	if ((rc = parse_labels(c, labels, "labels", di->labels, &di->d.nlabels)) ||
	    (rc = parse_profiles(c, root, di, dropped)) || (rc = parse_mappings(c, root, di)))
		goto out_free;
	di->d.dropped = dropped;
	*out = &di->d;
	return 0;

out_free:
	dump__delete(&di->d);
	return rc;
}

static size_t skip_space(const char *buf, size_t len, size_t i)
{
	while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	return i;
}

int dump__parse(const char *buf, size_t len, struct dump **out, char *err, size_t errlen)
{
	struct ctx c = {err, errlen};
	struct dump *first = NULL, **tail = &first;
	size_t pos, n = 0;
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!buf || !out)
		return fail(&c, "no input");
	if (len == 0)
		return fail(&c, "empty file");
	if ((rc = check_depth(&c, buf, len)))
		return rc;
	pos = skip_space(buf, len, 0);
	if (pos == len)
		return fail(&c, "empty file");
	while (pos < len) {
		struct dump_impl *di;
		size_t used = 0;

		if (n == DUMP_MAX_DOCUMENTS) {
			rc = fail(&c, "more than %u documents", DUMP_MAX_DOCUMENTS);
			break;
		}
		rc = parse_document(&c, buf + pos, len - pos, &used, tail);
		if (rc) {
			/* which document, when there are several */
			if (n > 0 && err && errlen && rc != -ENOMEM) {
				char first_err[256];

				snprintf(first_err, sizeof(first_err), "%s", err);
				snprintf(err, errlen, "document %zu: %s", n + 1, first_err);
			}
			break;
		}
		/* a document's bytes end with its newline, as a dump's do */
		if (pos + used < len && buf[pos + used] == '\n')
			used++;
		di = (struct dump_impl *)*tail;
		di->text_off = pos;
		di->text_len = used;
		(*tail)->index = n++;
		tail = &(*tail)->next;
		pos = skip_space(buf, len, pos + used);
	}
	if (rc) {
		if (rc == -ENOMEM && err && errlen)
			snprintf(err, errlen, "out of memory");
		dump__delete(first);
		return rc;
	}
	*out = first;
	return 0;
}

static void delete_one(struct dump_impl *di)
{
	free(di->doc_gz);
	free(di->labels);
	free(di->profiles);
	free(di->stacks);
	mappings__delete(di->mappings);
	json_decref(di->root);
	free(di);
}

void dump__delete(struct dump *d)
{
	while (d) {
		struct dump_impl *di = (struct dump_impl *)d;

		d = d->next;
		delete_one(di);
	}
}


static int read_dump_file(int fd, char **out, size_t *outlen)
{
	struct stat st;
	size_t len;
	char *buf;
	int rc;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > DUMP_MAX_FILE)
		return -EFBIG;
	/* the size is a hint: the file may grow while we read it */
	rc = fileio__read_upto(fd, 0, DUMP_MAX_FILE + 1, &buf, &len);
	if (rc < 0)
		return rc;
	if (len > DUMP_MAX_FILE) {
		free(buf);
		return -EFBIG;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

const struct json_t *dump__json(const struct dump *d)
{
	return d ? ((const struct dump_impl *)d)->root : NULL;
}

static int compress_documents(struct dump *d, const char *text, char *err, size_t errlen)
{
	for (; d; d = d->next) {
		struct dump_impl *di = (struct dump_impl *)d;
		int rc = gzip__compress(text + di->text_off, di->text_len, &di->doc_gz, &d->doc_gzlen);

		if (rc) {
			if (err && errlen)
				snprintf(err, errlen, "gzip: %s", strerror(-rc));
			return rc;
		}
		d->doc_gz = di->doc_gz;
	}
	return 0;
}

int dump__read_fileat(int dirfd, const char *name, struct dump **out, void **gz, size_t *gzlen,
		      char *err, size_t errlen)
{
	struct ctx c = {err, errlen};
	char *data = NULL;
	void *json = NULL, *zbuf = NULL;
	size_t len = 0, jlen = 0, zlen = 0;
	struct dump *d = NULL;
	int fd, rc, is_gz;

	if (err && errlen)
		err[0] = '\0';
	if (!name || !out)
		return fail(&c, "no file");
	/* O_NONBLOCK: opening a planted FIFO must not hang the uploader;
	 * it is refused below as not a regular file. */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP)
			fail(&c, "refusing to follow a symbolic link");
		else if (err && errlen)
			snprintf(err, errlen, "open: %s", strerror(-rc));
		return rc;
	}
	rc = read_dump_file(fd, &data, &len);
	close(fd);
	if (rc) {
		if (rc == -EINVAL)
			fail(&c, "not a regular file");
		else if (rc == -EFBIG)
			fail(&c, "file larger than %u MiB", DUMP_MAX_FILE >> 20);
		else if (err && errlen)
			snprintf(err, errlen, "read: %s", strerror(-rc));
		return rc;
	}
	if (len == 0) {
		rc = fail(&c, "empty file");
		goto out_free;
	}
	is_gz = len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b;
	if (is_gz) {
		rc = gzip__decompress(data, len, DUMP_MAX_JSON, &json, &jlen);
		if (rc == -EINVAL) {
			fail(&c, "truncated or corrupt gzip data");
			goto out_free;
		}
		if (rc == -EFBIG) {
			fail(&c, "decompresses to more than %u MiB", DUMP_MAX_JSON >> 20);
			goto out_free;
		}
		if (rc)
			goto out_free;
		if (jlen == 0) {
			rc = fail(&c, "empty file (after decompression)");
			goto out_free;
		}
		rc = dump__parse(json, jlen, &d, err, errlen);
	} else {
		rc = dump__parse(data, len, &d, err, errlen);
	}
	if (rc)
		goto out_free;
	/* several documents: each is sent alone, in its own gzip form */
	if (gz && d->next && (rc = compress_documents(d, is_gz ? json : data, err, errlen)))
		goto out_free;
	if (gz) {
		if (is_gz) {
			zbuf = data;
			zlen = len;
			data = NULL;
		} else {
			rc = gzip__compress(data, len, &zbuf, &zlen);
			if (rc) {
				if (err && errlen)
					snprintf(err, errlen, "gzip: %s", strerror(-rc));
				goto out_free;
			}
		}
		*gz = zbuf;
		*gzlen = zlen;
	}
	*out = d;
	d = NULL;
	rc = 0;
out_free:
	if (rc == -ENOMEM && err && errlen)
		snprintf(err, errlen, "out of memory");
	dump__delete(d);
	free(json);
	free(data);
	return rc;
}

int dump__read_file(const char *path, struct dump **out, void **gz, size_t *gzlen, char *err,
		    size_t errlen)
{
	return dump__read_fileat(AT_FDCWD, path, out, gz, gzlen, err, errlen);
}
