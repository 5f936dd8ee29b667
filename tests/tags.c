/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tags.c - tag_set, tag_clear, tag_get, tagged, gang_lookup_tag(_slot) and
 * range_tag_if_tagged: every function and every error, propagation up and
 * down the tree, tags across growth and shrink, the stale-root-tag livelock
 * (the kernel's "regression2"), range tagging in batches, a differential
 * test against a model with per-key tag bits, and readers running tagged
 * gang lookups while a writer retags and deletes.
 */
#include "helpers.h"
#include "tag.h"
#include "model.h"

#include <errno.h>

T_SUITE(tags);

/* Does every node on @key's path carry @tag's bit for the way down?  A
 * descent that records its path is a writer's: under the tree lock. */
static bool path_tagged(unsigned long key, unsigned int tag)
{
	struct rt_path path;
	bool tagged = false;

	radix_tree_lock(&tree);
	if (rt_descend(&tree, key, &path, NULL)) {
		tagged = (tree.tags >> tag) & 1UL;
		for (unsigned int d = 0; d < path.depth; d++)
			if (!((rt_step_tags(&tree, &path.step[d], tag) >> path.step[d].pos) & 1UL))
				tagged = false;
	}
	radix_tree_unlock(&tree);
	return tagged;
}

static void set_and_check(unsigned long key, unsigned int tag, void *item)
{
	cr_assert_eq(radix_tree_tag_set(&tree, key, tag), item, "tag_set(%#lx, %u)", key, tag);
	cr_assert_eq(radix_tree_tag_get(&tree, key, tag), 1);
	cr_assert(radix_tree_tagged(&tree, tag));
	cr_assert(path_tagged(key, tag));
	t_verify(&tree);
}

static void clear_and_check(unsigned long key, unsigned int tag, void *item)
{
	cr_assert_eq(radix_tree_tag_clear(&tree, key, tag), item, "tag_clear(%#lx, %u)", key, tag);
	cr_assert_eq(radix_tree_tag_get(&tree, key, tag), 0);
	cr_assert_eq(radix_tree_lookup(&tree, key), item);
	t_verify(&tree);
}

Test(tags, set_get_clear_on_special_keys_and_every_tag)
{
	struct titem *items[64];
	unsigned int i, tag;

	for (i = 0; i < t_nr_special_keys; i++)
		items[i] = t_insert_new(&tree, t_special_keys[i]);
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		cr_assert_not(radix_tree_tagged(&tree, tag));
		for (i = 0; i < t_nr_special_keys; i++) {
			cr_assert_eq(radix_tree_tag_get(&tree, t_special_keys[i], tag), 0);
			set_and_check(t_special_keys[i], tag, items[i]);
			/* Idempotent. */
			set_and_check(t_special_keys[i], tag, items[i]);
		}
		for (i = 0; i < t_nr_special_keys; i++) {
			clear_and_check(t_special_keys[i], tag, items[i]);
			clear_and_check(t_special_keys[i], tag, items[i]);
			cr_assert_eq(radix_tree_tagged(&tree, tag) != 0, i + 1 < t_nr_special_keys);
		}
	}
	t_finish(&tree);
}

Test(tags, absent_keys_are_refused_and_nothing_changes)
{
	struct titem *a = t_insert_new(&tree, 100);

	cr_assert_null(radix_tree_tag_set(&tree, 101, 0));
	cr_assert_null(radix_tree_tag_set(&tree, 1UL << 50, 1));
	cr_assert_null(radix_tree_tag_clear(&tree, 101, 0));
	cr_assert_eq(radix_tree_tag_get(&tree, 101, 0), 0);
	cr_assert_eq(radix_tree_tag_get(&tree, ULONG_MAX, 0), 0);
	cr_assert_not(radix_tree_tagged(&tree, 0));
	cr_assert_not(radix_tree_tagged(&tree, 1));
	t_verify(&tree);
	/* The empty tree too. */
	t_delete(&tree, 100, a);
	cr_assert_null(radix_tree_tag_set(&tree, 100, 0));
	cr_assert_eq(radix_tree_tag_get(&tree, 100, 0), 0);
	cr_assert_null(radix_tree_tag_set(NULL, 100, 0));
	cr_assert_null(radix_tree_tag_clear(NULL, 100, 0));
	cr_assert_eq(radix_tree_tag_get(NULL, 100, 0), 0);
	cr_assert_eq(radix_tree_tagged(NULL, 0), 0);
	t_finish(&tree);
}

