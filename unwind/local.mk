# unwind/: (registers, copied stack, maps) -> pcs. Knows nothing of symbols or output.
noinst_LIBRARIES += unwind/libunwind.a
unwind_libunwind_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
unwind_libunwind_a_SOURCES = \
	unwind/regs.h unwind/regs_x86_64.c \
	unwind/cfi.c unwind/cfi.h \
	unwind/dwarf_expr.c unwind/dwarf_expr.h \
	unwind/unwind.c unwind/unwind.h

if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_unwind
TESTS += tests/unit/test_unwind
tests_unit_test_unwind_SOURCES = tests/unit/test_unwind.c
tests_unit_test_unwind_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_unwind_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_unwind_LDADD = unwind/libunwind.a common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS)
endif
