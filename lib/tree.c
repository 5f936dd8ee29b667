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
#include "tree.h"

#ifdef RT_DEBUG
unsigned long rt_transitions[RT_TR_COUNT];
void (*rt_transition_hook)(enum rt_transition t);
int rt_copy_by_plan;
unsigned long rt_copies_direct[2];
#endif

/* ---- readers ---------------------------------------------------------- */

void **rt_descend_rcu_slow(const struct radix_tree_root *root, unsigned long index,
			   void **item, struct rt_path_step *at, void *entry)
{
	return rt_descend_from(root, index, NULL, item, at, entry);
}

void **rt_descend_spine_slow(const struct radix_tree_root *root, unsigned long index,
			     void **item, struct rt_path_step *at, void *entry, struct rt_spine *spine)
{
	return rt_descend_from_spine(root, index, NULL, item, at, entry, spine);
}

void *rt_lookup_rcu_slow(const struct radix_tree_root *root, unsigned long index, void *entry)
{
	void *item = NULL;

	rt_descend_from(root, index, NULL, &item, NULL, entry);
	return item;
}

RCURADIX_API void *radix_tree_lookup(const struct radix_tree_root *root, unsigned long index)
{
	void **slot, *stop = NULL;

	if (!root)
		return NULL;
	rt_reader_check(root, __func__);
	slot = rt_descend_full(root, index, &stop);
	if (slot)
		return rt_entry_rcu(*slot);
	return stop ? rt_lookup_rcu_slow(root, index, stop) : NULL;
}

RCURADIX_API void **radix_tree_lookup_slot(const struct radix_tree_root *root,
					   unsigned long index)
{
	void *item = NULL;
	void **slot;

	if (!root)
		return NULL;
	rt_reader_check(root, __func__);
	slot = rt_descend(root, index, NULL, &item);
	return item ? slot : NULL;
}

RCURADIX_API int radix_tree_empty(const struct radix_tree_root *root)
{
	/* One load: an empty tree has no node at all. */
	return !root || rt_entry_rcu(root->rnode) == NULL;
}

RCURADIX_API unsigned long radix_tree_count(const struct radix_tree_root *root)
{
	/* Relaxed: the writer's count of some moment (rt_items_add()). */
	return root ? __atomic_load_n(&root->nr_items, __ATOMIC_RELAXED) : 0;
}

/* ---- building nodes ------------------------------------------------------ */

/* An entry on its way into a node being built: suffix (at the new node's
 * level), item or child entry, tag bits. */
struct rt_ent {
	unsigned long sfx;
	void *entry;
	unsigned int tags;
};

/* Room for a node's live entries, one more, and a child replacing a group. */
#define RT_ENTS_MAX (RT_C_MAX_ENTRIES + 2)

static void rt_ents_insertion_sort(struct rt_ent *ents, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		struct rt_ent e = ents[i];

		for (j = i; j > 0 && ents[j - 1].sfx > e.sfx; j--)
			ents[j] = ents[j - 1];
		ents[j] = e;
	}
}

/*
 * Sort @ents by suffix.  Collected from a node, they are a sorted run (the
 * node was built sorted) followed by the entries appended since, in any
 * order: sort that tail alone, then merge it in from the back, so that
 * the run's entries below the tail's smallest do not move (a copy for one
 * new item moves half the run on average, none of it when the item is
 * the largest).  (A leaf's copy needs no sort: rt_insert_copy_leaf().)
 */
static void rt_ents_sort(struct rt_ent *ents, unsigned int n)
{
	struct rt_ent tail[RT_ENTS_MAX];
	unsigned int run = 1, t, k;

	while (run < n && ents[run - 1].sfx <= ents[run].sfx)
		run++;
	if (run >= n)
		return;
	rt_ents_insertion_sort(ents + run, n - run);
	if (ents[run - 1].sfx <= ents[run].sfx)
		return;
	t = n - run;
	memcpy(tail, ents + run, t * sizeof(*ents));
	for (k = n; t > 0;) {
		if (run > 0 && ents[run - 1].sfx > tail[t - 1].sfx)
			ents[--k] = ents[--run];
		else
			ents[--k] = tail[--t];
	}
}

/* The live entries of C node @node, in position order; one copy of the
 * loop per suffix width (@w a constant). */
static inline __attribute__((always_inline)) unsigned int
rt_ents_collect_w(const struct radix_tree_root *root, const struct rt_cnode *node,
		  unsigned int w, struct rt_ent *ents)
{
	void **slots = rt_cnode_slots_w(node, w);
	const uint8_t *tags = rt_cnode_tags_w(node, w);
	unsigned int i, n = 0;

	for (i = 0; i < node->next; i++) {
		void *e = rt_entry_locked(root, slots[i]);

		if (e)
			ents[n++] = (struct rt_ent){ rt_sfx_get(node, w, i), e,
						    tags[i] & RT_CTAG_MASK };
	}
	return n;
}

static unsigned int rt_ents_collect(const struct radix_tree_root *root,
				    const struct rt_cnode *node, struct rt_ent *ents)
{
	switch (rt_sfx_width(node->level)) {
	case 1:
		return rt_ents_collect_w(root, node, 1, ents);
	case 2:
		return rt_ents_collect_w(root, node, 2, ents);
	case 4:
		return rt_ents_collect_w(root, node, 4, ents);
	default:
		return rt_ents_collect_w(root, node, 8, ents);
	}
}

/*
 * Should @n entries at @level be a full node?  A leaf, once a compact node
 * would be as large.  Above the leaves:
 *  - every entry a child one level down, RT_F_MIN_CHILDREN of them: a full
 *    node then costs at most a few hundred bytes more than a compact one,
 *    once per such node (one in 64 of the nodes below it when dense), and
 *    saves every lookup through it a scan of its entries;
 *  - otherwise, a full node has nowhere to keep items or prefixes: each
 *    item, and each child further down (a compressed path), hangs from a
 *    bridge, a one-entry compact node one level down that keeps its
 *    suffix; at most RT_F_MAX_BRIDGES of them, no two items sharing a
 *    digit (each bridge takes a slot of its own), and only when the full
 *    node and its bridges take no more memory than the compact node would.
 */
#define RT_F_MIN_CHILDREN 4U

/* Entries of @ents (at @level) that would need a bridge under a full
 * node, or UINT_MAX if two items share a digit. */
static unsigned int rt_bridges_needed(unsigned int level, const struct rt_ent *ents,
				      unsigned int n)
{
	unsigned long item_digits = 0;
	unsigned int i, bridges = 0;

	for (i = 0; i < n; i++) {
		if (rt_is_internal(ents[i].entry)) {
			bridges += rt_entry_level(ents[i].entry) != level - 1;
			continue;
		}
		if (item_digits & (1UL << rt_offset(ents[i].sfx, level)))
			return UINT_MAX;
		item_digits |= 1UL << rt_offset(ents[i].sfx, level);
		bridges++;
	}
	return bridges;
}

/* Bytes of a bridge below a full node at @level. */
static size_t rt_bridge_bytes(unsigned int level)
{
	return rt_cnode_bytes_for(1, rt_sfx_width(level - 1));
}

static bool rt_wants_full(unsigned int level, const struct rt_ent *ents, unsigned int n)
{
	size_t compact = rt_cnode_bytes_for(n, rt_sfx_width(level));
	unsigned int bridges;

	if (level == 0)
		return compact >= sizeof(struct rt_node);
	if (compact < sizeof(struct rt_node)) {
		/* No room for a bridge: children one level down only, enough
		 * of them; the first entry that is not one decides. */
		if (n < RT_F_MIN_CHILDREN)
			return false;
		for (unsigned int i = 0; i < n; i++)
			if (!rt_is_internal(ents[i].entry) ||
			    rt_entry_level(ents[i].entry) != level - 1)
				return false;
		return true;
	}
	bridges = rt_bridges_needed(level, ents, n);
	if (bridges == 0)
		return n >= RT_F_MIN_CHILDREN || compact >= sizeof(struct rt_node);
	return bridges <= RT_F_MAX_BRIDGES &&
	       sizeof(struct rt_node) + bridges * rt_bridge_bytes(level) <= compact;
}

/* Bytes of the node that will hold @ents at @level, with room for @room
 * more appends if it is compact (a leaf never grows past a full node's
 * size: it becomes one instead). */
static size_t rt_node_bytes_for(unsigned int level, bool full, unsigned int n, unsigned int room)
{
	unsigned int w = rt_sfx_width(level);
	unsigned int want = n + room < RT_C_MAX_ENTRIES ? n + room : RT_C_MAX_ENTRIES;
	size_t bytes;

	if (full)
		return sizeof(struct rt_node);
	bytes = rt_cnode_bytes_for(want, w);
	if (level == 0 && bytes >= sizeof(struct rt_node))
		bytes = rt_cnode_bytes_for(n, w);
	return bytes;
}

/* Appends a copy of @n entries leaves room for: growing one entry at a
 * time, a node would be copied at every class; a quarter more. */
static unsigned int rt_copy_room(unsigned int n)
{
	return n / 4;
}

/* Memory for the bridges of one full node: blocks and their sizes. */
struct rt_bridges {
	void **mem;
	const size_t *sizes;
};

/* The writer of a private C node's entries, in key order.  Its arrays are
 * located once: a tag byte's store may alias the header they are computed
 * from, which the compiler would otherwise load again at every entry. */
struct rt_cnode_out {
	struct rt_cnode *node;
	unsigned int w;         /* suffix width: a constant where inlined */
	uint8_t *tags;
	void **slots;
	unsigned int n;         /* entries written */
	unsigned int children;  /* child entries among them */
};

static inline __attribute__((always_inline)) struct rt_cnode_out
rt_cnode_out(struct rt_cnode *node, unsigned int w)
{
	return (struct rt_cnode_out){ node, w, rt_cnode_tags_w(node, w), rt_cnode_slots_w(node, w),
				      0, 0 };
}

/* Write the next entry: its suffix, its tag byte (tag bits and the child
 * bit) and its slot. */
static inline __attribute__((always_inline)) void
rt_cnode_put(struct rt_cnode_out *out, unsigned long sfx, void *entry, unsigned int tag_byte)
{
	rt_assert(out->n == 0 || rt_sfx_get(out->node, out->w, out->n - 1) < sfx);
	rt_sfx_put(out->node, out->w, out->n, sfx);
	out->tags[out->n] = (uint8_t)tag_byte;
	out->slots[out->n] = entry;
	out->children += tag_byte >> RT_CTAG_CHILD_BIT;
	out->n++;
}

/* The entries written are the whole node, one sorted run (live suffixes
 * are distinct).  Returns how many. */
static inline __attribute__((always_inline)) unsigned int
rt_cnode_out_end(const struct rt_cnode_out *out)
{
	out->node->next = out->node->sorted = (uint8_t)out->n;
	out->node->children = (uint8_t)out->children;
	return out->n;
}

/* Write @ents (sorted) into the entries of the private C node @node,
 * whose suffixes are @w bytes (a constant: one loop per width). */
