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
 *                  owner, so there is no self-deadlock.  A writer that finds
 *                  the mutex held by another thread spins for up to 200 us,
 *                  then sleeps on it.  A writer never waits for a grace
 *                  period and never blocks readers.  Writers free nodes
 *                  with the flavor's call_rcu(), so a writer thread must
 *                  be registered with the flavor too (QSBR: online), as
 *                  liburcu requires of every call_rcu() caller.  A writer
 *                  call entered while the same thread is already inside
 *                  one (from a signal handler) aborts with a message.
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
 *      holds that key's item or NULL, never an internal pointer; read it
 *      with rcu_dereference().  NULL means the item was deleted, or that a
 *      concurrent writer copied the node holding it (a compact node grew,
 *      was compacted or split): look the key up again.  A key deleted
 *      and inserted again in the same node goes back to its slot, as in
 *      the kernel: a slot held across both holds the new item.  This is the
 *      kernel's speculative pattern as it stands: take a reference on the
 *      item, then check that *slot still holds it; a moved item fails the
 *      check and the caller looks again.  The library's own readers
 *      (lookups, gang lookups, the walk engine) look again by themselves:
 *      they are lock-free (a reader retries only when a writer copied a
 *      node on its path meanwhile), no longer wait-free.  One exception:
 *      the tree of an IDA (<rcuradix/idr.h>), whose items are the IDA's
 *      private bitmaps, holds key 0's alone in the root itself, and the
 *      slot of key 0 there may be the root's, which holds a node once
 *      the tree grows.  Read an IDA's tree only by the calls that return
 *      keys or counts (hole scans, counts, lookups as "is it present").
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
 * BUGs, rcuradix returns an error and changes nothing.  A broken contract
 * that no return value can report, where going on would corrupt the tree or
 * make the caller's next step unsafe (writer state touched without the tree
 * lock, radix_tree_unlock() by a thread that does not hold it, a writer
 * call re-entered from a signal handler, replace_slot with a bad item or
 * slot), prints one line naming the function and the rule, then abort()s,
 * in release builds too.  Harmless misuse (an unbalanced
 * radix_tree_preload_end()) prints one line, once.  A zero-filled root that
 * was never initialised is an empty tree to readers; every call that can
 * return an error returns one for it (-EINVAL, or NULL) and says, once,
 * that the tree was not initialised.
 *
 * Reader calls take no lock, allocate nothing and write no shared memory:
 * they may run in a signal handler, inside a read-side section the handler
 * opened.  Writer calls, radix_tree_lock()/unlock(), preload and the
 * statistics are not async-signal-safe.
 */
#ifndef RCURADIX_RADIX_TREE_H
#define RCURADIX_RADIX_TREE_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include <rcuradix/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(RCURADIX_BUILDING) && defined(__GNUC__)
#define RCURADIX_API __attribute__((visibility("default")))
#else
#define RCURADIX_API
#endif

/*
 * The header's inline functions (the iterator steps and accessors) are
 * also exported by the library under the same names, compiled from these
 * same definitions (lib/inline.c defines RCURADIX_INLINE first), so that
 * a program can reach them with dlsym() or from another language.
 */
#ifndef RCURADIX_INLINE
#define RCURADIX_INLINE static inline
#endif

/* Header version: RCURADIX_VERSION_MAJOR, _MINOR, _PATCH and _STRING come
 * from <rcuradix/version.h>, generated by configure from AC_INIT. */

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
 * header; five tag bitmaps fill that line next to the node's bitmap of used
 * slots and its rcu_head, so they cost no memory beyond the kernel's three.
 */
#define RADIX_TREE_MAX_TAGS 5

struct rcu_flavor_struct;
/* The default flavor: defined by liburcu-memb, which the program links. */
extern const struct rcu_flavor_struct urcu_memb_flavor;

