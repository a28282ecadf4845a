# collector/: perf_event setup, rings, records, process table, sampling loop,
# profile window, CLI. Knows nothing of HTTP or JSON.
noinst_LIBRARIES += collector/libcollector.a
collector_libcollector_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
collector_libcollector_a_SOURCES = \
	collector/perf_events.c collector/perf_events.h \
	collector/ring.c collector/ring.h \
	collector/record.c collector/record.h \
	collector/procmaps.c collector/procmaps.h \
	collector/binary.c collector/binary.h \
	collector/proctable.c collector/proctable.h \
	collector/profile.c collector/profile.h \
	collector/sampler.c collector/sampler.h \
	collector/conf.c collector/conf.h

bin_PROGRAMS += smolder
smolder_SOURCES = \
	collector/main.c collector/cli.h \
	collector/cmd_record.c \
	collector/cmd_probe.c \
	collector/cmd_run.c \
	collector/daemon.c collector/daemon.h \
	collector/cli_export.c collector/cli_export.h \
	collector/cli_common.c collector/cli_common.h \
	collector/privileges.c collector/privileges.h \
	collector/cmd_upload.c \
	collector/cmd_report.c
smolder_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(JANSSON_CFLAGS)
smolder_LDADD = export/libexport.a collector/libcollector.a symbolize/libsymbolize.a \
	unwind/libunwind.a common/libcommon.a $(EXPORT_LIBS) $(DW_LIBS)
# the C++ driver (demangle.cc), with libstdc++ static where configure found it possible
smolder_LDFLAGS = $(AM_LDFLAGS) $(STATIC_CXX_LDFLAGS)
smolder_LINK = $(CXXLD) $(AM_CXXFLAGS) $(CXXFLAGS) $(smolder_LDFLAGS) $(LDFLAGS) -o $@

if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_collector tests/unit/test_common
TESTS += tests/unit/test_collector tests/unit/test_common
tests_unit_test_collector_SOURCES = tests/unit/test_record.c tests/unit/test_ring.c \
	tests/unit/test_procmaps.c tests/unit/test_profile.c
tests_unit_test_collector_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_collector_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_collector_LDADD = collector/libcollector.a symbolize/libsymbolize.a unwind/libunwind.a \
	common/libcommon.a $(DW_LIBS) $(CRITERION_LIBS)
tests_unit_test_collector_LINK = $(CXXLINK)
check_PROGRAMS += tests/unit/test_conf
TESTS += tests/unit/test_conf
tests_unit_test_conf_SOURCES = tests/unit/test_conf.c
tests_unit_test_conf_CPPFLAGS = $(AM_CPPFLAGS) $(CRITERION_CFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_conf_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_conf_LDADD = collector/libcollector.a common/libcommon.a $(CRITERION_LIBS)
tests_unit_test_common_SOURCES = tests/unit/test_common.c tests/unit/test_cachedir.c
tests_unit_test_common_CPPFLAGS = $(AM_CPPFLAGS) $(CRITERION_CFLAGS)
tests_unit_test_common_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_common_LDADD = common/libcommon.a $(CRITERION_LIBS)
endif

dist_man_MANS += doc/smolder.8
