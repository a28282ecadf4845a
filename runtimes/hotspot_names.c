/* Names of Java frames: compiled pcs through the nmethod's scope
 * descriptors, interpreted frames through their Method*, stubs by their
 * blob's name; with lines, each method's frame with its source file and
 * the line of its bytecode index. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/hotspot_impl.h"
#include "runtimes/hotspot_lines.h"

/* Inlining depth followed at one pc (C2's MaxInlineLevel is 15). */
#define MAX_SCOPES 32
/* Bytes of a PcDesc table or of scope data read at once (a method's
 * tables beyond it are not read: the frame is named by its method alone). */
#define MAX_TABLE_BYTES (64u * 1024)
/* Class and method names are cut here (a Symbol may hold 65535 bytes). */
#define SYMBOL_MAX 512
/* The caches are emptied this often, bounding both their size and how
 * long a Method* freed with its class could keep a name. */
#define NAMES_LIFETIME_NS (60ull * 1000000000ull)
#define MAX_CACHED_NAMES 65536
#define MAX_POOL_IDS (1u << 20)
/* A method's line number table is read up to this many bytes (a
 * compressed entry is one byte mostly, three to eleven escaped: a
 * method of 64 KiB of bytecodes rarely has half as many); one longer
 * leaves the method without lines. */
#define MAX_LINE_TABLE (16u * 1024)
/* What lines keep of methods and classes (records and file names); past
 * it, they start over. */
#define MAX_TEXT_BYTES (2u * 1024 * 1024)
/* A ConstMethod's bytecodes and tables, in words, are at most this big
 * (64 KiB of bytecodes, and tables of u2 entries indexed by u2). */
#define MAX_CONSTMETHOD_WORDS (1u << 20)

/* Tags in the low bits of a Method* (8-aligned) or blob name pointer:
 * one object, several suffixes. */
enum name_tag { TAG_COMPILED = 0, TAG_INLINED = 1, TAG_INTERPRETED = 2, TAG_STUB = 3 };

static void clear_text(struct hotspot *h)
{
	u64map__clear(h->methods);
	u64map__clear(h->class_files);
	h->ntext = 0;
}

void hotspot_names__clear(struct hotspot *h)
{
	u64map__clear(h->method_ids);
	u64map__clear(h->pc_frames);
	h->npool = 0;
	clear_text(h);
}

/* The excluded bytes of the JVM's compressed streams (hotspot_lines.h). */
static unsigned stream_x(const struct hotspot *h)
{
	return h->vm.major >= 20 ? 1 : 0;
}

/* Reads one of an nmethod's tables, [begin, end), into a new buffer (the
 * caller frees it). Tables past MAX_TABLE_BYTES are not read. */
static int read_table(struct hotspot *h, uint64_t begin, uint64_t end, uint8_t **out, size_t *len)
{
	size_t bytes = (size_t)(end - begin);
	uint8_t *buf;

	if (end <= begin || end - begin > MAX_TABLE_BYTES)
		return -EPROTO;
	buf = malloc(bytes);
	if (!buf)
		return -ENOMEM;
	if (memsource__read(&h->mem, begin, buf, bytes)) {
		free(buf);
		return -EFAULT;
	}
	*out = buf;
	*len = bytes;
	return 0;
}

/* The scope of the PcDesc at pc: for a return address the one for that
 * very pc (the call's), for a sampled pc the first at or after it (the
 * next safepoint of the code the pc is in, which is what HotSpot itself
 * would report). Returns its decode offset (0: none recorded). */
static int scope_of_pc(struct hotspot *h, const struct hotspot_blob *b, uint64_t pc, int exact,
		       uint32_t *decode)
{
	const struct hotspot_vm *vm = &h->vm;
	int64_t want = (int64_t)(pc - b->code_begin);
	size_t bytes, i, n;
	uint8_t *tab;
	int err = read_table(h, b->pcs_begin, b->pcs_end, &tab, &bytes);

	if (err)
		return err;
	err = -ENOENT;
	n = bytes / vm->pcdesc_size;
	for (i = 0; i < n; i++) {
		const uint8_t *d = tab + i * vm->pcdesc_size;
		int32_t off, dec;

		memcpy(&off, d + vm->pcdesc_pc_offset, sizeof(off));
		memcpy(&dec, d + vm->pcdesc_scope_offset, sizeof(dec));
		if (off < want || (!exact && off != want))
			continue;
		if (dec < 0)
			break;
		*decode = (uint32_t)dec;
		err = 0;
		break;
	}
	free(tab);
	return err;
}

