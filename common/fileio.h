/* Whole reads and writes on file descriptors: the loops every reader and
 * writer needs (EINTR, short transfers), with the bound on what may be read
 * a parameter, never a constant of this module. No state; thread-safe. */
#ifndef SMOLDER_COMMON_FILEIO_H
#define SMOLDER_COMMON_FILEIO_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes all len bytes. Returns 0, or -errno (-EIO when write() makes no
 * progress). */
int fileio__write_all(int fd, const void *buf, size_t len);

/* Writes all len bytes to a FIFO, pipe, socket or terminal whose reader
 * may not read, waiting for it in poll() until deadline_ns
 * (clock__mono_ns(); 0: no deadline), never inside write(): an fd without
 * O_NONBLOCK is written PIPE_BUF bytes at a time, which a pipe that polls
 * writable takes without blocking (a terminal stopped by ^S still can). A
 * regular file is written as by fileio__write_all. Returns 0, -ETIMEDOUT
 * past the deadline (part may have been written), -EINTR when a signal the
 * process handles interrupts the wait (a ^C ends it), or -errno (-EPIPE
 * when the reader went away, with SIGPIPE ignored). */
int fileio__write_until(int fd, const void *buf, size_t len, uint64_t deadline_ns);

/* Writes all len bytes at offset off. Returns 0 or -errno (-EIO as above). */
int fileio__pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

/* Reads exactly len bytes at offset off. Returns 0, -errno, or -ENODATA
 * when the file ends first. */
int fileio__pread_exact(int fd, void *buf, size_t len, uint64_t off);

/* Reads from offset off until the end of the file or max bytes, whichever
 * comes first, into a new buffer of exactly *len + 1 bytes, NUL-terminated
 * (the caller frees *out). *len == max means the file may hold more: to
 * refuse a file larger than N, ask for N + 1 and check. Returns 0, -ENOMEM
 * or -errno (outputs untouched). */
int fileio__read_upto(int fd, uint64_t off, size_t max, char **out, size_t *len);

/* Reads from the file position until the end of the file or size bytes
 * into buf (which the caller owns: no copy of the data is left anywhere
 * else, for secrets). Returns the count, or -errno. */
ssize_t fileio__read_into(int fd, void *buf, size_t size);

/* Reads a small file (a sysctl, a /proc or /sys entry) into buf,
 * NUL-terminated: at most size - 1 bytes. Opens with O_NOCTTY and
 * O_NONBLOCK. Returns the length, or -errno (-EINVAL for size 0). */
ssize_t fileio__read_small(const char *path, char *buf, size_t size);

#endif
