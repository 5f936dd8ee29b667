/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * preload.c - the per-thread reserve and allocation-failure safety.
 *
 * Preload: after radix_tree_preload() returns 0 the next insert cannot fail,
 * even if every allocation fails from then on and on a GFP_ATOMIC tree; a
 * failed preload reserves nothing extra; the reserve survives between uses
 * and is returned when a thread exits (thousands of threads come and go);
 * a nested preload, an unbalanced preload_end and a flush inside a window
 * are reported once per process and change nothing; the counters of exited
 * threads are kept.
 *
 * Allocation failure (the SQLite/rax OOM discipline): a scripted workload
 * that grows the tree from empty to full height is run once for each
 * N = 1, 2, ... with the N-th node allocation failing, until it completes.
 * Every failed insert returns -ENOMEM and leaves the tree exactly as it was
 * (model comparison + radix_tree_verify()), and no node leaks.  With a
 * preload before each insert, no insert ever fails.
 *
 * A copy that demotes every group takes more nodes than the reserve
 * holds, from the allocator alone: with any of its allocations failing it
 * makes the usual copy instead (preloaded, it still cannot fail), and a
 * node whose groups part too far down keeps the usual copy.  So does a
 * compact node made full once it holds full nodes only: the reserve never
 * pays for it, and without a node it stays compact.
 */
#include "helpers.h"
#include "descend.h"
#include "model.h"

#include <errno.h>
#include <unistd.h>

static struct radix_tree_root tree;

static void setup(void)
{
	urcu_memb_register_thread();
	INIT_RADIX_TREE(&tree, GFP_KERNEL);
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
}

static void teardown(void)
{
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
	urcu_memb_unregister_thread();
}

TestSuite(preload, .init = setup, .fini = teardown);

static struct rcuradix_stats stats(void)
{
	struct rcuradix_stats st;

	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
	return st;
}

Test(preload, reserve_covers_the_worst_case_with_the_allocator_failing)
{
	static const gfp_t masks[] = { GFP_KERNEL, GFP_ATOMIC, GFP_NOWAIT };

	for (unsigned int m = 0; m < 3; m++) {
		struct radix_tree_root r;
		struct titem *zero, *top;

		radix_tree_init_flavor(&r, masks[m], &urcu_memb_flavor);
		/* Key 0 first (a preload makes it possible on atomic trees). */
		cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
		zero = t_insert_new(&r, 0);
		radix_tree_preload_end();

		cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
		cr_assert_geq(stats().nodes_reserved, RT_PRELOAD_SIZE);
		rt_fault_fail_all(true);
		top = t_insert_new(&r, ULONG_MAX);  /* grows to full height + new path */
		rt_fault_fail_all(false);
		radix_tree_preload_end();
		cr_assert_eq(t_height(&r), RT_MAX_LEVELS);
		t_verify(&r);
		(void)zero;
		(void)top;
		t_finish(&r);
	}
}

Test(preload, failed_preload_reserves_nothing_extra)
{
	struct radix_tree_root atomic;
	struct rcuradix_stats before, after;

	rcuradix_thread_cache_flush();
	/* Fails part-way through filling the reserve. */
	before = stats();
	rt_fault_fail_nth(5);
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), -ENOMEM);
	after = stats();
	cr_assert_eq(after.nodes_reserved, before.nodes_reserved);
	cr_assert_eq(after.nodes_live, before.nodes_live);
	cr_assert_gt(after.alloc_failures, before.alloc_failures);
	/* From a partly filled reserve too (an atomic tree's insert takes
	 * its node from the reserve). */
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	radix_tree_preload_end();
	radix_tree_init_flavor(&atomic, GFP_ATOMIC, &urcu_memb_flavor);
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	t_insert_new(&atomic, 1UL << 40);  /* consumes one reserved node */
	radix_tree_preload_end();
	before = stats();
	cr_assert_lt(before.nodes_reserved, RT_PRELOAD_SIZE);
	rt_fault_fail_all(true);
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), -ENOMEM);
	rt_fault_fail_all(false);
	after = stats();
	cr_assert_eq(after.nodes_reserved, before.nodes_reserved);
	cr_assert_eq(after.nodes_live, before.nodes_live);
	t_empty(&atomic);
	t_finish(&tree);
}

/* A GFP_KERNEL insert allocates its nodes itself (the kernel's rule) and
 * leaves the reserve alone; a GFP_ATOMIC insert takes them from it, and the
 * next preload refills exactly those. */