/* The methods of the scope chain at decode offset d, innermost first,
 * and each one's bytecode index (-1: the method's entry). */
static int scope_methods(struct hotspot *h, const struct hotspot_blob *b, uint32_t d,
			 uint64_t *methods, int *bcis, size_t max, size_t *n)
{
	size_t nmeta = (size_t)(b->scopes_begin - b->metadata_begin) / 8, bytes;
	unsigned x = stream_x(h);
	uint8_t *data;
	int err;

	*n = 0;
	err = read_table(h, b->scopes_begin, b->pcs_begin, &data, &bytes);
	if (err)
		return err;
	/* 0 is the serialized null: the outermost scope has no sender. Each
	 * sender is written before the scopes it calls, so offsets fall. */
	while (d != 0 && *n < max) {
		size_t pos = d;
		uint32_t sender, index, bci;

		if (d >= bytes || hotspot_lines__uint(data, bytes, &pos, x, &sender) ||
		    hotspot_lines__uint(data, bytes, &pos, x, &index) ||
		    hotspot_lines__uint(data, bytes, &pos, x, &bci) || index == 0 || index > nmeta ||
		    (sender != 0 && sender >= d)) {
			err = -EPROTO;
			break;
		}
		if (memsource__u64(&h->mem, b->metadata_begin + (uint64_t)(index - 1) * 8,
				   &methods[*n])) {
			err = -EFAULT;
			break;
		}
		/* written as bci - InvocationEntryBci (-1); no method has
		 * 65535 bytecodes */
		bcis[*n] = bci <= 0xFFFF ? (int)bci - 1 : -2;
		(*n)++;
		d = sender;
	}
	free(data);
	if (!err && *n == 0)
		err = -ENOENT;
	return err;
}

/* A Symbol's text. Returns its length (cut to size - 1) or -errno. */
static ssize_t read_symbol(struct hotspot *h, uint64_t sym, char *buf, size_t size)
{
	const struct hotspot_vm *vm = &h->vm;
	uint16_t len;
	size_t i;

	if (!sym || memsource__u16(&h->mem, sym + (uint64_t)vm->symbol_length, &len))
		return -EFAULT;
	if (len == 0)
		return -EPROTO;
	if (len > size - 1)
		len = (uint16_t)(size - 1);
	if (memsource__read(&h->mem, sym + (uint64_t)vm->symbol_body, buf, len))
		return -EFAULT;
	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return -EPROTO;
	buf[len] = '\0';
	return len;
}

/* What a Method* leads to besides its name. */
struct method_refs {
	uint64_t cm, cp, holder; /* ConstMethod*, ConstantPool*, InstanceKlass* */
};

/* "pkg.Class.method" of a Method*: class names have '/' between
 * packages, and a hidden class (a lambda's) ends in "+0x<address>" (JDK 15
 * and later; "/0x" as Class.getName() shows it), which changes every run:
 * it is left out so profiles of two runs aggregate. refs (may be NULL):
 * the objects read on the way. */
static int method_name(struct hotspot *h, uint64_t method, char *out, size_t size,
		       struct method_refs *refs)
{
	const struct hotspot_vm *vm = &h->vm;
	char klass[SYMBOL_MAX], name[SYMBOL_MAX];
	uint64_t cm, cp, holder, ksym, msym;
	uint16_t index;
	ssize_t kl, nl;
	char *p;

