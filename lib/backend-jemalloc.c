/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend-jemalloc.c - one mallocx()/sdallocx() per object, through
 * jemalloc's automatic thread cache (a 576-byte node takes the 640-byte
 * size class).
 */
#include "config.h"

#include "backend-direct.h"

unsigned int rt_backend_get(size_t size, void **objs, unsigned int n)
{
	return rt_direct_get(size, objs, n);
}

void rt_backend_put(size_t size, void **objs, unsigned int n)
{
	rt_direct_put(size, objs, n);
}

void rt_backend_trim(void)
{
	/* Nothing cached beyond jemalloc's own caches. */
}

unsigned long rt_backend_overhead(size_t size, unsigned long n)
{
	return rt_direct_overhead(size, n);
}

void rt_backend_prefork(void)
{
	/* No lock of ours: jemalloc handles fork itself. */
}

void rt_backend_postfork(void)
{
}
