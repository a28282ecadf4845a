/* A synthetic HotSpot JVM in memory, for the reader's tests and fuzzers:
 * vmStructs tables describing it, a code cache of three code heaps' worth
 * (one heap here) with an interpreter blob, a compiled method with an
 * inlined callee and a runtime stub, and the Method/ConstMethod/
 * ConstantPool/Klass/Symbol objects that name them. Offsets are those of
 * JDK 17 except where moved on purpose (Symbol::_body), so a reader that
 * hard-coded offsets would fail. Everything is in one buffer the test may
 * mutate.
 *
 * Four more blobs hold code (x86_code.h) whose frames are read from it: a
 * C2 method, a stub routine blob ("StubRoutines (2)"), C1's frameless leaf
 * stub (slow_subtype_check, whose frame size is -1) and the wrapper of a
 * native method ("native nmethod").
 *
 * Outer.run and Inner.step have bytecodes, a compressed line number
 * table (hotspot_linetab.h) and a source file, "Outer.java" (ConstMethod's
 * flags, code size and size; ConstantPool::_source_file_name_index, or in
 * JDK 8 InstanceKlass's); the lambda has neither.
 *
 * It comes in the shapes of three JDKs (hotspot_image__build_jdk): 17;
 * 8, whose tables name a single code heap (CodeCache::_heap), code and
 * scope positions as offsets from the blob (CodeBlob::_code_offset,
 * nmethod::_scopes_data_offset), no CompiledMethod (nmethod::_method) and
 * report HotSpot's own version ("25.x"); and 21, whose debug-info stream
 * excludes zero bytes (UNSIGNED5 with one excluded byte: each small value
 * is stored plus one). */
#ifndef SMOLDER_TESTS_HOTSPOT_IMAGE_H
#define SMOLDER_TESTS_HOTSPOT_IMAGE_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtimes/hotspot_vm.h"
#include "runtimes/memsource.h"
#include "hotspot_linetab.h"
#include "x86_code.h"

#define HI_BASE 0x10000000ull
#define HI_SIZE (1u << 20)

/* where things are */
#define HI_STRINGS (HI_BASE + 0x1000)
#define HI_SYMS (HI_BASE + 0x100)       /* the exported variables */
#define HI_STRUCTS (HI_BASE + 0x10000)
#define HI_TYPES (HI_BASE + 0x18000)
#define HI_INTS (HI_BASE + 0x1c000)
#define HI_STATICS (HI_BASE + 0x1f000)  /* static fields */
#define HI_OBJECTS (HI_BASE + 0x20000)  /* methods, classes, symbols */
#define HI_CODEHEAP_OBJ (HI_BASE + 0x30000)
#define HI_ARRAY (HI_BASE + 0x30400)
#define HI_SEGMAP (HI_BASE + 0x40000)
#define HI_HEAP (HI_BASE + 0x80000)     /* code heap: 64 KiB of 128-byte segments */
#define HI_HEAP_SIZE 0x10000u

/* the blobs */
#define HI_INTERP_BLOB (HI_HEAP + 16)            /* segments 0..7 */
#define HI_NM_BLOCK (HI_HEAP + 0x400)            /* segments 8..39 */
#define HI_NM_BLOB (HI_NM_BLOCK + 16)
#define HI_NM_CODE (HI_NM_BLOB + 352)
#define HI_STUB_BLOCK (HI_HEAP + 0x1400)         /* segments 40..47 */
#define HI_STUB_BLOB (HI_STUB_BLOCK + 16)
#define HI_C2_BLOCK (HI_HEAP + 0x1800)           /* segments 48..55 */
#define HI_C2_BLOB (HI_C2_BLOCK + 16)
#define HI_C2_CODE (HI_C2_BLOB + 352)
#define HI_SR_BLOCK (HI_HEAP + 0x1c00)           /* segments 56..63 */
#define HI_SR_BLOB (HI_SR_BLOCK + 16)
#define HI_SR_CODE (HI_SR_BLOB + 104)
#define HI_LEAF_BLOCK (HI_HEAP + 0x2000)         /* segments 64..67 */
#define HI_LEAF_BLOB (HI_LEAF_BLOCK + 16)
#define HI_LEAF_CODE (HI_LEAF_BLOB + 104)
#define HI_NATIVE_BLOCK (HI_HEAP + 0x2200)       /* segments 68..75 */
#define HI_NATIVE_BLOB (HI_NATIVE_BLOCK + 16)
#define HI_NATIVE_CODE (HI_NATIVE_BLOB + 352)
#define HI_FREE (HI_HEAP + 0x2600)               /* segments 76..: free */
#define HI_CALL_STUB_RA (HI_INTERP_BLOB + 0x300) /* inside a blob, special-cased */

