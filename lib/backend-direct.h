/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend-direct.h - one mallocx()/sdallocx() per object through
 * jemalloc's automatic thread cache, counted in RT_STAT_BACKING by the size
 * class jemalloc rounds to.  The jemalloc backend serves every node this
 * way, the slab backend every node but the full ones.
 */
#ifndef RCURADIX_BACKEND_DIRECT_H
#define RCURADIX_BACKEND_DIRECT_H

#include <jemalloc/jemalloc.h>

#include "backend.h"

#define RT_DIRECT_FLAGS MALLOCX_ALIGN(RT_NODE_ALIGN)

static inline unsigned int rt_direct_get(size_t size, void **objs, unsigned int n)
{
	unsigned int got;

	for (got = 0; got < n; got++) {
		objs[got] = mallocx(size, RT_DIRECT_FLAGS);
		if (!objs[got])
			break;
	}
	rt_stat_add(RT_STAT_BACKING, got * nallocx(size, RT_DIRECT_FLAGS));
	return got;
}

static inline void rt_direct_put(size_t size, void **objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sdallocx(objs[i], size, RT_DIRECT_FLAGS);
	rt_stat_add(RT_STAT_BACKING, -(n * nallocx(size, RT_DIRECT_FLAGS)));
}

/* Bytes jemalloc's size class adds to @n objects of @size. */
static inline unsigned long rt_direct_overhead(size_t size, unsigned long n)
{
	return n * (nallocx(size, RT_DIRECT_FLAGS) - size);
}

#endif /* RCURADIX_BACKEND_DIRECT_H */