/* Invalid tags: every value from MAX_TAGS to 4096, then every power of two
 * and its neighbours up to UINT_MAX. */
static unsigned int next_invalid_tag(unsigned int tag)
{
	if (tag < 4096)
		return tag + 1;
	if (tag == UINT_MAX)
		return 0;
	for (unsigned int b = 12; b < 32; b++) {
		unsigned int p = 1U << b;

		if (tag < p - 1)
			return p - 1;
		if (tag < p + 1)
			return tag + 1;
	}
	return UINT_MAX;
}

Test(tags, invalid_tags_touch_nothing)
{
	struct titem *a = t_insert_new(&tree, 64);
	void *results[4];
	void **slots[4];
	unsigned long first, count = 0;
	unsigned int tag;

	cr_assert_not_null(radix_tree_tag_set(&tree, 64, 0));
	for (tag = RADIX_TREE_MAX_TAGS; tag != 0; tag = next_invalid_tag(tag), count++) {
		cr_assert_null(radix_tree_tag_set(&tree, 64, tag), "tag %u", tag);
		cr_assert_null(radix_tree_tag_clear(&tree, 64, tag), "tag %u", tag);
		cr_assert_eq(radix_tree_tag_get(&tree, 64, tag), 0, "tag %u", tag);
		cr_assert_eq(radix_tree_tagged(&tree, tag), 0, "tag %u", tag);
		cr_assert_eq(radix_tree_gang_lookup_tag(&tree, results, 0, 4, tag), 0);
		cr_assert_eq(radix_tree_gang_lookup_tag_slot(&tree, slots, 0, 4, tag), 0);
		first = 0;
		cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, ULONG_MAX, 10, tag, 1), 0);
		cr_assert_eq(first, 0);
		cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, ULONG_MAX, 10, 0, tag), 0);
		cr_assert_eq(first, 0);
	}
	cr_assert_gt(count, 4000);
	cr_assert_eq(radix_tree_tag_get(&tree, 64, 0), 1);
	cr_assert_eq(tree.tags, 1UL, "root tag bits changed: %#lx", tree.tags);
	t_verify(&tree);
	t_delete(&tree, 64, a);
	t_finish(&tree);
}

Test(tags, propagation_up_and_down_a_deep_tree)
{
	/* Two keys sharing every node down to a leaf boundary split. */
	unsigned long k1 = (1UL << 40) + 5, k2 = (1UL << 40) + RT_MAP_SIZE + 5;
	struct titem *a = t_insert_new(&tree, k1), *b = t_insert_new(&tree, k2);

	set_and_check(k1, 2, a);
	cr_assert_not(path_tagged(k2, 2));
	set_and_check(k2, 2, b);
	/* Clearing one leaves the shared ancestors tagged... */
	clear_and_check(k1, 2, a);
	cr_assert(path_tagged(k2, 2));
	cr_assert(radix_tree_tagged(&tree, 2));
	/* ...clearing the last clears every bit up to the root. */
	clear_and_check(k2, 2, b);
	cr_assert_not(radix_tree_tagged(&tree, 2));
	cr_assert_eq(tree.tags, 0UL);
	t_finish(&tree);
}

Test(tags, tags_survive_growth_and_shrink)
{
	struct titem *zero = t_insert_new(&tree, 0);
	struct titem *mid = t_insert_new(&tree, 3);
	struct titem *far;

	set_and_check(0, 0, zero);
	set_and_check(3, 4, mid);
	/* Growth to full height carries the root's tag bits down slot 0. */
	far = t_insert_new(&tree, ULONG_MAX);
	cr_assert_eq(t_height(&tree), RT_MAX_LEVELS);
	cr_assert(path_tagged(0, 0));
	cr_assert(path_tagged(3, 4));
	cr_assert_eq(radix_tree_tag_get(&tree, ULONG_MAX, 0), 0);
	t_verify(&tree);
	set_and_check(ULONG_MAX, 1, far);
	/* Shrink back: the child's bits stay, the root's summary stays right.
	 * (In the 64-slot build the new top took the compact leaf's items
	 * when it grew: a top of items keeps its level.) */
	t_delete(&tree, ULONG_MAX, far);
	cr_assert_eq(t_height(&tree), RT_MAP_SIZE == 64 ? RT_MAX_LEVELS : 1);
	cr_assert_not(radix_tree_tagged(&tree, 1));
	cr_assert(path_tagged(0, 0));
	cr_assert(path_tagged(3, 4));
	t_verify(&tree);
	t_finish(&tree);
}

