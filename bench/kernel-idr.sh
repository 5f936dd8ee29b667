#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# kernel-idr.sh - builds libkidr.so, the Linux kernel's own IDR and IDA for
# `idr-bench --kernel` (bench/idr.c), from Debian's linux-source-6.1 package.
# make turns it into bench/kernel-idr-build (the @KIDR_...@ values: the
# compiler and flags of configure); `make bench-kernel-idr` runs it, then the
# benchmark.
#
#   bench/kernel-idr-build [--tarball FILE] [DIR]
#
# DIR (default bench/kernel-idr) receives everything: the kernel's files,
# extracted from the tarball (default /usr/src/linux-source-6.1.tar.xz, or
# $KIDR_TARBALL), their objects, and DIR/libkidr.so.  The kernel's files are
# GPL-2.0: they are never part of this project, only read from the tarball
# into the build directory.  Taken from it:
#
#   lib/idr.c, lib/radix-tree.c, lib/xarray.c     the IDR, the IDA, the XArray
#   include/linux/{idr,radix-tree,xarray,gfp_types,kconfig}.h
#   tools/include/                                 the kernel's userspace headers
#   tools/lib/find_bit.c                           find_next_zero_bit() & co
#   tools/testing/radix-tree/{linux/,generated/,bitmap.c}
#                                                  the kernel's own userspace
#                                                  harness of these files
#                                                  (spinlock: pthread mutex,
#                                                  RCU: liburcu), bitmap_clear()
#   Makefile                                       the release, for the header
#
# plus two generated headers the harness's Makefile would write: 64-slot
# nodes (XA_CHUNK_SHIFT 6, as in a kernel) and the word size.  Then the
# kernel's objects are compiled with configure's CFLAGS and the kernel's
# -fno-strict-aliasing, warnings off (not our code); bench/kernel-idr.c, the
# glue (ours), with the project's warnings, the kernel's headers as system
# headers; and all of it linked into DIR/libkidr.so, which exports kidr_*
# and kida_* only (a version script, -fvisibility=hidden) and binds its own
# calls inside itself (-Bsymbolic): the kernel's idr_alloc() and ours never
# meet.  The extraction (about 10 s: the whole tarball is decompressed) and
# the kernel's objects are redone only when the tarball is newer than them.
set -eu

CC='@KIDR_CC@'
CFLAGS='@KIDR_CFLAGS@'
WARN_CFLAGS='@KIDR_WARN_CFLAGS@'
PTHREAD_CFLAGS='@KIDR_PTHREAD_CFLAGS@'
PTHREAD_LIBS='@KIDR_PTHREAD_LIBS@'
URCU_CFLAGS='@KIDR_URCU_MEMB_CFLAGS@'
URCU_LIBS='@KIDR_URCU_MEMB_LIBS@'
srcdir='@KIDR_SRCDIR@'

package=linux-source-6.1
tarball=${KIDR_TARBALL:-/usr/src/$package.tar.xz}
dir=bench/kernel-idr
top=$package

