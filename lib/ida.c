/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ida.c - the IDA (<rcuradix/idr.h>): ids one bit each, in bitmaps of
 * RT_IDA_BITS ids held as the items of an IDR tree (internal.h, "IDR
 * trees"), whose free words say which bitmaps have a clear bit.  Every call
 * is a writer: no reader ever loads a bitmap, so bitmaps change in place
 * under the lock and go back to the allocator at once.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "rcuradix/idr.h"
#include "tree.h"

#define RT_IDA_BITMAP_BYTES sizeof(struct rt_ida_bitmap)

static int rt_warned_not_ida, rt_warned_free;

/* Start writer call @fn on @ida: 0, or -EINVAL with nothing taken. */
static inline __attribute__((always_inline)) int rt_ida_enter(struct ida *ida, const char *fn)
{
	if (!ida)
		return -EINVAL;
	return rt_writer_enter_kind(&ida->ida_rt, RT_ROOT_IDR | RT_ROOT_IDA, &rt_warned_not_ida,
				    "IDA", "ida_init() or DEFINE_IDA()", fn);
}

RCURADIX_API void ida_init(struct ida *ida)
{
	if (!ida)
		return;
	radix_tree_init_flavor(&ida->ida_rt, GFP_KERNEL, NULL);
	ida->ida_rt.flags = RT_ROOT_IDR | RT_ROOT_IDA;
}

/*
 * The first clear bit of @bitmap in [@from, @to], or RT_IDA_BITS.  @open
 * is rt_ida_open_groups(@bitmap): past @from's own word, its first group
 * gives the word to look in, without a loop over the full ones.
 */
static unsigned int rt_ida_bitmap_find(const struct rt_ida_bitmap *bitmap, uint32_t open,
				       unsigned int from, unsigned int to)
{
	unsigned int w = from / RT_BITS_PER_LONG;
	unsigned long clear = ~bitmap->words[w] & (~0UL << (from % RT_BITS_PER_LONG));

	if (!clear) {
		open &= rt_ida_groups_after(w);
		if (!open)
			return RT_IDA_BITS;
		w = rt_ida_group_word((unsigned int)__builtin_ctz(open));
		clear = ~bitmap->words[w];
	}
	from = w * RT_BITS_PER_LONG + (unsigned int)__builtin_ctzl(clear);
	return from <= to ? from : RT_IDA_BITS;
}

static void rt_ida_bit_set(struct rt_ida_bitmap *bitmap, unsigned int bit)
{
	bitmap->words[bit / RT_BITS_PER_LONG] |= 1UL << (bit % RT_BITS_PER_LONG);
}

/* A new bitmap at free key @key (@path: the path to it), with only @bit
 * set: 0 or -ENOMEM. */
static int rt_ida_bitmap_insert(struct radix_tree_root *root, unsigned long key,
				const struct rt_path *path, unsigned int bit, gfp_t gfp)
{
	size_t size = RT_IDA_BITMAP_BYTES;
	struct rt_ida_bitmap *bitmap = rt_block_get_exact(size, rt_may_alloc(gfp));
	int err;

	if (!bitmap)
		return -ENOMEM;
	memset(bitmap, 0, size);
	rt_ida_bit_set(bitmap, bit);
	/* Its other ids are free: the slot stays free. */
	err = rt_full_insert_locked(root, key, path, bitmap, true, gfp);
	if (err) {
		void *block = bitmap;

		rt_nodes_put(&block, &size, 1);
	}
	return err;
}

/*
 * The lowest free id in [@min, @max]: the first key whose slot is free (an
 * empty one, or a bitmap with a clear bit), then that bitmap's first clear
 * bit in the range.  Only the range's first and last bitmaps may have
 * their clear bits all outside it: then the search goes on after them.
 */
static inline __attribute__((always_inline)) int
rt_ida_alloc_locked(struct radix_tree_root *root, unsigned long min, unsigned long max, gfp_t gfp)
{
	unsigned long key = min / RT_IDA_BITS, last = max / RT_IDA_BITS;

	for (;;) {
		struct rt_path path;
		struct rt_ida_bitmap *bitmap;
		unsigned int from, to, bit;
		uint32_t open;
		void **slot;
		int err = rt_free_find(root, key, last, &key, &path);

		if (err)
			return err;
		from = key == min / RT_IDA_BITS ? (unsigned int)(min % RT_IDA_BITS) : 0;
		to = key == last ? (unsigned int)(max % RT_IDA_BITS) : RT_IDA_BITS - 1;
		slot = rt_path_slot(root, &path);
		bitmap = slot ? rt_entry_locked(root, *slot) : NULL;
		if (!bitmap) {
			err = rt_ida_bitmap_insert(root, key, &path, from, gfp);
			return err ? err : (int)(key * RT_IDA_BITS + from);
		}
		open = rt_ida_open_groups(bitmap);
		bit = rt_ida_bitmap_find(bitmap, open, from, to);
		if (bit == RT_IDA_BITS) {
			key++;
			continue;
		}
		rt_ida_bit_set(bitmap, bit);
		/* Full once its last open word fills: the slot is no longer
		 * free. */
		if (!~bitmap->words[bit / RT_BITS_PER_LONG])
			open &= ~rt_ida_word_groups(bit / RT_BITS_PER_LONG);
		if (!open)
			rt_free_clear_path(root, &path, rt_path_slot_bit(&path));
		return (int)(key * RT_IDA_BITS + bit);
	}
}

RCURADIX_API int ida_alloc_range(struct ida *ida, unsigned int min, unsigned int max, gfp_t gfp)
{
	int ret;

	if (max > INT_MAX)
		max = INT_MAX;
	if (!ida || (min > max && min <= INT_MAX))
		return -EINVAL;
	if (min > INT_MAX)
		return -ENOSPC;
	ret = rt_ida_enter(ida, __func__);
	if (ret)
		return ret;
	ret = rt_ida_alloc_locked(&ida->ida_rt, min, max, gfp);
	rt_writer_done(&ida->ida_rt);
	return ret;
}

RCURADIX_API void ida_free(struct ida *ida, unsigned int id)
{
	struct radix_tree_root *root;
	unsigned long key = id / RT_IDA_BITS, mask = 1UL << (id % RT_BITS_PER_LONG);
	struct rt_ida_bitmap *bitmap = NULL;
	unsigned long *word = NULL;
	struct rt_path path;
	void **slot;
	bool was_full;

	if (rt_ida_enter(ida, __func__))
		return;
	root = &ida->ida_rt;
	slot = id <= INT_MAX ? rt_descend(root, key, &path, NULL) : NULL;
	if (slot)
		bitmap = rt_entry_locked(root, *slot);
	if (bitmap)
		word = &bitmap->words[(id % RT_IDA_BITS) / RT_BITS_PER_LONG];
	if (!word || !(*word & mask)) {
		rt_warn_once(&rt_warned_free, __func__, "id %u is not allocated (freed twice, or "
							"never handed out)", id);
		rt_writer_exit(root);
		return;
	}
	/* Full iff its slot is not free: the leaf's free word says so (the
	 * root's, for the root item). */
	was_full = !rt_path_slot_free(root, &path);
	*word &= ~mask;
	/* Another id of the same word keeps the bitmap, without a look at
	 * the other words (another cache line, half the time). */
	if (!*word && rt_ida_bitmap_empty(bitmap)) {
		size_t size = RT_IDA_BITMAP_BYTES;
		void *block = bitmap;

		/* No reader loads a bitmap: it goes back at once. */
		rt_delete_locked(root, key);
		rt_nodes_put(&block, &size, 1);
	} else if (was_full) {
		rt_free_set_path(root, &path, rt_path_slot_bit(&path));
	}
	rt_writer_done(root);
}

RCURADIX_API void ida_destroy(struct ida *ida)
{
	struct radix_tree_iter iter;
	void **slot;

	if (rt_ida_enter(ida, __func__))
		return;
	/* The bitmaps first (no reader loads them), then the nodes, which
	 * go through call_rcu as every tree's. */
	radix_tree_for_each_slot(slot, &ida->ida_rt, &iter, 0) {
		void *bitmap = rt_entry_locked(&ida->ida_rt, *slot);

		rt_node_free(RT_IDA_BITMAP_BYTES, &bitmap, 1);
	}
	rt_destroy_locked(&ida->ida_rt);
	rt_writer_done(&ida->ida_rt);
}
