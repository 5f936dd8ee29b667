/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * iter.c - readers that visit many keys: the walk engine
 * (radix_tree_next_chunk), the iterators' exported helpers and the gang
 * lookups.  Everything here is an RCU reader; radix_tree_iter_delete(), a
 * writer, is in tree.c with the other writers.
 *
 * A walk proceeds chunk by chunk, a chunk being the slots of one leaf from
 * the first present (or tagged) key onwards.  Each chunk costs one descent
 * (from the root, or from the previous leaf's parent); inside a chunk the
 * header's inline radix_tree_walk_step() (or radix_tree_next_slot()) streams
 * through the slots.  Progress: every step either descends or strictly
 * increases the index it searches from, so a walk terminates even on stale
 * tags or a tree that a writer keeps reshaping; an index that would pass
 * ULONG_MAX ends the walk instead of wrapping to 0.
 */
#include "config.h"

#include "descend.h"

/* Internal walk flag: the caller scans the chunk itself (gang lookups), so
 * radix_tree_next_chunk() need not build the chunk's presence bitmap. */
#define RT_ITER_NO_BITMAP 0x100u

RCURADIX_API void **radix_tree_iter_init(struct radix_tree_iter *iter, unsigned long start)
{
	if (iter) {
		iter->index = 0;
		iter->next_index = start;
		iter->tags = 0;
		iter->chunk = NULL;
		iter->run_end = NULL;
		iter->bias = 0;
		iter->parent = NULL;
		iter->done = 0;
	}
	return NULL;
}

/* First slot >= @offset of @node that holds something, or RT_MAP_SIZE. */
static unsigned int rt_next_present(struct rt_node *node, unsigned int offset)
{
	for (; offset < RT_MAP_SIZE; offset++)
		if (rt_entry_rcu(node->slots[offset]))
			return offset;
	return RT_MAP_SIZE;
}

/*
 * Prefetching.  A walk reads a leaf's slot lines one after the other and
 * the leaves of a tree built in random order lie anywhere in memory, where
 * the hardware prefetcher cannot guess them: without help each slot line is
 * a miss paid in turn.  Touching them ahead lets the misses overlap.
 */
#define RT_SLOTS_PER_LINE (64 / sizeof(void *))

/*
 * How many leaves ahead a walk prefetches.  Walking a leaf's 64 items takes
 * about 40 ns, less than a miss to memory: fetched one leaf ahead, the next
 * leaf's header line (whose present bitmap the next chunk's search loads
 * first) still arrives late.  Measured on 2^20 dense keys inserted in random
 * order (rcuradix-bench, 3 alternating runs each): 1.83-1.99 ns per item one
 * leaf ahead, 1.23-1.77 three leaves ahead.
 */
#define RT_PREFETCH_LEAVES_AHEAD 3

/* The lines of @node's slots from @offset on (and its header line). */
static void rt_prefetch_leaf(const struct rt_node *node, unsigned int offset)
{
	unsigned int i;

	for (i = offset & ~(RT_SLOTS_PER_LINE - 1); i < RT_MAP_SIZE; i += RT_SLOTS_PER_LINE)
		__builtin_prefetch(&node->slots[i]);
	__builtin_prefetch(&node->present);
}

/* The first lines of a node the walk is about to enter. */
static void rt_prefetch_entry(const void *entry)
{
	if (rt_entry_compact(entry)) {
		const char *node = (const char *)rt_entry_cnode(entry);

		__builtin_prefetch(node);
		__builtin_prefetch(node + 64);
	} else {
		rt_prefetch_leaf(rt_entry_node(entry), 0);
	}
}

/* At an F parent of leaves: the next RT_PREFETCH_LEAVES_AHEAD leaves the
 * walk will want after the one at @found (@bits: the wanted slots of
 * @parent from @found on).  A walk that went on from the previous chunk's
 * parent (@only_farthest) prefetched the nearer ones then: only the
 * farthest is new. */
static void rt_prefetch_next_leaves(struct rt_node *parent, unsigned long bits,
				    bool only_farthest)
{
	unsigned long next = bits & (bits - 1);  /* drop @found */
	void *entry;

	for (int ahead = 1; ahead <= RT_PREFETCH_LEAVES_AHEAD && next;
	     ahead++, next &= next - 1) {
		if (only_farthest && ahead < RT_PREFETCH_LEAVES_AHEAD)
			continue;
		entry = rt_entry_rcu(parent->slots[__builtin_ctzl(next)]);
		if (entry)
			rt_prefetch_entry(entry);
	}
}

/* Found the chunk in an F leaf: fill @iter (@bits: the wanted slots of the
 * leaf from @offset on, bit @offset set) and return the slot; @prefetch
 * the rest of the leaf (not for gang lookups, which prefetch what they
 * will read themselves, nor for a walk whose earlier chunk already did). */
static void **rt_chunk_found(struct radix_tree_iter *iter, struct rt_node *node,
			     struct rt_node *parent, unsigned long index, unsigned int offset,
			     unsigned long bits, bool prefetch)
{
	unsigned long run = ~(bits >> offset);  /* clear bits: where the run ends */

	iter->index = index;
	iter->next_index = (index | RT_MAP_MASK) + 1;
	if (iter->next_index == 0)
		iter->done = 1;  /* this chunk ends at ULONG_MAX: no next one */
	iter->tags = bits;
	iter->chunk = node->slots;
	iter->run_end = &node->slots[offset] +
			(run ? (unsigned int)__builtin_ctzl(run) : RT_BITS_PER_LONG);
	iter->bias = index - (unsigned long)((uintptr_t)&node->slots[offset] / sizeof(void *));
	iter->parent = parent;
	if (prefetch)
		rt_prefetch_leaf(node, offset);
	return &node->slots[offset];
}

/*
 * First slot >= @offset of an F node at @level that the walk wants: tagged
 * (tag >= 0), or holding something (the node's present bitmap); *@bits gets
 * the wanted slots from there on.  A gang lookup's leaf (RT_ITER_NO_BITMAP)
 * is scanned instead: the gang reads those slot lines anyway, the header
 * line would be one more miss.  Returns RT_MAP_SIZE if there is none.
 */
static unsigned int rt_next_wanted(struct rt_node *node, unsigned int level, unsigned int offset,
				   int tag, unsigned int flags, unsigned long *bits)
{
	unsigned long b;

	if (tag >= 0)
		b = rt_bits_rcu(node->tags[tag]);
	else if (level == 0 && (flags & RT_ITER_NO_BITMAP))
		return rt_next_present(node, offset);
	else
		b = rt_bits_rcu(node->present);
	b &= ~0UL << offset;
	*bits = b;
	return b ? (unsigned int)__builtin_ctzl(b) : RT_MAP_SIZE;
}

/* ---- the search ---------------------------------------------------------- */

/* How a search below one node ended. */
enum rt_search {
	RT_SEARCH_FOUND,  /* @iter holds the chunk */
	RT_SEARCH_NONE,   /* nothing wanted from w->index to the node's last key */
	RT_SEARCH_END,    /* nothing wanted up to ULONG_MAX */
	RT_SEARCH_RETRY,  /* met a retired node: search again from the root */
};

struct rt_walk {
	struct radix_tree_iter *iter;
	unsigned long index;  /* every wanted key below it was handed out */
	int tag;              /* -1: every present key */
	unsigned int flags;
	bool from_parent;     /* went on from the previous chunk's parent */
};

static enum rt_search rt_search(struct rt_walk *w, void *entry, unsigned long base);

/* Move w->index past the subtree of @entry based at @base. */
static enum rt_search rt_search_past(struct rt_walk *w, void *entry, unsigned long base)
{
	unsigned long last = base | rt_level_maxindex(rt_entry_level(entry));

	if (last == ULONG_MAX)
		return RT_SEARCH_END;
	w->index = last + 1;
	return RT_SEARCH_NONE;
}

static enum rt_search rt_search_full(struct rt_walk *w, void *entry, unsigned long base)
{
	struct rt_node *node = rt_entry_node(entry);
	unsigned int level = rt_entry_level(entry);

	for (;;) {
		unsigned int offset = rt_offset(w->index, level);
		unsigned long bits = 0;
		unsigned int found = rt_next_wanted(node, level, offset, w->tag, w->flags, &bits);
		unsigned long index;
		enum rt_search r;
		void *child;

		if (found == RT_MAP_SIZE)
			return rt_search_past(w, entry, base);
		index = found == offset ? w->index : rt_index_at(w->index, level, found);
		w->index = index;
		if (level == 0) {
			rt_chunk_found(w->iter, node, NULL, index, found, bits,
				       !(w->flags & RT_ITER_NO_BITMAP) && !w->from_parent);
			return RT_SEARCH_FOUND;
		}
		if (level == 1 && !(w->flags & RT_ITER_NO_BITMAP))
			rt_prefetch_next_leaves(node, bits, w->from_parent);
		child = rt_entry_rcu(node->slots[found]);
		if (child) {
			r = rt_search(w, child, index & ~rt_level_maxindex(level - 1));
			if (r == RT_SEARCH_FOUND && level == 1 && !rt_entry_compact(child))
				w->iter->parent = entry;  /* the next chunk starts here */
			if (r != RT_SEARCH_NONE)
				return r;
		} else {
			/* A stale tag or a concurrent delete: skip the slot. */
			index = rt_next_slot_index(index, level);
			if (index == 0)
				return RT_SEARCH_END;
			w->index = index;
		}
		if (found == RT_MAP_SIZE - 1)
			return rt_search_past(w, entry, base);
	}
}

/* Fill @iter with the run of consecutive keys in consecutive entries of
 * C node @node that starts at entry @pos, key @key. */
static void rt_chunk_run(struct rt_walk *w, struct rt_cnode *node, unsigned int n,
			 unsigned int pos, unsigned long key)
{
	struct radix_tree_iter *iter = w->iter;
	unsigned int wd = rt_sfx_width(node->level), r = 1;
	void **slots = rt_cnode_slots(node);
	const uint8_t *tags = rt_cnode_tags(node);
	unsigned long sfx = rt_sfx_get(node, wd, pos);

	while (pos + r < n && r < RT_BITS_PER_LONG && key + r != 0 &&
	       rt_sfx_get(node, wd, pos + r) == sfx + r) {
		void *e = rt_entry_rcu(slots[pos + r]);

		if (!e || rt_is_internal(e) ||
		    (w->tag >= 0 && !((rt_bits_rcu(tags[pos + r]) >> w->tag) & 1U)))
			break;
		r++;
	}
	iter->index = key;
	iter->next_index = key + r;
	if (iter->next_index == 0)
		iter->done = 1;
	iter->tags = r == RT_BITS_PER_LONG ? ~0UL : (1UL << r) - 1;
	iter->chunk = &slots[pos];
	iter->run_end = &slots[pos + r];
	iter->bias = key - (unsigned long)((uintptr_t)&slots[pos] / sizeof(void *));
	/* Not a parent to go on from: the node, so that a slot of the chunk
	 * that reads NULL can be told "deleted" from "moved" (dead). */
	iter->parent = rt_cnode_entry(node);
}

/*
 * In a C node: the entry holding the smallest wanted key >= w->index, an
 * item (a chunk) or a child (searched in turn), until none is left.
 * Entries are unsorted (appends), so each step scans them all.  A NULL slot
 * is a tombstone, or an item emptied because the node was copied: if the
 * node turns out to be dead, the search starts again from the root.
 */
static enum rt_search rt_search_compact(struct rt_walk *w, void *entry, unsigned long base)
{
	struct rt_cnode *node = rt_entry_cnode(entry);
	unsigned int level = node->level, wd = rt_sfx_width(level);
	void **slots = rt_cnode_slots(node);
	const uint8_t *tags = rt_cnode_tags(node);

	for (;;) {
		unsigned int n = rt_cnode_next_rcu(node), i, best = 0;
		unsigned long best_key = ULONG_MAX;
		void *best_entry = NULL;
		bool saw_null = false;
		enum rt_search r;

		for (i = 0; i < n; i++) {
			unsigned long sfx = rt_sfx_get(node, wd, i), first, last;
			void *e;

			e = rt_entry_rcu(slots[i]);
			if (!e) {
				saw_null = true;
				continue;
			}
			if (rt_is_internal(e)) {
				unsigned long span = rt_level_maxindex(rt_entry_level(e));

				first = base | (sfx & ~span);
				last = first | span;
			} else {
				first = last = base | sfx;
			}
			if (last < w->index || first > best_key ||
			    (first == best_key && best_entry))
				continue;
			if (w->tag >= 0 && !((rt_bits_rcu(tags[i]) >> w->tag) & 1U))
				continue;
			best = i;
			best_key = first;
			best_entry = e;
		}
		if (saw_null && rt_cnode_dead_rcu(node))
			return RT_SEARCH_RETRY;
		if (!best_entry)
			return rt_search_past(w, entry, base);
		if (!rt_is_internal(best_entry)) {
			rt_chunk_run(w, node, n, best, best_key);
			return RT_SEARCH_FOUND;
		}
		if (best_key > w->index)
			w->index = best_key;
		r = rt_search(w, best_entry, best_key);
		if (r != RT_SEARCH_NONE)
			return r;
	}
}

/* Search the subtree of @entry (first key @base) from w->index on. */
static enum rt_search rt_search(struct rt_walk *w, void *entry, unsigned long base)
{
	if (w->index < base)
		w->index = base;
	if (rt_entry_compact(entry))
		return rt_search_compact(w, entry, base);
	return rt_search_full(w, entry, base);
}

RCURADIX_API void **radix_tree_next_chunk(const struct radix_tree_root *root,
					  struct radix_tree_iter *iter, unsigned int flags)
{
	int tag = flags & RADIX_TREE_ITER_TAGGED ? (int)(flags & RADIX_TREE_ITER_TAG_MASK) : -1;
	struct rt_walk w = { iter, 0, tag, flags, false };
	unsigned long start;
	enum rt_search r;
	void *entry;

	if (!root || !iter || iter->done || tag >= RADIX_TREE_MAX_TAGS)
		return NULL;
	rt_reader_check(root, __func__);
	start = w.index = iter->next_index;
	/*
	 * The next key still under the previous F leaf's F parent: search
	 * from there, skipping the upper levels.  The parent may have been
	 * unlinked meanwhile (emptied, or shrunk away at the top); it stays
	 * readable in this read-side section, full nodes never move, and a
	 * node is only unlinked when nothing below it remains, so no item
	 * present throughout is missed.
	 */
	if (iter->parent && !rt_entry_compact(iter->parent) && (start & rt_level_maxindex(1)) != 0) {
		w.from_parent = true;
		r = rt_search(&w, iter->parent, start & ~rt_level_maxindex(1));
		w.from_parent = false;
		if (r == RT_SEARCH_FOUND)
			goto found;
		if (r == RT_SEARCH_END)
			goto end;
	}
	for (;;) {
		entry = rt_entry_rcu(root->rnode);
		if (!entry || (tag >= 0 && !(rt_bits_rcu(root->tags) & (1UL << tag))))
			goto end;
		if (w.index > rt_level_maxindex(rt_entry_level(entry)))
			goto end;
		r = rt_search(&w, entry, 0);
		if (r == RT_SEARCH_FOUND)
			goto found;
		if (r != RT_SEARCH_RETRY)
			goto end;
	}
found:
	/* A hole ends a contiguous walk. */
	if ((flags & RADIX_TREE_ITER_CONTIG) && iter->index != start)
		goto end;
	return iter->chunk + (iter->index - radix_tree_iter_key(iter, iter->chunk));
end:
	iter->done = 1;
	return NULL;
}

RCURADIX_API void **radix_tree_iter_resume(void **slot, struct radix_tree_iter *iter)
{
	(void)slot;
	if (!iter)
		return NULL;
	/* Re-derive "done" from the key alone: a chunk ending at ULONG_MAX
	 * marked the walk done in advance, but the rest of that chunk must
	 * still be visited after the resume. */
	iter->done = iter->index == ULONG_MAX;
	iter->next_index = iter->index + 1;
	iter->tags = 0;
	iter->run_end = NULL;
	iter->parent = NULL;  /* it may be freed once the section ends */
	return NULL;
}

/* ---- gang lookups ------------------------------------------------------ */

/* Store one result of a gang lookup in whichever arrays the caller gave. */
static inline void rt_gang_store(void **items, void ***slots, unsigned long *indices,
				 unsigned long n, void *item, void **slot, unsigned long index)
{
	if (items)
		items[n] = item;
	else
		slots[n] = slot;
	if (indices)
		indices[n] = index;
}

/*
 * A chunk from a compact node: a run of consecutive keys, every one of
 * which held an item when the chunk was found.  Collect them; a slot that
 * reads NULL was deleted, or emptied because the node was copied (dead).
 * Returns true if the run must be looked up again from iter->next_index
 * (set to the key whose slot read NULL in a dead node); the keys before it
 * are kept.
 */
static inline bool rt_gang_compact(struct radix_tree_iter *iter, void **items, void ***slots,
				   unsigned long *indices, unsigned long *n, unsigned int max)
{
	void **s;

	for (s = iter->chunk; s < iter->run_end && *n < max; s++) {
		void *item = rt_entry_rcu(*s);

		if (!item) {
			if (rt_cnode_dead_rcu(rt_entry_cnode(iter->parent))) {
				iter->next_index = radix_tree_iter_key(iter, s);
				iter->done = 0;
				iter->parent = NULL;
				return true;
			}
			continue;
		}
		rt_gang_store(items, slots, indices, (*n)++, item, s, radix_tree_iter_key(iter, s));
	}
	return false;
}

/*
 * Collect up to @max present items (or their slots) from @first, walking
 * with @flags.  The engine finds each chunk (one descent per leaf); the
 * chunk's slots are then scanned here directly, so the cost per item is a
 * load, a test and a store.  Each item is loaded once; a slot that reads
 * NULL (deleted since its chunk was found) is skipped, so every result is
 * an item that was present during the call.  Always inlined: each public
 * gang lookup gets a copy specialised for its output arrays and flags.
 */
static inline __attribute__((always_inline)) unsigned int
rt_gang(const struct radix_tree_root *root, void **items, void ***slots, unsigned long *indices,
	unsigned long first, unsigned int max, unsigned int flags, const char *fn)
{
	struct radix_tree_iter iter;
	unsigned long n = 0;  /* a full word: no zero-extension per item */
	void **slot;

	if (!root || !max)
		return 0;
	rt_reader_check(root, fn);
	radix_tree_iter_init(&iter, first);
	while (n < max && (slot = radix_tree_next_chunk(root, &iter, flags | RT_ITER_NO_BITMAP))) {
		if (caa_unlikely(iter.parent && rt_entry_compact(iter.parent))) {
			/* A compact run: an emptied slot may mean "moved". */
			rt_gang_compact(&iter, items, slots, indices, &n, max);
			continue;
		}
		if (flags & RADIX_TREE_ITER_TAGGED) {
			unsigned long bits;

			for (bits = iter.tags; bits && n < max; bits &= bits - 1) {
				void **s = iter.chunk + __builtin_ctzl(bits);
				void *item = rt_entry_rcu(*s);

				if (item)
					rt_gang_store(items, slots, indices, n++, item, s,
						      radix_tree_iter_key(&iter, s));
			}
		} else {
			/* Slots left in the chunk (the difference wraps right
			 * when the chunk ends at ULONG_MAX). */
			unsigned long i, stop, left = iter.next_index - iter.index;
			void **lines_end = slot + (left < max - n ? left : max - n);

			/* The lines the scan will read if the slots are full:
			 * let their misses overlap (random leaves defeat the
			 * hardware prefetcher). */
			for (void **line = slot; line < lines_end; line += RT_SLOTS_PER_LINE)
				__builtin_prefetch(line);
			/* Scan in stretches no longer than the results still
			 * wanted, so that the inner loop has one bound, not
			 * two; a stretch with holes leaves room for another. */
			for (i = 0; i < left && n < max;) {
				stop = i + (left - i < max - n ? left - i : max - n);
				for (; i < stop; i++) {
					void *item = rt_entry_rcu(slot[i]);

					if (item)
						rt_gang_store(items, slots, indices, n++, item,
							      slot + i, iter.index + i);
				}
			}
		}
	}
	return (unsigned int)n;
}

RCURADIX_API unsigned int radix_tree_gang_lookup(const struct radix_tree_root *root,
						 void **results, unsigned long first_index,
						 unsigned int max_items)
{
	return results ? rt_gang(root, results, NULL, NULL, first_index, max_items, 0, __func__)
		       : 0;
}

RCURADIX_API unsigned int radix_tree_gang_lookup_slot(const struct radix_tree_root *root,
						      void ***results, unsigned long *indices,
						      unsigned long first_index,
						      unsigned int max_items)
{
	return results ? rt_gang(root, NULL, results, indices, first_index, max_items, 0, __func__)
		       : 0;
}

RCURADIX_API unsigned int radix_tree_gang_lookup_tag(const struct radix_tree_root *root,
						     void **results, unsigned long first_index,
						     unsigned int max_items, unsigned int tag)
{
	if (!results || tag >= RADIX_TREE_MAX_TAGS)
		return 0;
	return rt_gang(root, results, NULL, NULL, first_index, max_items,
		       RADIX_TREE_ITER_TAGGED | tag, __func__);
}

RCURADIX_API unsigned int radix_tree_gang_lookup_tag_slot(const struct radix_tree_root *root,
							  void ***results, unsigned long first_index,
							  unsigned int max_items, unsigned int tag)
{
	if (!results || tag >= RADIX_TREE_MAX_TAGS)
		return 0;
	return rt_gang(root, NULL, results, NULL, first_index, max_items,
		       RADIX_TREE_ITER_TAGGED | tag, __func__);
}
