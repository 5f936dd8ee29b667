#!/bin/sh
# node-alloc-smoke.sh - keeps bench/node-alloc-bench from rotting: one quick
# repetition of every backend's copy must exit 0 and print every figure
# (raw allocators, the library's path per size class, mixed streams,
# inserts with and without preload, the memory of every tree, whose node
# census must not depend on the backend), and --from must summarize the
# raw lines as the run did.  Not a timing test.
set -u
bench=${top_builddir:-.}/bench/node-alloc-bench
out=${TMPDIR:-/tmp}/node-alloc-smoke.$$
trap 'rm -f "$out" "$out.raw" "$out.from"' EXIT
"$bench" --reps 1 --quick --raw-out "$out.raw" >"$out" 2>&1 || { echo "FAIL: exit $?"; cat "$out"; exit 1; }
backends=$(sed -n 's/^backends="\(.*\)"$/\1/p' "$bench")
[ -n "$backends" ] || { echo "FAIL: no backend list in $bench"; exit 1; }
for m in je-auto-1 je-arena-1 je-arena-nocache-1 glibc-1; do
	grep -q " $m [0-9]" "$out.raw" || { echo "FAIL: no $m figure"; cat "$out"; exit 1; }
done
for b in $backends; do
	for m in class64-1 class64-64 class128-1 class320-1 class576-1 class576-64 class1152-1 \
		class1152-64 reserve-1 rcu-free-1 mix-dense-rand mix-holes mix-clustered \
		mix-sparse32 mix-sparse64 mix-all insert-dense insert-dense+preload \
		insert-sparse insert-sparse+preload; do
		grep -q "^$b $m [0-9]" "$out.raw" || { echo "FAIL: $b: no $m figure"; cat "$out"; exit 1; }
	done
	mem="nodes node-bytes backing rss layout-tight layout-exact layout-narrow layout-narrow-h16-c16"
	[ "$b" = libc ] || mem="$mem allocated active resident"
	for t in dense-rand:10 dense-rand:12 holes:10 holes:12 clustered:10 clustered:12 \
		sparse32:10 sparse32:12 sparse64:10 sparse64:12; do
		for m in $mem; do
			grep -q "^$b tree $t $m -\{0,1\}[0-9]" "$out.raw" ||
				{ echo "FAIL: $b: no $m of tree $t"; cat "$out"; exit 1; }
		done
	done
	# 2^10 dense keys: 16 leaves of 64 keys and the node above them, each
	# a full node.
	grep -q "^$b tree dense-rand:10 full 17\$" "$out.raw" ||
		{ echo "FAIL: $b: dense-rand:10 should have 17 full nodes"; cat "$out"; exit 1; }
	# Full nodes only: every layout is the tree's own bytes.  Compact
	# nodes: the tree keeps room for appends, and each layout after the
	# first is smaller than the one before it.
	awk -v b="$b" '$1 == b && $2 == "tree" && $3 == "dense-rand:10" { v[$4] = $5 }
		END { n = split("layout-tight layout-exact layout-narrow layout-narrow-h16-c16", l, " ");
		      for (i = 1; i <= n; i++) if (v[l[i]] != v["node-bytes"]) exit 1 }' "$out.raw" ||
		{ echo "FAIL: $b: a layout of dense-rand:10 differs from its bytes"; cat "$out"; exit 1; }
	awk -v b="$b" '$1 == b && $2 == "tree" && $3 == "sparse64:12" { v[$4] = $5 }
		END { exit !(v["layout-tight"] <= v["node-bytes"] && v["layout-exact"] < v["layout-tight"] &&
			     v["layout-narrow"] < v["layout-exact"] &&
			     v["layout-narrow-h16-c16"] < v["layout-narrow"]) }' "$out.raw" ||
		{ echo "FAIL: $b: the layouts of sparse64:12 are out of order"; cat "$out"; exit 1; }
done
grep -q WARNING "$out" && { echo "FAIL: warning in the summary"; cat "$out"; exit 1; }
grep -q '^  sparse64:12 ' "$out" || { echo "FAIL: no memory rows in the summary"; cat "$out"; exit 1; }
grep -q '^  ratio to ' "$out" || { echo "FAIL: no ratio table in the summary"; cat "$out"; exit 1; }
# The summary of the raw lines alone is the run's summary.
"$bench" --from "$out.raw" >"$out.from" 2>&1 || { echo "FAIL: --from: exit $?"; cat "$out.from"; exit 1; }
cmp -s "$out" "$out.from" || { echo "FAIL: --from summarizes differently"; diff "$out" "$out.from"; exit 1; }
echo "PASS: node-alloc-bench printed every figure for: $backends"
