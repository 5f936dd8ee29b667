/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <rcuradix/radix-tree.h> - the Linux kernel's radix tree for threaded
 * userspace programs: unsigned long key -> void * item, 64-slot nodes, tags,
 * ordered gang lookups, iterators and preload, with lock-free RCU readers.
 *
 * Link line:   pkg-config --cflags --libs rcuradix liburcu-memb
 * (replace liburcu-memb by the liburcu flavor your program uses for its own
 * read-side sections: liburcu-qsbr, liburcu-mb, liburcu-bp, liburcu-signal).
 *
 * ---------------------------------------------------------------------------
 * Synchronization
 * ---------------------------------------------------------------------------
 * A tree carries the liburcu flavor its readers use (RADIX_TREE() and
 * INIT_RADIX_TREE() pick urcu-memb; radix_tree_init_flavor() takes any).
 * Every function below is documented with one of these Context: lines:
 *
 *   "RCU reader"   the caller is inside rcu_read_lock() of the tree's flavor
 *                  (its thread registered with that flavor; a QSBR thread
 *                  online), OR the caller holds the tree lock.  The call takes
 *                  no lock and writes no shared memory.  Pointers it returns
 *                  (items, slots) stay valid until rcu_read_unlock().
 *   "Writer"       the call takes the tree's own mutex itself.  It may also be
 *                  called while the calling thread already holds that mutex
 *                  through radix_tree_lock(): the mutex is recursive for its
 *                  owner, so there is no self-deadlock.  A writer never waits
 *                  for a grace period and never blocks readers.  Writers free
 *                  nodes with the flavor's call_rcu(), so a writer thread must
 *                  be registered with the flavor too (QSBR: online), as
 *                  liburcu requires of every call_rcu() caller.
 *   "Any"          no requirement.
 *
 * What a reader may rely on while writers run concurrently:
 *  (A) An item returned by a reader was present in the tree, under the key it
 *      is returned for, at some moment during the call.
 *  (B) An item or slot obtained inside a read-side section stays readable
 *      until that section ends: removed items and unlinked nodes are freed
 *      only after a grace period (the library uses call_rcu for its nodes;
 *      the caller must do the same for its items).
 *  (C) A slot pointer (lookup_slot, gang_lookup_slot, iterators) only ever
 *      holds a user item or NULL (after a concurrent delete), never an
 *      internal pointer; read it with rcu_dereference().  No retry loop.
 *  (D) Multi-item results (gang lookups, iterators) come in strictly
 *      ascending key order, never wrap past ULONG_MAX, and always terminate.
 *      They are a sequence of single lookups, not a snapshot: an item
 *      inserted or deleted during the call may or may not be seen; an item
 *      present for the whole call is seen exactly once.
 *  (E) A tag read (tag_get, tagged, tagged gang lookups and walks) can be
 *      stale under RCU alone: a tag set or cleared concurrently may or may not
 *      be seen.  Tags belong to keys (slots), not to items: a tagged lookup
 *      returns items present at keys whose tag it saw set during the call;
 *      if a writer concurrently deleted the tagged item and inserted another
 *      at that key, the new one may be returned.  Under the tree lock tag
 *      reads are exact.
 *  (F) A key the tree did not hold at any moment of the call is never
 *      returned, including while the tree grows or shrinks in height.
 *
 * Items: any non-NULL pointer whose two low bits are clear (anything from
 * malloc, or the address of an object aligned to 4 bytes or more).  Other
 * values are refused with -EINVAL and never stored.
 *
 * Errors follow the kernel's names; where the kernel says "undefined" or
 * BUGs, rcuradix returns an error and changes nothing.
 */
#ifndef RCURADIX_RADIX_TREE_H
#define RCURADIX_RADIX_TREE_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(RCURADIX_BUILDING) && defined(__GNUC__)
#define RCURADIX_API __attribute__((visibility("default")))
#else
#define RCURADIX_API
#endif

