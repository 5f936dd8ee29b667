#!/bin/sh
# man-coverage.sh - every public name is documented.  Each symbol the shared
# library exports (lib/rcuradix.sym) and each macro, inline function,
# structure and typedef the public headers define must appear in the NAME
# or SYNOPSIS section of some manual page; and every name a NAME section
# lists (the installed programs' pages included) must have a page (or .so
# alias) of its own, so that `man NAME` finds it.
set -u
src=${top_srcdir:-.}
status=0
fail() {
	echo "FAIL: $*" >&2
	status=1
}
tmp=${TMPDIR:-/tmp}/man-coverage.$$
trap 'rm -f "$tmp".*' EXIT

# Names that must be documented.
{
	grep -v '^#' "$src/lib/rcuradix.sym"
	for h in "$src/include/rcuradix/radix-tree.h" "$src/include/rcuradix/idr.h" \
		"$src/include/rcuradix/version.h.in"; do
		sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$h"
		sed -n 's/^\(static inline\|RCURADIX_INLINE\) .*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\2/p' "$h"
		sed -n 's/^struct \([A-Za-z_][A-Za-z0-9_]*\) {.*/\1/p' "$h"
		sed -n 's/^typedef .*[ *]\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' "$h"
	done
} | grep -v -x -e RCURADIX_RADIX_TREE_H -e RCURADIX_IDR_H -e RCURADIX_VERSION_H -e RCURADIX_API \
	-e RCURADIX_INLINE |
	LC_ALL=C sort -u > "$tmp.public"
[ -s "$tmp.public" ] || fail "found no public name (parsing broken?)"

# The words of every page's NAME and SYNOPSIS sections, roff escapes removed.
for page in "$src"/man/man3/*.3 "$src"/man/man7/*.7; do
	awk '/^\.SH / { keep = ($2 == "NAME" || $2 == "SYNOPSIS") ; next } keep' "$page"
done | sed 's/\\f[BIRP]//g; s/\\-/-/g; s/\\(..//g; s/\\e/\\/g' |
	tr -c 'A-Za-z0-9_' '\n' | LC_ALL=C sort -u > "$tmp.documented"

missing=$(LC_ALL=C comm -23 "$tmp.public" "$tmp.documented")
[ -z "$missing" ] || fail "public names in no page's NAME or SYNOPSIS:
$missing"

# Every name listed in a NAME section has a page of that name.
for page in "$src"/man/man1/*.1 "$src"/man/man3/*.3 "$src"/man/man7/*.7; do
	section=${page##*.}
	names=$(awk '/^\.SH / { keep = ($2 == "NAME"); next } keep' "$page" |
		grep -v '^\.' | tr '\n' ' ' | sed 's/ \\- .*//; s/,/ /g')
	for name in $names; do
		[ -f "$src/man/man$section/$name.$section" ] ||
			fail "$page names $name, but man/man$section/$name.$section does not exist"
	done
done

[ $status -ne 0 ] || echo "$(wc -l < "$tmp.public") public names, all documented"
exit $status
