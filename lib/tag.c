/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tag.c - tag bits: set, clear, get, the root summary, propagation along a
 * path, and range tagging.
 *
 * Invariant (radix_tree_verify() checks it): bit i of a node's tag word t
 * is set iff its slot i holds an item bearing t or a node with some bit of
 * its tag word t set; bit t of root->tags is set iff the top node has some
 * bit of its tag word t set.  NULL slots carry no tag bits.  A full node's
 * tag word t is its bitmap tags[t] (bit i: slot i); a compact node's is made
 * of bit t of its tag bytes (bit i: entry i).
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

unsigned long rt_step_tags_slow(const struct radix_tree_root *root,
				const struct rt_path_step *step, unsigned int tag)
{
	const struct rt_cnode *node = rt_entry_cnode(step->entry);

	rt_assert_locked(root);
	/* Under the lock the bytes hold still: the vector form must agree
	 * with the byte-at-a-time one (debug builds check it here). */
	rt_assert(rt_ctag_bits(rt_cnode_tags(node), node->next, tag) ==
		  rt_ctag_bits_scalar(rt_cnode_tags(node), node->next, tag));
	return rt_ctag_bits(rt_cnode_tags(node), node->next, tag);
}

/* A compact node's tag word is bit @tag of each entry's tag byte: only the
 * bytes whose bit changes are stored, one release store each. */
void rt_step_tags_store_slow(const struct rt_path_step *step, unsigned int tag,
			     unsigned long old, unsigned long bits)
{
	uint8_t *bytes = rt_cnode_tags(rt_entry_cnode(step->entry));
	unsigned long change;

	for (change = old ^ bits; change; change &= change - 1) {
		unsigned int i = (unsigned int)__builtin_ctzl(change);

		rt_bits_store(bytes[i], (uint8_t)(bytes[i] ^ (1U << tag)));
	}
}

/*
 * Set (@set) or clear @leaf_bits in the leaf of @path for @tag, then up
 * the path: a set goes on while a node's word was empty before it (an
 * ancestor whose bit was set already has every bit above it set, by the
 * invariant), a clear while a node's word becomes empty; past the top,
 * the root's summary bit.  @full: every node of the path is full (an IDR
 * tree's, for its free word), so each level is one word, with no node
 * kind to tell.  The one loop of every tag change up a path.
 */
static inline __attribute__((always_inline)) void
rt_tag_change_path(struct radix_tree_root *root, const struct rt_path *path, unsigned int tag,
		   unsigned long leaf_bits, bool set, bool full)
{
	unsigned long bits = leaf_bits, root_bits;
	unsigned int d = path->depth;

	rt_assert_locked(root);
	while (d-- > 0) {
		const struct rt_path_step *step = &path->step[d];
		unsigned long *word = full ? &rt_entry_node(step->entry)->tags[tag] : NULL;
		unsigned long old = full ? rt_bits_locked(root, *word) : rt_step_tags(root, step, tag);
		unsigned long now = set ? old | bits : old & ~bits;

		rt_assert(!full || !rt_entry_compact(step->entry));
		if (now == old)
			return;
		if (full)
			rt_bits_store(*word, now);
		else
			rt_step_tags_store(step, tag, old, now);
		if (set ? old != 0 : now != 0)
			return;  /* the node had a tagged slot, or keeps one */
		bits = d ? 1UL << path->step[d - 1].pos : 0;
	}
	root_bits = rt_bits_locked(root, root->tags);
	rt_bits_store(root->tags, set ? root_bits | (1UL << tag) : root_bits & ~(1UL << tag));
}

void rt_tag_set_path(struct radix_tree_root *root, const struct rt_path *path,
		     unsigned int tag, unsigned long leaf_bits)
{
	rt_tag_change_path(root, path, tag, leaf_bits, true, false);
}

void rt_tag_clear_path(struct radix_tree_root *root, const struct rt_path *path,
		       unsigned int tag, unsigned long leaf_bits)
{
	rt_tag_change_path(root, path, tag, leaf_bits, false, false);
}

