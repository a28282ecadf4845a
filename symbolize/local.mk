# symbolize/: pc -> frames. Knows nothing of perf records or output.
noinst_LIBRARIES += symbolize/libsymbolize.a
symbolize_libsymbolize_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
symbolize_libsymbolize_a_SOURCES = \
	symbolize/symbin.c symbolize/symbin.h \
	symbolize/debugcache.c symbolize/debugcache.h \
	symbolize/inlines.c symbolize/inlines.h \
	symbolize/kallsyms.c symbolize/kallsyms.h \
	symbolize/kallsyms_cache.c symbolize/kallsyms_cache.h \
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
tests_unit_test_symbolize_SOURCES = tests/unit/test_symbolize.c tests/unit/test_debugcache.c
tests_unit_test_symbolize_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(CRITERION_CFLAGS) \
	-DSYMBOLIZE_FIXTURES_SRCDIR='"$(abs_top_srcdir)/tests/fixtures/symbolize"' \
	-DSYMBOLIZE_FIXTURES_BUILDDIR='"$(abs_top_builddir)/tests/fixtures/symbolize"'
tests_unit_test_symbolize_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_symbolize_LDADD = symbolize/libsymbolize.a common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS)
# demangle.cc pulls in libstdc++
tests_unit_test_symbolize_LINK = $(CXXLINK)

check_PROGRAMS += tests/unit/test_kallsyms_cache
TESTS += tests/unit/test_kallsyms_cache
tests_unit_test_kallsyms_cache_SOURCES = tests/unit/test_kallsyms_cache.c
tests_unit_test_kallsyms_cache_CPPFLAGS = $(AM_CPPFLAGS) $(CRITERION_CFLAGS) \
	-DSYMBOLIZE_FIXTURES_SRCDIR='"$(abs_top_srcdir)/tests/fixtures/symbolize"'
tests_unit_test_kallsyms_cache_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_kallsyms_cache_LDADD = symbolize/libsymbolize.a common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS)
tests_unit_test_kallsyms_cache_LINK = $(CXXLINK)

check_PROGRAMS += tests/unit/test_inlines
TESTS += tests/unit/test_inlines
tests_unit_test_inlines_SOURCES = tests/unit/test_inlines.c
tests_unit_test_inlines_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(CRITERION_CFLAGS) \
	-DSYMBOLIZE_FIXTURES_BUILDDIR='"$(abs_top_builddir)/tests/fixtures/symbolize"'
tests_unit_test_inlines_CFLAGS = $(TEST_CFLAGS) -g
tests_unit_test_inlines_LDADD = symbolize/libsymbolize.a common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS)
EXTRA_tests_unit_test_inlines_DEPENDENCIES = \
	tests/fixtures/symbolize/fixture$(EXEEXT) \
	tests/fixtures/symbolize/fixture_deep$(EXEEXT)
EXTRA_tests_unit_test_symbolize_DEPENDENCIES = \
	tests/fixtures/symbolize/fixture$(EXEEXT) \
	tests/fixtures/symbolize/fixture_cxx$(EXEEXT) \
	tests/fixtures/symbolize/fixture_deep$(EXEEXT) \
	tests/fixtures/symbolize/fixture.stripped \
	tests/fixtures/symbolize/fixture.minidebug

# ELF fixtures with known names: built, never run. Their own flags (not the
# sanitizer/warning set) keep them small; -O2 makes the always_inline
# function a real DW_TAG_inlined_subroutine.
check_PROGRAMS += tests/fixtures/symbolize/fixture tests/fixtures/symbolize/fixture_cxx \
	tests/fixtures/symbolize/fixture_deep
tests_fixtures_symbolize_fixture_SOURCES = tests/fixtures/symbolize/fixture.c
tests_fixtures_symbolize_fixture_CFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_LDFLAGS = -g
tests_fixtures_symbolize_fixture_cxx_SOURCES = tests/fixtures/symbolize/fixture_cxx.cc
tests_fixtures_symbolize_fixture_cxx_CXXFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_cxx_LDFLAGS = -g
tests_fixtures_symbolize_fixture_deep_SOURCES = tests/fixtures/symbolize/fixture_deep.cc
tests_fixtures_symbolize_fixture_deep_CXXFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_deep_LDFLAGS = -g
tests/fixtures/symbolize/fixture.stripped: tests/fixtures/symbolize/fixture$(EXEEXT)
	$(AM_V_GEN)$(STRIP) --strip-all -o $@ tests/fixtures/symbolize/fixture$(EXEEXT)
CLEANFILES += tests/fixtures/symbolize/fixture.stripped
# MiniDebugInfo as Fedora's find-debuginfo (add_minidebug) makes it: the
# function symbols not in .dynsym, in an xz-compressed ELF stored as
# .gnu_debugdata in the stripped binary. Without nm/objcopy/xz no file is
# made and the test that needs it is skipped.
tests/fixtures/symbolize/fixture.minidebug: tests/fixtures/symbolize/fixture$(EXEEXT)
	$(AM_V_GEN)bin=tests/fixtures/symbolize/fixture$(EXEEXT); t=$@.tmp; \
	for p in nm objcopy xz; do \
		command -v $$p >/dev/null 2>&1 || { echo "$@: no $$p, not made"; exit 0; }; \
	done; \
	rm -f $@ $$t.* && \
	nm -D --format=posix --defined-only $$bin | awk '{ print $$1 }' | sort > $$t.dynsyms && \
	nm --format=posix --defined-only $$bin | \
		awk '{ if ($$2 == "T" || $$2 == "t") print $$1 }' | sort > $$t.funcsyms && \
	comm -13 $$t.dynsyms $$t.funcsyms > $$t.keep && \
	objcopy --only-keep-debug $$bin $$t.debug && \
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols=$$t.keep $$t.debug $$t.mini && \
	xz -f $$t.mini && \
	$(STRIP) --strip-all -o $$t.stripped $$bin && \
	objcopy --add-section .gnu_debugdata=$$t.mini.xz $$t.stripped && \
	mv -f $$t.stripped $@ && rm -f $$t.*
CLEANFILES += tests/fixtures/symbolize/fixture.minidebug \
	tests/fixtures/symbolize/fixture.minidebug.tmp.*
endif
