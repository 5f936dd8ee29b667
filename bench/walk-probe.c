/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * walk-probe.c - instructions per item of a walk, for profiling under
 * callgrind: builds a tree of rcuradix-bench's key set (same generator,
 * same seed, and the same keys tagged: tag 0 on 1 key in 8, tag 1 on 1 key
 * in 64), then walks it REPS times, plain (radix_tree_for_each_slot) or
 * tagged (radix_tree_for_each_tagged), with callgrind's collection on only
 * around those walks.  Instructions per item = collected / (REPS x items).
 * Every walk must visit the key set's count, else the probe fails.
 *
 *   valgrind --tool=callgrind --instr-atstart=no bench/walk-probe holes 16 plain 1
 *   callgrind_annotate --auto=yes callgrind.out.<pid>     # per source line
 *
 * Outside valgrind it just runs, and prints the walk's time per item.
 */
#define _LGPL_SOURCE 1
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <urcu/urcu-memb.h>

#include <rcuradix/radix-tree.h>

#include "bench.h"

#include "callgrind.h"

static volatile uintptr_t sink;

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("walk-probe: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One walk of the whole tree (@tag < 0: plain); returns the items seen. */
static __attribute__((noinline)) size_t walk(struct radix_tree_root *tree, int tag)
{
	struct radix_tree_iter iter;
	uintptr_t sum = 0;
	size_t n = 0;
	void **slot;

	if (tag < 0) {
		radix_tree_for_each_slot(slot, tree, &iter, 0) {
			sum += (uintptr_t)rcu_dereference(*slot);
			n++;
		}
	} else {
		radix_tree_for_each_tagged(slot, tree, &iter, 0, (unsigned int)tag) {
			sum += (uintptr_t)rcu_dereference(*slot);
			n++;
		}
	}
	sink += sum;
	return n;
}

int main(int argc, char **argv)
{
	static struct radix_tree_root tree;
	struct keyset ks;
	int kind, log2n, tag, reps;
	size_t i, n, want, seen = 0;
	double t0;

	if (argc != 5 || (kind = keyset_by_name(argv[1])) < 0 ||
	    (log2n = atoi(argv[2])) < 7 || log2n > 22 || (reps = atoi(argv[4])) < 1)
		die("usage: %s KEYSET LOG2 plain|tag0|tag1 REPS (a key set of rcuradix-bench, "
		    "7 <= LOG2 <= 22)", argv[0]);
	if (!strcmp(argv[3], "plain"))
		tag = -1;
	else if (!strcmp(argv[3], "tag0") || !strcmp(argv[3], "tag1"))
		tag = argv[3][3] - '0';
	else
		die("walk %s: plain, tag0 (1 key in 8) or tag1 (1 key in 64)", argv[3]);
	n = (size_t)1 << log2n;
	if (keyset_make(&ks, (enum keyset_kind)kind, n, 42))
		die("%s:%d: more keys than the key set allows", argv[1], log2n);
	urcu_memb_register_thread();
	radix_tree_init_flavor(&tree, GFP_KERNEL, &urcu_memb_flavor);
	for (i = 0; i < n; i++)
		if (radix_tree_insert(&tree, ks.ins_keys[i], ks.ins_items[i]))
			die("insert of key %lu failed", ks.ins_keys[i]);
	for (int t = 0; t < 2; t++)
		for (i = 0; i < ks.ntag[t]; i++)
			if (!radix_tree_tag_set(&tree, ks.tag_keys[t][i], (unsigned int)t))
				die("tag %d of key %lu failed", t, ks.tag_keys[t][i]);
	urcu_memb_barrier();  /* the copies' old nodes freed before counting */
	want = tag < 0 ? n : ks.ntag[tag];

	urcu_memb_read_lock();
	walk(&tree, tag);  /* bound by the dynamic linker, caches warm */
	CALLGRIND_START_INSTRUMENTATION;
	t0 = clock_ns();
	for (int r = 0; r < reps; r++)
		seen += walk(&tree, tag);
	t0 = clock_ns() - t0;
	CALLGRIND_STOP_INSTRUMENTATION;
	urcu_memb_read_unlock();
	if (seen != want * (size_t)reps)
		die("%s:%d %s: %zu items in %d walks, expected %zu each", argv[1], log2n, argv[3],
		    seen, reps, want);
	printf("%s:%d %s walks %d items %zu ns/item %.2f\n", argv[1], log2n, argv[3], reps, want,
	       seen ? t0 / (double)seen : 0.0);

	radix_tree_destroy(&tree);
	urcu_memb_barrier();
	urcu_memb_unregister_thread();
	keyset_free(&ks);
	return 0;
}
