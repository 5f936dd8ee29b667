/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * descend.h - the descent: the one place that knows how an index selects a
 * path from the root to a slot, through full and compact nodes, for readers
 * and writers alike.
 */
#ifndef RCURADIX_DESCEND_H
#define RCURADIX_DESCEND_H

#include <string.h>

#include "base.h"

struct rt_path_step {
	void *entry;         /* the node's entry: kind and level */
	unsigned long base;  /* the node's first key */
	int pos;             /* F: the offset taken; C: the entry found, or -1 */
};

/* How a writer's descent ended. */
enum rt_end {
	RT_END_SLOT,     /* at an F leaf slot (maybe empty) or a C item */
	RT_END_EMPTY,    /* at an empty slot of an F node above the leaves, or
			  * an empty tree (depth 0) */
	RT_END_ABOVE,    /* the key lies beyond the top node's range */
	RT_END_DIVERGE,  /* at a C child entry whose prefix the key leaves */
	RT_END_ABSENT,   /* in a C node that has no entry for the key */
	RT_END_ROOT,     /* at the root item's slot, &root->rnode (depth 0) */
};

/* The nodes a writer went through on the way to @index, top first. */
struct rt_path {
	struct rt_path_step step[RT_MAX_LEVELS];
	unsigned int depth;  /* steps recorded */
	enum rt_end end;
};

/* The deepest step of a path. */
static inline struct rt_path_step *rt_path_leaf(struct rt_path *path)
{
	return &path->step[path->depth - 1];
}

/* The slot of a path step: an F slot at its offset, a C entry's slot. */
static inline void **rt_step_slot(const struct rt_path_step *step)
{
	if (rt_entry_compact(step->entry))
		return &rt_cnode_slots(rt_entry_cnode(step->entry))[step->pos];
	return &rt_entry_node(step->entry)->slots[step->pos];
}

/* The slot a writer's descent ended at: a leaf's or a C item's
 * (RT_END_SLOT), or the root item's (RT_END_ROOT); NULL at other ends. */
static inline void **rt_path_slot(struct radix_tree_root *root, struct rt_path *path)
{
	if (path->end == RT_END_ROOT)
		return &root->rnode;
	return path->end == RT_END_SLOT ? rt_step_slot(rt_path_leaf(path)) : NULL;
}

/* A reader's load of a C node's entry count, then of its dead mark. */
static inline unsigned int rt_cnode_next_rcu(const struct rt_cnode *node)
{
	/* Acquire: the entries below it were written before it was raised. */
	return __atomic_load_n(&node->next, __ATOMIC_ACQUIRE);
}

/* The entries of C node @node whose slot is not NULL: counted, the writer
 * keeps no count (struct rt_cnode's deleted says why).  Tree lock held. */
static inline unsigned int rt_cnode_live(const struct radix_tree_root *root,
					 const struct rt_cnode *node)
{
	void **slots;
	unsigned int i, n = 0;

	if (!node->deleted)
		return node->next;  /* no tombstone */
	slots = rt_cnode_slots(node);
	for (i = 0; i < node->next; i++)
		n += rt_entry_locked(root, slots[i]) != NULL;
	return n;
}

/* A reader's sorted run of a C node whose entry count it loaded as @n. */
static inline unsigned int rt_cnode_sorted_rcu(const struct rt_cnode *node, unsigned int n)
{
	/* Relaxed: any value the writer stored is a sorted run of the
	 * entries it covered, and those are below the @n loaded with acquire
	 * once clamped (an append may have raised both since). */
	unsigned int sorted = __atomic_load_n(&node->sorted, __ATOMIC_RELAXED);

	return sorted < n ? sorted : n;
}

