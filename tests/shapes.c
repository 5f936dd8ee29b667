/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shapes.c - every structural transition of the tree, driven through the
 * public API by the key shapes that force it, against the sorted-array
 * model.
 *
 * Shapes (pool_fill()): keys sharing long prefixes, keys one bit apart,
 * runs of consecutive keys that grow and shrink, runs of 64 at random bases
 * below 2^40, uniform 32-bit and 64-bit keys, a dense range, every other
 * key, keys near 0 and ULONG_MAX, and all of them mixed.  Together they make
 * the tree grow above its root and shrink, nodes fill, split and empty, and
 * paths diverge at every level.
 *
 * diff_*:  batches of inserts, deletes, tag sets and clears and replacements
 *          (lookup_slot + replace_slot under the lock); after each batch,
 *          radix_tree_verify() and every reader call against the model.
 * oom_*:   the tree grown key by key with the n-th node allocation failing,
 *          n = 1, 2, ... until the insert succeeds, then on a GFP_ATOMIC
 *          tree with every allocation failing; each failed insert returns
 *          -ENOMEM, changes nothing and leaks nothing.  Deletes, tag calls
 *          and replacements, which cannot fail, run with every allocation
 *          failing.
 * slot_*:  the rules for slot pointers (each test says which interleaving
 *          it guards).
 * walk_*:  walks under the lock that change the tree as they go.
 * copy_*:  the direct copies of a compact node (into a larger class, and
 *          with a group of items moved into a new child) against the plan
 *          they stand in for: two trees driven alike, node for node equal.
 *
 * Every test prints its seed (RCURADIX_SEED replays it) and ends with an
 * empty tree and zero live nodes.
 */
#include "helpers.h"
#include "model.h"

#include <errno.h>
#include <sched.h>

static struct radix_tree_root tree;
/* Inserts into it only consume nodes the thread preloaded. */
static struct radix_tree_root atomic_tree;

static void setup(void)
{
	urcu_memb_register_thread();
	INIT_RADIX_TREE(&tree, GFP_KERNEL);
	INIT_RADIX_TREE(&atomic_tree, GFP_ATOMIC);
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
}

static void teardown(void)
{
	rt_fault_fail_nth(0);
	rt_fault_fail_all(false);
	urcu_memb_unregister_thread();
}

TestSuite(shapes, .init = setup, .fini = teardown);

/* ---- key shapes ---------------------------------------------------------- */

enum shape {
	PREFIX, ONEBIT, RUNS, CLUSTERED, UNIFORM32, UNIFORM64, DENSE, HOLES, EXTREMES, MIXED,
	NR_SHAPES
};

static const char *const shape_name[NR_SHAPES] = {
	"prefix", "onebit", "runs", "clustered", "uniform32", "uniform64", "dense", "holes",
	"extremes", "mixed",
};

#define POOL_MAX 4096

/* Keys of one shape, in the shape's own order (a run ascending, a key then
 * its one-bit neighbours, ...); duplicates are allowed. */
struct pool {
	size_t n;
	unsigned long key[POOL_MAX];
};

static struct t_rng rng;
static struct model m;
static struct pool pool;

static void pool_add(struct pool *p, unsigned long key)
{
	cr_assert_lt(p->n, POOL_MAX);
	p->key[p->n++] = key;
}

/* Append @want keys of shape @s to @p. */
static void pool_fill(struct pool *p, enum shape s, size_t want)
{
	size_t end = p->n + want;

	switch (s) {
	case PREFIX:
		/* Under each random 64-bit prefix, four sub-prefixes differing in
		 * bits 8..23, each with random offsets below 256. */
		while (p->n < end) {
			unsigned long base = t_rand(&rng) & ~0xffffffUL;

			for (int sub = 0; sub < 4; sub++) {
				unsigned long prefix = base | (t_rand_below(&rng, 1UL << 16) << 8);

				for (int i = 0; i < 64 && p->n < end; i++)
					pool_add(p, prefix | t_rand_below(&rng, 256));
			}
		}
		break;
	case ONEBIT:
		/* k, then k ^ 2^b for every b: each pair diverges at another
		 * level.  k = 0 and ULONG_MAX first. */
		for (unsigned long j = 0; p->n < end; j++) {
			unsigned long k = j == 0 ? 0 : j == 1 ? ULONG_MAX :
					  j % 2 ? t_rand(&rng) : t_rand_below(&rng, 1UL << 20);

			pool_add(p, k);
			for (unsigned int b = 0; b < RT_BITS_PER_LONG && p->n < end; b++)
				pool_add(p, k ^ (1UL << b));
		}
		break;
	case RUNS:
		/* Runs k..k+len, len < 300, from 64-bit and 32-bit bases; a run
		 * may wrap past ULONG_MAX to 0. */
		while (p->n < end) {
			unsigned long k = t_rand_below(&rng, 2) ? t_rand(&rng)
								: t_rand_below(&rng, 1UL << 32);
			unsigned long len = 1 + t_rand_below(&rng, 300);

			for (unsigned long i = 0; i < len && p->n < end; i++)
				pool_add(p, k + i);
		}
		break;
	case CLUSTERED:
		while (p->n < end) {
			unsigned long k = t_rand_below(&rng, 1UL << 40);

			for (unsigned long i = 0; i < 64 && p->n < end; i++)
				pool_add(p, k + i);
		}
		break;
	case UNIFORM32:
		while (p->n < end)
			pool_add(p, t_rand(&rng) & 0xffffffffUL);
		break;
	case UNIFORM64:
		while (p->n < end)
			pool_add(p, t_rand(&rng));
		break;
	case DENSE:
		for (unsigned long i = 0; p->n < end; i++)
			pool_add(p, i);
		break;
	case HOLES:
		for (unsigned long i = 0; p->n < end; i++)
			pool_add(p, 2 * i);
		break;
	case EXTREMES:
		/* 0, ULONG_MAX, 1, ULONG_MAX - 1, ... */
		for (unsigned long i = 0; p->n < end; i++)
			pool_add(p, i % 2 ? ULONG_MAX - i / 2 : i / 2);
		break;
	case MIXED:
		for (unsigned int t = 0; t < MIXED; t++)
			pool_fill(p, (enum shape)t, (end - p->n) / (MIXED - t));
		break;
	case NR_SHAPES:
		cr_assert_fail("no such shape");
	}
}

static void start_test(const char *test, enum shape s, size_t keys)
{
	char what[96];

	snprintf(what, sizeof(what), "shapes.%s.%s", test, shape_name[s]);
	t_rng_init(&rng, what);
	model_init(&m);
	pool.n = 0;
	pool_fill(&pool, s, keys);
}

static void end_test(struct radix_tree_root *r)
{
	model_free(&m);
	t_finish(r);
}

/* ---- acting on tree and model -------------------------------------------- */

/* A tag number, low tags more often: tag 0 dense, tag 4 sparse. */
static unsigned int some_tag(void)
{
	return (unsigned int)t_rand_below(&rng, 1 + t_rand_below(&rng, RADIX_TREE_MAX_TAGS));
}

/* A key of the model (mostly) or of the pool. */
static unsigned long some_key(void)
{
	if (m.n && t_rand_below(&rng, 4))
		return m.e[t_rand_below(&rng, m.n)].key;
	return pool.key[t_rand_below(&rng, pool.n)];
}

