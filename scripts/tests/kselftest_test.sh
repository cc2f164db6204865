#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kselftest_test.sh: udpgso-lab as a drop-in for the kernel's selftests tree.
#
# Extracts only the kselftest machinery (tools/testing/selftests/{Makefile,
# lib.mk,kselftest*,run_kselftest.sh} and scripts/subarch.include) of Debian's
# linux-source tarball into a temporary directory, drops a copy of this
# project in as tools/testing/selftests/udpgso-lab/, and checks the TAP the
# kernel's own runner prints for it:
#   A. make -C tools/testing/selftests TARGETS=udpgso-lab O=DIR run_tests
#      (the tree's lib.mk, our build rule into O=, our settings' timeout);
#   B. make -C tools/testing/selftests TARGETS=udpgso-lab install, then the
#      installed run_kselftest.sh (kselftest-list.txt, KSELFTEST_<TEST>_ARGS);
#   C. our own `make install INSTALL_PATH=ROOT` from a copy outside any kernel
#      tree, the kernel's run_kselftest.sh and kselftest/ copied into ROOT.
# Every test of the Makefile's TEST_PROGS must be reported exactly once.  To
# stay quick, UG_ONLY (scripts/lib.sh) lets only one real test (in B: udpgso.sh,
# its variants narrowed to "ipv4 cmsg" by KSELFTEST_UDPGSO_SH_ARGS, GSO sends
# over lo) and four dummy tests written into the temporary copy run; the
# others skip at once.  The dummies prove the
# mapping: exit 0 -> ok, 1 -> not ok # exit=1, 4 -> ok # SKIP, a hang ->
# not ok # TIMEOUT <our settings' timeout> seconds.
#
#   ./kselftest_test.sh            (UG_KSRC_TARBALL=PATH picks the tarball;
#                                   default: the newest /usr/src/linux-source-*)
# Nothing of the kernel's is kept: the temporary directory is removed.
set -u
. "$(dirname "$0")/../lib.sh"
ug_no_args "$@"

COLL=udpgso-lab
DUMMIES="ug_kst_pass.sh ug_kst_fail.sh ug_kst_skip.sh ug_kst_hang.sh"
# the real test B runs and its arguments (the kernel's runner splits them
# on blanks, no quotes): UG_KST_REAL= (empty) runs none
QUICK_REAL=${UG_KST_REAL-udpgso.sh}
QUICK_ARGS=${UG_KST_REAL_ARGS--k ipv4?cmsg}
QUICK_VAR=KSELFTEST_$(echo "$QUICK_REAL" | tr -c '[:alnum:]_\n' _ | tr '[:lower:]' '[:upper:]')_ARGS
T_SHORT=8		# the copy's settings timeout in run A

ktap_header

skip_all() { ktap_skip "kselftest drop-in" "$1"; ktap_finish; }

tarball=${UG_KSRC_TARBALL:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)}
[ -n "$tarball" ] && [ -r "$tarball" ] ||
	skip_all "no linux-source tarball in /usr/src (apt-get install linux-source-6.1)"
why=$(ug_need_cmd make gcc tar xz rsync perl timeout) || skip_all "$why"
# the sources are needed: an installed copy of the suite has no .c files
[ -f "$UG_TOP/udpgso_common.c" ] && [ -f "$UG_TOP/Makefile" ] ||
	skip_all "needs the source tree, $UG_TOP has no Makefile/sources"

ug_trap_install
work=$(mktemp -d /tmp/ug-kst.XXXXXX)
defer rm -rf "$work"

# ---- the kernel's kselftest machinery, nothing else ----------------------
top=$(basename "$tarball" .tar.xz)
sel_rel=tools/testing/selftests
if ! tar -xJf "$tarball" -C "$work" \
	"$top/$sel_rel/Makefile" "$top/$sel_rel/lib.mk" \
	"$top/$sel_rel/kselftest_harness.h" "$top/$sel_rel/kselftest.h" \
	"$top/$sel_rel/kselftest" "$top/$sel_rel/run_kselftest.sh" \
	"$top/scripts/subarch.include" 2>"$work/tar.err"; then
	sed 's/^/# /' "$work/tar.err"
	ktap_fail "extract the selftests machinery of $(basename "$tarball")"
	ktap_finish
fi
ktap_ok "extract the selftests machinery of $(basename "$tarball")" \
	"($(find "$work/$top" -type f | wc -l) files)"
