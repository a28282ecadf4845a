/* The binaries whose code a profile's unnamed frames are in: a module's
 * short name (what "MODULE+0xSTART" and "[MODULE]" frames say), its path
 * as the process saw it, and its GNU build ID. A dump keeps those its
 * frames name, so that a machine with the debug files can name the frames
 * later (`smolder report --debug-dir`): the start in "MODULE+0xSTART" is
 * an ELF virtual address of the binary, which its debug file shares.
 *
 * One table serves a whole recording (the collector adds each binary it
 * indexes) and is borrowed by the windows' profiles; a dump read back has
 * its own. Bounded: past MAPPINGS_MAX entries new binaries are not kept
 * (their frames stay unnamed afterwards, as before). Not thread-safe. */
#ifndef SMOLDER_PROFILE_MAPPINGS_H
#define SMOLDER_PROFILE_MAPPINGS_H
#include <stdbool.h>
#include <stddef.h>

#define MAPPINGS_MAX 65536
/* A build ID in hex: GNU build IDs are 20 bytes (SHA-1), at most 64 kept. */
#define MAPPING_BUILD_ID_HEX_MAX 128

struct mapping {
	const char *module;   /* the frames' name for it: the file's basename */
	const char *path;     /* "" when unknown */
	const char *build_id; /* lowercase hex; "" when the file has none */
};

struct mappings;

struct mappings *mappings__new(void);
void mappings__delete(struct mappings *m);

/* Adds a binary once (the same module, path and build ID again is no new
 * entry). build_id may be NULL (none). Returns 0, -ENOSPC past
 * MAPPINGS_MAX, -EINVAL for an empty module or a build ID that is not
 * hex, or -ENOMEM. */
int mappings__add(struct mappings *m, const char *module, const char *path, const char *build_id);
/* A build ID's bytes in lowercase hex into hex (MAPPING_BUILD_ID_HEX_MAX
 * + 1 bytes; a longer ID is cut there). */
void mappings__hex(const unsigned char *id, size_t len, char *hex);
/* The same from a build ID's bytes. */
int mappings__add_bytes(struct mappings *m, const char *module, const char *path, const unsigned char *id,
			size_t len);

size_t mappings__count(const struct mappings *m);
/* Entry i (0 <= i < count), in the order added. */
const struct mapping *mappings__at(const struct mappings *m, size_t i);

/* The entries named module[0..len): their number, the first max of their
 * indexes into idx. */
size_t mappings__named(const struct mappings *m, const char *module, size_t len, size_t *idx, size_t max);
/* The one binary module[0..len) names; NULL when none does, or when
 * several different ones (another path or build ID) share the name, as
 * two versions of a library in two containers may: then *ambiguous. */
const struct mapping *mappings__find(const struct mappings *m, const char *module, size_t len, bool *ambiguous);

#endif