static inline __attribute__((always_inline)) void
rt_cnode_fill(struct rt_cnode *node, unsigned int w, const struct rt_ent *ents, unsigned int n)
{
	struct rt_cnode_out out = rt_cnode_out(node, w);
	unsigned int i;

	for (i = 0; i < n; i++)
		rt_cnode_put(&out, ents[i].sfx, ents[i].entry,
			     ents[i].tags | (rt_is_internal(ents[i].entry) ? RT_CTAG_CHILD : 0));
	rt_cnode_out_end(&out);
}

/* Start C node @node at @level in @bytes of zeroed, private memory. */
static void rt_cnode_init(struct rt_cnode *node, size_t bytes, unsigned int level)
{
	node->level = (uint8_t)level;
	node->nr_lines = (uint8_t)(bytes / RT_NODE_ALIGN);
	node->cap = (uint8_t)rt_cnode_cap_for(bytes, rt_sfx_width(level));
}

/* Put @entry, with tag bits @tags, at @offset of private full node @node. */
static void rt_node_put(struct rt_node *node, unsigned int offset, void *entry, unsigned int tags)
{
	unsigned int t;

	node->slots[offset] = entry;
	node->present |= 1UL << offset;
	for (t = 0; tags; t++, tags >>= 1)
		if (tags & 1)
			node->tags[t] |= 1UL << offset;
}

/*
 * Build, in @mem (@bytes, private: plain stores), the node holding @ents
 * (sorted) at @level; @full (rt_wants_full()): a full node, its items and
 * compressed children then each in a bridge built in the next block of
 * @bridges.  Returns its entry.
 */
static void *rt_node_build(void *mem, size_t bytes, unsigned int level, const struct rt_ent *ents,
			   unsigned int n, bool full, struct rt_bridges *bridges)
{
	unsigned int i;

	memset(mem, 0, bytes);
	if (full) {
		struct rt_node *node = mem;

		for (i = 0; i < n; i++) {
			void *entry = ents[i].entry;

			if (level && (!rt_is_internal(entry) ||
				      rt_entry_level(entry) != level - 1)) {
				/* The item's suffix, or the child's prefix,
				 * read at the bridge's level, is the bridge's
				 * one suffix. */
				struct rt_ent bridge = { ents[i].sfx & rt_level_maxindex(level - 1),
							 entry, ents[i].tags };

				entry = rt_node_build(*bridges->mem++, *bridges->sizes++, level - 1,
						      &bridge, 1, false, NULL);
				rt_transition(RT_TR_BRIDGE);
			}
			rt_node_put(node, rt_offset(ents[i].sfx, level), entry, ents[i].tags);
		}
		return rt_node_entry(node, level);
	} else {
		struct rt_cnode *node = mem;
		unsigned int w = rt_sfx_width(level);

		rt_cnode_init(node, bytes, level);
		rt_assert(node->cap >= n);
		switch (w) {
		case 1:
			rt_cnode_fill(node, 1, ents, n);
			break;
		case 2:
			rt_cnode_fill(node, 2, ents, n);
			break;
		case 4:
			rt_cnode_fill(node, 4, ents, n);
			break;
		default:
			rt_cnode_fill(node, 8, ents, n);
			break;
		}
		return rt_cnode_entry(node);
	}
}

/* The level at which keys that differ in the bits @diff (non-zero) part. */
static unsigned int rt_diverge_level(unsigned long diff)
{
	return (RT_BITS_PER_LONG - 1 - (unsigned int)__builtin_clzl(diff)) / RT_MAP_SHIFT;
}

/* ---- insert ------------------------------------------------------------ */

/* Make @entry reachable in place of the node of @path's step @d (the root's
 * top node if @d is 0).  One publish: readers see the old node or the new
 * one, each complete. */
static void rt_replace_node(struct radix_tree_root *root, struct rt_path *path, unsigned int d,
			    void *entry)
{
	struct rt_path_step *parent;

	if (d == 0) {
		/* Publish: the new top node. */
		rt_publish(root->rnode, entry);
		return;
	}
	parent = &path->step[d - 1];
	/* Publish: into the parent's slot.  Its present and tag bits stay:
	 * the new node holds the same items (and maybe one untagged more). */
	rt_publish(*rt_step_slot(parent), entry);
}

/*
 * A plan: the entries of the new nodes of one insert, worked out before
 * anything is allocated or changed.  node[0] takes the old node's place;
 * node[i], i > 0, is a child of node[parent], planned after it, and takes
 * the place of its placeholder entry there (rt_placeholder(..., i)).
 */
struct rt_node_plan {
	struct rt_ent *ents;  /* its entries: in the plan's ents or pair */
	unsigned int n, level, parent;
	unsigned int room;  /* appends the node should have room for */
	bool full;          /* rt_wants_full(), once the entries are final */
};

/* Nodes 0 to RT_PLAN_BIG_NODES - 1 may hold RT_ENTS_MAX entries; the
 * others, small groups (rt_plan_demote_pairs(), rt_plan_demote_all()),
 * share one pool: their entries come out of node 0's, which hold fewer. */
#define RT_PLAN_BIG_NODES 3U

struct rt_plan {
	struct rt_node_plan node[RT_PLAN_ALL_NODES];
	unsigned int nr;
	unsigned int pooled;  /* entries of the pool given to nodes */
	struct rt_ent ents[RT_PLAN_BIG_NODES][RT_ENTS_MAX];
	struct rt_ent pool[RT_ENTS_MAX];
};

/* Plan node @i, its entries' storage attached: room for @cap entries if
 * it is not one of the big nodes. */
static struct rt_node_plan *rt_plan_node(struct rt_plan *plan, unsigned int i, unsigned int cap)
{
	if (i < RT_PLAN_BIG_NODES) {
		plan->node[i].ents = plan->ents[i];
	} else {
		rt_assert(plan->pooled + cap <= RT_ENTS_MAX);
		plan->node[i].ents = plan->pool + plan->pooled;
		plan->pooled += cap;
	}
	return &plan->node[i];
}

/* The placeholder of plan node @i, a child entry at @level (for sizing a
 * plan before the child exists): only its level and kind are looked at,
 * and its "address" tells it from its siblings'. */
static void *rt_placeholder(unsigned int level, bool full, unsigned int i)
{
	return (void *)(((uintptr_t)level << RT_ENTRY_LEVEL_SHIFT) |
			(full ? RT_ENTRY_FULL : 0) | RT_ENTRY_INTERNAL |
			(uintptr_t)i * RT_NODE_ALIGN);
}

/* Put built node @i's @entry in its parent's entries, where its
 * placeholder is. */
static void rt_plan_place(struct rt_plan *plan, unsigned int i, void *entry)
{
	struct rt_node_plan *p = &plan->node[plan->node[i].parent];
	unsigned int j;

	/* From the end: a demote appends the placeholder there. */
	for (j = p->n; j-- > 0;)
		if (rt_is_internal(p->ents[j].entry) &&
		    rt_entry_node(p->ents[j].entry) == (struct rt_node *)((uintptr_t)i * RT_NODE_ALIGN)) {
			p->ents[j].entry = entry;
			return;
		}
	rt_assert(!"a planned child has its placeholder");
}

/* What rt_plan_demote() saw of the node it demoted from. */
struct rt_demoted {
	unsigned int groups;   /* digits with two items or more, before */
	unsigned int other;    /* with two of them: the one not demoted */
	unsigned int other_n;  /* ... and its items */
	unsigned int singles;  /* digits with one item */
	unsigned int far;      /* children not one level down */
};

static void rt_plan_demote(struct rt_plan *plan, unsigned int i, struct rt_demoted *seen);

/*
 * Move the items of plan node @i whose digit at its level is in @digits
 * (two at least for each) into new nodes planned after the others, one
 * per digit in digit order, each at the level where its keys part, and
 * put their placeholders in their place.  If one group is more than a
 * compact node may hold (all of @i's items in one group), its node
 * demotes in turn: its own groups are smaller, since its keys part at its
 * level.  @one: @digits has one bit (a constant: the demote of the largest
 * group gets a loop of its own, without the digit-to-node lookup).
 */
static inline __attribute__((always_inline)) void
rt_plan_move_groups(struct rt_plan *plan, unsigned int i, unsigned long digits, bool one)
{
	struct rt_node_plan *p = &plan->node[i], *sub;
	unsigned int shift = rt_shift(p->level), j, g, kept = 0, tags[RT_PLAN_MAX_NODES];
	unsigned long first[RT_PLAN_MAX_NODES], diff[RT_PLAN_MAX_NODES], left;
	unsigned int base = plan->nr, end;
	uint8_t node_of[RT_MAP_SIZE];

	/* The digits' nodes, in digit order. */
	for (left = digits; left; left &= left - 1) {
		rt_assert(plan->nr < RT_PLAN_MAX_NODES);
		node_of[__builtin_ctzl(left)] = (uint8_t)plan->nr;
		rt_plan_node(plan, plan->nr++, 2)->n = 0;
	}
	end = plan->nr;
	for (j = 0; j < p->n; j++) {
		struct rt_ent e = p->ents[j];
		unsigned int d = (unsigned int)((e.sfx >> shift) & RT_MAP_MASK);

		if (rt_is_internal(e.entry) || !(digits & (1UL << d))) {
			if (kept != j)
				p->ents[kept] = e;
			kept++;
			continue;
		}
		g = one ? base : node_of[d];
		sub = &plan->node[g];
		rt_assert(g < RT_PLAN_BIG_NODES || sub->n < 2);
		if (!sub->n) {
			first[g] = e.sfx;
			diff[g] = 0;
			tags[g] = 0;
		}
		diff[g] |= e.sfx ^ first[g];
		tags[g] |= e.tags;
		sub->ents[sub->n++] = e;
	}
	/* A group's node that demotes in turn plans its node after @end. */
	for (g = base; g < end; g++) {
		sub = &plan->node[g];
		rt_assert(sub->n >= 2);
		sub->level = rt_diverge_level(diff[g]);
		sub->room = 0;
		sub->parent = i;
		for (j = 0; j < sub->n; j++)
			sub->ents[j].sfx &= rt_level_maxindex(sub->level);
		if (sub->n > RT_C_MAX_ENTRIES)
			rt_plan_demote(plan, g, NULL);
		p->ents[kept++] = (struct rt_ent){
			first[g] & ~rt_level_maxindex(sub->level),
			rt_placeholder(sub->level, rt_wants_full(sub->level, sub->ents, sub->n), g),
			tags[g] };
	}
	p->n = kept;
}

/*
 * Move the largest group of items of plan node @i sharing a digit (two
 * items at least; the lowest digit among equals) into a new node
 * (rt_plan_move_groups()).  Called when @i holds more entries than a
 * compact node may: then such a group exists (the entries outnumber the
 * digits, and a child's digit is shared by nothing).  *@seen (if not
 * NULL) gets what @i held before, for rt_plan_demote_for_full().
 */