	if (!method || (method & 7) ||
	    memsource__u64(&h->mem, method + (uint64_t)vm->method_const, &cm) || !cm ||
	    memsource__u64(&h->mem, cm + (uint64_t)vm->constmethod_constants, &cp) || !cp ||
	    memsource__u16(&h->mem, cm + (uint64_t)vm->constmethod_name_index, &index) ||
	    memsource__u64(&h->mem, cp + (uint64_t)vm->cpool_holder, &holder) || !holder ||
	    memsource__u64(&h->mem, holder + (uint64_t)vm->klass_name, &ksym) ||
	    memsource__u64(&h->mem, cp + vm->cpool_size + (uint64_t)index * 8, &msym))
		return -EFAULT;
	kl = read_symbol(h, ksym, klass, sizeof(klass));
	nl = read_symbol(h, msym, name, sizeof(name));
	if (kl < 0 || nl < 0)
		return -EPROTO;
	for (p = klass; (p = strstr(p, "0x")) != NULL; p += 2)
		if (p > klass && (p[-1] == '+' || p[-1] == '/') && p[2] &&
		    strspn(p + 2, "0123456789abcdefABCDEF") == strlen(p + 2)) {
			p[-1] = '\0';
			break;
		}
	for (p = klass; *p; p++)
		if (*p == '/')
			*p = '.';
	if ((size_t)snprintf(out, size, "%s.%s", klass, name) >= size)
		return -ENAMETOOLONG;
	if (refs) {
		refs->cm = cm;
		refs->cp = cp;
		refs->holder = holder;
	}
	return 0;
}

/* Appends n bytes to the text, starting it over when full (every offset
 * into it is forgotten then). Returns the offset, or -ENOMEM. */
static ssize_t text_append(struct hotspot *h, const void *p, size_t n)
{
	size_t at;

	if (n > MAX_TEXT_BYTES)
		return -ENOMEM;
	if (h->ntext + n > MAX_TEXT_BYTES)
		clear_text(h);
	if (h->ntext + n > h->text_cap) {
		size_t cap = h->text_cap ? h->text_cap * 2 : 16384;
		char *t;

		while (cap < h->ntext + n)
			cap *= 2;
		if (cap > MAX_TEXT_BYTES)
			cap = MAX_TEXT_BYTES;
		if (!(t = realloc(h->text, cap)))
			return -ENOMEM;
		h->text = t;
		h->text_cap = cap;
	}
	at = h->ntext;
	memcpy(h->text + at, p, n);
	h->ntext += n;
	return (ssize_t)at;
}

/* The source file a class names ("Foo.java"), read once per class: its
 * length (0: none, or unreadable) into out. */
static size_t class_file(struct hotspot *h, const struct method_refs *r, char *out, size_t size)
{
	const struct hotspot_vm *vm = &h->vm;
	uint64_t v, sym;
	uint16_t index = 0;
	ssize_t len, at;
	int err = -ENOENT;

	out[0] = '\0';
	if (u64map__get(h->class_files, r->holder, &v)) {
		if (v == 0 || v - 1 >= h->ntext)
			return 0;
		snprintf(out, size, "%s", h->text + (v - 1));
		return strlen(out);
	}
	/* an index into the class's constant pool: in the pool since JDK 9,
	 * in the class before */
	if (vm->cpool_source_file >= 0)
		err = memsource__u16(&h->mem, r->cp + (uint64_t)vm->cpool_source_file, &index);
	else if (vm->klass_source_file >= 0)
		err = memsource__u16(&h->mem, r->holder + (uint64_t)vm->klass_source_file, &index);
	if (err == -ENOENT || (err == 0 && index == 0)) {
		(void)u64map__put(h->class_files, r->holder, 0); /* it names none */
		return 0;
	}
	if (err || memsource__u64(&h->mem, r->cp + vm->cpool_size + (uint64_t)index * 8, &sym) ||
	    (len = read_symbol(h, sym, out, size)) < 0) {
		out[0] = '\0';
		return 0;
	}
	if ((at = text_append(h, out, (size_t)len + 1)) >= 0)
		(void)u64map__put(h->class_files, r->holder, (uint64_t)at + 1);
	return (size_t)len;
}

/* What naming a method's frames with their lines takes, read once per
 * Method* and kept in the text: a header (struct method_head), then the
 * name and the file, each ending in a zero, then the line table. */
struct method_head {
	uint64_t code_base;         /* the bytecodes, after the ConstMethod */
	uint32_t code_size;
	uint32_t table_len;         /* 0: no line table */
	uint16_t name_len, file_len; /* file_len 0: no source file */
};

struct method_rec {
	struct method_head head;
	const char *name, *file;
	const uint8_t *table;
};

static void rec_at(const struct hotspot *h, size_t at, struct method_rec *r)
{
	memcpy(&r->head, h->text + at, sizeof(r->head));
	r->name = h->text + at + sizeof(r->head);
	r->file = r->name + r->head.name_len + 1;
	r->table = (const uint8_t *)r->file + r->head.file_len + 1;
}

