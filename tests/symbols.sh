#!/bin/sh
# symbols.sh - the library defines exactly the committed list of public
# names (lib/rcuradix.sym): nothing internal leaks, nothing public is missing.
#   symbols.sh                    the shared library's dynamic symbols
#   symbols.sh --static [ARCHIVE] the global symbols the static archive's
#                                 members define (default: the build's
#                                 lib/.libs/librcuradix.a)
set -eu
list="${top_srcdir:-.}/lib/rcuradix.sym"
case ${1:-} in
--static)
	if [ $# -lt 2 ] && [ "${RT_STATIC:-yes}" = no ]; then
		echo "no static library (configure --disable-static): skipped"
		exit 77
	fi
	lib=${2:-"${top_builddir:-.}/lib/.libs/librcuradix.a"}
	what="global symbols defined by $lib"
	nm_flags="-g --defined-only" ;;
"")
	lib="${top_builddir:-.}/lib/.libs/librcuradix.so"
	what="symbols exported by $lib"
	nm_flags="-D --defined-only" ;;
*)
	echo "usage: $0 [--static [ARCHIVE]]" >&2
	exit 2 ;;
esac
[ -f "$lib" ] || { echo "missing $lib" >&2; exit 1; }
# Every defining symbol class nm shows (code, data, bss, read-only, weak,
# common, indirect, unique); the version node RCURADIX_* is not a name.
# shellcheck disable=SC2086 # nm_flags is two options
actual=$(nm $nm_flags "$lib" | awk '$2 ~ /^[TDBRVWCiu]$/ { sub(/@.*/, "", $3); print $3 }' |
	grep -v '^RCURADIX_' | LC_ALL=C sort -u)
expected=$(grep -v '^#' "$list" | LC_ALL=C sort -u)
if [ "$actual" != "$expected" ]; then
	echo "$what differ from $list (< defined, > listed):" >&2
	tmp=${TMPDIR:-/tmp}/symbols.$$
	printf '%s\n' "$actual" >"$tmp"
	printf '%s\n' "$expected" | diff "$tmp" - >&2 || true
	rm -f "$tmp"
	exit 1
fi
echo "$(printf '%s\n' "$actual" | wc -l) $what, as listed"