Test(preload, reserve_survives_between_uses_and_refills_only_what_was_used)
{
	struct radix_tree_root atomic;
	struct rcuradix_stats before, after;

	radix_tree_init_flavor(&atomic, GFP_ATOMIC, &urcu_memb_flavor);
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	before = stats();
	t_insert_new(&tree, 0);  /* a GFP_KERNEL tree: allocates one node */
	after = stats();
	cr_assert_eq(after.nodes_reserved, before.nodes_reserved);
	cr_assert_eq(after.nodes_allocated - before.nodes_allocated, 1);
	t_insert_new(&atomic, 0);  /* empty tree, one node from the reserve */
	radix_tree_preload_end();
	before = stats();
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	radix_tree_preload_end();
	after = stats();
	cr_assert_eq(after.nodes_allocated - before.nodes_allocated, 1,
		     "preload must refill exactly the one node the insert used");
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	t_insert_new(&atomic, 1UL << 20);  /* grows: a new top node */
	radix_tree_preload_end();
	before = stats();
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	radix_tree_preload_end();
	after = stats();
	cr_assert_geq(after.nodes_allocated - before.nodes_allocated, 1);
	cr_assert_leq(after.nodes_allocated - before.nodes_allocated, RT_INSERT_MAX_NODES);
	cr_assert_geq(after.nodes_reserved, RT_PRELOAD_SIZE);
	cr_assert_leq(after.bytes_reserved, 16384, "a filled reserve holds %lu bytes",
		      after.bytes_reserved);
	t_empty(&atomic);
	t_finish(&tree);
}

Test(preload, maybe_preload_only_preloads_when_the_mask_may_allocate)
{
	rcuradix_thread_cache_flush();
	cr_assert_eq(radix_tree_maybe_preload(GFP_ATOMIC), 0);
	cr_assert_eq(stats().nodes_reserved, 0);
	radix_tree_preload_end();
	cr_assert_eq(radix_tree_maybe_preload(GFP_NOWAIT), 0);
	cr_assert_eq(stats().nodes_reserved, 0);
	radix_tree_preload_end();
	cr_assert_eq(radix_tree_maybe_preload(GFP_KERNEL), 0);
	cr_assert_geq(stats().nodes_reserved, RT_PRELOAD_SIZE);
	radix_tree_preload_end();
	rt_fault_fail_all(true);
	rcuradix_thread_cache_flush();
	cr_assert_eq(radix_tree_maybe_preload(GFP_KERNEL), -ENOMEM);
	cr_assert_eq(radix_tree_maybe_preload(GFP_ATOMIC), 0);
	radix_tree_preload_end();
	rt_fault_fail_all(false);
	t_finish(&tree);
}

/* The README's pattern: preload outside the lock, then look up and insert
 * under it, then preload_end. */
Test(preload, flush_inside_a_window_keeps_the_reserve)
{
	struct radix_tree_root atomic;

	radix_tree_init_flavor(&atomic, GFP_ATOMIC, &urcu_memb_flavor);
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	rcuradix_thread_cache_flush();  /* refused: the window is open */
	cr_assert_geq(stats().nodes_reserved, RT_PRELOAD_SIZE);
	rt_fault_fail_all(true);
	t_insert_new(&atomic, ULONG_MAX);  /* the promise still holds */
	rt_fault_fail_all(false);
	radix_tree_preload_end();
	rcuradix_thread_cache_flush();  /* outside the window: drained */
	cr_assert_eq(stats().nodes_reserved, 0);
	t_empty(&atomic);
	t_finish(&tree);
}

Test(preload, lookup_then_insert_under_the_lock)
{
	for (unsigned long id = 0; id < 2000; id += 3) {
		struct titem *item = titem_new(id);

		cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
		radix_tree_lock(&tree);
		if (!radix_tree_lookup(&tree, id))
			t_insert(&tree, id, item);
		radix_tree_unlock(&tree);
		radix_tree_preload_end();
	}
	t_verify(&tree);
	t_finish(&tree);
}

/*
 * Harmless misuse is reported with one line, once per process, and changes
 * nothing: each case runs twice in a child.
 */
static int unbalanced_end_twice(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		radix_tree_preload_end();
		T_CHILD_CHECK(!rt_preload_window_open());
		/* The window count did not go below zero. */
		T_CHILD_CHECK(radix_tree_preload(GFP_KERNEL) == 0);
		T_CHILD_CHECK(rt_preload_window_open());
		radix_tree_preload_end();
		T_CHILD_CHECK(!rt_preload_window_open());
	}
	return 0;
}

static int nested_preload_twice(void *arg)
{
	struct rcuradix_stats st;

	(void)arg;
	for (int i = 0; i < 2; i++) {
		T_CHILD_CHECK(radix_tree_preload(GFP_KERNEL) == 0);
		T_CHILD_CHECK(radix_tree_preload(GFP_KERNEL) == 0);
		radix_tree_preload_end();
		T_CHILD_CHECK(rt_preload_window_open());
		radix_tree_preload_end();
		T_CHILD_CHECK(!rt_preload_window_open());
		T_CHILD_CHECK(rcuradix_get_stats(&st, sizeof(st)) == 0);
		T_CHILD_CHECK(st.nodes_reserved >= RT_PRELOAD_SIZE);
	}
	return 0;
}

