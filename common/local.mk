noinst_LIBRARIES += common/libcommon.a
common_libcommon_a_SOURCES = \
	common/log.c common/log.h \
	common/timeutil.c common/timeutil.h \
	common/parse.c common/parse.h \
	common/hash.h \
	common/u64map.c common/u64map.h \
	common/strtab.c common/strtab.h \
	common/strtab_remap.c common/strtab_remap.h \
	common/privdir.c common/privdir.h \
	common/cachedir.c common/cachedir.h
