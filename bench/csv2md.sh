#!/bin/sh
# csv2md.sh - one table of rcuradix-bench's CSV as Markdown, for the docs:
# rows = operations, columns = structures, cells = "median (ratio to
# rcuradix)".
#
#   bench/csv2md.sh results.csv single dense-rand 1048576
set -eu
[ $# -eq 4 ] || { echo "usage: $0 results.csv SECTION KEYSET N" >&2; exit 2; }
awk -F, -v sec="$2" -v ks="$3" -v n="$4" '
function fmt(v) {
	if (v == "") return "n/a"
	if (v + 0 >= 1e5) return sprintf("%.3g", v)
	if (v + 0 >= 100) return sprintf("%.0f", v)
	if (v + 0 >= 10) return sprintf("%.1f", v)
	return sprintf("%.2f", v)
}
BEGIN { ns = split("rcuradix judyl judyl+rwlock lfht flat", S, " ") }
$1 == sec && $2 == ks && $3 == n {
	key = $4 " (" $5 ")"
	if (!(key in seen)) { seen[key] = 1; order[++no] = key }
	med[key, $6] = $7
	ratio[key, $6] = $9
}
END {
	printf "| operation |"; for (s = 1; s <= ns; s++) printf " %s |", S[s]; print ""
	printf "|---|"; for (s = 1; s <= ns; s++) printf "---|"; print ""
	for (o = 1; o <= no; o++) {
		k = order[o]
		printf "| %s |", k
		for (s = 1; s <= ns; s++) {
			if (!((k, S[s]) in med)) { printf " n/a |"; continue }
			if (s == 1 || ratio[k, S[s]] == "nan" || ratio[k, S[s]] == "") printf " %s |", fmt(med[k, S[s]])
			else printf " %s (%.2fx) |", fmt(med[k, S[s]]), ratio[k, S[s]]
		}
		print ""
	}
}' "$1"
