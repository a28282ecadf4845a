/* The binary registry's private parts, shared by the files that implement
 * it: binary.c (opening, mapping, CFI, names) and binary_symbols.c (what a
 * binary's symbol tables say about the runtimes in it). Nothing outside
 * collector/binary*.c includes this; everyone else sees binary.h. */
#ifndef SMOLDER_COLLECTOR_BINARY_IMPL_H
#define SMOLDER_COLLECTOR_BINARY_IMPL_H
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/binary.h"

#define MAX_LOADS 16
/* Functions of a runtime where stacks end (a handful for Go). */
#define MAX_ROOTS 16

struct load_segment {
	uint64_t offset, vaddr, filesz;
	int exec; /* PF_X */
};

struct binary {
	struct binaries *owner;
	uint64_t dev, ino;
	struct binary *next_same_hash;
	unsigned refs;        /* mappings using it (the vDSO holds one more) */
	uint64_t idle_since;  /* when refs dropped to 0 */
	char *path;      /* as the process sees it */
	char *open_path; /* the path that opened it */
	const char *module;
	struct strtab *names;
	struct cachedir *cache; /* the registry's, for symindex */
	int fd;
	Elf *elf;
	int is_elf;
	struct load_segment loads[MAX_LOADS];
	size_t nloads;
	uint64_t entry; /* e_entry, ELF vaddr; 0 when none */
	struct cfi *cfi;
	int cfi_tried;
	struct symindex *sym;
	int sym_tried;
	struct unwind_root *roots; /* a runtime's roots (Go), sorted */
	size_t nroots;
	int roots_tried;
	uint32_t unknown_frame; /* "[module]", interned on first use */
	struct binary_cpython cpython; /* valid when cpython_found */
	int cpython_tried, cpython_found;
};

#endif
