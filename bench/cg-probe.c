/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cg-probe.c - instruction counts per operation, for profiling under
 * callgrind where perf has no hardware counters (as in this project's VMs).
 * Builds a tree of 2^L dense keys (and the same keys in a flat array), then
 * runs one operation 1024 times (walks: twice) with callgrind's collection on
 * only around that loop.  Instructions per operation = (collected - the
 * "empty" operation's) / calls; per item for gangs and walks = / items.
 *
 *   valgrind --tool=callgrind --instr-atstart=no bench/cg-probe gang64 [L]
 *   callgrind_annotate --auto=yes callgrind.out.<pid>     # per source line
 *
 * Operations: empty lookup lookup-nolock flat-lookup gang16 gang64
 * flat-gang64 walk flat-walk, and ida-churn: in an IDA holding ids
 * 0 .. 2^L - 1, ida_free() of an id and ida_alloc() of the lowest free one
 * (that id again), per call.  Outside valgrind it just runs.
 */
#define _LGPL_SOURCE 1
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <urcu/urcu-memb.h>

#include <rcuradix/idr.h>
#include <rcuradix/radix-tree.h>

#include "callgrind.h"

static unsigned long nkeys = 1UL << 16;
static void **flat;
static volatile uintptr_t sink;
static unsigned long starts[1024];
static struct radix_tree_root tree;
static DEFINE_IDA(ida);
static void *out[64];

typedef unsigned long op_fn(unsigned long key);

static unsigned long op_empty(unsigned long k)
{
	sink += k;
	return 1;
}

static unsigned long op_lookup(unsigned long k)
{
	urcu_memb_read_lock();
	sink += (uintptr_t)radix_tree_lookup(&tree, k);
	urcu_memb_read_unlock();
	return 1;
}

static unsigned long op_lookup_nolock(unsigned long k)
{
	sink += (uintptr_t)radix_tree_lookup(&tree, k);
	return 1;
}

static unsigned long op_flat_lookup(unsigned long k)
{
	sink += (uintptr_t)__atomic_load_n(&flat[k], __ATOMIC_ACQUIRE);
	return 1;
}

static unsigned long gang(unsigned long k, unsigned int max)
{
	unsigned int n;

	urcu_memb_read_lock();
	n = radix_tree_gang_lookup(&tree, out, k, max);
	urcu_memb_read_unlock();
	return n;
}

static unsigned long op_gang16(unsigned long k)
{
	return gang(k, 16);
}

static unsigned long op_gang64(unsigned long k)
{
	return gang(k, 64);
}

static unsigned long op_flat_gang64(unsigned long k)
{
	unsigned int n = 0;

	for (; k < nkeys && n < 64; k++)
		if (flat[k])
			out[n++] = flat[k];
	return n;
}

static unsigned long op_walk(unsigned long k)
{
	struct radix_tree_iter it;
	unsigned long n = 0;
	uintptr_t s = 0;
	void **slot;

	(void)k;
	urcu_memb_read_lock();
	radix_tree_for_each_slot(slot, &tree, &it, 0) {
		s += (uintptr_t)rcu_dereference(*slot);
		n++;
	}
	urcu_memb_read_unlock();
	sink += s;
	return n;
}

static unsigned long op_flat_walk(unsigned long k)
{
	unsigned long n = 0, i;
	uintptr_t s = 0;

	(void)k;
	for (i = 0; i < nkeys; i++)
		if (flat[i]) {
			s += (uintptr_t)flat[i];
			n++;
		}
	sink += s;
	return n;
}

static unsigned long op_ida_churn(unsigned long k)
{
	ida_free(&ida, (unsigned int)k);
	if (ida_alloc(&ida, GFP_KERNEL) != (int)k) {
		fprintf(stderr, "ida-churn: id %lu did not come back\n", k);
		exit(1);
	}
	return 1;
}

/* The IDA of ida-churn: ids 0 .. nkeys - 1, handed out in order. */
static int ida_fill(void)
{
	unsigned long i;

	for (i = 0; i < nkeys; i++)
		if (ida_alloc(&ida, GFP_KERNEL) != (int)i)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		op_fn *fn;
		unsigned long calls;
	} ops[] = {
		{ "empty", op_empty, 1024 },		{ "lookup", op_lookup, 1024 },
		{ "lookup-nolock", op_lookup_nolock, 1024 }, { "flat-lookup", op_flat_lookup, 1024 },
		{ "gang16", op_gang16, 1024 },		{ "gang64", op_gang64, 1024 },
		{ "flat-gang64", op_flat_gang64, 1024 }, { "walk", op_walk, 2 },
		{ "flat-walk", op_flat_walk, 2 },	{ "ida-churn", op_ida_churn, 1024 },
	};
	unsigned long i, items = 0;
	size_t o;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s OPERATION [log2 keys]\n", argv[0]);
		return 2;
	}
	for (o = 0; o < sizeof(ops) / sizeof(ops[0]) && strcmp(ops[o].name, argv[1]); o++)
		;
	if (o == sizeof(ops) / sizeof(ops[0])) {
		fprintf(stderr, "unknown operation %s\n", argv[1]);
		return 2;
	}
	if (argc == 3)
		nkeys = 1UL << atoi(argv[2]);
	if (nkeys < 128)
		nkeys = 128;
	urcu_memb_register_thread();
	radix_tree_init_flavor(&tree, GFP_KERNEL, &urcu_memb_flavor);
	flat = calloc(nkeys, sizeof(void *));
	if (!flat)
		return 1;
	for (i = 0; i < nkeys; i++) {
		flat[i] = (void *)(uintptr_t)((i + 1) << 2);
		if (radix_tree_insert(&tree, i, flat[i]))
			return 1;
	}
	/* The nodes the build outgrew are freed by the call_rcu worker: let it
	 * finish, or its frees are counted with the operation. */
	urcu_memb_barrier();
	if (ops[o].fn == op_ida_churn && ida_fill())
		return 1;
	for (i = 0; i < 1024; i++)
		starts[i] = (i * 2654435761UL) % (nkeys - 64);
	ops[o].fn(starts[0]); /* resolve PLT entries outside the count */
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < ops[o].calls; i++)
		items += ops[o].fn(starts[i]);
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("%s: %lu calls, %lu items, N = %lu\n", ops[o].name, ops[o].calls, items, nkeys);
	radix_tree_destroy(&tree);
	ida_destroy(&ida);
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	free(flat);
	urcu_memb_unregister_thread();
	return 0;
}
