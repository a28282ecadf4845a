/* Reading HotSpot's vmStructs tables from outside the JVM. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/hotspot_vm.h"

const char *const hotspot_vm__symbol_names[HS_NSYMBOLS] = {
	[HS_SYM_STRUCTS] = "gHotSpotVMStructs",
	[HS_SYM_TYPES] = "gHotSpotVMTypes",
	[HS_SYM_INT_CONSTANTS] = "gHotSpotVMIntConstants",
	[HS_SYM_LONG_CONSTANTS] = "gHotSpotVMLongConstants",
	[HS_SYM_STRUCT_TYPE_NAME] = "gHotSpotVMStructEntryTypeNameOffset",
	[HS_SYM_STRUCT_FIELD_NAME] = "gHotSpotVMStructEntryFieldNameOffset",
	[HS_SYM_STRUCT_IS_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[HS_SYM_STRUCT_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[HS_SYM_STRUCT_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[HS_SYM_STRUCT_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[HS_SYM_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
	[HS_SYM_TYPE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[HS_SYM_TYPE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[HS_SYM_INT_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[HS_SYM_INT_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	[HS_SYM_INT_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
};

/* Longest type or field name compared; longer ones are none we need. */
#define NAME_MAX_LEN 64
/* An entry is a handful of words; anything wider is not a table. */
#define MAX_STRIDE 256
/* Entries read per process_vm_readv. */
#define BATCH 128

#define OFF(f) offsetof(struct hotspot_vm, f)

enum want_kind { W_OFFSET, W_STATIC, W_SIZE };

/* What is read from the tables. required: the reader cannot work without
 * it (alternatives of two versions are both optional and checked after). */
struct want {
	const char *type, *field; /* field NULL for W_SIZE */
	enum want_kind kind;
	size_t dest;              /* offsetof in struct hotspot_vm */
	bool required;
};

