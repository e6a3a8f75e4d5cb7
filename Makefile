# SPDX-License-Identifier: GPL-2.0
#
# kAFS overlay: build the distro 6.1 tree with our fs/afs and test it.
#
#   make            overlay, then the KUnit suites on x86_64
#   make test       every test: the suites on x86_64, arm64 and sparc (32-bit
#                   big-endian), on x86_64 under the debug kernel, the
#                   end-to-end run against a real OpenAFS cell, and
#                   upstream fstests' ./check -afs on xfstests/tests.list
#   make test-long  what does not fit in make test's 45 minutes: the
#                   two-client topic and the soak on a debug kernel
#   make test-e2e-debug  the two-client E2E topic on a debug kernel with
#                   kmemleak (in make test-long: docs/servers.md)
#   make test-soak-debug  200,000 write-exerciser operations on the same
#                   kernel, timed (in make test-long: docs/e2e.md)
#   make patches    the overlay as a patch series in build/patches/
#   make shell      a shell in the E2E guest, with the cell up and mounted
#   make bench-e2e  stock 6.1 kAFS against ours on the same workload
#   make xfstests-stock  the fstests list on stock 6.1, side by side with
#                   ours (after make test-xfstests)
#
# AFS_BUILD_DIR (default build/) holds the tree and the kunit.py build
# directories; results land in results/.

SHELL := /bin/bash
BUILD ?= $(or $(AFS_BUILD_DIR),$(CURDIR)/build)
export AFS_BUILD_DIR := $(BUILD)

# Every run "make test" does, as "test-<run>" targets, in order (the E2E
# run boots the kernel the x86_64 run built), and the result each leaves.
TEST_RUNS := console-selftest x86_64 e2e xfstests arm64 sparc x86_64-debug \
	x86_64-debug-failslab
RESULTS := console-selftest kunit-x86_64 e2e xfstests kunit-arm64 kunit-sparc \
	kunit-x86_64-debug kunit-x86_64-debug-failslab
# Runs that make test leaves out to stay within 45 minutes on two cores.
LONG_RUNS := e2e-debug soak-debug
LONG_RESULTS := e2e-debug soak-debug

.PHONY: all test test-long deps overlay patches shell bench-e2e xfstests-stock clean test-debug \
	$(addprefix test-,$(TEST_RUNS) $(LONG_RUNS))

all: deps
	@rc=0; $(MAKE) --no-print-directory test-x86_64 || rc=1; \
	scripts/summary.sh kunit-x86_64 || rc=1; exit $$rc

# Run every test even when one fails, then print each run's line and the
# total, check that nothing ran less than the repository holds (every suite
# and topic, expected-counts), and say how long each run took.
test: deps
	@rc=0; times=; start=$$(date +%s); for run in $(TEST_RUNS); do \
		t0=$$(date +%s); \
		$(MAKE) --no-print-directory test-$$run || rc=1; \
		times="$$times $$run $$(($$(date +%s) - t0)) s,"; \
	done; \
	scripts/summary.sh $(RESULTS) || rc=1; \
	scripts/check-counts.sh $(RESULTS) || rc=1; \
	echo "times:$$times in all $$(($$(date +%s) - start)) s"; exit $$rc

test-long: deps
	@rc=0; for run in $(LONG_RUNS); do \
		$(MAKE) --no-print-directory test-$$run || rc=1; \
	done; \
	scripts/summary.sh $(LONG_RESULTS) || rc=1; exit $$rc

deps:
	@scripts/install-deps.sh

overlay: deps
	@AFS_SKIP_DEPS=1 ./overlay.sh

# The console checker that every run relies on catches each report planted
# in a log (scripts/check-console-selftest.sh), and passes a clean one.
test-console-selftest:
	scripts/check-console-selftest.sh

# kconfig/boot.config lets the same kernel boot the E2E userspace.
test-x86_64: deps
	AFS_SKIP_DEPS=1 scripts/kunit-run.sh x86_64 x86_64 kconfig/boot.config

test-arm64: deps
	AFS_SKIP_DEPS=1 scripts/kunit-run.sh arm64 arm64 kconfig/trim.config

# 32-bit and big-endian in one kernel: word size and byte order.
test-sparc: deps
	AFS_SKIP_DEPS=1 scripts/kunit-run.sh sparc sparc kconfig/trim.config

# The suites under KASAN, UBSAN, lockdep, PROVE_RCU, object and list
# debugging: any report on the console fails the run.
test-debug: test-x86_64-debug
test-x86_64-debug: deps
	AFS_SKIP_DEPS=1 scripts/kunit-run.sh x86_64-debug x86_64 kconfig/debug.config \
		kconfig/trim.config

# The same debug kernel again, with every 7th slab allocation of each case's
# task failing (kunit/failslab.h): no crash, report or hang, and every suite
# reaches failures.  The interval is the run's seed: the same interval fails
# the same allocations.
AFS_KUNIT_FAILSLAB ?= 7
test-x86_64-debug-failslab: deps
	AFS_SKIP_DEPS=1 AFS_KUNIT_FAILSLAB=$(AFS_KUNIT_FAILSLAB) \
		scripts/kunit-run.sh x86_64-debug x86_64 kconfig/debug.config \
		kconfig/trim.config

test-e2e: deps
	AFS_SKIP_DEPS=1 scripts/e2e-run.sh

# The two-client topic (namespace rounds, parallel mounts, a kmemleak scan)
# on a debug kernel that boots: debug.config, leak.config and boot.config.
# Not the calls topic: 6.1's fail_function draws its random number inside
# the kprobe's int3, which lockdep reports (and then turns itself off).
# docs/servers.md has the runs made by hand.
test-e2e-debug: deps
	AFS_SKIP_DEPS=1 AFS_E2E_KERNEL=debug AFS_E2E_TOPICS=twoclients \
		scripts/e2e-run.sh

# The soak (e2e/long/70-soak.sh): 200,000 exerciser operations on the
# debug kernel, with kmemleak; the time per seed and mode as figures.
test-soak-debug: deps
	AFS_SKIP_DEPS=1 AFS_E2E_KERNEL=debug AFS_E2E_TOPICS=soak AFS_E2E_NAME=soak-debug \
		AFS_E2E_TIMEOUT=$${AFS_E2E_TIMEOUT:-21600} scripts/e2e-run.sh

# Upstream fstests' ./check -afs on xfstests/tests.list (docs/xfstests.md),
# in the E2E guest with the x86_64 run's kernel.
test-xfstests: deps
	AFS_SKIP_DEPS=1 scripts/xfstests-run.sh

# The same on stock 6.1, then stock's results and ours (from make
# test-xfstests) side by side: fails if ours fails a test stock passes.
RESULTS_DIR := $(or $(AFS_RESULTS_DIR),$(CURDIR)/results)
xfstests-stock: deps
	AFS_SKIP_DEPS=1 AFS_E2E_KERNEL=stock scripts/xfstests-run.sh
	scripts/xfstests-compare.py $(RESULTS_DIR)/xfstests-stock.tap \
		$(RESULTS_DIR)/xfstests.tap

shell: deps
	AFS_SKIP_DEPS=1 scripts/e2e-run.sh shell

bench-e2e: deps
	AFS_SKIP_DEPS=1 scripts/e2e-bench.sh

patches: deps
	@AFS_SKIP_DEPS=1 scripts/make-patches.sh

clean:
	rm -rf $(BUILD) results
