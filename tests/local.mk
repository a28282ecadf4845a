# Tests: Criterion unit tests are listed in each stage's local.mk; this file
# holds the integration suite and the workload programs it profiles.
# Criterion's Test() macro defines functions without prototypes.
TEST_CFLAGS = -std=gnu99 $(WARN_CFLAGS) -Wno-missing-prototypes $(SAN_FLAGS)

TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	SMOLDER='$(abs_top_builddir)/smolder'; export SMOLDER; \
	WORKLOADS='$(abs_top_builddir)/tests/workloads'; export WORKLOADS; \
	TESTS_SRCDIR='$(abs_top_srcdir)/tests'; export TESTS_SRCDIR; \
	PYTHON3='$(PYTHON3)'; export PYTHON3; \
	PERF='$(PERF)'; export PERF; \
	STRIP='$(STRIP)'; export STRIP; \
	CC='$(CC)'; export CC; \
	CXX='$(CXX)'; export CXX;

# --- Workload programs profiled by the integration tests --------------------
# Built like production code is: -O2 without frame pointers, so the stacks can
# only come out right through DWARF CFI. Per-target flags replace AM_CFLAGS, so
# the sanitizers (which force frame pointers) stay out of the workloads.
WORKLOAD_C_FLAGS = -std=gnu99 $(WARN_CFLAGS) -O2 -g -fomit-frame-pointer
WORKLOAD_CXX_FLAGS = -Wall -Wextra -O2 -g -fomit-frame-pointer
WORKLOAD_LINK_FLAGS =

check_PROGRAMS += \
	tests/workloads/chain \
	tests/workloads/lines \
	tests/workloads/dlopen_main \
	tests/workloads/libdlwork.so \
	tests/workloads/threads \
	tests/workloads/cxx_inline \
	tests/workloads/long_names \
	tests/workloads/recurse \
	tests/workloads/deep_base \
	tests/workloads/big_frame \
	tests/workloads/waits \
	tests/workloads/forkexec \
	tests/workloads/child_spin \
	tests/workloads/syscalls \
	tests/workloads/vdso \
	tests/workloads/spawner \
	tests/workloads/remap \
	tests/workloads/jit \
	tests/workloads/perfmap_churn \
	tests/workloads/fake_cpython \
	tests/workloads/fake_perl \
	tests/workloads/main_exits \
	tests/workloads/late_threads \
	tests/workloads/late_fork \
	tests/workloads/sighandler \
	tests/workloads/jit_fp \
	tests/workloads/bombs \
	tests/workloads/truncate_own \
	tests/workloads/libtrunc.so

tests_workloads_lines_SOURCES = tests/workloads/lines.c tests/workloads/wl_time.h
tests_workloads_lines_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_lines_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_chain_SOURCES = tests/workloads/chain.c tests/workloads/wl_time.h
tests_workloads_chain_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_chain_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_dlopen_main_SOURCES = tests/workloads/dlopen_main.c tests/workloads/wl_time.h
tests_workloads_dlopen_main_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_dlopen_main_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_dlopen_main_LDADD = -ldl

# A shared object built as a "program": no libtool in this project.
tests_workloads_libdlwork_so_SOURCES = tests/workloads/libdlwork.c tests/workloads/wl_time.h
tests_workloads_libdlwork_so_CFLAGS = $(WORKLOAD_C_FLAGS) -fPIC
tests_workloads_libdlwork_so_LDFLAGS = -shared -fPIC

tests_workloads_threads_SOURCES = tests/workloads/threads.c tests/workloads/wl_time.h
tests_workloads_threads_CFLAGS = $(WORKLOAD_C_FLAGS) -pthread
tests_workloads_threads_LDFLAGS = $(WORKLOAD_LINK_FLAGS) -pthread

