# Unit tests (Criterion): one program per tests/unit/test_MODULE.c, linked
# only with the library of its stage and those below it (the *_LIBS sets of
# each stage's local.mk), so that a test of a lower stage cannot use, and a
# stage cannot start to need, anything above it without failing to link.
# The ELF fixtures some of them read are built here too.
if HAVE_CRITERION
UNIT_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS) $(CRITERION_CFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"' \
	-DSYMBOLIZE_FIXTURES_SRCDIR='"$(abs_top_srcdir)/tests/fixtures/symbolize"' \
	-DSYMBOLIZE_FIXTURES_BUILDDIR='"$(abs_top_builddir)/tests/fixtures/symbolize"'
UNIT_TESTS = \
	tests/unit/test_parse \
	tests/unit/test_u64map \
	tests/unit/test_strtab \
	tests/unit/test_strtab_remap \
	tests/unit/test_units \
	tests/unit/test_redact \
	tests/unit/test_userfile \
	tests/unit/test_proccreds \
	tests/unit/test_cachedir \
	tests/unit/test_profile \
	tests/unit/test_event_list \
	tests/unit/test_mappings \
	tests/unit/test_dump_rename \
	tests/unit/test_procmem \
	tests/unit/test_prefetch \
	tests/unit/test_replay \
	tests/unit/test_accountant \
	tests/unit/test_pycmd \
	tests/unit/test_gostack \
	tests/unit/test_gopclntab \
	tests/unit/test_gopclntab_lines \
	tests/unit/test_gojoin \
	tests/unit/test_hotspot \
	tests/unit/test_hotspot_lines \
	tests/unit/test_x86_frame \
	tests/unit/test_cpython \
	tests/unit/test_ruby \
	tests/unit/test_php \
	tests/unit/test_php_jit \
	tests/unit/test_perl \
	tests/unit/test_v8 \
	tests/unit/test_v8_positions \
	tests/unit/test_unwind \
	tests/unit/test_stackmem \
	tests/unit/test_unwind_runtime \
	tests/unit/test_symindex \
	tests/unit/test_kallsyms \
	tests/unit/test_perfmap \
	tests/unit/test_demangle \
	tests/unit/test_frame_name \
	tests/unit/test_symbolizer \
	tests/unit/test_jitdump \
	tests/unit/test_loadbudget \
	tests/unit/test_debugcache \
	tests/unit/test_kallsyms_cache \
	tests/unit/test_inlines \
	tests/unit/test_inlineindex \
	tests/unit/test_perf_record \
	tests/unit/test_ring \
	tests/unit/test_offcpu \
	tests/unit/test_sched_switch \
	tests/unit/test_cpus \
	tests/unit/test_perf_events \
	tests/unit/test_procmaps \
	tests/unit/test_proctable \
	tests/unit/test_proctable_identity \
	tests/unit/test_service_unit \
	tests/unit/test_usernames \
	tests/unit/test_binary \
	tests/unit/test_thread_names \
	tests/unit/test_ptree \
	tests/unit/test_image_pin \
	tests/unit/test_binary_names \
	tests/unit/test_runtimes \
	tests/unit/test_user_stack \
	tests/unit/test_json_dump \
	tests/unit/test_collapsed \
	tests/unit/test_top \
	tests/unit/test_atomic_file \
	tests/unit/test_out_path \
	tests/unit/test_gzip \
	tests/unit/test_http_sink \
	tests/unit/test_pyroscope \
	tests/unit/test_sink \
	tests/unit/test_retry_after \
	tests/unit/test_fileio \
	tests/unit/test_hashidx \
	tests/unit/test_dump_paths \
	tests/unit/test_curl_loader \
	tests/unit/test_dump_merge \
	tests/unit/test_pprof \
	tests/unit/test_protobuf \
	tests/unit/test_flamegraph \
	tests/unit/test_spool \
	tests/unit/test_dump_read \
	tests/unit/test_uploader \
	tests/unit/test_conf \
	tests/unit/test_cpu_budget \
	tests/unit/test_pidfile
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)

