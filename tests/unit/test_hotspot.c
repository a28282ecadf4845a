/* runtimes/hotspot*: the JVM reader on a synthetic JVM image
 * (hotspot_image.h): its description read from vmStructs, code cache
 * lookups, frame names, and its behaviour on damaged images. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "runtimes/accountant.h"
#include "runtimes/hotspot.h"
#include "runtimes/hotspot_vm.h"
#include "runtimes/javacmd.h"
#include "runtimes/memsource.h"
#include "runtimes/x86_frame.h"
#include "hotspot_image.h"
#include "tests/unit/rounds.h"

#define SEC 1000000000ull

static struct hotspot_image *image(void)
{
	struct hotspot_image *im = malloc(sizeof(*im));

	cr_assert_not_null(im);
	hotspot_image__build(im);
	return im;
}

static struct hotspot *open_lines(struct hotspot_image *im, struct strtab *names, bool lines)
{
	struct memsource m;
	struct hotspot *h = NULL;

	hotspot_image__source(im, &m);
	cr_assert_eq(hotspot__open(&m, im->sym, lines, names, &h), 0);
	return h;
}

static struct hotspot *open_image(struct hotspot_image *im, struct strtab *names)
{
	return open_lines(im, names, false);
}

/* The names of one frame, joined with ';' innermost first; bcp: an
 * interpreted frame's bytecode pointer. */
static const char *names_at(struct hotspot *h, struct strtab *t, uint64_t pc, int exact,
			    uint64_t method, uint64_t bcp, uint64_t now)
{
	static char buf[1024];
	uint32_t ids[8];
	size_t n = 0, i;

	buf[0] = '\0';
	if (hotspot__names(h, pc, exact, method, bcp, now, ids, 8, &n) != 0)
		return "(none)";
	for (i = 0; i < n; i++) {
		if (i)
			strcat(buf, ";");
		strcat(buf, strtab__str(t, ids[i]));
	}
	return buf;
}

static const char *names_of(struct hotspot *h, struct strtab *t, uint64_t pc, int exact,
			    uint64_t method, uint64_t now)
{
	return names_at(h, t, pc, exact, method, 0, now);
}

Test(hotspot_vm, every_field_is_read_from_the_tables)
{
	struct hotspot_image *im = image();
	struct hotspot_vm vm;
	struct memsource m;

	hotspot_image__source(im, &m);
	cr_assert_eq(hotspot_vm__read(&m, im->sym, &vm), 0);
	cr_assert_eq(vm.major, 17);
	cr_assert_str_eq(vm.release, "17.0.15+6-test");
	cr_assert_eq(vm.blob_frame_size, 28);
	cr_assert_eq(vm.nm_compile_id, 304);
	cr_assert_eq(vm.symbol_body, 8, "moved on purpose: must come from the table");
	cr_assert_eq(vm.blob_header_bytes, 352);
	cr_assert_eq(vm.heapblock_size, 16);
	cr_assert_eq(vm.cpool_size, 72);
	cr_assert_eq(vm.codecache_heaps, HI_STATICS);
	cr_assert_eq(vm.codecache_heap, 0, "JDK 8's single heap is absent");
	cr_assert_eq(vm.nm_scopes_data_offset, -1);
	cr_assert_eq(vm.interp_sender_sp, -1);
	cr_assert_eq(vm.interp_method, -3);
	cr_assert_eq(vm.interp_bcp, -8, "below the mirror, mdp, cache and locals (JDK 9+)");
	cr_assert_eq(vm.constmethod_size, 24);
	cr_assert_eq(vm.constmethod_flags, 28);
	cr_assert_eq(vm.constmethod_code_size, 32);
	cr_assert_eq(vm.constmethod_bytes, 48);
	cr_assert_eq(vm.cpool_source_file, 54);
	cr_assert_eq(vm.klass_source_file, -1, "JDK 8's");
	/* table walks read in batches and skip types they do not need */
	cr_assert_lt(m.reads, 200, "%llu reads", (unsigned long long)m.reads);
	free(im);
}

Test(hotspot_vm, a_missing_field_makes_the_description_unusable)
{
	struct hotspot_image *im = image();
	struct hotspot_vm vm;
	struct memsource m;
	uint64_t e;

	/* rename CodeBlob::_frame_size's type: the field is gone */
	for (e = HI_STRUCTS;; e += 48) {
		uint64_t fp;

		memcpy(&fp, im->mem + (e + 8 - HI_BASE), 8);
		cr_assert_neq(fp, 0);
		if (strcmp((char *)im->mem + (fp - HI_BASE), "_frame_size") == 0)
			break;
	}
	hi_u64(im, e, hi_str(im, "Unknown"));
	hotspot_image__source(im, &m);
	cr_assert_eq(hotspot_vm__read(&m, im->sym, &vm), -EPROTO);
	free(im);
}

