#!/bin/sh
# hole-bench-smoke.sh - keeps bench/hole-bench from rotting: a tiny run must
# print its table with a number in every cell (the program itself fails if
# a scan does not return the hole its keys put there), and a bad command
# line must fail.
set -u
bench=${top_builddir:-.}/bench/hole-bench
out=${TMPDIR:-/tmp}/hole-bench-smoke.$$
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

"$bench" --n 3 >"$out" 2>&1 && fail "--n 3 was accepted"
"$bench" --what >"$out" 2>&1 && fail "an unknown option was accepted"
"$bench" --quick >"$out" 2>&1 || fail "the run exited $?"
for row in "0..N-1, plain, in order" "0..N-1, plain, random order" "0..N-1, IDR" \
	   "runs of 64 (clustered)"; do
	grep -q "^$row  *[0-9][0-9.]*  *[0-9][0-9.]*  *[0-9][0-9.]* [0-9.]*x" "$out" ||
		fail "no figures for \"$row\""
done
echo "PASS"
