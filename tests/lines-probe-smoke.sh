#!/bin/sh
# lines-probe-smoke.sh - keeps bench/lines-probe and bench/lines-probe.sh
# from rotting: the probe must run natively, and (valgrind installed) the
# script must print a row per key set.  A dense lookup reads the root's
# line, the line of the table of level bounds, and one slot line per level:
# 2^10 dense keys are two levels of full nodes, so it must count exactly 4
# lines; a clustered lookup reads more.
set -u
probe=${top_builddir:-.}/bench/lines-probe
script=${top_srcdir:-.}/bench/lines-probe.sh
out=${TMPDIR:-/tmp}/lines-probe-smoke.$$
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

"$probe" clustered 10 100 >"$out" 2>&1 || fail "the probe exited $?"
grep -qx 'clustered:10 lookups 100' "$out" || fail "no lookup count"
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
	echo "SKIP: the table needs valgrind"
	exit 77
fi
LINES_PROBE=$probe LINES_LOOKUPS=100 sh "$script" dense-rand:10 clustered:10 >"$out" 2>&1 ||
	fail "lines-probe.sh exited $?"
awk '$1 == "dense-rand:10" { found = 1; if ($2 != "4.00") exit 1 } END { exit !found }' "$out" ||
	fail "a dense lookup should read 4 lines"
awk '$1 == "clustered:10" { found = 1; if (!($2 > 4 && $3 > 0 && $5 > 0 && $6 > 0)) exit 1 }
     END { exit !found }' "$out" || fail "no plausible clustered row"
echo "PASS: $(grep -c ':10 ' "$out") rows"
