# export/: encoders (JSON dump, collapsed, top table, pprof, SVG), dump
# reading and merging, sinks (JSON over HTTP, Pyroscope ingest), the spool
# and the uploader thread. Knows nothing of perf records or libdw. Includes
# common/ and profile/.
noinst_LIBRARIES += export/libexport.a
export_libexport_a_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS) $(ZLIB_CFLAGS)
export_libexport_a_SOURCES = \
	export/json_dump.c export/json_dump.h \
	export/dump_mappings.c export/dump_mappings.h \
	export/dump_rename.c export/dump_rename.h \
	export/collapsed.c export/collapsed.h \
	export/top.c export/top.h \
	export/encode.c export/encode.h \
	export/atomic_file.c export/atomic_file.h \
	export/out_path.c export/out_path.h \
	export/gzip.c export/gzip.h \
	export/dump_read.c export/dump_read.h \
	export/dump_paths.c export/dump_paths.h \
	export/sink.h export/sink.c \
	export/curl_loader.c export/curl_loader.h \
	export/http_sink.c export/http_sink.h \
	export/retry_after.c export/retry_after.h \
	export/pyroscope.c export/pyroscope.h \
	export/spool.c export/spool.h \
	export/uploader.c export/uploader.h \
	export/dump_merge.c export/dump_merge.h \
	export/protobuf.c export/protobuf.h \
	export/pprof.c export/pprof.h \
	export/flamegraph.c export/flamegraph.h \
	export/flamegraph_viewer.c export/flamegraph_viewer.h \
	export/svg_text.c export/svg_text.h

# No $(CURL_LIBS): libcurl is dlopen()ed by the first transfer (curl_loader.c),
# so that record, report, probe and a spooling-only run never map it.
EXPORT_LIBS = export/libexport.a $(PROFILE_LIBS) $(JANSSON_LIBS) $(ZLIB_LIBS) $(DL_LIBS) -lpthread

dist_doc_DATA += doc/format.md doc/smolder.profile.v1.schema.json doc/flamegraph.md
