/* Dumps -> one profile window, with time, label and pid filters. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/mappings.h"
#include "profile/profile.h"
#include "common/parse.h"
#include "common/strtab.h"
#include "export/dump_merge.h"
#include "export/dump_read.h"

#define NS_PER_SEC 1000000000ull

/* A set of distinct strings and their ", "-joined text, in order of first use. */
struct distinct {
	struct strtab *set;
	char *joined;
	size_t len, cap;
};

struct dump_merge {
	struct strtab *names;
	struct dump_merge_filter f;
	struct profile *p;
	struct dump_merge_info info;
	struct strtab *label_names; /* every label name seen in any dump */
	struct distinct hosts, kernels, arches, events;
	uint32_t *frames;
	size_t frames_cap;
	/* Global labels with one value in every used dump so far. */
	char **gl_names, **gl_values;
	size_t ngl;
	int have_gl;
	int by_thread;
	const char *unit; /* of the dumps merged (borrowed from the meta's
	                     table of units); NULL before the first */
	struct mappings *mappings; /* the used dumps' binaries, p's meta's */
};

static int distinct_init(struct distinct *d)
{
	memset(d, 0, sizeof(*d));
	d->set = strtab__new();
	return d->set ? 0 : -ENOMEM;
}

static void distinct_free(struct distinct *d)
{
	strtab__delete(d->set);
	free(d->joined);
}

static int distinct_add(struct distinct *d, const char *s)
{
	size_t before = strtab__count(d->set), l = strlen(s), need;
	uint32_t id;
	char *n;

	if (strtab__intern_cstr(d->set, s, &id) < 0)
		return -ENOMEM;
	if (strtab__count(d->set) == before)
		return 0;
	need = d->len + (d->len ? 2 : 0) + l + 1;
	if (need > d->cap) {
		size_t ncap = d->cap ? d->cap : 64;

		while (ncap < need)
			ncap *= 2;
		n = realloc(d->joined, ncap);
		if (!n)
			return -ENOMEM;
		d->joined = n;
		d->cap = ncap;
	}
	if (d->len) {
		memcpy(d->joined + d->len, ", ", 2);
		d->len += 2;
	}
	memcpy(d->joined + d->len, s, l);
	d->len += l;
	d->joined[d->len] = '\0';
	return 0;
}

static const char *distinct_str(const struct distinct *d)
{
	return d->joined ? d->joined : "";
}

struct dump_merge *dump_merge__new(struct strtab *names, const struct dump_merge_filter *filter)
{
	struct dump_merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->names = names;
	m->f = *filter;
	m->p = profile__new(names);
	m->label_names = strtab__new();
	m->mappings = mappings__new();
	if (!m->p || !m->label_names || !m->mappings || distinct_init(&m->hosts) < 0 ||
	    distinct_init(&m->kernels) < 0 || distinct_init(&m->arches) < 0 ||
	    distinct_init(&m->events) < 0) {
		dump_merge__delete(m);
		return NULL;
	}
	/* A day of windows can exceed the per-window caps the daemon uses to
	 * bound itself; here memory is the only bound. */
	profile__set_max_stacks(m->p, SIZE_MAX);
	profile__set_max_frames(m->p, SIZE_MAX);
	profile__meta(m->p)->mappings = m->mappings;
	return m;
}

static void free_globals(struct dump_merge *m)
{
	size_t i;

	for (i = 0; i < m->ngl; i++) {
		free(m->gl_names[i]);
		free(m->gl_values[i]);
	}
	free(m->gl_names);
	free(m->gl_values);
	m->gl_names = m->gl_values = NULL;
	m->ngl = 0;
}

void dump_merge__delete(struct dump_merge *m)
{
	if (!m)
		return;
	profile__delete(m->p);
	strtab__delete(m->label_names);
	distinct_free(&m->hosts);
	distinct_free(&m->kernels);
	distinct_free(&m->arches);
	distinct_free(&m->events);
	free(m->frames);
	free_globals(m);
	mappings__delete(m->mappings);
	free(m);
}

static int overlaps(const struct dump_merge_filter *f, const struct dump *d)
{
	if (d->start_ns >= f->until_ns)
		return 0;
	if (d->end_ns > d->start_ns)
		return d->end_ns > f->from_ns;
	return d->start_ns >= f->from_ns;
}

static const char *label_of(const struct dump *d, const struct dump_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nlabels; i++)
		if (strcmp(p->labels[i].name, name) == 0)
			return p->labels[i].value;
	for (i = 0; i < d->nlabels; i++)
		if (strcmp(d->labels[i].name, name) == 0)
			return d->labels[i].value;
	return NULL;
}

