/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - node layout, entry encoding, coding conventions and lock
 * assertions shared by the library's files.  Nothing here is exported: every
 * cross-file name carries the rt_ prefix and hidden visibility.
 *
 * Coding conventions (names mean the same thing in every file):
 *   index   a key, 0 .. ULONG_MAX.
 *   entry   the value of a slot or of root->rnode as stored: an item (in a
 *           full leaf, or in a compact node at any level), an internal
 *           entry (a node pointer with its level encoded, see below), or
 *           NULL.  An IDA tree's root->rnode may hold an item too: key
 *           0's bitmap ("IDR trees", the root item).
 *   node    a struct rt_node *, decoded from an internal entry.
 *   level   height of a node above the leaves: leaves are level 0.  A node
 *           at level L decodes bits [L*RT_MAP_SHIFT, (L+1)*RT_MAP_SHIFT) of
 *           an index.  Every entry carries its node's level.  A full
 *           node's child sits at its level - 1 (the descents rely on it;
 *           verify checks it); a compact node's child may sit lower, under
 *           the key prefix stored with it (path compression).  A child
 *           further down hangs from a full node by a bridge: a one-entry
 *           compact node at level - 1 that keeps the prefix.
 *   shift   level * RT_MAP_SHIFT.
 *   offset  the slot number within a full node: (index >> shift) & RT_MAP_MASK.
 *   pos     the position of an entry within a compact node.
 *   slot    a void ** pointing into a node's slots.
 *   path    the nodes and offsets (positions) a writer went through, top
 *           first.
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
 *      The level of a full node ("F") is never stored in it: F children
 *      sit exactly one level below their parent, and an F root covers
 *      [0, maxindex(level)].
 *
 * Compact node ("C"): the entries of a node that is not full, appended in
 * place, in size classes (rt_class_round(): jemalloc's size classes that
 * are multiples of RT_NODE_ALIGN, 64 .. RT_C_MAX_BYTES):
 *
 *      0        8                 24
 *      +--------+-----------------+----------+---------+-----+-----------+
 *      | header | demotions /     | sfx[cap] | tag[cap]| pad | slot[cap] |
 *      |        | retired, rcu    |          |         |     |           |
 *      +--------+-----------------+----------+---------+-----+-----------+
 *      header: level, size class, cap (entries room), dead, next (entries
 *              used: positions [0, next) were written, in append order),
 *              sorted (positions [0, sorted) are in key order: a copy
 *              writes its entries sorted, and an append whose suffix
 *              exceeds every earlier one extends the run), children
 *              (child entries built with: tells lookups what to match)
 *      demotions  while linked: the demoting copies made in the node's
 *              line of copies (the writer's; once unlinked, the space is
 *              the retired list's link, then the rcu_head)
 *      sfx[i]  entry i's key suffix: index & maxindex(level), in 1, 2, 4 or
 *              8 bytes (rt_sfx_width(level)).  An item entry matches the
 *              key whose suffix it is.  A child entry holds the child's key
 *              prefix: it matches every key whose suffix agrees with it
 *              above the child's level (which the child's entry carries).
 *      tag[i]  bit t: the item bears tag t, or the child has some t bit;
 *              bit 7 (RT_CTAG_CHILD): the entry is a child, written with
 *              the entry and never changed, so that a scan tells items
 *              from children without loading their slots.
 *      slot[i] an item, a child entry (F or C, at any lower level: a child
 *              more than one level down is a compressed path, checked by
 *              the prefix in sfx[i]), or NULL (deleted: a tombstone).  A
 *              child's stored prefix is one of the keys of its range (its
 *              bits below the child's span are not necessarily zero), so
 *              the suffixes of live entries sort as their ranges do.
 *
 *      A position serves one key only: a deleted entry stays a tombstone
 *      (an insert of the item's key puts an item back in its slot, as a
 *      full leaf does: rt_cnode_refill()) until the node is copied (to
 *      another class, compacted, or with a group of its items moved into a
 *      new child) or, a top node of items only, has its items taken by a
 *      new top when the tree grows; the new node sorts its entries by key.
 *      Live entries never share a digit at the node's level with a child
 *      entry, and child entries never share one either.
 *      A node so replaced is retired: marked dead, then its item slots
 *      emptied, so that a reader that finds NULL checks "dead" and looks
 *      again from the root (rt_descend).
 *
 * Internal entry encoding: nodes are RT_NODE_ALIGN-aligned, so the low bits
 * of a node address are free:
 *      bit 0      1 = internal entry (items have their two low bits clear)
 *      bits 1..   the node's level (4 bits: 0..10; 8-slot build 5: 0..21)
 *      next bit   RT_ENTRY_FULL: an F node (clear: a C node), so that one
 *                 test of this bit tells a reader "an F node" from "NULL or
 *                 a C node"
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
 *                 backend-libc.c (backend-direct.h: the one-mallocx path
 *                 two of them share)
 *   node.c/.h     counted node allocation, fault injection, call_rcu frees,
 *                 fork handlers, radix_tree_memory()
 *   preload.c/.h  the per-thread reserve; nodes for one operation
 *   descend.h     the descent from the root to a leaf
 *   iter.c        readers: the walk engine, iterators, gang lookups
 *   reverse.c     readers going down the keys: the predecessor and the
 *                 reverse gang lookup
 *   tag.c/.h      tag propagation, tag calls, range tagging, the free scan
 *   tree.c/.h     init, lookups, insert, delete, shrink, replace_slot,
 *                 iter_delete, destroy; the full-node insert of IDR trees
 *   idr.c         the IDR (<rcuradix/idr.h>)
 *   ida.c         the IDA, on an IDR tree of bitmaps
 *   debug.c       radix_tree_verify()
 */
