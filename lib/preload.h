/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * preload.h - the per-thread node reserve, from which every node a writer
 * links is taken.
 */
#ifndef RCURADIX_PRELOAD_H
#define RCURADIX_PRELOAD_H

#include "node.h"

/* Take @n nodes for one operation from the thread's reserve, refilling it
 * from the backend if @may_alloc.  All or nothing: 0 or -ENOMEM. */
RT_HIDDEN int rt_nodes_get(struct rt_node **nodes, unsigned int n, bool may_alloc);

/* Is a preload window (radix_tree_preload() .. _end()) open in this thread? */
RT_HIDDEN bool rt_preload_window_open(void);

#endif /* RCURADIX_PRELOAD_H */
