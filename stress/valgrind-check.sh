#!/bin/sh
# valgrind-check.sh TEST... - run Criterion test programs under valgrind
# memcheck and fail on any error or leak in any process.
#
# Criterion runs every test in a fork+exec'd child of the runner, and a
# child's exit status does not reach the runner's: valgrind's
# --error-exitcode would let a leaking test pass.  So every exec'd process
# (--trace-children=yes) writes its own log, and this script requires each
# log to end with "ERROR SUMMARY: 0 errors" (leaks count as errors with
# --leak-check=full), at least one traced process per test, and the
# runner's own exit status 0 (every test passed).  Processes a test forks
# without exec (tests/basic.c's fork test) are left silent
# (--child-silent-after-fork): their own exit statuses are the test's
# verdict, and their unfreed copy of the parent's heap is not a leak.  The
# only suppression is liburcu 0.13's call_rcu worker (valgrind.supp).
# --fair-sched=yes: valgrind runs one thread at a time, and its default
# lock lets a thread that never blocks take it back at once; tests/basic.c's
# fork test then never forked again while its other thread allocated, and
# timed out (slab node builds, where that test exists).
set -u
# glibc caches the stacks of joined threads, DTV included, and hands them
# to the next thread: the call_rcu worker then reuses a test thread's stack
# and its never-freed DTV is reported under that test thread's
# pthread_create.  Without the cache, the worker's DTV carries the worker's
# own creation stack and the one narrow suppression matches it.
GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0
export GLIBC_TUNABLES
srcdir=${top_srcdir:-$(dirname "$0")/..}
supp=$srcdir/stress/valgrind.supp
status=0
for test in "$@"; do
	logs=$(mktemp -d "${TMPDIR:-/tmp}/rcuradix-vg.XXXXXX")
	# "suite: N tests" lines of --list, summed.
	ntests=$("$test" --list 2>/dev/null |
		sed -n 's/^[A-Za-z_][A-Za-z0-9_]*: \([0-9][0-9]*\) tests$/\1/p' |
		awk '{ n += $1 } END { print n + 0 }')
	valgrind --fair-sched=yes --trace-children=yes --child-silent-after-fork=yes --leak-check=full \
		--errors-for-leak-kinds=definite,possible --suppressions="$supp" \
		--log-file="$logs/%p.log" "$test" -j1 >"$logs/runner.out" 2>&1
	rc=$?
	nproc=$(ls "$logs"/*.log | wc -l)
	bad=$(grep -L 'ERROR SUMMARY: 0 errors' "$logs"/*.log)
	if [ "$rc" -ne 0 ] || [ -n "$bad" ] || [ "$nproc" -le "$ntests" ]; then
		echo "FAIL: $test under valgrind: exit $rc, $nproc processes for $ntests tests"
		cat "$logs/runner.out"
		for log in $bad; do echo "--- $log"; cat "$log"; done
		status=1
	else
		echo "PASS: $test under valgrind: $ntests tests, $nproc processes, 0 errors, 0 leaks"
		rm -rf "$logs"
	fi
done
exit $status
