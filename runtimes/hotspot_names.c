/* Names of Java frames: compiled pcs through the nmethod's scope
 * descriptors, interpreted frames through their Method*, stubs by their
 * blob's name. */
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

/* Tags in the low bits of a Method* (8-aligned) or blob name pointer:
 * one object, several suffixes. */
enum name_tag { TAG_COMPILED = 0, TAG_INLINED = 1, TAG_INTERPRETED = 2, TAG_STUB = 3 };

void hotspot_names__clear(struct hotspot *h)
{
	u64map__clear(h->method_ids);
	u64map__clear(h->pc_frames);
	h->npool = 0;
}

/* One int of HotSpot's compressed debug-info stream (UNSIGNED5): up to
 * five bytes, each below L + x ends it; bytes carry 6 more bits each
 * after the first. x is 0 before JDK 20 and 1 since (zero bytes were
 * excluded from the encoding then). */
static int read_uint(const uint8_t *buf, size_t len, size_t *pos, unsigned x, uint32_t *out)
{
	const unsigned lg_h = 6, l = 256 - 64 - x;
	uint32_t sum;
	unsigned shift = lg_h, i;

	if (*pos >= len || buf[*pos] < x)
		return -EPROTO;
	sum = buf[*pos] - x;
	if (sum < l) {
		*pos += 1;
		*out = sum;
		return 0;
	}
	for (i = 1; i < 5; i++, shift += lg_h) {
		uint32_t b;

		if (*pos + i >= len || buf[*pos + i] < x)
			return -EPROTO;
		b = buf[*pos + i] - x;
		sum += b << shift;
		if (b < l || i == 4) {
			*pos += i + 1;
			*out = sum;
			return 0;
		}
	}
	return -EPROTO;
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

/* The methods of the scope chain at decode offset d, innermost first. */
static int scope_methods(struct hotspot *h, const struct hotspot_blob *b, uint32_t d,
			 uint64_t *methods, size_t max, size_t *n)
{
	size_t nmeta = (size_t)(b->scopes_begin - b->metadata_begin) / 8, bytes;
	unsigned x = h->vm.major >= 20 ? 1 : 0;
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

		if (d >= bytes || read_uint(data, bytes, &pos, x, &sender) ||
		    read_uint(data, bytes, &pos, x, &index) || read_uint(data, bytes, &pos, x, &bci) ||
		    index == 0 || index > nmeta || (sender != 0 && sender >= d)) {
			err = -EPROTO;
			break;
		}
		if (memsource__u64(&h->mem, b->metadata_begin + (uint64_t)(index - 1) * 8,
				   &methods[*n])) {
			err = -EFAULT;
			break;
		}
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

/* "pkg.Class.method" of a Method*: class names have '/' between
 * packages, and a hidden class (a lambda's) ends in "+0x<address>" (JDK 15
 * and later; "/0x" as Class.getName() shows it), which changes every run:
 * it is left out so profiles of two runs aggregate. */
static int method_name(struct hotspot *h, uint64_t method, char *out, size_t size)
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
	return 0;
}

static const char *const tag_suffix[] = {
	[TAG_COMPILED] = FRAME_SUFFIX_JIT,
	[TAG_INLINED] = FRAME_SUFFIX_INLINED,
	[TAG_INTERPRETED] = FRAME_SUFFIX_INTERPRETED,
	[TAG_STUB] = FRAME_SUFFIX_JIT,
};

/* The frame id of a method (or, TAG_STUB, a blob name) with a suffix. */
static int name_id(struct hotspot *h, uint64_t obj, enum name_tag tag, uint32_t *id)
{
	char buf[2 * SYMBOL_MAX + 2];
	uint64_t key = obj | (uint64_t)tag, v;
	int err;

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
	else
		err = method_name(h, obj, buf, sizeof(buf));
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
	size_t k = 0, i;
	uint32_t decode;
	int err;

	/* the scopes when the pc has a descriptor, else just the method */
	if (!hotspot_code__may_read(h, h->now_ns) || scope_of_pc(h, b, pc, exact, &decode) != 0 ||
	    scope_methods(h, b, decode, methods, MAX_SCOPES, &k) != 0 || methods[k - 1] != b->method) {
		methods[0] = b->method;
		k = 1;
	}
	if (k > max)
		k = max; /* keep the innermost: the frame that ran */
	for (i = 0; i < k; i++) {
		err = name_id(h, methods[i], i + 1 < k ? TAG_INLINED : TAG_COMPILED, &ids[i]);
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

int hotspot__names(struct hotspot *h, uint64_t pc, int exact, uint64_t method, uint64_t now_ns,
		   uint32_t *ids, size_t max, size_t *n)
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
		err = name_id(h, method, TAG_INTERPRETED, &ids[0]);
		if (err)
			goto fail;
		*n = 1;
		return 0;
	}
	if (!exact && pc == h->call_stub_return) {
		err = name_id(h, 0, TAG_STUB, &ids[0]);
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
		err = name_id(h, b->name_ptr, TAG_STUB, &ids[0]);
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