static void rt_plan_demote(struct rt_plan *plan, unsigned int i, struct rt_demoted *seen)
{
	struct rt_node_plan *p = &plan->node[i];
	unsigned int shift = rt_shift(p->level), count[RT_MAP_SIZE] = { 0 };
	unsigned int j, best = 0, group[2] = { 0, 0 };
	struct rt_demoted d0 = { 0, 0, 0, 0, 0 };

	for (j = 0; j < p->n; j++) {
		unsigned int d = (p->ents[j].sfx >> shift) & RT_MAP_MASK, c;

		if (rt_is_internal(p->ents[j].entry)) {
			d0.far += rt_entry_level(p->ents[j].entry) + 1 != p->level;
			continue;
		}
		c = ++count[d];
		if (c == 1) {
			d0.singles++;
		} else if (c == 2) {
			d0.singles--;
			if (d0.groups < 2)
				group[d0.groups] = d;
			d0.groups++;
		}
		if (c > count[best] || (c == count[best] && d < best))
			best = d;
	}
	rt_assert(count[best] >= 2);
	d0.other = group[0] == best ? group[1] : group[0];
	d0.other_n = count[d0.other];
	if (seen)
		*seen = d0;
	rt_plan_move_groups(plan, i, 1UL << best, true);
}

/*
 * After a demote, node 0 (above the leaves) may hold one group of items
 * sharing a digit still, and otherwise only children and items a bridge
 * each could hold: then, if a full node with its bridges and that group's
 * own node take no more memory than the compact node would, move that
 * group too (at most RT_C_MAX_ENTRIES / 2 items, so that the reserve's
 * blocks cover the plan, see RT_PLAN_MAX_NODES), and node 0 becomes a
 * full node.  Without this, a compact node full of children keeps a few
 * items that share digits and is copied whole at each insert that
 * overflows it, one group at a time, and lookups through it search it.
 */
static void rt_plan_demote_for_full(struct rt_plan *plan, const struct rt_demoted *seen)
{
	struct rt_node_plan *p = &plan->node[0];
	unsigned int w = rt_sfx_width(p->level), bridges;
	size_t full;

	if (plan->nr != 2 || p->level == 0 || seen->groups != 2 ||
	    seen->other_n > RT_C_MAX_ENTRIES / 2)
		return;
	/* A bridge for each single item and each child further down than
	 * one level, the group just demoted included, and one for the next
	 * group's node, which may sit further down too. */
	bridges = seen->singles + seen->far + (plan->node[1].level + 1 != p->level) + 1;
	if (bridges > RT_F_MAX_BRIDGES)
		return;
	/* No larger than the compact node would be, with the group's node;
	 * and a full node by rt_wants_full() once the group has left. */
	full = sizeof(struct rt_node) + bridges * rt_bridge_bytes(p->level);
	if (full + rt_cnode_bytes_for(seen->other_n, rt_sfx_width(p->level - 1)) >
		    rt_cnode_bytes_for(p->n, w) ||
	    full > rt_cnode_bytes_for(p->n - seen->other_n + 1, w))
		return;
	rt_plan_demote(plan, 0, NULL);
	rt_assert(rt_wants_full(p->level, p->ents, p->n));
}

/*
 * A demote that moved a pair of items freed one entry: every group of
 * items left is a pair too, the copy is full again, and each later item
 * with a digit of its own would copy all 64 entries of it for one more
 * pair (a node of 2^16 uniform 64-bit keys two levels above the items went
 * through some thirty such copies).  So the copy of node 0 (above the
 * leaves, compact) moves more pairs, the lowest digits first, until
 * RT_DEMOTE_ROOM entries are free: each into a node of the smallest class
 * (the reserve's blocks cover the plan, see RT_PLAN_MAX_NODES).  Only
 * pairs whose keys part one level down: that node is where the subtree's
 * keys go anyway, and a full node above it needs no bridge for it.
 */
static void rt_plan_demote_pairs(struct rt_plan *plan)
{
	struct rt_node_plan *p = &plan->node[0];
	unsigned int shift = rt_shift(p->level), count[RT_MAP_SIZE] = { 0 }, j, d, want, take = 0;
	unsigned long first[RT_MAP_SIZE], diff[RT_MAP_SIZE], digits = 0;

	if (p->n <= RT_C_MAX_ENTRIES - RT_DEMOTE_ROOM)
		return;
	want = p->n - (RT_C_MAX_ENTRIES - RT_DEMOTE_ROOM);  /* each pair frees one entry */
	for (j = 0; j < p->n; j++) {
		if (rt_is_internal(p->ents[j].entry))
			continue;
		d = (p->ents[j].sfx >> shift) & RT_MAP_MASK;
		if (!count[d]++)
			first[d] = p->ents[j].sfx;
		diff[d] = p->ents[j].sfx ^ first[d];  /* a pair's two keys */
	}
	for (d = 0; d < RT_MAP_SIZE && take < want && plan->nr + take < RT_PLAN_MAX_NODES; d++)
		if (count[d] == 2 && rt_diverge_level(diff[d]) + 1 == p->level) {
			digits |= 1UL << d;
			take++;
		}
	if (digits)
		rt_plan_move_groups(plan, 0, digits, false);
}

/*
 * A node on its way to a full node demotes a group at each copy that
 * overflows it: a node two levels above the items of 2^16 uniform 64-bit
 * keys is copied whole (64 entries) some twenty-five times on its way, for
 * one pair of items at a time.  Its history tells it from a node that
 * stays compact (uniform keys at 2^20 overflow their nodes a few times):
 * so the copy of a node whose line of copies demoted RT_DEMOTE_ALL_AFTER
 * times moves every group of items of node 0 into a node of its own,
 * after the largest group rt_plan_demote() moved: a lone item into a node
 * one level down (the full node's child), two or more into a node at the
 * level where they part.  Node 0 then holds children only, and becomes a
 * full node where rt_wants_full() says so.  Not if that would take more
 * bridges than a full node may have (groups that part further down, as
 * the keys of runs do: their nodes belong where they part, and a node one
 * level down for each would stay as a bridge; the copy's count of
 * demotions then starts again).  The nodes, up to
 * RT_PLAN_ALL_NODES, come from the allocator (rt_plan_build()).
 * Return: true if the plan moved the groups, false if it is unchanged.
 */
static bool rt_plan_demote_all(struct rt_plan *plan)
{
	struct rt_node_plan *p = &plan->node[0], *sub;
	unsigned int shift = rt_shift(p->level), count[RT_MAP_SIZE] = { 0 };
	unsigned int j, d, kept = 0, far = 0, groups = 0, tags[RT_MAP_SIZE];
	unsigned long first[RT_MAP_SIZE], diff[RT_MAP_SIZE], digits = 0;
	uint8_t node_of[RT_MAP_SIZE];

	rt_assert(plan->nr == 2 && p->level > 0 && p->n <= RT_C_MAX_ENTRIES);
	for (j = 0; j < p->n; j++) {
		const struct rt_ent *e = &p->ents[j];

		if (rt_is_internal(e->entry)) {
			far += rt_entry_level(e->entry) + 1 != p->level;
			continue;
		}
		d = (unsigned int)((e->sfx >> shift) & RT_MAP_MASK);
		if (!count[d]++) {
			first[d] = e->sfx;
			diff[d] = 0;
			tags[d] = 0;
			digits |= 1UL << d;
			groups++;
		}
		diff[d] |= e->sfx ^ first[d];
		tags[d] |= e->tags;
	}
	for (j = 0; j < RT_MAP_SIZE; j++)
		far += count[j] >= 2 && rt_diverge_level(diff[j]) + 1 != p->level;
	if (!groups || far > RT_F_MAX_BRIDGES)
		return false;
	_Static_assert(RT_PLAN_ALL_NODES >= 2 + RT_MAP_SIZE, "a node per digit");
	for (unsigned long left = digits; left; left &= left - 1) {
		d = (unsigned int)__builtin_ctzl(left);
		node_of[d] = (uint8_t)plan->nr;
		sub = rt_plan_node(plan, plan->nr++, count[d]);
		sub->n = 0;
		sub->level = count[d] >= 2 ? rt_diverge_level(diff[d]) : p->level - 1;
		sub->room = 0;
		sub->parent = 0;
	}
	for (j = 0; j < p->n; j++) {
		struct rt_ent e = p->ents[j];

		if (rt_is_internal(e.entry)) {
			p->ents[kept++] = e;
			continue;
		}
		sub = &plan->node[node_of[(e.sfx >> shift) & RT_MAP_MASK]];
		e.sfx &= rt_level_maxindex(sub->level);
		sub->ents[sub->n++] = e;
	}
	for (unsigned long left = digits; left; left &= left - 1) {
		d = (unsigned int)__builtin_ctzl(left);
		sub = &plan->node[node_of[d]];
		p->ents[kept++] = (struct rt_ent){
			first[d] & ~rt_level_maxindex(sub->level),
			rt_placeholder(sub->level, rt_wants_full(sub->level, sub->ents, sub->n),
				       node_of[d]),
			tags[d] };
	}
	p->n = kept;
	return true;
}

/* Nodes for @plan: all or nothing; then build them, deepest first, each
 * child's entry into its parent.  @all: a plan of rt_plan_demote_all(),
 * whose nodes are allocated on the spot, never taken from the reserve
 * (which covers the plans of RT_INSERT_MAX_NODES nodes only).  Returns
 * node[0]'s entry, or NULL for -ENOMEM. */
static void *rt_plan_build(struct radix_tree_root *root, struct rt_plan *plan, bool all)
{
	void *mem[RT_PLAN_ALL_NODES + RT_F_MAX_BRIDGES], *entry = NULL;
	size_t sizes[RT_PLAN_ALL_NODES + RT_F_MAX_BRIDGES];
	unsigned int i, nr = plan->nr, bridges_at[RT_PLAN_ALL_NODES];
	unsigned int max_nodes = all ? RT_PLAN_ALL_NODES + RT_F_MAX_BRIDGES : RT_INSERT_MAX_NODES;

	rt_assert(nr <= (all ? RT_PLAN_ALL_NODES : RT_PLAN_MAX_NODES));
	/* A parent's shape depends on its child's level and kind only, which
	 * the placeholder gives.  The bridges' blocks come after the nodes'
	 * (a reserve serves the nodes first), each node's together. */
	for (i = 0; i < plan->nr; i++) {
		struct rt_node_plan *p = &plan->node[i];
		unsigned int far = 0;

		p->full = rt_wants_full(p->level, p->ents, p->n);
		if (p->level && p->full) {
			far = rt_bridges_needed(p->level, p->ents, p->n);
			/* A copy that moved pairs may want bridges the
			 * reserve does not cover: it stays compact. */
			if (nr + far > max_nodes) {
				rt_assert(i == 0 && nr > RT_PLAN_BIG_NODES);
				p->full = false;
				far = 0;
			}
		}
		sizes[i] = rt_node_bytes_for(p->level, p->full, p->n, p->room);
		bridges_at[i] = nr;
		while (far--)
			sizes[nr++] = rt_bridge_bytes(p->level);
	}
	if (all ? rt_nodes_alloc(mem, sizes, nr)
		: rt_nodes_get(mem, sizes, nr, rt_may_alloc(root->gfp_mask)))
		return NULL;
	/* A child is planned after its parent: built before it. */
	for (i = plan->nr; i-- > 0;) {
		struct rt_node_plan *p = &plan->node[i];
		struct rt_bridges bridges = { mem + bridges_at[i], sizes + bridges_at[i] };

		if (!p->full)  /* a full node places each entry by its digit */
			rt_ents_sort(p->ents, p->n);
		entry = rt_node_build(mem[i], sizes[i], p->level, p->ents, p->n, p->full, &bridges);
		if (i)
			rt_plan_place(plan, i, entry);
	}
	root->nr_nodes += nr;
	return entry;
}

