#!/bin/sh
# installed.sh - the package works as installed, used the way a C or C++
# programmer would use it:
#   1. `make install DESTDIR=<stage>` puts the headers, the library, the
#      .pc file and every manual page (main pages and aliases, and the
#      installed programs' pages) in place;
#   2. pkg-config, pointed at the stage only (PKG_CONFIG_PATH and
#      PKG_CONFIG_SYSROOT_DIR), reports this version and keeps jemalloc out
#      of the link line;
#   3. the examples (examples/*.c), the EXAMPLE program of every manual page
#      and the README's example programs, copied out of the source tree, build
#      with nothing but `pkg-config --cflags --libs rcuradix liburcu-memb`
#      (liburcu-qsbr for QSBR programs) and run correctly; a C++ translation
#      unit includes the installed header;
#   4. a program linked that way keeps glibc's malloc (and a control program
#      that links -ljemalloc itself is caught by the same check); with a
#      static library, the installed archive defines the public names only,
#      and two static links run: fully static through `pkg-config --static`,
#      and librcuradix.a (with jemalloc's archive) in a program that links
#      libc dynamically; their malloc is jemalloc's if the library's node
#      allocator is jemalloc-based, glibc's otherwise (README, rcuradix(7));
#   5. the library can be loaded with dlopen() given the documented
#      workaround for Debian jemalloc's static TLS, and dlclose() while
#      callbacks are pending is safe;
#   6. the installed manual pages are found by man(1), aliases included;
#   7. `make uninstall` leaves no file behind.
# Everything happens under tests/installed.tmp in the build tree (kept on
# failure for inspection, removed on success and by `make clean`).
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${PACKAGE_VERSION:?}" "${DOC_LIBDIR:?}"
: "${DOC_PKGCONFIGDIR:?}" "${DOC_MANDIR:?}" "${DOC_INCLUDEDIR:?}"
MAKE=${MAKE:-make}
CC=${CC:-cc}
CXX=${CXX:-c++}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
DOC_CFLAGS=${DOC_CFLAGS:-}
DOC_CXXFLAGS=${DOC_CXXFLAGS:-}
DOC_SANITIZERS=${DOC_SANITIZERS:-}
DOC_JEMALLOC=${DOC_JEMALLOC:-yes}
RT_STATIC=${RT_STATIC:-yes}
HAVE_CXX=${HAVE_CXX:-yes}

builddir=$(cd "$top_builddir" && pwd)
srcdir=$(cd "$top_srcdir" && pwd)
stage=$builddir/tests/installed.tmp
root=$stage/root
work=$stage/build
status=0
fail() {
	echo "FAIL: $*" >&2
	status=1
}
run() {  # run a step, its output in the log; record a failure
	echo "== $*"
	"$@" || fail "$* (exit $?)"
}

rm -rf "$stage"
mkdir -p "$root" "$work" || exit 1

# ---- 1. install into the stage
# MAKEFLAGS is cleared: the parent make's jobserver is not ours to use.
if ! MAKEFLAGS= $MAKE -C "$builddir" install DESTDIR="$root" >"$stage/install.log" 2>&1; then
	cat "$stage/install.log"
	echo "FAIL: make install DESTDIR=$root" >&2
	exit 1
fi
for f in "$DOC_INCLUDEDIR/rcuradix/radix-tree.h" "$DOC_INCLUDEDIR/rcuradix/version.h" \
	"$DOC_PKGCONFIGDIR/rcuradix.pc" "$DOC_LIBDIR/librcuradix.so" \
	"$DOC_MANDIR/man7/rcuradix.7"; do
	[ -e "$root$f" ] || fail "not installed: $f"
done
archive=$root$DOC_LIBDIR/librcuradix.a
if [ "$RT_STATIC" = yes ]; then
	# The archive installed is the one whose internal names are local.
	run "${SHELL:-/bin/sh}" "$srcdir/tests/symbols.sh" --static "$archive"
else
	[ ! -e "$archive" ] || fail "configured --disable-static, but $archive is installed"
fi
for page in "$srcdir"/man/man1/*.1 "$srcdir"/man/man3/*.3; do
	sect=${page##*.}
	[ -f "$root$DOC_MANDIR/man$sect/${page##*/}" ] || fail "manual page not installed: ${page##*/}"
done

# ---- 2. pkg-config sees only the stage (and the system's liburcu)
PKG_CONFIG_PATH=$root$DOC_PKGCONFIGDIR
PKG_CONFIG_SYSROOT_DIR=$root
LD_LIBRARY_PATH=$root$DOC_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH
version=$($PKG_CONFIG --modversion rcuradix) || fail "pkg-config does not find rcuradix"
[ "$version" = "$PACKAGE_VERSION" ] || fail "pkg-config says version '$version', not $PACKAGE_VERSION"
libs=$($PKG_CONFIG --libs rcuradix)
echo "pkg-config --libs rcuradix: $libs"
case $libs in
*jemalloc*) fail "jemalloc is in the public link line: $libs" ;;
esac
case $($PKG_CONFIG --cflags rcuradix) in
*"$root"*) ;;
*) fail "pkg-config --cflags rcuradix does not point into the stage" ;;
esac

