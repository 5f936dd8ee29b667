/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * repro-range-tag.c - radix_tree_range_tag_if_tagged() never tags an item
 * beyond @last_index, in the two shapes where a range walk is most easily
 * wrong (a reduction of what rcuradix-torture's range tagging checks, with
 * no concurrency):
 *  1. nothing in [first, last] bears @fromtag, and the first chunk bearing
 *     it starts after @last_index;
 *  2. an item in the range bears @fromtag, and the next chunk bearing it
 *     lies in a later leaf beyond @last_index.
 * In both, the next chunk starts after @last_index: an implementation that
 * computes the room left in the range as last_index - iter.index would
 * underflow there and tag (and count) that chunk's items.
 *
 * Expected (kernel semantics, and the header's contract): items outside
 * [first, last] are never tagged; with fewer than @nr_to_tag items tagged,
 * *@first_indexp becomes last + 1.  Output: TAP.
 */
#include "config.h"

#include <stdio.h>
#include <urcu/urcu-memb.h>

#include <rcuradix/radix-tree.h>

static int tests, failures;

static void check(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++tests, what);
	failures += !ok;
}

/* Keys @a and @b hold items bearing tag 0; tag 1 from tag 0 over [first, last]. */
static void run(unsigned long a, unsigned long b, unsigned long first, unsigned long last,
		unsigned long want_count, const char *what)
{
	static int items[2];
	RADIX_TREE(tree, GFP_KERNEL);
	unsigned long next = first, n;
	char msg[200];

	radix_tree_insert(&tree, a, &items[0]);
	radix_tree_insert(&tree, b, &items[1]);
	radix_tree_tag_set(&tree, a, 0);
	radix_tree_tag_set(&tree, b, 0);
	n = radix_tree_range_tag_if_tagged(&tree, &next, last, 10, 0, 1);
	snprintf(msg, sizeof(msg), "%s: [%lu, %lu] tagged %lu (want %lu), next %lu (want %lu), "
		 "key %lu outside bears tag 1: %s", what, first, last, n, want_count, next,
		 last + 1, b, radix_tree_tag_get(&tree, b, 1) ? "yes" : "no");
	/* Key b is still there, with tag 0 and without tag 1. */
	check(n == want_count && next == last + 1 && radix_tree_lookup(&tree, b) == &items[1] &&
	      radix_tree_tag_get(&tree, b, 0) == 1 && radix_tree_tag_get(&tree, b, 1) == 0, msg);
	radix_tree_delete(&tree, a);
	radix_tree_delete(&tree, b);
}

int main(void)
{
	urcu_memb_register_thread();
	printf("1..2\n");
	/* Nothing bears tag 0 in [2, 5]; key 100 (another leaf) does. */
	run(1, 100, 2, 5, 0, "empty range");
	/* Key 1 is tagged; the range ends in a later leaf than key 1's. */
	run(1, 200, 0, 150, 1, "range ending past the last tagged leaf");
	urcu_memb_barrier();
	urcu_memb_unregister_thread();
	return failures ? 1 : 0;
}
