/* Parsing an HTTP Retry-After field value (RFC 9110, section 10.2.3): either
 * a number of seconds or an HTTP-date. Pure; used by the HTTP sink. */
#ifndef SMOLDER_EXPORT_RETRY_AFTER_H
#define SMOLDER_EXPORT_RETRY_AFTER_H
#include <stddef.h>
#include <stdint.h>

/* Longest delay a value may ask for; larger ones are clamped to it, so the
 * arithmetic on the result never overflows (about 31 years). */
#define RETRY_AFTER_MAX_S 1000000000ull

/* value: the field value, len bytes, not NUL-terminated, surrounding
 * whitespace (and the line's CRLF) allowed. now_s: the current wall-clock
 * time in seconds since the epoch, used for the HTTP-date form. Accepts
 * delta-seconds and the three HTTP-date forms a recipient must accept
 * (IMF-fixdate, RFC 850, asctime). On success *out_s gets the delay in
 * seconds (0 for a date in the past, clamped to RETRY_AFTER_MAX_S) and 0 is
 * returned; anything else is -EINVAL with *out_s untouched. */
int retry_after__parse(const char *value, size_t len, int64_t now_s, uint64_t *out_s);

#endif