# ---- 3. programs built from outside the source tree, through pkg-config only
cp "$srcdir"/examples/*.c "$srcdir"/tests/installed/*.c "$work"/
[ "$HAVE_CXX" = no ] || cp "$srcdir"/tests/header-cxx.cc "$work"/
# The EXAMPLE program of each manual page, roff escapes undone.
for page in "$srcdir"/man/man3/*.3 "$srcdir"/man/man7/*.7; do
	name=${page##*/}
	awk '/^\.SH / { ex = ($2 == "EXAMPLE"); next }
	     ex && /^\.EX/ { code = 1; next }
	     ex && /^\.EE/ { code = 0; next }
	     code' "$page" |
		sed 's/\\-/-/g; s/\\(aq/'"'"'/g; s/\\(ga/`/g; s/\\(ti/~/g; s/\\(ha/^/g; s/\\e/\\/g' \
			>"$work/man-${name%.*}.c"
	if grep -q 'int main' "$work/man-${name%.*}.c"; then :; else rm -f "$work/man-${name%.*}.c"; fi
done
# The README's example programs: the first ```c block after each heading.
readme_block() {  # $1: heading, $2: output file
	awk -v h="## $1" '$0 == h { sect = 1 } sect && /^```c/ { code = 1; next }
	     code && /^```/ { exit } code' "$srcdir/README.md" >"$2"
	grep -q 'int main' "$2" || fail "README.md: no program under '## $1'"
}
readme_block 'In twenty lines' "$work/readme-hello.c"
readme_block 'A minimal example' "$work/readme.c"
readme_block 'Ids: the IDR' "$work/readme-idr.c"
ls "$work"/man-*.c >/dev/null 2>&1 || fail "no manual page example found"

cd "$work" || exit 1
build_c() {  # $1: source file; the flavor module follows the header it includes
	flavor=liburcu-memb
	grep -q 'urcu/urcu-qsbr.h' "$1" && flavor=liburcu-qsbr
	# shellcheck disable=SC2046,SC2086 # word splitting of flags is intended
	$CC $DOC_CFLAGS -o "${1%.c}" "$1" $($PKG_CONFIG --cflags --libs rcuradix $flavor)
}
for src in *.c; do
	case $src in
	dlopen-check.c) continue ;;  # loads the library itself, below
	esac
	run build_c "$src"
done
if [ "$HAVE_CXX" = no ]; then
	echo "== no C++ compiler: the header under C++ not checked"
else
	# shellcheck disable=SC2046,SC2086
	run $CXX $DOC_CXXFLAGS -o header-cxx header-cxx.cc \
		$($PKG_CONFIG --cflags --libs rcuradix liburcu-memb)
	run ./header-cxx
fi

run ./pagecache 20000
run ./idtable 20000
run ./qsbr 20000
run ./demo
run ./readme
run ./readme-hello
run ./readme-idr
for prog in man-*.c; do
	run "./${prog%.c}"
done

# ---- 4. the program's malloc stays glibc's
if [ -n "$DOC_SANITIZERS" ]; then
	echo "== malloc check skipped: AddressSanitizer replaces malloc"
else
	echo "== ./malloc-check"
	./malloc-check >malloc-check.log 2>&1 || fail "malloc-check (see below)"
	cat malloc-check.log
	grep -q "^librcuradix: $root" malloc-check.log ||
		fail "malloc-check did not load the staged library"
	if [ "$DOC_JEMALLOC" = yes ]; then
		# Control: the same program linked with -ljemalloc must be caught.
		# shellcheck disable=SC2046,SC2086
		run $CC $DOC_CFLAGS -o malloc-control malloc-check.c \
			$($PKG_CONFIG --cflags --libs rcuradix liburcu-memb) \
			-Wl,--no-as-needed -ljemalloc
		if ./malloc-control >malloc-control.log 2>&1; then
			fail "malloc-check does not notice a program whose malloc is jemalloc's"
		else
			echo "== malloc-control: caught, as it must be"
		fi
		run ./malloc-control jemalloc
	fi
	# Static links: the malloc the documentation promises for this build.
	if [ "$DOC_JEMALLOC" = yes ]; then static_malloc=jemalloc; else static_malloc=glibc; fi
	if [ "$RT_STATIC" = yes ]; then
		libs=$($PKG_CONFIG --static --libs rcuradix)
		echo "pkg-config --static --libs rcuradix: $libs"
		case $DOC_JEMALLOC:$libs in
		yes:*-ljemalloc*-lm* | no:*) ;;
		*) fail "pkg-config --static --libs rcuradix lacks -ljemalloc -lm: $libs" ;;
		esac
		case $DOC_JEMALLOC:$libs in
		no:*jemalloc*) fail "jemalloc in the static link line of a libc-allocator build: $libs" ;;
		esac
		# shellcheck disable=SC2046,SC2086
		run $CC $DOC_CFLAGS -static -o malloc-static malloc-check.c \
			$($PKG_CONFIG --static --cflags --libs rcuradix liburcu-memb)
		run ./malloc-static $static_malloc
		# The archives static, libc (and libm, liburcu) shared.
		[ "$DOC_JEMALLOC" = yes ] && jemalloc=-ljemalloc || jemalloc=
		# shellcheck disable=SC2046,SC2086
		run $CC $DOC_CFLAGS -o malloc-bstatic malloc-check.c \
			$($PKG_CONFIG --cflags rcuradix liburcu-memb) \
			$($PKG_CONFIG --libs-only-L rcuradix) \
			-Wl,-Bstatic -lrcuradix $jemalloc -Wl,-Bdynamic \
			$($PKG_CONFIG --libs liburcu-memb) -lm -pthread
		if readelf -d malloc-bstatic | grep -q 'NEEDED.*librcuradix'; then
			fail "malloc-bstatic loads librcuradix.so: not a static link of the library"
		fi
		readelf -d malloc-bstatic | grep -q 'NEEDED.*libc\.so' ||
			fail "malloc-bstatic does not link libc dynamically"
		run ./malloc-bstatic $static_malloc
	else
		echo "== no static library (--disable-static): static links not checked"
	fi
fi

# ---- 5. dlopen and dlclose
lib=$root$DOC_LIBDIR/librcuradix.so
# shellcheck disable=SC2046,SC2086
run $CC $DOC_CFLAGS -o dlopen-check dlopen-check.c $($PKG_CONFIG --cflags rcuradix liburcu-memb) \
	$($PKG_CONFIG --libs liburcu-memb)
echo "== ./dlopen-check (no workaround)"
./dlopen-check "$lib" >dlopen-plain.log 2>&1
plain=$?
cat dlopen-plain.log
if [ "$DOC_JEMALLOC" = yes ] && [ -z "$DOC_SANITIZERS" ]; then
	# Loading may fail, but only for the documented reason.
	case $plain in
	0) echo "   loaded without a workaround" ;;
	2) grep -q 'static TLS' dlopen-plain.log ||
		fail "dlopen failed for another reason than static TLS" ;;
	*) fail "dlopen-check failed (exit $plain)" ;;
	esac
	GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384
	export GLIBC_TUNABLES
	run ./dlopen-check "$lib"
	unset GLIBC_TUNABLES
	LD_PRELOAD=libjemalloc.so.2  # found on the loader's search path
	export LD_PRELOAD
	run ./dlopen-check "$lib"
	unset LD_PRELOAD
else
	[ $plain -eq 0 ] || fail "dlopen-check failed without jemalloc (exit $plain)"
fi

# ---- 6. man finds the installed pages, aliases included
if command -v man >/dev/null 2>&1; then
	for name in radix_tree_insert radix_tree_delete radix_tree_for_each_slot rcuradix \
		rcuradix-torture; do
		text=$(MANPATH=$root$DOC_MANDIR MANWIDTH=80 MANPAGER=cat man "$name" 2>&1)
		case $text in
		*NAME*"$name"*SYNOPSIS*) ;;
		*) fail "man $name does not show its page: $text" ;;
		esac
	done
fi

# ---- 7. uninstall leaves nothing
cd "$builddir" || exit 1
if ! MAKEFLAGS= $MAKE uninstall DESTDIR="$root" >"$stage/uninstall.log" 2>&1; then
	cat "$stage/uninstall.log"
	fail "make uninstall DESTDIR=$root"
fi
left=$(find "$root" ! -type d)
[ -z "$left" ] || fail "make uninstall left files behind:
$left"

if [ $status -eq 0 ]; then
	rm -rf "$stage"
	echo "installed package: ok"
fi
exit $status
