#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# device_test.sh: the device suite (device/*.sh, `make device-check`) on veth,
# all inside network namespaces this test creates: namespace h plays the
# local host (NETIF=ugd0 there, never this machine's own namespace), p the
# remote (ugd1), joined by a veth pair with IPv4 and IPv6 addresses.
#   - no NETIF: every case file skips (exit 4) with the reason;
#   - REMOTE_TYPE=netns: every case file passes (or skips with a reason);
#   - REMOTE_TYPE=ssh to an sshd started in p (openssh-server), the variables
#     read from a net.config file (NET_CONFIG) instead of the environment
#     (env.sh there with DRV_ENV_QUICK=1 DRV_ENV_KILLS=1: what depends on the
#     transport);
#   - a broken restore (DRV_NO_RESTORE=1, the helper's test knob) makes
#     device/env.sh fail: its restore cases can fail;
# and after each run both ends' settings (scripts/snapshot.sh save) equal
# those before.  DEVICE_TEST_FILES="env.sh gso.sh" narrows the case files;
# DEVICE_TEST_LOGS=DIR keeps the runner's log of each run there (LABEL.log).
#
#   ./device_test.sh
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

SNAP=$UG_TOP/scripts/snapshot.sh
ktap_header
if ! why=$(ug_need_root) || ! why=$(ug_need_cmd ip ethtool python3); then
	ktap_skip "device_test" "$why"
	ktap_finish
fi
files=()
for f in ${DEVICE_TEST_FILES:-$(cd "$UG_TOP/device" && ls -- *.sh)}; do
	[ -x "$UG_TOP/device/$f" ] || ug_die "DEVICE_TEST_FILES: no device/$f (allowed: $(cd "$UG_TOP/device" && echo -- *.sh))"
	files+=("$UG_TOP/device/$f")
done
export UDPGSO_BIN
# device/gso.sh: one send per case, two sizes per variant (the full run: results/)
export DRV_GSO_QUICK=${DRV_GSO_QUICK:-1}
# device/gro.sh: the six cases of the other receivers for the UDP_GRO socket too
# (every case: results/devgro-2026-11-25/)
export DRV_GRO_QUICK=${DRV_GRO_QUICK:-1}

ug_trap_install
tmp=$(mktemp -d)
defer rm -rf "$tmp"
ns_add h && ns_add p || { ktap_skip "device_test" "cannot create network namespaces"; ktap_finish; }
NH=$(ns_name h) NP=$(ns_name p)
defer ns_kill_pids "$NH" "$NP"
veth_pair h ugd0 p ugd1
ip -n "$NH" addr add 10.252.0.1/24 dev ugd0
ip -n "$NP" addr add 10.252.0.2/24 dev ugd1
ip -n "$NH" addr add fd00:252::1/64 dev ugd0 nodad
ip -n "$NP" addr add fd00:252::2/64 dev ugd1 nodad
ENV=(NETIF=ugd0 LOCAL_V4=10.252.0.1 REMOTE_V4=10.252.0.2 LOCAL_V6=fd00:252::1 REMOTE_V6=fd00:252::2)

snap_hp() {
	ip netns exec "$NH" bash "$SNAP" save ugd0 | grep -v '^netns '
	echo "-- remote"
	ip netns exec "$NP" bash "$SNAP" save ugd1 | grep -v '^netns '
}
base=$(snap_hp)