Test(hotspot_vm, tables_without_end_or_with_absurd_layouts_are_refused)
{
	struct hotspot_image *im = image();
	struct hotspot_vm vm;
	struct memsource m;
	uint64_t e;

	hotspot_image__source(im, &m);
	/* no terminator: every entry names a type, up to the end of memory */
	for (e = HI_STRUCTS; e + 48 <= HI_TYPES; e += 48)
		if (!im->mem[e - HI_BASE] && !im->mem[e + 1 - HI_BASE])
			hi_u64(im, e, HI_STRINGS);
	hi_u64(im, im->sym[HS_SYM_STRUCT_STRIDE], 48);
	hi_u64(im, im->sym[HS_SYM_STRUCTS], HI_BASE + HI_SIZE - 48 * 3);
	cr_assert_eq(hotspot_vm__read(&m, im->sym, &vm), -EPROTO);
	hotspot_image__build(im);
	hi_u64(im, im->sym[HS_SYM_STRUCT_STRIDE], 4096);
	cr_assert_eq(hotspot_vm__read(&m, im->sym, &vm), -EPROTO);
	hotspot_image__build(im);
	hi_u64(im, im->sym[HS_SYM_STRUCT_OFFSET], 46);
	cr_assert_eq(hotspot_vm__read(&m, im->sym, &vm), -EPROTO);
	hotspot_image__build(im);
	im->sym[HS_SYM_STRUCTS] = 0;
	cr_assert_eq(hotspot_vm__read(&m, im->sym, &vm), -ENOENT);
	free(im);
}

Test(hotspot, code_cache_lookups_give_kind_and_frame)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h = open_image(im, t);
	struct hotspot_code c;

	cr_assert_eq(hotspot__code_at(h, HI_INTERP_BLOB + 0x200, SEC, &c), HOTSPOT_INTERPRETER);
	cr_assert_eq(hotspot__code_at(h, HI_NM_CODE + 0x50, SEC, &c), HOTSPOT_COMPILED);
	cr_assert_eq(c.frame_bytes, 48);
	cr_assert_eq(c.code_begin, HI_NM_CODE);
	cr_assert_eq(c.frame_complete, 16);
	/* the last segment of a 32-segment block: found by hops back */
	cr_assert_eq(hotspot__code_at(h, HI_NM_BLOCK + 0xff8, SEC, &c), HOTSPOT_COMPILED);
	cr_assert_eq(hotspot__code_at(h, HI_STUB_BLOB + 0x100, SEC, &c), HOTSPOT_STUB);
	cr_assert_eq(c.frame_bytes, 16);
	cr_assert_eq(hotspot__code_at(h, HI_CALL_STUB_RA, SEC, &c), HOTSPOT_CALL_STUB);
	cr_assert_eq(hotspot__code_at(h, HI_FREE + 0x10, SEC, &c), HOTSPOT_NOT_CODE);
	cr_assert_eq(hotspot__code_at(h, HI_HEAP + HI_HEAP_SIZE + 0x10, SEC, &c), HOTSPOT_NOT_CODE);
	cr_assert_eq(hotspot__code_at(h, 0x1234, SEC, &c), HOTSPOT_NOT_CODE);
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

/* A code heap grows between two reads of it: code committed since (a
 * JIT-heavy start-up commits more every few milliseconds) is in the heap's
 * reserved range and its segment map, and is found at once, not after the
 * heaps are read again (javac's stacks had a Java frame named [unknown],
 * and were cut there, in 1.1 % of its samples). */
Test(hotspot, code_committed_since_the_heaps_were_read_is_found)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h;
	struct hotspot_code c;

	/* committed up to segment 67 when read; the native wrapper at 68
	 * was committed since */
	hi_u64(im, HI_CODEHEAP_OBJ + 8 + 24, HI_HEAP + 0x2200);
	hi_u64(im, HI_CODEHEAP_OBJ + 8 + 8, 0); /* no reserved end exported */
	h = open_image(im, t);
	cr_assert_eq(hotspot__code_at(h, HI_LEAF_CODE, SEC, &c), HOTSPOT_FRAMELESS);
	cr_assert_eq(hotspot__code_at(h, HI_NATIVE_CODE + 8, SEC, &c), HOTSPOT_NOT_CODE,
		     "past the committed end, without the reserved one");
	hotspot__delete(h);

	hi_u64(im, HI_CODEHEAP_OBJ + 8 + 8, HI_HEAP + HI_HEAP_SIZE);
	h = open_image(im, t);
	cr_assert_neq(hotspot__code_at(h, HI_NATIVE_CODE + 8, SEC, &c), HOTSPOT_NOT_CODE);
	cr_assert_eq(c.code_begin, HI_NATIVE_CODE);
	cr_assert_eq(hotspot__code_at(h, HI_FREE + 0x10, SEC, &c), HOTSPOT_NOT_CODE, "free is free");
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