static int flush_in_window_twice(void *arg)
{
	struct rcuradix_stats before, after;

	(void)arg;
	for (int i = 0; i < 2; i++) {
		T_CHILD_CHECK(radix_tree_preload(GFP_KERNEL) == 0);
		T_CHILD_CHECK(rcuradix_get_stats(&before, sizeof(before)) == 0);
		rcuradix_thread_cache_flush();
		T_CHILD_CHECK(rcuradix_get_stats(&after, sizeof(after)) == 0);
		T_CHILD_CHECK(after.nodes_reserved == before.nodes_reserved);
		T_CHILD_CHECK(after.nodes_live == before.nodes_live);
		T_CHILD_CHECK(rt_preload_window_open());
		radix_tree_preload_end();
	}
	rcuradix_thread_cache_flush();  /* outside the window: drained */
	T_CHILD_CHECK(rcuradix_get_stats(&after, sizeof(after)) == 0);
	T_CHILD_CHECK(after.nodes_reserved == 0);
	return 0;
}

static int balanced_pairs(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		T_CHILD_CHECK(radix_tree_preload(GFP_KERNEL) == 0);
		radix_tree_preload_end();
	}
	T_CHILD_CHECK(radix_tree_maybe_preload(GFP_ATOMIC) == 0);
	radix_tree_preload_end();
	rcuradix_thread_cache_flush();
	return 0;
}

Test(preload, harmless_misuse_is_reported_once_and_changes_nothing)
{
	t_assert_lives(unbalanced_end_twice, NULL,
		       "rcuradix: radix_tree_preload_end: unbalanced: no preload window is open\n");
	t_assert_lives(nested_preload_twice, NULL, "rcuradix: radix_tree_preload: nested preload "
		       "(a radix_tree_preload_end() missing?)\n");
	t_assert_lives(flush_in_window_twice, NULL, "rcuradix: rcuradix_thread_cache_flush: "
		       "inside a preload window: the reserve is kept for the next insert\n");
	t_assert_lives(balanced_pairs, NULL, "");
	t_finish(&tree);
}

/* Thousands of threads preload, insert their key and exit without flushing:
 * their reserves must come back through the thread-exit destructor. */
static void *churn_thread(void *arg)
{
	unsigned long key = (unsigned long)(uintptr_t)arg;
	struct titem *item = titem_new(key);
	long ret;

	urcu_memb_register_thread();
	if (radix_tree_preload(GFP_KERNEL) != 0)
		return (void *)1L;
	ret = radix_tree_insert(&tree, key, item) != 0;
	radix_tree_preload_end();
	urcu_memb_unregister_thread();
	return (void *)ret;
}

Test(preload, thread_exit_returns_the_reserve, .timeout = 120)
{
	unsigned long failures = 0, nthreads = t_scaled(3000) & ~1UL;

	for (unsigned long i = 0; i < nthreads; i += 2) {
		pthread_t a, b;
		void *ra, *rb;

		cr_assert_eq(pthread_create(&a, NULL, churn_thread, (void *)(uintptr_t)(i << 8)), 0);
		cr_assert_eq(pthread_create(&b, NULL, churn_thread,
					    (void *)(uintptr_t)((i + 1) << 8)), 0);
		pthread_join(a, &ra);
		pthread_join(b, &rb);
		failures += (unsigned long)(uintptr_t)ra + (unsigned long)(uintptr_t)rb;
	}
	cr_assert_eq(failures, 0);
	cr_assert_eq(stats().nodes_reserved, 0, "exited threads left %lu reserved nodes",
		     stats().nodes_reserved);
	for (unsigned long i = 0; i < nthreads; i++)
		cr_assert(titem_ok(radix_tree_lookup(&tree, i << 8), i << 8));
	t_verify(&tree);
	t_finish(&tree);
}

/*
 * The node counters are kept per thread and summed by rcuradix_get_stats();
 * a thread's record is folded into the totals when it exits.  Threads that
 * allocate nodes (inserts), queue frees (deletes) and exit without
 * flushing: their allocations must still be counted after they are gone,
 * and after destroy, barrier and flush the sums must come back to zero
 * live, pending and reserved nodes.  Records dropped at exit would leave
 * the frees counted by the call_rcu worker without their allocations.
 */
static void *counting_thread(void *arg)
{
	unsigned long base = (unsigned long)(uintptr_t)arg;

	urcu_memb_register_thread();
	for (unsigned long k = 0; k < 200; k++) {
		if (radix_tree_insert(&tree, base + k * RT_MAP_SIZE, titem_new(base + k)) != 0)
			return (void *)1L;
	}
	for (unsigned long k = 0; k < 200; k += 2) {
		struct titem *item = radix_tree_delete(&tree, base + k * RT_MAP_SIZE);

		if (!item)
			return (void *)1L;
		titem_free_rcu(&urcu_memb_flavor, item);
	}
	urcu_memb_unregister_thread();
	return NULL;
}

