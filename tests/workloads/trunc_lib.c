/* Shared library of truncate_own: 4,096 distinct functions called in a
 * scrambled order, so that a profiler keeps meeting pcs it has not looked
 * up yet. Once trunc_table has copied the table of functions to the heap,
 * trunc_work touches nothing of the file but its code: the kernel takes
 * away every page past a file's new end, copied-on-write ones included,
 * and the process keeps running after its file is cut back to the end of
 * its code. */
#include <stdlib.h>
#include <string.h>

#include "wl_time.h"

typedef unsigned long (*trunc_fn)(unsigned long);

trunc_fn *trunc_table(void);
unsigned long trunc_work(trunc_fn *fns, unsigned long seed, unsigned long calls);

#define FN(n)                                                         \
	static WL_NOINLINE unsigned long f##n(unsigned long x)        \
	{                                                             \
		unsigned long i;                                      \
		for (i = 0; i < 48; i++)                              \
			x = x * (2 * (n##UL) + 3) + (n##UL) + i;      \
		return x;                                             \
	}
#define FN4(p) FN(p##0) FN(p##1) FN(p##2) FN(p##3)
#define FN16(p) FN4(p##0) FN4(p##1) FN4(p##2) FN4(p##3)
#define FN64(p) FN16(p##0) FN16(p##1) FN16(p##2) FN16(p##3)
#define FN256(p) FN64(p##0) FN64(p##1) FN64(p##2) FN64(p##3)
#define FN1024(p) FN256(p##0) FN256(p##1) FN256(p##2) FN256(p##3)
#define FN4096(p) FN1024(p##0) FN1024(p##1) FN1024(p##2) FN1024(p##3)

#define REF(n) f##n,
#define REF4(p) REF(p##0) REF(p##1) REF(p##2) REF(p##3)
#define REF16(p) REF4(p##0) REF4(p##1) REF4(p##2) REF4(p##3)
#define REF64(p) REF16(p##0) REF16(p##1) REF16(p##2) REF16(p##3)
#define REF256(p) REF64(p##0) REF64(p##1) REF64(p##2) REF64(p##3)
#define REF1024(p) REF256(p##0) REF256(p##1) REF256(p##2) REF256(p##3)
#define REF4096(p) REF1024(p##0) REF1024(p##1) REF1024(p##2) REF1024(p##3)

FN4096(1)

static const trunc_fn table[4096] = { REF4096(1) };

trunc_fn *trunc_table(void)
{
	trunc_fn *t = malloc(sizeof(table));

	if (t)
		memcpy(t, table, sizeof(table));
	return t;
}

WL_NOINLINE unsigned long trunc_work(trunc_fn *fns, unsigned long seed, unsigned long calls)
{
	unsigned long x = seed, i;

	for (i = 0; i < calls; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		x += fns[(seed >> 40) & 4095](x);
	}
	return x;
}
