/* pprof's profile.proto (github.com/google/pprof/proto/profile.proto) of a
 * profile window: what `go tool pprof`, Pyroscope, Parca and most profile
 * viewers read. Written with export/protobuf.h, gzip'd as pprof files are.
 *
 * Mapping of smolder's collapsed frames onto pprof:
 * - sample types [samples/count, cpu/nanoseconds]; value = [count,
 *   count * period_ns]; period_type cpu/nanoseconds;
 * - one Sample per (group, stack), location ids leaf first, string labels
 *   service_name, exe, comm (when not empty), pid (when grouping per pid)
 *   and thread (when grouping per thread and the name is known);
 *   an empty stack (a sample nothing could be unwound for) gets one
 *   location, function "[no stack]" in the exe, because pprof drops
 *   samples without locations and its totals would no longer match;
 * - inlined frames ("f_[i]") fold into the Location of the nearest
 *   non-inlined frame toward the root (the function they were inlined
 *   into): one Location, Lines leaf-most first, as pprof models inlining;
 * - the "_[k]", "_[i]", "_[j]" suffixes, and those of interpreted frames
 *   ("_[0]", "_[py]", "_[rb]"), are stripped from function names: the
 *   Location structure carries inlining and the Mapping carries kernel
 *   ("[kernel.kallsyms]") and JIT or interpreted code ("[jit]");
 * - a name's place, " (FILE:LINE)" (--lines, and interpreters' files),
 *   becomes the Line's line and the Function's filename: one Function per
 *   distinct (name, file), name = system_name, so -lines, -list and
 *   -traces read them;
 * - a Mapping per module the frame names reveal: "MODULE+0xSTART" frames
 *   map to MODULE, "[NAME]" frames to NAME when it looks like a file name
 *   (has a '.'), else to "[NAME]" (pseudo-mappings such as "[anon]"); both
 *   to the group's exe when MODULE or NAME is the exe's file name; other
 *   frames (and "[unknown]") to the group's exe ("[unknown]" when the exe
 *   is unknown). Where the profile's binaries (profile/mappings.h) know
 *   the module (or the exe's path), the Mapping carries its path and build
 *   ID; has_functions is always set (pprof then never tries to symbolize),
 *   has_filenames, has_line_numbers and has_inline_frames where any frame
 *   has them. Dumps keep no pcs: a stripped function's Location has its
 *   start for address ("MODULE+0xSTART", an ELF vaddr of the binary:
 *   -addresses shows it), others 0; every Mapping has start = limit =
 *   offset = 0. */
#ifndef SMOLDER_EXPORT_PPROF_H
#define SMOLDER_EXPORT_PPROF_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profile;

struct pprof_opts {
	uint64_t period_ns;   /* CPU time one sample stands for (1e9 / frequency_hz); 0: unknown */
	uint64_t time_ns;     /* time_nanos: start of the profile (epoch ns) */
	uint64_t duration_ns; /* duration_nanos */
};

/* The uncompressed Profile message of p in a malloc'd buffer (*buf, *len;
 * caller frees). Returns 0 or -ENOMEM (outputs untouched). Does not modify p. */
int pprof__encode(const struct profile *p, const struct pprof_opts *o, void **buf, size_t *len);

/* Writes the gzip'd message to out. Returns 0, -ENOMEM, -EINVAL (zlib
 * refused) or -EIO on a write error. */
int pprof__write(const struct profile *p, const struct pprof_opts *o, FILE *out);

#endif
