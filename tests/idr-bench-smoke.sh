#!/bin/sh
# idr-bench-smoke.sh - keeps bench/idr-bench from rotting: runs it with
# --quick (2^10 ids, one repetition) and checks that it exits 0 (every
# measurement checks its own results: ids handed out in order and lowest
# first where the structure claims it, every lookup finding the right
# pointer, the whole map after the churn) and that every table prints every
# row for every structure, in the output and in the CSV; a bad option must
# fail.  Not a timing test: no figure is compared with anything.
set -u
bin=${top_builddir:-.}/bench/idr-bench
tmp=${TMPDIR:-/tmp}/idr-bench-smoke.$$
out=$tmp.out
csv=$tmp.csv
trap 'rm -f "$out" "$csv"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

"$bin" --n 2 >"$out" 2>&1 && fail "--n 2 was accepted"
"$bin" --reps 0 >"$out" 2>&1 && fail "--reps 0 was accepted"
"$bin" --cpu -1 >"$out" 2>&1 && fail "--cpu -1 was accepted"
"$bin" --cpu 0x >"$out" 2>&1 && fail "--cpu 0x was accepted"
cpus=$(getconf _NPROCESSORS_ONLN)
"$bin" --cpu "$cpus" >"$out" 2>&1 && fail "--cpu $cpus was accepted (no such CPU)"
# On the last CPU: the passes pinned there, the writers beside readers on
# the next one, which wraps to CPU 0.
"$bin" --quick --quiet --csv "$csv" --cpu $((cpus - 1)) >"$out" 2>&1 ||
	fail "idr-bench --quick exited $?"

grep -q "^idr-bench: rcuradix " "$out" || fail "no header"
grep -q "^method: *1 interleaved repetitions" "$out" || fail "no method line"
grep -q "one-thread passes on CPU $((cpus - 1)); 2 threads and lookups: CPUs $((cpus - 1)) and 0" \
	"$out" || fail "the method line does not name --cpu's CPUs"
# Where every online CPU is this process's to use, every pin must take.
if [ "$(nproc)" = "$cpus" ] && grep -q "could not pin" "$out"; then
	fail "a thread was not pinned"
fi
grep -q "^== idr: churn and lookups, N = 1024 ==" "$out" || fail "no churn and lookup table"
grep -q "^== idr: remove+alloc pair by live ids (rows), N = 4096 ==" "$out" ||
	fail "no pair-cost table"
grep -q "^== ida: free+alloc, N = 1024 ==" "$out" || fail "no IDA table"

# Every row of a table, for every structure that has it, with one figure.
row() { # section title n op unit structure...
	sec=$1 title=$2 n=$3 op=$4 unit=$5
	shift 5
	grep -qF -- "$op" "$out" || fail "no row '$op' in the output"
	for s in "$@"; do
		grep -qF -- "$sec,$title,$n,$op,$unit,$s," "$csv" ||
			fail "no figure for $s in row '$op' ($title)"
	done
}
all="rcuradix IDR,mutex+freelist+lfht,mutex+bitmap+lfht,plain radix tree"
idrs="rcuradix IDR,mutex+freelist+lfht,mutex+bitmap+lfht"
t="churn and lookups"
for r in "fill (alloc 0..N-1),ns/id,$all" "memory,B/id,$all" "churn 1 thread,ns/pair,$all" \
	"churn 2 threads,ns/pair,$idrs" "lookup 1R,ns/op,$all" "lookup 1R+1W,ns/op,$all" \
	"1R+1W writer,ns/pair,$all"; do
	op=${r%%,*} rest=${r#*,}
	unit=${rest%%,*} structs=${rest#*,}
	oldifs=$IFS
	IFS=,
	# shellcheck disable=SC2086 # the structures, split on commas
	row idr "$t" 1024 "$op" "$unit" $structs
	IFS=$oldifs
done
# The IDR table has no figure for the plain tree churning with 2 threads.
! grep -qF "idr,$t,1024,churn 2 threads,ns/pair,plain radix tree," "$csv" ||
	fail "the plain tree has a 2-thread churn figure"
for l in 10 12; do
	oldifs=$IFS
	IFS=,
	# shellcheck disable=SC2086
	row idr "remove+alloc pair by live ids (rows)" 4096 "2^$l ids" ns/pair $all
	# shellcheck disable=SC2086
	row idr "remove+alloc pair by live ids (rows)" 4096 "2^$l ids (hot)" ns/pair $all
	IFS=$oldifs
done
for op in "fill (alloc 0..N-1),ns/id" "free+alloc churn,ns/pair" "memory,B/id"; do
	row ida free+alloc 1024 "${op%,*}" "${op#*,}" "rcuradix IDA" "mutex+bitmap"
done
# The idr_find target, read in turns: a verdict on the median ratio of the
# rounds, with its quartiles, alone and next to a writer.
verdict=" ratio [0-9.]* \[[0-9.]*\.\.[0-9.]*\]  (target <= 1.10)  \(met\|MISSED\)\$"
for w in "1R" "1R+1W"; do
	grep -q "^lookup $w ns: idr_find / tree lookup .*$verdict" "$out" ||
		fail "no idr_find target verdict ($w)"
done
grep -q "^both maps at once, one reader in turns: 8 rounds of 256 lookups" "$out" ||
	fail "no method line for the idr_find target"
target="^target,churn and lookups,1024,idr_find / radix_tree_lookup"
grep -q "$target,<= 1.10,\(met\|MISSED\),[0-9]" "$csv" || fail "no target row in the CSV"
grep -q "$target next to a writer,<= 1.10,\(met\|MISSED\),[0-9]" "$csv" ||
	fail "no target row next to a writer in the CSV"
# The targets against the peers: a verdict line each, and its CSV row.
peer() { # cmp limit title what
	grep -q "^$4  *[0-9.e+-]* vs [0-9.e+-]*  *= *[0-9.]*  (target $1 $2)  \(met\|MISSED\)\$" "$out" ||
		fail "no verdict for '$4'"
	grep -q "^target,$3,1024,$4,$1 $2,\(met\|MISSED\),[0-9]" "$csv" ||
		fail "no target row for '$4' in the CSV"
}
peer ">=" 3.00 "churn and lookups" "churn 2 threads ns: free list / rcuradix"
peer ">=" 2.00 "churn and lookups" "lookup 1R+1W ns: cds_lfht / idr_find"
peer "<=" 1.50 "free+alloc" "IDA free+alloc ns: rcuradix / mutex+bitmap"
grep -q "^IDA memory B/id  *[0-9.]*  *(target <= 0.20)  \(met\|MISSED\)\$" "$out" ||
	fail "no verdict for the IDA's bytes per id"
grep -q "^target,free+alloc,1024,IDA memory B/id,<= 0.20,\(met\|MISSED\),[0-9]" "$csv" ||
	fail "no target row for the IDA's bytes per id in the CSV"
grep -q "^rcuradix IDR / plain radix tree: [0-9.]* (2^10) [0-9.]* (2^12)\$" "$out" ||
	fail "no IDR / tree line"
grep -q "^2^12 ids / 2^10 ids: rcuradix IDR [0-9]" "$out" || fail "no growth line"
grep -q "^hot, 2^12 ids / 2^10 ids: rcuradix IDR [0-9]" "$out" || fail "no hot growth line"
# Every CSV line of a table has 10 fields and a finite median.
awk -F, 'NR > 1 && $1 != "target" && (NF != 10 || $7 !~ /^[0-9.e+-]+$/) { bad = 1 }
	END { exit bad }' "$csv" || fail "a malformed CSV line"
echo "PASS: idr-bench --quick printed every row and its checks passed"
