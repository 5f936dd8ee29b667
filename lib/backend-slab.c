/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend-slab.c - full nodes carved from 64 KiB slabs obtained from
 * jemalloc (mallocx/sdallocx): a 576-byte node costs 580 bytes instead of
 * the 640 of jemalloc's nearest size class, and dense trees are made of
 * them.  Compact nodes, of many sizes that a tree passes through as they
 * fill, come straight from jemalloc's size classes (all of them 64-byte
 * multiples up to 512 bytes) through its thread cache: per-size slabs
 * would keep the holes the copies leave (doc/allocator.md).
 */
#include "config.h"

#include <jemalloc/jemalloc.h>
#include <pthread.h>

#include "backend-direct.h"

#define RT_SLAB_SIZE (64UL * 1024)
#define RT_SLAB_HEADER RT_NODE_ALIGN  /* objects stay aligned to RT_NODE_ALIGN */
/* Object sizes served: RT_NODE_ALIGN .. RT_SLAB_MAX_OBJECT in steps of RT_NODE_ALIGN. */
#define RT_SLAB_MAX_OBJECT 2048UL
#define RT_SLAB_CLASSES (RT_SLAB_MAX_OBJECT / RT_NODE_ALIGN)

/*
 * A slab: its header in the first line, then objects of one size.  Slabs
 * are aligned to their size, so an object finds its slab by masking its
 * address.
 */
struct rt_slab {
	struct rt_slab *prev, *next;  /* in its pool's partial list. W, R: pool lock */
	void *free;                   /* returned objects, linked through their first word */
	unsigned int nfree;           /* free objects (list + never used) */
	unsigned int bump;            /* objects [bump, capacity) never used */
	unsigned int size;            /* object size */
	unsigned int capacity;        /* objects per slab */
};
_Static_assert(sizeof(struct rt_slab) <= RT_SLAB_HEADER, "slab header fits one line");

/* One pool per size class, each in its own line: writers allocating nodes
 * of different sizes do not contend. */
struct rt_pool {
	pthread_mutex_t lock;
	struct rt_slab *partial;  /* slabs with free objects. W, R: lock */
	struct rt_slab *spare;    /* one empty slab kept against churn. W, R: lock */
} __attribute__((aligned(64)));

static struct rt_pool rt_pools[RT_SLAB_CLASSES];

/* Pool locks need no initialiser call: set up before any thread can run. */
__attribute__((constructor)) static void rt_pools_init(void)
{
	unsigned int i;

	for (i = 0; i < RT_SLAB_CLASSES; i++)
		rt_pthread_check(pthread_mutex_init(&rt_pools[i].lock, NULL));
}

static struct rt_pool *rt_pool_of(size_t size)
{
	if (size == 0 || size > RT_SLAB_MAX_OBJECT || size % RT_NODE_ALIGN)
		rt_die("rt_backend_get", "object size %zu not served by the slab backend", size);
	return &rt_pools[size / RT_NODE_ALIGN - 1];
}

static void rt_slab_link(struct rt_pool *pool, struct rt_slab *slab)
{
	slab->prev = NULL;
	slab->next = pool->partial;
	if (slab->next)
		slab->next->prev = slab;
	pool->partial = slab;
}

static void rt_slab_unlink(struct rt_pool *pool, struct rt_slab *slab)
{
	if (slab->prev)
		slab->prev->next = slab->next;
	else
		pool->partial = slab->next;
	if (slab->next)
		slab->next->prev = slab->prev;
}

static void rt_slab_reset(struct rt_slab *slab, size_t size)
{
	slab->free = NULL;
	slab->size = (unsigned int)size;
	slab->capacity = (unsigned int)((RT_SLAB_SIZE - RT_SLAB_HEADER) / size);
	slab->nfree = slab->capacity;
	slab->bump = 0;
}

static struct rt_slab *rt_slab_new(struct rt_pool *pool, size_t size)
{
	struct rt_slab *slab = pool->spare;

	if (slab) {
		pool->spare = NULL;
		return slab;
	}
	slab = mallocx(RT_SLAB_SIZE, MALLOCX_ALIGN(RT_SLAB_SIZE));
	if (!slab)
		return NULL;
	rt_slab_reset(slab, size);
	rt_stat_add(RT_STAT_BACKING, RT_SLAB_SIZE);
	return slab;
}