sel=$work/$top/$sel_rel

# ---- a copy of the project without build products -------------------------
copy_project() {	# DEST
	mkdir -p "$1"
	if git -C "$UG_TOP" rev-parse --git-dir >/dev/null 2>&1; then
		# tracked and new (not ignored) files, as they are in the work tree
		git -C "$UG_TOP" ls-files -z --cached --others --exclude-standard |
			(cd "$UG_TOP" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
			tar -C "$UG_TOP" --null -T - -cf - | tar -C "$1" -xf -
	else
		tar -C "$UG_TOP" --exclude=.git --exclude=build-san --exclude=results \
			--exclude=udpgso_bench_tx --exclude=udpgso_bench_rx --exclude=udpgso \
			--exclude='*.o' --exclude='*.ko' -cf - . | tar -C "$1" -xf -
	fi
}
# the dummies: each sources lib.sh (so UG_ONLY applies to it, like to ours)
write_dummies() {	# DIR
	local d=$1 rc
	for t in $DUMMIES; do
		case $t in
		ug_kst_pass.sh) rc=0 ;; ug_kst_fail.sh) rc=1 ;; ug_kst_skip.sh) rc=4 ;;
		ug_kst_hang.sh) rc=hang ;;
		esac
		cat >"$d/$t" <<EOF
#!/bin/bash
# dummy written by kselftest_test.sh (never committed)
. "\$(dirname "\$0")/scripts/lib.sh"
ktap_header 1
echo "# args: [\$*] bin: \$UDPGSO_BIN"
if [ "$rc" = hang ]; then exec sleep 600; fi
# the tool the tree's make built must run: a bad -s is one line and exit 1
msg=\$("\$UDPGSO_BIN/udpgso_bench_tx" -4 -D 127.0.0.1 -s 70000 2>&1)
r=\$?
echo "# \$msg"
if [ "\$r" -eq 1 ] && [[ "\$msg" == *"-s 70000"* ]]; then
	ktap_ok "udpgso_bench_tx runs"
else
	ktap_fail "udpgso_bench_tx runs" "exit \$r"
fi
exit $rc
EOF
		chmod +x "$d/$t"
	done
}

proj=$sel/$COLL
copy_project "$proj"
write_dummies "$proj"
orig_settings=$(cat "$proj/settings")
# the project's own list of tests, from its Makefile
tests=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory -C "$proj" \
	-f Makefile -f - ug-kst-print <<<'ug-kst-print: ; @echo $(TEST_PROGS)' 2>/dev/null)
if [ -z "$tests" ]; then
	ktap_fail "read TEST_PROGS from the Makefile"
	ktap_finish
fi
ktap_info "[${SECONDS}s] TEST_PROGS: $tests"

# kmake DIR ARGS...: make as a fresh top-level invocation (no MAKEFLAGS or
# command-line variables of a make that may have started us), tools found
# where the tree built them (no UDPGSO_BIN from outside)
kmake() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u MAKEFILES -u UDPGSO_BIN \
		make --no-print-directory -C "$@"
}

# check_tap LOG LABEL NAME EXPECT: exactly one result line for NAME in LOG,
# of the form EXPECT (ok | skip | fail1 | timeout:T | okskip)
check_tap() {
	local log=$1 label=$2 name=$3 want=$4 lines n line re
	re="^(not )?ok [0-9]+ selftests: $COLL: ${name//./\\.}( #.*)?\$"
	lines=$(grep -E "$re" "$log")
	n=$(printf '%s' "$lines" | grep -c .)
	line=$(printf '%s' "$lines" | head -1)
	if [ "$n" -ne 1 ]; then
		ktap_fail "$label: $name reported once" "$n result lines"
		return
	fi
	case $want in
	ok) re="^ok [0-9]+ [^#]*\$" ;;
	skip) re="^ok [0-9]+ .* # SKIP\$" ;;
	okskip) re="^ok [0-9]+ " ;;
	fail1) re="^not ok [0-9]+ .* # exit=1\$" ;;
	timeout:*) re="^not ok [0-9]+ .* # TIMEOUT ${want#timeout:} seconds\$" ;;
	esac
	if [[ "$line" =~ $re ]]; then
		ktap_ok "$label: $name -> $want"
	else
		ktap_fail "$label: $name -> $want" "got: $line"
	fi
}
# check_plan LOG LABEL N: the runner's TAP 13 header and plan
check_plan() {
	if grep -qx "TAP version 13" "$1" && grep -qx "1\.\.$3" "$1"; then
		ktap_ok "$2: TAP 13, plan 1..$3"
	else
		ktap_fail "$2: TAP 13, plan 1..$3" "$(grep -m1 -E '^1\.\.' "$1")"
	fi
}
# check_all LOG LABEL RUN: every test but those in RUN (they really ran) skipped
check_all() {
	local log=$1 label=$2 run=$3 t
	for t in $tests; do
		case " $run " in
		*" $t "*) ;;	# checked by the caller
		*) check_tap "$log" "$label" "$t" skip ;;
		esac
	done
}