/* methods */
#define HI_M_OUTER (HI_OBJECTS + 0x000)
#define HI_M_INNER (HI_OBJECTS + 0x400)
#define HI_M_LAMBDA (HI_OBJECTS + 0x800)

struct hotspot_image {
	uint8_t mem[HI_SIZE];
	struct memimage_region region;
	struct memimage img;
	uint64_t sym[HS_NSYMBOLS];
	uint64_t str_next;
};

static inline void hi_put(struct hotspot_image *im, uint64_t addr, const void *p, size_t n)
{
	memcpy(im->mem + (addr - HI_BASE), p, n);
}
static inline void hi_u64(struct hotspot_image *im, uint64_t addr, uint64_t v) { hi_put(im, addr, &v, 8); }
static inline void hi_u32(struct hotspot_image *im, uint64_t addr, uint32_t v) { hi_put(im, addr, &v, 4); }
static inline void hi_u16(struct hotspot_image *im, uint64_t addr, uint16_t v) { hi_put(im, addr, &v, 2); }
static inline void hi_u8(struct hotspot_image *im, uint64_t addr, uint8_t v) { hi_put(im, addr, &v, 1); }

static inline uint64_t hi_str(struct hotspot_image *im, const char *s)
{
	uint64_t at = im->str_next;

	hi_put(im, at, s, strlen(s) + 1);
	im->str_next += strlen(s) + 1;
	return at;
}

/* Which JDKs' tables have a field. */
#define HI_J8 1
#define HI_J17 2
#define HI_J21 4
#define HI_JALL (HI_J8 | HI_J17 | HI_J21)
#define HI_J9UP (HI_J17 | HI_J21)

struct hi_field {
	const char *type, *field;
	int is_static;
	uint64_t value; /* offset, or a static's address */
	int jdks;       /* HI_J*: the JDKs whose tables have it */
};

static const struct hi_field hi_fields[] = {
	{ "CodeCache", "_heaps", 1, HI_STATICS + 0x00, HI_J9UP },
	{ "CodeCache", "_heap", 1, HI_STATICS + 0x00, HI_J8 },
	{ "CodeCache", "_low_bound", 1, HI_STATICS + 0x08, HI_J9UP },
	{ "CodeCache", "_high_bound", 1, HI_STATICS + 0x10, HI_J9UP },
	{ "StubRoutines", "_call_stub_return_address", 1, HI_STATICS + 0x18, HI_JALL },
	{ "Abstract_VM_Version", "_s_vm_release", 1, HI_STATICS + 0x20, HI_JALL },
	{ "GrowableArrayBase", "_len", 0, 0, HI_J9UP },
	{ "GrowableArray<int>", "_data", 0, 8, HI_J9UP },
	{ "CodeHeap", "_memory", 0, 8, HI_JALL },
	{ "CodeHeap", "_segmap", 0, 120, HI_JALL },
	{ "CodeHeap", "_log2_segment_size", 0, 256, HI_JALL },
	{ "VirtualSpace", "_low_boundary", 0, 0, HI_JALL },
	{ "VirtualSpace", "_high_boundary", 0, 8, HI_JALL },
	{ "VirtualSpace", "_low", 0, 16, HI_JALL },
	{ "VirtualSpace", "_high", 0, 24, HI_JALL },
	{ "HeapBlock::Header", "_length", 0, 0, HI_JALL },
	{ "HeapBlock::Header", "_used", 0, 8, HI_JALL },
	{ "CodeBlob", "_name", 0, 96, HI_JALL },
	{ "CodeBlob", "_size", 0, 12, HI_JALL },
	{ "CodeBlob", "_frame_complete_offset", 0, 20, HI_JALL },
	{ "CodeBlob", "_frame_size", 0, 28, HI_JALL },
	{ "CodeBlob", "_code_begin", 0, 32, HI_J9UP },
	{ "CodeBlob", "_code_end", 0, 40, HI_J9UP },
	{ "CodeBlob", "_code_offset", 0, 32, HI_J8 },
	{ "CodeBlob", "_data_offset", 0, 36, HI_J8 },
	{ "CompiledMethod", "_method", 0, 112, HI_J9UP },
	{ "nmethod", "_method", 0, 112, HI_J8 },
	{ "CompiledMethod", "_scopes_data_begin", 0, 120, HI_J9UP },
	{ "nmethod", "_scopes_data_offset", 0, 120, HI_J8 },
	{ "nmethod", "_entry_bci", 0, 192, HI_JALL },
	{ "nmethod", "_metadata_offset", 0, 260, HI_JALL },
	{ "nmethod", "_scopes_pcs_offset", 0, 268, HI_JALL },
	{ "nmethod", "_dependencies_offset", 0, 272, HI_JALL },
	{ "nmethod", "_compile_id", 0, 304, HI_JALL },
	{ "PcDesc", "_pc_offset", 0, 0, HI_JALL },
	{ "PcDesc", "_scope_decode_offset", 0, 4, HI_JALL },
	{ "Method", "_constMethod", 0, 8, HI_JALL },
	{ "ConstMethod", "_constants", 0, 8, HI_JALL },
	{ "ConstMethod", "_name_index", 0, 34, HI_JALL },
	{ "ConstMethod", "_signature_index", 0, 36, HI_JALL },
	{ "ConstantPool", "_pool_holder", 0, 24, HI_JALL },
	{ "Klass", "_name", 0, 24, HI_JALL },
	{ "Symbol", "_length", 0, 4, HI_JALL },
	{ "Symbol", "_body", 0, 8, HI_JALL }, /* 6 in JDK 17: moved on purpose */
	{ "ConstMethod", "_constMethod_size", 0, 24, HI_JALL },
	{ "ConstMethod", "_flags", 0, 28, HI_J8 | HI_J17 },
	{ "ConstMethod", "_flags._flags", 0, 28, HI_J21 },
	{ "ConstMethod", "_code_size", 0, 32, HI_JALL },
	{ "ConstantPool", "_source_file_name_index", 0, 54, HI_J9UP },
	{ "InstanceKlass", "_source_file_name_index", 0, 40, HI_J8 },
};

