/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * backend.h - where node memory comes from: one small interface, one file
 * per backend (./configure --with-node-allocator=...), exactly one of which
 * is compiled in:
 *   backend-slab.c      (slab, default) full nodes carved from 64 KiB slabs
 *                       obtained from jemalloc (mallocx/sdallocx), compact
 *                       nodes from jemalloc's size classes
 *   backend-jemalloc.c  (jemalloc) one mallocx()/sdallocx() per object
 *   backend-arena.c     (jemalloc-arena) mallocx() from a private arena
 *                       through an explicit per-thread tcache
 *   backend-libc.c      (libc) aligned_alloc()/free() per object, so that
 *                       AddressSanitizer and valgrind see every node
 * jemalloc stays private to the library: only mallocx, sdallocx, nallocx
 * and mallctl are called, never malloc.
 *
 * Sizes are multiples of RT_NODE_ALIGN (64 bytes); every object is aligned
 * to 64 bytes.  The backend counts the bytes it holds from the underlying
 * allocator (RT_STAT_BACKING); node.c counts objects.
 */
#ifndef RCURADIX_BACKEND_H
#define RCURADIX_BACKEND_H

#include "stats.h"

/* Up to @n objects of @size bytes into @objs, stopping at the first failure.
 * Returns how many were obtained. */
RT_HIDDEN unsigned int rt_backend_get(size_t size, void **objs, unsigned int n);
/* Return @n objects of @size bytes. */
RT_HIDDEN void rt_backend_put(size_t size, void **objs, unsigned int n);
/* Return memory the backend keeps cached for reuse. */
RT_HIDDEN void rt_backend_trim(void);
/* Bytes the backend spends beyond @n x @size for @n objects of @size. */
RT_HIDDEN unsigned long rt_backend_overhead(size_t size, unsigned long n);
/* fork(): hold every backend lock across it (prepare), release (parent and
 * child), so that a child never inherits a lock another thread held. */
RT_HIDDEN void rt_backend_prefork(void);
RT_HIDDEN void rt_backend_postfork(void);

#endif /* RCURADIX_BACKEND_H */