#ifndef RCURADIX_INTERNAL_H
#define RCURADIX_INTERNAL_H

#define _LGPL_SOURCE 1 /* inline rcu_dereference / rcu_assign_pointer */
#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu/call-rcu.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
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

#define RT_ENTRY_INTERNAL 1UL
#define RT_ENTRY_LEVEL_SHIFT 1
#if RT_MAP_SHIFT == 6
#define RT_ENTRY_LEVEL_BITS 4
#else
#define RT_ENTRY_LEVEL_BITS 5
#endif
#define RT_ENTRY_LEVEL_MASK (((1UL << RT_ENTRY_LEVEL_BITS) - 1) << RT_ENTRY_LEVEL_SHIFT)
#define RT_ENTRY_FULL (1UL << (RT_ENTRY_LEVEL_SHIFT + RT_ENTRY_LEVEL_BITS))
/* 64 bytes (64-slot build), 128 (8-slot build: one more level bit). */
#define RT_NODE_ALIGN (RT_ENTRY_FULL << 1)
#define RT_ITEM_ALIGN_MASK 3UL

/* While a node waits on its root's retired list (tree lock held), the
 * space of its rcu_head holds the list link and the node's first key. */
struct rt_retired {
	void *next;          /* the next retired node's entry */
	unsigned long base;  /* the node's smallest possible key */
};

struct rt_node {
	/* W: tree lock, rt_publish() via rt_slot_set/clear; R: rcu_dereference() */
	void *slots[RT_MAP_SIZE];
	/* Bit i set iff slots[i] != NULL.  W: tree lock, rt_tag_store(); R: rt_tag_load() */
	unsigned long present;
	/* W: tree lock, rt_tag_store(); R: rt_tag_load() */
	unsigned long tags[RADIX_TREE_MAX_TAGS];
	/* Written by call_rcu once the node is unlinked (before that, on the
	 * root's retired list, by the lock holder); readers never use it. */
	union {
		struct rcu_head rcu;
		struct rt_retired retired;
	};
} __attribute__((aligned(RT_NODE_ALIGN)));

/* A compact node; see the drawing above.  Entries follow the header. */
struct rt_cnode {
	uint8_t level;       /* set when built, read-only after */
	uint8_t nr_lines;    /* size in RT_NODE_ALIGN units; read-only */
	uint8_t cap;         /* entries it has room for; read-only */
	uint8_t dead;        /* 1 once retired. W: tree lock, release store; R: acquire */
	uint8_t next;        /* entries written. W: tree lock, release store after the
			      * entry; R: acquire load, then positions below it */
	uint8_t deleted;     /* 1 once an entry was deleted: tombstones may be
			      * left (rt_cnode_live() counts the entries).
			      * Stored once, and no count kept: a delete or a
			      * refill stores only its slot, nothing in this
			      * line, which every reader loads.  W, R: tree lock */
	uint8_t sorted;      /* positions [0, sorted) hold strictly increasing
			      * suffixes; never above next, never lowered.
			      * W: tree lock, before next; R: relaxed, then
			      * clamped to the next the reader loaded */
	uint8_t children;    /* child entries it was built with (appends add
			      * items only): set while private, read-only after */
	union {
		/* While linked: the demoting copies its line of copies made
		 * (RT_DEMOTE_ALL_AFTER).  Set while private, read by the next
		 * copy.  W, R: tree lock; readers never use it */
		unsigned long demotions;
		struct rt_retired retired; /* once unlinked, under the tree lock */
		struct rcu_head rcu;       /* then: call_rcu */
	};
	unsigned char data[];
} __attribute__((aligned(RT_NODE_ALIGN)));

_Static_assert(RT_MAX_LEVELS - 1 <= (RT_ENTRY_LEVEL_MASK >> RT_ENTRY_LEVEL_SHIFT),
	       "level must fit the entry encoding");
_Static_assert(sizeof(struct rt_node) == RT_MAP_SIZE * sizeof(void *) + 64,
	       "the header is exactly one cache line");
