#!/bin/sh
# Runs every test binary given, then the black-box tests, and prints one
# closing line: "N passed, N failed".
#
# The tests run in three lanes at once (CARC_TEST_LANES=1 runs them one
# after the other): the test binaries and the CLI scripts; the server tests
# in tests/py; the PostgreSQL and nginx tests (tests/pg/run.sh). Most of a
# server test's time is spent waiting (for a clock, a bot's delay, a
# timeout), so on two cores the lanes take about as long as the longest of
# them. Then the browser tests, alone. Each lane's lines are printed when
# it ends, each with the seconds it took, so a slow test shows in CI's log.
lanes=${CARC_TEST_LANES:-3}
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

lane_py() {
	pass=0; fail=0; failed=""
	t0=$(date +%s)
	for s in tests/py/test_*.py; do
		[ -f "$s" ] || continue
		if [ -n "$CARC_SANITIZE" ] && [ "$(basename "$s")" = test_binding.py ]; then
			echo "test_binding.py: skipped under the sanitizers (an instrumented libcarc.so cannot be loaded into python; the normal run covers it)"
			continue
		fi
		if case "$(basename "$s")" in test_pg*.py) true ;; *) false ;; esac; then
			continue # run by tests/pg/run.sh, on its PostgreSQL
		fi
		out=$(python3 "$s" 2>&1); rc=$?; t1=$(date +%s); dt=" ($((t1 - t0)) s)"; t0=$t1
		n=$(echo "$out" | sed -n 's/^Ran \([0-9]*\) test.*/\1/p' | tail -1); n=${n:-0}
		f=$(echo "$out" | sed -n 's/^FAILED (\(.*\))$/\1/p' | tail -1 | tr ',' '\n' |
			sed -n 's/^ *\(failures\|errors\)=\([0-9]*\)$/\2/p' | awk '{f += $1} END {print f + 0}')
		if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
		pass=$((pass + n - f)); fail=$((fail + f))
		if [ $rc -ne 0 ]; then echo "$out"; failed="$failed $(basename $s)"; else echo "$(basename $s): $n passed$dt"; fi
	done
	echo "$pass $fail$failed" >"$tmp/py.sum"
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

start=$(date +%s)
if [ "$lanes" -gt 1 ]; then
	lane_bin "$@" >"$tmp/bin.out" 2>&1 &
	b=$!
	lane_py >"$tmp/py.out" 2>&1 &
	p=$!
	lane_pg >"$tmp/pg.out" 2>&1 &
	g=$!
	for w in "bin $b" "py $p" "pg $g"; do
		set -- $w
		wait "$2"
		cat "$tmp/$1.out"
	done
else
	for l in bin py pg; do
		if [ $l = bin ]; then lane_bin "$@"; else lane_$l; fi >"$tmp/$l.out" 2>&1
		cat "$tmp/$l.out"
	done
fi
echo "(the lanes took $(($(date +%s) - start)) s)"

pass=0; fail=0; failed=""
for l in bin py pg; do
	read -r p f rest <"$tmp/$l.sum" || { p=0; f=1; rest=" $l"; }
	pass=$((pass + p)); fail=$((fail + f)); failed="$failed${rest:+ $rest}"
done

# the browser tests (not under the sanitizers: the same server code ran
# its own tests there; CARC_NO_E2E=1 leaves them out on purpose)
if [ -z "$CARC_SANITIZE" ] && [ -z "$CARC_NO_E2E" ] && [ -f tests/e2e/run.sh ]; then
	t0=$(date +%s)
	out=$(CARC="$CARC" bash tests/e2e/run.sh 2>&1); rc=$?; dt=" ($(($(date +%s) - t0)) s)"
	n=$(echo "$out" | sed -n 's/^# pass \([0-9]*\)$/\1/p' | tail -1); n=${n:-0}
	f=$(echo "$out" | sed -n 's/^# fail \([0-9]*\)$/\1/p' | tail -1); f=${f:-0}
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + n)); fail=$((fail + f))
	if [ $rc -ne 0 ]; then echo "$out"; failed="$failed e2e"; else echo "e2e (browser): $n passed$dt"; fi
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
