# Old-kernel emulation: an LD_PRELOAD shim and the kernel matrix.
# The shim makes perf_event_open answer as 2.6.32, 3.10 or 4.4 would, so the
# fallback paths of the real collector run against the running kernel.

# A shared object built as a "program" (no libtool in this project). Per-target
# flags replace AM_CFLAGS/AM_LDFLAGS: the shim stays out of the sanitizers, so
# it can be preloaded behind the ASan runtime.
check_PROGRAMS += tests/legacy/kernel_shim.so
tests_legacy_kernel_shim_so_SOURCES = tests/legacy/kernel_shim.c
tests_legacy_kernel_shim_so_CFLAGS = -std=gnu99 $(WARN_CFLAGS) -O2 -fPIC
tests_legacy_kernel_shim_so_LDFLAGS = -shared -fPIC
tests_legacy_kernel_shim_so_LDADD = -ldl

# Frame-pointer builds of the core workloads for the 2.6.32 row, where user
# stacks come from the kernel's frame-pointer walk. Same names as the DWARF
# builds (in their own directory): forkexec execs the child_spin next to it,
# and the checks select profiles by exe name. Leaf functions need a frame too:
# sampled in a leaf without one, the walk starts at the caller's frame and
# loses the caller. -mno-omit-leaf-frame-pointer asks for that (gcc 4.8,
# clang); gcc >= 8 still leaves it out of leaves that need no stack frame, so
# the functions are instrumented with no-op hooks (fp_hooks.c) and are no
# leaves any more.
LEGACY_FP_CFLAGS = -std=gnu99 $(WARN_CFLAGS) -O2 -g -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -finstrument-functions
LEGACY_FP_HOOKS = tests/legacy/fp_hooks.c
check_PROGRAMS += \
	tests/legacy/fp/chain \
	tests/legacy/fp/threads \
	tests/legacy/fp/forkexec \
	tests/legacy/fp/child_spin \
	tests/legacy/fp/waits
tests_legacy_fp_chain_SOURCES = tests/workloads/chain.c tests/workloads/wl_time.h $(LEGACY_FP_HOOKS)
tests_legacy_fp_chain_CFLAGS = $(LEGACY_FP_CFLAGS)
tests_legacy_fp_chain_LDFLAGS =
tests_legacy_fp_threads_SOURCES = tests/workloads/threads.c tests/workloads/wl_time.h $(LEGACY_FP_HOOKS)
tests_legacy_fp_threads_CFLAGS = $(LEGACY_FP_CFLAGS) -pthread
tests_legacy_fp_threads_LDFLAGS = -pthread
tests_legacy_fp_forkexec_SOURCES = tests/workloads/forkexec.c tests/workloads/wl_time.h $(LEGACY_FP_HOOKS)
tests_legacy_fp_forkexec_CFLAGS = $(LEGACY_FP_CFLAGS)
tests_legacy_fp_forkexec_LDFLAGS =
tests_legacy_fp_child_spin_SOURCES = tests/workloads/child_spin.c tests/workloads/wl_time.h $(LEGACY_FP_HOOKS)
tests_legacy_fp_child_spin_CFLAGS = $(LEGACY_FP_CFLAGS)
tests_legacy_fp_child_spin_LDFLAGS =
tests_legacy_fp_waits_SOURCES = tests/workloads/waits.c tests/workloads/wl_time.h $(LEGACY_FP_HOOKS)
tests_legacy_fp_waits_CFLAGS = $(LEGACY_FP_CFLAGS) -pthread
tests_legacy_fp_waits_LDFLAGS = -pthread

LEGACY_TESTS = tests/legacy/matrix.sh
TESTS += $(LEGACY_TESTS)
EXTRA_DIST += $(LEGACY_TESTS)
CLEANFILES += tests/legacy/*.out.json tests/legacy/*.probe.txt
