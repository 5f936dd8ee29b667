/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ida.c - the IDA: ids one bit each, in 128-byte bitmaps of 1,024 ids kept
 * as the items of an IDR tree.
 *
 * Unit tests: DEFINE_IDA and ida_init(); ida_alloc() hands out 0, 1, 2,
 * ...; ida_alloc_min(), _max() and _range() give the lowest free id of the
 * range, across bitmap boundaries, past bitmaps whose free ids all lie
 * outside the range, up to INT_MAX (larger maxima clamped); every error
 * (-ENOSPC, -EINVAL, a NULL or non-IDA argument) changes nothing; a freed
 * id is the lowest again; freeing a bitmap's last id gives its 128 bytes
 * back at once (to the allocator or this thread's reserve), and the tree's
 * nodes when their last bitmap goes; ida_free() of an id not allocated
 * says so in one line, once per process, and changes nothing;
 * ida_is_empty(); ida_destroy() and reuse.
 *
 * A differential test against a plain bitmap (the ids below 2^17 and the
 * last 4,096 below INT_MAX) with random ranges and frees: every answer is
 * the model's, and after each batch every bitmap of the tree is the
 * model's, word for word, and radix_tree_verify() (which checks the free
 * bits against each bitmap's fullness) passes; radix_tree_next_hole() and
 * prev_hole() on the IDA's tree give the model's holes (a key is present
 * while its bitmap holds an id, whatever its free bit says).
 *
 * Threads allocating and freeing at once never get the same id, and leave
 * the bitmaps their ids say.
 *
 * Allocation failure: each allocation of a call made to fail in turn
 * (bitmap, then each node) gives -ENOMEM and leaves the IDA and the
 * memory counters as they were, until the call succeeds with the id
 * expected; GFP_NOWAIT and GFP_ATOMIC take memory only from the thread's
 * reserve.  Memory: 2^20 dense ids take at most 0.2 bytes each.
 *
 * Every test ends with the IDA empty and destroyed and every node counter
 * back to zero.
 */
#include "helpers.h"

#include <rcuradix/idr.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>

static struct ida ida;

static void setup(void)
{
	urcu_memb_register_thread();
	ida_init(&ida);
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
}

static void teardown(void)
{
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
	urcu_memb_unregister_thread();
}

TestSuite(ida, .init = setup, .fini = teardown);

#define BITMAP_BYTES 128UL
#define IDS_PER_BITMAP 1024U

_Static_assert(sizeof(struct rt_ida_bitmap) == BITMAP_BYTES, "a bitmap is 128 bytes");
_Static_assert(RT_IDA_BITS == IDS_PER_BITMAP, "a bitmap holds 1024 ids");

static struct rcuradix_stats stats(void)
{
	struct rcuradix_stats st;

	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
	return st;
}

/* Bytes of the node allocator that trees hold: neither in a reserve nor
 * waiting for a grace period. */
static unsigned long held_bytes(struct rcuradix_stats st)
{
	return st.bytes_live - st.bytes_reserved - st.bytes_pending;
}

/* Nodes linked in the IDA's tree (bitmaps are its items, not nodes). */
static unsigned long tree_nodes(struct ida *a)
{
	struct radix_tree_memstat mem;

	cr_assert_eq(radix_tree_memory(&a->ida_rt, &mem), 0);
	return mem.nodes;
}

static void verify(struct ida *a)
{
	t_verify(&a->ida_rt);
}

static void alloc_expect(struct ida *a, unsigned int min, unsigned int max, int expect)
{
	int ret = ida_alloc_range(a, min, max, GFP_KERNEL);

	cr_assert_eq(ret, expect, "ida_alloc_range(%u, %u) returned %d, expected %d", min, max,
		     ret, expect);
}

/* Allocate @n ids with ida_alloc(): they must be @first, @first + 1, ... */
static void alloc_run(struct ida *a, unsigned int first, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int ret = ida_alloc(a, GFP_KERNEL);

		cr_assert_eq(ret, (int)(first + i), "ida_alloc() returned %d, expected %u", ret,
			     first + i);
	}
}

static void free_run(struct ida *a, unsigned int first, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		ida_free(a, first + i);
}

/* End of a test: the IDA is empty; destroy it, wait for the nodes' grace
 * periods, drain the reserve: every node counter must be zero. */
static void finish(struct ida *a)
{
	cr_assert(ida_is_empty(a), "the test left ids allocated");
	verify(a);
	ida_destroy(a);
	cr_assert(ida_is_empty(a));
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	t_assert_no_nodes();
}

/* ---- the tree's bitmaps, copied -------------------------------------- */

struct ida_dump {
	size_t n, cap;
	unsigned long *keys;
	struct rt_ida_bitmap *maps;
};

/* Copy every bitmap of @a with its key, in key order (under the lock: the
 * bitmaps change in place under it). */
static void dump_take(struct ida *a, struct ida_dump *d)
{
	void **slots[64];
	unsigned long idx[64], first = 0;
	unsigned int n;
	bool oom = false;

	d->n = 0;
	radix_tree_lock(&a->ida_rt);
	while (!oom && (n = radix_tree_gang_lookup_slot(&a->ida_rt, slots, idx, first, 64)) > 0) {
		for (unsigned int i = 0; i < n; i++) {
			const struct rt_ida_bitmap *b = rcu_dereference(*slots[i]);

			if (d->n == d->cap) {
				size_t cap = d->cap ? 2 * d->cap : 64;
				unsigned long *keys = realloc(d->keys, cap * sizeof(*keys));
				struct rt_ida_bitmap *maps;

				if (keys)
					d->keys = keys;
				maps = realloc(d->maps, cap * sizeof(*maps));
				if (maps)
					d->maps = maps;
				if (!keys || !maps) {
					oom = true;
					break;
				}
				d->cap = cap;
			}
			d->keys[d->n] = idx[i];
			memcpy(&d->maps[d->n], b, sizeof(*b));
			d->n++;
		}
		first = idx[n - 1] + 1;
	}
	radix_tree_unlock(&a->ida_rt);
	cr_assert_not(oom);
}

static void dump_free(struct ida_dump *d)
{
	free(d->keys);
	free(d->maps);
	memset(d, 0, sizeof(*d));
}

/* Everything a call that failed must have left as it was: the ids, the
 * tree's nodes and the library's live memory (reserve drained first). */
struct ida_state {
	struct ida_dump dump;
	unsigned long nodes;
	unsigned long nodes_live, bytes_live, nodes_pending;
};

static void state_take(struct ida *a, struct ida_state *s)
{
	struct rcuradix_stats st;

	rcuradix_thread_cache_flush();
	st = stats();
	memset(&s->dump, 0, sizeof(s->dump));  /* the caller's is fresh or freed */
	dump_take(a, &s->dump);
	s->nodes = tree_nodes(a);
	s->nodes_live = st.nodes_live;
	s->bytes_live = st.bytes_live;
	s->nodes_pending = st.nodes_pending;
}

static void state_assert_same(const struct ida_state *was, const struct ida_state *now,
			      const char *what)
{
	cr_assert_eq(now->dump.n, was->dump.n, "%s: %zu bitmaps, were %zu", what, now->dump.n,
		     was->dump.n);
	for (size_t i = 0; i < was->dump.n; i++) {
		cr_assert_eq(now->dump.keys[i], was->dump.keys[i], "%s: bitmap %zu at key %lu, was %lu",
			     what, i, now->dump.keys[i], was->dump.keys[i]);
		cr_assert(memcmp(&now->dump.maps[i], &was->dump.maps[i], BITMAP_BYTES) == 0,
			  "%s: the bitmap of ids %lu.. changed", what,
			  was->dump.keys[i] * IDS_PER_BITMAP);
	}
	cr_assert_eq(now->nodes, was->nodes, "%s: %lu tree nodes, were %lu", what, now->nodes,
		     was->nodes);
	cr_assert_eq(now->nodes_pending, was->nodes_pending, "%s: %lu nodes pending, were %lu", what,
		     now->nodes_pending, was->nodes_pending);
	cr_assert_eq(now->nodes_live, was->nodes_live, "%s: %lu nodes live, were %lu", what,
		     now->nodes_live, was->nodes_live);
	cr_assert_eq(now->bytes_live, was->bytes_live, "%s: %lu bytes live, were %lu", what,
		     now->bytes_live, was->bytes_live);
}

static void state_free(struct ida_state *s)
{
	dump_free(&s->dump);
}

/* ---- unit tests ------------------------------------------------------- */

Test(ida, define_ida_and_ida_init_give_an_empty_ida)
{
	static DEFINE_IDA(defined);
	struct ida automatic = IDA_INIT(automatic);
	struct ida garbage;

	cr_assert(ida_is_empty(&defined));
	cr_assert(ida_is_empty(NULL));
	alloc_run(&defined, 0, 3);
	cr_assert_not(ida_is_empty(&defined));
	verify(&defined);
	free_run(&defined, 0, 3);
	finish(&defined);

	cr_assert(ida_is_empty(&automatic));
	alloc_run(&automatic, 0, 2);
	free_run(&automatic, 0, 2);
	finish(&automatic);

	/* ida_init() makes any memory an empty IDA. */
	memset(&garbage, 0xa5, sizeof(garbage));
	ida_init(&garbage);
	cr_assert(ida_is_empty(&garbage));
	alloc_run(&garbage, 0, 2);
	free_run(&garbage, 0, 2);
	finish(&garbage);
	ida_init(NULL);  /* ignored */

	/* The suite's, from ida_init() in the setup. */
	cr_assert(ida_is_empty(&ida));
	alloc_run(&ida, 0, 1);
	ida_free(&ida, 0);
	finish(&ida);
}

/* Take id @id of @bitmap. */
static void bitmap_take(struct rt_ida_bitmap *bitmap, unsigned int id)
{
	bitmap->words[id / RT_BITS_PER_LONG] |= 1UL << (id % RT_BITS_PER_LONG);
}

/* The groups of @bitmap with a free id, read id by id. */
static uint32_t open_groups_by_id(const struct rt_ida_bitmap *bitmap)
{
	uint32_t open = 0;

	for (unsigned int id = 0; id < RT_IDA_BITS; id++)
		if (!(bitmap->words[id / RT_BITS_PER_LONG] & (1UL << (id % RT_BITS_PER_LONG))))
			open |= 1U << (id / 32);
	return open;
}

/*
 * rt_ida_open_groups(), the allocation's one-level summary of a bitmap,
 * against an id-by-id reading of the same bitmap: each group of 32 ids is
 * taken, free, or taken but for one random id, at random (seed printed).
 */
Test(ida, the_open_group_summary_names_every_group_with_a_free_id)
{
	struct rt_ida_bitmap bitmap;
	struct t_rng rng;

	t_rng_init(&rng, "ida.open_groups");
	for (unsigned int round = 0; round < 4096; round++) {
		uint32_t want;

		memset(&bitmap, 0, sizeof(bitmap));
		for (unsigned int g = 0; g < RT_IDA_GROUPS; g++) {
			uint64_t kind = t_rand_below(&rng, 3);
			unsigned int spared = (unsigned int)t_rand_below(&rng, 32);

			for (unsigned int i = 0; i < 32; i++)
				if (kind == 0 || (kind == 2 && i != spared))
					bitmap_take(&bitmap, g * 32 + i);
		}
		want = open_groups_by_id(&bitmap);
		cr_assert_eq(rt_ida_open_groups(&bitmap), want, "round %u: %#x, expected %#x",
			     round, rt_ida_open_groups(&bitmap), want);
		cr_assert_eq(rt_ida_bitmap_full(&bitmap), want == 0);
	}
	/* Random rounds are almost never full: the full bitmap, and each
	 * group alone open by its first and by its last id, explicitly. */
	memset(bitmap.words, 0xff, sizeof(bitmap.words));
	cr_assert_eq(rt_ida_open_groups(&bitmap), 0U);
	cr_assert(rt_ida_bitmap_full(&bitmap));
	for (unsigned int g = 0; g < RT_IDA_GROUPS; g++) {
		for (unsigned int id = g * 32; id < g * 32 + 32; id += 31) {
			unsigned long *word = &bitmap.words[id / RT_BITS_PER_LONG];

			*word &= ~(1UL << (id % RT_BITS_PER_LONG));
			cr_assert_eq(rt_ida_open_groups(&bitmap), 1U << g, "id %u free", id);
			cr_assert(!rt_ida_bitmap_full(&bitmap));
			*word = ~0UL;
		}
	}
}

