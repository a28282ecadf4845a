/* Byte sources for runtime readers: a live process or a memory image. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/accountant.h"
#include "runtimes/memsource.h"
#include "runtimes/procmem.h"

#define PAGE 4096u

static int process_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return procmem__read((pid_t)(intptr_t)ctx, addr, buf, len);
}

static int process_readv(void *ctx, const uint64_t *addrs, const size_t *lens, void *const *bufs,
			 bool *ok, size_t n)
{
	return procmem__readv((pid_t)(intptr_t)ctx, addrs, lens, bufs, ok, n);
}

void memsource__process(struct memsource *m, pid_t pid)
{
	m->read = process_read;
	m->readv = process_readv;
	m->ctx = (void *)(intptr_t)pid;
	m->reads = 0;
	m->ledger = NULL;
}

static int image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct memimage *img = ctx;
	size_t i;

	for (i = 0; i < img->n; i++) {
		const struct memimage_region *r = &img->regions[i];

		if (addr >= r->addr && addr - r->addr <= r->len && len <= r->len - (addr - r->addr)) {
			if (len)
				memcpy(buf, r->bytes + (addr - r->addr), len);
			return 0;
		}
	}
	return -EFAULT;
}

void memsource__image(struct memsource *m, const struct memimage *img)
{
	m->read = image_read;
	m->readv = NULL;
	m->ctx = (void *)img;
	m->reads = 0;
	m->ledger = NULL;
}

int memsource__read(struct memsource *m, uint64_t addr, void *buf, size_t len)
{
	if (addr + len < addr)
		return -EINVAL;
	m->reads++;
	ledger__charge_read(m->ledger, len);
	return m->read(m->ctx, addr, buf, len);
}

int memsource__readv(struct memsource *m, const uint64_t *addrs, const size_t *lens,
		     void *const *bufs, bool *ok, size_t n)
{
	size_t i;
	int got = 0, rc;

	if (n > MEMSOURCE_SPANS_MAX)
		return -EINVAL;
	if (m->readv && n > 1) {
		size_t bytes = 0;

		for (i = 0; i < n; i++)
			bytes += lens[i];
		m->reads++;
		ledger__charge_read(m->ledger, bytes);
		return m->readv(m->ctx, addrs, lens, bufs, ok, n);
	}
	for (i = 0; i < n; i++) {
		rc = memsource__read(m, addrs[i], bufs[i], lens[i]);
		ok[i] = rc == 0;
		got += ok[i];
		if (rc == -ESRCH)
			return rc;
	}
	return got;
}

int memsource__u64(struct memsource *m, uint64_t addr, uint64_t *v)
{
	return memsource__read(m, addr, v, sizeof(*v));
}

int memsource__u32(struct memsource *m, uint64_t addr, uint32_t *v)
{
	return memsource__read(m, addr, v, sizeof(*v));
}

int memsource__u16(struct memsource *m, uint64_t addr, uint16_t *v)
{
	return memsource__read(m, addr, v, sizeof(*v));
}

ssize_t memsource__str(struct memsource *m, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (size == 0)
		return -EINVAL;
	while (got < size - 1) {
		uint64_t at = addr + got;
		size_t chunk = PAGE - (size_t)(at % PAGE), i;
		int rc;

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		rc = memsource__read(m, at, buf + got, chunk);
		if (rc < 0) {
			buf[got] = '\0';
			return rc;
		}
		for (i = 0; i < chunk; i++)
			if (buf[got + i] == '\0')
				return (ssize_t)(got + i);
		got += chunk;
	}
	buf[got] = '\0';
	return -ENAMETOOLONG;
}
