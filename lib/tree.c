/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tree.c - lookups, and the writers that change the shape of a tree:
 * insert, delete (and iter_delete), shrink, replace_slot, destroy.
 *
 * Publication discipline (every change a reader can see):
 *   insert  builds every new node privately (plain stores into memory no
 *           reader can reach), then makes the whole new part reachable with
 *           one rt_publish(): into an existing node's slot, or into
 *           root->rnode when the tree grows or was empty.
 *   delete  clears the item's tags, publishes NULL into its slot, unlinks
 *           nodes left empty bottom-up (a NULL publish in the parent), then
 *           shrinks the height with one rt_publish() of the new root; every
 *           unlinked node goes to call_rcu and keeps its contents until then.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "preload.h"
#include "tag.h"

/* ---- readers ---------------------------------------------------------- */

RCURADIX_API void *radix_tree_lookup(const struct radix_tree_root *root, unsigned long index)
{
	void **slot;

	if (!root)
		return NULL;
	rt_reader_check(root, __func__);
	slot = rt_descend(root, index, NULL);
	return slot ? rt_entry_rcu(*slot) : NULL;
}

RCURADIX_API void **radix_tree_lookup_slot(const struct radix_tree_root *root,
					   unsigned long index)
{
	void **slot;

	if (!root)
		return NULL;
	rt_reader_check(root, __func__);
	slot = rt_descend(root, index, NULL);
	return slot && rt_entry_rcu(*slot) ? slot : NULL;
}

RCURADIX_API int radix_tree_empty(const struct radix_tree_root *root)
{
	/* One load: an empty tree has no node at all. */
	return !root || rt_entry_rcu(root->rnode) == NULL;
}

/* ---- insert ------------------------------------------------------------ */

static bool rt_may_alloc(gfp_t gfp_mask)
{
	return (gfp_mask & __GFP_DIRECT_RECLAIM) != 0;
}

/*
 * Build, in private nodes, the path from level @nr - 1 down to a leaf that
 * holds @item at @index.  Returns the entry of its top node.
 */
static void *rt_build_path(struct rt_node **nodes, unsigned int nr, unsigned long index,
			   void *item)
{
	void *entry = item;
	unsigned int level;

	for (level = 0; level < nr; level++) {
		struct rt_node *node = nodes[nr - 1 - level];
		unsigned int offset = rt_offset(index, level);

		rt_node_init(node);
		node->slots[offset] = entry;  /* private: plain stores */
		node->present = 1UL << offset;
		entry = rt_node_entry(node, level);
	}
	return entry;
}

/*
 * Build the new top nodes above @top (levels top_level + 1 .. @top_level +
 * @nr): each holds the one below in slot 0 and carries the root's tag bits
 * down into that slot; the highest also holds @sub at @index's offset.
 * Returns the entry of the new top.
 */
static void *rt_build_growth(struct radix_tree_root *root, struct rt_node **nodes,
			     unsigned int nr, void *top, unsigned long index, void *sub)
{
	unsigned long root_tags = rt_bits_locked(root, root->tags);
	unsigned int level = rt_entry_level(top);
	struct rt_node *node = NULL;
	unsigned int i, tag;

	for (i = 0; i < nr; i++) {
		node = nodes[i];
		rt_node_init(node);
		node->slots[0] = top;  /* private: plain stores */
		node->present = 1UL;
		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
			if (root_tags & (1UL << tag))
				node->tags[tag] = 1UL;
		top = rt_node_entry(node, ++level);
	}
	node->slots[rt_offset(index, level)] = sub;
	node->present |= 1UL << rt_offset(index, level);
	return top;
}

static int rt_insert_locked(struct radix_tree_root *root, unsigned long index, void *item)
{
	struct rt_node *nodes[RT_PRELOAD_SIZE];
	struct rt_path path;
	void **slot = rt_descend(root, index, &path);
	void *top = rt_entry_locked(root, root->rnode);
	unsigned int nr_grow = 0, nr_path;
	void *sub;

	if (slot) {
		struct rt_path_step *leaf = rt_path_leaf(&path);

		if (rt_entry_locked(root, *slot))
			return -EEXIST;
		/* The leaf exists: the item is the only thing to publish. */
		rt_slot_set(root, leaf->node, leaf->offset, item);
		root->nr_items++;
		return 0;
	}
	if (!top) {
		nr_path = rt_level_for(index) + 1;
	} else if (path.depth == 0) {
		/* Beyond the tree's height: grow, the new path hangs off the top. */
		nr_path = rt_level_for(index);
		nr_grow = nr_path - rt_entry_level(top);
	} else {
		/* A node on the way has an empty slot: build below it. */
		nr_path = rt_path_leaf(&path)->level;
	}
	if (rt_nodes_get(nodes, nr_grow + nr_path, rt_may_alloc(root->gfp_mask)))
		return -ENOMEM;
	root->nr_nodes += nr_grow + nr_path;
	root->nr_items++;
	sub = rt_build_path(nodes + nr_grow, nr_path, index, item);
	if (!top) {
		/* Publish: the whole new tree becomes reachable at once. */
		rt_publish(root->rnode, sub);
	} else if (nr_grow) {
		/* Publish: new top nodes above the old root, which a reader that
		 * loaded the old root keeps descending unchanged. */
		rt_publish(root->rnode, rt_build_growth(root, nodes, nr_grow, top, index, sub));
	} else {
		struct rt_path_step *parent = rt_path_leaf(&path);

		/* Publish: the new subtree into the existing parent's slot. */
		rt_slot_set(root, parent->node, parent->offset, sub);
	}
	return 0;
}

