#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# udpgso_stats on a debug kernel: builds (or reuses) a 6.1 guest kernel from
# Debian's linux-source-6.1 with KASAN, lockdep (PROVE_LOCKING, PROVE_RCU),
# DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS and KMEMLEAK
# (scripts/vm/kmod_debug.config on allnoconfig), builds the module against
# it, boots it with virtme-ng (scripts/vm/vng_run.sh) and runs every kmod guest
# case and the load/unload cycles there (scripts/vm/kmod_debug_guest.sh around
# scripts/vm/kmod_guest.sh).  Any KASAN, lockdep, RCU, kmemleak, WARNING or BUG
# report in the guest's kernel log fails the run.
#
#   scripts/vm/kmod_debug_kernel.sh [--setup] [--build-only] [--cycles N]
#       [--cycle-secs S] [--timeout S] [--only CASE,...] [--log FILE]
#   scripts/vm/kmod_debug_kernel.sh --stock VER [--cycles N] ...
#
# --setup      install missing build tools first (apt-get install
#              --no-install-recommends flex bison bc dwarves libelf-dev
#              libssl-dev xz-utils); without it a missing tool is a skip
# --build-only build or reuse the kernel and the module, boot nothing
# --cycles     load/unload cycles under traffic (default 1000), within
#              --cycle-secs (default 36000: a cycle takes ~20 s on this
#              kernel under TCG; fewer cycles in that time is a failure)
# --timeout    seconds for the whole guest (default: cycle-secs + 1800)
# --log FILE   the guest's whole output (console included) also goes there
# --stock VER  no build: Debian's own /boot/vmlinuz-VER with the checks a
#              production kernel can switch on at boot (STOCK_APPEND below:
#              SLUB redzones, poisoning and free checks, page poisoning,
#              KFENCE where built in; DEBUG_LIST is on in Debian's config).
#              Weaker evidence than the debug kernel: no KASAN, lockdep,
#              PROVE_RCU, DEBUG_OBJECTS or kmemleak.
#
# Environment: UG_KDEBUG_CACHE (default /var/cache/udpgso-lab/kdebug) holds
# the extracted source, the build and build.log; UG_KDEBUG_JOBS make -j
# (default 2); the kernel is built under nice -n 19 and rebuilt only when
# scripts/vm/kmod_debug.config changed.  A first build takes about an hour on 2
# vCPUs.  Exit: 0 clean, 1 a failure, 4 a skip (reason printed).
set -u

. "$(dirname "$0")/../lib.sh"

usage() {
	echo "usage: $ug_prog [--setup] [--build-only | --stock VER] [--cycles N] [--cycle-secs S]" \
		"[--timeout S] [--only CASE,...] [--log FILE]" >&2
	exit 1
}

setup= build_only= cycles=1000 csecs=36000 gtmo= only= log= stock=
STOCK_APPEND="slub_debug=FZPU page_poison=1 kfence.sample_interval=1"
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) (usage) 2>&1; exit 0 ;;
	--setup) setup=1; shift ;;
	--build-only) build_only=1; shift ;;
	--cycles) cycles=${2:-}; shift 2 || usage ;;
	--cycle-secs) csecs=${2:-}; shift 2 || usage ;;
	--timeout) gtmo=${2:-}; shift 2 || usage ;;
	--only) only=${2:-}; shift 2 || usage ;;
	--log) log=${2:-}; shift 2 || usage ;;
	--stock) stock=${2:-}; shift 2 || usage ;;
	*) usage ;;
	esac
done
case "$cycles" in ''|*[!0-9]*) ug_die "--cycles '$cycles': allowed a non-negative integer" ;; esac
case "$csecs" in ''|0|*[!0-9]*) ug_die "--cycle-secs '$csecs': allowed a positive integer" ;; esac
gtmo=${gtmo:-$((csecs + 1800))}
case "$gtmo" in ''|0|*[!0-9]*) ug_die "--timeout '$gtmo': allowed a positive integer" ;; esac
jobs=${UG_KDEBUG_JOBS:-2}
case "$jobs" in ''|0|*[!0-9]*) ug_die "UG_KDEBUG_JOBS '$jobs': allowed a positive integer" ;; esac

