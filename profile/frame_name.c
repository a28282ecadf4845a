/* One naming convention for every frame source: safe for collapsed stacks. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/strtab.h"
#include "profile/frame_name.h"

/* Length of the valid UTF-8 sequence starting at s (at most avail bytes), or
 * 0 when the bytes there are not one (overlong, surrogate, truncated). */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (avail < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

static _Atomic uint64_t cuts;

uint64_t frame_name__cuts(void)
{
	return cuts;
}

/* The start of the UTF-8 sequence holding byte i of s (valid UTF-8). */
static size_t seq_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/* Cuts the name part buf[0..*n) to limit bytes in the middle: its start
 * and its end (where a function's own name is) around FRAME_NAME_CUT. */
static void cut_middle(char *buf, size_t *n, size_t limit)
{
	size_t mark = sizeof(FRAME_NAME_CUT) - 1, head, tail;

	head = seq_start(buf, (limit - mark) / 2);
	tail = *n - (limit - mark - head);
	/* move the tail start forward to a sequence start */
	while (tail < *n && ((unsigned char)buf[tail] & 0xc0) == 0x80)
		tail++;
	memcpy(buf + head, FRAME_NAME_CUT, mark);
	memmove(buf + head + mark, buf + tail, *n - tail);
	*n = head + mark + (*n - tail);
	cuts++;
}

int frame_name__intern(struct strtab *names, const char *name, const char *suffix, uint32_t *id)
{
	char small[1024];
	const unsigned char *s = (const unsigned char *)(name ? name : "");
	size_t slen = suffix ? strnlen(suffix, 64) : 0;
	size_t limit = FRAME_NAME_MAX - slen; /* room for the name part */
	size_t n = 0, avail = strlen((const char *)s);
	char *buf = avail + slen <= sizeof(small) ? small : malloc(avail + slen + 1);
	int err;

	if (!buf)
		return -ENOMEM;
	while (*s) {
		size_t len;

		if (*s < 0x20 || *s == 0x7f) {
			s++, avail--;
			continue;
		}
		len = utf8_seq(s, avail);
		if (len == 0) { /* invalid byte: dropped, resynchronise on the next */
			s++, avail--;
			continue;
		}
		if (len == 1 && *s == ';')
			buf[n++] = ':';
		else
			memcpy(buf + n, s, len), n += len;
		s += len, avail -= len;
	}
	if (n > limit)
		cut_middle(buf, &n, limit);
	/* An empty frame would read as ";;" in a collapsed stack. */
	if (n == 0) {
		static const char unknown[] = FRAME_UNKNOWN;

		memcpy(buf, unknown, sizeof(unknown) - 1);
		n = sizeof(unknown) - 1;
	}
	if (slen) {
		memcpy(buf + n, suffix, slen);
		n += slen;
	}
	err = strtab__intern(names, buf, n, id);
	if (buf != small)
		free(buf);
	return err;
}

int frame_name__module(struct strtab *names, const char *module, uint32_t *id)
{
	char buf[512]; /* a file name is at most NAME_MAX (255) bytes */
	const char *slash = module ? strrchr(module, '/') : NULL;

	if (slash)
		module = slash + 1;
	snprintf(buf, sizeof(buf), "[%s]", module && *module ? module : "unknown");
	return frame_name__intern(names, buf, "", id);
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t l = strlen(suffix);

	return len >= l && memcmp(s + len - l, suffix, l) == 0;
}

/* "MODULE+0xHEX": the length of MODULE, or 0 when s is not that. */
static size_t module_offset_prefix(const char *s, size_t len)
{
	size_t i, j;

	for (i = len; i > 3; i--) {
		if (s[i - 1] != 'x' || s[i - 2] != '0' || s[i - 3] != '+')
			continue;
		if (i == len || i - 3 == 0)
			return 0;
		for (j = i; j < len; j++)
			if (!((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f') ||
			      (s[j] >= 'A' && s[j] <= 'F')))
				return 0;
		return i - 3;
	}
	return 0;
}

/* " (FILE)" or " (FILE:LINE)" ending the len bytes of name: sets the
 * parts' func_len, file and line. FILE holds no parenthesis, so a C++
 * name's own "(...)" (operator(), void (int)) is never taken for one. */
static void place_of(const char *name, size_t len, struct frame_parts *out)
{
	size_t open, i, colon = 0;
	unsigned line = 0;

	out->func_len = len;
	if (len < 4 || name[len - 1] != ')')
		return;
	for (open = len - 1; open > 0 && name[open - 1] != '('; open--)
		if (name[open - 1] == ')')
			return;
	if (open < 2 || name[open - 2] != ' ' || open == len - 1)
		return;
	for (i = open; i < len - 1; i++)
		if (name[i] == ':')
			colon = i;
	if (colon && colon + 1 < len - 1) {
		for (i = colon + 1; i < len - 1 && name[i] >= '0' && name[i] <= '9' && line < 100000000u; i++)
			line = line * 10 + (unsigned)(name[i] - '0');
		if (i != len - 1)
			colon = 0, line = 0;
	} else {
		colon = 0;
	}
	out->func_len = open - 2;
	out->file = name + open;
	out->file_len = (colon ? colon : len - 1) - open;
	out->line = line;
}

void frame_name__parse(const char *s, struct frame_parts *out)
{
	size_t len = s ? strlen(s) : 0, mod;
	static const size_t sfx = sizeof(FRAME_SUFFIX_KERNEL) - 1; /* all but the interpreters' are 4 */

	memset(out, 0, sizeof(*out));
	out->name = s ? s : FRAME_UNKNOWN;
	out->name_len = s ? len : strlen(FRAME_UNKNOWN);
	if (!len || !strcmp(s, FRAME_UNKNOWN)) {
		out->kind = FRAME_UNKNOWN_CODE;
		out->name = FRAME_UNKNOWN;
		out->name_len = strlen(FRAME_UNKNOWN);
	} else if (ends_with(s, len, FRAME_SUFFIX_KERNEL)) {
		out->kind = FRAME_KERNEL;
		out->name_len = len - sfx;
	} else if (ends_with(s, len, FRAME_SUFFIX_JIT)) {
		out->kind = FRAME_JIT;
		out->name_len = len - sfx;
	} else if (ends_with(s, len, FRAME_SUFFIX_INTERPRETED)) {
		out->kind = FRAME_INTERPRETED;
		out->name_len = len - sfx;
	} else if (ends_with(s, len, FRAME_SUFFIX_PYTHON)) {
		out->kind = FRAME_INTERPRETED;
		out->name_len = len - (sizeof(FRAME_SUFFIX_PYTHON) - 1);
	} else if (ends_with(s, len, FRAME_SUFFIX_RUBY)) {
		out->kind = FRAME_INTERPRETED;
		out->name_len = len - (sizeof(FRAME_SUFFIX_RUBY) - 1);
	} else if (ends_with(s, len, FRAME_SUFFIX_PHP)) {
		out->kind = FRAME_INTERPRETED;
		out->name_len = len - (sizeof(FRAME_SUFFIX_PHP) - 1);
	} else if (ends_with(s, len, FRAME_SUFFIX_PERL)) {
		out->kind = FRAME_INTERPRETED;
		out->name_len = len - (sizeof(FRAME_SUFFIX_PERL) - 1);
	} else if (ends_with(s, len, FRAME_SUFFIX_INLINED)) {
		out->kind = FRAME_INLINED;
		out->name_len = len - sfx;
	} else if (!strcmp(s, "[kernel]")) {
		out->kind = FRAME_KERNEL;
	} else if ((mod = module_offset_prefix(s, len)) != 0) {
		out->kind = FRAME_MODULE_OFFSET;
		out->module = s;
		out->module_len = mod;
		out->start = strtoull(s + mod + 3, NULL, 16); /* past "+0x": checked hex */
	} else if (len > 2 && s[0] == '[' && s[len - 1] == ']') {
		out->kind = FRAME_BRACKETED;
		out->module = s + 1;
		out->module_len = len - 2;
	}
	out->func_len = out->name_len;
	if (out->kind == FRAME_FUNCTION || out->kind == FRAME_INLINED || out->kind == FRAME_JIT ||
	    out->kind == FRAME_INTERPRETED)
		place_of(out->name, out->name_len, out);
}
