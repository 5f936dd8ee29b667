/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * static-clash.c - a program that defines names the library uses for its
 * own internal functions and data (rt_lock, rt_counters), linked against
 * the static archive.  The link succeeds only if the archive keeps those
 * names local; then each side uses its own: the library's calls never reach
 * the program's rt_lock, its counters never land in the program's
 * rt_counters, and the program's calls stay in the program.  Speaks TAP.
 */
#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>

#include <stdio.h>

/* Same names as the library's internals; other types, on purpose. */
void rt_lock(const char *who);
unsigned long rt_counters[8];

static unsigned long rt_lock_calls;

void rt_lock(const char *who)
{
	(void)who;
	rt_lock_calls++;
}

static RADIX_TREE(tree, GFP_KERNEL);

#define PATTERN 0x5a5a5a5aUL
#define KEYS 4096UL

static int counters_untouched(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(rt_counters) / sizeof(rt_counters[0]); i++)
		if (rt_counters[i] != PATTERN + i)
			return 0;
	return 1;
}

int main(void)
{
	static long items[KEYS];
	struct rcuradix_stats st;
	unsigned long i, bad = 0, live;
	unsigned int c;

	for (c = 0; c < sizeof(rt_counters) / sizeof(rt_counters[0]); c++)
		rt_counters[c] = PATTERN + c;
	printf("1..3\n");

	urcu_memb_register_thread();
	for (i = 0; i < KEYS; i++)
		bad += radix_tree_insert(&tree, i * 7, &items[i]) != 0;
	radix_tree_lock(&tree);
	bad += radix_tree_lookup(&tree, 7) != &items[1];
	radix_tree_unlock(&tree);
	rcuradix_get_stats(&st, sizeof(st));
	live = st.nodes_live;
	for (i = 0; i < KEYS; i++)
		bad += radix_tree_delete(&tree, i * 7) != &items[i];
	radix_tree_destroy(&tree);
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	rcuradix_get_stats(&st, sizeof(st));
	urcu_memb_unregister_thread();
	printf("%s 1 - the library works (%lu errors; %lu nodes live with %lu keys, %lu after)\n",
	       !bad && live > 0 && !st.nodes_live ? "ok" : "not ok", bad, live, KEYS,
	       st.nodes_live);
	printf("%s 2 - the library's locking never called the program's rt_lock (%lu calls)\n",
	       rt_lock_calls == 0 ? "ok" : "not ok", rt_lock_calls);

	rt_lock("program");
	printf("%s 3 - the program's rt_lock and rt_counters are its own (%lu call, counters %s)\n",
	       rt_lock_calls == 1 && counters_untouched() ? "ok" : "not ok", rt_lock_calls,
	       counters_untouched() ? "untouched" : "overwritten");
	return 0;
}