Test(tags, delete_clears_every_tag_and_reinsert_starts_untagged)
{
	unsigned long key = 4 * RT_MAP_SIZE + 1;
	struct titem *a = t_insert_new(&tree, key);
	struct titem *keep = t_insert_new(&tree, key + 1);
	struct titem *b;

	for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		set_and_check(key, tag, a);
	t_delete(&tree, key, a);
	t_verify(&tree);
	for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		cr_assert_not(radix_tree_tagged(&tree, tag));
	b = t_insert_new(&tree, key);
	for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		cr_assert_eq(radix_tree_tag_get(&tree, key, tag), 0);
	(void)keep;
	(void)b;
	t_finish(&tree);
}

Test(tags, replace_slot_keeps_tags)
{
	struct titem *a = t_insert_new(&tree, 9), *b = titem_new(9);
	void **slot;

	set_and_check(9, 3, a);
	radix_tree_lock(&tree);
	slot = radix_tree_lookup_slot(&tree, 9);
	radix_tree_replace_slot(&tree, slot, b);
	radix_tree_unlock(&tree);
	cr_assert_eq(radix_tree_tag_get(&tree, 9, 3), 1);
	cr_assert_eq(radix_tree_tag_set(&tree, 9, 3), b);
	titem_free(a);
	t_finish(&tree);
}

/*
 * Regression: radix_tree_tag_get() answered -1 for a present, untagged
 * item, which kernel-style callers, `if (radix_tree_tag_get(...))`, read as
 * "tagged".  It answers 1 for a tagged item and 0 for everything else.
 */
Test(tags, tag_get_is_zero_or_one_for_kernel_style_callers)
{
	struct titem *a = t_insert_new(&tree, 7);
	unsigned int tagged = 0, untagged = 0;

	cr_assert_not_null(radix_tree_tag_set(&tree, 7, 1));
	for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		if (radix_tree_tag_get(&tree, 7, tag))
			tagged |= 1U << tag;
		else
			untagged |= 1U << tag;
		/* Absent keys, below and above. */
		cr_assert_not(radix_tree_tag_get(&tree, 6, tag));
		cr_assert_not(radix_tree_tag_get(&tree, 1UL << 40, tag));
	}
	cr_assert_eq(tagged, 1U << 1);
	cr_assert_eq(untagged, ((1U << RADIX_TREE_MAX_TAGS) - 1) & ~(1U << 1));
	cr_assert_eq(radix_tree_tag_get(&tree, 7, 1), 1);
	cr_assert_eq(radix_tree_tag_get(&tree, 7, 0), 0);
	cr_assert_eq(radix_tree_tag_clear(&tree, 7, 1), a);
	cr_assert_eq(radix_tree_tag_get(&tree, 7, 1), 0);
	t_finish(&tree);
}

/*
 * Regression: radix_tree_gang_lookup_tag_slot() took an extra `indices`
 * argument, so kernel code calling it with the kernel's five arguments did
 * not compile.  Here it is called as the kernel calls it, and the slots it
 * returns are those of the tagged items, in key order (the keys come from
 * the items).
 */
Test(tags, gang_lookup_tag_slot_takes_the_kernels_five_arguments)
{
	unsigned int (*fn)(const struct radix_tree_root *, void ***, unsigned long, unsigned int,
			   unsigned int) = radix_tree_gang_lookup_tag_slot;
	void **slots[8];
	unsigned int n;

	for (unsigned long k = 0; k < 40; k++) {
		t_insert_new(&tree, k * 100);
		if (k % 4 == 1)
			cr_assert_not_null(radix_tree_tag_set(&tree, k * 100, 2));
	}
	n = fn(&tree, slots, 150, 8, 2);
	cr_assert_eq(n, 8);
	for (unsigned int i = 0; i < n; i++) {
		cr_assert_eq(((struct titem *)*slots[i])->key, (4 * i + 5) * 100);
		cr_assert_eq(radix_tree_lookup_slot(&tree, (4 * i + 5) * 100), slots[i]);
	}
	cr_assert_eq(radix_tree_gang_lookup_tag_slot(&tree, slots, 3701, 8, 2), 0);
	cr_assert_eq(radix_tree_gang_lookup_tag_slot(&tree, slots, 3700, 8, 2), 1);
	cr_assert_eq(radix_tree_gang_lookup_tag_slot(&tree, slots, 0, 8, 3), 0);
	t_finish(&tree);
}

