# symbolize/: pc -> frames. Knows nothing of perf records or output.
noinst_LIBRARIES += symbolize/libsymbolize.a
symbolize_libsymbolize_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
symbolize_libsymbolize_a_SOURCES = \
	symbolize/symbin.c symbolize/symbin.h \
	symbolize/kallsyms.c symbolize/kallsyms.h \
	symbolize/perfmap.c symbolize/perfmap.h \
	symbolize/demangle.cc symbolize/demangle.h \
	symbolize/frame_name.c symbolize/frame_name.h

# Text fixtures for the unit test (ELF fixtures are built below).
EXTRA_DIST += \
	tests/fixtures/symbolize/kallsyms.txt \
	tests/fixtures/symbolize/kallsyms_restricted.txt

if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_symbolize
TESTS += tests/unit/test_symbolize
tests_unit_test_symbolize_SOURCES = tests/unit/test_symbolize.c
tests_unit_test_symbolize_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(CRITERION_CFLAGS) \
	-DSYMBOLIZE_FIXTURES_SRCDIR='"$(abs_top_srcdir)/tests/fixtures/symbolize"' \
	-DSYMBOLIZE_FIXTURES_BUILDDIR='"$(abs_top_builddir)/tests/fixtures/symbolize"'
tests_unit_test_symbolize_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_symbolize_LDADD = symbolize/libsymbolize.a common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS)
# demangle.cc pulls in libstdc++
tests_unit_test_symbolize_LINK = $(CXXLINK)
EXTRA_tests_unit_test_symbolize_DEPENDENCIES = \
	tests/fixtures/symbolize/fixture$(EXEEXT) \
	tests/fixtures/symbolize/fixture_cxx$(EXEEXT) \
	tests/fixtures/symbolize/fixture.stripped

# ELF fixtures with known names: built, never run. Their own flags (not the
# sanitizer/warning set) keep them small; -O2 makes the always_inline
# function a real DW_TAG_inlined_subroutine.
check_PROGRAMS += tests/fixtures/symbolize/fixture tests/fixtures/symbolize/fixture_cxx
tests_fixtures_symbolize_fixture_SOURCES = tests/fixtures/symbolize/fixture.c
tests_fixtures_symbolize_fixture_CFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_LDFLAGS = -g
tests_fixtures_symbolize_fixture_cxx_SOURCES = tests/fixtures/symbolize/fixture_cxx.cc
tests_fixtures_symbolize_fixture_cxx_CXXFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_cxx_LDFLAGS = -g
tests/fixtures/symbolize/fixture.stripped: tests/fixtures/symbolize/fixture$(EXEEXT)
	$(AM_V_GEN)$(STRIP) --strip-all -o $@ tests/fixtures/symbolize/fixture$(EXEEXT)
CLEANFILES += tests/fixtures/symbolize/fixture.stripped
endif
