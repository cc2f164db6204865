#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""exp.sh's sampler.  sample_dev.py PID SECS STEP: every STEP seconds for
SECS + 1.5 s, the receiving device b0's rx bytes and packets as process PID's
network namespace sees them (/proc/PID/net/dev: no fork), one line
"MONOTONIC BYTES PACKETS".  sample_dev.py now: CLOCK_MONOTONIC, the clock of
those lines and of idleprobe's."""
import sys
import time


def main():
    if sys.argv[1:] == ["now"]:
        print(f"{time.monotonic():.4f}")
        return
    pid, secs, step = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    t0 = time.monotonic()
    while time.monotonic() - t0 < secs + 1.5:
        with open(f"/proc/{pid}/net/dev") as f:
            for line in f:
                if "b0:" in line:
                    v = line.split(":")[1].split()
                    print(f"{time.monotonic():.4f} {v[0]} {v[1]}", flush=True)
        time.sleep(step - (time.monotonic() - t0) % step)


if __name__ == "__main__":
    main()
