/* A few ranges of a process's memory read in one call (runtimes/prefetch.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/memsource.h"
#include "runtimes/prefetch.h"

void prefetch__clear(struct prefetch *pf)
{
	pf->n = 0;
	pf->used = 0;
}

bool prefetch__want(struct prefetch *pf, uint64_t addr, size_t len)
{
	if (!addr || !len || pf->n == PREFETCH_RANGES || len > PREFETCH_BYTES - pf->used ||
	    addr + len < addr)
		return false;
	pf->addr[pf->n] = addr;
	pf->len[pf->n] = len;
	pf->ok[pf->n] = false;
	pf->n++;
	pf->used += len;
	return true;
}

int prefetch__fill(struct prefetch *pf, struct memsource *m)
{
	void *bufs[PREFETCH_RANGES];
	size_t i, at = 0;
	int got;

	if (!pf->n)
		return 0;
	for (i = 0; i < pf->n; i++) {
		bufs[i] = pf->buf + at;
		at += pf->len[i];
	}
	got = memsource__readv(m, pf->addr, pf->len, bufs, pf->ok, pf->n);
	if (got < 0) {
		prefetch__clear(pf);
		return got;
	}
	return 0;
}

int prefetch__take(struct prefetch *pf, uint64_t addr, void *buf, size_t len)
{
	size_t i, at = 0;

	for (i = 0; i < pf->n; i++) {
		if (pf->ok[i] && addr >= pf->addr[i] && len <= pf->len[i] &&
		    addr - pf->addr[i] <= pf->len[i] - len) {
			memcpy(buf, pf->buf + at + (addr - pf->addr[i]), len);
			pf->hits++;
			return 0;
		}
		at += pf->len[i];
	}
	pf->misses++;
	return -ENOENT;
}

int prefetch__read(struct prefetch *pf, struct memsource *m, uint64_t addr, void *buf, size_t len)
{
	return prefetch__take(pf, addr, buf, len) == 0 ? 0 : memsource__read(m, addr, buf, len);
}

int prefetch__u64(struct prefetch *pf, struct memsource *m, uint64_t addr, uint64_t *v)
{
	return prefetch__read(pf, m, addr, v, sizeof(*v));
}

void prefetch__sort_spans(uint64_t *addr, size_t *len, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && addr[j - 1] > addr[j]; j--) {
			uint64_t ta = addr[j];
			size_t tl = len[j];

			addr[j] = addr[j - 1];
			len[j] = len[j - 1];
			addr[j - 1] = ta;
			len[j - 1] = tl;
		}
}
