/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * preload.h - the per-thread node reserve, from which every node a writer
 * links is taken.
 */
#ifndef RCURADIX_PRELOAD_H
#define RCURADIX_PRELOAD_H

#include "node.h"

/* Get @n nodes of @sizes[i] bytes for one operation: from the backend if
 * @may_alloc, else (or if it fails) from the thread's reserve, where a
 * compact node may get a larger block: @sizes[i] is updated.  All or
 * nothing: 0, or -ENOMEM with nothing taken. */
RT_HIDDEN int rt_nodes_get(void **nodes, size_t *sizes, unsigned int n, bool may_alloc);
/* Get @n nodes of @sizes[i] bytes from the backend, never from the
 * reserve (a plan larger than the reserve covers, with a fallback).  All
 * or nothing: 0, or -ENOMEM with nothing taken. */
RT_HIDDEN int rt_nodes_alloc(void **nodes, const size_t *sizes, unsigned int n);
/* Give back @n nodes obtained by rt_nodes_get() and not used: into the
 * reserve if it has room, else to the backend. */
RT_HIDDEN void rt_nodes_put(void **nodes, const size_t *sizes, unsigned int n);

/* Is a preload window (radix_tree_preload() .. _end()) open in this thread? */
RT_HIDDEN bool rt_preload_window_open(void);

#endif /* RCURADIX_PRELOAD_H */
