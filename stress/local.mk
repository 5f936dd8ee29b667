# stress/local.mk - the torture program, its regression scenarios and the
# torture matrices (included from Makefile.am).
#
#   make check        short matrix: each case below runs ~1-3 s
#   make torture      the same cases, TORTURE_LONG seconds each (default 30)
#   make check-loop   make check again and again until the first failure
#
# A case is a small file stress/cases/NAME.torture naming the binary and its
# arguments; stress/run-case.sh runs it.  TORTURE_DURATION=S overrides every
# case's duration, TORTURE_SEED=X replays a seed.

TORTURE_SOURCES = stress/torture.c stress/scenarios.c stress/idr-torture.c stress/common.c \
	stress/torture.h
TORTURE_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include $(URCU_MEMB_CFLAGS) $(URCU_QSBR_CFLAGS) \
	$(URCU_MB_CFLAGS) $(URCU_BP_CFLAGS)
TORTURE_LIBS = $(URCU_MEMB_LIBS) $(URCU_QSBR_LIBS) $(URCU_MB_LIBS) $(URCU_BP_LIBS) \
	$(PTHREAD_LIBS)

# Installed tool: the public API of the installed shared library.
bin_PROGRAMS = stress/rcuradix-torture
stress_rcuradix_torture_SOURCES = $(TORTURE_SOURCES)
stress_rcuradix_torture_CPPFLAGS = $(TORTURE_CPPFLAGS)
stress_rcuradix_torture_LDADD = lib/librcuradix.la $(TORTURE_LIBS)

# The same program on the 8-slot debug build: deep trees from small keys.
check_PROGRAMS += stress/rcuradix-torture-8
stress_rcuradix_torture_8_SOURCES = $(TORTURE_SOURCES)
stress_rcuradix_torture_8_CPPFLAGS = $(TORTURE_CPPFLAGS)
stress_rcuradix_torture_8_LDADD = lib/libtest8.la $(LIB_JEMALLOC) $(TORTURE_LIBS)

TORTURE_CASES = \
	stress/cases/memb-dense-64.torture \
	stress/cases/memb-sparse-64.torture \
	stress/cases/qsbr-dense-64.torture \
	stress/cases/qsbr-sparse-64-yield.torture \
	stress/cases/mb-clustered-64.torture \
	stress/cases/memb-clustered-8.torture \
	stress/cases/qsbr-sparse-8.torture \
	stress/cases/memb-dense-8-yield.torture \
	stress/cases/bp-dense-8.torture \
	stress/cases/memb-single-key-64.torture \
	stress/cases/qsbr-single-key-8.torture \
	stress/cases/gang-livelock-64.torture \
	stress/cases/gang-livelock-8-qsbr.torture \
	stress/cases/grow-shrink-64.torture \
	stress/cases/grow-shrink-far-64-qsbr.torture \
	stress/cases/grow-shrink-far-8.torture \
	stress/cases/tagged-iter-64.torture \
	stress/cases/tagged-iter-8-qsbr.torture \
	stress/cases/memb-prefix-64.torture \
	stress/cases/qsbr-prefix-8.torture \
	stress/cases/qsbr-onebit-64.torture \
	stress/cases/memb-onebit-8.torture \
	stress/cases/memb-runs-64.torture \
	stress/cases/qsbr-runs-8.torture \
	stress/cases/qsbr-clustered64-64.torture \
	stress/cases/memb-clustered64-8.torture \
	stress/cases/memb-uniform64-64.torture \
	stress/cases/qsbr-uniform64-8.torture \
	stress/cases/qsbr-mixed-64.torture \
	stress/cases/memb-mixed-8.torture \
	stress/cases/memb-idr-64.torture \
	stress/cases/qsbr-idr-64.torture \
	stress/cases/memb-idr-8.torture \
	stress/cases/qsbr-idr-8.torture

TESTS += $(TORTURE_CASES)
LIBCODE_TESTS += $(TORTURE_CASES)
$(TORTURE_CASES:.torture=.log): stress/rcuradix-torture$(EXEEXT) stress/rcuradix-torture-8$(EXEEXT)
TEST_EXTENSIONS += .torture
TORTURE_LOG_COMPILER = $(SHELL) $(top_srcdir)/stress/run-case.sh
EXTRA_DIST += $(TORTURE_CASES) stress/run-case.sh

TORTURE_LONG = 30
torture: stress/rcuradix-torture stress/rcuradix-torture-8
	TORTURE_DURATION=$(TORTURE_LONG) $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(TORTURE_CASES)'

check-loop:
	@n=0; while $(MAKE) $(AM_MAKEFLAGS) check; do \
	  n=$$((n + 1)); echo "=== check-loop: $$n clean passes"; \
	done; echo "=== check-loop: make check failed after $$n clean passes"; exit 1

.PHONY: torture check-loop

