/* CRuby's control frames named: instruction sequences and method entries
 * read, validated at every use, and named "Class#method (file.rb)".
 *
 * Each sample reads, for all its frames at once, the heads of the objects
 * that say what the frames run (the candidates for their method entries,
 * their instruction sequences, then the bodies of those); an address seen
 * before whose words are unchanged keeps its name, one whose words changed
 * (freed and reused) is read and named again. Strings, class names, method
 * names and line tables are read once per object. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/ruby_lines.h"
#include "runtimes/ruby_state.h"

/* Bounds on what hostile memory can make the caches hold. */
#define MAX_ISEQS 16384
#define MAX_MES 16384
#define NAME_KEYS_MAX 65536
#define STR_MAX RUBY_STR_MAX
/* A line table longer than this is not read; all of them together stay
 * under the total (named without lines past it, until the cache empties). */
#define LINETABLE_MAX (256u << 10)
#define LINETABLES_TOTAL (16u << 20)
#define LINE_ENTRIES_MAX 65536u
/* An instruction sequence longer than this is no method's. */
#define ISEQ_WORDS_MAX (16u << 20)

/* An instruction sequence as read: the words that identify it, and the
 * texts of its name. */
struct iseq_entry {
	uint64_t addr, body;
	uint64_t label, base, path, first_lineno, encoded;
	uint64_t local; /* local_iseq: the method's own sequence (itself for one) */
	uint32_t size;
	char *label_s, *base_s, *file_s;
	/* its line table, read at the first frame named with a line */
	uint64_t lines_at, positions_at, succ_at, nlines;
	bool lines_read;
	uint8_t *entries, *index;
	size_t index_len;
	uint8_t index_kind; /* 0: none needed or none read, 1: positions, 2: succinct */
	size_t line_bytes;
};

/* A method entry as read. */
struct me_entry {
	uint64_t addr;
	uint64_t def, called_id, owner, defined_class; /* what identifies it */
	bool cfunc;
	uint64_t func;  /* the C function of a C method */
	uint64_t iseq;  /* the sequence a Ruby method (or define_method's block) runs */
	char *qual;     /* "Class#" or "Class.", NULL when the class is not known */
	char *method;   /* a C method's name, NULL when not known */
};

struct ruby_names {
	bool lines;
	struct u64map *iseq_index, *me_index; /* address -> index + 1 */
	struct iseq_entry *iseqs;
	struct me_entry *mes;
	size_t niseqs, nmes;
	size_t iseqs_cap, mes_cap;    /* grown up to MAX_ISEQS, MAX_MES */
	size_t line_bytes;
	struct u64map *name_by_key;   /* iseq + 1 | me + 1 << 16 | line << 32 -> id */
	struct ruby_frame_read read[RUBY_WALK_FRAMES]; /* a sample's */
};

/* Doubles an array of entries (they move: no pointer into it is kept
 * across a call that may add one), up to max. */
static int grow(void **array, size_t *cap, size_t elem, size_t max)
{
	size_t to = *cap ? 2 * *cap : 64;
	void *a;

	if (to > max)
		to = max;
	if (to <= *cap || !(a = realloc(*array, to * elem)))
		return -ENOMEM;
	*array = a;
	*cap = to;
	return 0;
}

static void free_iseq(struct ruby_names *n, struct iseq_entry *e)
{
	free(e->label_s);
	free(e->base_s);
	free(e->file_s);
	free(e->entries);
	free(e->index);
	n->line_bytes -= e->line_bytes;
	memset(e, 0, sizeof(*e));
}

static void free_me(struct me_entry *e)
{
	free(e->qual);
	free(e->method);
	memset(e, 0, sizeof(*e));
}

static void clear_iseqs(struct ruby_names *n)
{
	size_t i;

	for (i = 0; i < n->niseqs; i++)
		free_iseq(n, &n->iseqs[i]);
	n->niseqs = 0;
	u64map__clear(n->iseq_index);
	u64map__clear(n->name_by_key);
}

static void clear_mes(struct ruby_names *n)
{
	size_t i;

	for (i = 0; i < n->nmes; i++)
		free_me(&n->mes[i]);
	n->nmes = 0;
	u64map__clear(n->me_index);
	u64map__clear(n->name_by_key);
}

struct ruby_names *ruby_names__new(bool lines)
{
	struct ruby_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->lines = lines;
	n->iseq_index = u64map__new(256);
	n->me_index = u64map__new(256);
	n->name_by_key = u64map__new(256);

	if (!n->iseq_index || !n->me_index || !n->name_by_key) {
		ruby_names__delete(n);
		return NULL;
	}
	return n;
}