/*
 * An invalid tag to tag_get is misuse: one line, once per process, and 0
 * ("not tagged"); the tree's tags stay as they were.
 */
static int tag_get_invalid_twice(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		T_CHILD_CHECK(radix_tree_tag_get(&tree, 64, 7) == 0);
		T_CHILD_CHECK(radix_tree_tag_get(&tree, 64, RADIX_TREE_MAX_TAGS) == 0);
		T_CHILD_CHECK(radix_tree_tag_get(&tree, 64, 0) == 1);
		T_CHILD_CHECK(radix_tree_tag_get(&tree, 64, 1) == 0);
		T_CHILD_CHECK(tree.tags == 1UL);
	}
	return 0;
}

Test(tags, tag_get_reports_an_invalid_tag_once)
{
	t_insert_new(&tree, 64);
	cr_assert_not_null(radix_tree_tag_set(&tree, 64, 0));
	t_assert_lives(tag_get_invalid_twice, NULL,
		       "rcuradix: radix_tree_tag_get: invalid tag 7 (RADIX_TREE_MAX_TAGS is 5)\n");
	t_verify(&tree);
	t_finish(&tree);
}

/*
 * Regression (the kernel's regression2): tag items, then delete them in an
 * order that shrinks the tree.  A stale root tag bit used to be carried into
 * a new top node and made gang_lookup_tag return without advancing, forever.
 * Here: after the deletes, tagged() must be 0 and every tagged lookup must
 * terminate with the exact answer, also after the tree grows again.
 */
Test(tags, stale_root_tag_after_shrink_does_not_livelock)
{
	void *results[8];
	struct titem *a = t_insert_new(&tree, 0);
	struct titem *b = t_insert_new(&tree, RT_MAP_SIZE * RT_MAP_SIZE);
	struct titem *c;

	set_and_check(RT_MAP_SIZE * RT_MAP_SIZE, 0, b);
	cr_assert_eq(t_height(&tree), 3);
	t_delete(&tree, RT_MAP_SIZE * RT_MAP_SIZE, b);
	/* (64-slot: key 0's compact leaf was taken into the top, which keeps
	 * its level.) */
	cr_assert_eq(t_height(&tree), RT_MAP_SIZE == 64 ? 3 : 1);
	cr_assert_eq(radix_tree_tagged(&tree, 0), 0);
	cr_assert_eq(radix_tree_gang_lookup_tag(&tree, results, 0, 8, 0), 0);
	/* Grow again: the new top nodes must not inherit a tag. */
	c = t_insert_new(&tree, ULONG_MAX);
	cr_assert_eq(radix_tree_tagged(&tree, 0), 0);
	cr_assert_eq(radix_tree_gang_lookup_tag(&tree, results, 0, 8, 0), 0);
	set_and_check(ULONG_MAX, 0, c);
	cr_assert_eq(radix_tree_gang_lookup_tag(&tree, results, 0, 8, 0), 1);
	cr_assert_eq(results[0], c);
	t_verify(&tree);
	(void)a;
	t_finish(&tree);
}

/* ---- range_tag_if_tagged --------------------------------------------- */

#define RANGE_KEYS 3000

static struct titem *range_items[RANGE_KEYS];

/* Keys 0..RANGE_KEYS-1 times @stride, every third one bearing tag 0. */
static void fill_range(unsigned long stride)
{
	for (unsigned long i = 0; i < RANGE_KEYS; i++) {
		range_items[i] = t_insert_new(&tree, i * stride);
		if (i % 3 == 0)
			cr_assert_not_null(radix_tree_tag_set(&tree, i * stride, 0));
	}
	t_verify(&tree);
}

static unsigned long count_tag(unsigned int tag)
{
	struct radix_tree_iter iter;
	void **slot;
	unsigned long n = 0;

	radix_tree_for_each_tagged(slot, &tree, &iter, 0, tag)
		n++;
	return n;
}