/* Library version (configure.ac is the source of truth). */
#define RCURADIX_VERSION_MAJOR 0
#define RCURADIX_VERSION_MINOR 1
#define RCURADIX_VERSION_PATCH 0
#define RCURADIX_VERSION_STRING "0.1.0"

/**
 * rcuradix_version() - version of the library actually linked.
 *
 * Context: Any.
 * Return: "MAJOR.MINOR.PATCH" of the loaded library, which may differ from
 *         RCURADIX_VERSION_STRING of the header the program was built with.
 */
RCURADIX_API const char *rcuradix_version(void);

/*
 * gfp_t: what an insert may do to get memory.  The values are the kernel's,
 * so code with its own GFP shims keeps working.  A mask that contains
 * __GFP_DIRECT_RECLAIM (GFP_KERNEL) lets radix_tree_insert() call the node
 * allocator; GFP_ATOMIC and GFP_NOWAIT trees never allocate inside insert and
 * only use nodes the calling thread reserved with radix_tree_preload().
 */
typedef unsigned int gfp_t;
#ifndef __GFP_HIGH
#define __GFP_HIGH 0x20u
#endif
#ifndef __GFP_IO
#define __GFP_IO 0x40u
#endif
#ifndef __GFP_FS
#define __GFP_FS 0x80u
#endif
#ifndef __GFP_DIRECT_RECLAIM
#define __GFP_DIRECT_RECLAIM 0x400u
#endif
#ifndef __GFP_KSWAPD_RECLAIM
#define __GFP_KSWAPD_RECLAIM 0x800u
#endif
#ifndef GFP_KERNEL
#define GFP_KERNEL (__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM | __GFP_IO | __GFP_FS)
#endif
#ifndef GFP_ATOMIC
#define GFP_ATOMIC (__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#endif
#ifndef GFP_NOWAIT
#define GFP_NOWAIT (__GFP_KSWAPD_RECLAIM)
#endif

/*
 * Number of tags per item.  The node is 64 slots plus one 64-byte line of
 * header; six tag bitmaps fill that line next to the node's bookkeeping, so
 * they cost no memory beyond the three the kernel offers.
 */
#define RADIX_TREE_MAX_TAGS 6

struct rcu_flavor_struct;
/* The default flavor: defined by liburcu-memb, which the program links. */
extern const struct rcu_flavor_struct urcu_memb_flavor;

/*
 * struct radix_tree_root - a tree.  Public so that it can be embedded and
 * initialised statically; every field is private to the library.
 */
struct radix_tree_root {
	void *rnode;            /* private. W: tree lock, rcu_assign_pointer; R: rcu_dereference */
	unsigned long tags;     /* private. bit t: some item bears tag t. W: tree lock; R: one load */
	gfp_t gfp_mask;         /* private. set at init, read-only after */
	const struct rcu_flavor_struct *flavor; /* private. set at init, read-only after */
	unsigned long nr_nodes; /* private. nodes linked in this tree. W, R: tree lock */
	unsigned long owner;    /* private. thread holding lock, 0 if none. W: lock holder */
	unsigned int depth;     /* private. lock recursion depth. W, R: lock holder */
	pthread_mutex_t lock;   /* private. serialises writers */
};

/* Positional on purpose: valid in C and C++. */
#define RADIX_TREE_INIT(name, mask) \
	{ NULL, 0UL, (mask), &urcu_memb_flavor, 0UL, 0UL, 0U, PTHREAD_MUTEX_INITIALIZER }

/* RADIX_TREE(name, gfp_mask): define and initialise a tree, static or automatic. */
#define RADIX_TREE(name, mask) \
	struct radix_tree_root name = RADIX_TREE_INIT(name, mask)

/* INIT_RADIX_TREE(root, gfp_mask): initialise *root at run time (urcu-memb flavor). */
#define INIT_RADIX_TREE(root, mask) \
	radix_tree_init_flavor((root), (mask), &urcu_memb_flavor)

