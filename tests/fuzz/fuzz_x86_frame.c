/* Fuzz target: a frame's layout read from x86-64 code (runtimes/x86_frame.c
 * over runtimes/x86_insn.c), on code of a process's memory, which a process
 * posing as a JVM lays out as it likes. Input: an 8-byte header (the pc's
 * offset, the offset where the frame is whole or 0xffff for none, the
 * frame's size in words, whether calls are at the frame; little-endian
 * u16, u16, u16, u8, u8) then the code. Whatever is said must be a frame
 * the unwinder can take, from the bytes given only. */
#include "config.h"

#include <string.h>

#include "runtimes/x86_frame.h"
#include "runtimes/x86_insn.h"
#include "tests/fuzz/fuzz.h"

#define ADDR 0x7f0000100000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x86_frame_code c;
	struct x86_frame f;
	struct x86_insn in;
	uint16_t pc, whole, words;
	size_t n, off;

	if (size < 9)
		return 0;
	memcpy(&pc, data, 2);
	memcpy(&whole, data + 2, 2);
	memcpy(&words, data + 4, 2);
	n = size - 8;
	if (n > X86_FRAME_MAX_BYTES)
		n = X86_FRAME_MAX_BYTES;
	/* every instruction of a linear sweep decodes within the bytes */
	for (off = 0; off < n;) {
		int len = x86_insn__decode(data + 8 + off, n - off, &in);

		FUZZ_CHECK(len >= 0 && len <= X86_MAX_INSN && (size_t)len <= n - off);
		off += len ? (size_t)len : 1;
	}
	memset(&c, 0, sizeof(c));
	c.code = data + 8;
	c.n = n;
	c.addr = ADDR;
	c.pc = ADDR + pc % n;
	c.whole_pc = whole == 0xffff ? 0 : ADDR + whole % n;
	c.frame_bytes = (uint32_t)words * 8;
	c.whole_at_calls = data[6] & 1;
	x86_frame__at(&c, &f);
	FUZZ_CHECK(f.kind <= X86_FRAME_RBP);
	if (f.kind == X86_FRAME_SP) {
		FUZZ_CHECK(f.ra >= 0 && f.ra % 8 == 0);
		FUZZ_CHECK(f.bp <= X86_BP_LOST && f.base <= X86_BASE_REG);
		FUZZ_CHECK(f.base != X86_BASE_REG ||
			   (f.base_at >= 0 && f.base_at < 16 && f.base_at != X86_RSP));
	}
	return 0;
}
