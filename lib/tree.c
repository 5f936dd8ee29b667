/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tree.c - initialisation, the tree lock, lookup, insert, delete, shrink,
 * replace_slot, destroy.
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

#include "internal.h"

/*
 * The default flavor, if the program links liburcu-memb.  Weak: the library
 * itself must not pull in any flavor library, so that one shared object
 * serves them all.
 */
extern const struct rcu_flavor_struct urcu_memb_flavor __attribute__((weak));

/* ---- the tree lock ----------------------------------------------------- */

/* Its address identifies the thread.  initial-exec: one byte of static TLS
 * instead of a __tls_get_addr() call on every lock and unlock. */
static __thread char rt_self __attribute__((tls_model("initial-exec")));

unsigned long rt_thread_id(void)
{
	return (unsigned long)(uintptr_t)&rt_self;
}

void rt_lock(struct radix_tree_root *root)
{
	unsigned long self = rt_thread_id();

	if (CMM_LOAD_SHARED(root->owner) == self) {
		root->depth++;
		return;
	}
	pthread_mutex_lock(&root->lock);
	/* Read racily by other threads in rt_lock_held(): they compare with
	 * their own id, which this value never equals; the volatile store only
	 * keeps the compiler from splitting it. */
	CMM_STORE_SHARED(root->owner, self);
	root->depth = 1;
}

void rt_unlock(struct radix_tree_root *root)
{
	if (!rt_lock_held(root)) {
		rt_debug_msg("radix_tree_unlock: the calling thread does not hold the lock\n");
		return;
	}
	if (--root->depth)
		return;
	CMM_STORE_SHARED(root->owner, 0UL);
	pthread_mutex_unlock(&root->lock);
}

RCURADIX_API void radix_tree_lock(struct radix_tree_root *root)
{
	if (root)
		rt_lock(root);
}

RCURADIX_API void radix_tree_unlock(struct radix_tree_root *root)
{
	if (root)
		rt_unlock(root);
}

/* ---- init and readers -------------------------------------------------- */

RCURADIX_API void radix_tree_init_flavor(struct radix_tree_root *root, gfp_t gfp_mask,
					 const struct rcu_flavor_struct *flavor)
{
	if (!root)
		return;
	memset(root, 0, sizeof(*root));
	root->gfp_mask = gfp_mask;
	root->flavor = flavor ? flavor : &urcu_memb_flavor;
	if (!root->flavor)
		fprintf(stderr, "rcuradix: radix_tree_init_flavor: no flavor given and "
				"liburcu-memb is not linked; the tree refuses every write\n");
	pthread_mutex_init(&root->lock, NULL);
}

/* A tree writers may modify: non-NULL and bound to a flavor. */
static bool rt_root_writable(const struct radix_tree_root *root)
{
	return root && root->flavor;
}

RCURADIX_API void *radix_tree_lookup(const struct radix_tree_root *root, unsigned long index)
{
	void **slot;

	if (!root)
		return NULL;
	slot = rt_descend(root, index, NULL);
	return slot ? rt_load(*slot) : NULL;
}

RCURADIX_API void **radix_tree_lookup_slot(const struct radix_tree_root *root,
					   unsigned long index)
{
	void **slot;

	if (!root)
		return NULL;
	slot = rt_descend(root, index, NULL);
	return slot && rt_load(*slot) ? slot : NULL;
}

RCURADIX_API int radix_tree_empty(const struct radix_tree_root *root)
{
	/* One load: an empty tree has no node at all. */
	return !root || CMM_LOAD_SHARED(root->rnode) == NULL;
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
	unsigned long root_tags = root->tags;
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
	void *top = root->rnode;
	unsigned int nr_grow = 0, nr_path;
	void *sub;

	rt_assert_locked(root);
	if (slot) {
		struct rt_path_step *leaf = rt_path_leaf(&path);

		if (*slot)
			return -EEXIST;
		/* The leaf exists: the item is the only thing to publish. */
		rt_slot_set(leaf->node, leaf->offset, item);
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
		rt_slot_set(parent->node, parent->offset, sub);
	}
	return 0;
}