/**
 * radix_tree_init_flavor() - initialise an empty tree for a liburcu flavor.
 * @root:     tree to initialise (not in use by anybody).
 * @gfp_mask: GFP_KERNEL (insert may allocate) or GFP_ATOMIC / GFP_NOWAIT
 *            (insert only consumes nodes preloaded by the calling thread).
 * @flavor:   &urcu_memb_flavor, &urcu_qsbr_flavor, &urcu_mb_flavor,
 *            &urcu_bp_flavor or &urcu_signal_flavor: the flavor whose
 *            read-side sections the tree's readers use.  NULL means urcu-memb.
 *
 * The library reaches the flavor only through this structure (call_rcu,
 * barrier), so one shared object serves every flavor.
 *
 * Context: Any; @root must not be in use.
 * Return: nothing.  A NULL @root is ignored.
 */
RCURADIX_API void radix_tree_init_flavor(struct radix_tree_root *root, gfp_t gfp_mask,
					 const struct rcu_flavor_struct *flavor);

/**
 * radix_tree_insert() - insert @item under @index.
 *
 * Nodes needed for the whole operation (growth above the root and the new
 * path below) are obtained before anything is changed, then the new part is
 * published with a single rcu_assign_pointer(): a concurrent reader sees the
 * tree before or after, never in between.
 *
 * Context: Writer (takes the tree lock; may be called with it held).
 * Return: 0 on success; -EEXIST if @index already holds an item (tree
 *         unchanged); -ENOMEM if a node could not be obtained (tree
 *         unchanged, nothing leaked); -EINVAL if @root is NULL or @item is
 *         NULL or has either of its two low bits set.
 */
RCURADIX_API int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item);

/**
 * radix_tree_delete() - remove the item at @index.
 *
 * Clears every tag of the item, unlinks nodes left empty and shrinks the
 * tree to the smallest height that holds its keys (no nodes at all once
 * empty).  Unlinked nodes are freed with call_rcu() of the tree's flavor.
 * The item itself is the caller's: free it after a grace period.
 *
 * Context: Writer.
 * Return: the removed item, or NULL if @index held nothing or @root is NULL.
 */
RCURADIX_API void *radix_tree_delete(struct radix_tree_root *root, unsigned long index);

/**
 * radix_tree_lookup() - find the item at @index.
 *
 * Context: RCU reader.
 * Return: the item, or NULL if @index holds nothing or @root is NULL.
 */
RCURADIX_API void *radix_tree_lookup(const struct radix_tree_root *root, unsigned long index);

/**
 * radix_tree_lookup_slot() - find the slot holding the item at @index.
 *
 * Never creates a slot.  Read the slot with rcu_dereference(); it holds the
 * item, or NULL once a concurrent writer deleted it (guarantee C).  Under the
 * tree lock the slot may be passed to radix_tree_replace_slot().
 *
 * Context: RCU reader.
 * Return: the slot, or NULL if @index holds nothing or @root is NULL.
 */
RCURADIX_API void **radix_tree_lookup_slot(const struct radix_tree_root *root, unsigned long index);

/**
 * radix_tree_replace_slot() - store a new item in an occupied slot.
 * @slot: a slot obtained while holding the tree lock (radix_tree_lock()), by
 *        radix_tree_lookup_slot(), radix_tree_gang_lookup_slot() or an
 *        iterator, and still holding an item.
 * @item: the new item; non-NULL, two low bits clear.  Tags are kept.
 *
 * Readers see the old or the new item (rcu_assign_pointer()).  Free the old
 * item after a grace period.  Deleting goes through radix_tree_delete().
 *
 * Context: Writer; the caller must hold the tree lock (radix_tree_lock()).
 * Return: nothing.  A NULL or misaligned @item, a NULL @root or @slot, or a
 *         slot that holds no item is refused and nothing changes (debug
 *         builds print why on stderr).
 */
RCURADIX_API void radix_tree_replace_slot(struct radix_tree_root *root, void **slot, void *item);

/**
 * radix_tree_gang_lookup() - collect up to @max_items items from @first_index.
 * @results:     array of at least @max_items entries.
 *
 * Without concurrent writers returns exactly
 * min(@max_items, number of items with key >= @first_index), in ascending
 * key order.  Under concurrent writers see guarantees (A) and (D).
 *
 * Context: RCU reader.
 * Return: number of items stored in @results (0 if @max_items is 0 or @root
 *         or @results is NULL).
 */
