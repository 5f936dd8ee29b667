# bench/local.mk - the benchmarks, included from Makefile.am.
#
#   bench/rcuradix-bench   rcuradix vs JudyL, JudyL+rwlock, cds_lfht and a flat
#                          array (built when Judy is installed); `make bench`
#                          runs the default matrix (~2 minutes), `make
#                          bench-full` the whole one; bench/plot.sh draws the
#                          CSV.  tests/bench-smoke.sh keeps it from rotting.
#   bench/node-alloc-bench the node allocator micro-benchmark (doc/allocator.md).

BENCH_CPPFLAGS = -I$(top_srcdir)/include -I$(top_srcdir)/bench $(NODE_ALLOC_CPPFLAGS) \
	$(URCU_MEMB_CFLAGS) $(URCU_CDS_CFLAGS)
BENCH_CSV = bench-results.csv

EXTRA_DIST += bench/plot.sh tests/bench-smoke.sh

if HAVE_JUDY
noinst_PROGRAMS += bench/rcuradix-bench
bench_rcuradix_bench_SOURCES = bench/bench.h bench/main.c bench/util.c bench/keys.c \
	bench/peers.c bench/single.c bench/concurrent.c
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
else
bench bench-full:
	@echo "rcuradix-bench needs Judy (libjudy-dev): install it and re-run configure" >&2
	@exit 1
endif
.PHONY: bench bench-full
CLEANFILES += $(BENCH_CSV) bench-full.csv
