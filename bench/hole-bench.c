/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hole-bench.c - the cost of a hole scan (radix_tree_next_hole(),
 * radix_tree_prev_hole()) per key it passes, on runs of present keys,
 * side by side with a walk of the same keys (radix_tree_for_each_slot)
 * and, where Judy is installed, JudyL's JudyLNextEmpty()/JudyLPrevEmpty()
 * on the same keys.
 *
 *   bench/hole-bench [--n LOG2] [--reps K] [--quick]
 *
 * Rows: N keys 0..N-1 in a plain tree, inserted in order and in random
 * order; N ids of an IDR (idr_alloc(), whose hole scan starts from the
 * free words); runs of 64 keys at random bases (rcuradix-bench's
 * "clustered" set), each run scanned from its first key to the hole
 * after it.  Each scan must return the hole the keys put there, else the
 * program fails.  Cells: the median of K interleaved repetitions, in ns
 * per key passed (the measuring thread's CPU time), then peer/rcuradix.
 */
#define _LGPL_SOURCE 1
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <urcu/urcu-memb.h>

#include <rcuradix/idr.h>
#include <rcuradix/radix-tree.h>

#ifdef HAVE_JUDY_H
#include <Judy.h>
#define HAVE_JUDY_COLUMNS 1
#else
#define HAVE_JUDY_COLUMNS 0
#endif

#include "bench.h"

#define MAX_REPS 32

/* util.c's tables name their columns through peers[]: this program prints
 * its own table and has none. */
const struct peer_ops *const peers[NPEERS];

static volatile uintptr_t sink;

/* A key set laid out as runs: run i is [start[i], start[i] + len[i]), with
 * an absent key on both sides of each run. */
struct runs {
	unsigned long *start, *len;
	size_t n, keys;
};

enum column { COL_NEXT, COL_PREV, COL_WALK, COL_JNEXT, COL_JPREV, NR_COLS };

static const char *const col_name[NR_COLS] = {
	"next_hole", "prev_hole", "walk", "JudyL NextEmpty", "JudyL PrevEmpty",
};

/* One structure holding the runs' keys. */
struct subject {
	struct radix_tree_root *tree;  /* a plain tree, or an IDR's */
	struct idr idr;
	struct radix_tree_root plain;
#ifdef HAVE_JUDY_H
	Pvoid_t judy;
#endif
};

/* Every run scanned upwards (@up) or downwards: ns per key. */
static double scan_holes(struct radix_tree_root *tree, const struct runs *r, bool up)
{
	double t0 = thread_cpu_ns();

	urcu_memb_read_lock();
	for (size_t i = 0; i < r->n; i++) {
		unsigned long first = r->start[i], last = first + r->len[i] - 1;
		unsigned long hole = up ? radix_tree_next_hole(tree, first, ULONG_MAX)
					: radix_tree_prev_hole(tree, last, ULONG_MAX);

		if (hole != (up ? last + 1 : first - 1))
			die("%s_hole from %lu: %lu, not the run's end", up ? "next" : "prev",
			    up ? first : last, hole);
	}
	urcu_memb_read_unlock();
	return (thread_cpu_ns() - t0) / (double)r->keys;
}

/* A walk over every run, item by item: ns per key. */
static double scan_walk(struct radix_tree_root *tree, const struct runs *r)
{
	struct radix_tree_iter iter;
	uintptr_t sum = 0;
	size_t seen = 0;
	void **slot;
	double t0 = thread_cpu_ns();

	urcu_memb_read_lock();
	radix_tree_for_each_slot(slot, tree, &iter, 0) {
		sum += (uintptr_t)rcu_dereference(*slot);
		seen++;
	}
	urcu_memb_read_unlock();
	if (seen != r->keys)
		die("walk: %zu items, %zu keys", seen, r->keys);
	sink += sum;
	return (thread_cpu_ns() - t0) / (double)r->keys;
}

#ifdef HAVE_JUDY_H
static double scan_judy(Pvoid_t judy, const struct runs *r, bool up)
{
	double t0 = thread_cpu_ns();

	for (size_t i = 0; i < r->n; i++) {
		Word_t first = r->start[i], last = first + r->len[i] - 1;
		Word_t idx = up ? first : last;
		int found = up ? JudyLNextEmpty(judy, &idx, PJE0) : JudyLPrevEmpty(judy, &idx, PJE0);
		/* A run that starts at 0 has no empty key below it. */
		bool expected = up || first > 0;
		Word_t hole = up ? last + 1 : first - 1;

		if (found != expected || (found && idx != hole))
			die("JudyL%sEmpty from %lu: %d %lu", up ? "Next" : "Prev",
			    (unsigned long)(up ? first : last), found, (unsigned long)idx);
	}
	return (thread_cpu_ns() - t0) / (double)r->keys;
}
#endif

/* Item of key @key: any 4-aligned non-NULL pointer. */
static void *item_of(unsigned long key)
{
	return (void *)(uintptr_t)((key + 1) << 2);
}

static void subject_build(struct subject *s, const struct runs *r, const unsigned long *order,
			  bool idr)
{
	memset(s, 0, sizeof(*s));
	if (idr) {
		idr_init_flavor(&s->idr, 0, &urcu_memb_flavor);
		s->tree = &s->idr.idr_rt;
		for (size_t i = 0; i < r->keys; i++)
			if (idr_alloc(&s->idr, item_of(i), 0, 0, GFP_KERNEL) != (int)i)
				die("idr_alloc: not id %zu", i);
	} else {
		radix_tree_init_flavor(&s->plain, GFP_KERNEL, &urcu_memb_flavor);
		s->tree = &s->plain;
		for (size_t i = 0; i < r->keys; i++)
			if (radix_tree_insert(&s->plain, order[i], item_of(order[i])))
				die("insert of key %lu failed", order[i]);
	}
#ifdef HAVE_JUDY_H
	for (size_t i = 0; i < r->keys; i++) {
		PWord_t v;

		JLI(v, s->judy, order[i]);
		*v = (Word_t)item_of(order[i]);
	}
#endif
	urcu_memb_barrier();
}

static void subject_free(struct subject *s, bool idr)
{
	if (idr)
		idr_destroy(&s->idr);
	else
		radix_tree_destroy(&s->plain);
#ifdef HAVE_JUDY_H
	Word_t bytes;

	JLFA(bytes, s->judy);
	(void)bytes;
#endif
	urcu_memb_barrier();
}

/* One row: every column @reps times, interleaved; prints the medians. */
static void row(const char *name, const struct runs *r, const unsigned long *order, bool idr,
		int reps)
{
	double t[NR_COLS][MAX_REPS], med[NR_COLS];
	struct subject s;
	int cols = HAVE_JUDY_COLUMNS ? NR_COLS : COL_JNEXT;

	subject_build(&s, r, order, idr);
	for (int k = 0; k < reps; k++) {
		t[COL_NEXT][k] = scan_holes(s.tree, r, true);
		t[COL_PREV][k] = scan_holes(s.tree, r, false);
		t[COL_WALK][k] = scan_walk(s.tree, r);
#ifdef HAVE_JUDY_H
		t[COL_JNEXT][k] = scan_judy(s.judy, r, true);
		t[COL_JPREV][k] = scan_judy(s.judy, r, false);
#endif
	}
	for (int c = 0; c < cols; c++)
		med[c] = median(t[c], (size_t)reps);
	printf("%-28s", name);
	for (int c = 0; c < cols; c++) {
		char cell[48];

		if (c == COL_WALK)
			snprintf(cell, sizeof(cell), "%.3f %.2fx", med[c], med[c] / med[COL_NEXT]);
		else if (c == COL_JNEXT || c == COL_JPREV)
			snprintf(cell, sizeof(cell), "%.3f %.2fx", med[c],
				 med[c] / med[c - COL_JNEXT]);
		else
			snprintf(cell, sizeof(cell), "%.3f", med[c]);
		printf(" %-20s", cell);
	}
	printf("\n");
	subject_free(&s, idr);
}

/* One run: keys 0..n-1. */
static void runs_dense(struct runs *r, size_t n)
{
	r->n = 1;
	r->keys = n;
	r->start = malloc(sizeof(*r->start));
	r->len = malloc(sizeof(*r->len));
	if (!r->start || !r->len)
		die("out of memory");
	r->start[0] = 0;
	r->len[0] = n;
}

/* The clustered key set's runs of 64 (merged where two touch). */
static void runs_of_keyset(struct runs *r, const struct keyset *ks, unsigned long *sorted)
{
	r->start = malloc(ks->n * sizeof(*r->start));
	r->len = malloc(ks->n * sizeof(*r->len));
	if (!r->start || !r->len)
		die("out of memory");
	r->n = 0;
	r->keys = ks->n;
	for (size_t i = 0; i < ks->n; i++) {
		if (r->n && sorted[i] == r->start[r->n - 1] + r->len[r->n - 1]) {
			r->len[r->n - 1]++;
			continue;
		}
		r->start[r->n] = sorted[i];
		r->len[r->n++] = 1;
	}
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

static void usage(void)
{
	die("usage: hole-bench [--n LOG2 (10..22, default 20)] [--reps K (1..%d, default 5)] "
	    "[--quick]", MAX_REPS);
}

int main(int argc, char **argv)
{
	int log2n = 20, reps = 5;
	struct runs dense, clustered;
	struct keyset ks;
	unsigned long *in_order, *shuffled, *sorted;
	struct rng rng;
	size_t n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			log2n = 10;
			reps = 1;
		} else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
			log2n = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else {
			usage();
		}
	}
	if (log2n < 10 || log2n > 22 || reps < 1 || reps > MAX_REPS)
		usage();
	n = (size_t)1 << log2n;
	pin_to_cpu(0);  /* no migration in the middle of a measurement */
	urcu_memb_register_thread();

	runs_dense(&dense, n);
	in_order = malloc(n * sizeof(*in_order));
	shuffled = malloc(n * sizeof(*shuffled));
	if (!in_order || !shuffled)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		in_order[i] = shuffled[i] = i;
	rng_seed(&rng, 42);
	shuffle_ulong(shuffled, n, &rng);
	if (keyset_make(&ks, KS_CLUSTERED, n, 42))
		die("clustered: 2^%d keys is more than the key set allows", log2n);
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		die("out of memory");
	memcpy(sorted, ks.ins_keys, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_ulong);
	runs_of_keyset(&clustered, &ks, sorted);

	printf("hole-bench: rcuradix %s, N = 2^%d, %d interleaved repetitions (medians); ns per key "
	       "passed, CPU time, on CPU 0\n", rcuradix_version(), log2n, reps);
	printf("%-28s", "keys");
	for (int c = 0; c < (HAVE_JUDY_COLUMNS ? NR_COLS : COL_JNEXT); c++)
		printf(" %-20s", col_name[c]);
	printf("\n");
	row("0..N-1, plain, in order", &dense, in_order, false, reps);
	row("0..N-1, plain, random order", &dense, shuffled, false, reps);
	row("0..N-1, IDR", &dense, in_order, true, reps);
	row("runs of 64 (clustered)", &clustered, ks.ins_keys, false, reps);
	printf("next_hole and prev_hole: one scan over each run of present keys, from its "
	       "first key up\nor its last down, to the hole next to it (one run of N keys, "
	       "or N/64 runs of 64).\nwalk: radix_tree_for_each_slot() over all of them, and "
	       "its time / next_hole's.%s\n",
	       HAVE_JUDY_COLUMNS ? "\nJudyL: the same keys in a JudyL array; the ratio is "
				   "JudyL / rcuradix in the same direction." : "");

	free(dense.start);
	free(dense.len);
	free(clustered.start);
	free(clustered.len);
	free(in_order);
	free(shuffled);
	free(sorted);
	keyset_free(&ks);
	urcu_memb_unregister_thread();
	return 0;
}
