/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idr.c - the IDR (<rcuradix/idr.h>): ids as keys of a tree of full nodes
 * whose free words (internal.h, "IDR trees") find the lowest free id in
 * O(height).  An id is its key plus the IDR's base.  Readers are the
 * tree's readers; writers take the tree's lock and go through tree.c's
 * full-node insert and its delete, which keep the free words.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>

#include "rcuradix/idr.h"
#include "preload.h"
#include "tree.h"

static int rt_warned_not_idr;

/* Start writer call @fn on @idr: 0, or -EINVAL (a NULL IDR, a root not
 * initialised, or not an IDR's) with nothing taken. */
static int rt_idr_enter(struct idr *idr, const char *fn)
{
	if (!idr)
		return -EINVAL;
	return rt_writer_enter_kind(&idr->idr_rt, RT_ROOT_IDR, &rt_warned_not_idr, "IDR",
				    "idr_init(), idr_init_base(), idr_init_flavor() or DEFINE_IDR()",
				    fn);
}

/* The key of @id, or false if @id is below the base or above the keys. */
static bool rt_idr_key(const struct idr *idr, unsigned long id, unsigned long *key)
{
	unsigned long base = idr->idr_rt.base;

	/* Base 0, the usual one, on a branch of its own: the key is then @id
	 * itself, and idr_find()'s descent does not depend on the load of the
	 * base, which cost random lookups about 10% (doc/performance.md). */
	if (caa_likely(base == 0))
		*key = id;
	else if (id >= base)
		*key = id - base;
	else
		return false;
	return *key <= RT_IDR_MAX_KEY;
}

/* What a reader reports for the entry of an id: reserved ids hold none. */
static void *rt_idr_item(void *entry)
{
	return entry == RT_IDR_RESERVED ? NULL : entry;
}

RCURADIX_API void idr_init_flavor(struct idr *idr, unsigned int base,
				  const struct rcu_flavor_struct *flavor)
{
	if (!idr)
		return;
	radix_tree_init_flavor(&idr->idr_rt, GFP_KERNEL, flavor);
	idr->idr_rt.flags = RT_ROOT_IDR;
	idr->idr_rt.base = base;
	idr->idr_next = 0;
}

/* Arguments every allocation checks: 0 or -EINVAL. */
static int rt_idr_alloc_check(const struct idr *idr, const void *ptr, unsigned long min,
			      unsigned long max)
{
	if (!idr || ((uintptr_t)ptr & RT_ITEM_ALIGN_MASK) || min > max || max < idr->idr_rt.base)
		return -EINVAL;
	return 0;
}

/*
 * Allocate the lowest free id in [@min, @max] (@max <= UINT_MAX, at least
 * the base) for @ptr, into *@id.  Tree lock held.  0, -ENOSPC or -ENOMEM.
 */
static int rt_idr_alloc_locked(struct idr *idr, void *ptr, unsigned long min, unsigned long max,
			       gfp_t gfp, unsigned long *id)
{
	unsigned long base = idr->idr_rt.base, key;
	struct rt_path path;
	int err;

	if (min < base)
		min = base;
	err = rt_free_find(&idr->idr_rt, min - base, max - base, &key, &path);
	if (err)
		return err;
	err = rt_full_insert_locked(&idr->idr_rt, key, &path, ptr ? ptr : RT_IDR_RESERVED, false,
				    gfp);
	if (err)
		return err;
	*id = key + base;
	return 0;
}

RCURADIX_API int idr_alloc_u32(struct idr *idr, void *ptr, uint32_t *nextid, unsigned long max,
			       gfp_t gfp)
{
	unsigned long id;
	int err;

	if (max > UINT_MAX)
		max = UINT_MAX;
	if (!nextid || rt_idr_alloc_check(idr, ptr, *nextid, max))
		return -EINVAL;
	err = rt_idr_enter(idr, __func__);
	if (err)
		return err;
	err = rt_idr_alloc_locked(idr, ptr, *nextid, max, gfp, &id);
	rt_writer_done(&idr->idr_rt);
	if (!err)
		*nextid = (uint32_t)id;
	return err;
}

/* The last id of [@start, @end) as idr_alloc() reads it. */
static unsigned long rt_idr_max(int end)
{
	return end > 0 ? (unsigned long)end - 1 : INT_MAX;
}

RCURADIX_API int idr_alloc(struct idr *idr, void *ptr, int start, int end, gfp_t gfp)
{
	uint32_t id = (uint32_t)start;
	int err;

	if (start < 0)
		return -EINVAL;
	err = idr_alloc_u32(idr, ptr, &id, rt_idr_max(end), gfp);
	return err ? err : (int)id;
}

RCURADIX_API int idr_alloc_cyclic(struct idr *idr, void *ptr, int start, int end, gfp_t gfp)
{
	unsigned long max = rt_idr_max(end), from, id;
	int err;

	if (start < 0 || rt_idr_alloc_check(idr, ptr, (unsigned long)start, max))
		return -EINVAL;
	err = rt_idr_enter(idr, __func__);
	if (err)
		return err;
	from = idr->idr_next > (unsigned int)start ? idr->idr_next : (unsigned long)start;
	err = from <= max ? rt_idr_alloc_locked(idr, ptr, from, max, gfp, &id) : -ENOSPC;
	/* Nothing free after the last one: wrap around to @start. */
	if (err == -ENOSPC && from > (unsigned long)start)
		err = rt_idr_alloc_locked(idr, ptr, (unsigned long)start, max, gfp, &id);
	if (!err)
		idr->idr_next = (unsigned int)id + 1;
	rt_writer_done(&idr->idr_rt);
	return err ? err : (int)id;
}