static const struct want wants[] = {
	{ "CodeCache", "_heaps", W_STATIC, OFF(codecache_heaps), false },
	{ "CodeCache", "_heap", W_STATIC, OFF(codecache_heap), false },
	{ "CodeCache", "_low_bound", W_STATIC, OFF(codecache_low), false },
	{ "CodeCache", "_high_bound", W_STATIC, OFF(codecache_high), false },
	{ "GrowableArrayBase", "_len", W_OFFSET, OFF(array_len), false },
	{ "GenericGrowableArray", "_len", W_OFFSET, OFF(array_len), false },
	{ "GrowableArray<int>", "_data", W_OFFSET, OFF(array_data), false },
	{ "CodeHeap", "_memory", W_OFFSET, OFF(heap_memory), true },
	{ "CodeHeap", "_segmap", W_OFFSET, OFF(heap_segmap), true },
	{ "CodeHeap", "_log2_segment_size", W_OFFSET, OFF(heap_log2_segment), true },
	{ "VirtualSpace", "_low", W_OFFSET, OFF(vspace_low), true },
	{ "VirtualSpace", "_high", W_OFFSET, OFF(vspace_high), true },
	{ "VirtualSpace", "_low_boundary", W_OFFSET, OFF(vspace_low_boundary), true },
	{ "VirtualSpace", "_high_boundary", W_OFFSET, OFF(vspace_high_boundary), false },
	{ "HeapBlock::Header", "_used", W_OFFSET, OFF(heapblock_used), true },
	{ "HeapBlock", NULL, W_SIZE, OFF(heapblock_size), true },
	{ "Abstract_VM_Version", "_s_vm_release", W_STATIC, OFF(release_var), false },
	{ "StubRoutines", "_call_stub_return_address", W_STATIC, OFF(call_stub_return), true },
	{ "CodeBlob", "_name", W_OFFSET, OFF(blob_name), true },
	{ "CodeBlob", "_size", W_OFFSET, OFF(blob_size), true },
	{ "CodeBlob", "_frame_complete_offset", W_OFFSET, OFF(blob_frame_complete), true },
	{ "CodeBlob", "_frame_size", W_OFFSET, OFF(blob_frame_size), true },
	{ "CodeBlob", "_code_begin", W_OFFSET, OFF(blob_code_begin), false },
	{ "CodeBlob", "_code_offset", W_OFFSET, OFF(blob_code_offset), false },
	{ "CodeBlob", "_code_end", W_OFFSET, OFF(blob_code_end), false },
	{ "CodeBlob", "_data_offset", W_OFFSET, OFF(blob_data_offset), false },
	{ "nmethod", NULL, W_SIZE, OFF(blob_header_bytes), true },
	{ "CompiledMethod", "_method", W_OFFSET, OFF(nm_method), false },
	{ "nmethod", "_method", W_OFFSET, OFF(nm_method), false },
	{ "nmethod", "_compile_id", W_OFFSET, OFF(nm_compile_id), true },
	{ "CompiledMethod", "_scopes_data_begin", W_OFFSET, OFF(nm_scopes_data_begin), false },
	{ "nmethod", "_scopes_data_offset", W_OFFSET, OFF(nm_scopes_data_offset), false },
	{ "nmethod", "_scopes_pcs_offset", W_OFFSET, OFF(nm_scopes_pcs_offset), true },
	{ "nmethod", "_dependencies_offset", W_OFFSET, OFF(nm_dependencies_offset), true },
	{ "nmethod", "_metadata_offset", W_OFFSET, OFF(nm_metadata_offset), true },
	{ "PcDesc", "_pc_offset", W_OFFSET, OFF(pcdesc_pc_offset), true },
	{ "PcDesc", "_scope_decode_offset", W_OFFSET, OFF(pcdesc_scope_offset), true },
	{ "PcDesc", NULL, W_SIZE, OFF(pcdesc_size), true },
	{ "Method", "_constMethod", W_OFFSET, OFF(method_const), true },
	{ "ConstMethod", "_constants", W_OFFSET, OFF(constmethod_constants), true },
	{ "ConstMethod", "_name_index", W_OFFSET, OFF(constmethod_name_index), true },
	{ "ConstantPool", "_pool_holder", W_OFFSET, OFF(cpool_holder), true },
	{ "ConstantPool", NULL, W_SIZE, OFF(cpool_size), true },
	{ "Klass", "_name", W_OFFSET, OFF(klass_name), true },
	{ "Symbol", "_length", W_OFFSET, OFF(symbol_length), true },
	{ "Symbol", "_body", W_OFFSET, OFF(symbol_body), true },
	{ "ConstMethod", "_flags", W_OFFSET, OFF(constmethod_flags), false },
	{ "ConstMethod", "_flags._flags", W_OFFSET, OFF(constmethod_flags), false },
	{ "ConstMethod", "_code_size", W_OFFSET, OFF(constmethod_code_size), false },
	{ "ConstMethod", "_constMethod_size", W_OFFSET, OFF(constmethod_size), false },
	{ "ConstMethod", NULL, W_SIZE, OFF(constmethod_bytes), false },
	{ "ConstantPool", "_source_file_name_index", W_OFFSET, OFF(cpool_source_file), false },
	{ "InstanceKlass", "_source_file_name_index", W_OFFSET, OFF(klass_source_file), false },
};
#define NWANTS (sizeof(wants) / sizeof(wants[0]))

/* The table layouts, read from the exported offset variables. */
struct layout {
	uint64_t base;
	uint64_t stride;
	uint64_t name, field, is_static, offset, address, size, value;
};

static int read_u64_sym(struct memsource *m, uint64_t addr, uint64_t *v)
{
	if (!addr)
		return -ENOENT;
	return memsource__u64(m, addr, v);
}

/* Reads the layout variables named by syms (a list ending in HS_NSYMBOLS)
 * into out (same order). */
static int read_syms(struct memsource *m, const uint64_t sym[HS_NSYMBOLS], const int *which,
		     uint64_t *out)
{
	int err;

	for (; *which != HS_NSYMBOLS; which++, out++) {
		err = read_u64_sym(m, sym[*which], out);
		if (err)
			return err;
	}
	return 0;
}

static bool field_ok(uint64_t off, uint64_t stride)
{
	return off + 8 <= stride;
}

/* A name string of the target, compared only if it fits NAME_MAX_LEN. */
struct name_cache {
	uint64_t ptr;
	char s[NAME_MAX_LEN + 1];
	bool ok;
};

static const char *name_at(struct memsource *m, struct name_cache *c, uint64_t ptr)
{
	if (ptr != c->ptr || !c->ptr) {
		c->ptr = ptr;
		c->ok = ptr && memsource__str(m, ptr, c->s, sizeof(c->s)) >= 0;
	}
	return c->ok ? c->s : NULL;
}

static bool type_wanted(const char *type)
{
	size_t i;

	for (i = 0; i < NWANTS; i++)
		if (strcmp(wants[i].type, type) == 0)
			return true;
	return false;
}