Test(tags, range_tag_exact_count_and_bounds)
{
	unsigned long stride = 7, first, n, i;

	fill_range(stride);
	/* Keys 300*7 .. 1200*7 inclusive bearing tag 0: i in [300,1200], i%3==0. */
	first = 300 * stride;
	n = radix_tree_range_tag_if_tagged(&tree, &first, 1200 * stride, ULONG_MAX, 0, 1);
	cr_assert_eq(n, 301);
	cr_assert_eq(first, 1200 * stride + 1);
	for (i = 0; i < RANGE_KEYS; i++)
		cr_assert_eq(radix_tree_tag_get(&tree, i * stride, 1),
			     i % 3 == 0 && i >= 300 && i <= 1200 ? 1 : 0, "key %lu", i * stride);
	cr_assert_eq(count_tag(1), 301);
	t_verify(&tree);
	t_finish(&tree);
}

Test(tags, range_tag_batches_equal_one_call)
{
	unsigned long stride = RT_MAP_SIZE - 1, first, total = 0, n, batches = 0;
	unsigned long last = (RANGE_KEYS - 10) * stride;

	fill_range(stride);
	/* One call into tag 1, batches of 17 into tag 2. */
	first = 5;
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, last, ULONG_MAX, 0, 1),
		     count_tag(1));
	first = 5;
	do {
		n = radix_tree_range_tag_if_tagged(&tree, &first, last, 17, 0, 2);
		cr_assert_leq(n, 17);
		total += n;
		batches++;
	} while (n == 17 && first != 0 && first <= last);
	cr_assert_eq(total, count_tag(1));
	cr_assert_gt(batches, 10);
	for (unsigned long i = 0; i < RANGE_KEYS; i++)
		cr_assert_eq(radix_tree_tag_get(&tree, i * stride, 1),
			     radix_tree_tag_get(&tree, i * stride, 2));
	t_verify(&tree);
	t_finish(&tree);
}

Test(tags, range_tag_respects_nr_to_tag_and_resumes_after_last_tagged)
{
	unsigned long first = 0, n;

	fill_range(1);
	n = radix_tree_range_tag_if_tagged(&tree, &first, ULONG_MAX, 10, 0, 1);
	cr_assert_eq(n, 10);
	cr_assert_eq(first, 27 + 1, "first = %lu", first);  /* the 10th is key 27 */
	cr_assert_eq(count_tag(1), 10);
	t_finish(&tree);
}

Test(tags, range_tag_wraps_at_ulong_max)
{
	struct titem *a = t_insert_new(&tree, ULONG_MAX), *b = t_insert_new(&tree, ULONG_MAX - 1);
	unsigned long first = ULONG_MAX - 5;

	radix_tree_tag_set(&tree, ULONG_MAX, 0);
	radix_tree_tag_set(&tree, ULONG_MAX - 1, 0);
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, ULONG_MAX, 100, 0, 1), 2);
	cr_assert_eq(first, 0, "the index after ULONG_MAX wraps to 0");
	cr_assert_eq(radix_tree_tag_get(&tree, ULONG_MAX, 1), 1);
	cr_assert_eq(radix_tree_tag_get(&tree, ULONG_MAX - 1, 1), 1);
	(void)a;
	(void)b;
	t_finish(&tree);
}

/*
 * Regression: when the first item bearing @fromtag after the range's start
 * lay beyond @last_index (in a later leaf), range tagging computed the keys
 * "left in the range" as last_index - index, which wrapped, and tagged that
 * item.  Keys 10 and 200, only 200 tagged, range [0, 100]: nothing to tag.
 */
Test(tags, range_tag_does_not_tag_past_the_range_end)
{
	unsigned long first = 0;

	t_insert_new(&tree, 10);
	t_insert_new(&tree, 200);
	cr_assert_not_null(radix_tree_tag_set(&tree, 200, 0));
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, 100, 10, 0, 1), 0);
	cr_assert_eq(first, 101);
	cr_assert_eq(radix_tree_tag_get(&tree, 200, 1), 0);
	cr_assert_not(radix_tree_tagged(&tree, 1));
	/* Same with the range ending inside the tagged item's leaf. */
	first = 150;
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, 199, 10, 0, 1), 0);
	cr_assert_eq(radix_tree_tag_get(&tree, 200, 1), 0);
	t_verify(&tree);
	t_finish(&tree);
}

