/* Go's pc-line table (.gopclntab, the pcHeader and what follows it): what
 * Go's own runtime names and unwinds its frames with, present in every Go
 * binary, stripped or not. A pure parser over bytes the caller holds (a
 * binary's section, or a fuzzer's buffer): it finds the function of a pc,
 * its name, its stack-pointer delta at the pc (how far the frame reaches:
 * what unwinds a Go frame without CFI), the calls inlined at the pc (Go's
 * inline tree, FUNCDATA_InlTree with PCDATA_InlTreeIndex) and the source
 * file and line of each of these frames (pcfile, pcln and the file table:
 * 1.2-1.15's one table of the binary, 1.16's cutab of each compilation
 * unit's files).
 *
 * The layouts it reads, by magic (src/runtime/symtab.go of each version):
 *  - 0xfffffffb, Go 1.2-1.15: the table starts with nfunctab and the
 *    functab; _func holds absolute pointers, names and pc-value tables are
 *    offsets into the table itself;
 *  - 0xfffffffa, Go 1.16-1.17: the pcHeader with offsets of funcnametab,
 *    cutab, filetab, pctab and the pclntable;
 *  - 0xfffffff0, Go 1.18-1.19: + textStart, functab entries as 32-bit
 *    offsets from it, funcdata as 32-bit offsets from moduledata.gofunc;
 *  - 0xfffffff1, Go 1.20 on: + _func.startLine, the 16-byte inlinedCall
 *    (no parent: the parent is found at parentPc, as for every version
 *    here).
 * Inlined frames are read for Go 1.13 on (1.12 moved the inline tree to
 * parentPc and 1.13 is the first version whose binaries say which they
 * are; a 0xfffffffb table is read for them only when the caller says the
 * binary is 1.13 or newer).
 *
 * Everything comes from another user's file: every offset is checked
 * against the bytes it points into, every loop is bounded by the bytes it
 * consumes. Names point into the caller's bytes. Thread-safe for reading
 * (a table is never written after gopclntab__open). */
#ifndef SMOLDER_RUNTIMES_GOPCLNTAB_H
#define SMOLDER_RUNTIMES_GOPCLNTAB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gopclntab_version {
	GOPCLNTAB_12 = 1, /* 1.2-1.15 */
	GOPCLNTAB_116,    /* 1.16-1.17 */
	GOPCLNTAB_118,    /* 1.18-1.19 */
	GOPCLNTAB_120,    /* 1.20 on */
};

#define GOPCLNTAB_MAGIC_12 0xfffffffbu
#define GOPCLNTAB_MAGIC_116 0xfffffffau
#define GOPCLNTAB_MAGIC_118 0xfffffff0u
#define GOPCLNTAB_MAGIC_120 0xfffffff1u

/* Bytes of the binary at a vaddr (the inline trees funcdata points to). */
struct gopclntab_region {
	uint64_t vaddr;
	const uint8_t *data;
	size_t size;
};

#define GOPCLNTAB_MAX_REGIONS 16

struct gopclntab_source {
	const uint8_t *data; /* the table, from its magic on (borrowed: it
	                        must outlive the table) */
	size_t size;
	uint64_t text;       /* the binary's .text vaddr: 1.18 on, when the
	                        header's textStart reads 0 (a relocation the
	                        loader fills in) */
	uint64_t gofunc;     /* moduledata.gofunc, go:func.* (1.18 on; 0:
	                        unknown, no inlined frames) */
	const struct gopclntab_region *regions; /* borrowed, copied */
	size_t nregions;
	bool inline_12;      /* a 0xfffffffb table is Go 1.13-1.15's */
};

/* A function of the table. */
struct gopclntab_func {
	uint64_t entry, end; /* [entry, end): its code */
	uint32_t off;        /* of its _func in the table's function data */
	uint32_t index;      /* in the functab */
};

struct gopclntab;

/* Reads the header of src. 0 with *out; -EINVAL for bytes that are no
 * table this knows (a wrong magic, a header whose offsets leave the
 * bytes, no function); -ENOMEM. */
int gopclntab__open(const struct gopclntab_source *src, struct gopclntab **out);
void gopclntab__delete(struct gopclntab *t);

