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

/* The sizes rt_direct_usize() keeps: every multiple of RT_NODE_ALIGN up to
 * the largest node of either kind. */
#define RT_DIRECT_SIZES 4096

/*
 * jemalloc's size for a node of @size (a multiple of RT_NODE_ALIGN), as
 * nallocx() gives it: the same at every call, so kept per size (nallocx()
 * costs some 50 instructions, twice per node).  Threads that race to
 * fill an entry store the same value.
 */
static inline size_t rt_direct_usize(size_t size)
{
	static size_t usize[RT_DIRECT_SIZES / RT_NODE_ALIGN + 1];
	size_t *u, v;

	if (size > RT_DIRECT_SIZES)
		return nallocx(size, RT_DIRECT_FLAGS);
	u = &usize[size / RT_NODE_ALIGN];
	/* Relaxed: a value, not a publication; any thread's is right. */
	v = __atomic_load_n(u, __ATOMIC_RELAXED);
	if (caa_unlikely(!v)) {
		v = nallocx(size, RT_DIRECT_FLAGS);
		__atomic_store_n(u, v, __ATOMIC_RELAXED);
	}
	return v;
}

/*
 * A node from jemalloc.  jemalloc's small size classes lay their objects
 * out a class size apart from a page boundary, so an object of a class
 * that is a multiple of RT_NODE_ALIGN is aligned to it (jemalloc serves
 * aligned small requests that way itself): the plain call, its fast path,
 * 190 instructions cheaper per allocation and free than the aligned one,
 * gives an aligned block.  It is checked; a block that is not aligned goes
 * back and the aligned call serves the node.  Either is freed by
 * rt_direct_put() with its size and no flags: for these sizes both calls
 * give the same usable size, and sdallocx() takes any size from the one
 * asked for to the usable one.
 */
static inline void *rt_direct_alloc(size_t size)
{
	void *obj = mallocx(size, 0);

	if (caa_likely(!((uintptr_t)obj & (RT_NODE_ALIGN - 1))))
		return obj;  /* aligned, or NULL */
	dallocx(obj, 0);
	return mallocx(size, RT_DIRECT_FLAGS);
}

static inline unsigned int rt_direct_get(size_t size, void **objs, unsigned int n)
{
	unsigned int got;

	for (got = 0; got < n; got++) {
		objs[got] = rt_direct_alloc(size);
		if (!objs[got])
			break;
	}
	rt_stat_add(RT_STAT_BACKING, got * rt_direct_usize(size));
	return got;
}

static inline void rt_direct_put(size_t size, void **objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sdallocx(objs[i], size, 0);
	rt_stat_add(RT_STAT_BACKING, -(n * rt_direct_usize(size)));
}

/* Bytes jemalloc's size class adds to @n objects of @size. */
static inline unsigned long rt_direct_overhead(size_t size, unsigned long n)
{
	return n * (rt_direct_usize(size) - size);
}

#endif /* RCURADIX_BACKEND_DIRECT_H */
