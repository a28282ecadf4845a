# collector/: the kernel interface and the sampling loop: perf events,
# rings, record decoding, the process table, the binaries registry, the
# sampler. Knows nothing of HTTP, JSON or configuration files. Includes
# common/, profile/, runtimes/, unwind/ and symbolize/.
noinst_LIBRARIES += collector/libcollector.a
collector_libcollector_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
collector_libcollector_a_SOURCES = \
	collector/perf_events.c collector/perf_events.h \
	collector/perf_features.c collector/perf_features.h \
	collector/perf_attr.c collector/perf_attr.h \
	collector/ring.c collector/ring.h \
	collector/batch.c collector/batch.h \
	collector/offcpu.c collector/offcpu.h \
	collector/perf_record.c collector/perf_record.h \
	collector/cpus.c collector/cpus.h \
	collector/procmaps.c collector/procmaps.h \
	collector/binary.c collector/binary.h \
	collector/vdso.c collector/vdso.h \
	collector/proctable.c collector/proctable.h \
	collector/proctable_identity.c collector/proctable_state.h \
	collector/service_unit.c collector/service_unit.h \
	collector/usernames.c collector/usernames.h \
	collector/threads.c collector/threads.h \
	collector/thread_names.c collector/thread_names.h \
	collector/ptree.c collector/ptree.h \
	collector/image_pin.c collector/image_pin.h \
	collector/runtimes.c collector/runtimes.h \
	collector/livestack.c collector/livestack.h \
	collector/user_stack.c collector/user_stack.h \
	collector/sched_switch.c collector/sched_switch.h \
	collector/sampler.c collector/sampler.h \
	collector/sampler_open.c collector/sampler_offcpu.c collector/sampler_offcpu_pace.c collector/sampler_window.c \
	collector/sampler_state.h
COLLECTOR_LIBS = collector/libcollector.a symbolize/libsymbolize.a \
	$(RUNTIMES_LIBS) $(DW_LIBS) $(IBERTY_LIBS) $(ZLIB_LIBS)
