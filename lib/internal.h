/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - node layout, entry encoding, coding conventions and lock
 * assertions shared by the library's files.  Nothing here is exported: every
 * cross-file name carries the rt_ prefix and hidden visibility.
 *
 * Coding conventions (names mean the same thing in every file):
 *   index   a key, 0 .. ULONG_MAX.
 *   entry   the value of a slot or of root->rnode as stored: an item (leaf
 *           slots only), an internal entry (a node pointer with its level
 *           encoded, see below), or NULL.
 *   node    a struct rt_node *, decoded from an internal entry.
 *   level   height of a node above the leaves: leaves are level 0.  A node
 *           at level L decodes bits [L*RT_MAP_SHIFT, (L+1)*RT_MAP_SHIFT) of
 *           an index.  Every entry carries its node's level.  Today a child
 *           is always at its parent's level - 1, and the descents rely on
 *           that for speed (verify checks it); nodes that skip levels would
 *           decode the entry's level in rt_descend() and the walk engine.
 *   shift   level * RT_MAP_SHIFT.
 *   offset  the slot number within a node: (index >> shift) & RT_MAP_MASK.
 *   slot    a void ** pointing into node->slots[].
 *   path    the nodes and offsets a writer went through, top first.
 *
 * Node layout (64-slot build; 8-slot build: 8 slots, same header):
 *
 *      offset 0                                                   512   576
 *      +---------+---------+---------+--- - - ---+----------------+------+
 *      | slot 0-7| slot 8-15|slot16-23|          | slots 56-63    |header|
 *      +---------+---------+---------+--- - - ---+----------------+------+
 *       one 64-byte line per 8 slots: a lookup reads exactly one line per
 *       level (the levels come from the root entry, not from headers)
 *
 *      header (one line): present                  bit i: slots[i] != NULL
 *                         tags[RADIX_TREE_MAX_TAGS]  5 x 64-bit bitmaps
 *                         struct rcu_head rcu        used once unlinked
 *
 *      A node's count of used slots is popcount(present); walks step
 *      through a chunk with the present (or a tag) bitmap in a register.
 *
 * Internal entry encoding: nodes are 64-byte aligned, so the low six bits
 * of a node address are free:
 *      bit 0      1 = internal entry (items have their two low bits clear)
 *      bits 1-5   the node's level (0..21)
 *
 * Lock rules: everything a writer changes is changed under root->lock
 * (rt_assert_locked()).  Readers never write; they load slots with
 * rcu_dereference() and tag words with CMM_LOAD_SHARED().
 */
#ifndef RCURADIX_INTERNAL_H
#define RCURADIX_INTERNAL_H

#define _LGPL_SOURCE 1 /* inline rcu_dereference / rcu_assign_pointer */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu/call-rcu.h>
#include <urcu/compiler.h>
#include <urcu/flavor.h>
#include <urcu/pointer.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>

#include "rcuradix/radix-tree.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))

#ifndef RT_MAP_SHIFT
#define RT_MAP_SHIFT 6
#endif
#if RT_MAP_SHIFT != 6 && RT_MAP_SHIFT != 3
#error "RT_MAP_SHIFT must be 6 (64-slot nodes) or 3 (8-slot test build)"
#endif
#define RT_MAP_SIZE (1UL << RT_MAP_SHIFT)
#define RT_MAP_MASK (RT_MAP_SIZE - 1)
#define RT_BITS_PER_LONG ((unsigned int)(sizeof(unsigned long) * CHAR_BIT))
/* Levels needed for the whole key space: 11 (64 slots) or 22 (8 slots). */
#define RT_MAX_LEVELS ((RT_BITS_PER_LONG + RT_MAP_SHIFT - 1) / RT_MAP_SHIFT)
/*
 * Worst case of one insertion: a tree holding only key 0 receives ULONG_MAX,
 * growing to full height and building a new path down: 2 x height - 1.
 */
#define RT_PRELOAD_SIZE (2 * RT_MAX_LEVELS - 1)

#define RT_ENTRY_INTERNAL 1UL
#define RT_ENTRY_LEVEL_SHIFT 1
#define RT_ENTRY_LEVEL_MASK 0x3eUL
#define RT_NODE_ALIGN 64UL
#define RT_ITEM_ALIGN_MASK 3UL

