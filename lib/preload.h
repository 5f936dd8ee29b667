/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * preload.h - the per-thread node reserve, from which every node a writer
 * links is taken.
 */
#ifndef RCURADIX_PRELOAD_H
#define RCURADIX_PRELOAD_H

#include "node.h"

/* May a call with @gfp_mask allocate, or only take the reserve? */
static inline bool rt_may_alloc(gfp_t gfp_mask)
{
	return (gfp_mask & __GFP_DIRECT_RECLAIM) != 0;
}

/* Get @n nodes of @sizes[i] bytes for one operation: from the backend if
 * @may_alloc, else (or if it fails) from the thread's reserve, where a
 * compact node may get a larger block: @sizes[i] is updated.  All or
 * nothing: 0, or -ENOMEM with nothing taken. */
RT_HIDDEN int rt_nodes_get(void **nodes, size_t *sizes, unsigned int n, bool may_alloc);
/* Get @n nodes of @sizes[i] bytes from the backend, never from the
 * reserve (a plan larger than the reserve covers, with a fallback).  All
 * or nothing: 0, or -ENOMEM with nothing taken. */
RT_HIDDEN int rt_nodes_alloc(void **nodes, const size_t *sizes, unsigned int n);
/* One block of exactly @size bytes (a class of the reserve: a multiple of
 * RT_NODE_ALIGN, at most RT_C_MAX_BYTES), for an object that does not
 * record its size: from the backend if @may_alloc, else, or if that fails,
 * from the reserve.  NULL if neither has one. */
RT_HIDDEN void *rt_block_get_exact(size_t size, bool may_alloc);
/* Give back @n nodes obtained by rt_nodes_get() and not used: into the
 * reserve if it has room, else to the backend. */
RT_HIDDEN void rt_nodes_put(void **nodes, const size_t *sizes, unsigned int n);

/* idr_preload(): fill the reserve's full nodes to what one insert into an
 * IDR tree may need (RT_IDR_MAX_NODES), and a block for an IDA's bitmap
 * (the worst ida_alloc*()), then open a preload window, as
 * radix_tree_preload() does, whether it filled it or not (the kernel's
 * idr_preload() is always followed by idr_preload_end()); @fn names the
 * caller in reports.  0, or -ENOMEM with the reserve as it was. */
RT_HIDDEN int rt_preload_idr(const char *fn);

/* Is a preload window (radix_tree_preload() .. _end()) open in this thread? */
RT_HIDDEN bool rt_preload_window_open(void);

#endif /* RCURADIX_PRELOAD_H */
