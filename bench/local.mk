# `make bench`: smolder against `perf record --call-graph dwarf` + `perf
# script` on the same workloads, in the same run. The workloads are
# EXTRA_PROGRAMS: built only by `make bench`, never by `make all` or `make
# check`, and the benchmarks never run in `make check` (timing on shared
# machines is noise).
#
#   make bench [BENCH_SECONDS=10] [BENCH_RUNS=3] [BENCH_QUICK=1] [BENCH_ONLY=cpu_c,xz]
#   make bench-monolith [BENCH_SECONDS=10] [BENCH_RUNS=3]   (also run by bench)
#   make bench-churn [BENCH_CHURN_MINUTES=5]
#   make bench-wake [BENCH_SECONDS=10]
#   make soak-attack [SOAK_ATTACK_MINUTES=10]   (doc/security.md)
#
# They need root (or CAP_PERFMON) for system-wide sampling. A run of bench,
# bench-monolith or bench-churn replaces its kind's block in the current
# results of $(srcdir)/doc/benchmarks.md and appends its full section to
# $(srcdir)/doc/bench-log/YYYY-MM-DD.md (`python3 bench/run.py --selftest`
# checks that writing without root or perf); raw results (dumps, JSON
# summary) stay in bench-out/ of the build tree.

BENCH_SECONDS = 10
BENCH_RUNS = 3
BENCH_QUICK =
BENCH_ONLY =
BENCH_CHURN_MINUTES = 5
SOAK_ATTACK_MINUTES = 10
BENCH_OUT = bench-out

# Built like production code is: -O2 without frame pointers, with CFI and
# debug info (the C++ one for its inlined frames). Per-target flags replace
# AM_CFLAGS, keeping the sanitizers out of the workloads.
BENCH_WL_CFLAGS = -std=gnu99 $(WARN_CFLAGS) -O2 -g -fomit-frame-pointer -pthread
BENCH_WL_CXXFLAGS = -std=gnu++11 -Wall -Wextra -O2 -g -fomit-frame-pointer -pthread

BENCH_WORKLOADS = \
	bench/workloads/cpu_c \
	bench/workloads/cpp_inline \
	bench/workloads/many \
	bench/workloads/churn \
	bench/workloads/churn_child \
	bench/workloads/pingpong
# What a sample that wakes its reader costs, at the least (make bench-wake)
BENCH_TOOLS = bench/wake_floor
EXTRA_PROGRAMS = $(BENCH_WORKLOADS) $(BENCH_TOOLS)
CLEANFILES += $(BENCH_WORKLOADS) $(BENCH_TOOLS)

bench_wake_floor_SOURCES = bench/wake_floor.c
bench_wake_floor_CFLAGS = $(BENCH_WL_CFLAGS)

bench_workloads_pingpong_SOURCES = bench/workloads/pingpong.c bench/workloads/bench_wl.h
bench_workloads_pingpong_CFLAGS = $(BENCH_WL_CFLAGS)
bench_workloads_pingpong_LDFLAGS = -pthread

bench_workloads_cpu_c_SOURCES = bench/workloads/cpu_c.c bench/workloads/bench_wl.h
bench_workloads_cpu_c_CFLAGS = $(BENCH_WL_CFLAGS)
bench_workloads_cpu_c_LDFLAGS = -pthread
bench_workloads_cpp_inline_SOURCES = bench/workloads/cpp_inline.cc bench/workloads/bench_wl.h
bench_workloads_cpp_inline_CXXFLAGS = $(BENCH_WL_CXXFLAGS)
bench_workloads_cpp_inline_LDFLAGS = -pthread
bench_workloads_many_SOURCES = bench/workloads/many.c bench/workloads/bench_wl.h
bench_workloads_many_CFLAGS = $(BENCH_WL_CFLAGS)
bench_workloads_many_LDFLAGS = -pthread
bench_workloads_churn_SOURCES = bench/workloads/churn.c bench/workloads/bench_wl.h
bench_workloads_churn_CFLAGS = $(BENCH_WL_CFLAGS)
bench_workloads_churn_LDFLAGS = -pthread
bench_workloads_churn_child_SOURCES = bench/workloads/churn_child.c
bench_workloads_churn_child_CFLAGS = $(BENCH_WL_CFLAGS)

EXTRA_DIST += bench/run.py bench/workloads/fib.py bench/workloads/fib.rb bench/workloads/fib.php bench/workloads/fib.pl bench/workloads/fib.js bench/workloads/JavaBench.java bench/soak.py bench/soak_attack.py \
	bench/gen_monolith.py bench/monolith.py

BENCH_ENV = \
	BENCH_SECONDS='$(BENCH_SECONDS)' BENCH_RUNS='$(BENCH_RUNS)' \
	BENCH_QUICK='$(BENCH_QUICK)' BENCH_ONLY='$(BENCH_ONLY)' \
	BENCH_CHURN_MINUTES='$(BENCH_CHURN_MINUTES)' PERF='$(PERF)'

bench: smolder$(EXEEXT) $(BENCH_WORKLOADS)
	@py='$(PYTHON3)'; test -n "$$py" || py=python3; $(BENCH_ENV) "$$py" $(srcdir)/bench/run.py \
	  --smolder ./smolder$(EXEEXT) --workloads bench/workloads \
	  --srcdir $(srcdir) --out $(BENCH_OUT) --doc $(srcdir)/doc/benchmarks.md
	@$(MAKE) $(AM_MAKEFLAGS) bench-monolith

# The monolith row alone (a big C++ binary, the kind of program smolder is
# for): bench/monolith.py generates and builds it once into
# $(BENCH_OUT)/monolith (a few minutes), then measures.
bench-monolith: smolder$(EXEEXT)
	@py='$(PYTHON3)'; test -n "$$py" || py=python3; $(BENCH_ENV) "$$py" $(srcdir)/bench/monolith.py \
	  --smolder ./smolder$(EXEEXT) --srcdir $(srcdir) --out $(BENCH_OUT) \
	  --doc $(srcdir)/doc/benchmarks.md

bench-churn: smolder$(EXEEXT) $(BENCH_WORKLOADS)
	@py='$(PYTHON3)'; test -n "$$py" || py=python3; $(BENCH_ENV) "$$py" $(srcdir)/bench/run.py --churn \
	  --smolder ./smolder$(EXEEXT) --workloads bench/workloads \
	  --srcdir $(srcdir) --out $(BENCH_OUT) --doc $(srcdir)/doc/benchmarks.md

# The floor under a reader that must read at the sample: the CPU a
# wakeup at every sample costs, against one at a watermark, with nothing
# read (doc/benchmarks.md, "What a wakeup costs").
bench-wake: $(BENCH_TOOLS)
	./bench/wake_floor $(BENCH_SECONDS)

# The daemon under every attack of doc/security.md at once, as user nobody;
# needs root. The workloads are the tests' (built by `make check TESTS=`).
soak-attack: smolder$(EXEEXT) $(check_PROGRAMS)
	@py='$(PYTHON3)'; test -n "$$py" || py=python3; "$$py" $(srcdir)/bench/soak_attack.py \
	  --smolder ./smolder$(EXEEXT) --workloads tests/workloads --srcdir $(srcdir) \
	  --minutes $(SOAK_ATTACK_MINUTES) --out $(BENCH_OUT)/soak_attack.md

.PHONY: bench bench-monolith bench-churn bench-wake soak-attack
