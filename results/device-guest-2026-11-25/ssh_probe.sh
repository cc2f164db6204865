#!/bin/bash
# Run in the guest by device_guest.sh --remote ssh (environment from
# device_setup.sh): the remote answers over ssh, the probe for PROFILE, then
# the features case told the other profile must fail (a crafted failure).
# usage: ssh_probe.sh PROFILE OTHER
set -u
echo "# ssh $REMOTE_ARGS: $(ssh -o BatchMode=yes -o ConnectTimeout=5 $REMOTE_ARGS -- 'echo netns $(ip netns identify $$); ip -br addr show' | tr '\n' ';')"
scripts/vm/device_probe.sh --profile "$1"
rc=$?
scripts/vm/device_probe.sh --profile "$2" --only features
r2=$?
if [ "$r2" = 1 ]; then
	echo "# crafted: features told --profile $2 failed (exit 1), as it must"
else
	echo "# crafted: features told --profile $2 exited $r2: the check cannot fail"
	rc=1
fi
exit "$rc"
