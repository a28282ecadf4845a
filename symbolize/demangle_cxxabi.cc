// The fallback demangler, for builds without libiberty: C++ (Itanium) through
// libstdc++'s __cxa_demangle, and legacy Rust names, whose hash component is
// dropped so that rebuilds aggregate together. Rust v0 and D stay raw.
#include "config.h"

#include <cxxabi.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"

// Hostile symbol tables can hold names crafted to make the recursive C++
// demangler exhaust the stack; real mangled names stay far below this.

namespace {

// Appends to a bounded buffer; the result is always NUL-terminated and
// truncated rather than overflowing.
struct out {
	char *buf;
	size_t size, len;

	void put(const char *s, size_t n)
	{
		size_t room = size - 1 - len;

		if (n > room)
			n = room;
		memcpy(buf + len, s, n);
		len += n;
		buf[len] = '\0';
	}
	void put1(char c) { put(&c, 1); }
};

bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// "h" followed by 16 lowercase hex digits: the crate hash rustc appends.
bool is_rust_hash(const char *s, size_t n)
{
	if (n != 17 || s[0] != 'h')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!is_hex(s[i]))
			return false;
	return true;
}

struct escape {
	const char *code;
	char c;
};

const escape escapes[] = {
	{"SP", '@'}, {"BP", '*'}, {"RF", '&'}, {"LT", '<'}, {"GT", '>'},
	{"LP", '('}, {"RP", ')'}, {"C", ','},
};

// Decodes one legacy Rust path component: "$LT$" style escapes, "$uXX$"
// code points (ASCII only, which is all rustc emits), ".." for "::".
// Returns false on anything it does not recognise.
bool rust_ident(const char *s, size_t n, out *o)
{
	size_t i = 0;

	if (n >= 2 && s[0] == '_' && s[1] == '$')
		i = 1; // rustc prefixes '_' when a component starts with '$'
	while (i < n) {
		if (s[i] == '$') {
			const char *end = static_cast<const char *>(memchr(s + i + 1, '$', n - i - 1));
			size_t clen;
			bool ok = false;

			if (!end)
				return false;
			clen = static_cast<size_t>(end - (s + i + 1));
			for (size_t k = 0; k < sizeof(escapes) / sizeof(escapes[0]); k++) {
				if (strlen(escapes[k].code) == clen &&
				    memcmp(escapes[k].code, s + i + 1, clen) == 0) {
					o->put1(escapes[k].c);
					ok = true;
					break;
				}
			}
			if (!ok && clen >= 2 && clen <= 3 && s[i + 1] == 'u') {
				unsigned v = 0;

				for (size_t k = i + 2; k < i + 1 + clen; k++) {
					if (!is_hex(s[k]))
						return false;
					v = v * 16 + static_cast<unsigned>(s[k] <= '9' ? s[k] - '0' : s[k] - 'a' + 10);
				}
				if (v < 0x20 || v >= 0x7f)
					return false;
				o->put1(static_cast<char>(v));
				ok = true;
			}
			if (!ok)
				return false;
			i += clen + 2;
		} else if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
			o->put("::", 2);
			i += 2;
		} else {
			o->put1(s[i]);
			i++;
		}
	}
	return true;
}

// Legacy Rust: "_ZN" (<decimal length><component>)+ "E", the last component
// being the hash, optionally followed by ".llvm.NNN" from LTO.
char *rust_legacy(const char *name)
{
	const char *p = name + 3, *comp[64];
	size_t clen[64], ncomp = 0, cap = strlen(name) + 1;
	char *res = static_cast<char *>(malloc(cap));
	out o = {res, cap, 0};

	if (!res)
		return NULL;
	res[0] = '\0';
	while (*p != 'E') {
		size_t len = 0;

		if (*p < '0' || *p > '9' || ncomp == 64)
			goto fail;
		while (*p >= '0' && *p <= '9') {
			len = len * 10 + static_cast<size_t>(*p - '0');
			p++;
			if (len > DEMANGLE_INPUT_MAX)
				goto fail;
		}
		if (len == 0 || strnlen(p, len) < len)
			goto fail;
		comp[ncomp] = p;
		clen[ncomp++] = len;
		p += len;
	}
	p++; // 'E'
	if (*p != '\0' && strncmp(p, ".llvm.", 6) != 0)
		goto fail;
	if (ncomp < 2 || !is_rust_hash(comp[ncomp - 1], clen[ncomp - 1]))
		goto fail;
	// Each escape decodes to one byte and "::" replaces "..": the
	// result never outgrows the input.
	for (size_t i = 0; i + 1 < ncomp; i++) {
		if (i)
			o.put("::", 2);
		if (!rust_ident(comp[i], clen[i], &o))
			goto fail;
	}
	return res;
fail:
	free(res);
	return NULL;
}

char *cxx(const char *name)
{
	int status = -1;
	char *d = NULL;

	try {
		d = abi::__cxa_demangle(name, NULL, NULL, &status);
	} catch (...) {
		d = NULL;
	}
	if (d && (status != 0 || strlen(d) > DEMANGLE_OUTPUT_MAX)) {
		free(d);
		d = NULL;
	}
	return d;
}

} // namespace

extern "C" char *demangle__cxxabi(const char *name)
{
	char *r;

	// Only "_Z" names: __cxa_demangle also accepts bare type encodings, and
	// would turn a C function named "i" into "int".
	if (!name || strncmp(name, "_Z", 2) != 0 ||
	    strnlen(name, DEMANGLE_INPUT_MAX + 1) > DEMANGLE_INPUT_MAX)
		return NULL;
	if (strncmp(name, "_ZN", 3) == 0 && (r = rust_legacy(name)) != NULL)
		return r;
	return cxx(name);
}
