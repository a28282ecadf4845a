# cli/: the smolder program: main.c dispatches to one file per subcommand,
# each of which parses its options, calls the machinery below and prints.
bin_PROGRAMS += smolder
smolder_SOURCES = \
	cli/main.c cli/cli.h \
	cli/record.c cli/record_output.c cli/record_output.h \
	cli/run.c \
	cli/report.c \
	cli/upload.c \
	cli/upload_names.c cli/upload_names.h \
	cli/probe.c \
	cli/symbolize.c
smolder_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(JANSSON_CFLAGS)
smolder_LDADD = $(DAEMON_LIBS)
# the C++ driver (demangle.cc), with libstdc++ static where configure found it possible
smolder_LDFLAGS = $(AM_LDFLAGS) $(STATIC_CXX_LDFLAGS)
smolder_LINK = $(CXXLD) $(AM_CXXFLAGS) $(CXXFLAGS) $(smolder_LDFLAGS) $(LDFLAGS) -o $@

dist_man_MANS += doc/smolder.8
