/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gang.c - gang lookups over holes, across node boundaries, at the end of
 * the key space, with max_items 0, 1, 63, 64, 65 and more, checked against
 * the expected sorted key list; and the counts (radix_tree_count(),
 * radix_tree_count_range()) and the holes (radix_tree_next_hole(),
 * radix_tree_prev_hole(), against the kernel's key-by-key definition) over
 * the same shapes (dense runs across the boundaries of the full nodes
 * above the leaves included) and over keys inserted in random order with deletes
 * between them; the same for the predecessor (radix_tree_lookup_le()) and
 * the reverse gang lookup, and a whole reverse walk in batches.
 */
#include "helpers.h"

T_SUITE(gang);

#define MAXK 4096

struct keyset {
	unsigned long keys[MAXK]; /* ascending */
	struct titem *items[MAXK];
	unsigned int n;
};

static struct keyset ks;

/* Insert @keys (ascending, distinct) and remember them. */
static void fill(const unsigned long *keys, unsigned int n)
{
	ks.n = n;
	for (unsigned int i = 0; i < n; i++) {
		ks.keys[i] = keys[i];
		ks.items[i] = t_insert_new(&tree, keys[i]);
	}
	t_verify(&tree);
	cr_assert_eq(radix_tree_count(&tree), n);
}

/* First position in ks with key >= first. */
static unsigned int lower_bound(unsigned long first)
{
	unsigned int lo = 0, hi = ks.n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (ks.keys[mid] < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every gang flavour from @first with @max must give exactly the model's answer. */
static void check_gang(unsigned long first, unsigned int max)
{
	static void *results[MAXK + 1];
	static void **slots[MAXK + 1];
	static unsigned long indices[MAXK + 1];
	unsigned int start = lower_bound(first);
	unsigned int expect = ks.n - start < max ? ks.n - start : max;
	unsigned int n, i;

	n = radix_tree_gang_lookup(&tree, results, first, max);
	cr_assert_eq(n, expect, "gang(%#lx, %u) = %u, expected %u", first, max, n, expect);
	for (i = 0; i < n; i++)
		cr_assert_eq(results[i], ks.items[start + i], "gang(%#lx, %u)[%u]", first, max, i);
	n = radix_tree_gang_lookup_slot(&tree, slots, indices, first, max);
	cr_assert_eq(n, expect);
	for (i = 0; i < n; i++) {
		cr_assert_eq(*slots[i], ks.items[start + i]);
		cr_assert_eq(indices[i], ks.keys[start + i]);
	}
	n = radix_tree_gang_lookup_slot(&tree, slots, NULL, first, max);
	cr_assert_eq(n, expect);
}

/* Position after the last key <= @last in ks (0: none). */
static unsigned int upper_bound(unsigned long last)
{
	return last == ULONG_MAX ? ks.n : lower_bound(last + 1);
}

/* The reverse gang lookup from @last with @max, and the predecessor of
 * @last, must give exactly the model's answer. */
static void check_reverse(unsigned long last, unsigned int max)
{
	static void *results[MAXK + 1];
	static unsigned long indices[MAXK + 1];
	unsigned int end = upper_bound(last);
	unsigned int expect = end < max ? end : max;
	unsigned long key = last;
	unsigned int n, i;
	void *item;

	n = radix_tree_gang_lookup_reverse(&tree, results, indices, last, max);
	cr_assert_eq(n, expect, "gang_reverse(%#lx, %u) = %u, expected %u", last, max, n, expect);
	for (i = 0; i < n; i++) {
		cr_assert_eq(results[i], ks.items[end - 1 - i], "gang_reverse(%#lx, %u)[%u]", last,
			     max, i);
		cr_assert_eq(indices[i], ks.keys[end - 1 - i], "gang_reverse(%#lx, %u)[%u]: key",
			     last, max, i);
	}
	cr_assert_eq(radix_tree_gang_lookup_reverse(&tree, results, NULL, last, max), expect);
	item = radix_tree_lookup_le(&tree, &key);
	if (end == 0) {
		cr_assert_null(item, "lookup_le(%#lx) found %#lx", last, key);
		cr_assert_eq(key, last, "lookup_le(%#lx) changed the key without an item", last);
	} else {
		cr_assert_eq(item, ks.items[end - 1], "lookup_le(%#lx)", last);
		cr_assert_eq(key, ks.keys[end - 1], "lookup_le(%#lx) = key %#lx, expected %#lx",
			     last, key, ks.keys[end - 1]);
	}
}

/* The whole tree from the top down, in batches of @batch, as a caller
 * walks it: each batch from the last key returned minus one. */
static void check_reverse_walk(unsigned int batch)
{
	static void *results[MAXK + 1];
	static unsigned long indices[MAXK + 1];
	unsigned long last = ULONG_MAX;
	unsigned int seen = 0, n;

	for (;;) {
		n = radix_tree_gang_lookup_reverse(&tree, results, indices, last, batch);
		for (unsigned int i = 0; i < n; i++, seen++) {
			cr_assert_lt(seen, ks.n, "the walk returned more than %u items", ks.n);
			cr_assert_eq(indices[i], ks.keys[ks.n - 1 - seen], "walk by %u: item %u",
				     batch, seen);
			cr_assert_eq(results[i], ks.items[ks.n - 1 - seen]);
		}
		if (n < batch || indices[n - 1] == 0)
			break;
		last = indices[n - 1] - 1;
	}
	cr_assert_eq(seen, ks.n, "a walk by %u saw %u of %u items", batch, seen, ks.n);
}

static const unsigned int maxes[] = { 0, 1, 2, 63, 64, 65, 127, 128, 129, 1000, MAXK + 1 };

/* radix_tree_count_range(@first, @last) must count the model's keys. */
static void check_count(unsigned long first, unsigned long last)
{
	unsigned int expect = 0;

	if (first <= last)
		for (unsigned int i = lower_bound(first); i < ks.n && ks.keys[i] <= last; i++)
			expect++;
	cr_assert_eq(radix_tree_count_range(&tree, first, last), expect,
		     "count_range(%#lx, %#lx) = %lu, expected %u", first, last,
		     radix_tree_count_range(&tree, first, last), expect);
}

/* Ranges from @first: to itself, across a leaf, up to a few keys on, to
 * the end of the key space, and an empty one. */
static void check_counts_from(unsigned long first)
{
	static const unsigned long spans[] = { 0, 1, 62, 63, 64, 65, 1000, 100000, ULONG_MAX };
	unsigned int at = lower_bound(first);

	for (unsigned int s = 0; s < sizeof(spans) / sizeof(spans[0]); s++)
		check_count(first, first > ULONG_MAX - spans[s] ? ULONG_MAX : first + spans[s]);
	for (unsigned int k = at; k < ks.n && k < at + 70; k += 3)
		check_count(first, ks.keys[k]);
	if (first > 0)
		check_count(first, first - 1);
}

static bool model_has(const void *model, unsigned long key)
{
	unsigned int at = lower_bound(key);

	(void)model;  /* the key set: ks */
	return at < ks.n && ks.keys[at] == key;
}

static unsigned long model_hole(unsigned long index, unsigned long max_scan, bool up)
{
	return t_model_hole(model_has, NULL, index, max_scan, up);
}

static void check_holes_at(unsigned long index)
{
	static const unsigned long scans[] = { 0, 1, 2, 63, 64, 65, 200, 5000, ULONG_MAX };

	for (unsigned int s = 0; s < sizeof(scans) / sizeof(scans[0]); s++) {
		unsigned long m = scans[s];

		cr_assert_eq(radix_tree_next_hole(&tree, index, m), model_hole(index, m, true),
			     "next_hole(%#lx, %lu) = %#lx, expected %#lx", index, m,
			     radix_tree_next_hole(&tree, index, m), model_hole(index, m, true));
		cr_assert_eq(radix_tree_prev_hole(&tree, index, m), model_hole(index, m, false),
			     "prev_hole(%#lx, %lu) = %#lx, expected %#lx", index, m,
			     radix_tree_prev_hole(&tree, index, m), model_hole(index, m, false));
	}
}

static void check_all_maxes(unsigned long first)
{
	check_holes_at(first);
	for (unsigned int m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		check_gang(first, maxes[m]);
		check_reverse(first, maxes[m]);
	}
	check_counts_from(first);
}

Test(gang, empty_tree_and_bad_arguments)
{
	void *results[4];
	void **slots[4];

	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 0, 4), 0);
	cr_assert_eq(radix_tree_count(&tree), 0);
	cr_assert_eq(radix_tree_count(NULL), 0);
	cr_assert_eq(radix_tree_count_range(&tree, 0, ULONG_MAX), 0);
	t_insert_new(&tree, 5);
	cr_assert_eq(radix_tree_count(&tree), 1);
	cr_assert_eq(radix_tree_count_range(&tree, 0, ULONG_MAX), 1);
	cr_assert_eq(radix_tree_count_range(&tree, 5, 5), 1);
	cr_assert_eq(radix_tree_count_range(&tree, 6, 4), 0, "an empty range counts nothing");
	cr_assert_eq(radix_tree_count_range(NULL, 0, ULONG_MAX), 0);
	cr_assert_eq(radix_tree_next_hole(&tree, 5, 10), 6);
	cr_assert_eq(radix_tree_prev_hole(&tree, 5, 10), 4);
	cr_assert_eq(radix_tree_next_hole(&tree, 4, 10), 4, "an absent key is its own hole");
	cr_assert_eq(radix_tree_next_hole(&tree, 5, 0), 5);
	cr_assert_eq(radix_tree_next_hole(&tree, 5, 1), 6, "one key scanned, all present");
	cr_assert_eq(radix_tree_prev_hole(&tree, 5, 1), 4);
	cr_assert_eq(radix_tree_next_hole(NULL, 5, 10), 5);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 0, 0), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, NULL, 0, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup_slot(&tree, NULL, NULL, 0, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup_slot(&tree, slots, NULL, 0, 0), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 6, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, ULONG_MAX, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 0, 4), 1);
	t_finish(&tree);
}

