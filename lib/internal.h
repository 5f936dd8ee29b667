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
 * Lock rules: everything a writer changes is changed under root->lock.
 * Readers never write.  Every load of a slot, of root->rnode or of a bitmap
 * says which side it is on through the accessors of base.h: rt_entry_rcu()
 * and rt_bits_rcu() for readers, rt_entry_locked() and rt_bits_locked()
 * for writers (debug builds assert the lock there).
 *
 * Files and their layers (each file uses only the ones above it):
 *   internal.h    layout, encoding, index arithmetic (no state)
 *   base.c/.h     misuse reports, the tree lock, writer entry, accessors,
 *                 publication and bitmap primitives
 *   stats.c/.h    per-thread node counters, rcuradix_get_stats()
 *   backend.h     the node memory interface; one file per backend:
 *                 backend-slab.c, backend-jemalloc.c, backend-arena.c,
 *                 backend-libc.c
 *   node.c/.h     counted node allocation, fault injection, call_rcu frees,
 *                 fork handlers, radix_tree_memory()
 *   preload.c/.h  the per-thread reserve; nodes for one operation
 *   descend.h     the descent from the root to a leaf
 *   iter.c        readers: the walk engine, iterators, gang lookups
 *   tag.c/.h      tag propagation, tag calls, range tagging
 *   tree.c        init, lookups, insert, delete, shrink, replace_slot,
 *                 iter_delete, destroy
 *   debug.c       radix_tree_verify()
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

/* The leaf node containing @slot at @offset. */
static inline struct rt_node *rt_slot_node(void **slot, unsigned int offset)
{
	return caa_container_of(slot - offset, struct rt_node, slots[0]);
}

/* Size of a node as allocated (the unit every counter is kept in). */
#define RT_NODE_SIZE sizeof(struct rt_node)

/* ---- assertions (debug builds) ----------------------------------------- */

#ifdef RT_DEBUG
/* An expression, so that accessors can assert inside one. */
#define rt_assert(cond)                                                                \
	((void)(caa_likely(cond) || (rt_assert_fail(#cond, __FILE__, __LINE__, __func__), 0)))
RT_HIDDEN void rt_assert_fail(const char *cond, const char *file, int line, const char *func)
	__attribute__((noreturn));
#else
/* Not evaluated; sizeof keeps its operands "used". */
#define rt_assert(cond) ((void)sizeof(!(cond)))
#endif

#endif /* RCURADIX_INTERNAL_H */