tests_workloads_long_names_SOURCES = tests/workloads/long_names.cc tests/workloads/wl_time.h
tests_workloads_long_names_CXXFLAGS = $(WORKLOAD_CXX_FLAGS)
tests_workloads_long_names_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_cxx_inline_SOURCES = tests/workloads/cxx_inline.cc
tests_workloads_cxx_inline_CXXFLAGS = $(WORKLOAD_CXX_FLAGS)
tests_workloads_cxx_inline_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_recurse_SOURCES = tests/workloads/recurse.c tests/workloads/wl_time.h
tests_workloads_recurse_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_recurse_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_deep_base_SOURCES = tests/workloads/deep_base.c tests/workloads/wl_time.h
tests_workloads_deep_base_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_deep_base_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_waits_SOURCES = tests/workloads/waits.c tests/workloads/wl_time.h
tests_workloads_waits_CFLAGS = $(WORKLOAD_C_FLAGS) -pthread
tests_workloads_waits_LDFLAGS = $(WORKLOAD_LINK_FLAGS) -pthread

# frame pointers, as HotSpot keeps them: the kernel's walk is the witness
tests_workloads_big_frame_SOURCES = tests/workloads/big_frame.c tests/workloads/wl_time.h
tests_workloads_big_frame_CFLAGS = $(WORKLOAD_C_FLAGS) -fno-omit-frame-pointer
tests_workloads_big_frame_LDFLAGS = $(WORKLOAD_LINK_FLAGS) -pthread

tests_workloads_forkexec_SOURCES = tests/workloads/forkexec.c tests/workloads/wl_time.h
tests_workloads_forkexec_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_forkexec_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_child_spin_SOURCES = tests/workloads/child_spin.c tests/workloads/wl_time.h
tests_workloads_child_spin_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_child_spin_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_syscalls_SOURCES = tests/workloads/syscalls.c tests/workloads/wl_time.h
tests_workloads_syscalls_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_syscalls_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_vdso_SOURCES = tests/workloads/vdso.c tests/workloads/wl_time.h
tests_workloads_vdso_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_vdso_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_spawner_SOURCES = tests/workloads/spawner.c tests/workloads/wl_time.h
tests_workloads_spawner_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_spawner_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_remap_SOURCES = tests/workloads/remap.c tests/workloads/wl_time.h
tests_workloads_remap_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_remap_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_remap_LDADD = -ldl

tests_workloads_main_exits_SOURCES = tests/workloads/main_exits.c tests/workloads/wl_time.h
tests_workloads_main_exits_CFLAGS = $(WORKLOAD_C_FLAGS) -pthread
tests_workloads_main_exits_LDFLAGS = $(WORKLOAD_LINK_FLAGS) -pthread

tests_workloads_late_threads_SOURCES = tests/workloads/late_threads.c tests/workloads/wl_time.h
tests_workloads_late_threads_CFLAGS = $(WORKLOAD_C_FLAGS) -pthread
tests_workloads_late_threads_LDFLAGS = $(WORKLOAD_LINK_FLAGS) -pthread

tests_workloads_late_fork_SOURCES = tests/workloads/late_fork.c tests/workloads/wl_time.h
tests_workloads_late_fork_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_late_fork_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_sighandler_SOURCES = tests/workloads/sighandler.c tests/workloads/wl_time.h
tests_workloads_sighandler_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_sighandler_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_jit_fp_SOURCES = tests/workloads/jit_fp.c tests/workloads/wl_time.h
tests_workloads_jit_fp_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_jit_fp_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_bombs_SOURCES = tests/workloads/bombs.c tests/workloads/wl_time.h
tests_workloads_bombs_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_bombs_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_bombs_LDADD = -ldl

tests_workloads_truncate_own_SOURCES = tests/workloads/truncate_own.c tests/workloads/wl_time.h
tests_workloads_truncate_own_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_truncate_own_LDFLAGS = $(WORKLOAD_LINK_FLAGS)
tests_workloads_truncate_own_LDADD = -ldl
tests_workloads_libtrunc_so_SOURCES = tests/workloads/trunc_lib.c tests/workloads/wl_time.h
tests_workloads_libtrunc_so_CFLAGS = $(WORKLOAD_C_FLAGS) -fPIC
tests_workloads_libtrunc_so_LDFLAGS = -shared -fPIC