void ruby_names__delete(struct ruby_names *n)
{
	if (!n)
		return;
	clear_iseqs(n);
	clear_mes(n);
	u64map__delete(n->iseq_index);
	u64map__delete(n->me_index);
	u64map__delete(n->name_by_key);

	free(n->iseqs);
	free(n->mes);
	free(n);
}

/* --- method entries ---------------------------------------------------- */

/* The sequence of the block a Proc object was made from (2.5+: a typed
 * data object whose rb_proc_t starts with the block's captured {self,
 * code.iseq, ep}); 0 when it is not one. */
static uint64_t proc_iseq(struct ruby *r, uint64_t proc)
{
	uint8_t obj[RUBY_TYPED_DATA_PTR + 8], block[16];
	uint64_t data;

	if (!ruby_state__plausible(proc) || memsource__read(&r->mem, proc, obj, sizeof(obj)) != 0 ||
	    (ruby_state__u64_at(obj, 0) & RUBY_T_MASK) != RUBY_T_DATA)
		return 0;
	data = ruby_state__u64_at(obj, RUBY_TYPED_DATA_PTR);
	if (!ruby_state__plausible(data) || memsource__read(&r->mem, data, block, sizeof(block)) != 0)
		return 0;
	return ruby_state__u64_at(block, 8);
}

/* Reads and names a method entry new to the cache from its head. */
static int new_me(struct ruby *r, uint64_t addr, const uint8_t *head, struct me_entry *e)
{
	const struct ruby_layout *l = &r->l;
	uint8_t def[48];
	const char *method;
	uint32_t type;

	memset(e, 0, sizeof(*e));
	e->addr = addr;
	e->def = ruby_state__u64_at(head, l->me_def);
	e->called_id = ruby_state__u64_at(head, l->me_called_id);
	e->owner = ruby_state__u64_at(head, l->me_owner);
	e->defined_class = l->cfp_flag < 0 ? ruby_state__u64_at(head, 8) : 0;
	if (!ruby_state__plausible(e->def) || memsource__read(&r->mem, e->def, def, sizeof(def)) != 0)
		return -EFAULT;
	/* rb_method_definition_t: type in the low 4 bits of a bitfield (2.4+),
	 * an enum of its own (2.0) */
	type = l->def_type_bits ? ruby_state__u32_at(def, 0) & 0xf : ruby_state__u32_at(def, 0);
	e->cfunc = type == RUBY_METHOD_CFUNC;
	if (type == RUBY_METHOD_ISEQ)
		e->iseq = ruby_state__u64_at(def, l->def_body);
	else if (type == RUBY_METHOD_BMETHOD && l->flag_local)
		e->iseq = proc_iseq(r, ruby_state__u64_at(def, l->def_body));
	if (e->cfunc) {
		e->func = ruby_state__u64_at(def, l->def_body);
		method = ruby_objects__id_name(r, ruby_state__u64_at(def, l->def_original_id));
		if (!method)
			method = ruby_objects__id_name(r, e->called_id);
		e->method = method ? ruby_objects__dup(method) : NULL;
	}
	e->qual = ruby_objects__qualifier(r, e->owner);
	return 0;
}

/* The cache's entry for the method entry at addr whose head was read:
 * validated (the words that identify it unchanged), else read anew. */
static struct me_entry *method_entry(struct ruby *r, uint64_t addr, const uint8_t *head)
{
	const struct ruby_layout *l = &r->l;
	struct ruby_names *n = r->codes;
	struct me_entry *e, fresh;
	uint64_t idx;

	if (u64map__get(n->me_index, addr, &idx) && idx - 1 < n->nmes) {
		e = &n->mes[idx - 1];
		if (e->def == ruby_state__u64_at(head, l->me_def) &&
		    e->called_id == ruby_state__u64_at(head, l->me_called_id) &&
		    e->owner == ruby_state__u64_at(head, l->me_owner) &&
		    (l->cfp_flag >= 0 || e->defined_class == ruby_state__u64_at(head, 8)))
			return e;
		/* freed and reused: named again (names are by index) */
		if (new_me(r, addr, head, &fresh) != 0)
			return NULL;
		free_me(e);
		*e = fresh;
		u64map__clear(n->name_by_key);
		return e;
	}
	if (new_me(r, addr, head, &fresh) != 0)
		return NULL;
	if (n->nmes == MAX_MES)
		clear_mes(n);
	if ((n->nmes == n->mes_cap && grow((void **)&n->mes, &n->mes_cap, sizeof(*n->mes), MAX_MES) != 0) ||
	    u64map__put(n->me_index, addr, n->nmes + 1) != 0) {
		free_me(&fresh);
		return NULL;
	}
	n->mes[n->nmes] = fresh;
	return &n->mes[n->nmes++];
}

