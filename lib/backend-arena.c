/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend-arena.c - mallocx() from a private jemalloc arena through an
 * explicit per-thread tcache: allocations by a writer go through its own
 * tcache (MALLOCX_TCACHE), frees (mostly from the call_rcu worker, which
 * must not touch a writer's tcache) bypass caches.
 */
#include "config.h"

#include <jemalloc/jemalloc.h>
#include <pthread.h>

#include "backend.h"

static unsigned int rt_arena;
static bool rt_arena_ok;
static pthread_once_t rt_arena_once = PTHREAD_ONCE_INIT;
static pthread_key_t rt_tcache_key;
static __thread unsigned int rt_tcache;  /* explicit tcache id + 1; 0: none yet */

#define RT_FREE_FLAGS (MALLOCX_ALIGN(RT_NODE_ALIGN) | MALLOCX_TCACHE_NONE)

static void rt_tcache_exit(void *arg)
{
	unsigned int tc = (unsigned int)(uintptr_t)arg - 1;

	mallctl("tcache.destroy", NULL, NULL, &tc, sizeof(tc));
}

static void rt_arena_create(void)
{
	size_t sz = sizeof(rt_arena);

	rt_arena_ok = mallctl("arenas.create", &rt_arena, &sz, NULL, 0) == 0 &&
		      pthread_key_create(&rt_tcache_key, rt_tcache_exit) == 0;
}

/* mallocx flags for this thread: the private arena through its tcache
 * (without an arena, jemalloc's default arenas). */
static int rt_arena_flags(void)
{
	rt_pthread_check(pthread_once(&rt_arena_once, rt_arena_create));
	if (!rt_arena_ok)
		return MALLOCX_ALIGN(RT_NODE_ALIGN);
	if (!rt_tcache) {
		unsigned int tc;
		size_t sz = sizeof(tc);

		if (mallctl("tcache.create", &tc, &sz, NULL, 0) != 0)
			return RT_FREE_FLAGS | MALLOCX_ARENA(rt_arena);
		rt_tcache = tc + 1;
		rt_pthread_check(pthread_setspecific(rt_tcache_key, (void *)(uintptr_t)rt_tcache));
	}
	return MALLOCX_ALIGN(RT_NODE_ALIGN) | MALLOCX_ARENA(rt_arena) |
	       MALLOCX_TCACHE(rt_tcache - 1);
}

unsigned int rt_backend_get(size_t size, void **objs, unsigned int n)
{
	int flags = rt_arena_flags();
	unsigned int got;

	for (got = 0; got < n; got++) {
		objs[got] = mallocx(size, flags);
		if (!objs[got])
			break;
	}
	rt_stat_add(RT_STAT_BACKING, got * nallocx(size, RT_FREE_FLAGS));
	return got;
}

void rt_backend_put(size_t size, void **objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sdallocx(objs[i], size, RT_FREE_FLAGS);
	rt_stat_add(RT_STAT_BACKING, -(n * nallocx(size, RT_FREE_FLAGS)));
}

void rt_backend_trim(void)
{
	/* Nothing cached beyond the tcaches, which belong to their threads. */
}

unsigned long rt_backend_overhead(size_t size, unsigned long n)
{
	return n * (nallocx(size, RT_FREE_FLAGS) - size);
}

void rt_backend_prefork(void)
{
	/* No lock of ours: jemalloc handles fork itself. */
}

void rt_backend_postfork(void)
{
}
