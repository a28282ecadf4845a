#!/bin/sh
# C++: demangled template names (ns::Matrix<double>::multiply) and the
# always_inline ns::detail::dot<double> reported as an inlined (_[i]) frame.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload cxx_inline
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/cxx_inline" 3
keep_artifact "$TMP/out.json" cxx.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK cxx "$TMP/out.json" --exe cxx_inline || fail "C++ names / inlined frames wrong"
