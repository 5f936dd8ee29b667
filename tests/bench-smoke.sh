#!/bin/sh
# bench-smoke.sh - keeps bench/rcuradix-bench from rotting: runs it at a
# tiny size with one repetition and checks that it exits 0, that every
# structure has rows in every key set's table, that the concurrency table,
# every named scenario's table and the targets section are printed, and
# that the CSV has the same rows.  Then the quick modes of --targets (every
# compressed-node target gets a verdict from figures measured at 2^10 and
# 2^12) and --sweep (the rows bench/plot.sh draws, and the plots themselves
# when gnuplot is installed).
# Not a timing test: no figure is compared with anything.
set -u
bin=${top_builddir:-.}/bench/rcuradix-bench
srcdir=${top_srcdir:-.}
tmp=${TMPDIR:-/tmp}/bench-smoke.$$
out=$tmp.out
csv=$tmp.csv
trap 'rm -rf "$out" "$csv" "$tmp.plots"' EXIT
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

# ---- --targets --smoke: every target measured at both sizes
"$bin" --targets --smoke --quiet --csv "$csv" >"$out" 2>&1 ||
	fail "rcuradix-bench --targets exited $?"
# The allocator's view of rcuradix's memory is jemalloc's statistics: a
# build with the libc node allocator (the sanitizer build) has none.
alloc_ratio="bytes/key (allocator)"
grep -q "^  rcuradix *glibc" "$out" && alloc_ratio="bytes/key (nodes)"
for ks in dense-rand holes clustered sparse32 sparse64; do
	for n in 1024 4096; do
		grep -q "== single: $ks, N = $n ==" "$out" || fail "--targets: no table for $ks N=$n"
		for f in "$alloc_ratio" "bytes/key (nodes)" "lookup hit ns" \
			"lookup dependent ns" "gang64 ns/item" "insert+preload ns (judyl: insert)" \
			"tagged walk 1/64 ns/item" "lookup hit ns vs lfht"; do
			grep -qF "cn-ratio,$ks,$n,$f,ratio," "$csv" ||
				fail "--targets: no ratio '$f' for $ks N=$n"
		done
	done
done
grep -q "^== scenario reader-next-to-writer-sparse64: " "$out" ||
	fail "--targets: no reader-next-to-writer-sparse64 table"
for n in 1024 4096; do
	grep -q "^tree A: sparse64, N = $n;" "$out" ||
		fail "--targets: no reader-next-to-writer-sparse64 run at N=$n"
	grep -q "^cn-ratio,sparse64,$n,reader with writer / alone,ratio," "$csv" ||
		fail "--targets: no reader-next-to-writer ratio at N=$n"
done
grep -q "^== compressed-node targets: worst ratio over N = 2^10 2^12 ==" "$out" ||
	fail "--targets: no targets table"
# One line per target, each with both sizes measured and a verdict.
families='bytes/key|lookup hit|dependent lookup|gang64|insert\+preload|tagged walk|reader with writer'
lines=$(grep -cE "^($families) .* (PASS|FAIL)\$" "$out")
summary=$(sed -n 's/^compressed-node targets: \([0-9]*\) PASS, \([0-9]*\) FAIL, \([0-9]*\) n\/a$/\1 \2 \3/p' \
	"$out")
[ -n "$summary" ] || fail "--targets: no summary line"
# Without jemalloc's statistics the four bytes/key targets (allocator
# view) have no value; every other target must have one at every size.
unmeasured=0
skip='^$'
if [ "$alloc_ratio" != "bytes/key (allocator)" ]; then
	unmeasured=4
	skip='^bytes/key '
fi
! sed -n '/^== compressed-node targets: /,/^compressed-node targets: /p' "$out" |
	grep -v '^compressed-node targets: ' | grep -vE "$skip" | grep -q 'n/a' ||
	fail "--targets: a target not measured at some size"
# shellcheck disable=SC2086 # three numbers, one per word
set -- $summary
[ "$3" = "$unmeasured" ] || fail "--targets: $3 targets not measured"
[ $(($1 + $2)) = "$lines" ] || fail "--targets: $lines target lines, summary counts $(($1 + $2))"
for t in "bytes/key clustered <= 1.0 x JudyL" "bytes/key sparse32 <= 1.0 x JudyL" \
	"bytes/key sparse64 <= 1.0 x JudyL" "bytes/key holes <= 1.5 x JudyL" \
	"lookup hit sparse64 <= 0.8 x JudyL" "dependent lookup clustered <= 1.0 x JudyL" \
	"gang64 ns/item sparse32 <= 0.5 x JudyL" "insert+preload dense-rand <= 1.5 x JudyL insert" \
	"tagged walk 1/64 clustered <= 1.0 x JudyL of tagged" \
	"lookup hit sparse64 <= 1.0 x cds_lfht" "reader with writer sparse64 >= 0.8 x alone"; do
	grep -qF "$t " "$out" || fail "--targets: no target '$t'"
	grep -qF ",$t," "$csv" || fail "--targets: no CSV row for target '$t'"
done
[ "$(grep -c '^cn-target,' "$csv")" = $((lines + unmeasured)) ] ||
	fail "--targets: CSV and table disagree"

# ---- --sweep --smoke: the rows bench/plot.sh draws, nothing else
"$bin" --sweep --smoke --quiet --csv "$csv" >"$out" 2>&1 || fail "rcuradix-bench --sweep exited $?"
for ks in dense-seq dense-rand holes clustered sparse32 sparse64; do
	for n in 1024 4096; do
		for s in rcuradix judyl lfht; do
			mem="memory (allocator)"
			[ "$s,$alloc_ratio" = "rcuradix,bytes/key (nodes)" ] && mem="memory (nodes)"
			grep -q "^single,$ks,$n,$mem,B/key,$s," "$csv" ||
				fail "--sweep: no memory row for $s, $ks N=$n"
			grep -q "^single,$ks,$n,lookup hit,ns/op,$s," "$csv" ||
				fail "--sweep: no lookup row for $s, $ks N=$n"
		done
	done
done
! grep -q '^single,[^,]*,[0-9]*,gang64,' "$csv" || fail "--sweep measured gang lookups (--ops)"
# (The plots draw the allocator's view: a build without it draws nothing.)
if command -v gnuplot >/dev/null && [ "$alloc_ratio" = "bytes/key (allocator)" ]; then
	sh "$srcdir/bench/plot.sh" "$csv" "$tmp.plots" >>"$out" 2>&1 || fail "plot.sh exited $?"
	for png in memory lookup lookup-keysets; do
		[ -s "$tmp.plots/$png.png" ] || fail "plot.sh drew no $png.png"
	done
else
	echo "note: gnuplot not found, or no allocator view: bench/plot.sh not run"
fi
echo "PASS: rcuradix-bench --smoke, --targets --smoke and --sweep --smoke printed every row"