# --- common/
tests_unit_test_parse_SOURCES = tests/unit/test_parse.c
tests_unit_test_parse_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_parse_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_parse_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_u64map_SOURCES = tests/unit/test_u64map.c
tests_unit_test_u64map_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_u64map_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_u64map_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_strtab_SOURCES = tests/unit/test_strtab.c
tests_unit_test_strtab_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_strtab_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_strtab_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_strtab_remap_SOURCES = tests/unit/test_strtab_remap.c
tests_unit_test_strtab_remap_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_strtab_remap_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_strtab_remap_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_units_SOURCES = tests/unit/test_units.c
tests_unit_test_units_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_units_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_units_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_redact_SOURCES = tests/unit/test_redact.c
tests_unit_test_redact_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_redact_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_redact_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_userfile_SOURCES = tests/unit/test_userfile.c
tests_unit_test_userfile_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_userfile_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_userfile_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_proccreds_SOURCES = tests/unit/test_proccreds.c tests/unit/child_creds.h
tests_unit_test_proccreds_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_proccreds_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_proccreds_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_cachedir_SOURCES = tests/unit/test_cachedir.c
tests_unit_test_cachedir_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_cachedir_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_cachedir_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

# --- profile/
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c
tests_unit_test_profile_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_profile_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_profile_LDADD = $(PROFILE_LIBS) $(CRITERION_LIBS)

# --- runtimes/
tests_unit_test_replay_SOURCES = tests/unit/test_replay.c tests/unit/vectored_image.h
tests_unit_test_replay_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_replay_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_replay_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)
tests_unit_test_prefetch_SOURCES = tests/unit/test_prefetch.c
tests_unit_test_prefetch_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_prefetch_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_prefetch_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)
tests_unit_test_procmem_SOURCES = tests/unit/test_procmem.c
tests_unit_test_procmem_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_procmem_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_procmem_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_pycmd_SOURCES = tests/unit/test_pycmd.c
tests_unit_test_pycmd_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_pycmd_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_pycmd_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)
tests_unit_test_accountant_SOURCES = tests/unit/test_accountant.c
tests_unit_test_accountant_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_accountant_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_accountant_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_hotspot_SOURCES = tests/unit/test_hotspot.c tests/unit/hotspot_image.h \
	tests/unit/x86_code.h tests/unit/hotspot_linetab.h
tests_unit_test_hotspot_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_hotspot_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_hotspot_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_hotspot_lines_SOURCES = tests/unit/test_hotspot_lines.c tests/unit/hotspot_linetab.h
tests_unit_test_hotspot_lines_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_hotspot_lines_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_hotspot_lines_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_x86_frame_SOURCES = tests/unit/test_x86_frame.c tests/unit/x86_code.h
tests_unit_test_x86_frame_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_x86_frame_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_x86_frame_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_v8_SOURCES = tests/unit/test_v8.c tests/unit/v8_metadata.h
tests_unit_test_v8_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_v8_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_v8_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)
tests_unit_test_v8_positions_SOURCES = tests/unit/test_v8_positions.c
tests_unit_test_v8_positions_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_v8_positions_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_v8_positions_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_ruby_SOURCES = tests/unit/test_ruby.c tests/unit/ruby_image.h
tests_unit_test_ruby_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_ruby_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ruby_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_php_SOURCES = tests/unit/test_php.c tests/unit/dying_source.h \
	tests/unit/vectored_image.h
tests_unit_test_php_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_php_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_php_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_php_jit_SOURCES = tests/unit/test_php_jit.c
tests_unit_test_php_jit_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_php_jit_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_php_jit_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_perl_SOURCES = tests/unit/test_perl.c tests/unit/dying_source.h
tests_unit_test_perl_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_perl_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_perl_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)
tests_unit_test_cpython_SOURCES = tests/unit/test_cpython.c tests/unit/cpython_linetables.h \
	tests/unit/dying_source.h
