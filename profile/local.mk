# profile/: the model every stage hands on: the aggregated profile window,
# the agent's telemetry beside it, the binaries unnamed frames are in,
# and the frame-name conventions (built by
# symbolize/, read by export/). Includes only common/.
noinst_LIBRARIES += profile/libprofile.a
profile_libprofile_a_SOURCES = \
	profile/profile.c profile/profile.h \
	profile/agent_stats.c profile/agent_stats.h \
	profile/frame_name.c profile/frame_name.h \
	profile/mappings.c profile/mappings.h \
	profile/event_list.c profile/event_list.h
PROFILE_LIBS = profile/libprofile.a $(COMMON_LIBS)
