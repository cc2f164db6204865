# SPDX-License-Identifier: GPL-2.0
# udpgso-lab: one Makefile, standalone or inside a kernel tree
# (tools/testing/selftests/<name>/, where the tree's lib.mk is used).

# the tools: built, installed, run by the tests (not by the runner itself),
# as TEST_GEN_FILES in upstream's net/Makefile
TEST_GEN_FILES := udpgso_bench_tx udpgso_bench_rx udpgso udpgso_wire
# tests run by run_tests, in this order (each prints its own KTAP)
TEST_PROGS := udpgso_bench.sh udpgso.sh udpgro.sh udpgro_fwd.sh udpgso_wire.sh udpgro_conf.sh \
	      kmod_test.sh bpf_test.sh
# tests that only use the userspace tools: the sanitizer pass runs these
USER_TESTS := udpgso_bench.sh udpgso.sh udpgro.sh udpgro_fwd.sh udpgso_wire.sh udpgro_conf.sh
# tests of the harness itself (not of the kernel): run by `make check`,
# not part of the kselftest collection
HARNESS_TESTS := scripts/tests/setup_test.sh scripts/tests/help_test.sh \
		 scripts/tests/scripts_test.sh scripts/tests/kselftest_test.sh \
		 scripts/tests/compare_test.sh scripts/tests/compare_headline_test.sh \
		 scripts/tests/ab_stats_test.sh \
		 scripts/tests/ab_report_test.sh scripts/tests/ab_rounds_test.sh \
		 scripts/tests/device_test.sh \
		 scripts/tests/napi_cut_test.sh
TEST_FILES := settings config scripts kmod device

COMMON := udpgso_common.c
COMMON_H := udpgso_common.h
# udpgso_bench_tx is main (udpgso_bench_tx.c) and its parts, with a
# private header: options, plan, rings, send, report
TX_PARTS := udpgso_bench_tx_opts.c udpgso_bench_tx_plan.c udpgso_bench_tx_ring.c \
	    udpgso_bench_tx_send.c udpgso_bench_tx_report.c udpgso_bench_tx.h
# udpgso_bench_rx: options, the receive side (udpgso_bench_rx.c), summary
RX_PARTS := udpgso_bench_rx_opts.c udpgso_bench_rx_report.c udpgso_bench_rx.h
# the capture (AF_PACKET) and the per-segment check: udpgso_wire's, linked
# into udpgso too (--sink-capture)
WIRE_CHECK := udpgso_wire_cap.c udpgso_wire_pkt.c udpgso_wire.h
# udpgso: the runner (udpgso.c), its cases and expectations, its options,
# the segments on the sink (_sink, with the wire check)
GSO_PARTS := udpgso_cases.c udpgso_opts.c udpgso_sink.c udpgso.h $(WIRE_CHECK)
# udpgso_wire: send + self-test (udpgso_wire.c), the capture (_cap),
# packets and the segment check (_pkt), the UDP GRO conformance runner
# (_gro), its cases (_grocases), its options and two-host roles (_grorole),
# the two-host GSO expect/send roles (_expect)
WIRE_PARTS := udpgso_wire_gro.c udpgso_wire_grocases.c udpgso_wire_grorole.c udpgso_wire_napi.c \
	udpgso_wire_expect.c udpgso_wire_gro.h $(WIRE_CHECK)

CFLAGS ?= -O2
# "-D_GNU_SOURCE=" (empty) equals a "#define _GNU_SOURCE" line; it is here
# for every source file (none defines it itself), in both builds
CFLAGS += -g -Wall -Wextra -Werror -D_GNU_SOURCE=
LDLIBS += -lpthread -lm

ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	  -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
OUTPUT ?= $(CURDIR)/build-san
endif

# ---- inside a kernel tree: the kernel's lib.mk does the rest ----------------
ifneq ($(wildcard $(CURDIR)/../lib.mk),)
ifneq ($(wildcard $(CURDIR)/../kselftest_harness.h),)
UG_IN_KERNEL_TREE := 1
endif
endif

ifdef UG_IN_KERNEL_TREE
# lib.mk's own %: %.c rule would link one source file; ours links the helper
OVERRIDE_TARGETS := 1
include ../lib.mk
# the tests find the tools there (with O=, not beside the scripts)
export UDPGSO_BIN := $(OUTPUT)
$(OUTPUT)/%: %.c $(COMMON) $(COMMON_H)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) $(LDLIBS)
$(OUTPUT)/udpgso_bench_tx: $(TX_PARTS)
$(OUTPUT)/udpgso_bench_rx: $(RX_PARTS)
$(OUTPUT)/udpgso: $(GSO_PARTS)
$(OUTPUT)/udpgso_wire: $(WIRE_PARTS)
else
# ---- standalone ---------------------------------------------------------------
OUTPUT ?= $(CURDIR)
BINS := $(addprefix $(OUTPUT)/,$(TEST_GEN_FILES))

