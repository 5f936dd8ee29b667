#!/bin/sh
# walk-probe-smoke.sh - keeps bench/walk-probe from rotting: it must run,
# and its walks must visit every key of the set (plain) and every tagged
# key (1 in 8, 1 in 64), which the probe checks itself, on key sets whose
# walks go through full and compact nodes; a bad command line must fail.
set -u
probe=${top_builddir:-.}/bench/walk-probe
out=${TMPDIR:-/tmp}/walk-probe-smoke.$$
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

"$probe" holes 10 2 >"$out" 2>&1 && fail "a command line without the walk was accepted"
"$probe" holes 10 tag2 1 >"$out" 2>&1 && fail "a walk of tag 2 was accepted"
for set in dense-rand holes clustered sparse32 sparse64; do
	for how in plain tag0 tag1; do
		"$probe" $set 10 $how 2 >"$out" 2>&1 || fail "$set $how: the probe exited $?"
		grep -q "^$set:10 $how walks 2 items [0-9]* ns/item" "$out" || fail "$set $how: no result"
	done
done
"$probe" dense-rand 10 plain 1 >"$out" 2>&1 && grep -q ' items 1024 ' "$out" ||
	fail "a plain walk of 2^10 keys should count 1024 items"
echo "PASS"