tests_unit_test_cpython_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_cpython_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_cpython_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_gostack_SOURCES = tests/unit/test_gostack.c
tests_unit_test_gostack_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_gostack_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_gostack_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_gopclntab_SOURCES = tests/unit/test_gopclntab.c tests/unit/gopclntab_image.h
tests_unit_test_gopclntab_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_gopclntab_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_gopclntab_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_gopclntab_lines_SOURCES = tests/unit/test_gopclntab_lines.c tests/unit/gopclntab_image.h
tests_unit_test_gopclntab_lines_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_gopclntab_lines_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_gopclntab_lines_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

tests_unit_test_gojoin_SOURCES = tests/unit/test_gojoin.c tests/unit/gopclntab_image.h
tests_unit_test_gojoin_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_gojoin_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_gojoin_LDADD = $(RUNTIMES_LIBS) $(CRITERION_LIBS)

# --- unwind/
# One function described only by .debug_frame: -g without unwind tables.
noinst_LIBRARIES += tests/unit/libunwind_debugframe.a
tests_unit_libunwind_debugframe_a_SOURCES = tests/unit/unwind_debugframe.c
tests_unit_libunwind_debugframe_a_CFLAGS = $(TEST_CFLAGS) -O2 -g -fomit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-exceptions
# The in-process unwind test walks real -O2 code without frame pointers, so
# only .eh_frame can get through it (its -O2 -fomit-frame-pointer overrides
# the sanitizers' -fno-omit-frame-pointer).
tests_unit_test_unwind_runtime_SOURCES = tests/unit/test_unwind_runtime.c
tests_unit_test_unwind_runtime_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_unwind_runtime_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_unwind_runtime_LDADD = $(UNWIND_LIBS) $(CRITERION_LIBS)

tests_unit_test_stackmem_SOURCES = tests/unit/test_stackmem.c
tests_unit_test_stackmem_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_stackmem_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_stackmem_LDADD = $(UNWIND_LIBS) $(CRITERION_LIBS)

tests_unit_test_unwind_SOURCES = tests/unit/test_unwind.c
tests_unit_test_unwind_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_unwind_CFLAGS = $(TEST_CFLAGS) -O2 -fomit-frame-pointer
tests_unit_test_unwind_LDADD = tests/unit/libunwind_debugframe.a $(UNWIND_LIBS) -lpthread -ldl $(CRITERION_LIBS)

# --- symbolize/
tests_unit_test_symindex_SOURCES = tests/unit/test_symindex.c
tests_unit_test_symindex_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_symindex_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_symindex_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_symindex_LINK = $(CXXLINK)

tests_unit_test_kallsyms_SOURCES = tests/unit/test_kallsyms.c
tests_unit_test_kallsyms_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_kallsyms_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_kallsyms_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_kallsyms_LINK = $(CXXLINK)

tests_unit_test_perfmap_SOURCES = tests/unit/test_perfmap.c
tests_unit_test_perfmap_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_perfmap_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_perfmap_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_perfmap_LINK = $(CXXLINK)

tests_unit_test_demangle_SOURCES = tests/unit/test_demangle.c
tests_unit_test_demangle_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_demangle_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_demangle_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_demangle_LINK = $(CXXLINK)

tests_unit_test_event_list_SOURCES = tests/unit/test_event_list.c
tests_unit_test_event_list_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_event_list_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_event_list_LDADD = $(PROFILE_LIBS) $(CRITERION_LIBS)

tests_unit_test_dump_rename_SOURCES = tests/unit/test_dump_rename.c
tests_unit_test_dump_rename_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_dump_rename_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_dump_rename_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_mappings_SOURCES = tests/unit/test_mappings.c
tests_unit_test_mappings_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_mappings_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_mappings_LDADD = $(PROFILE_LIBS) $(CRITERION_LIBS)

tests_unit_test_frame_name_SOURCES = tests/unit/test_frame_name.c
tests_unit_test_frame_name_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_frame_name_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_frame_name_LDADD = $(PROFILE_LIBS) $(CRITERION_LIBS)

tests_unit_test_symbolizer_SOURCES = tests/unit/test_symbolizer.c tests/unit/child_creds.h
tests_unit_test_symbolizer_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_symbolizer_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_symbolizer_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_symbolizer_LINK = $(CXXLINK)

