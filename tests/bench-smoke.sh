#!/bin/sh
# bench-smoke.sh - keeps bench/rcuradix-bench from rotting: runs it at a
# tiny size with one repetition and checks that it exits 0, that every
# structure has rows in every key set's table, that the concurrency table,
# every named scenario's table and the targets section are printed, and
# that the CSV has the same rows.
# Not a timing test: no figure is compared with anything.
set -u
bin=${top_builddir:-.}/bench/rcuradix-bench
out=${TMPDIR:-/tmp}/bench-smoke.$$.out
csv=${TMPDIR:-/tmp}/bench-smoke.$$.csv
trap 'rm -f "$out" "$csv"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

"$bin" --smoke --scenario all --quiet --csv "$csv" >"$out" 2>&1 ||
	fail "rcuradix-bench exited $?"

for ks in dense-seq dense-rand holes clustered sparse32 sparse64; do
	grep -q "== single: $ks, N = 1024 ==" "$out" || fail "no table for $ks"
done
grep -q "== concurrent: dense-rand, N = 1024 ==" "$out" || fail "no concurrency table"
grep -q "^targets met: " "$out" || fail "no targets section"
for s in rcuradix judyl judyl+rwlock lfht flat; do
	# Every structure measured lookups in the single-thread tables...
	n=$(grep -c "^single,[^,]*,1024,lookup hit,ns/op,$s," "$csv")
	want=6
	[ "$s" = flat ] && want=3   # dense key sets only
	[ "$n" = "$want" ] || fail "$s: $n lookup rows in the CSV, expected $want"
	# ...and in the concurrency table.
	grep -q "^concurrent,dense-rand,1024,1R lookup,ns/op,$s," "$csv" ||
		fail "$s: no concurrency row"
done
# Rows only some structures have.
grep -q "^single,dense-rand,1024,insert+preload,ns/op,rcuradix," "$csv" || fail "no preload row"
grep -q "^single,dense-rand,1024,gang64,ns/item,judyl," "$csv" || fail "no judyl gang row"
grep -q "^concurrent,dense-rand,1024,1R+1W writer,M/s,lfht," "$csv" || fail "no lfht writer row"
# Every named scenario: its table, and its rows in the CSV.
scenarios=$("$bin" --help | sed -n '/--scenario S/,/--reps defaults/p' |
	grep -o '[a-z][a-z0-9-]*-next-to-[a-z0-9-]*')
[ -n "$scenarios" ] || fail "--help lists no scenario"
for sc in $scenarios; do
	grep -q "^== scenario $sc: " "$out" || fail "no table for scenario $sc"
	grep -q "^scenario,$sc,1024,alone,M/s,rcuradix," "$csv" || fail "$sc: no 'alone' row"
	grep -q "^scenario,$sc,1024,with other,M/s,rcuradix," "$csv" ||
		fail "$sc: no 'with other' row"
done
grep -q "^target: reader with / alone >= 0.90: " "$out" || fail "no reader-next-to-writer verdict"
echo "PASS: rcuradix-bench --smoke printed every structure's and every scenario's rows"