Test(tags, range_tag_refusals)
{
	unsigned long first = 10;

	fill_range(1);
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, 100, 0, 0, 1), 0);
	cr_assert_eq(first, 10);
	first = 200;
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, 100, 50, 0, 1), 0);
	cr_assert_eq(first, 200);
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, NULL, 100, 50, 0, 1), 0);
	cr_assert_eq(radix_tree_range_tag_if_tagged(NULL, &first, 100, 50, 0, 1), 0);
	cr_assert_not(radix_tree_tagged(&tree, 1));
	/* Nothing bears tag 4: the whole range is scanned, nothing tagged. */
	first = 0;
	cr_assert_eq(radix_tree_range_tag_if_tagged(&tree, &first, 100, 50, 4, 1), 0);
	cr_assert_eq(first, 101);
	cr_assert_not(radix_tree_tagged(&tree, 1));
	t_finish(&tree);
}

/* ---- gang_lookup_tag ----------------------------------------------------- */

Test(tags, gang_lookup_tag_matches_expectation_at_densities)
{
	static const unsigned int every[] = { 1, 8, 64 };
	void *results[100];
	void **slots[100];

	for (unsigned long i = 0; i < 5000; i++)
		t_insert_new(&tree, i * 3);
	for (unsigned int d = 0; d < 3; d++) {
		unsigned int tag = d;

		for (unsigned long i = 0; i < 5000; i += every[d])
			radix_tree_tag_set(&tree, i * 3, tag);
		for (unsigned long first = 0; first < 15100; first += 97) {
			unsigned int n = radix_tree_gang_lookup_tag(&tree, results, first, 100, tag);
			unsigned int m = radix_tree_gang_lookup_tag_slot(&tree, slots, first, 100, tag);
			/* Expected: keys 3*i >= first with i % every == 0. */
			unsigned long i = (first + 2) / 3;
			unsigned int k = 0;

			i = (i + every[d] - 1) / every[d] * every[d];
			for (; i < 5000 && k < 100; i += every[d], k++) {
				cr_assert_lt(k, n);
				cr_assert_lt(k, m);
				cr_assert_eq(((struct titem *)results[k])->key, i * 3);
				cr_assert_eq(*slots[k], results[k]);
				cr_assert_eq(((struct titem *)*slots[k])->key, i * 3);
			}
			cr_assert_eq(n, k);
			cr_assert_eq(m, k);
		}
	}
	t_verify(&tree);
	t_finish(&tree);
}

/* ---- differential ------------------------------------------------------- */

Test(tags, differential_against_model, .timeout = 120)
{
	struct t_rng rng;
	struct model m;
	void *results[64];

	t_rng_init(&rng, "tags.differential");
	model_init(&m);
	for (unsigned long op = 1; op <= t_scaled(300000); op++) {
		unsigned long key = t_rand_below(&rng, 3) == 0 ? t_rand(&rng) % (1UL << 20)
							       : t_rand_below(&rng, 2048);
		unsigned int what = (unsigned int)t_rand_below(&rng, 100);
		unsigned int tag = (unsigned int)t_rand_below(&rng, RADIX_TREE_MAX_TAGS);
		struct model_entry *e = model_find(&m, key);

		if (what < 25) {
			struct titem *item = titem_new(key);

			if (model_insert(&m, key, item))
				t_insert(&tree, key, item);
			else {
				cr_assert_eq(radix_tree_insert(&tree, key, item), -EEXIST);
				titem_free(item);
			}
		} else if (what < 40) {
			void *got = radix_tree_delete(&tree, key);

			cr_assert_eq(got, model_delete(&m, key));
			if (got)
				titem_free(got);
		} else if (what < 60) {
			cr_assert_eq(radix_tree_tag_set(&tree, key, tag), e ? e->item : NULL);
			if (e)
				e->tags |= 1UL << tag;
		} else if (what < 75) {
			cr_assert_eq(radix_tree_tag_clear(&tree, key, tag), e ? e->item : NULL);
			if (e)
				e->tags &= ~(1UL << tag);
		} else if (what < 90) {
			cr_assert_eq(radix_tree_tag_get(&tree, key, tag),
				     e ? (int)((e->tags >> tag) & 1) : 0);
		} else {
			unsigned int max = 1 + (unsigned int)t_rand_below(&rng, 64);
			unsigned int n = radix_tree_gang_lookup_tag(&tree, results, key, max, tag);
			size_t pos = model_lower_bound(&m, key);
			unsigned int k = 0;

			for (; pos < m.n && k < max; pos++) {
				if (!((m.e[pos].tags >> tag) & 1))
					continue;
				cr_assert_lt(k, n, "gang_tag(%#lx, %u, tag %u) short", key, max, tag);
				cr_assert_eq(results[k], m.e[pos].item);
				k++;
			}
			cr_assert_eq(n, k);
		}
		if (op % 10000 == 0) {
			for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
				bool any = false;

				for (size_t i = 0; i < m.n; i++)
					any |= (m.e[i].tags >> tag) & 1;
				cr_assert_eq(radix_tree_tagged(&tree, tag) != 0, any, "tagged(%u)", tag);
			}
			t_verify(&tree);
		}
	}
	model_free(&m);
	t_finish(&tree);
}