tests_unit_test_jitdump_SOURCES = tests/unit/test_jitdump.c
tests_unit_test_jitdump_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_jitdump_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_jitdump_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_jitdump_LINK = $(CXXLINK)

tests_unit_test_loadbudget_SOURCES = tests/unit/test_loadbudget.c
tests_unit_test_loadbudget_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_loadbudget_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_loadbudget_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_loadbudget_LINK = $(CXXLINK)

tests_unit_test_debugcache_SOURCES = tests/unit/test_debugcache.c
tests_unit_test_debugcache_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_debugcache_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_debugcache_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_debugcache_LINK = $(CXXLINK)

tests_unit_test_kallsyms_cache_SOURCES = tests/unit/test_kallsyms_cache.c
tests_unit_test_kallsyms_cache_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_kallsyms_cache_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_kallsyms_cache_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_kallsyms_cache_LINK = $(CXXLINK)

tests_unit_test_inlineindex_SOURCES = tests/unit/test_inlineindex.c tests/unit/dwflmod.h tests/unit/tmpdir.h
tests_unit_test_inlineindex_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_inlineindex_CFLAGS = $(TEST_CFLAGS) -g
tests_unit_test_inlineindex_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_inlineindex_LINK = $(CXXLINK)

tests_unit_test_inlines_SOURCES = tests/unit/test_inlines.c tests/unit/dwflmod.h
tests_unit_test_inlines_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_inlines_CFLAGS = $(TEST_CFLAGS) -g
tests_unit_test_inlines_LDADD = $(SYMBOLIZE_LIBS) $(CRITERION_LIBS)
tests_unit_test_inlines_LINK = $(CXXLINK)

# --- collector/
tests_unit_test_perf_record_SOURCES = tests/unit/test_perf_record.c
tests_unit_test_perf_record_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_perf_record_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_perf_record_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_perf_record_LINK = $(CXXLINK)

tests_unit_test_ring_SOURCES = tests/unit/test_ring.c
tests_unit_test_ring_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_ring_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ring_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_ring_LINK = $(CXXLINK)

tests_unit_test_sched_switch_SOURCES = tests/unit/test_sched_switch.c
tests_unit_test_sched_switch_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_sched_switch_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sched_switch_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_sched_switch_LINK = $(CXXLINK)

tests_unit_test_offcpu_SOURCES = tests/unit/test_offcpu.c
tests_unit_test_offcpu_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_offcpu_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_offcpu_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_offcpu_LINK = $(CXXLINK)

tests_unit_test_cpus_SOURCES = tests/unit/test_cpus.c
tests_unit_test_cpus_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_cpus_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_cpus_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_cpus_LINK = $(CXXLINK)
tests_unit_test_perf_events_SOURCES = tests/unit/test_perf_events.c
tests_unit_test_perf_events_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_perf_events_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_perf_events_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_perf_events_LINK = $(CXXLINK)

tests_unit_test_procmaps_SOURCES = tests/unit/test_procmaps.c
tests_unit_test_procmaps_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_procmaps_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_procmaps_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_procmaps_LINK = $(CXXLINK)

tests_unit_test_binary_names_SOURCES = tests/unit/test_binary_names.c tests/unit/tmpdir.h
tests_unit_test_binary_names_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_binary_names_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_binary_names_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_binary_names_LINK = $(CXXLINK)
tests_unit_test_image_pin_SOURCES = tests/unit/test_image_pin.c tests/unit/exec_child.h
tests_unit_test_image_pin_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_image_pin_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_image_pin_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_image_pin_LINK = $(CXXLINK)
tests_unit_test_ptree_SOURCES = tests/unit/test_ptree.c tests/unit/tmpdir.h
tests_unit_test_ptree_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_ptree_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ptree_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_ptree_LINK = $(CXXLINK)

