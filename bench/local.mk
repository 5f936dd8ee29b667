# bench/local.mk - the benchmarks, included from Makefile.am.
#
#   bench/rcuradix-bench   rcuradix vs JudyL, JudyL+rwlock, cds_lfht and a flat
#                          array (built when Judy is installed); `make bench`
#                          runs the default matrix (~2 minutes), `make
#                          bench-full` the whole one, `make bench-sharing`
#                          the named scenarios (a thread alone and next to
#                          another one: shared cache lines), `make
#                          bench-targets` the compressed-node targets,
#                          `make bench-plot` the sweep of N drawn by
#                          bench/plot.sh (bench-plot-quick: a tiny one).
#                          tests/bench-smoke.sh keeps it from rotting.
#   bench/node-alloc-bench the node allocator micro-benchmark (doc/allocator.md):
#                          four copies of the library, one per node backend,
#                          built by `make bench-node-alloc-programs` (or make
#                          check, for tests/node-alloc-smoke.sh), not by
#                          `make`; `make bench-node-alloc` runs it.
#   bench/cg-probe         instruction counts per operation under callgrind.
#   bench/lines-probe      cache lines per lookup, rcuradix against JudyL, under
#                          callgrind's cache simulation (bench/lines-probe.sh).
#   bench/walk-probe       instructions per item of a walk, under callgrind.
#   bench/lookup-ab        lookups of two builds of librcuradix, side by side
#                          in one process (small differences on a noisy machine).
#   bench/lock-probe       the price of a futex wake and a membarrier here, and
#                          the lock waits of two threads churning one IDR.
#   bench/idr-bench        the IDR and IDA against a mutex with a free list or a
#                          bitmap next to cds_lfht (`make bench-idr`; needs no
#                          Judy); tests/idr-bench-smoke.sh keeps it from rotting.
#                          `make bench-kernel-idr` adds the Linux kernel's own
#                          IDR and IDA (bench/kernel-idr/libkidr.so, built by
#                          bench/kernel-idr-build from Debian's linux-source-6.1
#                          tarball at bench time: no kernel file is in this
#                          tree); bench/kernel-idr-smoke.sh, when the tarball is
#                          installed.
#   bench/hole-bench       hole scans per key passed, next to a walk and JudyL's
#                          NextEmpty/PrevEmpty; tests/hole-bench-smoke.sh keeps
#                          it from rotting.

BENCH_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include -I$(top_srcdir)/bench $(NODE_ALLOC_CPPFLAGS) \
	$(URCU_MEMB_CFLAGS) $(URCU_CDS_CFLAGS)
BENCH_CSV = bench-results.csv

EXTRA_DIST += bench/plot.sh bench/csv2md.sh tests/bench-smoke.sh

if HAVE_JUDY
noinst_PROGRAMS += bench/rcuradix-bench
bench_rcuradix_bench_SOURCES = bench/bench.h bench/main.c bench/util.c bench/keys.c \
	bench/peers.c bench/single.c bench/concurrent.c bench/sharing.c bench/targets.c
bench_rcuradix_bench_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_rcuradix_bench_LDADD = lib/librcuradix.la $(URCU_CDS_LIBS) $(URCU_MEMB_LIBS) \
	$(JUDY_LIBS) $(PTHREAD_LIBS) -ldl -lm
TESTS += tests/bench-smoke.sh

# Default matrix (about two minutes on 2 cores), then the whole one.
bench: bench/rcuradix-bench
	./bench/rcuradix-bench --csv $(BENCH_CSV)
	@echo "CSV: $(BENCH_CSV); plots: $(srcdir)/bench/plot.sh $(BENCH_CSV) DIR"

bench-full: bench/rcuradix-bench
	./bench/rcuradix-bench --full --csv bench-full.csv
	@echo "CSV: bench-full.csv; plots: $(srcdir)/bench/plot.sh bench-full.csv DIR"
# The named scenarios (doc/performance.md, "Reader next to a writer"): 7
# interleaved repetitions of 1 s runs each; apart from the default matrix,
# which they would take past its two minutes.
bench-sharing: bench/rcuradix-bench
	./bench/rcuradix-bench --scenario all --csv bench-sharing.csv
	@echo "CSV: bench-sharing.csv"