RCURADIX_API unsigned int radix_tree_gang_lookup(const struct radix_tree_root *root, void **results,
						 unsigned long first_index, unsigned int max_items);

/**
 * radix_tree_gang_lookup_slot() - like gang_lookup, returning slots.
 * @results: receives slot pointers (see radix_tree_lookup_slot()).
 * @indices: if not NULL, receives the key of each slot.
 *
 * Context: RCU reader.
 * Return: number of slots stored (0 if @max_items is 0 or @root or @results
 *         is NULL).
 */
RCURADIX_API unsigned int radix_tree_gang_lookup_slot(const struct radix_tree_root *root,
						      void ***results, unsigned long *indices,
						      unsigned long first_index,
						      unsigned int max_items);

/**
 * radix_tree_lock() - take the tree lock, to group several calls atomically.
 *
 * The lock is recursive for its owner: writer calls made while holding it
 * reuse it, and a nested radix_tree_lock() must be matched by its own
 * radix_tree_unlock().  Do not wait for a grace period (synchronize_rcu)
 * while holding it.
 *
 * Context: Any thread; may block on other writers.  A NULL @root is ignored.
 * Return: nothing.
 */
RCURADIX_API void radix_tree_lock(struct radix_tree_root *root);

/**
 * radix_tree_unlock() - release one level of the tree lock.
 *
 * Context: the calling thread holds the lock.  An unlock by a thread that
 * does not hold it changes nothing (debug builds print a message).
 * Return: nothing.
 */
RCURADIX_API void radix_tree_unlock(struct radix_tree_root *root);

/**
 * radix_tree_empty() - is the tree empty?
 *
 * Context: RCU reader (a single load; exact under the tree lock).
 * Return: non-zero if the tree holds no item (or @root is NULL), 0 otherwise.
 */
RCURADIX_API int radix_tree_empty(const struct radix_tree_root *root);

/**
 * radix_tree_destroy() - remove every item and free every node.
 *
 * Unlinks the whole tree under the lock and queues its nodes to call_rcu(),
 * so readers still inside a read-side section stay safe and the call never
 * waits for a grace period.  Items are the caller's.  The tree is empty and
 * reusable afterwards.  After this call and the flavor's barrier() (e.g.
 * urcu_memb_barrier()), the memory holding @root may be freed: no pending
 * callback refers to the root.
 *
 * Context: Writer.
 * Return: nothing.  A NULL @root is ignored.
 */
RCURADIX_API void radix_tree_destroy(struct radix_tree_root *root);

/* ------------------------------------------------------------------------ */
/* Tags */

/**
 * radix_tree_tag_set() - set @tag on the item at @index.
 *
 * The leaf's bit is set first, then the bits of the nodes above it, so that
 * a reader that sees a node's tag bit and descends finds the tagged item.
 *
 * Context: Writer.
 * Return: the item, or NULL (nothing changed) if @index holds nothing, @tag
 *         >= RADIX_TREE_MAX_TAGS, or @root is NULL.
 */
RCURADIX_API void *radix_tree_tag_set(struct radix_tree_root *root, unsigned long index,
				      unsigned int tag);

/**
 * radix_tree_tag_clear() - clear @tag on the item at @index.
 *
 * Context: Writer.
 * Return: the item, or NULL (nothing changed) if @index holds nothing, @tag
 *         >= RADIX_TREE_MAX_TAGS, or @root is NULL.
 */
RCURADIX_API void *radix_tree_tag_clear(struct radix_tree_root *root, unsigned long index,
					unsigned int tag);

/**
 * radix_tree_tag_get() - does the item at @index bear @tag?
 *
 * Context: RCU reader (may be stale, guarantee E; exact under the lock).
 * Return: 1 if the item bears @tag; -1 if an item is present without @tag;
 *         0 if @index holds nothing (or @root is NULL); -EINVAL if @tag >=
 *         RADIX_TREE_MAX_TAGS.
 */
