/* A "top"-style text table of the hottest functions of a profile window. */
#ifndef SMOLDER_EXPORT_TOP_H
#define SMOLDER_EXPORT_TOP_H
#include <stddef.h>
#include <stdio.h>

struct agent_stats;
struct profile;

/* Writes to out, for all groups of p together: a header line with the total
 * aggregated samples, the number of profiles (groups) and the processes: the
 * agent's (those it knew at the window's end) when agent is not NULL, else
 * the distinct pids of groups per pid; then, with agent, its lost samples,
 * p's dropped ones and the user stacks unwound to their root, without it
 * the samples of stacks cut short ([truncated] at the root); the span of the
 * window. Then two tables of at most n rows each (n == 0: all functions), the first
 * sorted by self samples, the second by total samples (ties: the other
 * count, then name). Columns: self%, self samples, total%, total samples,
 * function. self = samples whose leaf frame is the function; total =
 * samples whose stack holds the function at least once (recursion counts
 * once per sample). Percentages are of the aggregated samples
 * (profile__total). Lines fit 100 columns: a longer name is shortened in
 * the middle (its start and end kept around a U+2026 mark), and where two
 * different names would then read the same, both print whole, wrapped over
 * several lines; control characters print as '?'. Functions are frame display
 * strings, so "foo" and "foo_[i]" are distinct rows. When groups carry a
 * thread (grouped per thread) the tables come once per process name and
 * thread name, largest first, under a line "COMM / THREAD: N samples (P%)",
 * their percentages of that thread's samples. Returns 0, -ENOMEM, or -EIO on
 * a write error. Allocates per call; does not modify p. */
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