static const struct { const char *type; uint64_t size; } hi_types[] = {
	{ "HeapBlock", 16 }, { "nmethod", 352 }, { "PcDesc", 16 }, { "ConstantPool", 72 },
	{ "Method", 88 }, { "CodeBlob", 104 }, { "ConstMethod", 48 },
};

static inline uint64_t hi_symbol(struct hotspot_image *im, uint64_t at, const char *s)
{
	hi_u16(im, at + 4, (uint16_t)strlen(s));
	hi_put(im, at + 8, s, strlen(s)); /* not terminated, as in HotSpot */
	return at;
}

/* A method's objects, from its Method* m: the ConstMethod (its 48 bytes,
 * then up to 80 of bytecodes and line table), the ConstantPool (the
 * method's name at index 1, its class's source file at 2), the class and
 * the symbols. */
#define HI_CM(m) ((m) + 0x60)
#define HI_CODE(m) (HI_CM(m) + 48)
#define HI_CP(m) ((m) + 0xe0)
#define HI_KLASS(m) ((m) + 0x180)

/* A method named klass.name: Method at m, its other objects after it. */
static inline void hi_method(struct hotspot_image *im, uint64_t m, const char *klass, const char *name)
{
	uint64_t cm = HI_CM(m), cp = HI_CP(m), k = HI_KLASS(m), ks = m + 0x1c0, ns = m + 0x200;

	hi_u64(im, m + 8, cm);
	hi_u64(im, cm + 8, cp);
	hi_u16(im, cm + 34, 1); /* name_index */
	hi_u64(im, cp + 24, k);
	hi_u64(im, cp + 72 + 1 * 8, ns);
	hi_u64(im, k + 24, ks);
	hi_symbol(im, ks, klass);
	hi_symbol(im, ns, name);
	hi_u32(im, cm + 24, 6); /* words: the ConstMethod alone */
}

/* Gives method m code_size bytes of bytecodes (nops), a line number
 * table of n (bci, line) pairs and, when file is not NULL, a source file. */
static inline void hi_method_lines(struct hotspot_image *im, int jdk, uint64_t m, uint16_t code_size,
				   const int (*pairs)[2], size_t n, const char *file)
{
	uint64_t cm = HI_CM(m);
	uint8_t table[64];
	size_t len = hi_lt_write(table, jdk >= 20 ? 1 : 0, pairs, n);

	hi_u16(im, cm + 28, 1); /* has_linenumber_table */
	hi_u16(im, cm + 32, code_size);
	hi_put(im, HI_CODE(m) + code_size, table, len);
	hi_u32(im, cm + 24, (uint32_t)((48 + code_size + len + 7) / 8));
	if (file) {
		hi_u64(im, HI_CP(m) + 72 + 2 * 8, hi_symbol(im, m + 0x240, file));
		if (jdk == 8)
			hi_u16(im, HI_KLASS(m) + 40, 2);
		else
			hi_u16(im, HI_CP(m) + 54, 2);
	}
}

