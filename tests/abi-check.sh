#!/bin/sh
# abi-check.sh - the shared library's ABI against the committed baseline
# (abi/librcuradix.so.1.abi, libabigail's XML), as abidiff sees it: the
# exported functions, their parameter and return types, and the layouts of
# the types the public header defines (struct radix_tree_root,
# radix_tree_iter, rcuradix_stats, radix_tree_memstat).  Types the header
# does not define (struct rcu_flavor_struct, liburcu's) are private: their
# changes do not count.  Any change abidiff reports fails, additions too
# (exit bits 4 and 8): each one needs the same commit to refresh the
# baseline, the libtool version and NEWS (doc/releasing.md).
#   abi-check.sh          compare the build's library with the baseline
#   abi-check.sh --write  write the build's ABI as the baseline
#                         (make abi-baseline)
# Both need a library with debug information (-g, the default CFLAGS).
# The baseline is an x86_64 one: on another architecture the check skips.
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
ABIDW=${ABIDW:-abidw}
ABIDIFF=${ABIDIFF:-abidiff}
baseline="$srcdir/abi/librcuradix.so.1.abi"
lib="$builddir/lib/.libs/librcuradix.so"
headers="$srcdir/include/rcuradix"

# Reproducible: no path of the build or source tree (--no-corpus-path,
# --no-comp-dir-path, file names without directories), no DT_NEEDED (which
# depends on the node allocator), no undefined functions the library calls.
dump() {
	"$ABIDW" --headers-dir "$headers" --drop-private-types --drop-undefined-syms \
		--no-corpus-path --no-comp-dir-path --no-elf-needed --short-locs \
		--out-file "$1" "$lib"
}
arch() {
	sed -n "1s/.*architecture='\([^']*\)'.*/\1/p" "$1"
}

[ -f "$lib" ] || { echo "missing $lib" >&2; exit 99; }
if ! readelf -S -W "$lib" | grep -q '\.debug_info'; then
	echo "$lib has no debug information (built without -g):"
	echo "abidiff would compare symbol names only"
	[ "${1:-}" = --write ] && exit 1
	exit 77
fi

case ${1:-} in
--write)
	dump "$baseline.tmp" || { rm -f "$baseline.tmp"; exit 1; }
	mv -f "$baseline.tmp" "$baseline"
	echo "wrote $baseline"
	exit 0 ;;
"") ;;
*)
	echo "usage: $0 [--write]" >&2
	exit 2 ;;
esac

[ -f "$baseline" ] || { echo "missing $baseline" >&2; exit 99; }
current=$builddir/tests/abi-check.current.abi
dump "$current" || exit 99
if [ "$(arch "$current")" != "$(arch "$baseline")" ]; then
	echo "the baseline describes $(arch "$baseline"), this library $(arch "$current"): skipped"
	exit 77
fi

"$ABIDIFF" --drop-private-types --headers-dir2 "$headers" "$baseline" "$lib"
status=$?
# abidiff's status bits: 1 error, 2 usage error, 4 ABI change, 8 incompatible.
if [ $((status & 3)) -ne 0 ]; then
	echo "abidiff failed (status $status)" >&2
	exit 99
fi
if [ $((status & 12)) -ne 0 ]; then
	echo "the ABI of $lib differs from $baseline (abidiff status $status)." >&2
	echo "A deliberate change refreshes the baseline (make abi-baseline), the libtool" >&2
	echo "version (configure.ac) and NEWS in the same commit: doc/releasing.md." >&2
	exit 1
fi
echo "ABI of $lib: as in $baseline"
