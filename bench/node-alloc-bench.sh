#!/bin/sh
# node-alloc-bench - the node allocator micro-benchmark: runs the
# per-backend copies bench/node-alloc-bench-<backend> interleaved (slab,
# jemalloc, libc, ... slab, jemalloc, libc, ...), then prints the median
# and minimum of every figure.  See bench/node-alloc.c for each metric.
#
# Every repetition first builds the trees of rcuradix-bench's key sets
# (dense-rand, holes, clustered, sparse32, sparse64 at 2^16 and 2^20 keys;
# --quick: 2^10 and 2^12) with every backend (--tree), then runs the timed
# figures.  The node census of the first repetition's trees gives the size
# distributions of the mixed streams: one per key set (its trees' shares of
# nodes per size, averaged with equal weight) and "all" (every tree's,
# likewise).  The raw allocator figures (mallocx with the automatic
# tcache, a private arena with an explicit tcache, glibc) come from the
# first backend's copy.
#
#   node-alloc-bench [--reps N] [--quick] [--raw-out FILE]
#   node-alloc-bench --from FILE    summarize the raw lines of an earlier run
set -eu
dir=$(dirname "$0")
backends="@BACKENDS@"
keysets="dense-rand holes clustered sparse32 sparse64"
sizes="16 20"
reps=5
quick=
out=
from=
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift ;;
	--quick) quick=--quick; sizes="10 12" ;;
	--raw-out) out=$2; shift ;;
	--from) from=$2; shift ;;
	*) echo "usage: $0 [--reps N] [--quick] [--raw-out FILE] | --from FILE" >&2; exit 2 ;;
	esac
	shift
done
tmp=$(mktemp)
mix=$(mktemp)
trap 'rm -f "$tmp" "$mix"' EXIT
trees=
for k in $keysets; do
	for s in $sizes; do
		trees="$trees $k:$s"
	done
done

# The mixed streams' distributions, "NAME SIZE WEIGHT", from the census of
# the first backend's trees.
make_mix() {
	first=${backends%% *}
	awk -v b="$first" '
	$1 == b && $2 == "tree" && $4 ~ /^class[0-9]+$/ {
		t = $3; c = substr($4, 6) + 0
		if ((t, c) in cnt) next  # the first repetition only
		if (!(t in seen)) { seen[t] = 1; order[++nt] = t }
		cnt[t, c] = $5; tot[t] += $5; cls[c] = 1
	}
	END {
		for (i = 1; i <= nt; i++) {
			t = order[i]; k = t; sub(/:.*/, "", k)
			if (!(k in ntrees)) korder[++nk] = k
			ntrees[k]++
			for (c in cls) {
				f = cnt[t, c] / tot[t]
				w[k, c] += f; w["all", c] += f
			}
		}
		korder[++nk] = "all"; ntrees["all"] = nt
		for (i = 1; i <= nk; i++)
			for (c in cls)
				if (w[korder[i], c] > 0)
					printf "%s %d %.9f\n", korder[i], c, w[korder[i], c] / ntrees[korder[i]]
	}' "$tmp" >"$mix"
	[ -s "$mix" ] || { echo "$0: no node census from $first" >&2; exit 1; }
}

if [ -n "$from" ]; then
	cp "$from" "$tmp"
	make_mix
	reps=$(awk -v b="${backends%% *}" '$1 == b && $2 == "reserve-1"' "$tmp" | wc -l)
fi
r=1
[ -n "$from" ] && r=$((reps + 1))
while [ "$r" -le "$reps" ]; do
	for t in $trees; do
		for b in $backends; do
			"$dir/node-alloc-bench-$b" --tree "$t" >>"$tmp"
		done
	done
	[ "$r" -eq 1 ] && make_mix
	raw=--raw
	for b in $backends; do
		"$dir/node-alloc-bench-$b" $raw $quick --mix "$mix" >>"$tmp"
		raw=
	done
	r=$((r + 1))