RCURADIX_API int radix_tree_tag_get(const struct radix_tree_root *root, unsigned long index,
				    unsigned int tag);

/**
 * radix_tree_tagged() - does any item in the tree bear @tag?
 *
 * Context: Any (a single load of the root's summary bits; RCU not needed).
 * Return: non-zero if some item bears @tag, 0 if none does, or if @tag >=
 *         RADIX_TREE_MAX_TAGS or @root is NULL.
 */
RCURADIX_API int radix_tree_tagged(const struct radix_tree_root *root, unsigned int tag);

/**
 * radix_tree_gang_lookup_tag() - collect up to @max_items items bearing @tag.
 *
 * Visits only tagged subtrees: the cost follows the tagged items found, not
 * the size of the tree.
 *
 * Context: RCU reader (guarantees A, D, E).
 * Return: number of items stored in @results; 0 if @tag is invalid,
 *         @max_items is 0, or @root or @results is NULL.
 */
RCURADIX_API unsigned int radix_tree_gang_lookup_tag(const struct radix_tree_root *root,
						     void **results, unsigned long first_index,
						     unsigned int max_items, unsigned int tag);

/**
 * radix_tree_gang_lookup_tag_slot() - like gang_lookup_tag, returning slots.
 * @indices: if not NULL, receives the key of each slot.
 *
 * Context: RCU reader.
 * Return: number of slots stored; 0 if @tag is invalid, @max_items is 0, or
 *         @root or @results is NULL.
 */
RCURADIX_API unsigned int radix_tree_gang_lookup_tag_slot(const struct radix_tree_root *root,
							  void ***results, unsigned long *indices,
							  unsigned long first_index,
							  unsigned int max_items, unsigned int tag);

/**
 * radix_tree_range_tag_if_tagged() - set @totag on items that bear @fromtag.
 * @first_indexp: in: first key to examine; out: the key after the last one
 *                examined (the index after the last item tagged when
 *                @nr_to_tag was reached, else @last_index + 1, which wraps
 *                to 0 when @last_index is ULONG_MAX, as in the kernel).
 * @last_index:   last key of the range (inclusive).
 * @nr_to_tag:    stop after tagging this many items.
 *
 * A return value below @nr_to_tag means the whole range was scanned.  The
 * batch loop that copes with the wrap:
 *
 *	unsigned long start = first, n;
 *	do {
 *		n = radix_tree_range_tag_if_tagged(root, &start, last, 64,
 *						   DIRTY, TOWRITE);
 *		// drop locks, let others run...
 *	} while (n == 64 && start != 0 && start <= last);
 *
 * Takes the tree lock once per call.
 *
 * Context: Writer.
 * Return: the number of items newly examined and tagged with @totag (items
 *         that already bore @totag count too); 0 and nothing changed if
 *         @nr_to_tag is 0, *@first_indexp > @last_index, either tag is
 *         invalid, or @root or @first_indexp is NULL.
 */
RCURADIX_API unsigned long radix_tree_range_tag_if_tagged(struct radix_tree_root *root,
							  unsigned long *first_indexp,
							  unsigned long last_index,
							  unsigned long nr_to_tag,
							  unsigned int fromtag, unsigned int totag);

/* ------------------------------------------------------------------------ */
/* Preload */

/**
 * radix_tree_preload() - reserve nodes for the calling thread's next insert.
 *
 * Fills a per-thread reserve with enough nodes for the worst case of one
 * insertion into any tree (2 x height - 1 nodes).  Until the thread's next
 * radix_tree_insert(), that insert cannot fail with -ENOMEM, even if the
 * allocator fails and even on a GFP_ATOMIC tree.  Call it outside any lock,
 * then radix_tree_lock(), insert, radix_tree_unlock(), radix_tree_preload_end().
 *
 * Userspace has no preemption to disable: the reserve is thread-local, so a
 * thread that migrates between CPUs keeps it.  preload/preload_end only mark
 * the window; the reserve survives between uses (refilled as needed) and is
 * returned to the allocator when the thread exits.  Debug builds report an
 * unbalanced radix_tree_preload_end() or a nested preload on stderr.
 *
 * Context: Any thread, outside the tree lock (may allocate).
 * Return: 0 on success; -ENOMEM if the reserve could not be filled (nothing
 *         extra is reserved, and radix_tree_preload_end() is not needed).
 */
