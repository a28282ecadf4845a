# `make bench`: smolder against perf on the same workloads (issue 5).
