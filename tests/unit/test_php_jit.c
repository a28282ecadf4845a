/* runtimes/php_jit: what proves which PHP function opcache's tracing JIT
 * ran, on images of JIT code and opcodes: the nearest trace start at or
 * below a pc (both encodings of the store of its number), found as the
 * handler of one of the function's instructions; stores that are not a
 * trace start; the reach of the scan; the caches; hostile images. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "runtimes/memsource.h"
#include "runtimes/php_jit.h"
#include "runtimes/php_layout.h"

#define EG 0x55550000a000ull        /* executor_globals */
#define TRACE_NUM (EG + 0x1f8)      /* EG(jit_trace_num) in 8.2 */
#define JIT 0x7f0000000000ull       /* the JIT buffer */
#define JIT_PAGES 8
#define OPS 0x7f1000000000ull       /* a function's opcodes */
#define NOPS 40
#define ZOP 32
#define LOW_EG 0x800000ull          /* executor_globals of a non-PIE build */
#define MS 1000000ull

static uint8_t code[JIT_PAGES * 4096];
static uint8_t ops[NOPS * ZOP];
static struct memimage_region regions[2];
static struct memimage image;
static struct memsource mem;
static const struct php_layout *layout;

static void put_pie_start(uint64_t at, uint64_t where, uint32_t num)
{
	uint8_t *b = code + (at - JIT);

	b[0] = 0x48;
	b[1] = 0xb8;
	memcpy(b + 2, &where, 8);
	b[10] = 0xc7;
	b[11] = 0x00;
	memcpy(b + 12, &num, 4);
}

static void put_abs_start(uint64_t at, uint32_t where, uint32_t num)
{
	uint8_t *b = code + (at - JIT);

	b[0] = 0xc7;
	b[1] = 0x04;
	b[2] = 0x25;
	memcpy(b + 3, &where, 4);
	memcpy(b + 7, &num, 4);
}

static void set_handler(size_t k, uint64_t h)
{
	memcpy(ops + k * ZOP, &h, 8);
}

/* JIT code of nops (0x90) from JIT, the function's handlers all the VM's
 * (addresses in no JIT code) */
static void setup(void)
{
	size_t k;

	memset(code, 0x90, sizeof(code));
	memset(ops, 0, sizeof(ops));
	for (k = 0; k < NOPS; k++)
		set_handler(k, 0x555500100000ull + k * 0x40);
	regions[0] = (struct memimage_region){ JIT, code, sizeof(code) };
	regions[1] = (struct memimage_region){ OPS, ops, sizeof(ops) };
	image = (struct memimage){ regions, 2 };
	memsource__image(&mem, &image);
	layout = php_layout__by_api(20220829);
	cr_assert_not_null(layout);
	cr_assert_eq(layout->zop_size, ZOP);
}

static int witness(struct php_jit *j, uint64_t pc, uint64_t now_ns, uint64_t *opline)
{
	return php_jit__witness(j, &mem, layout, pc, OPS, NOPS, now_ns, opline);
}

TestSuite(php_jit, .init = setup);

Test(php_jit, the_trace_holding_the_pc_names_its_function)
{
	struct php_jit *j = php_jit__new(EG);
	uint64_t at;

	/* trace 1 (another function's) at +0x100, trace 2 (this one's,
	 * entered at its instruction 7) at +0x1800, trace 3 at +0x3000 */
	put_pie_start(JIT + 0x100, TRACE_NUM, 1);
	put_pie_start(JIT + 0x1800, TRACE_NUM, 2);
	put_pie_start(JIT + 0x3000, TRACE_NUM, 3);
	set_handler(7, JIT + 0x1800);
	cr_assert_eq(witness(j, JIT + 0x1800, MS, &at), 0, "a pc at the trace's first byte");
	cr_assert_eq(at, OPS + 7 * ZOP);
	cr_assert_eq(witness(j, JIT + 0x2fff, MS, &at), 0, "the trace's last byte, a page on");
	cr_assert_eq(at, OPS + 7 * ZOP);
	cr_assert_eq(witness(j, JIT + 0x17ff, MS, &at), -ENOENT, "the trace before it");
	cr_assert_eq(at, 0);
	cr_assert_eq(witness(j, JIT + 0x3004, MS, &at), -ENOENT, "the trace after it");
	cr_assert_eq(witness(j, JIT + 0x80, MS, &at), -ENOENT, "code before any trace");
	php_jit__delete(j);
}