# The compressed-node targets (doc/performance.md, "Compressed-node targets:
# how to measure"): five key sets at 2^16, 2^18 and 2^20, against JudyL
# and cds_lfht; long (uniform 64-bit keys take gigabytes at 2^20).
bench-targets: bench/rcuradix-bench
	./bench/rcuradix-bench --targets --csv bench-targets.csv
	@echo "CSV: bench-targets.csv"
# Bytes per key and lookups of every key set from 2^10 to 2^22 keys, drawn
# by bench/plot.sh (gnuplot); bench-plot-quick: 2^10 and 2^12, one
# repetition, as the smoke test runs it.
bench-plot: bench/rcuradix-bench
	./bench/rcuradix-bench --sweep --csv bench-sweep.csv
	$(SHELL) $(srcdir)/bench/plot.sh bench-sweep.csv bench-plots
bench-plot-quick: bench/rcuradix-bench
	./bench/rcuradix-bench --sweep --smoke --quiet --csv bench-sweep.csv
	$(SHELL) $(srcdir)/bench/plot.sh bench-sweep.csv bench-plots
else
bench bench-full bench-sharing bench-targets bench-plot bench-plot-quick:
	@echo "rcuradix-bench needs Judy (libjudy-dev): install it and re-run configure" >&2
	@exit 1
endif
.PHONY: bench bench-full bench-sharing bench-targets bench-plot bench-plot-quick
CLEANFILES += $(BENCH_CSV) bench-full.csv bench-sharing.csv bench-targets.csv bench-sweep.csv
clean-local: clean-bench-plots clean-kernel-idr
clean-bench-plots:
	-rm -rf bench-plots
.PHONY: clean-bench-plots

# The IDR and IDA against what applications write without them
# (doc/performance.md, "IDR and IDA"): liburcu-cds, which configure requires,
# and no Judy.  bench-idr: N = 2^20, 5 repetitions (1.5 minutes on 2 CPUs);
# bench/idr-bench --full adds the pair cost at 2^22 and 2^24 ids.
noinst_PROGRAMS += bench/idr-bench
bench_idr_bench_SOURCES = bench/idr.c bench/bench.h bench/kernel-idr.h bench/util.c bench/keys.c
bench_idr_bench_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_idr_bench_LDADD = lib/librcuradix.la $(URCU_CDS_LIBS) $(URCU_MEMB_LIBS) \
	$(PTHREAD_LIBS) -ldl -lm
TESTS += tests/idr-bench-smoke.sh
EXTRA_DIST += tests/idr-bench-smoke.sh
bench-idr: bench/idr-bench
	./bench/idr-bench --csv bench-idr.csv
	@echo "CSV: bench-idr.csv"
.PHONY: bench-idr
CLEANFILES += bench-idr.csv

# The Linux kernel's own IDR and IDA as idr-bench's fifth column
# (doc/performance.md, "IDR and IDA").  The kernel's files (GPL-2.0) are never
# in this tree: bench/kernel-idr-build (bench/kernel-idr.sh with configure's
# compiler and flags) extracts lib/idr.c, lib/radix-tree.c, lib/xarray.c and
# the headers of the kernel's userspace harness from
# /usr/src/linux-source-6.1.tar.xz (Debian's linux-source-6.1) into
# bench/kernel-idr/ and links them with bench/kernel-idr.c, the glue, into
# bench/kernel-idr/libkidr.so, which exports kidr_* and kida_* only;
# idr-bench --kernel loads it with dlopen().  Nothing of it runs unless the
# tarball is installed: bench/kernel-idr-smoke.sh (make check) skips
# without it, and `make bench-kernel-idr` fails naming the package.
# KIDR_BENCH_FLAGS: more idr-bench options (--reps 7, --n 16, ...).
KIDR_DIR = bench/kernel-idr
KIDR_BENCH_FLAGS =
check_SCRIPTS += bench/kernel-idr-build
bench/kernel-idr-build: $(srcdir)/bench/kernel-idr.sh Makefile
	$(AM_V_GEN)$(MKDIR_P) bench && \
	sed -e 's|@KIDR_CC@|$(CC)|g' -e 's|@KIDR_CFLAGS@|$(CFLAGS)|g' -e 's|@KIDR_WARN_CFLAGS@|$(WARN_CFLAGS)|g' \
	    -e 's|@KIDR_PTHREAD_CFLAGS@|$(PTHREAD_CFLAGS)|g' -e 's|@KIDR_PTHREAD_LIBS@|$(PTHREAD_LIBS)|g' \
	    -e 's|@KIDR_URCU_MEMB_CFLAGS@|$(URCU_MEMB_CFLAGS)|g' \
	    -e 's|@KIDR_URCU_MEMB_LIBS@|$(URCU_MEMB_LIBS)|g' \
	    -e 's|@KIDR_SRCDIR@|$(abs_top_srcdir)|g' \
	    $(srcdir)/bench/kernel-idr.sh >$@.tmp && \
	chmod +x $@.tmp && mv -f $@.tmp $@
