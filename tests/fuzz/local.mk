# tests/fuzz/local.mk - differential fuzzing (included from Makefile.am).
#
#   make check                     replays the committed corpus through the
#                                  harness (gcc, both node builds): replay-64, -8
#   make fuzz [FUZZ_SECONDS=60]    libFuzzer run, FUZZ_SECONDS split between the
#                                  64-slot and the 8-slot binary (clang)
#   make fuzz-coverage             line coverage of lib/ by the fuzzed corpus
#                                  (tests/fuzz/run-64/corpus, else the committed one)
#   make fuzz-corpus               regenerate tests/fuzz/corpus/seed-* (writes
#                                  into the source tree: run it by hand)
# See doc/fuzzing.md.

FUZZ_HARNESS = tests/fuzz/fuzz-ops.c tests/fuzz/fuzz-ops.h tests/model.c tests/model.h

# ---- corpus replay, part of make check ----------------------------------
FUZZ_REPLAY = tests/fuzz/replay-64 tests/fuzz/replay-8
check_PROGRAMS += $(FUZZ_REPLAY) tests/fuzz/gen-corpus
TESTS += $(FUZZ_REPLAY) tests/fuzz/corpus-fresh.sh
LIBCODE_TESTS += $(FUZZ_REPLAY)
FUZZ_T_LIBS = $(URCU_MEMB_LIBS) $(LIB_JEMALLOC) $(PTHREAD_LIBS)

tests_fuzz_replay_64_SOURCES = tests/fuzz/replay.c $(FUZZ_HARNESS)
tests_fuzz_replay_64_CPPFLAGS = $(T64_CPPFLAGS) -I$(top_srcdir)/tests/fuzz
tests_fuzz_replay_64_LDADD = lib/libtest64.la $(FUZZ_T_LIBS)
tests_fuzz_replay_8_SOURCES = $(tests_fuzz_replay_64_SOURCES)
tests_fuzz_replay_8_CPPFLAGS = $(T8_CPPFLAGS) -I$(top_srcdir)/tests/fuzz
tests_fuzz_replay_8_LDADD = lib/libtest8.la $(FUZZ_T_LIBS)

tests_fuzz_gen_corpus_SOURCES = tests/fuzz/gen-corpus.c tests/fuzz/fuzz-ops.h
tests_fuzz_gen_corpus_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include

fuzz-corpus: tests/fuzz/gen-corpus$(EXEEXT)
	tests/fuzz/gen-corpus$(EXEEXT) $(srcdir)/tests/fuzz/corpus

# ---- libFuzzer ------------------------------------------------------------
# clang is called directly (not through libtool): libFuzzer needs its coverage
# instrumentation on the library's code too, so the harness is linked with the
# library sources themselves, built with debug checks and the libc node
# allocator (ASan sees every node).  config.h is the build directory's.
FUZZ_CC = clang
FUZZ_SECONDS = 60
# Switches that steer the harness around open library bugs (known-failures;
# doc/fuzzing.md), so that a run goes on looking for others.  Emptied as the
# bugs are fixed.
FUZZ_AVOID =
FUZZ_MAX_LEN = 2048
FUZZ_FLAGS =
FUZZ_SANITIZE = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# The project's warnings, as configure chose them for $(CC).  Two adjustments
# for clang: a flag only gcc knows must not stop the build, and clang's
# -Wcast-align warns on every container_of() even on x86, where gcc's (the
# project's meaning) only warns for strict-alignment targets.
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer $(WARN_CFLAGS) -Wno-unknown-warning-option \
	-Wno-cast-align $(PTHREAD_CFLAGS)
FUZZ_CPPFLAGS = -I$(top_builddir) -I$(top_builddir)/include -I$(top_srcdir)/include \
	-I$(top_srcdir)/lib \
	-I$(top_srcdir)/tests -I$(top_srcdir)/tests/fuzz -DRCURADIX_BUILDING -DRT_DEBUG \
	-DRT_ALLOC_LIBC $(URCU_MEMB_CFLAGS)
FUZZ_LIBS = $(URCU_MEMB_LIBS) $(PTHREAD_LIBS)
FUZZ_BINS = tests/fuzz/fuzz-ops-64 tests/fuzz/fuzz-ops-8
CLEANFILES += $(FUZZ_BINS)

