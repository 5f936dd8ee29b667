#!/bin/sh
# lock-probe-smoke.sh - keeps bench/lock-probe from rotting: runs it with
# --quick (an IDR of 2^12 ids, 20,000 pairs a thread, 50 wakes) and checks
# that it exits 0 (the churn checks every id it removes and that the IDR
# ends empty) and prints both tables with every row and a figure in every
# column; a bad option must fail.  Not a timing test: no figure is compared
# with a threshold, only with what a table can hold (a wake takes some
# time; no more calls waited over 50 us than over 1 us).
set -u
bin=${top_builddir:-.}/bench/lock-probe
out=${TMPDIR:-/tmp}/lock-probe-smoke.$$
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

"$bin" --n 2 >"$out" 2>&1 && fail "--n 2 was accepted"
"$bin" --bogus >"$out" 2>&1 && fail "--bogus was accepted"
"$bin" --quick >"$out" 2>&1 || fail "lock-probe --quick exited $?"

grep -q "^== the price of a sleep: 50 rounds" "$out" || fail "no wake table"
awk '/^FUTEX_WAKE of a sleeper/ { found = 1; if (!($(NF-3) > 0 && $(NF-3) <= $NF)) exit 1 }
     END { exit !found }' "$out" || fail "no plausible FUTEX_WAKE row"
awk '/^from the wake to the sleeper running/ { found = 1; if (!($(NF-3) > 0)) exit 1 }
     END { exit !found }' "$out" || fail "no plausible wake-to-running row"
grep -q "^membarrier(PRIVATE_EXPEDITED)" "$out" || fail "no membarrier row"
grep -q "^== two writers on one tree lock: IDR churn, N = 2^12, 20000 pairs a thread ==" \
	"$out" || fail "no churn table"
for t in 1 2; do
	awk -v t="$t" '$1 == t && NF == 8 { found = 1
		if (!($2 > 0 && $3 >= $4 && $4 >= $5 && $5 >= $6 && $8 > 0)) exit 1 }
		END { exit !found }' "$out" || fail "no plausible row for $t thread(s)"
done
echo "PASS: both tables"
