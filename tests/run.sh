#!/bin/sh
# Runs every test binary given, then the black-box tests, and prints one
# closing line: "N passed, N failed".
#
# The tests run in lanes at once (CARC_TEST_LANES=1 runs them one after the
# other): the test binaries and the CLI scripts; the server tests in
# tests/py (in CARC_PY_LANES lanes: 1, and 2 under the sanitizers, where
# they are the longest); the PostgreSQL and nginx tests (tests/pg/run.sh).
# Most of a server test's time is spent waiting (for a clock, a bot's
# delay, a timeout), so on two cores the lanes take about as long as the
# longest of them. Then the browser tests (tests/e2e/run.sh), alone: run
# beside the lanes they made both slower (849 s together against 319 s and
# 460 s apart) and the tests of time limits fail. Each lane's lines are
# printed when it ends, each with the seconds it took, so a slow test
# shows in CI's log.
lanes=${CARC_TEST_LANES:-3}
. tests/pysuite.sh # py_suite: a server test file, a failed test run once more
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# lane NAME: writes $tmp/NAME.out (the lines) and $tmp/NAME.sum ("pass fail failed...")
lane_bin() {
	pass=0; fail=0; failed=""
	t0=$(date +%s)
	for t in "$@"; do
		out=$("$t" 2>&1); rc=$?; t1=$(date +%s); dt=" ($((t1 - t0)) s)"; t0=$t1
		p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
		f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
		p=${p:-0}; f=${f:-0}
		if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
		pass=$((pass + p)); fail=$((fail + f))
		if [ $rc -ne 0 ]; then echo "$out"; failed="$failed $(basename $t)"; else echo "$(basename $t): $p passed$dt"; fi
	done
	for s in tests/cli/*.sh; do
		[ -f "$s" ] || continue
		out=$(sh "$s" 2>&1); rc=$?; t1=$(date +%s); dt=" ($((t1 - t0)) s)"; t0=$t1
		if [ $rc -eq 0 ]; then pass=$((pass + 1)); echo "$(basename $s): passed$dt"
		else fail=$((fail + 1)); failed="$failed $(basename $s)"; echo "$out"; echo "$(basename $s): FAILED$dt"; fi
	done
	echo "$pass $fail$failed" >"$tmp/bin.sum"
}

# lane_py K N: the K-th of N shares of tests/py/test_*.py (every N-th file)
lane_py() {
	pass=0; fail=0; failed=""
	t0=$(date +%s)
	i=0
	for s in tests/py/test_*.py; do
		[ -f "$s" ] || continue
		i=$((i + 1))
		[ $(((i - 1) % $2)) -eq "$1" ] || continue
		if [ -n "$CARC_SANITIZE" ] && [ "$(basename "$s")" = test_binding.py ]; then
			echo "test_binding.py: skipped under the sanitizers (an instrumented libcarc.so cannot be loaded into python; the normal run covers it)"
			continue
		fi
		if case "$(basename "$s")" in test_pg*.py) true ;; *) false ;; esac; then
			continue # run by tests/pg/run.sh, on its PostgreSQL
		fi
		py_suite "$s"; t1=$(date +%s); dt=" ($((t1 - t0)) s)"; t0=$t1
		pass=$((pass + py_n - py_f)); fail=$((fail + py_f))
		if [ $py_rc -ne 0 ]; then echo "$py_out"; failed="$failed $(basename $s)"; else
			case $py_out in FLAKY:*) echo "$py_out" ;; esac
			echo "$(basename $s): $py_n passed$dt"
		fi
	done
	echo "$pass $fail$failed" >"$tmp/py$1.sum"
}

# the server tests against PostgreSQL and the tests of several processes
# behind nginx (tests/pg/run.sh installs PostgreSQL and nginx when missing;
# CARC_NO_PG=1 leaves them out on purpose)
lane_pg() {
	pass=0; fail=0; failed=""
	if [ -z "$CARC_NO_PG" ] && [ -f tests/pg/run.sh ]; then
		t0=$(date +%s)
		out=$(CARC="$CARC" sh tests/pg/run.sh 2>&1); rc=$?; dt=" ($(($(date +%s) - t0)) s)"
		n=$(echo "$out" | sed -n 's/^pg: \([0-9]*\) passed.*/\1/p' | tail -1); n=${n:-0}
		f=$(echo "$out" | sed -n 's/^pg: [0-9]* passed, \([0-9]*\) failed/\1/p' | tail -1); f=${f:-0}
		if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
		pass=$n; fail=$f
		if [ $rc -ne 0 ]; then echo "$out"; failed=" pg"; else echo "pg (PostgreSQL, nginx): $n passed$dt"; fi
	fi
	echo "$pass $fail$failed" >"$tmp/pg.sum"
}

# the browser tests (not under the sanitizers: the same server code ran
# its own tests there; CARC_NO_E2E=1 leaves them out on purpose)
lane_e2e() {
	pass=0; fail=0; failed=""
	if [ -z "$CARC_SANITIZE" ] && [ -z "$CARC_NO_E2E" ] && [ -f tests/e2e/run.sh ]; then
		t0=$(date +%s)
		out=$(CARC="$CARC" bash tests/e2e/run.sh 2>&1); rc=$?; dt=" ($(($(date +%s) - t0)) s)"
		n=$(echo "$out" | sed -n 's/^# pass \([0-9]*\)$/\1/p' | tail -1); n=${n:-0}
		f=$(echo "$out" | sed -n 's/^# fail \([0-9]*\)$/\1/p' | tail -1); f=${f:-0}
		if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
		pass=$n; fail=$f
		if [ $rc -ne 0 ]; then echo "$out"; failed=" e2e"; else echo "e2e (browser): $n passed$dt"; fi
	fi
	echo "$pass $fail$failed" >"$tmp/e2e.sum"
}

pylanes=${CARC_PY_LANES:-1}
[ -n "$CARC_SANITIZE" ] && pylanes=${CARC_PY_LANES:-2}
names="bin"
k=0
while [ $k -lt "$pylanes" ]; do names="$names py$k"; k=$((k + 1)); done
names="$names pg"
start=$(date +%s)
run_lane() {
	case $1 in
	bin) shift; lane_bin "$@" ;;
	py*) lane_py "${1#py}" "$pylanes" ;;
	*) lane_$1 ;;
	esac
}
if [ "$lanes" -gt 1 ]; then
	pids=""
	for l in $names; do
		run_lane "$l" "$@" >"$tmp/$l.out" 2>&1 &
		pids="$pids $l:$!"
	done
	for w in $pids; do
		wait "${w#*:}"
		cat "$tmp/${w%%:*}.out"
	done
else
	for l in $names; do
		(run_lane "$l" "$@") >"$tmp/$l.out" 2>&1
		cat "$tmp/$l.out"
	done
fi
echo "(the lanes took $(($(date +%s) - start)) s)"

pass=0; fail=0; failed=""
for l in $names; do
	read -r p f rest <"$tmp/$l.sum" || { p=0; f=1; rest=" $l"; }
	pass=$((pass + p)); fail=$((fail + f)); failed="$failed${rest:+ $rest}"
done

(lane_e2e) >"$tmp/e2e.out" 2>&1 # a subshell: the lane's counts are its own
cat "$tmp/e2e.out"
read -r p f rest <"$tmp/e2e.sum" || { p=0; f=1; rest=" e2e"; }
pass=$((pass + p)); fail=$((fail + f)); failed="$failed${rest:+ $rest}"

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
