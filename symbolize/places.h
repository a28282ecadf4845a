/* Frame names that say where native code is, for frames that carry lines
 * (--lines): "function (file.c:LINE)" (profile/frame_name.h). The
 * file is the last component of the line table's path: the name stays
 * short, and pprof's -source_path finds it. */
#ifndef SMOLDER_SYMBOLIZE_PLACES_H
#define SMOLDER_SYMBOLIZE_PLACES_H
#include <stdint.h>

struct strtab;

/* Interns "name (file:line)" + suffix, file cut to its last component;
 * name + suffix alone when file is NULL or line 0. name is made safe as
 * frame_name__intern does. 0 or -ENOMEM. */
int places__intern(struct strtab *names, const char *name, const char *file, unsigned line, const char *suffix,
		   uint32_t *id);

#endif
