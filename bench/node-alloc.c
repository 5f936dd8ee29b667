/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node-alloc.c - the node allocator micro-benchmark.  Built once
 * per node backend (bench/node-alloc-bench-<backend>, each linked with a
 * copy of the library compiled with that -DRT_ALLOC_*), and driven by
 * bench/node-alloc-bench, which runs the copies interleaved and prints
 * medians.  One run prints "backend metric value" lines:
 *
 *   raw allocator (--raw; needs jemalloc), ns per alloc+free of one
 *   576-byte, 64-aligned node:
 *     je-auto-1 / -64     mallocx/sdallocx, jemalloc's automatic tcache, one at
 *                         a time / 64 allocations then 64 frees
 *     je-arena-1 / -64    a private arena with an explicit tcache
 *                         (arenas.create, tcache.create,
 *                         MALLOCX_ARENA|MALLOCX_TCACHE)
 *     je-arena-nocache-1  the private arena with MALLOCX_TCACHE_NONE (what
 *                         a call_rcu worker's free costs)
 *     glibc-1 / -64       glibc malloc/free (__libc_malloc, whatever malloc
 *                         the process uses)
 *   the library's own path, this backend:
 *     backend-1 / -64     rt_node_alloc + rt_node_free
 *     reserve-1           rt_nodes_get (the writer's per-thread reserve,
 *                         refilled in batches) + rt_node_free
 *     rcu-free-1          rt_nodes_get + rt_node_free_deferred (call_rcu;
 *                         the worker frees), including the final barrier
 *     insert-dense / +preload     radix_tree_insert, 2^20 dense keys in random
 *                                 order, ns per insert, without / with preload
 *     insert-sparse / +preload    2^16 random 32-bit keys (~2 nodes each)
 */
#define _GNU_SOURCE 1
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define _LGPL_SOURCE 1
#include <urcu/urcu-memb.h>

#include "preload.h"

#ifndef NODE_ALLOC_NO_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#if defined(RT_ALLOC_SLAB)
#define BACKEND "slab"
#elif defined(RT_ALLOC_JEMALLOC_ARENA)
#define BACKEND "jemalloc-arena"
#elif defined(RT_ALLOC_JEMALLOC)
#define BACKEND "jemalloc"
#elif defined(RT_ALLOC_LIBC)
#define BACKEND "libc"
#else
#error "no node backend"
#endif

#define NODE_SIZE 576
#define BATCH 64

/* glibc's allocator, whichever malloc the process resolved. */
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *p);

static volatile uintptr_t sink;
static size_t iters = (size_t)1 << 20;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void report(const char *metric, double ns)
{
	printf("%s %s %.3f\n", BACKEND, metric, ns);
}

static void die(const char *what)
{
	fprintf(stderr, "node-alloc-bench-%s: %s\n", BACKEND, what);
	exit(1);
}

/* ---- raw allocators ------------------------------------------------------ */

typedef void *(*alloc_fn)(void *ctx);
typedef void (*free_fn)(void *ctx, void *p);

/* ns per alloc+free, one at a time (the same object comes back). */
static double one_at_a_time(alloc_fn a, free_fn f, void *ctx)
{
	size_t i;
	double t0;

	for (i = 0; i < iters / 16; i++)
		f(ctx, a(ctx));
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		void *p = a(ctx);

		if (!p)
			die("allocation failed");
		sink += (uintptr_t)p;
		f(ctx, p);
	}
	return (now_ns() - t0) / (double)iters;
}

/* ns per alloc+free, BATCH allocations then BATCH frees (cycles caches). */
static double batched(alloc_fn a, free_fn f, void *ctx)
{
	void *p[BATCH];
	size_t i, j, rounds = iters / BATCH;
	double t0 = now_ns();

	for (i = 0; i < rounds; i++) {
		for (j = 0; j < BATCH; j++) {
			p[j] = a(ctx);
			if (!p[j])
				die("allocation failed");
		}
		for (j = 0; j < BATCH; j++)
			f(ctx, p[j]);
	}
	return (now_ns() - t0) / (double)(rounds * BATCH);
}

static void *glibc_alloc(void *ctx)
{
	(void)ctx;
	return __libc_malloc(NODE_SIZE);
}

static void glibc_free(void *ctx, void *p)
{
	(void)ctx;
	__libc_free(p);
}

#ifndef NODE_ALLOC_NO_JEMALLOC
static void *je_alloc(void *ctx)
{
	return mallocx(NODE_SIZE, *(int *)ctx);
}

static void je_free(void *ctx, void *p)
{
	sdallocx(p, NODE_SIZE, *(int *)ctx);
}