tests_workloads_jit_SOURCES = tests/workloads/jit.c tests/workloads/wl_time.h
tests_workloads_jit_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_jit_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

tests_workloads_perfmap_churn_SOURCES = tests/workloads/perfmap_churn.c tests/workloads/wl_time.h
tests_workloads_perfmap_churn_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_perfmap_churn_LDFLAGS = $(WORKLOAD_LINK_FLAGS)

# Poses as CPython 3.11 with smolder's own layout table, so its offsets are
# the reader's by construction; the reader finds it by its dynamic symbols.
tests_workloads_fake_cpython_SOURCES = tests/workloads/fake_cpython.c tests/workloads/wl_time.h \
	runtimes/cpython_layout.c runtimes/cpython_layout.h
tests_workloads_fake_cpython_CFLAGS = $(WORKLOAD_C_FLAGS) -pthread
tests_workloads_fake_cpython_LDFLAGS = $(WORKLOAD_LINK_FLAGS) -pthread -rdynamic

tests_workloads_fake_perl_SOURCES = tests/workloads/fake_perl.c tests/workloads/wl_time.h \
	runtimes/perl_layout.c runtimes/perl_layout.h runtimes/x86_insn.c runtimes/x86_insn.h
tests_workloads_fake_perl_CFLAGS = $(WORKLOAD_C_FLAGS)
tests_workloads_fake_perl_LDFLAGS = $(WORKLOAD_LINK_FLAGS) -rdynamic

# --- Integration tests -------------------------------------------------------
INTEGRATION_TESTS = \
	tests/tree/layout.sh \
	tests/integration/probe.sh \
	tests/integration/bad_input.sh \
	tests/integration/chain.sh \
	tests/integration/late_names.sh \
	tests/integration/native_lines.sh \
	tests/integration/sample_bias.sh \
	tests/integration/chain_system.sh \
	tests/integration/linkers.sh \
	tests/integration/rust.sh \
	tests/integration/pid.sh \
	tests/integration/pid_zombie.sh \
	tests/integration/pid_late_threads.sh \
	tests/integration/pid_tree.sh \
	tests/integration/formats.sh \
	tests/integration/dlopen.sh \
	tests/integration/threads.sh \
	tests/integration/thread_view.sh \
	tests/integration/main_exits.sh \
	tests/integration/cxx.sh \
	tests/integration/names.sh \
	tests/integration/recursion.sh \
	tests/integration/deep_stack.sh \
	tests/integration/deep_seam.sh \
	tests/integration/offcpu.sh \
	tests/integration/offcpu_both.sh \
	tests/integration/signal.sh \
	tests/integration/jit_fp.sh \
	tests/integration/node_jit.sh \
	tests/integration/node_v8.sh \
	tests/integration/node_tsc.sh \
	tests/integration/node_lines.sh \
	tests/integration/go.sh \
	tests/integration/go_deep.sh \
	tests/integration/java.sh \
	tests/integration/java_stubs.sh \
	tests/integration/java_lines.sh \
	tests/integration/python.sh \
	tests/integration/python_service.sh \
	tests/integration/deep_python.sh \
	tests/integration/php.sh \
	tests/integration/php_zts.sh \
	tests/integration/perl.sh \
	tests/integration/forkexec.sh \
	tests/integration/exec_churn.sh \
	tests/integration/steady_state.sh \
	tests/integration/stripped.sh \
	tests/integration/syscalls.sh \
	tests/integration/vdso.sh \
	tests/integration/report_formats.sh \
	tests/integration/report_pprof.sh \
	tests/integration/report_errors.sh \
	tests/integration/report_headers.sh \
	tests/integration/flamegraph_browser.sh \
	tests/integration/perf_compare.sh \
	tests/integration/service_basic.sh \
	tests/integration/service_notify.sh \
	tests/integration/service_privileges.sh \
	tests/integration/service_budget.sh \
	tests/integration/fault_disk_full.sh \
	tests/integration/fault_spool_gone.sh \
	tests/integration/fault_flapping.sh \
	tests/integration/fault_ring_overflow.sh \
	tests/integration/fault_spawn_storm.sh \
	tests/integration/fault_remap.sh \
	tests/integration/fault_deleted_binary.sh \
	tests/integration/service_refuse.sh \
	tests/integration/service_retry.sh \
	tests/integration/service_hang.sh \
	tests/integration/service_crash.sh \
	tests/integration/service_spool_limit.sh \
	tests/integration/service_reload.sh \
	tests/integration/service_secrets.sh \
	tests/integration/security_files.sh \
	tests/integration/security_creds.sh \
	tests/integration/security_bombs.sh \
	tests/integration/service_budget_recovery.sh \
	tests/integration/security_perfmaps.sh \
	tests/integration/security_rename.sh \
	tests/integration/security_outputs.sh \
	tests/integration/security_readers.sh \
	tests/integration/security_truncate.sh \
	tests/integration/record_starved.sh \
	tests/integration/upload_pyroscope.sh \
	tests/integration/upload_threads.sh \
	tests/integration/upload_names.sh \
	tests/integration/upload_files.sh \
	tests/integration/lazy_curl.sh \
	tests/integration/names_compaction.sh \
	tests/integration/inline_cache.sh \
	tests/integration/ruby.sh

