/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reverse.c - readers going down the keys: the predecessor
 * (radix_tree_lookup_le()) and the reverse gang lookups.
 *
 * A search keeps the nodes it went through, top first (struct rt_rwalk),
 * each with the first key of its range.  In a node it takes the entry
 * with the greatest key at or below the one it looks for: a full node's
 * highest present slot up to the key's offset, a compact node's entry
 * whose range starts highest without passing the key.  An entry wholly
 * below the key lowers the key to the entry's last one.  A node with
 * nothing at or below the key sends the search to the node above it,
 * from the key before its range.
 *
 * Progress: every step either descends or strictly lowers the key, and
 * every key between it and the key asked for has been searched; a key
 * that would pass below 0 ends the search.  The reverse gang lookups keep
 * the nodes from item to item: the next search starts in the deepest node
 * whose range still holds the key before the last one found.
 *
 * Concurrency (as the gang lookups, in the other direction): an item
 * present at its key throughout the call, at or below the key asked
 * for, is found unless one at a higher key (present at some moment of
 * the call) is returned instead; every item returned was present at its
 * key at some moment of the call.  This rests on three rules of the
 * writers: a full node never moves, and is unlinked only once nothing is
 * left below it, so one the search holds still answers for the items
 * present throughout; a compact node that is copied is marked dead before
 * its item slots are emptied, so a NULL read in one that proves dead
 * sends the search back to the root, from the same key, where the copy
 * is; a node unlinked since stays readable until the caller's read-side
 * section ends.
 */
#include "config.h"

#include "descend.h"

/* One node of a reverse search: its entry and the first key of its range
 * (the base of a compact node's suffixes). */
struct rt_rstep {
	void *entry;
	unsigned long first;
};

/* The nodes a reverse search holds, top first.  Levels strictly descend
 * along a path, so RT_MAX_LEVELS steps are enough. */
struct rt_rwalk {
	struct rt_rstep step[RT_MAX_LEVELS];
	unsigned int depth;
};

enum rt_rfind {
	RT_RFIND_ITEM,   /* an item: the key is set to its key */
	RT_RFIND_CHILD,  /* a child holding keys at or below the key */
	RT_RFIND_NONE,   /* nothing at or below the key in this node */
	RT_RFIND_RETRY,  /* the node was copied: search again from the root */
};

/*
 * The entry of compact node @node (suffix width @wd, keys from @base)
 * with the greatest key at or below *@index: a child whose range holds
 * *@index, or else the live entry with the greatest suffix at or below
 * it (suffixes sort as the ranges they stand for, and ranges do not
 * overlap).  In the sorted run, a binary search: the child holding the
 * key, if its suffix is above the key, is the first entry above it
 * (live entries of the key's digit are that child alone), and the best
 * entry below is the first live one going down from there.  The appended
 * tail, one entry at a time, loading only the slots of entries that beat
 * the best so far.  A NULL passed over (a tombstone, or an item emptied
 * because the node was copied) is looked at again once the node proves
 * dead.
 */