static void do_insert(struct radix_tree_root *r, unsigned long key)
{
	struct titem *item = titem_new(key);
	int ret = radix_tree_insert(r, key, item);

	if (model_find(&m, key)) {
		cr_assert_eq(ret, -EEXIST, "insert(%#lx) of a present key = %d", key, ret);
		titem_free(item);
	} else {
		cr_assert_eq(ret, 0, "insert(%#lx) = %d", key, ret);
		cr_assert(model_insert(&m, key, item));
	}
}

static void do_delete(struct radix_tree_root *r, unsigned long key)
{
	void *want = model_delete(&m, key);
	void *got = radix_tree_delete(r, key);

	cr_assert_eq(got, want, "delete(%#lx) = %p, expected %p", key, got, want);
	if (got)
		titem_free(got);  /* no reader runs: free at once */
}

static void do_tag(struct radix_tree_root *r, unsigned long key, unsigned int tag, bool set)
{
	struct model_entry *e = model_find(&m, key);
	void *got = set ? radix_tree_tag_set(r, key, tag) : radix_tree_tag_clear(r, key, tag);

	cr_assert_eq(got, e ? e->item : NULL, "tag_%s(%#lx, %u) = %p", set ? "set" : "clear", key,
		     tag, got);
	if (e && set)
		e->tags |= 1UL << tag;
	else if (e)
		e->tags &= ~(1UL << tag);
}

/* Under the lock: lookup_slot, then replace_slot with a new item. */
static void do_replace(struct radix_tree_root *r, unsigned long key)
{
	struct model_entry *e = model_find(&m, key);
	struct titem *item;
	void **slot;

	radix_tree_lock(r);
	slot = radix_tree_lookup_slot(r, key);
	if (!e) {
		radix_tree_unlock(r);
		cr_assert_null(slot, "lookup_slot(%#lx) of an absent key", key);
		return;
	}
	cr_assert_not_null(slot, "lookup_slot(%#lx) of a present key", key);
	cr_assert_eq(*slot, e->item, "lookup_slot(%#lx)", key);
	item = titem_new(key);
	radix_tree_replace_slot(r, slot, item);
	cr_assert_eq(radix_tree_lookup(r, key), item, "lookup(%#lx) after replace_slot", key);
	radix_tree_unlock(r);
	titem_free(e->item);
	e->item = item;
}

/* A tag set or cleared on some key. */
static void do_side_op(struct radix_tree_root *r)
{
	do_tag(r, some_key(), some_tag(), t_rand_below(&rng, 100) < 60);
}

/* ---- checking the tree against the model --------------------------------- */

#define ANY RADIX_TREE_MAX_TAGS  /* "no tag": every entry */

static bool has_tag(const struct model_entry *e, unsigned int tag)
{
	return tag == ANY || ((e->tags >> tag) & 1);
}

/* The first model entry at or after position @i bearing @tag. */
static size_t model_next(size_t i, unsigned int tag)
{
	while (i < m.n && !has_tag(&m.e[i], tag))
		i++;
	return i;
}

static size_t model_count(unsigned int tag)
{
	size_t n = 0;

	for (size_t i = 0; i < m.n; i++)
		n += has_tag(&m.e[i], tag);
	return n;
}

/* How many consecutive keys from @start the model holds. */
static unsigned long model_contig(unsigned long start)
{
	size_t pos = model_lower_bound(&m, start);
	unsigned long n = 0;

	while (pos + n < m.n && m.e[pos + n].key == start + n)
		n++;
	return n;
}

/* A start for a range call: at, next to, or one bit from a present key; a
 * pool key; 0, ULONG_MAX or anything. */
static unsigned long some_start(void)
{
	unsigned long k = some_key();

	switch (t_rand_below(&rng, 8)) {
	case 0:
		return k + 1;
	case 1:
		return k - 1;
	case 2:
		return k ^ (1UL << t_rand_below(&rng, RT_BITS_PER_LONG));
	case 3:
		return t_rand_below(&rng, 2) ? 0 : ULONG_MAX;
	case 4:
		return t_rand(&rng);
	default:
		return k;
	}
}

#define GMAX 160
static void *g_items[GMAX];
static void **g_slots[GMAX];
static unsigned long g_index[GMAX];

/*
 * Every gang lookup from @start for at most @max items (tagged with @tag
 * unless ANY) returns exactly the model's items, in order.  Returns how
 * many; *@last is the key of the last one.
 */
static unsigned int check_gang(const struct radix_tree_root *r, unsigned long start,
			       unsigned int max, unsigned int tag, unsigned long *last)
{
	size_t pos = model_next(model_lower_bound(&m, start), tag);
	unsigned int n, n_slots;

	if (tag == ANY) {
		n = radix_tree_gang_lookup(r, g_items, start, max);
		n_slots = radix_tree_gang_lookup_slot(r, g_slots, g_index, start, max);
	} else {
		n = radix_tree_gang_lookup_tag(r, g_items, start, max, tag);
		n_slots = radix_tree_gang_lookup_tag_slot(r, g_slots, start, max, tag);
	}
	cr_assert_eq(n, n_slots, "gang(%#lx, %u, tag %u): %u items but %u slots", start, max, tag,
		     n, n_slots);
	for (unsigned int i = 0; i < n; i++, pos = model_next(pos + 1, tag)) {
		cr_assert_lt(pos, m.n, "gang(%#lx, %u, tag %u): more items than the model", start,
			     max, tag);
		cr_assert_eq(g_items[i], m.e[pos].item, "gang(%#lx, %u, tag %u): result %u is not "
			     "the item of %#lx", start, max, tag, i, m.e[pos].key);
		cr_assert_eq(*g_slots[i], m.e[pos].item, "gang_slot(%#lx, %u, tag %u): result %u",
			     start, max, tag, i);
		if (tag == ANY)
			cr_assert_eq(g_index[i], m.e[pos].key, "gang_slot(%#lx, %u): index %u",
				     start, max, i);
		*last = m.e[pos].key;
	}
	cr_assert(n == max || pos == m.n, "gang(%#lx, %u, tag %u): %u items, the model has more",
		  start, max, tag, n);
	return n;
}

/* Gang lookups of random sizes, each from the key after the last one,
 * cover the whole tree. */
static void check_gang_all(const struct radix_tree_root *r, unsigned int tag)
{
	unsigned long start = 0, last = 0;
	size_t total = 0;

	for (;;) {
		unsigned int max = 1 + (unsigned int)t_rand_below(&rng, GMAX);
		unsigned int n = check_gang(r, start, max, tag, &last);

		total += n;
		if (n < max || last == ULONG_MAX)
			break;
		start = last + 1;
	}
	cr_assert_eq(total, model_count(tag), "gangs over the tree (tag %u): %zu items, model %zu",
		     tag, total, model_count(tag));
}

enum walk { PLAIN, TAGGED, CONTIG };

struct walk_state {
	enum walk how;
	unsigned int tag;
	unsigned long start, n;
	size_t pos;
};

static void walk_visit(struct walk_state *w, const struct radix_tree_iter *iter, void **slot)
{
	cr_assert_lt(w->pos, m.n, "walk %d from %#lx (tag %u) visits %#lx past the model's end",
		     w->how, w->start, w->tag, iter->index);
	cr_assert_eq(iter->index, m.e[w->pos].key, "walk %d from %#lx (tag %u): item %lu",
		     w->how, w->start, w->tag, w->n);
	cr_assert_eq(rcu_dereference(*slot), m.e[w->pos].item, "walk %d: the item of %#lx",
		     w->how, iter->index);
	w->pos = model_next(w->pos + 1, w->tag);
	w->n++;
}

