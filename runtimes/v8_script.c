/* V8 Scripts: the file name a frame shows and the line of a position. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "runtimes/v8_script.h"

struct script {
	uint64_t name_word, source_word; /* what identifies it when checked */
	char name[V8_SCRIPT_NAME_MAX];
	uint32_t *ends;                  /* line ends, NULL: no lines */
	uint32_t nends;
	uint64_t retry_ns;               /* without ends: when to read again, 0 never */
	unsigned failed;                 /* reads of its lines that failed */
};

struct v8_scripts {
	struct v8_heap *heap;
	struct u64map *by_addr;          /* Script tagged pointer -> index + 1 */
	struct script *list;
	size_t n, cap, lines;
};

struct v8_scripts *v8_scripts__new(struct v8_heap *heap)
{
	struct v8_scripts *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->heap = heap;
	s->by_addr = u64map__new(64);
	if (!s->by_addr) {
		free(s);
		return NULL;
	}
	return s;
}

void v8_scripts__forget(struct v8_scripts *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->list[i].ends);
	s->n = 0;
	s->lines = 0;
	u64map__clear(s->by_addr);
}

void v8_scripts__delete(struct v8_scripts *s)
{
	if (!s)
		return;
	v8_scripts__forget(s);
	free(s->list);
	u64map__delete(s->by_addr);
	free(s);
}

void v8_scripts__short_name(const char *name, const char **start, size_t *len)
{
	const char *p = name, *q, *slash;

	if (strncmp(p, "file://", 7) == 0)
		p += 7;
	if (strncmp(p, "node:", 5) == 0 || !*p) {
		*start = p;
		*len = strlen(p);
		return;
	}
	/* the package and its path: what tells two index.js apart */
	for (q = p; (q = strstr(q, "node_modules/")) != NULL; q += 13)
		p = q + 13;
	if (p == name || strncmp(name, "file://", 7) == 0 || !strstr(name, "node_modules/")) {
		slash = strrchr(p, '/');
		if (slash && slash[1])
			p = slash + 1;
	}
	*start = p;
	*len = strlen(p);
}

unsigned v8_scripts__line(const uint32_t *ends, size_t n, int64_t pos)
{
	size_t lo = 0, hi = n;

	if (pos < 0 || !n || pos > (int64_t)ends[n - 1])
		return 0;
	/* the first line ending at or after pos */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((int64_t)ends[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? (unsigned)(lo + 1) : 0;
}

/* Line ends collected from a source's characters. */
struct collect {
	uint32_t *ends;
	size_t n, cap, max;
	uint32_t at;       /* characters seen */
};

static int push_end(struct collect *c, uint32_t pos)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		uint32_t *e;

		if (c->n >= c->max)
			return -E2BIG;
		if (cap > c->max)
			cap = c->max;
		e = realloc(c->ends, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		c->ends = e;
		c->cap = cap;
	}
	c->ends[c->n++] = pos;
	return 0;
}

static int scan(void *arg, const uint8_t *chars, size_t n, bool two_byte)
{
	struct collect *c = arg;
	size_t i, step = two_byte ? 2 : 1;
	int err;

	for (i = 0; i + step <= n; i += step, c->at++) {
		unsigned ch = two_byte ? (unsigned)chars[i] | (unsigned)chars[i + 1] << 8 : chars[i];

		/* V8 ends lines at \n, and at \r not followed by \n: a \r\n
		 * ends at its \n, which is one past the \r */
		if (ch == '\n' && (err = push_end(c, c->at)) != 0)
			return err;
	}
	return 0;
}

/* The Script's own line ends (a FixedArray of small integers), if V8 made
 * them, else computed from its source. Returns 0 when that is settled
 * (lines read, or a source no reader reads: external, too long), else the
 * failed read's error. */
static int read_lines(struct v8_scripts *s, uint64_t addr, uint64_t source, struct script *sc)
{
	const struct v8_layout *l = v8_heap__layout(s->heap);
	struct memsource *mem = v8_heap__mem(s->heap);
	struct collect c;
	uint64_t arr, a, len_word;
	int64_t len;
	uint16_t t;
	size_t i;
	int err;

	memset(&c, 0, sizeof(c));
	c.max = V8_SCRIPT_MAX_LINES - s->lines;
	if (memsource__u64(mem, addr + l->script_line_ends, &arr) == 0 &&
	    v8_heap__type(s->heap, arr, &t) == 0 && t == l->t_fixed_array && v8_heap__pointer(arr, &a) &&
	    memsource__u64(mem, a + l->array_length, &len_word) == 0 && v8_heap__smi(len_word, &len) &&
	    len > 0 && (size_t)len <= c.max) {
		uint64_t *w = malloc((size_t)len * sizeof(*w));

		c.ends = malloc((size_t)len * sizeof(*c.ends));
		if (w && c.ends && memsource__read(mem, a + l->array_data, w, (size_t)len * 8) == 0) {
			for (i = 0; i < (size_t)len; i++) {
				int64_t v;

				if (!v8_heap__smi(w[i], &v) || v < 0 || (i && v < c.ends[i - 1]))
					break;
				c.ends[i] = (uint32_t)v;
			}
			c.n = i == (size_t)len ? i : 0;
		}
		free(w);
		if (c.n) {
			sc->ends = c.ends;
			sc->nends = (uint32_t)c.n;
			s->lines += c.n;
			return 0;
		}
		free(c.ends);
		memset(&c, 0, sizeof(c));
		c.max = V8_SCRIPT_MAX_LINES - s->lines;
	}
	err = v8_heap__chars(s->heap, source, V8_SCRIPT_MAX_SOURCE, scan, &c);
	if (!err)
		err = push_end(&c, c.at);
	if (!err) {
		sc->ends = c.ends;
		sc->nends = (uint32_t)c.n;
		s->lines += c.n;
		return 0;
	}
	free(c.ends);
	return err == -EOPNOTSUPP || err == -E2BIG ? 0 : err;
}

/* Reads sc's lines and, when a read failed (the source read as the GC
 * moved it: its map word was no map), sets when to try again:
 * V8_SCRIPT_RETRY_NS later, doubling, V8_SCRIPT_RETRIES times at most.
 * Seen on node 20 under load: a script's first read failed, and with it
 * kept, every frame of the script named in that run had no line. */
static void load_lines(struct v8_scripts *s, uint64_t addr, uint64_t source, struct script *sc,
		       uint64_t now_ns)
{
	sc->retry_ns = 0;
	if (read_lines(s, addr, source, sc) == 0 || ++sc->failed > V8_SCRIPT_RETRIES)
		return;
	sc->retry_ns = now_ns + (V8_SCRIPT_RETRY_NS << (sc->failed - 1));
	if (!sc->retry_ns)
		sc->retry_ns = 1;
}

static struct script *add(struct v8_scripts *s, uint64_t tagged)
{
	if (s->n >= V8_SCRIPT_MAX || s->lines >= V8_SCRIPT_MAX_LINES)
		v8_scripts__forget(s);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct script *nl = realloc(s->list, cap * sizeof(*nl));

		if (!nl)
			return NULL;
		s->list = nl;
		s->cap = cap;
	}
	if (u64map__put(s->by_addr, tagged, s->n + 1) != 0)
		return NULL;
	memset(&s->list[s->n], 0, sizeof(s->list[0]));
	return &s->list[s->n++];
}