tests_unit_test_proctable_SOURCES = tests/unit/test_proctable.c
tests_unit_test_proctable_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_proctable_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_proctable_LDADD = $(COLLECTOR_LIBS) -lpthread $(CRITERION_LIBS)
tests_unit_test_proctable_LINK = $(CXXLINK)

tests_unit_test_proctable_identity_SOURCES = tests/unit/test_proctable_identity.c tests/unit/child_creds.h
tests_unit_test_proctable_identity_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_proctable_identity_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_proctable_identity_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_proctable_identity_LINK = $(CXXLINK)

tests_unit_test_service_unit_SOURCES = tests/unit/test_service_unit.c
tests_unit_test_service_unit_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_service_unit_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_service_unit_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_service_unit_LINK = $(CXXLINK)

tests_unit_test_usernames_SOURCES = tests/unit/test_usernames.c tests/unit/tmpdir.h
tests_unit_test_usernames_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_usernames_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_usernames_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_usernames_LINK = $(CXXLINK)

tests_unit_test_binary_SOURCES = tests/unit/test_binary.c
tests_unit_test_binary_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_binary_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_binary_LDADD = $(COLLECTOR_LIBS) -lpthread $(CRITERION_LIBS)
tests_unit_test_binary_LINK = $(CXXLINK)
tests_unit_test_thread_names_SOURCES = tests/unit/test_thread_names.c
tests_unit_test_thread_names_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_thread_names_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_thread_names_LDADD = $(COLLECTOR_LIBS) -lpthread $(CRITERION_LIBS)
tests_unit_test_thread_names_LINK = $(CXXLINK)
tests_unit_test_user_stack_SOURCES = tests/unit/test_user_stack.c
tests_unit_test_user_stack_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_user_stack_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_user_stack_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
tests_unit_test_user_stack_LINK = $(CXXLINK)

tests_unit_test_runtimes_SOURCES = tests/unit/test_runtimes.c tests/unit/exec_child.h
tests_unit_test_runtimes_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_runtimes_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_runtimes_LDADD = $(COLLECTOR_LIBS) $(CRITERION_LIBS)
# its reader recognises this program by the symbol it exports
tests_unit_test_runtimes_LINK = $(CXXLINK) -Wl,--export-dynamic

# --- export/
tests_unit_test_json_dump_SOURCES = tests/unit/test_json_dump.c
tests_unit_test_json_dump_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_json_dump_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_json_dump_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_collapsed_SOURCES = tests/unit/test_collapsed.c
tests_unit_test_collapsed_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_collapsed_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_collapsed_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_top_SOURCES = tests/unit/test_top.c
tests_unit_test_top_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_top_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_top_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_atomic_file_SOURCES = tests/unit/test_atomic_file.c
tests_unit_test_atomic_file_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_atomic_file_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_atomic_file_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_out_path_SOURCES = tests/unit/test_out_path.c tests/unit/tmpdir.h
tests_unit_test_out_path_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_out_path_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_out_path_LDADD = $(EXPORT_LIBS) -lpthread $(CRITERION_LIBS)

tests_unit_test_gzip_SOURCES = tests/unit/test_gzip.c
tests_unit_test_gzip_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_gzip_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_gzip_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_http_sink_SOURCES = tests/unit/test_http_sink.c
tests_unit_test_http_sink_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_http_sink_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_http_sink_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_pyroscope_SOURCES = tests/unit/test_pyroscope.c
tests_unit_test_pyroscope_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_pyroscope_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_pyroscope_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_sink_SOURCES = tests/unit/test_sink.c
tests_unit_test_sink_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_sink_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sink_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_curl_loader_SOURCES = tests/unit/test_curl_loader.c
tests_unit_test_curl_loader_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_curl_loader_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_curl_loader_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_dump_merge_SOURCES = tests/unit/test_dump_merge.c
tests_unit_test_dump_merge_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_dump_merge_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_dump_merge_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_pprof_SOURCES = tests/unit/test_pprof.c
tests_unit_test_pprof_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_pprof_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_pprof_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_protobuf_SOURCES = tests/unit/test_protobuf.c
tests_unit_test_protobuf_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_protobuf_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_protobuf_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_flamegraph_SOURCES = tests/unit/test_flamegraph.c
tests_unit_test_flamegraph_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_flamegraph_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_flamegraph_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_spool_SOURCES = tests/unit/test_spool.c
tests_unit_test_spool_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_spool_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_spool_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_dump_read_SOURCES = tests/unit/test_dump_read.c
tests_unit_test_dump_read_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_dump_read_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_dump_read_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_fileio_SOURCES = tests/unit/test_fileio.c
tests_unit_test_fileio_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_fileio_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_fileio_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_hashidx_SOURCES = tests/unit/test_hashidx.c
tests_unit_test_hashidx_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_hashidx_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_hashidx_LDADD = $(COMMON_LIBS) $(CRITERION_LIBS)