static inline __attribute__((always_inline)) enum rt_rfind
rt_cnode_prev_w(const struct rt_cnode *node, unsigned int wd, unsigned long base,
		unsigned long *index, void **found, unsigned long *child_first)
{
	unsigned int n = rt_cnode_next_rcu(node), s = rt_cnode_sorted_rcu(node, n), p, i;
	void **slots = rt_cnode_slots_w(node, wd);
	const uint8_t *tags = rt_cnode_tags_w(node, wd);
	unsigned long key = *index - base, best_sfx = 0;
	void *best = NULL, *e;
	bool saw_null = false;

	p = key == rt_level_maxindex(node->level) ? s
						  : rt_sorted_lower_bound(node, wd, s, key + 1,
									  UINT_MAX);
	if (p < s && rt_ctag_child(tags, p)) {
		e = rt_entry_rcu(slots[p]);
		if (!e) {
			saw_null = true;
		} else if (rt_entry_first(rt_sfx_get(node, wd, p), e) <= key) {
			*found = e;
			*child_first = base | rt_entry_first(rt_sfx_get(node, wd, p), e);
			return RT_RFIND_CHILD;
		}
	}
	for (i = p; i-- > 0;) {
		e = rt_entry_rcu(slots[i]);
		if (e) {
			best = e;
			best_sfx = rt_sfx_get(node, wd, i);
			break;
		}
		saw_null = true;
	}
	for (i = s; i < n; i++) {
		unsigned long sfx = rt_sfx_get(node, wd, i);

		if (sfx > key) {
			/* Only a child whose range holds the key matters. */
			if (!rt_ctag_child(tags, i))
				continue;
			e = rt_entry_rcu(slots[i]);
			if (!e) {
				saw_null = true;
				continue;
			}
			if (rt_entry_first(sfx, e) > key)
				continue;
			*found = e;
			*child_first = base | rt_entry_first(sfx, e);
			return RT_RFIND_CHILD;
		}
		if (best && sfx <= best_sfx)
			continue;
		e = rt_entry_rcu(slots[i]);
		if (!e) {
			saw_null = true;
			continue;
		}
		best = e;
		best_sfx = sfx;
	}
	if ((saw_null || !best) && rt_cnode_dead_rcu(node))
		return RT_RFIND_RETRY;
	if (!best)
		return RT_RFIND_NONE;
	*found = best;
	if (!rt_is_internal(best)) {
		*index = base | best_sfx;
		return RT_RFIND_ITEM;
	}
	if (rt_entry_last(best_sfx, best) < key)
		*index = base | rt_entry_last(best_sfx, best);
	*child_first = base | rt_entry_first(best_sfx, best);
	return RT_RFIND_CHILD;
}

/* rt_cnode_prev_w() compiled once per suffix width. */
static enum rt_rfind rt_cnode_prev(const struct rt_cnode *node, unsigned long base,
				   unsigned long *index, void **found, unsigned long *child_first)
{
	switch (rt_sfx_width(node->level)) {
	case 1:
		return rt_cnode_prev_w(node, 1, base, index, found, child_first);
	case 2:
		return rt_cnode_prev_w(node, 2, base, index, found, child_first);
	case 4:
		return rt_cnode_prev_w(node, 4, base, index, found, child_first);
	default:
		return rt_cnode_prev_w(node, 8, base, index, found, child_first);
	}
}

/*
 * The highest slot of full node @node at or below @offset holding
 * something, from its present bitmap; -1 if none.
 */
static inline int rt_prev_present(const struct rt_node *node, unsigned int offset)
{
	/* 2UL << 63 wraps to 0: the mask is then all ones. */
	unsigned long bits = rt_bits_rcu(node->present) & ((2UL << offset) - 1);

	return bits ? (int)(RT_BITS_PER_LONG - 1 - (unsigned int)__builtin_clzl(bits)) : -1;
}

static inline void rt_rwalk_push(struct rt_rwalk *w, void *entry, unsigned long first)
{
	w->step[w->depth].entry = entry;
	w->step[w->depth].first = first;
	w->depth++;
}

/* Drop the nodes whose range starts above @key. */
static inline void rt_rwalk_pop(struct rt_rwalk *w, unsigned long key)
{
	while (w->depth && w->step[w->depth - 1].first > key)
		w->depth--;
}

/*
 * Go on from the key before @first, the first key of a range found to
 * hold nothing at or below the key: in the deepest node held whose range
 * holds that key.  Return: false if @first is 0 (nothing is left below).
 */
static inline bool rt_rwalk_before(struct rt_rwalk *w, unsigned long first,
				   unsigned long *index)
{
	if (first == 0)
		return false;
	*index = first - 1;
	rt_rwalk_pop(w, *index);
	return true;
}

/*
 * The item with the greatest key at or below *@index, its key stored in
 * *@index; NULL if none.  @w: the nodes of the previous search of this
 * read-side section (depth 0 for a new one); the caller's key is at or
 * below the previous one.
 */
