/* A dump document written again with its frames renamed: for `smolder
 * upload --debug-dir`, which names a stripped binary's functions on a
 * machine that has its debug files before the dump leaves it. Everything
 * but the stacks stays as it was (window id, labels, counters), so a
 * receiver sees the same window, named. */
#ifndef SMOLDER_EXPORT_DUMP_RENAME_H
#define SMOLDER_EXPORT_DUMP_RENAME_H
#include <stddef.h>

struct dump;

/* The new name of frame[0..len), or NULL to keep it. */
typedef const char *(*dump_rename_fn)(void *ctx, const char *frame, size_t len);

/* Document d (one document of a file) as JSON text with every frame of its
 * stacks renamed: stacks that became one are merged (their counts added)
 * and sorted as the format wants (count descending, then bytewise). *out
 * (malloc'd, ending in '\n', *len without a NUL) is a valid dump.
 * Returns the number of frames renamed (0: *out is still written), or
 * -ENOMEM. */
long dump_rename__document(const struct dump *d, dump_rename_fn rename, void *ctx, char **out, size_t *len);

#endif