/* The line table of a ConstMethod whose header (its first
 * vm->constmethod_bytes bytes) is cm_head: after its bytecodes, up to the
 * end of the ConstMethod. Returns its bytes read into *table (the
 * caller frees it) and its length, 0 when the method has none. */
static size_t line_table(struct hotspot *h, uint64_t cm, const uint8_t *cm_head,
			 struct method_head *head, uint8_t **table)
{
	const struct hotspot_vm *vm = &h->vm;
	uint64_t start, end, avail;
	uint16_t flags, code_size;
	uint32_t words;
	size_t len = 0;
	uint8_t *buf;

	*table = NULL;
	if (vm->constmethod_bytes == 0 || vm->constmethod_flags < 0 ||
	    vm->constmethod_code_size < 0 || vm->constmethod_size < 0 ||
	    (uint64_t)vm->constmethod_flags + 2 > vm->constmethod_bytes ||
	    (uint64_t)vm->constmethod_code_size + 2 > vm->constmethod_bytes ||
	    (uint64_t)vm->constmethod_size + 4 > vm->constmethod_bytes)
		return 0;
	memcpy(&flags, cm_head + vm->constmethod_flags, 2);
	memcpy(&code_size, cm_head + vm->constmethod_code_size, 2);
	memcpy(&words, cm_head + vm->constmethod_size, 4);
	head->code_base = cm + vm->constmethod_bytes;
	head->code_size = code_size;
	/* bit 0 of the flags, has_linenumber_table, in JDK 8 to 25 */
	start = head->code_base + code_size;
	end = cm + (uint64_t)words * 8;
	if (!(flags & 1) || code_size == 0 || words > MAX_CONSTMETHOD_WORDS || end <= start)
		return 0;
	avail = end - start < MAX_LINE_TABLE ? end - start : MAX_LINE_TABLE;
	if (!(buf = malloc(avail)))
		return 0;
	if (memsource__read(&h->mem, start, buf, avail) ||
	    hotspot_lines__size(buf, avail, stream_x(h), &len) != 0) {
		free(buf);
		return 0;
	}
	*table = buf;
	return len;
}

/* The record of a Method* (read, or kept from before). 0 or -errno. */
static int method_record(struct hotspot *h, uint64_t method, struct method_rec *out)
{
	char name[2 * SYMBOL_MAX + 2], file[SYMBOL_MAX];
	uint8_t cm_head[512], *table = NULL, *rec;
	struct method_head head;
	struct method_refs refs;
	uint64_t at;
	ssize_t off;
	size_t bytes;
	int err;

	if (u64map__get(h->methods, method, &at) && at + sizeof(head) <= h->ntext) {
		rec_at(h, (size_t)at, out);
		return 0;
	}
	err = method_name(h, method, name, sizeof(name), &refs);
	if (err)
		return err;
	memset(&head, 0, sizeof(head));
	head.name_len = (uint16_t)strlen(name);
	head.file_len = (uint16_t)class_file(h, &refs, file, sizeof(file));
	if (h->vm.constmethod_bytes > 0 && h->vm.constmethod_bytes <= sizeof(cm_head) &&
	    memsource__read(&h->mem, refs.cm, cm_head, h->vm.constmethod_bytes) == 0)
		head.table_len = (uint32_t)line_table(h, refs.cm, cm_head, &head, &table);
	bytes = sizeof(head) + head.name_len + 1 + head.file_len + 1 + head.table_len;
	rec = malloc(bytes);
	if (!rec) {
		free(table);
		return -ENOMEM;
	}
	memcpy(rec, &head, sizeof(head));
	memcpy(rec + sizeof(head), name, head.name_len + 1u);
	memcpy(rec + sizeof(head) + head.name_len + 1, file, head.file_len + 1u);
	if (head.table_len)
		memcpy(rec + bytes - head.table_len, table, head.table_len);
	free(table);
	off = text_append(h, rec, bytes);
	free(rec);
	if (off < 0)
		return (int)off;
	if (u64map__put(h->methods, method, (uint64_t)off) != 0) {
		h->ntext = (size_t)off;
		return -ENOMEM;
	}
	rec_at(h, (size_t)off, out);
	return 0;
}

