/* A HotSpot JVM's self-description, read from its memory.
 *
 * libjvm.so exports gHotSpotVMStructs, gHotSpotVMTypes,
 * gHotSpotVMIntConstants and gHotSpotVMLongConstants: arrays naming each
 * field the serviceability agent needs (type, field, offset or a static
 * field's address), each type's size, and constants, for the very build
 * that runs. Their own entry layouts are exported too
 * (gHotSpotVMStructEntryTypeNameOffset, ...). Reading every offset from
 * them is what lets one reader serve JDK 8 to 21 without tables of our
 * own: a field that moved or changed type between versions is found by
 * name (CodeCache::_heap in 8, ::_heaps since 9; nmethod::_scopes_data_offset
 * in 8, CompiledMethod::_scopes_data_begin since 9).
 *
 * Everything here comes from the target and is validated: entry counts,
 * string lengths and offsets are bounded, and a field we need but do not
 * find makes the description unusable rather than guessed. */
#ifndef SMOLDER_RUNTIMES_HOTSPOT_VM_H
#define SMOLDER_RUNTIMES_HOTSPOT_VM_H
#include <stddef.h>
#include <stdint.h>

#include "runtimes/memsource.h"

/* The exported symbols the reader needs, in this order; the caller finds
 * them in libjvm.so's dynamic symbol table and passes their run-time
 * addresses (0: not exported). */
enum hotspot_symbol {
	HS_SYM_STRUCTS, HS_SYM_TYPES, HS_SYM_INT_CONSTANTS, HS_SYM_LONG_CONSTANTS,
	HS_SYM_STRUCT_TYPE_NAME, HS_SYM_STRUCT_FIELD_NAME, HS_SYM_STRUCT_IS_STATIC,
	HS_SYM_STRUCT_OFFSET, HS_SYM_STRUCT_ADDRESS, HS_SYM_STRUCT_STRIDE,
	HS_SYM_TYPE_NAME, HS_SYM_TYPE_SIZE, HS_SYM_TYPE_STRIDE,
	HS_SYM_INT_NAME, HS_SYM_INT_VALUE, HS_SYM_INT_STRIDE,
	HS_NSYMBOLS
};
extern const char *const hotspot_vm__symbol_names[HS_NSYMBOLS];

/* Offsets (bytes) of the fields the readers use, sizes of the types they
 * step over, and addresses of static fields. A field some versions lack is
 * -1 (offsets) or 0 (addresses) when absent. */
struct hotspot_vm {
	int major;                   /* the JDK's feature version (8, 11, 17, ...) */
	char release[32];            /* Abstract_VM_Version::_s_vm_release */
	uint64_t release_var;        /* its address */

	/* the code cache */
	uint64_t codecache_heaps;    /* &CodeCache::_heaps (9+): GrowableArray<CodeHeap*>* */
	uint64_t codecache_heap;     /* &CodeCache::_heap (8): CodeHeap* */
	uint64_t codecache_low, codecache_high; /* &CodeCache::_low_bound/_high_bound (9+) */
	int64_t array_len, array_data;          /* GrowableArrayBase::_len, GrowableArray<int>::_data */
	int64_t heap_memory, heap_segmap, heap_log2_segment; /* CodeHeap:: */
	int64_t vspace_low, vspace_high, vspace_low_boundary; /* VirtualSpace:: */
	int64_t vspace_high_boundary; /* ... -1: not exported */
	int64_t heapblock_used;      /* HeapBlock::_header + HeapBlock::Header::_used */
	uint64_t heapblock_size;     /* sizeof(HeapBlock): a blob follows its block header */
	uint64_t call_stub_return;   /* &StubRoutines::_call_stub_return_address */

	/* code blobs */
	int64_t blob_name, blob_size, blob_frame_complete, blob_frame_size;
	int64_t blob_code_begin;     /* 9+: a pointer */
	int64_t blob_code_offset;    /* 8: an offset from the blob */
	int64_t blob_code_end;       /* 9+: a pointer (-1: absent) */
	int64_t blob_data_offset;    /* where the code ends, from the blob, when
	                                there is no _code_end (8); -1: absent */
	uint64_t blob_header_bytes;  /* how much of a blob to read: sizeof(nmethod) */
	int64_t nm_method, nm_compile_id;
	int64_t nm_scopes_data_begin;    /* 9+: pointer */
	int64_t nm_scopes_data_offset;   /* 8: offset */
	int64_t nm_scopes_pcs_offset, nm_dependencies_offset, nm_metadata_offset;
	int64_t pcdesc_pc_offset, pcdesc_scope_offset;
	uint64_t pcdesc_size;

	/* methods and their names */
	int64_t method_const;        /* Method::_constMethod */
	int64_t constmethod_constants, constmethod_name_index;
	int64_t cpool_holder;        /* ConstantPool::_pool_holder */
	uint64_t cpool_size;         /* sizeof(ConstantPool): the slots follow it */
	int64_t klass_name;          /* Klass::_name */
	int64_t symbol_length, symbol_body;

	/* lines (optional: a JVM without them is named without lines) */
	int64_t constmethod_flags;   /* ConstMethod::_flags (u2; 21+: _flags._flags,
	                                u4): bit 0, has_linenumber_table */
	int64_t constmethod_code_size; /* ConstMethod::_code_size (u2) */
	int64_t constmethod_size;    /* ConstMethod::_constMethod_size (int, words) */
	uint64_t constmethod_bytes;  /* sizeof(ConstMethod): its bytecodes follow
	                                it, then the compressed line table */
	int64_t cpool_source_file;   /* ConstantPool::_source_file_name_index (9+) */
	int64_t klass_source_file;   /* InstanceKlass::_source_file_name_index (8) */

	/* interpreter frames, in words from the frame pointer: the caller's
	 * sp, the Method* and the bytecode pointer (frame_x86.hpp) */
	int interp_sender_sp, interp_method, interp_bcp;
};

/* Reads the description through mem, given the run-time addresses of the
 * exported symbols (sym[HS_SYM_...]). Returns 0 with *vm filled, -ENOENT
 * when the tables are not there (not HotSpot, or a build without them),
 * -EPROTO when they lack a field the readers need or are malformed, or
 * the read's -errno. Bounded: at most HOTSPOT_VM_MAX_ENTRIES entries per
 * table are looked at. */
#define HOTSPOT_VM_MAX_ENTRIES 16384
int hotspot_vm__read(struct memsource *mem, const uint64_t sym[HS_NSYMBOLS], struct hotspot_vm *vm);

#endif
