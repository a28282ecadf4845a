/* Demangling: linkage names of C++ (Itanium ABI), Rust (legacy and v0) and
 * D turned into the names people read, at one of two levels of detail.
 *
 * The work is done by a maintained demangler, never by parsers of our own:
 * libiberty's (the one binutils and gdb use) where smolder was built with
 * it, else libstdc++'s __cxa_demangle, which knows only C++ (legacy Rust
 * names are C++ names with a hash component, dropped here; Rust v0 and D
 * names stay raw). demangle__engine() says which, for `smolder probe`.
 *
 * Names come from users' binaries and are hostile: the input is bounded,
 * the demangler's own recursion limit stays on, and an output that grows
 * past DEMANGLE_OUTPUT_MAX (the substitution bombs of the mangling
 * grammars) abandons the name rather than the agent's memory. */
#ifndef SMOLDER_SYMBOLIZE_DEMANGLE_H
#define SMOLDER_SYMBOLIZE_DEMANGLE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Linkage names longer than this are left as they are. */
#define DEMANGLE_INPUT_MAX (16 * 1024)
/* A demangled name longer than this is abandoned (the raw name is kept). */
#define DEMANGLE_OUTPUT_MAX (64 * 1024)

/* How much of a demangled name a frame shows:
 *   full   std::vector<int, std::allocator<int> >::push_back(int const&)
 *   short  std::vector::push_back
 * short drops parameter lists, template and generic arguments, return
 * types and clone suffixes, so that the instantiations and clones of one
 * function are one frame. */
enum name_detail {
	NAME_DETAIL_SHORT,
	NAME_DETAIL_FULL,
};
#define NAME_DETAIL_DEFAULT NAME_DETAIL_SHORT

/* "short" / "full" -> *out; returns 0, or -1 for anything else. */
int name_detail__parse(const char *s, enum name_detail *out);
const char *name_detail__name(enum name_detail d);

/* The demangled form of linkage name `name` (malloc'd, the caller frees),
 * or NULL when it is not a mangled name this build understands, or is
 * out of bounds, or memory ran out. Only "_Z", "_R" and "_D<digit>" names
 * are tried: a plain C name is never mistaken for a type encoding.
 * Thread-safe. */
char *demangle(const char *name, enum name_detail detail);

/* Which demangler this build uses and what it covers, e.g.
 * "libiberty (C++, Rust legacy and v0, D)". */
const char *demangle__engine(void);

/* Shortens a demangled name in place to its NAME_DETAIL_SHORT form (the
 * result is never longer). Exposed for the fallback demangler and tests. */
void demangle__shorten(char *name);

/* The libstdc++ fallback (demangle_cxxabi.cc): C++ and legacy Rust in full
 * detail, malloc'd, or NULL. */
char *demangle__cxxabi(const char *name);

#ifdef __cplusplus
}
#endif

#endif
