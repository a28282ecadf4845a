/* The agent's own vDSO, copied into a file: it is no file, but every
 * 64-bit process maps the same image, so the registry reads this copy as
 * the binary "[vdso]" (collector/binary.h). Thread-safe (no state). */
#ifndef SMOLDER_COLLECTOR_VDSO_H
#define SMOLDER_COLLECTOR_VDSO_H

/* Copies the vDSO into an unlinked temporary file (mode 0600) and returns
 * its fd (the caller closes it), or -ENOENT (no vDSO, or not where the
 * auxiliary vector says, or over 1 MiB), or -errno. */
int vdso__copy(void);

#endif
