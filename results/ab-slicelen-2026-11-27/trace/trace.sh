#!/bin/bash
# trace.sh SECS: one long sendmmsg send on a veth pair in two namespaces (tx on CPU 0, rx
# on CPU 1), the receiving device sampled every 50 ms (O/dev.out), no probe: the probe
# experiment's script with STEP=0.05 PROBE=0.  B=REPO O=OUTDIR.  design_eval.py reads it.
exec env STEP=0.05 PROBE=0 bash "$(dirname "$0")"/../../probe-covariate-2026-11-27/exp.sh "${1:-60}" m