/* Start a plan of one node at @level, with no entries yet. */
static struct rt_node_plan *rt_plan_one(struct rt_plan *plan, unsigned int level)
{
	plan->nr = 1;
	plan->pooled = 0;
	plan->node[0].ents = plan->ents[0];
	plan->node[0].level = level;
	plan->node[0].room = 0;
	plan->node[0].n = 0;
	return &plan->node[0];
}

/* Append @item (suffix @sfx) to C node @node in place: the entry first,
 * then the count that makes it visible. */
static void rt_cnode_append(struct radix_tree_root *root, struct rt_cnode *node,
			    unsigned long sfx, void *item)
{
	unsigned int i = node->next, w = rt_sfx_width(node->level);

	rt_assert_locked(root);
	/* Position i was never used: its suffix, tag byte and slot are zero,
	 * and no reader looks at it before next covers it. */
	rt_sfx_put(node, w, i, sfx);
	CMM_STORE_SHARED(rt_cnode_slots(node)[i], item);
	/* A suffix above every earlier one extends the sorted run.  Relaxed:
	 * a reader clamps it to the count it loaded, which covers the entry
	 * only after the release below. */
	if (node->sorted == i && (i == 0 || rt_sfx_get(node, w, i - 1) < sfx))
		__atomic_store_n(&node->sorted, (uint8_t)(i + 1), __ATOMIC_RELAXED);
	/* Publish: release, so that a reader that sees the new count sees the
	 * suffix and the initialised item. */
	__atomic_store_n(&node->next, (uint8_t)(i + 1), __ATOMIC_RELEASE);
	rt_transition(RT_TR_APPEND);
}

/*
 * The tombstone of C node @node that last held an item of suffix @sfx, or
 * -1.  A child's tombstone does not count: a child entry stays one while
 * it lives (lookups tell the kinds apart by the kind bit alone).
 */
static int rt_cnode_item_tombstone(const struct radix_tree_root *root,
				   const struct rt_cnode *node, unsigned long sfx)
{
	unsigned int w = rt_sfx_width(node->level), n = node->next, i;
	void **slots = rt_cnode_slots_w(node, w);
	const uint8_t *tags = rt_cnode_tags_w(node, w);
	unsigned long same;

	switch (w) {
	case 1:
		same = rt_sfx_match(node, 1, n, sfx, 0, RT_SFX_EXACT, NULL);
		break;
	case 2:
		same = rt_sfx_match(node, 2, n, sfx, 0, RT_SFX_EXACT, NULL);
		break;
	case 4:
		same = rt_sfx_match(node, 4, n, sfx, 0, RT_SFX_EXACT, NULL);
		break;
	default:
		same = rt_sfx_match(node, 8, n, sfx, 0, RT_SFX_EXACT, NULL);
		break;
	}
	for (; same; same &= ~(1UL << i)) {
		i = RT_BITS_PER_LONG - 1 - (unsigned int)__builtin_clzl(same);
		if (!(tags[i] & RT_CTAG_CHILD) && !rt_entry_locked(root, slots[i]))
			return (int)i;
	}
	return -1;
}

/*
 * Put @item (suffix @sfx) back in its key's item tombstone in C node
 * @node, if there is one, as a full leaf takes a key back in its slot
 * (out of line: only nodes with tombstones call it).  The suffix, the
 * kind bit and the place in the sorted run are the key's already, and the
 * tag bits were cleared with the item.  No entry is added, so no reader's
 * count or sorted run changes; a reader that loads the slot finds NULL
 * (absent) or the new item.
 * Return: true if the item went back in place, false if @node holds no
 * tombstone of its key.
 */
static __attribute__((noinline)) bool rt_cnode_refill(struct radix_tree_root *root,
						       struct rt_cnode *node, unsigned long sfx,
						       void *item)
{
	int pos;

	rt_assert_locked(root);
	pos = rt_cnode_item_tombstone(root, node, sfx);
	if (pos < 0)
		return false;
	rt_assert((rt_cnode_tags(node)[pos] & (RT_CTAG_MASK | RT_CTAG_CHILD)) == 0);
	/* Publish: release, so that a reader that loads the item sees it
	 * initialised (the slot itself is what readers test). */
	rt_publish(rt_cnode_slots(node)[pos], item);
	rt_transition(RT_TR_REFILL);
	return true;
}

/* Publish @entry, a copy of @path's last node, in that node's place, and
 * retire the old node. */
static void rt_copy_publish(struct radix_tree_root *root, struct rt_path *path, void *entry)
{
	struct rt_path_step *leaf = rt_path_leaf(path);

	root->nr_nodes++;
	rt_replace_node(root, path, path->depth - 1, entry);
	rt_cnode_retire(root, leaf->entry, leaf->base);
}

/*
 * rt_insert_copy() of a leaf.  Its suffixes are its digits, one per entry,
 * so the copy needs no plan and no sort: a full node takes each entry at
 * its digit, a C node takes them in digit order, read through a bitmap of
 * the digits.  The plan's rules: a full node once a C node would be as
 * large (rt_wants_full()), else room for rt_copy_room() more.
 */
static int rt_insert_copy_leaf(struct radix_tree_root *root, struct rt_path *path,
			       unsigned long index, void *item)
{
	struct rt_path_step *leaf = rt_path_leaf(path);
	const struct rt_cnode *old = rt_entry_cnode(leaf->entry);
	void **slots = rt_cnode_slots_w(old, 1);
	const uint8_t *tags = rt_cnode_tags_w(old, 1);
	unsigned int digit = (unsigned int)(index & RT_MAP_MASK), i;
	unsigned int n = rt_cnode_live(root, old) + 1U;
	bool full = rt_wants_full(0, NULL, n);  /* a leaf's rule reads no entry */
	size_t bytes = rt_node_bytes_for(0, full, n, rt_copy_room(n));
	void *mem, *entry;

	rt_assert(old->level == 0 && rt_sfx_width(0) == 1);
	if (rt_nodes_get(&mem, &bytes, 1, rt_may_alloc(root->gfp_mask)))
		return -ENOMEM;
	memset(mem, 0, bytes);
	if (full) {
		for (i = 0; i < old->next; i++) {
			void *e = rt_entry_locked(root, slots[i]);

			if (e)
				rt_node_put(mem, (unsigned int)rt_sfx_get(old, 1, i), e,
					    tags[i] & RT_CTAG_MASK);
		}
		rt_node_put(mem, digit, item, 0);
		entry = rt_node_entry(mem, 0);
	} else {
		struct rt_cnode *node = mem;
		unsigned long digits = 1UL << digit;
		uint8_t at[RT_MAP_SIZE];
		struct rt_cnode_out out;

		at[digit] = UINT8_MAX;  /* the new item's */
		for (i = 0; i < old->next; i++)
			if (rt_entry_locked(root, slots[i])) {
				unsigned int d = (unsigned int)rt_sfx_get(old, 1, i);

				rt_assert(!(digits & (1UL << d)));
				digits |= 1UL << d;
				at[d] = (uint8_t)i;
			}
		rt_assert((unsigned int)__builtin_popcountl(digits) == n);
		rt_cnode_init(node, bytes, 0);
		out = rt_cnode_out(node, 1);
		for (; digits; digits &= digits - 1) {
			unsigned int d = (unsigned int)__builtin_ctzl(digits);

			i = at[d];
			rt_cnode_put(&out, d, i == UINT8_MAX ? item : rt_entry_locked(root, slots[i]),
				     i == UINT8_MAX ? 0 : tags[i] & RT_CTAG_MASK);
		}
		rt_cnode_out_end(&out);
		entry = rt_cnode_entry(node);
	}
	rt_copy_publish(root, path, entry);
	rt_transition(full ? RT_TR_LEAF_FULL : RT_TR_COPY);
	return 0;
}

/* A position of a node being copied, and its suffix (UINT_MAX: the new
 * item). */
struct rt_pos {
	unsigned long sfx;
	unsigned int i;
};

/* A group of items a copy moves out of the node it copies (the items whose
 * digit at the node's level is @digit) into a new C node, and the child
 * entry that takes their place. */
struct rt_group {
	struct rt_cnode_out out; /* the group's node: private, initialised */
	void *entry;            /* its child entry */
	unsigned long prefix;   /* the child entry's suffix in the copy */
	unsigned long mask;     /* an item's suffix in the group's node: sfx & mask */
	unsigned int tags;      /* the child entry's tag bits: its items' together */
	unsigned int digit;     /* the items' digit at the copied node's level */
	unsigned int shift;     /* that level's shift */
};

/*
 * Fill private C node @node (at @old's level, its suffixes @w bytes: a
 * constant, one copy per width) with the live entries of @old and the new
 * item @item of suffix @sfx, in key order: @old's sorted run, tombstones
 * dropped, merged with the entries appended after it and the new item,
 * which are sorted first (a few: at most the room the node was built with).
 * The items of group @g (if not NULL) go into its node instead, in key
 * order, and its child entry where they sort.
 * Returns the entries written into @node.
 */
static inline __attribute__((always_inline)) unsigned int
rt_cnode_copy_w(const struct radix_tree_root *root, const struct rt_cnode *old,
		struct rt_cnode *node, unsigned int w, unsigned long sfx, void *item,
		struct rt_group *g)
{
	void **from = rt_cnode_slots_w(old, w);
	const uint8_t *from_tags = rt_cnode_tags_w(old, w);
	struct rt_pos tail[RT_ENTS_MAX], e;
	struct rt_cnode_out out = rt_cnode_out(node, w);
	unsigned int run = old->sorted < old->next ? old->sorted : old->next;
	/* No digit is RT_MAP_SIZE: without a group, no entry goes to one. */
	unsigned int g_digit = g ? g->digit : RT_MAP_SIZE, g_shift = g ? g->shift : 0;
	unsigned int i, j, t = 0;