static void *rt_prev(const struct radix_tree_root *root, struct rt_rwalk *w,
		     unsigned long *index)
{
	unsigned long key = *index;

	rt_rwalk_pop(w, key);
	if (!w->depth)
		goto restart;
	for (;;) {
		struct rt_rstep *step = &w->step[w->depth - 1];
		unsigned int level = rt_entry_level(step->entry);
		unsigned long first;
		void *child;

		if (!rt_entry_compact(step->entry)) {
			struct rt_node *node = rt_entry_node(step->entry);
			unsigned int offset = rt_offset(key, level);

			/* The key's own slot first, as a lookup reads it:
			 * one line per level; the bitmap (the header's line)
			 * only when that slot is empty. */
			child = rt_entry_rcu(node->slots[offset]);
			first = rt_index_at(key, level, offset);
			if (!child) {
				int f = rt_prev_present(node, offset);

				if (f < 0)
					goto below;
				first = rt_index_at(key, level, (unsigned int)f);
				key = first | (level ? rt_level_maxindex(level - 1) : 0);
				child = rt_entry_rcu(node->slots[f]);
			}
			if (!child) {
				/* Deleted since the bitmap was read: on below
				 * the slot's range, in this node or above. */
				if (!rt_rwalk_before(w, first, &key))
					return NULL;
				continue;
			}
			if (level == 0) {
				*index = key;
				return child;
			}
			rt_rwalk_push(w, child, first);
			continue;
		}
		switch (rt_cnode_prev(rt_entry_cnode(step->entry), step->first, &key, &child,
				      &first)) {
		case RT_RFIND_ITEM:
			*index = key;
			return child;
		case RT_RFIND_CHILD:
			rt_rwalk_push(w, child, first);
			continue;
		case RT_RFIND_NONE:
			goto below;
		case RT_RFIND_RETRY:
			goto restart;
		}
below:
		/* The top node's range starts at key 0: it is never popped. */
		if (!rt_rwalk_before(w, step->first, &key))
			return NULL;
		continue;
restart:
		/* From the root: the top node covers keys from 0, so the walk
		 * never needs to go above it again. */
		w->depth = 0;
		child = rt_entry_rcu(root->rnode);
		if (!child)
			return NULL;
		if (rt_root_item(child)) {
			/* Key 0, the tree's only key, is at or below any. */
			*index = 0;
			return child;
		}
		if (key > rt_level_maxindex(rt_entry_level(child)))
			key = rt_level_maxindex(rt_entry_level(child));
		rt_rwalk_push(w, child, 0);
	}
}

RCURADIX_API void *radix_tree_lookup_le(const struct radix_tree_root *root,
					unsigned long *index)
{
	struct rt_rwalk w;  /* only the steps below depth are read */
	unsigned long key;
	void *item;

	if (!root || !index)
		return NULL;
	rt_reader_check(root, __func__);
	w.depth = 0;
	key = *index;
	item = rt_prev(root, &w, &key);
	if (item)
		*index = key;
	return item;
}

/* The reverse gang lookups: up to @max items from @last down. */
static unsigned int rt_gang_reverse(const struct radix_tree_root *root, void **items,
				    unsigned long *indices, unsigned long last, unsigned int max,
				    const char *fn)
{
	struct rt_rwalk w;  /* only the steps below depth are read */
	unsigned int n = 0;

	if (!root || !items)
		return 0;
	rt_reader_check(root, fn);
	w.depth = 0;
	while (n < max) {
		unsigned long key = last;
		void *item = rt_prev(root, &w, &key);

		if (!item)
			break;
		items[n] = item;
		if (indices)
			indices[n] = key;
		n++;
		if (key == 0)
			break;
		last = key - 1;
	}
	return n;
}

RCURADIX_API unsigned int radix_tree_gang_lookup_reverse(const struct radix_tree_root *root,
							 void **results, unsigned long *indices,
							 unsigned long last_index,
							 unsigned int max_items)
{
	return rt_gang_reverse(root, results, indices, last_index, max_items, __func__);
}
