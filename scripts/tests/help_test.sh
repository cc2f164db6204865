#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every tool (the C tools from $UDPGSO_BIN) and script of the project: -h and --help print the usage on
# stdout and exit 0; an unknown option prints one line on stderr, nothing on
# stdout, and exits 1 (before any test runs or anything is set up).
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

ktap_header
cd "$UG_TOP" || exit 1
tools="udpgso_bench_tx udpgso_bench_rx udpgso udpgso_wire"
scripts="udpgso_bench.sh udpgso.sh udpgro.sh udpgro_fwd.sh udpgso_wire.sh udpgro_conf.sh
	scripts/tests/scripts_test.sh
	scripts/tests/kselftest_test.sh kmod_test.sh scripts/bench/udpgso_ab.sh scripts/snapshot.sh
	scripts/ksft_run.sh scripts/setup.sh scripts/bench/modes.sh
	scripts/bench/bench_vs_upstream.sh scripts/vm/vng_run.sh scripts/bench/kmod_bench.sh
	scripts/vm/kmod_debug_kernel.sh scripts/bench/kmod_icount.sh
	scripts/tests/setup_test.sh scripts/tests/help_test.sh scripts/tests/compare_test.sh
	scripts/tests/compare_headline_test.sh
	scripts/tests/ab_stats_test.sh scripts/tests/ab_report_test.sh scripts/tests/ab_rounds_test.sh
	scripts/vm/kmod_guest.sh
	scripts/vm/kmod_debug_guest.sh bpf_test.sh scripts/vm/bpf_guest.sh scripts/bench/bpf_bench.sh
	scripts/bench/bpf_toggle.sh scripts/bench/bpf_stress.sh scripts/bench/ab_campaign.sh
	scripts/bench/ab_tune.sh
	scripts/vm/wire_guest.sh scripts/bench/rx_vs_upstream.sh
	scripts/vm/netif_guest.sh scripts/vm/netif_case.sh scripts/bench/staircase.sh
	scripts/tests/device_test.sh device/env.sh device/gso.sh device/gro.sh
	scripts/vm/device_guest.sh scripts/vm/device_setup.sh scripts/vm/device_probe.sh
	scripts/vm/guest_record.sh scripts/vm/device_suite.sh
	scripts/tests/napi_cut_test.sh"
tmp=$(mktemp -d)
defer rm -rf "$tmp"

for s in $tools $scripts; do
	p=./$s
	case " $tools " in *" $s "*) p=$UDPGSO_BIN/$s ;; esac
	for o in -h --help; do
		timeout 20 "$p" "$o" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ "$rc" = 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
			ktap_ok "$s $o: usage, exit 0 ($(wc -l <"$tmp/out") lines)"
		else
			ktap_fail "$s $o" "exit $rc, $(wc -l <"$tmp/out") stdout lines, stderr '$(head -1 "$tmp/err")'"
		fi
	done
	# an in-guest wrapper hands its other options on to kmod_guest.sh
	case "$s" in scripts/vm/kmod_debug_guest.sh) continue ;; esac
	timeout 20 "$p" --no-such-option >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ]; then
		ktap_ok "$s --no-such-option: exit 1: $(cat "$tmp/err")"
	else
		ktap_fail "$s --no-such-option" "exit $rc, $(wc -l <"$tmp/out") stdout lines, $(wc -l <"$tmp/err") stderr lines"
	fi
done
ktap_finish