cache=${UG_KDEBUG_CACHE:-/var/cache/udpgso-lab/kdebug}
tarball=/usr/src/linux-source-6.1.tar.xz
src=$cache/linux-source-6.1
bld=$cache/build
frag=$UG_TOP/scripts/vm/kmod_debug.config
image=$bld/arch/x86/boot/bzImage

if [ -n "$stock" ]; then
	[ -z "$build_only" ] || ug_die "--stock and --build-only: pass one"
	[ -r "/boot/vmlinuz-$stock" ] || ug_die "--stock '$stock': no /boot/vmlinuz-$stock"
fi

ktap_header

skip_all() {
	ktap_skip "kmod_debug_kernel" "$1"
	ktap_finish
}

# ---- build tools -----------------------------------------------------------------
missing_tools() {	# prints the Debian packages of what is missing
	local m=
	command -v flex >/dev/null || m+="flex "
	command -v bison >/dev/null || m+="bison "
	command -v bc >/dev/null || m+="bc "
	command -v pahole >/dev/null || m+="dwarves "
	command -v xz >/dev/null || m+="xz-utils "
	[ -f /usr/include/gelf.h ] || m+="libelf-dev "
	[ -f /usr/include/openssl/opensslv.h ] || m+="libssl-dev "
	command -v gcc >/dev/null && command -v make >/dev/null || m+="build-essential "
	echo "$m"
}

build_kernel() {
	need=$(missing_tools)
	if [ -n "$need" ] && [ -n "$setup" ]; then
		ktap_info "setup: apt-get install --no-install-recommends $need"
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=900 \
			--no-install-recommends $need >"/tmp/kmod_debug_setup.log" 2>&1 || {
			tail -5 /tmp/kmod_debug_setup.log >&2
			ug_die "apt-get install $need failed (log: /tmp/kmod_debug_setup.log)"
		}
		need=$(missing_tools)
	fi
	[ -z "$need" ] || skip_all "missing build tools: ${need% } (run with --setup)"
	[ -r "$tarball" ] || skip_all "no $tarball (apt install linux-source-6.1)"

	# source, config, kernel
	mkdir -p "$cache" || ug_die "cannot create $cache (UG_KDEBUG_CACHE)"
	if [ ! -f "$src/.ug-extracted" ]; then
		ktap_info "extracting $tarball into $cache"
		rm -rf "$src"
		nice -n 19 tar -C "$cache" -xf "$tarball" || ug_die "tar -xf $tarball failed"
		[ -f "$src/Makefile" ] || ug_die "$tarball did not give $src"
		touch "$src/.ug-extracted"
	fi

	# the build is reused while the fragment and the tarball are the same
	want=$( (sha256sum < "$frag"; stat -c %s.%Y "$tarball") | sha256sum | cut -c1-16)
	kmake() { nice -n 19 make -C "$src" O="$bld" "$@"; }

	if [ "$(cat "$bld/.ug-built" 2>/dev/null)" = "$want" ] && [ -r "$image" ]; then
		ktap_info "reusing the kernel built in $bld ($(cat "$bld/include/config/kernel.release"))"
	else
		t0=$SECONDS
		mkdir -p "$bld"
		rm -f "$bld/.ug-built"
		if [ "$(cat "$bld/.ug-config" 2>/dev/null)" != "$want" ]; then
			{ kmake allnoconfig && cat "$frag" >> "$bld/.config" && kmake olddefconfig; } \
				>"$cache/config.log" 2>&1 || ug_die "configuring failed: $cache/config.log"
			# every option the fragment sets must have survived olddefconfig
			lost=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while read -r l; do
				grep -qxF "$l" "$bld/.config" || echo "${l%%=*}"
			done | tr '\n' ' ')
			[ -z "$lost" ] || ug_die "scripts/vm/kmod_debug.config options lost (dependencies?): $lost"
			echo "$want" > "$bld/.ug-config"
		fi
		ktap_info "building the kernel in $bld (make -j$jobs under nice -n 19, log $cache/build.log)"
		if ! kmake -j"$jobs" all >"$cache/build.log" 2>&1; then
			tail -20 "$cache/build.log" | sed 's/^/# /'
			ktap_fail "build debug kernel" "log: $cache/build.log"
			ktap_finish
		fi
		echo "$want" > "$bld/.ug-built"
		ktap_info "kernel built in $((SECONDS - t0)) s"
	fi
}

