/* Which entry of an instruction sequence's line table holds an
 * instruction, from the table's bytes as read: CRuby's binary search of
 * 2.0-2.5's entries by position, and 2.6+'s succinct bit vector (iseq.c,
 * VM_INSN_INFO_TABLE_IMPL 2) or positions array. The bytes are hostile:
 * every index is checked against the lengths given. Thread-safe. */
#ifndef SMOLDER_RUNTIMES_RUBY_LINES_H
#define SMOLDER_RUNTIMES_RUBY_LINES_H
#include <stddef.h>
#include <stdint.h>

/* The index of the last of n entries (entry_size bytes each, a 32-bit
 * position at pos_off) whose position is <= pos, or -1. */
long ruby_lines__by_position(const uint8_t *entries, uint32_t n, uint32_t entry_size, uint32_t pos_off,
			     uint32_t pos);

/* The same over a positions array (n unsigned ints), or -1. */
long ruby_lines__in_positions(const uint8_t *positions, uint32_t n, uint32_t pos);

/* The bytes a succinct table of an instruction sequence of iseq_size
 * words takes: its immediate part and its 512-position blocks. */
size_t ruby_lines__succinct_bytes(uint32_t iseq_size);

/* The entry of instruction pos from a succinct table (len bytes): the
 * rank of pos, less one, or -1 when the table cannot say. */
long ruby_lines__succinct(const uint8_t *table, size_t len, uint32_t pos);

#endif
