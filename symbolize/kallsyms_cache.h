/* The parsed kernel symbol table kept in the cache directory, so that a
 * restart on the same boot with the same modules skips /proc/kallsyms (the
 * kernel spends ~40 ms formatting it). The file is trusted only when its key
 * matches the running kernel: boot id, kernel release, /proc/modules (less
 * its volatile columns) and the first text address /proc/kallsyms shows this
 * process. Not thread-safe (one cachedir per thread). */
#ifndef SMOLDER_SYMBOLIZE_KALLSYMS_CACHE_H
#define SMOLDER_SYMBOLIZE_KALLSYMS_CACHE_H
#include <stddef.h>
#include <stdint.h>

struct cachedir;
struct kallsyms;
struct strtab;

/* Name of the file in the cache directory. */
#define KALLSYMS_CACHE_NAME "kallsyms"

/* Where the kernel's state is read; a NULL member means the default. */
struct kallsyms_source {
	const char *kallsyms; /* "/proc/kallsyms" */
	const char *modules;  /* "/proc/modules"; absent: a kernel without modules */
	const char *boot_id;  /* "/proc/sys/kernel/random/boot_id" */
	const char *release;  /* a string, not a path: uname's release */
};

/* What a cache file must match. */
struct kallsyms_cache_key {
	char boot_id[40];      /* NUL-padded */
	char release[72];      /* NUL-padded */
	uint64_t modules_hash; /* name, size, state, address, taint of each */
	uint64_t first_text;   /* never 0: a restricted view has no key */
};

/* How kallsyms_cache__load went, for the caller to log. */
struct kallsyms_cache_status {
	int from_cache; /* 1: the table came from the cache file */
	int read_err;   /* why not: -ENOENT no file, -ESTALE other key, -EBADMSG
			 * damaged, -EPERM restricted or not ours, other -errno;
			 * 0 when there was no cache */
	int write_err;  /* after a parse: 0 written, 1 not attempted (restricted
			 * or empty table, no key), -EAGAIN modules changed during
			 * the parse, other -errno */
};

/* Loads the kernel symbol table: from the cache file when its key matches,
 * else by parsing src->kallsyms (as kallsyms__load), after which the cache
 * file is (re)written; a cache failure never fails the load. src and cache
 * may be NULL (defaults; no cache: a plain kallsyms__load). A cached table
 * answers every kallsyms__lookup exactly as a fresh parse would. Returns 0
 * or kallsyms__load's -errno; *out (and *st, which may be NULL) untouched on
 * failure. */
int kallsyms_cache__load(const struct kallsyms_source *src, struct cachedir *cache,
			 struct strtab *names, struct kallsyms **out,
			 struct kallsyms_cache_status *st);

/* The key of the running kernel as src shows it. Returns 0, -EPERM when
 * kernel addresses are hidden from us (kptr_restrict), -EINVAL for a
 * malformed boot id or release, -errno. */
int kallsyms_cache__key(const struct kallsyms_source *src, struct kallsyms_cache_key *key);

/* Writes k (fresh from kallsyms__load: no lookups yet) with key to fd from
 * the current offset. Returns 0, -ENODATA (restricted or empty), -EBUSY,
 * -errno. */
int kallsyms_cache__write(int fd, const struct kallsyms *k, const struct kallsyms_cache_key *key);

/* Reads a cache file (hostile input) from offset 0 of fd. key NULL accepts
 * any key (tests, fuzzing). Returns 0, -ESTALE (key differs), -EBADMSG
 * (malformed, damaged, torn), -ENOMEM, -errno; *out untouched on failure. */
int kallsyms_cache__read(int fd, const struct kallsyms_cache_key *key, struct strtab *names,
			 struct kallsyms **out);

#endif
