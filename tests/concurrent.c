/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * concurrent.c - lock-free readers against a writer, memb and qsbr flavors.
 *
 * The writer inserts and deletes "churn" keys, among them keys near 2^40
 * and ULONG_MAX that make the tree grow to full height and shrink back, and
 * frees deleted items through call_rcu, which marks them DEAD and poisons
 * them before free().  Readers check, with every kind of lookup, that:
 *   - every item they see is LIVE and carries the key it was found under
 *     (a DEAD or poisoned item means a node or item was reclaimed before a
 *     grace period, or a lookup followed a stale path to the wrong key);
 *   - every "stable" key (inserted before the readers start, never touched
 *     again) is always found, including by gang lookups spanning it;
 *   - keys of a range nobody ever fills are never found;
 *   - gang lookups return strictly ascending keys >= first whose items
 *     carry exactly the returned index; reverse gang lookups strictly
 *     descending keys <= last, and the predecessor a live item at or
 *     above the highest stable key below its key.
 * Failures are counted in the threads and asserted in the main thread.
 *
 * A second test runs readers while compact nodes over full nodes become
 * full nodes, round after round (see run_full_parent()).
 *
 * Regression it caught: the walk engine found an inner slot non-empty,
 * reloaded it and got NULL (a concurrent delete in between), then went on
 * scanning with the NULL as its current node and crashed.  It now keeps the
 * node and moves past that slot.
 */
#include "helpers.h"

#include <errno.h>

#define NR_READERS 2
#define WRITER_OPS t_scaled(300000)
#define NR_STABLE 256
#define NR_CHURN 512
#define NEVER_BASE (1UL << 24)
#define NEVER_SPAN (1UL << 16)

static struct radix_tree_root tree;
static const struct t_flavor_ops *ops;
static int stop;
static unsigned long errors, reads;
static unsigned long stable_keys[NR_STABLE], churn_keys[NR_CHURN];

static void error(const char *what, unsigned long key)
{
	if (uatomic_add_return(&errors, 1) <= 10)
		fprintf(stderr, "reader error: %s (key %#lx)\n", what, key);
}

static bool is_stable(unsigned long key)
{
	return key < NR_STABLE * 3 && key % 3 == 0;
}

/* Gang lookup from @first: ascending, >= first, items match indices, and
 * no stable key inside the returned span is missing. */
static void check_gang(unsigned long first)
{
	void **slots[16];
	unsigned long indices[16];
	unsigned int n = radix_tree_gang_lookup_slot(&tree, slots, indices, first, 16);
	unsigned long expect_stable = first;

	for (unsigned int i = 0; i < n; i++) {
		void *item = rcu_dereference(*slots[i]);

		if (indices[i] < first || (i && indices[i] <= indices[i - 1]))
			error("gang keys not ascending from first", indices[i]);
		if (item && !titem_ok(item, indices[i]))
			error("gang item dead or wrong key", indices[i]);
		/* Stable keys between the previous result and this one. */
		while (expect_stable < indices[i]) {
			if (is_stable(expect_stable))
				error("gang skipped a stable key", expect_stable);
			expect_stable++;
			if (expect_stable >= NR_STABLE * 3)
				break;
		}
		expect_stable = indices[i] + 1;
	}
	/* A short answer means nothing else was >= first: no stable key may
	 * lie beyond the last result. */
	if (n < 16)
		for (; expect_stable < NR_STABLE * 3; expect_stable++)
			if (is_stable(expect_stable))
				error("gang ended before a stable key", expect_stable);
}

/* The highest stable key at or below @last (key 0 is stable: there is
 * always one). */
static unsigned long stable_at_or_below(unsigned long last)
{
	return last >= NR_STABLE * 3 ? (NR_STABLE - 1) * 3 : last - last % 3;
}

/* Reverse gang lookup from @last: descending, <= last, items match
 * indices, no stable key inside the span (or below it, after a short
 * answer) missing; and the predecessor of @last is a live item at or
 * above the highest stable key below @last. */
