/* CRuby objects read from outside: Strings, Arrays, the names of IDs from
 * the VM's symbol table, and class paths ("Zlib::Deflate"). Every object is
 * checked for the type it must have before it is read as one; lengths are
 * bounded; IDs and their names are cached (they do not change). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "runtimes/ruby_state.h"

#define MAX_IDS 16384
/* A class's instance variables looked through for its name. */
#define IVARS_MAX 64
/* Symbol tables tried before IDs are given up. */
#define SYMBOL_TRIES 3
/* IDs at or below this are operators, numbered as they are (id.h:
 * tLAST_OP_ID, under 0x100 in every version read); above, an ID is its
 * serial shifted by RUBY_ID_SCOPE_SHIFT (4) with its scope. */
#define LAST_OP_ID 0xffu
#define ID_ENTRY_UNIT 512u
#define ST_DELETED UINT64_MAX
#define STR_MAX RUBY_STR_MAX

struct id_entry {
	uint64_t id;
	char *text;
};

struct ruby_objects {
	struct u64map *id_index; /* id -> index + 1 */
	struct id_entry *ids;
	size_t nids, ids_cap;    /* grown up to MAX_IDS */
	uint64_t symbols;        /* the symbol table checked, 0: none yet */
	unsigned symbol_tries;
};

static void clear_ids(struct ruby_objects *o)
{
	size_t i;

	for (i = 0; i < o->nids; i++)
		free(o->ids[i].text);
	o->nids = 0;
	u64map__clear(o->id_index);
}

struct ruby_objects *ruby_objects__new(void)
{
	struct ruby_objects *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->id_index = u64map__new(64);
	if (!o->id_index) {
		ruby_objects__delete(o);
		return NULL;
	}
	return o;
}

void ruby_objects__delete(struct ruby_objects *o)
{
	if (!o)
		return;
	clear_ids(o);
	u64map__delete(o->id_index);
	free(o->ids);
	free(o);
}

char *ruby_objects__dup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}


int ruby_objects__flags(struct ruby *r, uint64_t v, uint64_t *flags)
{
	if (!ruby_state__plausible(v))
		return -EFAULT;
	return memsource__u64(&r->mem, v, flags);
}

/* A String's text (at most size - 1 bytes, size <= STR_MAX + 1) in out.
 * Returns its length or -errno. */
int ruby_objects__string(struct ruby *r, uint64_t v, char *out, size_t size)
{
	uint8_t head[32];
	uint64_t flags, len, at;

	if (!ruby_state__plausible(v) || memsource__read(&r->mem, v, head, sizeof(head)) != 0)
		return -EFAULT;
	flags = ruby_state__u64_at(head, 0);
	if ((flags & RUBY_T_MASK) != RUBY_T_STRING)
		return -EPROTO;
	if (flags & RUBY_FL_USER1) {
		len = ruby_state__u64_at(head, 16);
		at = ruby_state__u64_at(head, 24);
		if (at < 4096 || at >= (1ull << 47))
			return -EFAULT;
	} else if (r->l.strings == RUBY_STR_LEN_IN_FLAGS) {
		len = (flags >> 14) & 0x1f;
		at = v + 16;
	} else {
		len = ruby_state__u64_at(head, 16);
		at = v + 24;
	}
	if (len > (1u << 30))
		return -EPROTO;
	if (len > size - 1)
		len = size - 1;
	if (len && memsource__read(&r->mem, at, out, (size_t)len) != 0)
		return -EFAULT;
	out[len] = '\0';
	return (int)len;
}

/* Element i of an Array. */
static int array_at(struct ruby *r, uint64_t ary, uint64_t i, uint64_t *v)
{
	uint8_t head[40];
	uint64_t flags, len, at;

	if (!ruby_state__plausible(ary) || memsource__read(&r->mem, ary, head, sizeof(head)) != 0)
		return -EFAULT;
	flags = ruby_state__u64_at(head, 0);
	if ((flags & RUBY_T_MASK) != RUBY_T_ARRAY)
		return -EPROTO;
	if (flags & RUBY_FL_USER1) { /* embedded */
		len = (flags >> 15) & r->l.array_embed_len_mask;
		at = ary + 16;
	} else {
		len = ruby_state__u64_at(head, 16);
		at = ruby_state__u64_at(head, 32);
	}
	if (i >= len || len > (1u << 28) || !ruby_state__plausible(at))
		return -ENOENT;
	return memsource__u64(&r->mem, at + 8 * i, v);
}

/* The part of a source path that says which file it is: after the last
 * "/gems/" (a gem and its version), after "/lib/ruby/VERSION/" (the
 * standard library), else the file's name. */
