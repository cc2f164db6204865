#!/bin/bash
# compare.sh OUTDIR BINDIR: run every bad-input/usage case and a set of
# --json transfers in a fresh netns; write normalised outputs to OUTDIR.
# Diff two OUTDIRs (pre vs new) with diff -r.
set -u
out=$1 bin=$2
rm -rf "$out"; mkdir -p "$out"
n=0
one() {		# TOOL ARGS...: exit code, stdout, stderr
	local tool=$1; shift
	n=$((n + 1))
	local f; f=$(printf '%s/u%03d' "$out" "$n")
	{ echo "\$ $tool $*"; unshare -n timeout -s INT 3 "$bin/$tool" "$@" >"$f.o" 2>"$f.e"; echo "rc=$?";
	  echo "--stdout"; cat "$f.o"; echo "--stderr"; cat "$f.e"; } >"$f" 2>&1
	rm -f "$f.o" "$f.e"
}
T=udpgso_bench_tx R=udpgso_bench_rx U=udpgso
D="-4 -D 127.0.0.1"
while IFS= read -r line; do
	[ -z "$line" ] && continue
	case "$line" in \#*) continue ;; esac
	eval "one $line"
done <<'CASES'
$T
$T -4 -6
$T $D -s 70000
$T $D -s 0
$T $D -s 65507
$T $D -s 65508
$T -6 -D ::1 -s 65488
$T -6 -D ::1 -s 65527
$T -6 -D ::1 -s 65528
$T -6 -D ::1 -S 65488
$T -6 -D ::1 -S 65528
$T $D -S 70000
$T $D -p 0
$T $D -p 65536
$T $D -l -1
$T $D -l 99999999999
$T $D -L 4000
$T $D -C 99999
$T $D -C x
$T $D -M x
$T $D -M -1
$T -4 -D 300.1.1.1
$T -6 -D not-an-address
$T -4 -D ::1
$T $D -m --batch 0
$T $D -m --batch 1025
$T $D --iov 0
$T $D --iov 1024
$T $D --threads 0
$T $D --threads 100000
$T $D --threads 64 --sockets 64
$T $D --sockets 65
$T $D --count -5
$T $D -S 1000 --gso-mode bogus
$T $D --gso-mode cmsg
$T $D --txtime-rate 12xyz
$T $D --txtime-rate 1
$T $D --max-pacing-rate -3
$T $D --sizes 1200,0
$T $D --sizes 100 -s 100
$T $D --sizes 100 -S 50
$T $D --sizes 100 -S 0 --gso-mode sockopt
$T $D --port-count 0
$T $D -p 65530 --port-count 10
$T $D --flow-id 4294967295 --threads 2
$T $D --flow-id x
$T -4 -D 127.0.0.1 --dst-list 127.0.0.1
$T -4 --dst-list ,
$T -4 --dst-list ::1
$T -4 --dst-list $(printf '127.0.0.1,%.0s' {1..65})
$T $D -t -u
$T $D -t -S 0
$T $D -t -m
$T $D -t --iov 2
$T $D -t --sizes 100
$T $D -t --seq
$T $D -t --txtime-rate 1M
$T $D -t -T
$T $D -t -H
$T $D -t --gso-mode cmsg
$T $D -z --seq
$T $D --seq -s 10
$T $D --seq --sizes 10,100
$T $D --flow-id 1 -s 15
$T $D --iov 4 -s 19
$T $D --iov 4 -s 20 -S 0 -h
$T $D --max-segs 0
$T $D --max-segs 5000
$T $D -s
$T $D --batch
$T -4 -D
$T $D -x
$T $D --bogus
$T $D foo
$T $D -h
$T --help
$T -h
$R -4 -p 0
$R -4 -l 70000
$R -4 -l 65508
$R -6 -l 65528
$R -4 -S 65508
$R -S 65528
$R -S -2
$R -4 -n -1
$R -4 --mode bogus
$R -4 --mode recvmmsg --batch 0
$R -4 --reuseport 0
$R -4 --reuseport 65
$R -4 --seq --flows 0
$R -4 --flows 65537
$R -4 --rcvbuf -1
$R -4 --rcvbuf 100
$R -4 -b 1.2.3.999
$R -6 -b 1.2.3.999
$R -4 -b ::1
$R -4 --bogus
$R -4 -x
$R -4 foo
$R -4 -p
$R -4 --mode
$R -4 --cpu 99
$R -4 --cpu x
$R -4 -C x
$R -4 -R -1
$R -t -G
$R -t -l 100
$R -t -S 100
$R -t -v
$R -t --seq
$R -t --mode recvmmsg
$R -t --batch 2
$R -t --reuseport 2
$R -G --mode recv
$R -S 100 --mode recv
$R --batch 4 --mode recvmsg
$R -r --batch 1024 --reuseport 64
$R --help
$R -h
$U -t 99
$U -t x
$U -p 0
$U -p
$U -t
$U --bogus
$U -x
$U foo
$U -m --cork
$U --sink lo
$U -R --sink a/b
$U -R --sink 12345678901234567
$U -4 -t 14
$U --sink-gso bogus
$U --csum bogus
$U --sink-encap 300
$U --kernel-version bogus -p 1
$U -L
$U -h
$U --help
CASES

