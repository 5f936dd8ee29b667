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

#include "internal.h"

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
static bool rt_reserve_key_ok;

static void rt_reserve_drain(struct rt_reserve *reserve)
{
	rt_backend_free(reserve->nodes, reserve->nr);
	/* Atomic: all threads' reserves share this counter. */
	uatomic_sub(&rt_counters.reserved, reserve->nr);
	reserve->nr = 0;
}

static void rt_reserve_exit(void *arg)
{
	rt_reserve_drain(arg);
}

static void rt_reserve_key_create(void)
{
	rt_reserve_key_ok = pthread_key_create(&rt_reserve_key, rt_reserve_exit) == 0;
}

/* Arm the exit destructor the first time this thread holds nodes. */
static void rt_reserve_arm(struct rt_reserve *reserve)
{
	if (reserve->keyed)
		return;
	pthread_once(&rt_reserve_once, rt_reserve_key_create);
	if (rt_reserve_key_ok && pthread_setspecific(rt_reserve_key, reserve) == 0)
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
	got = rt_backend_alloc(reserve->nodes + reserve->nr, target - reserve->nr);
	reserve->nr += got;
	uatomic_add(&rt_counters.reserved, got);
	return reserve->nr;
}

unsigned int rt_reserve_take(struct rt_node **nodes, unsigned int n, bool may_alloc)
{
	struct rt_reserve *reserve = &rt_reserve;
	unsigned int i;

	if (reserve->nr < n) {
		if (!may_alloc)
			return 0;
		if (rt_reserve_fill(reserve, n > RT_REFILL_BATCH ? n : RT_REFILL_BATCH) < n)
			return 0;
	}
	for (i = 0; i < n; i++)
		nodes[i] = reserve->nodes[--reserve->nr];
	uatomic_sub(&rt_counters.reserved, n);
	return n;
}

RCURADIX_API int radix_tree_preload(gfp_t gfp_mask)
{
	struct rt_reserve *reserve = &rt_reserve;
	unsigned int before = reserve->nr;

	(void)gfp_mask;  /* userspace allocation does not sleep for reclaim */
	if (rt_reserve_fill(reserve, RT_PRELOAD_SIZE) < RT_PRELOAD_SIZE) {
		/* Reserve nothing extra: give back what this call obtained. */
		unsigned int extra = reserve->nr - before;

		rt_backend_free(reserve->nodes + before, extra);
		uatomic_sub(&rt_counters.reserved, extra);
		reserve->nr = before;
		return -ENOMEM;
	}
	if (reserve->window > 0)
		rt_debug_msg("radix_tree_preload: nested preload (missing "
			     "radix_tree_preload_end?)\n");
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
		rt_debug_msg("radix_tree_preload_end: unbalanced (no preload "
			     "window is open)\n");
		return;
	}
	rt_reserve.window--;
}

RCURADIX_API void rcuradix_thread_cache_flush(void)
{
	if (rt_reserve.window > 0) {
		rt_debug_msg("rcuradix_thread_cache_flush: inside a preload window; "
			     "the reserve is kept for the next insert\n");
		return;
	}
	rt_reserve_drain(&rt_reserve);
	rt_backend_trim();
}

/* Library unload: drain this thread's reserve and delete the key, so that
 * no later thread exit calls into unmapped code.  Other threads' reserves
 * are abandoned (their memory stays with the allocator). */
void rt_preload_fini(void)
{
	rt_reserve_drain(&rt_reserve);
	if (rt_reserve_key_ok) {
		pthread_key_delete(rt_reserve_key);
		rt_reserve_key_ok = false;
	}
}
