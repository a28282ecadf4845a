/* Sizing what libdwfl and libdw will read of a binary, before they read
 * it: its symbol tables and DWARF (read into memory, users' files are
 * never mapped) and its compressed debug data, inflated (decompression
 * bombs in other users' binaries). Thread-safe (no state). */
#ifndef SMOLDER_SYMBOLIZE_DEBUGDATA_H
#define SMOLDER_SYMBOLIZE_DEBUGDATA_H
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

/* Real MiniDebugInfo is a few MB at most. */
#define DEBUGDATA_MAX_MINIDEBUG (128u << 20)
/* Beyond this total of compressed DWARF, or of DWARF as stored, a file's
 * own DWARF is not used (its symbol tables still are). */
#define DEBUGDATA_MAX_ZDEBUG (256u << 20)

/* What reading an ELF file's symbols and debug data holds in memory. */
struct debugdata_sizes {
	uint64_t symbols;    /* what libdwfl reads of the file itself: the
	                      * symbol table (.symtab, else .dynsym) with its
	                      * strings, the notes, .gnu.prelink_undo, and
	                      * .gnu_debugdata as stored */
	int symbols_ok;      /* 0: no symbol table section, so that libdwfl
	                      * would read symbols through PT_DYNAMIC, at sizes
	                      * only the file states (it must not reach it) */
	uint64_t minidebug;  /* .gnu_debugdata, decompressed; 0: none */
	int minidebug_ok;    /* 0: not provably at most DEBUGDATA_MAX_MINIDEBUG
	                      * (the file must then not reach libdwfl at all) */
	uint64_t dwarf;      /* DWARF sections as stored, the compressed ones
	                      * excepted */
	uint64_t zdebug;     /* compressed DWARF sections, as declared */
	int gnu_zdebug;      /* some are GNU .zdebug_* ones */
	int zdebug_ok;       /* 0: over DEBUGDATA_MAX_ZDEBUG (its DWARF must not
	                      * be opened; its symbol tables still may) */
};

/* Measures elf (read, not mapped: unwind/elffile.h) from its section
 * headers, reading only the headers of compressed sections and
 * .gnu_debugdata. Hidden sections (elffile__hide) count for nothing. An
 * Elf libelf cannot read has nothing to read: libdwfl refuses it by
 * itself. */
void debugdata__measure(Elf *elf, struct debugdata_sizes *out);

/* The number of bytes the xz image b[0..len) decompresses to, read from its
 * structure: the first stream (the only one libdwfl's decoder reads), whose
 * blocks must be LZMA2 after size-preserving filters; LZMA2 chunks state
 * their unpacked sizes, which the decoder enforces. Returns 0 and *out, or
 * -1 for anything unexpected or over DEBUGDATA_MAX_MINIDEBUG (treated as a
 * bomb). */
int debugdata__xz_unpacked_size(const uint8_t *b, size_t len, uint64_t *out);

#endif
