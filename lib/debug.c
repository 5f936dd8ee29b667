/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * debug.c - radix_tree_verify() and the assertion handler of debug builds.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>

#include "descend.h"

struct rt_verify {
	const struct radix_tree_root *root;
	unsigned long nodes;
	unsigned long items;
	bool failed;
};

static bool rt_verify_fail(struct rt_verify *v, unsigned long index, unsigned int level,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static bool rt_verify_fail(struct rt_verify *v, unsigned long index, unsigned int level,
			   const char *fmt, ...)
{
	va_list ap;

	if (!v->failed) {
		fprintf(stderr, "rcuradix: radix_tree_verify(%p): node at level %u covering "
				"index %#lx: ", (const void *)v->root, level, index);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	v->failed = true;
	return false;
}

static bool rt_verify_entry(struct rt_verify *v, const void *entry, unsigned long base,
			    const void *parent, bool *tags_out);

/* Check child @child of a node at @level, found at key @index: its tag
 * bits (@bits, bit t for tag t) must say what its subtree says. */
static bool rt_verify_child(struct rt_verify *v, const void *parent, const void *child,
			    unsigned long index, unsigned int level, unsigned int bits)
{
	bool below[RADIX_TREE_MAX_TAGS] = { false };
	unsigned int tag;

	if (!rt_verify_entry(v, child, index, parent, below))
		return false;
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		if (below[tag] != ((bits >> tag) & 1U))
			return rt_verify_fail(v, index, level,
					      "tag %u bit of the child at %#lx is %u but its "
					      "subtree says %d", tag, index, (bits >> tag) & 1U,
					      below[tag]);
	return true;
}

/* A full node: as many slots as the map, a present bit per slot. */
static bool rt_verify_full(struct rt_verify *v, const void *entry, unsigned long base,
			   bool *tags_out)
{
	const struct rt_node *node = rt_entry_node(entry);
	unsigned int level = rt_entry_level(entry);
	unsigned long present = rt_bits_locked(v->root, node->present);
	unsigned long tags[RADIX_TREE_MAX_TAGS];
	unsigned int i, tag, count = 0;
	/* An IDR tree's empty slots are free: their free bit, alone, set. */
	bool idr = rt_root_idr(v->root), ida = rt_root_ida(v->root);
	unsigned int empty_bits = idr ? 1U << RT_IDR_FREE : 0;

	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		tags[tag] = rt_bits_locked(v->root, node->tags[tag]);
	if (RT_MAP_SIZE < RT_BITS_PER_LONG && (present >> RT_MAP_SIZE))
		return rt_verify_fail(v, base, level, "present bits beyond the slots");
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		if (RT_MAP_SIZE < RT_BITS_PER_LONG && (tags[tag] >> RT_MAP_SIZE))
			return rt_verify_fail(v, base, level, "tag %u bits beyond the slots", tag);
		tags_out[tag] = tags[tag] != 0;
	}
	for (i = 0; i < RT_MAP_SIZE; i++) {
		const void *slot = rt_entry_locked(v->root, node->slots[i]);
		unsigned long index = base | ((unsigned long)i << rt_shift(level));
		unsigned int bits = 0;

		if (!slot != !((present >> i) & 1UL))
			return rt_verify_fail(v, index, level, "present bit of slot %u is wrong", i);
		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
			bits |= (unsigned int)((tags[tag] >> i) & 1UL) << tag;
		if (!slot) {
			if (bits != empty_bits)
				return rt_verify_fail(v, index, level, "empty slot %u bears tags %#x",
						      i, bits);
			continue;
		}
		count++;
		if (level == 0) {
			v->items++;
			if (!rt_item_valid(slot) && !(idr && !ida && slot == RT_IDR_RESERVED))
				return rt_verify_fail(v, index, level,
						      "slot %u holds a non-item %p", i, slot);
			/* A bitmap is read only once known to be one: its
			 * summary's loads need the alignment. */
			if (ida && ((uintptr_t)slot & (RT_NODE_ALIGN - 1)))
				return rt_verify_fail(v, index, level, "slot %u holds %p, not a "
								       "node-aligned bitmap", i, slot);
			if (ida && rt_ida_bitmap_empty(slot))
				return rt_verify_fail(v, index, level, "slot %u holds an empty "
								       "bitmap", i);
			/* An id is taken; a bitmap's slot is free while it
			 * has a clear bit. */
			if (idr && bits != (ida && !rt_ida_bitmap_full(slot) ? empty_bits : 0))
				return rt_verify_fail(v, index, level, "slot %u holds %s, yet "
								       "bears tags %#x", i,
						      ida ? "a bitmap" : "an id", bits);
			continue;
		}
		if (!rt_is_internal(slot) || rt_entry_level(slot) != level - 1)
			return rt_verify_fail(v, index, level, "slot %u holds %p, not a node one "
							       "level down", i, slot);
		if (!rt_verify_child(v, entry, slot, index, level, bits))
			return false;
	}
	if (count == 0)
		return rt_verify_fail(v, base, level, "empty node still linked");
	return true;
}

/* A compact node: entries appended, tombstones, items and children apart. */
static bool rt_verify_compact(struct rt_verify *v, const void *entry, unsigned long base,
			      bool *tags_out)
{
	const struct rt_cnode *node = rt_entry_cnode(entry);
	unsigned int level = node->level, w = rt_sfx_width(level), shift = rt_shift(level);
	void **slots = rt_cnode_slots(node);
	const uint8_t *tags = rt_cnode_tags(node);
	unsigned long child_digits = 0, item_digits = 0;
	unsigned int i, j, tag, live = 0, nr_children = 0;

	if (rt_entry_level(entry) != level)
		return rt_verify_fail(v, base, level, "entry level %u, node says %u",
				      rt_entry_level(entry), level);
	if (node->dead)
		return rt_verify_fail(v, base, level, "a retired node is reachable");
	if (!node->nr_lines || rt_cnode_bytes(node) > RT_C_MAX_BYTES ||
	    node->cap != rt_cnode_cap_for(rt_cnode_bytes(node), w) || node->next > node->cap)
		return rt_verify_fail(v, base, level, "bad geometry: %u lines, cap %u, next %u",
				      node->nr_lines, node->cap, node->next);
	if (node->sorted > node->next)
		return rt_verify_fail(v, base, level, "sorted run %u past next %u", node->sorted,
				      node->next);
	if (node->children > node->next || (node->children && !level))
		return rt_verify_fail(v, base, level, "built with %u children, %u entries, level %u",
				      node->children, node->next, level);
	for (i = 1; i < node->sorted; i++)
		if (rt_sfx_get(node, w, i - 1) >= rt_sfx_get(node, w, i))
			return rt_verify_fail(v, base, level, "sorted run %u: entry %u out of order",
					      node->sorted, i);
	for (i = node->next; i < node->cap; i++)
		if (slots[i] || tags[i])
			return rt_verify_fail(v, base, level, "unused position %u is not clear", i);
	for (i = 0; i < node->next; i++) {
		const void *e = rt_entry_locked(v->root, slots[i]);
		unsigned long sfx = rt_sfx_get(node, w, i);
		unsigned int digit = (unsigned int)((sfx >> shift) & RT_MAP_MASK);
		unsigned int byte = rt_bits_locked(v->root, tags[i]);
		unsigned int bits = byte & RT_CTAG_MASK;

		if (byte & ~(RT_CTAG_MASK | RT_CTAG_CHILD))
			return rt_verify_fail(v, base, level, "entry %u: tag byte %#x", i, byte);
		if (e && !(byte & RT_CTAG_CHILD) != !rt_is_internal(e))
			return rt_verify_fail(v, base, level, "entry %u: kind bit %s a %s", i,
					      byte & RT_CTAG_CHILD ? "set for" : "clear for",
					      rt_is_internal(e) ? "child" : "item");
		if (byte & RT_CTAG_CHILD)
			nr_children++;
		if (!e) {
			if (bits)
				return rt_verify_fail(v, base, level, "tombstone %u bears tags", i);
			continue;
		}
		live++;
		if (sfx & ~rt_level_maxindex(level))
			return rt_verify_fail(v, base, level, "entry %u: suffix %#lx too wide", i,
					      sfx);
		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
			tags_out[tag] |= (bits >> tag) & 1U;
		if (!rt_is_internal(e)) {
			v->items++;
			if (!rt_item_valid(e))
				return rt_verify_fail(v, base | sfx, level, "entry %u: non-item %p",
						      i, e);
			if (child_digits & (1UL << digit))
				return rt_verify_fail(v, base | sfx, level, "item shares digit %u "
									    "with a child", digit);
			for (j = 0; j < i; j++)
				if (slots[j] && rt_sfx_get(node, w, j) == sfx)
					return rt_verify_fail(v, base | sfx, level,
							      "entries %u and %u hold one key", j,
							      i);
			item_digits |= 1UL << digit;
			continue;
		}
		if (rt_entry_level(e) >= level)
			return rt_verify_fail(v, base | sfx, level, "entry %u: child at level %u",
					      i, rt_entry_level(e));
		if ((child_digits | item_digits) & (1UL << digit))
			return rt_verify_fail(v, base | sfx, level, "child shares digit %u", digit);
		child_digits |= 1UL << digit;
		if (!rt_verify_child(v, entry, e,
				     base | (sfx & ~rt_level_maxindex(rt_entry_level(e))), level,
				     bits))
			return false;
	}
	if (!node->deleted && live != node->next)
		return rt_verify_fail(v, base, level, "%u tombstones, none deleted",
				      node->next - live);
	if (nr_children != node->children)
		return rt_verify_fail(v, base, level, "built with %u children, kind bits say %u",
				      node->children, nr_children);
	if (live == 0)
		return rt_verify_fail(v, base, level, "empty node still linked");
	return true;
}

/*
 * Check the subtree of @entry, whose first key is @base, below @parent
 * (NULL for the top node); on return, @tags_out[t] says whether anything
 * in it bears tag t.  A full node sits one level below a full parent; any
 * node sits below a compact parent, at a lower level.
 */
static bool rt_verify_entry(struct rt_verify *v, const void *entry, unsigned long base,
			    const void *parent, bool *tags_out)
{
	unsigned int level = rt_entry_level(entry), tag;

	v->nodes++;
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		tags_out[tag] = false;
	if (!rt_is_internal(entry) || ((uintptr_t)entry & (RT_NODE_ALIGN - 1) &
				       ~(RT_ENTRY_INTERNAL | RT_ENTRY_LEVEL_MASK | RT_ENTRY_FULL)))
		return rt_verify_fail(v, base, level, "bad entry encoding %p", entry);
	if (level >= RT_MAX_LEVELS || (base & rt_level_maxindex(level)))
		return rt_verify_fail(v, base, level, "level or base out of range");
	if (parent && rt_entry_level(parent) <= level)
		return rt_verify_fail(v, base, level, "child not below its parent");
	if (rt_root_idr(v->root) && (rt_entry_compact(entry) || base > RT_IDR_MAX_KEY))
		return rt_verify_fail(v, base, level, "IDR tree with a compact node, or a key "
						      "beyond its ids");
	if (rt_entry_compact(entry))
		return rt_verify_compact(v, entry, base, tags_out);
	return rt_verify_full(v, entry, base, tags_out);
}

/* The root item (internal.h, "IDR trees"): an IDA tree's key-0 bitmap,
 * alone in the tree, with the root's free bit for its slot. */
static void rt_verify_root_item(struct rt_verify *v, const void *item)
{
	unsigned long want;

	/* Read as a bitmap only once known to be one, as in a leaf. */
	if (!rt_root_ida(v->root) || ((uintptr_t)item & (RT_NODE_ALIGN - 1))) {
		rt_verify_fail(v, 0, 0, "root item %p in a tree that is not an IDA's, or "
					"not node-aligned", item);
		return;
	}
	want = rt_ida_bitmap_full(item) ? 0UL : 1UL << RT_IDR_FREE;
	if (rt_ida_bitmap_empty(item))
		rt_verify_fail(v, 0, 0, "the root item is an empty bitmap");
	else if (v->root->tags != want)
		rt_verify_fail(v, 0, 0, "root item with root tags %#lx, not %#lx", v->root->tags,
			       want);
	else if (v->root->nr_nodes || v->root->nr_items != 1)
		rt_verify_fail(v, 0, 0, "root item, yet the tree counts %lu nodes, %lu items",
			       v->root->nr_nodes, v->root->nr_items);
}

static int rt_verify_locked(const struct radix_tree_root *root)
{
	struct rt_verify v = { root, 0, 0, false };
	bool tags[RADIX_TREE_MAX_TAGS] = { false };
	const void *top = rt_entry_locked(root, root->rnode);
	unsigned int tag, level;

	if (!top) {
		if (root->tags || root->nr_nodes || root->nr_items)
			rt_verify_fail(&v, 0, 0, "empty tree with tags %#lx, %lu nodes, %lu items",
				       root->tags, root->nr_nodes, root->nr_items);
		return v.failed ? -EUCLEAN : 0;
	}
	if (rt_root_item(top)) {
		rt_verify_root_item(&v, top);
		return v.failed ? -EUCLEAN : 0;
	}
	level = rt_entry_level(top);
	if (root->tags >> RADIX_TREE_MAX_TAGS)
		rt_verify_fail(&v, 0, level, "root tag bits beyond MAX_TAGS: %#lx", root->tags);
	else if (rt_verify_entry(&v, top, 0, NULL, tags)) {
		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
			if (tags[tag] != ((root->tags >> tag) & 1UL))
				rt_verify_fail(&v, 0, level, "root tag %u summary is wrong", tag);
		if (rt_top_shrink_child(root, (void *)top))
			rt_verify_fail(&v, 0, level, "height not minimal (the top node's only "
						     "entry is a child covering keys from 0)");
		if (v.nodes != root->nr_nodes)
			rt_verify_fail(&v, 0, level, "tree counts %lu nodes, found %lu",
				       root->nr_nodes, v.nodes);
		if (v.items != root->nr_items)
			rt_verify_fail(&v, 0, level, "tree counts %lu items, found %lu",
				       root->nr_items, v.items);
	}
	return v.failed ? -EUCLEAN : 0;
}

RCURADIX_API int radix_tree_verify(const struct radix_tree_root *root)
{
	struct radix_tree_root *rw = (struct radix_tree_root *)root;
	int ret = rt_writer_enter(rw, __func__);

	if (ret)
		return ret;
	ret = rt_verify_locked(root);
	rt_writer_exit(rw);
	return ret;
}