Test(preload, counters_of_exited_threads_are_kept, .timeout = 60)
{
	struct rcuradix_stats before, after;
	unsigned long failures = 0;

	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	before = stats();
	for (unsigned long round = 0; round < 4; round++) {
		pthread_t threads[2];
		void *ret;

		for (unsigned long i = 0; i < 2; i++)
			cr_assert_eq(pthread_create(&threads[i], NULL, counting_thread,
						    (void *)(uintptr_t)((round * 2 + i) << 32)), 0);
		for (unsigned long i = 0; i < 2; i++) {
			cr_assert_eq(pthread_join(threads[i], &ret), 0);
			failures += ret != NULL;
		}
	}
	cr_assert_eq(failures, 0);
	after = stats();
	/* Every thread built at least its own path of nodes. */
	cr_assert_geq(after.nodes_allocated - before.nodes_allocated, 8 * 2);
	cr_assert_eq(after.nodes_reserved, before.nodes_reserved,
		     "exited threads left %lu reserved nodes",
		     after.nodes_reserved - before.nodes_reserved);
	urcu_memb_barrier();  /* the items freed by the threads */
	t_verify(&tree);
	t_finish(&tree);  /* destroy, barrier, flush: zero live nodes */
}

/* ---- allocation failure -------------------------------------------------- */

/* Keys that grow the tree one level per insert, then a few that split nodes. */
static unsigned int oom_keys(unsigned long *keys)
{
	unsigned int n = 0;

	for (unsigned int level = 0; level < RT_MAX_LEVELS; level++)
		keys[n++] = 1UL << (level * RT_MAP_SHIFT);
	keys[n++] = 0;
	keys[n++] = ULONG_MAX;
	keys[n++] = ULONG_MAX / 3;
	keys[n++] = (1UL << 33) + 7;
	keys[n++] = RT_MAP_SIZE * RT_MAP_SIZE + 1;
	/* A leaf filled one key at a time: a compact leaf copied into larger
	 * classes, then into a full node. */
	for (unsigned long k = 2; k < RT_MAP_SIZE; k++)
		keys[n++] = k;
	/* More spread keys than a compact node holds: groups of them move
	 * into new children, and keys leave the compressed paths. */
	for (unsigned long i = 1; i <= RT_C_MAX_ENTRIES + 8; i++)
		keys[n++] = (i * 0x9e3779b97f4a7c15UL) >> 8;
	return n;
}

/* The tree holds exactly the model's entries. */
static void tree_equals_model(const struct model *m)
{
	void **slots[64];
	unsigned long indices[64], next = 0;
	size_t pos = 0;
	unsigned int n;

	do {
		n = radix_tree_gang_lookup_slot(&tree, slots, indices, next, 64);
		for (unsigned int i = 0; i < n; i++, pos++) {
			cr_assert_lt(pos, m->n);
			cr_assert_eq(indices[i], m->e[pos].key);
			cr_assert_eq(*slots[i], m->e[pos].item);
		}
		if (n)
			next = indices[n - 1] + 1;
	} while (n == 64 && next != 0);
	cr_assert_eq(pos, m->n);
	t_verify(&tree);
}

/*
 * Run the workload with the @nth node allocation failing (0: none); returns
 * how many inserts failed.  A GFP_KERNEL insert asks the allocator for its
 * nodes and falls back on the thread's reserve; without @preload the
 * reserve is emptied before each insert, so that a failure can land on any
 * node and fail the insert.  With @preload, preload first (retrying while
 * the preload itself fails, which refills only what the previous insert
 * took): the insert must then succeed.
 */
static unsigned int oom_run(unsigned long nth, bool preload)
{
	unsigned long keys[256];
	unsigned int nkeys = oom_keys(keys), failed = 0;
	struct model m;

	model_init(&m);
	rt_fault_fail_nth(nth);
	for (unsigned int round = 0; round < 2; round++) {
		for (unsigned int i = 0; i < nkeys; i++) {
			struct titem *item = titem_new(keys[i]);
			int ret;

			if (!preload)
				rcuradix_thread_cache_flush();
			if (preload)
				while (radix_tree_preload(GFP_KERNEL) != 0)
					;
			ret = radix_tree_insert(&tree, keys[i], item);
			if (preload)
				radix_tree_preload_end();
			if (model_find(&m, keys[i])) {
				cr_assert_eq(ret, -EEXIST, "insert(%#lx) = %d", keys[i], ret);
				titem_free(item);
			} else if (ret == 0) {
				cr_assert(model_insert(&m, keys[i], item));
			} else {
				cr_assert_eq(ret, -ENOMEM, "insert(%#lx) = %d", keys[i], ret);
				cr_assert_not(preload, "insert failed after a successful preload");
				titem_free(item);
				failed++;
			}
			tree_equals_model(&m);
		}
		/* Delete half, so the second round rebuilds paths. */
		for (unsigned int i = round; i < nkeys; i += 2) {
			void *item = radix_tree_delete(&tree, keys[i]);

			cr_assert_eq(item, model_delete(&m, keys[i]));
			if (item)
				titem_free(item);
			tree_equals_model(&m);
		}
	}
	rt_fault_fail_nth(0);
	model_free(&m);
	t_finish_nowait(&tree);
	return failed;
}

