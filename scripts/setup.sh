#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# setup.sh: install what `make run` / `make check` need and this machine
# lacks, once: Debian packages with apt-get (one `apt-get update` first),
# virtme-ng in a venv.  Prints one line per group it installs and nothing
# when everything is there.  The Makefile calls it before `run` and `check`;
# .ci/run calls it too.
#
#   scripts/setup.sh [--for run|check|device-guest] [--check]
#
#   --for run|check|device-guest  what the tools are needed for (default:
#                    check; device-guest: all of check, plus QEMU 10 with USO)
#   --check          only report: one line per missing group, exit 1 when
#                    anything is missing, 0 when nothing is; installs nothing
#
# Not root, or no apt-get: one line naming what is missing and the command
# that would install it, exit 1.  UG_SETUP=0 skips the step (the Makefile
# does not call it then).  UG_VNG_VENV: where virtme-ng goes
# (default /opt/udpgso-vng).
#
# QEMU 10 (--for device-guest, `make device-guest-check`): Debian 12's QEMU
# 7.2 offers no USO; bookworm-backports' QEMU 10 does.  It is fetched without
# touching the machine's apt sources or its package set: a private sources
# file (the URI of the machine's own Debian entry, suite CODENAME-backports)
# and private lists and cache (apt-get -o Dir::Etc::sourcelist=...), apt-get
# download, dpkg -x into UG_QEMU10_DIR (default /var/cache/udpgso-lab/qemu10).
# Run as DIR/usr/bin/qemu-system-x86_64 -L DIR/usr/share/qemu -L
# DIR/usr/share/seabios; its libraries and ipxe-qemu's ROMs are the installed
# QEMU 7.2's (group guest).
set -eu

prog=setup.sh
venv=${UG_VNG_VENV:-/opt/udpgso-vng}
q10=${UG_QEMU10_DIR:-/var/cache/udpgso-lab/qemu10}
# the interpreter the scripts use for reports: Debian's, whose
# python3-matplotlib it imports, even where another python3 comes first
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