# ---- A: make run_tests in the tree ------------------------------------------
# the copy's settings get a short timeout, so the hanging dummy times out soon
echo "timeout=$T_SHORT" >"$proj/settings"
logA=$work/run_tests.log
objA=$work/obj/kselftest/$COLL
ktap_info "[${SECONDS}s] A: make -C .../$sel_rel TARGETS=$COLL O=DIR run_tests"
# (through a pipe: the runner reopens /dev/stdout, which a file would clobber)
(export UG_ONLY="$DUMMIES" KSELFTEST_UG_KST_PASS_SH_ARGS="--alpha 1"
 kmake "$sel" TARGETS="$COLL" O="$work/obj" TEST_PROGS="$tests $DUMMIES" run_tests 2>&1) |
	cat >"$logA"
for b in udpgso_bench_tx udpgso_bench_rx udpgso; do
	if [ -x "$objA/$b" ]; then ktap_ok "A: $b built by the tree's make into O="
	else ktap_fail "A: $b built by the tree's make into O="; fi
done
[ -x "$objA/udpgso_bench_tx" ] || sed 's/^/# /' "$logA" | tail -20
check_plan "$logA" A "$(( $(echo $tests | wc -w) + 4 ))"
check_all "$logA" A ""
check_tap "$logA" A ug_kst_pass.sh ok
check_tap "$logA" A ug_kst_fail.sh fail1
check_tap "$logA" A ug_kst_skip.sh skip
check_tap "$logA" A ug_kst_hang.sh "timeout:$T_SHORT"
if grep -qxF "# # args: [--alpha 1] bin: $objA" "$logA"; then
	ktap_ok "A: KSELFTEST_UG_KST_PASS_SH_ARGS reaches the test, tools found in O="
else
	ktap_fail "A: KSELFTEST_UG_KST_PASS_SH_ARGS reaches the test, tools found in O="
fi
if grep -q '^# ok 1 udpgso_bench_tx runs$' "$logA"; then
	ktap_ok "A: the test's own TAP is passed through with '# '"
else
	ktap_fail "A: the test's own TAP is passed through with '# '"
fi

# ---- B: the tree's make install, then the installed run_kselftest.sh --------
printf '%s\n' "$orig_settings" >"$proj/settings"
rootB=$work/kselftest_install
logB=$work/run_kselftest.log
testsB="$tests ug_kst_pass.sh ug_kst_fail.sh ug_kst_skip.sh"
ktap_info "[${SECONDS}s] B: make -C .../$sel_rel TARGETS=$COLL install; run_kselftest.sh"
if ! kmake "$sel" TARGETS="$COLL" TEST_PROGS="$testsB" KSFT_INSTALL_PATH="$rootB" \
	install >"$work/installB.log" 2>&1; then
	sed 's/^/# /' "$work/installB.log" | tail -20
	ktap_fail "B: the tree's make install"
else
	ktap_ok "B: the tree's make install"