# The library alone (about 20 s the first time, the tarball's extraction
# most of it), then the benchmark with it: N = 2^20, 5 repetitions.
bench-kernel-idr-lib: bench/kernel-idr-build
	./bench/kernel-idr-build $(KIDR_DIR)
bench-kernel-idr: bench/idr-bench bench-kernel-idr-lib
	./bench/idr-bench --kernel $(KIDR_DIR)/libkidr.so --csv bench-kernel-idr.csv $(KIDR_BENCH_FLAGS)
	@echo "CSV: bench-kernel-idr.csv"
.PHONY: bench-kernel-idr bench-kernel-idr-lib clean-kernel-idr
CLEANFILES += bench/kernel-idr-build bench-kernel-idr.csv
clean-kernel-idr:
	-rm -rf $(KIDR_DIR)
TESTS += bench/kernel-idr-smoke.sh
EXTRA_DIST += bench/kernel-idr.sh bench/kernel-idr.c bench/kernel-idr-smoke.sh

# The cache lines a lookup reads, rcuradix against JudyL (callgrind's cache
# simulation; bench/lines-probe.sh prints the table).  Not under sanitizers,
# which valgrind cannot run.
if HAVE_JUDY
if !SANITIZERS
noinst_PROGRAMS += bench/lines-probe
bench_lines_probe_SOURCES = bench/lines-probe.c bench/bench.h bench/callgrind.h bench/keys.c
bench_lines_probe_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_lines_probe_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(JUDY_LIBS) $(PTHREAD_LIBS)
# A real executable, not a libtool wrapper script: valgrind runs it directly.
bench_lines_probe_LDFLAGS = -no-install
TESTS += tests/lines-probe-smoke.sh
endif
endif
EXTRA_DIST += bench/lines-probe.sh tests/lines-probe-smoke.sh

# Instructions per item of a walk of a bench key set, under callgrind
# (doc/performance.md); the smoke test runs it natively.
noinst_PROGRAMS += bench/walk-probe
bench_walk_probe_SOURCES = bench/walk-probe.c bench/bench.h bench/callgrind.h bench/keys.c
bench_walk_probe_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_walk_probe_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)
bench_walk_probe_LDFLAGS = -no-install
TESTS += tests/walk-probe-smoke.sh
EXTRA_DIST += tests/walk-probe-smoke.sh

# The cost of a hole scan per key passed, next to a walk and JudyL's
# NextEmpty/PrevEmpty (doc/performance.md, "Hole scans").
noinst_PROGRAMS += bench/hole-bench
bench_hole_bench_SOURCES = bench/hole-bench.c bench/bench.h bench/util.c bench/keys.c
bench_hole_bench_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_hole_bench_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS) -ldl -lm
bench_hole_bench_LDFLAGS = -no-install
if HAVE_JUDY
bench_hole_bench_CPPFLAGS += -DHAVE_JUDY_H
bench_hole_bench_LDADD += $(JUDY_LIBS)
endif
TESTS += tests/hole-bench-smoke.sh
EXTRA_DIST += tests/hole-bench-smoke.sh

# Lookups of two builds of the library side by side in one process
# (doc/performance.md, "Two builds side by side"): it loads them with
# dlmopen(), which ASan does not support.
if !SANITIZERS
noinst_PROGRAMS += bench/lookup-ab
bench_lookup_ab_SOURCES = bench/lookup-ab.c bench/bench.h bench/keys.c
bench_lookup_ab_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_lookup_ab_LDADD = -ldl
bench_lookup_ab_LDFLAGS = -no-install
TESTS += tests/lookup-ab-smoke.sh
endif
EXTRA_DIST += tests/lookup-ab-smoke.sh

# What a writer that finds the tree lock taken pays: a futex wake, a
# membarrier, and the waits of two threads churning one IDR
# (doc/performance.md, "How long a waiter spins").
noinst_PROGRAMS += bench/lock-probe
bench_lock_probe_SOURCES = bench/lock-probe.c bench/bench.h bench/util.c bench/keys.c
bench_lock_probe_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_lock_probe_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS) -ldl -lm
TESTS += tests/lock-probe-smoke.sh
EXTRA_DIST += tests/lock-probe-smoke.sh

