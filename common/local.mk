# common/: helpers every stage may use (logging, clocks, parsing, file I/O,
# hashing, interning, private directories). Includes nothing above it.
noinst_LIBRARIES += common/libcommon.a
common_libcommon_a_SOURCES = \
	common/log.c common/log.h \
	common/clock.c common/clock.h \
	common/selfusage.c common/selfusage.h \
	common/parse.c common/parse.h \
	common/units.c common/units.h \
	common/fileio.c common/fileio.h \
	common/hashidx.c common/hashidx.h \
	common/calendar.c common/calendar.h \
	common/redact.c common/redact.h \
	common/userfile.c common/userfile.h \
	common/proccreds.c common/proccreds.h \
	common/hash.h \
	common/u64map.c common/u64map.h \
	common/strtab.c common/strtab.h \
	common/strtab_remap.c common/strtab_remap.h \
	common/privdir.c common/privdir.h \
	common/cachedir.c common/cachedir.h
COMMON_LIBS = common/libcommon.a
