# abi/local.mk - the library's ABI, included by Makefile.am.  When each file
# changes: doc/releasing.md.
#   abi/librcuradix.so.1.abi         libabigail's dump of the library:
#                                    tests/abi-check.sh (make check, when
#                                    configure found abidw and abidiff)
#                                    compares the build with it; make
#                                    abi-baseline rewrites it.
#   abi/0.2.0/rcuradix/radix-tree.h  the reference release's public header:
#                                    tests/abi-inline is compiled against it
#                                    and linked with this library, since
#                                    abidiff cannot see the header's inline
#                                    walk steps compiled into programs.
ABI_FILES = abi/librcuradix.so.1.abi abi/0.2.0/rcuradix/radix-tree.h
EXTRA_DIST += abi/local.mk $(ABI_FILES) tests/abi-check.sh doc/releasing.md

if HAVE_ABIGAIL
TESTS += tests/abi-check.sh
endif
CLEANFILES += tests/abi-check.current.abi
AM_TESTS_ENVIRONMENT += \
	ABIDW='$(ABIDW)'; ABIDIFF='$(ABIDIFF)'; HAVE_ABIGAIL='$(HAVE_ABIGAIL)'; \
	export ABIDW ABIDIFF HAVE_ABIGAIL;

abi-baseline: lib/librcuradix.la
	$(AM_V_GEN)top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' \
	ABIDW='$(ABIDW)' $(SHELL) $(top_srcdir)/tests/abi-check.sh --write
.PHONY: abi-baseline

# The reference header comes first on the include path; version.h (macros
# only) comes from this build.  Never -I$(top_srcdir)/include.
check_PROGRAMS += tests/abi-inline
TESTS += tests/abi-inline
LIBCODE_TESTS += tests/abi-inline
tests_abi_inline_SOURCES = tests/abi-inline.c tests/model.c tests/model.h tests/xorshift.h
tests_abi_inline_CPPFLAGS = -I$(top_srcdir)/abi/0.2.0 -I$(top_builddir)/include \
	-I$(top_srcdir)/tests $(URCU_MEMB_CFLAGS)
tests_abi_inline_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS) -ldl
