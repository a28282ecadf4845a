/* ELF files of other users, read into our memory, never mapped.
 *
 * A file its owner can truncate or rewrite must not be the agent's memory:
 * libelf's mapping modes (ELF_C_READ_MMAP*) leave a file's pages in our
 * address space, and the first read of a page past the end of a file cut
 * short raises SIGBUS. Read (ELF_C_READ), libelf preads each section into
 * its own memory the first time it is asked for it, whole, and a file cut
 * short makes that read fail: no data, an error, never a signal. What is
 * read is therefore what the readers ask for, and what they ask for is
 * sized here first, so that it can be charged before it is read
 * (symbolize/loadbudget.h).
 *
 * libdw reads every DWARF section it knows when it opens a file's DWARF,
 * and follows some of them to other files (a dwz alternate file named by
 * .gnu_debugaltlink, which it would open at a path the file chooses, and
 * map): elffile__hide makes sections a reader has no use for read as
 * empty, in this Elf only.
 *
 * Not thread-safe per Elf (libelf descriptors are not). */
#ifndef SMOLDER_UNWIND_ELFFILE_H
#define SMOLDER_UNWIND_ELFFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <gelf.h>
#include <libelf.h>

/* elf_begin(fd, ELF_C_READ): the descriptor reads fd (which must stay open
 * as long as it, and is not closed by elf_end). NULL when libelf cannot
 * even start (no memory); a file that is not ELF gives an Elf of another
 * kind (elf_kind). */
Elf *elffile__read(int fd);

/* The name of a section (its header in *sh), "" when it has none. */
const char *elffile__name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh);

/* The bytes a section (header sh, name) takes once read: sh_size, or for
 * a compressed section (SHF_COMPRESSED, or GNU .zdebug_*) the size it
 * inflates to, read from its header alone. 0 for SHT_NOBITS. An unreadable
 * header counts as UINT64_MAX / 2 (too large for any budget). */
uint64_t elffile__inflated_bytes(Elf *elf, const GElf_Shdr *sh, const char *name);

/* The bytes of elf's sections of type sh_type (SHT_SYMTAB, SHT_DYNSYM,
 * SHT_DYNAMIC) and of the string tables they name: what reading their
 * entries' names reads. */
uint64_t elffile__symtab_bytes(Elf *elf, GElf_Word sh_type);

/* Makes every section for which hide(name, its header, arg) is true read
 * as empty from now on (SHT_NOBITS, no size, no name, in this Elf's copy of the section
 * headers; the file is untouched), and returns how many. elf must have
 * been read (elffile__read) or be a private memory image: the headers of a
 * mapped one may be the mapping itself. */
size_t elffile__hide(Elf *elf, bool (*hide)(const char *name, const GElf_Shdr *sh, void *arg),
		     void *arg);

/* Whether name is a DWARF section: .debug_*, or GNU's compressed .zdebug_*. */
bool elffile__is_dwarf(const char *name);
/* Whether name is the DWARF section dwarf_name (".debug_frame"), plain or
 * as GNU's compressed .zdebug_* (".zdebug_frame"). */
bool elffile__is_section(const char *name, const char *dwarf_name);

#endif
