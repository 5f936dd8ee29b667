/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lines-probe.c - the cache lines one lookup reads: rcuradix against JudyL,
 * on the same keys, counted by callgrind's cache simulation
 * (bench/lines-probe.sh runs it and prints the table).
 *
 * Builds a tree and a JudyL array from rcuradix-bench's key set (same
 * generator, same seed), then looks up the first LOOKUPS keys (or the
 * third argument's count) of the set's lookup order in each, every lookup
 * from a cold simulated cache: before each one the probe reads a buffer
 * twice the size of the simulated last-level cache (evict(); the caches
 * replace the least recently used line), so every line the lookup reads
 * misses once and only once (the simulated D1 holds far more lines than a
 * lookup reads).  The read misses of radix_tree_lookup(), and of
 * JudyLGet() with judy_value() (each lookup as its caller gets the item),
 * divided by the lookups, are the lines a lookup reads: its nodes', those
 * of the constant tables it reads and, for rcuradix, the root's (JudyL's
 * root is a pointer the caller passes).  The call through the dynamic
 * linker's table is the caller's, left out of both.  Collection is on only
 * around the lookups; the tree's run in one read-side section, so the RCU
 * reader's lines are not counted.
 *
 *   valgrind --tool=callgrind --cache-sim=yes --instr-atstart=no \
 *            --D1=32768,8,64 --LL=1048576,16,64 bench/lines-probe KEYSET LOG2 [LOOKUPS]
 */
#define _LGPL_SOURCE 1
#include "config.h"

#include <Judy.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <urcu/urcu-memb.h>

#include <rcuradix/radix-tree.h>

#include "bench.h"

#include "callgrind.h"

#define LOOKUPS 2000            /* default */
#define EVICT_BYTES (2UL << 20) /* twice the simulated LL above */

static volatile unsigned char *evict_buf;
static volatile uintptr_t sink;

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("lines-probe: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* Read one byte of every line of the buffer: the simulated caches then
 * hold none of the structures' lines. */
static __attribute__((noinline)) void evict(void)
{
	unsigned long i, sum = 0;

	for (i = 0; i < EVICT_BYTES; i += 64)
		sum += evict_buf[i];
	sink += sum;
}

/* JudyLGet() returns the address of the value, which the caller then
 * reads: a line of its own when JudyL keeps a leaf's values apart from its
 * keys.  Counted here, apart from the caller's other loads. */
static __attribute__((noinline)) void *judy_value(PWord_t v)
{
	return (void *)*v;
}

int main(int argc, char **argv)
{
	static struct radix_tree_root tree;
	struct keyset ks;
	Pvoid_t judy = NULL;
	int kind, log2n;
	size_t i, n, lookups = LOOKUPS;

	if (argc < 3 || argc > 4 || (kind = keyset_by_name(argv[1])) < 0 ||
	    (log2n = atoi(argv[2])) < 7 || log2n > 22 ||
	    (argc == 4 && (lookups = strtoul(argv[3], NULL, 10)) == 0))
		die("usage: %s KEYSET LOG2 [LOOKUPS] (a key set of rcuradix-bench, "
		    "7 <= LOG2 <= 22)", argv[0]);
	n = (size_t)1 << log2n;
	if (keyset_make(&ks, (enum keyset_kind)kind, n, 42))
		die("%s:%d: more keys than the key set allows", argv[1], log2n);
	evict_buf = calloc(EVICT_BYTES, 1);
	if (!evict_buf)
		die("out of memory");
	urcu_memb_register_thread();
	radix_tree_init_flavor(&tree, GFP_KERNEL, &urcu_memb_flavor);
	for (i = 0; i < n; i++) {
		PWord_t v = (PWord_t)JudyLIns(&judy, ks.ins_keys[i], PJE0);

		if (radix_tree_insert(&tree, ks.ins_keys[i], ks.ins_items[i]) || !v)
			die("insert of key %lu failed", ks.ins_keys[i]);
		*v = (Word_t)ks.ins_items[i];
	}
	urcu_memb_barrier();  /* the copies' old nodes freed before counting */

	urcu_memb_read_lock();
	/* Both lookups called once before counting: the dynamic linker
	 * binds each on its first call. */
	sink += (uintptr_t)radix_tree_lookup(&tree, ks.lookup[0]);
	sink += (uintptr_t)JudyLGet(judy, ks.lookup[0], PJE0);
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < lookups && i < n; i++) {
		unsigned long key = ks.lookup[i];
		PWord_t v;

		evict();
		if (!radix_tree_lookup(&tree, key))
			die("rcuradix: key %lu not found", key);
		evict();
		v = (PWord_t)JudyLGet(judy, key, PJE0);
		if (!v || !judy_value(v))
			die("judyl: key %lu not found", key);
	}
	CALLGRIND_STOP_INSTRUMENTATION;
	urcu_memb_read_unlock();
	printf("%s:%d lookups %zu\n", argv[1], log2n, i);

	radix_tree_destroy(&tree);
	JudyLFreeArray(&judy, PJE0);
	urcu_memb_barrier();
	urcu_memb_unregister_thread();
	free((void *)evict_buf);
	keyset_free(&ks);
	return 0;
}