RCURADIX_API int radix_tree_preload(gfp_t gfp_mask);

/**
 * radix_tree_maybe_preload() - preload only if @gfp_mask may allocate.
 *
 * Context: Any thread, outside the tree lock.
 * Return: the result of radix_tree_preload() if @gfp_mask contains
 *         __GFP_DIRECT_RECLAIM; otherwise 0 without reserving anything.
 *         Either way, pair a 0 return with radix_tree_preload_end().
 */
RCURADIX_API int radix_tree_maybe_preload(gfp_t gfp_mask);

/**
 * radix_tree_preload_end() - close the window opened by a successful preload.
 *
 * Context: the calling thread; matches one successful (maybe_)preload.
 * Return: nothing.
 */
RCURADIX_API void radix_tree_preload_end(void);

/* ------------------------------------------------------------------------ */
/* Memory accounting */

/* Memory of one tree. */
struct radix_tree_memstat {
	unsigned long nodes;       /* nodes linked in the tree */
	unsigned long node_bytes;  /* nodes x node size */
	unsigned long bytes;       /* node_bytes plus the allocator's share */
};

/**
 * radix_tree_memory() - how much memory the tree's nodes use.
 *
 * Context: Writer (takes the tree lock).
 * Return: 0 and *@mem filled; -EINVAL if @root or @mem is NULL.
 */
RCURADIX_API int radix_tree_memory(const struct radix_tree_root *root,
				   struct radix_tree_memstat *mem);

/* Library-wide node counters.  Counters only grow; the others are levels. */
struct rcuradix_stats {
	unsigned long nodes_allocated;  /* counter: nodes obtained from the allocator */
	unsigned long nodes_freed;      /* counter: nodes returned to the allocator */
	unsigned long nodes_live;       /* allocated - freed: in trees, reserves or pending */
	unsigned long nodes_reserved;   /* in per-thread preload reserves */
	unsigned long nodes_pending;    /* queued with call_rcu, not yet freed */
	unsigned long nodes_pending_peak; /* highest nodes_pending seen */
	unsigned long alloc_failures;   /* counter: allocator failures (incl. injected) */
	unsigned long node_size;        /* bytes per node */
	unsigned long backing_bytes;    /* bytes held from the underlying allocator */
};

/**
 * rcuradix_get_stats() - read the library-wide node counters.
 * @size: sizeof(*@stats) as the caller knows it (ABI growth).
 *
 * Values are read one by one without stopping writers: exact only when no
 * writer or call_rcu callback runs.  nodes_pending is read first, so a node
 * freed concurrently may be counted both pending and freed, never neither:
 * nodes_live - nodes_pending - nodes_reserved never overstates the nodes
 * held by trees.
 *
 * Context: Any.
 * Return: 0; -EINVAL if @stats is NULL or @size is too small.
 */
RCURADIX_API int rcuradix_get_stats(struct rcuradix_stats *stats, size_t size);

/**
 * rcuradix_thread_cache_flush() - give the calling thread's reserve back.
 *
 * Thread exit does this by itself; a long-lived thread that stops inserting
 * (or a test checking that every counter is back to zero) may call it.
 *
 * Context: Any thread, outside a preload window.
 * Return: nothing.
 */
RCURADIX_API void rcuradix_thread_cache_flush(void);

/**
 * radix_tree_verify() - check every structural invariant of the tree.
 *
 * Checks: each node's count matches its non-empty slots; no empty node; node
 * levels descend by one; leaves hold items, inner nodes hold nodes; a tag bit
 * is set iff something below bears the tag (and the root's summary bits
 * agree); NULL slots carry no tag; the height is minimal; the tree's node
 * count is right.  The first violation is described on stderr.
 *
 * Context: Writer (takes the tree lock).
 * Return: 0 if the tree is sound; -EUCLEAN if an invariant is broken;
 *         -EINVAL if @root is NULL.
 */
