#!/bin/sh
# man-check.sh - every manual page is well formed: no groff warning of any
# category (groff -ww, as `man --warnings` would show), no rendered line
# wider than an 80-column terminal, the sections the project promises in
# their order (one list for the programs' pages in section 1, one for the
# library's in sections 3 and 7), this package's version in .TH, cross
# references to rcuradix pages that exist, and aliases (.so lines) that
# point at a real page.
set -u
GROFF=${GROFF:-groff}
if ! command -v "$GROFF" >/dev/null 2>&1; then
	echo "groff not found: skipped"
	exit 77
fi
cd "${top_srcdir:-.}/man" || exit 1
version=${PACKAGE_VERSION:?PACKAGE_VERSION is not set}
expected_lib='NAME|SYNOPSIS|DESCRIPTION|RETURN VALUE|ERRORS|CONCURRENCY|EXAMPLE|SEE ALSO'
expected_cmd='NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXIT STATUS|EXAMPLE|SEE ALSO'
status=0
pages=0
fail() {
	echo "FAIL: $*" >&2
	status=1
}

check_alias() {  # $1: page, $2: its first line
	target=${2#.so }
	[ "$(wc -l < "$1")" -eq 1 ] || fail "$1: an alias page must be one .so line"
	[ -f "$target" ] || { fail "$1: points to missing $target"; return; }
	case $(head -n 1 "$target") in
	.so*) fail "$1: alias of an alias ($target)" ;;
	esac
}

check_page() {  # $1: page
	out=$("$GROFF" -ww -man -z -Tutf8 "$1" 2>&1)
	[ -z "$out" ] || fail "$1: groff warnings:
$out"
	if command -v man >/dev/null 2>&1; then
		out=$(MANWIDTH=80 MANPAGER=cat man --warnings=w -l "$1" 2>&1 >/dev/null)
		[ -z "$out" ] || fail "$1: man --warnings:
$out"
	fi
	out=$("$GROFF" -man -Tascii -P-bou "$1" 2>/dev/null | awk 'length > 80')
	[ -z "$out" ] || fail "$1: lines wider than 80 columns:
$out"
	sections=$(sed -n 's/^\.SH //p' "$1" | tr -d '"' | paste -sd '|' -)
	case $1 in
	man1/*) expected=$expected_cmd ;;
	*) expected=$expected_lib ;;
	esac
	[ "$sections" = "$expected" ] || fail "$1: sections are
  $sections
expected
  $expected"
	grep -q "^\.TH .* \"rcuradix $version\" " "$1" || fail "$1: .TH does not say \"rcuradix $version\""
	# References to our own pages, e.g. ".BR radix_tree_lookup (3),"
	# or ".BR idr_alloc (3),".
	for ref in $(sed 's/\\-/-/g' "$1" |
		sed -n 's/^\.[BI]R \([A-Za-z_-]*\) (\([137]\)).*/man\2\/\1.\2/p'); do
		case $ref in
		man*/radix_tree_* | man*/rcuradix* | man*/RADIX_TREE* | man*/INIT_RADIX_TREE* | \
			man*/idr_* | man*/ida_* | man*/IDR_* | man*/IDA_* | man*/DEFINE_ID[RA]*)
			[ -f "$ref" ] || fail "$1: refers to $ref, which does not exist" ;;
		esac
	done
}

for page in man1/*.1 man3/*.3 man7/*.7; do
	pages=$((pages + 1))
	first=$(head -n 1 "$page")
	case $first in
	.so\ *) check_alias "$page" "$first" ;;
	*) check_page "$page" ;;
	esac
done
[ "$pages" -gt 0 ] || fail "no page found"

# The README's way to read a page in the source tree, from its top:
# `man -M man NAME`.  man -l cannot show an alias: its .so line names a path
# relative to man/, which man -M resolves.
if command -v man >/dev/null 2>&1; then
	errs=${TMPDIR:-/tmp}/man-check.$$
	text=$(cd .. && MANWIDTH=80 MANPAGER=cat man -M man radix_tree_delete 2>"$errs")
	err=$(cat "$errs"); rm -f "$errs"
	case $text in
	*NAME*radix_tree_delete*SYNOPSIS*) ;;
	*) fail "man -M man radix_tree_delete (from the top of the tree) does not show the page: $text" ;;
	esac
	[ -z "$err" ] || fail "man -M man radix_tree_delete: $err"
fi
echo "$pages pages checked"
exit $status
