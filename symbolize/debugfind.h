/* How libdwfl gets a binary and its separate debug info.
 *
 * The binary: as an Elf we read (unwind/elffile.h), handed to libdwfl by
 * its find_elf callback, never by a file descriptor it would map itself
 * (dwfl_report_elf maps the file: a user who cuts it short makes the
 * agent's next read of it a SIGBUS).
 *
 * Separate debug info: without the network and without opening what other
 * users put beside their binaries, only under the debug root (default
 * /usr/lib/debug, filled by the distributions' debug packages), by
 * build-id, and from the cache's plain copy when one exists
 * (symbolize/debugcache.h). libdwfl maps those files: they are root's (or
 * our own copies, in our own directory), found in the agent's own mount
 * namespace, never through a process's root, and no user can change them.
 * A binary's own DWARF may come the same way, from a copy in the cache
 * (debugfind__dwarf_from_copy). */
#ifndef SMOLDER_SYMBOLIZE_DEBUGFIND_H
#define SMOLDER_SYMBOLIZE_DEBUGFIND_H

#include <elfutils/libdwfl.h>
#include <libelf.h>

struct cachedir;
struct debugfind;

/* What the callbacks know of one module: the binary's Elf and the fd it
 * reads (owned until libdwfl takes them, on the first call of find_elf, or
 * closed by debugfind__delete), its path (copied), and the cache to take
 * plain debug copies from (borrowed; NULL: none). 0 or -ENOMEM (elf and fd
 * still the caller's then). */
int debugfind__new(struct cachedir *cache, Elf *elf, int fd, const char *path,
		   struct debugfind **out);
/* The binary's own DWARF is to come from a copy in the cache (made from
 * fd, which f owns from now on and closes), which libdwfl maps in place of
 * a separate debug file; the caller has hidden it in the Elf. */
void debugfind__dwarf_from_copy(struct debugfind *f, int fd);
/* After dwfl_end() of the Dwfl whose module used it. Accepts NULL. */
void debugfind__delete(struct debugfind *f);

/* Reports the binary f holds as a module of dwfl named name, at its ELF
 * addresses (what dwfl_report_elf does at base 0 relative to p_vaddr,
 * without mapping the file): module addresses are the ELF vaddrs, even for
 * prelinked libraries, whose first PT_LOAD is not at 0. *end gets the end
 * of its highest segment. NULL when libdwfl cannot use the file (not
 * ET_EXEC or ET_DYN: a relocatable object would need its section layout;
 * no PT_LOAD). f must outlive dwfl; libdwfl takes its Elf and fd when the
 * module's ELF is first asked for (dwfl_module_getelf). */
Dwfl_Module *debugfind__report(struct debugfind *f, Dwfl *dwfl, const char *name, Dwarf_Addr *end);

/* The callbacks to give dwfl_begin(), for modules reported by
 * debugfind__report. */
const Dwfl_Callbacks *debugfind__callbacks(void);

/* Where debug files are looked up. dir is borrowed and must stay valid.
 * For tests; not thread-safe: call before any Dwfl is created. */
void debugfind__set_root(const char *dir);

#endif