# ---- --json transfers in a fresh netns ------------------------------------
mask() {	# timing-dependent numbers
	sed -E 's/"(duration_s|MBps|Mpps|calls_per_s|cpu_user_s|cpu_sys_s|kernel)":("[^"]*"|[-0-9.e+]+|null)/"\1":X/g' |
	sed -E '/ (tx|rx): +[0-9]+ MB\/s/d; /^Summary over /d; s/^(sum [a-z]+ tx: ).*/\1X/'
}
rxmask() {	# what depends on how the reads fall
	mask | sed -E 's/"(calls|bytes_per_call)":[-0-9.e+]+/"\1":X/g; s/"sockets":\[.*\]/"sockets":X/' |
	sed -E '/"proto":"tcp"/s/"(datagrams|reads)":[0-9]+/"\1":X/g'
}
xfer() {	# NAME RXARGS TXARGS
	local name=$1 rxa=$2 txa=$3 f
	n=$((n + 1)); f=$(printf '%s/x%03d' "$out" "$n")
	unshare -n bash -c '
		ip link set lo up
		b=$1 rxa=$2 txa=$3 f=$4
		$b/udpgso_bench_rx $rxa --json >$f.ro 2>$f.re & rp=$!
		for i in $(seq 100); do ss -Hlnu | grep -q ":8000 " && break; ss -Hlnt | grep -q ":8000 " && break; sleep 0.05; done
		$b/udpgso_bench_tx $txa --json >$f.to 2>$f.te; echo "tx rc=$?" >$f.rc
		for i in $(seq 100); do kill -0 $rp 2>/dev/null || break; sleep 0.05; done
		kill -INT $rp 2>/dev/null; wait $rp; echo "rx rc=$?" >>$f.rc
	' _ "$bin" "$rxa" "$txa" "$f"
	{ echo "# $name: rx $rxa | tx $txa"; cat "$f.rc"; echo "--tx stdout"; mask <"$f.to";
	  echo "--tx stderr"; mask <"$f.te"; echo "--rx stdout"; rxmask <"$f.ro";
	  echo "--rx stderr"; mask <"$f.re"; } >"$f"
	# a timed run: the counts depend on the speed
	[ "$name" = runtime ] && sed -i -E 's/"(bytes|datagrams|calls|reads)":[0-9]+/"\1":X/g' "$f"
	rm -f "$f".??
}
xfer plain "-4 -n 200 -l 1472 -v" "-4 -D 127.0.0.1 -s 1472 --count 200"
xfer plain6 "-6 -n 200 -l 1452 -v" "-6 -D ::1 --count 200"
xfer sendto_s "-4 -n 300 -v" "-4 -D 127.0.0.1 -s 4000 --count 300"
xfer gso "-4 -n 200 -l 1472 -v --seq" "-4 -D 127.0.0.1 -s 14720 -S 1472 --count 200 --seq"
xfer gso0 "-6 -n 200 -l 1452 -v --seq" "-6 -D ::1 -s 14520 -S 0 --count 200 --seq"
xfer gro "-4 -G -n 20 -l 14720 -S 1472 -v" "-4 -D 127.0.0.1 -s 14720 -S 1472 -M 20"
xfer mmsg_gso "-4 -n 300 -l 1452 -v --seq --batch 16" "-6 -D 127.0.0.1 -m -S 0 -s 14520 --count 300 --seq"
xfer mmsg_gso6 "-6 -n 300 -l 1452 -v --seq --batch 16" "-6 -D ::1 -m -S 0 -s 14520 --count 300 --seq"
xfer mmsg "-4 -n 300 -v --mode recvmmsg" "-4 -D 127.0.0.1 -m -s 8000 --count 300"
xfer batch "-4 -n 300 -v" "-4 -D 127.0.0.1 --batch 7 -s 1000 --count 300"
xfer sizes "-4 -n 400 -v --seq" "-4 -D 127.0.0.1 --sizes 1200,1200,1200,700 -S 0 --count 400 --seq"
xfer sizes_plain "-4 -n 400 -v --seq" "-4 -D 127.0.0.1 --sizes 1200,300,1200,700 --count 400 --seq"
xfer iov "-6 -n 160 -l 1000 -v --seq" "-6 -D ::1 --iov 3 -S 1000 -s 8000 --count 160 --seq"
xfer iov_plain "-6 -n 160 -l 1000 -v" "-6 -D ::1 --iov 3 -s 1000 --count 160"
xfer flows "-4 -n 400 -l 1000 -v --seq --flows 4 --reuseport 2" "-4 -D 127.0.0.1 --threads 2 --sockets 2 --seq -s 10000 -S 1000 --count 400"
xfer flows1 "-4 -n 400 -l 1000 -v --seq --flows 4" "-4 -D 127.0.0.1 --sockets 4 --seq -s 1000 --count 400 -u"
xfer cap "-6 -n 256 -l 100 -v" "-6 -D ::1 -s 60000 -S 100 --count 256"
xfer maxsegs "-4 -n 100 -l 1000 -v" "-4 -D 127.0.0.1 --max-segs 10 -S 1000 -s 20000 --count 100"
xfer maxsegs_big "-4 -n 100 -l 1000 -v" "-4 -D 127.0.0.1 --max-segs 4000 -S 1000 -s 20000 --count 100"
xfer sockopt "-4 -n 100 -l 1000 -v" "-4 -D 127.0.0.1 --gso-mode sockopt -S 1000 -s 10000 --count 100"
xfer mmsg_sockopt "-4 -n 100 -l 1000 -v" "-4 -D 127.0.0.1 -m --gso-mode sockopt -S 1000 -s 10000 --count 100"
xfer zc "-4 -n 100 -l 1472 -v" "-4 -D 127.0.0.1 -a -z -S 0 -s 14720 --count 100"
xfer ts "-4 -n 100 -l 1472 -v" "-4 -D 127.0.0.1 -a -T -S 0 -s 14720 --count 100"
xfer cache "-4 -n 100 -l 1472 -v" "-4 -D 127.0.0.1 -c -S 0 -s 14720 --count 100"
xfer tcp "-t" "-4 -D 127.0.0.1 -t -s 10000 -M 100"
xfer tcp_count "-t -r" "-4 -D 127.0.0.1 -t -s 10000 --count 50 -z -a"
xfer Mnr "-4 -n 100 -v" "-4 -D 127.0.0.1 -s 4000 -M 33"
xfer Mnr_mmsg "-4 -n 99 -v" "-4 -D 127.0.0.1 -m -s 4000 -M 33"
xfer fallback "-4 -n 100 -l 1000 -v" "-4 -D 127.0.0.1 -S 1000 -s 1000 --count 100 --no-gso-fallback"
xfer runtime "-4" "-4 -D 127.0.0.1 -l 1 -s 1000 -p 8000"
xfer ports "-4 -n 10 -v" "-4 -D 127.0.0.1 --port-count 2 --sockets 2 -s 1000 --count 20"
xfer dstlist "-4 -n 20 -v --seq --flows 2" "-4 --dst-list 127.0.0.1,127.0.0.1 --sockets 2 -s 1000 --count 20 --seq -C 0"
xfer ipv6_v4mapped "-4 -n 120 -l 1200 -v --seq" "-6 -D 127.0.0.1 -s 12000 -S 1200 --count 120 --seq"
xfer verbose "-4 -n 100 -v" "-4 -D 127.0.0.1 -S 1000 -s 10000 --count 100 -v"
xfer pacing "-4 -n 50 -v" "-4 -D 127.0.0.1 --max-pacing-rate 80M -s 1000 --count 50"
xfer rx_mmsg "-4 -n 50 -v --batch 8 --rcvbuf 4M --cpu 0,1" "-4 -D 127.0.0.1 -s 1000 --count 50"

# ---- udpgso (KTAP) on a 1500-byte lo ----------------------------------------
for a in "-4 -C" "-6 -c -s" "-4 -C -m" "-6 -C --cork"; do
	n=$((n + 1)); f=$(printf '%s/k%03d' "$out" "$n")
	unshare -n bash -c 'ip link set lo up; ip addr add dev lo 10.0.0.1/32; ip addr add dev lo fd00::1/128 nodad noprefixroute; ip link set dev lo mtu 1500; $1/udpgso $2; echo "rc=$?"' _ "$bin" "$a" >"$f" 2>&1
done
echo "$n cases in $out"