fi
# check_list ROOT LABEL NAMES: kselftest-list.txt is exactly COLL:NAME lines
check_list() {
	local want
	want=$(for t in $3; do echo "$COLL:$t"; done)
	if [ "$(cat "$1/kselftest-list.txt" 2>/dev/null)" = "$want" ]; then
		ktap_ok "$2: kselftest-list.txt lists every test"
	else
		ktap_fail "$2: kselftest-list.txt lists every test"
		sed 's/^/# got: /' "$1/kselftest-list.txt" 2>/dev/null
	fi
	local f miss=
	for f in udpgso_bench_tx udpgso_bench_rx udpgso settings config scripts/lib.sh scripts/ugjson.py $3; do
		[ -e "$1/$COLL/$f" ] || miss="$miss $f"
	done
	if [ -z "$miss" ] && [ "$(cat "$1/$COLL/settings")" = "$orig_settings" ]; then
		ktap_ok "$2: tools, tests, scripts/, settings and config installed"
	else
		ktap_fail "$2: tools, tests, scripts/, settings and config installed" "missing:$miss"
	fi
}
check_list "$rootB" B "$testsB"
ktap_info "[${SECONDS}s] B: installed; run_kselftest.sh"
(unset UDPGSO_BIN; export UG_ONLY="$DUMMIES $QUICK_REAL" KSELFTEST_UG_KST_PASS_SH_ARGS="--beta 2"
 [ -z "$QUICK_REAL" ] || export "$QUICK_VAR=$QUICK_ARGS"
 cd "$rootB" && ./run_kselftest.sh 2>&1) | cat >"$logB"
check_plan "$logB" B "$(echo $testsB | wc -w)"
check_all "$logB" B "$QUICK_REAL"
check_tap "$logB" B ug_kst_pass.sh ok
check_tap "$logB" B ug_kst_fail.sh fail1
check_tap "$logB" B ug_kst_skip.sh skip
if grep -qxF "# # args: [--beta 2] bin: $rootB/$COLL" "$logB"; then
	ktap_ok "B: KSELFTEST_<TEST>_ARGS, installed tools beside the tests"
else
	ktap_fail "B: KSELFTEST_<TEST>_ARGS, installed tools beside the tests"
fi
# the real test ran (its own TAP is inside), and passed or skipped
[ -z "$QUICK_REAL" ] || n=$(sed -n "/^# selftests: $COLL: $QUICK_REAL\$/,/^\(not \)\?ok [0-9]* selftests: $COLL: $QUICK_REAL/p" \
	"$logB" | grep -cE '^# (not )?ok [0-9]+ ')
[ -z "$QUICK_REAL" ] ||
	check_tap "$logB" "B ($QUICK_VAR='$QUICK_ARGS': $n cases)" "$QUICK_REAL" okskip
if [ "$QUICK_REAL $QUICK_ARGS" = "udpgso.sh -k ipv4?cmsg" ]; then
	# the arguments reached it: only the "ipv4 cmsg" variant's cases ran
	other=$(sed -n "/^# selftests: $COLL: udpgso.sh\$/,/selftests: $COLL: udpgso.sh/p" "$logB" |
		grep -E '^# (not )?ok [0-9]+ ' | grep -vc ' ipv4 cmsg: ')
	if [ "$n" -gt 0 ] && [ "$other" -eq 0 ]; then
		ktap_ok "B: $QUICK_VAR narrowed udpgso.sh to its ipv4 cmsg variant"
	else
		ktap_fail "B: $QUICK_VAR narrowed udpgso.sh to its ipv4 cmsg variant" \
			"$n cases, $other of other variants"
	fi
fi

# ---- C: our own install from a copy outside any kernel tree -----------------
rootC=$work/root-standalone
logC=$work/run_kselftest-standalone.log
copy_project "$work/standalone/$COLL"
write_dummies "$work/standalone/$COLL"
ktap_info "[${SECONDS}s] C: make install INSTALL_PATH=ROOT outside a kernel tree"
if ! kmake "$work/standalone/$COLL" TEST_PROGS="$testsB" INSTALL_PATH="$rootC" \
	install >"$work/installC.log" 2>&1; then
	sed 's/^/# /' "$work/installC.log" | tail -20
	ktap_fail "C: make install INSTALL_PATH=ROOT"
else
	ktap_ok "C: make install INSTALL_PATH=ROOT"
fi
check_list "$rootC" C "$testsB"
cp -a "$sel/run_kselftest.sh" "$sel/kselftest" "$rootC/"
(unset UDPGSO_BIN; export UG_ONLY="$DUMMIES"
 cd "$rootC" && ./run_kselftest.sh 2>&1) | cat >"$logC"
check_plan "$logC" C "$(echo $testsB | wc -w)"
check_all "$logC" C ""
check_tap "$logC" C ug_kst_pass.sh ok
check_tap "$logC" C ug_kst_fail.sh fail1
check_tap "$logC" C ug_kst_skip.sh skip
if grep -qxF "# # args: [] bin: $rootC/$COLL" "$logC"; then
	ktap_ok "C: the installed tools beside the tests are used"
