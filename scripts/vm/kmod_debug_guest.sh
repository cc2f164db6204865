#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs INSIDE the debug guest kernel (scripts/vm/kmod_debug_kernel.sh boots it):
# scripts/vm/kmod_guest.sh with its arguments, while the whole kernel log is
# followed into a file (kmod_guest.sh clears the ring buffer when it loads the
# module), then a kmemleak scan; one more result line at the end:
#   UGKMOD ok|not ok <kernel>: debug kernel reports: none | <the first lines>
# UG_KDEBUG_STOCK=1: a stock kernel (no kmemleak there: a skip, not a failure).
#
#   scripts/vm/kmod_debug_guest.sh --ko PATH --out FILE [kmod_guest.sh options]
set -u

. "$(dirname "$0")/../lib.sh"

case "${1:-}" in
-h | --help)
	echo "usage: $ug_prog --ko PATH --out FILE [scripts/vm/kmod_guest.sh options] (inside a guest)"
	exit 0 ;;
esac
out=/dev/null
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-/dev/null}; shift 2 || break ;;
	*) shift ;;
	esac
done
kver=$(uname -r)
KL=/sys/kernel/debug/kmemleak
# what a debug kernel prints when it finds something: KASAN, lockdep
# ("possible ... locking dependency", "inconsistent lock state", "lock held
# when returning"...), RCU ("suspicious RCU usage", stalls), DEBUG_OBJECTS
# ("ODEBUG:"), DEBUG_ATOMIC_SLEEP ("sleeping function called"), kmemleak,
# list corruption, WARNING/BUG/Oops
REPORTS='BUG: KASAN|BUG:|WARNING:|Oops|Call Trace|possible (recursive|circular|irq)|'
REPORTS+='inconsistent lock|lock held|bad unlock|suspicious RCU|rcu: INFO|detected stall|'
REPORTS+='ODEBUG: [a-z]|sleeping function called|suspected memory leak|unreferenced object|'
REPORTS+='list_(add|del) corruption|refcount_t|scheduling while atomic|blocked for more than'

emit() { echo "UGKMOD $1 $kver: $2" | tee -a "$out"; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
klog=$(mktemp /tmp/ugkdebug-klog.XXXXXX)
# the boot so far, then everything after it (dmesg -C does not stop -w)
dmesg > "$klog.boot"
dmesg -w -T >> "$klog" 2>&1 &
follower=$!
ug_trap_install
defer kill "$follower"
defer rm -f "$klog" "$klog.boot"
# kmemleak: what the boot left is not ours; "clear" greys every object
# reported so far, so later scans report only what this run leaked
if [ -w "$KL" ]; then
	echo scan > "$KL"
	echo clear > "$KL"
fi
ktap_info "debug kernel $kver: $(grep -c . "$klog.boot") boot log lines"

"$(dirname "$0")/kmod_guest.sh" "${args[@]}"
rc=$?
ktap_info "kmod_guest.sh exit $rc"

leaks=
if [ -w "$KL" ]; then
	# an object is reported once it is older than 5 s and found unreferenced
	# by two scans
	sleep 6
	echo scan > "$KL"
	sleep 2
	echo scan > "$KL"
	leaks=$(cat "$KL")
	ktap_info "kmemleak: $(grep -c '^unreferenced object' <<<"$leaks") new unreferenced objects"
elif [ -n "${UG_KDEBUG_STOCK:-}" ]; then
	emit skip "kmemleak: not built into this stock kernel"
else
	emit "not ok" "kmemleak: no $KL (CONFIG_DEBUG_KMEMLEAK off or disabled at boot)"
fi
sleep 1
kill "$follower" 2>/dev/null
wait "$follower" 2>/dev/null
bad=$( (cat "$klog.boot" "$klog"; echo "$leaks") | grep -E "$REPORTS")
if [ -z "$bad" ]; then
	n=$(cat "$klog.boot" "$klog" | grep -c .)
	msg="none (KASAN, lockdep, RCU, ODEBUG, atomic sleep, kmemleak, WARNING, BUG"
	emit ok "debug kernel reports: $msg in $n log lines)"
else
	emit "not ok" "debug kernel reports: $(head -3 <<<"$bad" | tr '\n' '|')"
	echo "# ---- kernel log lines that are reports ----"
	head -200 <<<"$bad" | sed 's/^/# /'
	echo "# ---- kmemleak ----"
	head -200 <<<"$leaks" | sed 's/^/# /'
fi
echo "# ---- whole kernel log of the run ----"
sed 's/^/# klog: /' "$klog"
exit "$rc"