struct rt_node {
	/* W: tree lock, rt_publish() via rt_slot_set/clear; R: rcu_dereference() */
	void *slots[RT_MAP_SIZE];
	/* Bit i set iff slots[i] != NULL.  W: tree lock, rt_tag_store(); R: rt_tag_load() */
	unsigned long present;
	/* W: tree lock, rt_tag_store(); R: rt_tag_load() */
	unsigned long tags[RADIX_TREE_MAX_TAGS];
	/* Written by call_rcu once the node is unlinked; nothing else uses it. */
	struct rcu_head rcu;
} __attribute__((aligned(RT_NODE_ALIGN)));

_Static_assert(RT_MAX_LEVELS - 1 <= (RT_ENTRY_LEVEL_MASK >> RT_ENTRY_LEVEL_SHIFT),
	       "level must fit the entry encoding");
_Static_assert(sizeof(struct rt_node) == RT_MAP_SIZE * sizeof(void *) + 64,
	       "the header is exactly one cache line");

/* ---- entries ----------------------------------------------------------- */

static inline bool rt_is_internal(const void *entry)
{
	return ((uintptr_t)entry & RT_ENTRY_INTERNAL) != 0;
}

static inline struct rt_node *rt_entry_node(const void *entry)
{
	return (struct rt_node *)((uintptr_t)entry & ~(RT_NODE_ALIGN - 1));
}

static inline unsigned int rt_entry_level(const void *entry)
{
	return (unsigned int)(((uintptr_t)entry & RT_ENTRY_LEVEL_MASK) >> RT_ENTRY_LEVEL_SHIFT);
}

static inline void *rt_node_entry(const struct rt_node *node, unsigned int level)
{
	return (void *)((uintptr_t)node | ((uintptr_t)level << RT_ENTRY_LEVEL_SHIFT) |
			RT_ENTRY_INTERNAL);
}

static inline bool rt_item_valid(const void *item)
{
	return item && ((uintptr_t)item & RT_ITEM_ALIGN_MASK) == 0;
}

/* ---- index arithmetic -------------------------------------------------- */

static inline unsigned int rt_shift(unsigned int level)
{
	return level * RT_MAP_SHIFT;
}

static inline unsigned int rt_offset(unsigned long index, unsigned int level)
{
	return (unsigned int)((index >> rt_shift(level)) & RT_MAP_MASK);
}

/* Largest index a subtree rooted at @level covers (relative to its base). */
static inline unsigned long rt_level_maxindex(unsigned int level)
{
	unsigned int bits = rt_shift(level + 1);

	return bits >= RT_BITS_PER_LONG ? ULONG_MAX : (1UL << bits) - 1;
}

/* Smallest level whose subtree covers @index. */
static inline unsigned int rt_level_for(unsigned long index)
{
	unsigned int level = 0;

	while (index > rt_level_maxindex(level))
		level++;
	return level;
}

/*
 * First index of the slot after @index's slot at @level, or 0 if that would
 * pass ULONG_MAX (the caller must treat 0 as "end of key space").
 */
static inline unsigned long rt_next_slot_index(unsigned long index, unsigned int level)
{
	unsigned long span_mask = level ? rt_level_maxindex(level - 1) : 0;

	return (index | span_mask) + 1;
}

/* @index with its offset at @level replaced by @offset and lower bits cleared. */
static inline unsigned long rt_index_at(unsigned long index, unsigned int level,
					unsigned int offset)
{
	return (index & ~rt_level_maxindex(level)) | ((unsigned long)offset << rt_shift(level));
}

/* Slots in use (writers: exact under the lock). */
static inline unsigned int rt_node_count(const struct rt_node *node)
{
	return (unsigned int)__builtin_popcountl(node->present);
}

/* ---- reader-side loads and writer-side stores -------------------------- */

/* Load a slot or root entry.  rcu_dereference: the entry may be a node or
 * item published concurrently; its contents must be seen initialised. */
#define rt_load(p) rcu_dereference(p)

/* The leaf node containing @slot at @offset. */
static inline struct rt_node *rt_slot_node(void **slot, unsigned int offset)
{
	return caa_container_of(slot - offset, struct rt_node, slots[0]);
}

