/* Workload: a process posing as Perl 5.36 (doc/security.md 5k), to attack
 * the agent's Perl reader the way a local user can. It exports what the
 * reader recognises an interpreter by (PL_curinterp, Perl_runops_standard,
 * PL_revision, PL_version, PL_subversion) and lays out its interpreter,
 * stack infos, contexts, CVs, GVs, stashes and pads with the very table
 * the reader reads them by (runtimes/perl_layout.c), so the offsets are
 * right by construction and what the test measures is the attack, not a
 * layout the reader refuses. Its Perl_runops_standard spins holding the
 * innermost sub's pad in a register, as the ops of a real runops loop do,
 * so the samples prove what it ran.
 *
 *   plain   three subs, Fake::outer -> Fake::run -> Fake::hot in
 *           fake_perl.pl, nothing changes: the control, showing that the
 *           agent reads and names this interpreter at all.
 *   hostile about every 100 us one of: stack infos in a cycle, a context
 *           index of 2^20 over a 4 KiB array, 4,096 contexts all subs of
 *           a CV whose GV is itself, names of 1 KB, a stash pointing at
 *           the interpreter: every read costs what the reader bounds, and
 *           names only what this process laid out.
 *
 * Usage: fake_perl MODE SECONDS. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/perl_layout.h"
#include "wl_time.h"

/* What the reader recognises an interpreter by: only their addresses and
 * the version bytes' values are read. */
const unsigned char PL_revision = 5, PL_version = 36, PL_subversion = 0;
void *PL_curinterp;
int Perl_runops_standard(void *my_perl);

#define NSUBS 3
#define NCX 4096
#define CX_MAX_BYTES 0x68
#define HOSTILE_KINDS 5
#define STEP_NS 100000

static const struct perl_layout *L;
volatile unsigned long sink;

static uint8_t interp[0x200] __attribute__((aligned(64)));
static uint8_t si[2][0x40] __attribute__((aligned(64)));
static uint8_t cx[NCX][CX_MAX_BYTES] __attribute__((aligned(64)));
static uint8_t cop[0x40] __attribute__((aligned(64)));
static uint8_t cv[NSUBS][0x20] __attribute__((aligned(64)));
static uint8_t cvb[NSUBS][0x80] __attribute__((aligned(64)));
static uint8_t gv[NSUBS][0x20] __attribute__((aligned(64)));
static uint8_t gvb[NSUBS][0x40] __attribute__((aligned(64)));
static uint8_t hek[NSUBS + 1][0x440] __attribute__((aligned(64)));
static uint8_t hv[0x20] __attribute__((aligned(64)));
static uint8_t hvb[0x80] __attribute__((aligned(64)));
static uint64_t padlist[NSUBS][2], pads[NSUBS][2];
static uint8_t av[NSUBS][0x20] __attribute__((aligned(64)));
static uint8_t avb[NSUBS][0x20] __attribute__((aligned(64)));
static uint64_t pad[NSUBS][8];
static uint64_t svs[NSUBS][8][2];
static const char file[] = "/srv/fake/fake_perl.pl";

static void put64(uint8_t *b, unsigned off, uint64_t v) { memcpy(b + off, &v, 8); }
static void put32(uint8_t *b, unsigned off, uint32_t v) { memcpy(b + off, &v, 4); }
static uint64_t addr(const void *p) { return (uint64_t)(uintptr_t)p; }

static void name(int i, const char *s)
{
	put32(hek[i], PERL_HEK_LEN, (uint32_t)strlen(s));
	memcpy(hek[i] + PERL_HEK_KEY, s, strlen(s) + 1);
}