	for (i = run; i <= old->next; i++) {
		if (i == old->next)
			e = (struct rt_pos){ sfx, UINT_MAX };
		else if (rt_entry_locked(root, from[i]))
			e = (struct rt_pos){ rt_sfx_get(old, w, i), i };
		else
			continue;
		for (j = t++; j > 0 && tail[j - 1].sfx > e.sfx; j--)
			tail[j] = tail[j - 1];
		tail[j] = e;
	}
	for (i = 0, j = 0; i < run || j < t;) {
		if (i < run && !rt_entry_locked(root, from[i])) {
			i++;  /* a tombstone */
			continue;
		}
		if (j == t || (i < run && rt_sfx_get(old, w, i) < tail[j].sfx)) {
			e = (struct rt_pos){ rt_sfx_get(old, w, i), i };
			i++;
		} else {
			e = tail[j++];
		}
		/* The tag byte as it was: tag bits and the child bit. */
		if (((e.sfx >> g_shift) & RT_MAP_MASK) != g_digit) {
			rt_cnode_put(&out, e.sfx,
				     e.i == UINT_MAX ? item : rt_entry_locked(root, from[e.i]),
				     e.i == UINT_MAX ? 0 : from_tags[e.i]);
			continue;
		}
		/* An item of the group (a child never shares an item's
		 * digit): into the group's node, in key order; the first
		 * puts the group's child entry where the group sorts. */
		if (!g->out.n)
			rt_cnode_put(&out, g->prefix, g->entry, g->tags | RT_CTAG_CHILD);
		rt_cnode_put(&g->out, e.sfx & g->mask,
			     e.i == UINT_MAX ? item : rt_entry_locked(root, from[e.i]),
			     e.i == UINT_MAX ? 0 : from_tags[e.i]);
	}
	return rt_cnode_out_end(&out);
}

/* rt_cnode_copy_w() compiled once per suffix width; inlined, so that the
 * copy without a group (@g NULL) has no test of a group's digit. */
static inline __attribute__((always_inline)) unsigned int
rt_cnode_copy(const struct radix_tree_root *root, const struct rt_cnode *old,
	      struct rt_cnode *node, unsigned long sfx, void *item, struct rt_group *g)
{
	switch (rt_sfx_width(old->level)) {
	case 1:
		return rt_cnode_copy_w(root, old, node, 1, sfx, item, g);
	case 2:
		return rt_cnode_copy_w(root, old, node, 2, sfx, item, g);
	case 4:
		return rt_cnode_copy_w(root, old, node, 4, sfx, item, g);
	default:
		return rt_cnode_copy_w(root, old, node, 8, sfx, item, g);
	}
}

/*
 * Could C node @old (above the leaves) with one more item be copied into
 * a full node (rt_wants_full())?  Not if a C node of those entries is
 * smaller than a full node (the item keeps it compact), nor if more than
 * RT_F_MAX_BRIDGES of them are items (each would need a bridge).  The
 * items are counted low: the positions whose tag byte is not a child's,
 * less the tombstones (@live: its entries, rt_cnode_live()).
 */
static bool rt_copy_may_be_full(const struct rt_cnode *old, unsigned int live)
{
	unsigned int w = rt_sfx_width(old->level), n = live + 1U;
	int items;

	if (rt_cnode_bytes_for(n, w) < sizeof(struct rt_node))
		return false;
	items = (int)old->next -
		__builtin_popcountl(rt_ctag_bits(rt_cnode_tags_w(old, w), old->next,
						 RT_CTAG_CHILD_BIT)) -
		(int)(old->next - live) + 1;
	return items <= (int)RT_F_MAX_BRIDGES;
}

/*
 * rt_insert_copy() of a C node above the leaves into a larger class, when
 * the plan would make no more of it: its entries and the new item fit in
 * a C node (no demotion) and could not be a full node
 * (rt_copy_may_be_full()).  No plan and no list of entries: the copy
 * reads the old node straight into the new one.
 */
static int rt_insert_copy_grow(struct radix_tree_root *root, struct rt_path *path,
			       unsigned long index, void *item)
{
	const struct rt_cnode *old = rt_entry_cnode(rt_path_leaf(path)->entry);
	unsigned int live = rt_cnode_live(root, old), level = old->level, n = live + 1U;
	unsigned long sfx = index & rt_level_maxindex(level);
	size_t bytes = rt_node_bytes_for(level, false, n, rt_copy_room(n));
	struct rt_cnode *node;
	void *mem;

	rt_assert(level > 0 && n <= RT_C_MAX_ENTRIES && !rt_copy_may_be_full(old, live));
	if (rt_nodes_get(&mem, &bytes, 1, rt_may_alloc(root->gfp_mask)))
		return -ENOMEM;
	node = mem;
	memset(node, 0, bytes);
	rt_cnode_init(node, bytes, level);
	n = rt_cnode_copy(root, old, node, sfx, item, NULL);
	rt_assert(n == live + 1U && n <= node->cap);
	node->demotions = old->demotions;  /* the line of copies goes on */
	rt_copy_publish(root, path, rt_cnode_entry(node));
	rt_transition(RT_TR_COPY);
	rt_copy_direct_made(false);
	return 0;
}

/* What rt_group_find() saw of a node to copy with one more item. */
struct rt_group_seen {
	unsigned int items;   /* its items, the new one included */
	unsigned int groups;  /* digits with two items or more */
	unsigned int digit;   /* the largest group's (the lowest among equals) */
	unsigned int n;       /* ... and its items */
};

/* rt_group_find() for suffixes of @w bytes (a constant). */
static inline __attribute__((always_inline)) void
rt_group_find_w(const struct radix_tree_root *root, const struct rt_cnode *old, unsigned int w,
		unsigned long sfx, struct rt_group_seen *seen)
{
	void **slots = rt_cnode_slots_w(old, w);
	const uint8_t *tags = rt_cnode_tags_w(old, w);
	unsigned int shift = rt_shift(old->level), count[RT_MAP_SIZE] = { 0 }, i, d, c, best, most;
	unsigned int items = 1, groups = 0, next = old->next;

	best = (unsigned int)((sfx >> shift) & RT_MAP_MASK);  /* the new item's */
	count[best] = most = 1;
	for (i = 0; i < next; i++) {
		if (tags[i] & RT_CTAG_CHILD || !rt_entry_locked(root, slots[i]))
			continue;
		items++;
		d = (unsigned int)((rt_sfx_get(old, w, i) >> shift) & RT_MAP_MASK);
		c = ++count[d];
		groups += c == 2;
		if (c > most || (c == most && d < best)) {
			best = d;
			most = c;
		}
	}
	*seen = (struct rt_group_seen){ items, groups, best, most };
}

/* Count the items of C node @old (above the leaves) with a new one of
 * suffix @sfx by their digit at its level: into *@seen. */
static void rt_group_find(const struct radix_tree_root *root, const struct rt_cnode *old,
			  unsigned long sfx, struct rt_group_seen *seen)
{
	switch (rt_sfx_width(old->level)) {
	case 1:
		rt_group_find_w(root, old, 1, sfx, seen);
		break;
	case 2:
		rt_group_find_w(root, old, 2, sfx, seen);
		break;
	case 4:
		rt_group_find_w(root, old, 4, sfx, seen);
		break;
	default:
		rt_group_find_w(root, old, 8, sfx, seen);
		break;
	}
}

/* The level at which the items of @old of digit @digit at its level, with
 * the new item of suffix @sfx if it has that digit, part (two of them at
 * least); in *@first the suffix of one of them, in *@tags their tag bits
 * together. */
static unsigned int rt_group_level(const struct radix_tree_root *root, const struct rt_cnode *old,
				   unsigned int digit, unsigned long sfx, unsigned long *first,
				   unsigned int *tags)
{
	unsigned int w = rt_sfx_width(old->level), shift = rt_shift(old->level), i;
	void **slots = rt_cnode_slots_w(old, w);
	const uint8_t *tag_bytes = rt_cnode_tags_w(old, w);
	unsigned long diff = 0;
	bool any = ((sfx >> shift) & RT_MAP_MASK) == digit;

	*first = sfx;
	*tags = 0;
	for (i = 0; i < old->next; i++) {
		unsigned long s = rt_sfx_get(old, w, i);

		if (((s >> shift) & RT_MAP_MASK) != digit || tag_bytes[i] & RT_CTAG_CHILD ||
		    !rt_entry_locked(root, slots[i]))
			continue;
		if (!any) {
			*first = s;
			any = true;
		}
		diff |= s ^ *first;
		*tags |= tag_bytes[i] & RT_CTAG_MASK;
	}
	rt_assert(diff != 0);
	return rt_diverge_level(diff);
}

/*
 * rt_insert_copy() of a C node above the leaves that overflows, where the
 * plan would move one group of items and do no more: the largest group
 * sharing a digit (rt_plan_demote()) goes into a new compact child at the
 * level where its keys part, and the copy stays compact, since more than
 * RT_F_MAX_BRIDGES items are left in it (a full node would want a bridge
 * for each).  Not where the plan does more: a largest group of two (it
 * moves more pairs, rt_plan_demote_pairs()), exactly two groups (it may
 * move the second for a full node, rt_plan_demote_for_full()), a line of
 * copies due to move every group (rt_insert_copy_all()), or a group whose
 * compact node would be no smaller than a full one (the plan weighs a full
 * node for it; in the 8-slot build every group's is: its copies all go
 * through the plan).  The same two nodes as the plan's (the copy_* tests
 * compare them node for node), read straight from the old node: no list
 * of entries, no sort; two counting passes and the copy's one.
 * Return: 0, -ENOMEM (nothing changed), or -EAGAIN if the plan is wanted
 * (nothing done).
 */
static int rt_insert_copy_demote(struct radix_tree_root *root, struct rt_path *path,
				 unsigned long index, void *item, unsigned int live)
{
	const struct rt_cnode *old = rt_entry_cnode(rt_path_leaf(path)->entry);
	unsigned int level = old->level, n = live + 2U, sub_level;
	unsigned long sfx = index & rt_level_maxindex(level), first;
	struct rt_group_seen seen;
	struct rt_group g;
	struct rt_cnode *node;
	size_t sizes[2];
	void *mem[2];

	if (old->demotions >= RT_DEMOTE_ALL_AFTER || !rt_copy_direct())
		return -EAGAIN;
	rt_group_find(root, old, sfx, &seen);
	if (seen.n < 3 || seen.groups == 2 || seen.items - seen.n <= RT_F_MAX_BRIDGES)
		return -EAGAIN;
	sub_level = rt_group_level(root, old, seen.digit, sfx, &first, &g.tags);
	n -= seen.n;  /* the group leaves, its child entry comes */
	sizes[0] = rt_node_bytes_for(level, false, n, rt_copy_room(n));
	sizes[1] = rt_cnode_bytes_for(seen.n, rt_sfx_width(sub_level));
	if (sizes[1] >= sizeof(struct rt_node))
		return -EAGAIN;
	if (rt_nodes_get(mem, sizes, 2, rt_may_alloc(root->gfp_mask)))
		return -ENOMEM;
	memset(mem[1], 0, sizes[1]);
	rt_cnode_init(mem[1], sizes[1], sub_level);
	g.out = rt_cnode_out(mem[1], rt_sfx_width(sub_level));
	g.entry = rt_cnode_entry(mem[1]);
	g.mask = rt_level_maxindex(sub_level);
	g.prefix = first & ~g.mask;  /* the bits all of them share */
	g.digit = seen.digit;
	g.shift = rt_shift(level);
	node = mem[0];
	memset(node, 0, sizes[0]);
	rt_cnode_init(node, sizes[0], level);
	n = rt_cnode_copy(root, old, node, sfx, item, &g);
	rt_assert(n == live + 2U - seen.n && g.out.n == seen.n && n <= node->cap);
	rt_cnode_out_end(&g.out);
	node->demotions = old->demotions + 1;  /* the line of copies goes on */
	root->nr_nodes++;  /* the group's; the copy's below */
	/* Both nodes are private and complete: one publish of the copy makes
	 * the group's node reachable with it. */
	rt_copy_publish(root, path, rt_cnode_entry(node));
	rt_transition(RT_TR_DEMOTE);
	rt_copy_direct_made(true);
	return 0;
}

