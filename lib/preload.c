/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * preload.c - the per-thread node reserve: the kernel's per-CPU preload
 * pool, made per-thread.
 *
 * Every node a writer links comes out of the calling thread's reserve.  A
 * GFP_KERNEL insert refills it from the backend when it runs short (in
 * batches, so the slab pool's lock is taken once per batch); a GFP_ATOMIC
 * insert never refills, it only consumes what radix_tree_preload() put
 * there.  radix_tree_preload() fills the reserve to RT_PRELOAD_SIZE, the
 * worst case of one insertion, so the next insert cannot fail.
 *
 * The reserve is thread-local: userspace has no preemption to disable and a
 * thread that migrates keeps its reserve.  It survives between inserts and
 * goes back to the backend when the thread exits (a pthread_key
 * destructor), or on rcuradix_thread_cache_flush().
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>

#include "preload.h"

#define RT_RESERVE_MAX (2 * RT_PRELOAD_SIZE)
#define RT_REFILL_BATCH 16U

struct rt_reserve {
	unsigned int nr;          /* nodes held */
	int window;               /* open preload windows (debug checks) */
	bool keyed;               /* the exit destructor is armed */
	struct rt_node *nodes[RT_RESERVE_MAX];
};

/* Thread-local: read and written by its thread only (and its destructor). */
static __thread struct rt_reserve rt_reserve;

static pthread_key_t rt_reserve_key;
static pthread_once_t rt_reserve_once = PTHREAD_ONCE_INIT;

/* Harmless misuse is reported once per process. */
static int rt_warned_nested, rt_warned_unbalanced, rt_warned_flush;

static void rt_reserve_drain(struct rt_reserve *reserve)
{
	rt_node_free(reserve->nodes, reserve->nr);
	rt_stat_add(RT_STAT_RESERVED, -(unsigned long)reserve->nr);
	reserve->nr = 0;
}

static void rt_reserve_exit(void *arg)
{
	rt_reserve_drain(arg);
}

static void rt_reserve_key_create(void)
{
	rt_pthread_check(pthread_key_create(&rt_reserve_key, rt_reserve_exit));
}

/* Arm the exit destructor the first time this thread holds nodes. */
static void rt_reserve_arm(struct rt_reserve *reserve)
{
	if (reserve->keyed)
		return;
	rt_pthread_check(pthread_once(&rt_reserve_once, rt_reserve_key_create));
	rt_pthread_check(pthread_setspecific(rt_reserve_key, reserve));
	reserve->keyed = true;
}

/* Grow the reserve to @target nodes (capped); returns the nodes held. */
static unsigned int rt_reserve_fill(struct rt_reserve *reserve, unsigned int target)
{
	unsigned int got;

	if (target > RT_RESERVE_MAX)
		target = RT_RESERVE_MAX;
	if (reserve->nr >= target)
		return reserve->nr;
	rt_reserve_arm(reserve);
	got = rt_node_alloc(reserve->nodes + reserve->nr, target - reserve->nr);
	reserve->nr += got;
	rt_stat_add(RT_STAT_RESERVED, got);
	return reserve->nr;
}

int rt_nodes_get(struct rt_node **nodes, unsigned int n, bool may_alloc)
{
	struct rt_reserve *reserve = &rt_reserve;
	unsigned int i;

	if (n == 0)
		return 0;
	if (reserve->nr < n) {
		if (!may_alloc)
			return -ENOMEM;
		if (rt_reserve_fill(reserve, n > RT_REFILL_BATCH ? n : RT_REFILL_BATCH) < n)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		nodes[i] = reserve->nodes[--reserve->nr];
	rt_stat_add(RT_STAT_RESERVED, -(unsigned long)n);
	return 0;
}

bool rt_preload_window_open(void)
{
	return rt_reserve.window > 0;
}

RCURADIX_API int radix_tree_preload(gfp_t gfp_mask)
{
	struct rt_reserve *reserve = &rt_reserve;
	unsigned int before = reserve->nr;

	(void)gfp_mask;  /* userspace allocation does not sleep for reclaim */
	if (rt_reserve_fill(reserve, RT_PRELOAD_SIZE) < RT_PRELOAD_SIZE) {
		/* Reserve nothing extra: give back what this call obtained. */
		unsigned int extra = reserve->nr - before;

		rt_node_free(reserve->nodes + before, extra);
		rt_stat_add(RT_STAT_RESERVED, -(unsigned long)extra);
		reserve->nr = before;
		return -ENOMEM;
	}
	if (reserve->window > 0)
		rt_warn_once(&rt_warned_nested, __func__,
			     "nested preload (a radix_tree_preload_end() missing?)");
	reserve->window++;
	return 0;
}

RCURADIX_API int radix_tree_maybe_preload(gfp_t gfp_mask)
{
	if (gfp_mask & __GFP_DIRECT_RECLAIM)
		return radix_tree_preload(gfp_mask);
	rt_reserve.window++;  /* the caller still pairs it with preload_end */
	return 0;
}

RCURADIX_API void radix_tree_preload_end(void)
{
	if (rt_reserve.window <= 0) {
		rt_warn_once(&rt_warned_unbalanced, __func__,
			     "unbalanced: no preload window is open");
		return;
	}
	rt_reserve.window--;
}

RCURADIX_API void rcuradix_thread_cache_flush(void)
{
	if (rt_reserve.window > 0) {
		rt_warn_once(&rt_warned_flush, __func__,
			     "inside a preload window: the reserve is kept for the next insert");
		return;
	}
	rt_reserve_drain(&rt_reserve);
	rt_backend_trim();
}

/* Exit: give the exiting thread's reserve back, so that leak checkers see
 * no node held.  (The library is never unloaded before exit: see node.c.) */
__attribute__((destructor)) static void rt_preload_exit(void)
{
	rt_reserve_drain(&rt_reserve);
}