/* The control: Fake::outer -> Fake::run -> Fake::hot, one stack info. */
static void lay_out(void)
{
	static const char *const names[NSUBS] = { "outer", "run", "hot" };
	int i, e;

	memset(cx, 0, sizeof(cx));
	put64(hv, PERL_SV_ANY, addr(hvb));
	put32(hv, PERL_SV_FLAGS, PERL_SVT_PVHV | PERL_SVF_OOK);
	put64(hvb + L->hv_aux, 0, addr(hek[NSUBS]));
	put32(hvb + L->hv_aux, L->aux_name_count, 0);
	name(NSUBS, "Fake");
	for (i = 0; i < NSUBS; i++) {
		put64(cv[i], PERL_SV_ANY, addr(cvb[i]));
		put32(cv[i], PERL_SV_FLAGS, PERL_SVT_PVCV);
		put64(cvb[i], L->cv_gv, addr(gv[i]));
		put64(cvb[i], L->cv_file, addr(file));
		put64(cvb[i], L->cv_padlist, addr(padlist[i]));
		put32(cvb[i], L->cv_flags, 0);
		put64(gv[i], PERL_SV_ANY, addr(gvb[i]));
		put32(gv[i], PERL_SV_FLAGS, PERL_SVT_PVGV);
		put64(gvb[i], L->gv_namehek, addr(hek[i]));
		put64(gvb[i], L->gv_stash, addr(hv));
		name(i, names[i]);
		padlist[i][0] = 1;
		padlist[i][1] = addr(pads[i]);
		pads[i][1] = addr(av[i]);
		put64(av[i], PERL_SV_ANY, addr(avb[i]));
		put32(av[i], PERL_SV_FLAGS, PERL_SVT_PVAV);
		put64(av[i], PERL_SV_U, addr(pad[i]));
		put64(avb[i], PERL_XAV_FILL, 7);
		for (e = 1; e < 8; e++)
			pad[i][e] = addr(svs[i][e]);
		/* context i + 1 (0 is the file's block) */
		cx[i + 1][0] = L->cxt_sub;
		put64(cx[i + 1], L->cx_cv, addr(cv[i]));
		put64(cx[i + 1], L->cx_retop, addr(cop));
		put32(cx[i + 1], L->cx_olddepth, 0);
		put64(cx[i + 1], L->cx_oldcop, addr(cop));
	}
	cx[0][0] = 2;
	put32(cop, L->cop_line, 7);
	put64(si[0], L->si_cxstack, addr(cx));
	put64(si[0], L->si_prev, 0);
	put32(si[0], L->si_cxix, NSUBS);
	put64(interp, L->i_curcop, addr(cop));
	put64(interp, L->i_curstackinfo, addr(si[0]));
	PL_curinterp = interp;
}

/* One of the hostile layouts, kind k. */
static void hostile(unsigned k)
{
	int j;

	lay_out();
	switch (k % HOSTILE_KINDS) {
	case 0: /* stack infos in a cycle */
		put64(si[0], L->si_prev, addr(si[1]));
		put64(si[1], L->si_prev, addr(si[0]));
		put64(si[1], L->si_cxstack, addr(cx));
		put32(si[1], L->si_cxix, NSUBS);
		break;
	case 1: /* an index far past the array */
		put32(si[0], L->si_cxix, 1u << 20);
		break;
	case 2: /* every context a sub whose GV is the CV itself */
		for (j = 0; j < NCX; j++) {
			cx[j][0] = L->cxt_sub;
			put64(cx[j], L->cx_cv, addr(cv[0]));
		}
		put32(si[0], L->si_cxix, NCX - 1);
		put64(cvb[0], L->cv_gv, addr(cv[0]));
		break;
	case 3: /* names of 1 KB, changed every time */
		for (j = 0; j < NSUBS; j++) {
			memset(hek[j] + PERL_HEK_KEY, 'n', 1024);
			hek[j][PERL_HEK_KEY] = (uint8_t)('a' + rand() % 26);
			put32(hek[j], PERL_HEK_LEN, 1024);
		}
		break;
	default: /* the stash is the interpreter */
		put64(gvb[0], L->gv_stash, addr(interp));
		break;
	}
}

/* When the runops loop returns (CLOCK_MONOTONIC seconds). */
static double until;

/* The runops loop: the innermost sub's pad in a register while it spins. */
__attribute__((noinline)) int Perl_runops_standard(void *my_perl)
{
	uint64_t *volatile padp = pad[NSUBS - 1];
	uint64_t *p = padp;
	unsigned long s = 0;
	int i;

	(void)my_perl;
	while (wl_now() < until) {
		for (i = 0; i < 4096; i++)
			s += p[1 + (i & 3)] >> 3;
		sink = s;
		__asm__ volatile("" : "+r"(p));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	double seconds = wl_seconds(argc - 1, argv + 1, 5), end;
	int is_hostile = strcmp(mode, "hostile") == 0;
	unsigned k = 0;

	L = perl_layout__by_version(PL_revision, PL_version);
	if (!L || (!is_hostile && strcmp(mode, "plain") != 0)) {
		fprintf(stderr, "usage: fake_perl plain|hostile SECONDS\n");
		return 2;
	}
	lay_out();
	end = wl_now() + seconds;
	if (!is_hostile) {
		until = end;
		return Perl_runops_standard(interp);
	}
	/* the loop runs in slices, the layout changing between them */
	while (wl_now() < end) {
		hostile(k++);
		until = wl_now() + STEP_NS / 1e9;
		Perl_runops_standard(interp);
	}
	return 0;
}
