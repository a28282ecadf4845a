/* Sizing compressed debug data before it is inflated (decompression bombs
 * in other users' binaries). Thread-safe (no state). */
#ifndef SMOLDER_SYMBOLIZE_DEBUGDATA_H
#define SMOLDER_SYMBOLIZE_DEBUGDATA_H
#include <stddef.h>
#include <stdint.h>

/* Real MiniDebugInfo is a few MB at most. */
#define DEBUGDATA_MAX_MINIDEBUG (128u << 20)
/* Beyond this total of compressed DWARF, a file's own DWARF is not used
 * (its symbol tables still are). */
#define DEBUGDATA_MAX_ZDEBUG (256u << 20)

/* What the compressed debug data of an ELF file inflates to. */
struct debugdata_sizes {
	uint64_t minidebug;  /* .gnu_debugdata, decompressed; 0: none */
	int minidebug_ok;    /* 0: not provably at most DEBUGDATA_MAX_MINIDEBUG
	                      * (the file must then not reach libdwfl at all) */
	uint64_t zdebug;     /* compressed DWARF sections, as declared */
	int zdebug_ok;       /* 0: over DEBUGDATA_MAX_ZDEBUG (its DWARF must not
	                      * be opened; its symbol tables still may) */
};

/* Measures the ELF file open at fd. A file libelf cannot read has no debug
 * data to inflate: libdwfl refuses it by itself. */
void debugdata__measure(int fd, struct debugdata_sizes *out);

/* The number of bytes the xz image b[0..len) decompresses to, read from its
 * structure: the first stream (the only one libdwfl's decoder reads), whose
 * blocks must be LZMA2 after size-preserving filters; LZMA2 chunks state
 * their unpacked sizes, which the decoder enforces. Returns 0 and *out, or
 * -1 for anything unexpected or over DEBUGDATA_MAX_MINIDEBUG (treated as a
 * bomb). */
int debugdata__xz_unpacked_size(const uint8_t *b, size_t len, uint64_t *out);

#endif