static int labels_match(const struct dump_merge_filter *f, const struct dump *d,
			const struct dump_profile *p)
{
	size_t i, j;

	for (i = 0; i < f->nlabels; i++) {
		const char *v;
		int ok = 0, first = 1;

		for (j = 0; j < i && first; j++)
			if (strcmp(f->labels[j].name, f->labels[i].name) == 0)
				first = 0; /* decided with the earlier condition */
		if (!first)
			continue;
		v = label_of(d, p, f->labels[i].name);
		for (j = i; j < f->nlabels && v && !ok; j++)
			ok = strcmp(f->labels[j].name, f->labels[i].name) == 0 &&
			     strcmp(f->labels[j].value, v) == 0;
		if (!ok)
			return 0;
	}
	return 1;
}

/* pid label as an int; -1 when absent. Linux pids fit easily; a larger
 * (valid per the schema, impossible in practice) value is treated as absent. */
static int32_t pid_of(const struct dump_profile *p)
{
	size_t i;
	long v;

	for (i = 0; i < p->nlabels; i++)
		if (strcmp(p->labels[i].name, "pid") == 0)
			return parse__int(p->labels[i].value, 0, INT32_MAX, &v) == 0 ? (int32_t)v : -1;
	return -1;
}

static int intern_or_zero(struct strtab *t, const char *s, uint32_t *id)
{
	*id = 0;
	if (!s || !*s)
		return 0; /* 0 = unknown, written back as "" */
	return strtab__intern_cstr(t, s, id);
}

void dump_merge__set_group_by_thread(struct dump_merge *m, int on)
{
	m->by_thread = on;
}