void rt_free_set_path(struct radix_tree_root *root, const struct rt_path *path,
		      unsigned long leaf_bits)
{
	rt_assert(rt_root_idr(root));
	rt_tag_change_path(root, path, RT_IDR_FREE, leaf_bits, true, true);
}

void rt_free_clear_path(struct radix_tree_root *root, const struct rt_path *path,
			unsigned long leaf_bits)
{
	rt_assert(rt_root_idr(root));
	rt_tag_change_path(root, path, RT_IDR_FREE, leaf_bits, false, true);
}

/* Clear every tag of the item in @path's leaf slot (delete). */
void rt_tags_clear_slot(struct radix_tree_root *root, const struct rt_path *path)
{
	const struct rt_path_step *leaf = &path->step[path->depth - 1];
	unsigned int tag;

	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		if (rt_step_tags(root, leaf, tag) & (1UL << leaf->pos))
			rt_tag_clear_path(root, path, tag, 1UL << leaf->pos);
}

typedef void rt_tag_op(struct radix_tree_root *, const struct rt_path *, unsigned int,
		       unsigned long);

static void *rt_tag_change(struct radix_tree_root *root, unsigned long index, unsigned int tag,
			   rt_tag_op *op, const char *fn)
{
	struct rt_path path;
	void **slot;
	void *item = NULL;

	if (!rt_tag_valid(tag) || rt_writer_enter_plain(root, fn))
		return NULL;
	slot = rt_descend(root, index, &path, NULL);
	if (slot && (item = rt_entry_locked(root, *slot)))
		op(root, &path, tag, 1UL << rt_path_leaf(&path)->pos);
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
	struct rt_path_step at;

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
	for (;;) {
		unsigned long bits;
		void *item = NULL;

		/* rt_descend_at() sets *item only where it finds a slot:
		 * each look starts with none. */
		if (!rt_descend_at(root, index, NULL, &item, &at) || !item)
			return 0;
		if (at.entry)
			break;
		/* The root item: its bits are the root's, which stand for
		 * whatever top the root holds when they are loaded (acquire).
		 * The item still there after them: they were its own. */
		bits = rt_bits_rcu(root->tags);
		if (rt_entry_rcu(root->rnode) == item)
			return (bits >> tag) & 1UL;
	}
	if (rt_entry_compact(at.entry))
		return (rt_bits_rcu(rt_cnode_tags(rt_entry_cnode(at.entry))[at.pos]) >> tag) & 1U;
	return (rt_bits_rcu(rt_entry_node(at.entry)->tags[tag]) >> at.pos) & 1UL;
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
	    !rt_tag_valid(totag) || rt_writer_enter_plain(root, __func__))
		return 0;
	next = last_index + 1;  /* wraps to 0 at ULONG_MAX, as in the kernel */
	radix_tree_iter_init(&iter, *first_indexp);
	while ((slot = radix_tree_next_chunk(root, &iter, RADIX_TREE_ITER_TAGGED | fromtag))) {
		/* Bit i of the chunk's map stands for key @first + i (a full
		 * leaf's map starts at its slot 0, a compact run's at its
		 * first entry). */
		unsigned long first = radix_tree_iter_key(&iter, iter.chunk);
		unsigned long bits = iter.tags, left = nr_to_tag - tagged;
		struct rt_path path;
		unsigned int last;

		/* The next tagged item may lie beyond the range. */
		if (iter.index > last_index)
			break;
		if (last_index - first < RT_BITS_PER_LONG - 1)
			bits &= (2UL << (last_index - first)) - 1;  /* range ends here */
		while ((unsigned long)__builtin_popcountl(bits) > left)
			bits &= ~(1UL << (RT_BITS_PER_LONG - 1 - __builtin_clzl(bits)));
		tagged += (unsigned long)__builtin_popcountl(bits);
		last = RT_BITS_PER_LONG - 1 - (unsigned int)__builtin_clzl(bits);
		rt_descend(root, iter.index, &path, NULL);
		/* In a compact node the run starts at the entry found. */
		if (rt_entry_compact(rt_path_leaf(&path)->entry))
			bits <<= rt_path_leaf(&path)->pos;
		rt_tag_set_path(root, &path, totag, bits);
		if (tagged == nr_to_tag) {
			next = first + last + 1;
			break;
		}
		if (iter.next_index == 0 || iter.next_index > last_index)
			break;
	}
	rt_writer_exit(root);
	*first_indexp = next;
	return tagged;
}

