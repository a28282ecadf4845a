/* Strict number parsing for hostile input: whole string, no overflow, no sign tricks. */
#ifndef SMOLDER_COMMON_PARSE_H
#define SMOLDER_COMMON_PARSE_H
#include <stddef.h>
#include <stdint.h>

/* Parses all of s[0..len) as an unsigned number in base (10 or 16; 16 accepts
 * no "0x" prefix). Returns 0, or -EINVAL (empty, bad digit) / -ERANGE.
 * *out is untouched on failure. */
int parse__u64n(const char *s, size_t len, int base, uint64_t *out);
/* Same for a NUL-terminated string; base 0 means decimal, or hex after "0x". */
int parse__u64(const char *s, int base, uint64_t *out);
/* A decimal int in [min, max]. */
int parse__int(const char *s, long min, long max, long *out);

#endif