/*
 * struct radix_tree_root - a tree.  Public so that it can be embedded and
 * initialised statically; every field is private to the library.
 *
 * Layout: the fields every reader loads (rnode, tags) and the read-only
 * ones (flavor, gfp_mask, flags, the initialised marker, an IDR's base)
 * form one group;
 * the fields every writer call writes (the lock, owner, depth, the node
 * and item counts) form another.  Each group is preceded by at least
 * RADIX_TREE_ROOT_GAP_ bytes of padding, so that for any placement at the
 * struct's natural 8-byte alignment (embedded in a struct, in malloc()ed
 * memory, in an array of roots) no 64-byte cache line holds bytes of both
 * groups, nor a writer field of one root and a reader field of the next: a
 * writer never makes readers miss by false sharing.  No alignment beyond the
 * natural one is required.  lib/base.c checks the offsets at compile time.
 */
#define RADIX_TREE_ROOT_GAP_ 56
struct radix_tree_root {
	char rt_gap_readers_[RADIX_TREE_ROOT_GAP_]; /* private. never accessed */
	/* Reader side: loaded by every reader, written rarely. */
	void *rnode;            /* private. W: tree lock, rcu_assign_pointer; R: rcu_dereference */
	unsigned long tags;     /* private. bit t: some item bears tag t. W: tree lock; R: one load */
	const struct rcu_flavor_struct *flavor; /* private. set at init, read-only after */
	gfp_t gfp_mask;         /* private. set at init, read-only after */
	unsigned int flags;     /* private. set at init, read-only after: kind of tree */
	unsigned int initialised; /* private. RADIX_TREE_INITIALISED_ once initialised */
	unsigned int base;      /* private. an IDR's lowest id, its key 0 (0 in other
				 * trees). set at init, read-only after */
	char rt_gap_writers_[RADIX_TREE_ROOT_GAP_]; /* private. never accessed */
	/* Writer side: written by every writer call, never loaded by readers. */
	int lock;               /* private. serialises writers: 0 free, 1 taken (lib/base.h).
				 * W: compare-and-swap by a taker, release store by
				 * the holder; R: relaxed looks by waiters */
	unsigned long owner;    /* private. thread holding lock, 0 if none. W: lock holder */
	unsigned long nr_nodes; /* private. nodes linked in this tree. W, R: tree lock */
	unsigned long nr_items; /* private. items stored in this tree. W, R: tree lock */
	void *retired;          /* private. nodes unlinked in this lock hold. W, R: tree lock */
	unsigned int depth;     /* private. lock recursion depth. W, R: lock holder */
};

/* An initialised root's marker: a zero-filled root is told from an
 * initialised one by this field, never by a pointer being NULL. */
#define RADIX_TREE_INITIALISED_ 0x52445831u

/* Private: the kind of tree in flags.  An IDR's tree (<rcuradix/idr.h>)
 * holds full nodes only and keeps its free ids in them; an IDA's is an
 * IDR's whose items are bitmaps of ids. */
#define RADIX_TREE_FLAG_IDR_ 1u
#define RADIX_TREE_FLAG_IDA_ 2u

/* Positional on purpose: valid in C and C++. */
#define RADIX_TREE_INIT_FLAGS_(mask, flags, base)				\
	{ { 0 }, NULL, 0UL, &urcu_memb_flavor, (mask), (flags), RADIX_TREE_INITIALISED_,	\
	  (base), { 0 }, 0, 0UL, 0UL, 0UL, NULL, 0U }
#define RADIX_TREE_INIT(name, mask) RADIX_TREE_INIT_FLAGS_(mask, 0U, 0U)

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
 * The library reaches the flavor only through this structure (call_rcu),
 * so one shared object serves every flavor.  A root must be initialised
 * (this, RADIX_TREE() or INIT_RADIX_TREE()) before any other call: a
 * zero-filled root is told apart by a marker and refused (see above).
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
 * empty), except that a top compact node holding only items keeps its
 * level: one node holds those keys at any height, and lowering it would
 * take a copy, while a delete allocates nothing.  Unlinked nodes are freed
 * with call_rcu() of the tree's flavor.
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
 * item, or NULL once a concurrent writer deleted it or moved it by copying
 * its node: then look the key up again (guarantee C).  Under the tree lock
 * the slot may be passed to radix_tree_replace_slot(), also after inserts
 * and deletes of other keys in the same lock hold.
 *
 * Context: RCU reader.
 * Return: the slot, or NULL if @index holds nothing or @root is NULL.
 */
