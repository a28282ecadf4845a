/* smolder.profile/v1 JSON encoder, built with jansson (2.10 API only). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/strtab.h"
#include "profile/agent_stats.h"
#include "profile/mappings.h"
#include "profile/profile.h"
#include "export/collapsed.h"
#include "export/dump_mappings.h"
#include "export/json_dump.h"

#ifndef SMOLDER_VERSION
#define SMOLDER_VERSION PACKAGE_VERSION
#endif

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, <= U+10FFFF, which is what jansson accepts), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/* A JSON string for s; NULL means "" (meta fields the caller left unset).
 * Process names and paths come from other users' processes and need not be
 * UTF-8: jansson rejects those, so bad bytes become U+FFFD instead. */
static json_t *jstr(const char *s)
{
	const unsigned char *u;
	size_t l, i, o;
	char *tmp;
	json_t *r;

	if (!s)
		s = "";
	r = json_string(s);
	if (r)
		return r;
	l = strlen(s);
	if (l > ((size_t)-1 - 1) / 3)
		return NULL;
	tmp = malloc(l * 3 + 1);
	if (!tmp)
		return NULL;
	u = (const unsigned char *)s;
	for (i = 0, o = 0; i < l;) {
		size_t k = utf8_seq(u + i); /* reads stop at the NUL: it is invalid */

		if (k) {
			memcpy(tmp + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(tmp + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	tmp[o] = '\0';
	r = json_string(tmp);
	free(tmp);
	return r;
}

/* json_int_t is signed 64-bit; counters never get near 2^63, clamp anyway
 * rather than emit a negative count. */
static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

/* json_object_set_new steals v even on failure, and fails on NULL v. */
static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v) ? -ENOMEM : 0;
}

static const char *name_or_empty(const struct strtab *names, uint32_t id)
{
	const char *s = id ? strtab__str(names, id) : NULL;

	return s ? s : "";
}

struct stack_ent {
	uint64_t count;
	size_t off;
	const char *s;
};

struct stack_collect {
	const struct strtab *names;
	char *text;
	size_t text_cap, text_len;
	struct stack_ent *ents;
	size_t n, cap;
};

static int collect_stack(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct stack_collect *c = ctx;
	size_t start = c->text_len;

	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct stack_ent *ne;

		if (ncap > (size_t)-1 / sizeof(*ne))
			return -ENOMEM;
		ne = realloc(c->ents, ncap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		c->ents = ne;
		c->cap = ncap;
	}
	if (collapsed__append_stack(c->names, frames, n, &c->text, &c->text_cap, &c->text_len) < 0)
		return -ENOMEM;
	c->text_len++; /* keep the NUL */
	c->ents[c->n].count = count;
	c->ents[c->n].off = start;
	c->n++;
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack_ent *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->s, y->s);
}

struct group_ent {
	size_t g;
	uint64_t samples;
	int32_t pid;
	const char *service, *exe, *comm;
	const char *thread; /* NULL: not grouped per thread */
	const char *user;   /* NULL: root's */
};

static int cmp_group(const void *a, const void *b)
{
	const struct group_ent *x = a, *y = b;
	int r;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if ((r = strcmp(x->service, y->service)) != 0)
		return r;
	if ((r = strcmp(x->exe, y->exe)) != 0)
		return r;
	if ((r = strcmp(x->comm, y->comm)) != 0)
		return r;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (!x->user || !y->user) {
		if (x->user || y->user)
			return !!x->user - !!y->user;
	} else if ((r = strcmp(x->user, y->user)) != 0) {
		return r;
	}
	if (!x->thread || !y->thread)
		return !!x->thread - !!y->thread;
	return strcmp(x->thread, y->thread);
}

static json_t *build_profile(const struct profile *p, const struct group_ent *ge,
			     struct stack_collect *sc)
{
	json_t *prof = json_object(), *labels = json_object(), *stacks = json_array();
	size_t i;

	if (!prof || !labels || !stacks)
		goto out_nomem;
	if (set(labels, "service_name", jstr(ge->service)) < 0 ||
	    set(labels, "exe", jstr(ge->exe)) < 0 ||
	    set(labels, "comm", jstr(ge->comm)) < 0)
		goto out_nomem;
	if (ge->user && set(labels, "user", jstr(ge->user)) < 0)
		goto out_nomem;
	if (ge->pid >= 0) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", (int)ge->pid);
		if (set(labels, "pid", json_string(pid)) < 0)
			goto out_nomem;
	}
	if (ge->thread && set(labels, "thread", jstr(ge->thread)) < 0)
		goto out_nomem;
	sc->n = 0;
	sc->text_len = 0;
	if (profile__foreach_stack(p, ge->g, collect_stack, sc) != 0)
		goto out_nomem;
	for (i = 0; i < sc->n; i++)
		sc->ents[i].s = sc->text + sc->ents[i].off;
	if (sc->n)
		qsort(sc->ents, sc->n, sizeof(*sc->ents), cmp_stack);
	for (i = 0; i < sc->n; i++) {
		json_t *st = json_object();

		if (!st || json_array_append_new(stacks, st) < 0)
			goto out_nomem;
		if (set(st, "stack", jstr(sc->ents[i].s)) < 0 ||
		    set(st, "count", jint(sc->ents[i].count)) < 0)
			goto out_nomem;
	}
	if (set(prof, "labels", labels) < 0) {
		labels = NULL;
		goto out_nomem;
	}
	labels = NULL;
	if (set(prof, "samples", jint(ge->samples)) < 0)
		goto out_nomem;
	if (set(prof, "stacks", stacks) < 0) {
		stacks = NULL;
		goto out_nomem;
	}
	return prof;

out_nomem:
	json_decref(stacks);
	json_decref(labels);
	json_decref(prof);
	return NULL;
}

