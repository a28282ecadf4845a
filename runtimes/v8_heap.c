/* V8 heap objects, types and strings read from outside the process. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "runtimes/v8_heap.h"

/* Bytes of string characters read at once. */
#define CHUNK (64u * 1024)

struct v8_heap {
	struct memsource *mem;
	struct v8_layout l;
	struct u64map *maps; /* map word -> instance type + 1 */
	uint16_t map_type;   /* the type of maps, learnt from the first map */
	uint8_t chunk[CHUNK];
};

struct v8_heap *v8_heap__new(struct memsource *mem, const struct v8_layout *l)
{
	struct v8_heap *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->mem = mem;
	h->l = *l;
	h->maps = u64map__new(64);
	if (!h->maps) {
		free(h);
		return NULL;
	}
	return h;
}

void v8_heap__delete(struct v8_heap *h)
{
	if (!h)
		return;
	u64map__delete(h->maps);
	free(h);
}

void v8_heap__forget(struct v8_heap *h)
{
	u64map__clear(h->maps);
}

const struct v8_layout *v8_heap__layout(const struct v8_heap *h)
{
	return &h->l;
}

struct memsource *v8_heap__mem(struct v8_heap *h)
{
	return h->mem;
}

bool v8_heap__pointer(uint64_t w, uint64_t *addr)
{
	/* user space, 8-aligned once untagged */
	if ((w & 7) != 1 || w < 4096 || w >= (1ull << 47))
		return false;
	*addr = w - 1;
	return true;
}

bool v8_heap__smi(uint64_t w, int64_t *v)
{
	if (w & 0xffffffffull)
		return false;
	*v = (int64_t)(int32_t)(w >> 32);
	return true;
}

int v8_heap__map_type(struct v8_heap *h, uint64_t map, uint16_t *type)
{
	uint64_t addr, v, meta;
	uint16_t t;
	int err;

	if (u64map__get(h->maps, map, &v)) {
		*type = (uint16_t)(v - 1);
		return 0;
	}
	if (!v8_heap__pointer(map, &addr))
		return -EPROTO;
	/* a map's own map is the meta map, whose map is itself: what makes
	 * a word a map and not any object */
	err = memsource__u64(h->mem, addr, &meta);
	if (!err)
		err = memsource__u16(h->mem, addr + h->l.map_instance_type, &t);
	if (err)
		return err;
	if (!h->map_type) {
		uint64_t maddr, mm;
		uint16_t mt;

		if (!v8_heap__pointer(meta, &maddr) || memsource__u64(h->mem, maddr, &mm) != 0 ||
		    mm != meta || memsource__u16(h->mem, maddr + h->l.map_instance_type, &mt) != 0 ||
		    !mt)
			return -EPROTO;
		h->map_type = mt;
	} else {
		uint16_t mt;
		uint64_t maddr;

		if (u64map__get(h->maps, meta, &v))
			mt = (uint16_t)(v - 1);
		else if (!v8_heap__pointer(meta, &maddr) ||
			 memsource__u16(h->mem, maddr + h->l.map_instance_type, &mt) != 0)
			return -EPROTO;
		if (mt != h->map_type)
			return -EPROTO;
	}
	if (u64map__count(h->maps) >= V8_HEAP_MAX_MAPS)
		u64map__clear(h->maps);
	(void)u64map__put(h->maps, meta, (uint64_t)h->map_type + 1);
	(void)u64map__put(h->maps, map, (uint64_t)t + 1);
	*type = t;
	return 0;
}

int v8_heap__type(struct v8_heap *h, uint64_t tagged, uint16_t *type)
{
	uint64_t addr, map;
	int err;

	if (!v8_heap__pointer(tagged, &addr))
		return -EPROTO;
	err = memsource__u64(h->mem, addr, &map);
	return err ? err : v8_heap__map_type(h, map, type);
}

/* A string's representation, length and characters' address, following
 * thin and sliced strings (cons strings are the caller's). */
struct str {
	uint64_t addr;      /* untagged */
	uint16_t type;
	uint32_t length;
	uint32_t offset;    /* into the characters: sliced strings */
};

