/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend-jemalloc.c - one mallocx()/sdallocx() per object, through
 * jemalloc's automatic thread cache (a 576-byte node takes the 640-byte
 * size class).
 */
#include "config.h"

#include <jemalloc/jemalloc.h>

#include "backend.h"

#define RT_FLAGS MALLOCX_ALIGN(RT_NODE_ALIGN)

unsigned int rt_backend_get(size_t size, void **objs, unsigned int n)
{
	unsigned int got;

	for (got = 0; got < n; got++) {
		objs[got] = mallocx(size, RT_FLAGS);
		if (!objs[got])
			break;
	}
	rt_stat_add(RT_STAT_BACKING, got * nallocx(size, RT_FLAGS));
	return got;
}

void rt_backend_put(size_t size, void **objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sdallocx(objs[i], size, RT_FLAGS);
	rt_stat_add(RT_STAT_BACKING, -(n * nallocx(size, RT_FLAGS)));
}

void rt_backend_trim(void)
{
	/* Nothing cached beyond jemalloc's own caches. */
}

unsigned long rt_backend_overhead(size_t size, unsigned long n)
{
	return n * (nallocx(size, RT_FLAGS) - size);
}

void rt_backend_prefork(void)
{
	/* No lock of ours: jemalloc handles fork itself. */
}

void rt_backend_postfork(void)
{
}