RCURADIX_API int radix_tree_verify(const struct radix_tree_root *root);

/* ------------------------------------------------------------------------ */
/* Iterators */

/*
 * struct radix_tree_iter - state of a walk.
 * @index:      key of the current slot.
 * @next_index: key after the current chunk (the slots of one leaf node);
 *              0 when the chunk ends at ULONG_MAX.
 * @tags:       tagged walks: bit 0 is the current slot's tag, bit i the tag
 *              of the slot i places further in the chunk.
 * @done:       private: non-zero once the walk may not continue (it reached
 *              ULONG_MAX, or a contiguous walk met a hole).
 */
struct radix_tree_iter {
	unsigned long index;
	unsigned long next_index;
	unsigned long tags;
	int done;
};

#define RADIX_TREE_ITER_TAG_MASK 0x0fu  /* tag number, with ITER_TAGGED */
#define RADIX_TREE_ITER_TAGGED   0x10u  /* only slots bearing the tag */
#define RADIX_TREE_ITER_CONTIG   0x20u  /* stop at the first hole */

/**
 * radix_tree_iter_init() - start a walk at @start.
 *
 * Context: Any.
 * Return: NULL (the loop macros then call radix_tree_next_chunk()).
 */
RCURADIX_API void **radix_tree_iter_init(struct radix_tree_iter *iter, unsigned long start);

/**
 * radix_tree_next_chunk() - find the next chunk of slots; engine of the macros.
 * @flags: 0, or RADIX_TREE_ITER_TAGGED | tag, possibly | RADIX_TREE_ITER_CONTIG.
 *
 * Descends once from the root to the leaf holding the first present (or
 * tagged) key >= iter->next_index, skipping empty (or untagged) subtrees.
 * Keys strictly ascend from call to call and never wrap.
 *
 * Context: RCU reader.
 * Return: the slot of the first item of the chunk, with iter->index its key;
 *         NULL when the walk is over (or the tag is invalid, or @root NULL).
 */
RCURADIX_API void **radix_tree_next_chunk(const struct radix_tree_root *root,
					  struct radix_tree_iter *iter, unsigned int flags);

/**
 * radix_tree_iter_resume() - prepare to leave the read-side section mid-walk.
 *
 * Call it (and assign its result to @slot) before rcu_read_unlock(), a QSBR
 * quiescent state, sleeping, or taking/dropping the tree lock inside a walk:
 * the next step re-descends from the key after iter->index instead of
 * touching the current node, which may be freed once the section ends.
 * For example, a walk that yields every 1024 items:
 *
 *	rcu_read_lock();
 *	radix_tree_for_each_slot(slot, &tree, &iter, 0) {
 *		void *item = rcu_dereference(*slot);
 *		if (!item)
 *			continue;        // deleted since the chunk was found
 *		use(item);
 *		if (++seen % 1024 == 0) {
 *			slot = radix_tree_iter_resume(slot, &iter);
 *			rcu_read_unlock();   // or rcu_quiescent_state() (QSBR)
 *			rcu_read_lock();
 *		}
 *	}
 *	rcu_read_unlock();
 *
 * Context: Any (touches only @iter).
 * Return: NULL, to be stored into the loop's slot variable.
 */
RCURADIX_API void **radix_tree_iter_resume(void **slot, struct radix_tree_iter *iter);

/**
 * radix_tree_iter_delete() - delete the item under the iterator.
 * @slot: the loop's current slot.
 *
 * The walk continues with the next item: nothing is skipped or repeated.
 * Use this, not radix_tree_delete(), inside a walk done under the lock: a
 * plain delete may free the leaf the walk is reading (after a grace period
 * that a walker outside rcu_read_lock() does not hold back), unless the
 * walk calls radix_tree_iter_resume() first.
 *
 * Context: Writer; the caller must hold the tree lock (radix_tree_lock())
 * for the whole walk.
 * Return: the deleted item, or NULL if the slot held nothing (or an
 *         argument is NULL).
 */