done
[ -n "$out" ] && cp "$tmp" "$out"
echo "node-alloc-bench: $reps interleaved repetitions; median [min]"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; kernel $(uname -r)"
awk -v backends="$backends" -v reps="$reps" -v mixfile="$mix" '
function med(key,   n, i, j, t, a) {
	n = split(vals[key], a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	mn = a[1]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# Median over the repetitions of key2 / key1, each from one repetition.
function pratio(key1, key2,   n, n2, i, j, t, a, c, r) {
	n = split(vals[key1], a, " "); n2 = split(vals[key2], c, " ")
	if (n2 < n) n = n2
	for (i = 1; i <= n; i++) r[i] = c[i] / a[i]
	for (i = 2; i <= n; i++) { t = r[i]; for (j = i - 1; j >= 1 && r[j] > t; j--) r[j + 1] = r[j]; r[j + 1] = t }
	return n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
}
function add(key, v) { vals[key] = (key in vals) ? vals[key] " " v : v }
$2 == "tree" {
	# backend tree KEYSET:LOG2 what value
	t = $3
	if (!(t in tseen)) { tseen[t] = 1; torder[++ntr] = t }
	if ($4 ~ /^class[0-9]+$/ || $4 == "full" || $4 == "nodes" || $4 == "keys" || $4 == "node-bytes") {
		# The same in every backend and repetition: the tree shape
		# depends on the keys alone.
		if (!((t, $4) in census)) census[t, $4] = $5
		else if (census[t, $4] != $5) differ = differ " " $1 "/" t "/" $4
		if ($4 ~ /^class/) cls[substr($4, 6) + 0] = 1
		next
	}
	add($1 SUBSEP t SUBSEP $4, $5)
	next
}
{
	key = $1 SUBSEP $2
	add(key, $3)
	if (!($2 in seen)) { seen[$2] = 1; order[++nm] = $2 }
}
END {
	nb = split(backends, b, " ")
	print ""
	print "raw allocator, one 576-byte node (alloc+free), ns"
	for (m = 1; m <= nm; m++) {
		if (order[m] !~ /^(je-|glibc)/) continue
		for (i = 1; i <= nb; i++) if ((b[i] SUBSEP order[m]) in vals) {
			v = med(b[i] SUBSEP order[m]); printf "  %-22s %9.2f [%.2f]\n", order[m], v, mn
		}
	}
	print ""
	printf "  %-22s", "library path, ns"
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
	print ""
	printf "  %-22s", "ratio to " b[1]
	for (i = 2; i <= nb; i++) printf " %14s", b[i]
	print "   (median of the ratios within each repetition)"
	for (m = 1; m <= nm; m++) {
		if (order[m] ~ /^(je-|glibc)/) continue
		printf "  %-22s", order[m]
		for (i = 2; i <= nb; i++) {
			if (((b[1] SUBSEP order[m]) in vals) && ((b[i] SUBSEP order[m]) in vals))
				printf " %14.3f", pratio(b[1] SUBSEP order[m], b[i] SUBSEP order[m])
			else printf " %14s", "n/a"
		}
		print ""
	}
	if (!ntr) exit
	nc = 0
	for (c in cls) cl[++nc] = c + 0
	for (i = 2; i <= nc; i++) { t = cl[i]; for (j = i - 1; j >= 1 && cl[j] > t; j--) cl[j + 1] = cl[j]; cl[j + 1] = t }
	print ""
	print "node census (GFP_KERNEL build, insertion order of rcuradix-bench): % of the nodes by size"
	printf "  %-16s %8s %10s %7s", "tree", "nodes", "node B/key", "F"
	for (i = 1; i <= nc; i++) printf " %5d", cl[i]
	print ""
	for (k = 1; k <= ntr; k++) {
		t = torder[k]; n = census[t, "nodes"]
		printf "  %-16s %8d %10.2f %6.1f%%", t, n, census[t, "node-bytes"] / census[t, "keys"],
			100 * census[t, "full"] / n
		for (i = 1; i <= nc; i++) {
			x = census[t, "class" cl[i]]
			if (x) printf " %5.1f", 100 * x / n; else printf " %5s", "-"
		}
		print ""
	}
	if (differ != "") print "  WARNING: the census differs between runs:" differ
	print ""
	print "mixed-stream distributions (share of nodes by size, %):"
	while ((getline line < mixfile) > 0) {
		split(line, f, " ")
		if (!(f[1] in mseen)) { mseen[f[1]] = 1; morder[++nmix] = f[1] }
		mw[f[1], f[2]] = f[3]
	}
	printf "  %-16s", "mix"
	for (i = 1; i <= nc; i++) printf " %5d", cl[i]
	print ""
	for (k = 1; k <= nmix; k++) {
		printf "  %-16s", morder[k]
		for (i = 1; i <= nc; i++) {
			x = mw[morder[k], cl[i]]
			if (x > 0) printf " %5.1f", 100 * x; else printf " %5s", "-"
		}
		print ""
	}
	split("backing allocated active resident rss", what, " ")
	for (w = 1; w <= 5; w++) {
		print ""
		printf "  %-16s", what[w] " / node bytes"
		for (i = 1; i <= nb; i++) printf " %16s", b[i]
		print ""
		for (k = 1; k <= ntr; k++) {
			t = torder[k]
			printf "  %-16s", t
			for (i = 1; i <= nb; i++) {
				key = b[i] SUBSEP t SUBSEP what[w]
				if (key in vals) {
					v = med(key); nbytes = census[t, "node-bytes"]
					printf " %7.3f [%6.3f]", v / nbytes, mn / nbytes
				} else printf " %16s", "n/a"
			}
			print ""
		}
	}
}' "$tmp"
