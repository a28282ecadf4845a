/* Kernel symbols from /proc/kallsyms, sorted once. Frames are interned as
 * "name_[k]"; when kptr_restrict hides addresses (all zero) every kernel pc is
 * "[kernel]_[k]". Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_KALLSYMS_H
#define SMOLDER_SYMBOLIZE_KALLSYMS_H
#include <stddef.h>
#include <stdint.h>

struct strtab;
struct kallsyms;

/* Reads `path` (normally "/proc/kallsyms"). Returns 0, -errno, -ENOMEM.
 * A file with no usable addresses still loads (restricted mode). */
int kallsyms__load(const char *path, struct strtab *names, struct kallsyms **out);
void kallsyms__delete(struct kallsyms *k);
/* True when addresses were hidden (kptr_restrict). */
int kallsyms__restricted(const struct kallsyms *k);
/* The frame id for a kernel pc (cached). Returns 0 or -ENOMEM. */
int kallsyms__lookup(struct kallsyms *k, uint64_t pc, uint32_t *id);
size_t kallsyms__count(const struct kallsyms *k);

#endif
