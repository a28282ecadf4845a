# Fuzz targets (libFuzzer) of every parser of outside input, since all of
# that input is hostile; `make check` replays the committed corpora, `make
# fuzz` fuzzes.
#
# Each target tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput; its seed
# corpus (and every crasher found, kept as a regression input) is
# tests/fuzz/corpus/NAME/.
#
# make check: tests/fuzz/replay_NAME is the target linked with replay_main.c
# by the ordinary compiler against the stage libraries (no clang needed). It
# runs the target over every file of its corpus (compiled in as FUZZ_CORPUS;
# other files or directories can be given as arguments) and fails on a
# crash, a failed check, or an empty corpus. With --enable-sanitizers the
# replay runs under ASan/UBSan like the fuzzer.
#
# make fuzz: builds every target with clang -fsanitize=fuzzer,address,undefined
# from the stage sources (compiled again with clang into tests/fuzz/build/,
# since the libraries are built with the configured compiler) and runs each
# for FUZZ_SECONDS (default 60), one after the other, with -timeout=5 and
# -rss_limit_mb=1024. New inputs go to tests/fuzz/build/corpus/NAME (in the
# build tree; the committed seeds are read, never written); a crash stops
# with the reproducer at tests/fuzz/build/NAME-crash-*. Variables:
#   FUZZ_TARGETS="record dump"   a subset
#   FUZZ_SECONDS=600             run time per target
#   FUZZ_ARGS="-jobs=2"          more libFuzzer options
#   FUZZ_CC=clang FUZZ_CXX=clang++
# Reproduce one input: tests/fuzz/build/fuzz_NAME FILE (or, with the
# configured compiler, tests/fuzz/replay_NAME FILE).

FUZZ_NAMES = record ring procmaps kallsyms perfmap jitdump conf dump elf unwind kallsyms_cache x86_frame gopclntab

FUZZ_COMMON_SRCS = tests/fuzz/replay_main.c tests/fuzz/fuzz.h
FUZZ_REPLAY_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS_DIR='"$(abs_top_srcdir)/tests/fuzz/corpus"'
# Not AM_CFLAGS' -Wmissing-prototypes concern: fuzz.h declares the entry point.
FUZZ_REPLAY_CFLAGS = $(AM_CFLAGS)

check_PROGRAMS += \
	tests/fuzz/replay_record tests/fuzz/replay_ring tests/fuzz/replay_procmaps \
	tests/fuzz/replay_kallsyms tests/fuzz/replay_perfmap tests/fuzz/replay_conf \
	tests/fuzz/replay_dump tests/fuzz/replay_elf tests/fuzz/replay_unwind \
	tests/fuzz/replay_kallsyms_cache tests/fuzz/replay_jitdump tests/fuzz/replay_x86_frame tests/fuzz/replay_gopclntab
TESTS += \
	tests/fuzz/replay_record tests/fuzz/replay_ring tests/fuzz/replay_procmaps \
	tests/fuzz/replay_kallsyms tests/fuzz/replay_perfmap tests/fuzz/replay_conf \
	tests/fuzz/replay_dump tests/fuzz/replay_elf tests/fuzz/replay_unwind \
	tests/fuzz/replay_kallsyms_cache tests/fuzz/replay_jitdump tests/fuzz/replay_x86_frame tests/fuzz/replay_gopclntab

tests_fuzz_replay_record_SOURCES = tests/fuzz/fuzz_record.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_record_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/record"'
tests_fuzz_replay_record_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_record_LDADD = collector/libcollector.a $(COMMON_LIBS)

tests_fuzz_replay_ring_SOURCES = tests/fuzz/fuzz_ring.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_ring_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/ring"'
tests_fuzz_replay_ring_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_ring_LDADD = collector/libcollector.a $(COMMON_LIBS)

tests_fuzz_replay_procmaps_SOURCES = tests/fuzz/fuzz_procmaps.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_procmaps_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/procmaps"'
tests_fuzz_replay_procmaps_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_procmaps_LDADD = collector/libcollector.a $(COMMON_LIBS)

tests_fuzz_replay_kallsyms_SOURCES = tests/fuzz/fuzz_kallsyms.c tests/fuzz/lookups.h $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_kallsyms_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/kallsyms"'
tests_fuzz_replay_kallsyms_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_kallsyms_LDADD = $(SYMBOLIZE_LIBS)
# symbolize/demangle_cxxabi.cc pulls in libstdc++
tests_fuzz_replay_kallsyms_LINK = $(CXXLINK)

