/* The Go version a binary was built with, from its .go.buildinfo section
 * (Go 1.13 on, stripped or not: src/debug/buildinfo/buildinfo.go reads the
 * same): a 32-byte header "\xff Go buildinf:", the pointer size and flags;
 * from Go 1.18 (flag 2) the version string follows inline, length-prefixed
 * by a varint, before that the header holds the address of a Go string
 * header (pointer, length) of the version. The ELF is another user's file:
 * lengths are bounded. Thread-safe for distinct Elf handles. */
#ifndef SMOLDER_RUNTIMES_GOBUILDINFO_H
#define SMOLDER_RUNTIMES_GOBUILDINFO_H
#include <libelf.h>
#include <stddef.h>

/* A Go version as major.minor (1.19 -> 119). */
struct goversion {
	unsigned major, minor;
};

/* Parses "go1.19.8", "go1.25-20250209-RC00 ...", "devel go1.22-..." into
 * *v. 0, or -EINVAL. */
int gobuildinfo__parse(const char *s, size_t len, struct goversion *v);

/* The version elf says it was built with. 0 with *v, -ENOENT when it says
 * none (before Go 1.13, or no readable build info). */
int gobuildinfo__version(Elf *elf, struct goversion *v);

/* Major * 100 + minor, for comparisons: 1.19 -> 119. */
static inline unsigned goversion__num(const struct goversion *v)
{
	return v->major * 100 + v->minor;
}

#endif
