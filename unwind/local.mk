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
# One function described only by .debug_frame: -g without unwind tables.
noinst_LIBRARIES += tests/unit/libunwind_debugframe.a
tests_unit_libunwind_debugframe_a_SOURCES = tests/unit/unwind_debugframe.c
tests_unit_libunwind_debugframe_a_CFLAGS = $(TEST_CFLAGS) -O2 -g -fomit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-exceptions
tests_unit_test_unwind_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(CRITERION_CFLAGS)
# The in-process unwind test walks real -O2 code without frame pointers, so
# only .eh_frame can get through it (this overrides the sanitizers' -fno-omit).
tests_unit_test_unwind_CFLAGS = $(TEST_CFLAGS) -O2 -fomit-frame-pointer
tests_unit_test_unwind_LDADD = tests/unit/libunwind_debugframe.a unwind/libunwind.a common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS) -lpthread -ldl
endif
