/* Finding separate debug info for libdwfl, without the network and without
 * opening what other users put beside their binaries: only under the debug
 * root (default /usr/lib/debug, filled by the distributions' debug
 * packages), by build-id, and from the cache's plain copy when one exists
 * (symbolize/debugcache.h). */
#ifndef SMOLDER_SYMBOLIZE_DEBUGFIND_H
#define SMOLDER_SYMBOLIZE_DEBUGFIND_H

#include <elfutils/libdwfl.h>

/* The callbacks to give dwfl_begin(). A module's userdata slot must hold
 * the struct cachedir * to take decompressed copies from (NULL: none). */
const Dwfl_Callbacks *debugfind__callbacks(void);

/* Where debug files are looked up. dir is borrowed and must stay valid.
 * For tests; not thread-safe: call before any Dwfl is created. */
void debugfind__set_root(const char *dir);

#endif