/* The groups of a word, and those after it, as the summary numbers them. */
Test(ida, a_word_s_groups_are_the_summary_s_bits_for_its_ids)
{
	for (unsigned int w = 0; w < RT_IDA_WORDS; w++) {
		for (unsigned int g = 0; g < RT_IDA_GROUPS; g++) {
			bool in_word = g * 32 / RT_BITS_PER_LONG == w;

			cr_assert_eq(rt_ida_group_word(g), g * 32 / RT_BITS_PER_LONG);
			cr_assert_eq((rt_ida_word_groups(w) >> g) & 1U, in_word, "word %u group %u",
				     w, g);
			cr_assert_eq((rt_ida_groups_after(w) >> g) & 1U, g * 32 / RT_BITS_PER_LONG > w,
				     "word %u group %u", w, g);
		}
	}
}

/*
 * radix_tree_verify() of an IDA whose root item, or a leaf's bitmap, is
 * replaced by a pointer that is not node-aligned: it reports the tree as
 * corrupt, and reads nothing there as a bitmap (the summary's aligned
 * loads would fault on it).  The pointer lies inside a buffer of taken
 * ids, so that a read of it would find a full bitmap, not a fault of its
 * own.
 */
Test(ida, verify_reports_a_bitmap_that_is_not_node_aligned)
{
	static unsigned long taken[2 * RT_IDA_WORDS] __attribute__((aligned(64)));
	void *stray = &taken[1], *saved;
	void **slot;

	memset(taken, 0xff, sizeof(taken));
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 0);
	saved = ida.ida_rt.rnode;
	cr_assert(rt_root_item(saved), "id 0 alone: the root item");
	ida.ida_rt.rnode = stray;
	cr_assert_eq(radix_tree_verify(&ida.ida_rt), -EUCLEAN, "a stray root item passed");
	ida.ida_rt.rnode = saved;
	verify(&ida);

	/* Key 1's bitmap, in slot 1 of the leaf the tree grew. */
	cr_assert_eq(ida_alloc_min(&ida, IDS_PER_BITMAP, GFP_KERNEL), (int)IDS_PER_BITMAP);
	cr_assert(rt_is_internal(ida.ida_rt.rnode) && rt_entry_level(ida.ida_rt.rnode) == 0);
	slot = &rt_entry_node(ida.ida_rt.rnode)->slots[1];
	saved = *slot;
	*slot = stray;
	cr_assert_eq(radix_tree_verify(&ida.ida_rt), -EUCLEAN, "a stray leaf bitmap passed");
	*slot = saved;
	verify(&ida);
	ida_free(&ida, IDS_PER_BITMAP);
	ida_free(&ida, 0);
	finish(&ida);
}

Test(ida, ida_alloc_hands_out_ids_in_order)
{
	const unsigned int n = 3 * IDS_PER_BITMAP + 5;

	alloc_run(&ida, 0, n);
	verify(&ida);
	/* Each full bitmap is no longer free; the last one is. */
	alloc_run(&ida, n, 1);
	verify(&ida);
	for (unsigned int id = 0; id <= n; id++) {
		cr_assert_not(ida_is_empty(&ida));
		ida_free(&ida, id);
		if (id % 500 == 0)
			verify(&ida);
	}
	cr_assert(ida_is_empty(&ida));
	finish(&ida);
}

Test(ida, alloc_min_max_and_range_give_the_lowest_free_id)
{
	cr_assert_eq(ida_alloc_min(&ida, 10, GFP_KERNEL), 10);
	cr_assert_eq(ida_alloc_min(&ida, 10, GFP_KERNEL), 11);
	cr_assert_eq(ida_alloc_min(&ida, 9, GFP_KERNEL), 9);
	cr_assert_eq(ida_alloc_max(&ida, 5, GFP_KERNEL), 0);
	cr_assert_eq(ida_alloc_max(&ida, 5, GFP_KERNEL), 1);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 2);
	alloc_expect(&ida, 9, 20, 12);
	alloc_expect(&ida, 3, 3, 3);
	alloc_expect(&ida, 3, 3, -ENOSPC);
	cr_assert_eq(ida_alloc_max(&ida, 0, GFP_KERNEL), -ENOSPC);
	alloc_expect(&ida, 0, 4, 4);
	alloc_expect(&ida, 0, 4, -ENOSPC);
	alloc_expect(&ida, 0, 5, 5);
	/* 0..5, 9..12 taken: the gap first. */
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 6);
	alloc_expect(&ida, 8, 100, 8);
	alloc_expect(&ida, 7, 7, 7);
	cr_assert_eq(ida_alloc_max(&ida, 12, GFP_KERNEL), -ENOSPC);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 13);
	/* Far above, in an empty region; then the lowest again. */
	cr_assert_eq(ida_alloc_min(&ida, 1000000, GFP_KERNEL), 1000000);
	cr_assert_eq(ida_alloc_min(&ida, 999999, GFP_KERNEL), 999999);
	cr_assert_eq(ida_alloc_min(&ida, 999999, GFP_KERNEL), 1000001);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 14);
	verify(&ida);
	free_run(&ida, 0, 15);
	free_run(&ida, 999999, 3);
	finish(&ida);
}

/* 5..9 taken, then the range is full: -ENOSPC, and nothing changed. */
Test(ida, a_full_range_gives_enospc_and_changes_nothing)
{
	struct ida_state was, now;

	for (int id = 5; id <= 9; id++)
		alloc_expect(&ida, 5, 9, id);
	state_take(&ida, &was);
	alloc_expect(&ida, 5, 9, -ENOSPC);
	alloc_expect(&ida, 9, 9, -ENOSPC);
	alloc_expect(&ida, 6, 8, -ENOSPC);
	state_take(&ida, &now);
	state_assert_same(&was, &now, "-ENOSPC");
	state_free(&now);
	state_free(&was);
	verify(&ida);
	alloc_expect(&ida, 5, 10, 10);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 0);
	alloc_expect(&ida, 4, 100, 4);
	free_run(&ida, 4, 7);
	ida_free(&ida, 0);
	finish(&ida);
}

Test(ida, ranges_straddling_bitmap_boundaries)
{
	/* The top of bitmap 0, then the range goes on into bitmap 1. */
	for (int id = 1000; id < 1024; id++)
		alloc_expect(&ida, 1000, 1030, id);
	alloc_expect(&ida, 1000, 1030, 1024);
	alloc_expect(&ida, 1023, 1025, 1025);
	alloc_expect(&ida, 1023, 1025, -ENOSPC);
	verify(&ida);
	/* Fill bitmap 0 completely: it is no longer free. */
	alloc_run(&ida, 0, 1000);
	alloc_expect(&ida, 0, 5000, 1026);
	alloc_expect(&ida, 1023, 1026, -ENOSPC);
	verify(&ida);
	/* From the middle of bitmap 1 over four bitmaps: bitmap 1's first
	 * free id in the range. */
	alloc_expect(&ida, 1500, 4100, 1500);
	/* The rest of bitmap 1 from 1501, then on into bitmap 2. */
	alloc_expect(&ida, 1500, 2100, 1501);
	for (int id = 1502; id < 2048; id++)
		alloc_expect(&ida, 1500, 2100, id);
	alloc_expect(&ida, 1500, 2100, 2048);
	/* Bitmap 1's free ids, 1027..1499, lie below the range and bitmap
	 * 2's, 2049.., above it. */
	alloc_expect(&ida, 1500, 2048, -ENOSPC);
	alloc_expect(&ida, 1400, 3000, 1400);
	verify(&ida);
	/* Freed at the very end of bitmap 0: the lowest again, whatever
	 * the range's start in bitmap 0 below it. */
	ida_free(&ida, 1023);
	alloc_expect(&ida, 5, 1030, 1023);
	/* A range from full bitmap 0 to the end of bitmap 1. */
	alloc_expect(&ida, 1401, 1401, 1401);
	alloc_expect(&ida, 1400, 2047, 1402);
	verify(&ida);

	for (unsigned int id = 0; id <= 2048; id++) {
		if ((id >= 1027 && id < 1400) || (id > 1402 && id < 1500))
			continue;
		ida_free(&ida, id);
	}
	finish(&ida);
}

/*
 * A range inside one bitmap whose free ids all lie outside it, below or
 * above: -ENOSPC, without a new bitmap, and nothing changes.  The same for
 * a range over two bitmaps whose free ids lie beyond both of its ends.
 */
Test(ida, ranges_whose_bitmaps_have_free_ids_only_outside_them)
{
	struct ida_state was, now;

	alloc_run(&ida, 0, 100);        /* 0..99 */
	ida_free(&ida, 50);
	/* Bitmap 3 (3072..4095): its middle taken. */
	for (unsigned int id = 3500; id < 3600; id++)
		alloc_expect(&ida, 3500, 3599, (int)id);
	/* Bitmap 1: all but its first and last id. */
	for (unsigned int id = 1025; id < 2047; id++)
		alloc_expect(&ida, 1025, 2046, (int)id);
	verify(&ida);

	state_take(&ida, &was);
	alloc_expect(&ida, 60, 99, -ENOSPC);     /* free: 50 below, 100.. above */
	alloc_expect(&ida, 0, 49, -ENOSPC);
	alloc_expect(&ida, 51, 99, -ENOSPC);
	alloc_expect(&ida, 3500, 3599, -ENOSPC); /* free ids both sides */
	alloc_expect(&ida, 3550, 3550, -ENOSPC);
	alloc_expect(&ida, 1025, 2046, -ENOSPC); /* free: 1024 and 2047 */
	state_take(&ida, &now);
	state_assert_same(&was, &now, "-ENOSPC");
	state_free(&now);
	state_free(&was);
	verify(&ida);

	alloc_expect(&ida, 1025, 2047, 2047);
	/* Bitmap 1's only free id, 1024, below the range: the next bitmap. */
	alloc_expect(&ida, 1030, 2100, 2048);
	alloc_expect(&ida, 40, 60, 50);
	alloc_expect(&ida, 3599, 3700, 3600);
	alloc_expect(&ida, 3072, 3599, 3072);
	alloc_expect(&ida, 0, 1024, 100);
	cr_assert_eq(ida_alloc_min(&ida, 1024, GFP_KERNEL), 1024);
	verify(&ida);

	free_run(&ida, 0, 101);
	free_run(&ida, 1024, 1025);
	free_run(&ida, 3500, 101);
	ida_free(&ida, 3072);
	finish(&ida);
}

