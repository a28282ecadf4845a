/* Demangling of C++ (Itanium ABI) and Rust (legacy "_ZN...17h<hash>E" and
 * v0 "_R") names. */
#ifndef SMOLDER_SYMBOLIZE_DEMANGLE_H
#define SMOLDER_SYMBOLIZE_DEMANGLE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the demangled form of `name` into buf (NUL-terminated, truncated to
 * size) and returns 1; returns 0 and leaves buf untouched when `name` is not a
 * mangled name it understands. Rust legacy hashes (::h0123456789abcdef) are
 * dropped so that rebuilds aggregate together. Only names starting with "_Z"
 * are decoded (a plain C name is never mistaken for a type encoding); Rust v0
 * ("_R") names are not decoded yet and return 0. Thread-safe. */
int demangle(const char *name, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
