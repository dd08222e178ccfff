# tests/pysuite.sh - sourced by tests/run.sh and tests/pg/run.sh: runs one
# server test file (python3 unittest) and counts it.
#
#   py_suite FILE     sets py_out (what it printed), py_n (tests run),
#                     py_f (tests failed), py_rc (0 when it passed)
#
# A test that fails is run once more, alone (python3 FILE Class.test).
# When it passes then, it counts as passed and py_out starts with a
# "FLAKY:" line naming it, followed by the first run's output, so the log
# keeps what went wrong: most of these tests wait for clocks, bots and
# other processes, and on two cores shared by four lanes a rare timing
# fault is not a failure of the code. A test that fails twice counts as
# failed. CARC_NO_RETRY=1 turns the second run off.

# the failures and errors of unittest's closing line "FAILED (failures=1, errors=2)"
py_failed_count() {
	echo "$1" | sed -n 's/^FAILED (\(.*\))$/\1/p' | tail -1 | tr ',' '\n' |
		sed -n 's/^ *\(failures\|errors\)=\([0-9]*\)$/\2/p' | awk '{f += $1} END {print f + 0}'
}

py_suite() {
	py_rc=0
	py_out=$(python3 "$1" 2>&1) || py_rc=$?
	py_n=$(echo "$py_out" | sed -n 's/^Ran \([0-9]*\) test.*/\1/p' | tail -1); py_n=${py_n:-0}
	py_f=$(py_failed_count "$py_out")
	if [ $py_rc -ne 0 ] && [ "$py_f" = 0 ]; then py_f=1; fi
	[ $py_rc -eq 0 ] && return 0
	[ -n "${CARC_NO_RETRY:-}" ] && return 0
	# the failed tests by name: "FAIL: test_x (__main__.Class.test_x)"
	names=$(echo "$py_out" | sed -n 's/^\(FAIL\|ERROR\): \(test[A-Za-z0-9_]*\) (__main__\.\([A-Za-z0-9_.]*\))$/\3/p' | sort -u)
	count=$(echo "$names" | grep -c . || true)
	# a failure outside a test (a class's setup, an import) or a count
	# that does not match: no second run
	[ -n "$names" ] && [ "$count" = "$py_f" ] || return 0
	# shellcheck disable=SC2086
	again=$(python3 "$1" $names 2>&1) || return 0
	py_out="FLAKY: $(basename "$1"): $(echo $names | tr ' ' ',') failed, then passed when run again alone; the first run:
$py_out"
	py_f=0
	py_rc=0
}