/*
 * Publish @v into *@p.  Every change a reader can observe to a slot or to
 * root->rnode goes through here: rcu_assign_pointer orders the
 * initialisation of a new node or item before the store that makes it
 * reachable, so a reader never sees a half-built node.
 */
#define rt_publish(p, v) rcu_assign_pointer(p, v)

/*
 * Tag words: one writer (the lock holder), lock-free readers.  A stale tag
 * is allowed (guarantee E), but a reader that sees a bit set must also see
 * every store the writer made before setting it: the leaf's bit before its
 * ancestors' (so descending on a set bit finds the tagged slot), and the
 * caller's own stores before radix_tree_tag_set().  Release store, acquire
 * load (plain moves on x86); atomic, so a word is never seen torn.
 */
#define rt_tag_load(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rt_tag_store(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* Internal walk flag: the caller scans the chunk itself (gang lookups), so
 * radix_tree_next_chunk() need not build the chunk's presence bitmap. */
#define RT_ITER_NO_BITMAP 0x100u

/*
 * Fill or empty a slot of a linked node (tree lock held), keeping its
 * present bit in step.  Filling publishes the entry before setting the bit
 * (release): a reader that sees the bit finds the entry.  Emptying clears
 * the bit, then publishes NULL: a reader may still see the bit with a NULL
 * slot, and skips it.
 */
static inline void rt_slot_set(struct rt_node *node, unsigned int offset, void *entry)
{
	rt_publish(node->slots[offset], entry);
	rt_tag_store(node->present, node->present | (1UL << offset));
}

static inline void rt_slot_clear(struct rt_node *node, unsigned int offset)
{
	rt_tag_store(node->present, node->present & ~(1UL << offset));
	rt_publish(node->slots[offset], NULL);
}

/* ---- lock assertions (SQLite style) ------------------------------------ */

RT_HIDDEN unsigned long rt_thread_id(void);

static inline bool rt_lock_held(const struct radix_tree_root *root)
{
	/* Only the owner ever stores its own id here, so a relaxed read is
	 * exact for the question "do I hold it?". */
	return CMM_LOAD_SHARED(root->owner) == rt_thread_id();
}

