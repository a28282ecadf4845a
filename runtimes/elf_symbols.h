/* What a binary's symbol tables and section headers say, for readers
 * recognising their runtime in it: the symbols a runtime exports (its
 * self-description, its state, its eval loop), and its sections. The ELF
 * is another user's file: names and counts come from it and are bounded
 * by libelf's checks of the section sizes. Thread-safe for distinct Elf
 * handles. */
#ifndef SMOLDER_RUNTIMES_ELF_SYMBOLS_H
#define SMOLDER_RUNTIMES_ELF_SYMBOLS_H
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Calls fn with each named symbol of the sections of type sh_type
 * (SHT_DYNSYM: what the binary exports, which stripping keeps; SHT_SYMTAB)
 * until fn returns nonzero. */
typedef int (*elf_symbols_fn)(void *arg, const GElf_Sym *sym, const char *name);
void elf_symbols__each(Elf *elf, Elf64_Word sh_type, elf_symbols_fn fn, void *arg);

/* The ELF vaddrs of the data objects names[0..n) the binary exports
 * (.dynsym), 0 for each it does not. Returns how many were found. */
int elf_symbols__objects(Elf *elf, const char *const *names, size_t n, uint64_t *vaddrs);

/* Reads len bytes at ELF vaddr from the file's allocated sections (what
 * a constant the binary exports holds; zeros in .bss, where compilers put
 * constants that are 0). Returns 0, or -ENOENT when no section holds all
 * of them. */
int elf_symbols__read(Elf *elf, uint64_t vaddr, void *buf, size_t len);

/* The file's DT_SONAME ("libpython3.8.so.1.0") into buf (size bytes, NUL
 * terminated). Returns 0, or -ENOENT when it has none (or it does not fit). */
int elf_symbols__soname(Elf *elf, char *buf, size_t size);

/* Whether the binary has a section whose name `is` accepts. */
bool elf_symbols__has_section(Elf *elf, int (*is)(const char *name));

#endif
