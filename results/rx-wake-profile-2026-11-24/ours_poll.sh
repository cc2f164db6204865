#!/bin/sh
# ours with upstream's wait (poll at once on an empty socket)
exec /work/wt/ab/udpgso_bench_rx --poll-wait "$@"