static void rt_slab_destroy(struct rt_slab *slab)
{
	rt_stat_add(RT_STAT_BACKING, -RT_SLAB_SIZE);
	sdallocx(slab, RT_SLAB_SIZE, MALLOCX_ALIGN(RT_SLAB_SIZE));
}

/*
 * An empty slab is kept as its pool's spare if there is none: without it, a
 * pool whose use hovers at a slab boundary would create and release 64 KiB
 * per node (400-700 ns instead of 40-80, bench/node-alloc-bench).  A second
 * empty slab goes back to jemalloc.  rt_backend_trim() returns the spares.
 */
static void rt_slab_release(struct rt_pool *pool, struct rt_slab *slab)
{
	if (!pool->spare) {
		rt_slab_reset(slab, slab->size);
		pool->spare = slab;
		return;
	}
	rt_slab_destroy(slab);
}

static void *rt_slab_take(struct rt_pool *pool, struct rt_slab *slab)
{
	void *obj = slab->free;

	if (obj)
		slab->free = *(void **)obj;
	else
		obj = (char *)slab + RT_SLAB_HEADER + (size_t)slab->bump++ * slab->size;
	if (--slab->nfree == 0)
		rt_slab_unlink(pool, slab);
	return obj;
}

/* ---- compact nodes: jemalloc's size classes ---------------------------- */

static bool rt_slab_served(size_t size)
{
	return size == sizeof(struct rt_node);
}

/* ---- the interface ------------------------------------------------------ */

unsigned int rt_backend_get(size_t size, void **objs, unsigned int n)
{
	struct rt_pool *pool;
	unsigned int got = 0;

	if (!rt_slab_served(size))
		return rt_direct_get(size, objs, n);
	pool = rt_pool_of(size);

	rt_pthread_check(pthread_mutex_lock(&pool->lock));
	while (got < n) {
		if (!pool->partial) {
			struct rt_slab *slab = rt_slab_new(pool, size);

			if (!slab)
				break;
			rt_slab_link(pool, slab);
		}
		objs[got++] = rt_slab_take(pool, pool->partial);
	}
	rt_pthread_check(pthread_mutex_unlock(&pool->lock));
	return got;
}

void rt_backend_put(size_t size, void **objs, unsigned int n)
{
	struct rt_pool *pool;
	unsigned int i;

	if (!rt_slab_served(size)) {
		rt_direct_put(size, objs, n);
		return;
	}
	pool = rt_pool_of(size);

	rt_pthread_check(pthread_mutex_lock(&pool->lock));
	for (i = 0; i < n; i++) {
		struct rt_slab *slab = (struct rt_slab *)((uintptr_t)objs[i] & ~(RT_SLAB_SIZE - 1));

		*(void **)objs[i] = slab->free;
		slab->free = objs[i];
		if (slab->nfree++ == 0)
			rt_slab_link(pool, slab);
		if (slab->nfree == slab->capacity) {
			rt_slab_unlink(pool, slab);
			rt_slab_release(pool, slab);
		}
	}
	rt_pthread_check(pthread_mutex_unlock(&pool->lock));
}

void rt_backend_trim(void)
{
	unsigned int i;

	for (i = 0; i < RT_SLAB_CLASSES; i++) {
		struct rt_pool *pool = &rt_pools[i];
		struct rt_slab *slab;

		rt_pthread_check(pthread_mutex_lock(&pool->lock));
		slab = pool->spare;
		pool->spare = NULL;
		rt_pthread_check(pthread_mutex_unlock(&pool->lock));
		if (slab)
			rt_slab_destroy(slab);
	}
}

unsigned long rt_backend_overhead(size_t size, unsigned long n)
{
	unsigned long capacity = (RT_SLAB_SIZE - RT_SLAB_HEADER) / size;

	if (!rt_slab_served(size))
		return rt_direct_overhead(size, n);

	/* The slab header and tail, spread over the slab's objects. */
	return n * (RT_SLAB_SIZE - capacity * size) / capacity;
}

/* Lock order: the pools in index order, then jemalloc's own (its prepare
 * handler was registered earlier, so it runs later). */
void rt_backend_prefork(void)
{
	unsigned int i;

	for (i = 0; i < RT_SLAB_CLASSES; i++)
		rt_pthread_check(pthread_mutex_lock(&rt_pools[i].lock));
}

void rt_backend_postfork(void)
{
	unsigned int i;

	for (i = RT_SLAB_CLASSES; i-- > 0;)
		rt_pthread_check(pthread_mutex_unlock(&rt_pools[i].lock));
}
