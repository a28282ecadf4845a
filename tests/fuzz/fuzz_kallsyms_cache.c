/* Fuzz target: the kernel symbol table's cache file (symbolize/kallsyms_cache.c).
 * Seeds (corpus/kallsyms_cache/): files kallsyms_cache__write made from
 * kallsyms__load of tests/fixtures/symbolize/kallsyms.txt, of a table with
 * two upper address halves, and of a few hundred symbols, plus a truncated
 * and a bit-flipped copy. After a format change they are only rejected
 * early: write new ones the same way. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kallsyms_cache.h"
#include "tests/fuzz/fuzz.h"

/* Where the symbols start in a file of format version 1. */
#define HEADER_SIZE 192
#define MAX_PCS 64

/* A second scratch file for the write-back round trip. */
static char again_path[] = "/tmp/smolder-fuzz-kc-XXXXXX";
static int again_fd = -1;

static void again_cleanup(void)
{
	if (again_fd >= 0) {
		close(again_fd);
		unlink(again_path);
		again_fd = -1;
	}
}

/* Lookup addresses: the low halves the input's symbol entries claim, under
 * the usual upper half, and their neighbours. */
static size_t input_pcs(const uint8_t *data, size_t size, uint64_t *pcs)
{
	size_t n = 0, off;

	pcs[n++] = 0;
	pcs[n++] = UINT64_MAX;
	for (off = HEADER_SIZE; off + 4 <= size && n + 3 <= MAX_PCS; off += 8) {
		uint32_t lo;

		memcpy(&lo, data + off, 4);
		pcs[n++] = 0xffffffff00000000ull | lo;
		pcs[n++] = (0xffffffff00000000ull | lo) + 1;
		pcs[n++] = (0xffffffff00000000ull | lo) - 1;
	}
	return n;
}

/* The file's checksum stops the fuzzer at the payload, so the table checks
 * behind it (kallsyms__from_arrays) are also fed directly: byte 0 says
 * whether there are upper halves, byte 1 the number of symbols, then the
 * symbols, the upper halves and the rest is the blob. */
static void direct_arrays(const uint8_t *data, size_t size, struct strtab *names)
{
	struct kallsyms_arrays a;
	struct kallsyms *k = NULL;
	size_t need, i;

	if (size < 2)
		return;
	memset(&a, 0, sizeof(a));
	a.n = (size_t)data[1] + 1;
	a.base = 0xffffffffu;
	need = 2 + a.n * KALLSYMS_SYM_SIZE + (data[0] & 1 ? a.n * sizeof(uint32_t) : 0);
	if (size <= need)
		return;
	a.syms = malloc(a.n * KALLSYMS_SYM_SIZE);
	a.hi = data[0] & 1 ? malloc(a.n * sizeof(uint32_t)) : NULL;
	a.blob_len = size - need;
	a.blob = malloc(a.blob_len);
	FUZZ_CHECK(a.syms && a.blob && (!(data[0] & 1) || a.hi));
	memcpy(a.syms, data + 2, a.n * KALLSYMS_SYM_SIZE);
	if (a.hi)
		memcpy(a.hi, data + 2 + a.n * KALLSYMS_SYM_SIZE, a.n * sizeof(uint32_t));
	memcpy(a.blob, data + need, a.blob_len);
	if (kallsyms__from_arrays(names, &a, &k) != 0) {
		FUZZ_CHECK(k == NULL);
		free(a.syms);
		free(a.hi);
		free(a.blob);
		return;
	}
	for (i = 0; i < a.n; i++) {
		uint32_t lo, id;
		uint64_t pc;

		memcpy(&lo, data + 2 + i * KALLSYMS_SYM_SIZE, 4);
		pc = (uint64_t)(a.hi ? a.hi[i] : a.base) << 32 | lo;
		if (kallsyms__lookup(k, pc, &id) == 0)
			FUZZ_CHECK(strtab__str(names, id) != NULL);
		if (kallsyms__lookup(k, pc - 1, &id) == 0)
			FUZZ_CHECK(strtab__str(names, id) != NULL);
	}
	kallsyms__delete(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t pcs[MAX_PCS];
	struct strtab *names;
	struct kallsyms *k = NULL, *k2 = NULL;
	size_t npcs, i;
	off_t end;
	int fd, err;

	names = strtab__new();
	FUZZ_CHECK(names);
	fd = open(fuzz_tmp_write(data, size), O_RDONLY | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	err = kallsyms_cache__read(fd, NULL, names, &k);
	close(fd);
	if (err) {
		FUZZ_CHECK(k == NULL);
		direct_arrays(data, size, names);
		strtab__delete(names);
		return 0;
	}
	FUZZ_CHECK(!kallsyms__restricted(k));
	FUZZ_CHECK(kallsyms__count(k) > 0);

	/* what was accepted writes back to a file that reads the same */
	if (again_fd < 0) {
		again_fd = mkstemp(again_path);
		FUZZ_CHECK(again_fd >= 0);
		atexit(again_cleanup);
	}
	{
		struct kallsyms_cache_key key;

		memset(&key, 0, sizeof(key));
		key.first_text = 1;
		FUZZ_CHECK(lseek(again_fd, 0, SEEK_SET) == 0);
		FUZZ_CHECK(kallsyms_cache__write(again_fd, k, &key) == 0);
		end = lseek(again_fd, 0, SEEK_CUR);
		FUZZ_CHECK(end > 0 && ftruncate(again_fd, end) == 0);
		FUZZ_CHECK(kallsyms_cache__read(again_fd, &key, names, &k2) == 0);
		FUZZ_CHECK(kallsyms__count(k2) == kallsyms__count(k));
	}

	npcs = input_pcs(data, size, pcs);
	for (i = 0; i < npcs; i++) {
		uint32_t id, id2;

		if (kallsyms__lookup(k, pcs[i], &id) == 0) {
			const char *s = strtab__str(names, id);

			FUZZ_CHECK(s != NULL);
			FUZZ_CHECK(strlen(s) == strtab__len(names, id));
			FUZZ_CHECK(kallsyms__lookup(k2, pcs[i], &id2) == 0);
			FUZZ_CHECK(id2 == id);
		}
	}
	kallsyms__delete(k2);
	kallsyms__delete(k);
	strtab__delete(names);
	return 0;
}