Test(hotspot, cached_blobs_cost_no_reads)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h = open_image(im, t);
	struct hotspot_stats before, after;
	struct hotspot_code c;
	int i;

	cr_assert_eq(hotspot__code_at(h, HI_NM_CODE + 0x50, SEC, &c), HOTSPOT_COMPILED);
	hotspot__stats(h, &before);
	for (i = 0; i < 1000; i++)
		cr_assert_eq(hotspot__code_at(h, HI_NM_CODE + (uint64_t)(i % 0x200), SEC + 1000u * (unsigned)i, &c),
			     HOTSPOT_COMPILED);
	hotspot__stats(h, &after);
	cr_assert_eq(after.reads, before.reads);
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

Test(hotspot, compiled_pcs_are_named_with_their_inlined_scopes)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h = open_image(im, t);

	/* sampled at 0x50: the next PcDesc (0x80) is inside the inlined Inner.step */
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x50, 1, 0, SEC),
			 "com.example.Outer$Inner.step_[i];com.example.Outer.run_[j]");
	/* a return address has its own PcDesc: the call at 0x40 is Outer's */
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x40, 0, 0, SEC), "com.example.Outer.run_[j]");
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x80, 0, 0, SEC),
			 "com.example.Outer$Inner.step_[i];com.example.Outer.run_[j]");
	/* past the last PcDesc: the method alone */
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x200, 1, 0, SEC), "com.example.Outer.run_[j]");
	/* an interpreted frame: its Method*; a hidden class loses its address */
	cr_assert_str_eq(names_of(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_LAMBDA, SEC),
			 "com.example.Main$$Lambda$14.run_[0]");
	cr_assert_str_eq(names_of(h, t, HI_STUB_BLOB + 0x100, 1, 0, SEC), "_new_instance_Java_[j]");
	cr_assert_str_eq(names_of(h, t, HI_CALL_STUB_RA, 0, 0, SEC), "StubRoutines::call_stub_[j]");
	cr_assert_str_eq(names_of(h, t, HI_FREE + 0x10, 1, 0, SEC), "(none)");
	cr_assert_str_eq(names_of(h, t, HI_INTERP_BLOB, 1, HI_BASE + 8, SEC), "(none)");
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

Test(hotspot, a_recompiled_address_never_keeps_a_stale_name)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h = open_image(im, t);
	struct hotspot_code c;

	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x200, 1, 0, SEC), "com.example.Outer.run_[j]");
	/* the nmethod is flushed and its memory reused for another method
	 * with another compile id and frame */
	hi_u64(im, HI_NM_BLOB + 112, HI_M_INNER);
	hi_u32(im, HI_NM_BLOB + 304, 77);
	hi_u32(im, HI_NM_BLOB + 28, 10);
	cr_assert_eq(hotspot__code_at(h, HI_NM_CODE + 0x200, 3 * SEC, &c), HOTSPOT_COMPILED);
	cr_assert_eq(c.frame_bytes, 80);
	/* its scopes still end in Outer, which is not its method: the method alone */
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x200, 1, 0, 3 * SEC),
			 "com.example.Outer$Inner.step_[j]");
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

/* With lines, a method's frames carry its class's source file and the
 * line of their bytecode index: a compiled scope's, an interpreted
 * frame's bytecode pointer's; every JDK's tables (8: the source file
 * index in the class; 21: the compressed streams without zero bytes). */