Test(gang, reverse_on_empty_tree_and_bad_arguments)
{
	unsigned long key = ULONG_MAX, indices[4];
	void *results[4];
	struct titem *five;

	cr_assert_null(radix_tree_lookup_le(&tree, &key));
	cr_assert_eq(key, ULONG_MAX, "the key is left alone when nothing is found");
	cr_assert_eq(radix_tree_gang_lookup_reverse(&tree, results, indices, ULONG_MAX, 4), 0);
	five = t_insert_new(&tree, 5);
	cr_assert_null(radix_tree_lookup_le(NULL, &key));
	cr_assert_null(radix_tree_lookup_le(&tree, NULL));
	cr_assert_eq(radix_tree_gang_lookup_reverse(NULL, results, indices, 9, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup_reverse(&tree, NULL, indices, 9, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup_reverse(&tree, results, indices, 9, 0), 0);
	key = 4;
	cr_assert_null(radix_tree_lookup_le(&tree, &key));
	cr_assert_eq(key, 4);
	key = 5;
	cr_assert_eq(radix_tree_lookup_le(&tree, &key), five);
	cr_assert_eq(key, 5);
	key = ULONG_MAX;
	cr_assert_eq(radix_tree_lookup_le(&tree, &key), five);
	cr_assert_eq(key, 5);
	cr_assert_eq(radix_tree_gang_lookup_reverse(&tree, results, indices, ULONG_MAX, 4), 1);
	cr_assert_eq(results[0], five);
	cr_assert_eq(indices[0], 5);
	t_insert_new(&tree, 0);
	cr_assert_eq(radix_tree_gang_lookup_reverse(&tree, results, indices, 5, 4), 2);
	cr_assert_eq(indices[1], 0, "the walk reaches key 0 and stops there");
	t_finish(&tree);
}

Test(gang, dense_run_across_many_nodes)
{
	static unsigned long keys[MAXK];

	for (unsigned int i = 0; i < 3000; i++)
		keys[i] = i;
	fill(keys, 3000);
	check_reverse_walk(1);
	check_reverse_walk(64);
	for (unsigned long first = 0; first < 3010; first += 7)
		check_all_maxes(first);
	for (unsigned long first = 0; first < 3010; first += RT_MAP_SIZE) {
		check_all_maxes(first - 1);
		check_all_maxes(first + 1);
	}
	t_finish(&tree);
}

/*
 * Two dense runs across the boundaries of full nodes above the leaves:
 * one across key 2^13, a boundary of level-1 nodes (of level-3 nodes in
 * the 8-slot build), one across 2^18, of level-2 nodes (level-5).  A hole
 * scan from a leaf to the next goes up through the nodes above it and down
 * again (rt_spine_step()): every height of that way is checked against
 * the key-by-key definition.
 */
Test(gang, holes_across_full_node_boundaries)
{
	static unsigned long keys[MAXK];
	const unsigned long low = 1UL << 13, high = 1UL << 18;
	unsigned int n = 0;

	for (unsigned long k = low - 1800; k < low + 1500; k++)
		keys[n++] = k;
	for (unsigned long k = high - 300; k < high + 300; k++)
		if (k > keys[n - 1])
			keys[n++] = k;
	fill(keys, n);
	for (unsigned int i = 0; i < n; i += 61) {
		check_holes_at(ks.keys[i]);
		check_holes_at(ks.keys[i] - 1);
	}
	check_holes_at(ks.keys[n - 1]);
	check_holes_at(ks.keys[n - 1] + 1);
	check_holes_at(low);
	check_holes_at(low - 1);
	check_holes_at(high);
	check_holes_at(high - 1);
	t_finish(&tree);
}

Test(gang, holes_and_starts_inside_holes)
{
	static unsigned long keys[MAXK];
	unsigned int n = 0;

	/* Runs of 3 keys every 1000, plus lone keys at node boundaries. */
	for (unsigned long base = 0; base < 1000000; base += 1000)
		for (unsigned long d = 0; d < 3; d++)
			keys[n++] = base + d;
	fill(keys, n);
	check_reverse_walk(1);
	check_reverse_walk(64);
	for (unsigned long first = 0; first < 1002000; first += 499)
		check_gang(first, 5);
	for (unsigned int i = 0; i < n; i += 37) {
		check_all_maxes(ks.keys[i]);
		check_all_maxes(ks.keys[i] + 3);
	}
	t_finish(&tree);
}

Test(gang, end_of_key_space_does_not_wrap)
{
	unsigned long keys[] = { 0, 1, 2, ULONG_MAX - 65, ULONG_MAX - 64, ULONG_MAX - 63,
				 ULONG_MAX - 2, ULONG_MAX - 1, ULONG_MAX };

	fill(keys, sizeof(keys) / sizeof(keys[0]));
	check_reverse_walk(1);
	check_reverse_walk(64);
	check_all_maxes(ULONG_MAX);
	check_all_maxes(ULONG_MAX - 1);
	check_all_maxes(ULONG_MAX - 3);
	check_all_maxes(ULONG_MAX - 64);
	check_all_maxes(ULONG_MAX - 200);
	check_all_maxes(3);
	check_all_maxes(0);
	t_finish(&tree);
}

Test(gang, sparse_keys_at_every_level)
{
	static unsigned long keys[MAXK];
	unsigned int n = 0;

	for (unsigned int b = 0; b < 64; b++) {
		keys[n++] = 1UL << b;
		if (b >= 2)
			keys[n++] = (1UL << b) + 1;
	}
	/* ascending already except the pair 1,2 handling: build sorted */
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
			unsigned long t = keys[j];

			keys[j] = keys[j - 1];
			keys[j - 1] = t;
		}
	fill(keys, n);
	check_reverse_walk(1);
	check_reverse_walk(64);
	for (unsigned int i = 0; i < n; i++) {
		check_all_maxes(keys[i]);
		check_all_maxes(keys[i] - 1);
		check_all_maxes(keys[i] + 1);
	}
	t_finish(&tree);
}

/* Remove position @i of the model (its item already deleted and freed). */
static void model_remove(unsigned int i)
{
	for (; i + 1 < ks.n; i++) {
		ks.keys[i] = ks.keys[i + 1];
		ks.items[i] = ks.items[i + 1];
	}
	ks.n--;
}

/* Insert @key into the model, kept sorted; false if it is there already. */
static bool model_add(unsigned long key)
{
	unsigned int at = lower_bound(key), i;

	if (at < ks.n && ks.keys[at] == key)
		return false;
	for (i = ks.n; i > at; i--) {
		ks.keys[i] = ks.keys[i - 1];
		ks.items[i] = ks.items[i - 1];
	}
	ks.keys[at] = key;
	ks.items[at] = t_insert_new(&tree, key);
	ks.n++;
	return true;
}

/*
 * Keys of several shapes inserted in random order (compact nodes with
 * entries appended out of order), deleted at random (tombstones, nodes
 * emptied), then inserted again: radix_tree_count() follows every change,
 * and radix_tree_count_range() agrees with the model on random ranges.
 */
Test(gang, counts_follow_random_inserts_and_deletes)
{
	struct t_rng rng;

	t_rng_init(&rng, "gang.counts");
	for (unsigned int shape = 0; shape < 4; shape++) {
		ks.n = 0;
		for (unsigned int step = 0; step < 6000; step++) {
			uint64_t r = t_rand(&rng);
			unsigned long key = shape == 0   ? r % 5000                      /* dense */
					    : shape == 1 ? (r % 2500) * 2                /* holes */
					    : shape == 2 ? (r % 40) << 20 | (r >> 40) % 64 /* runs */
							 : r;                            /* sparse */

			if (ks.n > 0 && (ks.n >= MAXK - 1 || t_rand_below(&rng, 3) == 0)) {
				unsigned int i = (unsigned int)t_rand_below(&rng, ks.n);

				t_delete(&tree, ks.keys[i], ks.items[i]);
				model_remove(i);
			} else {
				model_add(key);
			}
			cr_assert_eq(radix_tree_count(&tree), ks.n, "shape %u step %u", shape, step);
			if (step % 200 == 0) {
				unsigned long a = t_rand(&rng), b = t_rand(&rng);

				if (ks.n) {
					a = ks.keys[t_rand_below(&rng, ks.n)] - t_rand_below(&rng, 3);
					b = ks.keys[t_rand_below(&rng, ks.n)] + t_rand_below(&rng, 3);
				}
				check_count(a < b ? a : b, a < b ? b : a);
				check_count(0, ULONG_MAX);
				check_holes_at(a);
				check_holes_at(b);
				check_reverse(a, 1);
				check_reverse(b, 70);
				check_reverse(ULONG_MAX, 1);
				t_verify(&tree);
			}
			if (step % 1500 == 1499) {
				/* Around every key: a compact node's child is
				 * stored with one of its keys, not always its
				 * first, and a search from below that key must
				 * still go into it. */
				for (unsigned int i = 0; i < ks.n; i++) {
					check_reverse(ks.keys[i] - 1, 1);
					check_reverse(ks.keys[i], 1);
					check_reverse(ks.keys[i] + 1, 2);
				}
				check_reverse_walk(1);
				check_reverse_walk(7);
				check_reverse_walk(MAXK + 1);
			}
		}
		t_empty(&tree);
		cr_assert_eq(radix_tree_count(&tree), 0);
	}
	t_finish(&tree);
}

/*
 * A compact node's child entry keeps the key it was stored with when a
 * later insert splits its path (the child's range widens around it): a
 * search from a key below that stored key, inside the child's range, must
 * still go into the child.  Sparse keys, and keys sharing high bits,
 * inserted one by one, each followed by the predecessor around every key.
 */
Test(gang, reverse_into_children_stored_with_a_later_key)
{
	struct t_rng rng;

	t_rng_init(&rng, "gang.reverse_split");
	for (unsigned int round = 0; round < 24; round++) {
		/* Clusters of keys whose paths compress, then split as keys
		 * with new middle bits arrive: a high part of a few values,
		 * a middle of a few, a low part of (2^low)... */
		unsigned int low = 2 + round % 4 * 4, mid = 12 + round % 3 * 10;

		ks.n = 0;
		for (unsigned int step = 0; step < 500; step++) {
			unsigned long key = round % 2 ? t_rand(&rng)
						      : t_rand_below(&rng, 4) << 50 |
								t_rand_below(&rng, 8) << mid |
								t_rand_below(&rng, 1UL << low);

			if (ks.n > 0 && t_rand_below(&rng, 4) == 0) {
				unsigned int i = (unsigned int)t_rand_below(&rng, ks.n);

				t_delete(&tree, ks.keys[i], ks.items[i]);
				model_remove(i);
			} else if (!model_add(key)) {
				continue;
			}
			for (unsigned int i = 0; i < ks.n; i++) {
				check_reverse(ks.keys[i] - 2, 1);
				check_reverse(ks.keys[i] - 1, 1);
				check_reverse(ks.keys[i], 1);
			}
		}
		t_verify(&tree);
		check_reverse_walk(5);
		t_empty(&tree);
	}
	t_finish(&tree);
}

/*
 * The shape of the test above, built on purpose: a cluster of 40 keys at
 * 2^40 + 5 * 2^12 and 30 more at 2^41 fill the top compact node, which
 * moves the first cluster into a child stored with its first key; a key
 * at 2^40 + 2 * 2^12, in the same digit of the top node but below that
 * key, splits the child's path: the new node takes the child's place,
 * still stored with 2^40 + 5 * 2^12.  The predecessor of the new key, and
 * of every key up to the cluster, must go into it.
 */
Test(gang, reverse_into_a_split_path_stored_with_a_higher_key)
{
	static unsigned long keys[MAXK];
	const unsigned long cluster = (1UL << 40) + (5UL << 12), low = (1UL << 40) + (2UL << 12);
	unsigned int n = 0;

	for (unsigned long i = 0; i < 40; i++)
		keys[n++] = cluster + i;
	for (unsigned long i = 0; i < 30; i++)
		keys[n++] = (1UL << 41) + i;
	fill(keys, n);
	model_add(low);
	t_verify(&tree);
	for (unsigned long k = low - 2; k <= cluster + 1; k += k < low + 2 || k >= cluster - 2 ? 1 : 4093)
		check_reverse(k, 3);
	check_reverse_walk(1);
	check_reverse_walk(64);
	t_finish(&tree);
}