RCURADIX_API void **radix_tree_lookup_slot(const struct radix_tree_root *root, unsigned long index);

/**
 * radix_tree_replace_slot() - store a new item in an occupied slot.
 * @slot: a slot obtained while holding the tree lock (radix_tree_lock()), by
 *        radix_tree_lookup_slot(), radix_tree_gang_lookup_slot() or an
 *        iterator, in this same lock hold, whose key still holds an item.
 * @item: the new item; non-NULL, two low bits clear.  Tags are kept.
 *
 * As in the kernel, a slot found under the lock stays usable for this call
 * across inserts and deletes of other keys made in the same lock hold.  An
 * insert may copy the compact node holding the slot; the old node is then
 * kept until the outermost radix_tree_unlock(), and a slot into it is
 * forwarded to the live slot of the same key.  Reading such a stale slot
 * under the lock gives NULL: look the key up again to read it.  The nodes a
 * lock hold replaces are freed (after a grace period) only once the lock is
 * released: a bulk load under one lock keeps, until its unlock, about as
 * many bytes again as the compact nodes it outgrew (each class a node
 * passes through while it fills).
 *
 * Readers see the old or the new item (rcu_assign_pointer()).  Free the old
 * item after a grace period.  Deleting goes through radix_tree_delete().
 *
 * Misuse aborts (one line on stderr naming the rule, then abort()), since
 * the caller's next step, freeing the old item, would otherwise free an item
 * still in the tree: the tree lock not held by the calling thread; a NULL
 * @root or @slot; a NULL or misaligned @item; a slot whose key holds no
 * item.
 * Debug builds (--enable-debug) also check that @slot belongs to @root.
 *
 * Context: Writer; the caller must hold the tree lock (radix_tree_lock()).
 * Return: nothing.
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
 * radix_tree_lookup_le() - the item with the greatest key at or below *@index.
 * @index: in: the key to search down from; out: the key of the item found
 *         (left as it was when none is).
 *
 * The predecessor (Judy's JudyLLast()): one descent, going back up only
 * past subtrees that hold nothing at or below the key.  For the last item
 * of the tree, start from ULONG_MAX; for the item before key k (k > 0),
 * from k - 1.  Under concurrent writers, guarantees (A) and (F), and (D)
 * as a reverse gang lookup of one item: an item present at its key
 * throughout the call is found, unless an item at a higher key (at or
 * below *@index) is returned.
 *
 * Context: RCU reader.
 * Return: the item, or NULL if no item has a key at or below *@index, or
 *         @root or @index is NULL.
 */
RCURADIX_API void *radix_tree_lookup_le(const struct radix_tree_root *root, unsigned long *index);

/**
 * radix_tree_gang_lookup_reverse() - collect up to @max_items items from
 *                                    @last_index down.
 * @results:    array of at least @max_items entries.
 * @indices:    if not NULL, receives the key of each item.
 * @last_index: the highest key to return.
 *
 * The reverse walk: items with keys at or below @last_index in strictly
 * descending key order.  Without concurrent writers returns exactly
 * min(@max_items, number of items with key <= @last_index).  To go on
 * with the next batch, call again from the last key returned minus one
 * (stop once it was 0).  Each item costs a search that starts in the node
 * of the previous one, not from the root.  Under concurrent writers,
 * guarantees (A), (F), and (D) with the order reversed: keys strictly
 * descend and never wrap past 0; an item present for the whole call is
 * seen exactly once.
 *
 * Context: RCU reader.
 * Return: number of items stored in @results (0 if @max_items is 0 or @root
 *         or @results is NULL).
 */