Test(ida, ids_near_int_max_and_clamped_maxima)
{
	const unsigned int top = INT_MAX;
	struct ida_state was, now;

	cr_assert_eq(ida_alloc_min(&ida, top, GFP_KERNEL), INT_MAX);
	cr_assert_eq(ida_alloc_min(&ida, top - 1, GFP_KERNEL), INT_MAX - 1);
	verify(&ida);
	/* Maxima above INT_MAX are INT_MAX. */
	alloc_expect(&ida, top - 5, UINT_MAX, INT_MAX - 5);
	alloc_expect(&ida, top - 3, top + 10U, INT_MAX - 3);
	alloc_expect(&ida, top - 2, 1U << 31, INT_MAX - 2);
	cr_assert_eq(ida_alloc_max(&ida, UINT_MAX, GFP_KERNEL), 0);

	state_take(&ida, &was);
	alloc_expect(&ida, top - 3, UINT_MAX, -ENOSPC);
	alloc_expect(&ida, top, top, -ENOSPC);
	cr_assert_eq(ida_alloc_min(&ida, top - 2, GFP_KERNEL), -ENOSPC);
	/* Minima above INT_MAX: no id can be given, whatever the maximum
	 * (the kernel's order: a negative min is -ENOSPC). */
	cr_assert_eq(ida_alloc_min(&ida, top + 1U, GFP_KERNEL), -ENOSPC);
	alloc_expect(&ida, top + 1U, UINT_MAX, -ENOSPC);
	alloc_expect(&ida, UINT_MAX, UINT_MAX, -ENOSPC);
	alloc_expect(&ida, 1U << 31, (1U << 31) + 1, -ENOSPC);
	alloc_expect(&ida, top + 1U, 5, -ENOSPC);
	/* min > max: -EINVAL. */
	alloc_expect(&ida, 5, 4, -EINVAL);
	alloc_expect(&ida, top, top - 1, -EINVAL);
	alloc_expect(&ida, 1, 0, -EINVAL);
	cr_assert_eq(ida_alloc_range(NULL, 0, 10, GFP_KERNEL), -EINVAL);
	cr_assert_eq(ida_alloc(NULL, GFP_KERNEL), -EINVAL);
	cr_assert_eq(ida_alloc_min(NULL, top + 1U, GFP_KERNEL), -EINVAL);
	state_take(&ida, &now);
	state_assert_same(&was, &now, "errors");
	state_free(&now);
	state_free(&was);

	alloc_expect(&ida, top - 5, UINT_MAX, INT_MAX - 4);
	/* The top of the bitmap below INT_MAX's, then on across into it. */
	alloc_expect(&ida, top - IDS_PER_BITMAP - 1, top - IDS_PER_BITMAP, INT_MAX - 1025);
	alloc_expect(&ida, top - IDS_PER_BITMAP, UINT_MAX, INT_MAX - 1024);
	alloc_expect(&ida, top - IDS_PER_BITMAP, UINT_MAX, INT_MAX - 1023);
	verify(&ida);

	ida_free(&ida, 0);
	for (unsigned int id = top - 1025; id != top + 1U; id++)
		if (id < top - 1022 || id > top - 6)
			ida_free(&ida, id);
	finish(&ida);
}

Test(ida, a_freed_id_is_the_lowest_again)
{
	alloc_run(&ida, 0, 3000);
	ida_free(&ida, 1500);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 1500);
	ida_free(&ida, 2999);
	ida_free(&ida, 5);
	ida_free(&ida, 1023);
	ida_free(&ida, 1024);
	verify(&ida);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 5);
	cr_assert_eq(ida_alloc_min(&ida, 6, GFP_KERNEL), 1023);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 1024);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 2999);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 3000);
	verify(&ida);
	free_run(&ida, 0, 3001);
	finish(&ida);
}

/* Freeing the last id of a bitmap gives its 128 bytes back at once (no
 * grace period: no reader ever loads a bitmap); the tree's nodes go when
 * their last bitmap does. */
Test(ida, freeing_the_last_id_of_a_bitmap_frees_the_bitmap)
{
	struct rcuradix_stats before, after;
	unsigned long nodes;

	alloc_run(&ida, 0, 2 * IDS_PER_BITMAP + 1);  /* bitmaps 0, 1 and 2 */
	nodes = tree_nodes(&ida);
	cr_assert_geq(nodes, 1);
	rcuradix_thread_cache_flush();
	before = stats();
	/* Bitmap 1 (same leaf as 0 and 2 in both builds) emptied but for
	 * its last id: nothing given back yet. */
	free_run(&ida, IDS_PER_BITMAP, IDS_PER_BITMAP - 1);
	after = stats();
	cr_assert_eq(after.bytes_live, before.bytes_live);
	cr_assert_eq(after.nodes_live, before.nodes_live);
	verify(&ida);
	ida_free(&ida, 2 * IDS_PER_BITMAP - 1);
	after = stats();
	cr_assert_eq(held_bytes(before) - held_bytes(after), BITMAP_BYTES,
		     "freeing bitmap 1's last id gave back %ld bytes",
		     (long)(held_bytes(before) - held_bytes(after)));
	cr_assert_eq(after.nodes_pending, before.nodes_pending);
	/* Given back to the allocator, or kept in this thread's reserve. */
	rcuradix_thread_cache_flush();
	cr_assert_eq(before.bytes_live - stats().bytes_live, BITMAP_BYTES);
	cr_assert_eq(before.nodes_live - stats().nodes_live, 1);
	cr_assert_eq(tree_nodes(&ida), nodes);
	cr_assert_null(radix_tree_lookup(&ida.ida_rt, 1));
	verify(&ida);
	/* Its ids are free: the lowest is bitmap 1's first, in a new one. */
	cr_assert_eq(ida_alloc_min(&ida, 1, GFP_KERNEL), (int)IDS_PER_BITMAP);
	cr_assert_eq(held_bytes(stats()), held_bytes(before));
	ida_free(&ida, IDS_PER_BITMAP);
	cr_assert_eq(held_bytes(stats()), held_bytes(after));

	/* Bitmap 2's only id: it goes too. */
	ida_free(&ida, 2 * IDS_PER_BITMAP);
	cr_assert_eq(held_bytes(after) - held_bytes(stats()), BITMAP_BYTES);
	verify(&ida);
	/* Bitmap 0's last id: the bitmap and, after a grace period, every
	 * node of the tree. */
	free_run(&ida, 1, IDS_PER_BITMAP - 1);
	cr_assert_not(ida_is_empty(&ida));
	ida_free(&ida, 0);
	cr_assert(ida_is_empty(&ida));
	cr_assert_eq(tree_nodes(&ida), 0);
	urcu_memb_barrier();
	cr_assert_eq(held_bytes(stats()), 0);
	finish(&ida);
}

/* ---- ida_free() misuse (children: the report is once per process) ---- */

#define NOT_ALLOCATED(id) \
	"rcuradix: ida_free: id " id " is not allocated (freed twice, or never handed out)\n"

/* Ids 0..99 and 1024..1030 allocated, then 3 freed: the parent's IDA, which
 * the children inherit. */
static void misuse_setup(void)
{
	alloc_run(&ida, 0, 100);
	cr_assert_eq(ida_alloc_min(&ida, IDS_PER_BITMAP, GFP_KERNEL), (int)IDS_PER_BITMAP);
	for (unsigned int id = IDS_PER_BITMAP + 1; id <= IDS_PER_BITMAP + 6; id++)
		cr_assert_eq(ida_alloc_min(&ida, IDS_PER_BITMAP, GFP_KERNEL), (int)id);
	ida_free(&ida, 3);
}

static const unsigned int misuse_ids[] = {
	3,                          /* freed already */
	500,                        /* never allocated, in an existing bitmap */
	IDS_PER_BITMAP + 7,         /* the same, in the last bitmap */
	5000,                       /* no bitmap there */
	1U << 30,                   /* beyond the tree's top */
	(unsigned int)INT_MAX,
	(unsigned int)INT_MAX + 1U, /* no id can be that */
	UINT_MAX,
};
#define NR_MISUSE_IDS (sizeof(misuse_ids) / sizeof(misuse_ids[0]))

static void child_dump(struct ida_dump *d)
{
	void **slots[16];
	unsigned long idx[16];
	unsigned int n;

	/* No Criterion assertions in a child: a fixed-size copy. */
	radix_tree_lock(&ida.ida_rt);
	n = radix_tree_gang_lookup_slot(&ida.ida_rt, slots, idx, 0, 16);
	for (unsigned int i = 0; i < n && i < d->cap; i++) {
		d->keys[i] = idx[i];
		memcpy(&d->maps[i], rcu_dereference(*slots[i]), BITMAP_BYTES);
	}
	radix_tree_unlock(&ida.ida_rt);
	d->n = n;
}

/* Free misuse_ids[*arg] twice, then every other bad id: one line in all.
 * Then nothing has changed: the same bitmaps, the same memory, and the
 * next ids are 3, 100 and 1031. */
static int misuse_child(void *arg)
{
	unsigned int first = *(const unsigned int *)arg;
	unsigned long keys_was[16], keys_now[16];
	struct rt_ida_bitmap maps_was[16], maps_now[16];
	struct ida_dump was = { 0, 16, keys_was, maps_was }, now = { 0, 16, keys_now, maps_now };
	struct rcuradix_stats st_was, st_now;

	child_dump(&was);
	T_CHILD_CHECK(rcuradix_get_stats(&st_was, sizeof(st_was)) == 0);
	ida_free(&ida, misuse_ids[first]);
	ida_free(&ida, misuse_ids[first]);
	for (unsigned int i = 0; i < NR_MISUSE_IDS; i++)
		ida_free(&ida, misuse_ids[i]);
	ida_free(NULL, 0);
	ida_free(NULL, 3);
	T_CHILD_CHECK(rcuradix_get_stats(&st_now, sizeof(st_now)) == 0);
	T_CHILD_CHECK(st_now.bytes_live == st_was.bytes_live);
	T_CHILD_CHECK(st_now.nodes_live == st_was.nodes_live);
	child_dump(&now);
	T_CHILD_CHECK(was.n == 2 && now.n == was.n);
	for (size_t i = 0; i < was.n; i++) {
		T_CHILD_CHECK(keys_now[i] == keys_was[i]);
		T_CHILD_CHECK(memcmp(&maps_now[i], &maps_was[i], BITMAP_BYTES) == 0);
	}
	T_CHILD_CHECK(radix_tree_verify(&ida.ida_rt) == 0);
	T_CHILD_CHECK(ida_alloc(&ida, GFP_KERNEL) == 3);
	T_CHILD_CHECK(ida_alloc(&ida, GFP_KERNEL) == 100);
	T_CHILD_CHECK(ida_alloc_min(&ida, IDS_PER_BITMAP, GFP_KERNEL) == (int)IDS_PER_BITMAP + 7);
	return 0;
}

/* Freeing from the NULL IDA is ignored without a word. */
static int null_free_child(void *arg)
{
	(void)arg;
	ida_free(NULL, 0);
	ida_free(NULL, UINT_MAX);
	ida_destroy(NULL);
	return 0;
}

Test(ida, freeing_an_id_not_allocated_is_reported_once_and_changes_nothing)
{
	static const char *const lines[NR_MISUSE_IDS] = {
		NOT_ALLOCATED("3"),          NOT_ALLOCATED("500"),
		NOT_ALLOCATED("1031"),       NOT_ALLOCATED("5000"),
		NOT_ALLOCATED("1073741824"), NOT_ALLOCATED("2147483647"),
		NOT_ALLOCATED("2147483648"), NOT_ALLOCATED("4294967295"),
	};
	unsigned int i;

	misuse_setup();
	verify(&ida);
	for (i = 0; i < NR_MISUSE_IDS; i++)
		t_assert_lives(misuse_child, &i, lines[i]);
	t_assert_lives(null_free_child, NULL, "");
	/* The parent's IDA: untouched by the children. */
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 3);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 100);
	free_run(&ida, 0, 101);
	free_run(&ida, IDS_PER_BITMAP, 7);
	finish(&ida);
}

/* A struct ida not initialised, or a plain tree's root in one: -EINVAL,
 * reported once, nothing allocated. */
static int not_an_ida_child(void *arg)
{
	struct ida plain;
	struct rcuradix_stats before, after;

	(void)arg;
	INIT_RADIX_TREE(&plain.ida_rt, GFP_KERNEL);
	T_CHILD_CHECK(rcuradix_get_stats(&before, sizeof(before)) == 0);
	T_CHILD_CHECK(ida_alloc(&plain, GFP_KERNEL) == -EINVAL);
	T_CHILD_CHECK(ida_alloc_range(&plain, 5, 9, GFP_KERNEL) == -EINVAL);
	ida_free(&plain, 0);
	ida_destroy(&plain);
	T_CHILD_CHECK(rcuradix_get_stats(&after, sizeof(after)) == 0);
	T_CHILD_CHECK(after.nodes_allocated == before.nodes_allocated);
	T_CHILD_CHECK(radix_tree_empty(&plain.ida_rt));
	return 0;
}