RCURADIX_API int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item)
{
	int ret;

	if (!rt_root_writable(root) || !rt_item_valid(item))
		return -EINVAL;
	rt_lock(root);
	ret = rt_insert_locked(root, index, item);
	rt_unlock(root);
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
	void *top = root->rnode;
	void *entry = top;
	struct rt_node *node;

	if (!top)
		return;
	node = rt_entry_node(top);
	if (!node->present) {
		/* Unpublish the last node, then free it after a grace period. */
		rt_publish(root->rnode, NULL);
		rt_tag_store(root->tags, 0UL);
		root->nr_nodes--;
		rt_node_free_deferred(root, node);
		return;
	}
	while (rt_entry_level(entry) > 0) {
		node = rt_entry_node(entry);
		if (node->present != 1UL)  /* only slot 0 in use */
			break;
		entry = node->slots[0];
	}
	if (entry == top)
		return;
	/* Unpublish the old top nodes: readers already on them still find the
	 * child through slot 0 until their grace period ends. */
	rt_publish(root->rnode, entry);
	while (top != entry) {
		void *next;

		node = rt_entry_node(top);
		next = node->slots[0];  /* read before the node is handed to call_rcu */
		root->nr_nodes--;
		rt_node_free_deferred(root, node);
		top = next;
	}
}

void *rt_delete_at(struct radix_tree_root *root, struct rt_path *path, bool *leaf_freed)
{
	struct rt_path_step *leaf = rt_path_leaf(path);
	void *item = leaf->node->slots[leaf->offset];
	unsigned int d;

	rt_assert_locked(root);
	rt_tags_clear_slot(root, path);
	/* Unpublish the item: readers now find NULL (or still the item, until
	 * they reload); the caller frees it after a grace period. */
	rt_slot_clear(leaf->node, leaf->offset);
	if (leaf_freed)
		*leaf_freed = !leaf->node->present;
	for (d = path->depth - 1; d > 0 && !path->step[d].node->present; d--) {
		struct rt_path_step *parent = &path->step[d - 1];

		/* Unpublish the empty node, then free it after a grace period. */
		rt_slot_clear(parent->node, parent->offset);
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

	if (!rt_root_writable(root))
		return NULL;
	rt_lock(root);
	slot = rt_descend(root, index, &path);
	if (slot && *slot)
		item = rt_delete_at(root, &path, NULL);
	rt_unlock(root);
	return item;
}

/* ---- replace_slot and destroy ------------------------------------------ */

RCURADIX_API void radix_tree_replace_slot(struct radix_tree_root *root, void **slot, void *item)
{
	if (!rt_root_writable(root) || !slot || !rt_item_valid(item)) {
		rt_debug_msg("radix_tree_replace_slot: NULL root/slot or invalid item refused\n");
		return;
	}
	if (!rt_lock_held(root)) {
		rt_debug_msg("radix_tree_replace_slot: the tree lock is not held; refused\n");
		return;
	}
	if (!*slot) {
		rt_debug_msg("radix_tree_replace_slot: the slot holds no item; refused\n");
		return;
	}
	/* Publish the new item: readers load the old or the new one, and see
	 * the new one initialised. */
	rt_publish(*slot, item);
}

/* Queue a detached subtree to call_rcu, children before parents: a node's
 * slots are read before the node itself is handed over. */
static void rt_free_subtree(const struct radix_tree_root *root, void *entry)
{
	struct rt_node *node = rt_entry_node(entry);
	unsigned int i;

	if (rt_entry_level(entry) > 0)
		for (i = 0; i < RT_MAP_SIZE; i++)
			if (node->slots[i])
				rt_free_subtree(root, node->slots[i]);
	rt_node_free_deferred(root, node);
}

RCURADIX_API void radix_tree_destroy(struct radix_tree_root *root)
{
	void *top;

	if (!rt_root_writable(root))
		return;
	rt_lock(root);
	top = root->rnode;
	/* Unpublish everything at once; readers inside a read-side section
	 * keep a consistent old tree until their grace period ends. */
	rt_publish(root->rnode, NULL);
	rt_tag_store(root->tags, 0UL);
	if (top)
		rt_free_subtree(root, top);
	root->nr_nodes = 0;
	rt_unlock(root);
}