static int make_key(struct dump_merge *m, const struct dump_profile *p, struct profile_key *k)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->pid = pid_of(p);
	for (i = 0; i < p->nlabels; i++) {
		const struct dump_label *l = &p->labels[i];
		uint32_t *dst = NULL;

		if (strcmp(l->name, "service_name") == 0)
			dst = &k->service_name;
		else if (strcmp(l->name, "exe") == 0)
			dst = &k->exe;
		else if (strcmp(l->name, "comm") == 0)
			dst = &k->comm;
		else if (strcmp(l->name, "user") == 0)
			dst = &k->user;
		else if (strcmp(l->name, "thread") == 0) {
			/* "" (a name not known) is a thread label too */
			m->info.profiles_threaded++;
			if (m->by_thread && strtab__intern_cstr(m->names, l->value, &k->thread) < 0)
				return -ENOMEM;
			continue;
		}
		if (dst && intern_or_zero(m->names, l->value, dst) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Splits "root;...;leaf" into interned frame ids in m->frames. */
static int split_stack(struct dump_merge *m, const char *s, size_t *n)
{
	size_t count = 0, i;
	const char *start;

	if (!*s) {
		*n = 0;
		return 0;
	}
	for (i = 0; s[i]; i++)
		count += s[i] == ';';
	count++;
	if (count > m->frames_cap) {
		uint32_t *nf;

		if (count > SIZE_MAX / sizeof(*nf))
			return -ENOMEM;
		nf = realloc(m->frames, count * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		m->frames = nf;
		m->frames_cap = count;
	}
	start = s;
	for (i = 0; i < count; i++) {
		const char *end = strchr(start, ';');
		size_t len = end ? (size_t)(end - start) : strlen(start);
		int rc;

		/* An empty name would vanish from every output format. */
		if (len == 0)
			rc = strtab__intern_cstr(m->names, "[unknown]", &m->frames[i]);
		else
			rc = strtab__intern(m->names, start, len, &m->frames[i]);
		if (rc < 0)
			return rc;
		start = end ? end + 1 : start + len;
	}
	*n = count;
	return 0;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int note_globals(struct dump_merge *m, const struct dump *d)
{
	size_t i, j, k;

	if (!m->have_gl) {
		m->have_gl = 1;
		if (!d->nlabels)
			return 0;
		m->gl_names = calloc(d->nlabels, sizeof(*m->gl_names));
		m->gl_values = calloc(d->nlabels, sizeof(*m->gl_values));
		if (!m->gl_names || !m->gl_values)
			return -ENOMEM;
		for (i = 0; i < d->nlabels; i++) {
			m->gl_names[i] = strdup(d->labels[i].name);
			m->gl_values[i] = strdup(d->labels[i].value);
			m->ngl = i + 1;
			if (!m->gl_names[i] || !m->gl_values[i])
				return -ENOMEM;
		}
		return 0;
	}
	/* Keep only the labels this dump has with the same value. */
	for (i = 0, k = 0; i < m->ngl; i++) {
		int keep = 0;

		for (j = 0; j < d->nlabels && !keep; j++)
			keep = strcmp(d->labels[j].name, m->gl_names[i]) == 0 &&
			       strcmp(d->labels[j].value, m->gl_values[i]) == 0;
		if (keep) {
			m->gl_names[k] = m->gl_names[i];
			m->gl_values[k] = m->gl_values[i];
			k++;
		} else {
			free(m->gl_names[i]);
			free(m->gl_values[i]);
		}
	}
	m->ngl = k;
	return 0;
}

/* Keeps the distinct rates, highest first. Past DUMP_MERGE_RATES only the
 * range is told: the highest and the lowest stay right. */
static void note_rate(struct dump_merge_info *in, uint32_t hz)
{
	size_t i, n = in->nrates;

	if (!hz)
		return;
	for (i = 0; i < n && in->rates[i] > hz; i++)
		;
	if (i < n && in->rates[i] == hz)
		return;
	if (n == DUMP_MERGE_RATES) {
		in->more_rates = 1;
		if (i == n)
			in->rates[n - 1] = hz;
		if (i + 1 < n) {
			memmove(&in->rates[i + 1], &in->rates[i], (n - 2 - i) * sizeof(in->rates[0]));
			in->rates[i] = hz;
		}
		return;
	}
	memmove(&in->rates[i + 1], &in->rates[i], (in->nrates - i) * sizeof(in->rates[0]));
	in->rates[i] = hz;
	in->nrates++;
}

void dump_merge__describe_rates(const struct dump_merge_info *in, char *buf, size_t size)
{
	size_t i, len = 0;
	int n;

	if (!size)
		return;
	buf[0] = '\0';
	if (in->nrates == 1 && !in->more_rates) {
		snprintf(buf, size, "%u Hz", in->rates[0]);
		return;
	}
	if (in->more_rates) {
		snprintf(buf, size, "windows at %u to %u Hz", in->rates[in->nrates - 1], in->rates[0]);
		return;
	}
	for (i = 0; i < in->nrates; i++) {
		n = snprintf(buf + len, size - len, "%s%u", i == 0 ? "windows at " :
			     i + 1 == in->nrates ? " and " : ", ", in->rates[i]);
		if (n < 0 || (size_t)n >= size - len)
			return;
		len += (size_t)n;
	}
	if (len)
		snprintf(buf + len, size - len, " Hz");
}

static int note_used_dump(struct dump_merge *m, const struct dump *d)
{
	struct dump_merge_info *in = &m->info;
	uint32_t hz = d->frequency_hz > UINT32_MAX ? UINT32_MAX : (uint32_t)d->frequency_hz;

	if (!in->dumps_used || d->start_ns < in->start_ns)
		in->start_ns = d->start_ns;
	if (!in->dumps_used || d->end_ns > in->end_ns)
		in->end_ns = d->end_ns;
	if (!in->dumps_used || hz < in->min_hz)
		in->min_hz = hz;
	if (!in->dumps_used || hz > in->max_hz)
		in->max_hz = hz;
	in->dumps_used++;
	note_rate(in, hz);
	agent_stats__merge(&in->stats, &d->stats);
	if (distinct_add(&m->hosts, d->hostname) < 0 || distinct_add(&m->kernels, d->kernel) < 0 ||
	    distinct_add(&m->arches, d->arch) < 0 || distinct_add(&m->events, d->event_name) < 0)
		return -ENOMEM;
	in->hosts = distinct_str(&m->hosts);
	in->nhosts = strtab__count(m->hosts.set);
	return note_globals(m, d);
}

int dump_merge__add(struct dump_merge *m, const struct dump *d)
{
	uint64_t period = d->frequency_hz ? (NS_PER_SEC + d->frequency_hz / 2) / d->frequency_hz : 0;
	uint64_t scale = 1; /* wall: nanoseconds a count stands for */
	size_t i, j, used = 0;
	uint32_t id;
	int rc;

	if (!m->info.dumps || d->start_ns < m->info.read_start_ns)
		m->info.read_start_ns = d->start_ns;
	if (!m->info.dumps || d->end_ns > m->info.read_end_ns)
		m->info.read_end_ns = d->end_ns;
	m->info.dumps++;
	/* Label names of every input, kept or not, for dump_merge__check_labels. */
	for (i = 0; i < d->nlabels; i++)
		if (strtab__intern_cstr(m->label_names, d->labels[i].name, &id) < 0)
			return -ENOMEM;
	for (i = 0; i < d->nprofiles; i++)
		for (j = 0; j < d->profiles[i].nlabels; j++)
			if (strtab__intern_cstr(m->label_names, d->profiles[i].labels[j].name, &id) < 0)
				return -ENOMEM;

	if (!overlaps(&m->f, d))
		return 0;
	if (m->f.event && strcmp(m->f.event, DUMP_MERGE_WALL) == 0) {
		/* on and off the CPU as one time: a CPU sample stands for its
		 * period of CPU time (cpu-clock's), a wait for its own */
		if (strcmp(d->event_name, "off-cpu") == 0)
			scale = 1;
		else if (strcmp(d->event_name, "cpu-clock") == 0 && period)
			scale = period;
		else {
			m->info.dumps_other_event++;
			return 0;
		}
		m->unit = "nanoseconds";
		period = 0;
	} else if (m->f.event && strcmp(d->event_name, m->f.event) != 0) {
		m->info.dumps_other_event++;
		return 0;
	} else {
		/* counts of one unit only: samples and nanoseconds do not add up */
		if (!m->unit)
			m->unit = profile_meta__unit_of(d->event_name);
		else if (strcmp(m->unit, profile_meta__unit_of(d->event_name)) != 0)
			return -EDOM;
		if (strcmp(m->unit, "samples") != 0)
			period = 0; /* the frequency of an off-cpu dump is no sampling rate */
	}
	m->info.dumps_in_range++;
	for (i = 0; i < d->nprofiles; i++) {
		const struct dump_profile *p = &d->profiles[i];
		struct profile_key key;

		m->info.profiles_in_range++;
		if (!labels_match(&m->f, d, p))
			continue;
		m->info.profiles_label_ok++;
		if (m->f.pid >= 0 && pid_of(p) != m->f.pid)
			continue;
		m->info.profiles_used++;
		used++;
		if ((rc = make_key(m, p, &key)) < 0)
			return rc;
		for (j = 0; j < p->nstacks; j++) {
			size_t n;

			if ((rc = split_stack(m, p->stacks[j].stack, &n)) < 0)
				return rc;
			if ((rc = profile__add(m->p, &key, m->frames, n,
					       sat_mul(p->stacks[j].count, scale))) < 0)
				return rc;
			m->info.samples = sat_add(m->info.samples, sat_mul(p->stacks[j].count, scale));
			m->info.cpu_ns = sat_add(m->info.cpu_ns, sat_mul(p->stacks[j].count, period));
		}
	}
	if (!used)
		return 0;
	/* A window's dropped samples belong to no profile: they are the merged
	 * window's only when all its profiles were kept. */
	if (used == d->nprofiles)
		profile__drop(m->p, sat_mul(d->dropped, scale));
	m->info.profiles_left_out += d->nprofiles - used;
	for (i = 0; i < mappings__count(d->mappings); i++) {
		const struct mapping *e = mappings__at(d->mappings, i);

		rc = mappings__add(m->mappings, e->module, e->path, *e->build_id ? e->build_id : NULL);
		if (rc == -ENOMEM)
			return rc; /* past MAPPINGS_MAX: those frames stay unnamed */
	}
	return note_used_dump(m, d);
}

int dump_merge__check_labels(const struct dump_merge *m, const char **unknown)
{
	size_t i, n = strtab__count(m->label_names);
	uint32_t id;

	for (i = 0; i < m->f.nlabels; i++) {
		const char *name = m->f.labels[i].name;
		struct strtab *t = m->label_names;

		/* A lookup must not intern; label names are few: scan them. */
		for (id = 1; id <= n; id++)
			if (strcmp(strtab__str(t, id), name) == 0)
				break;
		if (id > n) {
			*unknown = name;
			return -ENOENT;
		}
	}
	return 0;
}

struct profile *dump_merge__profile(struct dump_merge *m)
{
	struct profile_meta *meta = profile__meta(m->p);

	meta->start_ns = m->info.start_ns;
	meta->end_ns = m->info.end_ns;
	meta->window_id = NULL;
	meta->hostname = distinct_str(&m->hosts);
	meta->kernel = distinct_str(&m->kernels);
	meta->arch = distinct_str(&m->arches);
	meta->event_name = m->f.event && strcmp(m->f.event, DUMP_MERGE_WALL) == 0 ? DUMP_MERGE_WALL
									      : distinct_str(&m->events);
	meta->event_unit = m->unit ? m->unit : "samples";
	if (m->info.min_hz == m->info.max_hz || !m->info.cpu_ns)
		meta->frequency_hz = m->info.max_hz;
	else
		meta->frequency_hz = (uint32_t)((double)m->info.samples * (double)NS_PER_SEC /
						(double)m->info.cpu_ns + 0.5);
	meta->nlabels = m->ngl;
	meta->label_names = (const char *const *)m->gl_names;
	meta->label_values = (const char *const *)m->gl_values;
	return m->p;
}

const struct dump_merge_info *dump_merge__info(const struct dump_merge *m)
{
	return &m->info;
}
