/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idr.c - the IDR (<rcuradix/idr.h>): every function and every error its
 * doc comments specify (the initialisers and the base, the three
 * allocators and their ranges up to INT_MAX and UINT_MAX, find, remove,
 * replace and the reserve-then-publish pattern, the iterations and loops,
 * destroy, preload, the lock); the radix_tree_* writers refused on an IDR's
 * tree; a differential test against a model (a dense array of the low ids
 * and a sorted set of the high ones) with random allocations, removals,
 * replacements and cyclic allocations, the IDR compared whole after every
 * batch, its tree's holes (radix_tree_next_hole() and prev_hole(), which
 * follow the free words) included; allocation failures injected at every node an allocation takes,
 * at several tree shapes, each leaving the IDR unchanged; the preload
 * promise in the worst case (a top over one leaf, an id needing a new top
 * and two chains); and RCU readers, urcu-memb and urcu-qsbr, finding ids
 * allocated before they started and walking them in order while a writer
 * allocates, replaces and removes others, freeing items after a grace
 * period; the layout of struct idr, whose reader fields share no cache
 * line with its writer fields.
 */
#include "helpers.h"
#include "model.h"

#include <rcuradix/idr.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>

static struct idr idr;

static void setup(void)
{
	urcu_memb_register_thread();
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
	idr_init(&idr);
}

static void teardown(void)
{
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
	urcu_memb_unregister_thread();
}

TestSuite(idr, .init = setup, .fini = teardown);

/* Pointers that are not 4-byte aligned, RT_IDR_RESERVED's value among them. */
static void *const misaligned[] = {
	(void *)(uintptr_t)0x1001, (void *)(uintptr_t)0x1002, (void *)(uintptr_t)0x1003,
	(void *)(uintptr_t)2, (void *)(uintptr_t)1,
};
#define NR_MISALIGNED (sizeof(misaligned) / sizeof(misaligned[0]))

static struct rcuradix_stats stats(void)
{
	struct rcuradix_stats st;

	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
	return st;
}

/* ---- act and verify -------------------------------------------------------- */

/* idr_find() as a reader: inside a urcu-memb read-side section, or for
 * another flavor's IDR holding its lock. */
static void *find(struct idr *r, unsigned long id)
{
	void *item;

	if (!r)
		return idr_find(NULL, id);
	if (r->idr_rt.flavor != &urcu_memb_flavor) {
		idr_lock(r);
		item = idr_find(r, id);
		idr_unlock(r);
		return item;
	}
	urcu_memb_read_lock();
	item = idr_find(r, id);
	urcu_memb_read_unlock();
	return item;
}

/*
 * Is @id allocated (with an item or reserved)?  Its key, the id minus the
 * base, holds an entry (a reserved id's is a non-NULL value, no item); if
 * so, allocating [id, id] must find it taken, and change nothing.
 */
static bool taken(struct idr *r, unsigned long id)
{
	uint32_t next = (uint32_t)id;
	bool present;
	int ret;

	cr_assert_leq(id, UINT_MAX);
	if (id < r->idr_rt.base)
		return false;
	urcu_memb_read_lock();
	present = radix_tree_lookup(&r->idr_rt, id - r->idr_rt.base) != NULL;
	urcu_memb_read_unlock();
	if (present) {
		ret = idr_alloc_u32(r, NULL, &next, id, GFP_KERNEL);
		cr_assert_eq(ret, -ENOSPC, "allocating taken id %#lx: %d", id, ret);
		cr_assert_eq(next, (uint32_t)id);
	}
	return present;
}

/* idr_alloc() of a fresh item must return @want; the item is found there. */
static struct titem *alloc_at(struct idr *r, int start, int end, int want)
{
	struct titem *item = titem_new((unsigned long)want);
	int ret = idr_alloc(r, item, start, end, GFP_KERNEL);

	cr_assert_eq(ret, want, "idr_alloc([%d, %d)) = %d, expected %d", start, end, ret, want);
	cr_assert_eq(find(r, (unsigned long)want), item);
	return item;
}

/* idr_alloc_u32() of a fresh item from @next to @max must return @want. */
static struct titem *alloc_u32_at(struct idr *r, uint32_t next, unsigned long max,
				  unsigned long want)
{
	struct titem *item = titem_new(want);
	uint32_t id = next;
	int ret = idr_alloc_u32(r, item, &id, max, GFP_KERNEL);

	cr_assert_eq(ret, 0, "idr_alloc_u32(%#x, %#lx) = %d", next, max, ret);
	cr_assert_eq(id, want, "idr_alloc_u32(%#x, %#lx) gave id %#x, expected %#lx", next, max,
		     id, want);
	cr_assert_eq(find(r, want), item);
	return item;
}

/* idr_alloc() must fail with @err (or @alt, if not 0) and change nothing. */
static void alloc_fails(struct idr *r, void *ptr, int start, int end, int err, int alt)
{
	unsigned long items = r->idr_rt.nr_items, nodes = r->idr_rt.nr_nodes;
	int ret = idr_alloc(r, ptr, start, end, GFP_KERNEL);

	cr_assert(ret == err || (alt && ret == alt), "idr_alloc(%p, [%d, %d)) = %d, expected %d",
		  ptr, start, end, ret, err);
	cr_assert_eq(r->idr_rt.nr_items, items);
	cr_assert_eq(r->idr_rt.nr_nodes, nodes);
	t_verify(&r->idr_rt);
}

/* idr_alloc_u32() must fail with @err, *nextid and the IDR unchanged. */
static void alloc_u32_fails(struct idr *r, void *ptr, uint32_t next, unsigned long max, int err)
{
	unsigned long items = r->idr_rt.nr_items, nodes = r->idr_rt.nr_nodes;
	uint32_t id = next;
	int ret = idr_alloc_u32(r, ptr, &id, max, GFP_KERNEL);

	cr_assert_eq(ret, err, "idr_alloc_u32(%p, %#x, %#lx) = %d, expected %d", ptr, next, max,
		     ret, err);
	cr_assert_eq(id, next, "*nextid changed on error: %#x", id);
	cr_assert_eq(r->idr_rt.nr_items, items);
	cr_assert_eq(r->idr_rt.nr_nodes, nodes);
	t_verify(&r->idr_rt);
}

/* idr_alloc_cyclic() of a fresh item must return @want. */
static struct titem *cyclic_at(struct idr *r, int start, int end, int want)
{
	struct titem *item = titem_new((unsigned long)want);
	int ret = idr_alloc_cyclic(r, item, start, end, GFP_KERNEL);

	cr_assert_eq(ret, want, "idr_alloc_cyclic([%d, %d)) = %d, expected %d", start, end, ret,
		     want);
	cr_assert_eq(find(r, (unsigned long)want), item);
	return item;
}

/* idr_remove() of @id must return @item (and the id be free after). */
static void remove_is(struct idr *r, unsigned long id, void *item)
{
	void *got = idr_remove(r, id);

	cr_assert_eq(got, item, "idr_remove(%#lx) = %p, expected %p", id, got, item);
	cr_assert_null(find(r, id));
	if (item)
		titem_free(item);
}

/* idr_replace() must return the error pointer of @err and change nothing. */
static void replace_fails(struct idr *r, void *ptr, unsigned long id, long err)
{
	void *before = r ? find(r, id) : NULL, *got = idr_replace(r, ptr, id);

	cr_assert(rcuradix_is_err(got), "idr_replace(%p, %#lx) = %p, not an error", ptr, id, got);
	cr_assert_eq(rcuradix_ptr_err(got), err, "idr_replace(%p, %#lx): error %ld, expected %ld",
		     ptr, id, rcuradix_ptr_err(got), err);
	if (r) {
		cr_assert_eq(find(r, id), before);
		t_verify(&r->idr_rt);
	}
}

/* Free the items left in @r and destroy it: then it is empty. */
static void idr_empty(struct idr *r)
{
	unsigned long id, tmp;
	void *item;

	t_verify(&r->idr_rt);
	idr_lock(r);
	idr_for_each_entry_ul(r, item, tmp, id)
		titem_free(item);
	idr_unlock(r);
	idr_destroy(r);
	cr_assert(idr_is_empty(r));
	cr_assert_null(find(r, 0));
	t_verify(&r->idr_rt);
}

/*
 * End of a test: idr_empty(), wait for the callbacks of @r's flavor and of
 * urcu-memb, drain this thread's reserve; every node counter must be back
 * to zero, and every test item freed.
 */
static void idr_finish(struct idr *r)
{
	idr_empty(r);
	r->idr_rt.flavor->barrier();
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	t_assert_no_nodes();
	cr_assert_eq(titem_live(), 0, "%lu test items leaked", titem_live());
}

/* ---- initialisation ---------------------------------------------------------- */

DEFINE_IDR(static_idr);

/*
 * Regression: the lowest id was a field of struct idr after the root,
 * beside the root's writer fields (the mutex, the lock owner and depth,
 * the counts), which every writer call writes: every idr_find() next to a
 * churning writer missed on that line.  It is now the root's base, among
 * the fields readers load.  For a struct idr at any 8-byte offset, and
 * for neighbours in an array, what idr_find() loads (the root's rnode ..
 * base) shares no 64-byte line with what writers write (the root's lock
 * .. depth, and idr_next).
 */
#define IDR_READERS_FIRST offsetof(struct idr, idr_rt.rnode)
#define IDR_READERS_END (offsetof(struct idr, idr_rt.base) + sizeof(unsigned int))
#define IDR_WRITERS_FIRST offsetof(struct idr, idr_rt.lock)
#define IDR_WRITERS_END (offsetof(struct idr, idr_next) + sizeof(unsigned int))

Test(idr, reader_and_writer_fields_never_share_a_cache_line)
{
	unsigned int checked = 0;

	cr_assert_lt(IDR_READERS_END, IDR_WRITERS_FIRST);
	cr_assert_lt(offsetof(struct idr, idr_rt.depth), IDR_WRITERS_END);
	for (uintptr_t off = 0; off < 64; off += 8) {
		uintptr_t r0 = off, r1 = r0 + sizeof(struct idr);

		cr_assert_not(t_share_a_line(r0 + IDR_READERS_FIRST, r0 + IDR_READERS_END,
					     r0 + IDR_WRITERS_FIRST, r0 + IDR_WRITERS_END),
			      "an IDR at offset %lu: its reader and writer fields share a line",
			      (unsigned long)off);
		cr_assert_not(t_share_a_line(r0 + IDR_WRITERS_FIRST, r0 + IDR_WRITERS_END,
					     r1 + IDR_READERS_FIRST, r1 + IDR_READERS_END),
			      "idrs[0] at offset %lu: its writer fields share a line with "
			      "idrs[1]'s reader fields", (unsigned long)off);
		checked++;
	}
	cr_assert_eq(checked, 8);
	idr_init_base(&idr, 7);
	cr_assert_eq(idr.idr_rt.base, 7, "the base is the root's");
}

Test(idr, define_idr_static_and_automatic)
{
	DEFINE_IDR(local);
	struct titem *a, *b, *c;

	cr_assert(idr_is_empty(&static_idr));
	cr_assert(idr_is_empty(&local));
	cr_assert_null(find(&static_idr, 0));
	a = alloc_at(&static_idr, 0, 0, 0);
	b = alloc_at(&static_idr, 0, 0, 1);
	c = alloc_at(&local, 0, 0, 0);
	cr_assert_not(idr_is_empty(&static_idr));
	cr_assert_eq(find(&static_idr, 0), a);
	cr_assert_eq(find(&local, 0), c);
	cr_assert_null(find(&local, 1));
	remove_is(&static_idr, 0, a);
	cr_assert_eq(find(&static_idr, 1), b);
	t_verify(&static_idr.idr_rt);
	idr_empty(&local);
	idr_empty(&static_idr);
	idr_finish(&idr);
}

Test(idr, init_and_init_flavor)
{
	struct idr other;
	struct titem *a;

	/* Re-initialised in place: empty, ids from 0 again. */
	a = alloc_at(&idr, 5, 0, 5);
	remove_is(&idr, 5, a);
	idr_init(&idr);
	cr_assert(idr_is_empty(&idr));
	alloc_at(&idr, 0, 0, 0);
	/* A NULL flavor is urcu-memb, over whatever the memory held; a NULL
	 * IDR is ignored. */
	idr_init_flavor(NULL, 7, NULL);
	memset(&other, 0xa5, sizeof(other));
	idr_init_flavor(&other, 7, NULL);
	cr_assert(idr_is_empty(&other));
	cr_assert_eq(other.idr_rt.flavor, &urcu_memb_flavor);
	cr_assert_null(find(&other, 0));
	alloc_at(&other, 0, 0, 7);
	alloc_at(&other, 0, 0, 8);
	cr_assert_null(find(&other, 6));
	idr_empty(&other);
	idr_finish(&idr);
}