#ifdef RT_DEBUG
/* Debug builds: a tree that may not allocate inside insert (GFP_ATOMIC,
 * GFP_NOWAIT) must be filled inside a preload window.  Leftover reserve
 * nodes would otherwise let a missing preload pass in tests and fail in
 * production. */
static void rt_insert_check_preload(const struct radix_tree_root *root)
{
	if (uatomic_read(&rt_debug_strict) && !rt_may_alloc(root->gfp_mask) &&
	    !rt_preload_window_open())
		rt_die("radix_tree_insert", "insert into a tree whose gfp_mask may not "
					    "allocate (GFP_ATOMIC) outside a preload window");
}
#else
#define rt_insert_check_preload(root) ((void)0)
#endif

RCURADIX_API int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item)
{
	int ret;

	if (!rt_item_valid(item))
		return -EINVAL;
	ret = rt_writer_enter(root, __func__);
	if (ret)
		return ret;
	rt_insert_check_preload(root);
	ret = rt_insert_locked(root, index, item);
	rt_writer_exit(root);
	return ret;
}

/* ---- delete and shrink ------------------------------------------------- */

/*
 * Shrink the height: while the top node is inner and holds only slot 0, its
 * child can be the root.  One publish of the final root, then the skipped
 * top nodes go to call_rcu intact (slot 0 still leads readers down).
 * An empty top node empties the tree.
 */
static void rt_shrink(struct radix_tree_root *root)
{
	void *top = rt_entry_locked(root, root->rnode);
	void *entry = top;
	struct rt_node *node;

	if (!top)
		return;
	node = rt_entry_node(top);
	if (!rt_bits_locked(root, node->present)) {
		/* Unpublish the last node, then free it after a grace period. */
		rt_publish(root->rnode, NULL);
		rt_bits_store(root->tags, 0UL);
		root->nr_nodes--;
		rt_node_free_deferred(root, node);
		return;
	}
	while (rt_entry_level(entry) > 0) {
		node = rt_entry_node(entry);
		if (rt_bits_locked(root, node->present) != 1UL)  /* only slot 0 in use */
			break;
		entry = rt_entry_locked(root, node->slots[0]);
	}
	if (entry == top)
		return;
	/* Unpublish the old top nodes: readers already on them still find the
	 * child through slot 0 until their grace period ends. */
	rt_publish(root->rnode, entry);
	while (top != entry) {
		void *next;

		node = rt_entry_node(top);
		/* Read before the node is handed to call_rcu. */
		next = rt_entry_locked(root, node->slots[0]);
		root->nr_nodes--;
		rt_node_free_deferred(root, node);
		top = next;
	}
}

/* Delete the item in @path's leaf slot; *@leaf_freed (if given) says
 * whether the leaf was emptied and unlinked. */
static void *rt_delete_at(struct radix_tree_root *root, struct rt_path *path, bool *leaf_freed)
{
	struct rt_path_step *leaf = rt_path_leaf(path);
	void *item = rt_entry_locked(root, leaf->node->slots[leaf->offset]);
	unsigned int d;

	rt_tags_clear_slot(root, path);
	/* Unpublish the item: readers now find NULL (or still the item, until
	 * they reload); the caller frees it after a grace period. */
	rt_slot_clear(root, leaf->node, leaf->offset);
	root->nr_items--;
	if (leaf_freed)
		*leaf_freed = !rt_bits_locked(root, leaf->node->present);
	for (d = path->depth - 1;
	     d > 0 && !rt_bits_locked(root, path->step[d].node->present); d--) {
		struct rt_path_step *parent = &path->step[d - 1];

		/* Unpublish the empty node, then free it after a grace period. */
		rt_slot_clear(root, parent->node, parent->offset);
		root->nr_nodes--;
		rt_node_free_deferred(root, path->step[d].node);
	}
	rt_shrink(root);
	return item;
}

