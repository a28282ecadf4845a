# unwind/: (registers, copied stack, maps) -> pcs. Knows nothing of symbols
# or output. Includes common/ and runtimes/.
noinst_LIBRARIES += unwind/libunwind.a
unwind_libunwind_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
unwind_libunwind_a_SOURCES = \
	unwind/regs.h unwind/regs_x86_64.c \
	unwind/cfi.c unwind/cfi.h \
	unwind/dwarf_expr.c unwind/dwarf_expr.h \
	unwind/unwind.c unwind/unwind.h
UNWIND_LIBS = unwind/libunwind.a $(RUNTIMES_LIBS) $(DW_LIBS)