RCURADIX_API unsigned int radix_tree_gang_lookup_reverse(const struct radix_tree_root *root,
							 void **results, unsigned long *indices,
							 unsigned long last_index,
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
 * does not hold it is misuse: one line on stderr, then abort().  A NULL
 * @root is ignored.
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
 * radix_tree_count() - how many items the tree holds, in O(1).
 *
 * The writers keep the count: each call that inserts or deletes changes it
 * once, after its change is visible to readers.  Under the tree lock it is
 * exact.  Under RCU it is the count of some moment of the call, except
 * that a writer call running at that moment may not be counted yet: the
 * tree may already hold one item more (or fewer) than it says.  An IDR's
 * reserved ids count as items.
 *
 * Context: RCU reader (one load of a writer-side field: frequent calls
 *          share a cache line with the writers), or the tree lock.
 * Return: the number of items; 0 if @root is NULL.
 */
RCURADIX_API unsigned long radix_tree_count(const struct radix_tree_root *root);

/**
 * radix_tree_count_range() - how many items have keys in [@first, @last].
 *
 * A walk that counts each full leaf's items with one popcount of its
 * bitmap of used slots, and a compact node's run of consecutive keys as
 * one step: its cost is one step per 64 keys of a dense range, one per
 * item of a sparse one, plus a descent.  Under RCU each item present
 * throughout the call is counted, each absent throughout is not, and one
 * inserted or deleted during it may be counted or not (as a gang lookup).
 * An IDR's reserved ids count as items.
 *
 * Context: RCU reader, or the tree lock (exact).
 * Return: the number of items; 0 if @first > @last or @root is NULL.
 */
RCURADIX_API unsigned long radix_tree_count_range(const struct radix_tree_root *root,
						  unsigned long first, unsigned long last);

/**
 * radix_tree_next_hole() - the first absent key at or after @index.
 * @root:     the tree.
 * @index:    where the scan starts.
 * @max_scan: how many keys it looks at, at most.
 *
 * The kernel's (2.6.24 to 3.x): keys @index, @index + 1, ... are looked at
 * until one is absent.  A full leaf's keys are read 64 at a time from its
 * bitmap of used slots, and the next leaf is reached from the full nodes
 * above it (O(height + leaves) over a run of full nodes); a compact
 * node's keys cost a search each in that node.  In an IDR's or IDA's tree
 * the free words lead to the nearest key with a free id first, in
 * O(height): in an IDR's that is the hole, which the scan then checks (a
 * reserved id is present, as the item it stands for).  Under RCU,
 * "absent" means absent at some moment during the call.
 *
 * Context: RCU reader, or the tree lock.
 * Return: the absent key; else a key outside the scanned range: @index +
 *         @max_scan if the @max_scan keys are all present (so that
 *         "return - @index >= @max_scan" tells), or 0 if the scan ran past
 *         ULONG_MAX.  @index if @root is NULL or @max_scan is 0.
 */
RCURADIX_API unsigned long radix_tree_next_hole(const struct radix_tree_root *root,
						unsigned long index, unsigned long max_scan);

/**
 * radix_tree_prev_hole() - the last absent key at or before @index.
 * @root:     the tree.
 * @index:    where the scan starts.
 * @max_scan: how many keys it looks at, at most.
 *
 * As radix_tree_next_hole(), downwards: keys @index, @index - 1, ...
 *
 * Context: RCU reader, or the tree lock.
 * Return: the absent key; else @index - @max_scan if the @max_scan keys
 *         are all present ("@index - return >= @max_scan" tells), or
 *         ULONG_MAX if the scan ran past 0.  @index if @root is NULL or
 *         @max_scan is 0.
 */
RCURADIX_API unsigned long radix_tree_prev_hole(const struct radix_tree_root *root,
						unsigned long index, unsigned long max_scan);

/**
 * radix_tree_destroy() - remove every item and free every node.
 *
 * Unlinks the whole tree under the lock and queues its nodes to call_rcu(),
 * so readers still inside a read-side section stay safe and the call never
 * waits for a grace period.  Items are the caller's: destroy does not free
 * them (walk the tree first if they must be freed).  The tree is empty and
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
 * As in every kernel since 2.6.17, so that `if (radix_tree_tag_get(...))`
 * means "tagged".  An invalid @tag is misuse: one line on stderr (once per
 * process) and 0.
 *
 * Context: RCU reader (may be stale, guarantee E; exact under the lock).
 * Return: 1 if the item at @index bears @tag; 0 otherwise (no item, an item
 *         without @tag, @tag >= RADIX_TREE_MAX_TAGS, or a NULL or
 *         uninitialised @root).
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
 *
 * The kernel's five arguments: a walk (radix_tree_for_each_tagged) gives
 * the keys too.
 *
 * Context: RCU reader.
 * Return: number of slots stored; 0 if @tag is invalid, @max_items is 0, or
 *         @root or @results is NULL.
 */
RCURADIX_API unsigned int radix_tree_gang_lookup_tag_slot(const struct radix_tree_root *root,
							  void ***results, unsigned long first_index,
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
 * insertion into any tree: eleven nodes, three of any size (a full compact
 * node that moves a group of its items into a new child, and that child a
 * group into a grandchild) and up to eight of the smallest size: one-entry
 * bridges (a node that becomes a full node keeps each compressed child
 * under a bridge), or up to eight pairs of items the copy also moves into
 * new children, to keep room for appends.  The reserve holds one node
 * of every size a node can have and a second full and largest node: 16
 * nodes, 9,344 bytes (64-slot build); the smallest nodes take the blocks
 * the three leave.  (A copy of a node that has overflowed ten times moves
 * every group of its items into a node of its own: up to 74 nodes, which
 * it takes from the allocator alone; when the allocator cannot give them
 * all, it makes the copy above instead.  A compact node that comes to hold
 * only full nodes becomes a full node after the insertion, with a node
 * from the allocator alone, or stays compact.)  Until the thread's
 * next radix_tree_insert(), that insert cannot fail with -ENOMEM, even if
 * the allocator fails and even on a GFP_ATOMIC tree.  A GFP_KERNEL insert
 * allocates its nodes itself and uses the reserve only if the allocator
 * fails (the kernel's rule); a GFP_ATOMIC insert takes them from the
 * reserve.  Call it outside any lock, then radix_tree_lock(), insert,
 * radix_tree_unlock(), radix_tree_preload_end().
 *
 * Userspace has no preemption to disable: the reserve is thread-local, so a
 * thread that migrates between CPUs keeps it.  preload/preload_end only mark
 * the window; the reserve survives between uses (refilled as needed) and is
 * returned to the allocator when the thread exits.  An unbalanced
 * radix_tree_preload_end() or a nested preload is reported on stderr (one
 * line, once per process).
 *
 * @gfp_mask is accepted for the kernel's signature: userspace allocation does
 * not sleep for reclaim, so every mask may allocate here (use
 * radix_tree_maybe_preload() to preload only for masks that allow it).
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
	unsigned long nodes;       /* nodes linked in the tree (of every size) */
	unsigned long node_bytes;  /* the sum of their sizes */
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
	unsigned long nodes_pending_peak; /* highest nodes_pending this call has returned */
	unsigned long alloc_failures;   /* counter: allocator failures (incl. injected) */
	unsigned long node_size;        /* bytes of a full node (nodes come in several sizes) */
	unsigned long backing_bytes;    /* bytes held from the underlying allocator */
	/* The same in bytes: nodes come in sizes from 64 bytes to a full node's
	 * and beyond, so node counts do not give memory. */
	unsigned long bytes_allocated;  /* counter: bytes of the nodes allocated */
	unsigned long bytes_freed;      /* counter: bytes of the nodes freed */
	unsigned long bytes_live;       /* allocated - freed */
	unsigned long bytes_reserved;   /* bytes of the nodes in preload reserves */
	unsigned long bytes_pending;    /* bytes of the nodes queued with call_rcu */
};

/**
 * rcuradix_get_stats() - read the library-wide node counters.
 * @size: sizeof(*@stats) as the caller knows it (ABI growth): a caller built
 *        before the bytes_ fields existed gets the fields it knows.
 *
 * Each thread counts in its own record (no counter line is shared between
 * threads); this call adds up the records of live threads and the totals
 * of exited ones.  Values are read without stopping writers: exact only
 * when no writer or call_rcu callback runs.  A node freed concurrently may
 * be counted both pending and freed, never neither: nodes_live -
 * nodes_pending - nodes_reserved never overstates the nodes held by trees.
 *
 * Context: Any.
 * Return: 0; -EINVAL if @stats is NULL or @size is too small.
 */
RCURADIX_API int rcuradix_get_stats(struct rcuradix_stats *stats, size_t size);

/**
 * rcuradix_thread_cache_flush() - give the calling thread's reserve back.
 *
 * Also returns the one empty slab the node pool keeps against churn.
 * Thread exit does the first by itself; a long-lived thread that stops
 * inserting (or a test checking that every counter is back to zero) may call
 * it.
 * Inside a preload window it does nothing: the reserve is promised to the
 * next insert (one line on stderr, once per process, says so).
 *
 * Context: Any thread, outside a preload window.
 * Return: nothing.
 */
RCURADIX_API void rcuradix_thread_cache_flush(void);

/**
 * radix_tree_verify() - check every structural invariant of the tree.
 *
 * Checks: full nodes: each present bit matches its slot, a full node's
 * children sit one level down, leaves hold items and inner nodes hold
 * nodes; compact nodes: the size class, capacity and entry count agree,
 * positions past the count are clear, no retired node is reachable, every
 * suffix fits the node's level, each entry's kind (item or child) agrees
 * with its tag byte, no two live items share a key, no live child shares
 * its digit with another child or an item, children sit at lower levels
 * (their keys under the prefix stored with them), the live count is right;
 * no empty node; a tag bit is set iff something below bears the tag (and
 * the root's summary bits agree); NULL slots carry no tag; the height is
 * minimal (the top node's only entry is not a child covering keys from 0);
 * the tree's node and item counts are right.
 * The first violation is described on stderr.
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
 * @tags:       the chunk's bitmap, unchanged while the walk is in it: bit i
 *              stands for slot i from @chunk and is set if, when the chunk
 *              was found, that slot held an item (plain and contiguous
 *              walks) or bore the tag (tagged walks) and its key was >= the
 *              one the chunk was looked up from.
 * The other fields are private:
 * @chunk:      slot 0 of the current full leaf, or the first slot of the
 *              current run of consecutive keys in a compact node.
 * @run_end:    the slot after the current run of consecutive set bits.
 * @bias:       the key of slot s is @bias + (uintptr_t)s / sizeof(void *).
 * @parent:     the current full leaf's full parent node, or the compact
 *              node of the current run (as the library encodes it): while
 *              the next key lies in its range (and a compact node has not
 *              been copied since), the next chunk is searched from there.
 *              Valid only within the walk's read-side section or lock;
 *              radix_tree_iter_resume() forgets it.
 * @above:      the node the walk came down from to the chunk's node (a
 *              compact run's: the node above @parent), or NULL if unknown:
 *              once the next key leaves @parent's range but not this
 *              node's, the next chunk is searched from here, not from the
 *              root.  Valid as @parent is.
 * @done:       non-zero once the walk may not continue (it reached
 *              ULONG_MAX, or a contiguous walk met a hole).
 * @above_pos:  the position of the entry taken in @above, if compact: the
 *              search there starts after it.
 * @parent_spent: non-zero if @parent, a compact node, held nothing the
 *              walk wants after the current run: the next search skips
 *              it (read only while @parent is compact).
 */
struct radix_tree_iter {
	unsigned long index;
	unsigned long next_index;
	unsigned long tags;
	void **chunk;
	void **run_end;
	unsigned long bias;
	void *parent;
	void *above;
	int done;
	unsigned char above_pos;
	unsigned char parent_spent;
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
 * Descends once from the root, or from iter->parent or iter->above while
 * the key lies in its range, to the leaf or compact-node run holding the first present (or
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
 *		if (!item)               // deleted or moved since: look again
 *			item = radix_tree_lookup(&tree, iter.index);
 *		if (!item)
 *			continue;        // deleted
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
 * for the whole walk: without it, one line on stderr, then abort().
 * Return: the deleted item, or NULL if @slot is not the iterator's current
 *         slot or held nothing, or an argument is NULL.
 */
RCURADIX_API void *radix_tree_iter_delete(struct radix_tree_root *root,
					  struct radix_tree_iter *iter, void **slot);

/* Key of the current slot. */
RCURADIX_INLINE unsigned long radix_tree_iter_index(const struct radix_tree_iter *iter)
{
	return iter->index;
}

/* The address of @slot in words: the key of a slot is the chunk's bias plus
 * this.  A function-style cast in C++, so that the header compiles under
 * -Wold-style-cast. */
#ifdef __cplusplus
#define RCURADIX_SLOT_WORD_(slot) (reinterpret_cast<unsigned long>(slot) / sizeof(void *))
#else
#define RCURADIX_SLOT_WORD_(slot) ((unsigned long)(slot) / sizeof(void *))
#endif

/* Key of @slot in the current chunk. */
RCURADIX_INLINE unsigned long radix_tree_iter_key(const struct radix_tree_iter *iter,
						  void **slot)
{
	return iter->bias + RCURADIX_SLOT_WORD_(slot);
}

/*
 * radix_tree_next_run() - slow path of radix_tree_next_slot(): the
 * current run of set bits ended at @slot; find the next run in the chunk's
 * bitmap, or end the chunk (a contiguous walk ends the whole walk at a hole
 * inside the chunk).
 */
RCURADIX_INLINE void **radix_tree_next_run(void **slot, struct radix_tree_iter *iter,
					   unsigned int flags)
{
	unsigned long pos = slot - iter->chunk;
	unsigned long rest, len;

	rest = pos < sizeof(unsigned long) * 8 ? iter->tags >> pos : 0;
	if (!rest || (flags & RADIX_TREE_ITER_CONTIG)) {
		/* A hole, unless the chunk simply ends here (the difference
		 * wraps right at ULONG_MAX). */
		if ((flags & RADIX_TREE_ITER_CONTIG) && iter->index + 1 != iter->next_index)
			iter->done = 1;
		return NULL;
	}
	slot += __builtin_ctzl(rest);
	rest >>= __builtin_ctzl(rest);
	len = sizeof(unsigned long) * 8;
	if (~rest)
		len = __builtin_ctzl(~rest);
	iter->run_end = slot + len;
	iter->index = radix_tree_iter_key(iter, slot);
	return slot;
}

/*
 * radix_tree_next_slot() - next slot of the current chunk, for loops written
 * by hand in the kernel's style (the loop macros use radix_tree_walk_step(),
 * below, which keeps two more values in registers).  Inside a run of
 * consecutive items it is an increment, a compare and the key's update; it
 * never loads a slot (the body's rcu_dereference(*slot) is the one load per
 * item).
 * Context: as the walk.  Return: the slot, or NULL at the end of the chunk.
 */
RCURADIX_INLINE void **radix_tree_next_slot(void **slot, struct radix_tree_iter *iter,
					  unsigned int flags)
{
	if (!slot)
		return NULL;
	if (__builtin_expect(++slot < iter->run_end, 1)) {
		iter->index = radix_tree_iter_key(iter, slot);
		return slot;
	}
	return radix_tree_next_run(slot, iter, flags);
}

/*
 * radix_tree_walk_chunk(), radix_tree_walk_step() - the steps of the loop
 * macros below.  They are radix_tree_next_chunk() and radix_tree_next_slot()
 * with the end of the current run (*@end) and the current key (*@key) kept
 * in two locals of the loop instead of in @iter: a step inside a run is then
 * an increment, a compare and one store (iter->index), all in registers.
 * Kept in @iter, both would be reloaded from memory at every item, because
 * @iter's address escapes to radix_tree_next_chunk() and the body's
 * rcu_dereference() is a compiler barrier.  Any step that leaves the run
 * goes through @iter again, so radix_tree_iter_resume() (which clears it)
 * and radix_tree_iter_delete() keep their meaning.
 * Context: as the walk.  Return: the slot, or NULL (end of the chunk or, for
 * radix_tree_walk_chunk(), of the walk).
 */
RCURADIX_INLINE void **radix_tree_walk_chunk(const struct radix_tree_root *root,
					     struct radix_tree_iter *iter, unsigned int flags,
					     void ***end, unsigned long *key)
{
	void **slot = radix_tree_next_chunk(root, iter, flags);

	if (slot) {
		*end = iter->run_end;
		*key = iter->index;
	}
	return slot;
}

RCURADIX_INLINE void **radix_tree_walk_step(void **slot, struct radix_tree_iter *iter,
					    unsigned int flags, void ***end, unsigned long *key)
{
	if (!slot)
		return NULL;  /* radix_tree_iter_resume() was called */
	if (__builtin_expect(++slot < *end, 1)) {
		iter->index = ++*key;
		return slot;
	}
	slot = radix_tree_next_run(slot, iter, flags);
	if (slot) {
		*end = iter->run_end;
		*key = iter->index;
	}
	return slot;
}

/*
 * The walks.  Inside the body, iter->index is the key of *slot; read the item
 * with rcu_dereference(*slot).  NULL means deleted or moved by a concurrent
 * writer (guarantee C): a walk that must see every item present throughout
 * looks the key up again, radix_tree_lookup(root, iter->index), and skips
 * the key if that is NULL too.  Under the tree lock a slot reads NULL only
 * if the walk's own inserts or deletes changed its node: call
 * radix_tree_iter_resume() after each of them.
 * Break out freely; call radix_tree_iter_resume() before leaving the
 * read-side section or the lock inside the loop.  @slot is any lvalue of
 * type void ** (a variable, w->slot, slots[i]), as in the kernel.  Each walk
 * declares, in a scope of its own, the two locals of radix_tree_walk_step(),
 * named with a number unique to the expansion (__COUNTER__), so that nested
 * walks never shadow each other.  The outer one-shot loop only scopes them;
 * a break ends both.
 */
#define RADIX_TREE_WALK_(slot, root, iter, start, chunk_flags, step_flags)		\
	RADIX_TREE_WALK_ID_(slot, root, iter, start, chunk_flags, step_flags, __COUNTER__)
#define RADIX_TREE_WALK_ID_(slot, root, iter, start, chunk_flags, step_flags, id)	\
	RADIX_TREE_WALK_N_(slot, root, iter, start, chunk_flags, step_flags, id)
#define RADIX_TREE_WALK_N_(slot, root, iter, start, chunk_flags, step_flags, id)	\
	for (unsigned long rt_walk_key_##id = 0, rt_walk_once_##id = 1;		\
	     rt_walk_once_##id; rt_walk_once_##id = 0)					\
		for (void **rt_walk_end_##id = ((slot) = radix_tree_iter_init(iter, start)); \
		     (slot) || ((slot) = radix_tree_walk_chunk(root, iter, chunk_flags,	\
							       &rt_walk_end_##id,	\
							       &rt_walk_key_##id));	\
		     (slot) = radix_tree_walk_step(slot, iter, step_flags,		\
						   &rt_walk_end_##id, &rt_walk_key_##id))

#define radix_tree_for_each_slot(slot, root, iter, start)			\
	RADIX_TREE_WALK_(slot, root, iter, start, 0, 0)

#define radix_tree_for_each_contig(slot, root, iter, start)			\
	RADIX_TREE_WALK_(slot, root, iter, start, RADIX_TREE_ITER_CONTIG,	\
			 RADIX_TREE_ITER_CONTIG)

#define radix_tree_for_each_tagged(slot, root, iter, start, tag)		\
	RADIX_TREE_WALK_(slot, root, iter, start, radix_tree_iter_tag_flags(tag), \
			 RADIX_TREE_ITER_TAGGED)

/* Flags for a tagged walk; an invalid tag yields flags that visit nothing. */
RCURADIX_INLINE unsigned int radix_tree_iter_tag_flags(unsigned int tag)
{
	return tag < RADIX_TREE_MAX_TAGS ? (RADIX_TREE_ITER_TAGGED | tag)
					 : (RADIX_TREE_ITER_TAGGED | RADIX_TREE_ITER_TAG_MASK);
}

#ifdef __cplusplus
}
#endif

#endif /* RCURADIX_RADIX_TREE_H */
