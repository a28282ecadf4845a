/* Names of JavaScript functions from their SharedFunctionInfo. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/v8_names.h"
#include "runtimes/v8_script.h"

/* Function names are cut here (minified code has none this long). */
#define NAME_MAX_BYTES 256
/* ScopeInfo keeps up to this many context local names inline; more are
 * in a hash table, one slot (V8 9.1+: kScopeInfoMaxInlinedLocalNamesSize). */
#define INLINED_LOCAL_NAMES 75

struct entry {
	uint64_t sfi, name_word, script_word;
	uint32_t id[2];              /* compiled ("_[j]"), inlined ("_[i]"); 0: not yet */
};

struct v8_names {
	struct v8_heap *heap;
	struct v8_scripts *scripts;
	struct strtab *names;
	struct u64map *by_sfi;       /* SharedFunctionInfo -> index + 1 */
	struct entry *list;
	size_t n, cap;
	uint64_t since_ns;           /* when the cache was last emptied */
	struct v8_names_stats stats;
};

struct v8_names *v8_names__new(struct v8_heap *heap, struct strtab *names)
{
	struct v8_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->heap = heap;
	n->names = names;
	n->scripts = v8_scripts__new(heap);
	n->by_sfi = u64map__new(256);
	if (!n->scripts || !n->by_sfi) {
		v8_names__delete(n);
		return NULL;
	}
	return n;
}

void v8_names__delete(struct v8_names *n)
{
	if (!n)
		return;
	v8_scripts__delete(n->scripts);
	u64map__delete(n->by_sfi);
	free(n->list);
	free(n);
}

static void forget(struct v8_names *n, uint64_t now_ns)
{
	n->n = 0;
	u64map__clear(n->by_sfi);
	v8_scripts__forget(n->scripts);
	v8_heap__forget(n->heap);
	n->since_ns = now_ns;
}

/* The name and start position a ScopeInfo holds: past its header and its
 * context locals (names and infos), the first string is the function's
 * name (or the one V8 inferred), and the first pair of increasing small
 * integers after it is where the function starts and ends. */
static int scope_info(struct v8_names *n, uint64_t tagged, char *name, size_t size, int64_t *start)
{
	const struct v8_layout *l = v8_heap__layout(n->heap);
	struct memsource *mem = v8_heap__mem(n->heap);
	uint64_t addr, slots[V8_NAMES_SCOPE_SLOTS], count_word;
	int64_t ncl, prev = -1, v;
	size_t first, i, k;
	bool named = false;

	*start = -1;
	name[0] = '\0';
	if (!v8_heap__pointer(tagged, &addr) ||
	    memsource__u64(mem, addr + l->scope_data + 8u * l->scope_ncontextlocals, &count_word) != 0 ||
	    !v8_heap__smi(count_word, &ncl) || ncl < 0 || ncl > (1 << 20))
		return -EPROTO;
	first = l->scope_first_vars + (size_t)(ncl < INLINED_LOCAL_NAMES ? 2 * ncl : ncl + 1);
	/* the object may end before the slots read: fewer then */
	for (i = V8_NAMES_SCOPE_SLOTS; i >= 4; i /= 2)
		if (memsource__read(mem, addr + l->scope_data + 8 * first, slots, i * 8) == 0)
			break;
	if (i < 4)
		return -EFAULT;
	for (k = 0; k < i; k++) {
		uint16_t t;

		/* the function's own name comes first, maybe empty, then the
		 * one V8 inferred for it (or undefined) */
		if (!name[0] && (slots[k] & 1) && v8_heap__type(n->heap, slots[k], &t) == 0 &&
		    t < l->t_first_nonstring) {
			named |= v8_heap__string(n->heap, slots[k], name, size) >= 0;
			prev = -1;
			continue;
		}
		if (!v8_heap__smi(slots[k], &v)) {
			prev = -1;
			continue;
		}
		if (named && prev >= 0 && prev < v) {
			*start = prev;
			break;
		}
		prev = v;
	}
	return 0;
}

/* The function's name as a frame shows it, with the line of script
 * offset pos, or where the function starts when pos < 0 or is on no line
 * known. Returns 0, V8_NAMES_UNSETTLED when its script's lines are to be
 * read again, or an error. */