static void lines_on(int jdk)
{
	struct hotspot_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct hotspot_stats before, after;
	struct hotspot *h;

	cr_assert_not_null(im);
	hotspot_image__build_jdk(im, jdk);
	h = open_lines(im, t, true);
	/* the scopes at the next PcDesc: Inner at bci 7, Outer at bci 4 */
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x50, 1, 0, SEC),
			 "com.example.Outer$Inner.step (Outer.java:101)_[i];"
			 "com.example.Outer.run (Outer.java:11)_[j]",
			 "JDK %d", jdk);
	/* a return address: the call's own scope */
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x40, 0, 0, SEC),
			 "com.example.Outer.run (Outer.java:11)_[j]");
	/* no scope: the method and its file */
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x200, 1, 0, SEC),
			 "com.example.Outer.run (Outer.java)_[j]");
	/* interpreted: the bytecode pointer's bci, 9 then 25 (a line of
	 * 40000 after an escape of several bytes) */
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_OUTER, HI_CODE(HI_M_OUTER) + 9, SEC),
			 "com.example.Outer.run (Outer.java:12)_[0]");
	hotspot__stats(h, &before);
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_OUTER, HI_CODE(HI_M_OUTER) + 25, SEC),
			 "com.example.Outer.run (Outer.java:40000)_[0]");
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_OUTER, HI_CODE(HI_M_OUTER) + 9, SEC),
			 "com.example.Outer.run (Outer.java:12)_[0]");
	hotspot__stats(h, &after);
	cr_assert_eq(after.reads, before.reads, "a method's record is read once: %llu reads",
		     (unsigned long long)(after.reads - before.reads));
	/* a bytecode pointer outside the method's bytecodes: no line */
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_OUTER, HI_CODE(HI_M_OUTER) + 32, SEC),
			 "com.example.Outer.run (Outer.java)_[0]");
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_INNER, 0, SEC),
			 "com.example.Outer$Inner.step (Outer.java)_[0]");
	/* no source file, no line table: the name alone */
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_LAMBDA, HI_CODE(HI_M_LAMBDA), SEC),
			 "com.example.Main$$Lambda$14.run_[0]");
	cr_assert_str_eq(names_of(h, t, HI_STUB_BLOB + 0x100, 1, 0, SEC), "_new_instance_Java_[j]");
	hotspot__delete(h);

	/* without lines, as ever, whatever the bytecode pointer */
	h = open_image(im, t);
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_OUTER, HI_CODE(HI_M_OUTER) + 9, SEC),
			 "com.example.Outer.run_[0]");
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x50, 1, 0, SEC),
			 "com.example.Outer$Inner.step_[i];com.example.Outer.run_[j]");
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

Test(hotspot, frames_carry_their_lines_when_asked)
{
	lines_on(17);
}

Test(hotspot, jdk8_and_21_lines)
{
	lines_on(8);
	lines_on(21);
}

/* A class naming no source file still gives its lines; a damaged line
 * table gives none, and the method keeps its name. */
Test(hotspot, lines_without_a_file_or_with_a_damaged_table)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h;

	hi_u16(im, HI_CP(HI_M_OUTER) + 54, 0);
	/* Inner's table loses its end: its bytes run to the ConstMethod's
	 * (72 bytes: 48, 16 of bytecodes, 6 of table and 2 of padding) */
	hi_put(im, HI_CODE(HI_M_INNER) + 16 + 5, "\x39\x39\x39", 3);
	h = open_lines(im, t, true);
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_OUTER, HI_CODE(HI_M_OUTER) + 4, SEC),
			 "com.example.Outer.run (?:11)_[0]");
	cr_assert_str_eq(names_at(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_INNER, HI_CODE(HI_M_INNER) + 6, SEC),
			 "com.example.Outer$Inner.step (Outer.java)_[0]");
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

/* A JVM reader whose reads are charged to a ledger of its own. */
static struct hotspot *open_ledgered(struct hotspot_image *im, struct strtab *t,
				     struct accountant **acct, struct ledger **l)
{
	struct hotspot *h = NULL;
	struct memsource m;

	*acct = accountant__new(NULL, t);
	*l = NULL;
	cr_assert_eq(accountant__ledger(*acct, 1000, l), 0);
	hotspot_image__source(im, &m);
	m.ledger = *l;
	cr_assert_eq(hotspot__open(&m, im->sym, false, t, &h), 0);
	return h;
}

/* A flood of lookups nothing caches (a process posing as a JVM) reads at
 * most its ledger's reads a second (runtimes/accountant.h); the next
 * second reads again. */
Test(hotspot, uncached_reads_are_bounded_per_second)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct accountant *acct;
	struct ledger *l;
	struct hotspot *h = open_ledgered(im, t, &acct, &l);
	struct hotspot_stats before, after;
	uint32_t ids[4];
	size_t n;
	uint64_t k;


	hotspot__stats(h, &before);
	for (k = 0; k < 200000; k++) /* every one a different Method* */
		(void)hotspot__names(h, HI_INTERP_BLOB, 1, HI_OBJECTS + 0x1000 + 8 * k, 0, 5 * SEC, ids, 4, &n);
	hotspot__stats(h, &after);
	cr_assert_leq(after.reads - before.reads, ACCOUNTANT_PROCESS_READS_PER_SEC + 16, "%llu reads",
		      (unsigned long long)(after.reads - before.reads));
	cr_assert_geq(after.reads - before.reads, ACCOUNTANT_PROCESS_READS_PER_SEC / 2);
	cr_assert_str_eq(names_of(h, t, HI_INTERP_BLOB, 1, HI_M_OUTER, 5 * SEC), "(none)",
			 "the budget is spent for this second");
	cr_assert_str_eq(names_of(h, t, HI_INTERP_BLOB, 1, HI_M_OUTER, 6 * SEC), "com.example.Outer.run_[0]");
	hotspot__delete(h);
	ledger__delete(l);
	accountant__delete(acct);
	strtab__delete(t);
	free(im);
}