why=$(ug_need_root) || skip_all "$why"
if [ -n "$stock" ]; then
	image=/boot/vmlinuz-$stock
	bld=/usr/src/linux-headers-$stock
	[ -f "$bld/Makefile" ] || bld=/lib/modules/$stock/build
	[ -r "$image" ] && [ -f "$bld/Makefile" ] ||
		ug_die "--stock '$stock': needs /boot/vmlinuz-$stock and its headers"
	[ -z "$build_only" ] || ug_die "--stock and --build-only: pass one"
	krel=$stock
	ktap_info "stock kernel $krel with: $STOCK_APPEND"
else
	build_kernel
	krel=$(cat "$bld/include/config/kernel.release")
	ktap_ok "debug kernel $krel ($image)"
fi

# ---- the module ----------------------------------------------------------------------
work=$(mktemp -d /tmp/ugkdebug.XXXXXX)
ug_trap_install
defer rm -rf "$work"
if ! make -s -C "$UG_TOP/kmod" KDIR="$bld" BUILD="$work/ko" >"$work/ko.log" 2>&1; then
	sed 's/^/# /' "$work/ko.log" | tail -20
	ktap_fail "build module against $krel"
	ktap_finish
fi
ktap_ok "build module against $krel"
[ -n "$build_only" ] && ktap_finish

# ---- the guest -----------------------------------------------------------------------
for b in udpgso_bench_tx udpgso_bench_rx; do
	[ -x "$UDPGSO_BIN/$b" ] || skip_all "no $UDPGSO_BIN/$b (run make)"
done
case "$UDPGSO_BIN" in /*) ;; *) UDPGSO_BIN=$(cd "$UDPGSO_BIN" && pwd) ;; esac

res=$work/res.txt
: > "$res"
glog=${log:-$work/guest.log}
ktap_info "guest: $cycles load/unload cycles within $csecs s, guest timeout $gtmo s, log $glog"
t0=$SECONDS
UG_VNG_VERBOSE=1 UG_VNG_APPEND=${stock:+$STOCK_APPEND} \
"$UG_TOP/scripts/vm/vng_run.sh" --kernel "$image" --memory 2G --timeout "$gtmo" --rwdir "$work" -- \
	"UG_KDEBUG_STOCK=${stock:+1} UDPGSO_BIN=$UDPGSO_BIN" \
	"$UG_TOP/scripts/vm/kmod_debug_guest.sh --ko $work/ko/udpgso_stats.ko" \
	"--out $res --cycles $cycles --cycle-secs $csecs${only:+ --only $only}" >"$glog" 2>&1
rc=$?
ktap_info "guest ran $((SECONDS - t0)) s (exit $rc)"
ktap_relay "$res"
if [ $rc -ne 0 ] || ! grep -q "debug kernel reports: none" "$res"; then
	grep -v '^UGKMOD' "$glog" | tail -40 | sed 's/^/# guest: /'
	ktap_fail "guest run complete" "exit $rc$([ $rc -eq 124 ] && echo ", timed out after $gtmo s")"
fi
ktap_finish