static inline void hi_blob(struct hotspot_image *im, int jdk, uint64_t blob, const char *name,
			   uint32_t size, uint32_t frame_words, uint32_t complete, uint64_t code_begin)
{
	hi_u64(im, blob + 96, hi_str(im, name));
	hi_u32(im, blob + 12, size);
	hi_u32(im, blob + 20, complete);
	hi_u32(im, blob + 28, frame_words);
	if (jdk == 8) { /* offsets from the blob */
		hi_u32(im, blob + 32, (uint32_t)(code_begin - blob));
		hi_u32(im, blob + 36, size);
	} else {
		hi_u64(im, blob + 32, code_begin);
		hi_u64(im, blob + 40, blob + size);
	}
}

/* Puts code[from, to) of x86_code.h at code_begin and ends the blob's
 * code there (CodeBlob::_code_end, or _data_offset in JDK 8). */
static inline void hi_code(struct hotspot_image *im, int jdk, uint64_t blob, uint64_t code_begin,
			   unsigned from, unsigned to)
{
	hi_put(im, code_begin, x86_code + from, to - from);
	if (jdk == 8)
		hi_u32(im, blob + 36, (uint32_t)(code_begin - blob + (to - from)));
	else
		hi_u64(im, blob + 40, code_begin + (to - from));
}

/* Marks segments [first, first + n) as one block in the segment map. */
static inline void hi_block(struct hotspot_image *im, unsigned first, unsigned n, uint64_t len)
{
	unsigned i;

	for (i = 0; i < n; i++)
		hi_u8(im, HI_SEGMAP + first + i, (uint8_t)(i > 254 ? 254 : i));
	hi_u64(im, HI_HEAP + ((uint64_t)first << 7), len);
	hi_u8(im, HI_HEAP + ((uint64_t)first << 7) + 8, 1);
}

