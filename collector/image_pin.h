/* A process image, pinned for runtime readers. Readers read a process's
 * memory by pid, now, while the samples they serve are older: a process
 * that execs (a setuid binary, or anything) between a sample and its read
 * would have its new image read at the old image's addresses, and those
 * bytes named in the profile. A pin is /proc/PID/mem opened while the
 * image's own maps show the mapping a reader was opened for; that file
 * reads the address space it was opened on and no other, so after an exec
 * (or the pid's reuse) a read through it fails. Readers keep reading by
 * pid (vectored, cheap); after a sample's reads, one byte read through the
 * pin says whether they read the image the sample ran. */
#ifndef SMOLDER_COLLECTOR_IMAGE_PIN_H
#define SMOLDER_COLLECTOR_IMAGE_PIN_H
#include <stdbool.h>
#include <stdint.h>

struct image_pin {
	int fd;          /* /proc/PID/mem; -1: not pinned */
	uint64_t probe;  /* an address of the mapping, read to check */
};

#define IMAGE_PIN_INIT { -1, 0 }

/* Pins pid's image if its maps (read after /proc/PID/mem is opened, so
 * the file is of that image or an older one) map the file of inode ino
 * (0: any; path then, when not NULL, must be its path) at start with file
 * offset pgoff. Returns 0, -ESTALE when they do not (the process runs
 * another image than the one it was known by), or -errno. */
int image_pin__open(struct image_pin *pin, int pid, uint64_t start, uint64_t pgoff, uint64_t ino,
		    const char *path);
/* Whether the pinned image is still the process's (one read of a byte). */
bool image_pin__same(const struct image_pin *pin);
void image_pin__close(struct image_pin *pin);

#endif