TESTS += $(INTEGRATION_TESTS)
# An LD_PRELOAD allocation counter for steady_state.sh: a shared object
# built as a "program"; its own flags keep the sanitizers out (that test
# skips in sanitizer builds, whose allocator comes first anyway).
check_PROGRAMS += tests/integration/alloc_count.so
tests_integration_alloc_count_so_SOURCES = tests/integration/alloc_count.c
tests_integration_alloc_count_so_CFLAGS = -std=gnu99 $(WARN_CFLAGS) -O2 -fPIC
tests_integration_alloc_count_so_LDFLAGS = -shared -fPIC
tests_integration_alloc_count_so_LDADD = -ldl
# Dumps the tests keep next to their logs for post-mortems.
CLEANFILES += tests/integration/*.out.json tests/integration/*.out.folded \
	tests/integration/*.out.svg tests/integration/*.out.pb.gz tests/integration/flamegraph_*.svg tests/integration/flamegraph_*.png
EXTRA_DIST += $(INTEGRATION_TESTS) \
	tests/build-php-zts.sh \
	tests/integration/hostile_files.py \
	tests/integration/hostile_creds.py \
	tests/workloads/rust_chain.rs \
	tests/workloads/node_loop.js \
	tests/workloads/node_lines.js \
	tests/workloads/go_chain.go \
	tests/workloads/go_deep.go \
	tests/workloads/go_alloc.go \
	tests/workloads/JavaChain.java \
	tests/workloads/JavaStubs.java \
	tests/workloads/JavaLines.java \
	tests/workloads/rhino_work.js \
	tests/workloads/py_work.py \
	tests/workloads/py_service.py \
	tests/workloads/py_waits.py \
	tests/workloads/rb_work.rb \
	tests/workloads/php_work.php \
	tests/workloads/perl_work.pl \
	tests/workloads/php_fpm_app.php \
	tests/integration/fcgi_client.py \
	tests/workloads/bomb_lib.c \
	tests/workloads/make_bomb.sh \
	tests/tree/check_tree.py \
	tests/integration/lib.sh \
	tests/integration/dumpcheck.py \
	tests/integration/pprof_read.py \
	tests/integration/treecheck.py \
	tests/integration/service_lib.sh \
	tests/integration/receiver.py \
	tests/integration/notify_listener.py \
	tests/integration/flamegraph_browser.py

# Dump fixtures of the report tests.
EXTRA_DIST += tests/fixtures/report/a.json tests/fixtures/report/b.json \
	tests/fixtures/report/c.json tests/fixtures/report/truncated.json \
	tests/fixtures/report/threads.json tests/fixtures/report/lines.json tests/fixtures/report/a_b.collapsed \
	tests/fixtures/report/users.json
