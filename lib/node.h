/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node.h - nodes from the backend, counted, with fault injection for the
 * tests; nodes back to it after a grace period.
 */
#ifndef RCURADIX_NODE_H
#define RCURADIX_NODE_H

#include "backend.h"

/* Up to @n nodes from the backend, stopping at the first failure (injected
 * or real); counted.  Returns how many were obtained. */
RT_HIDDEN unsigned int rt_node_alloc(struct rt_node **nodes, unsigned int n);
/* Return @n nodes no reader can reach any more (never published, or past a
 * grace period); counted. */
RT_HIDDEN void rt_node_free(struct rt_node **nodes, unsigned int n);
/* Prepare a node taken from a reserve: empty, untagged. */
RT_HIDDEN void rt_node_init(struct rt_node *node);
/* Free an unlinked node that readers may still hold: call_rcu of the
 * tree's flavor. */
RT_HIDDEN void rt_node_free_deferred(const struct radix_tree_root *root, struct rt_node *node);

/*
 * Fault injection (tests): rt_fault_fail_nth(n) makes the n-th node
 * allocation from now fail (n = 0 disarms); rt_fault_fail_all(true) fails
 * every one until reset.
 */
RT_HIDDEN void rt_fault_fail_nth(unsigned long n);
RT_HIDDEN void rt_fault_fail_all(bool on);

#endif /* RCURADIX_NODE_H */
