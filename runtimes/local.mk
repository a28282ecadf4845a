# runtimes/: readers of language runtimes from outside the process (their
# memory, their own self-description), called by unwind/ and symbolize/.
# Includes common/ and profile/.
noinst_LIBRARIES += runtimes/libruntimes.a
runtimes_libruntimes_a_SOURCES = \
	runtimes/procmem.c runtimes/procmem.h \
	runtimes/gostack.c runtimes/gostack.h \
	runtimes/memsource.c runtimes/memsource.h \
	runtimes/javacmd.c runtimes/javacmd.h \
	runtimes/hotspot_vm.c runtimes/hotspot_vm.h \
	runtimes/hotspot_code.c runtimes/hotspot_names.c \
	runtimes/hotspot.h runtimes/hotspot_impl.h \
	runtimes/cpython_layout.c runtimes/cpython_layout.h \
	runtimes/cpython.c runtimes/cpython_ahead.c runtimes/cpython_names.c \
	runtimes/cpython_stack.c \
	runtimes/cpython_lines.c runtimes/cpython_lines.h \
	runtimes/cpython.h runtimes/cpython_impl.h
RUNTIMES_LIBS = runtimes/libruntimes.a $(PROFILE_LIBS)