# The recipe appends -DRT_MAP_SHIFT=N (and any extra flags) to this command.
# The library's sources with the libc node backend (whatever backend
# configure chose for the library: -DRT_ALLOC_LIBC above) and the harness;
# only their .c files are compiled (a shell filter rather than
# $(filter ...), which automake flags as non-portable).
FUZZ_LIB_FILES = $(LIB_COMMON_SOURCES) lib/backend-libc.c
FUZZ_BUILD = $(MKDIR_P) tests/fuzz && srcs= && \
	for f in $(FUZZ_LIB_FILES) $(FUZZ_HARNESS); do \
	  case $$f in *.c) srcs="$$srcs $(srcdir)/$$f";; esac; \
	done && \
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SANITIZE) -o $@ $$srcs $(FUZZ_LIBS)

tests/fuzz/fuzz-ops-64: $(FUZZ_LIB_FILES) $(FUZZ_HARNESS) config.h
	$(AM_V_GEN)$(FUZZ_BUILD) -DRT_MAP_SHIFT=6
tests/fuzz/fuzz-ops-8: $(FUZZ_LIB_FILES) $(FUZZ_HARNESS) config.h
	$(AM_V_GEN)$(FUZZ_BUILD) -DRT_MAP_SHIFT=3

# Each binary fuzzes a copy of the committed corpus in the build directory
# (never $(srcdir): distcheck's source tree is read-only); the copy keeps
# what earlier runs found.  A crash input lands in tests/fuzz/run-N/.
fuzz: $(FUZZ_BINS)
	@set -e; half=`expr $(FUZZ_SECONDS) / 2`; test "$$half" -gt 0 || half=1; \
	for n in 64 8; do \
	  dir=tests/fuzz/run-$$n; \
	  $(MKDIR_P) $$dir/corpus; \
	  cp $(srcdir)/tests/fuzz/corpus/* $$dir/corpus/; chmod -R u+w $$dir; \
	  echo "fuzz-ops-$$n: $$half s, corpus $$dir/corpus, crashes to $$dir/"; \
	  RCURADIX_FUZZ_AVOID='$(FUZZ_AVOID)' \
	  ./tests/fuzz/fuzz-ops-$$n -max_total_time=$$half -max_len=$(FUZZ_MAX_LEN) \
	    -timeout=30 -print_final_stats=1 -artifact_prefix=$$dir/ \
	    $(FUZZ_FLAGS) $$dir/corpus; \
	done

# Line coverage of the library by a corpus: the 64-slot harness with clang's
# source-based coverage runs every input once (-runs=0), llvm-cov reports lib/.
LLVM_PROFDATA = llvm-profdata
LLVM_COV = llvm-cov
FUZZ_COV_CORPUS = tests/fuzz/run-64/corpus
CLEANFILES += tests/fuzz/fuzz-cov-64 tests/fuzz/cov.profraw tests/fuzz/cov.profdata

tests/fuzz/fuzz-cov-64: $(FUZZ_LIB_FILES) $(FUZZ_HARNESS) config.h
	$(AM_V_GEN)$(FUZZ_BUILD) -DRT_MAP_SHIFT=6 -fprofile-instr-generate -fcoverage-mapping

fuzz-coverage: tests/fuzz/fuzz-cov-64
	@set -e; corpus=$(FUZZ_COV_CORPUS); \
	test -d "$$corpus" || corpus=$(srcdir)/tests/fuzz/corpus; \
	echo "fuzz-coverage: lib/ lines run by $$corpus (`ls $$corpus | wc -l` inputs)"; \
	RCURADIX_FUZZ_AVOID='$(FUZZ_AVOID)' LLVM_PROFILE_FILE=tests/fuzz/cov.profraw \
	  ./tests/fuzz/fuzz-cov-64 -runs=0 $$corpus 2>/dev/null; \
	$(LLVM_PROFDATA) merge -o tests/fuzz/cov.profdata tests/fuzz/cov.profraw; \
	srcs=; for f in $(FUZZ_LIB_FILES); do \
	  case $$f in *.c) srcs="$$srcs $(srcdir)/$$f";; esac; \
	done; \
	$(LLVM_COV) report tests/fuzz/fuzz-cov-64 -instr-profile=tests/fuzz/cov.profdata $$srcs

clean-local: clean-fuzz
clean-fuzz:
	rm -rf tests/fuzz/run-64 tests/fuzz/run-8

.PHONY: fuzz fuzz-coverage fuzz-corpus clean-fuzz

EXTRA_DIST += tests/fuzz/local.mk tests/fuzz/corpus-fresh.sh tests/fuzz/known-failures \
	tests/fuzz/seed-transitions tests/fuzz/corpus doc/fuzzing.md