const char *ruby_objects__short_path(const char *path)
{
	const char *best = NULL, *p, *slash;

	for (p = path; (p = strstr(p, "/gems/")) != NULL; p += 6)
		best = p + 6;
	if (best)
		return best;
	for (p = path; (p = strstr(p, "/lib/ruby/")) != NULL; p++) {
		slash = strchr(p + 10, '/');
		if (slash)
			best = slash + 1;
	}
	if (best)
		return best;
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The path of an instruction sequence: 2.5+ keep a String or [path,
 * realpath]. */
int ruby_objects__path(struct ruby *r, uint64_t pathobj, char *out, size_t size)
{
	uint64_t flags, first;

	if (r->l.path_is_string || ruby_objects__flags(r, pathobj, &flags) != 0 ||
	    (flags & RUBY_T_MASK) != RUBY_T_ARRAY)
		return ruby_objects__string(r, pathobj, out, size);
	if (array_at(r, pathobj, 0, &first) != 0)
		return -EFAULT;
	return ruby_objects__string(r, first, out, size);
}


/* ID id's name from the symbol table at `symbols` (rb_symbols_t: its ids,
 * an Array of Arrays of ID_ENTRY_UNIT {String, Symbol} pairs by serial). */
static int id_in(struct ruby *r, uint64_t symbols, uint64_t id, char *out, size_t size)
{
	uint64_t ids, chunk, s, serial = id <= LAST_OP_ID ? id : id >> 4;

	if (!serial || serial > (1u << 30) ||
	    memsource__u64(&r->mem, symbols + r->l.symbols_ids, &ids) != 0 ||
	    array_at(r, ids, serial / ID_ENTRY_UNIT, &chunk) != 0 ||
	    array_at(r, chunk, (serial % ID_ENTRY_UNIT) * 2, &s) != 0)
		return -ENOENT;
	return ruby_objects__string(r, s, out, size);
}

/* The symbol table, the first candidate whose IDs of "+" and "-" (operators
 * numbered by their character in every version) are those strings. */
static uint64_t symbol_table(struct ruby *r)
{
	struct ruby_objects *n = r->objects;
	char a[4], b[4];
	size_t i;

	if (n->symbols || n->symbol_tries >= SYMBOL_TRIES || !r->l.symbols_ids)
		return n->symbols;
	n->symbol_tries++;
	for (i = 0; i < r->sym.nsymbol_tables && i < RUBY_SYMBOL_TABLES_MAX; i++) {
		uint64_t at = r->sym.symbol_tables[i];

		if (id_in(r, at, '+', a, sizeof(a)) == 1 && a[0] == '+' &&
		    id_in(r, at, '-', b, sizeof(b)) == 1 && b[0] == '-') {
			n->symbols = at;
			break;
		}
	}
	return n->symbols;
}

/* ID id's name (cached: IDs do not change), NULL when unknown. */
const char *ruby_objects__id_name(struct ruby *r, uint64_t id)
{
	struct ruby_objects *n = r->objects;
	char buf[STR_MAX + 1];
	uint64_t symbols = symbol_table(r), idx;

	if (!symbols || !id)
		return NULL;
	if (u64map__get(n->id_index, id, &idx) && idx - 1 < n->nids)
		return n->ids[idx - 1].text;
	if (id_in(r, symbols, id, buf, sizeof(buf)) <= 0)
		return NULL;
	if (n->nids == MAX_IDS)
		clear_ids(n);
	if (n->nids == n->ids_cap) {
		size_t to = n->ids_cap ? 2 * n->ids_cap : 64;
		struct id_entry *a = realloc(n->ids, (to > MAX_IDS ? MAX_IDS : to) * sizeof(*a));

		if (!a)
			return NULL;
		n->ids = a;
		n->ids_cap = to > MAX_IDS ? MAX_IDS : to;
	}
	n->ids[n->nids].id = id;
	n->ids[n->nids].text = ruby_objects__dup(buf);
	if (!n->ids[n->nids].text || u64map__put(n->id_index, id, n->nids + 1) != 0) {
		free(n->ids[n->nids].text);
		return NULL;
	}
	return n->ids[n->nids++].text;
}


/* The instance variable `want` of a class (2.5-3.1: its rb_classext_t's
 * iv_tbl, an st_table of ID -> VALUE). Without the symbol table, the first
 * variable of a local-scope ID (CRuby's own, not @-variables) whose value
 * has type want_type. */
static int class_ivar(struct ruby *r, uint64_t klass, const char *want, uint32_t want_type, uint64_t *value)
{
	uint8_t st[56], ent[IVARS_MAX * 24];
	uint64_t ext, tbl, start, bound, entries, i;
	bool by_name = symbol_table(r) != 0;

	if (memsource__u64(&r->mem, klass + r->l.class_ext, &ext) != 0 || !ruby_state__plausible(ext) ||
	    memsource__u64(&r->mem, ext + r->l.ext_iv_tbl, &tbl) != 0 || !ruby_state__plausible(tbl) ||
	    memsource__read(&r->mem, tbl, st, sizeof(st)) != 0)
		return -EFAULT;
	/* st_table {entry_power, bin_power, size_ind, rebuilds_num, type,
	 * num_entries 16, bins 24, entries_start 32, entries_bound 40,
	 * entries 48}; st_table_entry {hash, key, record} */
	start = ruby_state__u64_at(st, 32);
	bound = ruby_state__u64_at(st, 40);
	entries = ruby_state__u64_at(st, 48);
	if (bound < start || bound - start > IVARS_MAX || !ruby_state__plausible(entries) ||
	    (bound > start && memsource__read(&r->mem, entries + 24 * start, ent, (size_t)(bound - start) * 24) != 0))
		return -EFAULT;
	for (i = 0; i < bound - start; i++) {
		uint64_t hash = ruby_state__u64_at(ent, (uint32_t)(24 * i));
		uint64_t key = ruby_state__u64_at(ent, (uint32_t)(24 * i + 8));
		uint64_t rec = ruby_state__u64_at(ent, (uint32_t)(24 * i + 16)), flags;
		const char *name;

		if (hash == ST_DELETED)
			continue;
		if (by_name) {
			name = ruby_objects__id_name(r, key);
			if (name && strcmp(name, want) == 0) {
				*value = rec;
				return 0;
			}
			continue;
		}
		if (key > LAST_OP_ID && (key & 0x0e) == 0 && ruby_objects__flags(r, rec, &flags) == 0 &&
		    ((flags & RUBY_T_MASK) == want_type ||
		     (want_type == RUBY_T_CLASS && (flags & RUBY_T_MASK) == RUBY_T_MODULE))) {
			*value = rec;
			return 0;
		}
	}
	return -ENOENT;
}

/* The object a singleton class is attached to. */
static int attached(struct ruby *r, uint64_t klass, uint64_t *obj)
{
	if (r->l.class_names == RUBY_CLASS_NAMES_FIELD)
		return memsource__u64(&r->mem, klass + r->l.class_attached, obj);
	if (r->l.class_names == RUBY_CLASS_NAMES_IV_TBL)
		return class_ivar(r, klass, "__attached__", RUBY_T_CLASS, obj);
	return -ENOTSUP;
}

/* A class's or module's path ("Zlib::Deflate"). */
static int class_path_of(struct ruby *r, uint64_t klass, char *out, size_t size)
{
	uint64_t path;
	int err = -ENOTSUP;

	if (r->l.class_names == RUBY_CLASS_NAMES_FIELD)
		err = memsource__u64(&r->mem, klass + r->l.class_classpath, &path);
	else if (r->l.class_names == RUBY_CLASS_NAMES_IV_TBL)
		err = class_ivar(r, klass, "__classpath__", RUBY_T_STRING, &path);
	if (err)
		return err;
	return ruby_objects__string(r, path, out, size) > 0 ? 0 : -ENOENT;
}

/* "Class#" for a method of class klass, "Class." for one of its
 * singleton class; NULL when the class cannot be named. */
char *ruby_objects__qualifier(struct ruby *r, uint64_t klass)
{
	char path[STR_MAX + 2];
	uint64_t flags, type;
	bool singleton = false;
	size_t len;

	if (r->l.class_names == RUBY_CLASS_NAMES_NONE || ruby_objects__flags(r, klass, &flags) != 0)
		return NULL;
	type = flags & RUBY_T_MASK;
	if (type == RUBY_T_ICLASS) {
		/* a module's methods, as included: the module (RBasic.klass) */
		if (memsource__u64(&r->mem, klass + 8, &klass) != 0 || ruby_objects__flags(r, klass, &flags) != 0)
			return NULL;
		type = flags & RUBY_T_MASK;
	}
	if (type != RUBY_T_CLASS && type != RUBY_T_MODULE)
		return NULL;
	if (flags & RUBY_FL_SINGLETON) {
		singleton = true;
		if (attached(r, klass, &klass) != 0 || ruby_objects__flags(r, klass, &flags) != 0 ||
		    ((flags & RUBY_T_MASK) != RUBY_T_CLASS && (flags & RUBY_T_MASK) != RUBY_T_MODULE))
			return NULL; /* a singleton of an object that is no class */
	}
	if (class_path_of(r, klass, path, STR_MAX + 1) != 0)
		return NULL;
	len = strlen(path);
	path[len] = singleton ? '.' : '#';
	path[len + 1] = '\0';
	return ruby_objects__dup(path);
}