tests_fuzz_replay_kallsyms_cache_SOURCES = tests/fuzz/fuzz_kallsyms_cache.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_kallsyms_cache_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/kallsyms_cache"'
tests_fuzz_replay_kallsyms_cache_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_kallsyms_cache_LDADD = $(SYMBOLIZE_LIBS)
tests_fuzz_replay_kallsyms_cache_LINK = $(CXXLINK)

tests_fuzz_replay_perfmap_SOURCES = tests/fuzz/fuzz_perfmap.c tests/fuzz/lookups.h $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_perfmap_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/perfmap"'
tests_fuzz_replay_perfmap_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_perfmap_LDADD = $(SYMBOLIZE_LIBS)
tests_fuzz_replay_perfmap_LINK = $(CXXLINK)

tests_fuzz_replay_jitdump_SOURCES = tests/fuzz/fuzz_jitdump.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_jitdump_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/jitdump"'
tests_fuzz_replay_jitdump_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_jitdump_LDADD = $(SYMBOLIZE_LIBS)
tests_fuzz_replay_jitdump_LINK = $(CXXLINK)

tests_fuzz_replay_conf_SOURCES = tests/fuzz/fuzz_conf.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_conf_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/conf"'
tests_fuzz_replay_conf_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_conf_LDADD = daemon/libdaemon.a $(PROFILE_LIBS)

tests_fuzz_replay_dump_SOURCES = tests/fuzz/fuzz_dump.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_dump_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/dump"'
tests_fuzz_replay_dump_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_dump_LDADD = $(EXPORT_LIBS)

