/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * basic.c - every core function and every error, one behaviour per test,
 * on keys at the edges of nodes, levels and the key space.
 */
#include "helpers.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

T_SUITE(basic);

/* Expected height for a tree whose largest key is @max. */
static unsigned int height_for(unsigned long max)
{
	return rt_level_for(max) + 1;
}

Test(basic, empty_tree_answers_absent)
{
	void *results[4];

	cr_assert(radix_tree_empty(&tree));
	cr_assert_null(radix_tree_lookup(&tree, 0));
	cr_assert_null(radix_tree_lookup(&tree, ULONG_MAX));
	cr_assert_null(radix_tree_lookup_slot(&tree, 0));
	cr_assert_null(radix_tree_delete(&tree, 0));
	cr_assert_eq(radix_tree_gang_lookup(&tree, results, 0, 4), 0);
	t_verify(&tree);
	t_finish(&tree);
}

Test(basic, each_special_key_alone)
{
	unsigned int i;

	for (i = 0; i < t_nr_special_keys; i++) {
		unsigned long key = t_special_keys[i];
		struct titem *item = t_insert_new(&tree, key);
		void **slot = radix_tree_lookup_slot(&tree, key);
		struct radix_tree_memstat mem;

		cr_assert_not_null(slot);
		cr_assert_eq(*slot, item);
		cr_assert_not(radix_tree_empty(&tree));
		cr_assert_eq(t_height(&tree), height_for(key), "key %#lx height %u", key,
			     t_height(&tree));
		/* A lone key costs exactly one node per level. */
		cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
		cr_assert_eq(mem.nodes, height_for(key));
		cr_assert_null(radix_tree_lookup(&tree, key ^ 1));
		cr_assert_null(radix_tree_lookup(&tree, key + RT_MAP_SIZE));
		t_verify(&tree);
		t_delete(&tree, key, item);
		cr_assert(radix_tree_empty(&tree));
		cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
		cr_assert_eq(mem.nodes, 0);
		t_verify(&tree);
	}
	t_finish(&tree);
}

/* Insert all special keys, delete them in @order; the height must always
 * be minimal for the keys left. */
static void all_keys_then_delete(const unsigned int *order)
{
	struct titem *items[64];
	unsigned long max = 0;
	unsigned int i, j;

	for (i = 0; i < t_nr_special_keys; i++) {
		items[i] = t_insert_new(&tree, t_special_keys[i]);
		t_verify(&tree);
	}
	for (i = 0; i < t_nr_special_keys; i++)
		cr_assert_eq(radix_tree_lookup(&tree, t_special_keys[i]), items[i]);
	for (i = 0; i < t_nr_special_keys; i++) {
		unsigned int k = order[i];

		t_delete(&tree, t_special_keys[k], items[k]);
		items[k] = NULL;
		t_verify(&tree);
		max = 0;
		for (j = 0; j < t_nr_special_keys; j++)
			if (items[j] && t_special_keys[j] > max)
				max = t_special_keys[j];
		if (i + 1 < t_nr_special_keys)
			cr_assert_eq(t_height(&tree), height_for(max), "height after deleting %#lx",
				     t_special_keys[k]);
		for (j = 0; j < t_nr_special_keys; j++)
			cr_assert_eq(radix_tree_lookup(&tree, t_special_keys[j]), items[j]);
	}
	cr_assert(radix_tree_empty(&tree));
	t_finish(&tree);
}

Test(basic, all_special_keys_delete_ascending)
{
	unsigned int order[64], i;

	for (i = 0; i < t_nr_special_keys; i++)
		order[i] = i;
	all_keys_then_delete(order);
}

Test(basic, all_special_keys_delete_descending)
{
	unsigned int order[64], i;

	for (i = 0; i < t_nr_special_keys; i++)
		order[i] = t_nr_special_keys - 1 - i;
	all_keys_then_delete(order);
}