static int uninitialised_child(void *arg)
{
	struct ida zero;

	(void)arg;
	memset(&zero, 0, sizeof(zero));
	T_CHILD_CHECK(ida_alloc(&zero, GFP_KERNEL) == -EINVAL);
	T_CHILD_CHECK(ida_alloc_max(&zero, 10, GFP_KERNEL) == -EINVAL);
	ida_free(&zero, 0);
	T_CHILD_CHECK(ida_is_empty(&zero));
	return 0;
}

Test(ida, a_plain_tree_or_uninitialised_memory_is_refused)
{
	t_assert_lives(not_an_ida_child, NULL,
		       "rcuradix: ida_alloc_range: not an IDA (initialise it with ida_init() or "
		       "DEFINE_IDA())\n");
	t_assert_lives(uninitialised_child, NULL,
		       "rcuradix: ida_alloc_range: tree not initialised (RADIX_TREE(), "
		       "INIT_RADIX_TREE() or radix_tree_init_flavor())\n");
	finish(&ida);
}

Test(ida, ida_is_empty_follows_the_allocations)
{
	cr_assert(ida_is_empty(&ida));
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 0);
	cr_assert_not(ida_is_empty(&ida));
	cr_assert_eq(ida_alloc_min(&ida, 1U << 20, GFP_KERNEL), 1 << 20);
	ida_free(&ida, 0);
	cr_assert_not(ida_is_empty(&ida));
	/* A failed call on an empty IDA leaves it empty. */
	ida_free(&ida, 1U << 20);
	cr_assert(ida_is_empty(&ida));
	alloc_expect(&ida, 7, 6, -EINVAL);
	cr_assert(ida_is_empty(&ida));
	rcuradix_thread_cache_flush();
	rt_fault_fail_all(true);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), -ENOMEM);
	rt_fault_fail_all(false);
	cr_assert(ida_is_empty(&ida));
	finish(&ida);
}

/*
 * An IDA whose ids were all freed owns no memory, as the kernel's does:
 * ida_destroy() is not needed before its memory is freed or reused.  Ids
 * in dense runs, scattered over the range and at its top are freed one by
 * one in a random order; then, with no destroy, every bitmap and node has
 * been handed back, and the struct is initialised again in place.
 */
Test(ida, an_ida_emptied_id_by_id_owns_no_memory)
{
	static unsigned int ids[4096];
	struct t_rng rng;
	unsigned int n = 0;

	t_rng_init(&rng, "ida emptied id by id");
	alloc_run(&ida, 0, 2 * IDS_PER_BITMAP + 3);
	for (; n < 2 * IDS_PER_BITMAP + 3; n++)
		ids[n] = n;
	alloc_expect(&ida, INT_MAX, UINT_MAX, INT_MAX);
	ids[n++] = INT_MAX;
	while (n < sizeof(ids) / sizeof(ids[0])) {
		unsigned int min = (unsigned int)t_rand_below(&rng, 1U << 26);
		int id = ida_alloc_min(&ida, min, GFP_KERNEL);

		cr_assert_geq(id, (int)min);
		ids[n++] = (unsigned int)id;
	}
	verify(&ida);
	for (unsigned int left = n; left > 0; left--) {
		unsigned int pick = (unsigned int)t_rand_below(&rng, left);
		unsigned int id = ids[pick];

		/* Freed, it is free: the lowest id at or above it. */
		ida_free(&ida, id);
		cr_assert_eq(ida_alloc_range(&ida, id, id, GFP_KERNEL), (int)id);
		ida_free(&ida, id);
		ids[pick] = ids[left - 1];
		if (left % 256 == 0)
			verify(&ida);
	}
	cr_assert(ida_is_empty(&ida));
	/* No ida_destroy(). */
	t_assert_emptied_owns_nothing(&ida.ida_rt, "IDA");
	ida_init(&ida);
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 0);
	ida_free(&ida, 0);
	finish(&ida);
}

Test(ida, ida_destroy_frees_everything_and_the_ida_is_reusable)
{
	static const unsigned int scattered[] = {
		1U << 20, (1U << 20) + 1, 1U << 25, (unsigned int)INT_MAX, (unsigned int)INT_MAX - 1024,
	};

	for (int round = 0; round < 2; round++) {
		alloc_run(&ida, 0, 5000);
		for (unsigned int i = 0; i < sizeof(scattered) / sizeof(scattered[0]); i++)
			alloc_expect(&ida, scattered[i], UINT_MAX, (int)scattered[i]);
		verify(&ida);
		cr_assert_gt(stats().nodes_live, 0);
		ida_destroy(&ida);
		cr_assert(ida_is_empty(&ida));
		verify(&ida);
		urcu_memb_barrier();
		rcuradix_thread_cache_flush();
		t_assert_no_nodes();
		/* Reusable at once, from 0 again. */
		cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 0);
		cr_assert_eq(ida_alloc_min(&ida, INT_MAX, GFP_KERNEL), INT_MAX);
		verify(&ida);
		ida_free(&ida, 0);
		ida_free(&ida, INT_MAX);
	}
	/* Destroying an empty IDA, and the NULL one, does nothing. */
	ida_destroy(&ida);
	ida_destroy(NULL);
	cr_assert(ida_is_empty(&ida));
	cr_assert_eq(ida_alloc(&ida, GFP_KERNEL), 0);
	ida_free(&ida, 0);
	finish(&ida);
}

/* ---- the root item -------------------------------------------------------- */

/* What the readers of @a's tree say when it holds key 0's bitmap @bitmap
 * and nothing else. */
