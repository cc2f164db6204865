#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One step of `git bisect run` on a kernel tree: build the kernel, boot it
# in a guest (scripts/vm/vng_run.sh), run the A/B matrix of a baseline results
# directory there (udpgso_ab.sh --baseline) and turn the verdict of
# ab_compare.py into bisect's exit code.  docs/compare.md has the recipe.
#
#   bisect_step.sh --baseline DIR [--tree KDIR] [--kernel IMAGE] [--out DIR]
#                  [--jobs N] [--timeout SECS] [-- UDPGSO_AB_OPTIONS...]
#   bisect_step.sh --record [--tree KDIR | --kernel IMAGE] [--out DIR]
#                  [-- UDPGSO_AB_OPTIONS...]       make the baseline
#
#   --tree KDIR     kernel tree to build (default: the current directory):
#                   make olddefconfig, make bzImage; its .config needs
#                   CONFIG_VETH=y and CONFIG_NET_NS=y (no modules in the guest)
#   --kernel IMAGE  boot IMAGE instead of building (e.g. /boot/vmlinuz-*)
#   --out DIR       where the guest writes results (default: results/bisect)
#   --jobs N        make -j (default: nproc);  --timeout SECS: the guest's (3600)
#   --record        run the matrix given after -- and compare nothing
#   --compare-args "ARGS"  ab_compare.py options for the verdict (e.g. "--family
#                   --threshold 3"; udpgso_ab.sh gets them as UG_COMPARE_ARGS)
#
# Exit (git bisect run's convention): 0 good (no regression), 1 bad (a
# regression, or the matrix failed on this kernel), 125 skip (the commit does
# not build, the guest did not boot or timed out, or nothing could be
# compared), 128 stop the bisection (bad arguments, no baseline, no vng).
set -u
. "$(dirname "$0")/../lib.sh"

usage() { ug_help; }
die128() { ug_err "$*"; exit 128; }

tree=. kernel= out=$UG_TOP/results/bisect jobs=$(nproc) tmo=3600 baseline= record=0 cargs=
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--baseline) [ $# -ge 2 ] || die128 "--baseline: needs a results directory"
		baseline=$2; shift ;;
	--tree) [ $# -ge 2 ] || die128 "--tree: needs a kernel tree"; tree=$2; shift ;;
	--kernel) [ $# -ge 2 ] || die128 "--kernel: needs an image"; kernel=$2; shift ;;
	--out) [ $# -ge 2 ] || die128 "--out: needs a directory"; out=$2; shift ;;
	--jobs) [[ "${2:-}" =~ ^[1-9][0-9]{0,2}$ ]] || die128 "--jobs '${2:-}': allowed 1..999"
		jobs=$2; shift ;;
	--timeout) [[ "${2:-}" =~ ^[1-9][0-9]{0,5}$ ]] || die128 "--timeout '${2:-}': allowed seconds"
		tmo=$2; shift ;;
	--record) record=1 ;;
	--compare-args) [ $# -ge 2 ] || die128 "--compare-args: needs ab_compare.py options"
		[[ "$2" =~ ^[A-Za-z0-9_.,=\ -]*$ ]] ||
			die128 "--compare-args '$2': allowed ab_compare.py options (letters, digits, - . , =)"
		cargs=$2; shift ;;
	--) shift; break ;;
	*) die128 "unknown option '$1' (see -h)" ;;
	esac
	shift
done
if [ "$record" = 1 ]; then
	[ -z "$baseline" ] || die128 "--record and --baseline: give one of them"
else
	[ -n "$baseline" ] || die128 "needs --baseline DIR (or --record; see -h)"
	# a baseline that cannot be read stops the bisection, not this commit
	why=$("$UG_TOP/scripts/bench/ab_compare.py" --matrix-args "$baseline" 2>&1 >/dev/null) ||
		die128 "${why#ab_compare.py: }"
	baseline=$(cd "$baseline" && pwd)
fi
mkdir -p "$out" || die128 "--out '$out': cannot create it"
out=$(cd "$out" && pwd)

# ---- build ------------------------------------------------------------------------
if [ -z "$kernel" ]; then
	[ -f "$tree/Makefile" ] || die128 "--tree '$tree': no kernel tree (no Makefile)"
	commit=$(git -C "$tree" rev-parse --short HEAD 2>/dev/null || echo unknown)
	ug_err "building $commit in $tree (make -j$jobs bzImage)"
	if ! nice -n 19 make -C "$tree" olddefconfig >"$out/build-$commit.log" 2>&1 ||
	   ! nice -n 19 make -C "$tree" -j"$jobs" bzImage >>"$out/build-$commit.log" 2>&1; then
		ug_err "$commit does not build (see $out/build-$commit.log): skip"
		exit 125
	fi
	for c in CONFIG_VETH CONFIG_NET_NS; do
		grep -qx "$c=y" "$tree/.config" ||
			die128 "$tree/.config: $c is not =y (the guest loads no modules of this tree)"
	done
	kernel=$tree/arch/x86/boot/bzImage
fi
[ -r "$kernel" ] || die128 "--kernel '$kernel': no such readable image"

# ---- boot and run ------------------------------------------------------------------
ab=(env "UG_COMPARE_ARGS=$cargs" "$UG_TOP/scripts/bench/udpgso_ab.sh" --out "$out" --no-perf --no-plots)
[ "$record" = 1 ] || ab+=(--baseline "$baseline")
ab+=("$@")
ug_err "booting $kernel: ${ab[*]}"
# through pipes: qemu reopens our stdout/stderr by /proc/self/fd/N, which
# truncates a file they point to (a bisect log lost its first lines)
"$UG_TOP/scripts/vm/vng_run.sh" --kernel "$kernel" --timeout "$tmo" --rwdir "$out" -- \
	"$(printf '%q ' "${ab[@]}")" > >(cat) 2> >(cat >&2)
rc=$?
wait
case "$rc" in
0) ug_err "good: no regression" ;;
1) ug_err "bad: a regression, or the matrix failed in the guest" ;;
2) ug_err "nothing to compare (the comparison's input was bad): skip"; rc=125 ;;
4) die128 "vng or qemu missing" ;;
124) ug_err "the guest timed out after ${tmo}s: skip"; rc=125 ;;
255) ug_err "the guest died (no exit code; a panic?): skip"; rc=125 ;;
*) ug_err "udpgso_ab.sh exit $rc in the guest: stop"; rc=128 ;;
esac
exit "$rc"