Test(basic, all_special_keys_delete_interleaved)
{
	unsigned int order[64], i, n = 0;

	for (i = 0; i < t_nr_special_keys; i += 2)
		order[n++] = i;
	for (i = 1; i < t_nr_special_keys; i += 2)
		order[n++] = i;
	all_keys_then_delete(order);
}

Test(basic, powers_of_two_and_neighbours)
{
	static struct titem *items[64][3];
	unsigned int b, d;

	for (b = 1; b < 64; b++)
		for (d = 0; d < 3; d++) {
			unsigned long key = (1UL << b) + d - 1;

			if (radix_tree_lookup(&tree, key)) {
				items[b][d] = NULL;  /* 2^1 + 1 == 2^2 - 1 */
				continue;
			}
			items[b][d] = t_insert_new(&tree, key);
		}
	t_verify(&tree);
	cr_assert_eq(t_height(&tree), RT_MAX_LEVELS);
	for (b = 1; b < 64; b++)
		for (d = 0; d < 3; d++)
			if (items[b][d])
				cr_assert_eq(radix_tree_lookup(&tree, (1UL << b) + d - 1),
					     items[b][d]);
	for (b = 63; b >= 1; b--) {
		for (d = 0; d < 3; d++)
			if (items[b][d])
				t_delete(&tree, (1UL << b) + d - 1, items[b][d]);
		t_verify(&tree);
	}
	t_finish(&tree);
}

Test(basic, grow_to_full_height_and_shrink_back)
{
	struct titem *zero = t_insert_new(&tree, 0);
	struct titem *top = t_insert_new(&tree, ULONG_MAX);
	struct radix_tree_memstat mem;

	cr_assert_eq(t_height(&tree), RT_MAX_LEVELS);
	/* Key 0's leaf and ULONG_MAX's leaf, each with its own path below
	 * the shared top node. */
	cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
	cr_assert_eq(mem.nodes, 2 * RT_MAX_LEVELS - 1);
	t_verify(&tree);
	t_delete(&tree, ULONG_MAX, top);
	cr_assert_eq(t_height(&tree), 1);
	cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
	cr_assert_eq(mem.nodes, 1);
	cr_assert_eq(radix_tree_lookup(&tree, 0), zero);
	t_verify(&tree);
	t_delete(&tree, 0, zero);
	t_finish(&tree);
}

Test(basic, insert_refuses_bad_items)
{
	static unsigned long storage[4];
	char *base = (char *)storage;

	cr_assert_eq(radix_tree_insert(&tree, 5, NULL), -EINVAL);
	cr_assert_eq(radix_tree_insert(&tree, 5, base + 1), -EINVAL);
	cr_assert_eq(radix_tree_insert(&tree, 5, base + 2), -EINVAL);
	cr_assert_eq(radix_tree_insert(&tree, 5, base + 3), -EINVAL);
	cr_assert_eq(radix_tree_insert(NULL, 5, base), -EINVAL);
	cr_assert(radix_tree_empty(&tree));
	t_verify(&tree);
	/* Aligned to 4 is enough. */
	t_insert(&tree, 5, base + 4);
	cr_assert_eq(radix_tree_delete(&tree, 5), base + 4);
	t_finish(&tree);
}

Test(basic, insert_existing_key_is_eexist_and_keeps_the_item)
{
	unsigned int i;

	for (i = 0; i < t_nr_special_keys; i++) {
		unsigned long key = t_special_keys[i];
		struct titem *first = t_insert_new(&tree, key);
		struct titem *second = titem_new(key);
		struct radix_tree_memstat before, after;

		cr_assert_eq(radix_tree_memory(&tree, &before), 0);
		cr_assert_eq(radix_tree_insert(&tree, key, second), -EEXIST);
		cr_assert_eq(radix_tree_lookup(&tree, key), first);
		cr_assert_eq(radix_tree_memory(&tree, &after), 0);
		cr_assert_eq(after.nodes, before.nodes);
		titem_free(second);
		t_verify(&tree);
	}
	t_finish(&tree);
}

