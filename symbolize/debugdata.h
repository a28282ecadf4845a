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

/* Whether the ELF file open at fd may be given to libdwfl: false when its
 * .gnu_debugdata section is not provably at most DEBUGDATA_MAX_MINIDEBUG
 * once decompressed. *dwarf_ok is cleared (never set) when its compressed
 * DWARF sections declare more than DEBUGDATA_MAX_ZDEBUG. A file libelf
 * cannot read is "ok": libdwfl refuses it by itself. */
int debugdata__ok(int fd, int *dwarf_ok);

/* The number of bytes the xz image b[0..len) decompresses to, read from its
 * structure: the first stream (the only one libdwfl's decoder reads), whose
 * blocks must be LZMA2 after size-preserving filters; LZMA2 chunks state
 * their unpacked sizes, which the decoder enforces. Returns 0 and *out, or
 * -1 for anything unexpected or over DEBUGDATA_MAX_MINIDEBUG (treated as a
 * bomb). */
int debugdata__xz_unpacked_size(const uint8_t *b, size_t len, uint64_t *out);

#endif