/* A walk from @start visits exactly the model's keys, in order. */
static void check_walk(const struct radix_tree_root *r, enum walk how, unsigned long start,
		       unsigned int tag)
{
	struct walk_state w = { how, how == TAGGED ? tag : ANY, start, 0, 0 };
	struct radix_tree_iter iter;
	void **slot;

	w.pos = model_next(model_lower_bound(&m, start), w.tag);
	switch (how) {
	case PLAIN:
		radix_tree_for_each_slot(slot, r, &iter, start)
			walk_visit(&w, &iter, slot);
		cr_assert_eq(w.pos, m.n, "walk from %#lx ended early", start);
		break;
	case TAGGED:
		radix_tree_for_each_tagged(slot, r, &iter, start, tag)
			walk_visit(&w, &iter, slot);
		cr_assert_eq(w.pos, m.n, "tagged walk from %#lx (tag %u) ended early", start, tag);
		break;
	case CONTIG:
		radix_tree_for_each_contig(slot, r, &iter, start)
			walk_visit(&w, &iter, slot);
		cr_assert_eq(w.n, model_contig(start), "contig walk from %#lx: %lu items, "
			     "expected %lu", start, w.n, model_contig(start));
		break;
	}
}

/* Every present key: lookup, lookup_slot and tag_get agree with the model;
 * absent keys near present ones are missed; tagged() agrees. */