usage() {
	cat <<EOF
usage: $prog [--for run|check|device-guest] [--check]
  --for run|check|device-guest
                   what to set up for: \`make run\` (build, ethtool, perf,
                   plots, BPF counters), \`make check\` (all of run, plus
                   nft/iptables, strace, guests, kernel source, virtme-ng)
                   or \`make device-guest-check\` (all of check, plus QEMU 10
                   from bookworm-backports in $q10)
                   (default: check)
  --check          report what is missing and exit 1 if anything is;
                   install nothing
EOF
}

want=check report=0
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--for)
		[ $# -ge 2 ] || { echo "$prog: --for: needs a value, allowed run, check, device-guest" >&2; exit 1; }
		case "$2" in
		run | check | device-guest) want=$2 ;;
		*) echo "$prog: --for '$2': allowed run, check, device-guest" >&2; exit 1 ;;
		esac
		shift ;;
	--check) report=1 ;;
	*) echo "$prog: unknown option '$1', allowed --for run|check|device-guest, --check, -h" >&2; exit 1 ;;
	esac
	shift
done

# ---- the groups --------------------------------------------------------------
# GROUP|FOR|CHECKS|PACKAGES|WHAT
#   FOR:    run (needed by every command), check (by make check and
#           device-guest) or device-guest (by make device-guest-check only)
#   CHECKS: cmd:NAME (on PATH), file:GLOB (exists), py:MODULE (python3
#           imports it), k612 (a Debian 6.12 guest kernel with its headers),
#           vng (virtme-ng on PATH or in the venv), qemu10 (QEMU 10 in $q10)
#   PACKAGES: Debian packages that provide them (@k612: the newest 6.12
#           image and headers; @vng: the pip venv; @qemu10: backports'
#           QEMU 10, extracted)
groups='build|run|cmd:cc cmd:make|build-essential|compiler and make
net|run|cmd:ip cmd:ethtool cmd:ss cmd:tc|iproute2 ethtool|namespaces, veth, offload switches
proc|run|cmd:ps cmd:pkill cmd:killall cmd:timeout|procps psmisc coreutils|process control
perf|run|cmd:perf|linux-perf|CPU cost (perf stat)
python|run|cmd:python3 py:matplotlib|python3 python3-matplotlib|results and plots
bpf|run|cmd:clang cmd:llvm-strip cmd:bpftool file:/usr/include/bpf/libbpf.h|clang llvm libbpf-dev bpftool|the BPF counters (bpf/udpgso_stats)
firewall|check|cmd:nft cmd:iptables|nftables iptables|GRO counters and DNAT cases
trace|check|cmd:strace cmd:rsync cmd:git cmd:perl cmd:bc cmd:xz|strace rsync git perl bc xz-utils|syscall checks, kselftest install
ssh|check|cmd:ssh cmd:sshd cmd:ssh-keygen|openssh-client openssh-server|the A/B remote path over ssh
stress|check|cmd:stress-ng|stress-ng|CPU load for make bpf-stress (scripts/bench/bpf_stress.sh)
ksource|check|file:/usr/src/linux-source-6.1.tar.xz|linux-source-6.1|kselftest drop-in and upstream tools
guest|check|cmd:qemu-system-x86_64 cmd:busybox cmd:udevadm cmd:insmod|qemu-system-x86 busybox-static udev kmod|virtme-ng guests
k61|check|file:/boot/vmlinuz-6.1.*-amd64 file:/usr/src/linux-headers-6.1.*-amd64/Makefile|linux-image-amd64 linux-headers-amd64|the Debian 6.1 guest kernel and headers
k612|check|k612|@k612|the Debian 6.12 guest kernel and headers
venv|check|cmd:python3 py:venv py:ensurepip|python3-venv|a venv for virtme-ng
vng|check|vng|@vng|virtme-ng (pip, in a venv)
qemu10|device-guest|qemu10|@qemu10|QEMU 10 with USO (bookworm-backports, extracted)'

# what each --for needs: its groups and those of the smaller ones
rank() { case "$1" in run) echo 1 ;; check) echo 2 ;; *) echo 3 ;; esac; }

have() {		# CHECK: 0 when present
	local c=$1 g
	case "$c" in
	cmd:*) command -v "${c#cmd:}" >/dev/null 2>&1 ;;
	file:*)
		# shellcheck disable=SC2086
		for g in ${c#file:}; do [ -e "$g" ] && return 0; done
		return 1 ;;
	py:*) command -v "$py" >/dev/null 2>&1 &&
		"$py" -c "import ${c#py:}" >/dev/null 2>&1 ;;
	k612)
		for g in /boot/vmlinuz-6.12.*-amd64; do
			[ -e "$g" ] || continue
			g=${g#/boot/vmlinuz-}
			[ -f "/usr/src/linux-headers-$g/Makefile" ] && return 0
		done
		return 1 ;;
	vng) command -v vng >/dev/null 2>&1 || [ -x "$venv/bin/vng" ] ;;
	qemu10) [ -x "$q10/usr/bin/qemu-system-x86_64" ] && [ -e "$q10/usr/share/seabios/bios.bin" ] ;;
	*) return 1 ;;
	esac
}

# the newest 6.12 guest kernel apt knows: "image headers", or nothing
k612_pkgs() {
	local v
	v=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' 2>/dev/null |
		awk '{print $1}' | sed 's/^linux-image-//; s/-unsigned$//' | sort -V | tail -1)
	[ -n "$v" ] && echo "linux-image-$v-unsigned linux-headers-$v"
}

# ---- what is missing ------------------------------------------------------------
missing=() mpkgs=() mtools=()
while IFS='|' read -r g for checks pkgs what; do
	[ "$(rank "$for")" -le "$(rank "$want")" ] || continue
	lack=()
	for c in $checks; do have "$c" || lack+=("${c#*:}"); done
	[ ${#lack[@]} -gt 0 ] || continue
	missing+=("$g|$pkgs|$what|${lack[*]}")
	mtools+=("${lack[@]}")
	case "$pkgs" in @*) ;; *) read -ra p <<<"$pkgs"; mpkgs+=("${p[@]}") ;; esac
done <<<"$groups"

[ ${#missing[@]} -gt 0 ] || exit 0

if [ "$report" = 1 ]; then
	for m in "${missing[@]}"; do
		IFS='|' read -r g pkgs what lack <<<"$m"
		echo "missing $g: $lack ($what; $pkgs)"
	done
	exit 1
fi

install_cmd="apt-get update && apt-get install --no-install-recommends ${mpkgs[*]}"
[ ${#mpkgs[@]} -gt 0 ] || install_cmd=
for m in "${missing[@]}"; do
	case "$m" in
	k612\|*) install_cmd+="${install_cmd:+; }apt-get install the newest linux-image-6.12.*+deb12-amd64-unsigned and its linux-headers" ;;
	vng\|*) install_cmd+="${install_cmd:+; }python3 -m venv $venv && $venv/bin/pip install virtme-ng" ;;
	qemu10\|*) install_cmd+="${install_cmd:+; }$prog --for device-guest (as root)" ;;
	esac
done
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	why="not root"
	[ "$(id -u)" -ne 0 ] || why="no apt-get"
	echo "$prog: missing ${mtools[*]} ($why, cannot install): as root run: $install_cmd" >&2
	exit 1
fi

# ---- install ------------------------------------------------------------------------
export DEBIAN_FRONTEND=noninteractive
apt_log=$(mktemp)
trap 'rm -f "$apt_log"' EXIT
# another apt-get or dpkg at work (an unattended upgrade, a second checkout's
# setup): wait for its lock up to UG_APT_LOCK_WAIT seconds rather than fail
apt_run() {		# ARGS: apt-get quietly; its output only on failure
	if ! apt-get -o DPkg::Lock::Timeout="${UG_APT_LOCK_WAIT:-900}" "$@" >"$apt_log" 2>&1; then
		tail -20 "$apt_log" >&2
		echo "$prog: apt-get $* failed" >&2
		exit 1
	fi
}
# QEMU 10 from CODENAME-backports into $q10, apt's state private to $q10-apt
qemu10_fetch() {
	local codename uri key st p
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || { echo "$prog: qemu10: no VERSION_CODENAME in /etc/os-release" >&2; exit 1; }
	# the machine's own Debian entry: the URI serving suite CODENAME main
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
		awk -v s="$codename" '$2 == s && $3 == "main" { print $1; exit }')
	[ -n "$uri" ] || { echo "$prog: qemu10: no apt entry serves '$codename main' (needed for its -backports)" >&2; exit 1; }
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	st=$q10-apt
	echo "$prog: installing qemu10 (QEMU 10 with USO): $uri $codename-backports into $q10"
	rm -rf "$st" "$q10.new"
	mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$st/debs" "$q10.new"
	if [ -r "$key" ]; then
		echo "deb [signed-by=$key] $uri $codename-backports main" >"$st/sources.list"
	else
		echo "deb $uri $codename-backports main" >"$st/sources.list"
	fi
	apt_q10=(-o "Dir::Etc::sourcelist=$st/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$st/lists" -o "Dir::Cache=$st/cache")
	apt_run "${apt_q10[@]}" update
	(cd "$st/debs" && apt_run "${apt_q10[@]}" download \
		qemu-system-x86/"$codename"-backports qemu-system-common/"$codename"-backports \
		qemu-system-data/"$codename"-backports seabios/"$codename"-backports)
	for p in "$st"/debs/*.deb; do
		dpkg -x "$p" "$q10.new" || { echo "$prog: qemu10: dpkg -x $p failed" >&2; exit 1; }
	done
	if ldd "$q10.new/usr/bin/qemu-system-x86_64" | grep -q 'not found'; then
		echo "$prog: qemu10: libraries missing: $(ldd "$q10.new/usr/bin/qemu-system-x86_64" |
			awk '/not found/ { printf "%s ", $1 }')(install group guest's qemu-system-x86 first)" >&2
		exit 1
	fi
	rm -rf "$q10" && mv "$q10.new" "$q10"
	"$q10/usr/bin/qemu-system-x86_64" --version | head -1 | sed "s/^/$prog: /"
}

updated=0
for m in "${missing[@]}"; do
	IFS='|' read -r g pkgs what lack <<<"$m"
	case "$pkgs" in @vng | @qemu10) continue ;; esac
	if [ "$updated" = 0 ]; then apt_run update; updated=1; fi
	if [ "$pkgs" = @k612 ]; then
		pkgs=$(k612_pkgs) || { echo "$prog: no linux-image-6.12.*+deb12-amd64-unsigned in apt's lists (bookworm-security)" >&2; exit 1; }
	fi
	echo "$prog: installing $g ($what): $pkgs"
	# shellcheck disable=SC2086
	apt_run install -y --no-install-recommends $pkgs
done
for m in "${missing[@]}"; do
	case "$m" in
	vng\|*)
		echo "$prog: installing vng (virtme-ng, pip) into $venv"
		{ [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"; } >"$apt_log" 2>&1 &&
			"$venv/bin/pip" install --quiet virtme-ng >>"$apt_log" 2>&1 || {
				tail -20 "$apt_log" >&2
				echo "$prog: pip install virtme-ng into $venv failed" >&2
				exit 1
			} ;;
	qemu10\|*) qemu10_fetch ;;
	esac
done
exit 0