static inline bool rt_cnode_dead_rcu(const struct rt_cnode *node)
{
	/* Called after a slot read NULL.  The writer marks the node dead,
	 * then empties its item slots: the read barrier orders our slot loads
	 * before this one, so a NULL that came from the retirement is seen
	 * together with the mark. */
	cmm_smp_rmb();
	return __atomic_load_n(&node->dead, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Matching suffixes: for the positions below @n of C node @node, whose
 * suffixes are @w bytes wide (1, 2, 4, or 8: compared one by one; the
 * readers search those by their sorted run, rt_cnode_find_w8()), the
 * bitmaps (bit i: position i) of the suffixes equal to @value (@how
 * RT_SFX_EXACT), of those equal to it under @mask (RT_SFX_DIGIT), or both
 * in one pass (RT_SFX_BOTH: the exact ones returned, the others in
 * *@same_digit).  Where SSE2 is there (1, 2 and 4 bytes): sixteen
 * entries at a time, for every block that lies inside the node (the bytes
 * after the last entry are other arrays of the node, read and masked off),
 * and the rest one by one; but the 4-byte suffixes of a node of one line
 * (a top node above a few children: it holds no block of sixteen, and
 * at most three entries) in one vector.  Callers pass @w and @how as
 * constants: each use compiles to one width's code.
 */
enum rt_sfx_how { RT_SFX_EXACT, RT_SFX_DIGIT, RT_SFX_BOTH };

#ifdef __SSE2__
static inline __attribute__((always_inline)) __m128i rt_sse_set1(unsigned int w,
								  unsigned long x)
{
	return w == 1 ? _mm_set1_epi8((char)x)
	       : w == 2 ? _mm_set1_epi16((short)x)
			: _mm_set1_epi32((int)x);
}

static inline __attribute__((always_inline)) __m128i rt_sse_cmpeq(unsigned int w, __m128i x,
								   __m128i y)
{
	return w == 1 ? _mm_cmpeq_epi8(x, y) : w == 2 ? _mm_cmpeq_epi16(x, y) : _mm_cmpeq_epi32(x, y);
}

/* One bit per entry of the @nv vectors of compares @r: a block of
 * sixteen entries (@nv == @w), or one vector of 4-byte suffixes. */
static inline __attribute__((always_inline)) unsigned long
rt_sse_bits(unsigned int w, unsigned int nv, const __m128i *r)
{
	if (nv == 1 && w == 4)
		return (unsigned int)_mm_movemask_ps(_mm_castsi128_ps(r[0]));
	if (w == 1)
		return (unsigned int)_mm_movemask_epi8(r[0]);
	if (w == 2)
		return (unsigned int)_mm_movemask_epi8(_mm_packs_epi16(r[0], r[1]));
	return (unsigned int)_mm_movemask_epi8(
		_mm_packs_epi16(_mm_packs_epi32(r[0], r[1]), _mm_packs_epi32(r[2], r[3])));
}

/* rt_sfx_match() of the @nv vectors at @p. */
static inline __attribute__((always_inline)) unsigned long
rt_sfx_vec_match(const unsigned char *p, unsigned int w, unsigned int nv, __m128i want,
		 __m128i mask, __m128i want_digit, enum rt_sfx_how how, unsigned long *same_digit)
{
	__m128i r[4], d[4];

#pragma GCC unroll 4
	for (unsigned int j = 0; j < nv; j++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p + j);

		if (how != RT_SFX_DIGIT)
			r[j] = rt_sse_cmpeq(w, x, want);
		if (how != RT_SFX_EXACT)
			d[j] = rt_sse_cmpeq(w, _mm_and_si128(x, mask), want_digit);
	}
	if (how == RT_SFX_DIGIT)
		return rt_sse_bits(w, nv, d);
	if (how == RT_SFX_BOTH)
		*same_digit = rt_sse_bits(w, nv, d);
	return rt_sse_bits(w, nv, r);
}
#endif

static inline __attribute__((always_inline)) unsigned long
rt_sfx_match(const struct rt_cnode *node, unsigned int w, unsigned int n, unsigned long value,
	     unsigned long mask, enum rt_sfx_how how, unsigned long *same_digit)
{
	unsigned long bits = 0, dbits = 0, low = n < RT_BITS_PER_LONG ? (1UL << n) - 1 : ~0UL;
	unsigned int i = 0;

#ifdef __SSE2__
	if (w != 8) {
		__m128i want = rt_sse_set1(w, value), k = rt_sse_set1(w, mask);
		__m128i want_digit = rt_sse_set1(w, value & mask);
		unsigned int room, stop;

		room = (unsigned int)(rt_cnode_bytes(node) - RT_C_HEADER) / w;
		/* No block of sixteen 4-byte suffixes fits a node of one line;
		 * its entries fit one vector.  Decided by the node's size, not
		 * by @n: a size class is a branch predicted more often. */
		_Static_assert(RT_NODE_ALIGN - RT_C_HEADER >= 16, "a vector fits any C node");
		if (w == 4 && room < 16) {
			rt_assert(n <= 4);
			bits = rt_sfx_vec_match(node->data, w, 1, want, k, want_digit, how, &dbits);
			if (how == RT_SFX_BOTH)
				*same_digit = dbits & low;
			return bits & low;
		}
		/* Blocks start below both bounds: holding an entry, inside the node. */
		stop = room > 15 ? (n < room - 15 ? n : room - 15) : 0;
		for (; i < stop; i += 16) {
			unsigned long d = 0;

			bits |= rt_sfx_vec_match(node->data + (size_t)i * w, w, w, want, k,
						 want_digit, how, &d)
				<< i;
			dbits |= d << i;
		}
		bits &= low;
		dbits &= low;
	}
#endif
	for (; i < n; i++) {
		unsigned long sfx = rt_sfx_get(node, w, i);

		if (how == RT_SFX_DIGIT)
			bits |= (unsigned long)((sfx & mask) == (value & mask)) << i;
		else
			bits |= (unsigned long)(sfx == value) << i;
		if (how == RT_SFX_BOTH)
			dbits |= (unsigned long)((sfx & mask) == (value & mask)) << i;
	}
	if (how == RT_SFX_BOTH)
		*same_digit = dbits;
	return bits;
}

/*
 * The lower bound of @sfx among the first @s (> 0) 8-byte suffixes
 * @sfxs of a node at @level, searched from a guess.  Keys that spread
 * evenly over the node's range put it near (top byte of @sfx) * s / 256,
 * and the run's suffixes are read from there, one line or two, instead
 * of the log2(s) lines a binary search loads one after the other.  Keys
 * that do not spread evenly (runs, clusters) cost at most
 * RT_GUESS_STEPS steps more than the binary search the rest is left to.
 */
#define RT_GUESS_STEPS 8U

static inline __attribute__((always_inline)) unsigned int
rt_w8_lower_bound(const uint64_t *sfxs, unsigned int s, unsigned long sfx, unsigned int level)
{
	unsigned int top = RT_LEVEL_BITS(level) - 8;
	unsigned int p = (unsigned int)(((sfx >> top) * s) >> 8), lo, len, steps = 0;

	if (sfxs[p] < sfx) {
		for (lo = p + 1; lo < s && sfxs[lo] < sfx; lo++)
			if (++steps == RT_GUESS_STEPS)
				goto search_up;
		return lo;
	}
	for (; p > 0 && sfxs[p - 1] >= sfx; p--)
		if (++steps == RT_GUESS_STEPS)
			goto search_down;
	return p;
search_up:
	/* sfxs[lo] < sfx: the bound is in [lo + 1, s]. */
	lo++;
	len = s - lo;
	goto search;
search_down:
	/* sfxs[p - 1] >= sfx: the bound is in [0, p - 1]. */
	lo = 0;
	len = p - 1;
search:
	while (len > 0) {
		unsigned int half = len / 2;

		if (sfxs[lo + half] < sfx) {
			lo += half + 1;
			len -= half + 1;
		} else {
			len = half;
		}
	}
	return lo;
}

/*
 * The first position of the sorted run [0, @s) of C node @node whose suffix
 * is >= @key, or @s if none.  @hint, where the walk's previous run ended,
 * is tried first: a walk going on in the node asks for the key after that
 * run, whose entry usually sits at the next position.  Otherwise a
 * binary search without branches on the data (a conditional move a step),
 * or, for 8-byte suffixes, rt_w8_lower_bound().
 */
#define RT_HINT_IS_BOUND(sfxs)                                                         \
	(hint <= s && (hint == 0 || (sfxs)[hint - 1] < key) && (hint == s || (sfxs)[hint] >= key))

#define RT_SORTED_LOWER_BOUND(type)                                                    \
	do {                                                                           \
		const type *sfxs = (const type *)(const void *)node->data;             \
		const type *first = sfxs;                                              \
		unsigned int len = s;                                                  \
		if (RT_HINT_IS_BOUND(sfxs))                                            \
			return hint;                                                   \
		if (len == 0)                                                          \
			return 0;                                                      \
		while (len > 1) {                                                      \
			unsigned int half = len / 2;                                   \
			first = first[half] < key ? first + half : first;              \
			len -= half;                                                   \
		}                                                                      \
		return (unsigned int)(first - sfxs) + (*first < key);                  \
	} while (0)

static inline __attribute__((always_inline)) unsigned int
rt_sorted_lower_bound(const struct rt_cnode *node, unsigned int w, unsigned int s, unsigned long key,
		      unsigned int hint)
{
	switch (w) {
	case 1:
		RT_SORTED_LOWER_BOUND(uint8_t);
	case 2:
		RT_SORTED_LOWER_BOUND(uint16_t);
	case 4:
		RT_SORTED_LOWER_BOUND(uint32_t);
	default: {
		/* Keys this wide spread out: from a guess, not a search. */
		const uint64_t *sfxs = (const uint64_t *)(const void *)node->data;

		if (RT_HINT_IS_BOUND(sfxs))
			return hint;
		return s ? rt_w8_lower_bound(sfxs, s, key, node->level) : 0;
	}
	}
}

/*
 * rt_cnode_find() by the sorted run: a binary search there, then the tail
 * one entry at a time, stopping at the first live candidate.  The
 * candidates are those of rt_cnode_find().  In the run, the entries
 * sharing @sfx's digit sit together, and a run built with a child of that
 * digit held nothing else of it (appends that extend the run hold items,
 * and only once the child is gone): so the exact entry is at the lower
 * bound, and a live child of the digit is there or just before it.  For
 * 8-byte suffixes (SSE2 has no 64-bit compare: the search executes fewer
 * instructions than a scan, in callgrind 20% fewer per lookup of uniform
 * 64-bit keys).  Narrower suffixes are scanned sixteen at a time: the
 * scan reads the suffix lines in parallel where the search's dependent
 * loads wait for each other, and measured it is faster even when it
 * executes more instructions.
 */
/* Is entry @i of a C node with 8-byte suffixes @sfxs a live candidate for
 * @sfx?  *@found gets its entry. */
static inline bool rt_w8_candidate(const struct radix_tree_root *root, const uint64_t *sfxs,
				   void **slots, unsigned int i, unsigned long sfx,
				   unsigned long mask, void **found)
{
	bool exact = sfxs[i] == sfx;
	void *e;

	if (!exact && ((sfxs[i] ^ sfx) & mask))
		return false;
	/* Sharing the digit only: a child is the answer, an item is not.
	 * The slot tells which (a position keeps its kind; NULL is neither),
	 * and the slot is loaded anyway when it is the answer: the tag
	 * byte's line is not. */
	e = root ? rt_entry_locked(root, slots[i]) : rt_entry_rcu(slots[i]);
	if (!e || (!exact && !rt_is_internal(e)))
		return false;
	*found = e;
	return true;
}

static inline __attribute__((always_inline)) int
rt_cnode_find_w8(const struct radix_tree_root *root, const struct rt_cnode *node,
		 unsigned int level, unsigned long sfx, void **found)
{
	const uint64_t *sfxs = (const uint64_t *)(const void *)node->data;
	unsigned int n = root ? node->next : rt_cnode_next_rcu(node);
	unsigned int s = root ? node->sorted : rt_cnode_sorted_rcu(node, n), p, i;
	unsigned long mask = ~rt_level_maxindex(level - 1);
	void **slots = rt_cnode_slots_w(node, 8);

	p = s ? rt_w8_lower_bound(sfxs, s, sfx, level) : 0;
	if (!node->children) {
		/* Items only: in the run, the exact entry is at the bound. */
		if (p < s && sfxs[p] == sfx && rt_w8_candidate(root, sfxs, slots, p, sfx, 0, found))
			return (int)p;
		for (i = s; i < n; i++)
			if (sfxs[i] == sfx && rt_w8_candidate(root, sfxs, slots, i, sfx, 0, found))
				return (int)i;
		return -1;
	}
	/* The exact entry, or a child of the digit stored with a larger
	 * prefix, is at the bound; a child stored with a smaller one just
	 * before it. */
	if (p < s && rt_w8_candidate(root, sfxs, slots, p, sfx, mask, found))
		return (int)p;
	if (p > 0 && rt_w8_candidate(root, sfxs, slots, p - 1, sfx, mask, found))
		return (int)p - 1;
	for (i = s; i < n; i++)
		if (rt_w8_candidate(root, sfxs, slots, i, sfx, mask, found))
			return (int)i;
	return -1;
}

/* The first position of @bits whose slot holds an entry; *@found gets it. */
static inline int rt_cnode_first_live(const struct radix_tree_root *root, void **slots,
				      unsigned long bits, void **found)
{
	for (; bits; bits &= bits - 1) {
		unsigned int i = (unsigned int)__builtin_ctzl(bits);
		void *e = root ? rt_entry_locked(root, slots[i]) : rt_entry_rcu(slots[i]);

		if (e) {
			*found = e;
			return (int)i;
		}
	}
	return -1;
}

/* Does C node @node hold nothing but tombstones?  Tree lock held. */
static inline bool rt_cnode_empty(const struct radix_tree_root *root, const struct rt_cnode *node)
{
	unsigned int n = node->next;
	void *found;

	if (!node->deleted)
		return n == 0;  /* no tombstone */
	return rt_cnode_first_live(root, rt_cnode_slots(node),
				   n < RT_BITS_PER_LONG ? (1UL << n) - 1 : ~0UL, &found) < 0;
}

/*
 * rt_cnode_find() - the entry of C node @node (at @level) for key suffix
 * @sfx: a live item whose suffix is @sfx, or the live child entry that
 * shares @sfx's digit; *@found gets the item or child entry as loaded.
 * Returns its position, or -1.  A reader (@root NULL) may meet a retired
 * node: -1 then means "check dead".
 * The candidates: the entries whose suffix is @sfx (an item, or a child
 * stored with that prefix), then the children that share its digit (told
 * by their kind bits; by their slots where suffixes are 8 bytes, see
 * rt_w8_candidate()); live entries never share a digit with a child, so at most one
 * candidate is live.  Only candidates' slots are loaded; a tombstone is
 * passed over (a child's tombstone may share the suffix of an item
 * appended further on).
 * Suffixes of 1, 2 or 4 bytes are scanned (rt_cnode_find_scan()) by what
 * the node was built with (its count of children): items only, for the
 * exact suffix; children only, under the digit's mask; mostly children,
 * both in one pass; mostly items, for the exact suffix, then under the
 * digit's mask if no exact entry is live.
 */
static inline __attribute__((always_inline)) int
rt_cnode_find_scan(const struct radix_tree_root *root, const struct rt_cnode *node,
		   unsigned int w, unsigned int level, unsigned long sfx, void **found)
{
	unsigned int n = root ? node->next : rt_cnode_next_rcu(node);
	unsigned int children = node->children;
	void **slots = rt_cnode_slots_w(node, w);
	unsigned long digit_mask, exact, others;
	int pos;

	if (!children)  /* items only: a leaf, or a node built without children */
		return rt_cnode_first_live(
			root, slots, rt_sfx_match(node, w, n, sfx, 0, RT_SFX_EXACT, NULL), found);
	digit_mask = ~rt_level_maxindex(level - 1);
	if (children == n)  /* children only: at most one shares the digit */
		return rt_cnode_first_live(
			root, slots, rt_sfx_match(node, w, n, sfx, digit_mask, RT_SFX_DIGIT, NULL),
			found);
	if (2 * children >= n) {
		/* Mostly children: the two bitmaps in one pass. */
		exact = rt_sfx_match(node, w, n, sfx, digit_mask, RT_SFX_BOTH, &others);
		pos = rt_cnode_first_live(root, slots, exact, found);
		if (pos >= 0)
			return pos;
	} else {
		/* Mostly items: the exact one, usually. */
		exact = rt_sfx_match(node, w, n, sfx, 0, RT_SFX_EXACT, NULL);
		pos = rt_cnode_first_live(root, slots, exact, found);
		if (pos >= 0)
			return pos;
		others = rt_sfx_match(node, w, n, sfx, digit_mask, RT_SFX_DIGIT, NULL);
	}
	/* Sharing the digit but not the suffix: a child of the digit, if any. */
	others &= ~exact & rt_ctag_bits(rt_cnode_tags_w(node, w), n, RT_CTAG_CHILD_BIT);
	return rt_cnode_first_live(root, slots, others, found);
}

static inline __attribute__((always_inline)) int
rt_cnode_find(const struct radix_tree_root *root, const struct rt_cnode *node,
	      unsigned int level, unsigned long sfx, void **found)
{
	switch (rt_sfx_width(level)) {
	case 1:
		return rt_cnode_find_scan(root, node, 1, level, sfx, found);
	case 2:
		return rt_cnode_find_scan(root, node, 2, level, sfx, found);
	case 4:
		return rt_cnode_find_scan(root, node, 4, level, sfx, found);
	default:
		return rt_cnode_find_w8(root, node, level, sfx, found);
	}
}

/* rt_cnode_find() for writers (tree lock held): one copy out of line, the
 * writers' descents being many and their nodes' searches not the cost. */
static __attribute__((noinline, unused)) int
rt_cnode_find_locked(const struct radix_tree_root *root, const struct rt_cnode *node,
		     unsigned int level, unsigned long sfx, void **found)
{
	return rt_cnode_find(root, node, level, sfx, found);
}

/* Does @index (suffix @sfx in its parent) lie under the child entry @child
 * stored with prefix @prefix? */
static inline bool rt_prefix_match(unsigned long prefix, unsigned long sfx, const void *child)
{
	return ((prefix ^ sfx) & ~rt_level_maxindex(rt_entry_level(child))) == 0;
}

/*
 * The full nodes of a reader's descent that ended in an F leaf, by level:
 * node[l] is the F node at level l on the key's path, for l in [0, top],
 * where node[top] is the root's node (@whole) or hangs from a compact
 * node.  rt_spine_step() goes on from them to the next leaf.
 */
struct rt_spine {
	struct rt_node *node[RT_MAX_LEVELS];
	unsigned int top;
	bool whole;
};

/*
 * The end of a descent at the root item @top (internal.h, "IDR trees"):
 * key 0's slot is the root's own; every other key lies beyond its range.
 * *@at gets a step with no node (entry NULL).
 */
static inline void **rt_descend_root_item(const struct radix_tree_root *root, unsigned long index,
					  struct rt_path *path, void **item,
					  struct rt_path_step *at, void *top)
{
	if (path)
		path->end = index ? RT_END_ABOVE : RT_END_ROOT;
	if (index)
		return NULL;
	if (item)
		*item = top;
	if (at)
		*at = (struct rt_path_step){ NULL, 0, 0 };
	return (void **)&root->rnode;
}

/*
 * rt_descend_from_spine() - the slot for @index, or NULL if the tree has none;
 * *@at (if given) gets the node holding it and the slot's position.
 * Starts at the root, or (a reader) at @entry, a node on @index's path.
 * A reader passes @path NULL and loads with rt_entry_rcu(), and gets in
 * *@item the item the slot held when it was read (a C slot may read NULL
 * a moment later, once its node is copied); a writer (tree
 * lock held) passes @path, loads with rt_entry_locked(), and receives every
 * node passed, top first, with how the descent ended (path->end).
 * The reader's slot holds an item or NULL (F leaves: maybe NULL; C nodes:
 * the item's slot); the writer's is an F leaf slot (maybe empty) or a C
 * item's slot.
 * Readers: a compact node that was copied is retired: dead, then its item
 * slots emptied.  A reader that finds nothing in a dead node looks again
 * from the root; a miss is reported only from a node seen alive after its
 * slots were read, so an item present throughout is always found.  F nodes
 * never move; an F child sits one level below its parent, so an F level's
 * step is load -> mask -> load.
 * A reader may pass @spine: when a slot of an F leaf is returned, it holds
 * the chain of F nodes above that leaf, up to the root's node or to the
 * last compact node passed (rt_descend_from() passes NULL: no cost).
 * Context: RCU reader (@path NULL), or tree lock held.
 */
static inline __attribute__((always_inline)) void **
rt_descend_from_spine(const struct radix_tree_root *root, unsigned long index,
		      struct rt_path *path, void **item, struct rt_path_step *at, void *entry,
		      struct rt_spine *spine)
{
	unsigned long base = 0;
	unsigned int level;
	bool from_root = false, chain = false;  /* chain: the last node was F */

	if (entry) {
		/* A reader's fast path handed over at this node, or at the
		 * root item, which it does not tell from a compact node. */
		if (rt_root_item(entry))
			return rt_descend_root_item(root, index, path, item, at, entry);
		level = rt_entry_level(entry);
		if (at)
			base = index & ~rt_level_maxindex(level);
		goto descend;
	}
restart:
	from_root = true;
	chain = false;
	entry = path ? rt_entry_locked(root, root->rnode) : rt_entry_rcu(root->rnode);
	if (path) {
		path->depth = 0;
		path->end = RT_END_EMPTY;
	}
	if (!entry)
		return NULL;
	if (rt_root_item(entry))
		return rt_descend_root_item(root, index, path, item, at, entry);
	level = rt_entry_level(entry);
	if (index > rt_level_maxindex(level)) {
		if (path)
			path->end = RT_END_ABOVE;
		return NULL;
	}
	base = 0;
descend:
	for (;;) {
		struct rt_cnode *cnode;
		unsigned long sfx;
		void *child = NULL;  /* the entry found: an item or a child */
		int pos;

		if (caa_likely(!rt_entry_compact(entry))) {
			struct rt_node *node = rt_entry_node(entry);
			unsigned int offset = rt_offset(index, level);

			if (path)
				path->step[path->depth++] =
					(struct rt_path_step){ entry, base, (int)offset };
			if (spine) {
				if (!chain) {
					spine->top = level;
					spine->whole = from_root;
				}
				spine->node[level] = node;
			}
			chain = true;
			from_root = false;
			if (level == 0) {
				if (path)
					path->end = RT_END_SLOT;
				if (item)
					*item = path ? rt_entry_locked(root, node->slots[offset])
						     : rt_entry_rcu(node->slots[offset]);
				if (at)
					*at = (struct rt_path_step){ entry, base, (int)offset };
				return &node->slots[offset];
			}
			entry = path ? rt_entry_locked(root, node->slots[offset])
				     : rt_entry_rcu(node->slots[offset]);
			if (!entry)
				return NULL;  /* path->end: RT_END_EMPTY */
			/* An F node's child sits one level down (verify checks
			 * it), so its base and level follow from the index
			 * (the base is wanted only for the path). */
			level--;
			if (path || at)
				base = index & ~rt_level_maxindex(level);
			rt_assert(rt_entry_level(entry) == level);
			continue;
		}
		chain = false;
		from_root = false;
		cnode = rt_entry_cnode(entry);
		sfx = index & rt_level_maxindex(level);
		pos = path ? rt_cnode_find_locked(root, cnode, level, sfx, &child)
			   : rt_cnode_find(NULL, cnode, level, sfx, &child);
		if (path)
			path->step[path->depth++] = (struct rt_path_step){ entry, base, pos };
		if (pos < 0) {
			if (!path && rt_cnode_dead_rcu(cnode))
				goto restart;  /* copied: the key may be in the copy */
			if (path)
				path->end = RT_END_ABSENT;
			return NULL;
		}
		if (!rt_is_internal(child)) {
			if (path)
				path->end = RT_END_SLOT;
			if (item)
				*item = child;
			if (at)
				*at = (struct rt_path_step){ entry, base, pos };
			return &rt_cnode_slots(cnode)[pos];
		}
		if (!rt_prefix_match(rt_sfx_get(cnode, rt_sfx_width(level), (unsigned int)pos), sfx,
				     child)) {
			/* The key leaves the compressed path: absent (a live
			 * child entry, whatever the node's state). */
			if (path)
				path->end = RT_END_DIVERGE;
			return NULL;
		}
		entry = child;
		level = rt_entry_level(child);
		if (path || at)
			base = index & ~rt_level_maxindex(level);
	}
}


static inline __attribute__((always_inline)) void **
rt_descend_from(const struct radix_tree_root *root, unsigned long index, struct rt_path *path,
		void **item, struct rt_path_step *at, void *entry)
{
	return rt_descend_from_spine(root, index, path, item, at, entry, NULL);
}

/*
 * rt_descend_full() - a reader's descent through full nodes: the leaf slot
 * for @index, or NULL.  Each level is load, mask, load, with the shift in a
 * register, and one test for "empty or compact" (only an F node's entry
 * has RT_ENTRY_FULL set).  On NULL,
 * *@stop is NULL: a miss.  If it meets a compact node, or the root item
 * (which reads as a level-0 entry that is not full), *@stop gets its
 * entry and the caller goes on out of line (rt_descend_rcu_slow()).
 * @spine, if given, gets the nodes passed; it means something only when a
 * slot is returned.
 */
static inline __attribute__((always_inline)) void **
rt_descend_full_spine(const struct radix_tree_root *root, unsigned long index, void **stop,
		      struct rt_spine *spine)
{
	void *entry = rt_entry_rcu(root->rnode);
	unsigned int shift = rt_shift(rt_entry_level(entry));

	/* (An empty tree's level reads 0: any index above 63 stops here.) */
	if (index > rt_level_maxindex(rt_entry_level(entry))) {
		*stop = NULL;
		return NULL;
	}
	if (spine) {
		spine->top = rt_entry_level(entry);
		spine->whole = true;
	}
	for (;; shift -= RT_MAP_SHIFT) {
		void **slot;

		/* One test for "empty (NULL) or compact": the caller tells
		 * them apart by *@stop. */
		if (caa_unlikely(!((uintptr_t)entry & RT_ENTRY_FULL))) {
			*stop = entry;
			return NULL;
		}
		if (spine)
			spine->node[shift / RT_MAP_SHIFT] = rt_entry_node(entry);
		slot = &rt_entry_node(entry)->slots[(index >> shift) & RT_MAP_MASK];
		if (shift == 0)
			return slot;
		entry = rt_entry_rcu(*slot);
		/* An F node's child sits one level down (verify checks it). */
		rt_assert(!entry || rt_entry_level(entry) == shift / RT_MAP_SHIFT - 1);
	}
}

static inline __attribute__((always_inline)) void **
rt_descend_full(const struct radix_tree_root *root, unsigned long index, void **stop)
{
	return rt_descend_full_spine(root, index, stop, NULL);
}

/* How rt_spine_step() ended. */
enum rt_spine_end {
	RT_SPINE_LEAF,     /* spine->node[0] is the F leaf of the key */
	RT_SPINE_ABSENT,   /* the key is absent: an empty slot on the way, or
			    * beyond the range of the root's node */
	RT_SPINE_COMPACT,  /* the way meets a compact node, or leaves the
			    * range of one that node[top] hangs from */
};

/*
 * rt_spine_step() - a reader's way from one F leaf to the next: @key, the
 * first key past the leaf of @prev (the spine's), up or down.  The spine
 * goes up to the lowest node whose range holds @key, then down its slots
 * for @key: amortised O(1) per leaf over a walk.  A full node never moves
 * and is never copied; its slots change only while it is reachable, and
 * it leaves the tree emptied (a delete), or whole (a shrink's old top,
 * whose only child stays the tree's; a destroy).  So an empty slot read
 * in one, unlinked since or not, was empty while it was reachable, at
 * some moment after the caller's descent loaded it: the key was absent
 * then.  A compact node is left to rt_descend_from(), which knows copies.
 * Context: RCU reader, after a descent that filled @spine ended in a leaf.
 */
static inline enum rt_spine_end rt_spine_step(struct rt_spine *spine, unsigned long key,
					      unsigned long prev)
{
	unsigned int level = 1;

	while (level <= spine->top && (key ^ prev) > rt_level_maxindex(level))
		level++;
	if (level > spine->top)  /* past the range of node[top] */
		return spine->whole ? RT_SPINE_ABSENT : RT_SPINE_COMPACT;
	for (; level > 0; level--) {
		/* rcu_dereference: a child published after the spine's
		 * descent is seen initialised. */
		void *entry = rt_entry_rcu(spine->node[level]->slots[rt_offset(key, level)]);

		if (!entry)
			return RT_SPINE_ABSENT;
		if (rt_entry_compact(entry))
			return RT_SPINE_COMPACT;
		rt_assert(rt_entry_level(entry) == level - 1);
		spine->node[level - 1] = rt_entry_node(entry);
	}
	return RT_SPINE_LEAF;
}

/* The reader's descent once it meets a compact node (out of line: the
 * full-node loop stays short); rt_lookup_rcu_slow() returns the item
 * itself. */
RT_HIDDEN void **rt_descend_rcu_slow(const struct radix_tree_root *root, unsigned long index,
				     void **item, struct rt_path_step *at, void *entry);
/* rt_descend_rcu_slow() that records the F nodes below the last compact
 * node in *@spine, for a walk from leaf to leaf (rt_spine_step()). */
RT_HIDDEN void **rt_descend_spine_slow(const struct radix_tree_root *root, unsigned long index,
				       void **item, struct rt_path_step *at, void *entry,
				       struct rt_spine *spine);
RT_HIDDEN void *rt_lookup_rcu_slow(const struct radix_tree_root *root, unsigned long index,
				   void *entry);

/*
 * rt_descend_at() - as rt_descend_from() from the root; a reader runs the
 * full nodes inline (rt_descend_full()).
 */
static inline __attribute__((always_inline)) void **
rt_descend_at(const struct radix_tree_root *root, unsigned long index, struct rt_path *path,
	      void **item, struct rt_path_step *at)
{
	void **slot;
	void *stop = NULL;

	if (path)
		return rt_descend_from(root, index, path, item, at, NULL);
	slot = rt_descend_full(root, index, &stop);
	if (slot) {
		if (item)
			*item = rt_entry_rcu(*slot);
		if (at)
			*at = (struct rt_path_step){ rt_node_entry(rt_slot_leaf(slot, index), 0),
						     index & ~RT_MAP_MASK, (int)(index & RT_MAP_MASK) };
		return slot;
	}
	return stop ? rt_descend_rcu_slow(root, index, item, at, stop) : NULL;
}

/*
 * The one child of top node @top from which the tree could hang instead
 * (the top's only entry, a child whose keys start at 0), or NULL.  The
 * height is minimal when there is none (radix_tree_verify() checks it).
 * Context: tree lock held.
 */
static inline void *rt_top_shrink_child(const struct radix_tree_root *root, void *top)
{
	if (rt_entry_compact(top)) {
		const struct rt_cnode *node = rt_entry_cnode(top);
		void **slots = rt_cnode_slots(node);
		unsigned int i;

		if (rt_cnode_live(root, node) != 1)
			return NULL;
		for (i = 0; i < node->next; i++) {
			void *e = rt_entry_locked(root, slots[i]);

			if (!e)
				continue;
			if (!rt_is_internal(e) ||
			    (rt_sfx_get(node, rt_sfx_width(node->level), i) &
			     ~rt_level_maxindex(rt_entry_level(e))))
				return NULL;
			return e;
		}
		return NULL;
	}
	if (rt_entry_level(top) == 0 ||
	    rt_bits_locked(root, rt_entry_node(top)->present) != 1UL)  /* only slot 0 */
		return NULL;
	return rt_entry_locked(root, rt_entry_node(top)->slots[0]);
}

/* rt_descend_at() without the last node's identity. */
static inline __attribute__((always_inline)) void **
rt_descend(const struct radix_tree_root *root, unsigned long index, struct rt_path *path,
	   void **item)
{
	return rt_descend_at(root, index, path, item, NULL);
}

/* Is @path what rt_descend() records for @index now?  For the asserts of
 * code that takes a path recorded elsewhere (rt_free_find()). */
static inline bool rt_path_is_current(const struct radix_tree_root *root, unsigned long index,
				      const struct rt_path *path)
{
	struct rt_path now;
	unsigned int d;

	rt_descend(root, index, &now, NULL);
	if (now.depth != path->depth || now.end != path->end)
		return false;
	for (d = 0; d < now.depth; d++)
		if (now.step[d].entry != path->step[d].entry ||
		    now.step[d].base != path->step[d].base || now.step[d].pos != path->step[d].pos)
			return false;
	return true;
}

#endif /* RCURADIX_DESCEND_H */