static void store(struct hotspot_vm *vm, const struct want *w, uint64_t v)
{
	char *p = (char *)vm + w->dest;

	if (w->kind == W_OFFSET) {
		int64_t o = (int64_t)v;

		memcpy(p, &o, sizeof(o));
	} else {
		memcpy(p, &v, sizeof(v));
	}
}

/* Walks one table: for each entry (up to the all-NULL terminator), fn
 * gets the entry's bytes. */
typedef int (*entry_fn)(struct memsource *m, const struct layout *l, const uint8_t *e, void *arg);

static int walk(struct memsource *m, const struct layout *l, entry_fn fn, void *arg)
{
	uint8_t *buf;
	size_t i = 0;
	int err = 0;

	if (!l->base || l->stride < 16 || l->stride > MAX_STRIDE || (l->stride & 7))
		return -EPROTO;
	buf = malloc(BATCH * l->stride);
	if (!buf)
		return -ENOMEM;
	while (i < HOTSPOT_VM_MAX_ENTRIES) {
		size_t k;

		err = memsource__read(m, l->base + i * l->stride, buf, BATCH * l->stride);
		if (err) {
			/* the table may end near the end of a mapping: one at a time */
			err = memsource__read(m, l->base + i * l->stride, buf, l->stride);
			if (err)
				break;
			k = 1;
		} else {
			k = BATCH;
		}
		for (size_t j = 0; j < k; j++, i++) {
			err = fn(m, l, buf + j * l->stride, arg);
			if (err)
				goto out;
		}
	}
	err = -EPROTO; /* no terminator within bounds, or the read failed */
out:
	free(buf);
	return err > 0 ? 0 : err;
}

