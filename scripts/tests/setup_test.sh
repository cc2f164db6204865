#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/setup.sh: its report-only mode names exactly what is missing, a
# user who cannot install gets one line with the install command, and bad
# options get one line and exit 1.  Tools are hidden with a PATH of symlinks
# to everything on the real PATH but the hidden names; nothing is installed
# or removed.
set -u
. "$(dirname "$0")/../lib.sh"

ug_no_args "$@"
SETUP=$UG_TOP/scripts/setup.sh
ktap_header

tmp=$(mktemp -d)
defer rm -rf "$tmp"
# a copy every user can read (the not-root case runs it as nobody)
cp "$SETUP" "$tmp/setup.sh"
chmod 755 "$tmp" "$tmp/setup.sh"

farm() {		# DIR HIDDEN...: DIR holds links to every command on PATH but HIDDEN
	local dir=$1 d f n hide dirs
	shift
	hide=" $* "
	mkdir -p "$dir"
	IFS=: read -ra dirs <<<"$PATH"
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || continue
		for f in "$d"/*; do
			n=${f##*/}
			[ -x "$f" ] && [ ! -e "$dir/$n" ] || continue
			case "$hide" in *" $n "*) continue ;; esac
			ln -s "$f" "$dir/$n"
		done
	done
	chmod 755 "$dir"
}

# report DIR [ARGS]: setup.sh --check with PATH=DIR; "rc<TAB>output"
report() {
	local dir=$1 out rc
	shift
	out=$(PATH=$dir bash "$tmp/setup.sh" --check "$@" 2>&1)
	rc=$?
	printf '%s\t%s' "$rc" "$out"
}

farm "$tmp/all"
base_run=$(report "$tmp/all" --for run)
base_chk=$(report "$tmp/all")

# hide TOOLS, the lines added to the baseline must be exactly EXPECT
hidden_case() {		# NAME FOR "TOOLS" EXPECT...
	local name=$1 for=$2 tools=$3 base got added want rc
	shift 3
	farm "$tmp/h$_ktap_n" $tools
	if [ "$for" = run ]; then base=$base_run; else base=$base_chk; fi
	got=$(report "$tmp/h$_ktap_n" --for "$for")
	rc=${got%%$'\t'*}
	added=$(diff <(printf '%s\n' "${base#*$'\t'}" | sed '/^$/d') \
		<(printf '%s\n' "${got#*$'\t'}" | sed '/^$/d') | sed -n 's/^> //p')
	want=$(printf '%s\n' "$@")
	if [ "$rc" != 1 ]; then
		ktap_fail "setup --check --for $for: $name" "exit $rc, expected 1"
	elif [ "$added" != "$want" ]; then
		ktap_fail "setup --check --for $for: $name" "named other than expected"
		printf '%s\n' "$added" | sed 's/^/# got:  /'
		printf '%s\n' "$want" | sed 's/^/# want: /'
	else
		ktap_ok "setup --check --for $for: $name: $(printf '%s; ' "$@")"
	fi
}

hidden_case "ethtool hidden" run "ethtool" \
	"missing net: ethtool (namespaces, veth, offload switches; iproute2 ethtool)"
hidden_case "ethtool and perf hidden" run "ethtool perf" \
	"missing net: ethtool (namespaces, veth, offload switches; iproute2 ethtool)" \
	"missing perf: perf (CPU cost (perf stat); linux-perf)"
# nft belongs to make check only: --for run does not name it
hidden_case "nft hidden: not needed by run" check "nft" \
	"missing firewall: nft (GRO counters and DNAT cases; nftables iptables)"
hidden_case "two of a group" check "ss tc" \
	"missing net: ss tc (namespaces, veth, offload switches; iproute2 ethtool)"
hidden_case "qemu hidden" check "qemu-system-x86_64" \
	"missing guest: qemu-system-x86_64 (virtme-ng guests; qemu-system-x86 busybox-static udev kmod)"

# nothing hidden: the exit code says whether this machine lacks anything
rc=${base_chk%%$'\t'*}
if [ "$rc" = 0 ] && [ -z "${base_chk#*$'\t'}" ]; then
	ktap_ok "setup --check: nothing missing here: silent, exit 0"
elif [ "$rc" = 1 ] && [ -n "${base_chk#*$'\t'}" ]; then
	ktap_ok "setup --check: this machine lacks: $(printf '%s' "${base_chk#*$'\t'}" | tr '\n' ';')"
else
	ktap_fail "setup --check: baseline" "exit $rc with output '${base_chk#*$'\t'}'"
fi

# --check with nothing missing for run and ethtool present prints nothing
farm "$tmp/noeth" ethtool
# one line: CMD... -> exit 1, exactly one stderr line matching RE, no stdout
one_line() {		# NAME RE CMD...
	local name=$1 re=$2 out err rc
	shift 2
	"$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	out=$(cat "$tmp/o") err=$(cat "$tmp/e")
	if [ "$rc" = 1 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
	   [[ "$err" =~ $re ]]; then
		ktap_ok "$name: $err"
	else
		ktap_fail "$name" "exit $rc, stdout '$out', stderr '$err'"
	fi
}
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	one_line "not root: one line with the install command" \
		"missing (.* )?ethtool( .*)? \(not root, cannot install\): as root run: apt-get update && apt-get install --no-install-recommends .*ethtool" \
		env PATH="$tmp/noeth" setpriv --reuid=65534 --regid=65534 --clear-groups \
		bash "$tmp/setup.sh" --for run
else
	ktap_skip "not root: one line with the install command" "needs root and setpriv"
fi
farm "$tmp/noapt" ethtool apt-get
if [ "$(id -u)" = 0 ]; then
	one_line "no apt-get: one line with the install command" \
		"missing (.* )?ethtool( .*)? \(no apt-get, cannot install\): as root run: .*ethtool" \
		env PATH="$tmp/noapt" bash "$tmp/setup.sh" --for run
else
	ktap_skip "no apt-get: one line with the install command" "needs root"
fi
one_line "bad --for" "^setup.sh: --for 'runs': allowed run, check, device-guest$" \
	bash "$tmp/setup.sh" --for runs
one_line "--for without a value" "^setup.sh: --for: needs a value, allowed run, check, device-guest$" \
	bash "$tmp/setup.sh" --for
# QEMU 10 (--for device-guest only): an empty UG_QEMU10_DIR is named as
# missing there, and nowhere else
out=$(UG_QEMU10_DIR=$tmp/noqemu10 bash "$tmp/setup.sh" --check --for device-guest 2>&1)
rc=$?
out_chk=$(UG_QEMU10_DIR=$tmp/noqemu10 bash "$tmp/setup.sh" --check 2>&1)
if [ "$rc" = 1 ] && grep -q '^missing qemu10: ' <<<"$out" && ! grep -q qemu10 <<<"$out_chk"; then
	ktap_ok "--for device-guest: QEMU 10 missing is named ($(grep '^missing qemu10' <<<"$out")), not for check"
else
	ktap_fail "--for device-guest: QEMU 10 missing" "exit $rc, '$(head -c 200 <<<"$out")'"
fi
one_line "unknown option" "^setup.sh: unknown option '--install', allowed" \
	bash "$tmp/setup.sh" --install
out=$(bash "$tmp/setup.sh" -h 2>&1)
rc=$?
if [ "$rc" = 0 ] && [[ "$out" == usage:* ]]; then
	ktap_ok "-h: usage, exit 0"
else
	ktap_fail "-h" "exit $rc"
fi
ktap_finish
