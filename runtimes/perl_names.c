/* Perl subs named "Package::sub (file.pl)", cached by what identifies
 * them (runtimes/perl.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/memsource.h"
#include "runtimes/perl.h"

/* Direct-mapped: hostile memory makes it hold no more than this many
 * names, and a miss costs one slot. */
#define SLOTS 4096
/* Names and files read at most this long: a longer one is cut (and says so). */
#define STR_MAX 256

struct slot {
	struct perl_sub key;
	uint32_t id; /* 0: empty */
};

struct perl_names {
	struct slot s[SLOTS];
};

struct perl_names *perl_names__new(void)
{
	return calloc(1, sizeof(struct perl_names));
}

void perl_names__delete(struct perl_names *n)
{
	free(n);
}

static bool plausible(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && (p & 7) == 0;
}

static size_t slot_of(const struct perl_sub *s)
{
	uint64_t h = s->cv * 0x9e3779b97f4a7c15ull;

	h ^= s->line * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return (size_t)(h % SLOTS);
}

/* A HEK's key into buf (NUL-terminated, cut at size - 1 with *cut). */
static int read_hek(struct memsource *m, uint64_t hek, char *buf, size_t size, bool *cut)
{
	uint32_t len;
	int err;

	buf[0] = 0;
	*cut = false;
	if (!plausible(hek))
		return -EPROTO;
	if ((err = memsource__u32(m, hek + PERL_HEK_LEN, &len)) != 0)
		return err;
	if ((int32_t)len < 0)
		return -EPROTO;
	if (len >= size) {
		len = (uint32_t)size - 1;
		*cut = true;
	}
	if (len && (err = memsource__read(m, hek + PERL_HEK_KEY, buf, len)) != 0)
		return err;
	buf[len] = 0;
	/* a sub's or package's name holds no NUL */
	return strlen(buf) == len ? 0 : -EPROTO;
}

/* A stash's name: HvNAME_HEK of its aux struct (hv.h). */
static int stash_name(struct memsource *m, const struct perl_layout *l, uint64_t hv, char *buf,
		      size_t size, bool *cut)
{
	uint64_t head[3], aux, max, name;
	uint32_t count;
	int err;

	buf[0] = 0;
	*cut = false;
	if (!plausible(hv) || memsource__read(m, hv, head, sizeof(head)) != 0)
		return -EFAULT;
	if (((head[1] >> 32) & PERL_SVTYPE_MASK) != PERL_SVT_PVHV ||
	    !((head[1] >> 32) & PERL_SVF_OOK) || !plausible(head[0]))
		return -EPROTO;
	if (l->hv_aux) {
		aux = head[0] + l->hv_aux;
	} else {
		/* after the bucket array: HvARRAY(hv)[HvMAX(hv) + 1] */
		if ((err = memsource__u64(m, head[0] + PERL_XHV_MAX, &max)) != 0)
			return err;
		if (!plausible(head[2]) || max >= (1ull << 32))
			return -EPROTO;
		aux = head[2] + (max + 1) * 8;
	}
	if ((err = memsource__u64(m, aux, &name)) != 0 ||
	    (err = memsource__u32(m, aux + l->aux_name_count, &count)) != 0)
		return err;
	/* several names (a stash renamed or aliased): the first is its own */
	if (count && (err = memsource__u64(m, name, &name)) != 0)
		return err;
	return read_hek(m, name, buf, size, cut);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The sub's name as Perl's caller() says it, with its file. */
static int compose(struct memsource *m, const struct perl_layout *l, const struct perl_sub *s,
		   char *out, size_t size)
{
	char name[STR_MAX], pkg[STR_MAX], file[STR_MAX];
	bool cut_name, cut_pkg, cut_file = false;
	ssize_t got;
	int err;

	if ((err = read_hek(m, s->hek, name, sizeof(name), &cut_name)) != 0)
		return err;
	if ((err = stash_name(m, l, s->stash, pkg, sizeof(pkg), &cut_pkg)) != 0)
		return err;
	file[0] = 0;
	if (s->file) {
		got = memsource__str(m, s->file, file, sizeof(file));
		if (got == -ENAMETOOLONG)
			cut_file = true;
		else if (got < 0)
			return (int)got;
	}
	if (s->line)
		snprintf(out, size, "%s::%s%s (%s%s:%u)", pkg, name, cut_name || cut_pkg ? "..." : "",
			 base_name(file), cut_file ? "..." : "", s->line);
	else
		snprintf(out, size, "%s::%s%s (%s%s)", pkg, name, cut_name || cut_pkg ? "..." : "",
			 base_name(file), cut_file ? "..." : "");
	return 0;
}

int perl_names__name(struct perl_names *n, struct memsource *m, const struct perl_layout *l,
		     struct strtab *names, const struct perl_sub *sub, uint32_t *id)
{
	struct slot *s = &n->s[slot_of(sub)];
	char full[3 * STR_MAX + 32];
	int err;

	if (s->id && memcmp(&s->key, sub, sizeof(*sub)) == 0) {
		*id = s->id;
		return 0;
	}
	err = compose(m, l, sub, full, sizeof(full));
	if (!err)
		err = ledger__intern_frame(m->ledger, names, full, FRAME_SUFFIX_PERL, id);
	if (err)
		return err;
	s->key = *sub;
	s->id = *id;
	return 0;
}

int perl_names__remap(struct perl_names *n, struct strtab_remap *r)
{
	size_t i;

	for (i = 0; i < SLOTS; i++)
		if (n->s[i].id && strtab_remap__id(r, &n->s[i].id))
			return -ENOMEM;
	return 0;
}
