/* A "top"-style text table of the hottest functions of a profile window. */
#ifndef SMOLDER_EXPORT_TOP_H
#define SMOLDER_EXPORT_TOP_H
#include <stddef.h>
#include <stdio.h>

struct agent_stats;
struct profile;

/* Writes to out, for all groups of p together: a header line with the total
 * aggregated samples, the number of profiles (groups) and, when agent is not
 * NULL, the processes the agent knew at the window's end;
 * then two tables of at most n rows each (n == 0: all functions), the first
 * sorted by self samples, the second by total samples (ties: the other
 * count, then name). Columns: self%, self samples, total%, total samples,
 * function. self = samples whose leaf frame is the function; total =
 * samples whose stack holds the function at least once (recursion counts
 * once per sample). Percentages are of the aggregated samples
 * (profile__total). Lines fit 100 columns: a longer name is shortened in
 * the middle (its start and end kept around a U+2026 mark), and where two
 * different names would then read the same, both print whole, wrapped over
 * several lines; control characters print as '?'. Functions are frame display
 * strings, so "foo" and "foo_[i]" are distinct rows. Returns 0, -ENOMEM, or
 * -EIO on a write error. Allocates per call; does not modify p. */
int top__write(const struct profile *p, const struct agent_stats *agent, FILE *out, size_t n);

/* Differential table: for every function with self samples in now or base
 * (matched by name, so the two profiles may use different strtabs), its
 * self share (self / profile__total) in base and in now and the change in
 * percentage points; at most n rows (0: all), sorted by the absolute change,
 * largest first (ties: self in now, self in base, name). A header line gives
 * both totals. A change of exactly zero prints "0.00%", others are signed.
 * Returns 0, -ENOMEM, or -EIO on a write error. */
int top__write_diff(const struct profile *now, const struct profile *base, FILE *out, size_t n);

#endif