static void root_item_readers_check(struct ida *a, void *bitmap)
{
	const struct radix_tree_root *rt = &a->ida_rt;
	struct radix_tree_iter iter;
	void *res[4], **slots[4], **slot;
	unsigned long idx[4], key = ULONG_MAX, seen = 0;

	urcu_memb_read_lock();
	cr_assert_eq(radix_tree_lookup(rt, 0), bitmap);
	cr_assert_null(radix_tree_lookup(rt, 1));
	cr_assert_null(radix_tree_lookup(rt, RT_MAP_SIZE));
	cr_assert_null(radix_tree_lookup(rt, ULONG_MAX));
	slot = radix_tree_lookup_slot(rt, 0);
	cr_assert(slot && *slot == bitmap);
	cr_assert_null(radix_tree_lookup_slot(rt, 1));
	cr_assert_not(radix_tree_empty(rt));
	cr_assert_eq(radix_tree_count(rt), 1);
	cr_assert_eq(radix_tree_count_range(rt, 0, ULONG_MAX), 1);
	cr_assert_eq(radix_tree_count_range(rt, 0, 0), 1);
	cr_assert_eq(radix_tree_count_range(rt, 1, ULONG_MAX), 0);
	cr_assert_eq(radix_tree_next_hole(rt, 0, 5), 1);
	cr_assert_eq(radix_tree_next_hole(rt, 0, 1), 1);  /* all present: index + max_scan */
	cr_assert_eq(radix_tree_next_hole(rt, 1, 5), 1);
	cr_assert_eq(radix_tree_prev_hole(rt, 0, 5), ULONG_MAX);
	cr_assert_eq(radix_tree_prev_hole(rt, 3, 5), 3);
	cr_assert_eq(radix_tree_gang_lookup(rt, res, 0, 4), 1);
	cr_assert_eq(res[0], bitmap);
	cr_assert_eq(radix_tree_gang_lookup(rt, res, 1, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup_slot(rt, slots, idx, 0, 4), 1);
	cr_assert(idx[0] == 0 && *slots[0] == bitmap);
	cr_assert_eq(radix_tree_lookup_le(rt, &key), bitmap);
	cr_assert_eq(key, 0);
	cr_assert_eq(radix_tree_gang_lookup_reverse(rt, res, idx, ULONG_MAX, 4), 1);
	cr_assert(res[0] == bitmap && idx[0] == 0);
	radix_tree_for_each_slot(slot, rt, &iter, 0) {
		cr_assert_eq(iter.index, 0);
		cr_assert_eq(*slot, bitmap);
		seen++;
	}
	cr_assert_eq(seen, 1);
	radix_tree_for_each_slot(slot, rt, &iter, 1)
		cr_assert_fail("key %lu found past the root item", iter.index);
	urcu_memb_read_unlock();
}

/* The level of the top node of a tree that holds key @key. */
static unsigned long levels_for(unsigned long key)
{
	unsigned int bits = key ? RT_BITS_PER_LONG - (unsigned int)__builtin_clzl(key) : 1;

	return (bits + RT_MAP_SHIFT - 1) / RT_MAP_SHIFT - 1;
}

/*
 * An IDA whose only bitmap is key 0's holds it in the root, with no node:
 * its first id costs a bitmap, and an IDA going from no id to one and
 * back allocates no node.  Every reader of the tree finds key 0 there and
 * no other key.  A second bitmap puts both in a leaf (the same bitmap
 * block, moved); the leaf stays when the second goes; a far id grows the
 * tree from the root item by several levels at once.
 */
Test(ida, a_lone_first_bitmap_is_held_in_the_root)
{
	struct rcuradix_stats before;
	unsigned long far_key = (1UL << 30) / IDS_PER_BITMAP;
	void *bitmap;

	rcuradix_thread_cache_flush();
	before = stats();
	alloc_expect(&ida, 0, UINT_MAX, 0);
	cr_assert_eq(tree_nodes(&ida), 0);
	cr_assert_eq(held_bytes(stats()) - held_bytes(before), BITMAP_BYTES);
	verify(&ida);
	bitmap = radix_tree_lookup(&ida.ida_rt, 0);
	cr_assert_not_null(bitmap);
	root_item_readers_check(&ida, bitmap);
	/* Free while it has a clear id: tag 0 (IDR_FREE) says so. */
	cr_assert_eq(radix_tree_tag_get(&ida.ida_rt, 0, 0), 1);
	cr_assert_eq(radix_tree_tagged(&ida.ida_rt, 0), 1);
	alloc_run(&ida, 1, IDS_PER_BITMAP - 1);
	cr_assert_eq(radix_tree_tag_get(&ida.ida_rt, 0, 0), 0);
	cr_assert_eq(radix_tree_tagged(&ida.ida_rt, 0), 0);
	cr_assert_eq(tree_nodes(&ida), 0);
	verify(&ida);
	root_item_readers_check(&ida, bitmap);
	ida_free(&ida, 7);
	cr_assert_eq(radix_tree_tag_get(&ida.ida_rt, 0, 0), 1);
	alloc_expect(&ida, 0, UINT_MAX, 7);
	verify(&ida);

	/* A second bitmap: one leaf for both; the first is the same block. */
	alloc_expect(&ida, 0, UINT_MAX, (int)IDS_PER_BITMAP);
	cr_assert_eq(tree_nodes(&ida), 1);
	verify(&ida);
	cr_assert_eq(radix_tree_lookup(&ida.ida_rt, 0), bitmap);
	cr_assert_not_null(radix_tree_lookup(&ida.ida_rt, 1));
	cr_assert_eq(radix_tree_count_range(&ida.ida_rt, 0, ULONG_MAX), 2);
	ida_free(&ida, IDS_PER_BITMAP);
	cr_assert_eq(tree_nodes(&ida), 1, "a leaf holding key 0 alone stays a leaf");
	verify(&ida);
	free_run(&ida, 0, IDS_PER_BITMAP);
	cr_assert(ida_is_empty(&ida));
	cr_assert_eq(tree_nodes(&ida), 0);
	verify(&ida);

	/* From the root item up to a far key in one insert, and back. */
	alloc_expect(&ida, 0, UINT_MAX, 0);
	bitmap = radix_tree_lookup(&ida.ida_rt, 0);
	alloc_expect(&ida, 1U << 30, UINT_MAX, 1 << 30);
	cr_assert_eq(tree_nodes(&ida), 2 * levels_for(far_key) + 1);
	verify(&ida);
	cr_assert_eq(radix_tree_lookup(&ida.ida_rt, 0), bitmap);
	cr_assert_eq(radix_tree_count_range(&ida.ida_rt, 0, ULONG_MAX), 2);
	cr_assert_eq(radix_tree_next_hole(&ida.ida_rt, 0, 5), 1);
	alloc_expect(&ida, 0, UINT_MAX, 1);
	ida_free(&ida, 1U << 30);
	cr_assert_eq(tree_nodes(&ida), 1);
	verify(&ida);
	ida_free(&ida, 0);
	ida_free(&ida, 1);
	cr_assert_eq(tree_nodes(&ida), 0);

	/* From a full root item (its slot taken, the root's bit clear): to
	 * a leaf, and up to a far key; the new nodes' free words say key
	 * 0's slot is taken (verify checks every free word). */
	for (int far = 0; far < 2; far++) {
		unsigned int next = far ? 1U << 30 : IDS_PER_BITMAP;

		alloc_run(&ida, 0, IDS_PER_BITMAP);
		cr_assert_eq(tree_nodes(&ida), 0);
		cr_assert_eq(radix_tree_tag_get(&ida.ida_rt, 0, 0), 0);
		verify(&ida);
		alloc_expect(&ida, next, UINT_MAX, (int)next);
		cr_assert_eq(tree_nodes(&ida), 2 * levels_for(next / IDS_PER_BITMAP) + 1);
		verify(&ida);
		alloc_expect(&ida, 1, UINT_MAX, (int)IDS_PER_BITMAP + (far ? 0 : 1));
		ida_free(&ida, IDS_PER_BITMAP + (far ? 0 : 1));
		ida_free(&ida, next);
		free_run(&ida, 0, IDS_PER_BITMAP);
		cr_assert_eq(tree_nodes(&ida), 0);
	}

	/* No id to one and back: a bitmap each time, and no node. */
	rcuradix_thread_cache_flush();
	before = stats();
	for (unsigned int i = 0; i < 100; i++) {
		alloc_expect(&ida, 0, UINT_MAX, 0);
		ida_free(&ida, 0);
	}
	cr_assert_eq(stats().nodes_allocated - before.nodes_allocated, 100,
		     "100 pairs allocated %lu blocks", stats().nodes_allocated - before.nodes_allocated);
	cr_assert_eq(stats().bytes_allocated - before.bytes_allocated, 100 * BITMAP_BYTES,
		     "100 pairs allocated %lu bytes", stats().bytes_allocated - before.bytes_allocated);
	finish(&ida);
}

/*
 * Readers of an IDA's tree while a writer makes and unmakes the root
 * item: key 0's bitmap alone in the root, then with key 1's in a leaf,
 * then alone in that leaf, then nothing.  A reader that took the root's
 * slot as a chunk may load it after the tree grew, and find a node there:
 * the gang lookups look again from the root, so that no reader ever
 * returns a node for an item.  The readers check that every entry they
 * get is a bitmap block (node-aligned, not an internal entry), at keys 0
 * and 1 only; they never read a bitmap (freed at once, as every IDA's).
 *
 * Regression (hole scans of every IDR tree): a reader's free scan loaded
 * the top leaf; the writer deleted the leaf's last key, unpublished the
 * leaf and cleared the root's free bit (an empty tree's); the reader then
 * loaded that bit as the leaf's, took keys 0..63 for taken, and
 * radix_tree_next_hole(0, 4) answered 4 though keys 2 and 3 were never
 * present.  The same held after a shrink to a full child.
 */
#define RI_READERS 2

enum ri_check { RI_GANG, RI_REVERSE, RI_LOOKUP, RI_LE, RI_HOLE, RI_COUNT, RI_CHECKS };
static const char *const ri_check_names[RI_CHECKS] = {
	"gang lookup", "reverse gang lookup", "lookup", "lookup_le", "next_hole", "count_range",
};

static struct ida ri_ida;
static int ri_stop;

struct ri_arg {
	unsigned long iterations, singles;
	unsigned long bad[RI_CHECKS];
};

static bool ri_entry_ok(const void *e)
{
	return e && !((uintptr_t)e & (RT_NODE_ALIGN - 1));
}

static void *ri_reader(void *p)
{
	struct ri_arg *a = p;
	const struct radix_tree_root *rt = &ri_ida.ida_rt;

	urcu_memb_register_thread();
	while (!__atomic_load_n(&ri_stop, __ATOMIC_ACQUIRE)) {
		void *res[4], *e;
		unsigned long idx[4], key = ULONG_MAX;
		unsigned int n;

		urcu_memb_read_lock();
		n = radix_tree_gang_lookup(rt, res, 0, 4);
		a->bad[RI_GANG] += n > 2;
		for (unsigned int i = 0; i < n; i++)
			a->bad[RI_GANG] += !ri_entry_ok(res[i]);
		if (n == 1)
			__atomic_fetch_add(&a->singles, 1, __ATOMIC_RELAXED);
		n = radix_tree_gang_lookup_reverse(rt, res, idx, ULONG_MAX, 4);
		for (unsigned int i = 0; i < n; i++)
			a->bad[RI_REVERSE] += !ri_entry_ok(res[i]) || idx[i] > 1;
		e = radix_tree_lookup(rt, 0);
		a->bad[RI_LOOKUP] += e && !ri_entry_ok(e);
		e = radix_tree_lookup_le(rt, &key);
		a->bad[RI_LE] += e && (!ri_entry_ok(e) || key > 1);
		a->bad[RI_HOLE] += radix_tree_next_hole(rt, 0, 4) > 2;
		a->bad[RI_COUNT] += radix_tree_count_range(rt, 0, ULONG_MAX) > 2;
		urcu_memb_read_unlock();
		__atomic_fetch_add(&a->iterations, 1, __ATOMIC_RELAXED);
	}
	urcu_memb_unregister_thread();
	return NULL;
}

Test(ida, readers_meet_the_root_item_made_and_moved, .timeout = 120)
{
	static struct ri_arg args[RI_READERS];
	pthread_t threads[RI_READERS];
	unsigned long ops = 0, min_iterations = t_scaled(20000);

	ida_init(&ri_ida);
	__atomic_store_n(&ri_stop, 0, __ATOMIC_RELAXED);
	for (unsigned int t = 0; t < RI_READERS; t++) {
		memset(&args[t], 0, sizeof(args[t]));
		cr_assert_eq(pthread_create(&threads[t], NULL, ri_reader, &args[t]), 0);
	}
	for (;;) {
		bool enough = ops >= t_scaled(20000);

		/* Until every reader has also met key 0's bitmap alone. */
		for (unsigned int t = 0; t < RI_READERS; t++)
			enough = enough &&
				 __atomic_load_n(&args[t].iterations, __ATOMIC_RELAXED) >=
					 min_iterations &&
				 __atomic_load_n(&args[t].singles, __ATOMIC_RELAXED) > 0;
		/* However long a loaded machine keeps the readers waiting:
		 * the timeout stops a test whose readers never run. */
		if (enough)
			break;
		cr_assert_eq(ida_alloc(&ri_ida, GFP_KERNEL), 0);          /* the root item */
		cr_assert_eq(ida_alloc_min(&ri_ida, IDS_PER_BITMAP, GFP_KERNEL),
			     (int)IDS_PER_BITMAP);                        /* a leaf for both */
		ida_free(&ri_ida, IDS_PER_BITMAP);                        /* the leaf stays */
		ida_free(&ri_ida, 0);                                     /* empty */
		ops++;
	}
	__atomic_store_n(&ri_stop, 1, __ATOMIC_RELEASE);
	for (unsigned int t = 0; t < RI_READERS; t++) {
		cr_assert_eq(pthread_join(threads[t], NULL), 0);
		for (unsigned int c = 0; c < RI_CHECKS; c++)
			cr_assert_eq(args[t].bad[c], 0, "reader %u: %lu wrong answers from %s", t,
				     args[t].bad[c], ri_check_names[c]);
		cr_assert_geq(args[t].iterations, min_iterations, "reader %u ran %lu times", t,
			      args[t].iterations);
		cr_assert_gt(args[t].singles, 0, "reader %u never met key 0's bitmap alone", t);
	}
	cr_assert(ida_is_empty(&ri_ida));
	verify(&ri_ida);
	finish(&ri_ida);
}

/*
 * Regression: radix_tree_tag_get() of key 0 when the root item is the
 * tree's.  Its tag bits are the root's, and the writer stores those after
 * each top it publishes: a reader loaded the root item (key 0's bitmap,
 * full: its free bit clear), the writer grew the tree to a leaf for id
 * 1024 and set the root's free bit for the leaf, and the reader returned
 * that bit as key 0's: "free" for a bitmap full all along (one call in
 * 1,000 to 3,000 here).  A reader now keeps the root's bits only if the
 * item is still the root's after them; so does a tagged walk, which reads
 * the same bits.  The writer's phases: key 0's bitmap full
 * in the root, then grown into a leaf and back to that leaf alone, key 0
 * full throughout (odd phase numbers), then emptied.
 */
static struct ida tg_ida;
static unsigned long tg_phase;  /* odd: key 0's bitmap is full throughout */
static int tg_stop, tg_waiting;

struct tg_arg {
	unsigned long checks, bad;
};

static void *tg_reader(void *p)
{
	struct tg_arg *a = p;

	urcu_memb_register_thread();
	while (!__atomic_load_n(&tg_stop, __ATOMIC_ACQUIRE)) {
		unsigned long before = __atomic_load_n(&tg_phase, __ATOMIC_ACQUIRE), after;
		int free;
		struct radix_tree_iter iter;
		void **slot;

		urcu_memb_read_lock();
		free = radix_tree_tag_get(&tg_ida.ida_rt, 0, 0);
		/* A tagged walk reads the same bits. */
		radix_tree_iter_init(&iter, 0);
		slot = radix_tree_next_chunk(&tg_ida.ida_rt, &iter, RADIX_TREE_ITER_TAGGED | 0);
		urcu_memb_read_unlock();
		after = __atomic_load_n(&tg_phase, __ATOMIC_ACQUIRE);
		if ((before & 1) && before == after) {
			/* Atomic: the writer waits for it to move. */
			__atomic_fetch_add(&a->checks, 1, __ATOMIC_RELAXED);
			a->bad += free != 0;
			a->bad += slot && iter.index == 0;
			/* The writer waits for this check: on a CPU the two
			 * share, it would wait out the reader's time slice. */
			if (__atomic_load_n(&tg_waiting, __ATOMIC_RELAXED))
				sched_yield();
		}
	}
	urcu_memb_unregister_thread();
	return NULL;
}

Test(ida, tag_get_of_the_root_item_while_the_tree_grows, .timeout = 120)
{
	struct tg_arg arg = { 0, 0 };
	unsigned long rounds = t_scaled(3000);
	pthread_t reader;

	ida_init(&tg_ida);
	cr_assert_eq(pthread_create(&reader, NULL, tg_reader, &arg), 0);
	for (unsigned long round = 0; round < rounds; round++) {
		for (unsigned int i = 0; i < IDS_PER_BITMAP; i++)
			cr_assert_eq(ida_alloc(&tg_ida, GFP_KERNEL), (int)i);
		unsigned long checked = __atomic_load_n(&arg.checks, __ATOMIC_RELAXED);

		__atomic_fetch_add(&tg_phase, 1, __ATOMIC_RELEASE);  /* odd */
		/* Grow and shrink, and go on until the reader has checked a
		 * call made within this phase: a loaded machine may not run
		 * it at all while a short phase lasts. */
		for (int k = 0; k < 8 || __atomic_load_n(&arg.checks, __ATOMIC_RELAXED) == checked;
		     k++) {
			cr_assert_eq(ida_alloc(&tg_ida, GFP_KERNEL), (int)IDS_PER_BITMAP);
			ida_free(&tg_ida, IDS_PER_BITMAP);
			if (k >= 8) {
				/* Still growing and shrinking between turns. */
				__atomic_store_n(&tg_waiting, 1, __ATOMIC_RELAXED);
				sched_yield();
			}
		}
		__atomic_store_n(&tg_waiting, 0, __ATOMIC_RELAXED);
		__atomic_fetch_add(&tg_phase, 1, __ATOMIC_RELEASE);  /* even */
		free_run(&tg_ida, 0, IDS_PER_BITMAP);
	}
	__atomic_store_n(&tg_stop, 1, __ATOMIC_RELEASE);
	cr_assert_eq(pthread_join(reader, NULL), 0);
	cr_assert_eq(arg.bad, 0, "%lu of %lu rounds of calls said key 0's full bitmap was free",
		     arg.bad, arg.checks);
	cr_assert_geq(arg.checks, rounds);
	finish(&tg_ida);
}

/*
 * Regression: radix_tree_tag_get() went on for ever once the tree it read
 * was empty.  The reader met the root item and loaded the root's bits; the
 * writer deleted the item, leaving the tree empty; the reader, seeing the
 * item gone, looked again, found no slot, and kept the item of its first
 * look, so it took the root's bits for that item's again and again while
 * the tree stayed empty.  Here the writer makes the root item and keeps it
 * until the reader has met it, empties the tree, then waits until the
 * reader has finished a call begun after that: a reader caught so never
 * finishes, and the test times out.
 */
static struct ida te_ida;
static int te_stop, te_waiting;

struct te_arg {
	unsigned long calls, met;  /* atomic: the writer waits on them */
};

static void *te_reader(void *p)
{
	struct te_arg *a = p;

	urcu_memb_register_thread();
	while (!__atomic_load_n(&te_stop, __ATOMIC_ACQUIRE)) {
		int free;

		urcu_memb_read_lock();
		/* Key 0's bitmap holds id 0 alone: free, when it is there. */
		free = radix_tree_tag_get(&te_ida.ida_rt, 0, 0);
		urcu_memb_read_unlock();
		if (free)
			__atomic_fetch_add(&a->met, 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&a->calls, 1, __ATOMIC_RELEASE);
		/* The writer waits for this call: on a CPU the two share, it
		 * would wait out the reader's time slice. */
		if (__atomic_load_n(&te_waiting, __ATOMIC_RELAXED))
			sched_yield();
	}
	urcu_memb_unregister_thread();
	return NULL;
}

/* Wait until *@counter is at least @target: the reader moves it.  A
 * reader on another CPU does within a few calls; only then does the
 * writer ask it to yield, which would keep it out of tag_get() for a
 * while. */
static void te_wait(const unsigned long *counter, unsigned long target)
{
	for (unsigned int spin = 0; __atomic_load_n(counter, __ATOMIC_ACQUIRE) < target; spin++) {
		if (spin < 1000) {
			caa_cpu_relax();
			continue;
		}
		__atomic_store_n(&te_waiting, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
	__atomic_store_n(&te_waiting, 0, __ATOMIC_RELAXED);
}

Test(ida, tag_get_returns_when_the_root_item_leaves_the_tree_empty, .timeout = 120)
{
	struct te_arg arg = { 0, 0 };
	unsigned long cycles = t_scaled(10000);
	pthread_t reader;

	ida_init(&te_ida);
	cr_assert_eq(pthread_create(&reader, NULL, te_reader, &arg), 0);
	for (unsigned long c = 0; c < cycles; c++) {
		cr_assert_eq(ida_alloc(&te_ida, GFP_KERNEL), 0);  /* the root item */
		te_wait(&arg.met, __atomic_load_n(&arg.met, __ATOMIC_ACQUIRE) + 1);
		ida_free(&te_ida, 0);  /* empty */
		/* The call under way may have begun before the free. */
		te_wait(&arg.calls, __atomic_load_n(&arg.calls, __ATOMIC_ACQUIRE) + 2);
	}
	__atomic_store_n(&te_stop, 1, __ATOMIC_RELEASE);
	cr_assert_eq(pthread_join(reader, NULL), 0);
	cr_assert_geq(arg.met, cycles);
	cr_assert(ida_is_empty(&te_ida));
	finish(&te_ida);
}

/* ---- several threads on one IDA ---------------------------------------- */

/*
 * Threads allocate and free ids of one IDA at once, below a maximum that
 * allows three bitmaps, more than they ever hold together.  Each id a
 * thread gets is marked in a shared bitmap of owned ids, with an
 * atomic test-and-set that must find it clear: an id handed out twice at
 * once fails there.  A thread unmarks an id before it frees it.  After
 * the join, the IDA's bitmaps must be exactly the marks.
 */
#define MT_THREADS 3
#define MT_WINDOW (3 * IDS_PER_BITMAP)
#define MT_HELD 1000  /* each; MT_THREADS * MT_HELD < MT_WINDOW */

static unsigned long mt_owned[MT_WINDOW / RT_BITS_PER_LONG];
static pthread_barrier_t mt_start;  /* so that the threads overlap */

/* Mark id @id owned (@own) or not; false if it already was (was not). */
static bool mt_mark(int id, bool own)
{
	unsigned long bit = 1UL << (id % RT_BITS_PER_LONG), old;
	unsigned long *word = &mt_owned[id / RT_BITS_PER_LONG];

	/* Atomic: the threads mark words of one array at once. */
	if (own)
		old = __atomic_fetch_or(word, bit, __ATOMIC_RELAXED);
	else
		old = __atomic_fetch_and(word, ~bit, __ATOMIC_RELAXED);
	return ((old & bit) != 0) != own;
}

struct mt_arg {
	unsigned int index;
	unsigned long dup, bad, allocated;
	unsigned int n;  /* ids held at the end: held[0..n) */
	int held[MT_HELD];
};

static void *mt_thread(void *p)
{
	struct mt_arg *a = p;
	char what[32];
	struct t_rng rng;
	unsigned int n = 0;

	snprintf(what, sizeof(what), "ida threads, thread %u", a->index);
	t_rng_init(&rng, what);
	urcu_memb_register_thread();
	pthread_barrier_wait(&mt_start);
	/* At every test scale, enough that the window's ids are handed out
	 * again (the test asserts it): about half the operations allocate. */
	unsigned long ops = t_scaled(40000) > 8 * MT_WINDOW ? t_scaled(40000) : 8 * MT_WINDOW;

	for (unsigned long op = ops; op > 0; op--) {
		if (n < MT_HELD && (n == 0 || t_rand_below(&rng, 2))) {
			int id = ida_alloc_max(&ida, MT_WINDOW - 1, GFP_KERNEL);

			if (id < 0 || id >= (int)MT_WINDOW) {
				a->bad++;
				continue;
			}
			a->dup += !mt_mark(id, true);
			a->held[n++] = id;
			a->allocated++;
		} else {
			unsigned int i = (unsigned int)t_rand_below(&rng, n);
			int id = a->held[i];

			a->held[i] = a->held[--n];
			mt_mark(id, false);
			ida_free(&ida, (unsigned int)id);
		}
	}
	/* Half the threads keep what they hold, for the check after the
	 * join. */
	while (a->index % 2 && n > 0) {
		mt_mark(a->held[--n], false);
		ida_free(&ida, (unsigned int)a->held[n]);
	}
	a->n = n;
	urcu_memb_unregister_thread();
	return NULL;
}

/* The IDA's bitmaps are the owned marks, word for word. */
static void mt_compare(void)
{
	struct ida_dump d = { 0, 0, NULL, NULL };

	dump_take(&ida, &d);
	for (size_t i = 0; i < d.n; i++) {
		cr_assert_lt(d.keys[i], MT_WINDOW / IDS_PER_BITMAP, "a bitmap past the window");
		for (unsigned int j = 0; j < RT_IDA_WORDS; j++)
			cr_assert_eq(d.maps[i].words[j],
				     mt_owned[d.keys[i] * RT_IDA_WORDS + j],
				     "ids %lu..: word %u is %#lx, the marks' %#lx",
				     d.keys[i] * IDS_PER_BITMAP, j, d.maps[i].words[j],
				     mt_owned[d.keys[i] * RT_IDA_WORDS + j]);
	}
	for (size_t w = 0; w < MT_WINDOW / RT_BITS_PER_LONG; w++) {
		bool in_tree = false;

		for (size_t i = 0; i < d.n; i++)
			in_tree |= d.keys[i] == w / RT_IDA_WORDS;
		cr_assert(in_tree || !mt_owned[w], "ids %zu.. owned, with no bitmap",
			  w * RT_BITS_PER_LONG);
	}
	dump_free(&d);
}

Test(ida, threads_allocating_and_freeing_at_once_never_share_an_id, .timeout = 120)
{
	static struct mt_arg args[MT_THREADS];
	pthread_t threads[MT_THREADS];
	unsigned long allocated = 0;

	memset(mt_owned, 0, sizeof(mt_owned));
	cr_assert_eq(pthread_barrier_init(&mt_start, NULL, MT_THREADS), 0);
	for (unsigned int t = 0; t < MT_THREADS; t++) {
		memset(&args[t], 0, sizeof(args[t]));
		args[t].index = t;
		cr_assert_eq(pthread_create(&threads[t], NULL, mt_thread, &args[t]), 0);
	}
	for (unsigned int t = 0; t < MT_THREADS; t++) {
		cr_assert_eq(pthread_join(threads[t], NULL), 0);
		cr_assert_eq(args[t].dup, 0, "thread %u got %lu ids another thread held", t,
			     args[t].dup);
		cr_assert_eq(args[t].bad, 0, "thread %u got %lu ids outside the window", t,
			     args[t].bad);
		allocated += args[t].allocated;
	}
	pthread_barrier_destroy(&mt_start);
	cr_assert_gt(allocated, MT_WINDOW, "ids were freed and handed out again");
	verify(&ida);
	mt_compare();
	cr_assert_gt(args[0].n, 0, "a thread that keeps its ids holds some");
	for (unsigned int t = 0; t < MT_THREADS; t++)
		for (unsigned int i = 0; i < args[t].n; i++)
			ida_free(&ida, (unsigned int)args[t].held[i]);
	finish(&ida);
}

/* ---- differential test ------------------------------------------------ */

/* The model: every id below MODEL_LOW, and the MODEL_HIGH_IDS ids up to
 * INT_MAX, one bit each; the test never lets an id outside them be
 * allocated.  Both windows start on a bitmap boundary. */
#define MODEL_LOW (1U << 17)
#define MODEL_HIGH_IDS 4096U
#define MODEL_HIGH_BASE ((unsigned int)INT_MAX - MODEL_HIGH_IDS + 1U)
#define MODEL_WORD_BITS RT_BITS_PER_LONG

_Static_assert(MODEL_HIGH_BASE % IDS_PER_BITMAP == 0, "the high window starts a bitmap");

struct ida_model {
	unsigned long low[MODEL_LOW / MODEL_WORD_BITS];
	unsigned long high[MODEL_HIGH_IDS / MODEL_WORD_BITS];
	unsigned int *ids;  /* the allocated ids, in no order */
	unsigned int n;
};

/* The words of the window holding @id, and @id's offset in them. */
static unsigned long *model_words(struct ida_model *m, unsigned int id, unsigned int *bit)
{
	*bit = 0;
	if (id < MODEL_LOW) {
		*bit = id;
		return m->low;
	}
	if (id >= MODEL_HIGH_BASE && id <= (unsigned int)INT_MAX) {
		*bit = id - MODEL_HIGH_BASE;
		return m->high;
	}
	return NULL;
}

static bool model_test(struct ida_model *m, unsigned int id)
{
	unsigned int bit;
	unsigned long *w = model_words(m, id, &bit);

	return w && ((w[bit / MODEL_WORD_BITS] >> (bit % MODEL_WORD_BITS)) & 1UL);
}

static void model_set(struct ida_model *m, unsigned int id)
{
	unsigned int bit;
	unsigned long *w = model_words(m, id, &bit);

	cr_assert(w && !model_test(m, id), "model: %u out of its windows or taken", id);
	w[bit / MODEL_WORD_BITS] |= 1UL << (bit % MODEL_WORD_BITS);
	m->ids[m->n++] = id;
}

/* Free the allocated id at position @i of m->ids. */
static unsigned int model_clear_at(struct ida_model *m, unsigned int i)
{
	unsigned int id = m->ids[i], bit;
	unsigned long *w = model_words(m, id, &bit);

	w[bit / MODEL_WORD_BITS] &= ~(1UL << (bit % MODEL_WORD_BITS));
	m->ids[i] = m->ids[--m->n];
	return id;
}

/* The lowest free id in [@min, @max], both in one window; -1 if none. */
static long model_lowest(struct ida_model *m, unsigned int min, unsigned int max)
{
	unsigned int bit, last;
	unsigned long *w = model_words(m, min, &bit);

	last = bit + (max - min);
	while (bit <= last) {
		unsigned long clear = ~w[bit / MODEL_WORD_BITS] >> (bit % MODEL_WORD_BITS);

		if (clear) {
			bit += (unsigned int)__builtin_ctzl(clear);
			if (bit > last)
				return -1;
			return (long)bit + (w == m->low ? 0L : (long)MODEL_HIGH_BASE);
		}
		bit = (bit / MODEL_WORD_BITS + 1) * MODEL_WORD_BITS;
	}
	return -1;
}

/* Does the model hold an id of bitmap key @key (a key of the IDA's tree)? */
static bool model_key_present(const void *model, unsigned long key)
{
	struct ida_model *m = (struct ida_model *)model;
	unsigned int bit;
	unsigned long *w;

	if (key > (unsigned long)INT_MAX / IDS_PER_BITMAP)
		return false;
	w = model_words(m, (unsigned int)(key * IDS_PER_BITMAP), &bit);
	for (unsigned int j = 0; w && j < RT_IDA_WORDS; j++)
		if (w[bit / MODEL_WORD_BITS + j])
			return true;
	return false;
}

static unsigned long model_key_hole(struct ida_model *m, unsigned long key,
				    unsigned long max_scan, bool up)
{
	return t_model_hole(model_key_present, m, key, max_scan, up);
}

/* The holes of the IDA's tree, whose free words name the bitmaps with a
 * clear bit (present keys, for a hole search): both from every key of
 * the windows and just past them, with short and unbounded scans. */
static void model_compare_holes(struct ida_model *m)
{
	static const unsigned long scans[] = { 0, 1, 2, 3, 63, 64, 65, ULONG_MAX };
	const unsigned long high = MODEL_HIGH_BASE / IDS_PER_BITMAP;
	const unsigned long keys = MODEL_HIGH_IDS / IDS_PER_BITMAP;

	for (unsigned long k = 0; k <= MODEL_LOW / IDS_PER_BITMAP + keys + 2; k++) {
		/* The low window and past it, then the high window's keys
		 * and past them. */
		unsigned long key = k <= MODEL_LOW / IDS_PER_BITMAP ? k
				    : high - 1 + (k - MODEL_LOW / IDS_PER_BITMAP - 1);

		for (unsigned int s = 0; s < sizeof(scans) / sizeof(scans[0]); s++) {
			unsigned long want = model_key_hole(m, key, scans[s], true);
			unsigned long got = radix_tree_next_hole(&ida.ida_rt, key, scans[s]);

			cr_assert_eq(got, want, "next_hole(key %lu, %lu) = %lu, the model's %lu",
				     key, scans[s], got, want);
			want = model_key_hole(m, key, scans[s], false);
			got = radix_tree_prev_hole(&ida.ida_rt, key, scans[s]);
			cr_assert_eq(got, want, "prev_hole(key %lu, %lu) = %lu, the model's %lu",
				     key, scans[s], got, want);
		}
	}
}

/* Every bitmap of the tree is the model's, word for word, and every
 * non-empty stretch of the model is a bitmap of the tree. */
static unsigned long full_bitmaps_seen;

static void model_compare(struct ida_model *m)
{
	struct ida_dump d = { 0, 0, NULL, NULL };
	unsigned long nonempty = 0;
	unsigned int key, bit;

	dump_take(&ida, &d);
	for (size_t i = 0; i < d.n; i++) {
		unsigned int first = (unsigned int)(d.keys[i] * IDS_PER_BITMAP);
		unsigned long *w = model_words(m, first, &bit);

		cr_assert_not_null(w, "a bitmap for ids %u.., outside the model", first);
		unsigned long all = ~0UL;

		for (unsigned int j = 0; j < RT_IDA_WORDS; j++) {
			cr_assert_eq(d.maps[i].words[j], w[bit / MODEL_WORD_BITS + j],
				     "ids %u..: word %u is %#lx, the model's %#lx", first, j,
				     d.maps[i].words[j], w[bit / MODEL_WORD_BITS + j]);
			all &= d.maps[i].words[j];
		}
		full_bitmaps_seen += all == ~0UL;
	}
	for (key = 0; key < MODEL_LOW / IDS_PER_BITMAP; key++)
		for (unsigned int j = 0; j < RT_IDA_WORDS; j++)
			if (m->low[key * RT_IDA_WORDS + j]) {
				nonempty++;
				break;
			}
	for (key = 0; key < MODEL_HIGH_IDS / IDS_PER_BITMAP; key++)
		for (unsigned int j = 0; j < RT_IDA_WORDS; j++)
			if (m->high[key * RT_IDA_WORDS + j]) {
				nonempty++;
				break;
			}
	cr_assert_eq(d.n, nonempty, "%zu bitmaps in the tree, %lu non-empty in the model", d.n,
		     nonempty);
	cr_assert_eq(ida_is_empty(&ida), m->n == 0);
	model_compare_holes(m);
	dump_free(&d);
}

/* A random range length: mostly short, sometimes a few bitmaps. */
static unsigned int random_len(struct t_rng *rng)
{
	switch (t_rand_below(rng, 4)) {
	case 0:
		return (unsigned int)t_rand_below(rng, 8);
	case 1:
		return (unsigned int)t_rand_below(rng, 100);
	case 2:
		return (unsigned int)t_rand_below(rng, 2 * IDS_PER_BITMAP);
	default:
		return (unsigned int)t_rand_below(rng, 8 * IDS_PER_BITMAP);
	}
}

/* A random start in [@lo, @hi]: often just around a bitmap boundary. */
static unsigned int random_start(struct t_rng *rng, unsigned int lo, unsigned int hi)
{
	unsigned int s = lo + (unsigned int)t_rand_below(rng, (uint64_t)(hi - lo) + 1);
	long near;

	if (t_rand_below(rng, 3) == 0) {
		near = (long)(s / IDS_PER_BITMAP * IDS_PER_BITMAP) - 2 + (long)t_rand_below(rng, 5);
		if (near >= (long)lo && near <= (long)hi)
			s = (unsigned int)near;
	}
	return s;
}

/* One random allocation, compared with the model's answer.  Ranges lie in
 * one window, or reach past it only where the model has a free id first;
 * sometimes the range is empty or starts above INT_MAX.  Ranges in the low
 * window start below @span. */
static void random_alloc(struct ida_model *m, struct t_rng *rng, unsigned int span)
{
	unsigned int min, max, wmax, len;
	long want;
	int ret;

	switch (t_rand_below(rng, 20)) {
	case 0: /* min > max */
		min = (unsigned int)t_rand_below(rng, INT_MAX) + 1;
		max = min - 1 - (unsigned int)t_rand_below(rng, min);
		alloc_expect(&ida, min, max, -EINVAL);
		return;
	case 1: /* min above INT_MAX */
		min = (unsigned int)INT_MAX + 1U + (unsigned int)t_rand_below(rng, 1U << 31);
		alloc_expect(&ida, min, UINT_MAX, -ENOSPC);
		return;
	case 2: case 3: case 4: /* the high window; max may be clamped */
		min = random_start(rng, MODEL_HIGH_BASE, (unsigned int)INT_MAX);
		len = random_len(rng);
		if (t_rand_below(rng, 2))
			max = (unsigned int)INT_MAX + (unsigned int)t_rand_below(rng, 1U << 31);
		else if (len > (unsigned int)INT_MAX - min)
			max = (unsigned int)INT_MAX;
		else
			max = min + len;
		wmax = max > (unsigned int)INT_MAX ? (unsigned int)INT_MAX : max;
		want = model_lowest(m, min, wmax);
		break;
	case 5: case 6: /* ida_alloc() or _min(): unbounded, low window */
		min = t_rand_below(rng, 4) ? random_start(rng, 0, span - 1) : 0;
		max = t_rand_below(rng, 2) ? UINT_MAX : (unsigned int)INT_MAX;
		want = model_lowest(m, min, MODEL_LOW - 1);
		if (want < 0)
			return;  /* it would be past the window */
		break;
	case 7: /* ida_alloc_max() */
		min = 0;
		max = random_start(rng, 0, span - 1);
		want = model_lowest(m, min, max);
		break;
	default: /* a range in the low window, maybe across bitmaps */
		min = random_start(rng, 0, span - 1);
		max = min + random_len(rng);
		if (max >= MODEL_LOW)
			max = MODEL_LOW - 1;
		want = model_lowest(m, min, max);
		break;
	}
	ret = ida_alloc_range(&ida, min, max, GFP_KERNEL);
	cr_assert_eq(ret, want < 0 ? -ENOSPC : (int)want,
		     "ida_alloc_range(%u, %u) returned %d; the model says %ld", min, max, ret, want);
	if (ret >= 0)
		model_set(m, (unsigned int)ret);
}

Test(ida, matches_a_bitmap_model_under_random_ranges_and_frees, .timeout = 120)
{
	struct ida_model *m = calloc(1, sizeof(*m));
	const unsigned int batches = (unsigned int)t_scaled(60), per_batch = 4000;
	struct t_rng rng;

	cr_assert_not_null(m);
	m->ids = malloc((size_t)batches * per_batch * sizeof(*m->ids));
	cr_assert_not_null(m->ids);
	t_rng_init(&rng, "ida.model");
	for (unsigned int b = 0; b < batches; b++) {
		/* The fill level drifts: batches that mostly allocate, and
		 * batches that mostly free; their ranges start in the first
		 * 2, 8, 32 or all 128 bitmaps.  The first batches fill the
		 * first bitmaps. */
		unsigned int p_alloc = 30 + 20 * (unsigned int)t_rand_below(&rng, 4);
		unsigned int span = MODEL_LOW >> (2 * t_rand_below(&rng, 4));

		if (b < 3) {
			p_alloc = 95;
			span = 2 * IDS_PER_BITMAP;
		}

		for (unsigned int op = 0; op < per_batch; op++) {
			if (m->n && t_rand_below(&rng, 100) >= p_alloc)
				ida_free(&ida, model_clear_at(m, (unsigned int)t_rand_below(&rng, m->n)));
			else
				random_alloc(m, &rng, span);
		}
		verify(&ida);
		model_compare(m);
	}
	cr_assert_gt(full_bitmaps_seen, 0, "no bitmap was ever full");
	/* Back to empty, in random order. */
	while (m->n) {
		ida_free(&ida, model_clear_at(m, (unsigned int)t_rand_below(&rng, m->n)));
		if (m->n % 4096 == 0) {
			verify(&ida);
			model_compare(m);
		}
	}
	free(m->ids);
	free(m);
	finish(&ida);
}

/* ---- allocation failure ----------------------------------------------- */

/*
 * ida_alloc_range(@min, @max) with the 1st, 2nd, ... allocation from the
 * node allocator failing (the reserve drained each time, so nothing else
 * serves), until it succeeds: each failed call returns -ENOMEM and leaves
 * the IDA, the tree and the live memory as they were, and the call that
 * succeeds returns @expect.  The failures must number the allocations the
 * successful call makes, and those must be the new nodes of the tree plus
 * one bitmap.  Returns the number of failures.
 */
static unsigned long alloc_under_faults(unsigned int min, unsigned int max, int expect)
{
	struct ida_state was, now;
	struct rcuradix_stats before, after;
	unsigned long k, new_nodes, new_bitmaps;
	int ret;

	urcu_memb_barrier();
	state_take(&ida, &was);
	for (k = 1;; k++) {
		cr_assert_leq(k, 64, "ida_alloc_range(%u, %u) still fails", min, max);
		rcuradix_thread_cache_flush();
		before = stats();
		rt_fault_fail_nth(k);
		ret = ida_alloc_range(&ida, min, max, GFP_KERNEL);
		rt_fault_fail_nth(0);
		after = stats();
		if (ret != -ENOMEM)
			break;
		cr_assert_gt(after.alloc_failures, before.alloc_failures);
		verify(&ida);
		state_take(&ida, &now);
		state_assert_same(&was, &now, "after -ENOMEM");
		state_free(&now);
	}
	cr_assert_eq(ret, expect, "ida_alloc_range(%u, %u) returned %d after %lu failures", min,
		     max, ret, k - 1);
	verify(&ida);
	cr_assert_eq(after.nodes_allocated - before.nodes_allocated, k - 1,
		     "the call allocated %lu times, and failed at each of %lu",
		     after.nodes_allocated - before.nodes_allocated, k - 1);
	state_take(&ida, &now);
	new_nodes = now.nodes - was.nodes;
	new_bitmaps = now.dump.n - was.dump.n;
	cr_assert_leq(new_bitmaps, 1);
	cr_assert_eq(k - 1, new_nodes + new_bitmaps, "%lu allocations for %lu bitmaps and %lu nodes",
		     k - 1, new_bitmaps, new_nodes);
	state_free(&now);
	state_free(&was);
	return k - 1;
}

Test(ida, each_failed_allocation_gives_enomem_and_changes_nothing)
{
	const unsigned int leaf_ids = RT_MAP_SIZE * IDS_PER_BITMAP;

	/* The first id: a bitmap, held in the root (no node). */
	cr_assert_eq(alloc_under_faults(0, UINT_MAX, 0), 1);
	alloc_run(&ida, 1, IDS_PER_BITMAP - 1);
	/* The first id of a second bitmap: its 128 bytes and the tree's
	 * first node, the leaf that takes both bitmaps. */
	cr_assert_eq(alloc_under_faults(0, UINT_MAX, IDS_PER_BITMAP), 2);
	/* ...and the same in the middle of a range that starts in the full
	 * bitmap 0. */
	alloc_run(&ida, IDS_PER_BITMAP + 1, IDS_PER_BITMAP - 1);
	cr_assert_eq(alloc_under_faults(1000, 5000, 2 * IDS_PER_BITMAP), 1);
	/* The first bitmap past the top leaf: the tree grows a level. */
	cr_assert_eq(alloc_under_faults(leaf_ids, UINT_MAX, (int)leaf_ids), 3);
	/* A new leaf under the existing top. */
	cr_assert_eq(alloc_under_faults(3 * leaf_ids + 5, UINT_MAX, 3 * (int)leaf_ids + 5), 2);
	/* Far above on a small IDA: the tree grows several levels. */
	cr_assert_geq(alloc_under_faults(1U << 30, UINT_MAX, 1 << 30), 4);
	cr_assert_geq(alloc_under_faults((unsigned int)INT_MAX, UINT_MAX, INT_MAX), 2);
	/* No memory needed, none asked for: a free id of an existing bitmap. */
	cr_assert_eq(alloc_under_faults(0, UINT_MAX, 2 * IDS_PER_BITMAP + 1), 0);
	cr_assert_eq(alloc_under_faults(1U << 30, UINT_MAX, (1 << 30) + 1), 0);

	free_run(&ida, 0, 2 * IDS_PER_BITMAP + 2);
	ida_free(&ida, leaf_ids);
	ida_free(&ida, 3 * leaf_ids + 5);
	free_run(&ida, 1U << 30, 2);
	ida_free(&ida, INT_MAX);
	cr_assert(ida_is_empty(&ida));

	/* Up from the root item, full, to a far key: its bitmap and a node
	 * per level twice (key 0's way up and the far key's). */
	alloc_run(&ida, 0, IDS_PER_BITMAP);
	cr_assert_eq(alloc_under_faults(1U << 30, UINT_MAX, 1 << 30),
		     2 * levels_for((1U << 30) / IDS_PER_BITMAP) + 2);
	free_run(&ida, 0, IDS_PER_BITMAP);
	ida_free(&ida, 1U << 30);
	finish(&ida);
}

/*
 * GFP_NOWAIT and GFP_ATOMIC never ask the allocator: with the reserve
 * empty, an id that needs a new bitmap gives -ENOMEM (and an id of an
 * existing bitmap needs nothing).  radix_tree_preload() puts a 128-byte
 * block and full nodes in the reserve: verified here, a new bitmap in a
 * leaf that exists, and a new bitmap under a new leaf of the existing top,
 * both with every allocation failing, each taking exactly the blocks it
 * links from the reserve.
 */
Test(ida, nowait_takes_memory_only_from_the_preload_reserve)
{
	static const gfp_t masks[] = { GFP_NOWAIT, GFP_ATOMIC };
	const unsigned int leaf_ids = RT_MAP_SIZE * IDS_PER_BITMAP;
	struct ida_state was, now;
	struct rcuradix_stats before, after;

	/* Two levels: bitmaps 0 and 1 in leaf 0, one in leaf 1. */
	alloc_run(&ida, 0, IDS_PER_BITMAP + 1);
	cr_assert_eq(ida_alloc_min(&ida, leaf_ids, GFP_KERNEL), (int)leaf_ids);
	cr_assert_eq(t_height(&ida.ida_rt), 2);

	for (unsigned int i = 0; i < 2; i++) {
		gfp_t gfp = masks[i];
		unsigned int next = IDS_PER_BITMAP + 1 + i * IDS_PER_BITMAP;

		/* Bitmap 1 has room: no memory. */
		rcuradix_thread_cache_flush();
		rt_fault_fail_all(true);
		before = stats();
		for (unsigned int id = next; id < 2 * IDS_PER_BITMAP + i * IDS_PER_BITMAP; id++)
			cr_assert_eq(ida_alloc(&ida, gfp), (int)id);
		after = stats();
		cr_assert_eq(after.alloc_failures, before.alloc_failures);
		verify(&ida);

		/* Bitmap 1 full: the next id needs a bitmap.  Refused, both
		 * with the allocator failing and with it working. */
		state_take(&ida, &was);
		for (int fail = 1; fail >= 0; fail--) {
			rt_fault_fail_all(fail);
			before = stats();
			cr_assert_eq(ida_alloc(&ida, gfp), -ENOMEM);
			cr_assert_eq(ida_alloc_range(&ida, 5, 2 * leaf_ids, gfp), -ENOMEM);
			after = stats();
			cr_assert_eq(after.nodes_allocated, before.nodes_allocated,
				     "GFP_NOWAIT/ATOMIC asked the allocator");
			verify(&ida);
			state_take(&ida, &now);
			state_assert_same(&was, &now, "after -ENOMEM");
			state_free(&now);
		}
		state_free(&was);

		/* Preloaded: a new bitmap in leaf 0, allocator failing. */
		rt_fault_fail_all(false);
		cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
		rt_fault_fail_all(true);
		before = stats();
		cr_assert_eq(ida_alloc(&ida, gfp), (int)(2 + i) * (int)IDS_PER_BITMAP);
		after = stats();
		radix_tree_preload_end();
		cr_assert_eq(before.nodes_reserved - after.nodes_reserved, 1);
		cr_assert_eq(before.bytes_reserved - after.bytes_reserved, BITMAP_BYTES);
		cr_assert_eq(after.nodes_allocated, before.nodes_allocated);
		verify(&ida);

		/* Preloaded: a new leaf under the top and a bitmap in it. */
		rt_fault_fail_all(false);
		cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
		rt_fault_fail_all(true);
		before = stats();
		cr_assert_eq(ida_alloc_min(&ida, (2 + i) * leaf_ids, gfp), (int)((2 + i) * leaf_ids));
		after = stats();
		radix_tree_preload_end();
		cr_assert_eq(before.nodes_reserved - after.nodes_reserved, 2);
		cr_assert_eq(before.bytes_reserved - after.bytes_reserved,
			     BITMAP_BYTES + sizeof(struct rt_node));
		cr_assert_eq(after.nodes_allocated, before.nodes_allocated);
		rt_fault_fail_all(false);
		verify(&ida);
	}
	rt_fault_fail_all(false);
	free_run(&ida, 0, 3 * IDS_PER_BITMAP + 1);
	ida_free(&ida, leaf_ids);
	ida_free(&ida, 2 * leaf_ids);
	ida_free(&ida, 3 * leaf_ids);
	finish(&ida);
}

/*
 * idr_preload() covers the worst ida_alloc*(): an id far above a tree of
 * one bitmap needs a new top, a chain of nodes down to the old top, a chain
 * down to the new leaf and a bitmap.  With the reserve emptied first and
 * every allocation failing, a GFP_NOWAIT allocation after it succeeds.
 */
Test(ida, idr_preload_covers_the_worst_nowait_allocation)
{
	struct rcuradix_stats before, after;

	alloc_run(&ida, 0, 1);
	rcuradix_thread_cache_flush();
	cr_assert_eq(idr_preload(GFP_KERNEL), 0);
	rt_fault_fail_all(true);
	before = stats();
	cr_assert_eq(ida_alloc_min(&ida, INT_MAX - 5, GFP_NOWAIT), INT_MAX - 5);
	after = stats();
	rt_fault_fail_all(false);
	idr_preload_end();
	cr_assert_eq(after.nodes_allocated, before.nodes_allocated, "the allocator was asked");
	/* From the root item: the bitmap and a node per level twice, the
	 * worst an IDA's insert takes. */
	cr_assert_eq(before.nodes_reserved - after.nodes_reserved,
		     2 * levels_for((INT_MAX - 5) / IDS_PER_BITMAP) + 2, "took %lu from the reserve",
		     before.nodes_reserved - after.nodes_reserved);
	verify(&ida);
	ida_free(&ida, INT_MAX - 5);
	ida_free(&ida, 0);
	finish(&ida);
}

/* ---- memory ----------------------------------------------------------- */

Test(ida, a_million_dense_ids_take_at_most_a_fifth_of_a_byte_each, .timeout = 120)
{
	const unsigned int n = 1U << 20;
	struct rcuradix_stats before, after;
	unsigned long bytes;

	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	before = stats();
	for (unsigned int id = 0; id < n; id++) {
		int ret = ida_alloc(&ida, GFP_KERNEL);

		if (ret != (int)id)
			cr_assert_fail("ida_alloc() returned %d, expected %u", ret, id);
	}
	after = stats();
	bytes = after.bytes_live - before.bytes_live;
	/* The bitmaps alone are an eighth of a byte per id. */
	cr_assert_geq(bytes, n / 8);
	cr_assert_leq(bytes * 5, n, "%u ids take %lu bytes: %.4f bytes per id", n, bytes,
		      (double)bytes / n);
	cr_assert_eq(after.nodes_reserved, before.nodes_reserved);
	verify(&ida);
	cr_assert_eq(ida_alloc_max(&ida, n - 1, GFP_KERNEL), -ENOSPC);

	for (unsigned int id = n; id-- > 0;)
		ida_free(&ida, id);
	cr_assert(ida_is_empty(&ida));
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	after = stats();
	cr_assert_eq(after.bytes_live, before.bytes_live, "%lu bytes left of the ids",
		     after.bytes_live - before.bytes_live);
	finish(&ida);
}
