# doc/local.mk - documentation and packaging, included by Makefile.am:
#   manual pages (installed; checked by groff and for coverage of every
#   public name), the examples (built by make, run by make check), the
#   version test, and the installed-package test (make install DESTDIR=...,
#   then programs built from outside the tree through pkg-config only).

# ---------------------------------------------------------------- manual pages
# Library: one page per function family; the other names are one-line .so
# aliases.
MAN3_PAGES = \
	man/man3/radix_tree_insert.3 \
	man/man3/radix_tree_lookup.3 \
	man/man3/radix_tree_gang_lookup.3 \
	man/man3/radix_tree_tag_set.3 \
	man/man3/radix_tree_preload.3 \
	man/man3/radix_tree_init_flavor.3 \
	man/man3/idr_alloc.3 \
	man/man3/idr_find.3 \
	man/man3/idr_remove.3 \
	man/man3/idr_init.3 \
	man/man3/ida_alloc.3
MAN3_ALIASES = \
	man/man3/radix_tree_delete.3 \
	man/man3/radix_tree_replace_slot.3 \
	man/man3/radix_tree_lookup_slot.3 \
	man/man3/radix_tree_lookup_le.3 \
	man/man3/radix_tree_next_hole.3 \
	man/man3/radix_tree_prev_hole.3 \
	man/man3/radix_tree_gang_lookup_slot.3 \
	man/man3/radix_tree_gang_lookup_reverse.3 \
	man/man3/radix_tree_gang_lookup_tag.3 \
	man/man3/radix_tree_gang_lookup_tag_slot.3 \
	man/man3/radix_tree_iter_init.3 \
	man/man3/radix_tree_next_chunk.3 \
	man/man3/radix_tree_iter_resume.3 \
	man/man3/radix_tree_iter_delete.3 \
	man/man3/radix_tree_for_each_slot.3 \
	man/man3/radix_tree_for_each_tagged.3 \
	man/man3/radix_tree_for_each_contig.3 \
	man/man3/radix_tree_next_slot.3 \
	man/man3/radix_tree_next_run.3 \
	man/man3/radix_tree_iter_key.3 \
	man/man3/radix_tree_iter_index.3 \
	man/man3/radix_tree_iter_tag_flags.3 \
	man/man3/radix_tree_tag_clear.3 \
	man/man3/radix_tree_tag_get.3 \
	man/man3/radix_tree_tagged.3 \
	man/man3/radix_tree_range_tag_if_tagged.3 \
	man/man3/RADIX_TREE_MAX_TAGS.3 \
	man/man3/radix_tree_maybe_preload.3 \
	man/man3/radix_tree_preload_end.3 \
	man/man3/rcuradix_thread_cache_flush.3 \
	man/man3/radix_tree_memory.3 \
	man/man3/rcuradix_get_stats.3 \
	man/man3/RADIX_TREE.3 \
	man/man3/RADIX_TREE_INIT.3 \
	man/man3/INIT_RADIX_TREE.3 \
	man/man3/radix_tree_destroy.3 \
	man/man3/radix_tree_lock.3 \
	man/man3/radix_tree_unlock.3 \
	man/man3/radix_tree_empty.3 \
	man/man3/radix_tree_count.3 \
	man/man3/radix_tree_count_range.3 \
	man/man3/radix_tree_verify.3 \
	man/man3/rcuradix_version.3 \
	man/man3/idr_alloc_u32.3 \
	man/man3/idr_alloc_cyclic.3 \
	man/man3/idr_get_next.3 \
	man/man3/idr_get_next_ul.3 \
	man/man3/idr_for_each.3 \
	man/man3/idr_for_each_entry.3 \
	man/man3/idr_for_each_entry_ul.3 \
	man/man3/idr_for_each_entry_continue.3 \
	man/man3/idr_replace.3 \
	man/man3/rcuradix_is_err.3 \
	man/man3/rcuradix_ptr_err.3 \
	man/man3/rcuradix_err_ptr.3 \
	man/man3/RCURADIX_MAX_ERRNO.3 \
	man/man3/idr_init_base.3 \
	man/man3/idr_init_flavor.3 \
	man/man3/DEFINE_IDR.3 \
	man/man3/IDR_INIT.3 \
	man/man3/IDR_INIT_BASE.3 \
	man/man3/idr_is_empty.3 \
	man/man3/idr_destroy.3 \
	man/man3/idr_preload.3 \
	man/man3/idr_preload_end.3 \
	man/man3/idr_lock.3 \
	man/man3/idr_unlock.3 \
	man/man3/ida_alloc_min.3 \
	man/man3/ida_alloc_max.3 \
	man/man3/ida_alloc_range.3 \
	man/man3/ida_free.3 \
	man/man3/ida_init.3 \
	man/man3/DEFINE_IDA.3 \
	man/man3/IDA_INIT.3 \
	man/man3/ida_is_empty.3 \
	man/man3/ida_destroy.3
