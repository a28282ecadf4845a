/* Which of a recording's binaries (profile/mappings.h) one profile window
 * uses: those its unnamed frames ("MODULE+0xSTART", "[MODULE]") name, the
 * ones a dump lists so that its frames can be named later. */
#ifndef SMOLDER_EXPORT_DUMP_MAPPINGS_H
#define SMOLDER_EXPORT_DUMP_MAPPINGS_H
#include <stdbool.h>
#include <stddef.h>

struct profile;

/* used[i] (i < mappings__count of p's meta mappings) is set for each
 * entry a frame of p names; every entry of a name two binaries share.
 * Returns the number set, or -ENOMEM. Reads p only. */
long dump_mappings__used(const struct profile *p, bool *used);

#endif