/* Node allocations a clean run of the workload makes. */
static unsigned long oom_allocations(bool preload)
{
	struct rcuradix_stats before = stats(), after;

	cr_assert_eq(oom_run(0, preload), 0);
	after = stats();
	return after.nodes_allocated - before.nodes_allocated;
}

Test(preload, every_allocation_failure_point_leaves_the_tree_unchanged, .timeout = 120)
{
	unsigned long total = oom_allocations(false), points = 0;
	unsigned int failed_total = 0;

	for (unsigned long nth = 1; nth <= total; nth++) {
		unsigned int failed = oom_run(nth, false);

		failed_total += failed;
		points += failed > 0;
	}
	cr_assert_gt(points, RT_MAX_LEVELS, "too few failure points reached an insert");
	fprintf(stderr, "OOM test: %lu allocation points, %lu made an insert fail, "
			"%u failed inserts, every one left the tree unchanged\n",
		total, points, failed_total);
	t_finish(&tree);
}

Test(preload, preloaded_inserts_never_fail_whatever_fails, .timeout = 120)
{
	unsigned long total = oom_allocations(true);

	for (unsigned long nth = 1; nth <= total; nth++)
		cr_assert_eq(oom_run(nth, true), 0);
	t_finish(&tree);
}

/* ---- a copy that demotes every group -------------------------------------- */

/*
 * Keys below 2^36 drawn by a fixed xorshift: a top node whose digits each
 * collect a few keys, so that it overflows again and again and demotes a
 * group at each copy, as the nodes two levels above the items of uniform
 * 64-bit keys do.  The sequence is fixed: the tests reach the same states
 * every run.
 */
static unsigned long ripe_key(unsigned long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x & ((1UL << 36) - 1);
}

/* Would an insert of @key copy the top node, a compact node whose line of
 * copies demoted RT_DEMOTE_ALL_AFTER times, with no room left? */
static bool copy_would_demote_all(unsigned long key)
{
	struct rt_path path;
	const struct rt_cnode *top;
	bool ripe = false;

	radix_tree_lock(&tree);
	rt_descend(&tree, key, &path, NULL);
	if (path.depth == 1 && path.end == RT_END_ABSENT &&
	    rt_entry_compact(path.step[0].entry)) {
		top = rt_entry_cnode(path.step[0].entry);
		ripe = top->demotions >= RT_DEMOTE_ALL_AFTER && top->next == top->cap &&
		       !top->deleted;
	}
	radix_tree_unlock(&tree);
	return ripe;
}

/* Demoting copies counted, of every kind but the one of every group. */
static unsigned long demoting_copies(void)
{
	return rt_transitions[RT_TR_DEMOTE] + rt_transitions[RT_TR_DEMOTE_TWICE] +
	       rt_transitions[RT_TR_DEMOTE_FOR_FULL] + rt_transitions[RT_TR_DEMOTE_PAIRS];
}

/*
 * Insert the sequence's keys (into @keys and @items) until the next one
 * would copy the top with every group demoted; returns how many went in
 * and leaves that next key in *@next.  Each of the top's demoting copies
 * (no other node demotes: the keys under a digit are few) is counted.
 */
static unsigned int grow_until_ripe(unsigned long *keys, struct titem **items,
				    unsigned int max, unsigned long *next)
{
	unsigned long x = 0x9e3779b97f4a7c15UL, before = demoting_copies();
	unsigned int n = 0;

	for (;;) {
		unsigned long key = ripe_key(&x);

		if (radix_tree_lookup(&tree, key))
			continue;
		if (copy_would_demote_all(key)) {
			*next = key;
			break;
		}
		cr_assert_lt(n, max, "%u keys and the top is not ripe", n);
		keys[n] = key;
		items[n++] = t_insert_new(&tree, key);
	}
	cr_assert_eq(demoting_copies() - before, RT_DEMOTE_ALL_AFTER,
		     "the top demoted %lu times, its line of copies says %u",
		     demoting_copies() - before, RT_DEMOTE_ALL_AFTER);
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE_ALL], 0);
	t_verify(&tree);
	return n;
}

static void delete_all(const unsigned long *keys, struct titem **items, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		t_delete(&tree, keys[i], items[i]);
	t_finish(&tree);
}

/* Does the top hold children only (a full node above the leaves, or a
 * compact node without items)? */
static bool top_holds_children_only(void)
{
	void *top = rt_entry_locked(&tree, tree.rnode);
	void **slots;
	unsigned int n;

	if (!rt_entry_compact(top))
		return rt_entry_level(top) > 0;
	slots = rt_entry_slots(top, &n);
	for (unsigned int i = 0; i < n; i++)
		if (slots[i] && !rt_is_internal(slots[i]))
			return false;
	return true;
}

