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
 *
 * The holes and counts tests run radix_tree_next_hole(),
 * radix_tree_prev_hole(), radix_tree_count() and radix_tree_count_range()
 * against a writer, on a plain tree and on an IDR, and check each answer
 * against what the writer's per-key words say was present all along the
 * call, absent all along, or changed (see "Holes and counts" below); and
 * hole scans from leaf to leaf along full nodes go on while the tree grows
 * a new top and drops it again under them.
 */
#include "helpers.h"

#include <errno.h>

#include <rcuradix/idr.h>

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

/* The seed of thread @arg (a reader's number, or 0 for a writer) of the
 * test part @what: replayable (helpers.h). */
static void thread_rng(struct t_rng *rng, const char *what, void *arg)
{
	char name[96];

	snprintf(name, sizeof(name), "concurrent.%s.%s.%u", ops->quiescent ? "qsbr" : "memb",
		 what, (unsigned int)(uintptr_t)arg);
	t_rng_init(rng, name);
}

static void *reader(void *arg)
{
	struct t_rng rng;
	unsigned long n = 0;

	thread_rng(&rng, "reader", arg);
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
	struct t_rng rng;
	static struct titem *present[NR_CHURN];
	unsigned long done, reads_before;

	thread_rng(&rng, "writer", arg);
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
	/* Offline while the threads run: a QSBR thread online and blocked in
	 * a join would hold every grace period until the end, and no freed
	 * item would be poisoned while readers could still meet it. */
	ops->unreg();
	run_threads(reader, writer);
	ops->reg();
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
	struct t_rng rng;
	unsigned long n = 0;

	thread_rng(&rng, "full_parent_reader", arg);
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
	ops->unreg();  /* as in run() */
	run_threads(full_parent_reader, full_parent_writer);
	ops->reg();
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

/*
 * Holes and counts under a writer, on a plain tree and on an IDR.
 *
 * The modelled keys are 0 .. HC_LOW_SPAN - 1 and, on the plain tree, the
 * HC_EDGE keys up to ULONG_MAX; every other key is never present.  A fixed
 * layout (hc_kind()) makes each modelled key always present, never present
 * or volatile: runs of each kind, some of them across leaf and node
 * boundaries, and near both ends of the key space no never-present key, so
 * that scans run off the key space.  The writer alternates an insert of a
 * random absent volatile key and a delete of a random present one: the
 * tree holds S + P or S + P + 1 keys at every moment (S always present, P
 * the volatile keys present at the start).  On the IDR every third
 * always-present id is reserved (a NULL item), every third goes back and
 * forth between an item and a reservation (idr_replace(): present all
 * along, as a reserved id is no hole), and a volatile id comes back
 * reserved one time in four.
 *
 * How a reader knows the truth over its call: the writer numbers its
 * operations and keeps, per modelled key, a word with the number of the
 * last operation on the key, whether the key is present after it, and a
 * "changing" flag, written with the operation's number before the tree
 * changes and cleared after it (write barriers in between; the whole under
 * the tree lock).  The reader loads the number of the last operation done
 * (s0) before its call and the keys' words after it (read barriers in
 * between).  A word of an operation up to s0 with the flag clear gives the
 * key's state all along the call: any change of the key the call could
 * have seen was preceded by a word with a higher number.  Any other word
 * means "changed during the call, or since": either answer is allowed.
 * The always- and never-present keys are the keys whose word never
 * changes.
 *
 * So that calls meet changes, the writer works on one block of HC_BLOCK
 * keys at a time, for HC_HOT_OPS operations, and the readers start half
 * their calls in that block; past HC_OPS operations, the writer goes on
 * until HC_MIN_OVERLAPS reader calls have met a key changed during them.
 */
#define HC_LOW_SPAN (4UL * 4096)
#define HC_EDGE 300UL   /* no never-present key this close to either end */
#define HC_SOLID 70UL   /* always-present keys at either end: more than a leaf */
#define HC_TOP_BASE (ULONG_MAX - HC_EDGE + 1)
#define HC_KEYS (HC_LOW_SPAN + HC_EDGE)
#define HC_BLOCK 64UL  /* the writer changes one block's keys at a time */
#define HC_BLOCKS ((HC_KEYS + HC_BLOCK - 1) / HC_BLOCK)
#define HC_HOT_OPS 1024  /* operations on a block before the writer moves on */
#define HC_OPS t_scaled(500000)
#define HC_MIN_READS 256
#define HC_MIN_OVERLAPS t_scaled(16)  /* reader calls that met a key changed during them */
#define HC_AFTER_CHECKS 2000

/* A key's word. */
#define HC_PRESENT 1UL
#define HC_CHANGING 2UL
#define HC_OP_SHIFT 2

enum hc_kind { HC_NEVER, HC_ALWAYS, HC_VOLATILE };
enum hc_truth { HC_ABSENT_ALL_ALONG, HC_PRESENT_ALL_ALONG, HC_CHANGED };

static const char *hc_what;          /* the test's name, for its seeds */
static bool hc_on_idr;
static struct idr hc_idr;
static struct radix_tree_root *hc_root;  /* &tree, or the IDR's */
static unsigned long hc_word[HC_KEYS];
static unsigned long hc_ops;         /* the number of the last operation done */
static unsigned long hc_band;        /* S + P */
static unsigned long hc_hot;         /* the block the writer changes now */
static unsigned long hc_overlaps;
static unsigned long hc_writer_ops;  /* the writer's, once it stopped */
/* The writer's (the main thread's before and after it), by model index:
 * items, each block's present and absent volatile keys, the IDR's ids
 * that go from item to reservation and back. */
static void *hc_item[HC_KEYS];
static unsigned long hc_in[HC_BLOCKS][HC_BLOCK], hc_nr_in[HC_BLOCKS];
static unsigned long hc_out[HC_BLOCKS][HC_BLOCK], hc_nr_out[HC_BLOCKS];
static unsigned long hc_swaps[HC_KEYS], hc_nr_swaps;

static void hc_rng_init(struct t_rng *rng, const char *role)
{
	char what[128];

	snprintf(what, sizeof(what), "%s.%s", hc_what, role);
	t_rng_init(rng, what);
}

/* The model index of @key, if it is modelled. */
static bool hc_index(unsigned long key, unsigned long *i)
{
	if (key < HC_LOW_SPAN) {
		*i = key;
		return true;
	}
	if (!hc_on_idr && key >= HC_TOP_BASE) {
		*i = HC_LOW_SPAN + (key - HC_TOP_BASE);
		return true;
	}
	return false;
}

static unsigned long hc_key(unsigned long i)
{
	return i < HC_LOW_SPAN ? i : HC_TOP_BASE + (i - HC_LOW_SPAN);
}

/* Within HC_EDGE of an end of the key space, @d keys from it. */
static enum hc_kind hc_edge_kind(unsigned long d)
{
	return d < HC_SOLID || d % 7 != 3 ? HC_ALWAYS : HC_VOLATILE;
}

/*
 * The layout: 128-key stretches, offset so that their boundaries fall
 * inside leaves, in turn: every fourth key never present, the next always,
 * the other two volatile; always present; always present but one key in
 * 16; volatile; never present.  So runs without a never-present key span
 * some 400 keys across leaves and nodes.
 */
static enum hc_kind hc_kind(unsigned long key)
{
	if (key >= HC_TOP_BASE)
		return hc_edge_kind(ULONG_MAX - key);
	if (key < HC_EDGE)
		return hc_edge_kind(key);
	switch ((key + 200) / 128 % 5) {
	case 0:
		return key % 4 == 0 ? HC_NEVER : key % 4 == 1 ? HC_ALWAYS : HC_VOLATILE;
	case 1:
		return HC_ALWAYS;
	case 2:
		return key % 16 == 5 ? HC_VOLATILE : HC_ALWAYS;
	case 3:
		return HC_VOLATILE;
	default:
		return HC_NEVER;
	}
}

/* Put @item at @key (on the IDR, NULL reserves the id). */
static bool hc_insert(unsigned long key, void *item)
{
	if (hc_on_idr)
		return idr_alloc(&hc_idr, item, (int)key, (int)key + 1, GFP_KERNEL) == (int)key;
	return radix_tree_insert(&tree, key, item) == 0;
}

/* Remove @key, which must hold @item. */
static bool hc_remove(unsigned long key, void *item)
{
	return (hc_on_idr ? idr_remove(&hc_idr, key) : radix_tree_delete(&tree, key)) == item;
}

/* ---- the writer ---- */

static void hc_writer_error(const char *what, unsigned long key)
{
	if (uatomic_add_return(&errors, 1) <= 10)
		fprintf(stderr, "writer error: %s (key %#lx)\n", what, key);
}

/* Take a random entry out of @list, of *@n entries. */
static unsigned long hc_take(struct t_rng *rng, unsigned long *list, unsigned long *n)
{
	unsigned long j = t_rand_below(rng, *n), i = list[j];

	list[j] = list[--*n];
	return i;
}

/* Operation @op: insert @item at (@insert) or delete the volatile key of
 * model index @i, its word flagged before and rewritten after. */
static void hc_change(unsigned long op, unsigned long i, bool insert, void *item)
{
	unsigned long key = hc_key(i);
	void *old = hc_item[i];

	radix_tree_lock(hc_root);
	uatomic_set(&hc_word[i], op << HC_OP_SHIFT | HC_CHANGING);
	cmm_smp_wmb();
	if (insert ? !hc_insert(key, item) : !hc_remove(key, old))
		hc_writer_error(insert ? "insert failed" : "delete returned another item", key);
	cmm_smp_wmb();
	uatomic_set(&hc_word[i], op << HC_OP_SHIFT | (insert ? HC_PRESENT : 0));
	cmm_smp_wmb();
	uatomic_set(&hc_ops, op);
	radix_tree_unlock(hc_root);
	if (!insert && old)
		titem_free_rcu(ops->flavor, old);
	hc_item[i] = insert ? item : NULL;
}

/* Odd operations insert a random absent volatile key of block @b, even
 * ones delete a random present one: the block holds as many as before
 * after each even one. */
static void hc_flip(struct t_rng *rng, unsigned long op, unsigned long b)
{
	bool insert = op & 1;
	unsigned long i = insert ? hc_take(rng, hc_out[b], &hc_nr_out[b])
				 : hc_take(rng, hc_in[b], &hc_nr_in[b]);
	void *item = NULL;

	if (insert && !(hc_on_idr && t_rand_below(rng, 4) == 0))
		item = titem_new(hc_key(i));
	hc_change(op, i, insert, item);
	if (insert)
		hc_in[b][hc_nr_in[b]++] = i;
	else
		hc_out[b][hc_nr_out[b]++] = i;
}

/* A block with an absent volatile key, at random (hc_fill() made sure
 * there is one, and the writer leaves each block as it found it). */
static unsigned long hc_pick_block(struct t_rng *rng)
{
	unsigned long blocks = hc_on_idr ? HC_LOW_SPAN / HC_BLOCK : HC_BLOCKS, b;

	do {
		b = t_rand_below(rng, blocks);
	} while (!hc_nr_out[b]);
	return b;
}

/* An always-present id of the IDR goes from its item to a reservation or
 * back: present all along. */
static void hc_swap_reservation(struct t_rng *rng)
{
	unsigned long i = hc_swaps[t_rand_below(rng, hc_nr_swaps)];
	void *old = hc_item[i], *item = old ? NULL : titem_new(hc_key(i));

	if (idr_replace(&hc_idr, item, hc_key(i)) != old)
		hc_writer_error("idr_replace returned another item", hc_key(i));
	if (old)
		titem_free_rcu(ops->flavor, old);
	hc_item[i] = item;
}

/* Past @min_ops, go on until the readers have run HC_MIN_READS
 * iterations since the writer began and their calls met HC_MIN_OVERLAPS
 * changes, however long a loaded machine leaves them without a CPU: a
 * reader that never meets a change fails the test by its timeout. */
static bool hc_writer_done(unsigned long op, unsigned long min_ops, unsigned long reads_before)
{
	return op > min_ops && uatomic_read(&reads) >= reads_before + HC_MIN_READS &&
	       uatomic_read(&hc_overlaps) >= HC_MIN_OVERLAPS;
}

static void *hc_writer(void *arg)
{
	struct t_rng rng;
	unsigned long op, min_ops = HC_OPS, reads_before;

	(void)arg;
	hc_rng_init(&rng, "writer");
	ops->reg();
	reads_before = uatomic_read(&reads);
	for (op = 1; !hc_writer_done(op, min_ops, reads_before); op++) {
		if (op % HC_HOT_OPS == 1)
			uatomic_set(&hc_hot, hc_pick_block(&rng));
		hc_flip(&rng, op, uatomic_read(&hc_hot));
		if (hc_on_idr && op % 8 == 0)
			hc_swap_reservation(&rng);
		if (ops->quiescent && op % 256 == 0)
			ops->quiescent();
	}
	uatomic_set(&hc_writer_ops, op - 1);
	uatomic_set(&stop, 1);
	ops->unreg();
	rcuradix_thread_cache_flush();
	return NULL;
}

/* ---- what a reader knows ---- */

/* Before a call: the number of the last operation done, every change of
 * which the call will see. */
static unsigned long hc_before_call(void)
{
	unsigned long s0 = uatomic_read(&hc_ops);

	cmm_smp_rmb();
	return s0;
}

/* After the call, before loading any word: did an operation end during
 * it? */
static bool hc_after_call(unsigned long s0)
{
	cmm_smp_rmb();
	return uatomic_read(&hc_ops) != s0;
}

/* @key over a call that began after operation @s0 and has ended. */
static enum hc_truth hc_truth(unsigned long key, unsigned long s0)
{
	unsigned long i, w;

	if (!hc_index(key, &i))
		return HC_ABSENT_ALL_ALONG;
	w = uatomic_read(&hc_word[i]);
	if ((w & HC_CHANGING) || w >> HC_OP_SHIFT > s0)
		return HC_CHANGED;
	return w & HC_PRESENT ? HC_PRESENT_ALL_ALONG : HC_ABSENT_ALL_ALONG;
}

/* ---- holes ---- */

struct hc_scan {
	unsigned long index, max_scan;
	bool up;
};

static void hc_hole_error(const struct hc_scan *s, const char *what, unsigned long got,
			  unsigned long key)
{
	if (uatomic_add_return(&errors, 1) <= 10)
		fprintf(stderr, "reader error: %s(%#lx, %#lx) = %#lx: %s (key %#lx)\n",
			s->up ? "next_hole" : "prev_hole", s->index, s->max_scan, got, what, key);
}

/* The last key the scan looks at: @max_scan keys from @index, the end of
 * the key space at most. */
static unsigned long hc_scan_end(const struct hc_scan *s)
{
	if (s->up)
		return s->max_scan - 1 > ULONG_MAX - s->index ? ULONG_MAX
							       : s->index + (s->max_scan - 1);
	return s->max_scan - 1 > s->index ? 0 : s->index - (s->max_scan - 1);
}

/* The answer when every key of the scan is present (the header's): @index
 * +/- @max_scan, or 0 (ULONG_MAX downwards) if the scan ran off the key
 * space. */
static unsigned long hc_not_found(const struct hc_scan *s)
{
	if (s->up)
		return s->max_scan > ULONG_MAX - s->index ? 0 : s->index + s->max_scan;
	return s->max_scan > s->index ? ULONG_MAX : s->index - s->max_scan;
}

static bool hc_in_scan(const struct hc_scan *s, unsigned long key)
{
	unsigned long end = hc_scan_end(s);

	return s->up ? key >= s->index && key <= end : key <= s->index && key >= end;
}

/* The first key from the scan's index to @to (included) that was absent
 * all along the call after operation @s0, into *@key; false if none.
 * *@changed tells whether a key before it changed. */
static bool hc_first_absent(const struct hc_scan *s, unsigned long to, unsigned long s0,
			    unsigned long *key, bool *changed)
{
	*changed = false;
	for (unsigned long k = s->index;; k = s->up ? k + 1 : k - 1) {
		enum hc_truth truth = hc_truth(k, s0);

		if (truth == HC_ABSENT_ALL_ALONG) {
			*key = k;
			return true;
		}
		*changed |= truth == HC_CHANGED;
		if (k == to)
			return false;
	}
}

/*
 * Judge @got, the answer of scan @s that began after operation @s0: a key
 * of the scan absent at some moment (not present all along), with no key
 * absent all along before it; or the not-found value, and then no key of
 * the scan was absent all along.  Returns whether a key the scan went
 * through, the hole included, changed during the call (or since).
 */
static bool hc_judge_hole(const struct hc_scan *s, unsigned long got, unsigned long s0)
{
	unsigned long key;
	enum hc_truth truth;
	bool changed = false;

	if (!s->max_scan) {
		if (got != s->index)
			hc_hole_error(s, "max_scan 0 returns another key than index", got, got);
		return false;
	}
	if (!hc_in_scan(s, got)) {
		if (got != hc_not_found(s))
			hc_hole_error(s, "neither a key of the scan nor its not-found value", got,
				      hc_not_found(s));
		else if (hc_first_absent(s, hc_scan_end(s), s0, &key, &changed))
			hc_hole_error(s, "not found, but a key was absent all along", got, key);
		return changed;
	}
	truth = hc_truth(got, s0);
	if (truth == HC_PRESENT_ALL_ALONG)
		hc_hole_error(s, "the hole was present all along", got, got);
	if (hc_first_absent(s, got, s0, &key, &changed) && key != got)
		hc_hole_error(s, "the scan passed a key absent all along", got, key);
	return changed || truth == HC_CHANGED;
}

static unsigned long hc_hole(const struct hc_scan *s)
{
	return s->up ? radix_tree_next_hole(hc_root, s->index, s->max_scan)
		     : radix_tree_prev_hole(hc_root, s->index, s->max_scan);
}

static void hc_check_hole(const struct hc_scan *s)
{
	unsigned long s0 = hc_before_call(), got = hc_hole(s);
	bool overlapped = hc_after_call(s0);

	if (hc_judge_hole(s, got, s0) && overlapped)
		uatomic_inc(&hc_overlaps);
}

/* The hole scan @s must find when no key changes: the first key absent,
 * or the not-found value. */
static unsigned long hc_expected_hole(const struct hc_scan *s, unsigned long s0)
{
	unsigned long key;
	bool changed;

	if (!s->max_scan)
		return s->index;
	return hc_first_absent(s, hc_scan_end(s), s0, &key, &changed) ? key : hc_not_found(s);
}

/* Under the tree lock, which the writer holds over each operation and its
 * words, the holes both ways are exact. */
static void hc_check_holes_locked(struct hc_scan *s)
{
	unsigned long got[2], expected[2];

	radix_tree_lock(hc_root);
	for (int up = 0; up < 2; up++) {
		s->up = up;
		got[up] = hc_hole(s);
		expected[up] = hc_expected_hole(s, uatomic_read(&hc_ops));
	}
	radix_tree_unlock(hc_root);
	for (int up = 0; up < 2; up++) {
		s->up = up;
		if (got[up] != expected[up])
			hc_hole_error(s, "under the tree lock, not the first absent key", got[up],
				      expected[up]);
	}
}

/* A key 8 or fewer away from a multiple of a node's span, in the low
 * span. */
static unsigned long hc_near_boundary(struct t_rng *rng)
{
	unsigned int level = 1 + (unsigned int)t_rand_below(rng, 4);
	unsigned long span;

	while ((span = 1UL << (RT_MAP_SHIFT * level)) * 2 > HC_LOW_SPAN)
		level--;
	return span * (1 + t_rand_below(rng, HC_LOW_SPAN / span - 1)) - 8 + t_rand_below(rng, 17);
}

/* A key of the block the writer changes now. */
static unsigned long hc_pick_hot_key(struct t_rng *rng)
{
	unsigned long first = uatomic_read(&hc_hot) * HC_BLOCK;

	return hc_key(first + t_rand_below(rng, HC_KEYS - first < HC_BLOCK ? HC_KEYS - first
									   : HC_BLOCK));
}

/* Where a scan or a range starts: one time in two in the block the
 * writer changes; else in the low span, near its node boundaries, near
 * either end of the keys (the IDR's: just past its last modelled key), or
 * anywhere. */
static unsigned long hc_pick_key(struct t_rng *rng)
{
	if (t_rand_below(rng, 2))
		return hc_pick_hot_key(rng);
	switch (t_rand_below(rng, 8)) {
	case 0:
		return t_rand_below(rng, HC_EDGE);
	case 1:
		return hc_on_idr ? HC_LOW_SPAN - 64 + t_rand_below(rng, 128)
				 : HC_TOP_BASE - 64 + t_rand_below(rng, HC_EDGE + 64);
	case 2:
		return hc_near_boundary(rng);
	case 3:
		return t_rand(rng);
	default:
		return t_rand_below(rng, HC_LOW_SPAN + 64);
	}
}

static unsigned long hc_pick_scan(struct t_rng *rng)
{
	switch (t_rand_below(rng, 8)) {
	case 0:
		return t_rand_below(rng, 3);
	case 1:
		return ULONG_MAX - t_rand_below(rng, 2);
	case 2:
		return 1 + t_rand_below(rng, 2 * HC_LOW_SPAN);
	default:
		return 1 + t_rand_below(rng, 700);
	}
}

static void hc_quiesce(unsigned long n)
{
	if (ops->quiescent && n % 64 == 0)
		ops->quiescent();
}

static void *hc_hole_reader(void *arg)
{
	char role[32];
	struct t_rng rng;
	unsigned long n = 0;

	snprintf(role, sizeof(role), "reader%u", (unsigned int)(uintptr_t)arg);
	hc_rng_init(&rng, role);
	ops->reg();
	while (!uatomic_read(&stop)) {
		struct hc_scan s = { hc_pick_key(&rng), hc_pick_scan(&rng), true };

		ops->lock();
		hc_check_hole(&s);
		s.up = false;
		hc_check_hole(&s);
		ops->unlock();
		if (++n % 64 == 0)
			hc_check_holes_locked(&s);
		hc_quiesce(n);
		uatomic_inc(&reads);
	}
	ops->unreg();
	return NULL;
}

/* ---- counts ---- */

struct hc_tally {
	unsigned long present;  /* present all along */
	unsigned long changed;  /* changed during the call, or since */
};

/* Add to @t the keys of [@first, @last] among [@lo, @hi]. */
static void hc_tally_span(unsigned long first, unsigned long last, unsigned long lo,
			  unsigned long hi, unsigned long s0, struct hc_tally *t)
{
	unsigned long from = first > lo ? first : lo, to = last < hi ? last : hi;

	if (from > to)
		return;
	for (unsigned long k = from;; k++) {
		enum hc_truth truth = hc_truth(k, s0);

		t->present += truth == HC_PRESENT_ALL_ALONG;
		t->changed += truth == HC_CHANGED;
		if (k == to)
			break;
	}
}

/* The keys of [@first, @last] over a call that began after operation
 * @s0 (only modelled keys are ever present). */
static struct hc_tally hc_tally(unsigned long first, unsigned long last, unsigned long s0)
{
	struct hc_tally t = { 0, 0 };

	hc_tally_span(first, last, 0, HC_LOW_SPAN - 1, s0, &t);
	if (!hc_on_idr)
		hc_tally_span(first, last, HC_TOP_BASE, ULONG_MAX, s0, &t);
	return t;
}

static void hc_count_error(const char *what, unsigned long first, unsigned long last,
			   unsigned long got, unsigned long lo, unsigned long hi)
{
	if (uatomic_add_return(&errors, 1) <= 10)
		fprintf(stderr, "reader error: %s [%#lx, %#lx] = %lu, expected %lu .. %lu\n", what,
			first, last, got, lo, hi);
}

/* radix_tree_count() under RCU: the count of a moment of the call, or of
 * the moment just before the writer call running then: S + P or S + P + 1,
 * since every moment's is one of them. */
static void hc_check_count(void)
{
	unsigned long got = radix_tree_count(hc_root);

	if (got < hc_band || got > hc_band + 1)
		hc_count_error("count", 0, ULONG_MAX, got, hc_band, hc_band + 1);
}

/* radix_tree_count_range() under RCU: every key present all along the call
 * counted, every key absent all along not, the others either way. */
static void hc_check_count_range(unsigned long first, unsigned long last)
{
	unsigned long s0 = hc_before_call(), got = radix_tree_count_range(hc_root, first, last);
	bool overlapped = hc_after_call(s0);
	struct hc_tally t = hc_tally(first, last, s0);

	if (got < t.present || got > t.present + t.changed)
		hc_count_error("count_range", first, last, got, t.present, t.present + t.changed);
	if (overlapped && t.changed)
		uatomic_inc(&hc_overlaps);
}

/* Under the tree lock, which the writer holds over each operation and its
 * words, both counts are exact. */
static void hc_check_counts_locked(unsigned long first, unsigned long last)
{
	struct hc_tally all, range;
	unsigned long count, in_range;

	radix_tree_lock(hc_root);
	all = hc_tally(0, ULONG_MAX, uatomic_read(&hc_ops));
	range = hc_tally(first, last, uatomic_read(&hc_ops));
	count = radix_tree_count(hc_root);
	in_range = radix_tree_count_range(hc_root, first, last);
	radix_tree_unlock(hc_root);
	if (all.changed || range.changed)
		error("a change in flight under the tree lock", first);
	if (count != all.present)
		hc_count_error("count under the lock", 0, ULONG_MAX, count, all.present,
			       all.present);
	if (in_range != range.present)
		hc_count_error("count_range under the lock", first, last, in_range, range.present,
			       range.present);
}

/* A range: from a key hc_pick_key() picks, one key to a few thousand,
 * or to ULONG_MAX; or the whole key space. */
static void hc_pick_range(struct t_rng *rng, unsigned long *first, unsigned long *last)
{
	unsigned long len;

	*first = hc_pick_key(rng);
	*last = ULONG_MAX;
	switch (t_rand_below(rng, 8)) {
	case 0:
		*first = 0;
		return;
	case 1:
		return;
	case 2:
		len = 1 + t_rand_below(rng, HC_LOW_SPAN);
		break;
	default:
		len = 1 + t_rand_below(rng, 1024);
		break;
	}
	if (len - 1 <= ULONG_MAX - *first)
		*last = *first + (len - 1);
}

static void *hc_count_reader(void *arg)
{
	char role[32];
	struct t_rng rng;
	unsigned long n = 0;

	snprintf(role, sizeof(role), "reader%u", (unsigned int)(uintptr_t)arg);
	hc_rng_init(&rng, role);
	ops->reg();
	while (!uatomic_read(&stop)) {
		unsigned long first, last;

		hc_pick_range(&rng, &first, &last);
		ops->lock();
		hc_check_count();
		hc_check_count_range(first, last);
		ops->unlock();
		if (++n % 64 == 0)
			hc_check_counts_locked(first, last);
		hc_quiesce(n);
		uatomic_inc(&reads);
	}
	ops->unreg();
	return NULL;
}

/* ---- the run ---- */

/* Put the modelled key of index @i in the starting tree, as its kind says
 * (a volatile key one time in two), and list the volatile and the swapped
 * ones for the writer.  Returns whether it is present. */
static bool hc_fill_key(struct t_rng *rng, unsigned long i)
{
	unsigned long key = hc_key(i);
	enum hc_kind kind = hc_kind(key);
	bool reserved = hc_on_idr && key % 3 == 0;
	unsigned long b = i / HC_BLOCK;

	if (kind == HC_NEVER)
		return false;
	if (kind == HC_VOLATILE && t_rand_below(rng, 2)) {
		hc_out[b][hc_nr_out[b]++] = i;
		return false;
	}
	if (kind == HC_VOLATILE)
		hc_in[b][hc_nr_in[b]++] = i;
	else if (hc_on_idr && key % 3 == 1)
		hc_swaps[hc_nr_swaps++] = i;
	hc_item[i] = reserved ? NULL : titem_new(key);
	cr_assert(hc_insert(key, hc_item[i]), "insert %#lx", key);
	hc_word[i] = HC_PRESENT;
	return true;
}

static void hc_fill(void)
{
	unsigned long keys = hc_on_idr ? HC_LOW_SPAN : HC_KEYS;
	struct t_rng rng;

	hc_rng_init(&rng, "fill");
	hc_band = 0;
	for (unsigned long i = 0; i < keys; i++)
		hc_band += hc_fill_key(&rng, i);
	hc_hot = hc_pick_block(&rng);
	cr_assert_eq(radix_tree_count(hc_root), hc_band);
	cr_assert_eq(radix_tree_count_range(hc_root, 0, ULONG_MAX), hc_band);
	t_verify(hc_root);
}

/* The writer has stopped: every hole is the model's. */
static void hc_holes_after_writer(struct t_rng *rng, unsigned long s0)
{
	for (unsigned int n = 0; n < HC_AFTER_CHECKS; n++) {
		struct hc_scan s = { hc_pick_key(rng), hc_pick_scan(rng), n & 1 };
		unsigned long got = hc_hole(&s);

		cr_assert_eq(got, hc_expected_hole(&s, s0), "%s(%#lx, %#lx) = %#lx, expected %#lx",
			     s.up ? "next_hole" : "prev_hole", s.index, s.max_scan, got,
			     hc_expected_hole(&s, s0));
	}
}

/* The writer has stopped: every count is the model's. */
static void hc_counts_after_writer(struct t_rng *rng, unsigned long s0)
{
	cr_assert_eq(radix_tree_count(hc_root), hc_tally(0, ULONG_MAX, s0).present);
	for (unsigned int n = 0; n < HC_AFTER_CHECKS; n++) {
		unsigned long first, last, got;

		hc_pick_range(rng, &first, &last);
		got = radix_tree_count_range(hc_root, first, last);
		cr_assert_eq(got, hc_tally(first, last, s0).present,
			     "count_range [%#lx, %#lx] = %lu, expected %lu", first, last, got,
			     hc_tally(first, last, s0).present);
	}
}

/* What a test checks: with its readers, then once the writer has
 * stopped. */
struct hc_checks {
	void *(*reader)(void *arg);
	void (*after_writer)(struct t_rng *rng, unsigned long s0);
};

static const struct hc_checks hc_holes = { hc_hole_reader, hc_holes_after_writer };
static const struct hc_checks hc_counts = { hc_count_reader, hc_counts_after_writer };

/* Delete every key left, one at a time: the tree must then be empty and
 * count nothing; then no node and no item may be left once the flavor's
 * callbacks have run. */
static void hc_finish(void)
{
	for (unsigned long i = 0; i < HC_KEYS; i++) {
		if (!(hc_word[i] & HC_PRESENT))
			continue;
		cr_assert(hc_remove(hc_key(i), hc_item[i]), "remove %#lx", hc_key(i));
		if (hc_item[i])
			titem_free(hc_item[i]);
		hc_item[i] = NULL;
		hc_word[i] = 0;
	}
	cr_assert(radix_tree_empty(hc_root));
	cr_assert_eq(radix_tree_count(hc_root), 0);
	if (!hc_on_idr) {
		t_finish(&tree);
		return;
	}
	idr_destroy(&hc_idr);
	hc_root->flavor->barrier();
	rcuradix_thread_cache_flush();
	t_assert_no_nodes();
	cr_assert_eq(titem_live(), 0, "%lu test items leaked", titem_live());
}

static void hc_run(const struct t_flavor_ops *f, bool on_idr, const struct hc_checks *checks,
		   const char *what)
{
	struct t_rng rng;

	ops = f;
	hc_on_idr = on_idr;
	hc_what = what;
	ops->reg();
	if (on_idr) {
		idr_init_flavor(&hc_idr, 0, ops->flavor);
		hc_root = &hc_idr.idr_rt;
	} else {
		radix_tree_init_flavor(&tree, GFP_KERNEL, ops->flavor);
		hc_root = &tree;
	}
	hc_fill();
	if (ops->quiescent)
		urcu_qsbr_thread_offline();  /* waiting, it would hold up grace periods */
	run_threads(checks->reader, hc_writer);
	if (ops->quiescent)
		urcu_qsbr_thread_online();
	cr_assert_eq(uatomic_read(&errors), 0, "%lu errors (first ones on stderr)", errors);
	fprintf(stderr, "%s: %lu reader iterations, %lu calls met a key changed during them, "
		"%lu writer operations\n", what, reads, hc_overlaps, hc_writer_ops);
	cr_assert_geq(hc_overlaps, HC_MIN_OVERLAPS,
		      "%lu reader calls met a key changed during them", hc_overlaps);
	hc_rng_init(&rng, "after");
	ops->lock();
	checks->after_writer(&rng, uatomic_read(&hc_ops));
	ops->unlock();
	t_verify(hc_root);
	hc_finish();
	ops->unreg();
}

/*
 * radix_tree_next_hole() and radix_tree_prev_hole() on a plain tree, while
 * a writer inserts and deletes: the answer is a key of the scan that was
 * absent at some moment of the call (never an always-present key, nor a
 * key the words show present all along), and no key between the start and
 * it was absent all along (a never-present key bounds it); or, if none is,
 * index +/- max_scan, or 0 (ULONG_MAX downwards) when the scan ran off the
 * key space, and then no key of the scan was absent all along.  Under the
 * tree lock, and once the writer has stopped, each answer must be the
 * model's exactly.  The truth
 * comes from the keys' layout and the writer's words (above).
 */
Test(concurrent, memb_holes_against_writer, .timeout = 120)
{
	hc_run(&t_memb_ops, false, &hc_holes, "concurrent.memb_holes");
}

Test(concurrent, qsbr_holes_against_writer, .timeout = 120)
{
	hc_run(&t_qsbr_ops, false, &hc_holes, "concurrent.qsbr_holes");
}

/*
 * The same on an IDR, whose scans start from the free ids the nodes'
 * words point to: reserved ids, and ids going from item to reservation and
 * back, are present (no hole); ids past the last modelled one are holes.
 */
Test(concurrent, memb_idr_holes_against_writer, .timeout = 120)
{
	hc_run(&t_memb_ops, true, &hc_holes, "concurrent.memb_idr_holes");
}

Test(concurrent, qsbr_idr_holes_against_writer, .timeout = 120)
{
	hc_run(&t_qsbr_ops, true, &hc_holes, "concurrent.qsbr_idr_holes");
}

/*
 * radix_tree_count() and radix_tree_count_range() on a plain tree, while a
 * writer inserts and deletes keeping S + P or S + P + 1 items: under RCU
 * the count is one of the two (the count of a moment of the call, give or
 * take the writer call running), and a range's count lies between the
 * keys present all along the call and those plus the keys that changed
 * (the writer's words tell which); under the tree lock both are exact, and
 * once the writer has stopped they must equal the model's.
 */
Test(concurrent, memb_counts_against_writer, .timeout = 120)
{
	hc_run(&t_memb_ops, false, &hc_counts, "concurrent.memb_counts");
}

Test(concurrent, qsbr_counts_against_writer, .timeout = 120)
{
	hc_run(&t_qsbr_ops, false, &hc_counts, "concurrent.qsbr_counts");
}

/*
 * The same on an IDR, where reserved ids count as items, and ids going
 * from item to reservation and back count all along.
 */
Test(concurrent, memb_idr_counts_against_writer, .timeout = 120)
{
	hc_run(&t_memb_ops, true, &hc_counts, "concurrent.memb_idr_counts");
}

Test(concurrent, qsbr_idr_counts_against_writer, .timeout = 120)
{
	hc_run(&t_qsbr_ops, true, &hc_counts, "concurrent.qsbr_idr_counts");
}

/*
 * Hole scans while the tree grows and shrinks under them.  Keys 0 ..
 * GS_DENSE - 1 stay present: enough leaves that the nodes above them are
 * full, so that a scan goes from leaf to leaf along the full nodes it
 * went down through (rt_spine_step()).  The writer inserts and deletes
 * GS_FAR, out of the top's range: each insert puts a new top above the
 * old one, each delete takes it away again, the old top unlinked while
 * scans may hold it.  GS_DENSE is never present, so a scan up from any
 * dense key must stop exactly there, and a scan down must run past 0.
 */
#define GS_DENSE (1UL << (3 * RT_MAP_SHIFT))  /* a full node above full ones */
#define GS_FAR (4 * GS_DENSE + 7)

static void *gs_reader(void *arg)
{
	char role[48];
	struct t_rng rng;
	unsigned long n = 0;

	snprintf(role, sizeof(role), "concurrent.grow_shrink.reader%u",
		 (unsigned int)(uintptr_t)arg);
	t_rng_init(&rng, role);
	ops->reg();
	while (!uatomic_read(&stop)) {
		unsigned long k = t_rand_below(&rng, GS_DENSE), up, down;

		ops->lock();
		up = radix_tree_next_hole(&tree, k, ULONG_MAX);
		down = radix_tree_prev_hole(&tree, k, ULONG_MAX);
		ops->unlock();
		if (up != GS_DENSE)
			error("next_hole from a dense key: not the first absent key", up);
		if (down != ULONG_MAX)
			error("prev_hole from a dense key: not past 0", down);
		if (ops->quiescent && ++n % 64 == 0)
			ops->quiescent();
		uatomic_inc(&reads);
	}
	ops->unreg();
	return NULL;
}

static void *gs_writer(void *arg)
{
	unsigned long done, reads_before;

	(void)arg;
	ops->reg();
	reads_before = uatomic_read(&reads);
	for (done = 0; done < t_scaled(20000) || uatomic_read(&reads) < reads_before + 64;
	     done++) {
		struct titem *far = titem_new(GS_FAR);

		if (radix_tree_insert(&tree, GS_FAR, far) != 0 ||
		    radix_tree_delete(&tree, GS_FAR) != far)
			uatomic_inc(&errors);
		titem_free_rcu(ops->flavor, far);
		if (ops->quiescent && done % 256 == 0)
			ops->quiescent();
	}
	uatomic_set(&stop, 1);
	ops->unreg();
	rcuradix_thread_cache_flush();
	return NULL;
}

static void gs_run(const struct t_flavor_ops *f)
{
	ops = f;
	ops->reg();
	uatomic_set(&stop, 0);
	uatomic_set(&errors, 0);
	uatomic_set(&reads, 0);
	radix_tree_init_flavor(&tree, GFP_KERNEL, ops->flavor);
	for (unsigned long k = 0; k < GS_DENSE; k++)
		t_insert_new(&tree, k);
	ops->unreg();  /* as in run() */
	run_threads(gs_reader, gs_writer);
	ops->reg();
	cr_assert_eq(uatomic_read(&errors), 0, "%lu errors (first ones on stderr)", errors);
	cr_assert_null(radix_tree_lookup(&tree, GS_FAR));
	t_verify(&tree);
	t_finish(&tree);
	ops->unreg();
}

Test(concurrent, memb_holes_while_the_tree_grows_and_shrinks, .timeout = 120)
{
	gs_run(&t_memb_ops);
}

Test(concurrent, qsbr_holes_while_the_tree_grows_and_shrinks, .timeout = 120)
{
	gs_run(&t_qsbr_ops);
}