int v8_scripts__describe(struct v8_scripts *s, uint64_t tagged, int64_t pos, uint64_t now_ns, char *name,
			 size_t size, unsigned *line)
{
	const struct v8_layout *l = v8_heap__layout(s->heap);
	struct memsource *mem = v8_heap__mem(s->heap);
	char full[V8_SCRIPT_NAME_MAX];
	uint64_t addr, words[2], v;
	struct script *sc = NULL;
	const char *start;
	size_t len;
	uint16_t t;
	int err;

	if (!size)
		return -EINVAL;
	err = v8_heap__type(s->heap, tagged, &t);
	if (err)
		return err;
	if (t != l->t_script || !v8_heap__pointer(tagged, &addr))
		return -EPROTO;
	if (memsource__u64(mem, addr + l->script_name, &words[0]) != 0 ||
	    memsource__u64(mem, addr + l->script_source, &words[1]) != 0)
		return -EFAULT;
	if (u64map__get(s->by_addr, tagged, &v)) {
		sc = &s->list[v - 1];
		/* another script at the address since: read anew */
		if (sc->name_word != words[0] || sc->source_word != words[1]) {
			free(sc->ends);
			s->lines -= sc->nends;
			memset(sc, 0, sizeof(*sc));
		} else {
			goto found;
		}
	} else if (!(sc = add(s, tagged))) {
		return -ENOMEM;
	}
	sc->name_word = words[0];
	sc->source_word = words[1];
	/* scripts without a name: eval'd code, new Function() */
	if (v8_heap__string(s->heap, words[0], full, sizeof(full)) < 0 || !full[0])
		snprintf(full, sizeof(full), "%s", "<anonymous>");
	v8_scripts__short_name(full, &start, &len);
	if (len >= sizeof(sc->name))
		len = sizeof(sc->name) - 1;
	memcpy(sc->name, start, len);
	sc->name[len] = '\0';
	load_lines(s, addr, words[1], sc, now_ns);
found:
	/* a retry is due later than the read just made */
	if (sc->retry_ns && now_ns >= sc->retry_ns)
		load_lines(s, addr, words[1], sc, now_ns);
	snprintf(name, size, "%s", sc->name);
	*line = sc->ends ? v8_scripts__line(sc->ends, sc->nends, pos) : 0;
	return sc->retry_ns && pos >= 0 ? V8_SCRIPT_UNSETTLED : 0;
}