#define RIPE_MAX 1024

/*
 * A node whose line of copies demoted RT_DEMOTE_ALL_AFTER times, overflowing
 * again: the copy moves every group of items into a node of its own, and
 * holds children only.  Its nodes come from the allocator, not from the
 * reserve.
 */
Test(preload, a_node_that_keeps_overflowing_demotes_every_group)
{
	static unsigned long keys[RIPE_MAX + 1];
	static struct titem *items[RIPE_MAX + 1];
	unsigned long before[RT_TR_COUNT];
	struct rcuradix_stats st0, st1;
	unsigned int n = grow_until_ripe(keys, items, RIPE_MAX, &keys[RIPE_MAX]);

	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	memcpy(before, rt_transitions, sizeof(before));
	st0 = stats();
	keys[n] = keys[RIPE_MAX];
	items[n] = t_insert_new(&tree, keys[n]);
	st1 = stats();
	radix_tree_preload_end();
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE_ALL] - before[RT_TR_DEMOTE_ALL], 1);
	cr_assert_eq(demoting_copies(), before[RT_TR_DEMOTE] + before[RT_TR_DEMOTE_TWICE] +
		     before[RT_TR_DEMOTE_FOR_FULL] + before[RT_TR_DEMOTE_PAIRS]);
	cr_assert_eq(st1.nodes_reserved, st0.nodes_reserved,
		     "the copy took %ld nodes from the reserve",
		     (long)st0.nodes_reserved - (long)st1.nodes_reserved);
	cr_assert_geq(st1.nodes_allocated - st0.nodes_allocated, 3,
		     "%lu nodes: the copy and one group", st1.nodes_allocated - st0.nodes_allocated);
	radix_tree_lock(&tree);
	cr_assert(top_holds_children_only(), "the top still holds items");
	radix_tree_unlock(&tree);
	t_verify(&tree);
	delete_all(keys, items, n + 1);
}

/*
 * The same copy, with the n-th node allocation failing and the reserve
 * empty (n = 1, 2, ...): it cannot get every node, gives back what it got,
 * and makes the copy the reserve covers, whose nodes the allocator gives
 * (the fault was spent); the insert succeeds with one demotion, leaks
 * nothing, and the next overflow tries again.  Once n is past the copy's
 * allocations, every group is demoted.
 */
Test(preload, a_copy_that_cannot_get_every_node_demotes_one_group, .timeout = 60)
{
	static unsigned long keys[RIPE_MAX + 1];
	static struct titem *items[RIPE_MAX + 1];
	unsigned long nth;

	for (nth = 1;; nth++) {
		unsigned long before[RT_TR_COUNT];
		unsigned int n = grow_until_ripe(keys, items, RIPE_MAX, &keys[RIPE_MAX]);
		struct titem *item = titem_new(keys[RIPE_MAX]);
		int ret;

		cr_assert_lt(nth, 200, "the copy still fails to get its nodes");
		rcuradix_thread_cache_flush();
		memcpy(before, rt_transitions, sizeof(before));
		rt_fault_fail_nth(nth);
		ret = radix_tree_insert(&tree, keys[RIPE_MAX], item);
		rt_fault_fail_nth(0);
		cr_assert_eq(ret, 0, "insert with allocation %lu failing = %d", nth, ret);
		keys[n] = keys[RIPE_MAX];
		items[n] = item;
		t_verify(&tree);
		cr_assert_eq(radix_tree_lookup(&tree, keys[n]), item);
		if (rt_transitions[RT_TR_DEMOTE_ALL] != before[RT_TR_DEMOTE_ALL]) {
			delete_all(keys, items, n + 1);
			break;
		}
		cr_assert_eq(demoting_copies() - (before[RT_TR_DEMOTE] + before[RT_TR_DEMOTE_TWICE] +
						  before[RT_TR_DEMOTE_FOR_FULL] +
						  before[RT_TR_DEMOTE_PAIRS]),
			     1, "allocation %lu failing: not one demotion", nth);
		delete_all(keys, items, n + 1);  /* checks that nothing leaked */
	}
	cr_assert_gt(nth, 2, "every group demoted with the first allocation failing");
}

/* With every allocation failing: after a preload the insert still succeeds
 * (the copy the reserve covers); without one, -ENOMEM and nothing changed. */