#ifdef RT_DEBUG
#define rt_assert(cond)                                                                \
	do {                                                                           \
		if (caa_unlikely(!(cond)))                                             \
			rt_assert_fail(#cond, __FILE__, __LINE__, __func__);           \
	} while (0)
RT_HIDDEN void rt_assert_fail(const char *cond, const char *file, int line, const char *func)
	__attribute__((noreturn));
#define rt_debug_msg(...) fprintf(stderr, "rcuradix: " __VA_ARGS__)
#else
#define rt_assert(cond) ((void)0)
#define rt_debug_msg(...) ((void)0)
#endif
#define rt_assert_locked(root) rt_assert(rt_lock_held(root))

/* tree.c: the recursive tree lock used by every writer. */
RT_HIDDEN void rt_lock(struct radix_tree_root *root);
RT_HIDDEN void rt_unlock(struct radix_tree_root *root);

/* ---- writer paths ------------------------------------------------------ */

struct rt_path_step {
	struct rt_node *node;
	unsigned int level;
	unsigned int offset;
};

/* The nodes a writer went through on the way to @index, top first. */
struct rt_path {
	struct rt_path_step step[RT_MAX_LEVELS];
	unsigned int depth;  /* steps recorded */
};

/*
 * rt_descend() - the descent, the one place that knows how an index selects
 * a path.  Returns the leaf slot for @index, or NULL if no leaf covers it.
 * If @path is not NULL (writers, under the lock), it receives every node
 * passed, top first, also when the descent stops early at an empty slot:
 * path->depth is then the number of nodes that exist on @index's path.
 * Works on a stale root: the level travels with each entry, so a reader that
 * loaded the root before a grow or shrink still decodes every node it reaches
 * correctly (guarantee F).
 * Context: RCU reader, or tree lock held.
 */
static inline void **rt_descend(const struct radix_tree_root *root, unsigned long index,
				struct rt_path *path)
{
	void *entry = rt_load(root->rnode);
	unsigned int level;

	if (path)
		path->depth = 0;
	if (!entry)
		return NULL;
	level = rt_entry_level(entry);
	if (index > rt_level_maxindex(level))
		return NULL;
	for (;;) {
		struct rt_node *node = rt_entry_node(entry);
		unsigned int offset = rt_offset(index, level);

		if (path)
			path->step[path->depth++] = (struct rt_path_step){ node, level, offset };
		if (level == 0)
			return &node->slots[offset];
		entry = rt_load(node->slots[offset]);
		if (!entry)
			return NULL;
		/*
		 * Children sit exactly one level down (radix_tree_verify()
		 * checks it against the level each entry carries), so the next
		 * offset does not wait for the loaded entry to be decoded: each
		 * level's dependency chain is load -> mask -> load.  Nodes that
		 * skip levels would decode rt_entry_level(entry) here instead.
		 */
		level--;
		rt_assert(rt_entry_level(entry) == level);
	}
}

/* The deepest step of a path. */
static inline struct rt_path_step *rt_path_leaf(struct rt_path *path)
{
	return &path->step[path->depth - 1];
}
/* tree.c: delete the item in @path's leaf slot (path from rt_walk). */
RT_HIDDEN void *rt_delete_at(struct radix_tree_root *root, struct rt_path *path,
			     bool *leaf_freed);

/* tag.c: tag propagation, shared by tag_set/clear, delete and range tagging. */
RT_HIDDEN void rt_tag_set_path(struct radix_tree_root *root, const struct rt_path *path,
			       unsigned int tag, unsigned long leaf_bits);
RT_HIDDEN void rt_tag_clear_path(struct radix_tree_root *root, const struct rt_path *path,
				 unsigned int tag, unsigned long leaf_bits);
RT_HIDDEN void rt_tags_clear_slot(struct radix_tree_root *root, const struct rt_path *path);

/* ---- nodes (node.c) ---------------------------------------------------- */

/* Size of a node as allocated (the unit every counter is kept in). */
#define RT_NODE_SIZE sizeof(struct rt_node)

/* Take @n nodes for one operation from the thread's reserve, refilling it
 * from the backend if @may_alloc.  All or nothing: 0 or -ENOMEM. */
RT_HIDDEN int rt_nodes_get(struct rt_node **nodes, unsigned int n, bool may_alloc);
/* Prepare a node taken by rt_nodes_get(): empty, untagged. */
RT_HIDDEN void rt_node_init(struct rt_node *node);
/* Free a node that readers may still hold: call_rcu of the tree's flavor. */
RT_HIDDEN void rt_node_free_deferred(const struct radix_tree_root *root, struct rt_node *node);

/* Backend (node.c): up to @n nodes, stopping at the first failure; counted. */
RT_HIDDEN unsigned int rt_backend_alloc(struct rt_node **nodes, unsigned int n);
RT_HIDDEN void rt_backend_free(struct rt_node **nodes, unsigned int n);
/* Return memory the backend caches (the slab pool's spare slab). */
RT_HIDDEN void rt_backend_trim(void);
/* Bytes the backend spends beyond @nodes x RT_NODE_SIZE. */
RT_HIDDEN unsigned long rt_backend_overhead_bytes(unsigned long nodes);

/* preload.c: the per-thread reserve. */
RT_HIDDEN unsigned int rt_reserve_take(struct rt_node **nodes, unsigned int n, bool may_alloc);
RT_HIDDEN void rt_preload_fini(void);

/* Counters shared by node.c and preload.c. */
struct rt_counters {
	unsigned long allocated;
	unsigned long freed;
	unsigned long reserved;
	unsigned long pending;
	unsigned long pending_peak;
	unsigned long failures;
	unsigned long backing_bytes;
};
RT_HIDDEN extern struct rt_counters rt_counters;

/*
 * Fault injection (tests): rt_fault_fail_nth(n) makes the n-th backend node
 * allocation from now fail (n = 0 disarms); rt_fault_fail_all(true) fails
 * every one until reset.
 */
RT_HIDDEN void rt_fault_fail_nth(unsigned long n);
RT_HIDDEN void rt_fault_fail_all(bool on);

#endif /* RCURADIX_INTERNAL_H */
