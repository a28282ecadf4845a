/* String interning: each distinct string gets a small stable id.
 * Ids start at 1; 0 is never a valid id. Strings are immutable once interned and
 * live until strtab__delete. Not thread-safe. */
#ifndef SMOLDER_COMMON_STRTAB_H
#define SMOLDER_COMMON_STRTAB_H
#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab__new(void);
void strtab__delete(struct strtab *t);

/* Interns s[0..len) (need not be NUL-terminated; must not contain NUL).
 * Returns 0 and sets *id, or -ENOMEM. A string seen before is a lookup. */
int strtab__intern(struct strtab *t, const char *s, size_t len, uint32_t *id);
int strtab__intern_cstr(struct strtab *t, const char *s, uint32_t *id);
/* The NUL-terminated string for id, or NULL for an unknown id. */
const char *strtab__str(const struct strtab *t, uint32_t id);
size_t strtab__len(const struct strtab *t, uint32_t id);
size_t strtab__count(const struct strtab *t);
size_t strtab__bytes(const struct strtab *t);
/* What a string takes beside its characters, roughly: its entry, its
 * index slot, its terminator. Budgets of names count with it. */
#define STRTAB_ENTRY_OVERHEAD 24u

#endif