/* The tables of JDK 8 and 21 (their differences in hotspot_image.h): the
 * same code, names and frames. */
static void same_answers_on(int jdk, int major)
{
	struct hotspot_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct hotspot_code c;
	struct hotspot *h;

	cr_assert_not_null(im);
	hotspot_image__build_jdk(im, jdk);
	h = open_image(im, t);
	cr_assert_eq(hotspot__vm(h)->major, major, "JDK %d read as %d", jdk, hotspot__vm(h)->major);
	cr_assert_eq(hotspot__code_at(h, HI_INTERP_BLOB + 0x200, SEC, &c), HOTSPOT_INTERPRETER);
	cr_assert_eq(hotspot__code_at(h, HI_NM_CODE + 0x50, SEC, &c), HOTSPOT_COMPILED);
	cr_assert_eq(c.frame_bytes, 48);
	cr_assert_eq(c.code_begin, HI_NM_CODE);
	cr_assert_eq(hotspot__code_at(h, HI_STUB_BLOB + 0x100, SEC, &c), HOTSPOT_STUB);
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x50, 1, 0, SEC),
			 "com.example.Outer$Inner.step_[i];com.example.Outer.run_[j]", "JDK %d", jdk);
	cr_assert_str_eq(names_of(h, t, HI_NM_CODE + 0x40, 0, 0, SEC), "com.example.Outer.run_[j]");
	cr_assert_str_eq(names_of(h, t, HI_INTERP_BLOB + 0x200, 1, HI_M_LAMBDA, SEC),
			 "com.example.Main$$Lambda$14.run_[0]");
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

Test(hotspot, jdk8_tables_single_heap_and_offsets)
{
	same_answers_on(8, 8);
}

Test(hotspot, jdk21_debug_info_without_zero_bytes)
{
	same_answers_on(21, 21);
}

/* Random damage anywhere in the image: the reader may refuse or name
 * wrongly, but never reads outside what it read nor loops. */
Test(hotspot, damaged_images_never_crash)
{
	struct hotspot_image *im = image();
	uint8_t *pristine = malloc(HI_SIZE);
	static const uint64_t hot[] = { HI_STRUCTS, HI_TYPES, HI_SYMS, HI_STATICS, HI_CODEHEAP_OBJ,
					 HI_SEGMAP, HI_NM_BLOB, HI_NM_BLOB + 0x800, HI_NM_BLOB + 0x900,
					 HI_OBJECTS, HI_OBJECTS + 0x400, HI_INTERP_BLOB, HI_STUB_BLOB,
					 HI_C2_BLOB, HI_C2_CODE, HI_SR_BLOB, HI_SR_CODE, HI_LEAF_BLOB,
					 HI_NATIVE_BLOB };
	unsigned seed = 1234, opened = 0;
	int iter;

	cr_assert_not_null(pristine);
	memcpy(pristine, im->mem, HI_SIZE);
	for (iter = 0; iter < test_rounds(3000); iter++) {
		struct strtab *t = strtab__new();
		struct memsource m;
		struct hotspot *h = NULL;
		int flips = 1 + (int)(rand_r(&seed) % 8), k;

		memcpy(im->mem, pristine, HI_SIZE);
		for (k = 0; k < flips; k++) {
			uint64_t at = hot[rand_r(&seed) % (sizeof(hot) / sizeof(hot[0]))] +
				      (uint64_t)(rand_r(&seed) % 0x400);

			im->mem[at - HI_BASE] = (uint8_t)rand_r(&seed);
		}
		/* read with lines: the line tables and what leads to them too */
		if (iter & 1) {
			uint64_t at = (rand_r(&seed) & 1 ? HI_CODE(HI_M_OUTER) + 32 : HI_CODE(HI_M_INNER) + 16) +
				      (uint64_t)(rand_r(&seed) % 12);

			im->mem[at - HI_BASE] = (uint8_t)rand_r(&seed);
			if (rand_r(&seed) % 4 == 0) /* sizes and flags */
				im->mem[HI_CM(HI_M_OUTER) + 24 + rand_r(&seed) % 10 - HI_BASE] =
					(uint8_t)rand_r(&seed);
		}
		hotspot_image__source(im, &m);
		if (hotspot__open(&m, im->sym, (iter & 1) != 0, t, &h) == 0) {
			static const uint64_t pcs[] = { HI_NM_CODE + 0x50, HI_NM_CODE + 0x40,
							HI_INTERP_BLOB + 0x10, HI_STUB_BLOB + 0x20,
							HI_NM_BLOCK + 0xff8, HI_CALL_STUB_RA,
							HI_C2_CODE + X_C2_LOOP, HI_C2_CODE + X_C2_PUSH,
							HI_SR_CODE + 1, HI_SR_CODE + 0x20,
							HI_LEAF_CODE + 4, HI_NATIVE_CODE + 8 };
			struct hotspot_code c;
			struct x86_frame f;
			uint32_t ids[4];
			size_t n, i;

			opened++;
			for (i = 0; i < 2 * sizeof(pcs) / sizeof(pcs[0]); i++) {
				uint64_t pc = pcs[i % (sizeof(pcs) / sizeof(pcs[0]))];
				uint64_t now = (1 + 2 * (i / (sizeof(pcs) / sizeof(pcs[0])))) * SEC;

				/* and the memory changes under the reader */
				if (i == sizeof(pcs) / sizeof(pcs[0]))
					for (k = 0; k < flips; k++)
						im->mem[hot[rand_r(&seed) % (sizeof(hot) / sizeof(hot[0]))] +
							(uint64_t)(rand_r(&seed) % 0x400) - HI_BASE] =
							(uint8_t)rand_r(&seed);
				(void)hotspot__code_at(h, pc, now, &c);
				(void)hotspot__names(h, pc, (int)(i & 1), 0, 0, now, ids, 4, &n);
				(void)hotspot__names(h, HI_INTERP_BLOB, 1, i & 2 ? HI_M_OUTER : HI_M_INNER,
						     HI_CODE(HI_M_OUTER) + i % 40, now, ids, 4, &n);
				if (hotspot__frame_at(h, pc, now, &f) == 0 && f.kind == X86_FRAME_SP)
					cr_assert(f.ra >= 0 && f.ra % 8 == 0);
			}
			(void)hotspot__names(h, HI_INTERP_BLOB, 1, HI_M_OUTER, 0, SEC, ids, 4, &n);
			hotspot__delete(h);
		}
		strtab__delete(t);
	}
	cr_assert_gt(opened, 100, "damage should not stop most opens: %u", opened);
	free(pristine);
	free(im);
}