Test(preload, a_ripe_copy_never_fails_a_preloaded_insert)
{
	static unsigned long keys[RIPE_MAX + 1];
	static struct titem *items[RIPE_MAX + 1];
	unsigned int n = grow_until_ripe(keys, items, RIPE_MAX, &keys[RIPE_MAX]);
	struct titem *item = titem_new(keys[RIPE_MAX]);
	struct rcuradix_stats st0, st1;
	unsigned long nodes = tree.nr_nodes;
	int ret;

	tree.flavor->barrier();  /* the copies' old nodes freed: live stays put */
	rcuradix_thread_cache_flush();
	st0 = stats();
	rt_fault_fail_all(true);
	ret = radix_tree_insert(&tree, keys[RIPE_MAX], item);
	rt_fault_fail_all(false);
	st1 = stats();
	cr_assert_eq(ret, -ENOMEM);
	cr_assert_null(radix_tree_lookup(&tree, keys[RIPE_MAX]));
	cr_assert_eq(tree.nr_nodes, nodes);
	cr_assert_eq(st1.nodes_live, st0.nodes_live, "live nodes %lu -> %lu", st0.nodes_live,
		     st1.nodes_live);
	cr_assert(copy_would_demote_all(keys[RIPE_MAX]), "the failed insert changed the top");
	t_verify(&tree);

	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	rt_fault_fail_all(true);
	ret = radix_tree_insert(&tree, keys[RIPE_MAX], item);
	rt_fault_fail_all(false);
	radix_tree_preload_end();
	cr_assert_eq(ret, 0, "a preloaded insert = %d", ret);
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE_ALL], 0);
	keys[n] = keys[RIPE_MAX];
	items[n] = item;
	t_verify(&tree);
	delete_all(keys, items, n + 1);
}

#if RT_MAP_SHIFT == 6
/*
 * A top (level 5) of pairs of keys that part at the leaves, (g << 30) | 0
 * and | 1: each overflow demotes one pair into a leaf (a pair that parts
 * further down than one level is not moved with others), so the top
 * overflows at every insert.  When its line has demoted
 * RT_DEMOTE_ALL_AFTER times, its children are all far down: moving every
 * pair would take a bridge each under a full node, more than one may
 * have.  The copy is the usual one, and its count starts again, so that
 * the next overflows do not look for every group again.  (The 8-slot
 * build has 8 digits: never more far children than bridges.)
 */
Test(preload, a_node_whose_groups_part_far_down_keeps_the_usual_copy)
{
	unsigned long keys[120], before[RT_TR_COUNT];
	struct titem *items[120];
	unsigned int n = 0, i;
	int ripe = -1;

	for (unsigned long j = 0; j < 2; j++)
		for (unsigned long g = 1; g <= 60; g++)
			keys[n++] = (g << 30) | j;
	for (i = 0; i < n && ripe < 0; i++) {
		if (copy_would_demote_all(keys[i])) {
			ripe = (int)i;
			break;
		}
		items[i] = t_insert_new(&tree, keys[i]);
	}
	cr_assert_geq(ripe, 0, "the top never demoted %u times", RT_DEMOTE_ALL_AFTER);
	memcpy(before, rt_transitions, sizeof(before));
	items[i] = t_insert_new(&tree, keys[i]);
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE_ALL], before[RT_TR_DEMOTE_ALL]);
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE] - before[RT_TR_DEMOTE], 1);
	radix_tree_lock(&tree);
	cr_assert(rt_entry_compact(tree.rnode));
	cr_assert_eq(rt_entry_cnode(tree.rnode)->demotions, 1,
		     "the copy's count is %lu, not started again",
		     rt_entry_cnode(tree.rnode)->demotions);
	radix_tree_unlock(&tree);
	t_verify(&tree);
	delete_all(keys, items, i + 1);
}
#endif

/*
 * A compact top over two children (the keys under its digits 0 and 1, in
 * order, each child covering RT_MAP_SIZE runs of 64 keys), kept compact by
 * two items that share digit 2 until the second child holds a run and a
 * half (as in basic.c's transition workload).  full_parent_start() builds
 * that in @r; full_parent_next() then inserts the child's next key, in a
 * preload window, and says whether the insert made the top full; @fail:
 * with every allocation failing.
 */
#define FP_RUN 64UL
#define FP_SPAN (FP_RUN * RT_MAP_SIZE)
#define FP_FIRST (FP_SPAN + FP_RUN + FP_RUN / 2)

static void full_parent_start(struct radix_tree_root *r)
{
	struct titem *pair[2];

	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	pair[0] = t_insert_new(r, 2 * FP_SPAN);
	radix_tree_preload_end();
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	pair[1] = t_insert_new(r, 2 * FP_SPAN + 1);
	radix_tree_preload_end();
	for (unsigned long k = 0; k < FP_FIRST; k++) {
		cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
		t_insert_new(r, k);
		radix_tree_preload_end();
	}
	t_delete(r, 2 * FP_SPAN, pair[0]);
	t_delete(r, 2 * FP_SPAN + 1, pair[1]);
}

static bool top_full(struct radix_tree_root *r)
{
	bool full;

	radix_tree_lock(r);
	full = !rt_entry_compact(rt_entry_locked(r, r->rnode));
	radix_tree_unlock(r);
	return full;
}