/* "pkg.Class.method (File.java:LINE)" of a method at bytecode index bci
 * or, for an interpreted frame, at bytecode pointer bcp. */
static int line_name(struct hotspot *h, uint64_t method, int bci, uint64_t bcp, bool by_bcp,
		     char *out, size_t size)
{
	struct method_rec r;
	int line = -1, err;

	memset(&r, 0, sizeof(r));
	err = method_record(h, method, &r);
	if (err)
		return err;
	if (by_bcp)
		bci = bcp >= r.head.code_base && bcp - r.head.code_base < r.head.code_size
			      ? (int)(bcp - r.head.code_base)
			      : -2;
	if (r.head.table_len == 0 ||
	    hotspot_lines__line(r.table, r.head.table_len, stream_x(h), bci, &line) != 0)
		line = -1;
	if (r.head.file_len && line >= 0)
		err = snprintf(out, size, "%s (%s:%d)", r.name, r.file, line);
	else if (r.head.file_len)
		err = snprintf(out, size, "%s (%s)", r.name, r.file);
	else if (line >= 0)
		err = snprintf(out, size, "%s (?:%d)", r.name, line);
	else
		err = snprintf(out, size, "%s", r.name);
	return err < 0 || (size_t)err >= size ? -ENAMETOOLONG : 0;
}

static const char *const tag_suffix[] = {
	[TAG_COMPILED] = FRAME_SUFFIX_JIT,
	[TAG_INLINED] = FRAME_SUFFIX_INLINED,
	[TAG_INTERPRETED] = FRAME_SUFFIX_INTERPRETED,
	[TAG_STUB] = FRAME_SUFFIX_JIT,
};

/* The frame id of a method (or, TAG_STUB, a blob name) with a suffix;
 * with lines, a method's at bytecode index bci (compiled frames) or
 * bytecode pointer bcp (TAG_INTERPRETED). */
static int name_id(struct hotspot *h, uint64_t obj, enum name_tag tag, int bci, uint64_t bcp,
		   uint32_t *id)
{
	char buf[3 * SYMBOL_MAX + 32];
	bool lines = h->lines && tag != TAG_STUB;
	uint64_t key = obj | (uint64_t)tag, v;
	int err;

	/* one lookup a frame: by where it is when it carries its line */
	if (lines)
		key = hash__mix(hash__u64(key), tag == TAG_INTERPRETED ? bcp : (uint64_t)(uint32_t)bci);
	if (u64map__get(h->method_ids, key, &v)) {
		*id = (uint32_t)v;
		return 0;
	}
	if (!hotspot_code__may_read(h, h->now_ns))
		return -EAGAIN;
	if (tag == TAG_STUB && obj == 0) /* the call stub, one of a blob's stubs */
		err = snprintf(buf, sizeof(buf), "StubRoutines::call_stub") < 0 ? -EINVAL : 0;
	else if (tag == TAG_STUB)
		err = memsource__str(&h->mem, obj, buf, 97) < 0 ? -EFAULT : 0;
	else if (lines)
		err = line_name(h, obj, bci, bcp, tag == TAG_INTERPRETED, buf, sizeof(buf));
	else
		err = method_name(h, obj, buf, sizeof(buf), NULL);
	if (err)
		return err;
	err = ledger__intern_frame(h->mem.ledger, h->names, buf, tag_suffix[tag], id);
	if (err)
		return err;
	if (u64map__count(h->method_ids) < MAX_CACHED_NAMES)
		(void)u64map__put(h->method_ids, key, *id);
	return 0;
}

/* Names a compiled pc (uncached). */
static int compiled_names(struct hotspot *h, const struct hotspot_blob *b, uint64_t pc, int exact,
			  uint32_t *ids, size_t max, size_t *n)
{
	uint64_t methods[MAX_SCOPES];
	int bcis[MAX_SCOPES];
	size_t k = 0, i;
	uint32_t decode;
	int err;

	/* the scopes when the pc has a descriptor, else just the method */
	if (!hotspot_code__may_read(h, h->now_ns) || scope_of_pc(h, b, pc, exact, &decode) != 0 ||
	    scope_methods(h, b, decode, methods, bcis, MAX_SCOPES, &k) != 0 ||
	    methods[k - 1] != b->method) {
		methods[0] = b->method;
		bcis[0] = -2; /* where in it is not known */
		k = 1;
	}
	if (k > max)
		k = max; /* keep the innermost: the frame that ran */
	for (i = 0; i < k; i++) {
		err = name_id(h, methods[i], i + 1 < k ? TAG_INLINED : TAG_COMPILED, bcis[i], 0,
			      &ids[i]);
		if (err)
			return err;
	}
	*n = k;
	return 0;
}