/* "mappings": the binaries the window's unnamed frames are in, in the
 * order the recording met them; absent when there are none. */
static int add_mappings(json_t *root, const struct profile *p)
{
	const struct mappings *m = profile__meta_const(p)->mappings;
	size_t i, n = mappings__count(m);
	json_t *arr = NULL;
	bool *used;
	long nused;

	if (!n)
		return 0;
	used = calloc(n, sizeof(*used));
	if (!used)
		return -ENOMEM;
	nused = dump_mappings__used(p, used);
	if (nused > 0)
		arr = json_array();
	for (i = 0; arr && i < n; i++) {
		const struct mapping *e = mappings__at(m, i);
		json_t *o;

		if (!used[i])
			continue;
		o = json_object();
		if (!o || json_array_append_new(arr, o) < 0 || set(o, "module", jstr(e->module)) < 0 ||
		    set(o, "path", jstr(e->path)) < 0 || set(o, "build_id", jstr(e->build_id)) < 0) {
			json_decref(arr);
			arr = NULL;
			nused = -ENOMEM;
		}
	}
	free(used);
	if (nused < 0)
		return (int)nused;
	return arr ? set(root, "mappings", arr) : 0;
}

/* Like set(), but o may be NULL from a failed json_object(). */
static int add_obj(json_t *root, const char *k, json_t *o)
{
	return o ? set(root, k, o) : -ENOMEM;
}

/* The runtime readers' blocks, by reader name, each its counters in
 * agent_runtime_stats__fields' order. */
static json_t *build_runtimes(const struct agent_stats *s)
{
	json_t *o = json_object();
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < AGENT_RUNTIMES_MAX; i++) {
		const struct agent_runtime_stats *r = &s->runtimes[i];
		const struct agent_stat_field *f;
		json_t *b;

		if (!r->name[0])
			continue;
		b = json_object();
		if (!b || set(o, r->name, b) < 0)
			goto out_nomem;
		for (f = agent_runtime_stats__fields; f->name; f++)
			if (set(b, f->name, jint(*(const uint64_t *)((const char *)r + f->offset))) < 0)
				goto out_nomem;
	}
	return o;

out_nomem:
	json_decref(o);
	return NULL;
}

/* The counters in agent_stats__fields' order (the dump's), with the
 * profile's own "samples" first and "dropped" after "lost", the
 * "unwind.*" ones in their object, placed where they start, and the
 * runtime readers' blocks last. */
