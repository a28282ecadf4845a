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
	STRIP='$(STRIP)'; export STRIP;
