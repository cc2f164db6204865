#!/bin/bash
# Run in the guest by device_guest.sh (environment from device_setup.sh):
# each case file given, one after another, its KTAP streamed to the log,
# then one line per file with its exit (0 ok, 4 skipped, else failed).
# Exit: 0 when every file exited 0 or 4, else 1.
# usage: suite.sh FILE [FILE...]   (environment knobs such as DRV_GSO_QUICK pass through)
set -u
echo "# ssh/netns remote: REMOTE_TYPE=$REMOTE_TYPE REMOTE_ARGS=$REMOTE_ARGS"
echo "# guest kernel $(uname -r); NETIF $NETIF: $(ethtool -k "$NETIF" | grep -E 'tx-udp-segmentation|rx-gro-hw' | tr -s ' \t' ' ' | tr '\n' ';')"
rc=0 sum=
for f in "$@"; do
	t0=$SECONDS
	"$f"
	r=$?
	sum+="# $f: exit $r in $((SECONDS - t0)) s"$'\n'
	echo "# suite.sh: $f exit $r in $((SECONDS - t0)) s"
	case $r in 0 | 4) ;; *) rc=1 ;; esac
done
printf '%s' "$sum"
exit "$rc"