RCURADIX_API void *radix_tree_delete(struct radix_tree_root *root, unsigned long index)
{
	struct rt_path path;
	void **slot;
	void *item = NULL;

	if (rt_writer_enter(root, __func__))
		return NULL;
	slot = rt_descend(root, index, &path);
	if (slot && rt_entry_locked(root, *slot))
		item = rt_delete_at(root, &path, NULL);
	rt_writer_exit(root);
	return item;
}

RCURADIX_API void *radix_tree_iter_delete(struct radix_tree_root *root,
					  struct radix_tree_iter *iter, void **slot)
{
	struct rt_path path;
	bool leaf_freed = false;
	void *item = NULL;

	if (!iter || !slot || rt_root_check(root, __func__))
		return NULL;
	/* The contract: the caller holds the lock for the whole walk. */
	rt_require_lock(root, __func__);
	if (rt_writer_enter(root, __func__))
		return NULL;
	if (rt_descend(root, iter->index, &path) == slot && rt_entry_locked(root, *slot)) {
		item = rt_delete_at(root, &path, &leaf_freed);
		/* A freed leaf must not be read again: end the chunk here, the
		 * next step re-descends from the following key (the leaf was
		 * empty, so nothing is skipped). */
		if (leaf_freed)
			radix_tree_iter_resume(slot, iter);
	}
	rt_writer_exit(root);
	return item;
}

/* ---- replace_slot and destroy ------------------------------------------ */

#ifdef RT_DEBUG
/* Is @slot a leaf slot of the subtree of @entry (debug builds: a full
 * search, since a slot does not say which node it is in)? */
static bool rt_slot_in_subtree(const struct radix_tree_root *root, void *entry, void **slot)
{
	struct rt_node *node = rt_entry_node(entry);
	unsigned int i;

	if (rt_entry_level(entry) == 0)
		return slot >= node->slots && slot < node->slots + RT_MAP_SIZE;
	for (i = 0; i < RT_MAP_SIZE; i++) {
		void *child = rt_entry_locked(root, node->slots[i]);

		if (child && rt_slot_in_subtree(root, child, slot))
			return true;
	}
	return false;
}
#endif

RCURADIX_API void radix_tree_replace_slot(struct radix_tree_root *root, void **slot, void *item)
{
	static const char fn[] = "radix_tree_replace_slot";
	void *old;

	if (!root || !slot)
		rt_die(fn, "NULL %s", root ? "slot" : "root");
	if (!rt_item_valid(item))
		rt_die(fn, "item %p is NULL or not 4-byte aligned (delete with radix_tree_delete())",
		       item);
	rt_require_lock(root, fn);
	if (rt_writer_enter(root, fn))
		rt_die(fn, "tree not initialised, or bound to no RCU flavor");
	old = rt_entry_locked(root, *slot);
	if (!old || rt_is_internal(old))
		rt_die(fn, "the slot holds no item (deleted, or not a slot of this tree)");
#ifdef RT_DEBUG
	{
		void *top = rt_entry_locked(root, root->rnode);

		if (!top || !rt_slot_in_subtree(root, top, slot))
			rt_die(fn, "the slot is not in this tree");
	}
#endif
	/* Publish the new item: readers load the old or the new one, and see
	 * the new one initialised. */
	rt_publish(*slot, item);
	rt_writer_exit(root);
}

/* Queue a detached subtree to call_rcu, children before parents: a node's
 * slots are read before the node itself is handed over. */
static void rt_free_subtree(const struct radix_tree_root *root, void *entry)
{
	struct rt_node *node = rt_entry_node(entry);
	unsigned int i;

	if (rt_entry_level(entry) > 0)
		for (i = 0; i < RT_MAP_SIZE; i++) {
			void *child = rt_entry_locked(root, node->slots[i]);

			if (child)
				rt_free_subtree(root, child);
		}
	rt_node_free_deferred(root, node);
}

RCURADIX_API void radix_tree_destroy(struct radix_tree_root *root)
{
	void *top;

	if (rt_writer_enter(root, __func__))
		return;
	top = rt_entry_locked(root, root->rnode);
	/* Unpublish everything at once; readers inside a read-side section
	 * keep a consistent old tree until their grace period ends. */
	rt_publish(root->rnode, NULL);
	rt_bits_store(root->tags, 0UL);
	if (top)
		rt_free_subtree(root, top);
	root->nr_nodes = 0;
	root->nr_items = 0;
	rt_writer_exit(root);
}
