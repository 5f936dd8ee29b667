#!/bin/sh
# symbols.sh - the shared library exports exactly the committed symbol list
# (lib/rcuradix.sym): nothing internal leaks, nothing public is missing.
set -eu
lib="${top_builddir:-.}/lib/.libs/librcuradix.so"
list="${top_srcdir:-.}/lib/rcuradix.sym"
[ -f "$lib" ] || { echo "missing $lib" >&2; exit 1; }
actual=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ { sub(/@.*/, "", $3); print $3 }' |
	grep -v '^RCURADIX_' | LC_ALL=C sort -u)
expected=$(grep -v '^#' "$list" | LC_ALL=C sort -u)
if [ "$actual" != "$expected" ]; then
	echo "exported symbols differ from $list (< exported, > listed):" >&2
	printf '%s\n' "$actual" > symbols.actual.tmp
	printf '%s\n' "$expected" | diff symbols.actual.tmp - >&2 || true
	rm -f symbols.actual.tmp
	exit 1
fi
echo "$(printf '%s\n' "$actual" | wc -l) symbols exported, as listed"
