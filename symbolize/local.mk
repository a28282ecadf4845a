# symbolize/: pc -> frames. Knows nothing of perf records or output.
noinst_LIBRARIES += symbolize/libsymbolize.a
symbolize_libsymbolize_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
symbolize_libsymbolize_a_SOURCES = \
	symbolize/symbin.c symbolize/symbin.h \
	symbolize/kallsyms.c symbolize/kallsyms.h \
	symbolize/perfmap.c symbolize/perfmap.h \
	symbolize/demangle.cc symbolize/demangle.h \
	symbolize/frame_name.c symbolize/frame_name.h

if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_symbolize
TESTS += tests/unit/test_symbolize
tests_unit_test_symbolize_SOURCES = tests/unit/test_symbolize.c
tests_unit_test_symbolize_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_symbolize_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_symbolize_LDADD = symbolize/libsymbolize.a common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS)
# demangle.cc pulls in libstdc++
tests_unit_test_symbolize_LINK = $(CXXLINK)
endif
