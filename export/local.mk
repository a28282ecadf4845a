# export/: encoders (JSON dump, collapsed, top table) and sinks (files).
# Knows nothing of perf records or libdw.
noinst_LIBRARIES += export/libexport.a
export_libexport_a_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
export_libexport_a_SOURCES = \
	export/json_dump.c export/json_dump.h \
	export/collapsed.c export/collapsed.h \
	export/top.c export/top.h \
	export/atomic_file.c export/atomic_file.h

dist_doc_DATA += doc/format.md doc/smolder.profile.v1.schema.json

if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_export
TESTS += tests/unit/test_export
tests_unit_test_export_SOURCES = tests/unit/test_export.c
# SRCDIR locates doc/smolder.profile.v1.schema.json for the schema check.
tests_unit_test_export_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CRITERION_CFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_export_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_export_LDADD = export/libexport.a collector/libcollector.a common/libcommon.a \
	$(JANSSON_LIBS) $(ZLIB_LIBS) $(CRITERION_LIBS)
endif