/* ---- free ids (IDR trees) ---------------------------------------------- */

bool rt_free_scan(const struct radix_tree_root *root, unsigned long start, bool up, bool locked,
		  unsigned long *found)
{
	return rt_free_scan_inline(root, start, up, locked, found, NULL);
}

/* ---- holes ------------------------------------------------------------- */

/*
 * How many keys from slot @offset of full leaf @node on, upwards (@up) or
 * downwards, hold an item, by the leaf's bitmap of used slots: the run of
 * set bits, up to the leaf's end.  A clear bit is checked against the slot
 * itself, since an insert publishes its item before the bit: *@hole says
 * whether the run ended at an empty slot inside the leaf.
 */
static unsigned int rt_leaf_run(const struct rt_node *node, unsigned int offset, bool up,
				bool *hole)
{
	unsigned long clear = ~rt_bits_rcu(node->present) & RT_SLOTS_MASK;
	unsigned int pos = offset;

	*hole = false;
	for (;;) {
		unsigned long left = clear & (up ? ~0UL << pos
						 : pos >= RT_BITS_PER_LONG - 1 ? ~0UL
										: (2UL << pos) - 1);
		unsigned int p;

		if (!left)
			return up ? RT_MAP_SIZE - offset : offset + 1;
		p = up ? (unsigned int)__builtin_ctzl(left)
		       : RT_BITS_PER_LONG - 1 - (unsigned int)__builtin_clzl(left);
		if (!rt_entry_rcu(node->slots[p])) {
			*hole = true;
			return up ? p - offset : offset - p;
		}
		/* Filled between its bit's load and now: present. */
		if (up ? p + 1 == RT_MAP_SIZE : p == 0)
			return up ? RT_MAP_SIZE - offset : offset + 1;
		pos = up ? p + 1 : p - 1;
	}
}

/* A hole scan: from @index, @max_scan keys at most, up or down; @key is
 * the next key to look at, @left how many keys it may still look at. */
struct rt_hole_scan {
	unsigned long index, max_scan, key, left;
	bool up;
};

/*
 * The scan goes past @run present keys, and a hole right after them if
 * @hole.  True when the scan is over, its answer in *@ret: the hole, the
 * key @max_scan keys away if it comes first, or the key past the end of
 * the key space.
 */
static bool rt_hole_advance(struct rt_hole_scan *s, unsigned long run, bool hole,
			    unsigned long *ret)
{
	if (run >= s->left) {
		*ret = s->up ? s->index + s->max_scan : s->index - s->max_scan;
		return true;
	}
	s->left -= run;
	if (s->up ? s->key > ULONG_MAX - run : s->key < run) {
		*ret = s->up ? 0 : ULONG_MAX;  /* ran off the key space */
		return true;
	}
	s->key = s->up ? s->key + run : s->key - run;
	*ret = s->key;
	return hole;
}

/*
 * The leaves from the one of spine->node[0] on, while they are full:
 * each leaf's keys by its bitmap, the next leaf by rt_spine_step().
 * True when the scan is over (*@ret); false when the way to the next leaf
 * meets a compact node, or leaves the range of the spine's top below
 * one: the caller descends for s->key.
 */
static bool rt_hole_leaves(struct rt_hole_scan *s, struct rt_spine *spine, unsigned long *ret)
{
	for (;;) {
		bool hole;
		unsigned int run = rt_leaf_run(spine->node[0], rt_offset(s->key, 0), s->up, &hole);

		if (rt_hole_advance(s, run, hole, ret))
			return true;
		/* The run reached the leaf's end: s->key starts the next. */
		switch (rt_spine_step(spine, s->key, s->up ? s->key - 1 : s->key + 1)) {
		case RT_SPINE_ABSENT:
			return true;  /* *@ret: s->key, as rt_hole_advance() left it */
		case RT_SPINE_COMPACT:
			return false;
		case RT_SPINE_LEAF:
			break;
		}
	}
}