tests_unit_test_dump_paths_SOURCES = tests/unit/test_dump_paths.c
tests_unit_test_dump_paths_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_dump_paths_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_dump_paths_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_retry_after_SOURCES = tests/unit/test_retry_after.c
tests_unit_test_retry_after_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_retry_after_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_retry_after_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

tests_unit_test_uploader_SOURCES = tests/unit/test_uploader.c
tests_unit_test_uploader_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_uploader_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_uploader_LDADD = $(EXPORT_LIBS) $(CRITERION_LIBS)

# --- daemon/
tests_unit_test_conf_SOURCES = tests/unit/test_conf.c
tests_unit_test_conf_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_conf_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_conf_LDADD = $(DAEMON_LIBS) $(CRITERION_LIBS)
tests_unit_test_conf_LINK = $(CXXLINK)

tests_unit_test_pidfile_SOURCES = tests/unit/test_pidfile.c tests/unit/tmpdir.h
tests_unit_test_pidfile_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_pidfile_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_pidfile_LDADD = $(DAEMON_LIBS) $(CRITERION_LIBS)
tests_unit_test_pidfile_LINK = $(CXXLINK)

tests_unit_test_cpu_budget_SOURCES = tests/unit/test_cpu_budget.c
tests_unit_test_cpu_budget_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_cpu_budget_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_cpu_budget_LDADD = $(DAEMON_LIBS) $(CRITERION_LIBS)
tests_unit_test_cpu_budget_LINK = $(CXXLINK)

# --- ELF fixtures with known names, read by the symbolize tests
EXTRA_tests_unit_test_inlines_DEPENDENCIES = \
	tests/fixtures/symbolize/fixture$(EXEEXT) \
	tests/fixtures/symbolize/fixture_deep$(EXEEXT)
EXTRA_tests_unit_test_symindex_DEPENDENCIES = \
	tests/fixtures/symbolize/fixture$(EXEEXT) \
	tests/fixtures/symbolize/fixture_cxx$(EXEEXT) \
	tests/fixtures/symbolize/fixture_deep$(EXEEXT) \
	tests/fixtures/symbolize/fixture.stripped \
	tests/fixtures/symbolize/fixture.minidebug
EXTRA_tests_unit_test_debugcache_DEPENDENCIES = $(EXTRA_tests_unit_test_symindex_DEPENDENCIES)
EXTRA_tests_unit_test_binary_DEPENDENCIES = tests/fixtures/symbolize/fixture$(EXEEXT)

# ELF fixtures with known names: built, never run. Their own flags (not the
# sanitizer/warning set) keep them small; -O2 makes the always_inline
# function a real DW_TAG_inlined_subroutine.
check_PROGRAMS += tests/fixtures/symbolize/fixture tests/fixtures/symbolize/fixture_cxx \
	tests/fixtures/symbolize/fixture_deep