/*
 * Plan the copy of C node @old (above the leaves) with @item at @index:
 * its live entries and the new one, and, when they exceed RT_C_MAX_ENTRIES,
 * the largest group of items moved into a new child (and a second group
 * for a full node, rt_plan_demote_for_full()).  *@seen: what the demote
 * saw, if it demoted (plan->nr > 1).
 */
static struct rt_node_plan *rt_plan_copy(const struct radix_tree_root *root, struct rt_plan *plan,
					 const struct rt_cnode *old, unsigned long index, void *item,
					 struct rt_demoted *seen)
{
	struct rt_node_plan *p = rt_plan_one(plan, old->level);

	p->n = rt_ents_collect(root, old, p->ents);
	p->ents[p->n++] = (struct rt_ent){ index & rt_level_maxindex(old->level), item, 0 };
	if (p->n > RT_C_MAX_ENTRIES) {
		rt_plan_demote(plan, 0, seen);
		rt_plan_demote_for_full(plan, seen);
	}
	return p;
}

/* What rt_insert_copy_all() made of a copy. */
enum rt_copy_all {
	RT_COPY_ALL_NO,        /* not due: the plan is unchanged */
	RT_COPY_ALL_DECLINED,  /* due, but its groups part too far down: unchanged */
	RT_COPY_ALL_PLANNED,   /* the plan demotes every group */
};

/*
 * The copy of a node whose line of copies has demoted RT_DEMOTE_ALL_AFTER
 * times, if @plan (from rt_plan_copy()) demoted one group and the tree may
 * allocate: every group of items moved too (rt_plan_demote_all()), its
 * nodes allocated on the spot.  *@how says what it did.  Returns node 0's
 * entry, or NULL if the plan does not apply (*@how is not
 * RT_COPY_ALL_PLANNED: @plan is unchanged) or its nodes are not to be had
 * (@plan is then to be made again for the copy the reserve covers).
 */
static void *rt_insert_copy_all(struct radix_tree_root *root, struct rt_plan *plan,
				const struct rt_cnode *old, enum rt_copy_all *how)
{
	*how = RT_COPY_ALL_NO;
	if (old->demotions < RT_DEMOTE_ALL_AFTER || plan->nr != 2 ||
	    !rt_may_alloc(root->gfp_mask) || rt_wants_full(old->level, plan->node[0].ents,
							   plan->node[0].n))
		return NULL;
	if (!rt_plan_demote_all(plan)) {
		*how = RT_COPY_ALL_DECLINED;
		return NULL;
	}
	*how = RT_COPY_ALL_PLANNED;
	plan->node[0].room = rt_copy_room(plan->node[0].n);
	return rt_plan_build(root, plan, true);
}

/* Does C node @node (above level 1) hold full nodes only, one level down,
 * two or more?  Its entries are then in @ents, *@n of them. */
static bool rt_cnode_over_full_nodes(const struct radix_tree_root *root,
				     const struct rt_cnode *node, struct rt_ent *ents,
				     unsigned int *n)
{
	unsigned int i;

	if (node->level < 2)
		return false;
	*n = rt_ents_collect(root, node, ents);
	if (*n < 2)
		return false;
	for (i = 0; i < *n; i++)
		if (!rt_is_internal(ents[i].entry) || rt_entry_compact(ents[i].entry) ||
		    rt_entry_level(ents[i].entry) != node->level - 1U)
			return false;
	return true;
}

/*
 * A full node took the place of @path's step @d.  The C node above it, if
 * it now holds full nodes above the leaves only, one level down, two or
 * more, becomes a full node too, and so on up.  Such a node sits above at
 * least two full nodes and their children: its full copy costs a small
 * part of the memory below it, once, and saves every descent through it a
 * search of its entries (the top of every other key up to 2^19, over two
 * full nodes).  The copy is never needed for an answer: it takes its node
 * from the allocator only, where the tree may allocate, never from the
 * reserve, which covers the insert's own nodes; without one the node
 * stays compact, until the next child of it that becomes full.
 */
static void rt_promote_parents(struct radix_tree_root *root, struct rt_path *path, unsigned int d)
{
	struct rt_ent ents[RT_C_MAX_ENTRIES];

	if (!rt_may_alloc(root->gfp_mask))
		return;
	for (; d > 0; d--) {
		struct rt_path_step *step = &path->step[d - 1];
		size_t bytes = sizeof(struct rt_node);
		unsigned int n;
		void *mem, *entry;

		if (!rt_entry_compact(step->entry) ||
		    !rt_cnode_over_full_nodes(root, rt_entry_cnode(step->entry), ents, &n) ||
		    rt_nodes_alloc(&mem, &bytes, 1))
			return;
		/* Children only: no bridge.  Built private, published once in
		 * the C node's place, which is then retired. */
		entry = rt_node_build(mem, bytes, rt_entry_level(step->entry), ents, n, true, NULL);
		root->nr_nodes++;
		rt_replace_node(root, path, d - 1, entry);
		rt_cnode_retire(root, step->entry, step->base);
		rt_transition(RT_TR_PARENT_FULL);
	}
}

/*
 * The C node of @path's last step has no entry for @index and no room:
 * copy it with the new item (compacted, sorted, into the class that fits,
 * or a full node), moving groups of items into new children when the
 * entries would exceed RT_C_MAX_ENTRIES.
 */
static int rt_insert_copy(struct radix_tree_root *root, struct rt_path *path, unsigned long index,
			  void *item)
{
	struct rt_path_step *leaf = rt_path_leaf(path);
	struct rt_cnode *old = rt_entry_cnode(leaf->entry);
	struct rt_demoted seen;
	struct rt_plan plan;
	struct rt_node_plan *p;
	enum rt_copy_all how;
	unsigned int live;
	void *entry;

	if (old->level == 0)
		return rt_insert_copy_leaf(root, path, index, item);
	live = rt_cnode_live(root, old);
	if (live + 1U <= RT_C_MAX_ENTRIES) {
		if (!rt_copy_may_be_full(old, live) && rt_copy_direct())
			return rt_insert_copy_grow(root, path, index, item);
	} else {
		int err = rt_insert_copy_demote(root, path, index, item, live);

		if (err != -EAGAIN)
			return err;
	}
	p = rt_plan_copy(root, &plan, old, index, item, &seen);
	entry = rt_insert_copy_all(root, &plan, old, &how);
	if (entry) {
		rt_transition(RT_TR_DEMOTE_ALL);
		goto publish;
	}
	if (how == RT_COPY_ALL_PLANNED)  /* its nodes not to be had: the copy the reserve covers */
		p = rt_plan_copy(root, &plan, old, index, item, &seen);
	if (plan.nr == 2 && plan.node[1].n == 2 && !rt_wants_full(p->level, p->ents, p->n))
		rt_plan_demote_pairs(&plan);
	p->room = rt_copy_room(p->n);
	entry = rt_plan_build(root, &plan, false);
	if (!entry)
		return -ENOMEM;
	if (plan.nr > 1)
		rt_transition(plan.nr == 2			 ? RT_TR_DEMOTE
			      : plan.node[2].parent == 1 ? RT_TR_DEMOTE_TWICE
			      : rt_entry_compact(entry)	 ? RT_TR_DEMOTE_PAIRS
							 : RT_TR_DEMOTE_FOR_FULL);
	else if (rt_entry_compact(entry))
		rt_transition(RT_TR_COPY);
publish:
	/* The copy's line of copies goes on in it (private still); one whose
	 * groups part too far down counts again from here, so that its next
	 * copies do not look for every group at each overflow. */
	if (rt_entry_compact(entry))
		rt_entry_cnode(entry)->demotions =
			(how == RT_COPY_ALL_DECLINED ? 0 : old->demotions) + (plan.nr > 1);
	rt_replace_node(root, path, path->depth - 1, entry);
	rt_cnode_retire(root, leaf->entry, leaf->base);
	if (!rt_entry_compact(entry)) {
		rt_transition(old->level ? RT_TR_INNER_FULL : RT_TR_LEAF_FULL);
		if (old->level)
			rt_promote_parents(root, path, path->depth - 1);
	}
	return 0;
}

/*
 * Split a compressed path: @index leaves the prefix of the child entry of
 * @path's last step.  A node at the level where they part, holding the
 * child and the item, takes the child's place, in place: the entry's
 * stored prefix stays, and read at the new node's level it is the new
 * node's prefix; its tag bits are the child's.  If that level is the one
 * just below, the node may now hold only children one level down, enough
 * of them to be a full node: then it is copied into one, with the new
 * node, and retired; but not a top node left with the new node alone,
 * covering key 0, which the shrink that follows drops.
 */
static int rt_insert_split(struct radix_tree_root *root, struct rt_path *path,
			   unsigned long index, void *item)
{
	struct rt_path_step *leaf = rt_path_leaf(path);
	struct rt_cnode *node = rt_entry_cnode(leaf->entry);
	unsigned int level = node->level, w = rt_sfx_width(level), pos = (unsigned int)leaf->pos;
	void **slots = rt_cnode_slots(node);
	void *child = rt_entry_locked(root, slots[pos]);
	unsigned long prefix = rt_sfx_get(node, w, pos);
	unsigned long sfx = index & rt_level_maxindex(level);
	struct rt_plan plan;
	struct rt_node_plan *top = rt_plan_one(&plan, level), *sub = rt_plan_node(&plan, 1, 0);
	unsigned int i;
	void *entry;

	sub->level = rt_diverge_level((prefix ^ sfx) & ~rt_level_maxindex(rt_entry_level(child)));
	sub->room = 0;
	sub->parent = 0;
	sub->n = 0;
	sub->ents[sub->n++] = (struct rt_ent){ prefix & rt_level_maxindex(sub->level), child,
					       rt_cnode_tags(node)[pos] & RT_CTAG_MASK };
	sub->ents[sub->n++] = (struct rt_ent){ sfx & rt_level_maxindex(sub->level), item, 0 };
	if (sub->level == level - 1) {
		for (i = 0; i < node->next; i++) {
			void *e = rt_entry_locked(root, slots[i]);

			if (!e)
				continue;
			if (i == pos)
				e = rt_placeholder(sub->level, false, 1);
			top->ents[top->n++] = (struct rt_ent){ rt_sfx_get(node, w, i), e,
							       rt_cnode_tags(node)[i] & RT_CTAG_MASK };
		}
		/* The shrink's test, rt_top_shrink_child(), in advance. */
		bool shrinks = path->depth == 1 && top->n == 1 &&
			       !(prefix & ~rt_level_maxindex(sub->level));

		if (!shrinks && rt_wants_full(level, top->ents, top->n)) {
			plan.nr = 2;
			entry = rt_plan_build(root, &plan, false);
			if (!entry)
				return -ENOMEM;
			rt_replace_node(root, path, path->depth - 1, entry);
			rt_cnode_retire(root, leaf->entry, leaf->base);
			rt_transition(RT_TR_SPLIT_FULL);
			rt_promote_parents(root, path, path->depth - 1);
			return 0;
		}
	}
	plan.node[0] = *sub;
	plan.nr = 1;
	entry = rt_plan_build(root, &plan, false);
	if (!entry)
		return -ENOMEM;
	/* Publish: the new node in the child's place. */
	rt_publish(slots[pos], entry);
	rt_transition(RT_TR_SPLIT);
	return 0;
}