# Instruction counts per operation under callgrind (doc/performance.md).
noinst_PROGRAMS += bench/cg-probe
bench_cg_probe_SOURCES = bench/cg-probe.c bench/callgrind.h
bench_cg_probe_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include $(URCU_MEMB_CFLAGS)
bench_cg_probe_LDADD = lib/librcuradix.la $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)

# ---- node-alloc-bench: one copy of the library per node backend -----------
# Benchmarks under sanitizers measure nothing useful (and jemalloc linked into
# an ASan program fights its interceptors): not built there.
# One more compilation of the library (and of four backends), which
# nothing but this benchmark and its smoke test uses: check-only, so that
# `make` (and so make install and the Debian package build) leaves it out.  make check builds
# them for tests/node-alloc-smoke.sh, which is also what proves, in make
# distcheck, that the tarball has their sources; `make
# bench-node-alloc-programs` builds them alone, `make bench-node-alloc` runs
# the benchmark (NODE_ALLOC_BENCH_FLAGS: its options, --reps 7 ...).
if !SANITIZERS
NODE_ALLOC_BACKENDS = slab jemalloc jemalloc-arena libc
NA_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include -I$(top_srcdir)/lib -DRCURADIX_BUILDING \
	$(URCU_MEMB_CFLAGS) $(JEMALLOC_CFLAGS)
NA_LIBS = $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)
# rcuradix-bench's key sets (same generator, same seed) for --tree.
NA_BENCH_SOURCES = bench/node-alloc.c bench/bench.h bench/keys.c

# The layers above the backend never name it (only the backend file
# differs between the copies), so they are compiled once, into
# libna-common.la, and each copy adds its backend to them.
check_LTLIBRARIES += bench/libna-common.la bench/libna-slab.la bench/libna-jemalloc.la \
	bench/libna-arena.la bench/libna-libc.la
bench_libna_common_la_SOURCES = $(LIB_COMMON_SOURCES)
bench_libna_common_la_CPPFLAGS = $(NA_CPPFLAGS)
bench_libna_common_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
bench_libna_common_la_LIBTOOLFLAGS = $(CONVENIENCE_LIBTOOLFLAGS)
bench_libna_slab_la_SOURCES = lib/backend-slab.c
bench_libna_slab_la_CPPFLAGS = $(NA_CPPFLAGS)
bench_libna_slab_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
bench_libna_slab_la_LIBTOOLFLAGS = $(CONVENIENCE_LIBTOOLFLAGS)
bench_libna_slab_la_LIBADD = bench/libna-common.la
bench_libna_jemalloc_la_SOURCES = lib/backend-jemalloc.c
bench_libna_jemalloc_la_CPPFLAGS = $(NA_CPPFLAGS)
bench_libna_jemalloc_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
bench_libna_jemalloc_la_LIBTOOLFLAGS = $(CONVENIENCE_LIBTOOLFLAGS)
bench_libna_jemalloc_la_LIBADD = bench/libna-common.la
bench_libna_arena_la_SOURCES = lib/backend-arena.c
bench_libna_arena_la_CPPFLAGS = $(NA_CPPFLAGS)
bench_libna_arena_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
bench_libna_arena_la_LIBTOOLFLAGS = $(CONVENIENCE_LIBTOOLFLAGS)
bench_libna_arena_la_LIBADD = bench/libna-common.la
bench_libna_libc_la_SOURCES = lib/backend-libc.c
bench_libna_libc_la_CPPFLAGS = $(NA_CPPFLAGS)
bench_libna_libc_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
bench_libna_libc_la_LIBTOOLFLAGS = $(CONVENIENCE_LIBTOOLFLAGS)
bench_libna_libc_la_LIBADD = bench/libna-common.la

NA_BENCH_BINS = bench/node-alloc-bench-slab bench/node-alloc-bench-jemalloc \
	bench/node-alloc-bench-jemalloc-arena bench/node-alloc-bench-libc