_Static_assert(offsetof(struct rt_cnode, data) == 24, "C node header is 24 bytes");
_Static_assert(sizeof(struct rt_node) % RT_NODE_ALIGN == 0, "F size is a multiple");

/* ---- entries ----------------------------------------------------------- */

static inline bool rt_is_internal(const void *entry)
{
	return ((uintptr_t)entry & RT_ENTRY_INTERNAL) != 0;
}

static inline struct rt_node *rt_entry_node(const void *entry)
{
	return (struct rt_node *)((uintptr_t)entry & ~(RT_NODE_ALIGN - 1));
}

static inline struct rt_cnode *rt_entry_cnode(const void *entry)
{
	return (struct rt_cnode *)((uintptr_t)entry & ~(RT_NODE_ALIGN - 1));
}

static inline bool rt_entry_compact(const void *entry)
{
	return ((uintptr_t)entry & RT_ENTRY_FULL) == 0;  /* internal entries only */
}

static inline unsigned int rt_entry_level(const void *entry)
{
	return (unsigned int)(((uintptr_t)entry & RT_ENTRY_LEVEL_MASK) >> RT_ENTRY_LEVEL_SHIFT);
}

static inline void *rt_node_entry(const struct rt_node *node, unsigned int level)
{
	return (void *)((uintptr_t)node | ((uintptr_t)level << RT_ENTRY_LEVEL_SHIFT) |
			RT_ENTRY_FULL | RT_ENTRY_INTERNAL);
}