# radix_tree_range_tag_if_tagged() tags nothing past the range's end: the
# shapes the torture's range tagging exercises, reduced to a few lines.
check_PROGRAMS += stress/repro-range-tag
TESTS += stress/repro-range-tag
LIBCODE_TESTS += stress/repro-range-tag
stress_repro_range_tag_SOURCES = stress/repro-range-tag.c
stress_repro_range_tag_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include $(URCU_MEMB_CFLAGS)
stress_repro_range_tag_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)

# make check-valgrind: the unit suites (VALGRIND_SUITES below) and three
# short tortures side by side (the tree on memb and on qsbr, the IDR on
# memb), under valgrind memcheck; any error or leak fails.  The long suites
# (random, concurrent, the writer loops of tags and iter, preload's thread
# churn) run a twentieth of their operations (RCURADIX_TEST_SCALE,
# tests/helpers.c t_scaled()): valgrind is ~50x slower, and what it checks
# -- every byte freed, nothing read after free or uninitialised -- needs
# every path, not every repetition.  Configure with
# --with-node-allocator=libc so that every node is its own malloc block that
# valgrind tracks.  stress/valgrind-check.sh explains why Criterion programs
# need per-process logs, and why glibc's stack cache is turned off.
VALGRIND_TEST_SCALE = 20
VALGRIND_JOBS = 2  # suites run side by side (valgrind runs one thread at a time)
# Each test is a process of its own, and under valgrind a process takes
# about a second to start.  So the default runs the 64-slot suites of the
# tree and the IDA (the IDR's run in its torture below, one process) and,
# of the 8-slot build (the same code in deeper trees, all of whose suites
# run under ASan and UBSan in the sanitizer build), the random
# differential.  make check-valgrind-all runs all twenty.  Longest first,
# so that the jobs end together.
VALGRIND_SUITES = tests/iter-64 tests/basic-64 tests/concurrent-64 tests/shapes-64 \
	tests/tags-64 tests/preload-64 tests/ida-64 tests/gang-64 tests/random-8 tests/random-64
VALGRIND_TORTURE_SECONDS = 10
# The tree on each of two flavors; idr-FLAVOR: the IDR mode.
VALGRIND_TORTURES = memb qsbr idr-memb
VALGRIND_TORTURE_FLAGS = --error-exitcode=1 --leak-check=full \
	--errors-for-leak-kinds=definite,possible \
	--suppressions=$(top_srcdir)/stress/valgrind.supp
if HAVE_CRITERION
check-valgrind: $(VALGRIND_SUITES) stress/rcuradix-torture-8
	@case '$(NODE_ALLOC_CPPFLAGS)' in *LIBC*) ;; *) echo "check-valgrind: note:" \
	  "configure --with-node-allocator=libc to let valgrind see every node";; esac
	printf '%s\n' $(VALGRIND_SUITES) | top_srcdir='$(top_srcdir)' \
	  RCURADIX_TEST_SCALE=$(VALGRIND_TEST_SCALE) xargs -P $(VALGRIND_JOBS) -n 1 \
	  $(SHELL) $(top_srcdir)/stress/valgrind-check.sh
	@for run in $(VALGRIND_TORTURES); do \
	  log=stress/valgrind-torture-$$run.log; \
	  case $$run in \
	    idr-*) args="--idr --idr-base 1000 --keys 1024 --flavor $${run#idr-}";; \
	    *) args="--flavor $$run";; \
	  esac; \
	  echo "valgrind rcuradix-torture-8 $$args" \
	    "--duration $(VALGRIND_TORTURE_SECONDS) (log: $$log)"; \
	  { GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0 \
	    valgrind $(VALGRIND_TORTURE_FLAGS) stress/rcuradix-torture-8 $$args \
	      --duration $(VALGRIND_TORTURE_SECONDS) >$$log 2>&1; echo $$? >$$log.rc; } & \
	done; wait; status=0; \
	for run in $(VALGRIND_TORTURES); do \
	  log=stress/valgrind-torture-$$run.log; \
	  if test "`cat $$log.rc`" = 0; then grep '^SUMMARY' $$log; \
	  else cat $$log; status=1; fi; \
	done; exit $$status
# Every unit suite of both node builds.
check-valgrind-all:
	$(MAKE) $(AM_MAKEFLAGS) check-valgrind VALGRIND_SUITES='$(UNIT_TESTS)'
else
check-valgrind check-valgrind-all:
	@echo "check-valgrind runs the Criterion unit suites: install Criterion" \
	  "(libcriterion-dev) and re-run configure" >&2
	@exit 1
endif
EXTRA_DIST += stress/valgrind.supp stress/valgrind-check.sh doc/testing.md
CLEANFILES += stress/valgrind-torture-memb.log stress/valgrind-torture-qsbr.log \
	stress/valgrind-torture-idr-memb.log stress/valgrind-torture-memb.log.rc \
	stress/valgrind-torture-qsbr.log.rc stress/valgrind-torture-idr-memb.log.rc
.PHONY: check-valgrind check-valgrind-all