static inline void hotspot_image__build_jdk(struct hotspot_image *im, int jdk)
{
	int mask = jdk == 8 ? HI_J8 : jdk == 21 ? HI_J21 : HI_J17;
	uint64_t e;
	size_t i;

	memset(im->mem, 0, sizeof(im->mem));
	im->str_next = HI_STRINGS;
	/* the exported variables: table pointers, then entry layouts */
	for (i = 0; i < HS_NSYMBOLS; i++)
		im->sym[i] = HI_SYMS + i * 8;
	hi_u64(im, im->sym[HS_SYM_STRUCTS], HI_STRUCTS);
	hi_u64(im, im->sym[HS_SYM_TYPES], HI_TYPES);
	hi_u64(im, im->sym[HS_SYM_INT_CONSTANTS], HI_INTS);
	hi_u64(im, im->sym[HS_SYM_LONG_CONSTANTS], 0);
	hi_u64(im, im->sym[HS_SYM_STRUCT_TYPE_NAME], 0);
	hi_u64(im, im->sym[HS_SYM_STRUCT_FIELD_NAME], 8);
	hi_u64(im, im->sym[HS_SYM_STRUCT_IS_STATIC], 24);
	hi_u64(im, im->sym[HS_SYM_STRUCT_OFFSET], 32);
	hi_u64(im, im->sym[HS_SYM_STRUCT_ADDRESS], 40);
	hi_u64(im, im->sym[HS_SYM_STRUCT_STRIDE], 48);
	hi_u64(im, im->sym[HS_SYM_TYPE_NAME], 0);
	hi_u64(im, im->sym[HS_SYM_TYPE_SIZE], 32);
	hi_u64(im, im->sym[HS_SYM_TYPE_STRIDE], 48);
	hi_u64(im, im->sym[HS_SYM_INT_NAME], 0);
	hi_u64(im, im->sym[HS_SYM_INT_VALUE], 8);
	hi_u64(im, im->sym[HS_SYM_INT_STRIDE], 16);
	/* the tables, each ending in a zeroed entry */
	for (i = 0, e = HI_STRUCTS; i < sizeof(hi_fields) / sizeof(hi_fields[0]); i++) {
		if (!(hi_fields[i].jdks & mask))
			continue;
		hi_u64(im, e + 0, hi_str(im, hi_fields[i].type));
		hi_u64(im, e + 8, hi_str(im, hi_fields[i].field));
		hi_u32(im, e + 24, (uint32_t)hi_fields[i].is_static);
		hi_u64(im, e + (hi_fields[i].is_static ? 40 : 32), hi_fields[i].value);
		e += 48;
	}
	for (i = 0, e = HI_TYPES; i < sizeof(hi_types) / sizeof(hi_types[0]); i++, e += 48) {
		hi_u64(im, e + 0, hi_str(im, hi_types[i].type));
		hi_u64(im, e + 32, hi_types[i].size);
	}
	hi_u64(im, HI_INTS + 0, hi_str(im, "frame::interpreter_frame_sender_sp_offset"));
	hi_u32(im, HI_INTS + 8, (uint32_t)-1);
	hi_u64(im, HI_INTS + 16, hi_str(im, "frame::interpreter_frame_last_sp_offset"));
	hi_u32(im, HI_INTS + 24, (uint32_t)-2);
	/* statics: JDK 8's one heap is the CodeHeap itself */
	hi_u64(im, HI_STATICS + 0x00, jdk == 8 ? HI_CODEHEAP_OBJ : HI_ARRAY);
	hi_u64(im, HI_STATICS + 0x08, HI_HEAP);
	hi_u64(im, HI_STATICS + 0x10, HI_HEAP + HI_HEAP_SIZE);
	hi_u64(im, HI_STATICS + 0x18, HI_CALL_STUB_RA);
	hi_u64(im, HI_STATICS + 0x20, hi_str(im, jdk == 8 ? "25.392-b08" : jdk == 21 ? "21.0.2+13-test" : "17.0.15+6-test"));
	/* one code heap */
	hi_u32(im, HI_ARRAY + 0, 1);
	hi_u64(im, HI_ARRAY + 8, HI_ARRAY + 16);
	hi_u64(im, HI_ARRAY + 16, HI_CODEHEAP_OBJ);
	hi_u64(im, HI_CODEHEAP_OBJ + 8 + 0, HI_HEAP);
	hi_u64(im, HI_CODEHEAP_OBJ + 8 + 16, HI_HEAP);
	hi_u64(im, HI_CODEHEAP_OBJ + 8 + 24, HI_HEAP + HI_HEAP_SIZE);
	hi_u64(im, HI_CODEHEAP_OBJ + 120 + 16, HI_SEGMAP);
	hi_u32(im, HI_CODEHEAP_OBJ + 256, 7);
	memset(im->mem + (HI_SEGMAP - HI_BASE), 0xFF, HI_HEAP_SIZE >> 7);
	hi_block(im, 0, 8, 0x400);
	hi_block(im, 8, 32, 0x1000);
	hi_block(im, 40, 8, 0x400);
	hi_block(im, 48, 8, 0x400);
	hi_block(im, 56, 8, 0x400);
	hi_block(im, 64, 4, 0x200);
	hi_block(im, 68, 8, 0x400);
	/* the interpreter */
	hi_blob(im, jdk, HI_INTERP_BLOB, "Interpreter", 0x3f0, 0, 0, HI_INTERP_BLOB + 104);
	/* a compiled method, com.example.Outer.run with Inner.step inlined */
	hi_blob(im, jdk, HI_NM_BLOB, "nmethod", 0xff0, 6, 16, HI_NM_CODE);
	hi_u64(im, HI_NM_BLOB + 112, HI_M_OUTER);
	hi_u32(im, HI_NM_BLOB + 304, 42);
	hi_u32(im, HI_NM_BLOB + 260, 0x800); /* metadata: Inner, Outer */
	hi_u64(im, HI_NM_BLOB + 0x800, HI_M_INNER);
	hi_u64(im, HI_NM_BLOB + 0x808, HI_M_OUTER);
	if (jdk == 8) /* scopes */
		hi_u32(im, HI_NM_BLOB + 120, 0x810);
	else
		hi_u64(im, HI_NM_BLOB + 120, HI_NM_BLOB + 0x810);
	/* offset 0 is the null scope; 1: Outer (no sender, index 2, bci 4);
	 * 4: Inner (sender 1, index 1, bci 7); JDK 21 stores each plus one */
	{
		uint8_t scopes[] = { 0, 0, 2, 5, 1, 1, 8, 0 };
		size_t k;

		for (k = 1; jdk == 21 && k < sizeof(scopes) - 1; k++)
			scopes[k]++;
		hi_put(im, HI_NM_BLOB + 0x810, scopes, sizeof(scopes));
	}
	hi_u32(im, HI_NM_BLOB + 268, 0x900); /* PcDescs */
	hi_u32(im, HI_NM_BLOB + 272, 0x930);
	hi_u32(im, HI_NM_BLOB + 0x900, 0x40);
	hi_u32(im, HI_NM_BLOB + 0x904, 1);
	hi_u32(im, HI_NM_BLOB + 0x910, 0x80);
	hi_u32(im, HI_NM_BLOB + 0x914, 4);
	hi_u32(im, HI_NM_BLOB + 0x920, 0x100);
	hi_u32(im, HI_NM_BLOB + 0x924, 1);
	/* a runtime stub with a two-word frame */
	hi_blob(im, jdk, HI_STUB_BLOB, "_new_instance_Java", 0x3f0, 2, 8, HI_STUB_BLOB + 104);
	/* a C2 method: a 64-byte frame whole from X_C2_BODY on */
	hi_blob(im, jdk, HI_C2_BLOB, "nmethod", 0x3f0, 8, X_C2_BODY, HI_C2_CODE);
	hi_code(im, jdk, HI_C2_BLOB, HI_C2_CODE, 0, X_C1_VERIFIED);
	hi_u64(im, HI_C2_BLOB + 112, HI_M_OUTER);
	hi_u32(im, HI_C2_BLOB + 304, 43);
	hi_u32(im, HI_C2_BLOB + 260, 0x300);
	if (jdk == 8)
		hi_u32(im, HI_C2_BLOB + 120, 0x300);
	else
		hi_u64(im, HI_C2_BLOB + 120, HI_C2_BLOB + 0x300);
	hi_u32(im, HI_C2_BLOB + 268, 0x300);
	hi_u32(im, HI_C2_BLOB + 272, 0x300);
	/* the stub routines: no frame size, a stub keeping an rbp frame */
	hi_blob(im, jdk, HI_SR_BLOB, "StubRoutines (2)", 0x3f0, 0, (uint32_t)-1, HI_SR_CODE);
	hi_code(im, jdk, HI_SR_BLOB, HI_SR_CODE, X_STUB_ENTRY, X_LEAF_ENTRY);
	/* C1's leaf stub: frame size -1 */
	hi_blob(im, jdk, HI_LEAF_BLOB, "slow_subtype_check Runtime1 stub", 0x1f0, (uint32_t)-1,
		(uint32_t)-1, HI_LEAF_CODE);
	hi_code(im, jdk, HI_LEAF_BLOB, HI_LEAF_CODE, X_LEAF_ENTRY, X_NOBANG_ENTRY);
	/* a native method's wrapper: its Method*, no scopes */
	hi_blob(im, jdk, HI_NATIVE_BLOB, "native nmethod", 0x3f0, 6, 16, HI_NATIVE_CODE);
	hi_u64(im, HI_NATIVE_BLOB + 112, HI_M_INNER);
	hi_u32(im, HI_NATIVE_BLOB + 304, 7);
	/* the methods */
	hi_method(im, HI_M_OUTER, "com/example/Outer", "run");
	hi_method(im, HI_M_INNER, "com/example/Outer$Inner", "step");
	hi_method(im, HI_M_LAMBDA, "com/example/Main$$Lambda$14+0x0000000800c01200", "run");
	{
		/* a line delta of 39988 takes an escape of three bytes */
		static const int outer[][2] = { { 0, 10 }, { 4, 11 }, { 8, 12 }, { 20, 40000 } };
		/* before JDK 20, a zero byte inside the first escape */
		static const int inner[][2] = { { 0, 100 }, { 5, 101 } };

		hi_method_lines(im, jdk, HI_M_OUTER, 32, outer, 4, "Outer.java");
		hi_method_lines(im, jdk, HI_M_INNER, 16, inner, 2, "Outer.java");
	}

	im->region.addr = HI_BASE;
	im->region.bytes = im->mem;
	im->region.len = sizeof(im->mem);
	im->img.regions = &im->region;
	im->img.n = 1;
}

static inline void hotspot_image__build(struct hotspot_image *im)
{
	hotspot_image__build_jdk(im, 17);
}

static inline void hotspot_image__source(struct hotspot_image *im, struct memsource *m)
{
	memsource__image(m, &im->img);
}

#endif