.PHONY: all run_tests check run modes bench kmod kmod-debug-check kmod-icount bpf bpf-stress install \
	clean setup compare netif-check staircase device-check device-guest-check
all: $(BINS) bpf

# the BPF twin of kmod/ (bpf/udpgso_stats): without clang, bpftool,
# libbpf-dev or kernel BTF one line says what is missing and the rest builds
bpf:
	@$(MAKE) --no-print-directory -C bpf OUTPUT=$(OUTPUT)

# what `make run` / `make check` need and the machine lacks is installed
# first (scripts/setup.sh; UG_SETUP=0 skips it)
UG_SETUP ?= 1
setup_for = $(if $(filter 0,$(UG_SETUP)),:,./scripts/setup.sh --for $(1))
setup:
	@./scripts/setup.sh --for check

$(OUTPUT)/%: %.c $(COMMON) $(COMMON_H)
	@mkdir -p $(OUTPUT)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) $(LDLIBS)
$(OUTPUT)/udpgso_bench_tx: $(TX_PARTS)
$(OUTPUT)/udpgso_bench_rx: $(RX_PARTS)
$(OUTPUT)/udpgso: $(GSO_PARTS)
$(OUTPUT)/udpgso_wire: $(WIRE_PARTS)

# `make udpgso` (any tool by its name) builds $(OUTPUT)/udpgso with the
# helper linked in; the empty recipe keeps make's built-in %: %.c away
$(TEST_GEN_FILES): %: $(OUTPUT)/% ;

run_tests: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/ksft_run.sh $(addprefix ./,$(TEST_PROGS))

# the README's test command: every test, then the userspace tests again
# with the tools built with AddressSanitizer and UBSan; both passes run, and
# the last line adds them up.  LeakSanitizer is off there unless ASAN_OPTIONS
# says otherwise: at exit of a multithreaded rx stopped by SIGINT its
# StopTheWorld spun forever (seen in udpgro.sh bad_gro_lookup, 1 run in 12)
check:
	@$(call setup_for,check)
	@tot=$$(mktemp); rc=0; \
	UG_TOTALS=$$tot $(MAKE) --no-print-directory \
		TEST_PROGS="$(TEST_PROGS) $(HARNESS_TESTS)" run_tests || rc=1; \
	ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0} \
	UG_SANITIZED=1 UG_TOTALS=$$tot $(MAKE) --no-print-directory SANITIZE=1 \
		TEST_PROGS="$(USER_TESTS)" run_tests || rc=1; \
	awk '{p += $$1; f += $$2; s += $$3; t += $$4} END { \
		printf "# check: %d test runs failed in %d passes\n", t, NR; \
		printf "check: %d passed, %d failed, %d skipped\n", p, f, s }' $$tot; \
	rm -f $$tot; exit $$rc

# the README's main command: the offload A/B matrix with CPU cost and
# counters, written to results/ (scripts/bench/udpgso_ab.sh -h for its options);
# its last line: the make compare for it and the run before it
run:
	@$(call setup_for,run)
	@$(MAKE) --no-print-directory all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/bench/udpgso_ab.sh
	@$(PY_PLOT) ./scripts/bench/ab_compare.py --next "$(CURDIR)/results" || true

# two results directories of `make run` (or two directories of several runs
# each) compared, a verdict per configuration
# (docs/compare.md): exit 1 on a regression, 2 on bad input; each pair's
# between-run variance also comes from 3 or more other runs of this machine
# beside OLD and NEW (BETWEEN=auto, the default; BETWEEN=DIR: the runs in
# DIR; BETWEEN= : the runs' own time blocks only, blind to hours);
# ARGS="--out DIR --threshold 3 ..." passes options; Debian's python3 has
# matplotlib
BETWEEN ?= auto
PY_PLOT := $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
compare:
	@test -n "$(OLD)" && test -n "$(NEW)" || \
		{ echo "make compare: set OLD=DIR NEW=DIR (results directories, or directories of them)" >&2; exit 2; }
	@$(PY_PLOT) ./scripts/bench/ab_compare.py $(ARGS) $(if $(BETWEEN),--between "$(BETWEEN)") \
		"$(OLD)" "$(NEW)"

# a quick look: every send and receive mode once, side by side, on lo
modes: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/bench/modes.sh

# our tx against the kernel's own selftest tx (a benchmark, not a test)
bench: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/bench/bench_vs_upstream.sh