Test(basic, null_root_is_refused_everywhere)
{
	void *results[2];
	void **slots[2];
	int item;

	cr_assert_null(radix_tree_lookup(NULL, 1));
	cr_assert_null(radix_tree_lookup_slot(NULL, 1));
	cr_assert_null(radix_tree_delete(NULL, 1));
	cr_assert(radix_tree_empty(NULL));
	cr_assert_eq(radix_tree_gang_lookup(NULL, results, 0, 2), 0);
	cr_assert_eq(radix_tree_gang_lookup_slot(NULL, slots, NULL, 0, 2), 0);
	cr_assert_eq(radix_tree_verify(NULL), -EINVAL);
	radix_tree_replace_slot(NULL, NULL, &item);
	radix_tree_destroy(NULL);
	radix_tree_lock(NULL);
	radix_tree_unlock(NULL);
	radix_tree_init_flavor(NULL, GFP_KERNEL, &urcu_memb_flavor);
	cr_assert_eq(radix_tree_memory(NULL, NULL), -EINVAL);
	t_finish(&tree);
}

Test(basic, delete_absent_keys_changes_nothing)
{
	struct titem *a = t_insert_new(&tree, 64);
	struct radix_tree_memstat before, after;

	cr_assert_eq(radix_tree_memory(&tree, &before), 0);
	cr_assert_null(radix_tree_delete(&tree, 65));
	cr_assert_null(radix_tree_delete(&tree, 0));
	cr_assert_null(radix_tree_delete(&tree, 1UL << 40));
	cr_assert_null(radix_tree_delete(&tree, ULONG_MAX));
	cr_assert_eq(radix_tree_memory(&tree, &after), 0);
	cr_assert_eq(after.nodes, before.nodes);
	cr_assert_eq(radix_tree_lookup(&tree, 64), a);
	t_verify(&tree);
	t_finish(&tree);
}

Test(basic, replace_slot_under_lock)
{
	struct titem *old = t_insert_new(&tree, 4096);
	struct titem *neu = titem_new(4096);
	void **slot;

	radix_tree_lock(&tree);
	slot = radix_tree_lookup_slot(&tree, 4096);
	cr_assert_not_null(slot);
	radix_tree_replace_slot(&tree, slot, neu);
	radix_tree_unlock(&tree);
	cr_assert_eq(radix_tree_lookup(&tree, 4096), neu);
	titem_free(old);
	t_verify(&tree);
	t_finish(&tree);
}

Test(basic, replace_slot_refusals_change_nothing)
{
	struct titem *a = t_insert_new(&tree, 10);
	struct titem *b = t_insert_new(&tree, 11);
	struct titem *c = titem_new(10);
	void **slot_a, **slot_b;

	/* Not holding the lock. */
	slot_a = radix_tree_lookup_slot(&tree, 10);
	radix_tree_replace_slot(&tree, slot_a, c);
	cr_assert_eq(radix_tree_lookup(&tree, 10), a);

	radix_tree_lock(&tree);
	radix_tree_replace_slot(&tree, slot_a, NULL);
	cr_assert_eq(radix_tree_lookup(&tree, 10), a);
	radix_tree_replace_slot(&tree, slot_a, (char *)c + 2);
	cr_assert_eq(radix_tree_lookup(&tree, 10), a);
	radix_tree_replace_slot(&tree, NULL, c);
	/* A slot whose item was deleted (its leaf lives on, 11 is in it). */
	slot_b = radix_tree_lookup_slot(&tree, 11);
	cr_assert_eq(radix_tree_delete(&tree, 10), a);
	radix_tree_replace_slot(&tree, slot_a, c);
	cr_assert_null(radix_tree_lookup(&tree, 10));
	cr_assert_eq(*slot_b, b);
	radix_tree_unlock(&tree);
	t_verify(&tree);
	titem_free(a);
	titem_free(c);
	t_finish(&tree);
}

