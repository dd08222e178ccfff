#!/bin/sh
# Runs every test binary given, then the black-box tests, and prints one
# closing line: "N passed, N failed".
pass=0; fail=0; failed=""
# each line ends with the seconds it took, so a slow test shows in CI's log
t0=$(date +%s)
took() { t1=$(date +%s); dt=" ($((t1 - t0)) s)"; t0=$t1; }
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?; took
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	p=${p:-0}; f=${f:-0}
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f))
	if [ $rc -ne 0 ]; then echo "$out"; failed="$failed $(basename $t)"; else echo "$(basename $t): $p passed$dt"; fi
done
for s in tests/cli/*.sh; do
	[ -f "$s" ] || continue
	out=$(sh "$s" 2>&1); rc=$?; took
	if [ $rc -eq 0 ]; then pass=$((pass + 1)); echo "$(basename $s): passed$dt"
	else fail=$((fail + 1)); failed="$failed $(basename $s)"; echo "$out"; echo "$(basename $s): FAILED$dt"; fi
done
for s in tests/py/test_*.py; do
	[ -f "$s" ] || continue
	if [ -n "$CARC_SANITIZE" ] && [ "$(basename "$s")" = test_binding.py ]; then
		echo "test_binding.py: skipped under the sanitizers (an instrumented libcarc.so cannot be loaded into python; the normal run covers it)"
		continue
	fi
	if case "$(basename "$s")" in test_pg*.py) true ;; *) false ;; esac; then
		continue # run by tests/pg/run.sh below, on its PostgreSQL
	fi
	out=$(python3 "$s" 2>&1); rc=$?; took
	n=$(echo "$out" | sed -n 's/^Ran \([0-9]*\) test.*/\1/p' | tail -1); n=${n:-0}
	f=$(echo "$out" | sed -n 's/^FAILED (\(.*\))$/\1/p' | tail -1 | tr ',' '\n' |
		sed -n 's/^ *\(failures\|errors\)=\([0-9]*\)$/\2/p' | awk '{f += $1} END {print f + 0}')
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + n - f)); fail=$((fail + f))
	if [ $rc -ne 0 ]; then echo "$out"; failed="$failed $(basename $s)"; else echo "$(basename $s): $n passed$dt"; fi
done
# the server tests against PostgreSQL and the tests of several processes
# behind nginx (tests/pg/run.sh installs PostgreSQL and nginx when missing;
# CARC_NO_PG=1 leaves them out on purpose)
if [ -z "$CARC_NO_PG" ] && [ -f tests/pg/run.sh ]; then
	out=$(CARC="$CARC" sh tests/pg/run.sh 2>&1); rc=$?; took
	n=$(echo "$out" | sed -n 's/^pg: \([0-9]*\) passed.*/\1/p' | tail -1); n=${n:-0}
	f=$(echo "$out" | sed -n 's/^pg: [0-9]* passed, \([0-9]*\) failed/\1/p' | tail -1); f=${f:-0}
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + n)); fail=$((fail + f))
	if [ $rc -ne 0 ]; then echo "$out"; failed="$failed pg"; else echo "pg (PostgreSQL, nginx): $n passed$dt"; fi
fi
# the browser tests (not under the sanitizers: the same server code ran
# its own tests there; CARC_NO_E2E=1 leaves them out on purpose)
if [ -z "$CARC_SANITIZE" ] && [ -z "$CARC_NO_E2E" ] && [ -f tests/e2e/run.sh ]; then
	out=$(CARC="$CARC" bash tests/e2e/run.sh 2>&1); rc=$?; took
	n=$(echo "$out" | sed -n 's/^# pass \([0-9]*\)$/\1/p' | tail -1); n=${n:-0}
	f=$(echo "$out" | sed -n 's/^# fail \([0-9]*\)$/\1/p' | tail -1); f=${f:-0}
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + n)); fail=$((fail + f))
	if [ $rc -ne 0 ]; then echo "$out"; failed="$failed e2e"; else echo "e2e (browser): $n passed$dt"; fi
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
