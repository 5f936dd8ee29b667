/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tag.c - tag bits: set, clear, get, the root summary, propagation along a
 * path, and range tagging.
 *
 * Invariant (radix_tree_verify() checks it): bit i of node->tags[t] is set
 * iff slot i holds an item bearing t (leaf) or a node with some bit of
 * tags[t] set (inner node); bit t of root->tags is set iff the top node has
 * some bit of tags[t] set.  NULL slots carry no tag bits.
 *
 * Order of stores: setting goes leaf first, then upward, so that a reader
 * that sees a node's bit and descends finds a tagged item below (setting an
 * inner bit before the leaf caused the kernel's writeback livelock).
 * Clearing goes leaf first too and stops as soon as a node keeps another
 * tagged slot.  Readers may see either order half done (guarantee E); the
 * walks in iter.c stay correct and make progress either way.
 */
#include "config.h"

#include <errno.h>

#include "tag.h"

static bool rt_tag_valid(unsigned int tag)
{
	return tag < RADIX_TREE_MAX_TAGS;
}

/*
 * Set @leaf_bits in the leaf of @path for @tag, then the bit of each node
 * above it, stopping at the first ancestor whose bit was already set (the
 * invariant makes every bit above it set too), and finally the root's
 * summary bit.
 */
void rt_tag_set_path(struct radix_tree_root *root, const struct rt_path *path,
		     unsigned int tag, unsigned long leaf_bits)
{
	unsigned long bits = leaf_bits;
	unsigned int d = path->depth;

	rt_assert_locked(root);
	while (d-- > 0) {
		const struct rt_path_step *step = &path->step[d];
		unsigned long old = rt_bits_locked(root, step->node->tags[tag]);

		if ((old & bits) == bits)
			return;
		rt_bits_store(step->node->tags[tag], old | bits);
		if (old)
			return;  /* the node was already tagged: ancestors are */
		bits = d ? 1UL << path->step[d - 1].offset : 0;
	}
	rt_bits_store(root->tags, rt_bits_locked(root, root->tags) | (1UL << tag));
}

/*
 * Clear @leaf_bits in the leaf of @path for @tag; while a node's bitmap
 * becomes empty, clear its bit in the parent, and the root's summary bit
 * when the top node's bitmap empties.
 */
void rt_tag_clear_path(struct radix_tree_root *root, const struct rt_path *path,
		       unsigned int tag, unsigned long leaf_bits)
{
	unsigned long bits = leaf_bits;
	unsigned int d = path->depth;

	rt_assert_locked(root);
	while (d-- > 0) {
		const struct rt_path_step *step = &path->step[d];
		unsigned long old = rt_bits_locked(root, step->node->tags[tag]);

		if (!(old & bits))
			return;
		rt_bits_store(step->node->tags[tag], old & ~bits);
		if (old & ~bits)
			return;  /* the node keeps another tagged slot */
		bits = d ? 1UL << path->step[d - 1].offset : 0;
	}
	rt_bits_store(root->tags, rt_bits_locked(root, root->tags) & ~(1UL << tag));
}

/* Clear every tag of the item in @path's leaf slot (delete). */
void rt_tags_clear_slot(struct radix_tree_root *root, const struct rt_path *path)
{
	const struct rt_path_step *leaf = &path->step[path->depth - 1];
	unsigned int tag;

	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		if (rt_bits_locked(root, leaf->node->tags[tag]) & (1UL << leaf->offset))
			rt_tag_clear_path(root, path, tag, 1UL << leaf->offset);
}

typedef void rt_tag_op(struct radix_tree_root *, const struct rt_path *, unsigned int,
		       unsigned long);

static void *rt_tag_change(struct radix_tree_root *root, unsigned long index, unsigned int tag,
			   rt_tag_op *op, const char *fn)
{
	struct rt_path path;
	void **slot;
	void *item = NULL;

	if (!rt_tag_valid(tag) || rt_writer_enter(root, fn))
		return NULL;
	slot = rt_descend(root, index, &path);
	if (slot && (item = rt_entry_locked(root, *slot)))
		op(root, &path, tag, 1UL << rt_path_leaf(&path)->offset);
	rt_writer_exit(root);
	return item;
}

