#!/bin/sh
# node-alloc-smoke.sh - keeps bench/node-alloc-bench from rotting: one quick
# repetition of every backend's copy must exit 0 and print every figure
# (raw allocators, the library's path, inserts with and without preload).
# Not a timing test.
set -u
bench=${top_builddir:-.}/bench/node-alloc-bench
out=${TMPDIR:-/tmp}/node-alloc-smoke.$$
trap 'rm -f "$out" "$out.raw"' EXIT
"$bench" --reps 1 --quick --raw-out "$out.raw" >"$out" 2>&1 || { echo "FAIL: exit $?"; cat "$out"; exit 1; }
backends=$(sed -n 's/^backends="\(.*\)"$/\1/p' "$bench")
[ -n "$backends" ] || { echo "FAIL: no backend list in $bench"; exit 1; }
for m in je-auto-1 je-arena-1 je-arena-nocache-1 glibc-1; do
	grep -q " $m [0-9]" "$out.raw" || { echo "FAIL: no $m figure"; cat "$out"; exit 1; }
done
for b in $backends; do
	for m in backend-1 backend-64 reserve-1 rcu-free-1 insert-dense insert-dense+preload \
		insert-sparse insert-sparse+preload; do
		grep -q "^$b $m [0-9]" "$out.raw" || { echo "FAIL: $b: no $m figure"; cat "$out"; exit 1; }
	done
done
echo "PASS: node-alloc-bench printed every figure for: $backends"