/* --- instruction sequences --------------------------------------------- */

static uint64_t word_at(const uint8_t *b, uint32_t off, uint8_t bytes)
{
	return bytes == 4 ? ruby_state__u32_at(b, off) : ruby_state__u64_at(b, off);
}

/* Whether an instruction sequence's identifying words in body head b are
 * those e recorded. */
static bool same_iseq(const struct ruby *r, const struct iseq_entry *e, uint64_t body, const uint8_t *b)
{
	const struct ruby_layout *l = &r->l;

	return e->body == body && e->label == ruby_state__u64_at(b, l->body_label) &&
	       e->base == ruby_state__u64_at(b, l->body_base_label) &&
	       e->path == ruby_state__u64_at(b, l->body_path) &&
	       e->first_lineno == word_at(b, l->body_first_lineno, l->first_lineno_bytes) &&
	       e->encoded == ruby_state__u64_at(b, l->body_encoded) &&
	       e->local == ruby_state__u64_at(b, l->body_local_iseq) &&
	       e->size == (uint32_t)word_at(b, l->body_size, l->body_size_bytes);
}

static int new_iseq(struct ruby *r, uint64_t addr, uint64_t body, const uint8_t *b, struct iseq_entry *e)
{
	const struct ruby_layout *l = &r->l;
	char label[STR_MAX + 1], base[STR_MAX + 1], path[STR_MAX + 1];
	uint64_t size = word_at(b, l->body_size, l->body_size_bytes);

	memset(e, 0, sizeof(*e));
	if (size == 0 || size > ISEQ_WORDS_MAX || !ruby_state__plausible(ruby_state__u64_at(b, l->body_encoded)))
		return -EPROTO;
	e->addr = addr;
	e->body = body;
	e->label = ruby_state__u64_at(b, l->body_label);
	e->base = ruby_state__u64_at(b, l->body_base_label);
	e->path = ruby_state__u64_at(b, l->body_path);
	e->first_lineno = word_at(b, l->body_first_lineno, l->first_lineno_bytes);
	e->encoded = ruby_state__u64_at(b, l->body_encoded);
	e->local = ruby_state__u64_at(b, l->body_local_iseq);
	e->size = (uint32_t)size;
	e->lines_at = ruby_state__u64_at(b, l->lines_entries);
	e->nlines = word_at(b, l->lines_count, l->lines_count_bytes);
	e->positions_at = l->lines == RUBY_LINES_SUCCINCT ? ruby_state__u64_at(b, l->lines_positions) : 0;
	e->succ_at = l->lines == RUBY_LINES_SUCCINCT ? ruby_state__u64_at(b, l->lines_succ) : 0;
	if (ruby_objects__string(r, e->label, label, sizeof(label)) < 0)
		return -EPROTO;
	if (ruby_objects__string(r, e->base, base, sizeof(base)) < 0)
		base[0] = '\0';
	if (ruby_objects__path(r, e->path, path, sizeof(path)) < 0)
		return -EPROTO;
	e->label_s = ruby_objects__dup(label);
	e->base_s = ruby_objects__dup(base);
	e->file_s = ruby_objects__dup(ruby_objects__short_path(path));
	if (!e->label_s || !e->base_s || !e->file_s) {
		free(e->label_s);
		free(e->base_s);
		free(e->file_s);
		return -ENOMEM;
	}
	return 0;
}

static struct iseq_entry *iseq_entry(struct ruby *r, uint64_t addr, uint64_t body, const uint8_t *b)
{
	struct ruby_names *n = r->codes;
	struct iseq_entry *e, fresh;
	uint64_t idx;

	if (u64map__get(n->iseq_index, addr, &idx) && idx - 1 < n->niseqs) {
		e = &n->iseqs[idx - 1];
		if (same_iseq(r, e, body, b))
			return e;
		if (new_iseq(r, addr, body, b, &fresh) != 0)
			return NULL;
		free_iseq(n, e);
		*e = fresh;
		u64map__clear(n->name_by_key);
		return e;
	}
	if (new_iseq(r, addr, body, b, &fresh) != 0)
		return NULL;
	if (n->niseqs == MAX_ISEQS)
		clear_iseqs(n);
	if ((n->niseqs == n->iseqs_cap &&
	     grow((void **)&n->iseqs, &n->iseqs_cap, sizeof(*n->iseqs), MAX_ISEQS) != 0) ||
	    u64map__put(n->iseq_index, addr, n->niseqs + 1) != 0) {
		free(fresh.label_s);
		free(fresh.base_s);
		free(fresh.file_s);
		return NULL;
	}
	n->iseqs[n->niseqs] = fresh;
	return &n->iseqs[n->niseqs++];
}