static int describe(struct v8_names *n, uint64_t name_word, uint64_t script_word, int64_t pos,
		    uint64_t now_ns, char *buf, size_t size)
{
	const struct v8_layout *l = v8_heap__layout(n->heap);
	char name[NAME_MAX_BYTES], file[V8_SCRIPT_NAME_MAX];
	unsigned line = 0;
	int64_t start = -1;
	bool unsettled;
	uint16_t t;
	int err;

	name[0] = '\0';
	err = v8_heap__type(n->heap, name_word, &t);
	if (err && err != -EPROTO)
		return err;
	if (!err && t < l->t_first_nonstring)
		err = v8_heap__string(n->heap, name_word, name, sizeof(name)) < 0 ? -EPROTO : 0;
	else if (!err && t == l->t_scope_info)
		err = scope_info(n, name_word, name, sizeof(name), &start);
	/* anything else (a Smi: no name) leaves the name empty */
	if (err && err != -EPROTO)
		return err;
	if (!name[0])
		snprintf(name, sizeof(name), "%s", "(anonymous)");
	/* builtins and API functions have no script */
	if ((script_word & 1) && v8_heap__type(n->heap, script_word, &t) == 0 && t == l->t_script) {
		err = v8_scripts__describe(n->scripts, script_word, pos >= 0 ? pos : start, now_ns, file,
					   sizeof(file), &line);
		unsettled = err == V8_SCRIPT_UNSETTLED;
		if ((!err || unsettled) && !line && pos >= 0) {
			err = v8_scripts__describe(n->scripts, script_word, start, now_ns, file, sizeof(file),
						   &line);
			unsettled |= err == V8_SCRIPT_UNSETTLED;
		}
		if (err < 0)
			return err;
		if (line)
			snprintf(buf, size, "%s (%s:%u)", name, file, line);
		else
			snprintf(buf, size, "%s (%s)", name, file);
		return unsettled ? V8_NAMES_UNSETTLED : 0;
	}
	snprintf(buf, size, "%s (native)", name);
	return 0;
}

int v8_names__describe(struct v8_names *n, uint64_t name_word, uint64_t script_word, char *buf,
		       size_t size)
{
	return describe(n, name_word, script_word, -1, 0, buf, size);
}

static struct entry *add(struct v8_names *n, uint64_t sfi)
{
	if (n->n >= V8_NAMES_MAX)
		forget(n, n->since_ns);
	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 256;
		struct entry *nl = realloc(n->list, cap * sizeof(*nl));

		if (!nl)
			return NULL;
		n->list = nl;
		n->cap = cap;
	}
	if (u64map__put(n->by_sfi, sfi, n->n + 1) != 0)
		return NULL;
	memset(&n->list[n->n], 0, sizeof(n->list[0]));
	n->list[n->n].sfi = sfi;
	return &n->list[n->n++];
}

int v8_names__frame(struct v8_names *n, uint64_t sfi, uint64_t name_word, uint64_t script_word,
		    bool inlined, uint64_t now_ns, uint32_t *id)
{
	char full[NAME_MAX_BYTES + V8_SCRIPT_NAME_MAX + 32];
	struct entry *e = NULL;
	int err, unsettled;
	uint64_t v;

	if (!n->since_ns)
		n->since_ns = now_ns ? now_ns : 1;
	else if (now_ns - n->since_ns >= V8_NAMES_LIFETIME_NS)
		forget(n, now_ns);
	if (u64map__get(n->by_sfi, sfi, &v)) {
		e = &n->list[v - 1];
		if (e->name_word != name_word || e->script_word != script_word)
			memset(e->id, 0, sizeof(e->id));
		if (e->id[inlined]) {
			n->stats.cached++;
			*id = e->id[inlined];
			return 0;
		}
	} else if (!(e = add(n, sfi))) {
		return -ENOMEM;
	}
	e->name_word = name_word;
	e->script_word = script_word;
	unsettled = describe(n, name_word, script_word, -1, now_ns, full, sizeof(full));
	if (unsettled < 0)
		return unsettled;
	err = ledger__intern_frame(v8_heap__mem(n->heap)->ledger, n->names, full,
				   inlined ? FRAME_SUFFIX_INLINED : FRAME_SUFFIX_JIT, id);
	if (err)
		return err;
	n->stats.named++;
	/* a name without the line its script will give is not kept */
	if (!unsettled)
		e->id[inlined] = *id;
	return unsettled;
}

int v8_names__frame_at(struct v8_names *n, uint64_t sfi, uint64_t name_word, uint64_t script_word,
		       int64_t pos, bool inlined, uint64_t now_ns, uint32_t *id)
{
	char full[NAME_MAX_BYTES + V8_SCRIPT_NAME_MAX + 32];
	int err, unsettled;

	if (pos < 0)
		return v8_names__frame(n, sfi, name_word, script_word, inlined, now_ns, id);
	unsettled = describe(n, name_word, script_word, pos, now_ns, full, sizeof(full));
	if (unsettled < 0)
		return unsettled;
	err = ledger__intern_frame(v8_heap__mem(n->heap)->ledger, n->names, full,
				   inlined ? FRAME_SUFFIX_INLINED : FRAME_SUFFIX_JIT, id);
	if (err)
		return err;
	n->stats.named++;
	return unsettled;
}

int v8_names__remap(struct v8_names *n, struct strtab_remap *r)
{
	size_t i, k;

	if (r->commit)
		n->names = r->to;
	for (i = 0; i < n->n; i++)
		for (k = 0; k < 2; k++)
			if (n->list[i].id[k] && strtab_remap__id(r, &n->list[i].id[k]))
				return -ENOMEM;
	return 0;
}

void v8_names__stats(const struct v8_names *n, struct v8_names_stats *out)
{
	*out = n->stats;
}
