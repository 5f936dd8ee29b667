/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * iter.c - readers that visit many keys: the walk engine
 * (radix_tree_next_chunk), the iterators' exported helpers and the gang
 * lookups.  Everything here is an RCU reader; radix_tree_iter_delete(), a
 * writer, is in tree.c with the other writers.
 *
 * A walk proceeds chunk by chunk, a chunk being the slots of one full leaf
 * from the first present (or tagged) key onwards, or a run of consecutive
 * keys in a compact node.  Each chunk costs one descent (from the root,
 * from the previous full leaf's parent, or within the previous run's
 * compact node); inside a chunk the
 * header's inline radix_tree_walk_step() (or radix_tree_next_slot()) streams
 * through the slots.  Progress: every step either descends or strictly
 * increases the index it searches from, so a walk terminates even on stale
 * tags or a tree that a writer keeps reshaping; an index that would pass
 * ULONG_MAX ends the walk instead of wrapping to 0.  Gang lookups take a
 * compact node whole instead of run by run (rt_gang_cnode()).
 */
#include "config.h"

#include "descend.h"

/* Internal walk flag: the caller scans the chunk itself (gang lookups), so
 * radix_tree_next_chunk() need not build the chunk's presence bitmap, and
 * takes a compact node whole (rt_gang_cnode()), so the engine hands over a
 * compact child unsearched (rt_chunk_node()). */
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
		iter->above = NULL;
		iter->done = 0;
		iter->above_pos = 0;
		iter->parent_spent = 0;
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
static inline __attribute__((always_inline)) void **rt_chunk_found(struct radix_tree_iter *iter, struct rt_node *node,
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
	iter->parent = parent ? rt_node_entry(parent, 1) : NULL;
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
 * Always inlined: the walk engine's step and rt_gang_up() both call it,
 * and as a call per chunk it cost a dense walk 7% more instructions.
 */
static inline __attribute__((always_inline)) unsigned int
rt_next_wanted(struct rt_node *node, unsigned int level, unsigned int offset, int tag,
	       unsigned int flags, unsigned long *bits)
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

/* ---- compact nodes --------------------------------------------------------- */

/* Positions [@from, @to) as a bitmap (@from <= @to <= RT_C_MAX_ENTRIES). */
static inline unsigned long rt_pos_range(unsigned int from, unsigned int to)
{
	unsigned long below_to = to < RT_BITS_PER_LONG ? (1UL << to) - 1 : ~0UL;

	return from < RT_BITS_PER_LONG ? below_to & (~0UL << from) : 0;
}

/* Fill @iter with the run of consecutive keys in consecutive entries of
 * C node @node (suffixes @wd bytes wide) that starts at entry @pos, key
 * @key (@tag: a tagged walk's tag, or -1; @later: struct rt_cfound's). */
static inline __attribute__((always_inline)) void
rt_chunk_run_w(struct radix_tree_iter *iter, struct rt_cnode *node, unsigned int wd,
	       unsigned int n, unsigned int pos, unsigned long key, int tag, unsigned long later)
{
	unsigned int r = 1;
	void **slots = rt_cnode_slots_w(node, wd);
	const uint8_t *tags = rt_cnode_tags_w(node, wd);
	unsigned long sfx = rt_sfx_get(node, wd, pos);

	while (pos + r < n && r < RT_BITS_PER_LONG && key + r != 0 &&
	       rt_sfx_get(node, wd, pos + r) == sfx + r) {
		void *e = rt_entry_rcu(slots[pos + r]);

		if (!e || rt_is_internal(e) ||
		    (tag >= 0 && !((rt_bits_rcu(tags[pos + r]) >> tag) & 1U)))
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
	/* The node: the next chunk is searched in it first, unless it is
	 * spent: live, with nothing wanted after the run, so that nothing
	 * present throughout the walk is left in it (tagged walks: the
	 * search that found the run knows that, and most tagged runs are
	 * a node's last; a plain walk leaves a node once per many runs,
	 * not worth measuring at each).  The next search then
	 * goes on after its range, from the node above (iter->above) or the
	 * root, without searching it again.  The read barrier in
	 * rt_cnode_dead_rcu() orders the tag loads before the mark's. */
	iter->parent = rt_cnode_entry(node);
	iter->parent_spent = tag >= 0 && !(later & ~rt_pos_range(pos, pos + r)) &&
			     !rt_cnode_dead_rcu(node);
}

static void rt_chunk_run(struct radix_tree_iter *iter, struct rt_cnode *node, unsigned int n,
			 unsigned int pos, unsigned long key, int tag, unsigned long later)
{
	switch (rt_sfx_width(node->level)) {
	case 1:
		rt_chunk_run_w(iter, node, 1, n, pos, key, tag, later);
		break;
	case 2:
		rt_chunk_run_w(iter, node, 2, n, pos, key, tag, later);
		break;
	case 4:
		rt_chunk_run_w(iter, node, 4, n, pos, key, tag, later);
		break;
	default:
		rt_chunk_run_w(iter, node, 8, n, pos, key, tag, later);
		break;
	}
}

/* A gang lookup's chunk in C node @node: the item at entry @pos, key @key,
 * alone.  The gang lookup takes the node whole from there
 * (rt_gang_cnode()), so the run need not be measured. */
static inline void rt_chunk_item(struct radix_tree_iter *iter, struct rt_cnode *node,
				 unsigned int pos, unsigned long key)
{
	void **slots = rt_cnode_slots(node);

	iter->index = key;
	iter->next_index = key + 1;
	iter->done = iter->next_index == 0;
	iter->tags = 1;
	iter->chunk = &slots[pos];
	iter->run_end = &slots[pos + 1];
	iter->bias = key - (unsigned long)((uintptr_t)&slots[pos] / sizeof(void *));
	iter->parent = rt_cnode_entry(node);
	iter->parent_spent = 0;
}

/*
 * The chunk of the root item (internal.h, "IDR trees"): key 0's slot, the
 * root's own.  The slot may hold a node by the time it is read, if the
 * tree grew meanwhile: the gang lookups check (rt_gang()).
 */
static void rt_chunk_root(struct radix_tree_iter *iter, const struct radix_tree_root *root)
{
	void **slot = (void **)&root->rnode;

	iter->index = 0;
	iter->next_index = 1;
	iter->done = 0;
	iter->tags = 1;
	iter->chunk = slot;
	iter->run_end = slot + 1;
	iter->bias = 0UL - (unsigned long)((uintptr_t)slot / sizeof(void *));
	iter->parent = NULL;
	iter->parent_spent = 0;
}

/*
 * A gang lookup's chunk: compact node @node, reached from its parent, to be
 * searched from @key by the gang lookup itself (rt_gang_cnode(), which
 * searches it anyway: a search here would be done twice).  No item is
 * designated: the chunk starts at the node's first slot, the search's
 * hint.  Only from the first key of the node's range
 * (rt_chunk_node_from()): every entry's keys then lie from @key on, where
 * rt_gang_cnode() looks (from a key inside the range, a child stored with
 * a smaller prefix could hold it); and not from 0: if the node's first
 * entry is a child, the gang lookup stops before it with nothing taken,
 * and the engine goes on in a node of its last chunk only from a key above
 * 0 (0 is also where a walk that wrapped would be).  Otherwise the engine
 * searches the node itself.
 */
static inline bool rt_chunk_node_from(const void *child, unsigned long key)
{
	return key && !(key & rt_level_maxindex(rt_entry_level(child)));
}

static inline void rt_chunk_node(struct radix_tree_iter *iter, struct rt_cnode *node,
				 unsigned long key)
{
	void **slots = rt_cnode_slots(node);

	iter->index = key;
	iter->next_index = key;
	iter->done = 0;
	iter->tags = 0;
	iter->chunk = slots;
	iter->run_end = slots;
	iter->bias = key - (unsigned long)((uintptr_t)slots / sizeof(void *));
	iter->parent = rt_cnode_entry(node);
	iter->parent_spent = 0;
}

/* What a compact node holds from a key on. */
enum rt_cfind {
	RT_CFIND_ITEM,   /* an item: the chunk */
	RT_CFIND_CHILD,  /* a child whose keys reach the key: go down */
	RT_CFIND_NONE,   /* nothing: go on after the node */
	RT_CFIND_RETRY,  /* the node is dead: look again from the root */
};

/* What rt_cnode_next() found, besides its answer. */
struct rt_cfound {
	unsigned int n;       /* the entries it read */
	unsigned int pos;     /* RT_CFIND_ITEM, _CHILD: the entry's position */
	void *child;          /* RT_CFIND_CHILD: the child */
	unsigned long later;  /* RT_CFIND_ITEM in a tagged walk: the positions
			       * other than @pos that may hold wanted keys above
			       * the item's; all ones if unknown */
};

/*
 * rt_cnode_next() by loading every slot: the answer when a candidate's
 * slot read NULL (a tombstone, or an item emptied because the node was
 * copied: if the node turns out to be dead, the caller looks again from
 * the root).
 */
static enum rt_cfind rt_cnode_next_scan(struct rt_cnode *node, unsigned long base,
					unsigned long *index, int tag, struct rt_cfound *f)
{
	unsigned int wd = rt_sfx_width(node->level), i;
	void **slots = rt_cnode_slots(node);
	const uint8_t *tags = rt_cnode_tags(node);
	unsigned long best_key = ULONG_MAX;
	void *best = NULL;
	bool saw_null = false;

	for (i = 0; i < f->n; i++) {
		unsigned long sfx = rt_sfx_get(node, wd, i), first, last;
		void *e = rt_entry_rcu(slots[i]);

		if (!e) {
			saw_null = true;
			continue;
		}
		last = base | rt_entry_last(sfx, e);
		first = base | rt_entry_first(sfx, e);
		if (last < *index || (best && first >= best_key))
			continue;
		if (tag >= 0 && !((rt_bits_rcu(tags[i]) >> tag) & 1U))
			continue;
		f->pos = i;
		best_key = first;
		best = e;
	}
	if (saw_null && rt_cnode_dead_rcu(node))
		return RT_CFIND_RETRY;
	if (!best)
		return RT_CFIND_NONE;
	if (best_key > *index)
		*index = best_key;
	if (!rt_is_internal(best))
		return RT_CFIND_ITEM;
	f->child = best;
	return RT_CFIND_CHILD;
}

/*
 * The scan of the appended tail [@s, @n) for one suffix width: the wanted
 * entry (a position of @want: all, or those whose tag bit is set) with the
 * smallest suffix from @key on (@above), and the wanted child with the
 * largest suffix below it (@below).  Ties go to the later position (a
 * child's tombstone, then an item of the key the child was stored with).
 */
#define RT_CNODE_TAIL_SCAN(type)                                                       \
	do {                                                                           \
		const type *sfxs = (const type *)(const void *)node->data;             \
		unsigned long todo = rt_pos_range(s, n) & want;                        \
		for (; todo; todo &= todo - 1) {                                       \
			unsigned int i = (unsigned int)__builtin_ctzl(todo);           \
			unsigned long sfx = sfxs[i];                                   \
			if (sfx >= key ? sfx > t->above_sfx : sfx < t->below_sfx)      \
				continue;                                              \
			if (sfx >= key) {                                              \
				t->above = i;                                          \
				t->above_sfx = sfx;                                    \
			} else if (rt_ctag_child(tags, i)) {                           \
				t->below = i;                                          \
				t->below_sfx = sfx;                                    \
			}                                                              \
		}                                                                      \
	} while (0)

/* Candidates of one part of a C node; UINT_MAX: none. */
struct rt_cand {
	unsigned int above, below;
	unsigned long above_sfx, below_sfx;
};

static inline __attribute__((always_inline)) void
rt_cnode_tail_scan(const struct rt_cnode *node, unsigned int w, unsigned int s, unsigned int n,
		   unsigned long key, unsigned long want, struct rt_cand *t)
{
	const uint8_t *tags = rt_cnode_tags_w(node, w);

	t->above = t->below = UINT_MAX;
	t->above_sfx = ULONG_MAX;
	t->below_sfx = 0;
	switch (w) {
	case 1:
		RT_CNODE_TAIL_SCAN(uint8_t);
		break;
	case 2:
		RT_CNODE_TAIL_SCAN(uint16_t);
		break;
	case 4:
		RT_CNODE_TAIL_SCAN(uint32_t);
		break;
	default:
		RT_CNODE_TAIL_SCAN(uint64_t);
		break;
	}
}

/*
 * The sorted run's candidate: the first position of @todo (the run's
 * wanted positions from the lower bound on) whose slot holds an entry,
 * *@e; its suffix into *@sfx.  *@skipped set if a NULL was passed over (a
 * tombstone, or an item moved out by a copy).  UINT_MAX: none.
 */
static inline __attribute__((always_inline)) unsigned int
rt_sorted_candidate(const struct rt_cnode *node, unsigned int wd, void **slots,
		    unsigned long todo, unsigned long *sfx, bool *skipped, void **e)
{
	for (; todo; todo &= todo - 1) {
		unsigned int i = (unsigned int)__builtin_ctzl(todo);

		*e = rt_entry_rcu(slots[i]);
		if (*e) {
			*sfx = rt_sfx_get(node, wd, i);
			return i;
		}
		*skipped = true;
	}
	return UINT_MAX;
}

#ifdef __SSE2__
/* Lanes of @x (@w-byte unsigned integers, flipped to signed by the
 * caller: x ^ the sign bit) outside [@lo, @hi]: all ones. */
static inline __attribute__((always_inline)) __m128i
rt_sse_outside(unsigned int w, __m128i x, __m128i lo, __m128i hi)
{
	if (w == 1)
		return _mm_or_si128(_mm_cmpgt_epi8(lo, x), _mm_cmpgt_epi8(x, hi));
	if (w == 2)
		return _mm_or_si128(_mm_cmpgt_epi16(lo, x), _mm_cmpgt_epi16(x, hi));
	return _mm_or_si128(_mm_cmpgt_epi32(lo, x), _mm_cmpgt_epi32(x, hi));
}
#endif

/*
 * The positions of @todo (a subset of [@from, @n)) whose suffix lies in
 * [@lo, @hi].  Where SSE2 is there (1, 2 and 4 bytes): sixteen entries
 * at a time, for every block that lies inside the node (the bytes after
 * the last entry are other arrays of the node, read and masked off), as
 * rt_sfx_match() does; the rest one by one.
 */
static inline __attribute__((always_inline)) unsigned long
rt_sfx_between(const struct rt_cnode *node, unsigned int w, unsigned long todo,
	       unsigned int from, unsigned int n, unsigned long lo, unsigned long hi)
{
	unsigned long in = 0;
	unsigned int i = from & ~15U;

#ifdef __SSE2__
	if (w != 8) {
		unsigned long flip = 1UL << (8 * w - 1);
		__m128i l = rt_sse_set1(w, lo ^ flip), h = rt_sse_set1(w, hi ^ flip);
		__m128i f = rt_sse_set1(w, flip);
		unsigned int room = (unsigned int)(rt_cnode_bytes(node) - RT_C_HEADER) / w;
		unsigned int stop = room > 15 ? (n < room - 15 ? n : room - 15) : 0;

		for (; i < stop; i += 16) {
			__m128i r[4];

#pragma GCC unroll 4
			for (unsigned int j = 0; j < w; j++) {
				__m128i x = _mm_loadu_si128(
					(const __m128i *)(const void *)(node->data + (size_t)i * w) + j);

				r[j] = rt_sse_outside(w, _mm_xor_si128(x, f), l, h);
			}
			in |= (~rt_sse_bits(w, w, r) & 0xffffUL) << i;
		}
	}
#endif
	for (unsigned long rest = todo & ~rt_pos_range(0, i); rest; rest &= rest - 1) {
		unsigned int j = (unsigned int)__builtin_ctzl(rest);
		unsigned long sfx = rt_sfx_get(node, w, j);

		in |= (unsigned long)(sfx >= lo && sfx <= hi) << j;
	}
	return todo & in;
}

/*
 * The wanted tail entry (a position of @todo: [s, n) and wanted; @all if
 * every position is) with the smallest suffix from @key on, if below
 * *@min_sfx (any, if *@min_pos is UINT_MAX): then into *@min_pos and
 * *@min_sfx, and true.  Items only: no
 * child below the key can reach it.  Ties go to the later position, as in
 * rt_cnode_tail_scan().  The tail is not ordered, and a walk goes through
 * a node one run at a time: the candidates, those between the key and
 * the sorted run's candidate, are found by rt_sfx_between(), a few
 * compares per sixteen entries, and only they are compared one by one.  A
 * short tail, or the few tagged entries of a tagged walk's, are compared
 * one by one at once.
 */
#define RT_TAIL_SCALAR_MAX 6

static inline __attribute__((always_inline)) bool
rt_tail_min(const struct rt_cnode *node, unsigned int w, unsigned long todo, bool all,
	    unsigned int s, unsigned int n, unsigned long key, unsigned int *min_pos,
	    unsigned long *min_sfx)
{
	unsigned long top = w == 8 ? ~0UL : (1UL << (8 * w)) - 1;
	/* No run candidate: any suffix from the key on qualifies, ULONG_MAX
	 * included (an 8-byte suffix can be it: *@min_sfx is no bound then). */
	bool none = *min_pos == UINT_MAX, found = false;

	if (!todo || (!none && *min_sfx == key))
		return false;  /* nothing can come before the key itself */
	if (w != 8 && all && n - s > RT_TAIL_SCALAR_MAX)
		todo = rt_sfx_between(node, w, todo, s, n, key, none ? top : *min_sfx - 1);
	for (; todo; todo &= todo - 1) {
		unsigned int i = (unsigned int)__builtin_ctzl(todo);
		unsigned long sfx = rt_sfx_get(node, w, i);

		if (sfx >= key && (none || sfx < *min_sfx || (found && sfx == *min_sfx))) {
			none = false;
			*min_sfx = sfx;
			*min_pos = i;
			found = true;
		}
	}
	return found;
}

/*
 * rt_cnode_next_w() in a C node of items only (built without children;
 * appends add items only), without the steps that children need: the
 * answer is the wanted item with the smallest suffix from the key on,
 * the first live wanted position of the sorted run from the lower bound,
 * or a smaller suffix in the tail (rt_tail_min()).  A walk through a
 * node of keys that are not consecutive (every other key, uniform keys)
 * searches it once per key (runs of one key), so this search is most of
 * such a walk's cost per item (doc/performance.md, "Walks through compact
 * nodes of items").
 */
static inline __attribute__((always_inline)) enum rt_cfind
rt_cnode_next_items_w(struct rt_cnode *node, unsigned int wd, unsigned long base,
		      unsigned long *index, int tag, unsigned int hint, struct rt_cfound *f)
{
	unsigned int s, p0, at = UINT_MAX;
	void **slots = rt_cnode_slots_w(node, wd);
	const uint8_t *tags = rt_cnode_tags_w(node, wd);
	unsigned long key = *index - base, at_sfx = ULONG_MAX, want;
	bool skipped = false;
	void *e = NULL;

	f->n = rt_cnode_next_rcu(node);
	s = rt_cnode_sorted_rcu(node, f->n);
	want = tag >= 0 ? rt_ctag_bits(tags, f->n, (unsigned int)tag) : rt_pos_range(0, f->n);
	p0 = rt_sorted_lower_bound(node, wd, s, key, hint);
	at = rt_sorted_candidate(node, wd, slots, rt_pos_range(p0, s) & want, &at_sfx, &skipped, &e);
	if (rt_tail_min(node, wd, rt_pos_range(s, f->n) & want, tag < 0, s, f->n, key, &at,
			&at_sfx) &&
	    !(e = rt_entry_rcu(slots[at])))
		return rt_cnode_next_scan(node, base, index, tag, f);
	/* A NULL passed over, or nothing from the key on, may mean the node
	 * was copied before this reader came (a walk going on in it). */
	if ((skipped || at == UINT_MAX) && rt_cnode_dead_rcu(node))
		return RT_CFIND_RETRY;
	if (at == UINT_MAX)
		return RT_CFIND_NONE;
	rt_assert(!rt_is_internal(e));
	f->pos = at;
	*index = base | at_sfx;
	/* Keys above it lie at wanted positions from @p0 on, in the sorted
	 * run or the tail, but not at its own. */
	if (tag >= 0)
		f->later = want & ~rt_pos_range(0, p0) & ~(1UL << at);
	return RT_CFIND_ITEM;
}

/*
 * In C node @node (first key @base): the entry holding the smallest wanted
 * key >= *@index, an item (*@pos, key in *@index) or a child (*@child,
 * *@index raised to its first key if below); *@n gets the entries read.
 * A live entry's suffix lies in its range and the ranges are disjoint, so
 * the answer is the child with the largest suffix below the key, if its
 * range reaches the key, else the entry with the smallest suffix from the
 * key on.  The sorted run gives both by a search (the child can only be
 * the entry just before the first suffix >= key: any other entry would
 * lie between it and the key), tombstones skipped; the appended tail by a
 * scan of suffixes and tag bytes.  A tagged walk looks only at the
 * positions whose tag bit is set.  Only the candidates' slots are loaded;
 * if a tail candidate reads NULL, the full scan decides.  @hint: where the
 * walk's previous run in this node ended (any value is safe).
 */
static inline __attribute__((always_inline)) enum rt_cfind
rt_cnode_next_w(struct rt_cnode *node, unsigned int wd, unsigned long base, unsigned long *index,
		int tag, unsigned int hint, struct rt_cfound *f)
{
	unsigned int s, p0, at = UINT_MAX;
	void **slots = rt_cnode_slots_w(node, wd);
	const uint8_t *tags = rt_cnode_tags_w(node, wd);
	unsigned long key = *index - base, at_sfx = ULONG_MAX, want;
	bool skipped = false;
	struct rt_cand t;
	void *e = NULL;

	if (!node->children)
		return rt_cnode_next_items_w(node, wd, base, index, tag, hint, f);
	f->n = rt_cnode_next_rcu(node);
	s = rt_cnode_sorted_rcu(node, f->n);
	want = tag >= 0 ? rt_ctag_bits(tags, f->n, (unsigned int)tag) : rt_pos_range(0, f->n);
	p0 = rt_sorted_lower_bound(node, wd, s, key, hint);
	if (p0 > 0 && ((want >> (p0 - 1)) & 1) && rt_ctag_child(tags, p0 - 1)) {
		/* NULL: a deleted child (a retired node keeps its children). */
		e = rt_entry_rcu(slots[p0 - 1]);
		if (e && rt_entry_last(rt_sfx_get(node, wd, p0 - 1), e) >= key) {
			f->pos = p0 - 1;
			f->child = e;
			return RT_CFIND_CHILD;
		}
	}
	at = rt_sorted_candidate(node, wd, slots, rt_pos_range(p0, s) & want, &at_sfx, &skipped, &e);
	rt_cnode_tail_scan(node, wd, s, f->n, key, want, &t);
	if (t.below != UINT_MAX) {
		void *b = rt_entry_rcu(slots[t.below]);

		if (!b)
			goto scan;
		if (rt_entry_last(t.below_sfx, b) >= key) {
			f->pos = t.below;
			f->child = b;
			return RT_CFIND_CHILD;
		}
	}
	if (t.above != UINT_MAX && t.above_sfx <= at_sfx) {
		e = rt_entry_rcu(slots[t.above]);
		if (!e)
			goto scan;
		at = t.above;
		at_sfx = t.above_sfx;
	}
	/* A NULL passed over, or nothing from the key on, may mean the node
	 * was copied before this reader came (a walk going on in it). */
	if ((skipped || at == UINT_MAX) && rt_cnode_dead_rcu(node))
		return RT_CFIND_RETRY;
	if (at == UINT_MAX)
		return RT_CFIND_NONE;
	f->pos = at;
	if (!rt_is_internal(e)) {
		*index = base | at_sfx;
		/* Keys above it lie at wanted positions from @p0 on, in the
		 * sorted run or the tail, but not at its own. */
		if (tag >= 0)
			f->later = want & ~rt_pos_range(0, p0) & ~(1UL << at);
		return RT_CFIND_ITEM;
	}
	if (((base | at_sfx) & ~rt_level_maxindex(rt_entry_level(e))) > *index)
		*index = (base | at_sfx) & ~rt_level_maxindex(rt_entry_level(e));
	f->child = e;
	return RT_CFIND_CHILD;
scan:
	return rt_cnode_next_scan(node, base, index, tag, f);
}

/* rt_cnode_next_w() compiled once per suffix width. */
static enum rt_cfind rt_cnode_next(struct rt_cnode *node, unsigned long base,
				   unsigned long *index, int tag, unsigned int hint,
				   struct rt_cfound *f)
{
	switch (rt_sfx_width(node->level)) {
	case 1:
		return rt_cnode_next_w(node, 1, base, index, tag, hint, f);
	case 2:
		return rt_cnode_next_w(node, 2, base, index, tag, hint, f);
	case 4:
		return rt_cnode_next_w(node, 4, base, index, tag, hint, f);
	default:
		return rt_cnode_next_w(node, 8, base, index, tag, hint, f);
	}
}

/*
 * A walk going on in @node, the compact node of its previous run (@hint:
 * where that run ended), when the node holds items only: the search and
 * the run for one suffix width, without the engine's steps for other
 * nodes.  Return: rt_cnode_next()'s answer; the chunk is set on
 * RT_CFIND_ITEM.
 */
static inline __attribute__((always_inline)) enum rt_cfind
rt_walk_on_w(struct radix_tree_iter *iter, struct rt_cnode *node, unsigned int wd,
	     unsigned long index, int tag, unsigned int hint)
{
	struct rt_cfound f = { .pos = 0, .child = NULL, .later = ~0UL };
	enum rt_cfind found;

	found = rt_cnode_next_items_w(node, wd, index & ~rt_level_maxindex(node->level), &index,
				      tag, hint, &f);
	if (found == RT_CFIND_ITEM)
		rt_chunk_run_w(iter, node, wd, f.n, f.pos, index, tag, f.later);
	return found;
}

static enum rt_cfind rt_walk_on(struct radix_tree_iter *iter, struct rt_cnode *node,
				unsigned long index, int tag, unsigned int hint)
{
	switch (rt_sfx_width(node->level)) {
	case 1:
		return rt_walk_on_w(iter, node, 1, index, tag, hint);
	case 2:
		return rt_walk_on_w(iter, node, 2, index, tag, hint);
	case 4:
		return rt_walk_on_w(iter, node, 4, index, tag, hint);
	default:
		return rt_walk_on_w(iter, node, 8, index, tag, hint);
	}
}

/* ---- the engine ------------------------------------------------------------ */

/* Where the previous chunk's run ended in C node @node, its parent (a
 * position, maybe past the entries), or UINT_MAX. */
static unsigned int rt_run_end_pos(const struct radix_tree_iter *iter, const struct rt_cnode *node)
{
	uintptr_t off = (uintptr_t)iter->run_end - (uintptr_t)rt_cnode_slots(node);

	return off <= RT_C_MAX_ENTRIES * sizeof(void *) ? (unsigned int)(off / sizeof(void *))
							: UINT_MAX;
}

/*
 * A gang lookup's node above the previous chunk's node: the next search
 * starts there while the key is in its range.  @pos: a compact node's
 * position of the child taken (the next search's hint is the position
 * after it).  A walk keeps the same in its iterator (iter->above); a gang
 * lookup keeps it apart, because its collection (rt_gang_cnode(),
 * rt_gang_up()) moves the iterator's key and parent outside the engine
 * and consumes this node itself: only the engine's hand-over writes it.
 */
struct rt_above {
	void *entry;
	unsigned int pos;
};

/*
 * May a search for @index start in @entry, a node on the way down to the
 * previous chunk (whose key is @prev)?  Only while @index lies in its range,
 * and only if it is not a dead compact node: a full node stays readable in
 * this read-side section (or lock hold) and holds every item below it that
 * it held, since a node is unlinked only once nothing below it remains; a
 * live compact node too, and rt_cnode_next() checks again for death.  No
 * item present throughout is then missed.  Never from 0, where a walk that
 * wrapped would be.
 */
static inline bool rt_search_from(const void *entry, unsigned long prev, unsigned long index)
{
	return entry && index && !((index ^ prev) & ~rt_level_maxindex(rt_entry_level(entry))) &&
	       (!rt_entry_compact(entry) || !rt_cnode_dead_rcu(rt_entry_cnode(entry)));
}

static inline __attribute__((always_inline)) void **
rt_next_chunk(const struct radix_tree_root *root, struct radix_tree_iter *iter, unsigned int flags,
	      struct rt_above *above, const char *fn)
{
	bool contig = flags & RADIX_TREE_ITER_CONTIG;
	int tag = flags & RADIX_TREE_ITER_TAGGED ? (int)(flags & RADIX_TREE_ITER_TAG_MASK) : -1;
	struct rt_node *up = NULL;  /* the full level-1 node above the leaf we reach */
	bool from_parent = false;   /* went on from the previous chunk's parent */
	unsigned int hint = UINT_MAX;  /* rt_cnode_next()'s, in iter->parent */
	void *prev = NULL;             /* the node above the one searched */
	unsigned int prev_pos = 0;     /* ... and the slot or entry taken there */
	unsigned long index, start;
	unsigned int level;
	void *entry;

	if (!root || !iter || iter->done || tag >= RADIX_TREE_MAX_TAGS)
		return NULL;
	rt_reader_check(root, fn);
	start = index = iter->next_index;
	/*
	 * The next key still under the previous full leaf's full parent:
	 * search from there, skipping the upper levels.  The parent may have
	 * been unlinked meanwhile (emptied, or shrunk away at the top); it
	 * stays readable in this read-side section, full nodes never move,
	 * and a node is only unlinked when nothing below it remains, so no
	 * item present throughout is missed.
	 */
	if (iter->parent && !rt_entry_compact(iter->parent) &&
	    (index & rt_level_maxindex(1)) != 0) {
		entry = iter->parent;
		from_parent = true;
		goto search;
	}
	/*
	 * The next key still in the range of the previous run's compact
	 * node: search on in that node.  It stays readable in this read-side
	 * section; if it was copied since (dead), look from the root, where
	 * the copy is.  An item present throughout the walk was in it then
	 * and is still there unless the node is dead (rt_cnode_next()
	 * checks again where a slot reads NULL or nothing is left).  A
	 * spent node (rt_chunk_run()) holds nothing more: the search goes on
	 * after its range at once.
	 */
	if (iter->parent && rt_entry_compact(iter->parent) &&
	    rt_search_from(iter->parent, iter->index, index)) {
		if (iter->parent_spent) {
			index = (index | rt_level_maxindex(rt_entry_level(iter->parent))) + 1;
			if (index == 0)
				goto end;
			goto restart;
		}
		entry = iter->parent;
		hint = rt_run_end_pos(iter, rt_entry_cnode(entry));
		/* A walk's next run in a node of items: the short path, which
		 * leaves iter->above as it is (the node above this one). */
		if (!above && !contig && !rt_entry_cnode(entry)->children) {
			switch (rt_walk_on(iter, rt_entry_cnode(entry), index, tag, hint)) {
			case RT_CFIND_ITEM:
				return iter->chunk;
			case RT_CFIND_NONE:
				/* Nothing left here: on after its range. */
				index = (index | rt_level_maxindex(rt_entry_level(entry))) + 1;
				if (index == 0)
					goto end;
				goto restart;
			default:
				goto restart;
			}
		}
		if (!above) {
			prev = iter->above;
			prev_pos = iter->above_pos;
		}
		goto search;
	}
	/*
	 * The next key still in the range of a node above the previous
	 * chunk's: search on from there, as from a parent above.
	 */
	if (above && rt_search_from(above->entry, iter->index, index)) {
		entry = above->entry;
		if (rt_entry_compact(entry))
			hint = above->pos + 1;
		goto search;
	}
restart:
	from_parent = false;
	prev = NULL;
	/*
	 * A walk that left its parent's range, or found nothing more there,
	 * goes on from the node above the parent while the key is in its
	 * range: a tagged walk of clustered keys then searches a small node
	 * per chunk rather than every node from the root.  Past that node's
	 * range, from the root.
	 */
	if (!above && rt_search_from(iter->above, iter->index, index)) {
		entry = iter->above;
		if (rt_entry_compact(entry))
			hint = iter->above_pos + 1;
		goto search;
	}
	entry = rt_entry_rcu(root->rnode);
	if (!entry || (tag >= 0 && !(rt_bits_rcu(root->tags) & (1UL << tag))))
		goto end;
	if (caa_unlikely(rt_root_item(entry))) {
		if (index)
			goto end;  /* key 0 is the only key */
		/* A tagged walk read the root's bits after the item: they
		 * were the item's own if the item is still there (else a
		 * new top's: look again). */
		if (tag >= 0 && rt_entry_rcu(root->rnode) != entry)
			goto restart;
		rt_chunk_root(iter, root);
		goto found;
	}
	if (index > rt_level_maxindex(rt_entry_level(entry)))
		goto end;
search:
	/*
	 * Progress: every step either descends or strictly increases @index;
	 * every key below @index was searched.  A node with nothing left
	 * sends the search on from the root after its range; so does a dead
	 * node, from the same @index.
	 */
	for (;;) {
		level = rt_entry_level(entry);
		if (!rt_entry_compact(entry)) {
			struct rt_node *node = rt_entry_node(entry);
			unsigned int offset = rt_offset(index, level);
			unsigned long bits = 0;
			unsigned int found = rt_next_wanted(node, level, offset, tag, flags, &bits);
			void *child;

			if (found != offset) {
				if (found == RT_MAP_SIZE)
					goto past;
				index = rt_index_at(index, level, found);
			}
			if (level == 0) {
				rt_chunk_found(iter, node, up, index, found, bits,
					       !(flags & RT_ITER_NO_BITMAP) && !from_parent);
				goto found;
			}
			if (level == 1) {
				up = node;
				if (!(flags & RT_ITER_NO_BITMAP))
					rt_prefetch_next_leaves(node, bits, from_parent);
			}
			child = rt_entry_rcu(node->slots[found]);
			/* One test for "empty (NULL) or compact": only a full
			 * node's entry has RT_ENTRY_FULL set. */
			if (caa_unlikely(!((uintptr_t)child & RT_ENTRY_FULL))) {
				if (child && (flags & RT_ITER_NO_BITMAP) &&
				    rt_chunk_node_from(child, index)) {
					prev = entry;
					prev_pos = found;
					rt_chunk_node(iter, rt_entry_cnode(child), index);
					goto found;
				}
				if (!child) {
					/* A stale tag or a concurrent delete:
					 * skip the slot's range and go on in
					 * this node or above. */
					index = rt_next_slot_index(index, level);
					if (index == 0)
						goto end;
					if (found == RT_MAP_SIZE - 1)
						goto restart;
					continue;
				}
			}
			prev = entry;
			prev_pos = found;
			entry = child;
			continue;
		} else {
			struct rt_cnode *node = rt_entry_cnode(entry);
			struct rt_cfound f = { .pos = 0, .child = NULL, .later = ~0UL };
			/* From the first key of the node's range (a descent),
			 * the bound is position 0: no search for it. */
			unsigned int h = hint != UINT_MAX || (index & rt_level_maxindex(level))
						 ? hint
						 : 0;

			up = NULL;
			hint = UINT_MAX;  /* it belongs to the first C node searched */
			switch (rt_cnode_next(node, index & ~rt_level_maxindex(level), &index, tag, h,
					      &f)) {
			case RT_CFIND_ITEM:
				if (flags & RT_ITER_NO_BITMAP)
					rt_chunk_item(iter, node, f.pos, index);
				else
					rt_chunk_run(iter, node, f.n, f.pos, index, tag, f.later);
				goto found;
			case RT_CFIND_CHILD:
				prev = entry;
				prev_pos = f.pos;
				if ((flags & RT_ITER_NO_BITMAP) && rt_entry_compact(f.child) &&
				    rt_chunk_node_from(f.child, index)) {
					rt_chunk_node(iter, rt_entry_cnode(f.child), index);
					goto found;
				}
				entry = f.child;
				continue;
			case RT_CFIND_NONE:
				goto past;
			case RT_CFIND_RETRY:
				goto restart;
			}
		}
past:
		/* Nothing left in this node: go on after its range, from the
		 * root. */
		index = (index | rt_level_maxindex(level)) + 1;
		if (index == 0)
			goto end;
		goto restart;
	}
found:
	if (above) {
		above->entry = prev;
		above->pos = prev_pos;
	} else {
		/* The node above the chunk's: a compact run's parent, a full
		 * leaf's (its parent iter->parent if full: harmless, the walk
		 * leaves that range first), or NULL if the search started in
		 * the chunk's node and the node above it is not known. */
		iter->above = prev;
		iter->above_pos = (unsigned char)prev_pos;
	}
	/* A hole ends a contiguous walk. */
	if (contig && iter->index != start)
		goto end;
	return iter->chunk + (iter->index - radix_tree_iter_key(iter, iter->chunk));
end:
	iter->done = 1;
	return NULL;
}

RCURADIX_API void **radix_tree_next_chunk(const struct radix_tree_root *root,
					  struct radix_tree_iter *iter, unsigned int flags)
{
	/* The gang lookups' internal flag is never the caller's: masked,
	 * the engine compiled here has no gang-only step. */
	return rt_next_chunk(root, iter, flags & ~RT_ITER_NO_BITMAP, NULL, __func__);
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
	/* Both may be freed once the section ends. */
	iter->parent = NULL;
	iter->above = NULL;
	iter->parent_spent = 0;
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
 * The positions of C node @node (@n entries, sorted run [0, @s)) to emit
 * after the sorted run's: those of the appended tail whose suffix is
 * >= @key and that are wanted (@want), in key order; a later position
 * first among equal suffixes (a child's tombstone, then an item of the key
 * the child was stored with).
 * Returns how many.
 */
#define RT_TAIL_SORT(type)                                                             \
	do {                                                                           \
		const type *sfxs = (const type *)(const void *)node->data;             \
		for (; todo; todo &= todo - 1) {                                       \
			unsigned int i = (unsigned int)__builtin_ctzl(todo), j;        \
			if (sfxs[i] < key)                                             \
				continue;                                              \
			for (j = nt++; j > 0 && sfxs[out[j - 1]] >= sfxs[i]; j--)      \
				out[j] = out[j - 1];                                   \
			out[j] = (uint8_t)i;                                           \
		}                                                                      \
	} while (0)

static inline __attribute__((always_inline)) unsigned int
rt_tail_sorted(const struct rt_cnode *node, unsigned int w, unsigned int s, unsigned int n,
	       unsigned long key, unsigned long want, uint8_t *out)
{
	unsigned long todo = rt_pos_range(s, n) & want;
	unsigned int nt = 0;

	switch (w) {
	case 1:
		RT_TAIL_SORT(uint8_t);
		break;
	case 2:
		RT_TAIL_SORT(uint16_t);
		break;
	case 4:
		RT_TAIL_SORT(uint32_t);
		break;
	default:
		RT_TAIL_SORT(uint64_t);
		break;
	}
	return nt;
}

/* How a gang lookup's collection in a node stopped. */
enum rt_gang_stop {
	RT_GANG_FULL,    /* @max items taken */
	RT_GANG_END,     /* at the node's end: iter->next_index is after its
			  * range (iter->done: the key space's end) */
	RT_GANG_ENGINE,  /* the engine goes on from the iterator: before a
			  * child the collection does not enter, or from the
			  * root after a dead node (iter->parent NULL) */
};

static unsigned long rt_gang_cnode(struct radix_tree_iter *iter, int tag, void **items,
				   void ***slots, unsigned long *indices, unsigned long n,
				   unsigned int max, enum rt_gang_stop *stop);

/*
 * A chunk from a compact node (iter->parent): rather than one run at a
 * time, collect every wanted item of the node from the chunk's key on, in
 * key order, merging the sorted run (from its lower bound) with the
 * appended tail sorted here.  A compact child whose range starts at or
 * after the keys already passed is collected in place, from its first
 * key, as the engine would hand it over (rt_chunk_node()).  Keys only
 * ascend: an item whose key is not above the last one collected, or a
 * child whose range ends below it, is passed over, so that the results
 * stay in key order whatever writers do between two loads.  Stops
 *  - at @max;
 *  - before any other child: the walk goes on at its first key (in the
 *    node);
 *  - at a NULL slot in a dead node (its items moved to the copy): the
 *    walk looks again from that key, from the root;
 *  - at the node's end: the walk goes on after the node's range; but if
 *    the node is dead by then, it looks again from the key after the last
 *    one taken, from the root.  A miss is reported only from a node seen
 *    alive: the node may have been copied before this reader came (the
 *    engine hands a compact child over unsearched, and so does this
 *    collection), and items appended to the copy are not here.
 * A NULL slot in a live node was deleted and is skipped.
 */
static inline __attribute__((always_inline)) unsigned long
rt_gang_cnode_w(struct radix_tree_iter *iter, unsigned int w, int tag, void **items,
		void ***slots, unsigned long *indices, unsigned long n, unsigned int max,
		enum rt_gang_stop *stop)
{
	void *self = iter->parent;
	struct rt_cnode *node = rt_entry_cnode(self);
	unsigned int level = node->level;
	unsigned int cnt = rt_cnode_next_rcu(node), s = rt_cnode_sorted_rcu(node, cnt);
	void **nslots = rt_cnode_slots_w(node, w);
	const uint8_t *tags = rt_cnode_tags_w(node, w);
	unsigned long base = iter->index & ~rt_level_maxindex(level), key = iter->index - base;
	unsigned long want = tag >= 0 ? rt_ctag_bits(tags, cnt, (unsigned int)tag)
				      : rt_pos_range(0, cnt);
	unsigned long run, next = iter->index, k;
	unsigned int hint = (unsigned int)(iter->chunk - nslots), nt, ti = 0, i;
	uint8_t tail[RT_C_MAX_ENTRIES];

	/* The chunk's run may have ended the walk at ULONG_MAX: decided
	 * again below, since this stops wherever the node says. */
	iter->done = 0;
	*stop = RT_GANG_FULL;
	run = rt_pos_range(rt_sorted_lower_bound(node, w, s, key, hint), s) & want;
	nt = rt_tail_sorted(node, w, s, cnt, key, want, tail);
	while (n < max) {
		void *e;

		if (run && (ti == nt || rt_sfx_get(node, w, (unsigned int)__builtin_ctzl(run)) <
						rt_sfx_get(node, w, tail[ti]))) {
			i = (unsigned int)__builtin_ctzl(run);
			run &= run - 1;
		} else if (ti < nt) {
			i = tail[ti++];
		} else if (rt_cnode_dead_rcu(node)) {
			/* The node's end, in a node that was copied: its
			 * copy may hold more from @next on.  From the root. */
			iter->parent = NULL;
			*stop = RT_GANG_ENGINE;
			break;
		} else {
			/* The node's end: on after its range. */
			next = (base | rt_level_maxindex(level)) + 1;
			iter->done = next == 0;
			*stop = RT_GANG_END;
			break;
		}
		k = base | rt_sfx_get(node, w, i);
		e = rt_entry_rcu(nslots[i]);
		if (!e) {
			if (k >= next && rt_cnode_dead_rcu(node)) {
				next = k;
				iter->parent = NULL;
				*stop = RT_GANG_ENGINE;
				break;
			}
			continue;
		}
		if (rt_is_internal(e)) {
			unsigned long first = k & ~rt_level_maxindex(rt_entry_level(e));

			if ((k | rt_level_maxindex(rt_entry_level(e))) < next)
				continue;
			if (first >= next && rt_entry_compact(e) && rt_chunk_node_from(e, first)) {
				rt_chunk_node(iter, rt_entry_cnode(e), first);
				n = rt_gang_cnode(iter, tag, items, slots, indices, n, max, stop);
				if (*stop != RT_GANG_END || iter->done)
					return n;
				next = iter->next_index;
				iter->parent = self;
				*stop = RT_GANG_FULL;
				continue;
			}
			next = first > next ? first : next;
			iter->run_end = &nslots[i];
			*stop = RT_GANG_ENGINE;
			break;
		}
		if (k < next)
			continue;
		rt_gang_store(items, slots, indices, n++, e, &nslots[i], k);
		iter->index = k;
		next = k + 1;
		if (next == 0) {
			iter->done = 1;
			*stop = RT_GANG_END;
			break;
		}
	}
	iter->next_index = next;
	return n;
}

/* rt_gang_cnode_w() compiled once per suffix width. */
static unsigned long rt_gang_cnode(struct radix_tree_iter *iter, int tag, void **items,
				   void ***slots, unsigned long *indices, unsigned long n,
				   unsigned int max, enum rt_gang_stop *stop)
{
	switch (rt_sfx_width(rt_entry_cnode(iter->parent)->level)) {
	case 1:
		return rt_gang_cnode_w(iter, 1, tag, items, slots, indices, n, max, stop);
	case 2:
		return rt_gang_cnode_w(iter, 2, tag, items, slots, indices, n, max, stop);
	case 4:
		return rt_gang_cnode_w(iter, 4, tag, items, slots, indices, n, max, stop);
	default:
		return rt_gang_cnode_w(iter, 8, tag, items, slots, indices, n, max, stop);
	}
}

/*
 * The collection reached the end of a compact node that the engine handed
 * over: go on in the node above it (@above), from iter->next_index, as the
 * engine would, without a descent or a search per child.
 *  - A compact node above (alive: a dead one sends the engine to the
 *    root): collect the rest of it; its children are collected in place.
 *  - A full node above (it stays readable, see rt_next_chunk()): each
 *    wanted compact child from its first key, one after the other; a full
 *    child is left to the engine, which goes on from @above.
 * The node above that node is not known: at the end the engine starts
 * again from the root.
 */
static unsigned long rt_gang_up(struct radix_tree_iter *iter, struct rt_above *above, int tag,
				void **items, void ***slots, unsigned long *indices,
				unsigned long n, unsigned int max, unsigned int flags)
{
	void *up = above->entry;
	unsigned int level = rt_entry_level(up), offset, found;
	unsigned long next = iter->next_index, bits, end;
	enum rt_gang_stop stop;
	struct rt_node *node;

	if (!next || ((next ^ iter->index) & ~rt_level_maxindex(level)))
		return n;
	if (rt_entry_compact(up)) {
		if (rt_cnode_dead_rcu(rt_entry_cnode(up)))
			return n;
		above->entry = NULL;
		iter->parent = up;
		iter->index = next;
		iter->chunk = rt_cnode_slots(rt_entry_cnode(up)) + above->pos + 1;
		return rt_gang_cnode(iter, tag, items, slots, indices, n, max, &stop);
	}
	node = rt_entry_node(up);
	end = (next | rt_level_maxindex(level)) + 1;
	for (offset = rt_offset(next, level); n < max; offset = found + 1) {
		void *child;

		found = offset < RT_MAP_SIZE ? rt_next_wanted(node, level, offset, tag, flags, &bits)
					     : RT_MAP_SIZE;
		if (found == RT_MAP_SIZE) {
			/* Nothing left in it: the engine goes on after its
			 * range, from the root. */
			above->entry = NULL;
			iter->next_index = end;
			iter->done = end == 0;
			return n;
		}
		next = rt_index_at(next, level, found);
		child = rt_entry_rcu(node->slots[found]);
		if (!child)
			continue;  /* a stale tag or a concurrent delete */
		if (!rt_entry_compact(child) || !rt_chunk_node_from(child, next)) {
			/* The engine takes it from @above. */
			iter->parent = NULL;
			iter->next_index = next;
			return n;
		}
		rt_chunk_node(iter, rt_entry_cnode(child), next);
		n = rt_gang_cnode(iter, tag, items, slots, indices, n, max, &stop);
		if (stop != RT_GANG_END || iter->done)
			return n;
		next = iter->next_index;
	}
	return n;
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
	struct rt_above above = { NULL, 0 };
	unsigned long n = 0;  /* a full word: no zero-extension per item */
	void **slot;

	if (!root || !max)
		return 0;
	rt_reader_check(root, fn);
	radix_tree_iter_init(&iter, first);
	while (n < max && (slot = rt_next_chunk(root, &iter, flags | RT_ITER_NO_BITMAP, &above, fn))) {
		/* No parent: a top leaf's chunk, or the root item's. */
		if (caa_unlikely(!iter.parent) && slot == (void **)&root->rnode) {
			/* The root item's chunk: the one load of its slot
			 * finds the item, NULL, or a node if the tree grew
			 * since; then the walk starts again at key 0. */
			void *item = rt_entry_rcu(*slot);

			if (rt_is_internal(item))
				iter.next_index = 0;
			else if (item)
				rt_gang_store(items, slots, indices, n++, item, slot, 0);
			continue;
		}
		if (caa_unlikely(iter.parent && rt_entry_compact(iter.parent))) {
			int tag = flags & RADIX_TREE_ITER_TAGGED
					  ? (int)(flags & RADIX_TREE_ITER_TAG_MASK)
					  : -1;
			enum rt_gang_stop stop;

			n = rt_gang_cnode(&iter, tag, items, slots, indices, n, max, &stop);
			if (stop == RT_GANG_END && !iter.done && above.entry)
				n = rt_gang_up(&iter, &above, tag, items, slots, indices, n, max,
					       flags | RT_ITER_NO_BITMAP);
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

/*
 * Each chunk's bitmap stands for its keys from the chunk's first slot on:
 * one popcount counts a full leaf, or a compact node's run.  The chunk
 * that reaches past @last is masked at it.
 */
RCURADIX_API unsigned long radix_tree_count_range(const struct radix_tree_root *root,
						  unsigned long first, unsigned long last)
{
	struct radix_tree_iter iter;
	unsigned long count = 0;

	if (!root || first > last)
		return 0;
	rt_reader_check(root, __func__);
	radix_tree_iter_init(&iter, first);
	while (radix_tree_next_chunk(root, &iter, 0)) {
		unsigned long key0 = radix_tree_iter_key(&iter, iter.chunk), bits = iter.tags;

		if (iter.index > last)
			break;
		if (last - key0 < RT_BITS_PER_LONG - 1)
			bits &= (2UL << (last - key0)) - 1;
		count += (unsigned long)__builtin_popcountl(bits);
		if (iter.next_index == 0 || iter.next_index > last)
			break;
	}
	return count;
}
