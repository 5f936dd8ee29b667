/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuradix/idr.h - the kernel's IDR and IDA: a map from small integer ids
 * to pointers that hands out the lowest free id, and an allocator of ids
 * alone, on rcuradix trees.
 *
 * Concurrency, as for the tree (rcuradix(7)):
 *   - idr_find(), idr_get_next(), idr_get_next_ul(), idr_for_each() and the
 *     idr_for_each_entry*() loops are RCU readers: call them inside a
 *     read-side section of the IDR's liburcu flavor (or holding
 *     idr_lock()).  They take no lock and never wait for a writer.  An id
 *     allocated with its item before the call began and not removed
 *     before it ended is always found.
 *   - idr_alloc*(), idr_remove(), idr_replace() and idr_destroy() are
 *     writers: they take the IDR's lock (recursive: they may be called
 *     holding idr_lock()).  A removed or replaced item may still be read
 *     by readers until a grace period of the flavor has passed: free it
 *     with call_rcu() or after synchronize_rcu().
 *
 * Ids are int (idr_alloc()) or u32 (idr_alloc_u32()), from the IDR's base
 * (idr_init_base(), else 0) to INT_MAX or UINT_MAX.  Finding a free id
 * takes O(height) steps, never a scan: every node keeps which of its slots
 * have a free id below them (the kernel's IDR_FREE).  An IDR's tree holds
 * full nodes only: ids are dense by construction.
 *
 * A NULL pointer reserves its id: idr_alloc(idr, NULL, ...) takes an id that
 * idr_find() reports as NULL and the iterations skip, until idr_replace()
 * puts an item there (the kernel's reserve-then-publish pattern).
 *
 * Differences from the kernel, all in what a kernel caller would see as a
 * WARN or a bug: an empty range ([start, end) with end > 0 and start >=
 * end, *nextid > max, or a range wholly below the base) returns -EINVAL
 * rather than -ENOSPC; the radix_tree_* calls that add or remove items or
 * change tags refuse an IDR's tree (-EINVAL), and its readers see a
 * reserved id's entry as a non-NULL value that is no item: read an IDR
 * through the idr_* calls.
 */
#ifndef RCURADIX_IDR_H
#define RCURADIX_IDR_H

#include <stdbool.h>
#include <stdint.h>

#include <rcuradix/radix-tree.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Error pointers, for idr_replace(): an error is returned as a pointer in
 * the last page of the address space, which no item can be (items are
 * 4-byte aligned, and -4095 .. -1 are either misaligned or in kernel
 * space).  The kernel's IS_ERR() / PTR_ERR() / ERR_PTR(), under the
 * library's names.
 */
#define RCURADIX_MAX_ERRNO 4095

/* Casts that C++ builds with -Wold-style-cast accept. */
#ifdef __cplusplus
#define RCURADIX_RCAST_(type, v) (reinterpret_cast<type>(v))
#define RCURADIX_SCAST_(type, v) (static_cast<type>(v))
#else
#define RCURADIX_RCAST_(type, v) ((type)(v))
#define RCURADIX_SCAST_(type, v) ((type)(v))
#endif

static inline void *rcuradix_err_ptr(long err)
{
	return RCURADIX_RCAST_(void *, RCURADIX_SCAST_(intptr_t, err));
}

static inline bool rcuradix_is_err(const void *ptr)
{
	return RCURADIX_RCAST_(uintptr_t, ptr) >= RCURADIX_SCAST_(uintptr_t, -RCURADIX_MAX_ERRNO);
}

static inline long rcuradix_ptr_err(const void *ptr)
{
	return RCURADIX_SCAST_(long, RCURADIX_RCAST_(intptr_t, ptr));
}

/*
 * struct idr - an id map.  Public so that it can be embedded and
 * initialised statically; every field is private to the library.
 */
struct idr {
	/* private. the ids, minus the lowest id, as keys; the lowest id is
	 * kept with the fields every reader loads (the root's base), away
	 * from the lines writers write */
	struct radix_tree_root idr_rt;
	unsigned int idr_next;         /* private. idr_alloc_cyclic()'s next start. W, R: tree lock */
};

#define IDR_INIT_BASE(name, base) \
	{ RADIX_TREE_INIT_FLAGS_(GFP_KERNEL, RADIX_TREE_FLAG_IDR_, (base)), 0U }
#define IDR_INIT(name) IDR_INIT_BASE(name, 0)

/* DEFINE_IDR(name): define an empty IDR, urcu-memb flavor, ids from 0. */
#define DEFINE_IDR(name) struct idr name = IDR_INIT(name)

/**
 * idr_init_flavor() - initialise an empty IDR for a liburcu flavor.
 * @idr:    the IDR (not in use by anybody).
 * @base:   the lowest id it hands out (idr_init_base()).
 * @flavor: the flavor of its readers' read-side sections, as for
 *          radix_tree_init_flavor(); NULL means urcu-memb.
 *
 * Context: Any; @idr must not be in use.
 * Return: nothing.  A NULL @idr is ignored.
 */
RCURADIX_API void idr_init_flavor(struct idr *idr, unsigned int base,
				  const struct rcu_flavor_struct *flavor);

/**
 * idr_init_base() - initialise an empty IDR whose ids start at @base.
 * @idr:  the IDR (not in use by anybody).
 * @base: the lowest id idr_alloc() hands out: ids below it are never free.
 *
 * Context: Any; @idr must not be in use.
 * Return: nothing.
 */
static inline void idr_init_base(struct idr *idr, int base)
{
	idr_init_flavor(idr, RCURADIX_SCAST_(unsigned int, base), NULL);
}

/**
 * idr_init() - initialise an empty IDR (urcu-memb flavor, ids from 0).
 * @idr: the IDR (not in use by anybody).
 *
 * Context: Any; @idr must not be in use.
 * Return: nothing.
 */
static inline void idr_init(struct idr *idr)
{
	idr_init_flavor(idr, 0, NULL);
}

/**
 * idr_alloc_u32() - allocate the lowest free id from *@nextid to @max.
 * @idr:    the IDR.
 * @ptr:    the item for the id (4-byte aligned), or NULL to reserve it.
 * @nextid: in: the lowest id wanted; out: the id allocated.
 * @max:    the highest id wanted (UINT_MAX at most: above is clamped).
 * @gfp:    GFP_KERNEL (may allocate nodes), or GFP_ATOMIC / GFP_NOWAIT
 *          (takes nodes only from the reserve idr_preload() filled).
 *
 * The id and @ptr are published together: a reader that finds the id
 * finds @ptr initialised.
 *
 * Context: Writer (takes the IDR's lock; may be called holding it).
 * Return: 0 (*@nextid set); -ENOSPC if every id of the range is taken;
 *         -ENOMEM if a node could not be obtained; -EINVAL if @ptr is not
 *         4-byte aligned, the range is empty (*@nextid > @max, or @max
 *         below the IDR's base), or @idr or @nextid is NULL or the IDR not
 *         initialised.  On error nothing changed, *@nextid included.
 */
RCURADIX_API int idr_alloc_u32(struct idr *idr, void *ptr, uint32_t *nextid,
			       unsigned long max, gfp_t gfp);

/**
 * idr_alloc() - allocate the lowest free id in [@start, @end).
 * @idr:   the IDR.
 * @ptr:   the item for the id (4-byte aligned), or NULL to reserve it.
 * @start: the lowest id wanted (>= 0).
 * @end:   one past the highest id wanted, or <= 0 for "up to INT_MAX".
 * @gfp:   as for idr_alloc_u32().
 *
 * Context: Writer (takes the IDR's lock; may be called holding it).
 * Return: the id (>= 0); -ENOSPC if every id of the range is taken;
 *         -ENOMEM if a node could not be obtained; -EINVAL if @start < 0,
 *         the range is empty (@end > 0 and @start >= @end) or wholly below
 *         the IDR's base, @ptr is not 4-byte aligned, or @idr is NULL or
 *         not initialised.  On error nothing changed.
 */
RCURADIX_API int idr_alloc(struct idr *idr, void *ptr, int start, int end, gfp_t gfp);

/**
 * idr_alloc_cyclic() - allocate an id in [@start, @end), after the last one
 * this call handed out, wrapping to @start when none is free above it.
 * @idr, @ptr, @start, @end, @gfp: as for idr_alloc().
 *
 * Context: Writer (takes the IDR's lock; may be called holding it).
 * Return: as for idr_alloc().
 */
RCURADIX_API int idr_alloc_cyclic(struct idr *idr, void *ptr, int start, int end, gfp_t gfp);

/**
 * idr_find() - the item of @id.
 * @idr: the IDR.
 * @id:  the id.
 *
 * Context: RCU reader (inside a read-side section of the IDR's flavor, or
 *          holding its lock); the item stays valid until the section ends.
 * Return: the item, or NULL if @id is free, reserved (allocated with a NULL
 *         pointer), below the base, or @idr is NULL.
 */
RCURADIX_API void *idr_find(const struct idr *idr, unsigned long id);

/**
 * idr_remove() - free @id.
 * @idr: the IDR.
 * @id:  the id.
 *
 * Context: Writer (takes the IDR's lock; may be called holding it).
 * Return: the item the id held, or NULL if it held none (free, reserved,
 *         below the base), or @idr is NULL or not initialised.
 */
RCURADIX_API void *idr_remove(struct idr *idr, unsigned long id);

/**
 * idr_replace() - put @ptr at allocated @id.
 * @idr: the IDR.
 * @ptr: the new item (4-byte aligned), or NULL to make the id reserved.
 * @id:  an allocated id (with an item or reserved).
 *
 * Readers find the old item or the new one, initialised.
 *
 * Context: Writer (takes the IDR's lock; may be called holding it).
 * Return: the old item (NULL if the id was reserved); or an error pointer
 *         (rcuradix_is_err()): -ENOENT if @id is not allocated, -EINVAL if
 *         @ptr is not 4-byte aligned or @idr is NULL or not initialised.
 *         On error nothing changed.
 */
RCURADIX_API void *idr_replace(struct idr *idr, void *ptr, unsigned long id);

/**
 * idr_get_next_ul() - the first item at an id at or after *@nextid.
 * @idr:    the IDR.
 * @nextid: in: where to start; out: the item's id (unchanged if none).
 *
 * Reserved ids are skipped.
 *
 * Context: RCU reader (as idr_find()).
 * Return: the item, or NULL if there is none at or after *@nextid.
 */
RCURADIX_API void *idr_get_next_ul(const struct idr *idr, unsigned long *nextid);

/**
 * idr_get_next() - idr_get_next_ul() for int ids.
 * @idr:    the IDR.
 * @nextid: in: where to start (a negative one finds nothing: as in the
 *          kernel, so that idr_for_each_entry() ends after id INT_MAX);
 *          out: the id.
 *
 * Context: RCU reader (as idr_find()).
 * Return: the item, or NULL if there is none at or after *@nextid up to
 *         INT_MAX.
 */
RCURADIX_API void *idr_get_next(const struct idr *idr, int *nextid);

/**
 * idr_for_each() - call @fn(id, item, @data) for every item, in id order.
 * @idr:  the IDR.
 * @fn:   the callback; a non-zero return stops the walk.
 * @data: passed to @fn.
 *
 * Reserved ids are skipped.  @fn runs inside the caller's read-side
 * section (or lock hold): it must not block for a grace period.
 *
 * Context: RCU reader (as idr_find()).
 * Return: the first non-zero value @fn returned, or 0.
 */
RCURADIX_API int idr_for_each(const struct idr *idr, int (*fn)(int id, void *p, void *data),
			      void *data);

/* Loops over the items in id order (RCU readers, as idr_get_next()).  The
 * step after id INT_MAX gives a negative id, where idr_get_next() finds
 * nothing: the loop ends. */
#define idr_for_each_entry(idr, entry, id) \
	for ((id) = 0; ((entry) = idr_get_next((idr), &(id))) != NULL; (id) += 1U)
#define idr_for_each_entry_ul(idr, entry, tmp, id)                                      \
	for ((tmp) = 0, (id) = 0;                                                      \
	     ((entry) = (tmp) <= (id) ? idr_get_next_ul((idr), &(id)) : NULL) != NULL;  \
	     (tmp) = (id), ++(id))
#define idr_for_each_entry_continue(idr, entry, id)                                    \
	for ((entry) = idr_get_next((idr), &(id)); (entry) != NULL;                      \
	     (id) += 1U, (entry) = idr_get_next((idr), &(id)))

/**
 * idr_is_empty() - does the IDR hold no id (no item and no reservation)?
 * @idr: the IDR.
 *
 * Context: Any (one load; under RCU, the answer of some moment of the call).
 * Return: 1 if empty (or @idr is NULL), 0 otherwise.
 */
static inline int idr_is_empty(const struct idr *idr)
{
	return !idr || radix_tree_empty(&idr->idr_rt);
}

/**
 * idr_destroy() - free every id and the IDR's nodes, not the items.
 * @idr: the IDR; empty and usable again afterwards.
 *
 * Not needed once every id was removed: an empty IDR owns no memory, as
 * in the kernel (its last node goes to call_rcu with its last id).
 *
 * Context: Writer (takes the IDR's lock).  Readers inside a read-side
 *          section still see the old ids until it ends.
 * Return: nothing.
 */
RCURADIX_API void idr_destroy(struct idr *idr);

/**
 * idr_preload() - fill this thread's reserve so that the next idr_alloc*()
 * cannot fail for lack of memory, and open a preload window.
 * @gfp: unused (kept for the kernel's signature).
 *
 * Pair it with idr_preload_end(), whatever it returns (the window opens
 * either way, as the kernel's).  The reserve then holds the nodes of the
 * worst insert into an IDR (two chains of full nodes: 5,760 bytes) and a
 * bitmap of an IDA, so that the next ida_alloc*() with GFP_NOWAIT cannot
 * fail for lack of memory either.
 *
 * Context: Any thread, outside the IDR's lock (it may allocate).
 * Return: 0; -ENOMEM if the reserve could not be filled (the kernel's
 *         returns nothing, and callers may ignore it: an idr_alloc*() that
 *         then lacks a node reports -ENOMEM).
 */
RCURADIX_API int idr_preload(gfp_t gfp);

/**
 * idr_preload_end() - close the window idr_preload() opened.
 *
 * Context: The thread that called idr_preload().
 * Return: nothing.
 */
static inline void idr_preload_end(void)
{
	radix_tree_preload_end();
}

/**
 * idr_lock() / idr_unlock() - take and release the IDR's lock (recursive),
 * to make several calls one step for other writers.
 * @idr: the IDR.
 *
 * Context: Writer.
 * Return: nothing.
 */
static inline void idr_lock(struct idr *idr)
{
	radix_tree_lock(&idr->idr_rt);
}

static inline void idr_unlock(struct idr *idr)
{
	radix_tree_unlock(&idr->idr_rt);
}

/*
 * The IDA: ids without items, one bit each.  It hands out the lowest free
 * id of a range and takes it back; nothing looks ids up, so it has no
 * readers: every call takes its lock.  Ids are kept in bitmaps of 1,024
 * ids (128 bytes), as the kernel's, under keys id / 1024 of an IDR tree:
 * finding a free id is O(height) and a bitmap scan.
 */
struct ida {
	struct radix_tree_root ida_rt; /* private. key k: the bitmap of ids k * 1024 .. */
};

#define IDA_INIT(name) \
	{ RADIX_TREE_INIT_FLAGS_(GFP_KERNEL, RADIX_TREE_FLAG_IDR_ | RADIX_TREE_FLAG_IDA_, 0U) }

/* DEFINE_IDA(name): define an empty IDA. */
#define DEFINE_IDA(name) struct ida name = IDA_INIT(name)

/**
 * ida_init() - initialise an empty IDA.
 * @ida: the IDA (not in use by anybody).
 *
 * Context: Any; @ida must not be in use.
 * Return: nothing.  A NULL @ida is ignored.
 */
RCURADIX_API void ida_init(struct ida *ida);

/**
 * ida_alloc_range() - allocate the lowest free id in [@min, @max].
 * @ida: the IDA.
 * @min: the lowest id wanted.
 * @max: the highest id wanted (above INT_MAX: INT_MAX).
 * @gfp: GFP_KERNEL (may allocate), or GFP_ATOMIC / GFP_NOWAIT (takes a
 *       bitmap and nodes only from this thread's reserve: after
 *       idr_preload(), the next allocation cannot fail for lack of memory).
 *
 * Context: Writer (takes the IDA's lock).
 * Return: the id; -ENOSPC if every id of the range is taken or @min is
 *         above INT_MAX (whatever @max is); -ENOMEM if memory could not be
 *         obtained; -EINVAL if @min > @max or @ida is NULL or not
 *         initialised.  On error nothing changed.
 */
RCURADIX_API int ida_alloc_range(struct ida *ida, unsigned int min, unsigned int max,
				 gfp_t gfp);

/* ida_alloc(), ida_alloc_min(), ida_alloc_max(): ida_alloc_range() from 0
 * and up to INT_MAX, as their names say. */
static inline int ida_alloc(struct ida *ida, gfp_t gfp)
{
	return ida_alloc_range(ida, 0, ~0U, gfp);
}

static inline int ida_alloc_min(struct ida *ida, unsigned int min, gfp_t gfp)
{
	return ida_alloc_range(ida, min, ~0U, gfp);
}

static inline int ida_alloc_max(struct ida *ida, unsigned int max, gfp_t gfp)
{
	return ida_alloc_range(ida, 0, max, gfp);
}

/**
 * ida_free() - free allocated @id.
 * @ida: the IDA.
 * @id:  an id ida_alloc*() returned and not freed since.
 *
 * Freeing an id that is not allocated is a bug of the caller: it is
 * reported on stderr (once per process) and changes nothing.
 *
 * Context: Writer (takes the IDA's lock).
 * Return: nothing.
 */
RCURADIX_API void ida_free(struct ida *ida, unsigned int id);

/**
 * ida_is_empty() - is no id allocated?
 * @ida: the IDA.
 *
 * Context: Any (one load).
 * Return: true if empty (or @ida is NULL).
 */
static inline bool ida_is_empty(const struct ida *ida)
{
	return !ida || radix_tree_empty(&ida->ida_rt);
}

/**
 * ida_destroy() - free every id and the memory of the IDA.
 * @ida: the IDA; empty and usable again afterwards.
 *
 * Not needed once every id was freed: an empty IDA owns no memory, as in
 * the kernel (its last bitmap goes with its last id, its last node, if
 * any, to call_rcu).
 *
 * Context: Writer (takes the IDA's lock).
 * Return: nothing.
 */
RCURADIX_API void ida_destroy(struct ida *ida);

#ifdef __cplusplus
}
#endif

#endif /* RCURADIX_IDR_H */
