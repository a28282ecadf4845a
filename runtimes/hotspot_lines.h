/* HotSpot's compressed streams as the reader meets them in a JVM's
 * memory: the ints of its debug information and line number tables
 * (CompressedStream's UNSIGNED5), and a method's line number table, which
 * maps a bytecode index to the line of its source (ConstMethod's
 * CompressedLineNumberReadStream, read as Method::line_number_from_bci
 * reads it).
 *
 * The bytes are hostile: every read stays within the length given, a
 * table that runs past it or carries values no class file can hold is
 * refused, and the work is bounded by the length. Thread-safe. */
#ifndef SMOLDER_RUNTIMES_HOTSPOT_LINES_H
#define SMOLDER_RUNTIMES_HOTSPOT_LINES_H
#include <stddef.h>
#include <stdint.h>

/* One unsigned int of a compressed stream at buf[*pos] (len bytes in
 * all): one to five bytes, each below 192 + x (the "low" bytes) ending it,
 * the others carrying 6 more bits. x is the number of excluded byte
 * values: 0 before JDK 20, 1 since (a zero byte no longer appears in a
 * value, so it can end a stream). Returns 0 with *out and *pos past the
 * int, or -EPROTO (a byte below x, or the int runs past len). */
int hotspot_lines__uint(const uint8_t *buf, size_t len, size_t *pos, unsigned x, uint32_t *out);

/* A signed int as the stream folds it: (v >> 1) ^ -(v & 1). */
int32_t hotspot_lines__signed(uint32_t v);

/* The line of bytecode index bci from a compressed line number table
 * (len bytes, x as for hotspot_lines__uint): pairs of (bci delta, line
 * delta) from (0, 0), each one byte (delta_bci << 3 | delta_line) or the
 * escape 0xFF and two signed ints, ended by a zero byte. The line is that
 * of the entry with this very bci, else of the last entry below it with
 * the highest bci (entries need not be sorted). bci -1 (a method's entry,
 * before its first bytecode) is 0. Returns 0 with *line, -ENOENT when no
 * entry is at or below bci, -EPROTO when the table is damaged: it runs
 * past len before its end, or an entry's bci or line leaves what a class
 * file can hold (0..65535). */
int hotspot_lines__line(const uint8_t *table, size_t len, unsigned x, int bci, int *line);

/* The bytes of a line number table, its ending zero included, from the
 * first len bytes of where it starts: 0 with *size, or -EPROTO as for
 * hotspot_lines__line (the whole table is checked). The zero cannot be
 * searched for: before JDK 20 an escaped int may hold zero bytes. */
int hotspot_lines__size(const uint8_t *table, size_t len, unsigned x, size_t *size);

#endif
