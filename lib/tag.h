/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tag.h - tag propagation along a writer's path, shared by tag_set/clear,
 * delete and range tagging; and the free scan of IDR trees, inline here
 * since every allocation of an IDR or an IDA starts with it.
 */
#ifndef RCURADIX_TAG_H
#define RCURADIX_TAG_H

#include <errno.h>

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

/* ---- the free scan ---------------------------------------------------- */

/* A free word or entry, loaded as the caller's side requires. */
#define rt_free_load(root, locked, p) ((locked) ? rt_entry_locked(root, p) : rt_entry_rcu(p))
#define rt_free_bits(root, locked, w) ((locked) ? rt_bits_locked(root, w) : rt_bits_rcu(w))

/* The slots of a node at or after (@up) or at or before @offset. */
static inline unsigned long rt_slots_from(unsigned int offset, bool up)
{
	if (up)
		return ~0UL << offset;
	return offset >= RT_BITS_PER_LONG - 1 ? ~0UL : (2UL << offset) - 1;
}

/*
 * The descent takes, at each node, the nearest slot at or after (@up) or
 * at or before the key's own whose free bit is set, and the key moves to
 * that slot's first (@up) or last key if it is not the key's own.  An
 * empty slot, or a leaf's, is the answer.  A child whose bit is set may
 * have free keys only on the other side of the key: then the search
 * starts again from the key next to that child's range, where every slot
 * qualifies, so it starts again at most once per level.  Keys beyond the
 * top node's range are free; beside the root item, every key but 0.
 *
 * A writer may pass @path (tree lock held, @up): it gets the path to the
 * key found, as rt_descend() would record it, so that the caller does not
 * go down a second time.  Each start again records it afresh.
 */
static inline __attribute__((always_inline)) bool
rt_free_scan_inline(const struct radix_tree_root *root, unsigned long start, bool up, bool locked,
		    unsigned long *found, struct rt_path *path)
{
	unsigned long index = start;
	/* The path's depth and end, stored once at the answer. */
	unsigned int depth;
	enum rt_end end;

	rt_assert(rt_root_idr(root) && (!locked || rt_lock_held(root)));
	rt_assert(!path || (locked && up));
	for (;;) {
		void *entry = rt_free_load(root, locked, root->rnode);
		unsigned int level = entry ? rt_entry_level(entry) : 0;
		bool top_free;

		depth = 0;
		end = entry ? RT_END_ABOVE : RT_END_EMPTY;
		if (!entry)
			break;
		/* The root's bit, the writer's shortcut.  A reader does not
		 * read it: the writer stores it after the top it stands for
		 * (a new top, NULL, a shrink's child), so a reader may pair a
		 * top with another's bit, and a clear bit would pass free
		 * keys over.  A reader reads the top's own free word below,
		 * and takes the root item's key as free (its caller checks
		 * whether the key is present). */
		top_free = !locked || ((rt_free_bits(root, locked, root->tags) >> RT_IDR_FREE) & 1UL);
		if (rt_root_item(entry)) {
			/* Key 0 is the only key: free iff the root's bit
			 * says so (a reader: maybe); every other key is
			 * free. */
			if (!index && !top_free) {
				if (!up)
					return false;
				index = 1;
			}
			if (!index)
				end = RT_END_ROOT;
			break;
		}
		if (index > rt_level_maxindex(level))
			break;
		if (!top_free) {
			/* No free key in the top's range. */
			if (!up)
				return false;
			index = rt_level_maxindex(level) + 1;
			break;
		}
		for (;; level--) {
			struct rt_node *node = rt_entry_node(entry);
			unsigned int offset = rt_offset(index, level), pick;
			unsigned long free = rt_free_bits(root, locked, node->tags[RT_IDR_FREE]) &
					     rt_slots_from(offset, up);

			if (!free) {
				/* Free keys only on the other side: on past this node. */
				if (!up && !(index & ~rt_level_maxindex(level)))
					return false;  /* nothing below it */
				index = up ? (index | rt_level_maxindex(level)) + 1
					   : (index & ~rt_level_maxindex(level)) - 1;
				break;
			}
			pick = up ? (unsigned int)__builtin_ctzl(free)
				  : RT_BITS_PER_LONG - 1 - (unsigned int)__builtin_clzl(free);
			if (pick != offset) {
				index = rt_index_at(index, level, pick);
				if (!up && level)
					index |= rt_level_maxindex(level - 1);
			}
			if (path) {
				/* A leaf's slot, or an empty slot above the
				 * leaves: rt_descend()'s two ends inside the
				 * top's range, in an IDR tree of full nodes. */
				path->step[depth++] = (struct rt_path_step){
					entry, index & ~rt_level_maxindex(level), (int)pick
				};
			}
			entry = level ? rt_free_load(root, locked, node->slots[pick]) : NULL;
			if (!entry) {
				end = level ? RT_END_EMPTY : RT_END_SLOT;
				goto out;
			}
		}
	}
out:
	if (path) {
		path->depth = depth;
		path->end = end;
	}
	*found = index;
	return true;
}

/*
 * rt_free_find() - the smallest free key of IDR tree @root in [@start,
 * @max], into *@found, and into *@path the path to it as rt_descend()
 * records it: O(height), by the free words (internal.h, "IDR trees"), in
 * one descent.  Tree lock held.  Returns 0, or -ENOSPC if every key of the
 * range holds an entry (*@path then says nothing).  Inline: every
 * allocation of an IDR or an IDA starts with it.
 */
static inline __attribute__((always_inline)) int
rt_free_find(const struct radix_tree_root *root, unsigned long start, unsigned long max,
	     unsigned long *found, struct rt_path *path)
{
	rt_assert_locked(root);
	rt_assert(path);
	if (start > max || !rt_free_scan_inline(root, start, true, true, found, path) ||
	    *found > max)
		return -ENOSPC;
	/* The one descent and this record of it agree. */
	rt_assert(rt_path_is_current(root, *found, path));
	return 0;
}

#endif /* RCURADIX_TAG_H */
