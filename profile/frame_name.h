/* Making a raw name safe for collapsed stacks: ';' becomes ':', control
 * characters and invalid bytes are dropped, length is capped. Shared by every
 * symbol source so that all frames follow one convention. */
#ifndef SMOLDER_PROFILE_FRAME_NAME_H
#define SMOLDER_PROFILE_FRAME_NAME_H
#include <stddef.h>
#include <stdint.h>

struct strtab;

#define FRAME_NAME_MAX 1024

/* Interns sanitize(name) + suffix (suffix may be "" or e.g. "_[k]"). */
int frame_name__intern(struct strtab *names, const char *name, const char *suffix, uint32_t *id);
/* Interns "[module]", the frame for a pc of a module that nothing names.
 * module may be a path (its last component is used); NULL or empty gives
 * "[unknown]". */
int frame_name__module(struct strtab *names, const char *module, uint32_t *id);

#endif