check_PROGRAMS += $(NA_BENCH_BINS)
bench_node_alloc_bench_slab_SOURCES = $(NA_BENCH_SOURCES)
bench_node_alloc_bench_slab_CPPFLAGS = $(NA_CPPFLAGS) -DRT_ALLOC_SLAB
bench_node_alloc_bench_slab_LDADD = bench/libna-slab.la $(JEMALLOC_LIBS) $(NA_LIBS)
bench_node_alloc_bench_jemalloc_SOURCES = $(NA_BENCH_SOURCES)
bench_node_alloc_bench_jemalloc_CPPFLAGS = $(NA_CPPFLAGS) -DRT_ALLOC_JEMALLOC
bench_node_alloc_bench_jemalloc_LDADD = bench/libna-jemalloc.la $(JEMALLOC_LIBS) $(NA_LIBS)
bench_node_alloc_bench_jemalloc_arena_SOURCES = $(NA_BENCH_SOURCES)
bench_node_alloc_bench_jemalloc_arena_CPPFLAGS = $(NA_CPPFLAGS) -DRT_ALLOC_JEMALLOC_ARENA
bench_node_alloc_bench_jemalloc_arena_LDADD = bench/libna-arena.la $(JEMALLOC_LIBS) $(NA_LIBS)
# No jemalloc at all in this copy: its aligned_alloc must be glibc's.
bench_node_alloc_bench_libc_SOURCES = $(NA_BENCH_SOURCES)
bench_node_alloc_bench_libc_CPPFLAGS = $(NA_CPPFLAGS) -DRT_ALLOC_LIBC -DNODE_ALLOC_NO_JEMALLOC
bench_node_alloc_bench_libc_LDADD = bench/libna-libc.la $(NA_LIBS)

# The driver: runs the copies interleaved and prints medians.
check_SCRIPTS += bench/node-alloc-bench
bench/node-alloc-bench: $(srcdir)/bench/node-alloc-bench.sh Makefile
	$(AM_V_GEN)$(MKDIR_P) bench && \
	sed 's/@BACKENDS@/$(NODE_ALLOC_BACKENDS)/' $(srcdir)/bench/node-alloc-bench.sh >$@ && \
	chmod +x $@
CLEANFILES += bench/node-alloc-bench
TESTS += tests/node-alloc-smoke.sh
NODE_ALLOC_BENCH_FLAGS =
bench-node-alloc-programs: bench/node-alloc-bench $(NA_BENCH_BINS)
bench-node-alloc: bench-node-alloc-programs
	./bench/node-alloc-bench $(NODE_ALLOC_BENCH_FLAGS)
else
bench-node-alloc-programs bench-node-alloc:
	@echo "node-alloc-bench is not built under sanitizers: configure without" \
	  "--enable-sanitizers" >&2
	@exit 1
endif
.PHONY: bench-node-alloc-programs bench-node-alloc
EXTRA_DIST += bench/node-alloc-bench.sh tests/node-alloc-smoke.sh

# The published figures (doc/performance.md, doc/allocator.md) and the data
# and plots behind them.
EXTRA_DIST += doc/performance.md doc/allocator.md doc/perf/machine.txt \
	doc/perf/bench.csv doc/perf/bench.txt doc/perf/bench-quiet.csv \
	doc/perf/bench-current.csv doc/perf/bench-current.txt \
	doc/perf/bench-current-conc.csv doc/perf/bench-current-conc.txt \
	doc/perf/bench-H.csv doc/perf/bench-H.txt doc/perf/bench-P.csv doc/perf/bench-P.txt \
	doc/perf/bench-K.csv doc/perf/bench-K.txt \
	doc/perf/bench-S.txt doc/perf/bench-S1.csv doc/perf/bench-S2.csv doc/perf/bench-S3.csv \
	doc/perf/bench-T.txt doc/perf/bench-T.csv \
	doc/perf/bench-targets-16.txt doc/perf/bench-targets-16.csv \
	doc/perf/bench-targets-after.txt doc/perf/bench-targets-after.csv \
	doc/perf/bench-targets-parent-full.txt doc/perf/bench-targets-parent-full.csv \
	doc/perf/bench-targets-walks.txt doc/perf/bench-targets-walks.csv \
	doc/perf/bench-targets-walks-2.txt doc/perf/bench-targets-walks-2.csv \
	doc/perf/node-alloc.txt doc/perf/lookup.png doc/perf/memory.png \
	doc/perf/gang.png doc/perf/scaling.png \
	doc/perf/sweep/bench-sweep.csv doc/perf/sweep/bench-sweep.txt \
	doc/perf/sweep/memory.png doc/perf/sweep/lookup-keysets.png doc/perf/sweep/lookup.png