static uint64_t pc_key(const struct hotspot_blob *b, uint64_t pc, int exact)
{
	uint64_t k = hash__mix(hash__u64(pc), b->addr);

	k = hash__mix(k, (uint64_t)(uint32_t)b->compile_id);
	return hash__mix(k, (uint64_t)(exact != 0));
}

static void cache_pc(struct hotspot *h, uint64_t key, const uint32_t *ids, size_t n)
{
	if (h->npool + n + 1 > h->pool_cap) {
		size_t cap = h->pool_cap ? h->pool_cap * 2 : 1024;
		uint32_t *p;

		if (cap > MAX_POOL_IDS || !(p = realloc(h->pool, cap * sizeof(*p))))
			return;
		h->pool = p;
		h->pool_cap = cap;
	}
	if (u64map__put(h->pc_frames, key, h->npool) != 0)
		return;
	h->pool[h->npool++] = (uint32_t)n;
	memcpy(&h->pool[h->npool], ids, n * sizeof(*ids));
	h->npool += n;
}

int hotspot__names(struct hotspot *h, uint64_t pc, int exact, uint64_t method, uint64_t bcp,
		   uint64_t now_ns, uint32_t *ids, size_t max, size_t *n)
{
	const struct hotspot_blob *b;
	uint64_t key, at;
	int err;

	if (max == 0)
		return -EINVAL;
	h->now_ns = now_ns;
	if (now_ns - h->names_since_ns >= NAMES_LIFETIME_NS || h->npool + max + 1 > MAX_POOL_IDS) {
		hotspot_names__clear(h);
		h->names_since_ns = now_ns;
	}
	if (method) {
		err = name_id(h, method, TAG_INTERPRETED, -2, bcp, &ids[0]);
		if (err)
			goto fail;
		*n = 1;
		return 0;
	}
	if (!exact && pc == h->call_stub_return) {
		err = name_id(h, 0, TAG_STUB, -2, 0, &ids[0]);
		if (err)
			goto fail;
		*n = 1;
		return 0;
	}
	b = hotspot_code__blob(h, pc, now_ns);
	if (!b) {
		err = -ENOENT;
		goto fail;
	}
	if (b->kind != HOTSPOT_COMPILED) {
		err = name_id(h, b->name_ptr, TAG_STUB, -2, 0, &ids[0]);
		if (err)
			goto fail;
		*n = 1;
		return 0;
	}
	key = pc_key(b, pc, exact);
	if (u64map__get(h->pc_frames, key, &at) && at < h->npool && h->pool[at] <= max &&
	    at + h->pool[at] < h->npool) {
		*n = h->pool[at];
		memcpy(ids, &h->pool[at + 1], *n * sizeof(*ids));
		return 0;
	}
	err = compiled_names(h, b, pc, exact, ids, max, n);
	if (err)
		goto fail;
	cache_pc(h, key, ids, *n);
	return 0;
fail:
	h->stats.failures++;
	return err == -ENOENT ? err : -ENOENT;
}

int hotspot__remap_names(struct hotspot *h, struct strtab_remap *r)
{
	size_t pos = 0, i;
	uint64_t key, val;

	if (r->commit)
		h->names = r->to;
	while (u64map__next(h->method_ids, &pos, &key, &val)) {
		uint32_t id = (uint32_t)val;

		if (strtab_remap__id(r, &id))
			return -ENOMEM;
		if (r->commit)
			(void)u64map__put(h->method_ids, key, id);
	}
	for (i = 0; i < h->npool; i += 1 + h->pool[i]) {
		size_t k;

		for (k = 1; k <= h->pool[i]; k++)
			if (strtab_remap__id(r, &h->pool[i + k]))
				return -ENOMEM;
	}
	return 0;
}