enum gopclntab_version gopclntab__version(const struct gopclntab *t);
/* The functions it describes, and [lo, hi), the code they cover. */
size_t gopclntab__count(const struct gopclntab *t);
void gopclntab__range(const struct gopclntab *t, uint64_t *lo, uint64_t *hi);

/* The function holding pc: 0 with *f, -ENOENT (none, or its entry in the
 * table is damaged). */
int gopclntab__find(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *f);
/* The i-th function, in address order: 0 with *f, -ENOENT. */
int gopclntab__func(const struct gopclntab *t, size_t i, struct gopclntab_func *f);

/* Its name (NUL-terminated in the table, at most GOPCLNTAB_NAME_MAX
 * bytes), or NULL when its offset leads nowhere. */
#define GOPCLNTAB_NAME_MAX 4096
const char *gopclntab__name(const struct gopclntab *t, const struct gopclntab_func *f);
/* The same when the name is at most max bytes long (NULL otherwise): a
 * look at every function's name costs at most max bytes each. */
const char *gopclntab__short_name(const struct gopclntab *t, const struct gopclntab_func *f,
				  size_t max);

/* The stack-pointer delta at pc in f: how many bytes the function has
 * pushed below its entry sp (the return address excluded). 0 with
 * *delta, -ENOENT when the table has no value there (or a damaged one:
 * negative, or over GOPCLNTAB_MAX_FRAME). */
#define GOPCLNTAB_MAX_FRAME (64u << 20)
int gopclntab__spdelta(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
		       uint32_t *delta);

/* f's funcFlag (Go 1.18 on; 0 before): GOPCLNTAB_FLAG_SPWRITE marks a
 * function that writes sp in ways its SP deltas do not say (a switch of
 * stacks: gogo, the calls into the vDSO and C), whose frame Go's own
 * traceback does not step over (src/runtime/symtab.go, funcFlag_SPWRITE;
 * internal/abi.FuncFlagSPWrite from Go 1.21). */
#define GOPCLNTAB_FLAG_SPWRITE 2
uint8_t gopclntab__flags(const struct gopclntab *t, const struct gopclntab_func *f);

/* A pc-value table of f at pc, by PCDATA index: 0 with *v (-1 where the
 * table says nothing), -ENOENT when f has no such table. */
int gopclntab__pcdata(const struct gopclntab *t, const struct gopclntab_func *f, uint32_t table,
		      uint64_t pc, int32_t *v);

/* The calls inlined at pc in f, innermost first (the function that holds
 * them is not one of them): their names, at most max. Returns how many. */
size_t gopclntab__inlined(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
			  const char **names, size_t max);

/* The source position of the code at pc in f, as runtime.FuncForPC(pc)
 * .FileLine(pc) gives it: the file (NUL-terminated in the table, at most
 * GOPCLNTAB_NAME_MAX bytes) and line (> 0). Where pc is in a call inlined
 * into f, that is a line of the inlined function's body, not of f
 * (gopclntab__frames gives each frame its own). pc is the address looked
 * up, as is: for a return address the caller passes pc - 1, as Go's
 * traceback does. 0 with *file and *line; -ENOENT when pc is outside f or
 * the table has no position for it (none, or a damaged one). */
int gopclntab__line(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
		    const char **file, uint32_t *line);

/* A frame at a pc: a function and where in its source it is. */
struct gopclntab_frame {
	const char *name; /* in the table; NULL when its offset leads nowhere */
	const char *file; /* in the table; NULL when not known (line 0) */
	uint32_t line;
};

/* The frames at pc in f, innermost first: the calls inlined at pc (the
 * names gopclntab__inlined gives), then f itself, the last. The innermost
 * is at pc's position (gopclntab__line); each other one at its call of
 * the frame before it: the inline tree's parentPc, looked up in f's own
 * tables, as runtime.CallersFrames does. pc as for gopclntab__line. At
 * most max: deeper inlined calls leave out their outermost ones, and f
 * stays the last, at its own line. A frame whose position cannot be told
 * has no file (f's too when its inline tree cannot be read but pc is in
 * an inlined call: the line there is not f's). Returns how many: 0 only
 * for max 0. No allocation; names and files point into the table. */
size_t gopclntab__frames(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t pc,
			 struct gopclntab_frame *frames, size_t max);

#endif
