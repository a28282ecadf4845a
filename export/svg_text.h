/* Writing text into SVG documents (the flame graph): names as users made
 * them, so invalid UTF-8 becomes U+FFFD, control characters are not
 * written, and &, <, >, " and ' are escaped; numbers are formatted with a
 * '.' whatever the locale. Stateless; thread-safe. */
#ifndef SMOLDER_EXPORT_SVG_TEXT_H
#define SMOLDER_EXPORT_SVG_TEXT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Code points of the NUL-terminated s, as svg_text__put counts them. */
size_t svg_text__count_cps(const char *s);
/* The first max code points of s, escaped (the caller marks a cut). */
void svg_text__put(FILE *out, const char *s, size_t max);
/* All of s, escaped. */
void svg_text__put_all(FILE *out, const char *s);
/* v with two decimals ("12.50"; "+12.50" with plus), into buf. */
void svg_text__fixed(char *buf, size_t len, double v, int plus);
/* v with thousands separators ("1,234,567"). */
void svg_text__count(char *buf, size_t len, uint64_t v);
/* n as a percentage of total, as svg_text__fixed writes it. */
void svg_text__pct(char *buf, size_t len, uint64_t n, uint64_t total);

#endif
