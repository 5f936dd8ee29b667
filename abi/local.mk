# abi/local.mk - the library's ABI, included by Makefile.am.  When each file
# changes: doc/releasing.md.
#   abi/librcuradix.so.1.abi         libabigail's dump of the library:
#                                    tests/abi-check.sh (make check, when
#                                    configure found abidw and abidiff)
#                                    compares the build with it; make
#                                    abi-baseline rewrites it.
ABI_FILES = abi/librcuradix.so.1.abi
EXTRA_DIST += abi/local.mk $(ABI_FILES) tests/abi-check.sh

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
