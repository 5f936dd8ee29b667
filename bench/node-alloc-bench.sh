#!/bin/sh
# node-alloc-bench - the node allocator micro-benchmark: runs the
# per-backend copies bench/node-alloc-bench-<backend> interleaved (slab,
# jemalloc, libc, ... slab, jemalloc, libc, ...), then prints the median
# and minimum of every figure.  The raw allocator figures (mallocx with the
# automatic tcache, a private arena with an explicit tcache, glibc) come
# from the first backend's copy.  See bench/node-alloc.c for each metric.
#
#   node-alloc-bench [--reps N] [--quick] [--raw-out FILE]
set -eu
dir=$(dirname "$0")
backends="@BACKENDS@"
reps=5
quick=
out=
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift ;;
	--quick) quick=--quick ;;
	--raw-out) out=$2; shift ;;
	*) echo "usage: $0 [--reps N] [--quick] [--raw-out FILE]" >&2; exit 2 ;;
	esac
	shift
done
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
r=1
while [ "$r" -le "$reps" ]; do
	raw=--raw
	for b in $backends; do
		"$dir/node-alloc-bench-$b" $raw $quick >>"$tmp"
		raw=
	done
	r=$((r + 1))
done
[ -n "$out" ] && cp "$tmp" "$out"
echo "node-alloc-bench: $reps interleaved repetitions; ns per operation, median [min]"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; kernel $(uname -r)"
awk -v backends="$backends" '
function med(key,   n, i, j, t, a) {
	n = split(vals[key], a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	mn = a[1]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	key = $1 SUBSEP $2
	vals[key] = (key in vals) ? vals[key] " " $3 : $3
	if (!($2 in seen)) { seen[$2] = 1; order[++nm] = $2 }
}
END {
	nb = split(backends, b, " ")
	print ""
	print "raw allocator, one 576-byte node (alloc+free)"
	for (m = 1; m <= nm; m++) {
		if (order[m] !~ /^(je-|glibc)/) continue
		for (i = 1; i <= nb; i++) if ((b[i] SUBSEP order[m]) in vals) {
			v = med(b[i] SUBSEP order[m]); printf "  %-22s %9.2f [%.2f]\n", order[m], v, mn
		}
	}
	print ""
	printf "  %-22s", "library path"
	for (i = 1; i <= nb; i++) printf " %20s", b[i]
	print ""
	for (m = 1; m <= nm; m++) {
		if (order[m] ~ /^(je-|glibc)/) continue
		printf "  %-22s", order[m]
		for (i = 1; i <= nb; i++) {
			if ((b[i] SUBSEP order[m]) in vals) { v = med(b[i] SUBSEP order[m]); printf " %11.2f [%6.2f]", v, mn }
			else printf " %20s", "n/a"
		}
		print ""
	}
}' "$tmp"