static void check_lookups(const struct radix_tree_root *r, bool sample_absent)
{
	for (size_t i = 0; i < m.n; i++) {
		const struct model_entry *e = &m.e[i];
		void **slot = radix_tree_lookup_slot(r, e->key);

		cr_assert_eq(radix_tree_lookup(r, e->key), e->item, "lookup(%#lx)", e->key);
		cr_assert(slot && *slot == e->item, "lookup_slot(%#lx)", e->key);
		for (unsigned int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
			cr_assert_eq(radix_tree_tag_get(r, e->key, t), (int)((e->tags >> t) & 1),
				     "tag_get(%#lx, %u)", e->key, t);
	}
	for (unsigned int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		cr_assert_eq(radix_tree_tagged(r, t) != 0, model_count(t) != 0, "tagged(%u)", t);
	for (unsigned int i = 0; sample_absent && i < 256; i++) {
		unsigned long k = some_start();

		if (model_find(&m, k))
			continue;
		cr_assert_null(radix_tree_lookup(r, k), "lookup(%#lx) of an absent key", k);
		cr_assert_null(radix_tree_lookup_slot(r, k), "lookup_slot(%#lx) of an absent key", k);
		cr_assert_eq(radix_tree_tag_get(r, k, i % RADIX_TREE_MAX_TAGS), 0,
			     "tag_get(%#lx) of an absent key", k);
	}
}

/* The tree holds exactly the model's keys, items and tags. */
static void check_exact(const struct radix_tree_root *r)
{
	unsigned long last;

	t_verify(r);
	check_lookups(r, false);
	cr_assert_eq(check_gang(r, 0, GMAX, ANY, &last), m.n < GMAX ? m.n : GMAX);
	cr_assert_eq(radix_tree_empty(r) != 0, m.n == 0, "empty() disagrees with the model");
	check_walk(r, PLAIN, 0, 0);
}

/*
 * range_tag_if_tagged on a random range, batch size and pair of tags, as
 * the model computes it: items bearing @from in [first, last] get @to, up
 * to @nr of them; *first becomes the key after the last one tagged if
 * @nr was reached, else last + 1.
 */
static void range_tag_once(struct radix_tree_root *r)
{
	static const unsigned long spans[] = { 0, 63, 255, 1UL << 20, 1UL << 40, ULONG_MAX };
	unsigned int from = some_tag(), to = some_tag();
	unsigned long first = some_start(), span = t_rand_below(&rng, 1 + spans[t_rand_below(&rng, 6)]);
	unsigned long last = ULONG_MAX - first < span ? ULONG_MAX : first + span;
	unsigned long nr = (const unsigned long[]){ 1, 2, 7, 64, ULONG_MAX }[t_rand_below(&rng, 5)];
	unsigned long want = 0, want_next = last + 1, got, in = first;

	for (size_t i = model_lower_bound(&m, first); i < m.n && m.e[i].key <= last; i++) {
		if (!has_tag(&m.e[i], from))
			continue;
		m.e[i].tags |= 1UL << to;
		if (++want == nr) {
			want_next = m.e[i].key + 1;
			break;
		}
	}
	got = radix_tree_range_tag_if_tagged(r, &first, last, nr, from, to);
	cr_assert_eq(got, want, "range_tag(%#lx..%#lx, %lu, %u -> %u) = %lu, expected %lu", in,
		     last, nr, from, to, got, want);
	cr_assert_eq(first, want_next, "range_tag(%#lx..%#lx, %lu, %u -> %u): next %#lx, "
		     "expected %#lx", in, last, nr, from, to, first, want_next);
}

/* After a batch: range tagging, then every reader call against the model. */
static void check_all(struct radix_tree_root *r)
{
	unsigned long last;

	t_verify(r);
	for (int i = 0; i < 16; i++)
		range_tag_once(r);
	t_verify(r);
	check_lookups(r, true);
	check_gang_all(r, ANY);
	for (unsigned int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		check_gang_all(r, t);
	for (int i = 0; i < 32; i++)
		check_gang(r, some_start(), 1 + (unsigned int)t_rand_below(&rng, GMAX),
			   i % 2 ? ANY : some_tag(), &last);
	check_walk(r, PLAIN, 0, 0);
	for (unsigned int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		check_walk(r, TAGGED, 0, t);
	check_walk(r, CONTIG, 0, 0);
	for (int i = 0; i < 4; i++) {
		check_walk(r, PLAIN, some_start(), 0);
		check_walk(r, TAGGED, some_start(), some_tag());
		check_walk(r, CONTIG, some_start(), 0);
		check_walk(r, CONTIG, some_key(), 0);
	}
}

/* ---- 1. differential ----------------------------------------------------- */

#define DIFF_KEYS 4096
#define DIFF_BATCHES 12

enum order { RANDOM, ASCENDING, DESCENDING };

/*
 * One batch: each step inserts (@grow) or deletes a key, the opposite
 * operation now and then, and often also tags or clears some key; a few
 * steps replace an item.  Keys come at random from the pool, or in the pool's order up or
 * down from a random place: runs are then built or removed key after key.
 */
static void batch(struct radix_tree_root *r, bool grow, enum order order, unsigned long steps)
{
	size_t cursor = t_rand_below(&rng, pool.n);

	for (unsigned long step = 0; step < steps; step++) {
		unsigned long key;
		bool insert = grow == (t_rand_below(&rng, 100) < 85);

		if (order == RANDOM) {
			key = pool.key[t_rand_below(&rng, pool.n)];
		} else {
			key = pool.key[cursor];
			cursor = (order == ASCENDING ? cursor + 1 : cursor + pool.n - 1) % pool.n;
		}
		if (insert)
			do_insert(r, key);
		else
			do_delete(r, key);
		if (t_rand_below(&rng, 100) < 40)
			do_side_op(r);
		/* Few replacements: debug builds check that the slot belongs
		 * to the tree by walking the whole tree. */
		if (step % (steps / 8 + 1) == 0)
			do_replace(r, some_key());
	}
}

static void differential(enum shape s)
{
	unsigned long *keys;

	start_test("diff", s, DIFF_KEYS);
	/* Three batches growing, three shrinking, and again; the orders turn. */
	for (unsigned int b = 0; b < DIFF_BATCHES; b++) {
		batch(&tree, (b / 3) % 2 == 0, (enum order)(b % 3), t_scaled(pool.n / 2));
		check_all(&tree);
	}
	/* Then every key goes, in random order: nodes empty, the tree
	 * shrinks to nothing. */
	keys = malloc(m.n * sizeof(*keys) + 1);
	cr_assert_not_null(keys);
	for (size_t i = 0; i < m.n; i++)
		keys[i] = m.e[i].key;
	for (size_t i = m.n; i > 1; i--) {
		size_t j = t_rand_below(&rng, i);
		unsigned long k = keys[i - 1];

		keys[i - 1] = keys[j];
		keys[j] = k;
	}
	for (size_t i = 0, n = m.n; i < n; i++) {
		do_delete(&tree, keys[i]);
		if (i % (n / 4 + 1) == 0)
			check_all(&tree);
	}
	free(keys);
	check_all(&tree);
	cr_assert(radix_tree_empty(&tree));
	end_test(&tree);
}

Test(shapes, diff_prefix)
{
	differential(PREFIX);
}

Test(shapes, diff_onebit)
{
	differential(ONEBIT);
}

Test(shapes, diff_runs)
{
	differential(RUNS);
}

Test(shapes, diff_clustered)
{
	differential(CLUSTERED);
}

Test(shapes, diff_uniform32)
{
	differential(UNIFORM32);
}

Test(shapes, diff_uniform64)
{
	differential(UNIFORM64);
}

Test(shapes, diff_dense)
{
	differential(DENSE);
}

Test(shapes, diff_holes)
{
	differential(HOLES);
}

Test(shapes, diff_extremes)
{
	differential(EXTREMES);
}

Test(shapes, diff_mixed)
{
	differential(MIXED);
}

/* ---- 2. allocation failure ----------------------------------------------- */

#define OOM_POOL 1024
#define OOM_WINDOWS 4
#define OOM_WINDOW 32

static unsigned long oom_failed;  /* inserts that failed, per test */

/*
 * Nodes allocated that no tree, reserve or call_rcu queue accounts for: a
 * leak if positive.  A node being freed by a call_rcu callback may be
 * counted both pending and freed, never neither: this may read low while
 * callbacks run, never high.
 */
static long unaccounted_nodes(void)
{
	struct rcuradix_stats st;
	struct radix_tree_memstat a, b;

	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
	cr_assert_eq(radix_tree_memory(&tree, &a), 0);
	cr_assert_eq(radix_tree_memory(&atomic_tree, &b), 0);
	return (long)(st.nodes_live - st.nodes_reserved - st.nodes_pending - a.nodes - b.nodes);
}

static unsigned long linked_nodes(const struct radix_tree_root *r)
{
	struct radix_tree_memstat mem;

	cr_assert_eq(radix_tree_memory(r, &mem), 0);
	return mem.nodes;
}

/* An insert that returned -ENOMEM changed nothing and leaked nothing. */
static void check_failed_insert(const struct radix_tree_root *r, unsigned long key, int ret,
				unsigned long nodes_before)
{
	cr_assert_eq(ret, -ENOMEM, "insert(%#lx) = %d", key, ret);
	oom_failed++;
	cr_assert_null(radix_tree_lookup(r, key), "a failed insert(%#lx) left its item", key);
	cr_assert_eq(linked_nodes(r), nodes_before, "a failed insert(%#lx) changed the node count "
		     "from %lu to %lu", key, nodes_before, linked_nodes(r));
	check_exact(r);
	cr_assert_leq(unaccounted_nodes(), 0, "a failed insert(%#lx) leaked %ld nodes", key,
		      unaccounted_nodes());
}

/* A new key is in: into the model, with some tags, so that failures later
 * must keep tags too. */
static void inserted(struct radix_tree_root *r, unsigned long key, struct titem *item)
{
	cr_assert(model_insert(&m, key, item));
	cr_assert_eq(radix_tree_lookup(r, key), item, "lookup(%#lx) after insert", key);
	for (unsigned int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		if (t_rand_below(&rng, 3) == 0)
			do_tag(r, key, t, true);
}

/*
 * GFP_KERNEL: with the thread's reserve empty, so that the insert asks the
 * allocator for every node it needs, the n-th allocation fails, n = 1, 2,
 * ... until the insert succeeds.
 */
static void oom_insert(unsigned long key)
{
	struct titem *item = titem_new(key);
	int ret;

	for (unsigned long nth = 1;; nth++) {
		unsigned long nodes_before = linked_nodes(&tree);

		cr_assert_lt(nth, 1000, "insert(%#lx) keeps failing", key);
		rcuradix_thread_cache_flush();
		rt_fault_fail_nth(nth);
		ret = radix_tree_insert(&tree, key, item);
		rt_fault_fail_nth(0);
		if (ret != -ENOMEM)
			break;
		check_failed_insert(&tree, key, ret, nodes_before);
	}
	cr_assert_eq(ret, 0, "insert(%#lx) = %d", key, ret);
	inserted(&tree, key, item);
}

/*
 * GFP_ATOMIC: the insert only consumes the thread's reserve.  Every
 * allocation failing, it is tried with the reserve the previous insert
 * left (odd @i) and with an empty one; where it fails, a preload makes it
 * succeed although every allocation still fails.
 */
static void oom_insert_atomic(unsigned long key, size_t i)
{
	struct titem *item = titem_new(key);
	int ret;

	for (unsigned int empty = i % 2 == 0; empty <= 1; empty++) {
		unsigned long nodes_before = linked_nodes(&atomic_tree);

		if (empty)
			rcuradix_thread_cache_flush();
		rt_fault_fail_all(true);
		ret = radix_tree_insert(&atomic_tree, key, item);
		rt_fault_fail_all(false);
		if (ret == 0) {
			inserted(&atomic_tree, key, item);
			return;
		}
		check_failed_insert(&atomic_tree, key, ret, nodes_before);
	}
	cr_assert_eq(radix_tree_preload(GFP_KERNEL), 0);
	rt_fault_fail_all(true);
	ret = radix_tree_insert(&atomic_tree, key, item);
	rt_fault_fail_all(false);
	radix_tree_preload_end();
	cr_assert_eq(ret, 0, "insert(%#lx) after a preload = %d", key, ret);
	inserted(&atomic_tree, key, item);
}

/*
 * Grow the tree from windows of consecutive pool keys (a run, a key and
 * its one-bit neighbours, ...), every insert going through its failure
 * points; then delete half of the keys, tag, clear and replace, with every
 * allocation failing (none of these may fail or need memory); then grow
 * back the deleted keys through their failure points.
 */
static void oom_grow_shrink(struct radix_tree_root *r)
{
	static unsigned long keys[OOM_WINDOWS * OOM_WINDOW];
	size_t n = 0;

	for (unsigned int w = 0; w < OOM_WINDOWS; w++) {
		size_t at = t_rand_below(&rng, pool.n - OOM_WINDOW);

		for (size_t j = 0; j < OOM_WINDOW; j++)
			keys[n++] = pool.key[at + j];
	}
	for (unsigned int round = 0; round < 2; round++) {
		for (size_t i = 0; i < n; i++) {
			if (model_find(&m, keys[i]))
				continue;
			if (r == &tree)
				oom_insert(keys[i]);
			else
				oom_insert_atomic(keys[i], i);
		}
		check_exact(r);
		if (round)
			break;
		rt_fault_fail_all(true);
		for (size_t i = 0; i < n; i++) {
			unsigned long key = keys[t_rand_below(&rng, n)];

			switch (t_rand_below(&rng, 4)) {
			case 0:
			case 1:
				do_delete(r, key);
				break;
			case 2:
				do_tag(r, key, some_tag(), t_rand_below(&rng, 2));
				break;
			default:
				do_replace(r, key);
				break;
			}
			if (i % 16 == 0)
				check_exact(r);
		}
		rt_fault_fail_all(false);
		check_exact(r);
	}
}

static void oom(enum shape s)
{
	start_test("oom", s, OOM_POOL);
	oom_failed = 0;
	oom_grow_shrink(&tree);
	/* Every insert of a key into an empty tree needs a node at least. */
	cr_assert_gt(oom_failed, 0, "no insert failed: the failure points were not reached");
	model_free(&m);
	t_finish(&tree);

	model_init(&m);
	oom_failed = 0;
	oom_grow_shrink(&atomic_tree);
	cr_assert_gt(oom_failed, 0, "no atomic insert failed: the empty reserve was not reached");
	end_test(&atomic_tree);
}

Test(shapes, oom_prefix)
{
	oom(PREFIX);
}

Test(shapes, oom_onebit)
{
	oom(ONEBIT);
}

Test(shapes, oom_runs)
{
	oom(RUNS);
}

Test(shapes, oom_clustered)
{
	oom(CLUSTERED);
}

Test(shapes, oom_uniform32)
{
	oom(UNIFORM32);
}

Test(shapes, oom_uniform64)
{
	oom(UNIFORM64);
}

Test(shapes, oom_dense)
{
	oom(DENSE);
}

Test(shapes, oom_holes)
{
	oom(HOLES);
}

Test(shapes, oom_extremes)
{
	oom(EXTREMES);
}

Test(shapes, oom_mixed)
{
	oom(MIXED);
}

/* ---- 3. slot rules ------------------------------------------------------- */

#define NB_MAX (2 * 64 + 200 + 64 + 64 + 8)

/*
 * Keys that reshape the nodes around @k: its own node and the next ones
 * (k ^ j, k + 1 .. k + 200, k - 1 .. k - 64), a key one bit apart at
 * every level, and keys that grow the tree above its root.  Never @k.
 */
static size_t neighbours(unsigned long k, unsigned long *out)
{
	const unsigned long far[] = { 0, ULONG_MAX, 1UL << 63, ~k, k ^ (ULONG_MAX << 32) };
	size_t n = 0;

	for (unsigned long j = 1; j < 2 * RT_MAP_SIZE; j++)
		out[n++] = k ^ j;
	for (unsigned long j = 1; j <= 200; j++)
		out[n++] = k + j;
	for (unsigned long j = 1; j <= 64; j++)
		out[n++] = k - j;
	for (unsigned int b = 0; b < RT_BITS_PER_LONG; b++)
		out[n++] = k ^ (1UL << b);
	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++)
		if (far[i] != k)
			out[n++] = far[i];
	cr_assert_leq(n, NB_MAX);
	return n;
}

/* The pool's keys, all in the tree (and the model). */
static void fill_from_pool(void)
{
	for (size_t i = 0; i < pool.n; i++)
		if (!model_find(&m, pool.key[i]))
			do_insert(&tree, pool.key[i]);
}

/* Delete every key but @k. */
static void delete_all_but(unsigned long k)
{
	while (m.n > 1 || (m.n == 1 && m.e[0].key != k))
		do_delete(&tree, m.e[m.e[0].key == k ? 1 : 0].key);
}

/*
 * One round of changes around @k (@round picks which): neighbours
 * inserted; half of them deleted; every other key deleted (the tree
 * shrinks to @k's path alone); the keys one bit apart and those above the
 * root inserted (the tree grows above @k again); all neighbours inserted;
 * all deleted.
 */
static void reshape_round(unsigned long k, unsigned int round, void (*after_op)(unsigned long))
{
	unsigned long nb[NB_MAX];
	size_t n = neighbours(k, nb);

	for (size_t i = 0; i < n; i++) {
		switch (round % 6) {
		case 0:
		case 4:
			do_insert(&tree, nb[i]);
			break;
		case 1:
			if (t_rand_below(&rng, 2))
				do_delete(&tree, nb[i]);
			break;
		case 2:
			if (i == 0)
				delete_all_but(k);
			break;
		case 3:
			if (i >= n - RT_BITS_PER_LONG - 5)
				do_insert(&tree, nb[i]);
			break;
		case 5:
			do_delete(&tree, nb[i]);
			break;
		}
		if (after_op)
			after_op(k);
	}
}

/*
 * slot_lock_*: guards a slot obtained under the tree lock (lookup_slot)
 * being passed to radix_tree_replace_slot() after inserts and deletes of
 * other keys, in the same lock hold, reshaped the nodes around its key:
 * its node filled, split and emptied of its neighbours, the tree grown
 * above its root and shrunk to its path alone.  After each round the old
 * slot must store the new item at the key, keep its tags, and leave a
 * sound tree equal to the model; after unlocking too.
 */
static void slot_lock(enum shape s)
{
	start_test("slot_lock", s, 512);
	for (unsigned int trial = 0; trial < 3; trial++) {
		unsigned long k = pool.key[t_rand_below(&rng, pool.n)];
		struct model_entry *e;
		void **slot;

		fill_from_pool();
		do_tag(&tree, k, 1, true);
		do_tag(&tree, k, 3, true);
		radix_tree_lock(&tree);
		slot = radix_tree_lookup_slot(&tree, k);
		cr_assert(slot && *slot == model_find(&m, k)->item, "lookup_slot(%#lx)", k);
		for (unsigned int round = 0; round < 12; round++) {
			struct titem *item = titem_new(k);

			reshape_round(k, round, NULL);
			e = model_find(&m, k);
			radix_tree_replace_slot(&tree, slot, item);
			cr_assert_eq(radix_tree_lookup(&tree, k), item, "round %u: lookup(%#lx) after "
				     "replace_slot through the old slot", round, k);
			titem_free(e->item);
			e->item = item;
			check_exact(&tree);
		}
		radix_tree_unlock(&tree);
		e = model_find(&m, k);
		cr_assert_eq(radix_tree_lookup(&tree, k), e->item, "lookup(%#lx) after unlock", k);
		cr_assert_eq(e->tags, (1UL << 1) | (1UL << 3));
		check_exact(&tree);
	}
	end_test(&tree);
}

Test(shapes, slot_lock_dense)
{
	slot_lock(DENSE);
}

Test(shapes, slot_lock_sparse)
{
	slot_lock(UNIFORM64);
}

Test(shapes, slot_lock_clustered)
{
	slot_lock(CLUSTERED);
}

static void **reader_slot;
static void *reader_item;

/* Before the delete: the item, or NULL if its node was replaced; then a
 * fresh lookup finds the item. */
static void reader_slot_before(unsigned long k)
{
	void *v = rcu_dereference(*reader_slot);

	cr_assert(v == reader_item || v == NULL, "the slot of %#lx reads %p, not its item %p", k, v,
		  reader_item);
	if (!v)
		cr_assert_eq(radix_tree_lookup(&tree, k), reader_item, "the slot of %#lx reads NULL "
			     "and a fresh lookup misses the item", k);
}

/* After the delete: NULL, never the deleted item nor another one. */
static void reader_slot_after(unsigned long k)
{
	void *v = rcu_dereference(*reader_slot);

	cr_assert_null(v, "the slot of deleted %#lx reads %p (%s)", k, v,
		       v == reader_item ? "the deleted item" : "another item");
}

/* The last change before the delete: the key's node full of neighbours,
 * emptied of them, the key alone in the tree. */
static const unsigned int last_rounds[] = { 0, 5, 2 };
#define NR_LAST_ROUNDS (sizeof(last_rounds) / sizeof(last_rounds[0]))

/*
 * slot_reader_one_thread: guards a slot held by a reader, inside
 * rcu_read_lock(), while the same thread, as a writer, reshapes the nodes
 * around the key and then deletes it (from a full node, from a node
 * holding it alone, from a tree holding it alone): before the delete the
 * slot reads the item or NULL (its node replaced: a fresh lookup finds the
 * item); after the delete, and while the reshaping goes on, NULL.
 */
Test(shapes, slot_reader_one_thread)
{
	static const enum shape regions[] = { DENSE, UNIFORM64, CLUSTERED, ONEBIT };

	for (size_t r = 0; r < sizeof(regions) / sizeof(regions[0]); r++) {
		start_test("slot_reader", regions[r], 512);
		for (size_t trial = 0; trial < NR_LAST_ROUNDS; trial++) {
			unsigned long k;

			fill_from_pool();
			k = pool.key[t_rand_below(&rng, pool.n)];
			reader_item = model_find(&m, k)->item;
			urcu_memb_read_lock();
			reader_slot = radix_tree_lookup_slot(&tree, k);
			cr_assert(reader_slot && rcu_dereference(*reader_slot) == reader_item);
			for (unsigned int round = 0; round < 6; round++)
				reshape_round(k, round, reader_slot_before);
			reshape_round(k, last_rounds[trial], reader_slot_before);
			cr_assert_eq(radix_tree_delete(&tree, k), reader_item);
			cr_assert_eq(model_delete(&m, k), reader_item);
			reader_slot_after(k);
			for (unsigned int round = 0; round < 6; round++)
				reshape_round(k, round, reader_slot_after);
			urcu_memb_read_unlock();
			titem_free(reader_item);
		}
		model_free(&m);
		t_empty(&tree);
	}
	t_finish(&tree);
}

/* Shared by the two threads of slot_reader_two_threads. */
static struct {
	unsigned long key;
	void *item;
	int ready, deleting, deleted, stop;
	unsigned long checks, checks_after, errors;
	/* Yield after each check: set in scaled runs (valgrind), whose
	 * threads take turns on one lock, so that the reader's spinning does
	 * not take half of the writer's turns.  Read before the thread starts. */
	bool yield;
} sr;

static void sr_error(const char *what)
{
	if (uatomic_add_return(&sr.errors, 1) <= 10)
		fprintf(stderr, "slot reader: %s (key %#lx)\n", what, sr.key);
}

static void *slot_reader_thread(void *arg)
{
	void **slot;

	(void)arg;
	urcu_memb_register_thread();
	urcu_memb_read_lock();
	slot = radix_tree_lookup_slot(&tree, sr.key);
	if (!slot || rcu_dereference(*slot) != sr.item) {
		sr_error("lookup_slot does not find the item");
		slot = NULL;
	}
	uatomic_set(&sr.ready, 1);
	while (!uatomic_read(&sr.stop)) {
		int deleted = uatomic_read(&sr.deleted);
		void *v;

		/* The flag is read before the slot: once it says deleted, the
		 * delete is complete for this thread's loads. */
		cmm_smp_mb();
		v = slot ? rcu_dereference(*slot) : NULL;
		if (deleted) {
			if (v)
				sr_error(v == sr.item ? "the slot reads the item after its delete"
						      : "the slot reads another item");
			uatomic_inc(&sr.checks_after);
		} else if (v && v != sr.item) {
			sr_error("the slot reads another item");
		} else if (slot && !v) {
			/* Its node was replaced (or the delete is under way). */
			void *found = radix_tree_lookup(&tree, sr.key);

			cmm_smp_mb();
			if (found != sr.item && !uatomic_read(&sr.deleting))
				sr_error("the slot reads NULL and a fresh lookup misses the item");
		}
		uatomic_inc(&sr.checks);
		if (sr.yield)
			sched_yield();
	}
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
	return NULL;
}

/* Wait until the reader has made @n more checks, so that it runs between
 * the writer's steps even on one CPU: yield, never sleep. */
static void wait_reader(unsigned long *counter, unsigned long n)
{
	unsigned long target = uatomic_read(counter) + n;

	while (uatomic_read(counter) < target)
		sched_yield();
}

static void writer_step(unsigned long k)
{
	static unsigned long steps;

	(void)k;
	if (++steps % 128 == 0)
		wait_reader(&sr.checks, 1);
}

/*
 * slot_reader_two_threads: guards a slot held by a reader thread inside
 * one read-side section while a writer thread reshapes the nodes around
 * its key, then deletes the key.  The reader checks without pause: before
 * the delete the slot reads the item or NULL (then a fresh lookup finds
 * the item unless the delete has begun); once the writer's flag, set after
 * the delete returned, is seen, the slot never reads the item again.
 * The one test with a timeout: its threads wait for each other.
 */
Test(shapes, slot_reader_two_threads, .timeout = 120)
{
	static const enum shape regions[] = { DENSE, UNIFORM64, CLUSTERED };

	for (size_t r = 0; r < sizeof(regions) / sizeof(regions[0]); r++) {
		start_test("slot_reader_threads", regions[r], 512);
		for (size_t trial = 0; trial < NR_LAST_ROUNDS; trial++) {
			pthread_t reader;
			unsigned long before;

			fill_from_pool();
			memset(&sr, 0, sizeof(sr));
			sr.yield = t_scaled(2) < 2;
			sr.key = pool.key[t_rand_below(&rng, pool.n)];
			sr.item = model_find(&m, sr.key)->item;
			cr_assert_eq(pthread_create(&reader, NULL, slot_reader_thread, NULL), 0);
			while (!uatomic_read(&sr.ready))
				sched_yield();
			for (unsigned int round = 0; round < 4; round++)
				reshape_round(sr.key, round, writer_step);
			reshape_round(sr.key, last_rounds[trial], writer_step);
			before = uatomic_read(&sr.checks);
			uatomic_set(&sr.deleting, 1);
			cmm_smp_mb();
			cr_assert_eq(radix_tree_delete(&tree, sr.key), sr.item);
			cmm_smp_mb();
			uatomic_set(&sr.deleted, 1);
			cr_assert_eq(model_delete(&m, sr.key), sr.item);
			for (unsigned int round = 0; round < 6; round += 5)
				reshape_round(sr.key, round, writer_step);
			wait_reader(&sr.checks_after, 1000);
			uatomic_set(&sr.stop, 1);
			cr_assert_eq(pthread_join(reader, NULL), 0);
			cr_assert_eq(sr.errors, 0, "%lu reader errors (the first ones on stderr)",
				     sr.errors);
			cr_assert_gt(before, 0, "no check before the delete");
			fprintf(stderr, "slot reader: %lu checks, %lu after the delete\n", sr.checks,
				sr.checks_after);
			titem_free(sr.item);  /* the reader has left its read-side section */
		}
		model_free(&m);
		t_empty(&tree);
	}
	t_finish(&tree);
}

/* ---- walks that change the tree ------------------------------------------ */

enum walk_edit { EDIT_RESUME, EDIT_ITER_DELETE, EDIT_TAGGED };

/*
 * Changes made at the walk's current key @cur: the current key deleted
 * (through radix_tree_iter_delete() with EDIT_ITER_DELETE), keys ahead
 * (in the same chunk or far) and behind inserted or deleted, tag 0 set or
 * cleared ahead.  Returns whether anything but an iter_delete changed.
 */
static bool walk_edit(struct radix_tree_iter *iter, void **slot, enum walk_edit mode)
{
	unsigned long cur = iter->index, key;
	bool changed = false;
	size_t ahead, behind;

	if (t_rand_below(&rng, 100) < 20) {
		if (mode == EDIT_ITER_DELETE) {
			void *item = model_delete(&m, cur);

			cr_assert_eq(radix_tree_iter_delete(&tree, iter, slot), item,
				     "iter_delete at %#lx", cur);
			titem_free(item);
		} else {
			do_delete(&tree, cur);
			changed = true;
		}
	}
	for (unsigned int edits = (unsigned int)t_rand_below(&rng, 3); edits > 0; edits--) {
		behind = model_lower_bound(&m, cur);
		ahead = cur == ULONG_MAX ? m.n : model_lower_bound(&m, cur + 1);
		switch (t_rand_below(&rng, 7)) {
		case 0:  /* delete near ahead: often in the current chunk */
			if (ahead < m.n)
				do_delete(&tree, m.e[ahead + t_rand_below(&rng, m.n - ahead < 4 ?
									       m.n - ahead : 4)].key);
			break;
		case 1:  /* delete anywhere ahead */
			if (ahead < m.n)
				do_delete(&tree, m.e[ahead + t_rand_below(&rng, m.n - ahead)].key);
			break;
		case 2:  /* delete behind */
			if (behind > 0)
				do_delete(&tree, m.e[t_rand_below(&rng, behind)].key);
			break;
		case 3:  /* insert near ahead */
			key = cur + 1 + t_rand_below(&rng, 2 * RT_MAP_SIZE);
			if (key > cur) {
				do_insert(&tree, key);
				if (mode == EDIT_TAGGED && t_rand_below(&rng, 2))
					do_tag(&tree, key, 0, true);
			}
			break;
		case 4:  /* insert a pool key, ahead or behind */
			key = pool.key[t_rand_below(&rng, pool.n)];
			do_insert(&tree, key);
			if (mode == EDIT_TAGGED && t_rand_below(&rng, 2))
				do_tag(&tree, key, 0, true);
			break;
		case 5:  /* insert near behind */
			key = cur - 1 - t_rand_below(&rng, 2 * RT_MAP_SIZE);
			if (key < cur)
				do_insert(&tree, key);
			break;
		default:  /* retag near ahead */
			if (ahead < m.n)
				do_tag(&tree, m.e[ahead + t_rand_below(&rng, m.n - ahead < 4 ?
									    m.n - ahead : 4)].key,
				       0, t_rand_below(&rng, 2));
			break;
		}
		changed = true;
	}
	return changed;
}

/* The position of the first model key bearing @tag that the walk must
 * visit next: from @start, or after @prev. */
static size_t walk_expect(bool first, unsigned long start, unsigned long prev, unsigned int tag)
{
	if (first)
		return model_next(model_lower_bound(&m, start), tag);
	if (prev == ULONG_MAX)
		return m.n;
	return model_next(model_lower_bound(&m, prev + 1), tag);
}

static void walk_visit_edit(struct radix_tree_iter *iter, void ***slot, enum walk_edit mode,
			    unsigned long start, bool *first, unsigned long *prev)
{
	unsigned int tag = mode == EDIT_TAGGED ? 0 : ANY;
	size_t pos = walk_expect(*first, start, *prev, tag);

	cr_assert_lt(pos, m.n, "the walk from %#lx visits %#lx, the tree holds no more keys "
		     "(tag %u)", start, iter->index, tag);
	cr_assert_eq(iter->index, m.e[pos].key, "the walk from %#lx visits %#lx after %#lx, "
		     "expected %#lx", start, iter->index, *prev, m.e[pos].key);
	cr_assert_eq(**slot, m.e[pos].item, "the walk's item at %#lx", iter->index);
	*first = false;
	*prev = iter->index;
	if (walk_edit(iter, *slot, mode))
		*slot = radix_tree_iter_resume(*slot, iter);
}

/*
 * walk_edit_*: guards a walk under the tree lock that inserts and deletes
 * as it goes and calls radix_tree_iter_resume() after each change: the
 * next step re-descends from the key after the current one, so every step
 * must visit the smallest key (bearing tag 0, for the tagged walk) the
 * tree holds above the last one visited.  Hence every key present before
 * the walk and not deleted by it is visited exactly once, in ascending
 * order; a key deleted before the walk reaches it is not visited, a key
 * inserted ahead is.  With iter_delete, the current key goes through
 * radix_tree_iter_delete(), and a step that changes nothing else goes on
 * in the chunk without a resume.
 */
static void walk_editing(enum walk_edit mode)
{
	static const enum shape regions[] = { DENSE, UNIFORM64, CLUSTERED, ONEBIT, PREFIX,
					      EXTREMES, RUNS };

	for (size_t r = 0; r < sizeof(regions) / sizeof(regions[0]); r++) {
		start_test(mode == EDIT_RESUME ? "walk_resume" : mode == EDIT_TAGGED ?
			   "walk_tagged" : "walk_iter_delete", regions[r], 1024);
		fill_from_pool();
		for (size_t i = 0; i < m.n; i++)
			if (t_rand_below(&rng, 2))
				do_tag(&tree, m.e[i].key, 0, true);
		for (unsigned int pass = 0; pass < 4; pass++) {
			unsigned long start = pass ? some_start() : 0, prev = 0;
			struct radix_tree_iter iter;
			bool first = true;
			void **slot;

			radix_tree_lock(&tree);
			if (mode == EDIT_TAGGED) {
				radix_tree_for_each_tagged(slot, &tree, &iter, start, 0)
					walk_visit_edit(&iter, &slot, mode, start, &first, &prev);
			} else {
				radix_tree_for_each_slot(slot, &tree, &iter, start)
					walk_visit_edit(&iter, &slot, mode, start, &first, &prev);
			}
			cr_assert_eq(walk_expect(first, start, prev, mode == EDIT_TAGGED ? 0 : ANY),
				     m.n, "the walk from %#lx ended after %#lx, before the last key",
				     start, prev);
			radix_tree_unlock(&tree);
			check_exact(&tree);
			fill_from_pool();
		}
		model_free(&m);
		t_empty(&tree);
	}
	t_finish(&tree);
}

Test(shapes, walk_edit_resume)
{
	walk_editing(EDIT_RESUME);
}

Test(shapes, walk_edit_iter_delete)
{
	walk_editing(EDIT_ITER_DELETE);
}

Test(shapes, walk_edit_tagged)
{
	walk_editing(EDIT_TAGGED);
}

/* ---- direct copies against the plan ------------------------------------- */

/* Built by the plan only (rt_copy_by_plan set around each of its calls). */
static struct radix_tree_root twin;

static void same_node(const void *a, const void *b, unsigned long base);

/* Entries @a (of the tree with direct copies) and @b (the plan's twin):
 * the same item, or nodes equal field for field and entry for entry. */
static void same_entry(const void *a, const void *b, unsigned long base)
{
	cr_assert_eq(a == NULL, b == NULL, "under %#lx: %p against %p", base, a, b);
	if (!a)
		return;
	cr_assert_eq(rt_is_internal(a), rt_is_internal(b), "under %#lx: kinds differ", base);
	if (!rt_is_internal(a)) {
		cr_assert_eq(a, b, "under %#lx: items differ", base);
		return;
	}
	same_node(a, b, base);
}

static void same_node(const void *a, const void *b, unsigned long base)
{
	unsigned int level = rt_entry_level(a), i;

	cr_assert_eq(level, rt_entry_level(b), "under %#lx: levels %u and %u", base, level,
		     rt_entry_level(b));
	cr_assert_eq(rt_entry_compact(a), rt_entry_compact(b), "under %#lx, level %u: kinds",
		     base, level);
	if (!rt_entry_compact(a)) {
		const struct rt_node *x = rt_entry_node(a), *y = rt_entry_node(b);

		cr_assert_eq(x->present, y->present, "under %#lx, level %u: present", base, level);
		cr_assert_arr_eq(x->tags, y->tags, sizeof(x->tags), "under %#lx: tags", base);
		for (i = 0; i < RT_MAP_SIZE; i++)
			same_entry(x->slots[i], y->slots[i], rt_index_at(base, level, i));
		return;
	}
	const struct rt_cnode *x = rt_entry_cnode(a), *y = rt_entry_cnode(b);
	unsigned int w = rt_sfx_width(level);

	cr_assert(x->nr_lines == y->nr_lines && x->cap == y->cap && x->next == y->next &&
		  x->sorted == y->sorted && x->children == y->children &&
		  x->deleted == y->deleted && x->demotions == y->demotions && !x->dead && !y->dead,
		  "under %#lx, level %u: headers differ: lines %u/%u cap %u/%u next %u/%u "
		  "sorted %u/%u children %u/%u deleted %u/%u demotions %lu/%lu",
		  base, level, x->nr_lines, y->nr_lines, x->cap, y->cap, x->next, y->next,
		  x->sorted, y->sorted, x->children, y->children, x->deleted, y->deleted,
		  x->demotions, y->demotions);
	for (i = 0; i < x->next; i++) {
		unsigned long sfx = rt_sfx_get(x, w, i);

		cr_assert_eq(sfx, rt_sfx_get(y, w, i), "under %#lx, level %u, position %u: suffix",
			     base, level, i);
		cr_assert_eq(rt_cnode_tags(x)[i], rt_cnode_tags(y)[i],
			     "under %#lx, level %u, position %u: tag byte", base, level, i);
		same_entry(rt_cnode_slots(x)[i], rt_cnode_slots(y)[i],
			   (base & ~rt_level_maxindex(level)) | sfx);
	}
}

static void same_trees(void)
{
	t_verify(&tree);
	t_verify(&twin);
	cr_assert_eq(tree.nr_nodes, twin.nr_nodes, "nodes: %lu against %lu", tree.nr_nodes,
		     twin.nr_nodes);
	same_entry(tree.rnode, twin.rnode, 0);
}

/* @call (on the twin) with every copy through the plan. */
#define ON_TWIN(call)                                                                  \
	({                                                                             \
		uatomic_set(&rt_copy_by_plan, 1);                                      \
		__auto_type ret_ = (call);                                             \
		uatomic_set(&rt_copy_by_plan, 0);                                      \
		ret_;                                                                  \
	})

/*
 * The pool's keys into both trees, one by one (the same item in both), with
 * deletes (tombstones, refills) and tag sets between them; after every 128
 * steps, the two trees are the same node for node.  Then empties both.
 */
static void copy_against_plan(enum shape s, unsigned long made[2])
{
	unsigned long direct[2];

	memcpy(direct, rt_copies_direct, sizeof(direct));
	INIT_RADIX_TREE(&twin, GFP_KERNEL);
	start_test("copy", s, POOL_MAX);
	for (size_t i = 0; i < pool.n; i++) {
		unsigned long key = pool.key[i];
		struct titem *item = titem_new(key);
		int ret = radix_tree_insert(&tree, key, item);

		cr_assert_eq(ON_TWIN(radix_tree_insert(&twin, key, item)), ret,
			     "insert(%#lx): the trees disagree", key);
		if (ret) {
			cr_assert_eq(ret, -EEXIST, "insert(%#lx) = %d", key, ret);
			titem_free(item);
		} else {
			cr_assert(model_insert(&m, key, item));
		}
		if (m.n && !t_rand_below(&rng, 6)) {
			key = m.e[t_rand_below(&rng, m.n)].key;
			item = model_delete(&m, key);
			cr_assert_eq(radix_tree_delete(&tree, key), item);
			cr_assert_eq(ON_TWIN(radix_tree_delete(&twin, key)), item);
			titem_free(item);
		}
		if (m.n && !t_rand_below(&rng, 4)) {
			unsigned int tag = some_tag();

			key = m.e[t_rand_below(&rng, m.n)].key;
			cr_assert_eq(radix_tree_tag_set(&tree, key, tag),
				     ON_TWIN(radix_tree_tag_set(&twin, key, tag)));
		}
		if (i % 128 == 127)
			same_trees();
	}
	same_trees();
	while (m.n) {
		unsigned long key = m.e[m.n - 1].key;
		void *item = model_delete(&m, key);

		cr_assert_eq(radix_tree_delete(&tree, key), item);
		cr_assert_eq(ON_TWIN(radix_tree_delete(&twin, key)), item);
		titem_free(item);
	}
	made[0] = rt_copies_direct[0] - direct[0];
	made[1] = rt_copies_direct[1] - direct[1];
	t_finish(&twin);
	end_test(&tree);
}

/* copy_against_plan(), and the direct copies it must have seen: into a
 * larger class always; moving a group in the 64-slot build where @demotes,
 * never in the 8-slot build, whose groups take a node as large as a full
 * one (rt_insert_copy_demote() says why). */
static void copy_test(enum shape s, bool demotes)
{
	unsigned long made[2];

	copy_against_plan(s, made);
	cr_assert_gt(made[0], 0, "no direct copy into a larger class");
	if (RT_MAP_SIZE == 8)
		cr_assert_eq(made[1], 0, "a direct copy moving a group in the 8-slot build");
	else if (demotes)
		cr_assert_gt(made[1], 0, "no direct copy moving a group");
}

Test(shapes, copy_prefix)
{
	copy_test(PREFIX, false);
}

Test(shapes, copy_onebit)
{
	copy_test(ONEBIT, true);
}

Test(shapes, copy_runs)
{
	copy_test(RUNS, false);
}

Test(shapes, copy_clustered)
{
	copy_test(CLUSTERED, false);
}

Test(shapes, copy_uniform32)
{
	copy_test(UNIFORM32, true);
}

Test(shapes, copy_uniform64)
{
	copy_test(UNIFORM64, true);
}

Test(shapes, copy_dense)
{
	copy_test(DENSE, false);
}

Test(shapes, copy_holes)
{
	copy_test(HOLES, false);
}

Test(shapes, copy_extremes)
{
	copy_test(EXTREMES, false);
}

Test(shapes, copy_mixed)
{
	copy_test(MIXED, true);
}
