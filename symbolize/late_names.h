/* Naming a dump's unnamed frames after the recording, on a machine that has
 * the debug files: "MODULE+0xSTART" becomes the function at START in the
 * debug file whose build ID the dump's mappings give for MODULE
 * (profile/mappings.h), found as DIR/.build-id/xx/rest.debug under each
 * directory asked, in order, and used only when it has that build ID. START is the function's start, so the name is
 * the function's: no line, no inlined frames (the dump keeps no pc).
 *
 * For `smolder report --debug-dir` (and the uploader, before it sends).
 * The directories are the user's own choice and read as that user: the
 * process doing this is not the daemon. Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_LATE_NAMES_H
#define SMOLDER_SYMBOLIZE_LATE_NAMES_H
#include <stddef.h>
#include <stdint.h>

struct debuginfod_fetch;
struct mappings;
struct profile;
struct strtab;

/* What a renaming did, frame names counted once each. */
struct late_names_stats {
	size_t named;       /* MODULE+0xSTART frames given their function's name */
	size_t no_build_id; /* ... left: their module is in no mapping, or has no build ID */
	size_t ambiguous;   /* ... left: two binaries of the dump share the module's name */
	size_t no_file;     /* ... left: no directory has the debug file */
	size_t no_symbol;   /* ... left: the debug file names no function there */
	size_t files;       /* debug files opened */
	size_t wrong_files; /* files found under a build ID that is not theirs */
	size_t fetched;     /* ... of the files, those a debuginfod server gave */
};

/* Where distributions put debug files: searched after the directories asked. */
#define LATE_NAMES_DEFAULT_DIR "/usr/lib/debug"

struct late_names;

/* A renamer interning the new names in names (NULL: a table of its own);
 * m is the dump's binaries; dirs[0..ndirs) are searched in order, then
 * the servers of fetch (NULL: none). All are borrowed and outlive it.
 * 0 or -ENOMEM. */
int late_names__new(struct strtab *names, const struct mappings *m, const char *const *dirs, size_t ndirs,
		    struct debuginfod_fetch *fetch, struct late_names **out);
void late_names__delete(struct late_names *l);
/* The new id of frame id (of names): itself when it keeps its name. Each
 * distinct frame is looked at once. */
uint32_t late_names__rename_id(struct late_names *l, uint32_t id);
/* The new name of frame[0..len), or NULL when it keeps its own (valid
 * while l lives). */
const char *late_names__name(struct late_names *l, const char *frame, size_t len);
/* Another dump's binaries from now on (the debug files opened stay, by
 * build ID; what frames were named is forgotten). */
void late_names__set_mappings(struct late_names *l, const struct mappings *m);
const struct late_names_stats *late_names__stats(const struct late_names *l);
/* -ENOMEM once an allocation failed (frames after it keep their names). */
int late_names__error(const struct late_names *l);

/* Renames p's frames in place (profile__rename_frames), interning the new
 * names in names (p's table); m is p's binaries (NULL: nothing to do).
 * dirs[0..ndirs) are searched in order, then the servers of fetch (NULL:
 * none; symbolize/debuginfod_fetch.h). Returns 0, or -ENOMEM (p may be
 * unchanged; past a failure mid-way, frames keep their names). */
int late_names__apply(struct profile *p, struct strtab *names, const struct mappings *m, const char *const *dirs,
		      size_t ndirs, struct debuginfod_fetch *fetch, struct late_names_stats *stats);

#endif
