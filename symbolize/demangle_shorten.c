/* The short form of a demangled name: what a flame graph of template code
 * wants is one frame per function, not one per instantiation.
 *
 *   std::vector<int, std::allocator<int> >::push_back(int const&)  std::vector::push_back
 *   void foo<int>(int)                                             foo
 *   foo(int) [clone .constprop.0]                                  foo
 *   <alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop           <alloc::vec::Vec as core::ops::drop::Drop>::drop
 *   v0::outer::inner::<u32>                                        v0::outer::inner
 *   main::{lambda(int)#1}::operator()                              main::{lambda(int)#1}::operator()
 *
 * Template and generic argument lists go, but a '<' that opens a path
 * component (Rust's qualified paths "<T as Trait>::f", "<[T]>::f") is
 * kept with its contents shortened; operator names ("operator<<",
 * "operator()") are copied whole; braces (lambdas, closures) are copied
 * verbatim; "(anonymous namespace)" stays. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"

static int ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '$' || (unsigned char)c >= 0x80;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The index just past the group opened at s[r] (open/close nest; an
 * unclosed group runs to the end). For '<' groups, the '>' of "->" does
 * not close. */
static size_t skip_group(const char *s, size_t r, char open, char close)
{
	int depth = 0;

	for (; s[r]; r++) {
		if (s[r] == open) {
			depth++;
		} else if (s[r] == close && !(close == '>' && r > 0 && s[r - 1] == '-')) {
			if (--depth == 0)
				return r + 1;
		}
	}
	return r;
}

/* "const", "volatile", "noexcept", "&", "&&" after a parameter list. */
static size_t skip_qualifiers(const char *s, size_t r)
{
	static const char *const words[] = { " const", " volatile", " noexcept", " &&", " &" };
	size_t i;

	for (;;) {
		if (s[r] == '&') {
			r++;
			continue;
		}
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			size_t n = strlen(words[i]);

			if (starts(s + r, words[i]) && !ident(s[r + n])) {
				r += n;
				break;
			}
		}
		if (i == sizeof(words) / sizeof(words[0]))
			return r;
	}
}

/* At s[r], the word "operator" as a whole word. */
static int operator_at(const char *s, size_t r)
{
	return starts(s + r, "operator") && (r == 0 || !ident(s[r - 1])) && !ident(s[r + 8]);
}

static size_t operator_symbol_len(const char *s)
{
	static const char chars[] = "<>=!+-*/%^&|~,";
	size_t n = 0;

	if ((s[0] == '(' && s[1] == ')') || (s[0] == '[' && s[1] == ']'))
		return 2;
	while (n < 3 && s[n] && strchr(chars, s[n]))
		n++;
	return n;
}

void demangle__shorten(char *s)
{
	size_t r = 0, w = 0, ret_cut = 0, len = strlen(s);
	char *in = malloc(len + 1);
	int kept = 0;        /* open '<' groups kept (qualified paths) */
	int in_operator = 0; /* in "operator TYPE" (a conversion) */

	if (!in)
		return; /* the full name is still a name */
	memcpy(in, s, len + 1);
	while (in[r]) {
		char c = in[r];

		if (starts(in + r, " [clone ")) {
			r = skip_group(in, r + 1, '[', ']');
		} else if (operator_at(in, r)) {
			size_t n = 8;

			if (in[r + 8] == ' ')
				in_operator = 1;
			else
				n += operator_symbol_len(in + r + 8);
			memcpy(s + w, in + r, n);
			w += n, r += n;
			/* "operator< <int>": the template arguments of an operator */
			if (!in_operator && (in[r] == '<' || (in[r] == ' ' && in[r + 1] == '<')))
				r = skip_group(in, in[r] == ' ' ? r + 1 : r, '<', '>');
		} else if (c == '{') {
			size_t end = skip_group(in, r, '{', '}');

			memcpy(s + w, in + r, end - r);
			w += end - r, r = end;
		} else if (c == '<') {
			if (w >= 2 && s[w - 1] == ':' && s[w - 2] == ':') {
				r = skip_group(in, r, '<', '>'); /* Rust's "::<...>" */
				w -= 2;
			} else if (w == 0 || !(ident(s[w - 1]) || s[w - 1] == ']' || s[w - 1] == '>' ||
					       s[w - 1] == ')')) {
				s[w++] = in[r++]; /* opens a qualified path */
				kept++;
			} else {
				r = skip_group(in, r, '<', '>');
			}
		} else if (c == '>' && kept > 0) {
			s[w++] = in[r++];
			kept--;
		} else if (c == '(') {
			if (starts(in + r, "(anonymous namespace)")) {
				size_t n = strlen("(anonymous namespace)");

				memcpy(s + w, in + r, n);
				w += n, r += n;
			} else {
				r = skip_qualifiers(in, skip_group(in, r, '(', ')'));
				in_operator = 0;
			}
		} else if (c == ' ' && kept == 0 && !in_operator) {
			/* what came before a space outside any group is a return type */
			r++;
			ret_cut = w;
		} else {
			s[w++] = in[r++];
		}
	}
	while (w > ret_cut && s[w - 1] == ' ')
		w--;
	if (w > ret_cut) {
		memmove(s, s + ret_cut, w - ret_cut);
		s[w - ret_cut] = '\0';
	} else {
		memcpy(s, in, len + 1); /* nothing left (a malformed name): keep it whole */
	}
	free(in);
}
