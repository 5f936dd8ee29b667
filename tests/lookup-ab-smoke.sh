#!/bin/sh
# lookup-ab-smoke.sh - keeps bench/lookup-ab from rotting: it must load the
# build's shared library twice (in two namespaces), build both trees, look
# every key up (it fails on a miss) and print both operations' rows; with
# --insert, build both trees round after round (it fails on a failed
# insert) and print the insert row.  A bad command line, an unknown key
# set and a missing library must fail.
# Skipped where the build has no shared library (--disable-shared).
#
# Regression: the first library's call_rcu worker (a thread of its own
# namespace's libc) had the dynamic linker allocate liburcu's TLS with the
# program's malloc while the main thread's second dlmopen() allocated with
# it too; the program's libc, believing itself single-threaded, took no
# lock and its heap broke ("malloc assertion failure in sysmalloc") in about
# one run in thirty.  The shortest run is repeated 60 times for it.
set -u
probe=${top_builddir:-.}/bench/lookup-ab
lib=${top_builddir:-.}/lib/.libs/librcuradix.so.1
out=${TMPDIR:-/tmp}/lookup-ab-smoke.$$
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

[ -f "$lib" ] || { echo "SKIP: no shared library ($lib)"; exit 77; }
"$probe" "$lib" "$lib" holes >"$out" 2>&1 && fail "a command line without LOG2 was accepted"
"$probe" "$lib" "$lib" no-such-set 10 >"$out" 2>&1 && fail "an unknown key set was accepted"
"$probe" "$lib" /no/such/lib.so holes 10 20 >"$out" 2>&1 && fail "a missing library was accepted"
i=0
while [ $i -lt 60 ]; do
	"$probe" "$lib" "$lib" holes 10 10 >"$out" 2>&1 || fail "run $i of 60: the probe exited $?"
	i=$((i + 1))
done
for set in holes sparse64; do
	"$probe" "$lib" "$lib" $set 10 20 >"$out" 2>&1 || fail "$set: the probe exited $?"
	for op in dependent hit; do
		grep -Eq "^  $op +A +[0-9.]+ +B +[0-9.]+ +B/A [0-9.]+ [0-9.]+ [0-9.]+$" "$out" ||
			fail "$set: no $op row"
	done
	"$probe" --insert "$lib" "$lib" $set 10 10 >"$out" 2>&1 || fail "$set: --insert exited $?"
	grep -Eq "^  insert +A +[0-9.]+ +B +[0-9.]+ +B/A [0-9.]+ [0-9.]+ [0-9.]+$" "$out" ||
		fail "$set: no insert row"
	grep -q "hit\|dependent" "$out" && fail "$set: --insert measured lookups"
done
echo "PASS"
