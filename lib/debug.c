/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * debug.c - radix_tree_verify() and the assertion handler of debug builds.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>

#include "base.h"

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

/*
 * Check the subtree of @entry (expected at @level, covering keys from
 * @base); on return, @tags_out[t] says whether anything in it bears tag t.
 */
static bool rt_verify_node(struct rt_verify *v, const void *entry, unsigned int level,
			   unsigned long base, bool *tags_out)
{
	const struct rt_node *node = rt_entry_node(entry);
	unsigned long present = rt_bits_locked(v->root, node->present);
	unsigned long tags[RADIX_TREE_MAX_TAGS];
	unsigned int i, tag, count = 0;

	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		tags[tag] = rt_bits_locked(v->root, node->tags[tag]);
	v->nodes++;
	if (!rt_is_internal(entry) || rt_entry_level(entry) != level)
		return rt_verify_fail(v, base, level, "bad entry encoding or level (entry %p)",
				      entry);
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
		bool below[RADIX_TREE_MAX_TAGS] = { false };

		if (!slot != !((present >> i) & 1UL))
			return rt_verify_fail(v, index, level, "present bit of slot %u is wrong", i);
		if (!slot) {
			for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
				if (tags[tag] & (1UL << i))
					return rt_verify_fail(v, index, level,
							      "empty slot %u bears tag %u", i, tag);
			continue;
		}
		count++;
		if (level == 0) {
			v->items++;
			if (!rt_item_valid(slot))
				return rt_verify_fail(v, index, level,
						      "slot %u holds a non-item %p", i, slot);
			continue;
		}
		if (!rt_verify_node(v, slot, level - 1, index, below))
			return false;
		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
			if (below[tag] != ((tags[tag] >> i) & 1UL))
				return rt_verify_fail(v, index, level,
						      "tag %u bit of slot %u is %lu but the "
						      "subtree says %d", tag, i,
						      (tags[tag] >> i) & 1UL, below[tag]);
	}
	if (count == 0)
		return rt_verify_fail(v, base, level, "empty node still linked");
	return true;
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
	level = rt_entry_level(top);
	if (root->tags >> RADIX_TREE_MAX_TAGS)
		rt_verify_fail(&v, 0, level, "root tag bits beyond MAX_TAGS: %#lx", root->tags);
	else if (rt_verify_node(&v, top, level, 0, tags)) {
		const struct rt_node *node = rt_entry_node(top);

		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
			if (tags[tag] != ((root->tags >> tag) & 1UL))
				rt_verify_fail(&v, 0, level, "root tag %u summary is wrong", tag);
		if (level > 0 && rt_bits_locked(root, node->present) == 1UL)
			rt_verify_fail(&v, 0, level, "height not minimal (top holds only slot 0)");
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
