/* The one grammar of quantities a user writes, in the configuration file and
 * on every command line alike (documented once, in smolder(8) "UNITS"):
 *
 *   duration  one or more NUMBER UNIT terms, summed: 10s, 500ms, 1h30m, 1w;
 *             units ms, s, m, h, d, w (case-sensitive: 5M could be minutes
 *             or months); a bare NUMBER alone means seconds (10 = 10s).
 *   size      NUMBER [UNIT], case-insensitive: B, K/KiB, M/MiB, G/GiB,
 *             T/TiB (binary), KB, MB, GB, TB (decimal); bare = bytes.
 *   time      RFC 3339 (2026-11-22T10:00:00Z, 2026-11-22T10:00:00.5+01:00;
 *             't', 'z' and a space for 'T' accepted), "now", or "-" and a
 *             duration with units, relative to now (-90s, -1h30m, -1w).
 *   boolean   yes/no, true/false, on/off, 1/0 (case-insensitive).
 *
 * NUMBER is decimal digits only: no sign, no fraction, no whitespace, no
 * "0x". Parsers return 0, -EINVAL (syntax) or -ERANGE (overflow, or a time
 * before 1970); the output is untouched on failure. Thread-safe. */
#ifndef SMOLDER_COMMON_UNITS_H
#define SMOLDER_COMMON_UNITS_H
#include <stddef.h>
#include <stdint.h>

int units__parse_duration(const char *s, uint64_t *ns);
int units__parse_size(const char *s, uint64_t *bytes);
int units__parse_bool(const char *s, int *v);
/* Times come out in ns since the epoch; relative ones count back from now_ns. */
int units__parse_time(const char *s, uint64_t now_ns, uint64_t *ns);

/* A duration the way an operator would write it: the largest unit that
 * represents it exactly ("90s", "2h", "1500ms", "0"). */
void units__format_duration(uint64_t ns, char *buf, size_t size);
/* A measured time as a reader takes it in: three significant digits in
 * the unit that suits it ("6.39s", "349ms", "12.0us", "850ns"; from 1000 s
 * on, whole seconds). Off-CPU profiles print their values so. */
void units__format_elapsed(uint64_t ns, char *buf, size_t size);
/* RFC 3339 UTC with second precision ("2026-11-22T10:00:00Z"); buf should
 * hold at least 32 bytes. */
void units__format_time(uint64_t ns, char *buf, size_t size);

/* What the error messages suggest, so that every message shows the same
 * grammar. */
#define UNITS_DURATION_HINT "(use e.g. 10s, 500ms, 5m, 1h30m, 1w)"
#define UNITS_SIZE_HINT "(use e.g. 4096, 64KiB, 512MiB)"
#define UNITS_TIME_HINT \
	"(use RFC 3339 such as 2026-11-22T10:00:00Z or 2026-11-22T10:00:00+01:00, 'now', " \
	"or a time relative to now such as -90s, -30m, -1h30m, -2d, -1w)"

#endif