static json_t *build_stats(const struct profile *p, const struct agent_stats *agent)
{
	static const struct agent_stats none;
	const struct agent_stats *s = agent ? agent : &none;
	const struct agent_stat_field *f;
	json_t *o = json_object(), *u = json_object();

	if (!o || !u)
		goto out_nomem;
	if (set(o, "samples", jint(profile__samples(p))) < 0)
		goto out_nomem;
	for (f = agent_stats__fields; f->name; f++) {
		uint64_t v = *(const uint64_t *)((const char *)s + f->offset);

		if (strncmp(f->name, "unwind.", 7) == 0) {
			if (!u || set(u, f->name + 7, jint(v)) < 0)
				goto out_nomem;
			if (strncmp(f[1].name ? f[1].name : "", "unwind.", 7) != 0) {
				json_t *done = u;

				u = NULL; /* set() takes it, also on failure */
				if (set(o, "unwind", done) < 0)
					goto out_nomem;
			}
			continue;
		}
		if (set(o, f->name, jint(v)) < 0)
			goto out_nomem;
		if (strcmp(f->name, "lost") == 0 && set(o, "dropped", jint(profile__dropped(p))) < 0)
			goto out_nomem;
	}
	json_decref(u);
	if (add_obj(o, "runtimes", build_runtimes(s)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;

out_nomem:
	json_decref(u);
	json_decref(o);
	return NULL;
}

static json_t *build(const struct profile *p, const struct agent_stats *agent)
{
	const struct profile_meta *m = profile__meta_const(p);
	const struct strtab *names = profile__names(p);
	size_t ng = profile__ngroups(p), i;
	struct group_ent *ges = NULL;
	struct stack_collect sc;
	json_t *root = json_object(), *o = NULL, *profiles = NULL;

	memset(&sc, 0, sizeof(sc));
	sc.names = names;
	if (!root)
		return NULL;
	if (set(root, "schema", json_string(JSON_DUMP_SCHEMA)) < 0)
		goto out_nomem;

	o = json_object();
	if (o && (set(o, "name", json_string("smolder")) < 0 ||
		  set(o, "version", jstr(SMOLDER_VERSION)) < 0))
		goto out_nomem;
	if (add_obj(root, "agent", o) < 0)
		goto out_nomem_o;

	o = json_object();
	if (o && (set(o, "hostname", jstr(m->hostname)) < 0 ||
		  set(o, "kernel", jstr(m->kernel)) < 0 ||
		  set(o, "arch", jstr(m->arch)) < 0))
		goto out_nomem;
	if (add_obj(root, "host", o) < 0)
		goto out_nomem_o;

	o = json_object();
	if (o && (set(o, "start_ns", jint(m->start_ns)) < 0 ||
		  set(o, "end_ns", jint(m->end_ns)) < 0 ||
		  (m->window_id && set(o, "id", jstr(m->window_id)) < 0)))
		goto out_nomem;
	if (add_obj(root, "window", o) < 0)
		goto out_nomem_o;

	o = json_object();
	if (o && (set(o, "name", jstr(m->event_name)) < 0 ||
		  set(o, "unit", jstr(m->event_unit ? m->event_unit : "samples")) < 0 ||
		  set(o, "frequency_hz", jint(m->frequency_hz)) < 0))
		goto out_nomem;
	if (add_obj(root, "event", o) < 0)
		goto out_nomem_o;

	o = json_object();
	for (i = 0; o && i < m->nlabels; i++) {
		const char *k = m->label_names ? m->label_names[i] : NULL;
		const char *v = m->label_values ? m->label_values[i] : NULL;

		/* Keys must be valid UTF-8 for jansson; config names are
		 * [A-Za-z0-9_.], so anything else is skipped. */
		if (!k || !*k || set(o, k, jstr(v)) < 0)
			continue;
	}
	if (add_obj(root, "labels", o) < 0)
		goto out_nomem_o;

	if (ng) {
		ges = calloc(ng, sizeof(*ges));
		if (!ges)
			goto out_nomem_o;
	}
	for (i = 0; i < ng; i++) {
		struct profile_group grp;

		profile__group(p, i, &grp);
		ges[i].g = i;
		ges[i].samples = grp.samples;
		ges[i].pid = grp.key.pid;
		ges[i].service = name_or_empty(names, grp.key.service_name);
		ges[i].exe = name_or_empty(names, grp.key.exe);
		ges[i].comm = name_or_empty(names, grp.key.comm);
		ges[i].thread = grp.key.thread ? name_or_empty(names, grp.key.thread) : NULL;
		ges[i].user = grp.key.user ? name_or_empty(names, grp.key.user) : NULL;
	}
	if (ng)
		qsort(ges, ng, sizeof(*ges), cmp_group);
	profiles = json_array();
	if (!profiles)
		goto out_nomem_o;
	for (i = 0; i < ng; i++) {
		json_t *prof = build_profile(p, &ges[i], &sc);

		if (!prof || json_array_append_new(profiles, prof) < 0)
			goto out_nomem_o;
	}
	if (set(root, "profiles", profiles) < 0) {
		profiles = NULL;
		goto out_nomem_o;
	}
	profiles = NULL;
	if (add_mappings(root, p) < 0)
		goto out_nomem_o;
	if (add_obj(root, "stats", build_stats(p, agent)) < 0)
		goto out_nomem_o;

	free(ges);
	free(sc.ents);
	free(sc.text);
	return root;

out_nomem:
	json_decref(o);
out_nomem_o:
	json_decref(profiles);
	free(ges);
	free(sc.ents);
	free(sc.text);
	json_decref(root);
	return NULL;
}

#define DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER)

int json_dump__write(const struct profile *p, const struct agent_stats *agent, FILE *out)
{
	json_t *root = build(p, agent);
	int err = 0;

	if (!root)
		return -ENOMEM;
	if (json_dumpf(root, out, DUMP_FLAGS) < 0 || fputc('\n', out) == EOF)
		err = -EIO;
	if (fflush(out) != 0 || ferror(out))
		err = -EIO;
	json_decref(root);
	return err;
}

int json_dump__to_buffer(const struct profile *p, const struct agent_stats *agent, char **buf,
			 size_t *len)
{
	json_t *root = build(p, agent);
	char *s;
	size_t l;

	if (!root)
		return -ENOMEM;
	s = json_dumps(root, DUMP_FLAGS);
	json_decref(root);
	if (!s)
		return -ENOMEM;
	l = strlen(s);
	/* json_dumps allocates exactly; add the newline the file form has. */
	{
		char *t = realloc(s, l + 2);

		if (!t) {
			free(s);
			return -ENOMEM;
		}
		s = t;
	}
	s[l] = '\n';
	s[l + 1] = '\0';
	*buf = s;
	*len = l + 1;
	return 0;
}