RCURADIX_API void *radix_tree_tag_set(struct radix_tree_root *root, unsigned long index,
				      unsigned int tag)
{
	return rt_tag_change(root, index, tag, rt_tag_set_path, __func__);
}

RCURADIX_API void *radix_tree_tag_clear(struct radix_tree_root *root, unsigned long index,
					unsigned int tag)
{
	return rt_tag_change(root, index, tag, rt_tag_clear_path, __func__);
}

static int rt_warned_tag_get;

RCURADIX_API int radix_tree_tag_get(const struct radix_tree_root *root, unsigned long index,
				    unsigned int tag)
{
	unsigned int offset = rt_offset(index, 0);
	void **slot;

	if (!rt_tag_valid(tag)) {
		/* Any non-zero value would read as "tagged" to kernel-style
		 * callers: report the misuse and answer "not tagged". */
		rt_warn_once(&rt_warned_tag_get, __func__, "invalid tag %u (RADIX_TREE_MAX_TAGS is %d)",
			     tag, RADIX_TREE_MAX_TAGS);
		return 0;
	}
	if (!root)
		return 0;
	rt_reader_check(root, __func__);
	slot = rt_descend(root, index, NULL);
	if (!slot || !rt_entry_rcu(*slot))
		return 0;
	return (rt_bits_rcu(rt_slot_node(slot, offset)->tags[tag]) >> offset) & 1UL;
}

RCURADIX_API int radix_tree_tagged(const struct radix_tree_root *root, unsigned int tag)
{
	if (!root || !rt_tag_valid(tag))
		return 0;
	/* One load of the summary word; may be stale (guarantee E). */
	return (rt_bits_rcu(root->tags) >> tag) & 1UL;
}

/*
 * Range tagging walks the chunks (leaves) bearing @fromtag with the
 * iterator engine, under the lock, and sets @totag on a whole leaf's worth
 * of items with one descent and one upward propagation.
 */
RCURADIX_API unsigned long radix_tree_range_tag_if_tagged(struct radix_tree_root *root,
							  unsigned long *first_indexp,
							  unsigned long last_index,
							  unsigned long nr_to_tag,
							  unsigned int fromtag, unsigned int totag)
{
	struct radix_tree_iter iter;
	unsigned long tagged = 0, next;
	void **slot;

	if (!first_indexp || !nr_to_tag || *first_indexp > last_index || !rt_tag_valid(fromtag) ||
	    !rt_tag_valid(totag) || rt_writer_enter(root, __func__))
		return 0;
	next = last_index + 1;  /* wraps to 0 at ULONG_MAX, as in the kernel */
	radix_tree_iter_init(&iter, *first_indexp);
	while ((slot = radix_tree_next_chunk(root, &iter, RADIX_TREE_ITER_TAGGED | fromtag))) {
		unsigned int offset = rt_offset(iter.index, 0);
		unsigned long bits = iter.tags;  /* fromtag bits from here on, leaf positions */
		struct rt_path path;

		/* The next tagged item may lie beyond the range. */
		if (iter.index > last_index)
			break;
		if (last_index - iter.index < RT_MAP_SIZE - 1 - offset)
			bits &= (2UL << rt_offset(last_index, 0)) - 1;  /* range ends here */
		while (__builtin_popcountl(bits) > (int)(nr_to_tag - tagged < RT_MAP_SIZE ?
							 nr_to_tag - tagged : RT_MAP_SIZE))
			bits &= ~(1UL << (RT_BITS_PER_LONG - 1 - __builtin_clzl(bits)));
		tagged += (unsigned long)__builtin_popcountl(bits);
		rt_descend(root, iter.index, &path);
		rt_tag_set_path(root, &path, totag, bits);
		if (tagged == nr_to_tag) {
			unsigned int last = RT_BITS_PER_LONG - 1 - (unsigned int)__builtin_clzl(bits);

			next = iter.index - offset + last + 1;
			break;
		}
		if (iter.next_index == 0 || iter.next_index > last_index)
			break;
	}
	rt_writer_exit(root);
	*first_indexp = next;
	return tagged;
}