/* Does the top node @top hold items only, few enough to move into a node
 * with one more? */
static bool rt_top_absorbable(const struct radix_tree_root *root, void *top)
{
	const struct rt_cnode *node;
	void **slots;
	unsigned int i, live = 0;

	if (!rt_entry_compact(top))
		return false;
	node = rt_entry_cnode(top);
	slots = rt_cnode_slots(node);
	for (i = 0; i < node->next; i++) {
		void *e = rt_entry_locked(root, slots[i]);

		if (e && rt_is_internal(e))
			return false;
		live += e != NULL;
	}
	return live < RT_C_MAX_ENTRIES;
}

/*
 * @index lies beyond the top node's range: grow.  The new top holds the
 * item and the old top (its keys start at 0) as a child carrying the
 * root's tag bits; or, if the old top is a compact node of items only,
 * those items themselves (their suffixes are their keys, all with digit 0
 * at the new level): the old top is then retired like any copied node.
 * A reader that loaded the old top keeps using it, or looks again.
 */
static int rt_insert_grow(struct radix_tree_root *root, unsigned long index, void *item)
{
	void *top = rt_entry_locked(root, root->rnode), *entry;
	bool absorb = rt_top_absorbable(root, top);
	struct rt_plan plan;
	struct rt_node_plan *p = rt_plan_one(&plan, rt_level_for(index));

	if (absorb)
		p->n = rt_ents_collect(root, rt_entry_cnode(top), p->ents);
	else
		p->ents[p->n++] = (struct rt_ent){ 0, top,
						   (unsigned int)rt_bits_locked(root, root->tags) };
	p->ents[p->n++] = (struct rt_ent){ index & rt_level_maxindex(p->level), item, 0 };
	p->room = absorb ? rt_copy_room(p->n) : 0;
	entry = rt_plan_build(root, &plan, false);
	if (!entry)
		return -ENOMEM;
	/* Publish: the new top, complete. */
	rt_publish(root->rnode, entry);
	if (absorb)
		rt_cnode_retire(root, top, 0);
	rt_transition(absorb ? RT_TR_GROW_ABSORB : RT_TR_GROW_ROOT);
	return 0;
}

static void rt_shrink(struct radix_tree_root *root);
static void *rt_delete_at(struct radix_tree_root *root, struct rt_path *path, bool *leaf_freed);

static int rt_insert_locked(struct radix_tree_root *root, unsigned long index, void *item)
{
	struct rt_path path;
	void **slot = rt_descend(root, index, &path, NULL);
	struct rt_path_step *leaf = path.depth ? rt_path_leaf(&path) : NULL;
	struct rt_plan plan;
	struct rt_node_plan *p;
	void *entry;

	switch (path.end) {
	case RT_END_SLOT:
		if (rt_entry_locked(root, *slot))
			return -EEXIST;
		/* An F leaf: the item is the only thing to publish. */
		rt_slot_set(root, rt_entry_node(leaf->entry), (unsigned int)leaf->pos, item);
		break;
	case RT_END_ABSENT: {
		struct rt_cnode *node = rt_entry_cnode(leaf->entry);
		unsigned long sfx = index & rt_level_maxindex(node->level);

		/* A key deleted from this node comes back to its tombstone:
		 * no entry spent, no copy of a full node. */
		if (caa_unlikely(node->deleted) && rt_cnode_refill(root, node, sfx, item))
			break;
		if (node->next < node->cap) {
			rt_cnode_append(root, node, sfx, item);
			break;
		}
		if (rt_insert_copy(root, &path, index, item))
			return -ENOMEM;
		/* A copy of the top node that moved all its items into one
		 * child holds that child alone: the tree may hang lower. */
		if (path.depth == 1)
			rt_shrink(root);
		break;
	}
	case RT_END_EMPTY:
		/* An empty tree, or an F node's empty slot: one new node, at
		 * the level below the F node, or the level @index needs. */
		p = rt_plan_one(&plan, leaf ? rt_entry_level(leaf->entry) - 1 : rt_level_for(index));
		p->ents[p->n++] = (struct rt_ent){ index & rt_level_maxindex(p->level), item, 0 };
		entry = rt_plan_build(root, &plan, false);
		if (!entry)
			return -ENOMEM;
		if (leaf)
			rt_slot_set(root, rt_entry_node(leaf->entry), (unsigned int)leaf->pos, entry);
		else
			rt_publish(root->rnode, entry);  /* the whole tree at once */
		rt_transition(RT_TR_NEW_NODE);
		break;
	case RT_END_ABOVE:
		if (rt_insert_grow(root, index, item))
			return -ENOMEM;
		break;
	case RT_END_DIVERGE:
		if (rt_insert_split(root, &path, index, item))
			return -ENOMEM;
		/* A top node whose one child did not cover key 0 may now
		 * hold only the node the split put there, which does. */
		if (path.depth == 1)
			rt_shrink(root);
		break;
	case RT_END_ROOT:
		/* Only an IDA tree, which plain writers refuse, has one. */
		rt_assert(!"a plain tree has no root item");
		return -EEXIST;
	}
	rt_items_add(root, 1);
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
	ret = rt_writer_enter_plain(root, __func__);
	if (ret)
		return ret;
	rt_insert_check_preload(root);
	ret = rt_insert_locked(root, index, item);
	rt_writer_done(root);
	return ret;
}

/* ---- full-node trees (IDR) --------------------------------------------- */

/*
 * Build, in private @mem, a full node at @level holding @entry at @offset,
 * with the IDR free word of a node whose other slots are empty: every slot
 * free but @offset, which is free if @entry_free.  Returns its entry.
 */
static void *rt_full_node_build(void *mem, unsigned int level, unsigned int offset, void *entry,
				bool entry_free)
{
	struct rt_node *node = mem;

	memset(node, 0, sizeof(*node));
	node->slots[offset] = entry;
	node->present = 1UL << offset;
	node->tags[RT_IDR_FREE] = RT_SLOTS_MASK & ~(entry_free ? 0UL : 1UL << offset);
	return rt_node_entry(node, level);
}

/*
 * Build a chain of full nodes from @level down to a leaf, each holding the
 * next at @index's offset and the leaf holding @item (its slot free if
 * @item_free): the private part an insert under an empty slot publishes.
 * Takes the nodes from @mem, from its end.  Returns the chain's top entry.
 */
static void *rt_full_chain_build(void **mem, unsigned int *nr, unsigned int level,
				 unsigned long index, void *item, bool item_free)
{
	void *entry = rt_full_node_build(mem[--*nr], 0, rt_offset(index, 0), item, item_free);
	unsigned int l;

	/* Every node of the chain but the leaf has a free slot below it. */
	for (l = 1; l <= level; l++)
		entry = rt_full_node_build(mem[--*nr], l, rt_offset(index, l), entry, true);
	return entry;
}

/*
 * Make @item, an IDA bitmap for key 0, the root item of empty IDA tree
 * @root (internal.h, "IDR trees"): no node.  Its slot is free if
 * @item_free.
 */
static void rt_root_item_publish(struct radix_tree_root *root, void *item, bool item_free)
{
	/* Read as a level-0 entry that is not full: node-aligned. */
	rt_assert(rt_root_item(item) && !((uintptr_t)item & (RT_NODE_ALIGN - 1)));
	rt_items_add(root, 1);
	/* Publish: the bitmap, the whole tree at once; then its free bit
	 * (release), as for a first node. */
	rt_publish(root->rnode, item);
	rt_bits_store(root->tags, item_free ? 1UL << RT_IDR_FREE : 0UL);
}

/*
 * Delete the root item of @root: the tree is empty after.  Only an empty
 * bitmap is deleted, so its free bit is set already, as rt_delete_at()
 * sets an id's before its slot empties.
 */
static void *rt_root_item_delete(struct radix_tree_root *root)
{
	void *item = rt_entry_locked(root, root->rnode);

	rt_assert((rt_bits_locked(root, root->tags) >> RT_IDR_FREE) & 1UL);
	/* Unpublish: readers now find an empty tree. */
	rt_publish(root->rnode, NULL);
	rt_bits_store(root->tags, 0UL);
	rt_items_add(root, -1);
	return item;
}

