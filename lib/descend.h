/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * descend.h - the descent: the one place that knows how an index selects a
 * path from the root to a leaf slot, for readers and writers alike.
 */
#ifndef RCURADIX_DESCEND_H
#define RCURADIX_DESCEND_H

#include "base.h"

struct rt_path_step {
	struct rt_node *node;
	unsigned int level;
	unsigned int offset;
};

/* The nodes a writer went through on the way to @index, top first. */
struct rt_path {
	struct rt_path_step step[RT_MAX_LEVELS];
	unsigned int depth;  /* steps recorded */
};

/* The deepest step of a path. */
static inline struct rt_path_step *rt_path_leaf(struct rt_path *path)
{
	return &path->step[path->depth - 1];
}

/*
 * rt_descend() - the leaf slot for @index, or NULL if no leaf covers it.
 * A reader passes @path NULL and loads with rt_entry_rcu(); a writer (tree
 * lock held) passes @path, loads with rt_entry_locked(), and receives every
 * node passed, top first, also when the descent stops early at an empty
 * slot: path->depth is then the number of nodes that exist on @index's
 * path.  Works on a stale root: the level travels with each entry, so a
 * reader that loaded the root before a grow or shrink still decodes every
 * node it reaches correctly (guarantee F).
 * Context: RCU reader (@path NULL), or tree lock held.
 */
static inline void **rt_descend(const struct radix_tree_root *root, unsigned long index,
				struct rt_path *path)
{
	void *entry = path ? rt_entry_locked(root, root->rnode) : rt_entry_rcu(root->rnode);
	unsigned int level;

	if (path)
		path->depth = 0;
	if (!entry)
		return NULL;
	level = rt_entry_level(entry);
	if (index > rt_level_maxindex(level))
		return NULL;
	for (;;) {
		struct rt_node *node = rt_entry_node(entry);
		unsigned int offset = rt_offset(index, level);

		if (path)
			path->step[path->depth++] = (struct rt_path_step){ node, level, offset };
		if (level == 0)
			return &node->slots[offset];
		entry = path ? rt_entry_locked(root, node->slots[offset])
			     : rt_entry_rcu(node->slots[offset]);
		if (!entry)
			return NULL;
		/*
		 * Children sit exactly one level down (radix_tree_verify()
		 * checks it against the level each entry carries), so the next
		 * offset does not wait for the loaded entry to be decoded: each
		 * level's dependency chain is load -> mask -> load.  Nodes that
		 * skip levels would decode rt_entry_level(entry) here instead.
		 */
		level--;
		rt_assert(rt_entry_level(entry) == level);
	}
}

#endif /* RCURADIX_DESCEND_H */