/* --- lines ------------------------------------------------------------- */

static uint8_t *read_block(struct ruby *r, uint64_t at, size_t len)
{
	uint8_t *b;

	if (!len || len > LINETABLE_MAX || !ruby_state__plausible(at & ~7ull) || !(b = malloc(len)))
		return NULL;
	if (memsource__read(&r->mem, at, b, len) != 0) {
		free(b);
		return NULL;
	}
	return b;
}

/* Reads e's line table and what indexes it (once). */
static void read_lines(struct ruby *r, struct iseq_entry *e)
{
	const struct ruby_layout *l = &r->l;
	struct ruby_names *n = r->codes;
	size_t bytes = (size_t)e->nlines * l->entry_size, index_len = 0;

	e->lines_read = true;
	if (!e->nlines || e->nlines > LINE_ENTRIES_MAX)
		return;
	if (l->lines == RUBY_LINES_SUCCINCT && e->nlines > 1)
		index_len = e->positions_at ? (size_t)e->nlines * 4 : ruby_lines__succinct_bytes(e->size);
	if (n->line_bytes + bytes + index_len > LINETABLES_TOTAL)
		return;
	e->entries = read_block(r, e->lines_at, bytes);
	if (!e->entries)
		return;
	if (index_len) {
		e->index = read_block(r, e->positions_at ? e->positions_at : e->succ_at, index_len);
		if (!e->index) {
			free(e->entries);
			e->entries = NULL;
			return;
		}
		e->index_len = index_len;
		e->index_kind = e->positions_at ? 1 : 2;
	}
	e->line_bytes = bytes + index_len;
	n->line_bytes += e->line_bytes;
}

/* The line e runs at pc (the frame's pc: the instruction after the one
 * running, as CRuby's calc_pos takes it), -1 when unknown. */
static int line_of(struct ruby *r, struct iseq_entry *e, uint64_t pc)
{
	const struct ruby_layout *l = &r->l;
	uint64_t pos;
	long k;
	int32_t line;

	if (!e->lines_read)
		read_lines(r, e);
	if (!e->entries || pc < e->encoded || pc > e->encoded + 8ull * e->size)
		return -1;
	pos = (pc - e->encoded) / 8;
	if (pos)
		pos--;
	if (l->lines == RUBY_LINES_POSITIONED)
		k = ruby_lines__by_position(e->entries, (uint32_t)e->nlines, l->entry_size, l->entry_position,
					    (uint32_t)pos);
	else if (e->nlines == 1)
		k = 0;
	else if (e->index_kind == 1)
		k = ruby_lines__in_positions(e->index, (uint32_t)e->nlines, (uint32_t)pos);
	else if (e->index_kind == 2)
		k = ruby_lines__succinct(e->index, e->index_len, (uint32_t)pos);
	else
		k = -1;
	if (k < 0 || (uint64_t)k >= e->nlines)
		return -1;
	memcpy(&line, e->entries + (size_t)k * l->entry_size + l->entry_line, sizeof(line));
	return line;
}

/* --- names ------------------------------------------------------------- */

/* "block in Class#method" from label "block in method", base label
 * "method" and qualifier "Class#"; the label as it is when there is no
 * method to qualify ("<main>", "<class:Foo>", "block in <main>"). */
static void qualified(char *out, size_t size, const char *label, const char *base, const char *qual)
{
	size_t ll = strlen(label), lb = strlen(base);

	if (!qual || !lb || base[0] == '<' || ll < lb || strcmp(label + ll - lb, base) != 0) {
		snprintf(out, size, "%s", label);
		return;
	}
	snprintf(out, size, "%.*s%s%s", (int)(ll - lb), label, qual, base);
}

static int intern(struct ruby *r, const char *text, uint32_t *id)
{
	return ledger__intern_frame(r->mem.ledger, r->names, text, FRAME_SUFFIX_RUBY, id);
}

/* The name of a frame running iseq e (method entry me, may be NULL) at pc,
 * or of C method me when e is NULL; 0 when it has none. Cached by what
 * makes it. */
