/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend-libc.c - aligned_alloc()/free() per object, so that
 * AddressSanitizer and valgrind see every node as its own block.
 */
#include "config.h"

#include "backend.h"

unsigned int rt_backend_get(size_t size, void **objs, unsigned int n)
{
	unsigned int got;

	for (got = 0; got < n; got++) {
		objs[got] = aligned_alloc(RT_NODE_ALIGN, size);
		if (!objs[got])
			break;
	}
	rt_stat_add(RT_STAT_BACKING, got * size);
	return got;
}

void rt_backend_put(size_t size, void **objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(objs[i]);
	rt_stat_add(RT_STAT_BACKING, -(n * size));
}

void rt_backend_trim(void)
{
	/* Nothing cached beyond the allocator's own caches. */
}

unsigned long rt_backend_overhead(size_t size, unsigned long n)
{
	(void)size;
	(void)n;
	return 0;
}

void rt_backend_prefork(void)
{
	/* No lock of ours: glibc's malloc handles fork itself. */
}

void rt_backend_postfork(void)
{
}
