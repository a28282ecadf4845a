/* What profiles call a user: the login name the host's passwd file gives
 * the uid, else its number.
 *
 * The file is read by us, not through NSS (getpwuid): NSS may ask LDAP or
 * SSSD over the network, and nothing on the sampling path may wait for
 * the network. It is the host's file (root's), read in the agent's mount
 * namespace: the uids are the host's too. A name is taken only when it is
 * a plain login name (letters, digits, '.', '_', '-', an ending '$', at
 * most USERNAMES_NAME_MAX bytes), the first line of a uid wins; anything
 * else is the number. Looked-up names are kept; the file is looked at again
 * for a uid it did not name, at most every USERNAMES_RECHECK_NS, and what
 * was kept is dropped when it changed. Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_USERNAMES_H
#define SMOLDER_COLLECTOR_USERNAMES_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct usernames;

#define USERNAMES_NAME_MAX 32
#define USERNAMES_RECHECK_NS (10ull * 1000000000ull)
/* uids kept at once; past it the cache starts over */
#define USERNAMES_MAX_KEPT 4096
/* lines of the passwd file read at most */
#define USERNAMES_MAX_LINES 1000000

/* path: the passwd file (NULL: /etc/passwd); copied. NULL on ENOMEM. */
struct usernames *usernames__new(const char *path);
void usernames__delete(struct usernames *u);

/* The name of uid into buf (size >= USERNAMES_NAME_MAX + 1 gives every
 * name), NUL-terminated; now_ns (CLOCK_MONOTONIC) paces the re-reads of
 * the file. Returns its length. */
size_t usernames__name(struct usernames *u, uid_t uid, uint64_t now_ns, char *buf, size_t size);

#endif
