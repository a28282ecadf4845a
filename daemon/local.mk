# daemon/: the always-on service and what starting the agent needs: the
# configuration file, windows and their rotation into the spool, the
# CPU-budget controller, signals, privileges, detaching, readiness, the
# stats line, the sink built from the configuration. Logs; never parses
# command lines. Includes every stage below it.
noinst_LIBRARIES += daemon/libdaemon.a
daemon_libdaemon_a_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
daemon_libdaemon_a_SOURCES = \
	daemon/conf.c daemon/conf.h \
	daemon/conf_keys.c daemon/conf_keys.h \
	daemon/conf_msg.c daemon/conf_msg.h \
	daemon/startup.c daemon/startup.h \
	daemon/sink_setup.c daemon/sink_setup.h \
	daemon/privileges.c daemon/privileges.h \
	daemon/detach.c daemon/detach.h \
	daemon/pidfile.c daemon/pidfile.h \
	daemon/notify.c daemon/notify.h \
	daemon/signals.c daemon/signals.h \
	daemon/conf_source.c daemon/conf_source.h \
	daemon/cpu_budget.c daemon/cpu_budget.h \
	daemon/window.c daemon/window.h \
	daemon/stats_line.c daemon/stats_line.h \
	daemon/service.c daemon/service.h
DAEMON_LIBS = daemon/libdaemon.a export/libexport.a $(COLLECTOR_LIBS) $(EXPORT_LIBS)