/* ---- concurrency ----------------------------------------------------- */

/*
 * Readers walk the tagged keys of the whole tree while a writer sets,
 * clears, deletes and reinserts; each reader alternates between
 * radix_tree_gang_lookup_tag_slot() batches (the kernel's five arguments:
 * keys come from the items, which carry theirs) and radix_tree_for_each_tagged()
 * (keys from the iterator, also for slots emptied meanwhile).  An item
 * returned must be live and carry its key, keys must ascend, and each KEY
 * must have been tagged at some point: the writer sets the key's
 * ever_tagged flag before it first tags that key.  (Tags belong to slots,
 * not items: under RCU alone a reader may read a slot's tag bit, then find
 * in the slot an item inserted after the tagged one was deleted, guarantee
 * E; an item-level flag would report that legitimate interleaving as an
 * error.)  The walk must end, and stable keys (tagged before the readers
 * start, never touched) must always be returned when the walk passes them.
 */
struct citem {
	struct titem t;
};

#define C_KEYS 4096
static int c_ever_tagged[C_KEYS];

#define C_STABLE_EVERY 16
static int c_stop;
static unsigned long c_errors, c_walks;

static void c_error(const char *what, unsigned long key)
{
	if (uatomic_add_return(&c_errors, 1) <= 10)
		fprintf(stderr, "tag reader: %s (key %#lx)\n", what, key);
}

struct c_walk {
	unsigned long prev;         /* the last key visited */
	bool first;                 /* no key visited yet */
	unsigned long next_stable;  /* the next stable key the walk must visit */
};

static void c_visit(struct c_walk *w, unsigned long key, const struct citem *it)
{
	if (!w->first && key <= w->prev)
		c_error("keys not ascending", key);
	w->first = false;
	w->prev = key;
	if (it && !titem_ok(it, key))
		c_error("item dead or wrong key", key);
	if (key >= C_KEYS || !CMM_LOAD_SHARED(c_ever_tagged[key]))
		c_error("key never tagged", key);
	for (; w->next_stable < key; w->next_stable += C_STABLE_EVERY)
		c_error("stable tagged key skipped", w->next_stable);
	if (key == w->next_stable)
		w->next_stable += C_STABLE_EVERY;
}

/*
 * Batches of 32 from the key after the last item seen.  A slot emptied
 * since its batch was found was deleted or moved (guarantee C: "look it up
 * again"), and has no key to check: the walk looks again from the key
 * after the last item seen, which may return such keys again (ascending
 * all the same).  Each batch, or each look again, passes at least one
 * stable key or ends (at most 15 other keys lie between two).
 */
static void c_gang_walk(struct c_walk *w)
{
	void **slots[32];
	unsigned long next = 0, steps = 0;
	unsigned int n;
	bool again;

	do {
		again = false;
		n = radix_tree_gang_lookup_tag_slot(&tree, slots, next, 32, 0);
		for (unsigned int i = 0; i < n; i++) {
			struct citem *it = rcu_dereference(*slots[i]);
			unsigned long key;

			if (!it) {
				again = true;
				break;
			}
			key = CMM_LOAD_SHARED(it->t.key);
			if (key < next)
				c_error("key before the first index", key);
			c_visit(w, key, it);
			next = key + 1;
		}
		if (++steps > 4 * C_KEYS)
			c_error("walk does not terminate", next);
	} while ((n == 32 || again) && steps <= 4 * C_KEYS);
}