Test(basic, writers_work_while_holding_the_lock)
{
	struct titem *a, *b;

	radix_tree_lock(&tree);
	radix_tree_lock(&tree); /* recursive for its owner */
	a = t_insert_new(&tree, 1);
	b = t_insert_new(&tree, 1UL << 20);
	cr_assert_eq(radix_tree_verify(&tree), 0);
	radix_tree_unlock(&tree);
	t_delete(&tree, 1, a);
	radix_tree_unlock(&tree);
	/* Unlocked now: another thread could take it; an extra unlock is refused. */
	radix_tree_unlock(&tree);
	cr_assert_eq(tree.depth, 0);
	cr_assert_eq(tree.owner, 0);
	t_delete(&tree, 1UL << 20, b);
	t_finish(&tree);
}

static void *lock_from_other_thread(void *arg)
{
	struct radix_tree_root *root = arg;
	struct titem *item;

	urcu_memb_register_thread();
	item = titem_new(77);
	/* Blocks until the main thread unlocks. */
	radix_tree_insert(root, 77, item);
	urcu_memb_unregister_thread();
	rcuradix_thread_cache_flush();
	return item;
}

Test(basic, lock_excludes_other_writers)
{
	pthread_t thread;
	void *item;

	radix_tree_lock(&tree);
	cr_assert_eq(pthread_create(&thread, NULL, lock_from_other_thread, &tree), 0);
	/* Whatever the other thread does, it cannot insert while we hold
	 * the lock; check repeatedly during a short window. */
	for (int i = 0; i < 1000; i++) {
		cr_assert_null(radix_tree_lookup(&tree, 77));
		sched_yield();
	}
	radix_tree_unlock(&tree);
	cr_assert_eq(pthread_join(thread, &item), 0);
	cr_assert_eq(radix_tree_lookup(&tree, 77), item);
	t_finish(&tree);
}

Test(basic, destroy_empties_and_tree_is_reusable)
{
	unsigned long i;
	struct titem *items[1000];

	for (i = 0; i < 1000; i++)
		items[i] = t_insert_new(&tree, i * 977);
	radix_tree_destroy(&tree);
	cr_assert(radix_tree_empty(&tree));
	t_verify(&tree);
	for (i = 0; i < 1000; i++)
		cr_assert_null(radix_tree_lookup(&tree, i * 977));
	for (i = 0; i < 1000; i++)
		titem_free(items[i]);
	items[0] = t_insert_new(&tree, 12345);
	t_verify(&tree);
	t_finish(&tree);
}

Test(basic, root_memory_may_be_freed_after_destroy_and_barrier)
{
	struct radix_tree_root *root = malloc(sizeof(*root));
	struct titem *items[300];
	unsigned long i;

	radix_tree_init_flavor(root, GFP_KERNEL, &urcu_memb_flavor);
	for (i = 0; i < 300; i++)
		items[i] = t_insert_new(root, i << 10);
	radix_tree_destroy(root);
	urcu_memb_barrier();
	/* Poison the root before freeing: a late callback touching it would
	 * crash or be reported by the sanitizer build. */
	memset(root, 0x6b, sizeof(*root));
	free(root);
	for (i = 0; i < 300; i++)
		titem_free(items[i]);
	rcuradix_thread_cache_flush();
	t_assert_no_nodes();
}

Test(basic, static_and_runtime_initialisers)
{
	static RADIX_TREE(st, GFP_KERNEL);
	RADIX_TREE(automatic, GFP_KERNEL);
	struct titem *a = t_insert_new(&st, 3);
	struct titem *b = t_insert_new(&automatic, 1UL << 30);

	cr_assert_eq(st.flavor, &urcu_memb_flavor);
	t_delete(&st, 3, a);
	t_delete(&automatic, 1UL << 30, b);
	radix_tree_destroy(&st);
	radix_tree_destroy(&automatic);
	t_finish(&tree);
}

Test(basic, null_flavor_means_memb)
{
	struct radix_tree_root r;

	radix_tree_init_flavor(&r, GFP_KERNEL, NULL);
	cr_assert_eq(r.flavor, &urcu_memb_flavor);
	t_finish(&r);
}