Test(idr, init_base_ids_start_at_the_base)
{
	const int base = 100;
	struct titem *a, *b, *c, *d, *x = titem_new(0);
	unsigned long ul;
	uint32_t next;
	int id;

	idr_init_base(&idr, base);
	a = alloc_at(&idr, 0, 0, base);
	b = alloc_at(&idr, 0, 0, base + 1);
	c = alloc_at(&idr, base + 10, base + 20, base + 10);
	/* A range reaching from below the base: from the base up. */
	remove_is(&idr, base, a);
	a = alloc_at(&idr, 5, base + 5, base);
	d = alloc_u32_at(&idr, 0, ULONG_MAX, base + 2);
	/* Ids below the base are never allocated, found nor removed. */
	for (unsigned long below = 0; below < (unsigned long)base; below++) {
		cr_assert_null(find(&idr, below));
		cr_assert_null(idr_remove(&idr, below));
		replace_fails(&idr, x, below, -ENOENT);
	}
	titem_free(x);
	/* A range wholly below the base has no id to give: -EINVAL, as for
	 * idr_alloc_u32() (its @max below the base), or -ENOSPC. */
	alloc_fails(&idr, NULL, 0, base, -EINVAL, -ENOSPC);
	alloc_fails(&idr, NULL, 5, 50, -EINVAL, -ENOSPC);
	alloc_u32_fails(&idr, NULL, 0, base - 1, -EINVAL);
	/* The iterations start at the base. */
	urcu_memb_read_lock();
	id = 0;
	cr_assert_eq(idr_get_next(&idr, &id), a);
	cr_assert_eq(id, base);
	ul = 3;
	cr_assert_eq(idr_get_next_ul(&idr, &ul), a);
	cr_assert_eq(ul, (unsigned long)base);
	ul = base + 3;
	cr_assert_eq(idr_get_next_ul(&idr, &ul), c);
	cr_assert_eq(ul, (unsigned long)base + 10);
	urcu_memb_read_unlock();
	cr_assert_eq(find(&idr, base + 1), b);
	cr_assert_eq(find(&idr, base + 2), d);
	/* The highest u32 id is UINT_MAX whatever the base. */
	next = UINT_MAX - 1;
	alloc_u32_at(&idr, next, ULONG_MAX, UINT_MAX - 1);
	alloc_u32_at(&idr, next, ULONG_MAX, UINT_MAX);
	alloc_u32_fails(&idr, NULL, next, ULONG_MAX, -ENOSPC);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

Test(idr, init_base_high_bases)
{
	struct titem *a;
	uint32_t next;

	/* Base INT_MAX: one int id, then the u32 ones above it. */
	idr_init_base(&idr, INT_MAX);
	cr_assert_null(find(&idr, 0));
	a = alloc_at(&idr, 0, 0, INT_MAX);
	alloc_fails(&idr, NULL, 0, 0, -ENOSPC, 0);
	next = 0;
	alloc_u32_at(&idr, next, UINT_MAX, (unsigned long)INT_MAX + 1);
	cr_assert_eq(find(&idr, INT_MAX), a);
	cr_assert_null(find(&idr, INT_MAX - 1));
	cr_assert_null(idr_remove(&idr, INT_MAX - 1));
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
	/* A base of 1, the kernel's usual one. */
	idr_init_base(&idr, 1);
	alloc_at(&idr, 0, 0, 1);
	alloc_fails(&idr, NULL, 0, 2, -ENOSPC, 0);
	cr_assert_null(find(&idr, 0));
	alloc_at(&idr, 0, 0, 2);
	idr_finish(&idr);
}

Test(idr, init_flavor_qsbr_used_under_the_lock)
{
	struct titem *a, *b, *c;
	unsigned long ul;
	int id;

	idr_init_flavor(&idr, 0, &urcu_qsbr_flavor);
	cr_assert_eq(idr.idr_rt.flavor, &urcu_qsbr_flavor);
	idr_lock(&idr);
	a = titem_new(0);
	b = titem_new(1);
	c = titem_new(RT_MAP_SIZE * 3);
	cr_assert_eq(idr_alloc(&idr, a, 0, 0, GFP_KERNEL), 0);
	cr_assert_eq(idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL), 1);
	cr_assert_eq(idr_alloc(&idr, c, RT_MAP_SIZE * 3, 0, GFP_KERNEL), RT_MAP_SIZE * 3);
	cr_assert_eq(idr_find(&idr, 0), a);
	cr_assert_null(idr_find(&idr, 1));
	cr_assert_null(idr_replace(&idr, b, 1));
	cr_assert_eq(idr_find(&idr, 1), b);
	id = 2;
	cr_assert_eq(idr_get_next(&idr, &id), c);
	cr_assert_eq(id, RT_MAP_SIZE * 3);
	ul = 1;
	cr_assert_eq(idr_get_next_ul(&idr, &ul), b);
	cr_assert_eq(ul, 1);
	cr_assert_eq(idr_remove(&idr, 0), a);
	cr_assert_eq(idr_remove(&idr, RT_MAP_SIZE * 3), c);
	idr_unlock(&idr);
	titem_free(a);
	titem_free(c);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* ---- idr_alloc --------------------------------------------------------------- */

Test(idr, alloc_takes_the_lowest_free_id_of_the_range)
{
	struct titem *items[3 * RT_MAP_SIZE];
	unsigned int n = 3 * RT_MAP_SIZE;

	for (unsigned int i = 0; i < n; i++)
		items[i] = alloc_at(&idr, 0, 0, (int)i);
	t_verify(&idr.idr_rt);
	/* Holes are filled lowest first, whatever order they were made in. */
	remove_is(&idr, 2 * RT_MAP_SIZE + 1, items[2 * RT_MAP_SIZE + 1]);
	remove_is(&idr, 7, items[7]);
	remove_is(&idr, RT_MAP_SIZE, items[RT_MAP_SIZE]);
	remove_is(&idr, 3, items[3]);
	items[3] = alloc_at(&idr, 0, 0, 3);
	items[7] = alloc_at(&idr, 0, 0, 7);
	/* From @start: the hole below it is left alone. */
	items[2 * RT_MAP_SIZE + 1] = alloc_at(&idr, RT_MAP_SIZE + 1, 0, 2 * RT_MAP_SIZE + 1);
	alloc_at(&idr, RT_MAP_SIZE + 1, 0, (int)n);
	items[RT_MAP_SIZE] = alloc_at(&idr, 0, 0, RT_MAP_SIZE);
	/* A range above every id: its start. */
	alloc_at(&idr, 100000, 100005, 100000);
	alloc_at(&idr, 100000, 100005, 100001);
	alloc_at(&idr, 1 << 30, 0, 1 << 30);
	alloc_at(&idr, (1 << 30) - 1, (1 << 30) + 5, (1 << 30) - 1);
	alloc_at(&idr, (1 << 30) - 1, (1 << 30) + 5, (1 << 30) + 1);
	alloc_at(&idr, 0, 0, (int)n + 1);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/*
 * Growth over a top with no free id: the new nodes between the new top and
 * the old one have free ids beside it, and the lowest free id is the one
 * after the old top's range, below the id that made the tree grow.  And
 * the shrink back to the full top: no free id below it.
 */
Test(idr, alloc_lowest_after_growth_over_a_full_top)
{
	static const int far[] = { RT_MAP_SIZE, RT_MAP_SIZE * RT_MAP_SIZE,
				   RT_MAP_SIZE * RT_MAP_SIZE * RT_MAP_SIZE, 1 << 30 };
	struct titem *item;

	for (unsigned int f = 0; f < sizeof(far) / sizeof(far[0]); f++) {
		for (int id = 0; id < (int)RT_MAP_SIZE; id++)
			alloc_at(&idr, 0, 0, id);
		cr_assert_eq(t_height(&idr.idr_rt), 1);
		item = alloc_at(&idr, far[f], 0, far[f]);
		t_verify(&idr.idr_rt);
		/* Back to the full leaf: no free id below the top. */
		remove_is(&idr, (unsigned long)far[f], item);
		t_verify(&idr.idr_rt);
		cr_assert_eq(t_height(&idr.idr_rt), 1);
		item = alloc_at(&idr, far[f], 0, far[f]);
		t_verify(&idr.idr_rt);
		alloc_at(&idr, 0, 0, far[f] == RT_MAP_SIZE ? RT_MAP_SIZE + 1 : RT_MAP_SIZE);
		t_verify(&idr.idr_rt);
		idr_finish(&idr);
	}
}

Test(idr, alloc_end_at_most_zero_means_int_max)
{
	static const int ends[] = { 0, -1, -100, INT_MIN };

	for (unsigned int e = 0; e < sizeof(ends) / sizeof(ends[0]); e++) {
		alloc_at(&idr, INT_MAX - 1, ends[e], INT_MAX - 1);
		alloc_at(&idr, INT_MAX - 1, ends[e], INT_MAX);
		/* Not beyond INT_MAX, though u32 ids are free there. */
		alloc_fails(&idr, NULL, INT_MAX - 1, ends[e], -ENOSPC, 0);
		alloc_fails(&idr, NULL, INT_MAX, ends[e], -ENOSPC, 0);
		alloc_at(&idr, 5, ends[e], 5);
		idr_finish(&idr);
	}
}

Test(idr, alloc_enospc_when_every_id_of_the_range_is_taken)
{
	struct titem *a, *x = titem_new(0);

	for (int id = 10; id < 20; id++)
		alloc_at(&idr, 10, 20, id);
	alloc_fails(&idr, NULL, 10, 20, -ENOSPC, 0);
	alloc_fails(&idr, x, 15, 16, -ENOSPC, 0);
	titem_free(x);
	alloc_fails(&idr, NULL, 19, 20, -ENOSPC, 0);
	/* A reserved id is taken too. */
	cr_assert_eq(idr_alloc(&idr, NULL, 20, 21, GFP_KERNEL), 20);
	alloc_fails(&idr, NULL, 20, 21, -ENOSPC, 0);
	/* One id freed: exactly that one. */
	a = find(&idr, 13);
	remove_is(&idr, 13, a);
	alloc_at(&idr, 10, 21, 13);
	alloc_fails(&idr, NULL, 10, 21, -ENOSPC, 0);
	alloc_at(&idr, 10, 22, 21);
	/* Up to INT_MAX. */
	alloc_at(&idr, INT_MAX, 0, INT_MAX);
	alloc_fails(&idr, NULL, INT_MAX, 0, -ENOSPC, 0);
	/* Every id of [0, 22) taken, the next one free. */
	for (int id = 0; id < 10; id++)
		alloc_at(&idr, 0, 10, id);
	alloc_fails(&idr, NULL, 0, 22, -ENOSPC, 0);
	alloc_at(&idr, 0, 23, 22);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

static int einval_uninitialised(void *arg)
{
	struct idr zero;
	uint32_t next = 0;
	void *got;
	int x;

	(void)arg;
	memset(&zero, 0, sizeof(zero));
	T_CHILD_CHECK(idr_alloc(&zero, &x, 0, 0, GFP_KERNEL) == -EINVAL);
	T_CHILD_CHECK(idr_alloc_u32(&zero, &x, &next, UINT_MAX, GFP_KERNEL) == -EINVAL);
	T_CHILD_CHECK(next == 0);
	T_CHILD_CHECK(idr_alloc_cyclic(&zero, &x, 0, 0, GFP_KERNEL) == -EINVAL);
	T_CHILD_CHECK(idr_remove(&zero, 0) == NULL);
	got = idr_replace(&zero, &x, 0);
	T_CHILD_CHECK(rcuradix_is_err(got) && rcuradix_ptr_err(got) == -EINVAL);
	T_CHILD_CHECK(idr_is_empty(&zero));
	return 0;
}

static int einval_plain_tree(void *arg)
{
	struct idr plain;
	uint32_t next = 3;
	void *got;
	int x;

	(void)arg;
	memset(&plain, 0, sizeof(plain));
	INIT_RADIX_TREE(&plain.idr_rt, GFP_KERNEL);
	T_CHILD_CHECK(idr_alloc(&plain, &x, 0, 0, GFP_KERNEL) == -EINVAL);
	T_CHILD_CHECK(idr_alloc_u32(&plain, &x, &next, UINT_MAX, GFP_KERNEL) == -EINVAL);
	T_CHILD_CHECK(next == 3);
	T_CHILD_CHECK(idr_alloc_cyclic(&plain, &x, 0, 0, GFP_KERNEL) == -EINVAL);
	got = idr_replace(&plain, &x, 0);
	T_CHILD_CHECK(rcuradix_is_err(got) && rcuradix_ptr_err(got) == -EINVAL);
	T_CHILD_CHECK(radix_tree_empty(&plain.idr_rt));
	return 0;
}

/* The child exits 0 having reported its misuse in one line. */
static void lives_with_one_report(t_child_fn *fn)
{
	struct t_child child;
	const char *nl;

	t_child_run(fn, NULL, &child);
	cr_assert(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0,
		  "expected exit 0, stderr:\n%s", child.err);
	nl = strchr(child.err, '\n');
	cr_assert(strncmp(child.err, "rcuradix: ", 10) == 0 && nl && nl[1] == '\0',
		  "expected one report line, stderr:\n%s", child.err);
}

Test(idr, alloc_einval_changes_nothing)
{
	struct titem *a = alloc_at(&idr, 0, 0, 0);
	struct titem *b = titem_new(1);

	/* @start < 0. */
	alloc_fails(&idr, b, -1, 0, -EINVAL, 0);
	alloc_fails(&idr, b, -1, 10, -EINVAL, 0);
	alloc_fails(&idr, b, INT_MIN, -1, -EINVAL, 0);
	/* An empty range: @end > 0 and @start >= @end. */
	alloc_fails(&idr, b, 5, 5, -EINVAL, 0);
	alloc_fails(&idr, b, 6, 5, -EINVAL, 0);
	alloc_fails(&idr, b, INT_MAX, 1, -EINVAL, 0);
	alloc_fails(&idr, b, 1, 1, -EINVAL, 0);
	/* Misaligned pointers, RT_IDR_RESERVED's value among them. */
	for (unsigned int i = 0; i < NR_MISALIGNED; i++) {
		alloc_fails(&idr, misaligned[i], 0, 0, -EINVAL, 0);
		alloc_fails(&idr, misaligned[i], 1, 2, -EINVAL, 0);
		alloc_u32_fails(&idr, misaligned[i], 1, UINT_MAX, -EINVAL);
		cr_assert_eq(idr_alloc_cyclic(&idr, misaligned[i], 0, 0, GFP_KERNEL), -EINVAL);
	}
	/* A NULL IDR. */
	cr_assert_eq(idr_alloc(NULL, b, 0, 0, GFP_KERNEL), -EINVAL);
	cr_assert_eq(idr_alloc_cyclic(NULL, b, 0, 0, GFP_KERNEL), -EINVAL);
	/* Uninitialised, or initialised as a plain tree: reported once. */
	lives_with_one_report(einval_uninitialised);
	lives_with_one_report(einval_plain_tree);
	/* Nothing changed: id 1 is still the lowest free one. */
	cr_assert_eq(find(&idr, 0), a);
	cr_assert_eq(idr_alloc(&idr, b, 0, 0, GFP_KERNEL), 1);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* ---- idr_alloc_u32 ----------------------------------------------------------- */

Test(idr, alloc_u32_sets_nextid_and_clamps_max)
{
	uint32_t next;

	alloc_u32_at(&idr, 0, 10, 0);
	alloc_u32_at(&idr, 0, 10, 1);
	alloc_u32_at(&idr, 7, 7, 7);
	alloc_u32_at(&idr, 5, 100, 5);
	/* Above INT_MAX, up to UINT_MAX. */
	alloc_u32_at(&idr, (uint32_t)INT_MAX + 1, UINT_MAX, (unsigned long)INT_MAX + 1);
	alloc_u32_at(&idr, 1U << 31, UINT_MAX, (1UL << 31) + 1);
	alloc_u32_at(&idr, UINT_MAX - 2, UINT_MAX, UINT_MAX - 2);
	/* @max above UINT_MAX is UINT_MAX: ids stop there. */
	alloc_u32_at(&idr, UINT_MAX - 2, ULONG_MAX, UINT_MAX - 1);
	alloc_u32_at(&idr, UINT_MAX - 2, (unsigned long)UINT_MAX + 1, UINT_MAX);
	alloc_u32_fails(&idr, NULL, UINT_MAX - 2, ULONG_MAX, -ENOSPC);
	alloc_u32_fails(&idr, NULL, UINT_MAX, (unsigned long)UINT_MAX + 1, -ENOSPC);
	alloc_u32_fails(&idr, NULL, UINT_MAX, UINT_MAX, -ENOSPC);
	cr_assert_null(find(&idr, (unsigned long)UINT_MAX + 1));
	/* *nextid > max: -EINVAL, *nextid unchanged. */
	alloc_u32_fails(&idr, NULL, 11, 10, -EINVAL);
	alloc_u32_fails(&idr, NULL, UINT_MAX, UINT_MAX - 1, -EINVAL);
	alloc_u32_fails(&idr, NULL, 1, 0, -EINVAL);
	/* A full range: -ENOSPC, *nextid unchanged. */
	alloc_u32_fails(&idr, NULL, 0, 1, -ENOSPC);
	alloc_u32_fails(&idr, NULL, 7, 7, -ENOSPC);
	/* NULL arguments. */
	next = 3;
	cr_assert_eq(idr_alloc_u32(&idr, NULL, NULL, 10, GFP_KERNEL), -EINVAL);
	cr_assert_eq(idr_alloc_u32(NULL, NULL, &next, 10, GFP_KERNEL), -EINVAL);
	cr_assert_eq(next, 3);
	/* Reservations through it. */
	next = 0;
	cr_assert_eq(idr_alloc_u32(&idr, NULL, &next, 10, GFP_KERNEL), 0);
	cr_assert_eq(next, 2);
	cr_assert_null(find(&idr, 2));
	cr_assert(taken(&idr, 2));
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* ---- idr_alloc_cyclic ---------------------------------------------------------- */

Test(idr, alloc_cyclic_goes_on_after_the_last_id_and_wraps)
{
	struct titem *items[8];

	items[0] = cyclic_at(&idr, 0, 8, 0);
	items[1] = cyclic_at(&idr, 0, 8, 1);
	items[2] = cyclic_at(&idr, 0, 8, 2);
	/* A freed id below the last one is not reused before the wrap, nor
	 * the last one itself. */
	remove_is(&idr, 1, items[1]);
	items[3] = cyclic_at(&idr, 0, 8, 3);
	remove_is(&idr, 3, items[3]);
	items[4] = cyclic_at(&idr, 0, 8, 4);
	/* Other allocators take ids without moving the cycle on. */
	cr_assert_eq(idr_alloc(&idr, NULL, 0, 8, GFP_KERNEL), 1);
	cr_assert_eq(idr_alloc(&idr, NULL, 6, 8, GFP_KERNEL), 6);
	items[5] = cyclic_at(&idr, 0, 8, 5);
	items[7] = cyclic_at(&idr, 0, 8, 7);
	/* Nothing free above 7: wraps to @start, the lowest free from there. */
	items[3] = cyclic_at(&idr, 0, 8, 3);
	/* Full: -ENOSPC, nothing changed. */
	cr_assert_eq(idr_alloc_cyclic(&idr, NULL, 0, 8, GFP_KERNEL), -ENOSPC);
	cr_assert(taken(&idr, 6));
	/* After 3: 4 first, then the wrap to 1. */
	cr_assert_null(idr_remove(&idr, 1));
	remove_is(&idr, 4, items[4]);
	items[4] = cyclic_at(&idr, 0, 8, 4);
	items[1] = cyclic_at(&idr, 0, 8, 1);
	remove_is(&idr, 0, items[0]);
	/* After 1, nothing free up to 7: from @start again. */
	items[0] = cyclic_at(&idr, 0, 8, 0);
	/* A @start above the last id: from @start. */
	cyclic_at(&idr, 100, 200, 100);
	cyclic_at(&idr, 50, 200, 101);
	/* A last id above @end: the wrap from @start. */
	cyclic_at(&idr, 0, 50, 8);
	cyclic_at(&idr, 0, 50, 9);
	/* Up to INT_MAX (end <= 0), then the wrap. */
	cyclic_at(&idr, INT_MAX - 1, 0, INT_MAX - 1);
	cyclic_at(&idr, INT_MAX - 2, 0, INT_MAX);
	cyclic_at(&idr, INT_MAX - 2, -1, INT_MAX - 2);
	cr_assert_eq(idr_alloc_cyclic(&idr, NULL, INT_MAX - 2, 0, GFP_KERNEL), -ENOSPC);
	/* -EINVAL as idr_alloc(). */
	cr_assert_eq(idr_alloc_cyclic(&idr, NULL, -1, 0, GFP_KERNEL), -EINVAL);
	cr_assert_eq(idr_alloc_cyclic(&idr, NULL, 5, 5, GFP_KERNEL), -EINVAL);
	cr_assert_eq(idr_alloc_cyclic(&idr, NULL, 7, 3, GFP_KERNEL), -EINVAL);
	/* The failed calls did not move the cycle: after INT_MAX - 2 still. */
	remove_is(&idr, INT_MAX - 2, find(&idr, INT_MAX - 2));
	remove_is(&idr, INT_MAX - 1, find(&idr, INT_MAX - 1));
	cyclic_at(&idr, INT_MAX - 2, 0, INT_MAX - 1);
	cyclic_at(&idr, INT_MAX - 2, 0, INT_MAX - 2);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* ---- find, remove, replace ------------------------------------------------------ */

Test(idr, find_returns_the_item_or_null)
{
	struct titem *a = alloc_at(&idr, 0, 0, 0);
	struct titem *b = alloc_at(&idr, RT_MAP_SIZE + 3, 0, RT_MAP_SIZE + 3);
	struct titem *c = alloc_u32_at(&idr, UINT_MAX, UINT_MAX, UINT_MAX);

	cr_assert_eq(idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL), 1);
	cr_assert_eq(find(&idr, 0), a);
	cr_assert_null(find(&idr, 1));  /* reserved */
	cr_assert_null(find(&idr, 2));  /* free */
	cr_assert_eq(find(&idr, RT_MAP_SIZE + 3), b);
	cr_assert_null(find(&idr, RT_MAP_SIZE + 2));
	cr_assert_null(find(&idr, RT_MAP_SIZE * RT_MAP_SIZE * 5));
	cr_assert_eq(find(&idr, UINT_MAX), c);
	cr_assert_null(find(&idr, (unsigned long)UINT_MAX + 1));
	cr_assert_null(find(&idr, ULONG_MAX));
	cr_assert_null(find(NULL, 0));
	/* Under the lock instead of a read-side section. */
	idr_lock(&idr);
	cr_assert_eq(idr_find(&idr, 0), a);
	idr_unlock(&idr);
	idr_finish(&idr);
}

Test(idr, remove_returns_the_item_and_frees_the_id)
{
	struct titem *a = alloc_at(&idr, 0, 0, 0);
	struct titem *b = alloc_at(&idr, 0, 0, 1);
	struct titem *far = alloc_at(&idr, 1 << 30, 0, 1 << 30);

	cr_assert_eq(idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL), 2);
	/* A reserved id: NULL, and the id is free again. */
	cr_assert_null(idr_remove(&idr, 2));
	cr_assert_not(taken(&idr, 2));
	remove_is(&idr, 0, a);
	remove_is(&idr, 0, NULL);  /* twice */
	remove_is(&idr, 5, NULL);  /* never allocated */
	remove_is(&idr, ULONG_MAX, NULL);
	cr_assert_null(idr_remove(NULL, 1));
	cr_assert_eq(find(&idr, 1), b);
	alloc_at(&idr, 0, 0, 0);
	alloc_at(&idr, 0, 0, 2);
	/* The far id, alone above: the tree shrinks back (radix_tree_verify()
	 * checks the height is minimal). */
	remove_is(&idr, 1 << 30, far);
	t_verify(&idr.idr_rt);
	cr_assert_eq(t_height(&idr.idr_rt), 1);
	/* The last id: empty. */
	remove_is(&idr, 1, b);
	remove_is(&idr, 0, find(&idr, 0));
	remove_is(&idr, 2, find(&idr, 2));
	cr_assert(idr_is_empty(&idr));
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

Test(idr, replace_returns_the_old_item)
{
	struct titem *a = alloc_at(&idr, 0, 0, 0), *b = titem_new(0), *c = titem_new(1);
	void *got;

	got = idr_replace(&idr, b, 0);
	cr_assert_eq(got, a);
	cr_assert_eq(find(&idr, 0), b);
	titem_free(a);
	/* NULL makes the id reserved; replacing a reserved id returns NULL. */
	cr_assert_eq(idr_replace(&idr, NULL, 0), b);
	cr_assert_null(find(&idr, 0));
	cr_assert(taken(&idr, 0));
	cr_assert_null(idr_replace(&idr, NULL, 0));
	cr_assert_null(idr_replace(&idr, b, 0));
	cr_assert_eq(find(&idr, 0), b);
	/* A free id: -ENOENT, and it stays free. */
	replace_fails(&idr, c, 1, -ENOENT);
	cr_assert_not(taken(&idr, 1));
	replace_fails(&idr, c, RT_MAP_SIZE * 9, -ENOENT);
	replace_fails(&idr, NULL, 1, -ENOENT);
	replace_fails(&idr, c, (unsigned long)UINT_MAX + 1, -ENOENT);
	replace_fails(&idr, c, ULONG_MAX, -ENOENT);
	/* A misaligned pointer: -EINVAL, the item stays. */
	for (unsigned int i = 0; i < NR_MISALIGNED; i++)
		replace_fails(&idr, misaligned[i], 0, -EINVAL);
	/* A NULL IDR. */
	replace_fails(NULL, c, 0, -EINVAL);
	cr_assert_eq(find(&idr, 0), b);
	titem_free(c);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

Test(idr, reserve_then_publish)
{
	struct titem *item, *far = titem_new(UINT_MAX - 5);
	uint32_t next = UINT_MAX - 5;
	int id;

	alloc_at(&idr, 0, 0, 0);
	id = idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL);
	cr_assert_eq(id, 1);
	cr_assert_null(find(&idr, 1));
	/* Reserved: not free for the next allocation. */
	alloc_at(&idr, 0, 0, 2);
	item = titem_new((unsigned long)id);
	cr_assert_null(idr_replace(&idr, item, (unsigned long)id));
	cr_assert_eq(find(&idr, (unsigned long)id), item);
	cr_assert(titem_ok(find(&idr, 1), 1));
	/* The same far away, through idr_alloc_u32(). */
	cr_assert_eq(idr_alloc_u32(&idr, NULL, &next, UINT_MAX, GFP_KERNEL), 0);
	cr_assert_eq(next, UINT_MAX - 5);
	cr_assert_null(find(&idr, next));
	cr_assert_null(idr_replace(&idr, far, next));
	cr_assert_eq(find(&idr, next), far);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* ---- iterations -------------------------------------------------------------- */

/* Items at 3, 4, RT_MAP_SIZE + 1, 1 << 20, INT_MAX - 1, 2^31 + 5 and
 * UINT_MAX; reserved ids at 0, 5 and 1 << 21. */
static struct titem *iter_items[7];
static const unsigned long iter_ids[7] = {
	3, 4, RT_MAP_SIZE + 1, 1UL << 20, INT_MAX - 1, (1UL << 31) + 5, UINT_MAX,
};

static void iter_fill(void)
{
	cr_assert_eq(idr_alloc(&idr, NULL, 0, 1, GFP_KERNEL), 0);
	cr_assert_eq(idr_alloc(&idr, NULL, 5, 6, GFP_KERNEL), 5);
	cr_assert_eq(idr_alloc(&idr, NULL, 1 << 21, 0, GFP_KERNEL), 1 << 21);
	for (unsigned int i = 0; i < 7; i++)
		iter_items[i] = alloc_u32_at(&idr, (uint32_t)iter_ids[i], iter_ids[i], iter_ids[i]);
}

Test(idr, get_next_and_get_next_ul)
{
	unsigned long ul;
	int id;

	urcu_memb_read_lock();
	/* Empty: NULL, *nextid unchanged. */
	id = 0;
	cr_assert_null(idr_get_next(&idr, &id));
	cr_assert_eq(id, 0);
	ul = 0;
	cr_assert_null(idr_get_next_ul(&idr, &ul));
	cr_assert_eq(ul, 0);
	urcu_memb_read_unlock();
	iter_fill();
	urcu_memb_read_lock();
	/* Reserved ids skipped. */
	id = 0;
	cr_assert_eq(idr_get_next(&idr, &id), iter_items[0]);
	cr_assert_eq(id, 3);
	id = 4;
	cr_assert_eq(idr_get_next(&idr, &id), iter_items[1]);
	cr_assert_eq(id, 4);
	id = 5;
	cr_assert_eq(idr_get_next(&idr, &id), iter_items[2]);
	cr_assert_eq(id, RT_MAP_SIZE + 1);
	id = RT_MAP_SIZE + 2;
	cr_assert_eq(idr_get_next(&idr, &id), iter_items[3]);
	cr_assert_eq(id, 1 << 20);
	id = (1 << 20) + 1;
	cr_assert_eq(idr_get_next(&idr, &id), iter_items[4]);
	cr_assert_eq(id, INT_MAX - 1);
	/* Nothing up to INT_MAX: NULL, *nextid unchanged, though u32 ids
	 * follow. */
	id = INT_MAX;
	cr_assert_null(idr_get_next(&idr, &id));
	cr_assert_eq(id, INT_MAX);
	/* A negative *nextid finds nothing (the kernel reads it as an id
	 * above INT_MAX), and is left as it was. */
	id = -1;
	cr_assert_null(idr_get_next(&idr, &id));
	cr_assert_eq(id, -1);
	id = INT_MIN;
	cr_assert_null(idr_get_next(&idr, &id));
	cr_assert_eq(id, INT_MIN);
	/* The ul version goes on beyond INT_MAX. */
	ul = INT_MAX;
	cr_assert_eq(idr_get_next_ul(&idr, &ul), iter_items[5]);
	cr_assert_eq(ul, (1UL << 31) + 5);
	ul++;
	cr_assert_eq(idr_get_next_ul(&idr, &ul), iter_items[6]);
	cr_assert_eq(ul, UINT_MAX);
	ul = (unsigned long)UINT_MAX + 1;
	cr_assert_null(idr_get_next_ul(&idr, &ul));
	cr_assert_eq(ul, (unsigned long)UINT_MAX + 1);
	ul = ULONG_MAX;
	cr_assert_null(idr_get_next_ul(&idr, &ul));
	cr_assert_eq(ul, ULONG_MAX);
	ul = 0;
	cr_assert_eq(idr_get_next_ul(&idr, &ul), iter_items[0]);
	cr_assert_eq(ul, 3);
	urcu_memb_read_unlock();
	/* Only reserved ids left: nothing. */
	for (unsigned int i = 0; i < 7; i++)
		remove_is(&idr, iter_ids[i], iter_items[i]);
	urcu_memb_read_lock();
	id = 0;
	cr_assert_null(idr_get_next(&idr, &id));
	cr_assert_eq(id, 0);
	ul = 0;
	cr_assert_null(idr_get_next_ul(&idr, &ul));
	cr_assert_eq(ul, 0);
	urcu_memb_read_unlock();
	idr_finish(&idr);
}

struct each_ctx {
	unsigned int calls, stop_at;
	int ret;
	int ids[16];
	void *items[16];
};

static int each_fn(int id, void *p, void *data)
{
	struct each_ctx *ctx = data;

	cr_assert_lt(ctx->calls, 16);
	ctx->ids[ctx->calls] = id;
	ctx->items[ctx->calls] = p;
	return ++ctx->calls == ctx->stop_at ? ctx->ret : 0;
}

Test(idr, for_each_in_order_skipping_reserved_ids)
{
	struct each_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	urcu_memb_read_lock();
	cr_assert_eq(idr_for_each(&idr, each_fn, &ctx), 0);
	urcu_memb_read_unlock();
	cr_assert_eq(ctx.calls, 0);
	iter_fill();
	/* Every int id, in order: the ids above INT_MAX are not ints. */
	urcu_memb_read_lock();
	cr_assert_eq(idr_for_each(&idr, each_fn, &ctx), 0);
	urcu_memb_read_unlock();
	cr_assert_eq(ctx.calls, 5);
	for (unsigned int i = 0; i < 5; i++) {
		cr_assert_eq(ctx.ids[i], (int)iter_ids[i]);
		cr_assert_eq(ctx.items[i], iter_items[i]);
	}
	/* A non-zero return stops the walk and is returned. */
	for (unsigned int stop = 1; stop <= 5; stop++) {
		memset(&ctx, 0, sizeof(ctx));
		ctx.stop_at = stop;
		ctx.ret = -(int)stop * 7;
		idr_lock(&idr);
		cr_assert_eq(idr_for_each(&idr, each_fn, &ctx), -(int)stop * 7);
		idr_unlock(&idr);
		cr_assert_eq(ctx.calls, stop);
		cr_assert_eq(ctx.ids[stop - 1], (int)iter_ids[stop - 1]);
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.stop_at = 2;
	ctx.ret = 1;
	urcu_memb_read_lock();
	cr_assert_eq(idr_for_each(&idr, each_fn, &ctx), 1);
	urcu_memb_read_unlock();
	cr_assert_eq(ctx.calls, 2);
	idr_finish(&idr);
}

Test(idr, for_each_entry_loops)
{
	unsigned long ul, tmp;
	unsigned int n;
	void *entry;
	int id;

	urcu_memb_read_lock();
	n = 0;
	idr_for_each_entry(&idr, entry, id)
		n++;
	idr_for_each_entry_ul(&idr, entry, tmp, ul)
		n++;
	cr_assert_eq(n, 0);
	urcu_memb_read_unlock();
	iter_fill();
	urcu_memb_read_lock();
	/* int ids: up to INT_MAX. */
	n = 0;
	idr_for_each_entry(&idr, entry, id) {
		cr_assert_lt(n, 5, "idr_for_each_entry: id %d after the last int one", id);
		cr_assert_eq(id, (int)iter_ids[n]);
		cr_assert_eq(entry, iter_items[n]);
		n++;
	}
	cr_assert_eq(n, 5);
	/* unsigned long ids: every one. */
	n = 0;
	idr_for_each_entry_ul(&idr, entry, tmp, ul) {
		cr_assert_lt(n, 7);
		cr_assert_eq(ul, iter_ids[n]);
		cr_assert_eq(entry, iter_items[n]);
		n++;
	}
	cr_assert_eq(n, 7);
	/* Continue: from the id given, that one included. */
	n = 2;
	id = (int)iter_ids[2];
	idr_for_each_entry_continue(&idr, entry, id) {
		cr_assert_lt(n, 5);
		cr_assert_eq(id, (int)iter_ids[n]);
		cr_assert_eq(entry, iter_items[n]);
		n++;
	}
	cr_assert_eq(n, 5);
	n = 1;
	id = 4;
	idr_for_each_entry_continue(&idr, entry, id) {
		cr_assert_lt(n, 5);
		cr_assert_eq(id, (int)iter_ids[n]);
		n++;
	}
	cr_assert_eq(n, 5);
	n = 3;
	id = RT_MAP_SIZE + 2;
	idr_for_each_entry_continue(&idr, entry, id) {
		cr_assert_lt(n, 5);
		cr_assert_eq(id, (int)iter_ids[n]);
		n++;
	}
	cr_assert_eq(n, 5);
	urcu_memb_read_unlock();
	idr_finish(&idr);
}

/*
 * idr_for_each_entry() ends after an item at INT_MAX, the highest int id.
 * The loop is bounded here: it must end by itself after the two items.
 */
Test(idr, for_each_entry_ends_after_an_item_at_int_max)
{
	unsigned int n = 0;
	void *entry;
	int id;

	alloc_at(&idr, 0, 0, 0);
	alloc_at(&idr, INT_MAX, 0, INT_MAX);
	urcu_memb_read_lock();
	idr_for_each_entry(&idr, entry, id) {
		if (++n > 2)
			break;
	}
	cr_assert_eq(n, 2, "idr_for_each_entry went on past id INT_MAX (back at id %d)", id);
	n = 0;
	id = 0;
	idr_for_each_entry_continue(&idr, entry, id) {
		if (++n > 2)
			break;
	}
	urcu_memb_read_unlock();
	cr_assert_eq(n, 2, "idr_for_each_entry_continue went on past id INT_MAX (at id %d)", id);
	idr_finish(&idr);
}

Test(idr, is_empty_counts_reserved_ids)
{
	struct titem *a;

	cr_assert(idr_is_empty(&idr));
	cr_assert(idr_is_empty(NULL));
	cr_assert_eq(idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL), 0);
	cr_assert_not(idr_is_empty(&idr));
	cr_assert_null(idr_remove(&idr, 0));
	cr_assert(idr_is_empty(&idr));
	a = alloc_u32_at(&idr, UINT_MAX, UINT_MAX, UINT_MAX);
	cr_assert_not(idr_is_empty(&idr));
	cr_assert_eq(idr_replace(&idr, NULL, UINT_MAX), a);
	titem_free(a);
	cr_assert_not(idr_is_empty(&idr));
	cr_assert_null(idr_remove(&idr, UINT_MAX));
	cr_assert(idr_is_empty(&idr));
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/*
 * An IDR whose ids were all removed owns no memory, as the kernel's does:
 * idr_destroy() is not needed before its memory is freed or reused.  Ids
 * spread over every level (runs, cyclic ids, high ids, reservations) are
 * removed one by one in a random order; then, with no destroy, every node
 * has been handed back, and the struct is initialised again in place.
 */
Test(idr, an_idr_emptied_id_by_id_owns_no_memory)
{
	static unsigned long ids[512];
	struct t_rng rng;
	unsigned int n = 0;

	t_rng_init(&rng, "idr emptied id by id");
	for (unsigned int i = 0; i < 3 * RT_MAP_SIZE; i++, n++)
		alloc_at(&idr, 0, 0, (int)i);
	ids[n++] = (unsigned long)idr_alloc(&idr, NULL, 1 << 20, 0, GFP_KERNEL);
	alloc_at(&idr, INT_MAX, 0, INT_MAX);
	ids[n++] = INT_MAX;
	alloc_u32_at(&idr, UINT_MAX, UINT_MAX, UINT_MAX);
	ids[n++] = UINT_MAX;
	for (unsigned int i = 0; i < 8; i++) {
		int id = idr_alloc_cyclic(&idr, titem_new(0), 0, 0, GFP_KERNEL);

		cr_assert_geq(id, 0);
		ids[n++] = (unsigned long)id;
	}
	while (n < sizeof(ids) / sizeof(ids[0])) {
		int start = (int)t_rand_below(&rng, 1U << 24);
		int id = idr_alloc(&idr, t_rand_below(&rng, 4) ? titem_new(0) : NULL, start, 0,
				   GFP_KERNEL);

		cr_assert_geq(id, start);
		ids[n++] = (unsigned long)id;
	}
	for (unsigned int i = 0; i < 3 * RT_MAP_SIZE; i++)
		ids[i] = i;
	t_verify(&idr.idr_rt);
	for (unsigned int left = n; left > 0; left--) {
		unsigned int pick = (unsigned int)t_rand_below(&rng, left);
		unsigned long id = ids[pick];
		void *item = find(&idr, id);

		cr_assert(taken(&idr, id), "id %#lx is not taken", id);
		cr_assert_eq(idr_remove(&idr, id), item);
		if (item)  /* else a reservation */
			titem_free(item);
		cr_assert_not(taken(&idr, id));
		ids[pick] = ids[left - 1];
		if (left % 64 == 0)
			t_verify(&idr.idr_rt);
	}
	cr_assert(idr_is_empty(&idr));
	/* No idr_destroy(). */
	t_assert_emptied_owns_nothing(&idr.idr_rt, "IDR");
	idr_init(&idr);
	alloc_at(&idr, 0, 0, 0);
	idr_finish(&idr);
}

Test(idr, destroy_empties_and_the_idr_is_usable_after)
{
	struct titem *items[2 * RT_MAP_SIZE], *ten;
	unsigned int n = 2 * RT_MAP_SIZE;

	idr_destroy(&idr);  /* empty */
	cr_assert(idr_is_empty(&idr));
	for (unsigned int i = 0; i < n; i++)
		items[i] = alloc_at(&idr, 0, 0, (int)i);
	cr_assert_eq(idr_alloc(&idr, NULL, 1 << 30, 0, GFP_KERNEL), 1 << 30);
	alloc_u32_at(&idr, UINT_MAX, UINT_MAX, UINT_MAX);
	/* Items are the caller's: still live after destroy. */
	titem_free(find(&idr, UINT_MAX));
	idr_destroy(&idr);
	cr_assert(idr_is_empty(&idr));
	for (unsigned int i = 0; i < n; i++)
		cr_assert_null(find(&idr, i));
	cr_assert_null(find(&idr, 1 << 30));
	cr_assert_null(find(&idr, UINT_MAX));
	t_verify(&idr.idr_rt);
	for (unsigned int i = 0; i < n; i++)
		titem_free(items[i]);
	/* Usable again: ids from the lowest. */
	alloc_at(&idr, 0, 0, 0);
	alloc_u32_at(&idr, UINT_MAX, UINT_MAX, UINT_MAX);
	cr_assert_eq(idr_alloc(&idr, NULL, 1 << 30, 0, GFP_KERNEL), 1 << 30);
	t_verify(&idr.idr_rt);
	/* With a base, the base stays. */
	idr_finish(&idr);
	idr_init_base(&idr, 10);
	ten = alloc_at(&idr, 0, 0, 10);
	idr_destroy(&idr);
	cr_assert(idr_is_empty(&idr));
	titem_free(ten);
	alloc_at(&idr, 0, 0, 10);
	idr_finish(&idr);
}

/*
 * A reader inside a read-side section keeps the old ids after idr_destroy():
 * a walk of the tree begun before it goes on through the same nodes (freed
 * one grace period later: the sanitizer builds see any read of a freed
 * one), and they are all still pending until the section ends.
 */
Test(idr, destroy_leaves_the_old_ids_to_readers_already_there)
{
	struct titem *items[RT_MAP_SIZE + 1];
	struct radix_tree_iter iter;
	struct rcuradix_stats st;
	unsigned long seen = 0, nodes;
	void **slot;

	for (int id = 0; id < (int)RT_MAP_SIZE; id++)
		items[id] = alloc_at(&idr, 0, 0, id);
	items[RT_MAP_SIZE] = alloc_at(&idr, 1 << 30, 0, 1 << 30);
	nodes = idr.idr_rt.nr_nodes;
	urcu_memb_read_lock();
	radix_tree_for_each_slot(slot, &idr.idr_rt, &iter, 0) {
		unsigned long want = seen < RT_MAP_SIZE ? seen : 1UL << 30;

		if (seen == 0) {
			idr_destroy(&idr);
			cr_assert(idr_is_empty(&idr));
			cr_assert_null(idr_find(&idr, 1));
		}
		cr_assert_leq(seen, RT_MAP_SIZE);
		cr_assert_eq(iter.index, want, "old id %#lx, expected %#lx", iter.index, want);
		cr_assert_eq(rcu_dereference(*slot), items[seen]);
		seen++;
	}
	cr_assert_geq(seen, RT_MAP_SIZE);
	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
	cr_assert_geq(st.nodes_pending, nodes);
	urcu_memb_read_unlock();
	for (unsigned int i = 0; i <= RT_MAP_SIZE; i++)
		titem_free(items[i]);
	idr_finish(&idr);
}

/* ---- the lock ------------------------------------------------------------------ */

static struct {
	int started, done, id;
	struct titem *item;
} locker;

static void *lock_writer(void *arg)
{
	(void)arg;
	urcu_memb_register_thread();
	uatomic_set(&locker.started, 1);
	locker.id = idr_alloc(&idr, locker.item, 0, 0, GFP_KERNEL);
	uatomic_set(&locker.done, 1);
	urcu_memb_unregister_thread();
	rcuradix_thread_cache_flush();
	return NULL;
}

Test(idr, lock_makes_several_calls_one_step)
{
	struct titem *items[10];
	pthread_t t;

	/* Recursive: the writer calls take it again. */
	idr_lock(&idr);
	items[0] = titem_new(0);
	cr_assert_eq(idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL), 0);
	cr_assert_null(idr_find(&idr, 0));
	cr_assert_null(idr_replace(&idr, items[0], 0));
	cr_assert_eq(idr_find(&idr, 0), items[0]);
	cr_assert_eq(idr_remove(&idr, 0), items[0]);
	cr_assert_eq(idr_alloc(&idr, items[0], 0, 0, GFP_KERNEL), 0);
	idr_lock(&idr);
	cr_assert_eq(radix_tree_verify(&idr.idr_rt), 0);
	idr_unlock(&idr);
	idr_unlock(&idr);

	/* Another writer waits while the lock is held: the ids allocated
	 * under it are consecutive, the other thread's comes after them. */
	locker.item = titem_new(10);
	idr_lock(&idr);
	cr_assert_eq(pthread_create(&t, NULL, lock_writer, NULL), 0);
	while (!uatomic_read(&locker.started))
		sched_yield();
	for (unsigned int spin = 0; spin < 1000; spin++) {
		sched_yield();
		cr_assert_not(uatomic_read(&locker.done), "idr_alloc() ran under another's lock");
	}
	for (int i = 1; i < 10; i++) {
		items[i] = titem_new((unsigned long)i);
		cr_assert_eq(idr_alloc(&idr, items[i], 0, 0, GFP_KERNEL), i);
	}
	cr_assert_not(uatomic_read(&locker.done));
	idr_unlock(&idr);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_eq(locker.id, 10);
	cr_assert_eq(find(&idr, 10), locker.item);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* ---- the radix_tree_* writers refuse an IDR's tree ------------------------------- */

static int refused_in_child(void *arg)
{
	struct radix_tree_root *rt = &idr.idr_rt;
	unsigned long first = 0;
	int x;

	(void)arg;
	T_CHILD_CHECK(radix_tree_insert(rt, 100, &x) == -EINVAL);
	T_CHILD_CHECK(radix_tree_insert(rt, 1, &x) == -EINVAL);
	T_CHILD_CHECK(radix_tree_delete(rt, 0) == NULL);
	T_CHILD_CHECK(radix_tree_tag_set(rt, 0, 1) == NULL);
	T_CHILD_CHECK(radix_tree_tag_clear(rt, 0, 1) == NULL);
	T_CHILD_CHECK(radix_tree_range_tag_if_tagged(rt, &first, ULONG_MAX, 10, 0, 1) == 0);
	T_CHILD_CHECK(radix_tree_verify(rt) == 0);
	idr_lock(&idr);
	T_CHILD_CHECK(titem_ok(idr_find(&idr, 0), 0));
	T_CHILD_CHECK(idr_find(&idr, 100) == NULL);
	idr_unlock(&idr);
	return 0;
}

Test(idr, radix_tree_writers_refuse_an_idr_tree)
{
	struct radix_tree_root *rt = &idr.idr_rt;
	struct radix_tree_iter iter;
	struct titem *a = alloc_at(&idr, 0, 0, 0), *x = titem_new(2);
	unsigned long first = 0, nodes, items;
	void **slot;

	cr_assert_eq(idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL), 1);
	alloc_at(&idr, 1 << 20, 0, 1 << 20);
	nodes = rt->nr_nodes;
	items = rt->nr_items;
	t_assert_lives(refused_in_child, NULL, "rcuradix: radix_tree_insert: an IDR's tree is "
		       "changed through the idr_* calls only\n");
	/* The same here, every call checked for what it changed. */
	cr_assert_eq(radix_tree_insert(rt, 100, x), -EINVAL);
	cr_assert_eq(radix_tree_insert(rt, 2, x), -EINVAL);
	cr_assert_null(radix_tree_delete(rt, 0));
	cr_assert_null(radix_tree_delete(rt, 1));
	cr_assert_null(radix_tree_tag_set(rt, 0, 1));
	cr_assert_null(radix_tree_tag_set(rt, 1 << 20, 2));
	cr_assert_null(radix_tree_tag_clear(rt, 0, 1));
	cr_assert_eq(radix_tree_range_tag_if_tagged(rt, &first, ULONG_MAX, 10, 0, 1), 0);
	radix_tree_lock(rt);
	radix_tree_for_each_slot(slot, rt, &iter, 0)
		cr_assert_null(radix_tree_iter_delete(rt, &iter, slot));
	radix_tree_unlock(rt);
	cr_assert_eq(rt->nr_nodes, nodes);
	cr_assert_eq(rt->nr_items, items);
	t_verify(rt);
	cr_assert_eq(find(&idr, 0), a);
	cr_assert(taken(&idr, 1));
	cr_assert_null(find(&idr, 100));
	cr_assert_not(taken(&idr, 2));
	cr_assert(titem_ok(find(&idr, 1 << 20), 1 << 20));
	/* Readers see a reserved id's entry as a non-NULL value, no item. */
	urcu_memb_read_lock();
	cr_assert_not_null(radix_tree_lookup(rt, 1));
	cr_assert_neq((uintptr_t)radix_tree_lookup(rt, 1) & 3, 0);
	urcu_memb_read_unlock();
	/* The lowest free id is still 2. */
	cr_assert_eq(idr_alloc(&idr, x, 0, 0, GFP_KERNEL), 2);
	idr_finish(&idr);
}

/* ---- the model ------------------------------------------------------------------- */

/*
 * Ids below M_DENSE in an array, the others in a sorted set (model.h); a
 * NULL item is a reserved id.  Every question is answered by a scan.
 */
#define M_DENSE 4096UL

struct idm {
	unsigned long base;
	unsigned int next;  /* idr_alloc_cyclic()'s: after its last id */
	bool used[M_DENSE];
	void *item[M_DENSE];
	struct model sparse;
	unsigned long *ids;  /* every id, unordered: random picks */
	size_t n, cap;
};

static void m_init(struct idm *m, unsigned long base)
{
	memset(m, 0, sizeof(*m));
	m->base = base;
	model_init(&m->sparse);
}

static void m_free(struct idm *m)
{
	model_free(&m->sparse);
	free(m->ids);
	m->ids = NULL;
	m->n = m->cap = 0;
}

static bool m_has(const struct idm *m, unsigned long id, void **item)
{
	const struct model_entry *e;

	if (id < M_DENSE) {
		if (m->used[id] && item)
			*item = m->item[id];
		return m->used[id];
	}
	e = model_find(&m->sparse, id);
	if (e && item)
		*item = e->item;
	return e != NULL;
}

static void m_add(struct idm *m, unsigned long id, void *item)
{
	cr_assert_not(m_has(m, id, NULL), "model: id %#lx twice", id);
	if (id < M_DENSE) {
		m->used[id] = true;
		m->item[id] = item;
	} else {
		cr_assert(model_insert(&m->sparse, id, item));
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->ids = realloc(m->ids, m->cap * sizeof(*m->ids));
		cr_assert_not_null(m->ids);
	}
	m->ids[m->n++] = id;
}

static void *m_del(struct idm *m, unsigned long id)
{
	void *item = NULL;
	size_t i;

	cr_assert(m_has(m, id, &item));
	if (id < M_DENSE)
		m->used[id] = false;
	else
		model_delete(&m->sparse, id);
	for (i = 0; m->ids[i] != id; i++)
		;
	m->ids[i] = m->ids[--m->n];
	return item;
}

static void m_set(struct idm *m, unsigned long id, void *item)
{
	cr_assert(m_has(m, id, NULL));
	if (id < M_DENSE)
		m->item[id] = item;
	else
		model_find(&m->sparse, id)->item = item;
}

/* The lowest free id in [lo, hi] (and at least the base). */
static bool m_lowest(const struct idm *m, unsigned long lo, unsigned long hi, unsigned long *id)
{
	size_t i;

	if (lo < m->base)
		lo = m->base;
	for (; lo <= hi && lo < M_DENSE; lo++)
		if (!m->used[lo]) {
			*id = lo;
			return true;
		}
	if (lo > hi)
		return false;
	for (i = model_lower_bound(&m->sparse, lo); i < m->sparse.n && m->sparse.e[i].key == lo;
	     i++)
		lo++;
	*id = lo;
	return lo <= hi;
}

/* The first id at or after @from (with an item, if @items_only). */
static bool m_next(const struct idm *m, unsigned long from, bool items_only, unsigned long *id,
		   void **item)
{
	size_t i;

	for (; from < M_DENSE; from++)
		if (m->used[from] && (m->item[from] || !items_only)) {
			*id = from;
			*item = m->item[from];
			return true;
		}
	for (i = model_lower_bound(&m->sparse, from); i < m->sparse.n; i++)
		if (m->sparse.e[i].item || !items_only) {
			*id = m->sparse.e[i].key;
			*item = m->sparse.e[i].item;
			return true;
		}
	return false;
}

struct walk_ctx {
	const struct idm *m;
	unsigned long from;
	unsigned long calls;
};

static int compare_each(int id, void *p, void *data)
{
	struct walk_ctx *w = data;
	unsigned long mid;
	void *item;

	cr_assert(m_next(w->m, w->from, true, &mid, &item),
		  "idr_for_each: id %d, the model has none after %#lx", id, w->from);
	cr_assert_eq((unsigned long)id, mid, "idr_for_each: id %d, the model's next is %#lx", id,
		     mid);
	cr_assert_eq(p, item, "idr_for_each: id %d", id);
	w->from = mid + 1;
	w->calls++;
	return 0;
}

/*
 * The IDR holds exactly the model: radix_tree_verify() (the free bits
 * too); the tree's keys, reserved ids included; idr_find() of every id and
 * of the free ids next to them; walks with idr_get_next_ul(),
 * idr_get_next() and idr_for_each(); idr_is_empty().  As a reader holding
 * the lock.
 */
/* ---- holes against the model ------------------------------------------------------ */

/*
 * The model's tree keys (id - base), ascending, each with the first and
 * the last key of the run of consecutive keys it lies in: the kernel's
 * key-by-key radix_tree_next_hole()/prev_hole() in O(log n).
 */
struct runs {
	unsigned long *key, *first, *last;
	size_t n;
};

static void runs_build(struct runs *r, const struct idm *m)
{
	unsigned long id;
	void *item;
	size_t i;

	r->n = 0;
	r->key = calloc(m->n + 1, sizeof(*r->key));
	r->first = calloc(m->n + 1, sizeof(*r->first));
	r->last = calloc(m->n + 1, sizeof(*r->last));
	cr_assert(r->key && r->first && r->last);
	for (bool more = m_next(m, 0, false, &id, &item); more;
	     more = id < ULONG_MAX && m_next(m, id + 1, false, &id, &item))
		r->key[r->n++] = id - m->base;
	cr_assert_eq(r->n, m->n);
	for (i = 0; i < r->n; i++)
		r->first[i] = i && r->key[i - 1] + 1 == r->key[i] ? r->first[i - 1] : r->key[i];
	for (i = r->n; i-- > 0;)
		r->last[i] = i + 1 < r->n && r->key[i] + 1 == r->key[i + 1] ? r->last[i + 1]
									: r->key[i];
}

static void runs_free(struct runs *r)
{
	free(r->key);
	free(r->first);
	free(r->last);
}

/* radix_tree_next_hole() (@up) or prev_hole() from tree key @k, by the
 * runs: the keys looked at are all present, or the run ends first. */
static unsigned long runs_hole(const struct runs *r, unsigned long k, unsigned long max_scan,
			       bool up)
{
	size_t lo = 0, hi = r->n;
	unsigned long len = 0;
	bool has;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	has = lo < r->n && r->key[lo] == k;
	if (has)
		len = up ? r->last[lo] - k + 1 : k - r->first[lo] + 1;
	if (len >= max_scan)
		return up ? k + max_scan : k - max_scan;
	return up ? (has ? r->last[lo] + 1 : k) : (has ? r->first[lo] - 1 : k);
}

/* Both holes from tree key @k, with scans short of, at and past the run
 * that holds @k, and the fixed ones. */
static void compare_holes_at(struct idr *r, const struct runs *runs, unsigned long k)
{
	static const unsigned long fixed[] = { 0, 1, 2, 63, 64, 65, 4097, ULONG_MAX };
	unsigned long len[2] = { runs_hole(runs, k, ULONG_MAX, true) - k,
				 k - runs_hole(runs, k, ULONG_MAX, false) };

	const unsigned int nr_fixed = sizeof(fixed) / sizeof(fixed[0]);

	for (unsigned int s = 0; s < nr_fixed + 3; s++) {
		for (int up = 0; up < 2; up++) {
			/* Then one short of the run, its length, one past. */
			unsigned long scan = s < nr_fixed ? fixed[s] : len[up] + (s - nr_fixed) - 1;
			unsigned long want = runs_hole(runs, k, scan, up);
			unsigned long got = up ? radix_tree_next_hole(&r->idr_rt, k, scan)
					       : radix_tree_prev_hole(&r->idr_rt, k, scan);

			cr_assert_eq(got, want, "%s_hole(key %#lx, %lu) = %#lx, the model's %#lx",
				     up ? "next" : "prev", k, scan, got, want);
		}
	}
}

/* The holes of the IDR's tree, which its free words lead to, from about
 * 40 places: keys taken, next to them and at the ends of their runs. */
static void compare_holes(struct idr *r, const struct idm *m)
{
	static const unsigned long ends[] = { 0, 1, 4095, 4096, INT_MAX, UINT_MAX, ULONG_MAX };
	struct runs runs;
	size_t step;

	runs_build(&runs, m);
	for (unsigned int e = 0; e < sizeof(ends) / sizeof(ends[0]); e++)
		compare_holes_at(r, &runs, ends[e]);
	step = runs.n / 40 + 1;
	for (size_t i = 0; i < runs.n; i += step) {
		compare_holes_at(r, &runs, runs.key[i]);
		compare_holes_at(r, &runs, runs.key[i] + 1);
		compare_holes_at(r, &runs, runs.key[i] - 1);
		compare_holes_at(r, &runs, runs.first[i]);
		compare_holes_at(r, &runs, runs.last[i] + 1);
	}
	runs_free(&runs);
}

static void compare(struct idr *r, const struct idm *m)
{
	struct radix_tree_iter iter;
	struct walk_ctx w = { m, 0, 0 };
	unsigned long id, mid, ints = 0;
	void **slot, *item, *got;
	bool more;
	int iid;

	t_verify(&r->idr_rt);
	idr_lock(r);
	more = m_next(m, 0, false, &mid, &item);
	radix_tree_for_each_slot(slot, &r->idr_rt, &iter, 0) {
		void *e = *slot;

		cr_assert(more, "id %#lx in the IDR, not in the model", iter.index + m->base);
		cr_assert_eq(iter.index + m->base, mid, "id %#lx in the IDR, the model's is %#lx",
			     iter.index + m->base, mid);
		if (item)
			cr_assert_eq(e, item, "id %#lx", mid);
		else
			cr_assert(e && ((uintptr_t)e & 3), "reserved id %#lx holds %p", mid, e);
		more = m_next(m, mid + 1, false, &mid, &item);
	}
	cr_assert_not(more, "id %#lx in the model, not in the IDR", mid);
	for (more = m_next(m, 0, false, &mid, &item); more;
	     more = m_next(m, mid + 1, false, &mid, &item)) {
		got = idr_find(r, mid);
		cr_assert_eq(got, item, "idr_find(%#lx) = %p, the model says %p", mid, got, item);
		if (!m_has(m, mid + 1, NULL))
			cr_assert_null(idr_find(r, mid + 1), "idr_find(%#lx): free", mid + 1);
		if (mid > 0 && !m_has(m, mid - 1, NULL))
			cr_assert_null(idr_find(r, mid - 1), "idr_find(%#lx): free", mid - 1);
	}
	if (m->base)
		cr_assert_null(idr_find(r, m->base - 1));
	/* idr_get_next_ul(): every item, in order. */
	id = 0;
	for (more = m_next(m, 0, true, &mid, &item);;
	     more = m_next(m, mid + 1, true, &mid, &item)) {
		unsigned long from = id;

		got = idr_get_next_ul(r, &id);
		if (!more) {
			cr_assert_null(got, "idr_get_next_ul(%#lx) found id %#lx", from, id);
			cr_assert_eq(id, from);
			break;
		}
		cr_assert_eq(id, mid, "idr_get_next_ul(%#lx) gave id %#lx, the model's is %#lx",
			     from, id, mid);
		cr_assert_eq(got, item);
		id++;
		if (mid <= INT_MAX)
			ints++;
	}
	/* idr_get_next(): the int ones. */
	iid = 0;
	for (more = m_next(m, 0, true, &mid, &item);;
	     more = m_next(m, mid + 1, true, &mid, &item)) {
		int from = iid;

		got = idr_get_next(r, &iid);
		if (!more || mid > INT_MAX) {
			cr_assert_null(got, "idr_get_next(%d) found id %d", from, iid);
			cr_assert_eq(iid, from);
			break;
		}
		cr_assert_eq((unsigned long)iid, mid, "idr_get_next(%d) gave id %d, the model's is "
			     "%#lx", from, iid, mid);
		cr_assert_eq(got, item);
		if (iid == INT_MAX)
			break;
		iid++;
	}
	cr_assert_eq(idr_for_each(r, compare_each, &w), 0);
	cr_assert_eq(w.calls, ints);
	cr_assert_eq(idr_is_empty(r), m->n == 0);
	compare_holes(r, m);
	idr_unlock(r);
}

/* ---- allocation requests against the model --------------------------------------- */

enum { K_ALLOC, K_U32, K_CYCLIC };

struct req {
	int kind;
	int start, end;     /* K_ALLOC, K_CYCLIC */
	uint32_t nextid;    /* K_U32 */
	unsigned long max;  /* K_U32 */
	void *bad;          /* a misaligned pointer, or NULL */
	bool reserve;       /* NULL for the item */
	gfp_t gfp;
};

static const char *req_str(const struct req *q)
{
	static char buf[128];
	static const char *const names[] = { "idr_alloc", "idr_alloc_u32", "idr_alloc_cyclic" };

	if (q->kind == K_U32)
		snprintf(buf, sizeof(buf), "%s(%s, %#x, %#lx)", names[q->kind],
			 q->bad ? "misaligned" : q->reserve ? "NULL" : "item", q->nextid, q->max);
	else
		snprintf(buf, sizeof(buf), "%s(%s, [%d, %d))", names[q->kind],
			 q->bad ? "misaligned" : q->reserve ? "NULL" : "item", q->start, q->end);
	return buf;
}

/* What the model says @q returns: 0 with *id, or an error; *alt: another
 * error the specification allows (0: none). */
static int m_expect(const struct idm *m, const struct req *q, unsigned long *id, int *alt)
{
	unsigned long hi, from;

	*alt = 0;
	if (q->bad)
		return -EINVAL;
	if (q->kind == K_U32) {
		hi = q->max > UINT_MAX ? UINT_MAX : q->max;
		if (q->nextid > hi || hi < m->base)
			return -EINVAL;
		return m_lowest(m, q->nextid, hi, id) ? 0 : -ENOSPC;
	}
	if (q->start < 0 || (q->end > 0 && q->start >= q->end))
		return -EINVAL;
	hi = q->end > 0 ? (unsigned long)q->end - 1 : INT_MAX;
	if (hi < m->base) {
		*alt = -ENOSPC;  /* idr_alloc()'s words allow either */
		return -EINVAL;
	}
	if (q->kind == K_ALLOC)
		return m_lowest(m, (unsigned long)q->start, hi, id) ? 0 : -ENOSPC;
	from = m->next > (unsigned int)q->start ? m->next : (unsigned long)q->start;
	if (from <= hi && m_lowest(m, from, hi, id))
		return 0;
	if (from > (unsigned long)q->start && m_lowest(m, (unsigned long)q->start, hi, id))
		return 0;
	return -ENOSPC;
}

/* Make the call: 0 with *id, or its error (*nextid checked unchanged). */
static int do_req(struct idr *r, const struct req *q, void *ptr, unsigned long *id)
{
	uint32_t next = q->nextid;
	int ret;

	switch (q->kind) {
	case K_U32:
		ret = idr_alloc_u32(r, ptr, &next, q->max, q->gfp);
		if (ret)
			cr_assert_eq(next, q->nextid, "%s: *nextid changed on error %d", req_str(q),
				     ret);
		*id = next;
		return ret;
	case K_ALLOC:
		ret = idr_alloc(r, ptr, q->start, q->end, q->gfp);
		break;
	default:
		ret = idr_alloc_cyclic(r, ptr, q->start, q->end, q->gfp);
		break;
	}
	if (ret < 0)
		return ret;
	*id = (unsigned long)ret;
	return 0;
}

/*
 * Make the call with the k-th node allocation failing, k = 1, 2, ... until
 * it succeeds: each failure is -ENOMEM with the IDR unchanged (compared
 * whole) and no node kept; the call that succeeds took k - 1 nodes, all of
 * them new in the tree.  The reserve is drained first and after each
 * failure (a failed call may leave its nodes there): the allocator is the
 * only source of nodes.  Nodes freed after a grace period change the live
 * count at any time: it is compared only if none was pending at the start
 * (these calls queue none); the allocation counter is exact anyway.
 * Returns the successful call's result.
 */
static int do_req_failing(struct idr *r, const struct idm *m, const struct req *q, void *ptr,
			  unsigned long *id, unsigned long *nodes_taken)
{
	struct rcuradix_stats before, after;
	unsigned long nodes = r->idr_rt.nr_nodes, k;
	int ret;

	rcuradix_thread_cache_flush();
	before = stats();
	for (k = 1;; k++) {
		rt_fault_fail_nth(k);
		ret = do_req(r, q, ptr, id);
		rt_fault_fail_nth(0);
		if (ret != -ENOMEM)
			break;
		rcuradix_thread_cache_flush();
		after = stats();
		cr_assert_eq(after.nodes_reserved, 0);
		if (!before.nodes_pending)
			cr_assert_eq(after.nodes_live, before.nodes_live,
				     "%s failing at node %lu kept %ld nodes", req_str(q), k,
				     (long)(after.nodes_live - before.nodes_live));
		/* Attempt j obtained j - 1 nodes before its failure. */
		cr_assert_eq(after.nodes_allocated - before.nodes_allocated, k * (k - 1) / 2);
		cr_assert_eq(r->idr_rt.nr_nodes, nodes);
		compare(r, m);
		cr_assert_leq(k, RT_IDR_MAX_NODES, "%s failed at node %lu", req_str(q), k);
	}
	cr_assert_eq(ret, 0, "%s: %d with node %lu failing", req_str(q), ret, k);
	after = stats();
	/* The failed attempts obtained (k - 1)(k - 2) / 2 nodes, this one k - 1. */
	cr_assert_eq(after.nodes_allocated - before.nodes_allocated, k * (k - 1) / 2,
		     "%s: %lu allocations failed it, then it allocated %lu nodes", req_str(q),
		     k - 1, after.nodes_allocated - before.nodes_allocated - (k - 1) * (k - 2) / 2);
	if (!before.nodes_pending)
		cr_assert_eq(after.nodes_live - before.nodes_live, k - 1,
			     "%s: %lu allocations failed it, it took %lu nodes", req_str(q), k - 1,
			     after.nodes_live - before.nodes_live);
	cr_assert_eq(r->idr_rt.nr_nodes - nodes, k - 1);
	if (nodes_taken)
		*nodes_taken = k - 1;
	return ret;
}

/* Run @q against the IDR and the model (through do_req_failing() if
 * @failing and the model says it succeeds); returns its id or error. */
static long run_req(struct idr *r, struct idm *m, const struct req *q, bool failing,
		    unsigned long *nodes_taken)
{
	unsigned long items = r->idr_rt.nr_items, nodes = r->idr_rt.nr_nodes, want = 0, got = 0;
	int alt, expect = m_expect(m, q, &want, &alt), ret;
	void *ptr = q->bad ? q->bad : q->reserve ? NULL : titem_new(expect ? ULONG_MAX : want);

	if (failing && expect == 0)
		ret = do_req_failing(r, m, q, ptr, &got, nodes_taken);
	else
		ret = do_req(r, q, ptr, &got);
	cr_assert(ret == expect || (alt && ret == alt), "%s = %d, the model says %d (id %#lx)",
		  req_str(q), ret, expect, want);
	if (ret) {
		if (ptr && !q->bad)
			titem_free(ptr);
		cr_assert_eq(r->idr_rt.nr_items, items, "%s failed, changed the ids", req_str(q));
		cr_assert_eq(r->idr_rt.nr_nodes, nodes, "%s failed, changed the nodes", req_str(q));
		return ret;
	}
	cr_assert_eq(got, want, "%s gave id %#lx, the model says %#lx", req_str(q), got, want);
	m_add(m, got, ptr);
	if (q->kind == K_CYCLIC)
		m->next = (unsigned int)got + 1;
	return (long)got;
}

/* ---- the differential test -------------------------------------------------------- */

static struct idm dm;  /* the differential tests' */

/* A random request: small ranges and huge ones, near INT_MAX and UINT_MAX,
 * some invalid, some reservations, a few misaligned pointers. */
static struct req random_req(struct t_rng *rng, unsigned long base)
{
	int off = base > 50 ? (int)base - 50 : 0;  /* small ranges around the base */
	struct req q = { .gfp = GFP_KERNEL };
	unsigned int r = (unsigned int)t_rand_below(rng, 100);
	int span = 1 + (int)t_rand_below(rng, 300);

	q.kind = r < 50 ? K_ALLOC : r < 80 ? K_U32 : K_CYCLIC;
	q.reserve = t_rand_below(rng, 5) == 0;
	if (t_rand_below(rng, 200) == 0)
		q.bad = misaligned[t_rand_below(rng, NR_MISALIGNED)];
	if (q.kind == K_U32) {
		switch (t_rand_below(rng, 6)) {
		case 0:
			q.nextid = (uint32_t)off + (uint32_t)t_rand_below(rng, 600);
			q.max = q.nextid + t_rand_below(rng, 300);
			break;
		case 1:
			q.nextid = (uint32_t)off + (uint32_t)t_rand_below(rng, 600);
			q.max = t_rand_below(rng, 2) ? ULONG_MAX : UINT_MAX;
			break;
		case 2:
			q.nextid = UINT_MAX - (uint32_t)t_rand_below(rng, 300);
			q.max = t_rand_below(rng, 2) ? ULONG_MAX
						      : UINT_MAX - t_rand_below(rng, 300);
			break;
		case 3:
			q.nextid = (1U << 31) + (uint32_t)t_rand_below(rng, 2000);
			q.max = q.nextid + t_rand_below(rng, 200);
			break;
		case 4:
			q.nextid = (uint32_t)INT_MAX - (uint32_t)t_rand_below(rng, 300);
			q.max = (unsigned long)INT_MAX + t_rand_below(rng, 300);
			break;
		default:
			q.nextid = (uint32_t)t_rand(rng);
			q.max = t_rand_below(rng, 4) ? (unsigned long)q.nextid + 1 : t_rand(rng);
			break;
		}
		return q;
	}
	switch (t_rand_below(rng, 7)) {
	case 0:
	case 1:
		q.start = off + (int)t_rand_below(rng, 600);
		q.end = q.start + span;
		break;
	case 2:
		q.start = off + (int)t_rand_below(rng, 600);
		q.end = -(int)t_rand_below(rng, 2);
		break;
	case 3:
		q.start = (1 << 30) + (int)t_rand_below(rng, 2000);
		q.end = t_rand_below(rng, 2) ? q.start + span : 0;
		break;
	case 4:
		q.start = INT_MAX - (int)t_rand_below(rng, 300);
		q.end = t_rand_below(rng, 2) ? 0 : INT_MIN + (int)t_rand_below(rng, 10);
		break;
	case 5:
		q.start = INT_MAX - (int)t_rand_below(rng, 300);
		q.end = INT_MAX - (int)t_rand_below(rng, 300);  /* may be empty */
		break;
	default:
		q.start = (int)t_rand_below(rng, 20) - 2;      /* may be negative */
		q.end = (int)t_rand_below(rng, 20) - 2;        /* may be empty */
		break;
	}
	return q;
}

/* A random id: a present one, mostly, else near one, below the base,
 * or anywhere. */
static unsigned long random_id(struct t_rng *rng, const struct idm *m)
{
	unsigned long id;

	switch (t_rand_below(rng, 10)) {
	case 0:
		return t_rand(rng) >> t_rand_below(rng, 64);
	case 1:
		return m->base ? t_rand_below(rng, m->base) : t_rand_below(rng, 100);
	case 2:
		if (!m->n)
			return 0;
		id = m->ids[t_rand_below(rng, m->n)];
		return t_rand_below(rng, 2) ? id + 1 : id - 1;
	default:
		return m->n ? m->ids[t_rand_below(rng, m->n)] : t_rand_below(rng, 100);
	}
}

static void random_remove(struct idr *r, struct idm *m, struct t_rng *rng)
{
	unsigned long id = random_id(rng, m);
	void *item = NULL;
	bool present = m_has(m, id, &item);

	cr_assert_eq(idr_remove(r, id), present ? item : NULL, "idr_remove(%#lx)", id);
	if (present) {
		m_del(m, id);
		if (item)
			titem_free(item);
	}
}

static void random_replace(struct idr *r, struct idm *m, struct t_rng *rng)
{
	unsigned long id = random_id(rng, m);
	void *old = NULL, *got, *ptr;
	bool present = m_has(m, id, &old);
	unsigned int how = (unsigned int)t_rand_below(rng, 20);

	ptr = how == 0 ? misaligned[t_rand_below(rng, NR_MISALIGNED)] :
	      how < 6 ? NULL : titem_new(id);
	got = idr_replace(r, ptr, id);
	if (how == 0 || !present) {
		cr_assert(rcuradix_is_err(got), "idr_replace(%#lx) = %p", id, got);
		/* Both wrong: either error. */
		cr_assert(rcuradix_ptr_err(got) == (how == 0 ? -EINVAL : -ENOENT) ||
			  (how == 0 && !present && rcuradix_ptr_err(got) == -ENOENT),
			  "idr_replace(%#lx): %ld", id, rcuradix_ptr_err(got));
		if (ptr && how)
			titem_free(ptr);
		return;
	}
	cr_assert_eq(got, old, "idr_replace(%#lx) = %p, the model's is %p", id, got, old);
	m_set(m, id, ptr);
	if (old)
		titem_free(old);
}

/* Remove every id at or above @limit: the tree shrinks back to the top
 * that covers the ids below it, for the next allocations to grow it. */
static void trim(struct idr *r, struct idm *m, unsigned long limit)
{
	for (size_t i = 0; i < m->n;) {
		unsigned long id = m->ids[i];
		void *item;

		if (id < limit) {
			i++;
			continue;
		}
		item = m_del(m, id);
		cr_assert_eq(idr_remove(r, id), item, "idr_remove(%#lx)", id);
		if (item)
			titem_free(item);
	}
}

/* @ops random calls in batches, each followed by compare(); one in
 * @failing_every successful allocations made under do_req_failing().
 * After the first batch and one in four of the others, the ids above a
 * small bound are removed, and often (after the first, always) every id
 * below it taken: the tree shrinks, and grows again over a top with no
 * free id. */
static void differential(unsigned long base, unsigned int batches, unsigned int ops,
			 unsigned int failing_every, const char *what)
{
	struct t_rng rng;
	unsigned long enospc = 0, einval = 0, allocated = 0;

	t_rng_init(&rng, what);
	idr_init_base(&idr, (int)base);
	m_init(&dm, base);
	for (unsigned int b = 0; b < batches; b++) {
		for (unsigned int i = 0; i < ops; i++) {
			unsigned int op = (unsigned int)t_rand_below(&rng, 100);
			long ret;

			if (dm.n > 1500 && op < 50)
				op += 50;  /* keep it a few thousand ids at most */
			if (op < 50) {
				struct req q = random_req(&rng, base);

				ret = run_req(&idr, &dm, &q, failing_every &&
					      t_rand_below(&rng, failing_every) == 0, NULL);
				enospc += ret == -ENOSPC;
				einval += ret == -EINVAL;
				allocated += ret >= 0;
			} else if (op < 85) {
				random_remove(&idr, &dm, &rng);
			} else {
				random_replace(&idr, &dm, &rng);
			}
		}
		compare(&idr, &dm);
		/* The first batch always, so that every run meets a range
		 * with every id taken (the -ENOSPC asserted at the end). */
		if (b == 0 || t_rand_below(&rng, 4) == 0) {
			unsigned long span = RT_MAP_SIZE;

			for (unsigned long l = b == 0 ? 0 : t_rand_below(&rng, 3); l > 0; l--)
				span *= RT_MAP_SIZE;
			trim(&idr, &dm, base + span);
			compare(&idr, &dm);
			/* Often with every id left taken, then an id far above. */
			if (span <= 4096 && (b == 0 || t_rand_below(&rng, 2))) {
				struct req q = { .kind = K_ALLOC, .end = (int)(base + span),
						 .gfp = GFP_KERNEL };

				do
					q.reserve = t_rand_below(&rng, 4) == 0;
				while (run_req(&idr, &dm, &q, false, NULL) != -ENOSPC);
				enospc++;
				q = (struct req){ .kind = K_U32, .max = UINT_MAX,
						  .gfp = GFP_KERNEL };
				q.nextid = (uint32_t)(base + span) +
					   (uint32_t)t_rand_below(&rng, UINT_MAX - base - span);
				run_req(&idr, &dm, &q, t_rand_below(&rng, 2), NULL);
				compare(&idr, &dm);
				/* And back to the full top, half the time. */
				if (t_rand_below(&rng, 2)) {
					trim(&idr, &dm, base + span);
					compare(&idr, &dm);
				}
			}
		}
	}
	/* The run went through every outcome. */
	cr_assert_gt(allocated, 0);
	cr_assert_gt(enospc, 0);
	cr_assert_gt(einval, 0);
	m_free(&dm);
	idr_finish(&idr);
}

Test(idr, differential_base_0, .timeout = 60)
{
	differential(0, t_scaled(60), 250, 40, "idr differential, base 0");
}

Test(idr, differential_base_1, .timeout = 60)
{
	differential(1, t_scaled(30), 250, 40, "idr differential, base 1");
}

Test(idr, differential_base_1000, .timeout = 60)
{
	differential(1000, t_scaled(20), 250, 40, "idr differential, base 1000");
}

/* ---- allocation failure at several shapes ----------------------------------------- */

static long failing_alloc(struct req q, unsigned long *nodes)
{
	q.gfp = GFP_KERNEL;
	return run_req(&idr, &dm, &q, true, nodes);
}

static void failing_shapes(unsigned long base)
{
	struct req q;
	unsigned long nodes;
	long id;

	m_init(&dm, base);
	idr_init_base(&idr, (int)base);
	/* An empty tree: one leaf. */
	q = (struct req){ .kind = K_ALLOC };
	cr_assert_eq(failing_alloc(q, &nodes), (long)base);
	cr_assert_eq(nodes, 1);
	cr_assert_eq(t_height(&idr.idr_rt), 1);
	/* In the leaf: no node. */
	q = (struct req){ .kind = K_ALLOC, .start = 3 };
	failing_alloc(q, &nodes);
	cr_assert_eq(nodes, 0);
	/* Growth from a top over one leaf to ids >= 2^30: (with base 0) a new
	 * top at the highest level, over the old one through a node per
	 * level, and the id's chain. */
	q = (struct req){ .kind = K_ALLOC, .start = 1 << 30, .end = 0 };
	failing_alloc(q, &nodes);
	if (base == 0) {
		cr_assert_eq(t_height(&idr.idr_rt), RT_IDR_LEVELS);
		cr_assert_eq(nodes, RT_IDR_MAX_NODES);
	}
	/* A chain below the top; reserved ids too. */
	q = (struct req){ .kind = K_U32, .nextid = 1U << 31, .max = UINT_MAX, .reserve = true };
	failing_alloc(q, &nodes);
	if (base == 0)
		cr_assert_eq(nodes, RT_IDR_LEVELS - 1);
	q = (struct req){ .kind = K_U32, .nextid = UINT_MAX, .max = ULONG_MAX };
	failing_alloc(q, NULL);
	q = (struct req){ .kind = K_CYCLIC, .start = INT_MAX - 1, .end = 0 };
	failing_alloc(q, NULL);
	failing_alloc(q, NULL);
	/* Fill the first leaf, then the next one starts. */
	for (unsigned int i = 0; i < RT_MAP_SIZE + 2; i++) {
		q = (struct req){ .kind = K_ALLOC, .reserve = i % 3 == 0 };
		failing_alloc(q, NULL);
	}
	q = (struct req){ .kind = K_ALLOC, .start = RT_MAP_SIZE * RT_MAP_SIZE + 7, .end = 0 };
	failing_alloc(q, NULL);
	compare(&idr, &dm);
	/* Shrink back: every id beyond the first leaf removed... */
	while (dm.n) {
		unsigned long far = 0;
		void *item;

		for (size_t i = 0; i < dm.n; i++)
			if (dm.ids[i] >= base + RT_MAP_SIZE)
				far = dm.ids[i];
		if (!far)
			break;
		item = m_del(&dm, far);
		cr_assert_eq(idr_remove(&idr, far), item);
		if (item)
			titem_free(item);
	}
	compare(&idr, &dm);
	cr_assert_eq(t_height(&idr.idr_rt), 1);
	/* ...and grown again, from a full leaf. */
	q = (struct req){ .kind = K_U32, .nextid = (1U << 31) + 12345, .max = UINT_MAX };
	failing_alloc(q, &nodes);
	if (base < RT_MAP_SIZE)
		cr_assert_eq(nodes, RT_IDR_MAX_NODES);
	q = (struct req){ .kind = K_ALLOC, .start = 0, .end = 0 };
	id = failing_alloc(q, NULL);
	cr_assert_eq(id, (long)(base + RT_MAP_SIZE));
	compare(&idr, &dm);
	m_free(&dm);
	idr_finish(&idr);
}

Test(idr, every_allocation_failure_leaves_the_idr_unchanged)
{
	failing_shapes(0);
	failing_shapes(1);
	failing_shapes(RT_MAP_SIZE * RT_MAP_SIZE + 5);
}

/* ---- preload ---------------------------------------------------------------------- */

Test(idr, nowait_alloc_without_preload_fails_and_changes_nothing)
{
	static const gfp_t masks[] = { GFP_NOWAIT, GFP_ATOMIC };
	struct rcuradix_stats before, after;
	struct titem *item = titem_new(0);
	uint32_t next;

	/* An empty IDR: its first id needs a node. */
	rcuradix_thread_cache_flush();
	rt_fault_fail_all(true);
	for (unsigned int g = 0; g < 2; g++) {
		cr_assert_eq(idr_alloc(&idr, item, 0, 0, masks[g]), -ENOMEM);
		cr_assert_eq(idr_alloc_cyclic(&idr, item, 0, 0, masks[g]), -ENOMEM);
		next = 0;
		cr_assert_eq(idr_alloc_u32(&idr, item, &next, 10, masks[g]), -ENOMEM);
		cr_assert_eq(next, 0);
	}
	cr_assert_eq(idr_alloc(&idr, item, 0, 0, GFP_KERNEL), -ENOMEM);
	rt_fault_fail_all(false);
	cr_assert(idr_is_empty(&idr));
	t_verify(&idr.idr_rt);
	/* A few ids, then ids that need nodes. */
	cr_assert_eq(idr_alloc(&idr, item, 0, 0, GFP_KERNEL), 0);
	alloc_at(&idr, 0, 0, 1);
	rcuradix_thread_cache_flush();
	before = stats();
	rt_fault_fail_all(true);
	for (unsigned int g = 0; g < 2; g++) {
		struct titem *x = titem_new(1);

		cr_assert_eq(idr_alloc(&idr, x, RT_MAP_SIZE * 4, 0, masks[g]), -ENOMEM);
		cr_assert_eq(idr_alloc(&idr, x, 1 << 30, 0, masks[g]), -ENOMEM);
		cr_assert_eq(idr_alloc_cyclic(&idr, x, RT_MAP_SIZE, 0, masks[g]), -ENOMEM);
		next = UINT_MAX;
		cr_assert_eq(idr_alloc_u32(&idr, x, &next, UINT_MAX, masks[g]), -ENOMEM);
		cr_assert_eq(next, UINT_MAX);
		titem_free(x);
	}
	/* An id in the leaf that is there needs no node. */
	cr_assert_eq(idr_alloc(&idr, NULL, 0, 0, GFP_NOWAIT), 2);
	rt_fault_fail_all(false);
	after = stats();
	cr_assert_eq(after.nodes_live, before.nodes_live);
	cr_assert_eq(t_height(&idr.idr_rt), 1);
	cr_assert_eq(find(&idr, 0), item);
	cr_assert_null(find(&idr, RT_MAP_SIZE * 4));
	cr_assert_null(find(&idr, 1 << 30));
	cr_assert_null(find(&idr, UINT_MAX));
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* The worst insert: a top over ids 0 .. RT_MAP_SIZE - 1 only, and an id
 * that needs a top at the highest level and two chains of nodes. */
static void preload_worst_case(gfp_t gfp, int kind)
{
	struct rcuradix_stats before, after;
	struct titem *zero, *far;
	unsigned long want = kind == K_U32 ? 1UL << 31 : 1UL << 30;
	uint32_t next = (uint32_t)want;
	int ret;

	idr_init(&idr);
	zero = alloc_at(&idr, 0, 0, 0);
	cr_assert_eq(t_height(&idr.idr_rt), 1);
	rcuradix_thread_cache_flush();
	cr_assert_eq(idr_preload(GFP_KERNEL), 0);
	before = stats();
	cr_assert_geq(before.nodes_reserved, RT_IDR_MAX_NODES);
	rt_fault_fail_all(true);
	far = titem_new(want);
	if (kind == K_U32)
		ret = idr_alloc_u32(&idr, far, &next, UINT_MAX, gfp);
	else if (kind == K_ALLOC)
		ret = idr_alloc(&idr, far, (int)want, 0, gfp);
	else
		ret = idr_alloc_cyclic(&idr, far, (int)want, 0, gfp);
	rt_fault_fail_all(false);
	idr_preload_end();
	cr_assert_eq(ret, kind == K_U32 ? 0 : (int)want, "preloaded alloc at %#lx: %d", want, ret);
	cr_assert_eq(next, want);
	after = stats();
	cr_assert_eq(t_height(&idr.idr_rt), RT_IDR_LEVELS);
	cr_assert_eq(before.nodes_reserved - after.nodes_reserved, RT_IDR_MAX_NODES,
		     "the insert took %lu nodes", before.nodes_reserved - after.nodes_reserved);
	cr_assert_eq(after.nodes_live, before.nodes_live);
	cr_assert_eq(find(&idr, 0), zero);
	cr_assert_eq(find(&idr, want), far);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

Test(idr, preload_covers_the_worst_alloc_with_the_allocator_failing)
{
	static const gfp_t masks[] = { GFP_NOWAIT, GFP_ATOMIC, GFP_KERNEL };

	for (unsigned int g = 0; g < 3; g++) {
		preload_worst_case(masks[g], K_U32);
		preload_worst_case(masks[g], K_ALLOC);
		preload_worst_case(masks[g], K_CYCLIC);
	}
}

Test(idr, preload_before_each_nowait_alloc)
{
	struct t_rng rng;

	t_rng_init(&rng, "idr preloaded allocs");
	m_init(&dm, 0);
	rcuradix_thread_cache_flush();
	for (unsigned int i = 0; i < t_scaled(600); i++) {
		struct req q = random_req(&rng, 0);

		/* Refill what the last one took, the allocator working. */
		cr_assert_eq(idr_preload(GFP_KERNEL), 0);
		cr_assert_geq(stats().nodes_reserved, RT_IDR_MAX_NODES);
		q.gfp = t_rand_below(&rng, 2) ? GFP_NOWAIT : GFP_ATOMIC;
		rt_fault_fail_all(true);
		run_req(&idr, &dm, &q, false, NULL);
		rt_fault_fail_all(false);
		idr_preload_end();
		if (t_rand_below(&rng, 3) == 0)
			random_remove(&idr, &dm, &rng);
		if (i % 100 == 99)
			compare(&idr, &dm);
	}
	compare(&idr, &dm);
	m_free(&dm);
	idr_finish(&idr);
}

Test(idr, failed_preload_opens_the_window_and_reserves_nothing)
{
	struct rcuradix_stats before, after;
	struct titem *item = alloc_at(&idr, 0, 0, 0), *x = titem_new(1);

	rcuradix_thread_cache_flush();
	before = stats();
	rt_fault_fail_all(true);
	cr_assert_eq(idr_preload(GFP_KERNEL), -ENOMEM);
	cr_assert(rt_preload_window_open());
	cr_assert_eq(idr_alloc(&idr, x, 1 << 30, 0, GFP_NOWAIT), -ENOMEM);
	rt_fault_fail_all(false);
	idr_preload_end();
	cr_assert_not(rt_preload_window_open());
	after = stats();
	cr_assert_eq(after.nodes_reserved, before.nodes_reserved);
	cr_assert_eq(after.nodes_live, before.nodes_live);
	/* Failing part-way: what it obtained is given back. */
	rt_fault_fail_nth(3);
	cr_assert_eq(idr_preload(GFP_KERNEL), -ENOMEM);
	idr_preload_end();
	rt_fault_fail_nth(0);
	after = stats();
	cr_assert_eq(after.nodes_reserved, before.nodes_reserved);
	cr_assert_eq(after.nodes_live, before.nodes_live);
	cr_assert_gt(after.alloc_failures, before.alloc_failures);
	/* And a preload that succeeds opens one window: one end closes it. */
	cr_assert_eq(idr_preload(GFP_KERNEL), 0);
	cr_assert(rt_preload_window_open());
	cr_assert_eq(idr_alloc(&idr, x, 1 << 30, 0, GFP_NOWAIT), 1 << 30);
	idr_preload_end();
	cr_assert_not(rt_preload_window_open());
	cr_assert_eq(find(&idr, 0), item);
	cr_assert_eq(find(&idr, 1 << 30), x);
	t_verify(&idr.idr_rt);
	idr_finish(&idr);
}

/* ---- readers against a writer ---------------------------------------------------- */

/*
 * Stable ids: the multiples of 4 below 4 * C_STABLE, allocated before the
 * readers start, never removed.  The writer allocates the lowest free ids
 * (the holes between them first), ids in ranges near 2^30, INT_MAX, 2^31
 * and UINT_MAX, cyclic ones, reserve-then-publish ones; replaces and
 * removes its own, and now and then every far one (the tree shrinks, and
 * grows to its full height again).
 */
#define C_STABLE 256UL
#define C_READERS 2
#define C_WRITER_OPS t_scaled(30000)
#define C_MAX_IDS 1200

static const struct t_flavor_ops *c_ops;
static int c_stop;
static unsigned long c_errors, c_reads;
static struct idm wm;  /* the writer's */

static void c_error(const char *what, unsigned long id)
{
	if (uatomic_add_return(&c_errors, 1) <= 10)
		fprintf(stderr, "idr reader error: %s (id %#lx)\n", what, id);
}

static bool c_stable(unsigned long id)
{
	return id < 4 * C_STABLE && id % 4 == 0;
}

/* The first stable id at or after @id (4 * C_STABLE if none). */
static unsigned long c_stable_from(unsigned long id)
{
	return id >= 4 * C_STABLE ? 4 * C_STABLE : (id + 3) & ~3UL;
}

/* A walk in id order must be increasing, find live items with their ids,
 * and miss no stable id. */
struct c_walk {
	unsigned long next_stable, last;
	bool any;
};

static void c_walk_init(struct c_walk *w, unsigned long from)
{
	w->next_stable = c_stable_from(from);
	w->any = false;
}

static void c_walk_step(struct c_walk *w, unsigned long id, const void *item)
{
	if (w->any && id <= w->last)
		c_error("walk not increasing", id);
	w->any = true;
	w->last = id;
	if (!titem_ok(item, id))
		c_error("walk: item dead or with another id", id);
	if (w->next_stable < id && w->next_stable < 4 * C_STABLE)
		c_error("walk skipped a stable id", w->next_stable);
	w->next_stable = c_stable_from(id + 1);
}

static void c_walk_end(struct c_walk *w)
{
	if (w->next_stable < 4 * C_STABLE)
		c_error("walk ended before a stable id", w->next_stable);
}

static int c_each(int id, void *p, void *data)
{
	c_walk_step(data, (unsigned long)id, p);
	return 0;
}

static unsigned long c_random_id(struct t_rng *rng)
{
	switch (t_rand_below(rng, 6)) {
	case 0:
		return (1UL << 30) + t_rand_below(rng, 600);
	case 1:
		return INT_MAX - 1 - t_rand_below(rng, 1100);
	case 2:
		return UINT_MAX - t_rand_below(rng, 600);
	case 3:
		return (1UL << 31) + t_rand_below(rng, 600);
	default:
		return t_rand_below(rng, 4 * C_STABLE + 2 * C_MAX_IDS);
	}
}

static void *c_reader(void *arg)
{
	struct t_rng rng = { (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ULL + 3 };
	unsigned long n = 0;

	c_ops->reg();
	while (!uatomic_read(&c_stop)) {
		unsigned long s = 4 * t_rand_below(&rng, C_STABLE), c = c_random_id(&rng), ul, tmp;
		struct c_walk w;
		void *item;
		int id;

		c_ops->lock();
		if (!titem_ok(idr_find(&idr, s), s))
			c_error("stable id missing or bad", s);
		item = idr_find(&idr, c);
		if (item && !titem_ok(item, c))
			c_error("item dead or with another id", c);
		ul = c;
		item = idr_get_next_ul(&idr, &ul);
		if (item) {
			if (ul < c || !titem_ok(item, ul))
				c_error("idr_get_next_ul: item dead, or before the start", ul);
			if (c_stable_from(c) < ul && c_stable_from(c) < 4 * C_STABLE)
				c_error("idr_get_next_ul skipped a stable id", c_stable_from(c));
		} else if (c_stable_from(c) < 4 * C_STABLE) {
			c_error("idr_get_next_ul missed a stable id", c_stable_from(c));
		}
		switch (n % 32) {
		case 0:
			c_walk_init(&w, 0);
			idr_for_each_entry(&idr, item, id)
				c_walk_step(&w, (unsigned long)id, item);
			c_walk_end(&w);
			break;
		case 8:
			c_walk_init(&w, 0);
			idr_for_each_entry_ul(&idr, item, tmp, ul)
				c_walk_step(&w, ul, item);
			c_walk_end(&w);
			break;
		case 16:
			c_walk_init(&w, 0);
			if (idr_for_each(&idr, c_each, &w) != 0)
				c_error("idr_for_each returned non-zero", 0);
			c_walk_end(&w);
			break;
		case 24:
			id = (int)s;
			c_walk_init(&w, s);
			idr_for_each_entry_continue(&idr, item, id)
				c_walk_step(&w, (unsigned long)id, item);
			c_walk_end(&w);
			break;
		default:
			break;
		}
		if (idr_is_empty(&idr))
			c_error("idr empty while stable ids exist", 0);
		c_ops->unlock();
		if (c_ops->quiescent && n % 64 == 0)
			c_ops->quiescent();
		n++;
		uatomic_inc(&c_reads);
	}
	c_ops->unreg();
	return NULL;
}

/* The writer's random request (its int ids stay below INT_MAX - 1). */
static struct req c_random_req(struct t_rng *rng)
{
	struct req q = { .gfp = GFP_KERNEL };

	q.reserve = t_rand_below(rng, 6) == 0;
	switch (t_rand_below(rng, 10)) {
	case 0:
		q.kind = K_ALLOC;
		q.start = 1 << 30;
		q.end = (1 << 30) + 512;
		break;
	case 1:
		q.kind = K_ALLOC;
		q.start = INT_MAX - 1024;
		q.end = INT_MAX - 1;
		break;
	case 2:
		q.kind = K_U32;
		q.nextid = UINT_MAX - 511;
		q.max = t_rand_below(rng, 2) ? ULONG_MAX : UINT_MAX;
		break;
	case 3:
		q.kind = K_U32;
		q.nextid = 1U << 31;
		q.max = (1UL << 31) + 511;
		break;
	case 4:
		q.kind = K_CYCLIC;
		q.start = (int)(4 * C_STABLE + C_MAX_IDS);
		q.end = q.start + 400;
		break;
	default:
		q.kind = K_ALLOC;
		q.start = (int)t_rand_below(rng, 4 * C_STABLE);
		q.end = t_rand_below(rng, 2) ? 0 : (int)(4 * C_STABLE + C_MAX_IDS);
		break;
	}
	return q;
}

/* One writer step, checked against wm without Criterion (another thread). */
static void c_write_alloc(struct t_rng *rng)
{
	struct req q = c_random_req(rng);
	unsigned long want = 0, id = 0;
	int alt, expect = m_expect(&wm, &q, &want, &alt), ret;
	uint32_t next = q.nextid;
	struct titem *item = q.reserve ? NULL : titem_new(want);

	if (q.kind == K_U32) {
		ret = idr_alloc_u32(&idr, item, &next, q.max, q.gfp);
		id = next;
	} else {
		ret = q.kind == K_ALLOC ? idr_alloc(&idr, item, q.start, q.end, q.gfp) :
					  idr_alloc_cyclic(&idr, item, q.start, q.end, q.gfp);
		if (ret >= 0) {
			id = (unsigned long)ret;
			ret = 0;
		}
	}
	if (ret != expect || (ret == 0 && id != want)) {
		fprintf(stderr, "idr writer: %s = %d id %#lx, the model says %d id %#lx\n",
			req_str(&q), ret, id, expect, want);
		uatomic_inc(&c_errors);
	}
	if (ret) {
		if (item)
			titem_free(item);
		return;
	}
	if (q.kind == K_CYCLIC)
		wm.next = (unsigned int)id + 1;
	if (q.reserve) {
		/* Publish an item at the reserved id. */
		item = titem_new(id);
		if (idr_replace(&idr, item, id) != NULL)
			uatomic_inc(&c_errors);
	}
	/* m_add() without Criterion: id was the model's free id. */
	if (id < M_DENSE) {
		wm.used[id] = true;
		wm.item[id] = item;
	} else {
		model_insert(&wm.sparse, id, item);
	}
	if (wm.n == wm.cap) {
		wm.cap = wm.cap ? 2 * wm.cap : 256;
		wm.ids = realloc(wm.ids, wm.cap * sizeof(*wm.ids));
		if (!wm.ids)
			abort();
	}
	wm.ids[wm.n++] = id;
}

static void c_write_change(struct t_rng *rng, bool remove)
{
	size_t i = (size_t)t_rand_below(rng, wm.n);
	unsigned long id = wm.ids[i];
	struct titem *old, *item;

	if (c_stable(id))
		return;
	old = id < M_DENSE ? wm.item[id] : model_find(&wm.sparse, id)->item;
	if (remove) {
		if (idr_remove(&idr, id) != old)
			uatomic_inc(&c_errors);
		if (id < M_DENSE)
			wm.used[id] = false;
		else
			model_delete(&wm.sparse, id);
		wm.ids[i] = wm.ids[--wm.n];
	} else {
		item = titem_new(id);
		if (idr_replace(&idr, item, id) != old)
			uatomic_inc(&c_errors);
		if (id < M_DENSE)
			wm.item[id] = item;
		else
			model_find(&wm.sparse, id)->item = item;
	}
	titem_free_rcu(c_ops->flavor, old);
}

/* Remove every id at or above @limit: the tree shrinks under the readers
 * (and grows again with the next far id). */
static void c_write_trim(unsigned long limit)
{
	for (size_t i = 0; i < wm.n;) {
		unsigned long id = wm.ids[i];
		struct titem *old;

		if (id < limit) {
			i++;
			continue;
		}
		old = id < M_DENSE ? wm.item[id] : model_find(&wm.sparse, id)->item;
		if (idr_remove(&idr, id) != old)
			uatomic_inc(&c_errors);
		if (id < M_DENSE)
			wm.used[id] = false;
		else
			model_delete(&wm.sparse, id);
		wm.ids[i] = wm.ids[--wm.n];
		titem_free_rcu(c_ops->flavor, old);
	}
}

static void *c_writer(void *arg)
{
	struct t_rng rng = { 0x1d7a11c5ULL };
	unsigned long done, reads_before;

	(void)arg;
	c_ops->reg();
	/* Past C_WRITER_OPS, on until the readers ran a few iterations that
	 * began after this writer did. */
	reads_before = uatomic_read(&c_reads);
	for (done = 0; done < C_WRITER_OPS || uatomic_read(&c_reads) < reads_before + 64; done++) {
		unsigned int op = (unsigned int)t_rand_below(&rng, 100);

		if (wm.n > C_STABLE + C_MAX_IDS && op < 55)
			op += 45;
		if (op < 55)
			c_write_alloc(&rng);
		else
			c_write_change(&rng, op < 88);
		if (done % 2048 == 2047)
			c_write_trim(M_DENSE);
		if (c_ops->quiescent && done % 256 == 0)
			c_ops->quiescent();
	}
	uatomic_set(&c_stop, 1);
	c_ops->unreg();
	rcuradix_thread_cache_flush();
	return NULL;
}

static void c_run(const struct t_flavor_ops *f)
{
	pthread_t readers[C_READERS], w;
	unsigned long id;

	c_ops = f;
	if (f->quiescent)
		f->reg();  /* this thread too, for the setup and the checks after */
	idr_init_flavor(&idr, 0, f->flavor);
	m_init(&wm, 0);
	for (id = 0; id < 4 * C_STABLE; id++) {
		struct titem *item = titem_new(id);

		cr_assert_eq(idr_alloc(&idr, item, 0, 0, GFP_KERNEL), (int)id);
		m_add(&wm, id, item);
	}
	for (id = 0; id < 4 * C_STABLE; id++)
		if (!c_stable(id)) {
			void *item = m_del(&wm, id);

			cr_assert_eq(idr_remove(&idr, id), item);
			titem_free(item);
		}
	compare(&idr, &wm);
	if (f->quiescent)
		urcu_qsbr_thread_offline();  /* waiting, it would hold up grace periods */
	for (unsigned int i = 0; i < C_READERS; i++)
		cr_assert_eq(pthread_create(&readers[i], NULL, c_reader,
					    (void *)(uintptr_t)(i + 1)), 0);
	cr_assert_eq(pthread_create(&w, NULL, c_writer, NULL), 0);
	cr_assert_eq(pthread_join(w, NULL), 0);
	for (unsigned int i = 0; i < C_READERS; i++)
		cr_assert_eq(pthread_join(readers[i], NULL), 0);
	if (f->quiescent)
		urcu_qsbr_thread_online();
	cr_assert_eq(uatomic_read(&c_errors), 0, "%lu errors (the first ones on stderr)",
		     c_errors);
	fprintf(stderr, "idr: %lu reader iterations during %lu writer operations\n", c_reads,
		C_WRITER_OPS);
	for (id = 0; id < 4 * C_STABLE; id += 4)
		cr_assert(titem_ok(find(&idr, id), id), "stable id %lu", id);
	compare(&idr, &wm);
	m_free(&wm);
	if (f->quiescent)
		f->unreg();
	idr_finish(&idr);
}

Test(idr, memb_readers_against_a_writer, .timeout = 120)
{
	c_run(&t_memb_ops);
}

Test(idr, qsbr_readers_against_a_writer, .timeout = 120)
{
	c_run(&t_qsbr_ops);
}

/* ---- hole scans while the top changes ---------------------------------------- */

/*
 * Regression: a reader's hole scan on an IDR first follows the free words,
 * and took the root's free bit as its top's.  The writer stores that bit
 * after each top it publishes, so a reader could pair a top with another
 * top's bit:
 *   - emptied: the scan loaded the top leaf; the writer removed the leaf's
 *     last id, unpublished the leaf and cleared the bit (an empty tree's);
 *     the scan took keys 0..63 for taken, and next_hole(0, 4) answered 4
 *     though ids 1..3 were never allocated;
 *   - grown (64-slot build): ids 0..63 stay (a full leaf, its bit clear), id 64 comes and
 *     goes; the writer published the level-1 top for id 64 and was
 *     preempted before it set the bit; every scan meanwhile took keys
 *     0..4095 for taken, and next_hole(60, 10) answered 70 though ids
 *     65..69 were never allocated.  (Removing id 64 shrinks the tree back
 *     to the leaf: the same with the old top and the leaf's bit.)
 * A reader now reads its top's own free word.  Readers run these scans
 * while the writer makes such changes; a scan that reaches a key never
 * allocated must stop there.
 */
enum th_mode { TH_EMPTIED, TH_GROWN };

struct th_reader {
	enum th_mode mode;
	unsigned long iterations, bad, last_bad;
};

static int th_stop, th_holding;
static struct th_reader th_readers[2];

/*
 * The writer's hook at a grow or a shrink (debug builds: lib/internal.h),
 * between the new top's publication and the root's free bit: it waits
 * there until a reader has run two more scans (bounded, in case none
 * can), so that a scan meets the new top with the old bit every time,
 * not only when the writer happens to be preempted there.
 */
static void th_hold(enum rt_transition t)
{
	unsigned long start[2];

	if (t != RT_TR_GROW_ROOT && t != RT_TR_SHRINK)
		return;
	for (unsigned int r = 0; r < 2; r++)
		start[r] = __atomic_load_n(&th_readers[r].iterations, __ATOMIC_RELAXED);
	__atomic_store_n(&th_holding, 1, __ATOMIC_RELAXED);
	for (unsigned long spin = 0; spin < 10000000UL; spin++) {
		for (unsigned int r = 0; r < 2; r++)
			if (__atomic_load_n(&th_readers[r].iterations, __ATOMIC_RELAXED) >=
			    start[r] + 2) {
				__atomic_store_n(&th_holding, 0, __ATOMIC_RELAXED);
				return;
			}
		sched_yield();
	}
	__atomic_store_n(&th_holding, 0, __ATOMIC_RELAXED);
}

static void *th_read(void *p)
{
	struct th_reader *r = p;

	urcu_memb_register_thread();
	while (!__atomic_load_n(&th_stop, __ATOMIC_ACQUIRE)) {
		unsigned long hole, worst;

		urcu_memb_read_lock();
		if (r->mode == TH_EMPTIED) {
			hole = radix_tree_next_hole(&idr.idr_rt, 0, 4);
			worst = 1;  /* id 0 present at most: key 1 stops it */
		} else {
			/* Ids up to RT_MAP_SIZE present at most: the key
			 * after it stops the scan. */
			hole = radix_tree_next_hole(&idr.idr_rt, RT_MAP_SIZE - 4, 10);
			worst = RT_MAP_SIZE + 1;
		}
		urcu_memb_read_unlock();
		if (hole > worst) {
			r->bad++;
			r->last_bad = hole;
		}
		__atomic_fetch_add(&r->iterations, 1, __ATOMIC_RELAXED);
		/* The held writer waits for this scan: on a CPU the two share,
		 * it would wait out the reader's time slice. */
		if (__atomic_load_n(&th_holding, __ATOMIC_RELAXED))
			sched_yield();
	}
	urcu_memb_unregister_thread();
	return NULL;
}

static void th_run(enum th_mode mode)
{
	struct th_reader *readers = th_readers;
	struct titem *stay[RT_MAP_SIZE], *it = titem_new(0);
	pthread_t threads[2];
	unsigned long ops = 0, want = t_scaled(20000);
	/* Each held grow and shrink waits for the readers: fewer rounds. */
	unsigned long want_ops = mode == TH_GROWN ? t_scaled(4000) : want;
	const int top = RT_MAP_SIZE;  /* the first id past a leaf */

	if (mode == TH_GROWN)
		for (int i = 0; i < top; i++)
			stay[i] = alloc_at(&idr, 0, 0, i);
	__atomic_store_n(&th_stop, 0, __ATOMIC_RELAXED);
	for (unsigned int t = 0; t < 2; t++) {
		readers[t] = (struct th_reader){ mode, 0, 0, 0 };
		cr_assert_eq(pthread_create(&threads[t], NULL, th_read, &readers[t]), 0);
	}
	if (mode == TH_GROWN)
		__atomic_store_n(&rt_transition_hook, th_hold, __ATOMIC_RELEASE);
	for (;;) {
		bool enough = ops >= want_ops;

		for (unsigned int t = 0; t < 2; t++)
			enough = enough &&
				 __atomic_load_n(&readers[t].iterations, __ATOMIC_RELAXED) >= want;
		/* However long a loaded machine keeps the readers waiting:
		 * the timeout stops a test whose readers never run. */
		if (enough)
			break;
		if (mode == TH_EMPTIED) {
			cr_assert_eq(idr_alloc(&idr, it, 0, 0, GFP_KERNEL), 0);
			cr_assert_eq(idr_remove(&idr, 0), it);  /* the tree empties */
		} else {
			cr_assert_eq(idr_alloc(&idr, it, top, 0, GFP_KERNEL), top);
			cr_assert_eq(idr_remove(&idr, top), it);  /* the top is the leaf again */
		}
		ops++;
	}
	__atomic_store_n(&rt_transition_hook, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&th_stop, 1, __ATOMIC_RELEASE);
	for (unsigned int t = 0; t < 2; t++) {
		cr_assert_eq(pthread_join(threads[t], NULL), 0);
		cr_assert_eq(readers[t].bad, 0, "reader %u: %lu scans ran past a key never "
						 "allocated (the last answered %lu)",
			     t, readers[t].bad, readers[t].last_bad);
		cr_assert_geq(readers[t].iterations, want);
	}
	titem_free(it);
	if (mode == TH_GROWN)
		for (int i = 0; i < top; i++)
			cr_assert_eq(idr_remove(&idr, (unsigned long)i), stay[i]);
	for (int i = 0; mode == TH_GROWN && i < top; i++)
		titem_free(stay[i]);
	idr_finish(&idr);
}

Test(idr, hole_scans_while_the_tree_empties, .timeout = 120)
{
	th_run(TH_EMPTIED);
}

Test(idr, hole_scans_while_the_tree_grows_over_a_full_leaf_and_shrinks, .timeout = 120)
{
	th_run(TH_GROWN);
}
