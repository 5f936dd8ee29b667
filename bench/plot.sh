#!/bin/sh
# plot.sh - turn rcuradix-bench's CSV into PNG plots (gnuplot):
#   lookup.png   ns per lookup vs N, per structure (dense-rand: random-order
#                hits = throughput, dependent hits = latency)
#   memory.png   bytes per key vs N, per structure, one panel per key set
#                (a key set run at one size only shows points, no line)
#   lookup-keysets.png  ns per lookup hit (random order) vs N, per
#                structure, one panel per key set
#   gang.png     ns per item of gang lookups and walks (dense-rand, N = 2^20
#                or the largest N in the CSV)
#   scaling.png  reader throughput: 1 reader, 2 readers, 1 reader + 1 writer
#                (dense-rand, N = 2^20 or the largest concurrency run)
#
# A plot whose rows the CSV lacks is not drawn (rcuradix-bench --sweep
# measures memory and lookups only: `make bench-plot`).
#
#   bench/plot.sh results.csv OUTDIR
set -eu
[ $# -eq 2 ] || { echo "usage: $0 results.csv OUTDIR" >&2; exit 2; }
csv=$1
out=$2
command -v gnuplot >/dev/null || { echo "$0: gnuplot not found (Debian: gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
structs="rcuradix judyl judyl+rwlock lfht flat"

# $1 section, $2 keyset, $3 op, $4 unit, $5 structure -> "n median" lines, by n
series() {
	awk -F, -v s="$1" -v k="$2" -v o="$3" -v u="$4" -v st="$5" \
		'$1 == s && $2 == k && $4 == o && $5 == u && $6 == st { print $3, $7 }' "$csv" |
		sort -n
}

# The N to use for bar charts: 2^20 if present in @section, else the largest.
pick_n() {
	awk -F, -v s="$1" '$1 == s && $2 == "dense-rand" { print $3 }' "$csv" | sort -n | uniq |
		awk '{ n = $1; if (n == 1048576) f = 1 } END { print f ? 1048576 : n }'
}

# One gnuplot "plot" clause per structure with data for (section keyset op unit).
lines_clause() {
	clause=
	for st in $structs; do
		f="$tmp/$(echo "$1-$2-$3-$4-$st" | tr ' /+' '___')"
		series "$1" "$2" "$3" "$4" "$st" >"$f"
		[ -s "$f" ] || continue
		clause="$clause${clause:+, }'$f' using 1:2 with linespoints lw 2 title '$st'"
	done
	echo "$clause"
}

common='set terminal pngcairo size 1100,500 font ",10"
set logscale x 2
set format x "2^{%L}"
set grid
set key top left'

# ---- lookup.png
hit=$(lines_clause single dense-rand "lookup hit" ns/op)
dep=$(lines_clause single dense-rand "lookup dependent" ns/op)
if [ -n "$hit" ]; then
	gnuplot <<EOF
$common
set output '$out/lookup.png'
set multiplot layout 1,2 title "dense keys 0..N-1 (inserted in random order): ns per lookup (median)"
set xlabel "N keys"
set ylabel "ns / lookup"
set logscale y
set title "random-order hits (throughput)"
plot $hit
set title "dependent hits (latency: next key from the item found)"
plot $dep
unset multiplot
EOF
fi

# ---- memory.png
gp="$tmp/memory.gp"
{
	echo "$common"
	echo "set terminal pngcairo size 1400,800 font \",10\""
	echo "set output '$out/memory.png'"
	echo "set multiplot layout 2,3 title \"bytes per key (allocator's view: jemalloc or glibc stats delta), median\""
	echo "set logscale y"
	echo "set key bottom left opaque box"
	echo "set xlabel 'N keys'"
	echo "set ylabel 'bytes / key'"
	for ks in dense-rand dense-seq holes clustered sparse32 sparse64; do
		c=$(lines_clause single "$ks" "memory (allocator)" B/key)
		[ -n "$c" ] || continue
		echo "set title '$ks'"
		echo "plot $c"
	done
	echo "unset multiplot"
} >"$gp"
grep -q '^plot' "$gp" && gnuplot "$gp"

# ---- lookup-keysets.png
gp="$tmp/lookup-keysets.gp"
{
	echo "$common"
	echo "set terminal pngcairo size 1400,800 font \",10\""
	echo "set output '$out/lookup-keysets.png'"
	echo "set multiplot layout 2,3 title \"ns per lookup of a present key, random order (median)\""
	echo "set logscale y"
	echo "set key top left opaque box"
	echo "set xlabel 'N keys'"
	echo "set ylabel 'ns / lookup'"
	for ks in dense-rand dense-seq holes clustered sparse32 sparse64; do
		c=$(lines_clause single "$ks" "lookup hit" ns/op)
		[ -n "$c" ] || continue
		echo "set title '$ks'"
		echo "plot $c"
	done
	echo "unset multiplot"
} >"$gp"
grep -q '^plot' "$gp" && gnuplot "$gp"

# ---- gang.png: grouped bars, operations x structures
n=$(pick_n single)
if [ -n "$n" ] && grep -q '^single,dense-rand,[0-9]*,gang64,' "$csv"; then
	dat="$tmp/gang.dat"
	awk -F, -v n="$n" -v structs="$structs" '
		BEGIN { ns = split(structs, S, " ");
			nops = split("gang16|gang64|walk|tagged gang16 1/8|tagged gang16 1/64|tagged walk 1/8|tagged walk 1/64", O, "|") }
		$1 == "single" && $2 == "dense-rand" && $3 == n { v[$4, $6] = $7 }
		END {
			printf "op"; for (s = 1; s <= ns; s++) printf "\t%s", S[s]; print ""
			for (o = 1; o <= nops; o++) {
				printf "\"%s\"", O[o]
				for (s = 1; s <= ns; s++) printf "\t%s", ((O[o], S[s]) in v) ? v[O[o], S[s]] : "NaN"
				print ""
			}
		}' "$csv" >"$dat"
	gnuplot <<EOF
set terminal pngcairo size 1100,500 font ",10"
set output '$out/gang.png'
set title "gang lookups and walks, dense keys, N = $n: ns per item returned (median; log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set grid ytics
set ylabel "ns / item"
set key outside right top
set xtics rotate by -20
plot '$dat' using 2:xtic(1) title columnheader(2), '' using 3 title columnheader(3), \
	'' using 4 title columnheader(4), '' using 5 title columnheader(5), '' using 6 title columnheader(6)
EOF
fi

# ---- scaling.png: reader M/s per structure and scenario
n=$(pick_n concurrent)
if [ -n "$n" ]; then
	dat="$tmp/scaling.dat"
	awk -F, -v n="$n" -v structs="$structs" '
		BEGIN { ns = split(structs, S, " ") }
		$1 == "concurrent" && $2 == "dense-rand" && $3 == n {
			if ($4 == "1R lookup" && $5 == "ns/op") one[$6] = 1e3 / $7
			if ($4 == "2R aggregate") two[$6] = $7
			if ($4 == "1R+1W reader" && $5 == "M/s") rw[$6] = $7
		}
		END {
			print "structure\t\"1 reader\"\t\"2 readers (aggregate)\"\t\"1 reader + 1 writer\""
			for (s = 1; s <= ns; s++) {
				st = S[s]
				printf "%s\t%s\t%s\t%s\n", st, (st in one) ? one[st] : "NaN",
					(st in two) ? two[st] : "NaN", (st in rw) ? rw[st] : "NaN"
			}
		}' "$csv" >"$dat"
	gnuplot <<EOF
set terminal pngcairo size 1100,500 font ",10"
set output '$out/scaling.png'
set title "readers on 2 pinned CPUs, dense keys, N = $n: lookups per second (millions, median; log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set grid ytics
set ylabel "M lookups / s"
set key outside right top
plot '$dat' using 2:xtic(1) title columnheader(2), '' using 3 title columnheader(3), \
	'' using 4 title columnheader(4)
EOF
fi
ls "$out"/*.png