int rt_full_insert_locked(struct radix_tree_root *root, unsigned long index,
			  const struct rt_path *path, void *item, bool item_free, gfp_t gfp)
{
	const struct rt_path_step *leaf = path->depth ? &path->step[path->depth - 1] : NULL;
	void *mem[RT_IDR_MAX_NODES], *top = rt_entry_locked(root, root->rnode), *entry;
	size_t sizes[RT_IDR_MAX_NODES];
	unsigned int i, nr, level, top_level = top ? rt_entry_level(top) : 0;

	rt_assert_locked(root);
	rt_assert(rt_root_idr(root) && index <= RT_IDR_MAX_KEY);
	rt_assert(rt_path_is_current(root, index, path));
	switch (path->end) {
	case RT_END_ROOT:
		return -EEXIST;  /* key 0 holds the root item */
	case RT_END_SLOT:
		if (rt_entry_locked(root, *rt_step_slot(leaf)))
			return -EEXIST;
		/* The item is all there is to publish; then its slot is no
		 * longer free, nor, if it was the last, the leaf. */
		rt_slot_set(root, rt_entry_node(leaf->entry), (unsigned int)leaf->pos, item);
		if (!item_free)
			rt_free_clear_path(root, path, 1UL << leaf->pos);
		rt_items_add(root, 1);
		return 0;
	case RT_END_EMPTY:
		if (!leaf && index == 0 && rt_root_ida(root)) {
			rt_root_item_publish(root, item, item_free);
			return 0;
		}
		level = leaf ? rt_entry_level(leaf->entry) - 1 : rt_level_for(index);
		nr = level + 1;
		break;
	case RT_END_ABOVE:
		/* A new top, the old one under its slot 0 through a node per
		 * level between them, and the key's chain under another.  The
		 * root item counts as a top below level 0: a new leaf takes
		 * it, and is the new top if it holds the key too. */
		level = rt_level_for(index);
		nr = rt_root_item(top) ? 2 * level + 1 : (level - top_level) + level;
		break;
	default:
		/* Only compact nodes end a descent otherwise. */
		rt_assert(!"an IDR tree holds full nodes only");
		return -EINVAL;
	}
	rt_assert(nr <= RT_IDR_MAX_NODES);
	for (i = 0; i < nr; i++)
		sizes[i] = sizeof(struct rt_node);
	if (rt_nodes_get(mem, sizes, nr, rt_may_alloc(gfp)))
		return -ENOMEM;
	root->nr_nodes += nr;
	rt_items_add(root, 1);
	if (path->end == RT_END_ABOVE) {
		bool top_free = (rt_bits_locked(root, root->tags) >> RT_IDR_FREE) & 1UL;
		unsigned int offset = rt_offset(index, level);
		struct rt_node *node;

		/* Slot 0 is free above the old top if the old top has a free
		 * slot, and always higher up, above a node of one child. */
		entry = top;
		i = top_level + 1;
		if (rt_root_item(top)) {
			entry = rt_full_node_build(mem[--nr], 0, 0, top, top_free);
			top_free = true;
			i = 1;
		}
		if (level >= i) {
			void *chain = rt_full_chain_build(mem, &nr, level - 1, index, item, item_free);

			for (; i < level; i++, top_free = true)
				entry = rt_full_node_build(mem[--nr], i, 0, entry, top_free);
			entry = rt_full_node_build(mem[--nr], level, 0, entry, top_free);
			node = rt_entry_node(entry);
			node->slots[offset] = chain;
		} else {
			/* The root item's leaf is the new top: the item
			 * beside it, its slot taken unless @item_free. */
			node = rt_entry_node(entry);
			node->slots[offset] = item;
			if (!item_free)
				node->tags[RT_IDR_FREE] &= ~(1UL << offset);
		}
		node->present |= 1UL << offset;
		rt_assert(nr == 0);
		/* Publish: the new top, complete, the old tree under it.
		 * Then the root's free bit (release), for writers: a new top
		 * always has a free slot.  Readers do not read that bit: one
		 * may meet the new top with the old bit, as when the writer
		 * is preempted here, where the transition is counted (debug
		 * builds: the tests' hook holds the writer there). */
		rt_publish(root->rnode, entry);
		rt_transition(RT_TR_GROW_ROOT);
		rt_bits_store(root->tags, 1UL << RT_IDR_FREE);
		return 0;
	}
	entry = rt_full_chain_build(mem, &nr, level, index, item, item_free);
	if (leaf) {
		/* Publish: the chain, complete; the slot stays free (the
		 * chain's top has free slots). */
		rt_slot_set(root, rt_entry_node(leaf->entry), (unsigned int)leaf->pos, entry);
	} else {
		/* Publish: the whole tree at once; then its free bit, as
		 * above. */
		rt_publish(root->rnode, entry);
		rt_bits_store(root->tags, 1UL << RT_IDR_FREE);
	}
	rt_transition(RT_TR_NEW_NODE);
	return 0;
}

void *rt_delete_locked(struct radix_tree_root *root, unsigned long index)
{
	struct rt_path path;
	void **slot = rt_descend(root, index, &path, NULL);

	rt_assert_locked(root);
	if (!slot || !rt_entry_locked(root, *slot))
		return NULL;
	if (path.end == RT_END_ROOT)
		return rt_root_item_delete(root);
	return rt_delete_at(root, &path, NULL);
}

/* ---- delete and shrink ------------------------------------------------- */

/* Does the node of @step hold nothing any more? */
static bool rt_step_empty(const struct radix_tree_root *root, const struct rt_path_step *step)
{
	if (rt_entry_compact(step->entry))
		return rt_cnode_empty(root, rt_entry_cnode(step->entry));
	return rt_bits_locked(root, rt_entry_node(step->entry)->present) == 0;
}

/* Empty the slot of @step (its tags already cleared): readers find NULL
 * from now on. */
static void rt_step_clear(struct radix_tree_root *root, const struct rt_path_step *step)
{
	if (rt_entry_compact(step->entry)) {
		struct rt_cnode *node = rt_entry_cnode(step->entry);

		/* Unpublish: the position becomes a tombstone, which only
		 * its key may fill again (rt_cnode_refill()). */
		rt_publish(rt_cnode_slots(node)[step->pos], NULL);
		/* Stored once: a store per delete would take the line
		 * from every reader of the node (struct rt_cnode). */
		if (!node->deleted)
			node->deleted = 1;
	} else {
		rt_slot_clear(root, rt_entry_node(step->entry), (unsigned int)step->pos);
	}
}

/*
 * Shrink the height: while the top node's only entry is a child covering
 * keys from 0, that child can be the root.  One publish of the final root;
 * the skipped top nodes are unlinked intact (their one entry still leads
 * readers down).
 */
static void rt_shrink(struct radix_tree_root *root)
{
	void *top = rt_entry_locked(root, root->rnode);
	void *entry = top, *child;

	if (!top)
		return;
	while ((child = rt_top_shrink_child(root, entry)))
		entry = child;
	if (entry == top)
		return;
	/* Unpublish the old top nodes: readers already on them still find
	 * the child until their grace period ends. */
	rt_publish(root->rnode, entry);
	/* Counted between the top and the root's bit, as a grow. */
	rt_transition(RT_TR_SHRINK);
	if (rt_root_idr(root)) {
		/* The old tops had free slots; the new one may have none. */
		unsigned long free = rt_bits_locked(root, rt_entry_node(entry)->tags[RT_IDR_FREE]);

		rt_bits_store(root->tags, free ? 1UL << RT_IDR_FREE : 0UL);
	}
	while (top != entry) {
		void *next = rt_top_shrink_child(root, top);

		rt_node_unlink(root, top, 0);
		top = next;
	}
}

/* Delete the item in @path's last slot; *@leaf_freed (if given) says
 * whether the node holding it was emptied and unlinked. */
static void *rt_delete_at(struct radix_tree_root *root, struct rt_path *path, bool *leaf_freed)
{
	struct rt_path_step *leaf = rt_path_leaf(path);
	void *item = rt_entry_locked(root, *rt_step_slot(leaf));
	unsigned int d;

	/* An IDR's id is free again: its bits are set before its slot
	 * empties, so that a reader's free words never show a key that is
	 * absent as taken (rt_free_scan() passes no such key over). */
	if (rt_root_idr(root))
		rt_free_set_path(root, path, 1UL << leaf->pos);
	else
		rt_tags_clear_slot(root, path);
	/* Unpublish the item: readers now find NULL (or still the item, until
	 * they reload); the caller frees it after a grace period. */
	rt_step_clear(root, leaf);
	rt_items_add(root, -1);
	if (leaf_freed)
		*leaf_freed = rt_step_empty(root, leaf);
	for (d = path->depth - 1; rt_step_empty(root, &path->step[d]); d--) {
		/* Unpublish the empty node; it is freed after a grace period
		 * that starts at the outermost unlock. */
		if (d == 0) {
			rt_publish(root->rnode, NULL);
			rt_bits_store(root->tags, 0UL);
		} else {
			rt_step_clear(root, &path->step[d - 1]);
		}
		rt_node_unlink(root, path->step[d].entry, path->step[d].base);
		rt_transition(RT_TR_UNLINK);
		if (d == 0)
			return item;
	}
	rt_shrink(root);
	return item;
}

RCURADIX_API void *radix_tree_delete(struct radix_tree_root *root, unsigned long index)
{
	struct rt_path path;
	void **slot;
	void *item = NULL;

	if (rt_writer_enter_plain(root, __func__))
		return NULL;
	slot = rt_descend(root, index, &path, NULL);
	if (slot && rt_entry_locked(root, *slot))
		item = rt_delete_at(root, &path, NULL);
	rt_writer_done(root);
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
	if (rt_writer_enter_plain(root, __func__))
		return NULL;
	if (rt_descend(root, iter->index, &path, NULL) == slot && rt_entry_locked(root, *slot)) {
		item = rt_delete_at(root, &path, &leaf_freed);
		/* An emptied node is unlinked: end the chunk here, the next
		 * step re-descends from the following key (the node was
		 * empty, so nothing is skipped). */
		if (leaf_freed)
			radix_tree_iter_resume(slot, iter);
	}
	rt_writer_done(root);
	return item;
}

/* ---- replace_slot and destroy ------------------------------------------ */

#ifdef RT_DEBUG
/* Is @slot a slot of the subtree of @entry (debug builds: a full search,
 * since a slot does not say which node it is in)? */
static bool rt_slot_in_subtree(const struct radix_tree_root *root, void *entry, void **slot)
{
	unsigned int i, n;
	void **slots = rt_entry_slots(entry, &n);

	if (slot >= slots && slot < slots + n) {
		void *e = rt_entry_locked(root, *slot);

		return !e || !rt_is_internal(e);
	}
	for (i = 0; i < n; i++) {
		void *child = rt_entry_locked(root, slots[i]);

		if (child && rt_is_internal(child) && (rt_entry_compact(entry) ||
						       rt_entry_level(entry) > 0) &&
		    rt_slot_in_subtree(root, child, slot))
			return true;
	}
	return false;
}
#endif

/*
 * A slot obtained under the lock may lie in a compact node copied since,
 * in this lock hold: the node waits on the retired list, its item slots
 * NULL.  Its key is still written there: forward to the live slot of that
 * key, if it still holds an item.
 */
static void **rt_slot_forward(struct radix_tree_root *root, void **slot)
{
	unsigned long base;
	void *retired = rt_retired_find(root, slot, &base);
	struct rt_cnode *node;
	struct rt_path path;
	void **slots, **live;
	unsigned int pos;

	if (!retired || !rt_entry_compact(retired))
		return NULL;
	node = rt_entry_cnode(retired);
	slots = rt_cnode_slots(node);
	if (slot < slots || slot >= slots + node->next)
		return NULL;
	pos = (unsigned int)(slot - slots);
	live = rt_descend(root, base | rt_sfx_get(node, rt_sfx_width(node->level), pos), &path,
			  NULL);
	return live && rt_entry_locked(root, *live) ? live : NULL;
}

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
	if (!old) {
		void **live = rt_slot_forward(root, slot);

		if (live) {
			slot = live;
			old = rt_entry_locked(root, *slot);
		}
	}
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
	unsigned int i, n;
	void **slots = rt_entry_slots(entry, &n);

	for (i = 0; i < n; i++) {
		void *child = rt_entry_locked(root, slots[i]);

		if (child && rt_is_internal(child))
			rt_free_subtree(root, child);
	}
	rt_node_free_deferred(root, entry);
}

void rt_destroy_locked(struct radix_tree_root *root)
{
	void *top = rt_entry_locked(root, root->rnode);

	/* Unpublish everything at once; readers inside a read-side section
	 * keep a consistent old tree until their grace period ends. */
	rt_publish(root->rnode, NULL);
	rt_bits_store(root->tags, 0UL);
	if (top && !rt_root_item(top))
		rt_free_subtree(root, top);
	root->nr_nodes = 0;
	rt_items_add(root, -(long)root->nr_items);
}

RCURADIX_API void radix_tree_destroy(struct radix_tree_root *root)
{
	if (rt_writer_enter(root, __func__))
		return;
	rt_destroy_locked(root);
	rt_writer_done(root);
}
