# unwind/: (registers, copied stack, maps) -> pcs. Knows nothing of symbols,
# runtimes or output: a runtime's code comes to it as a shape. Includes
# common/.
noinst_LIBRARIES += unwind/libunwind.a
unwind_libunwind_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
unwind_libunwind_a_SOURCES = \
	unwind/regs.h unwind/regs_x86_64.c \
	unwind/elffile.c unwind/elffile.h \
	unwind/cfi.c unwind/cfi.h \
	unwind/dwarf_expr.c unwind/dwarf_expr.h \
	unwind/stackmem.c unwind/stackmem.h \
	unwind/unwind.c unwind/unwind.h
UNWIND_LIBS = unwind/libunwind.a $(COMMON_LIBS) $(DW_LIBS)