static uint64_t word(const uint8_t *e, uint64_t off)
{
	uint64_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

struct struct_walk {
	struct hotspot_vm *vm;
	struct name_cache type, field;
	bool found[NWANTS];
};

/* Returns 1 at the terminator (ends the walk), 0 to go on. */
static int on_struct(struct memsource *m, const struct layout *l, const uint8_t *e, void *arg)
{
	struct struct_walk *w = arg;
	uint64_t tp = word(e, l->name), fp = word(e, l->field);
	const char *type, *field;
	size_t i;

	if (!tp && !fp)
		return 1;
	type = name_at(m, &w->type, tp);
	if (!type || !type_wanted(type) || !(field = name_at(m, &w->field, fp)))
		return 0;
	for (i = 0; i < NWANTS; i++) {
		const struct want *x = &wants[i];
		uint32_t is_static;

		if (x->kind == W_SIZE || strcmp(x->type, type) || strcmp(x->field, field))
			continue;
		memcpy(&is_static, e + l->is_static, sizeof(is_static));
		if ((x->kind == W_STATIC) != (is_static != 0))
			continue;
		store(w->vm, x, x->kind == W_STATIC ? word(e, l->address) : word(e, l->offset));
		w->found[i] = true;
	}
	return 0;
}

struct type_walk {
	struct hotspot_vm *vm;
	struct name_cache type;
	bool *found;
};

static int on_type(struct memsource *m, const struct layout *l, const uint8_t *e, void *arg)
{
	struct type_walk *w = arg;
	uint64_t tp = word(e, l->name);
	const char *type;
	size_t i;

	if (!tp)
		return 1;
	type = name_at(m, &w->type, tp);
	if (!type || !type_wanted(type))
		return 0;
	for (i = 0; i < NWANTS; i++)
		if (wants[i].kind == W_SIZE && strcmp(wants[i].type, type) == 0) {
			store(w->vm, &wants[i], word(e, l->size));
			w->found[i] = true;
		}
	return 0;
}

struct const_walk {
	struct name_cache name;
	int sender_sp, last_sp;
	bool has_sender_sp, has_last_sp;
};

static int on_int(struct memsource *m, const struct layout *l, const uint8_t *e, void *arg)
{
	struct const_walk *w = arg;
	uint64_t np = word(e, l->name);
	const char *name;
	int32_t v;

	if (!np)
		return 1;
	name = name_at(m, &w->name, np);
	if (!name || strncmp(name, "frame::interpreter_frame_", 25) != 0)
		return 0;
	memcpy(&v, e + l->value, sizeof(v));
	if (strcmp(name + 25, "sender_sp_offset") == 0) {
		w->sender_sp = v;
		w->has_sender_sp = true;
	} else if (strcmp(name + 25, "last_sp_offset") == 0) {
		w->last_sp = v;
		w->has_last_sp = true;
	}
	return 0;
}

/* Offsets a table gives must fit the objects: a hostile table could
 * otherwise make readers index far outside what they read. Each offset
 * read from a blob's header must leave room for its field in the header;
 * the other objects are read field by field, and their offsets are only
 * bounded to what their types could hold. */
static bool fits(int64_t off, uint64_t width, uint64_t limit, bool optional)
{
	if (off < 0)
		return optional && off == -1;
	return (uint64_t)off + width <= limit;
}

static bool sane_offsets(const struct hotspot_vm *vm)
{
	const uint64_t hdr = vm->blob_header_bytes;
	const struct { int64_t off; uint64_t width, limit; bool optional; } f[] = {
		{ vm->blob_name, 8, hdr, false },
		{ vm->blob_size, 4, hdr, false },
		{ vm->blob_frame_complete, 4, hdr, false },
		{ vm->blob_frame_size, 4, hdr, false },
		{ vm->blob_code_begin, 8, hdr, true },
		{ vm->blob_code_offset, 4, hdr, true },
		{ vm->blob_code_end, 8, hdr, true },
		{ vm->blob_data_offset, 4, hdr, true },
		{ vm->nm_method, 8, hdr, false },
		{ vm->nm_compile_id, 4, hdr, false },
		{ vm->nm_scopes_data_begin, 8, hdr, true },
		{ vm->nm_scopes_data_offset, 4, hdr, true },
		{ vm->nm_scopes_pcs_offset, 4, hdr, false },
		{ vm->nm_dependencies_offset, 4, hdr, false },
		{ vm->nm_metadata_offset, 4, hdr, false },
		{ vm->pcdesc_pc_offset, 4, vm->pcdesc_size, false },
		{ vm->pcdesc_scope_offset, 4, vm->pcdesc_size, false },
		{ vm->heapblock_used, 1, vm->heapblock_size, false },
		{ vm->array_len, 4, 64, true },
		{ vm->array_data, 8, 64, true },
		{ vm->heap_memory, 64, 4096, false },
		{ vm->heap_segmap, 64, 4096, false },
		{ vm->heap_log2_segment, 4, 4096, false },
		{ vm->vspace_low, 8, 256, false },
		{ vm->vspace_high, 8, 256, false },
		{ vm->vspace_low_boundary, 8, 256, false },
		{ vm->vspace_high_boundary, 8, 256, true },
		{ vm->method_const, 8, 512, false },
		{ vm->constmethod_constants, 8, 512, false },
		{ vm->constmethod_name_index, 2, 512, false },
		{ vm->cpool_holder, 8, 512, false },
		{ vm->klass_name, 8, 512, false },
		{ vm->symbol_length, 2, 64, false },
		{ vm->symbol_body, 1, 64, false },
		{ vm->constmethod_flags, 2, 512, true },
		{ vm->constmethod_code_size, 2, 512, true },
		{ vm->constmethod_size, 4, 512, true },
		{ vm->cpool_source_file, 2, 512, true },
		{ vm->klass_source_file, 2, 4096, true },
	};
	size_t i;

	if (hdr < 64 || hdr > 4096 || vm->heapblock_size > 256 || vm->pcdesc_size < 8 ||
	    vm->pcdesc_size > 64 || vm->cpool_size > 4096 || vm->constmethod_bytes > 512)
		return false;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!fits(f[i].off, f[i].width, f[i].limit, f[i].optional))
			return false;
	return true;
}

/* The JDK's feature version from the release string: "1.8.0_392" is 8,
 * "17.0.15+6-Debian-1deb12u1" is 17. */
static int parse_major(const char *s)
{
	int v = 0;

	if (strncmp(s, "1.", 2) == 0)
		s += 2;
	while (*s >= '0' && *s <= '9' && v < 1000)
		v = v * 10 + (*s++ - '0');
	return v;
}

static void read_release(struct memsource *m, struct hotspot_vm *vm)
{
	uint64_t p;

	vm->release[0] = '\0';
	if (vm->release_var && memsource__u64(m, vm->release_var, &p) == 0 && p &&
	    memsource__str(m, p, vm->release, sizeof(vm->release)) < 0)
		vm->release[0] = '\0';
}

