/* The Go version of a binary, from its build info. */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "runtimes/elf_symbols.h"
#include "runtimes/gobuildinfo.h"

#define BUILDINFO_MAGIC "\xff Go buildinf:"
#define BUILDINFO_MAGIC_LEN 14
#define BUILDINFO_HEADER 32
#define VERSION_MAX 128

static unsigned digits(const char *s, size_t len, size_t *i, int *ok)
{
	unsigned v = 0;
	size_t start = *i;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9' && *i - start < 4)
		v = v * 10 + (unsigned)(s[(*i)++] - '0');
	*ok = *i > start;
	return v;
}

int gobuildinfo__parse(const char *s, size_t len, struct goversion *v)
{
	size_t i;
	int ok1, ok2;

	/* "go1.N" anywhere near the start: "devel go1.22-abc" too */
	for (i = 0; i + 4 <= len && i < 16; i++) {
		size_t j = i + 2;
		unsigned major, minor;

		if (s[i] != 'g' || s[i + 1] != 'o')
			continue;
		major = digits(s, len, &j, &ok1);
		if (!ok1 || j >= len || s[j] != '.')
			continue;
		j++;
		minor = digits(s, len, &j, &ok2);
		if (!ok2)
			continue;
		v->major = major;
		v->minor = minor;
		return 0;
	}
	return -EINVAL;
}

static Elf_Data *section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && strcmp(name, want) == 0)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* Go 1.18 on: the version string inline after the header. */
static int inline_version(const uint8_t *p, size_t size, struct goversion *v)
{
	size_t at = BUILDINFO_HEADER, len = 0;
	unsigned shift = 0;

	while (at < size && shift < 28) {
		uint8_t b = p[at++];

		len |= (size_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (len == 0 || len > VERSION_MAX || at > size || size - at < len)
		return -ENOENT;
	return gobuildinfo__parse((const char *)p + at, len, v) == 0 ? 0 : -ENOENT;
}

/* Before: the address of a string header (data pointer, length). */
static int pointed_version(Elf *elf, const uint8_t *p, struct goversion *v)
{
	uint64_t hdr, str[2];
	char buf[VERSION_MAX];

	memcpy(&hdr, p + 16, 8);
	if (elf_symbols__read(elf, hdr, str, sizeof(str)) != 0 || str[1] == 0 || str[1] > VERSION_MAX ||
	    elf_symbols__read(elf, str[0], buf, (size_t)str[1]) != 0)
		return -ENOENT;
	return gobuildinfo__parse(buf, (size_t)str[1], v) == 0 ? 0 : -ENOENT;
}

int gobuildinfo__version(Elf *elf, struct goversion *v)
{
	GElf_Shdr sh;
	Elf_Data *d = section(elf, ".go.buildinfo", &sh);
	const uint8_t *p;

	if (!d || !d->d_buf || d->d_size < BUILDINFO_HEADER)
		return -ENOENT;
	p = d->d_buf;
	/* little-endian, 8-byte pointers: what the agent unwinds */
	if (memcmp(p, BUILDINFO_MAGIC, BUILDINFO_MAGIC_LEN) != 0 || p[14] != 8 || (p[15] & 1))
		return -ENOENT;
	if (p[15] & 2)
		return inline_version(p, d->d_size, v);
	return pointed_version(elf, p, v);
}