Test(php_jit, stores_that_start_no_trace_are_passed_over)
{
	struct php_jit *j = php_jit__new(EG);
	uint64_t at;

	put_pie_start(JIT + 0x200, TRACE_NUM, 4);
	set_handler(3, JIT + 0x200);
	/* inside the trace: the same store outside the executor globals, of
	 * trace number 0, of a number no trace has, and bytes cut short */
	put_pie_start(JIT + 0x400, EG + PHP_JIT_EG_SPAN, 5);
	put_pie_start(JIT + 0x500, EG - 8, 5);
	put_pie_start(JIT + 0x600, TRACE_NUM, 0);
	put_pie_start(JIT + 0x700, TRACE_NUM, 1u << 20);
	put_pie_start(JIT + 0x800, TRACE_NUM, 6);
	code[0x800 + 11] = 0x01; /* mov [rcx], not [rax] */
	cr_assert_eq(witness(j, JIT + 0x900, MS, &at), 0);
	cr_assert_eq(at, OPS + 3 * ZOP);
	php_jit__delete(j);
}

Test(php_jit, a_non_pie_builds_absolute_store_starts_a_trace)
{
	struct php_jit *j = php_jit__new(LOW_EG);
	uint64_t at;

	put_abs_start(JIT + 0x40, (uint32_t)(LOW_EG + 0x1f8), 9);
	set_handler(0, JIT + 0x40);
	cr_assert_eq(witness(j, JIT + 0x60, MS, &at), 0);
	cr_assert_eq(at, OPS);
	/* the PIE form of the same store, from another executor's globals */
	put_pie_start(JIT + 0x50, TRACE_NUM, 10);
	cr_assert_eq(witness(j, JIT + 0x61, MS, &at), 0, "passed over: not these globals");
	php_jit__delete(j);
}

Test(php_jit, a_start_beyond_the_scans_reach_proves_nothing)
{
	struct php_jit *j = php_jit__new(EG);
	uint64_t at, pc = JIT + 0x100 + PHP_JIT_SCAN_BYTES + 0x1000;

	put_pie_start(JIT + 0x100, TRACE_NUM, 1);
	set_handler(2, JIT + 0x100);
	cr_assert_eq(witness(j, pc, MS, &at), -ENOENT);
	cr_assert_eq(witness(j, JIT + 0x100 + 0x2000, MS, &at), 0, "within reach");
	php_jit__delete(j);
}

Test(php_jit, answers_are_cached_for_a_while)
{
	struct php_jit *j = php_jit__new(EG);
	uint64_t at, scans, hits, reads;

	put_pie_start(JIT + 0x100, TRACE_NUM, 1);
	set_handler(5, JIT + 0x100);
	cr_assert_eq(witness(j, JIT + 0x180, MS, &at), 0);
	reads = mem.reads;
	cr_assert_eq(witness(j, JIT + 0x180, 2 * MS, &at), 0);
	cr_assert_eq(mem.reads, reads, "the second answer reads nothing");
	php_jit__counts(j, &scans, &hits);
	cr_assert_eq(scans, 1);
	cr_assert_eq(hits, 2);
	/* a pc of the same trace below the one scanned from: known too */
	cr_assert_eq(witness(j, JIT + 0x140, 2 * MS, &at), 0);
	cr_assert_eq(mem.reads, reads, "the trace's code is not scanned again");
	/* opcache restarted: the buffer holds other code now */
	put_pie_start(JIT + 0x100, TRACE_NUM, 1);
	set_handler(5, 0);
	cr_assert_eq(witness(j, JIT + 0x180, 3 * MS, &at), 0, "still cached");
	cr_assert_eq(witness(j, JIT + 0x180, PHP_JIT_TTL_NS + 2 * MS, &at), -ENOENT,
		     "read again once the cache is old");
	cr_assert_gt(mem.reads, reads);
	php_jit__delete(j);
}

Test(php_jit, unreadable_code_and_opcodes_are_errors)
{
	struct php_jit *j = php_jit__new(EG);
	uint64_t at;

	cr_assert_eq(witness(j, 0x7e0000000100ull, MS, &at), -EFAULT, "no code at the pc");
	cr_assert_eq(witness(j, 0x100, MS, &at), -EFAULT, "a pc in the first pages");
	/* a start in the buffer's first page, the pages below unmapped */
	put_pie_start(JIT + 0x10, TRACE_NUM, 1);
	cr_assert_eq(php_jit__witness(j, &mem, layout, JIT + 0x20, 0x1000, 4, MS, &at), -EFAULT,
		     "opcodes that do not read");
	set_handler(1, JIT + 0x10);
	cr_assert_eq(witness(j, JIT + 0x20, MS, &at), 0);
	php_jit__delete(j);
}

Test(php_jit, a_hostile_function_costs_bounded_reads)
{
	struct php_jit *j = php_jit__new(EG);
	uint64_t at, reads;

	put_pie_start(JIT + 0x10, TRACE_NUM, 1);
	/* a function claiming 4 G instructions: its handlers are read up to
	 * PHP_JIT_OPS_MAX, and here the image ends first */
	reads = mem.reads;
	cr_assert_eq(php_jit__witness(j, &mem, layout, JIT + 0x20, OPS, UINT32_MAX, MS, &at),
		     -EFAULT);
	cr_assert_leq(mem.reads - reads, 2 + PHP_JIT_OPS_MAX / 128);
	php_jit__delete(j);
}