/* Does @r's top hold two full nodes and nothing else? */
static bool top_over_two_full_nodes(struct radix_tree_root *r)
{
	void *top, **slots;
	unsigned int n, full = 0, other = 0;

	radix_tree_lock(r);
	top = rt_entry_locked(r, r->rnode);
	slots = rt_entry_slots(top, &n);
	for (unsigned int i = 0; i < n; i++) {
		void *e = rt_entry_locked(r, slots[i]);

		if (e && rt_is_internal(e) && !rt_entry_compact(e))
			full++;
		else if (e)
			other++;
	}
	radix_tree_unlock(r);
	return full == 2 && other == 0;
}

static bool full_parent_next(struct radix_tree_root *r, unsigned long key, bool fail)
{
	unsigned long promoted = rt_transitions[RT_TR_PARENT_FULL];
	struct titem *item = titem_new(key);
	bool was_full = top_full(r);
	int ret;

	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	rt_fault_fail_all(fail);
	ret = radix_tree_insert(r, key, item);
	rt_fault_fail_all(false);
	radix_tree_preload_end();
	cr_assert_eq(ret, 0, "insert(%#lx) = %d", key, ret);
	cr_assert_eq(radix_tree_lookup(r, key), item);
	cr_assert_eq(rt_transitions[RT_TR_PARENT_FULL] - promoted, !was_full && top_full(r),
		     "insert(%#lx): %lu promotions, the top %s -> %s", key,
		     rt_transitions[RT_TR_PARENT_FULL] - promoted, was_full ? "full" : "compact",
		     top_full(r) ? "full" : "compact");
	return !was_full && top_full(r);
}

static void full_parent_finish(struct radix_tree_root *r, unsigned long end)
{
	t_verify(r);
	for (unsigned long k = 0; k < end; k++)
		t_delete(r, k, radix_tree_lookup(r, k));
	t_finish(r);
}

/* The insert that makes the second child full makes the top full too: a
 * node from the allocator, none from the reserve; the top's slots are the
 * children's, with their tags, and every key is found. */
Test(preload, a_compact_node_over_full_nodes_becomes_full)
{
	unsigned long key = FP_FIRST;
	struct rcuradix_stats st0, st1;

	full_parent_start(&tree);
	cr_assert_not(top_full(&tree));
	cr_assert_not_null(radix_tree_tag_set(&tree, 5, 0));
	cr_assert_not_null(radix_tree_tag_set(&tree, FP_SPAN + 3, 1));
	for (;; key++) {
		cr_assert_lt(key, 2 * FP_SPAN, "the top never became full");
		st0 = stats();
		if (full_parent_next(&tree, key, false))
			break;
	}
	st1 = stats();
	cr_assert_eq(st1.nodes_reserved, st0.nodes_reserved, "the reserve gave %ld nodes",
		     (long)st0.nodes_reserved - (long)st1.nodes_reserved);
	radix_tree_lock(&tree);
	cr_assert_eq(__builtin_popcountl(rt_entry_node(tree.rnode)->present), 2);
	radix_tree_unlock(&tree);
	t_verify(&tree);  /* the tags of each slot summarize the child's */
	cr_assert(radix_tree_tag_get(&tree, 5, 0) && !radix_tree_tag_get(&tree, 5, 1));
	cr_assert(radix_tree_tag_get(&tree, FP_SPAN + 3, 1) &&
		  !radix_tree_tag_get(&tree, FP_SPAN + 3, 0));
	cr_assert(radix_tree_tagged(&tree, 0) && radix_tree_tagged(&tree, 1));
	for (unsigned long k = 0; k <= key; k++)
		cr_assert_not_null(radix_tree_lookup(&tree, k), "key %#lx lost", k);
	full_parent_finish(&tree, key + 1);
}

/* The rest of @r's second child inserted (@fail: with every allocation
 * failing), and the top never made full, though it ends over two full
 * nodes only (@why: the reason it must not be made full). */
static void full_parent_kept(struct radix_tree_root *r, bool fail, const char *why)
{
	bool promoted = false;

	full_parent_start(r);
	for (unsigned long key = FP_FIRST; key < 2 * FP_SPAN; key++)
		promoted |= full_parent_next(r, key, fail);
	cr_assert_not(promoted, "the top became full %s", why);
	cr_assert_not(top_full(r));
	cr_assert(top_over_two_full_nodes(r), "the second child never became full");
	full_parent_finish(r, 2 * FP_SPAN);
}

/*
 * The same insert with every allocation failing, after a preload: the
 * child's copy comes from the reserve, and the top, which would take a
 * node from the allocator, stays compact; no later insert into the same
 * child tries again.  Nothing leaks.
 */
Test(preload, a_node_over_full_nodes_stays_compact_without_a_node)
{
	full_parent_kept(&tree, true, "with every allocation failing");
}

/* A tree that may not allocate inside insert keeps the top compact: the
 * reserve covers the insert's own nodes only. */
Test(preload, a_tree_that_may_not_allocate_keeps_the_node_compact)
{
	struct radix_tree_root atomic;

	radix_tree_init_flavor(&atomic, GFP_ATOMIC, &urcu_memb_flavor);
	full_parent_kept(&atomic, false, "in a GFP_ATOMIC tree");
}