static void raw_jemalloc(void)
{
	unsigned int arena, tcache;
	size_t len = sizeof(unsigned int);
	int flags = MALLOCX_ALIGN(64);

	report("je-auto-1", one_at_a_time(je_alloc, je_free, &flags));
	report("je-auto-64", batched(je_alloc, je_free, &flags));
	if (mallctl("arenas.create", &arena, &len, NULL, 0))
		die("arenas.create failed");
	len = sizeof(unsigned int);
	if (mallctl("tcache.create", &tcache, &len, NULL, 0))
		die("tcache.create failed");
	flags = MALLOCX_ALIGN(64) | MALLOCX_ARENA(arena) | MALLOCX_TCACHE(tcache);
	report("je-arena-1", one_at_a_time(je_alloc, je_free, &flags));
	report("je-arena-64", batched(je_alloc, je_free, &flags));
	flags = MALLOCX_ALIGN(64) | MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE;
	report("je-arena-nocache-1", one_at_a_time(je_alloc, je_free, &flags));
	if (mallctl("tcache.destroy", NULL, NULL, &tcache, sizeof(tcache)))
		die("tcache.destroy failed");
}
#endif

static void raw_glibc(void)
{
	report("glibc-1", one_at_a_time(glibc_alloc, glibc_free, NULL));
	report("glibc-64", batched(glibc_alloc, glibc_free, NULL));
}

/* ---- the library's path -------------------------------------------------- */

static void *backend_alloc(void *ctx)
{
	void *n = NULL;

	(void)ctx;
	return rt_node_alloc(RT_NODE_SIZE, &n, 1) == 1 ? n : NULL;
}

static void backend_free(void *ctx, void *p)
{
	(void)ctx;
	rt_node_free(RT_NODE_SIZE, &p, 1);
}

static void *reserve_alloc(void *ctx)
{
	void *n = NULL;
	size_t size = RT_NODE_SIZE;

	(void)ctx;
	return rt_nodes_get(&n, &size, 1, true) == 0 ? n : NULL;
}

static double rcu_free_path(void)
{
	struct radix_tree_root root;
	size_t i;
	double t0;

	radix_tree_init_flavor(&root, GFP_KERNEL, &urcu_memb_flavor);
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		struct rt_node *n = reserve_alloc(NULL);

		if (!n)
			die("allocation failed");
		/* Deferred free, as for an unlinked node: the call_rcu worker
		 * returns it to the backend after a grace period. */
		rt_node_free_deferred(&root, rt_node_entry(n, 0));
	}
	urcu_memb_barrier();
	return (now_ns() - t0) / (double)iters;
}

static void shuffle(unsigned long *a, size_t n, uint64_t *s)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j;
		unsigned long t;

		*s ^= *s << 13;
		*s ^= *s >> 7;
		*s ^= *s << 17;
		j = (size_t)(*s % i);
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ns per insert of @keys into a fresh tree; the tree is then emptied. */
static double time_insert(const unsigned long *keys, size_t n, bool preload)
{
	struct radix_tree_root root;
	size_t i;
	double t0, ns;

	radix_tree_init_flavor(&root, GFP_KERNEL, &urcu_memb_flavor);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int ret;

		if (preload && radix_tree_preload(GFP_KERNEL))
			die("preload failed");
		ret = radix_tree_insert(&root, keys[i], (void *)(uintptr_t)((keys[i] + 1) << 2));
		if (preload)
			radix_tree_preload_end();
		if (ret)
			die("insert failed");
	}
	ns = (now_ns() - t0) / (double)n;
	radix_tree_destroy(&root);
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	return ns;
}

static void inserts(void)
{
	size_t nd = iters, ns = iters / 16, i;
	unsigned long *dense = malloc(nd * sizeof(*dense));
	unsigned long *sparse = malloc(ns * sizeof(*sparse));
	uint64_t s = 42;

	if (!dense || !sparse)
		die("out of memory");
	for (i = 0; i < nd; i++)
		dense[i] = i;
	shuffle(dense, nd, &s);
	/* Distinct random 32-bit keys: a multiplicative hash of 0..n-1. */
	for (i = 0; i < ns; i++)
		sparse[i] = (unsigned long)(uint32_t)((i + 1) * 2654435761u);
	report("insert-dense", time_insert(dense, nd, false));
	report("insert-dense+preload", time_insert(dense, nd, true));
	report("insert-sparse", time_insert(sparse, ns, false));
	report("insert-sparse+preload", time_insert(sparse, ns, true));
	free(dense);
	free(sparse);
}

int main(int argc, char **argv)
{
	bool raw = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw"))
			raw = true;
		else if (!strcmp(argv[i], "--quick"))
			iters = (size_t)1 << 14;
		else {
			fprintf(stderr, "usage: %s [--raw] [--quick]\n", argv[0]);
			return 2;
		}
	}
	urcu_memb_register_thread();
	if (raw) {
#ifndef NODE_ALLOC_NO_JEMALLOC
		raw_jemalloc();
#endif
		raw_glibc();
	}
	report("backend-1", one_at_a_time(backend_alloc, backend_free, NULL));
	report("backend-64", batched(backend_alloc, backend_free, NULL));
	report("reserve-1", one_at_a_time(reserve_alloc, backend_free, NULL));
	rcuradix_thread_cache_flush();
	report("rcu-free-1", rcu_free_path());
	rcuradix_thread_cache_flush();
	inserts();
	urcu_memb_unregister_thread();
	return 0;
}