# suite LABEL WANT ENV...: the case files under the kselftest runner in
# namespace h with ENV; one line per case file (a skip with the file's first
# SKIP reason); WANT 4: every file must skip with the reason "NETIF is not set"
suite() {
	local label=$1 want=$2 rc res name why
	shift 2
	ip netns exec "$NH" env NET_CONFIG=/dev/null "$@" "$UG_TOP/scripts/ksft_run.sh" \
		"${files[@]}" >"$tmp/$label.log" 2>&1 </dev/null
	rc=$?
	# "ok|skip|fail NAME<TAB>first SKIP reason" per case file
	while IFS=$'\t' read -r res name why; do
		case "$want:$res" in
		4:skip)
			if [[ "$why" == *"NETIF is not set"* ]]; then
				ktap_ok "$label: $name skips: $why"
			else
				ktap_fail "$label: $name" "skipped for another reason: $why"
			fi ;;
		4:*) ktap_fail "$label: $name" "$res without NETIF" ;;
		*:ok) ktap_ok "$label: $name" ;;
		*:skip) ktap_skip "$label: $name" "$why" ;;
		*)
			ktap_fail "$label: $name"
			awk -v n="$name" '$0 == "# selftests: udpgso-lab: " n { on = 1; next }
				on && /^(not )?ok [0-9]+ selftests: / { exit }
				on && /^# (not ok|# )/' "$tmp/$label.log" | head -n 20 ;;
		esac
	done < <(awk '/^# selftests: udpgso-lab: / { n = $NF; why = ""; next }
		why == "" && /# SKIP / { why = $0; sub(/.*# SKIP /, "", why) }
		/^ok [0-9]+ selftests: .*# SKIP/ { print "skip\t" n "\t" why; next }
		/^ok [0-9]+ selftests: / { print "ok\t" n "\t"; next }
		/^not ok [0-9]+ selftests: / { print "fail\t" n "\t" }' "$tmp/$label.log")
	grep -E '^run_tests:' "$tmp/$label.log" | sed "s/^/# $label: /"
	if [ -n "${DEVICE_TEST_LOGS:-}" ]; then
		mkdir -p "$DEVICE_TEST_LOGS" && cp "$tmp/$label.log" "$DEVICE_TEST_LOGS/${label// /_}.log"
	fi
	if [ "$want" = 4 ] && [ "$rc" != 4 ]; then
		ktap_fail "$label: runner exit" "exit $rc, want 4 (all skipped)"
	fi
	if [ "$(snap_hp)" = "$base" ]; then
		ktap_ok "$label: both ends' settings as before"
	else
		ktap_fail "$label: both ends' settings as before"
		diff <(echo "$base") <(snap_hp) | head -n 10 | sed 's/^/#   /'
	fi
}

suite "no NETIF" 4 NETIF=
suite netns 0 "${ENV[@]}" REMOTE_TYPE=netns REMOTE_ARGS="$NP"

# the restore cases of env.sh must be able to fail
if [ -x "$UG_TOP/device/env.sh" ]; then
	ip netns exec "$NH" env NET_CONFIG=/dev/null DRV_NO_RESTORE=1 DRV_ENV_KILLS=0 \
		DRV_ENV_QUICK=1 DRV_ENV_PARTS=restore "${ENV[@]}" REMOTE_TYPE=netns REMOTE_ARGS="$NP" \
		"$UG_TOP/device/env.sh" >"$tmp/broken.log" 2>&1 </dev/null
	rc=$?
	if [ -n "${DEVICE_TEST_LOGS:-}" ]; then
		mkdir -p "$DEVICE_TEST_LOGS" && cp "$tmp/broken.log" "$DEVICE_TEST_LOGS/broken_restore.log"
	fi
	if [ "$rc" = 1 ] && grep -q '^not ok .*restore after success' "$tmp/broken.log"; then
		ktap_ok "env.sh fails when the restore is broken (DRV_NO_RESTORE=1)"
	else
		ktap_fail "env.sh fails when the restore is broken (DRV_NO_RESTORE=1)" "exit $rc"
	fi
	# put back what the broken restore left
	ip netns exec "$NH" bash "$SNAP" restore "$(echo "$base" | sed '/^-- remote$/,$d')" ugd0
	ip netns exec "$NP" bash "$SNAP" restore "$(echo "$base" | sed '1,/^-- remote$/d')" ugd1
fi

if ! why=$(ug_need_cmd /usr/sbin/sshd ssh ssh-keygen unshare); then
	ktap_skip "ssh: the device suite over ssh" "$why (openssh-server, openssh-client)"
elif ! ug_sshd_start "$NP" 10.252.0.2 2222 "$tmp/ssh" "$NH"; then
	ktap_fail "ssh: sshd in namespace p" "$(head -n1 "$tmp/ssh/sshd.log")"
else
	{
		printf '# net.config of the ssh run\n'
		printf '%s\n' "${ENV[@]}"
		printf 'REMOTE_TYPE=ssh\n'
		printf 'REMOTE_ARGS=%q\n' "$UG_SSH_ARGS"
	} >"$tmp/net.config"
	suite ssh 0 NET_CONFIG="$tmp/net.config" DRV_ENV_KILLS=1 DRV_ENV_QUICK=1
fi
ktap_finish
