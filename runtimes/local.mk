# runtimes/: readers of language runtimes from outside the process (their
# memory, their own self-description), called by unwind/ and symbolize/.
# Includes common/ and profile/.
noinst_LIBRARIES += runtimes/libruntimes.a
runtimes_libruntimes_a_SOURCES = \
	runtimes/procmem.c runtimes/procmem.h \
	runtimes/gostack.c runtimes/gostack.h
RUNTIMES_LIBS = runtimes/libruntimes.a $(PROFILE_LIBS)