dist_man3_MANS = $(MAN3_PAGES) $(MAN3_ALIASES)
dist_man7_MANS = man/man7/rcuradix.7
# The installed programs (bin_PROGRAMS: stress/local.mk).
dist_man1_MANS = man/man1/rcuradix-torture.1

EXTRA_DIST += NEWS doc/design.md doc/local.mk

# ---------------------------------------------------------------- examples
# Built by `make` (like examples/demo), run with short parameters by
# tests/examples.sh.
EXAMPLE_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include
noinst_PROGRAMS += examples/pagecache examples/idtable examples/qsbr
examples_pagecache_SOURCES = examples/pagecache.c
examples_pagecache_CPPFLAGS = $(EXAMPLE_CPPFLAGS) $(URCU_MEMB_CFLAGS)
examples_pagecache_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)
examples_idtable_SOURCES = examples/idtable.c
examples_idtable_CPPFLAGS = $(EXAMPLE_CPPFLAGS) $(URCU_MEMB_CFLAGS)
examples_idtable_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)
examples_qsbr_SOURCES = examples/qsbr.c
examples_qsbr_CPPFLAGS = $(EXAMPLE_CPPFLAGS) $(URCU_QSBR_CFLAGS)
examples_qsbr_LDADD = lib/librcuradix.la $(URCU_QSBR_LIBS) $(PTHREAD_LIBS)

# ---------------------------------------------------------------- tests
check_PROGRAMS += tests/version
tests_version_SOURCES = tests/version.c
tests_version_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include
tests_version_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)

DOC_TESTS = \
	tests/man-check.sh \
	tests/man-coverage.sh \
	tests/examples.sh \
	tests/installed.sh
TESTS += tests/version $(DOC_TESTS)
LIBCODE_TESTS += tests/version tests/examples.sh
tests/examples.log: examples/pagecache$(EXEEXT) examples/idtable$(EXEEXT) examples/qsbr$(EXEEXT)
EXTRA_DIST += $(DOC_TESTS) \
	tests/installed/malloc-check.c \
	tests/installed/dlopen-check.c

# What the scripts need to know about this build.  The installed-package
# test runs `$(MAKE) install DESTDIR=...` itself, into the build tree.
if NODE_ALLOC_JEMALLOC
DOC_JEMALLOC = yes
else
DOC_JEMALLOC = no
endif
AM_TESTS_ENVIRONMENT += \
	MAKE='$(MAKE)'; CC='$(CC)'; CXX='$(CXX)'; PKG_CONFIG='$(PKG_CONFIG)'; \
	GROFF='$(GROFF)'; PACKAGE_VERSION='$(PACKAGE_VERSION)'; \
	DOC_CFLAGS='$(WARN_CFLAGS) $(PTHREAD_CFLAGS) $(SANITIZE_FLAGS)'; \
	DOC_CXXFLAGS='$(WARN_CXXFLAGS) $(PTHREAD_CFLAGS) $(SANITIZE_FLAGS)'; \
	DOC_SANITIZERS='$(SANITIZE_FLAGS)'; DOC_JEMALLOC='$(DOC_JEMALLOC)'; \
	DOC_LIBDIR='$(libdir)'; DOC_PKGCONFIGDIR='$(pkgconfigdir)'; DOC_MANDIR='$(mandir)'; \
	DOC_INCLUDEDIR='$(includedir)'; \
	export MAKE CC CXX PKG_CONFIG GROFF PACKAGE_VERSION DOC_CFLAGS DOC_CXXFLAGS \
		DOC_SANITIZERS DOC_JEMALLOC DOC_LIBDIR DOC_PKGCONFIGDIR DOC_MANDIR \
		DOC_INCLUDEDIR;

# A failed installed-package run leaves its staging tree for inspection.
clean-local: clean-local-doc
clean-local-doc:
	-rm -rf tests/installed.tmp
.PHONY: clean-local-doc
