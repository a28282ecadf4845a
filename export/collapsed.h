/* Collapsed ("folded") stack text: one "root;...;leaf count" line per stack,
 * the input format of flamegraph.pl, speedscope and Pyroscope. */
#ifndef SMOLDER_EXPORT_COLLAPSED_H
#define SMOLDER_EXPORT_COLLAPSED_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profile;
struct strtab;

/* Prefix every line with the group's comm as an extra root frame (what
 * `smolder record --format collapsed` does by default). */
#define COLLAPSED_WITH_COMM 0x1u
/* The frame of a thread whose name is not known. */
#define COLLAPSED_UNKNOWN_THREAD "[unknown thread]"

/* Writes every (group, stack) of p to out as
 * "[comm[@USER];][[thread NAME];]root;...;leaf count\n" (@USER for the
 * processes of a user other than root, so that they never share root's
 * process frame): a group of one thread
 * (grouped per thread) gets its thread frame below the comm ("[unknown
 * thread]" when the name is not known).
 * Identical lines (groups sharing a comm, or all groups without the comm
 * flag) are merged by summing their counts, so every line is unique. Lines
 * are sorted bytewise by stack. An empty stack (no frames) is written as
 * its prefix frames alone ("comm count", "comm;[thread NAME] count") and
 * skipped without any (a line with no frame confuses flamegraph.pl). Frame names are re-sanitized on output:
 * ';' becomes ':', control characters become '?'; ids unknown to the strtab
 * are written "[unknown]". Returns 0, -ENOMEM, or -EIO when out reports a
 * write error. Allocates per call; does not modify p. */
int collapsed__write(const struct profile *p, FILE *out, unsigned flags);

/* Appends the collapsed string of frames[0..n) (root first, ';'-joined,
 * sanitized as above) to the growable, NUL-terminated buffer *buf of *cap
 * bytes holding *len bytes (*buf may be NULL with *cap 0; it is realloc'd).
 * Returns 0 or -ENOMEM (the buffer stays valid and owned by the caller). */
int collapsed__append_stack(const struct strtab *names, const uint32_t *frames, size_t n,
			    char **buf, size_t *cap, size_t *len);
/* Appends s (sanitized as a frame name) to the same kind of buffer. */
int collapsed__append_name(const char *s, char **buf, size_t *cap, size_t *len);
/* Appends the frame standing for a process: its name, and "@USER" when
 * user (its `user` label) is not NULL (sanitized as a frame name). */
int collapsed__append_process(const char *name, const char *user, char **buf, size_t *cap,
			      size_t *len);
/* Appends the frame standing for a thread of that name: "[thread NAME]",
 * "[unknown thread]" for "" (sanitized as a frame name). */
int collapsed__append_thread(const char *name, char **buf, size_t *cap, size_t *len);

#endif