/*
 * The keys after (@up) or before s->key, an item of the compact node of
 * @at: one search each in that node, no descent.  True when the scan is
 * over (*@ret); false when the next key wants a descent: it leaves the
 * node's range, falls in a child's, or the node was copied meanwhile.  A
 * miss counts only from a node seen alive after the search, as in
 * rt_descend_from(): a copied node is marked dead before its item slots
 * are emptied.  A compact node unlinked otherwise (emptied, a shrink's old
 * top, which holds no live item then, or a destroyed tree's) changes no
 * more once unreachable, so a miss there was a miss while it was
 * reachable.
 */
static bool rt_hole_cnode(struct rt_hole_scan *s, const struct rt_path_step *at,
			  unsigned long *ret)
{
	struct rt_cnode *node = rt_entry_cnode(at->entry);
	unsigned int level = rt_entry_level(at->entry);

	for (;;) {
		void *found = NULL;

		if (rt_hole_advance(s, 1, false, ret))  /* past s->key, present */
			return true;
		if ((s->key & ~rt_level_maxindex(level)) != at->base)
			return false;
		if (rt_cnode_find(NULL, node, level, s->key & rt_level_maxindex(level),
				  &found) < 0) {
			if (rt_cnode_dead_rcu(node))
				return false;
			return true;  /* *ret: s->key, absent */
		}
		if (rt_is_internal(found))
			return false;
	}
}

/*
 * The first absent key at or after (@up) or at or before @index, looking
 * at @max_scan keys at most: full leaves' keys by their bitmaps, one leaf
 * to the next along the full nodes above them (rt_spine_step()), a
 * compact node's items one search each in that node; a descent from the
 * root only where these end.  In an IDR tree, from the nearest free key
 * its free words show.  Returns the key, or the key @max_scan steps away when all
 * were present; 0 (@up) or ULONG_MAX when the scan ran off the key space.
 */
static unsigned long rt_hole(const struct radix_tree_root *root, unsigned long index,
			     unsigned long max_scan, bool up)
{
	struct rt_hole_scan s = { index, max_scan, index, max_scan, up };
	unsigned long ret = index;

	if (rt_root_idr(root) && s.left) {
		/* The free words lead to the nearest free key in O(height);
		 * the scan below checks it (they may be stale) and goes on. */
		unsigned long found, dist;

		if (!rt_free_scan(root, index, up, false, &found))
			return max_scan > index ? ULONG_MAX : index - max_scan;
		dist = up ? found - index : index - found;
		if (dist >= s.left)
			return up ? index + max_scan : index - max_scan;
		s.key = found;
		s.left -= dist;
	}
	while (s.left) {
		struct rt_spine spine;
		struct rt_path_step at;
		void *stop = NULL, *item = NULL;

		if (rt_descend_full_spine(root, s.key, &stop, &spine)) {
			if (rt_hole_leaves(&s, &spine, &ret))
				return ret;
			continue;
		}
		if (!stop)
			return s.key;  /* an empty slot, an empty tree, or past the top */
		/* Below a compact node: a full leaf there goes on along the
		 * full nodes above it, a compact node's items within it. */
		if (!rt_descend_spine_slow(root, s.key, &item, &at, stop, &spine) || !item)
			return s.key;
		if (!at.entry) {
			/* The root item: key 0, the tree's only key. */
			if (rt_hole_advance(&s, 1, up, &ret))
				return ret;
			continue;
		}
		if (!rt_entry_compact(at.entry)) {
			if (rt_hole_leaves(&s, &spine, &ret))
				return ret;
			continue;
		}
		if (rt_hole_cnode(&s, &at, &ret))
			return ret;
	}
	return s.key;
}

RCURADIX_API unsigned long radix_tree_next_hole(const struct radix_tree_root *root,
						unsigned long index, unsigned long max_scan)
{
	if (!root)
		return index;
	rt_reader_check(root, __func__);
	return rt_hole(root, index, max_scan, true);
}

RCURADIX_API unsigned long radix_tree_prev_hole(const struct radix_tree_root *root,
						unsigned long index, unsigned long max_scan)
{
	if (!root)
		return index;
	rt_reader_check(root, __func__);
	return rt_hole(root, index, max_scan, false);
}
