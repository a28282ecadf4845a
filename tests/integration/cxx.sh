#!/bin/sh
# C++: demangled template names (ns::Matrix<double>::multiply with --names
# full, ns::Matrix::multiply by default) and the always_inline
# ns::detail::dot<double> reported as an inlined (_[i]) frame.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload cxx_inline
need_perf process

run_smolder 60 record -F 999 --names full -o "$TMP/out.json" -- "$WORKLOADS/cxx_inline" 3
keep_artifact "$TMP/out.json" cxx.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK cxx "$TMP/out.json" --exe cxx_inline || fail "C++ names / inlined frames wrong"

run_smolder 60 record -F 999 -o "$TMP/short.json" -- "$WORKLOADS/cxx_inline" 2
expect_ok
"$PYTHON3" - "$TMP/short.json" <<'PY' || fail "default (short) names keep template arguments"
import json, sys
d = json.load(open(sys.argv[1]))
fr = {f for p in d["profiles"] for s in p["stacks"] for f in s["stack"].split(";")}
mult = sorted(f for f in fr if "multiply" in f)
print("short: %s" % mult)
sys.exit(0 if mult and all(f.startswith("ns::Matrix::multiply") for f in mult) else 1)
PY
