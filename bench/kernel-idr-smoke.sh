#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# kernel-idr-smoke.sh - keeps `idr-bench --kernel` from rotting: builds
# libkidr.so, the Linux kernel's IDR and IDA, from Debian's linux-source-6.1
# tarball (bench/kernel-idr-build), runs idr-bench --quick with it and checks
# that it exits 0 (the kernel's column goes through the checks of every
# other: ids in order, the lowest free id, every lookup, the whole map) and
# that the kernel's column has every figure, in the output and in the CSV.
# Skipped (77) when the tarball is not installed: the kernel's files are
# never part of this project.  Not a timing test.
set -u
tarball=${KIDR_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
if [ ! -r "$tarball" ]; then
	echo "SKIP: $tarball is not installed (Debian package linux-source-6.1)"
	exit 77
fi
b=${top_builddir:-.}
dir=$b/bench/kernel-idr
tmp=${TMPDIR:-/tmp}/kernel-idr-smoke.$$
out=$tmp.out
csv=$tmp.csv
trap 'rm -f "$out" "$csv"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$out"; exit 1; }

"$b/bench/kernel-idr-build" --tarball "$tarball" "$dir" >"$out" 2>&1 ||
	fail "bench/kernel-idr-build exited $?"
cat "$out"
grep -q "^kernel-idr: built .*/libkidr.so (Linux 6\.1\.[0-9]*)" "$out" || fail "no build line"
"$b/bench/kernel-idr-build" --tarball "$tarball.missing" "$dir.missing" >"$out" 2>&1 &&
	fail "a missing tarball was accepted"
grep -q "linux-source-6.1 package" "$out" || fail "a missing tarball does not name the package"
"$b/bench/idr-bench" --quick --quiet --kernel "$dir/missing.so" >"$out" 2>&1 &&
	fail "--kernel with a missing file was accepted"

"$b/bench/idr-bench" --quick --quiet --kernel "$dir/libkidr.so" --csv "$csv" >"$out" 2>&1 ||
	fail "idr-bench --quick --kernel exited $?"
grep -q "^  kernel IDR  *--kernel .*libkidr.so:" "$out" || fail "no kernel line in the header"
grep -q "^ *Linux 6\.1\.[0-9]*: lib/idr.c, lib/radix-tree.c, lib/xarray.c" "$out" ||
	fail "no kernel release in the header"
grep -q "^operation .* kernel IDR *\$" "$out" || fail "no kernel IDR column"
grep -q "^operation .* kernel IDA *\$" "$out" || fail "no kernel IDA column"

has() { # section title n op unit structure
	grep -qF -- "$1,$2,$3,$4,$5,$6," "$csv" || fail "no figure for $6 in row '$4' ($2)"
}
for r in "fill (alloc 0..N-1),ns/id" "memory,B/id" "churn 1 thread,ns/pair" \
	"churn 2 threads,ns/pair" "churn 2 threads cpu,ns/pair" "lookup 1R,ns/op" \
	"lookup 1R+1W,ns/op" "1R+1W writer,ns/pair"; do
	has idr "churn and lookups" 1024 "${r%,*}" "${r#*,}" "kernel IDR"
done
for l in 10 12; do
	has idr "remove+alloc pair by live ids (rows)" 4096 "2^$l ids" ns/pair "kernel IDR"
	has idr "remove+alloc pair by live ids (rows)" 4096 "2^$l ids (hot)" ns/pair "kernel IDR"
done
for r in "fill (alloc 0..N-1),ns/id" "free+alloc churn,ns/pair" "memory,B/id"; do
	has ida free+alloc 1024 "${r%,*}" "${r#*,}" "kernel IDA"
done
# Both targets, with a verdict.
for w in "churn 1 thread ns: rcuradix / kernel" "IDA free+alloc ns: rcuradix / kernel"; do
	grep -q "^$w .*(target <= 1.00)  \(met\|MISSED\)\$" "$out" || fail "no verdict for '$w'"
done
grep -q "^target,churn and lookups,1024,churn 1 thread ns: rcuradix / kernel,<= 1.00," "$csv" ||
	fail "no churn target in the CSV"
grep -q "^target,free+alloc,1024,IDA free+alloc ns: rcuradix / kernel,<= 1.00," "$csv" ||
	fail "no IDA target in the CSV"
# The kernel's IDR: 2^10 ids in 16 full leaves and a node above, 576 bytes
# each: 9.56 bytes per id, as rcuradix's.
grep -qF "idr,churn and lookups,1024,memory,B/id,kernel IDR,9.5625," "$csv" ||
	fail "the kernel IDR's memory is not 17 nodes of 576 bytes"
awk -F, 'NR > 1 && $1 != "target" && (NF != 10 || $7 !~ /^[0-9.e+-]+$/) { bad = 1 }
	END { exit bad }' "$csv" || fail "a malformed CSV line"
echo "PASS: idr-bench --quick --kernel: the kernel's IDR and IDA passed every check"
