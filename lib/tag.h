/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tag.h - tag propagation along a writer's path, shared by tag_set/clear,
 * delete and range tagging.
 */
#ifndef RCURADIX_TAG_H
#define RCURADIX_TAG_H

#include "descend.h"

/* The compact-node halves of rt_step_tags() and rt_step_tags_store(). */
RT_HIDDEN unsigned long rt_step_tags_slow(const struct radix_tree_root *root,
					  const struct rt_path_step *step, unsigned int tag);
RT_HIDDEN void rt_step_tags_store_slow(const struct rt_path_step *step, unsigned int tag,
				       unsigned long old, unsigned long bits);

/* Tag word @tag of the node of @step: bit i for its slot or entry i.  A
 * full node's is one word, read inline; a compact node's is gathered from
 * its tag bytes.  Tree lock held. */
static inline unsigned long rt_step_tags(const struct radix_tree_root *root,
					 const struct rt_path_step *step, unsigned int tag)
{
	if (caa_likely(!rt_entry_compact(step->entry)))
		return rt_bits_locked(root, rt_entry_node(step->entry)->tags[tag]);
	return rt_step_tags_slow(root, step, tag);
}

/* Store tag word @tag of the node of @step, which was @old.  Release
 * stores (rt_bits_store): a reader that sees a bit sees what was stored
 * before it. */
static inline void rt_step_tags_store(const struct rt_path_step *step, unsigned int tag,
				      unsigned long old, unsigned long bits)
{
	if (caa_likely(!rt_entry_compact(step->entry)))
		rt_bits_store(rt_entry_node(step->entry)->tags[tag], bits);
	else
		rt_step_tags_store_slow(step, tag, old, bits);
}

/*
 * The free bit of an IDR tree's slot where a writer's descent ended
 * (rt_path_slot()): the leaf bits for rt_free_set_path() and
 * rt_free_clear_path(), none for the root item's (a path of depth 0 moves
 * the root's own bit only); and whether it is set.  Tree lock held.
 */
static inline unsigned long rt_path_slot_bit(const struct rt_path *path)
{
	return path->depth ? 1UL << path->step[path->depth - 1].pos : 0;
}

static inline bool rt_path_slot_free(const struct radix_tree_root *root, const struct rt_path *path)
{
	if (!path->depth)
		return (rt_bits_locked(root, root->tags) >> RT_IDR_FREE) & 1UL;
	return (rt_step_tags(root, &path->step[path->depth - 1], RT_IDR_FREE) &
		rt_path_slot_bit(path)) != 0;
}

/* Set @leaf_bits of @tag in @path's leaf, then upward as needed. */
RT_HIDDEN void rt_tag_set_path(struct radix_tree_root *root, const struct rt_path *path,
			       unsigned int tag, unsigned long leaf_bits);
/* Clear @leaf_bits of @tag in @path's leaf, then upward as needed. */
RT_HIDDEN void rt_tag_clear_path(struct radix_tree_root *root, const struct rt_path *path,
				 unsigned int tag, unsigned long leaf_bits);
/* The two above for the free word of an IDR tree (full nodes only). */
RT_HIDDEN void rt_free_set_path(struct radix_tree_root *root, const struct rt_path *path,
				unsigned long leaf_bits);
RT_HIDDEN void rt_free_clear_path(struct radix_tree_root *root, const struct rt_path *path,
				  unsigned long leaf_bits);
/* Clear every tag of the item in @path's leaf slot (delete). */
RT_HIDDEN void rt_tags_clear_slot(struct radix_tree_root *root, const struct rt_path *path);

/*
 * rt_free_scan() - the nearest free key of IDR tree @root at or after
 * (@up) or at or before @start, into *@found, by the free words (internal.h,
 * "IDR trees"): O(height).  @locked: the caller holds the tree lock (the
 * answer is exact), else it is an RCU reader (the words may be stale: a
 * key absent throughout the call is never passed over, but the key found
 * may have been taken since).  Returns false if no key at or before
 * @start is free (never when @up).
 */
RT_HIDDEN bool rt_free_scan(const struct radix_tree_root *root, unsigned long start, bool up,
			    bool locked, unsigned long *found);

/*
 * rt_free_find() - the smallest free key of IDR tree @root in [@start,
 * @max], into *@found, and into *@path the path to it as rt_descend()
 * records it: O(height), by the free words (internal.h, "IDR trees"), in
 * one descent.  Tree lock held.  Returns 0, or -ENOSPC if every key of the
 * range holds an entry (*@path then says nothing).
 */
RT_HIDDEN int rt_free_find(const struct radix_tree_root *root, unsigned long start,
			   unsigned long max, unsigned long *found, struct rt_path *path);

#endif /* RCURADIX_TAG_H */
