/* The inside of struct hotspot, shared by hotspot_code.c (the code cache)
 * and hotspot_names.c (naming). Not for other files. */
#ifndef SMOLDER_RUNTIMES_HOTSPOT_IMPL_H
#define SMOLDER_RUNTIMES_HOTSPOT_IMPL_H
#include <stdbool.h>

#include "runtimes/hotspot.h"

struct u64map;

/* A code heap: [low, high) committed, its segment map at segmap. */
struct hotspot_heap {
	uint64_t low, high, segmap;
	unsigned log2_segment;
};
#define HOTSPOT_MAX_HEAPS 8

/* A code blob as read, kept by its code range. */
struct hotspot_blob {
	uint64_t addr, end;          /* the blob: [addr, end) */
	uint64_t code_begin, code_end;
	uint64_t name_ptr;           /* CodeBlob::_name */
	uint64_t method;             /* nmethods: Method* */
	uint64_t pcs_begin, pcs_end; /* nmethods: PcDesc table */
	uint64_t scopes_begin;       /* nmethods: scope descriptors */
	uint64_t metadata_begin;     /* nmethods: metadata slots up to scopes_begin */
	uint64_t checked_ns;
	int32_t compile_id;
	uint32_t frame_bytes;
	int32_t frame_complete;      /* CodeBlob::_frame_complete_offset; -1:
	                                never (C1's runtime stubs) */
	enum hotspot_code_kind kind;
};

struct hotspot {
	struct memsource mem;
	struct hotspot_vm vm;
	struct strtab *names;
	bool lines;                  /* frames carry their file and line */
	uint64_t call_stub_return;   /* StubRoutines::_call_stub_return_address */
	uint64_t cc_low, cc_high;    /* the whole code cache's reserved range */
	struct hotspot_heap heaps[HOTSPOT_MAX_HEAPS];
	size_t nheaps;
	uint64_t heaps_read_ns;      /* 0: never */
	struct hotspot_blob *blobs;  /* sorted by addr, disjoint */
	size_t nblobs, cap;
	struct u64map *method_ids;   /* Method* | tag -> frame id */
	struct u64map *pc_frames;    /* hash(pc, blob, compile id) -> offset in pool */
	struct u64map *frames;       /* pc -> its frame, packed (hotspot_frames.c) */
	uint32_t *pool;              /* [count, ids...] runs */
	size_t npool, pool_cap;
	/* with lines (hotspot_names.c): what a method's lines need, read once */
	struct u64map *methods;      /* Method* -> its record's offset in text */
	struct u64map *class_files;  /* InstanceKlass* -> its source file's
	                                offset in text + 1 (0: none) */
	char *text;                  /* the records and file names */
	size_t ntext, text_cap;
	uint64_t names_since_ns;     /* when the name caches were last emptied */
	uint64_t now_ns;             /* of the naming under way */
	struct hotspot_stats stats;
};

/* The blob holding pc (cached, checked again when old), or NULL. */
const struct hotspot_blob *hotspot_code__blob(struct hotspot *h, uint64_t pc, uint64_t now_ns);
/* Whether one more uncached lookup may read the JVM's memory this second
 * (its ledger's budget, runtimes/accountant.h). */
bool hotspot_code__may_read(struct hotspot *h, uint64_t now_ns);
/* Reads the code cache's bounds and heaps. 0 or -errno. */
int hotspot_code__read_heaps(struct hotspot *h, uint64_t now_ns);
/* Empties the name caches (hotspot_names.c). */
void hotspot_names__clear(struct hotspot *h);

#endif