usage() {
	echo "usage: $0 [--tarball FILE] [DIR]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--tarball)
		[ $# -ge 2 ] || usage
		tarball=$2
		shift 2
		;;
	-h | --help) usage ;;
	-*) usage ;;
	*)
		dir=$1
		shift
		[ $# -eq 0 ] || usage
		;;
	esac
done

if [ ! -r "$tarball" ]; then
	echo "kernel-idr: $tarball not found: it comes with Debian's $package package" >&2
	echo "kernel-idr: (apt-get install $package), or name another with --tarball" >&2
	exit 1
fi

mkdir -p "$dir"
src=$dir/src
k=$src/$top
stamp=$dir/extracted.stamp
t0=$(date +%s)

# newer A B: file A was modified after file B (POSIX test has no -nt).
newer() {
	[ -n "$(find "$1" -prune -newer "$2" 2>/dev/null)" ]
}

# ---- the kernel's files --------------------------------------------------
if [ ! -f "$stamp" ] || newer "$tarball" "$stamp"; then
	echo "kernel-idr: extracting the kernel's IDR and XArray from $tarball"
	rm -rf "$src"
	mkdir -p "$src"
	# -m: the files get the time of the extraction (the objects below are
	# compared with the stamp).
	tar -xJmf "$tarball" -C "$src" --wildcards \
		"$top/Makefile" \
		"$top/lib/idr.c" "$top/lib/radix-tree.c" "$top/lib/xarray.c" \
		"$top/include/linux/idr.h" "$top/include/linux/radix-tree.h" \
		"$top/include/linux/xarray.h" "$top/include/linux/gfp_types.h" \
		"$top/include/linux/kconfig.h" \
		"$top/tools/include/*" \
		"$top/tools/lib/find_bit.c" \
		"$top/tools/testing/radix-tree/linux/*" \
		"$top/tools/testing/radix-tree/generated/*" \
		"$top/tools/testing/radix-tree/bitmap.c"
	gen=$k/tools/testing/radix-tree/generated
	echo "#define XA_CHUNK_SHIFT 6" >"$gen/map-shift.h"
	echo "#define CONFIG_$(getconf LONG_BIT)BIT 1" >"$gen/bit-length.h"
	touch "$stamp"
fi

# The release: VERSION.PATCHLEVEL.SUBLEVEL of the top Makefile.
version=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' "$k/Makefile" |
	head -n 3 | paste -sd. -)
[ -n "$version" ] || version=6.1

harness=$k/tools/testing/radix-tree
KINC="-I$harness -I$k/tools/include"

# ---- the kernel's objects: its flags, not ours ---------------------------
objs=
for f in lib/xarray.c lib/radix-tree.c lib/idr.c tools/lib/find_bit.c \
	tools/testing/radix-tree/bitmap.c; do
	o=$dir/k-$(echo "$f" | tr / -).o
	o=${o%.c.o}.o
	if [ ! -f "$o" ] || newer "$stamp" "$o"; then
		echo "kernel-idr: CC $f"
		# shellcheck disable=SC2086 # the flags, split
		$CC $KINC -D_LGPL_SOURCE $URCU_CFLAGS $PTHREAD_CFLAGS $CFLAGS \
			-fno-strict-aliasing -fPIC -fvisibility=hidden -w -c "$k/$f" -o "$o"
	fi
	objs="$objs $o"
done

# ---- the glue: ours, with the project's warnings -------------------------
echo "kernel-idr: CC bench/kernel-idr.c"
# shellcheck disable=SC2086
$CC -I"$srcdir/bench" -isystem "$harness" -isystem "$k/tools/include" -D_LGPL_SOURCE \
	-DKIDR_KERNEL_VERSION="\"$version\"" $URCU_CFLAGS $PTHREAD_CFLAGS $WARN_CFLAGS $CFLAGS \
	-fPIC -fvisibility=hidden -c "$srcdir/bench/kernel-idr.c" -o "$dir/kernel-idr.o"

cat >"$dir/libkidr.map" <<'EOF'
{
	global: kidr_*; kida_*;
	local: *;
};
EOF
echo "kernel-idr: LD $dir/libkidr.so"
# shellcheck disable=SC2086
$CC $CFLAGS $PTHREAD_CFLAGS -shared -o "$dir/libkidr.so.tmp" "$dir/kernel-idr.o" $objs \
	-Wl,--version-script="$dir/libkidr.map" -Wl,-Bsymbolic -Wl,-z,defs \
	$URCU_LIBS $PTHREAD_LIBS
mv -f "$dir/libkidr.so.tmp" "$dir/libkidr.so"

# Nothing but the wrappers may be visible: the kernel's names are ours too.
if command -v nm >/dev/null 2>&1; then
	bad=$(nm -D --defined-only "$dir/libkidr.so" | awk '{ print $3 }' |
		grep -v '^kid[ra]_' | tr '\n' ' ' || true)
	if [ -n "$bad" ]; then
		echo "kernel-idr: $dir/libkidr.so exports more than kidr_* and kida_*: $bad" >&2
		exit 1
	fi
fi
echo "kernel-idr: built $dir/libkidr.so (Linux $version) in $(($(date +%s) - t0)) s"