static void check_reverse(unsigned long last)
{
	void *items[16];
	unsigned long indices[16], key = last, stable = stable_at_or_below(last);
	unsigned int n = radix_tree_gang_lookup_reverse(&tree, items, indices, last, 16);
	bool more = true;
	void *item;

	for (unsigned int i = 0; i < n; i++) {
		if (indices[i] > last || (i && indices[i] >= indices[i - 1]))
			error("reverse keys not descending from last", indices[i]);
		if (!titem_ok(items[i], indices[i]))
			error("reverse item dead or wrong key", indices[i]);
		for (; more && stable >= indices[i]; more = stable >= 3, stable -= 3)
			if (stable > indices[i])
				error("reverse skipped a stable key", stable);
	}
	if (n < 16 && more)
		error("reverse ended above a stable key", stable);
	stable = stable_at_or_below(last);
	item = radix_tree_lookup_le(&tree, &key);
	if (!item || key > last || key < stable || !titem_ok(item, key))
		error("predecessor missing, out of range or bad", last);
}

static void *reader(void *arg)
{
	struct t_rng rng = { (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ULL + 1 };
	unsigned long n = 0;

	ops->reg();
	while (!uatomic_read(&stop)) {
		unsigned long s = stable_keys[t_rand_below(&rng, NR_STABLE)];
		unsigned long c = churn_keys[t_rand_below(&rng, NR_CHURN)];
		unsigned long nv = NEVER_BASE + t_rand_below(&rng, NEVER_SPAN);
		void *item, **slot;

		ops->lock();
		if (!titem_ok(radix_tree_lookup(&tree, s), s))
			error("stable key missing or bad", s);
		item = radix_tree_lookup(&tree, c);
		if (item && !titem_ok(item, c))
			error("churn item dead or wrong key", c);
		slot = radix_tree_lookup_slot(&tree, c);
		if (slot) {
			item = rcu_dereference(*slot);
			if (item && !titem_ok(item, c))
				error("slot item dead or wrong key", c);
		}
		if (radix_tree_lookup(&tree, nv) || radix_tree_lookup_slot(&tree, nv))
			error("never-inserted key found", nv);
		check_gang(n & 1 ? s : c - t_rand_below(&rng, 8));
		check_reverse(n & 2 ? s + t_rand_below(&rng, 3) : c + t_rand_below(&rng, 8));
		if (radix_tree_empty(&tree))
			error("tree empty while stable keys exist", 0);
		ops->unlock();
		if (ops->quiescent && (++n % 1024) == 0)
			ops->quiescent();
		else if (!ops->quiescent)
			n++;
		uatomic_inc(&reads);
	}
	ops->unreg();
	return NULL;
}

static void *writer(void *arg)
{
	struct t_rng rng = { 0x1234567 };
	static struct titem *present[NR_CHURN];
	unsigned long done, reads_before;

	(void)arg;
	ops->reg();
	/*
	 * Past WRITER_OPS, go on until the readers have run a few iterations
	 * that began after this writer: on a loaded machine (or under
	 * valgrind) the writer could otherwise finish before any reader is
	 * scheduled and the test would prove nothing.
	 */
	reads_before = uatomic_read(&reads);
	for (done = 0; done < WRITER_OPS || uatomic_read(&reads) < reads_before + 16; done++) {
		unsigned int i = (unsigned int)t_rand_below(&rng, NR_CHURN);
		unsigned long key = churn_keys[i];

		if (present[i]) {
			if (radix_tree_delete(&tree, key) != present[i])
				uatomic_inc(&errors);
			titem_free_rcu(ops->flavor, present[i]);
			present[i] = NULL;
		} else {
			present[i] = titem_new(key);
			if (radix_tree_insert(&tree, key, present[i]) != 0)
				uatomic_inc(&errors);
		}
		if (ops->quiescent && done % 256 == 0)
			ops->quiescent();
	}
	uatomic_set(&stop, 1);
	ops->unreg();
	rcuradix_thread_cache_flush();
	return NULL;
}

/* Start NR_READERS @reader_fn threads and the @writer_fn, and wait for
 * them all. */
static void run_threads(void *(*reader_fn)(void *), void *(*writer_fn)(void *))
{
	pthread_t readers[NR_READERS], w;
	unsigned int i;

	for (i = 0; i < NR_READERS; i++)
		cr_assert_eq(pthread_create(&readers[i], NULL, reader_fn, (void *)(uintptr_t)(i + 1)),
			     0);
	cr_assert_eq(pthread_create(&w, NULL, writer_fn, NULL), 0);
	cr_assert_eq(pthread_join(w, NULL), 0);
	for (i = 0; i < NR_READERS; i++)
		cr_assert_eq(pthread_join(readers[i], NULL), 0);
}

static void run(const struct t_flavor_ops *f)
{
	unsigned int i;

	ops = f;
	ops->reg();
	radix_tree_init_flavor(&tree, GFP_KERNEL, ops->flavor);
	for (i = 0; i < NR_STABLE; i++) {
		stable_keys[i] = i * 3;
		t_insert_new(&tree, stable_keys[i]);
	}
	for (i = 0; i < NR_CHURN; i++) {
		switch (i % 4) {
		case 0: churn_keys[i] = i * 3 + 1; break;           /* among stable keys */
		case 1: churn_keys[i] = 4096 + i; break;            /* next levels */
		case 2: churn_keys[i] = (1UL << 40) + i * 64; break; /* far: growth */
		default: churn_keys[i] = ULONG_MAX - i; break;      /* full height */
		}
	}
	run_threads(reader, writer);
	cr_assert_eq(uatomic_read(&errors), 0, "%lu errors (first ones on stderr)", errors);
	fprintf(stderr, "%lu reader iterations during %lu writer operations\n", reads, WRITER_OPS);
	for (i = 0; i < NR_STABLE; i++)
		cr_assert(titem_ok(radix_tree_lookup(&tree, stable_keys[i]), stable_keys[i]));
	t_verify(&tree);
	t_finish(&tree);
	ops->unreg();
}

Test(concurrent, memb_readers_against_writer, .timeout = 120)
{
	run(&t_memb_ops);
}

Test(concurrent, qsbr_readers_against_writer, .timeout = 120)
{
	run(&t_qsbr_ops);
}

/*
 * Readers while compact nodes over full nodes become full nodes, again and
 * again.  The keys of a top's first child (0 .. FP_SPAN - 1, a full node)
 * are stable; each round, the writer inserts two items under the top's
 * digit 2 (they keep the top compact in the 8-slot build), the second
 * child's keys up to a run and a half, deletes the two, inserts the rest
 * of the child's keys, whose last copy makes the child a full node and
 * the top, over full nodes only, a full node too; then it deletes the
 * second child's keys, and the tree hangs from the first child again.
 * Readers check that every stable key is found, that a second-child key
 * found carries its item, live, and that gang lookups across the two
 * children return ascending keys with their items.  The promotions are
 * counted: each round must make one.
 */
#define FP_RUN 64UL
#define FP_SPAN (FP_RUN * RT_MAP_SIZE)
#define FP_ROUNDS t_scaled(200)

static unsigned long fp_rounds;  /* the writer's, once it stopped */

static void *full_parent_reader(void *arg)
{
	struct t_rng rng = { (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ULL + 7 };
	unsigned long n = 0;

	ops->reg();
	while (!uatomic_read(&stop)) {
		unsigned long s = t_rand_below(&rng, FP_SPAN);
		unsigned long c = FP_SPAN + t_rand_below(&rng, FP_SPAN);
		void *item, *items[16];
		unsigned int got;

		ops->lock();
		if (!titem_ok(radix_tree_lookup(&tree, s), s))
			error("stable key missing or bad", s);
		item = radix_tree_lookup(&tree, c);
		if (item && !titem_ok(item, c))
			error("second child's item dead or wrong key", c);
		got = radix_tree_gang_lookup(&tree, items, FP_SPAN - 8, 16);
		for (unsigned int i = 0; i < got; i++) {
			unsigned long key = ((const struct titem *)items[i])->key;

			if (!titem_ok(items[i], key) || key < FP_SPAN - 8 ||
			    (i && key <= ((const struct titem *)items[i - 1])->key))
				error("gang item dead, or keys not ascending", key);
		}
		if (got < 8)
			error("gang lookup missed stable keys", FP_SPAN - 8);
		ops->unlock();
		if (ops->quiescent && (++n % 1024) == 0)
			ops->quiescent();
		uatomic_inc(&reads);
	}
	ops->unreg();
	return NULL;
}

static void full_parent_insert_range(struct titem **items, unsigned long from, unsigned long to)
{
	for (unsigned long k = from; k < to; k++) {
		items[k - FP_SPAN] = titem_new(k);
		if (radix_tree_insert(&tree, k, items[k - FP_SPAN]) != 0)
			uatomic_inc(&errors);
	}
}

static void full_parent_delete(struct titem *item, unsigned long key)
{
	if (radix_tree_delete(&tree, key) != item)
		uatomic_inc(&errors);
	titem_free_rcu(ops->flavor, item);
}

static void *full_parent_writer(void *arg)
{
	static struct titem *items[FP_SPAN];
	const unsigned long cut = FP_SPAN + FP_RUN + FP_RUN / 2;
	unsigned long round, reads_before;

	(void)arg;
	ops->reg();
	reads_before = uatomic_read(&reads);
	for (round = 0; round < FP_ROUNDS || uatomic_read(&reads) < reads_before + 16; round++) {
		struct titem *pair[2] = { titem_new(2 * FP_SPAN), titem_new(2 * FP_SPAN + 1) };

		if (radix_tree_insert(&tree, 2 * FP_SPAN, pair[0]) ||
		    radix_tree_insert(&tree, 2 * FP_SPAN + 1, pair[1]))
			uatomic_inc(&errors);
		full_parent_insert_range(items, FP_SPAN, cut);
		full_parent_delete(pair[0], 2 * FP_SPAN);
		full_parent_delete(pair[1], 2 * FP_SPAN + 1);
		full_parent_insert_range(items, cut, 2 * FP_SPAN);
		for (unsigned long k = FP_SPAN; k < 2 * FP_SPAN; k++)
			full_parent_delete(items[k - FP_SPAN], k);
		if (ops->quiescent)
			ops->quiescent();
	}
	uatomic_set(&fp_rounds, round);
	uatomic_set(&stop, 1);
	ops->unreg();
	rcuradix_thread_cache_flush();
	return NULL;
}

static void run_full_parent(const struct t_flavor_ops *f)
{
	unsigned long promoted, rounds;

	ops = f;
	ops->reg();
	radix_tree_init_flavor(&tree, GFP_KERNEL, ops->flavor);
	for (unsigned long k = 0; k < FP_SPAN; k++)
		t_insert_new(&tree, k);
	promoted = rt_transitions[RT_TR_PARENT_FULL];
	run_threads(full_parent_reader, full_parent_writer);
	rounds = uatomic_read(&fp_rounds);
	cr_assert_eq(uatomic_read(&errors), 0, "%lu errors (first ones on stderr)", errors);
	cr_assert_eq(rt_transitions[RT_TR_PARENT_FULL] - promoted, rounds,
		     "%lu promotions in %lu rounds", rt_transitions[RT_TR_PARENT_FULL] - promoted,
		     rounds);
	fprintf(stderr, "%lu reader iterations during %lu rounds\n", reads, rounds);
	t_verify(&tree);
	for (unsigned long k = 0; k < FP_SPAN; k++)
		t_delete(&tree, k, radix_tree_lookup(&tree, k));
	t_finish(&tree);
	ops->unreg();
}

Test(concurrent, memb_readers_while_nodes_over_full_nodes_become_full, .timeout = 120)
{
	run_full_parent(&t_memb_ops);
}

Test(concurrent, qsbr_readers_while_nodes_over_full_nodes_become_full, .timeout = 120)
{
	run_full_parent(&t_qsbr_ops);
}