int hotspot_vm__read(struct memsource *m, const uint64_t sym[HS_NSYMBOLS], struct hotspot_vm *vm)
{
	static const int struct_syms[] = { HS_SYM_STRUCT_STRIDE, HS_SYM_STRUCT_TYPE_NAME,
		HS_SYM_STRUCT_FIELD_NAME, HS_SYM_STRUCT_IS_STATIC, HS_SYM_STRUCT_OFFSET,
		HS_SYM_STRUCT_ADDRESS, HS_NSYMBOLS };
	static const int type_syms[] = { HS_SYM_TYPE_STRIDE, HS_SYM_TYPE_NAME, HS_SYM_TYPE_SIZE,
		HS_NSYMBOLS };
	static const int int_syms[] = { HS_SYM_INT_STRIDE, HS_SYM_INT_NAME, HS_SYM_INT_VALUE,
		HS_NSYMBOLS };
	struct struct_walk sw;
	struct type_walk tw;
	struct const_walk cw;
	struct layout l;
	uint64_t v[6];
	size_t i;
	int err;

	memset(vm, 0, sizeof(*vm));
	for (i = 0; i < NWANTS; i++)
		if (wants[i].kind == W_OFFSET)
			store(vm, &wants[i], (uint64_t)-1);
	if (!sym[HS_SYM_STRUCTS] || !sym[HS_SYM_TYPES])
		return -ENOENT;

	memset(&sw, 0, sizeof(sw));
	sw.vm = vm;
	memset(&l, 0, sizeof(l));
	if ((err = read_u64_sym(m, sym[HS_SYM_STRUCTS], &l.base)) ||
	    (err = read_syms(m, sym, struct_syms, v)))
		return err;
	l.stride = v[0];
	l.name = v[1];
	l.field = v[2];
	l.is_static = v[3];
	l.offset = v[4];
	l.address = v[5];
	if (!field_ok(l.name, l.stride) || !field_ok(l.field, l.stride) ||
	    l.is_static + 4 > l.stride || !field_ok(l.offset, l.stride) ||
	    !field_ok(l.address, l.stride))
		return -EPROTO;
	if ((err = walk(m, &l, on_struct, &sw)))
		return err;

	memset(&tw, 0, sizeof(tw));
	tw.vm = vm;
	tw.found = sw.found;
	memset(&l, 0, sizeof(l));
	if ((err = read_u64_sym(m, sym[HS_SYM_TYPES], &l.base)) ||
	    (err = read_syms(m, sym, type_syms, v)))
		return err;
	l.stride = v[0];
	l.name = v[1];
	l.size = v[2];
	if (!field_ok(l.name, l.stride) || !field_ok(l.size, l.stride))
		return -EPROTO;
	if ((err = walk(m, &l, on_type, &tw)))
		return err;

	for (i = 0; i < NWANTS; i++)
		if (wants[i].required && !sw.found[i])
			return -EPROTO;
	/* one of each pair a version has */
	if ((!vm->codecache_heaps && !vm->codecache_heap) || vm->nm_method < 0 ||
	    (vm->codecache_heaps && (vm->array_len < 0 || vm->array_data < 0)) ||
	    (vm->nm_scopes_data_begin < 0 && vm->nm_scopes_data_offset < 0) ||
	    (vm->blob_code_begin < 0 && vm->blob_code_offset < 0) ||
	    !sane_offsets(vm))
		return -EPROTO;

	/* interpreter frame slots: the constants when exported, else the
	 * x86-64 layout every version from 8 to 21 has (frame_x86.hpp) */
	memset(&cw, 0, sizeof(cw));
	memset(&l, 0, sizeof(l));
	if (read_u64_sym(m, sym[HS_SYM_INT_CONSTANTS], &l.base) == 0 &&
	    read_syms(m, sym, int_syms, v) == 0) {
		l.stride = v[0];
		l.name = v[1];
		l.value = v[2];
		if (field_ok(l.name, l.stride) && l.value + 4 <= l.stride)
			(void)walk(m, &l, on_int, &cw);
	}
	vm->interp_sender_sp = cw.has_sender_sp ? cw.sender_sp : -1;
	vm->interp_method = (cw.has_last_sp ? cw.last_sp : -2) - 1;
	if (vm->interp_sender_sp < -16 || vm->interp_sender_sp > -1 || vm->interp_method < -16 ||
	    vm->interp_method > -1)
		return -EPROTO;
	read_release(m, vm);
	/* JDK 8 reports HotSpot's own version (25.x), and is the one with a
	 * single code heap */
	vm->major = vm->codecache_heap && !vm->codecache_heaps ? 8 : parse_major(vm->release);
	/* the bytecode pointer: below the method, its mirror (9+), the
	 * method data, the constant pool cache and the locals */
	vm->interp_bcp = vm->interp_method - (vm->major == 8 ? 4 : 5);
	return 0;
}
