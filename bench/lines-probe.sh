#!/bin/sh
# lines-probe.sh - the cache lines a lookup reads, rcuradix against JudyL on
# the same keys (bench/lines-probe.c), for each KEYSET:LOG2 given, under
# callgrind's cache simulation: a 32 KiB 8-way D1 of 64-byte lines and a
# 1 MiB LL, emptied before every lookup.  Prints a table: lines read and
# instructions executed per lookup, each an average over the probe's lookups.
#
#   bench/lines-probe.sh [KEYSET:LOG2 ...]     (run from the build directory)
# LINES_LOOKUPS=N sets the lookups per key set (the probe's default: 2000).
set -eu
probe=${LINES_PROBE:-./bench/lines-probe}
[ -x "$probe" ] || { echo "lines-probe.sh: no $probe (needs Judy; run make)" >&2; exit 1; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
	{ echo "lines-probe.sh: needs valgrind and callgrind_annotate" >&2; exit 1; }
[ $# -gt 0 ] || set -- dense-rand:16 holes:16 clustered:16 clustered:18 sparse32:16 sparse64:16
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

printf '%-14s %10s %10s %7s %11s %11s\n' "key set" "rcuradix" "JudyL" "ratio" "rcuradix" "JudyL"
printf '%-14s %10s %10s %7s %11s %11s\n' "" "lines" "lines" "" "instr." "instr."
for spec in "$@"; do
	keyset=${spec%%:*}
	log2n=${spec#*:}
	lookups=$(valgrind -q --tool=callgrind --cache-sim=yes --instr-atstart=no \
		--D1=32768,8,64 --LL=1048576,16,64 --callgrind-out-file="$out" \
		"$probe" "$keyset" "$log2n" ${LINES_LOOKUPS:+"$LINES_LOOKUPS"} 2>"$err" | sed -n 's/.* lookups \([0-9]*\)$/\1/p')
	[ -n "$lookups" ] || {
		echo "lines-probe.sh: $spec: the probe failed; the end of its stderr:" >&2
		tail -n 8 "$err" >&2
		exit 1
	}
	# Inclusive Ir and D1mr of the lookups (GCC may suffix a name:
	# judy_value.constprop.0): radix_tree_lookup(); JudyLGet() and
	# judy_value().
	callgrind_annotate --inclusive=yes --threshold=100 --show=Ir,D1mr --show-percs=no \
		"$out" 2>/dev/null |
		awk -v spec="$spec" -v n="$lookups" '
		/:radix_tree_lookup \[/ && !rr { gsub(",", ""); rr = 1; ri = $1; rl = $2 }
		/:JudyLGet \[/ && !jg { gsub(",", ""); jg = 1; ji += $1; jlines += $2 }
		/:judy_value[.a-z0-9]* \[/ && !jv { gsub(",", ""); jv = 1; ji += $1; jlines += $2 }
		END {
			if (!rr || !jg || !jv) { print "lines-probe.sh: " spec ": no counts" > "/dev/stderr"; exit 1 }
			printf "%-14s %10.2f %10.2f %7.2f %11.0f %11.0f\n", spec, rl / n, jlines / n,
			       rl / jlines, ri / n, ji / n
		}'
done