RCURADIX_API void *radix_tree_iter_delete(struct radix_tree_root *root,
					  struct radix_tree_iter *iter, void **slot);

/* Key of the current slot. */
static inline unsigned long radix_tree_iter_index(const struct radix_tree_iter *iter)
{
	return iter->index;
}

/*
 * radix_tree_next_slot() - next slot of the current chunk (inline helper of
 * the loop macros).  Plain and contiguous walks skip slots that read NULL;
 * a contiguous walk ends at the first of them.
 * Context: as the walk.  Return: the slot, or NULL at the end of the chunk.
 */
static inline void **radix_tree_next_slot(void **slot, struct radix_tree_iter *iter,
					  unsigned int flags)
{
	unsigned long left;

	if (!slot)
		return NULL;
	/* Slots left in this chunk after the current one (wraps correctly
	 * when the chunk ends at ULONG_MAX and next_index is 0). */
	left = iter->next_index - iter->index - 1;
	if (flags & RADIX_TREE_ITER_TAGGED) {
		unsigned long step;

		iter->tags >>= 1;
		if (!iter->tags || left == 0)
			return NULL;
		if (flags & RADIX_TREE_ITER_CONTIG) {
			if (!(iter->tags & 1UL)) {
				iter->done = 1;
				return NULL;
			}
			step = 1;
		} else {
			step = (unsigned long)__builtin_ctzl(iter->tags) + 1;
			iter->tags >>= step - 1;
		}
		if (step > left)
			return NULL;
		iter->index += step;
		return slot + step;
	}
	while (left-- > 0) {
		slot++;
		iter->index++;
		/* A consume load: pairs with the writer's rcu_assign_pointer()
		 * so that a non-NULL item is seen fully initialised. */
		if (__atomic_load_n(slot, __ATOMIC_CONSUME))
			return slot;
		if (flags & RADIX_TREE_ITER_CONTIG) {
			iter->done = 1;
			return NULL;
		}
	}
	return NULL;
}

/*
 * The walks.  Inside the body, iter->index is the key of *slot; read the item
 * with rcu_dereference(*slot) and skip it if NULL (deleted concurrently).
 * Break out freely; call radix_tree_iter_resume() before leaving the
 * read-side section or the lock inside the loop.
 */
#define radix_tree_for_each_slot(slot, root, iter, start)			\
	for (slot = radix_tree_iter_init(iter, start);				\
	     slot || (slot = radix_tree_next_chunk(root, iter, 0));		\
	     slot = radix_tree_next_slot(slot, iter, 0))

#define radix_tree_for_each_contig(slot, root, iter, start)			\
	for (slot = radix_tree_iter_init(iter, start);				\
	     slot || (slot = radix_tree_next_chunk(root, iter,			\
						RADIX_TREE_ITER_CONTIG));	\
	     slot = radix_tree_next_slot(slot, iter, RADIX_TREE_ITER_CONTIG))

#define radix_tree_for_each_tagged(slot, root, iter, start, tag)		\
	for (slot = radix_tree_iter_init(iter, start);				\
	     slot || (slot = radix_tree_next_chunk(root, iter,			\
				radix_tree_iter_tag_flags(tag)));		\
	     slot = radix_tree_next_slot(slot, iter, RADIX_TREE_ITER_TAGGED))

/* Flags for a tagged walk; an invalid tag yields flags that visit nothing. */
static inline unsigned int radix_tree_iter_tag_flags(unsigned int tag)
{
	return tag < RADIX_TREE_MAX_TAGS ? (RADIX_TREE_ITER_TAGGED | tag)
					 : (RADIX_TREE_ITER_TAGGED | RADIX_TREE_ITER_TAG_MASK);
}

#ifdef __cplusplus
}
#endif

#endif /* RCURADIX_RADIX_TREE_H */