kmod:
	$(MAKE) -C kmod

# the module on a debug kernel (KASAN, lockdep, PROVE_RCU, DEBUG_OBJECTS,
# KMEMLEAK) built from linux-source-6.1 into /var/cache/udpgso-lab/kdebug,
# then reused; installs missing build tools first (scripts/vm/kmod_debug_kernel.sh)
kmod-debug-check: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/vm/kmod_debug_kernel.sh --setup

# the device suite (device/*.sh, docs/device.md) against NETIF and a remote
# host, in the kernel's NetDrvEpEnv terms: NETIF, LOCAL_V4/6, REMOTE_V4/6,
# REMOTE_TYPE (netns|ssh), REMOTE_ARGS, or a net.config file; each file skips
# (4) with the reason when NETIF is unset, and so does the target (exit 0)
DEVICE_PROGS := $(sort $(wildcard device/*.sh))
device-check: all
	@rc=0; UDPGSO_BIN=$(OUTPUT) ./scripts/ksft_run.sh $(addprefix ./,$(DEVICE_PROGS)) || rc=$$?; \
	if [ $$rc = 4 ]; then echo "device-check: skipped (see the reasons above)"; rc=0; fi; exit $$rc

# NETIF mode of udpgso_ab.sh on a NIC with queues and IRQs: a TCG guest with
# two multiqueue virtio-net NICs (scripts/vm/netif_guest.sh; its `run` case
# alone took 1426 s in a TCG guest on a loaded host, so not part of `make check`); ARGS="--kernel 6.1.0-56-amd64 --keep DIR ..."
netif-check: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/vm/netif_guest.sh $(ARGS)

# the device suite (make device-check) on virtio-net NICs with a real driver:
# a TCG guest, NIC 1 as NETIF, NIC 2 as the remote in a netns (over ssh with
# --remote ssh); QEMU 10 with USO (fetched by setup.sh --for device-guest
# into /var/cache/udpgso-lab/qemu10) or --profile qemu72 (no USO);
# scripts/vm/device_guest.sh; ARGS="--profile qemu72 --remote ssh --kernel 6.1.0-56-amd64 --keep DIR ..."
device-guest-check: all
	@$(call setup_for,device-guest)
	@UDPGSO_BIN=$(OUTPUT) ./scripts/vm/device_guest.sh $(ARGS)

# seed 001's staircase (scripts/bench/staircase.sh) in that guest, kept in
# results/<date>-netif-staircase/
staircase: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/vm/netif_guest.sh --only staircase --secs 3 \
		--keep results/$$(date -u +%Y%m%dT%H%M%SZ)-netif-staircase $(ARGS)

# the BPF twin's counters under load, repeated (issue 25: scripts/bench/bpf_stress.sh,
# not part of make check); ARGS="--reps 200 --bt-reps 200 --guest-reps 20 --out DIR ..."
bpf-stress: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/bench/bpf_stress.sh $(ARGS)

# the module's cost in guest instructions (a benchmark: scripts/bench/kmod_icount.sh)
kmod-icount: all
	@UDPGSO_BIN=$(OUTPUT) ./scripts/bench/kmod_icount.sh

# INSTALL_PATH is a kselftest install root (what the kernel's `make -C
# tools/testing/selftests install` makes): the suite goes to
# INSTALL_PATH/$(COLLECTION)/ and its lines replace any old ones in
# INSTALL_PATH/kselftest-list.txt, so the kernel's run_kselftest.sh runs it
COLLECTION ?= udpgso-lab
install: all
	@test -n "$(INSTALL_PATH)" || { echo "make install: set INSTALL_PATH=DIR" >&2; exit 1; }
	mkdir -p $(INSTALL_PATH)/$(COLLECTION)
	cp -a $(BINS) $(TEST_PROGS) $(TEST_FILES) $(INSTALL_PATH)/$(COLLECTION)/
	@[ ! -x $(OUTPUT)/udpgso_stats ] || cp -a $(OUTPUT)/udpgso_stats $(INSTALL_PATH)/$(COLLECTION)/
	@list=$(INSTALL_PATH)/kselftest-list.txt; touch $$list; \
	{ grep -v '^$(COLLECTION):' $$list || true; \
	  for t in $(TEST_PROGS); do echo "$(COLLECTION):$$t"; done; } >$$list.new && \
	mv $$list.new $$list && echo "  $(words $(TEST_PROGS)) tests listed in $$list"

clean:
	rm -f $(BINS)
	rm -rf $(CURDIR)/build-san
	-$(MAKE) -C kmod clean 2>/dev/null
	-$(MAKE) -C bpf clean OUTPUT=$(OUTPUT) 2>/dev/null
endif
