/* Kernel text symbols from /proc/kallsyms: sorted once, looked up by pc. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/strtab.h"
#include "common/u64map.h"
#include "symbolize/frame_name.h"
#include "symbolize/kallsyms.h"

/* Bounds for a hostile or absurd file; a large distro kernel with many
 * modules has ~250k lines and ~12 MiB. */
#define KSYM_LINE_MAX 512
#define KSYM_MAX_ENTRIES 4000000
#define KSYM_MAX_BYTES (256u << 20)
/* A pc further than this from the nearest symbol start is not inside it
 * (kallsyms has no sizes; no kernel function comes near this). */
#define KSYM_MAX_FUNC (1u << 20)
#define KSYM_CACHE_MAX 65536

struct ksym {
	uint64_t addr;
	uint32_t name_off;
	uint32_t id;     /* interned frame, 0 until first used */
	uint8_t global;  /* upper-case type: preferred over a local alias */
};

struct kallsyms {
	struct strtab *names;
	struct ksym *syms;
	size_t n;
	char *blob;      /* NUL-separated raw names */
	size_t blob_len, blob_cap;
	int restricted;
	uint32_t kernel_id; /* "[kernel]_[k]" */
	struct u64map *cache; /* pc -> frame id */
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	/* stable on input order so results do not depend on qsort */
	return x->name_off < y->name_off ? -1 : x->name_off > y->name_off;
}

static int add_name(struct kallsyms *k, const char *s, size_t len, uint32_t *off)
{
	if (k->blob_len + len + 1 > k->blob_cap) {
		size_t cap = k->blob_cap ? k->blob_cap * 2 : 65536;
		char *nb;

		while (cap < k->blob_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		nb = realloc(k->blob, cap);
		if (!nb)
			return -ENOMEM;
		k->blob = nb;
		k->blob_cap = cap;
	}
	*off = (uint32_t)k->blob_len;
	memcpy(k->blob + k->blob_len, s, len);
	k->blob[k->blob_len + len] = '\0';
	k->blob_len += len + 1;
	return 0;
}

/* "ADDR TYPE NAME[\t[module]]": returns 1 and the parts for a text symbol,
 * 0 for anything else. */
static int parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *name_len)
{
	char *sp1 = strchr(line, ' '), *sp2, *end;

	if (!sp1 || sp1 == line)
		return 0;
	if (parse__u64n(line, (size_t)(sp1 - line), 16, addr) < 0)
		return 0;
	if (sp1[1] == '\0' || sp1[2] != ' ')
		return 0;
	*type = sp1[1];
	if (!strchr("tTwW", *type))
		return 0;
	sp2 = sp1 + 3;
	end = sp2 + strcspn(sp2, "\t\n\r ");
	if (end == sp2)
		return 0;
	*name = sp2;
	*name_len = (size_t)(end - sp2);
	return 1;
}

int kallsyms__load(const char *path, struct strtab *names, struct kallsyms **out)
{
	struct kallsyms *k;
	char line[KSYM_LINE_MAX];
	size_t cap = 0, bytes = 0, i, w;
	int nonzero = 0, err;
	FILE *f;

	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->names = names;
	k->cache = u64map__new(1024);
	if (!k->cache) {
		err = -ENOMEM;
		goto out_free;
	}
	err = frame_name__intern(names, "[kernel]", "_[k]", &k->kernel_id);
	if (err < 0)
		goto out_free;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		goto out_free;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line), name_len;
		uint64_t addr;
		char type, *name;

		bytes += len;
		if (bytes > KSYM_MAX_BYTES || k->n >= KSYM_MAX_ENTRIES)
			break;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			int c;

			/* overlong line: skip the rest of it */
			while ((c = getc(f)) != EOF && c != '\n')
				bytes++;
			continue;
		}
		if (!parse_line(line, &addr, &type, &name, &name_len))
			continue;
		if (k->n == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			struct ksym *ns = realloc(k->syms, ncap * sizeof(*ns));

			if (!ns) {
				err = -ENOMEM;
				goto out_close;
			}
			k->syms = ns;
			cap = ncap;
		}
		err = add_name(k, name, name_len, &k->syms[k->n].name_off);
		if (err < 0)
			goto out_close;
		k->syms[k->n].addr = addr;
		k->syms[k->n].id = 0;
		k->syms[k->n].global = type == 'T' || type == 'W';
		k->n++;
		if (addr)
			nonzero = 1;
	}
	if (ferror(f)) {
		err = -EIO;
		goto out_close;
	}
	fclose(f);
	if (!nonzero) {
		/* kptr_restrict: names without addresses are of no use */
		k->restricted = 1;
		k->n = 0;
	}
	if (k->n > 1)
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	/* one symbol per address: the first after sorting (global, then file order) */
	for (i = 0, w = 0; i < k->n; i++)
		if (w == 0 || k->syms[w - 1].addr != k->syms[i].addr)
			k->syms[w++] = k->syms[i];
	k->n = w;
	*out = k;
	return 0;

out_close:
	fclose(f);
out_free:
	kallsyms__delete(k);
	return err;
}

void kallsyms__delete(struct kallsyms *k)
{
	if (!k)
		return;
	u64map__delete(k->cache);
	free(k->syms);
	free(k->blob);
	free(k);
}

int kallsyms__restricted(const struct kallsyms *k)
{
	return k->restricted;
}

size_t kallsyms__count(const struct kallsyms *k)
{
	return k->n;
}

int kallsyms__lookup(struct kallsyms *k, uint64_t pc, uint32_t *id)
{
	size_t lo = 0, hi = k->n;
	uint64_t v;
	uint32_t res;
	struct ksym *s;
	int err;

	if (u64map__get(k->cache, pc, &v)) {
		*id = (uint32_t)v;
		return 0;
	}
	/* greatest addr <= pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc - k->syms[lo - 1].addr >= KSYM_MAX_FUNC) {
		res = k->kernel_id;
	} else {
		s = &k->syms[lo - 1];
		if (!s->id) {
			err = frame_name__intern(k->names, k->blob + s->name_off, "_[k]", &s->id);
			if (err < 0)
				return err;
		}
		res = s->id;
	}
	if (u64map__count(k->cache) >= KSYM_CACHE_MAX)
		u64map__clear(k->cache);
	(void)u64map__put(k->cache, pc, res); /* the cache is best effort */
	*id = res;
	return 0;
}
