/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node.h - nodes from the backend, counted, with fault injection for the
 * tests; nodes back to it after a grace period, and the root's list of
 * nodes unlinked during the current lock hold.
 */
#ifndef RCURADIX_NODE_H
#define RCURADIX_NODE_H

#include "backend.h"

/* Up to @n objects of @size bytes from the backend, stopping at the first
 * failure (injected or real); counted.  Returns how many were obtained. */
RT_HIDDEN unsigned int rt_node_alloc(size_t size, void **nodes, unsigned int n);
/* Return @n objects of @size bytes no reader can reach any more (never
 * published, or past a grace period); counted. */
RT_HIDDEN void rt_node_free(size_t size, void **nodes, unsigned int n);

/*
 * rt_node_unlink() - @entry's node is no longer reachable from @root's
 * tree.  It goes on the root's retired list and is handed to call_rcu at
 * the outermost unlock (rt_retired_flush()), never sooner: until then a
 * slot into it obtained under the lock stays readable, and
 * radix_tree_replace_slot() recognises it.  @base: the node's first key.
 */
RT_HIDDEN void rt_node_unlink(struct radix_tree_root *root, void *entry, unsigned long base);

/*
 * rt_cnode_retire() - @entry's C node was replaced by a copy that is now
 * published: mark it dead, empty its item slots (readers that find NULL
 * check "dead" and look again), then rt_node_unlink() it.
 */
RT_HIDDEN void rt_cnode_retire(struct radix_tree_root *root, void *entry, unsigned long base);

/* Hand every node on @root's retired list to call_rcu (outermost unlock). */
RT_HIDDEN void rt_retired_flush(struct radix_tree_root *root);

/* The retired node whose slots contain @slot, or NULL (debug-free: a walk
 * of the list, as long as the lock hold's retirements). */
RT_HIDDEN void *rt_retired_find(const struct radix_tree_root *root, void **slot,
				unsigned long *base);

/* Free an unlinked node that readers may still hold: call_rcu of the
 * tree's flavor. */
RT_HIDDEN void rt_node_free_deferred(const struct radix_tree_root *root, void *entry);

/* End a writer call that may have unlinked nodes: at the outermost level,
 * hand them to call_rcu, then release the lock. */
static inline void rt_writer_done(struct radix_tree_root *root)
{
	if (root->depth == 1 && root->retired)
		rt_retired_flush(root);
	rt_writer_exit(root);
}

/*
 * Fault injection (tests): rt_fault_fail_nth(n) makes the n-th node
 * allocation from now fail (n = 0 disarms); rt_fault_fail_all(true) fails
 * every one until reset.
 */
RT_HIDDEN void rt_fault_fail_nth(unsigned long n);
RT_HIDDEN void rt_fault_fail_all(bool on);

#endif /* RCURADIX_NODE_H */