tests_fuzz_replay_elf_SOURCES = tests/fuzz/fuzz_elf.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_elf_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) $(DW_CFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/elf"'
tests_fuzz_replay_elf_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_elf_LDADD = $(SYMBOLIZE_LIBS)
tests_fuzz_replay_elf_LINK = $(CXXLINK)

tests_fuzz_replay_unwind_SOURCES = tests/fuzz/fuzz_unwind.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_unwind_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) $(DW_CFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/unwind"'
tests_fuzz_replay_unwind_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_unwind_LDADD = $(UNWIND_LIBS)

tests_fuzz_replay_x86_frame_SOURCES = tests/fuzz/fuzz_x86_frame.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_x86_frame_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/x86_frame"'
tests_fuzz_replay_x86_frame_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_x86_frame_LDADD = $(RUNTIMES_LIBS)

tests_fuzz_replay_gopclntab_SOURCES = tests/fuzz/fuzz_gopclntab.c $(FUZZ_COMMON_SRCS)
tests_fuzz_replay_gopclntab_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_CORPUS='FUZZ_CORPUS_DIR "/gopclntab"'
tests_fuzz_replay_gopclntab_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_gopclntab_LDADD = $(RUNTIMES_LIBS)

# The corpora (directories are copied whole into the tarball).
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/lookups.h tests/fuzz/make_seeds.py

# --- make fuzz -----------------------------------------------------------------
FUZZ_SECONDS = 60
FUZZ_TARGETS = $(FUZZ_NAMES)
FUZZ_ARGS =
FUZZ_CC = clang
FUZZ_CXX = clang++
FUZZ_BUILD = tests/fuzz/build
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS_ALL = -std=gnu99 -g -O1 -fno-omit-frame-pointer -fno-strict-aliasing \
	$(WARN_CFLAGS) -Wno-error $(FUZZ_SAN) \
	-I$(top_srcdir) -I$(top_builddir) -DSMOLDER_VERSION='"$(PACKAGE_VERSION)"' \
	$(DW_CFLAGS) $(JANSSON_CFLAGS) $(ZLIB_CFLAGS) $(CURL_CFLAGS)
# The parsers under test and what they need; instrumented for coverage.
FUZZ_LIB_SRCS = common/log.c common/clock.c common/selfusage.c common/parse.c common/units.c common/u64map.c \
	common/strtab.c common/strtab_remap.c common/privdir.c common/cachedir.c \
	profile/frame_name.c profile/event_list.c \
	unwind/regs_x86_64.c unwind/cfi.c unwind/dwarf_expr.c unwind/stackmem.c unwind/unwind.c \
	symbolize/symindex.c symbolize/inlines.c symbolize/demangle.c symbolize/demangle_shorten.c \
	symbolize/kallsyms.c symbolize/perfmap.c symbolize/jitdump.c \
	symbolize/kallsyms_cache.c symbolize/debugcache.c symbolize/debugdata.c symbolize/debugfind.c \
	runtimes/gopclntab.c runtimes/gopclntab_elf.c runtimes/gobuildinfo.c runtimes/elf_symbols.c \
	collector/perf_record.c collector/ring.c collector/procmaps.c daemon/conf.c \
	runtimes/x86_insn.c runtimes/x86_frame.c \
	export/gzip.c export/dump_read.c
FUZZ_LIB_CXX_SRCS = symbolize/demangle_cxxabi.cc
# Largest input per target: a whole record; a 2-page ring + header; lines of
# text files a few KiB (the bounds are per line); ELF seeds are < 30 KB.
fuzz_max_len_record = 65600
fuzz_max_len_ring = 8300
fuzz_max_len_procmaps = 16384
fuzz_max_len_kallsyms = 16384
fuzz_max_len_perfmap = 16384
fuzz_max_len_jitdump = 65536
fuzz_max_len_conf = 16384
fuzz_max_len_dump = 65536
fuzz_max_len_elf = 65536
fuzz_max_len_unwind = 8192
fuzz_max_len_kallsyms_cache = 65536
fuzz_max_len_x86_frame = 8200
fuzz_max_len_gopclntab = 8192

# fuzz-build only builds tests/fuzz/build/fuzz_NAME (to run them by hand).
fuzz-build:
	@set -e; b=$(FUZZ_BUILD); mkdir -p $$b/obj; \
	objs=; \
	for s in $(FUZZ_LIB_SRCS); do \
		o=$$b/obj/`echo $$s | tr / _`.o; \
		echo "  FUZZCC   $$s"; \
		$(FUZZ_CC) $(FUZZ_CFLAGS_ALL) -fsanitize=fuzzer-no-link -c $(top_srcdir)/$$s -o $$o; \
		objs="$$objs $$o"; \
	done; \
	for s in $(FUZZ_LIB_CXX_SRCS); do \
		o=$$b/obj/`echo $$s | tr / _`.o; \
		echo "  FUZZCXX  $$s"; \
		$(FUZZ_CXX) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -I$(top_srcdir) \
			-I$(top_builddir) -c $(top_srcdir)/$$s -o $$o; \
		objs="$$objs $$o"; \
	done; \
	rm -f $$b/libfuzzdeps.a; $(AR) cr $$b/libfuzzdeps.a $$objs; $(RANLIB) $$b/libfuzzdeps.a; \
	for t in $(FUZZ_TARGETS); do \
		echo "  FUZZLD   $$b/fuzz_$$t"; \
		$(FUZZ_CC) $(FUZZ_CFLAGS_ALL) -fsanitize=fuzzer -c $(top_srcdir)/tests/fuzz/fuzz_$$t.c \
			-o $$b/obj/fuzz_$$t.o; \
		$(FUZZ_CXX) $(FUZZ_SAN) -fsanitize=fuzzer -o $$b/fuzz_$$t $$b/obj/fuzz_$$t.o \
			$$b/libfuzzdeps.a $(DW_LIBS) $(EXPORT_LIBS) $(IBERTY_LIBS); \
	done

fuzz: fuzz-build
	@set -e; b=$(FUZZ_BUILD); \
	for t in $(FUZZ_TARGETS); do \
		case $$t in \
		record) ml=$(fuzz_max_len_record);; ring) ml=$(fuzz_max_len_ring);; \
		procmaps) ml=$(fuzz_max_len_procmaps);; kallsyms) ml=$(fuzz_max_len_kallsyms);; \
		perfmap) ml=$(fuzz_max_len_perfmap);; conf) ml=$(fuzz_max_len_conf);; \
		jitdump) ml=$(fuzz_max_len_jitdump);; \
		dump) ml=$(fuzz_max_len_dump);; elf) ml=$(fuzz_max_len_elf);; \
		unwind) ml=$(fuzz_max_len_unwind);; \
		kallsyms_cache) ml=$(fuzz_max_len_kallsyms_cache);; \
		x86_frame) ml=$(fuzz_max_len_x86_frame);; \
		gopclntab) ml=$(fuzz_max_len_gopclntab);; *) ml=4096;; \
		esac; \
		mkdir -p $$b/corpus/$$t; \
		echo "  FUZZ     $$t for $(FUZZ_SECONDS)s (-max_len=$$ml)"; \
		$$b/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=$$ml -timeout=5 \
			-rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix=$$b/$$t- \
			$(FUZZ_ARGS) $$b/corpus/$$t $(top_srcdir)/tests/fuzz/corpus/$$t; \
	done

clean-local: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_BUILD)
.PHONY: fuzz fuzz-build clean-fuzz