Test(basic, atomic_tree_never_allocates_in_insert)
{
	struct radix_tree_root atomic;
	struct titem *item = titem_new(1UL << 40);
	struct rcuradix_stats before, after;

	radix_tree_init_flavor(&atomic, GFP_ATOMIC, &urcu_memb_flavor);
	rcuradix_thread_cache_flush();
	cr_assert_eq(rcuradix_get_stats(&before, sizeof(before)), 0);
	cr_assert_eq(radix_tree_insert(&atomic, 1UL << 40, item), -ENOMEM);
	cr_assert_eq(rcuradix_get_stats(&after, sizeof(after)), 0);
	cr_assert_eq(after.nodes_allocated, before.nodes_allocated);
	cr_assert(radix_tree_empty(&atomic));
	t_verify(&atomic);
	/* With a preload it cannot fail. */
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	t_insert(&atomic, 1UL << 40, item);
	radix_tree_preload_end();
	t_verify(&atomic);
	t_finish(&atomic);
}

Test(basic, stats_and_memory_reject_bad_arguments)
{
	struct rcuradix_stats st;
	struct radix_tree_memstat mem;

	cr_assert_eq(rcuradix_get_stats(NULL, sizeof(st)), -EINVAL);
	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st) - 1), -EINVAL);
	cr_assert_eq(radix_tree_memory(&tree, NULL), -EINVAL);
	cr_assert_eq(radix_tree_memory(NULL, &mem), -EINVAL);
	cr_assert_str_eq(rcuradix_version(), PACKAGE_VERSION);
	t_finish(&tree);
}

Test(basic, node_is_one_line_of_header_past_the_slots)
{
	cr_assert_eq(sizeof(struct rt_node), RT_MAP_SIZE * sizeof(void *) + 64);
	cr_assert_eq(offsetof(struct rt_node, slots), 0);
	t_finish(&tree);
}

/*
 * fork() while another thread allocates and frees nodes: the child must
 * not inherit the library's node pool lock in a locked state.  Each child
 * builds a tree (allocating nodes) and exits 0; a deadlocked child is
 * killed by its own alarm and reported.
 *
 * Built only where it means something: the slab node backend (the others
 * have no pool lock), and not under AddressSanitizer, whose own allocator
 * is not fork-safe while another thread allocates (its children deadlock
 * whatever the library does).  Not a runtime skip: Criterion's skip leaks,
 * which the valgrind run would report.
 */
#if defined(RT_ALLOC_SLAB) && !defined(__SANITIZE_ADDRESS__)
static int fork_stop;

static void *allocating_thread(void *arg)
{
	struct radix_tree_root r;
	static long item;

	(void)arg;
	urcu_memb_register_thread();
	radix_tree_init_flavor(&r, GFP_KERNEL, &urcu_memb_flavor);
	while (!uatomic_read(&fork_stop)) {
		for (unsigned long k = 0; k < 64; k++)
			radix_tree_insert(&r, k << 12, &item);
		radix_tree_destroy(&r);
		rcuradix_thread_cache_flush();
	}
	urcu_memb_barrier();
	urcu_memb_unregister_thread();
	return NULL;
}

Test(basic, fork_while_another_thread_allocates, .timeout = 120)
{
	pthread_t thread;
	unsigned int bad = 0;

	cr_assert_eq(pthread_create(&thread, NULL, allocating_thread, NULL), 0);
	for (int i = 0; i < 100; i++) {
		pid_t pid = fork();
		int status;

		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct radix_tree_root r;
			static long item;

			alarm(5);
			radix_tree_init_flavor(&r, GFP_KERNEL, &urcu_memb_flavor);
			for (unsigned long k = 0; k < 256; k++)
				if (radix_tree_insert(&r, k << 10, &item) != 0)
					_exit(2);
			_exit(radix_tree_lookup(&r, 255UL << 10) == &item ? 0 : 3);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	uatomic_set(&fork_stop, 1);
	cr_assert_eq(pthread_join(thread, NULL), 0);
	cr_assert_eq(bad, 0, "%u children failed or deadlocked", bad);
	t_finish(&tree);
}
#endif
