/* CPython's line tables, decoded: the source line of an instruction.
 * Each returns the line, or -1 when the table gives none (an instruction
 * with no location, a damaged table). t is the table's bytes (hostile). */
#ifndef SMOLDER_RUNTIMES_CPYTHON_LINES_H
#define SMOLDER_RUNTIMES_CPYTHON_LINES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2.7-3.9 co_lnotab: (byte offset increment, line increment) pairs; the
 * line increment is signed from 3.6. offset: f_lasti, in bytes. */
int cpython_lines__lnotab(const uint8_t *t, size_t n, int first, uint32_t offset, bool signed_deltas);

/* 3.10 co_linetable: (byte length, signed line delta) pairs, -128 for no
 * line. offset: 2 * f_lasti (3.10 counts instructions). */
int cpython_lines__linetable310(const uint8_t *t, size_t n, int first, uint32_t offset);

/* 3.11+ co_linetable (the location table): entries of one to eight code
 * units. unit: the instruction's index in code units. */
int cpython_lines__locations(const uint8_t *t, size_t n, int first, uint32_t unit);

#endif