static void c_tagged_walk(struct c_walk *w)
{
	struct radix_tree_iter iter;
	unsigned long steps = 0;
	void **slot;

	radix_tree_for_each_tagged(slot, &tree, &iter, 0, 0) {
		c_visit(w, iter.index, rcu_dereference(*slot));
		if (++steps > C_KEYS) {
			c_error("walk does not terminate", iter.index);
			break;
		}
	}
}

static void *c_reader(void *arg)
{
	unsigned long walks = 0;

	(void)arg;
	urcu_memb_register_thread();
	while (!uatomic_read(&c_stop)) {
		struct c_walk w = { 0, true, 0 };

		urcu_memb_read_lock();
		if (walks++ % 2)
			c_tagged_walk(&w);
		else
			c_gang_walk(&w);
		if (w.next_stable < C_KEYS)
			c_error("walk ended before a stable key", w.next_stable);
		urcu_memb_read_unlock();
		uatomic_inc(&c_walks);
	}
	urcu_memb_unregister_thread();
	return NULL;
}

static struct citem *c_new(unsigned long key)
{
	struct citem *it = calloc(1, sizeof(*it));

	it->t.key = key;
	it->t.magic = TITEM_LIVE;
	return it;
}

static void c_free_cb(struct rcu_head *head)
{
	struct citem *it = caa_container_of(head, struct citem, t.rcu);

	it->t.magic = TITEM_DEAD;
	it->t.key = TITEM_POISON;
	free(it);
}

Test(tags, readers_against_retagging_writer, .timeout = 120)
{
	static struct citem *present[C_KEYS];
	struct t_rng rng = { 0xfeedULL };
	pthread_t readers[2];
	unsigned long walks_before, walks_during;

	for (unsigned long k = 0; k < C_KEYS; k += C_STABLE_EVERY) {
		present[k] = c_new(k);
		c_ever_tagged[k] = 1;
		cr_assert_eq(radix_tree_insert(&tree, k, present[k]), 0);
		radix_tree_tag_set(&tree, k, 0);
	}
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&readers[i], NULL, c_reader, NULL), 0);
	/*
	 * The writer goes on past its 300000 operations until the readers
	 * have finished four walks that began after it started (so one
	 * reader did both kinds): under valgrind, which runs one thread at a
	 * time, the writer could otherwise finish before any reader is
	 * scheduled and the test would prove nothing.
	 */
	walks_before = uatomic_read(&c_walks);
	for (unsigned long op = 0;
	     op < t_scaled(300000) || uatomic_read(&c_walks) < walks_before + 4; op++) {
		unsigned long k = t_rand_below(&rng, C_KEYS);
		struct citem *it = present[k];

		if (k % C_STABLE_EVERY == 0)
			continue;
		if (!it) {
			present[k] = c_new(k);
			cr_assert_eq(radix_tree_insert(&tree, k, present[k]), 0);
		} else if (op % 3 == 0) {
			cr_assert_eq(radix_tree_delete(&tree, k), it);
			urcu_memb_call_rcu(&it->t.rcu, c_free_cb);
			present[k] = NULL;
		} else if (op % 3 == 1) {
			/* Flag first, then the tag: tag words are stored with
			 * release semantics, so a reader that sees the bit
			 * sees the flag. */
			CMM_STORE_SHARED(c_ever_tagged[k], 1);
			radix_tree_tag_set(&tree, k, 0);
		} else {
			radix_tree_tag_clear(&tree, k, 0);
		}
	}
	walks_during = uatomic_read(&c_walks) - walks_before;
	uatomic_set(&c_stop, 1);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_join(readers[i], NULL), 0);
	cr_assert_eq(c_errors, 0, "%lu reader errors (first ones on stderr)", c_errors);
	fprintf(stderr, "%lu tagged walks during the writer's operations\n", walks_during);
	t_verify(&tree);
	for (unsigned long k = 0; k < C_KEYS; k++)
		if (present[k]) {
			cr_assert_eq(radix_tree_delete(&tree, k), present[k]);
			free(present[k]);
		}
	t_finish(&tree);
}