tests_fixtures_symbolize_fixture_SOURCES = tests/fixtures/symbolize/fixture.c
tests_fixtures_symbolize_fixture_CFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_LDFLAGS = -g
tests_fixtures_symbolize_fixture_cxx_SOURCES = tests/fixtures/symbolize/fixture_cxx.cc
tests_fixtures_symbolize_fixture_cxx_CXXFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_cxx_LDFLAGS = -g
tests_fixtures_symbolize_fixture_deep_SOURCES = tests/fixtures/symbolize/fixture_deep.cc
tests_fixtures_symbolize_fixture_deep_CXXFLAGS = -O2 -g
tests_fixtures_symbolize_fixture_deep_LDFLAGS = -g
tests/fixtures/symbolize/fixture.stripped: tests/fixtures/symbolize/fixture$(EXEEXT)
	$(AM_V_GEN)$(STRIP) --strip-all -o $@ tests/fixtures/symbolize/fixture$(EXEEXT)
CLEANFILES += tests/fixtures/symbolize/fixture.stripped
# MiniDebugInfo as Fedora's find-debuginfo (add_minidebug) makes it: the
# function symbols not in .dynsym, in an xz-compressed ELF stored as
# .gnu_debugdata in the stripped binary. Without nm/objcopy/xz no file is
# made and the test that needs it is skipped.
tests/fixtures/symbolize/fixture.minidebug: tests/fixtures/symbolize/fixture$(EXEEXT)
	$(AM_V_GEN)bin=tests/fixtures/symbolize/fixture$(EXEEXT); t=$@.tmp; \
	for p in nm objcopy xz; do \
		command -v $$p >/dev/null 2>&1 || { echo "$@: no $$p, not made"; exit 0; }; \
	done; \
	rm -f $@ $$t.* && \
	nm -D --format=posix --defined-only $$bin | awk '{ print $$1 }' | sort > $$t.dynsyms && \
	nm --format=posix --defined-only $$bin | \
		awk '{ if ($$2 == "T" || $$2 == "t") print $$1 }' | sort > $$t.funcsyms && \
	comm -13 $$t.dynsyms $$t.funcsyms > $$t.keep && \
	objcopy --only-keep-debug $$bin $$t.debug && \
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols=$$t.keep $$t.debug $$t.mini && \
	xz -f $$t.mini && \
	$(STRIP) --strip-all -o $$t.stripped $$bin && \
	objcopy --add-section .gnu_debugdata=$$t.mini.xz $$t.stripped && \
	mv -f $$t.stripped $@ && rm -f $$t.*
CLEANFILES += tests/fixtures/symbolize/fixture.minidebug \
	tests/fixtures/symbolize/fixture.minidebug.tmp.*
endif

# Dump fixtures of the reader's tests (valid, and broken in one way each).
EXTRA_DIST += \
	tests/fixtures/dumps/bad_line3.json \
	tests/fixtures/dumps/bad_sum.json \
	tests/fixtures/dumps/control_char.json \
	tests/fixtures/dumps/duplicate_key.json \
	tests/fixtures/dumps/duplicate_stack.json \
	tests/fixtures/dumps/empty.json \
	tests/fixtures/dumps/empty.json.gz \
	tests/fixtures/dumps/idle.json \
	tests/fixtures/dumps/missing_comm.json \
	tests/fixtures/dumps/missing_labels.json \
	tests/fixtures/dumps/negative_count.json \
	tests/fixtures/dumps/not_json.json \
	tests/fixtures/dumps/other_schema.json \
	tests/fixtures/dumps/stats_mismatch.json \
	tests/fixtures/dumps/truncated.json \
	tests/fixtures/dumps/truncated.json.gz \
	tests/fixtures/dumps/valid.json \
	tests/fixtures/dumps/valid.json.gz \
	tests/fixtures/dumps/window_reversed.json

# The Go program test_gopclntab_lines builds.
EXTRA_DIST += tests/fixtures/go/lines.go

# Text fixtures of the symbolize tests (ELF fixtures are built above).
EXTRA_DIST += \
	tests/fixtures/symbolize/kallsyms.txt \
	tests/fixtures/symbolize/kallsyms_restricted.txt

# Helpers shared by unit tests.
EXTRA_DIST += tests/unit/rounds.h tests/unit/tmpdir.h tests/unit/symfix.h tests/unit/profile_fixture.h \
	tests/unit/report_fixture.h tests/unit/http_server.h tests/unit/stack_capture.h \
	tests/unit/named_thread.h
