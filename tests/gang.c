/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gang.c - gang lookups over holes, across node boundaries, at the end of
 * the key space, with max_items 0, 1, 63, 64, 65 and more, checked against
 * the expected sorted key list.
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

static const unsigned int maxes[] = { 0, 1, 2, 63, 64, 65, 127, 128, 129, 1000, MAXK + 1 };

static void check_all_maxes(unsigned long first)
{
	for (unsigned int m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++)
		check_gang(first, maxes[m]);
}

Test(gang, empty_tree_and_bad_arguments)
{
	void *results[4];
	void **slots[4];

	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 0, 4), 0);
	t_insert_new(&tree, 5);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 0, 0), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, NULL, 0, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup_slot(&tree, NULL, NULL, 0, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup_slot(&tree, slots, NULL, 0, 0), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 6, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, ULONG_MAX, 4), 0);
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 0, 4), 1);
	t_finish(&tree);
}

Test(gang, dense_run_across_many_nodes)
{
	static unsigned long keys[MAXK];

	for (unsigned int i = 0; i < 3000; i++)
		keys[i] = i;
	fill(keys, 3000);
	for (unsigned long first = 0; first < 3010; first += 7)
		check_all_maxes(first);
	for (unsigned long first = 0; first < 3010; first += RT_MAP_SIZE) {
		check_all_maxes(first - 1);
		check_all_maxes(first + 1);
	}
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
	for (unsigned int i = 0; i < n; i++) {
		check_all_maxes(keys[i]);
		check_all_maxes(keys[i] - 1);
		check_all_maxes(keys[i] + 1);
	}
	t_finish(&tree);
}