static int main_of(const char *const *argv, size_t argc, char *out, size_t size)
{
	char buf[1024];
	size_t len = 0, i;

	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		memcpy(buf + len, argv[i], n);
		len += n;
	}
	return javacmd__main(buf, len, out, size);
}

#define MAIN_OF(out, ...)                                                                  \
	({                                                                                  \
		static const char *const a_[] = { __VA_ARGS__ };                            \
		main_of(a_, sizeof(a_) / sizeof(a_[0]), out, sizeof(out));                  \
	})

Test(javacmd, main_class_jar_module_and_source)
{
	char out[64];

	cr_assert_gt(MAIN_OF(out, "java", "-Xmx1g", "-cp", "a.jar:b.jar", "-Dx=y", "com.ex.Main", "arg"), 0);
	cr_assert_str_eq(out, "com.ex.Main");
	cr_assert_gt(MAIN_OF(out, "/usr/bin/java", "-jar", "/srv/app/shop.jar", "--port", "80"), 0);
	cr_assert_str_eq(out, "shop.jar");
	cr_assert_gt(MAIN_OF(out, "java", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-m",
			     "app.mod/app.Main"), 0);
	cr_assert_str_eq(out, "app.mod/app.Main");
	cr_assert_gt(MAIN_OF(out, "java", "--module=m/x.Y"), 0);
	cr_assert_str_eq(out, "m/x.Y");
	cr_assert_gt(MAIN_OF(out, "java", "@opts.txt", "--source", "17", "Hello.java"), 0);
	cr_assert_str_eq(out, "Hello.java");
	cr_assert_eq(MAIN_OF(out, "java", "-version"), -ENOENT);
	cr_assert_eq(MAIN_OF(out, "java", "-cp"), -ENOENT);
	cr_assert_eq(javacmd__main("java\0-cp\0x\0Ma", 13, out, sizeof(out)), -ENOENT, "cut line");
	{
		char small[4];

		cr_assert_eq(MAIN_OF(small, "java", "LongName"), -ENAMETOOLONG);
	}
}

/* The frame at a pc, read from the blob's code (hotspot_frames.c). */
static struct x86_frame frame_of(struct hotspot *h, uint64_t pc, uint64_t now)
{
	struct x86_frame f;

	cr_assert_eq(hotspot__frame_at(h, pc, now, &f), 0, "pc %#llx", (unsigned long long)pc);
	return f;
}