RCURADIX_API void *idr_find(const struct idr *idr, unsigned long id)
{
	unsigned long key;
	void **slot, *stop = NULL;

	if (!idr || !rt_idr_key(idr, id, &key))
		return NULL;
	rt_reader_check(&idr->idr_rt, __func__);
	/* Full nodes only: the inline descent always ends it. */
	slot = rt_descend_full(&idr->idr_rt, key, &stop);
	rt_assert(!stop);
	return slot ? rt_idr_item(rt_entry_rcu(*slot)) : NULL;
}

RCURADIX_API void *idr_remove(struct idr *idr, unsigned long id)
{
	unsigned long key;
	void *entry;

	if (!idr || !rt_idr_key(idr, id, &key) || rt_idr_enter(idr, __func__))
		return NULL;
	entry = rt_delete_locked(&idr->idr_rt, key);
	rt_writer_done(&idr->idr_rt);
	return rt_idr_item(entry);
}

RCURADIX_API void *idr_replace(struct idr *idr, void *ptr, unsigned long id)
{
	struct rt_path path;
	unsigned long key;
	void **slot, *old;

	if (!idr || ((uintptr_t)ptr & RT_ITEM_ALIGN_MASK))
		return rcuradix_err_ptr(-EINVAL);
	if (!rt_idr_key(idr, id, &key))
		return rcuradix_err_ptr(-ENOENT);
	if (rt_idr_enter(idr, __func__))
		return rcuradix_err_ptr(-EINVAL);
	slot = rt_descend(&idr->idr_rt, key, &path, NULL);
	old = slot ? rt_entry_locked(&idr->idr_rt, *slot) : NULL;
	/* Publish: the new item, initialised, in the id's slot; the id stays
	 * allocated, so no free word changes. */
	if (old)
		rt_publish(*slot, ptr ? ptr : RT_IDR_RESERVED);
	rt_writer_done(&idr->idr_rt);
	return old ? rt_idr_item(old) : rcuradix_err_ptr(-ENOENT);
}

/* The first item at a key at or after @key, into *@found; NULL if none. */
static void *rt_idr_next(const struct idr *idr, unsigned long key, unsigned long *found)
{
	struct radix_tree_iter iter;
	void **slot;

	radix_tree_for_each_slot(slot, &idr->idr_rt, &iter, key) {
		void *entry = rt_idr_item(rt_entry_rcu(*slot));

		if (entry) {
			*found = iter.index;
			return entry;
		}
	}
	return NULL;
}

RCURADIX_API void *idr_get_next_ul(const struct idr *idr, unsigned long *nextid)
{
	unsigned long key, found;
	void *entry;

	if (!idr || !nextid)
		return NULL;
	rt_reader_check(&idr->idr_rt, __func__);
	if (*nextid < idr->idr_rt.base)
		key = 0;
	else if (!rt_idr_key(idr, *nextid, &key))
		return NULL;
	entry = rt_idr_next(idr, key, &found);
	if (entry)
		*nextid = found + idr->idr_rt.base;
	return entry;
}

RCURADIX_API void *idr_get_next(const struct idr *idr, int *nextid)
{
	unsigned long id;
	void *entry;

	/* A negative start: past INT_MAX (the loops' id += 1 wrapped). */
	if (!nextid || *nextid < 0)
		return NULL;
	id = (unsigned long)*nextid;
	entry = idr_get_next_ul(idr, &id);
	if (!entry || id > INT_MAX)
		return NULL;
	*nextid = (int)id;
	return entry;
}

RCURADIX_API int idr_for_each(const struct idr *idr, int (*fn)(int id, void *p, void *data),
			      void *data)
{
	struct radix_tree_iter iter;
	void **slot;

	if (!idr || !fn)
		return 0;
	rt_reader_check(&idr->idr_rt, __func__);
	radix_tree_for_each_slot(slot, &idr->idr_rt, &iter, 0) {
		void *entry = rt_idr_item(rt_entry_rcu(*slot));
		unsigned long id = iter.index + idr->idr_rt.base;
		int ret;

		if (!entry)
			continue;
		if (id > INT_MAX)
			break;  /* ids beyond an int: idr_get_next_ul() reaches them */
		ret = fn((int)id, entry, data);
		if (ret)
			return ret;
	}
	return 0;
}

RCURADIX_API void idr_destroy(struct idr *idr)
{
	if (rt_idr_enter(idr, __func__))
		return;
	rt_destroy_locked(&idr->idr_rt);
	rt_writer_done(&idr->idr_rt);
}

RCURADIX_API int idr_preload(gfp_t gfp)
{
	(void)gfp;  /* userspace allocation does not sleep for reclaim */
	return rt_preload_idr(__func__);
}
