# symbolize/: a pc (of a binary, the kernel or JIT code) -> frame names.
# Knows nothing of perf records or output. Includes common/, profile/ and
# runtimes/.
noinst_LIBRARIES += symbolize/libsymbolize.a
symbolize_libsymbolize_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(ZLIB_CFLAGS)
symbolize_libsymbolize_a_SOURCES = \
	symbolize/symbolizer.c symbolize/symbolizer.h \
	symbolize/symindex.c symbolize/symindex.h \
	symbolize/late_names.c symbolize/late_names.h \
	symbolize/places.c symbolize/places.h \
	symbolize/debuginfod_fetch.c symbolize/debuginfod_fetch.h \
	symbolize/debugcache.c symbolize/debugcache.h \
	symbolize/debugdata.c symbolize/debugdata.h \
	symbolize/loadbudget.c symbolize/loadbudget.h \
	symbolize/debugfind.c symbolize/debugfind.h \
	symbolize/inlines.c symbolize/inlines.h \
	symbolize/inlineindex.c symbolize/inlineindex.h \
	symbolize/inlineindex_file.c symbolize/inlineindex_file.h \
	symbolize/kallsyms.c symbolize/kallsyms.h \
	symbolize/kallsyms_cache.c symbolize/kallsyms_cache.h \
	symbolize/perfmap.c symbolize/perfmap.h \
	symbolize/jitdump.c symbolize/jitdump.h \
	symbolize/jitnames.c symbolize/jitnames.h \
	symbolize/demangle.c symbolize/demangle.h \
	symbolize/demangle_shorten.c \
	symbolize/demangle_cxxabi.cc
SYMBOLIZE_LIBS = symbolize/libsymbolize.a $(RUNTIMES_LIBS) $(DW_LIBS) $(IBERTY_LIBS) $(ZLIB_LIBS) $(DL_LIBS)
