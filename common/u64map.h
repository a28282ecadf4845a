/* Open-addressing hash map from uint64_t keys to uint64_t values.
 * Every key is allowed (occupancy is tracked separately). Not thread-safe.
 * Lookups never allocate; inserts allocate only when the table grows. */
#ifndef SMOLDER_COMMON_U64MAP_H
#define SMOLDER_COMMON_U64MAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map;

/* NULL on allocation failure. */
struct u64map *u64map__new(size_t capacity_hint);
void u64map__delete(struct u64map *m);

/* true and *val set when key is present; *val untouched otherwise. */
bool u64map__get(const struct u64map *m, uint64_t key, uint64_t *val);
/* Inserts or overwrites. 0 or -ENOMEM (map unchanged). */
int u64map__put(struct u64map *m, uint64_t key, uint64_t val);
/* Returns true when the key was present. */
bool u64map__del(struct u64map *m, uint64_t key);
size_t u64map__count(const struct u64map *m);
void u64map__clear(struct u64map *m);
/* Approximate bytes held. */
size_t u64map__bytes(const struct u64map *m);

/* Iteration: start with *pos = 0; returns false at the end. Do not insert
 * while iterating (u64map__put of a key that is present, which only
 * overwrites its value, is allowed). Deleting the current key is allowed
 * when the loop then steps back one position (*pos - 1): the deletion may
 * shift a later entry into the freed slot, which would be skipped. An
 * entry shifted from the table's start may be visited twice. */
bool u64map__next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