static int open_str(struct v8_heap *h, uint64_t tagged, struct str *s)
{
	const struct v8_layout *l = &h->l;
	unsigned hops;
	int err;

	s->offset = 0;
	for (hops = 0; hops < V8_HEAP_STRING_DEPTH; hops++) {
		uint64_t next;
		int32_t len;
		int64_t off;
		uint16_t repr;

		err = v8_heap__type(h, tagged, &s->type);
		if (err)
			return err;
		if (s->type >= l->t_first_nonstring)
			return -EPROTO;
		s->addr = tagged - 1;
		repr = s->type & l->str_repr_mask;
		if (repr == l->str_thin) {
			err = memsource__u64(h->mem, s->addr + l->thin_actual, &tagged);
			if (err)
				return err;
			continue;
		}
		if (memsource__read(h->mem, s->addr + l->str_length, &len, sizeof(len)) != 0 || len < 0)
			return -EPROTO;
		s->length = (uint32_t)len;
		/* an external string is a string: its characters are
		 * elsewhere, which no reader follows */
		if (repr != l->str_sliced)
			return repr == l->str_seq || repr == l->str_cons ? 0 : -EOPNOTSUPP;
		if (memsource__u64(h->mem, s->addr + l->sliced_parent, &next) != 0 ||
		    memsource__u64(h->mem, s->addr + l->sliced_offset, (uint64_t *)&off) != 0 ||
		    !v8_heap__smi((uint64_t)off, &off) || off < 0 || (uint64_t)off + s->offset > UINT32_MAX)
			return -EPROTO;
		s->offset += (uint32_t)off;
		tagged = next;
	}
	return -EPROTO;
}

struct chars_walk {
	struct v8_heap *h;
	size_t left;   /* characters still to read before max */
	v8_heap_chars_fn fn;
	void *arg;
};

/* The characters [from, from + n) of the string tagged, in pieces. */
static int walk(struct chars_walk *w, uint64_t tagged, uint32_t from, uint32_t n, unsigned depth)
{
	const struct v8_layout *l = &w->h->l;
	struct str s;
	int err;

	if (depth >= V8_HEAP_STRING_DEPTH)
		return -EPROTO;
	err = open_str(w->h, tagged, &s);
	if (err)
		return err;
	/* s is what a sliced string points into, from its offset on */
	from += s.offset;
	if ((uint64_t)from + n > s.length)
		return -EPROTO;
	if ((s.type & l->str_repr_mask) == l->str_cons) {
		uint64_t first, second;
		int32_t flen;
		uint32_t a;

		if (memsource__u64(w->h->mem, s.addr + l->cons_first, &first) != 0 ||
		    memsource__u64(w->h->mem, s.addr + l->cons_second, &second) != 0 ||
		    memsource__read(w->h->mem, first - 1 + l->str_length, &flen, sizeof(flen)) != 0 ||
		    flen < 0 || (uint32_t)flen > s.length)
			return -EPROTO;
		a = from < (uint32_t)flen ? (uint32_t)flen - from : 0;
		if (a > n)
			a = n;
		if (a && (err = walk(w, first, from, a, depth + 1)) != 0)
			return err;
		if (n > a)
			return walk(w, second, from + a - (uint32_t)flen, n - a, depth + 1);
		return 0;
	}
	{
		bool two = (s.type & l->str_enc_mask) != l->str_one_byte;
		uint64_t at = s.addr + (two ? l->seq_two_byte_chars : l->seq_one_byte_chars);
		size_t unit = two ? 2 : 1;

		at += (uint64_t)from * unit;
		while (n > 0) {
			size_t take = n, bytes;

			if (take > CHUNK / unit)
				take = CHUNK / unit;
			if (take > w->left) {
				if (!w->left)
					return -E2BIG;
				take = w->left;
			}
			bytes = take * unit;
			err = memsource__read(w->h->mem, at, w->h->chunk, bytes);
			if (err)
				return err;
			err = w->fn(w->arg, w->h->chunk, bytes, two);
			if (err)
				return err;
			w->left -= take;
			at += bytes;
			n -= (uint32_t)take;
		}
	}
	return 0;
}

int v8_heap__chars(struct v8_heap *h, uint64_t tagged, size_t max, v8_heap_chars_fn fn, void *arg)
{
	struct chars_walk w = { h, max, fn, arg };
	struct str s;
	int err = open_str(h, tagged, &s);

	if (err)
		return err;
	if (s.length > max)
		return -E2BIG;
	return walk(&w, tagged, 0, s.length, 0);
}

struct to_buf {
	char *buf;
	size_t size, n;
};

static int append(void *arg, const uint8_t *chars, size_t n, bool two_byte)
{
	struct to_buf *b = arg;
	size_t i, step = two_byte ? 2 : 1;

	for (i = 0; i + step <= n && b->n + 1 < b->size; i += step) {
		unsigned c = two_byte ? (unsigned)chars[i] | (unsigned)chars[i + 1] << 8 : chars[i];

		b->buf[b->n++] = c < 0x80 ? (char)c : '?';
	}
	return 0;
}

ssize_t v8_heap__string(struct v8_heap *h, uint64_t tagged, char *buf, size_t size)
{
	struct to_buf b = { buf, size, 0 };
	struct chars_walk w = { h, 0, append, &b };
	struct str s;
	uint32_t n;
	int err;

	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	err = open_str(h, tagged, &s);
	if (err)
		return err;
	n = s.length < size - 1 ? s.length : (uint32_t)(size - 1);
	w.left = n;
	err = walk(&w, tagged, 0, n, 0);
	buf[b.n] = '\0';
	return err ? err : (ssize_t)b.n;
}
