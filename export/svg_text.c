/* Text in SVG: UTF-8 decoded leniently, XML-escaped, cut by code points;
 * numbers formatted without the locale. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "export/svg_text.h"

/* Decodes one code point of the NUL-terminated s; returns bytes used (>= 1).
 * A byte that does not start a valid, shortest-form sequence is U+FFFD. */
static size_t next_cp(const unsigned char *s, uint32_t *cp)
{
	unsigned c = s[0], need, lo = 0x80, hi = 0xbf, i;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (i = 1; i <= need; i++) {
		unsigned b = s[i]; /* NUL is no continuation byte: stops at the end */

		if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf)) {
			*cp = 0xfffd;
			return 1;
		}
		v = v << 6 | (b & 0x3f);
	}
	*cp = v;
	return need + 1;
}

/* What is shown for a code point: XML 1.0 has no control characters
 * (format.md prints them '?') nor U+FFFE/U+FFFF. */
static uint32_t shown_cp(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f)
		return '?';
	if (cp == 0xfffe || cp == 0xffff)
		return 0xfffd;
	return cp;
}

size_t svg_text__count_cps(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0;
	uint32_t cp;

	while (*u) {
		u += next_cp(u, &cp);
		n++;
	}
	return n;
}

/* Writes at most max code points of s, sanitized and escaped for XML text
 * and attribute values. */
void svg_text__put(FILE *out, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0;

	while (*u && n < max) {
		uint32_t cp;

		u += next_cp(u, &cp);
		cp = shown_cp(cp);
		n++;
		switch (cp) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			if (cp < 0x80) {
				putc((int)cp, out);
			} else if (cp < 0x800) {
				putc((int)(0xc0 | cp >> 6), out);
				putc((int)(0x80 | (cp & 0x3f)), out);
			} else if (cp < 0x10000) {
				putc((int)(0xe0 | cp >> 12), out);
				putc((int)(0x80 | (cp >> 6 & 0x3f)), out);
				putc((int)(0x80 | (cp & 0x3f)), out);
			} else {
				putc((int)(0xf0 | cp >> 18), out);
				putc((int)(0x80 | (cp >> 12 & 0x3f)), out);
				putc((int)(0x80 | (cp >> 6 & 0x3f)), out);
				putc((int)(0x80 | (cp & 0x3f)), out);
			}
		}
	}
}

void svg_text__put_all(FILE *out, const char *s)
{
	svg_text__put(out, s, (size_t)-1);
}

/* Fixed-point decimal by hand: printf's %f follows LC_NUMERIC, and a decimal
 * comma would break the SVG. */
void svg_text__fixed(char *buf, size_t len, double v, int plus)
{
	const char *sign = v < 0 ? "-" : plus ? "+" : "";
	double a = v < 0 ? -v : v;
	unsigned long long c;

	if (a > 1e15)
		a = 1e15;
	c = (unsigned long long)(a * 100 + 0.5);
	if (c == 0)
		sign = plus ? "+" : "";
	snprintf(buf, len, "%s%llu.%02u", sign, c / 100, (unsigned)(c % 100));
}

/* 1234567 -> "1,234,567" */
void svg_text__count(char *buf, size_t len, uint64_t v)
{
	char digits[24];
	size_t nd, i, o = 0;

	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	nd = strlen(digits);
	for (i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

void svg_text__pct(char *buf, size_t len, uint64_t n, uint64_t total)
{
	svg_text__fixed(buf, len, total ? (double)n * 100 / (double)total : 0, 0);
}