#define IS_SP(f, ra_, bp_, base_)                                                              \
	do {                                                                                   \
		struct x86_frame f_ = (f);                                                     \
		cr_assert(f_.kind == X86_FRAME_SP && f_.ra == (ra_) && f_.bp == (bp_) &&       \
				  f_.base == (base_),                                           \
			  "%s: kind %d ra %d bp %d base %d", #f, f_.kind, f_.ra, f_.bp, f_.base); \
	} while (0)

/* A compiled method's frame at every stage, from its code, its frame size
 * and frame_complete_offset: what no single frame size says. */
static void frames_of_a_compiled_method(int jdk)
{
	struct hotspot_image *im = malloc(sizeof(*im));
	struct strtab *t = strtab__new();
	struct hotspot *h;

	cr_assert_not_null(im);
	hotspot_image__build_jdk(im, jdk);
	h = open_image(im, t);
	IS_SP(frame_of(h, HI_C2_CODE + X_C2_PUSH, SEC), 0, X86_BP_LIVE, X86_BASE_SP);
	IS_SP(frame_of(h, HI_C2_CODE + X_C2_SUB, SEC), 8, X86_BP_BELOW_RA, X86_BASE_SP);
	IS_SP(frame_of(h, HI_C2_CODE + X_C2_BODY, SEC), 56, X86_BP_BELOW_RA, X86_BASE_SP);
	IS_SP(frame_of(h, HI_C2_CODE + X_C2_LOOP, SEC), 56, X86_BP_BELOW_RA, X86_BASE_SAVED);
	IS_SP(frame_of(h, HI_C2_CODE + X_C2_POP, SEC), 8, X86_BP_BELOW_RA, X86_BASE_SP);
	IS_SP(frame_of(h, HI_C2_CODE + X_C2_RET, SEC), 0, X86_BP_LIVE, X86_BASE_SP);
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

Test(hotspot_frames, a_compiled_method_in_its_prologue_body_and_epilogue)
{
	frames_of_a_compiled_method(17);
}

Test(hotspot_frames, jdk8_and_21_code_ends_and_frames)
{
	frames_of_a_compiled_method(8);
	frames_of_a_compiled_method(21);
}

Test(hotspot_frames, stub_routines_keep_an_rbp_frame_between_enter_and_leave)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h = open_image(im, t);
	struct hotspot_code c;

	cr_assert_eq(hotspot__code_at(h, HI_SR_CODE + 0x10, SEC, &c), HOTSPOT_STUB_ROUTINES);
	cr_assert_eq(c.frame_bytes, 0);
	cr_assert_eq(c.code_end, HI_SR_CODE + (X_LEAF_ENTRY - X_STUB_ENTRY));
	IS_SP(frame_of(h, HI_SR_CODE, SEC), 0, X86_BP_LIVE, X86_BASE_SP);
	IS_SP(frame_of(h, HI_SR_CODE + (X_STUB_ENTER - X_STUB_ENTRY), SEC), 8, X86_BP_BELOW_RA,
	      X86_BASE_SP);
	cr_assert_eq(frame_of(h, HI_SR_CODE + (X_STUB_LOOP - X_STUB_ENTRY), SEC).kind, X86_FRAME_RBP);
	IS_SP(frame_of(h, HI_SR_CODE + (X_STUB_RET - X_STUB_ENTRY), SEC), 0, X86_BP_LIVE, X86_BASE_SP);
	cr_assert_str_eq(names_of(h, t, HI_SR_CODE + 0x10, 1, 0, SEC), "StubRoutines (2)_[j]");
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

/* A stub routine whose code says nothing (its exit beyond the code read,
 * here cut by its code end): HotSpot's "enter", then an rbp frame. */
Test(hotspot_frames, a_stub_routine_with_no_exit_in_sight)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h;

	hi_u64(im, HI_SR_BLOB + 40, HI_SR_CODE + (X_STUB_LEAVE - X_STUB_ENTRY));
	h = open_image(im, t);
	IS_SP(frame_of(h, HI_SR_CODE, SEC), 0, X86_BP_LIVE, X86_BASE_SP);
	IS_SP(frame_of(h, HI_SR_CODE + (X_STUB_ENTER - X_STUB_ENTRY), SEC), 8, X86_BP_BELOW_RA,
	      X86_BASE_SP);
	cr_assert_eq(frame_of(h, HI_SR_CODE + (X_STUB_LOOP - X_STUB_ENTRY), SEC).kind, X86_FRAME_RBP);
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

Test(hotspot_frames, c1_leaf_stubs_without_a_frame_size_and_native_wrappers)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h = open_image(im, t);
	struct hotspot_code c;

	/* frame size -1: code, without a frame of its own */
	cr_assert_eq(hotspot__code_at(h, HI_LEAF_CODE + 2, SEC, &c), HOTSPOT_FRAMELESS);
	IS_SP(frame_of(h, HI_LEAF_CODE + (X_LEAF_BODY - X_LEAF_ENTRY), SEC), 32, X86_BP_LIVE,
	      X86_BASE_SP);
	cr_assert_str_eq(names_of(h, t, HI_LEAF_CODE + 2, 1, 0, SEC),
			 "slow_subtype_check Runtime1 stub_[j]");
	/* a native method's wrapper is its method's frame */
	cr_assert_eq(hotspot__code_at(h, HI_NATIVE_CODE + 0x20, SEC, &c), HOTSPOT_COMPILED);
	cr_assert_eq(c.frame_bytes, 48);
	cr_assert_str_eq(names_of(h, t, HI_NATIVE_CODE + 0x20, 0, 0, SEC),
			 "com.example.Outer$Inner.step_[j]");
	/* the interpreter's frames are read from its layout, not its code */
	cr_assert_eq(hotspot__frame_at(h, HI_INTERP_BLOB + 0x200, SEC, &(struct x86_frame){ 0 }),
		     -ENOENT);
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

/* A pc's frame is read once; a blob flushed and its address reused by
 * another method is read again. */
Test(hotspot_frames, read_once_per_pc_and_blob)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct hotspot *h = open_image(im, t);
	struct hotspot_stats before, after;
	struct x86_frame f;
	int i;

	IS_SP(frame_of(h, HI_C2_CODE + X_C2_LOOP, SEC), 56, X86_BP_BELOW_RA, X86_BASE_SAVED);
	hotspot__stats(h, &before);
	for (i = 0; i < 100; i++)
		IS_SP(frame_of(h, HI_C2_CODE + X_C2_LOOP, SEC + 1000u * (unsigned)i), 56,
		      X86_BP_BELOW_RA, X86_BASE_SAVED);
	hotspot__stats(h, &after);
	cr_assert_eq(after.reads, before.reads);
	cr_assert_eq(after.frames_read, before.frames_read);
	/* recompiled in place: another compile id, its loop now returns */
	hi_u32(im, HI_C2_BLOB + 304, 44);
	hi_u8(im, HI_C2_CODE + X_C2_LOOP, 0xc3);
	cr_assert_eq(hotspot__frame_at(h, HI_C2_CODE + X_C2_LOOP, 3 * SEC, &f), 0);
	IS_SP(f, 0, X86_BP_LIVE, X86_BASE_SP);
	hotspot__delete(h);
	strtab__delete(t);
	free(im);
}

/* Reading code draws on the JVM's ledger like every read: once the
 * second's reads are spent (here by a flood of names to look up), a pc
 * not read yet waits for the next second; pcs read before cost nothing;
 * the time the reading took is charged too. */
Test(hotspot_frames, code_reads_are_budgeted)
{
	struct hotspot_image *im = image();
	struct strtab *t = strtab__new();
	struct accountant *acct;
	struct ledger *l;
	struct hotspot *h = open_ledgered(im, t, &acct, &l);
	struct ledger_stats ls;
	struct x86_frame f;
	uint32_t ids[4];
	size_t n;
	uint64_t k;

	cr_assert_eq(hotspot__frame_at(h, HI_C2_CODE + X_C2_BODY, 5 * SEC, &f), 0);
	for (k = 0; k < 200000; k++)
		(void)hotspot__names(h, HI_INTERP_BLOB, 1, HI_OBJECTS + 0x1000 + 8 * k, 0, 5 * SEC, ids, 4, &n);
	cr_assert_eq(hotspot__frame_at(h, HI_C2_CODE + X_C2_LOOP, 5 * SEC, &f), -EAGAIN);
	cr_assert_eq(hotspot__frame_at(h, HI_C2_CODE + X_C2_BODY, 5 * SEC, &f), 0);
	IS_SP(f, 56, X86_BP_BELOW_RA, X86_BASE_SP);
	cr_assert_eq(hotspot__frame_at(h, HI_C2_CODE + X_C2_LOOP, 6 * SEC, &f), 0);
	IS_SP(f, 56, X86_BP_BELOW_RA, X86_BASE_SAVED);
	hotspot__delete(h);
	/* the time it took is the user's, like the reads */
	ledger__stats(l, &ls);
	cr_assert_gt(ls.cpu_ns, 0);
	cr_assert_eq(accountant__cpu_ns(acct), ls.cpu_ns);
	ledger__delete(l);
	accountant__delete(acct);
	strtab__delete(t);
	free(im);
}
