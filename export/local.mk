# export/: encoders (JSON dump, collapsed, top table), sinks (JSON over HTTP,
# Pyroscope ingest), the spool and the uploader thread.
# Knows nothing of perf records or libdw.
noinst_LIBRARIES += export/libexport.a
export_libexport_a_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS) $(ZLIB_CFLAGS)
export_libexport_a_SOURCES = \
	export/json_dump.c export/json_dump.h \
	export/collapsed.c export/collapsed.h \
	export/top.c export/top.h \
	export/atomic_file.c export/atomic_file.h \
	export/gzip.c export/gzip.h \
	export/dump_read.c export/dump_read.h \
	export/sink.h export/sink.c \
	export/curl_loader.c export/curl_loader.h \
	export/http_sink.c export/http_sink.h \
	export/pyroscope.c export/pyroscope.h \
	export/spool.c export/spool.h \
	export/uploader.c export/uploader.h \
	export/dump_merge.c export/dump_merge.h \
	export/protobuf.c export/protobuf.h \
	export/pprof.c export/pprof.h \
	export/flamegraph.c export/flamegraph.h

# No $(CURL_LIBS): libcurl is dlopen()ed by the first transfer (curl_loader.c),
# so that record, report, probe and a spooling-only run never map it.
EXPORT_LIBS = $(JANSSON_LIBS) $(ZLIB_LIBS) $(DL_LIBS) -lpthread

dist_doc_DATA += doc/format.md doc/smolder.profile.v1.schema.json doc/flamegraph.md

if HAVE_CRITERION
check_PROGRAMS += tests/unit/test_export tests/unit/test_sink tests/unit/test_spool \
	tests/unit/test_curl_loader
TESTS += tests/unit/test_export tests/unit/test_sink tests/unit/test_spool \
	tests/unit/test_curl_loader
tests_unit_test_export_SOURCES = tests/unit/test_export.c
# SRCDIR locates doc/smolder.profile.v1.schema.json for the schema check.
tests_unit_test_export_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CRITERION_CFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_export_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_export_LDADD = export/libexport.a collector/libcollector.a common/libcommon.a \
	$(EXPORT_LIBS) $(CRITERION_LIBS)

# sinks: request building, label grammar, splitting, answer classification
tests_unit_test_sink_SOURCES = tests/unit/test_sink.c
tests_unit_test_sink_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS) $(CRITERION_CFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_sink_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sink_LDADD = export/libexport.a collector/libcollector.a common/libcommon.a \
	$(EXPORT_LIBS) $(CRITERION_LIBS)

# loading libcurl at run time: works, is idempotent, a missing library's message
tests_unit_test_curl_loader_SOURCES = tests/unit/test_curl_loader.c
tests_unit_test_curl_loader_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS) \
	$(CRITERION_CFLAGS)
tests_unit_test_curl_loader_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_curl_loader_LDADD = export/libexport.a collector/libcollector.a common/libcommon.a \
	$(EXPORT_LIBS) $(CRITERION_LIBS)

# report: merging dumps, pprof, top/diff
check_PROGRAMS += tests/unit/test_report tests/unit/test_flamegraph
TESTS += tests/unit/test_report tests/unit/test_flamegraph
tests_unit_test_report_SOURCES = tests/unit/test_report.c
tests_unit_test_report_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CRITERION_CFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_report_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_report_LDADD = export/libexport.a collector/libcollector.a common/libcommon.a \
	$(EXPORT_LIBS) $(CRITERION_LIBS)
# the SVG flame graph
tests_unit_test_flamegraph_SOURCES = tests/unit/test_flamegraph.c
tests_unit_test_flamegraph_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CRITERION_CFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_flamegraph_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_flamegraph_LDADD = export/libexport.a collector/libcollector.a common/libcommon.a \
	$(EXPORT_LIBS) $(CRITERION_LIBS)

# spool, dump reading/validation, uploader thread
tests_unit_test_spool_SOURCES = tests/unit/test_spool.c tests/unit/test_dump_read.c \
	tests/unit/test_uploader.c
tests_unit_test_spool_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CRITERION_CFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_spool_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_spool_LDADD = export/libexport.a collector/libcollector.a common/libcommon.a \
	$(EXPORT_LIBS) $(CRITERION_LIBS)
endif

# Dump fixtures of the reader's tests (valid, and broken in one way each).
EXTRA_DIST += \
	tests/fixtures/dumps/bad_line3.json \
	tests/fixtures/dumps/bad_sum.json \
	tests/fixtures/dumps/control_char.json \
	tests/fixtures/dumps/duplicate_key.json \
	tests/fixtures/dumps/duplicate_stack.json \
	tests/fixtures/dumps/empty.json \
	tests/fixtures/dumps/empty.json.gz \
	tests/fixtures/dumps/idle.json \
	tests/fixtures/dumps/missing_comm.json \
	tests/fixtures/dumps/missing_labels.json \
	tests/fixtures/dumps/negative_count.json \
	tests/fixtures/dumps/not_json.json \
	tests/fixtures/dumps/other_schema.json \
	tests/fixtures/dumps/stats_mismatch.json \
	tests/fixtures/dumps/truncated.json \
	tests/fixtures/dumps/truncated.json.gz \
	tests/fixtures/dumps/valid.json \
	tests/fixtures/dumps/valid.json.gz \
	tests/fixtures/dumps/window_reversed.json