static inline void *rt_cnode_entry(const struct rt_cnode *node)
{
	return (void *)((uintptr_t)node | ((uintptr_t)node->level << RT_ENTRY_LEVEL_SHIFT) |
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

/* Largest index a subtree rooted at @level covers (relative to its base).
 * A table: descents ask at every level, and one load is cheaper than the
 * shift, clamp and mask it replaces. */
#define RT_LEVEL_BITS(level)                                                           \
	(((level) + 1) * RT_MAP_SHIFT < RT_BITS_PER_LONG ? ((level) + 1) * RT_MAP_SHIFT   \
							 : RT_BITS_PER_LONG)
#define RT_LEVEL_MAXINDEX(level) (~0UL >> (RT_BITS_PER_LONG - RT_LEVEL_BITS(level)))
static inline unsigned long rt_level_maxindex(unsigned int level)
{
	static const unsigned long maxindex[] = {
		RT_LEVEL_MAXINDEX(0),  RT_LEVEL_MAXINDEX(1),  RT_LEVEL_MAXINDEX(2),
		RT_LEVEL_MAXINDEX(3),  RT_LEVEL_MAXINDEX(4),  RT_LEVEL_MAXINDEX(5),
		RT_LEVEL_MAXINDEX(6),  RT_LEVEL_MAXINDEX(7),  RT_LEVEL_MAXINDEX(8),
		RT_LEVEL_MAXINDEX(9),  RT_LEVEL_MAXINDEX(10), RT_LEVEL_MAXINDEX(11),
		RT_LEVEL_MAXINDEX(12), RT_LEVEL_MAXINDEX(13), RT_LEVEL_MAXINDEX(14),
		RT_LEVEL_MAXINDEX(15), RT_LEVEL_MAXINDEX(16), RT_LEVEL_MAXINDEX(17),
		RT_LEVEL_MAXINDEX(18), RT_LEVEL_MAXINDEX(19), RT_LEVEL_MAXINDEX(20),
		RT_LEVEL_MAXINDEX(21),
	};
	_Static_assert(sizeof(maxindex) / sizeof(maxindex[0]) >= RT_MAX_LEVELS,
		       "a bound for every level");

	return maxindex[level];
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



/* The full leaf holding @slot, the slot of @index. */
static inline struct rt_node *rt_slot_leaf(void **slot, unsigned long index)
{
	return caa_container_of(slot - (index & RT_MAP_MASK), struct rt_node, slots[0]);
}

/* ---- compact nodes: geometry ------------------------------------------- */

/* Entries a C node may hold (live or not): one bit each in a 64-bit map. */
#define RT_C_MAX_ENTRIES 64U
#define RT_C_HEADER offsetof(struct rt_cnode, data)

/* Bytes of one key suffix at @level: the bits index & maxindex(level).  A
 * table: the descents ask at every compact node. */
#define RT_SFX_WIDTH(level)                                                            \
	(((level) + 1) * RT_MAP_SHIFT <= 8    ? 1                                      \
	 : ((level) + 1) * RT_MAP_SHIFT <= 16 ? 2                                      \
	 : ((level) + 1) * RT_MAP_SHIFT <= 32 ? 4                                      \
					      : 8)
static inline unsigned int rt_sfx_width(unsigned int level)
{
	static const uint8_t width[] = {
		RT_SFX_WIDTH(0),  RT_SFX_WIDTH(1),  RT_SFX_WIDTH(2),  RT_SFX_WIDTH(3),
		RT_SFX_WIDTH(4),  RT_SFX_WIDTH(5),  RT_SFX_WIDTH(6),  RT_SFX_WIDTH(7),
		RT_SFX_WIDTH(8),  RT_SFX_WIDTH(9),  RT_SFX_WIDTH(10), RT_SFX_WIDTH(11),
		RT_SFX_WIDTH(12), RT_SFX_WIDTH(13), RT_SFX_WIDTH(14), RT_SFX_WIDTH(15),
		RT_SFX_WIDTH(16), RT_SFX_WIDTH(17), RT_SFX_WIDTH(18), RT_SFX_WIDTH(19),
		RT_SFX_WIDTH(20), RT_SFX_WIDTH(21),
	};
	_Static_assert(sizeof(width) >= RT_MAX_LEVELS, "a width for every level");

	return width[level];
}

static inline size_t rt_align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Offset of the slot array in a C node of @cap entries of width @w. */
static inline size_t rt_cnode_slots_off(unsigned int w, unsigned int cap)
{
	return rt_align8(RT_C_HEADER + (size_t)(w + 1) * cap);
}

/*
 * @bytes rounded up to a C node size class: a multiple of RT_NODE_ALIGN
 * that is also a size class of jemalloc (four per power of two: ... 448,
 * 512, 640, 768, 896, 1024, 1280), so that a node records all the memory
 * the allocator gives it and uses the rest as room.  Between 2^k and
 * 2^(k+1) the classes are 2^(k-2) apart.
 */
static inline size_t rt_class_round(size_t bytes)
{
	size_t step = RT_NODE_ALIGN;

	while (step * 8 < bytes)
		step *= 2;
	return (bytes + step - 1) & ~(step - 1);
}

/* Bytes a C node needs for @n entries at width @w, rounded to the class. */
static inline size_t rt_cnode_bytes_for(unsigned int n, unsigned int w)
{
	return rt_class_round(rt_cnode_slots_off(w, n) + n * sizeof(void *));
}

/* Entries a C node of @bytes holds at width @w. */
static inline unsigned int rt_cnode_cap_for(size_t bytes, unsigned int w)
{
	unsigned int cap = (unsigned int)((bytes - RT_C_HEADER) / (w + 1 + sizeof(void *)));

	if (cap > RT_C_MAX_ENTRIES)
		cap = RT_C_MAX_ENTRIES;
	while (cap && rt_cnode_slots_off(w, cap) + cap * sizeof(void *) > bytes)
		cap--;
	return cap;
}

/* The largest C node: RT_C_MAX_ENTRIES entries of 8-byte suffixes, in
 * its class (between 1024 and 2048 bytes the classes are 256 apart). */
#define RT_C_MAX_NEED ((RT_C_HEADER + 9 * RT_C_MAX_ENTRIES + 7) / 8 * 8 + 8 * RT_C_MAX_ENTRIES)
#define RT_C_MAX_BYTES ((RT_C_MAX_NEED + 255) / 256 * 256)
_Static_assert(RT_C_MAX_NEED > 1024 && RT_C_MAX_NEED <= 2048, "the largest class is 256-spaced");

static inline size_t rt_cnode_bytes(const struct rt_cnode *node)
{
	return (size_t)node->nr_lines * RT_NODE_ALIGN;
}

/* The slots of C node @node, whose suffixes are @w bytes wide (a constant
 * where the caller has dispatched on the width: no table load). */
static inline void **rt_cnode_slots_w(const struct rt_cnode *node, unsigned int w)
{
	return (void **)((char *)node + rt_cnode_slots_off(w, node->cap));
}

static inline void **rt_cnode_slots(const struct rt_cnode *node)
{
	return rt_cnode_slots_w(node, rt_sfx_width(node->level));
}

/* A C node's tag byte: the tag bits, and the entry's kind (children). */
#define RT_CTAG_CHILD_BIT 7U
#define RT_CTAG_CHILD (1U << RT_CTAG_CHILD_BIT)
#define RT_CTAG_MASK ((1U << RADIX_TREE_MAX_TAGS) - 1)
_Static_assert(RT_CTAG_MASK < RT_CTAG_CHILD, "tag bits and the kind bit share a byte");

static inline uint8_t *rt_cnode_tags_w(const struct rt_cnode *node, unsigned int w)
{
	return (uint8_t *)node->data + (size_t)w * node->cap;
}

static inline uint8_t *rt_cnode_tags(const struct rt_cnode *node)
{
	return rt_cnode_tags_w(node, rt_sfx_width(node->level));
}

/* Is entry @i of a C node (tag bytes @tags) a child?  Relaxed: the kind
 * bit is written before the entry is published and never changes while
 * it lives; a writer may be changing the tag bits beside it. */
static inline bool rt_ctag_child(const uint8_t *tags, unsigned int i)
{
	return (__atomic_load_n(&tags[i], __ATOMIC_RELAXED) & RT_CTAG_CHILD) != 0;
}

/*
 * The positions below @n of C node tag bytes @tags whose bit @bit is set,
 * as a bitmap (bit i: position i).  Sixteen bytes at a time where SSE2 is
 * there: the loads may read up to 15 bytes past the tag bytes, which stay
 * inside the node (its alignment padding and slots follow them) and are
 * masked off.  A byte is read whole: one a writer is changing gives its
 * old or its new bits.  The caller orders the loads (it loaded the node's
 * entry count with acquire).
 */
static inline unsigned long rt_ctag_bits_scalar(const uint8_t *tags, unsigned int n,
						unsigned int bit)
{
	unsigned long bits = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		bits |= (unsigned long)((__atomic_load_n(&tags[i], __ATOMIC_RELAXED) >> bit) & 1U)
			<< i;
	return bits;
}

static inline unsigned long rt_ctag_bits(const uint8_t *tags, unsigned int n, unsigned int bit)
{
#ifdef __SSE2__
	unsigned long bits = 0;
	unsigned int i;
	const __m128i want = _mm_set1_epi8((char)(1U << bit));

	for (i = 0; i < n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(tags + i));

		v = _mm_cmpeq_epi8(_mm_and_si128(v, want), want);
		bits |= (unsigned long)(unsigned int)_mm_movemask_epi8(v) << i;
	}
	return n < RT_BITS_PER_LONG ? bits & ((1UL << n) - 1) : bits;
#else
	return rt_ctag_bits_scalar(tags, n, bit);
#endif
}

/* Suffix of entry @i (written once, before the entry was published). */
static inline unsigned long rt_sfx_get(const struct rt_cnode *node, unsigned int w, unsigned int i)
{
	const unsigned char *p = node->data;

	switch (w) {
	case 1:
		return p[i];
	case 2:
		return ((const uint16_t *)(const void *)p)[i];
	case 4:
		return ((const uint32_t *)(const void *)p)[i];
	default:
		return ((const uint64_t *)(const void *)p)[i];
	}
}

/*
 * The first and the last suffix of the range of compact-node entry @e
 * stored with suffix @sfx: the suffix itself for an item; for a child,
 * the span of its level around the stored suffix, which may be any key of
 * the child's range (a split keeps it), not necessarily the first.
 */
static inline unsigned long rt_entry_first(unsigned long sfx, const void *e)
{
	return rt_is_internal(e) ? sfx & ~rt_level_maxindex(rt_entry_level(e)) : sfx;
}

static inline unsigned long rt_entry_last(unsigned long sfx, const void *e)
{
	return rt_is_internal(e) ? sfx | rt_level_maxindex(rt_entry_level(e)) : sfx;
}

static inline void rt_sfx_put(struct rt_cnode *node, unsigned int w, unsigned int i,
			      unsigned long sfx)
{
	unsigned char *p = node->data;

	switch (w) {
	case 1:
		p[i] = (uint8_t)sfx;
		break;
	case 2:
		((uint16_t *)(void *)p)[i] = (uint16_t)sfx;
		break;
	case 4:
		((uint32_t *)(void *)p)[i] = (uint32_t)sfx;
		break;
	default:
		((uint64_t *)(void *)p)[i] = sfx;
		break;
	}
}

/*
 * The slots of the node @entry points to, and in *@n how many of them may
 * hold something: a full node's RT_MAP_SIZE, the positions a compact node
 * has written (items, children or tombstones).
 */
static inline void **rt_entry_slots(const void *entry, unsigned int *n)
{
	if (rt_entry_compact(entry)) {
		*n = rt_entry_cnode(entry)->next;
		return rt_cnode_slots(rt_entry_cnode(entry));
	}
	*n = RT_MAP_SIZE;
	return rt_entry_node(entry)->slots;
}

/* Bytes of the node an entry points to. */
static inline size_t rt_entry_bytes(const void *entry)
{
	return rt_entry_compact(entry) ? rt_cnode_bytes(rt_entry_cnode(entry))
				       : sizeof(struct rt_node);
}

/*
 * Worst case of one insertion: three nodes and the bridges of one full
 * node, or 2 + RT_DEMOTE_ROOM nodes.  A full compact node moves a group of
 * its items into a new child and is copied without them; if all its items
 * shared one digit, that child is too full in turn and moves a group into
 * a grandchild (whose keys part at the child's level: no third time).  The
 * copy then holds one entry, the child and grandchild at most
 * RT_C_MAX_ENTRIES each.  Or the copy moves a second group, of at most
 * RT_C_MAX_ENTRIES / 2 items, into a second child, and is a full node.  Or,
 * having moved a pair of items, it moves up to RT_DEMOTE_ROOM more pairs,
 * each into a node of the smallest class, to keep that many entries free
 * (tree.c, rt_plan_demote_pairs()).  Only the copy can become a full node
 * with bridges (at most RT_F_MAX_BRIDGES, and no more than the plan's nodes
 * leave of RT_INSERT_MAX_NODES: else it stays compact): the children hold
 * items and at most one child, and a node of items would need a bridge per
 * item, which never pays (tree.c, rt_wants_full()).  The reserve
 * radix_tree_preload() fills holds one node of every size class plus a
 * second full node and a second largest node (RT_PRELOAD_SIZE nodes):
 * enough for the copy and the first child, which may be of the largest
 * class or full, and a third node of any size, since a compact node may
 * take a larger block than it asked for; the other nodes, bridges and
 * pairs, are of the smallest class and take any of the blocks left.
 *
 * One copy may take more, and never from the reserve alone: a copy whose
 * line of copies has demoted RT_DEMOTE_ALL_AFTER times moves every group
 * of items into a node of its own (tree.c, rt_plan_demote_all()), up to
 * RT_PLAN_ALL_NODES nodes and the bridges of one full node.  It allocates
 * them on the spot, where the tree's gfp mask allows, and if it cannot get
 * them all, it gives them back and makes the copy above instead: the
 * reserve still covers every insert.
 */
#define RT_DEMOTE_ROOM 8U
#define RT_PLAN_MAX_NODES (2U + RT_DEMOTE_ROOM)
#define RT_F_MAX_BRIDGES 8U
#define RT_INSERT_MAX_NODES (3U + RT_F_MAX_BRIDGES)
/* A node demotes at most once per digit before its digits are all
 * children: the 8-slot test build takes this path after five, so that its
 * tests reach it too. */
#define RT_DEMOTE_ALL_AFTER (RT_MAP_SIZE == 64 ? 10U : 5U)
#define RT_PLAN_ALL_NODES (2U + RT_MAP_SIZE)
/* The reserve's nodes: one of each C node size class (every multiple of
 * RT_NODE_ALIGN up to 512, then 640, 768, 896, 1024 and RT_C_MAX_BYTES),
 * one full node unless its size is one of them, and a second full and a
 * second largest node (preload.c checks the count). */
#define RT_PRELOAD_SIZE                                                                \
	(512 / RT_NODE_ALIGN + 4 + 1 +                                                 \
	 (sizeof(struct rt_node) > 512 && sizeof(struct rt_node) % 128 ? 1 : 0) + 2)
_Static_assert(RT_INSERT_MAX_NODES <= RT_PRELOAD_SIZE,
	       "the reserve holds enough blocks for the worst insert");
_Static_assert(RT_PLAN_MAX_NODES <= RT_INSERT_MAX_NODES, "a plan's nodes fit in an insert's");
_Static_assert(RT_PLAN_MAX_NODES <= RT_PLAN_ALL_NODES, "a plan has room for every kind");

/* Size of a full node (the unit of the node-count statistics). */
#define RT_NODE_SIZE sizeof(struct rt_node)

/* ---- IDR trees --------------------------------------------------------- */

/*
 * An IDR's tree (root->flags & RT_ROOT_IDR, set at init) holds full nodes
 * only, at keys 0 .. RT_IDR_MAX_KEY, and uses tag word RT_IDR_FREE of
 * every node for its free ids, inverted as the kernel's IDR_FREE: bit i is
 * set iff slot i is empty, or holds a child with some bit set.  The
 * root's bit RT_IDR_FREE: the top node has a free slot below it, or the
 * root item (below) is free (0 while the tree is empty); keys beyond the
 * top node's range are always free.  The root's bit is stored after each
 * top it stands for, so only writers take it for their top's; a reader's
 * free scan reads the top's own free word (tag.h).  Readers use it in two
 * ways only: as the root item's own bit once the item is seen still there
 * after it (tag_get(), a tagged walk), and, clear, to end a tagged walk
 * at once: whichever top it was stored for, none of its items had the
 * bit then, so no item had it throughout the call.
 * The other tag words stay 0.  A reserved id (allocated without an item)
 * holds RT_IDR_RESERVED, which no item can be (items are 4-byte aligned).
 */
#define RT_ROOT_IDR RADIX_TREE_FLAG_IDR_
#define RT_IDR_FREE 0U
#define RT_IDR_RESERVED ((void *)2)
#define RT_IDR_MAX_KEY 0xffffffffUL
/* The bits of a node's free word that stand for slots. */
#define RT_SLOTS_MASK (RT_MAP_SIZE < RT_BITS_PER_LONG ? (1UL << RT_MAP_SIZE) - 1 : ~0UL)
/* Levels of an IDR tree at its highest: its top covers RT_IDR_MAX_KEY. */
#define RT_IDR_LEVELS ((32U + RT_MAP_SHIFT - 1) / RT_MAP_SHIFT)
/* Nodes one insert into an IDR tree may need: a new top at the highest
 * level above an old top at level 0 (a chain of RT_IDR_LEVELS - 1 nodes
 * down to it) and a chain from the top down to the key's leaf. */
#define RT_IDR_MAX_NODES (2U * (RT_IDR_LEVELS - 1))

static inline bool rt_root_idr(const struct radix_tree_root *root)
{
	return (root->flags & RT_ROOT_IDR) != 0;
}

/*
 * An IDA's tree (RT_ROOT_IDR | RT_ROOT_IDA) is an IDR tree whose items are
 * bitmaps of RT_IDA_BITS ids each: key k holds ids k * RT_IDA_BITS and up.
 * A slot holding a bitmap is free iff some bit of it is clear; a bitmap
 * with no bit set is not kept.  No reader ever loads a bitmap.
 *
 * The root item: an IDA tree whose only bitmap is key 0's holds it in
 * root->rnode itself, with no node, as the kernel's IDA keeps its first
 * ids in its head.  An IDA that goes from no id to one and back then
 * allocates a bitmap, and no node that would wait for a grace period.  A
 * root entry that is not internal is such an item (rt_root_item()): key
 * 0 is the tree's only key, its slot is &root->rnode, its free bit the
 * root's RT_IDR_FREE bit.  An insert of key 0 into an empty tree makes
 * it; an insert of any other key moves it into slot 0 of a new leaf
 * (rt_full_insert_locked()); a shrink never makes one (a top leaf holding
 * key 0 alone stays).  Bitmaps are blocks of the node allocator, aligned
 * as nodes: the entry reads as level 0 and not full, so the lookups'
 * inline descent hands it to the out-of-line one, which knows it.
 */
#define RT_ROOT_IDA RADIX_TREE_FLAG_IDA_
#define RT_IDA_BITS 1024U
#define RT_IDA_WORDS (RT_IDA_BITS / RT_BITS_PER_LONG)
struct rt_ida_bitmap {
	unsigned long words[RT_IDA_WORDS];  /* W, R: tree lock */
} __attribute__((aligned(16)));  /* rt_ida_open_groups()' aligned loads */
_Static_assert(sizeof(struct rt_ida_bitmap) % RT_NODE_ALIGN == 0,
	       "a bitmap is a block of the node allocator");

static inline bool rt_root_ida(const struct radix_tree_root *root)
{
	return (root->flags & RT_ROOT_IDA) != 0;
}

/* Is @top, the entry root->rnode held, the root item (key 0's bitmap in an
 * IDA tree, held with no node)? */
static inline bool rt_root_item(const void *top)
{
	return top && !rt_is_internal(top);
}

/*
 * The groups of 32 ids of IDA bitmap @bitmap that have a free id: bit g
 * set iff some id of g * 32 .. g * 32 + 31 is free.  Computed without a
 * branch, as a one-level summary of the bitmap: where a bitmap's one free
 * id lies is random (a churn frees random ids), so a loop stopping at the
 * first open word would mispredict its exit, twice per allocation.
 */
#define RT_IDA_GROUPS (RT_IDA_BITS / 32U)
#define RT_IDA_GROUPS_PER_WORD (RT_BITS_PER_LONG / 32U)
_Static_assert(RT_IDA_GROUPS == 32, "a bit of a uint32_t per group of a bitmap");

/* The groups of word @w of a bitmap, as rt_ida_open_groups() numbers them. */
static inline uint32_t rt_ida_word_groups(unsigned int w)
{
	return (uint32_t)(((1ULL << RT_IDA_GROUPS_PER_WORD) - 1) << (w * RT_IDA_GROUPS_PER_WORD));
}

/* The groups of the words after @w. */
static inline uint32_t rt_ida_groups_after(unsigned int w)
{
	return (uint32_t)(~0ULL << ((w + 1) * RT_IDA_GROUPS_PER_WORD));
}

/* The word of group bit @g. */
static inline unsigned int rt_ida_group_word(unsigned int g)
{
	return g / RT_IDA_GROUPS_PER_WORD;
}

#if defined(__SSE2__) && ULONG_MAX == UINT64_MAX
/* A 32-bit lane is a group (little-endian: lane g holds ids 32g..32g+31):
 * compared with all ones, the lanes' masks packed twice to a byte each,
 * then one pmovmskb per 16 groups.  A bitmap is a node allocator block,
 * aligned as nodes: the loads are aligned. */
static inline uint32_t rt_ida_open_groups(const struct rt_ida_bitmap *bitmap)
{
	const __m128i ones = _mm_set1_epi32(-1);
	const __m128i *v = (const __m128i *)bitmap->words;
	__m128i full[8], half[4];
	unsigned int i;
	uint32_t taken;

#pragma GCC unroll 8
	for (i = 0; i < 8; i++)
		full[i] = _mm_cmpeq_epi32(_mm_load_si128(&v[i]), ones);
#pragma GCC unroll 4
	for (i = 0; i < 4; i++)
		half[i] = _mm_packs_epi32(full[2 * i], full[2 * i + 1]);
	taken = (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(half[0], half[1])) |
		(uint32_t)_mm_movemask_epi8(_mm_packs_epi16(half[2], half[3])) << 16;
	return ~taken;
}
#else
static inline uint32_t rt_ida_open_groups(const struct rt_ida_bitmap *bitmap)
{
	uint32_t open = 0;
	unsigned int g;

	for (g = 0; g < RT_IDA_GROUPS; g++) {
		unsigned long word = bitmap->words[rt_ida_group_word(g)];
		unsigned int shift = (g % RT_IDA_GROUPS_PER_WORD) * 32U;

		open |= (uint32_t)((uint32_t)~(word >> shift) != 0) << g;
	}
	return open;
}
#endif

/* Is every id of IDA bitmap @bitmap taken? */
static inline bool rt_ida_bitmap_full(const struct rt_ida_bitmap *bitmap)
{
	return rt_ida_open_groups(bitmap) == 0;
}

/* Is every id of IDA bitmap @bitmap free?  Stops at the first word with a
 * taken id: a bitmap losing one id usually keeps others in its first. */
static inline bool rt_ida_bitmap_empty(const struct rt_ida_bitmap *bitmap)
{
	unsigned int w;

	for (w = 0; w < RT_IDA_WORDS; w++)
		if (bitmap->words[w])
			return false;
	return true;
}

/* ---- transitions (debug builds) ---------------------------------------- */

/* What an insert or delete did to the nodes; counted in debug builds, so
 * that the tests can show they reach every transition. */
enum rt_transition {
	RT_TR_APPEND,       /* an item appended to a compact node in place */
	RT_TR_NEW_NODE,     /* a node for a key under an empty slot, or a first node */
	RT_TR_GROW_ROOT,    /* a new top node above the old one */
	RT_TR_COPY,         /* a compact node copied into another class */
	RT_TR_LEAF_FULL,    /* a compact leaf copied into a full node */
	RT_TR_INNER_FULL,   /* a compact node above the leaves copied into a full one */
	RT_TR_DEMOTE,       /* a group of items moved into a new child */
	RT_TR_DEMOTE_TWICE, /* ... and a group of those into a grandchild */
	RT_TR_DEMOTE_FOR_FULL, /* ... and a second group, the node then full */
	RT_TR_DEMOTE_PAIRS, /* ... a pair, and more pairs for room in the copy */
	RT_TR_SPLIT,        /* a compressed path split by a new node, in place */
	RT_TR_SPLIT_FULL,   /* ... whose parent then became a full node */
	RT_TR_SHRINK,       /* the tree hangs from a lower node */
	RT_TR_UNLINK,       /* an emptied node unlinked */
	RT_TR_BRIDGE,       /* a compressed child hung from a full node by a bridge */
	RT_TR_GROW_ABSORB,  /* a new top node that took the old top's items */
	RT_TR_REFILL,       /* an item put back at its key's tombstone in place */
	RT_TR_DEMOTE_ALL,   /* a demote, then every group of items into a node of its own */
	RT_TR_PARENT_FULL,  /* a compact node over full nodes only copied into a full one */
	RT_TR_COUNT
};

#ifdef RT_DEBUG
RT_HIDDEN extern unsigned long rt_transitions[RT_TR_COUNT];
/* Tests: called by the writer at each transition it counts, lock held;
 * NULL: none.  A test that holds the writer there (until its readers have
 * made progress) makes the window after the count as wide as it wants. */
RT_HIDDEN extern void (*rt_transition_hook)(enum rt_transition t);
static inline void rt_transition(enum rt_transition t)
{
	void (*hook)(enum rt_transition) = __atomic_load_n(&rt_transition_hook, __ATOMIC_ACQUIRE);

	uatomic_inc(&rt_transitions[t]);
	if (hook)
		hook(t);
}
/* Tests: when set, every copy of a compact node above the leaves goes
 * through the plan (tree.c, rt_insert_copy()), none through the direct
 * copies, so that a test can compare the trees both ways build; and the
 * direct copies made (grow, demote), so that it knows they ran. */
RT_HIDDEN extern int rt_copy_by_plan;
RT_HIDDEN extern unsigned long rt_copies_direct[2];
/* Atomic: tests set the switch and read the counts while other threads
 * of theirs may be inside the library; a plain access would race. */
#define rt_copy_direct() (!uatomic_read(&rt_copy_by_plan))
#define rt_copy_direct_made(demote) uatomic_inc(&rt_copies_direct[demote])
#else
#define rt_transition(t) ((void)0)
#define rt_copy_direct() true
#define rt_copy_direct_made(demote) ((void)0)
#endif

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