static uint32_t frame_name(struct ruby *r, struct iseq_entry *e, struct me_entry *me, uint64_t pc)
{
	struct ruby_names *n = r->codes;
	char text[4 * STR_MAX + 64], q[2 * STR_MAX + 8];
	uint64_t key, v;
	uint32_t id;
	int line = -1;

	if (!e && (!me || !me->method))
		return 0;
	if (e && r->lines) {
		line = line_of(r, e, pc);
		if (line <= 0 || line >= (1 << 24))
			line = 0;
	}
	key = (e ? (uint64_t)(e - n->iseqs) + 1 : 0) | (me ? ((uint64_t)(me - n->mes) + 1) << 16 : 0) |
	      ((uint64_t)(line > 0 ? line : 0) << 32);
	if (u64map__get(n->name_by_key, key, &v))
		return (uint32_t)v;
	if (e) {
		qualified(q, sizeof(q), e->label_s, e->base_s, me ? me->qual : NULL);
		if (line > 0)
			snprintf(text, sizeof(text), "%s (%s:%d)", q, e->file_s, line);
		else
			snprintf(text, sizeof(text), "%s (%s)", q, e->file_s);
	} else {
		snprintf(text, sizeof(text), "%s%s", me->qual ? me->qual : "", me->method);
	}
	if (intern(r, text, &id) != 0)
		return 0;
	if (u64map__count(n->name_by_key) >= NAME_KEYS_MAX)
		u64map__clear(n->name_by_key);
	(void)u64map__put(n->name_by_key, key, id);
	return id;
}

/* --- a sample's frames ------------------------------------------------- */

/* Whether method entry me is that of the frame running e. From 2.4 a
 * frame's method entry is in its environment, read after the frames: a
 * call that returned in between leaves its place to the next call at that
 * depth, whose entry the read finds. A method's entry runs the sequence
 * the frame's code belongs to: the frame's own, or the method a block,
 * rescue or eval is in; define_method's block is its entry's own. A block
 * inside define_method's block is not told apart: its class is not shown. */
static bool runs(const struct ruby *r, const struct iseq_entry *e, const struct me_entry *me)
{
	if (!r->l.flag_local)
		return true; /* 2.0: the frame holds its entry, read with it */
	return me->iseq && (me->iseq == e->local || me->iseq == e->addr);
}

uint64_t ruby_names__known_body(struct ruby *r, uint64_t iseq)
{
	struct ruby_names *n = r->codes;
	uint64_t idx;

	return u64map__get(n->iseq_index, iseq, &idx) && idx - 1 < n->niseqs ? n->iseqs[idx - 1].body : 0;
}

int ruby_names__name(struct ruby *r, struct ruby_raw_frame *raw, size_t nf, struct ruby_stack *out)
{
	struct ruby_names *n = r->codes;
	size_t i;

	out->n = 0;
	if (r->l.body_head > RUBY_BODY_HEAD_MAX || nf > RUBY_WALK_FRAMES)
		return -EPROTO;
	ruby_batch__read(r, raw, nf, n->read);
	for (i = 0; i < nf && out->n < RUBY_MAX_FRAMES; i++) {
		const struct ruby_raw_frame *f = &raw[i];
		const struct ruby_frame_read *rd = &n->read[i];
		struct ruby_frame *o = &out->f[out->n];
		struct me_entry *me = NULL;
		struct iseq_entry *e = NULL;

		memset(o, 0, sizeof(*o));
		o->addr = f->addr;
		o->entry_end = f->kind != RUBY_FRAME_SKIP && (f->flags & r->l.flag_finish) != 0;
		if (rd->me)
			me = method_entry(r, rd->me, rd->me_head);
		if (f->kind == RUBY_FRAME_ISEQ && rd->body &&
		    (e = iseq_entry(r, f->iseq, rd->body, rd->body_head)) != NULL) {
			if (me && !runs(r, e, me))
				me = NULL;
			o->code = e->encoded;
			o->code_end = e->encoded + 8ull * e->size;
			o->name = frame_name(r, e, me, f->pc);
		} else if (f->kind == RUBY_FRAME_CFUNC && me && me->cfunc) {
			o->cfunc = me->func;
			o->name = frame_name(r, NULL, me, f->pc);
		}
		if (o->name) {
			out->n++;
		} else if (o->entry_end && out->n) {
			/* a frame left out still ends its native call */
			out->f[out->n - 1].entry_end = true;
		}
	}
	if (out->n)
		out->f[out->n - 1].entry_end = true;
	return 0;
}

int ruby_names__remap(struct ruby *r, struct strtab_remap *rm)
{
	struct ruby_names *n = r->codes;
	size_t pos = 0;
	uint64_t key, v;

	while (u64map__next(n->name_by_key, &pos, &key, &v)) {
		uint32_t id = (uint32_t)v;

		if (strtab_remap__id(rm, &id))
			return -ENOMEM;
		if (rm->commit && u64map__put(n->name_by_key, key, id) != 0)
			return -ENOMEM;
	}
	return 0;
}