else
	ktap_fail "C: the installed tools beside the tests are used"
fi

# ---- our runner's slow-machine timeout knobs, on the installed copy ---------
ktap_info "[${SECONDS}s] ksft_run.sh timeout knobs"
ksft=$rootC/$COLL/scripts/ksft_run.sh
write_dummies "$rootC/$COLL"
out=$(cd "$rootC/$COLL" && UG_ONLY="$DUMMIES" KSELFTEST_TIMEOUT_MULT=2 "$ksft" -t 1 ./ug_kst_hang.sh 2>&1)
if grep -q '^not ok 1 selftests: udpgso-lab: ug_kst_hang.sh # TIMEOUT 2 seconds$' <<<"$out"; then
	ktap_ok "ksft_run.sh: KSELFTEST_TIMEOUT_MULT=2 doubles the timeout"
else
	ktap_fail "ksft_run.sh: KSELFTEST_TIMEOUT_MULT=2 doubles the timeout"
	sed 's/^/# /' <<<"$out"
fi
out=$(cd "$rootC/$COLL" && UG_ONLY="$DUMMIES" kselftest_override_timeout=1 "$ksft" ./ug_kst_hang.sh 2>&1)
if grep -q '^not ok 1 selftests: udpgso-lab: ug_kst_hang.sh # TIMEOUT 1 seconds$' <<<"$out"; then
	ktap_ok "ksft_run.sh: kselftest_override_timeout=1 replaces settings' timeout"
else
	ktap_fail "ksft_run.sh: kselftest_override_timeout=1 replaces settings' timeout"
	sed 's/^/# /' <<<"$out"
fi

# ---- our runner cleans up after a test ------------------------------------------
# two more dummies: one leaves a process behind, one has a child and a
# cleanup on SIGINT (a ^C of the runner must reach it)
printf '%s\n' '#!/bin/bash' 'sleep 617 &' 'echo "ok 1 leaves a sleep running"' \
	>"$rootC/$COLL/ug_kst_leave.sh"
printf '%s\n' '#!/bin/bash' 'sleep 618 &' \
	'trap '\''echo "# SIGINT: cleaning up"; kill $!; exit 130'\'' INT' \
	'echo "# started"' 'wait' >"$rootC/$COLL/ug_kst_trap.sh"
chmod +x "$rootC/$COLL/ug_kst_leave.sh" "$rootC/$COLL/ug_kst_trap.sh"
out=$(cd "$rootC/$COLL" && "$ksft" -t 30 ./ug_kst_leave.sh 2>&1)
if grep -q '^# ug_kst_leave.sh left processes running, killed: [0-9]*:sleep' <<<"$out" &&
   grep -q '^ok 1 selftests: udpgso-lab: ug_kst_leave.sh$' <<<"$out" &&
   ! pgrep -f 'sleep 617' >/dev/null; then
	ktap_ok "ksft_run.sh: what a test leaves running is named and killed"
else
	ktap_fail "ksft_run.sh: what a test leaves running is named and killed"
	sed 's/^/# /' <<<"$out"
fi
# (setsid: a group of its own, where SIGINT is not ignored as in a `&` job)
(cd "$rootC/$COLL" && exec setsid env --default-signal=INT "$ksft" -t 60 ./ug_kst_trap.sh \
	>"$work/int.out" 2>&1) &
pid=$!
for ((i = 0; i < 50; i++)); do
	grep -q '# started' "$work/int.out" 2>/dev/null && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ] && grep -q '^# # SIGINT: cleaning up' "$work/int.out" &&
   grep -q '^not ok 1 .*ug_kst_trap.sh # interrupted by SIGINT' "$work/int.out" &&
   ! pgrep -f 'sleep 618' >/dev/null; then
	ktap_ok "ksft_run.sh: a SIGINT reaches the running test, whose cleanup runs"
else
	ktap_fail "ksft_run.sh: a SIGINT reaches the running test, whose cleanup runs" "exit $rc"
	sed 's/^/# /' "$work/int.out"
	pkill -f 'sleep 618'
fi

if [ "$_ktap_fail" -gt 0 ]; then
	for l in "$logA" "$logB" "$logC"; do
		echo "# ---- $(basename "$l") (runner lines)"
		grep -E '^(not )?ok |^1\.\.|^TAP' "$l" | sed 's/^/# /'
	done
fi
ktap_finish
