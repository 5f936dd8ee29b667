/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * iter.c - radix_tree_for_each_slot / _tagged / _contig, next_chunk,
 * iter_resume and iter_delete: edge cases (empty tree, keys 0 and
 * ULONG_MAX, holes at node boundaries, starts inside holes, early break,
 * invalid tags), walks compared with the model from random starts, walks
 * that resume every k items or delete every other item under the lock,
 * readers walking while a writer inserts, deletes and retags, walks that
 * go on inside a compact node while the walking thread copies it, leaves
 * tombstones in it or unlinks its children, and gang lookups in small
 * batches that start inside compact nodes.
 */
#include "helpers.h"
#include "model.h"

#include <errno.h>
#include <string.h>

T_SUITE(iter);

enum walk { PLAIN, TAGGED, CONTIG };

/* Body shared by the three walks below: record, stop, resume. */
#define WALK_BODY                                                               \
	{                                                                       \
		cr_assert_eq(radix_tree_iter_index(&iter), iter.index);         \
		keys[n] = iter.index;                                           \
		items[n] = rcu_dereference(*slot);                              \
		if (++n == limit)                                               \
			break;                                                  \
		if (resume_every && n % resume_every == 0)                      \
			slot = radix_tree_iter_resume(slot, &iter);             \
	}

/*
 * Walk from @start with the public macros (tag @tag for TAGGED), resuming
 * every @resume_every items (0: never), stopping after @limit items; store
 * keys and items.
 */
static unsigned long walk(enum walk how, unsigned long start, unsigned int tag,
			  unsigned long resume_every, unsigned long limit,
			  unsigned long *keys, void **items)
{
	struct radix_tree_iter iter;
	unsigned long n = 0;
	void **slot;

	switch (how) {
	case PLAIN:
		radix_tree_for_each_slot(slot, &tree, &iter, start)
			WALK_BODY
		break;
	case TAGGED:
		radix_tree_for_each_tagged(slot, &tree, &iter, start, tag)
			WALK_BODY
		break;
	case CONTIG:
		radix_tree_for_each_contig(slot, &tree, &iter, start)
			WALK_BODY
		break;
	}
	return n;
}

/* The model's answer for the same walk. */
static unsigned long expect(const struct model *m, enum walk how, unsigned long start,
			    unsigned int tag, unsigned long limit, unsigned long *keys,
			    void **items)
{
	unsigned long n = 0;

	for (size_t i = model_lower_bound(m, start); i < m->n && n < limit; i++) {
		if (how == TAGGED && !((m->e[i].tags >> tag) & 1))
			continue;
		if (how == CONTIG && m->e[i].key != start + n)
			break;
		keys[n] = m->e[i].key;
		items[n] = m->e[i].item;
		n++;
	}
	return n;
}

#define MAXW 20000
static unsigned long got_keys[MAXW], want_keys[MAXW];
static void *got_items[MAXW], *want_items[MAXW];

static void check_walk(const struct model *m, enum walk how, unsigned long start,
		       unsigned int tag, unsigned long resume_every, unsigned long limit)
{
	unsigned long got = walk(how, start, tag, resume_every, limit, got_keys, got_items);
	unsigned long want = expect(m, how, start, tag, limit, want_keys, want_items);

	cr_assert_eq(got, want, "walk %d from %#lx tag %u resume %lu: %lu items, expected %lu",
		     how, start, tag, resume_every, got, want);
	for (unsigned long i = 0; i < got; i++) {
		cr_assert_eq(got_keys[i], want_keys[i], "walk %d from %#lx: item %lu", how, start, i);
		cr_assert_eq(got_items[i], want_items[i]);
	}
}

static struct model m;

static void add(unsigned long key, unsigned long tags)
{
	struct titem *item = t_insert_new(&tree, key);

	cr_assert(model_insert(&m, key, item));
	for (unsigned int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		if ((tags >> t) & 1) {
			radix_tree_tag_set(&tree, key, t);
			model_find(&m, key)->tags |= 1UL << t;
		}
}

static void check_all_walks(unsigned long start)
{
	for (unsigned long resume = 0; resume <= 64; resume = resume ? resume * 8 : 1) {
		check_walk(&m, PLAIN, start, 0, resume, MAXW);
		check_walk(&m, CONTIG, start, 0, resume, MAXW);
		for (unsigned int t = 0; t < 3; t++)
			check_walk(&m, TAGGED, start, t, resume, MAXW);
	}
	check_walk(&m, PLAIN, start, 0, 0, 1);
	check_walk(&m, PLAIN, start, 0, 0, 5);
}

Test(iter, empty_tree_visits_nothing)
{
	model_init(&m);
	check_all_walks(0);
	check_all_walks(ULONG_MAX);
	model_free(&m);
	t_finish(&tree);
}

Test(iter, single_key_at_zero_and_at_ulong_max)
{
	model_init(&m);
	add(0, 1);
	check_all_walks(0);
	check_all_walks(1);
	model_free(&m);
	t_empty(&tree);
	model_init(&m);
	add(ULONG_MAX, 1);
	check_all_walks(0);
	check_all_walks(ULONG_MAX - 1);
	check_all_walks(ULONG_MAX);
	/* Keys near the end do not make the walk wrap to 0. */
	add(0, 3);
	add(ULONG_MAX - 1, 2);
	check_all_walks(ULONG_MAX - 1);
	check_all_walks(ULONG_MAX);
	model_free(&m);
	t_finish(&tree);
}

/*
 * Regression: a walk that resumed inside the chunk ending at ULONG_MAX
 * stopped there and never visited ULONG_MAX.  Finding that chunk had
 * marked the walk done in advance (no chunk after it), and resume kept the
 * mark although the rest of the chunk was still to come.
 */
Test(iter, resume_inside_the_last_chunk_still_reaches_ulong_max)
{
	struct radix_tree_iter iter;
	void **slot;
	unsigned long seen[4], n = 0;

	model_init(&m);
	add(ULONG_MAX - 2, 0);
	add(ULONG_MAX, 0);
	radix_tree_for_each_slot(slot, &tree, &iter, 0) {
		seen[n++] = iter.index;
		slot = radix_tree_iter_resume(slot, &iter);
	}
	cr_assert_eq(n, 2);
	cr_assert_eq(seen[0], ULONG_MAX - 2);
	cr_assert_eq(seen[1], ULONG_MAX);
	model_free(&m);
	t_finish(&tree);
}

Test(iter, holes_at_node_boundaries_and_starts_inside_holes)
{
	model_init(&m);
	/* Runs ending and starting at leaf and inner-node boundaries. */
	for (unsigned long b = 1; b <= 4; b++) {
		unsigned long edge = b * RT_MAP_SIZE * RT_MAP_SIZE;

		for (unsigned long k = edge - 3; k < edge + 3; k++)
			add(k, k % 3 == 0 ? 1 : 2);
		add(edge + RT_MAP_SIZE, 4);
		add(edge + 2 * RT_MAP_SIZE - 1, 1);
	}
	for (size_t i = 0; i < m.n; i++) {
		check_all_walks(m.e[i].key);
		check_all_walks(m.e[i].key + 1);
		check_all_walks(m.e[i].key - 1);
	}
	check_all_walks(0);
	model_free(&m);
	t_finish(&tree);
}

Test(iter, contig_stops_at_the_first_hole)
{
	struct radix_tree_iter iter;
	void **slot;
	unsigned long n = 0;

	model_init(&m);
	for (unsigned long k = 10; k < 10 + 3 * RT_MAP_SIZE; k++)
		add(k, 0);
	add(10 + 3 * RT_MAP_SIZE + 1, 0);  /* after a one-key hole */
	radix_tree_for_each_contig(slot, &tree, &iter, 10)
		n++;
	cr_assert_eq(n, 3 * RT_MAP_SIZE);
	n = 0;
	radix_tree_for_each_contig(slot, &tree, &iter, 9)  /* starts in a hole */
		n++;
	cr_assert_eq(n, 0);
	check_all_walks(10);
	check_all_walks(20);
	model_free(&m);
	t_finish(&tree);
}

Test(iter, early_break_leaves_iter_on_the_item)
{
	struct radix_tree_iter iter;
	void **slot;

	model_init(&m);
	for (unsigned long k = 0; k < 1000; k += 5)
		add(k, 0);
	radix_tree_for_each_slot(slot, &tree, &iter, 0)
		if (iter.index >= 333)
			break;
	cr_assert_eq(iter.index, 335);
	cr_assert_eq(((struct titem *)*slot)->key, 335);
	model_free(&m);
	t_finish(&tree);
}

/*
 * The loop macros declare their own locals, named uniquely per expansion:
 * a walk nested in another (the suite builds with -Wshadow) must see its
 * own state, `continue` must go to the next item and `break` in the inner
 * walk must leave the outer one running.
 */
Test(iter, nested_walks_with_continue_and_break)
{
	struct radix_tree_iter outer, inner;
	void **slot, **slot2;
	unsigned long visited = 0, pairs = 0, want_visited = 0, want_pairs = 0;

	model_init(&m);
	for (unsigned long k = 0; k < 600; k += 3)
		add(k, k % 9 == 0 ? 1 : 0);
	radix_tree_for_each_slot(slot, &tree, &outer, 0) {
		if (outer.index % 2)
			continue;
		cr_assert_eq(((struct titem *)*slot)->key, outer.index);
		visited++;
		radix_tree_for_each_tagged(slot2, &tree, &inner, outer.index, 0) {
			cr_assert_geq(inner.index, outer.index);
			cr_assert_eq(((struct titem *)*slot2)->key, inner.index);
			if (++pairs % 4 == 0)
				break;
		}
		cr_assert_eq(((struct titem *)*slot)->key, outer.index, "outer walk disturbed");
	}
	/* The model's count of the same loops. */
	for (size_t i = 0; i < m.n; i++) {
		if (m.e[i].key % 2)
			continue;
		want_visited++;
		for (size_t j = i; j < m.n; j++)
			if ((m.e[j].tags & 1) && ++want_pairs % 4 == 0)
				break;
	}
	cr_assert_eq(visited, want_visited);
	cr_assert_eq(pairs, want_pairs);
	model_free(&m);
	t_finish(&tree);
}

/*
 * Regression: the walk macros pasted the slot argument into the names of
 * their locals, so only a plain identifier compiled; the kernel's accept
 * any lvalue.  Here: a struct member through a pointer, an array element,
 * and the two nested, each checked against the model.
 */
struct walker {
	void **slot;
	struct radix_tree_iter iter;
};

Test(iter, walk_macros_take_any_lvalue_as_slot)
{
	struct walker w_storage, *w = &w_storage;
	struct radix_tree_iter iters[2];
	void **slots[2];
	unsigned long n = 0, tagged = 0, pairs = 0, want_pairs = 0;

	model_init(&m);
	for (unsigned long k = 0; k < 300; k += 3)
		add(k * RT_MAP_SIZE / 2, k % 2 ? 1 : 0);
	radix_tree_for_each_slot(w->slot, &tree, &w->iter, 0) {
		cr_assert_lt(n, m.n);
		cr_assert_eq(w->iter.index, m.e[n].key);
		cr_assert_eq(*w->slot, m.e[n].item);
		n++;
	}
	cr_assert_eq(n, m.n);
	radix_tree_for_each_tagged(slots[1], &tree, &iters[1], 0, 0) {
		cr_assert_eq(((struct titem *)*slots[1])->key, iters[1].index);
		cr_assert(model_find(&m, iters[1].index)->tags & 1);
		tagged++;
	}
	cr_assert_eq(tagged, m.n / 2);
	/* Nested: for each item, the tagged items from its key on. */
	radix_tree_for_each_slot(w->slot, &tree, &w->iter, 0) {
		radix_tree_for_each_tagged(slots[1], &tree, &iters[1], w->iter.index, 0) {
			cr_assert_geq(iters[1].index, w->iter.index);
			cr_assert_eq(((struct titem *)*slots[1])->key, iters[1].index);
			pairs++;
		}
		cr_assert_eq(((struct titem *)*w->slot)->key, w->iter.index, "outer walk disturbed");
	}
	for (size_t i = 0; i < m.n; i++)
		for (size_t j = i; j < m.n; j++)
			want_pairs += m.e[j].tags & 1;
	cr_assert_eq(pairs, want_pairs);
	cr_assert_gt(pairs, m.n);
	model_free(&m);
	t_finish(&tree);
}

Test(iter, tag_densities)
{
	static const unsigned int every[] = { 1, 8, 64 };

	model_init(&m);
	for (unsigned long k = 0; k < 10000; k++) {
		unsigned long tags = 0;

		for (unsigned int t = 0; t < 3; t++)
			if (k % every[t] == 0)
				tags |= 1UL << t;
		add(k * 3, tags);
	}
	for (unsigned int t = 0; t < 3; t++) {
		cr_assert_eq(walk(TAGGED, 0, t, 0, MAXW, got_keys, got_items), 10000 / every[t] +
			     (10000 % every[t] != 0));
		for (unsigned long s = 0; s < 30000; s += 977)
			check_walk(&m, TAGGED, s, t, 0, MAXW);
	}
	model_free(&m);
	t_finish(&tree);
}

Test(iter, invalid_tags_visit_nothing)
{
	struct radix_tree_iter iter;
	void **slot;
	unsigned int n = 0;

	model_init(&m);
	add(1, 0x3f);
	for (unsigned int tag = RADIX_TREE_MAX_TAGS; tag < 1000; tag++)
		radix_tree_for_each_tagged(slot, &tree, &iter, 0, tag)
			n++;
	radix_tree_for_each_tagged(slot, &tree, &iter, 0, UINT_MAX)
		n++;
	cr_assert_eq(n, 0);
	radix_tree_iter_init(&iter, 0);
	cr_assert_null(radix_tree_next_chunk(&tree, &iter, RADIX_TREE_ITER_TAGGED | 15));
	cr_assert_null(radix_tree_next_chunk(NULL, &iter, 0));
	cr_assert_null(radix_tree_next_chunk(&tree, NULL, 0));
	model_free(&m);
	t_finish(&tree);
}

/* ---- differential -------------------------------------------------------- */

/*
 * A chunk at the last position of a compact node, appended there out of
 * order after the node's sorted run: keys above it lie at earlier
 * positions, in the run, and the walk must go on to them.  (Nothing after
 * the chunk's position does not make the node spent.)  Also the walks
 * that skip a spent node: every chunk of the run but the last leaves the
 * node with wanted entries after it, the last one none.  The shape is the
 * 64-slot build's: the 8-slot one moves a group of these keys into a child
 * before the node fills, and only the walks are checked there.
 */
Test(iter, chunk_appended_last_then_the_sorted_run_above_it)
{
	const unsigned long appended = (5UL << 40) + 3;
	struct rt_cnode *node;
	void *top;

	model_init(&m);
	for (unsigned long i = 0; i < RT_C_MAX_ENTRIES - 1; i++)
		add((i << 40) + 1, i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 0);
	add(appended, 1);
	top = rcu_dereference(tree.rnode);
	cr_assert(top && rt_is_internal(top) && rt_entry_compact(top),
		  "the top node is not a compact node");
	node = rt_entry_cnode(top);
#if RT_MAP_SHIFT == 6
	cr_assert_eq(node->next, RT_C_MAX_ENTRIES, "the node was copied: %u entries", node->next);
	cr_assert_eq(rt_cnode_sorted_rcu(node, node->next), RT_C_MAX_ENTRIES - 1);
	cr_assert_eq(rt_sfx_get(node, rt_sfx_width(node->level), RT_C_MAX_ENTRIES - 1),
		     appended & rt_level_maxindex(node->level));
#else
	(void)node;
#endif
	check_all_walks(appended);
	check_all_walks(appended - 1);
	check_all_walks(0);
	check_all_walks((62UL << 40) + 1);
	model_free(&m);
	t_finish(&tree);
}

/*
 * radix_tree_iter_resume() forgets the nodes the walk would go on from,
 * its chunk's node and the node above it: after the section ends both may
 * be freed.  A run of 64 keys sits in a compact node under a compact node
 * that also holds one more key; the walk stops in the run, resumes and
 * leaves its section; every key of that subtree is deleted (both nodes are
 * unlinked and, after the barrier, freed), and the walk goes on in a new
 * section to the keys left far away.  Touching either node again would be
 * a use after free, which the sanitizer build reports.
 */
Test(iter, resume_forgets_the_nodes_the_walk_came_through)
{
	const unsigned long near = 1UL << 30, far = 5UL << 40;
	struct titem *items[66], *left[3];
	struct radix_tree_iter iter;
	unsigned long seen[8], n = 0;
	void **slot;

	for (unsigned long i = 0; i < 64; i++)
		items[i] = t_insert_new(&tree, near + 32 + i);
	items[64] = t_insert_new(&tree, near + (1UL << 20));
	for (unsigned long i = 0; i < 3; i++)
		left[i] = t_insert_new(&tree, far + 7 * i);
	urcu_memb_read_lock();
	radix_tree_for_each_slot(slot, &tree, &iter, near) {
		void *item = rcu_dereference(*slot);

		cr_assert_lt(n, 8);
		seen[n++] = iter.index;
		if (n > 1) {
			cr_assert_eq(item, left[n - 2], "key %#lx", iter.index);
			continue;
		}
		cr_assert_eq(item, items[0], "first key %#lx", iter.index);
		cr_assert_not_null(iter.parent, "the walk keeps no node");
		cr_assert_not_null(iter.above, "the walk keeps no node above its parent");
		slot = radix_tree_iter_resume(slot, &iter);
		cr_assert_null(iter.parent);
		cr_assert_null(iter.above);
		urcu_memb_read_unlock();
		for (unsigned long i = 0; i < 64; i++)
			t_delete(&tree, near + 32 + i, items[i]);
		t_delete(&tree, near + (1UL << 20), items[64]);
		urcu_memb_barrier();  /* the two nodes are freed now */
		urcu_memb_read_lock();
	}
	urcu_memb_read_unlock();
	cr_assert_eq(n, 4, "%lu keys visited", n);
	cr_assert_eq(seen[0], near + 32);
	for (unsigned long i = 0; i < 3; i++)
		cr_assert_eq(seen[i + 1], far + 7 * i);
	t_finish(&tree);
}

static void random_tree(struct t_rng *rng, unsigned long nkeys, unsigned long span)
{
	for (unsigned long i = 0; i < nkeys; i++) {
		unsigned long key = t_rand_below(rng, 4) == 0 ? t_rand(rng) : t_rand_below(rng, span);

		if (!model_find(&m, key))
			add(key, t_rand(rng) & (t_rand(rng) & 7));
	}
	t_verify(&tree);
}

Test(iter, random_trees_and_random_starts, .timeout = 120)
{
	struct t_rng rng;

	t_rng_init(&rng, "iter.random");
	for (int round = 0; round < 6; round++) {
		model_init(&m);
		random_tree(&rng, 3000, 1UL << (8 + 3 * round));
		for (int s = 0; s < 40; s++) {
			unsigned long start = s < 30 ? m.e[t_rand_below(&rng, m.n)].key + t_rand_below(&rng, 3) - 1
						   : t_rand(&rng);
			unsigned long resume = (unsigned long[]){ 0, 1, 7, 64 }[s % 4];

			check_walk(&m, PLAIN, start, 0, resume, MAXW);
			check_walk(&m, TAGGED, start, (unsigned int)(s % 3), resume, MAXW);
			check_walk(&m, CONTIG, start, 0, resume, MAXW);
		}
		model_free(&m);
		t_empty(&tree);
	}
	t_finish(&tree);
}

/* Delete every other item visited, under the lock; nothing else may be
 * skipped or repeated, and the deleted set must be exactly every other
 * item of the walk. */
static void delete_every_other(enum walk how, unsigned int tag, unsigned long start)
{
	struct radix_tree_iter iter;
	void **slot;
	unsigned long n = 0;
	unsigned long want = expect(&m, how, start, tag, MAXW, want_keys, want_items);

	radix_tree_lock(&tree);
	if (how == TAGGED) {
		radix_tree_for_each_tagged(slot, &tree, &iter, start, tag) {
			cr_assert_lt(n, want);
			cr_assert_eq(iter.index, want_keys[n]);
			if (n++ % 2 == 0)
				cr_assert_eq(radix_tree_iter_delete(&tree, &iter, slot), want_items[n - 1]);
		}
	} else {
		radix_tree_for_each_slot(slot, &tree, &iter, start) {
			cr_assert_lt(n, want);
			cr_assert_eq(iter.index, want_keys[n]);
			if (n++ % 2 == 0)
				cr_assert_eq(radix_tree_iter_delete(&tree, &iter, slot), want_items[n - 1]);
		}
	}
	radix_tree_unlock(&tree);
	cr_assert_eq(n, want);
	for (unsigned long i = 0; i < want; i += 2) {
		cr_assert_eq(model_delete(&m, want_keys[i]), want_items[i]);
		titem_free(want_items[i]);
	}
	t_verify(&tree);
	check_walk(&m, PLAIN, 0, 0, 0, MAXW);
}

Test(iter, delete_every_other_item_under_the_lock, .timeout = 120)
{
	struct t_rng rng;

	t_rng_init(&rng, "iter.delete");
	for (int round = 0; round < 4; round++) {
		model_init(&m);
		random_tree(&rng, 4000, 1UL << (10 + 4 * round));
		delete_every_other(TAGGED, (unsigned int)round % 3, 0);
		delete_every_other(PLAIN, 0, m.n ? m.e[m.n / 3].key : 0);
		delete_every_other(PLAIN, 0, 0);
		model_free(&m);
		t_empty(&tree);
	}
	t_finish(&tree);
}

Test(iter, iter_delete_null_arguments_return_null)
{
	struct radix_tree_iter iter;
	void **slot;

	model_init(&m);
	add(5, 0);
	add(6, 0);
	radix_tree_lock(&tree);
	radix_tree_for_each_slot(slot, &tree, &iter, 0) {
		cr_assert_null(radix_tree_iter_delete(NULL, &iter, slot));
		cr_assert_null(radix_tree_iter_delete(&tree, NULL, slot));
		cr_assert_null(radix_tree_iter_delete(&tree, &iter, NULL));
	}
	radix_tree_unlock(&tree);
	/* Without the lock too: they are reported, not fatal. */
	radix_tree_iter_init(&iter, 0);
	cr_assert_null(radix_tree_iter_delete(NULL, &iter, (void **)&iter));
	cr_assert_null(radix_tree_iter_delete(&tree, NULL, (void **)&iter));
	cr_assert_null(radix_tree_iter_delete(&tree, &iter, NULL));
	cr_assert_not_null(radix_tree_lookup(&tree, 5));
	cr_assert_not_null(radix_tree_lookup(&tree, 6));
	model_free(&m);
	t_finish(&tree);
}

/* A walk without the tree lock deletes through the iterator: it dies. */
static int iter_delete_unlocked(void *arg)
{
	struct radix_tree_iter iter;
	void **slot;

	(void)arg;
	radix_tree_for_each_slot(slot, &tree, &iter, 0)
		radix_tree_iter_delete(&tree, &iter, slot);
	return 0;
}

Test(iter, iter_delete_without_the_lock_dies)
{
	model_init(&m);
	add(5, 0);
	add(6, 0);
	t_assert_dies(iter_delete_unlocked, NULL,
		      "rcuradix: radix_tree_iter_delete: tree lock not held by this thread");
	cr_assert_not_null(radix_tree_lookup(&tree, 5));
	cr_assert_not_null(radix_tree_lookup(&tree, 6));
	model_free(&m);
	t_finish(&tree);
}

/* ---- concurrency --------------------------------------------------------- */

/*
 * Readers walk the whole tree, plain and tagged, resuming (dropping and
 * retaking the read lock) every 97 items, while a writer inserts, deletes
 * and retags.  Keys must strictly ascend, every item must be live and carry
 * its key, every stable key (present and tagged throughout) must be
 * visited exactly once by both kinds of walk, and each walk must end within
 * a bounded number of steps.
 */
#define W_KEYS 8192
#define W_STABLE 32  /* every 32nd key is stable */
static int w_stop;
static unsigned long w_errors, w_walks;

static void w_error(const char *what, unsigned long key)
{
	if (uatomic_add_return(&w_errors, 1) <= 10)
		fprintf(stderr, "walker: %s (key %#lx)\n", what, key);
}

static void w_walk(bool tagged)
{
	struct radix_tree_iter iter;
	unsigned long prev = 0, count = 0, stable = 0;
	bool first = true;
	void **slot;

	urcu_memb_read_lock();
	for (slot = radix_tree_iter_init(&iter, 0);
	     slot || (slot = radix_tree_next_chunk(&tree, &iter,
						   tagged ? RADIX_TREE_ITER_TAGGED | 0 : 0));
	     slot = radix_tree_next_slot(slot, &iter, tagged ? RADIX_TREE_ITER_TAGGED : 0)) {
		void *item = rcu_dereference(*slot);

		if (!first && iter.index <= prev)
			w_error("keys not ascending", iter.index);
		first = false;
		prev = iter.index;
		if (item && !titem_ok(item, iter.index))
			w_error("item dead or wrong key", iter.index);
		if (iter.index % W_STABLE == 0) {
			if (iter.index != stable * W_STABLE)
				w_error("stable key skipped or repeated", stable * W_STABLE);
			stable = iter.index / W_STABLE + 1;
		}
		if (++count > 4 * W_KEYS) {
			w_error("walk does not end", iter.index);
			break;
		}
		if (count % 97 == 0) {
			slot = radix_tree_iter_resume(slot, &iter);
			urcu_memb_read_unlock();
			urcu_memb_read_lock();
		}
	}
	urcu_memb_read_unlock();
	if (stable != W_KEYS / W_STABLE)
		w_error("walk missed stable keys at the end", stable * W_STABLE);
}

static void *w_reader(void *arg)
{
	unsigned long walks = 0;

	(void)arg;
	urcu_memb_register_thread();
	while (!uatomic_read(&w_stop)) {
		w_walk(walks & 1);
		walks++;
		uatomic_inc(&w_walks);
	}
	urcu_memb_unregister_thread();
	return NULL;
}

Test(iter, readers_walk_while_a_writer_reshapes, .timeout = 120)
{
	static struct titem *present[W_KEYS];
	struct t_rng rng = { 0xabcdefULL };
	pthread_t readers[2];
	unsigned long walks_before, walks_during;

	for (unsigned long k = 0; k < W_KEYS; k += W_STABLE) {
		present[k] = t_insert_new(&tree, k);
		radix_tree_tag_set(&tree, k, 0);
	}
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&readers[i], NULL, w_reader, NULL), 0);
	/*
	 * The writer goes on past its 400000 operations until the readers
	 * have finished four walks (plain and tagged) that began after it
	 * started: under valgrind, which runs one thread at a time, the
	 * writer could otherwise finish before any reader is scheduled.
	 */
	walks_before = uatomic_read(&w_walks);
	for (unsigned long op = 0;
	     op < t_scaled(400000) || uatomic_read(&w_walks) < walks_before + 6; op++) {
		unsigned long k = t_rand_below(&rng, W_KEYS);

		if (k % W_STABLE == 0)
			continue;
		if (!present[k]) {
			present[k] = t_insert_new(&tree, k);
			if (op & 1)
				radix_tree_tag_set(&tree, k, 0);
		} else if (op % 3) {
			cr_assert_eq(radix_tree_delete(&tree, k), present[k]);
			titem_free_rcu(&urcu_memb_flavor, present[k]);
			present[k] = NULL;
		} else if (op & 1) {
			radix_tree_tag_clear(&tree, k, 0);
		} else {
			radix_tree_tag_set(&tree, k, 0);
		}
	}
	walks_during = uatomic_read(&w_walks) - walks_before;
	uatomic_set(&w_stop, 1);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_join(readers[i], NULL), 0);
	cr_assert_eq(w_errors, 0, "%lu walker errors (first ones on stderr)", w_errors);
	fprintf(stderr, "%lu walks during the writer's operations\n", walks_during);
	t_verify(&tree);
	urcu_memb_barrier();
	t_finish(&tree);
}

/*
 * gang_lookup_reaches_ulong_max_while_its_node_is_copied: a regression
 * test.  The interleaving that broke: a gang lookup found a run of
 * consecutive keys ending at ULONG_MAX in a compact node, which marked the
 * walk done (nothing can follow ULONG_MAX); before it read the run's
 * slots, a writer copied the node, and a slot read NULL in the dead node.
 * The lookup went back to the root from that key, but the walk was still
 * marked done, so it returned the keys before that one and stopped.  Here
 * readers look up the run of the last RUN keys, present throughout, over
 * and over, while a writer churns keys just below it in the same node
 * (its appends fill the node, which is then copied): every call must
 * return the whole run.  The writer inserts only keys not deleted since
 * the node's last copy: a key deleted and inserted again goes back to its
 * tombstone, spends no entry, and would never fill the node.
 */
#define U_RUN 16UL
#define U_CHURN 24UL  /* keys below the run that the writer inserts and deletes */
static int u_stop;
static unsigned long u_errors, u_calls;

static void *u_reader(void *arg)
{
	void *items[2 * U_RUN];

	(void)arg;
	urcu_memb_register_thread();
	while (!uatomic_read(&u_stop)) {
		unsigned int n;

		urcu_memb_read_lock();
		n = radix_tree_gang_lookup(&tree, items, ULONG_MAX - U_RUN + 1, 2 * U_RUN);
		for (unsigned int i = 0; i < n; i++)
			if (!titem_ok(items[i], ULONG_MAX - U_RUN + 1 + i) &&
			    uatomic_add_return(&u_errors, 1) <= 10)
				fprintf(stderr, "gang: result %u is not the run's item\n", i);
		urcu_memb_read_unlock();
		if (n != U_RUN && uatomic_add_return(&u_errors, 1) <= 10)
			fprintf(stderr, "gang from the run's start: %u items of %lu\n", n, U_RUN);
		uatomic_inc(&u_calls);
	}
	urcu_memb_unregister_thread();
	return NULL;
}

Test(iter, gang_lookup_reaches_ulong_max_while_its_node_is_copied, .timeout = 120)
{
	static struct titem *churn[U_CHURN];
	bool gone[U_CHURN] = { false };  /* deleted since the last copy */
	struct t_rng rng = { 0x5eed0fULL };
	unsigned long copies = 0, calls_before, present = 0;
	pthread_t readers[2];
	void *top;

	for (unsigned long k = ULONG_MAX - U_RUN + 1; k != 0; k++)
		t_insert_new(&tree, k);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&readers[i], NULL, u_reader, NULL), 0);
	calls_before = uatomic_read(&u_calls);
	top = rcu_dereference(tree.rnode);
	for (unsigned long op = 0;
	     op < t_scaled(400000) || uatomic_read(&u_calls) < calls_before + 1000; op++) {
		/* Half the churn keys present: a fresh one in, or one out. */
		bool insert = present <= U_CHURN / 2;
		unsigned long i = t_rand_below(&rng, U_CHURN), key;

		while (insert ? churn[i] || gone[i] : !churn[i])
			i = (i + 1) % U_CHURN;
		key = ULONG_MAX - U_RUN - i;
		if (insert) {
			churn[i] = t_insert_new(&tree, key);
			present++;
		} else {
			cr_assert_eq(radix_tree_delete(&tree, key), churn[i]);
			titem_free_rcu(&urcu_memb_flavor, churn[i]);
			churn[i] = NULL;
			gone[i] = true;
			present--;
		}
		if (rcu_dereference(tree.rnode) != top) {
			top = rcu_dereference(tree.rnode);
			copies++;
			memset(gone, 0, sizeof(gone));
		}
	}
	uatomic_set(&u_stop, 1);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_join(readers[i], NULL), 0);
	fprintf(stderr, "iter.ulong_max_gang: %lu gang calls, %lu copies of the top node\n",
		uatomic_read(&u_calls) - calls_before, copies);
	cr_assert_eq(u_errors, 0, "%lu reader errors (first ones on stderr)", u_errors);
	/* About one copy in twenty operations: one in a hundred at least. */
	cr_assert_gt(copies, t_scaled(400000) / 100, "the run's node was copied %lu times only",
		     copies);
	for (unsigned long i = 0; i < U_CHURN; i++)
		if (churn[i]) {
			cr_assert_eq(radix_tree_delete(&tree, ULONG_MAX - U_RUN - i), churn[i]);
			titem_free_rcu(&urcu_memb_flavor, churn[i]);
		}
	t_verify(&tree);
	urcu_memb_barrier();
	t_finish(&tree);
}

/* ---- walks that go on inside a compact node ------------------------------ */

/*
 * A chunk found in a compact node is a run of consecutive keys in
 * consecutive entries; the next chunk is searched for in that same node
 * (iter.parent) unless it was copied meanwhile (dead).  The walks below
 * run inside one read-side section and change the tree between the items
 * they visit: a urcu-memb writer may run inside a read-side section, since
 * it takes the tree lock and never waits for a grace period.  The walker
 * never changes a key of the rest of its current chunk (after iter.index,
 * below iter.next_index): the chunk is what the walk found, and a slot of
 * it may read NULL only if the chunk's compact node was copied since.
 *
 * The keys: a span of CW_SPAN keys from a base.  Base 0 makes a compact
 * leaf (64-slot build) or a compact level-1 node holding the items itself
 * (8-slot build, which has no compact leaves: the top node is built for
 * key 63 first); the other bases put the items in a compact node above the
 * leaves in both builds, with 2-, 4- and 8-byte suffixes, the last span
 * ending at ULONG_MAX.
 */
#define CW_SPAN 64UL
/* At most this many keys of the span at once: fewer than the 55 entries
 * that make a 64-slot leaf a full node. */
#define CW_LIVE_MAX 48U

static const unsigned long cw_bases[] = {
	0, 1000, 1UL << 20, 1UL << 40, ULONG_MAX - CW_SPAN + 1,
};

static struct t_rng cw_rng;
static unsigned long cw_base;
static unsigned long cw_start;    /* the current walk's first key */
/* Per key of the span (index: key - cw_base). */
static bool cw_stable[CW_SPAN];   /* never deleted, tag 0 never changed */
static bool cw_present0[CW_SPAN]; /* present when the walk began */
static bool cw_tagged0[CW_SPAN];  /* tagged (tag 0) when the walk began */
static bool cw_deleted[CW_SPAN];  /* deleted during the walk */
static bool cw_untagged[CW_SPAN]; /* tag 0 cleared during the walk */
static unsigned int cw_visits[CW_SPAN];

/* What the walks did: each test requires the interleavings it guards to
 * have happened. */
static struct {
	unsigned long deaths;       /* the run's compact node copied under the walk */
	unsigned long nulls;        /* chunk slots read NULL (node copied mid-run) */
	unsigned long tombs_ahead;  /* keys ahead deleted from the walk's live node */
	unsigned long refills;      /* keys ahead deleted, then put back in place */
	unsigned long untags_ahead; /* tag 0 cleared on keys ahead */
} cw_n;

static unsigned long cw_rand(unsigned long n)
{
	return t_rand_below(&cw_rng, n);
}

static void cw_delete(unsigned long key)
{
	void *item = model_delete(&m, key);

	cr_assert_not_null(item);
	cr_assert_eq(radix_tree_delete(&tree, key), item, "delete(%#lx)", key);
	/* The walker may still hold it: freed after its read-side section. */
	titem_free_rcu(&urcu_memb_flavor, item);
}

static void cw_tag(unsigned long key, bool set)
{
	struct model_entry *e = model_find(&m, key);

	if (set) {
		radix_tree_tag_set(&tree, key, 0);
		e->tags |= 1;
	} else {
		radix_tree_tag_clear(&tree, key, 0);
		e->tags &= ~1UL;
	}
}

/* The items and the children a compact node holds now. */
static void cnode_census(const void *entry, unsigned int *items, unsigned int *children)
{
	unsigned int n, i;
	void **slots = rt_entry_slots(entry, &n);

	*items = *children = 0;
	for (i = 0; i < n; i++) {
		void *e = rcu_dereference(slots[i]);

		if (e && rt_is_internal(e))
			(*children)++;
		else if (e)
			(*items)++;
	}
}

/* Fill the span from @base: its last key (stable) first, then about half
 * the others, half of those stable, each tagged with probability 3/4 (runs
 * of tagged keys). */
static void cw_fill(unsigned long base)
{
	cw_base = base;
	model_init(&m);
	memset(cw_stable, 0, sizeof(cw_stable));
	for (unsigned long r = CW_SPAN; r-- > 0;) {
		if (r != CW_SPAN - 1 && cw_rand(2))
			continue;
		cw_stable[r] = r == CW_SPAN - 1 || cw_rand(2);
		add(base + r, cw_rand(4) != 0);
	}
}

/* The span's keys are the items of one compact node: the top one. */
static void cw_check_shape(void)
{
	void *top = rcu_dereference(tree.rnode);
	unsigned int items, children;

	cr_assert(top && rt_is_internal(top) && rt_entry_compact(top),
		  "base %#lx: the top node is not a compact node", cw_base);
	cnode_census(top, &items, &children);
	cr_assert_eq(children, 0, "base %#lx: the top node has children", cw_base);
	cr_assert_eq(items, m.n, "base %#lx: the top node holds %u items of %zu", cw_base, items,
		     m.n);
}

/*
 * Between two items of a walk at @iter: one to four changes to keys of the
 * span outside the rest of the current chunk.  Mostly inserts (new keys
 * fill the node until it is copied; a deleted key goes back to its
 * tombstone); deletes (tombstones) and tag changes of keys that are not
 * stable.
 */
static void cw_edit(const struct radix_tree_iter *iter)
{
	unsigned long cur = iter->index - cw_base;
	unsigned long end = iter->next_index ? iter->next_index - cw_base : ULONG_MAX;
	void *node = iter->parent && rt_entry_compact(iter->parent) ? iter->parent : NULL;
	bool alive = node && !rt_cnode_dead_rcu(rt_entry_cnode(node));

	for (unsigned long edits = 1 + cw_rand(4); edits > 0; edits--) {
		unsigned long r = cw_rand(CW_SPAN), key = cw_base + r;
		struct model_entry *e = model_find(&m, key);
		bool ahead = r > cur, live = alive && !rt_cnode_dead_rcu(rt_entry_cnode(node));

		if (ahead && r < end)
			continue;  /* a key of the current chunk */
		if (!e && m.n < CW_LIVE_MAX) {
			unsigned long refills = rt_transitions[RT_TR_REFILL];

			add(key, cw_rand(4) != 0);
			if (ahead && live && cw_deleted[r] && rt_transitions[RT_TR_REFILL] > refills)
				cw_n.refills++;
		} else if (e && !cw_stable[r]) {
			if (cw_rand(3)) {
				cw_delete(key);
				cw_deleted[r] = true;
				cw_n.tombs_ahead += ahead && live;
			} else if (e->tags & 1) {
				cw_tag(key, false);
				cw_untagged[r] = true;
				cw_n.untags_ahead += ahead;
			} else {
				cw_tag(key, true);
			}
		}
	}
	if (alive && rt_cnode_dead_rcu(rt_entry_cnode(node)))
		cw_n.deaths++;
}

enum cw_when { CW_AT_RUN_ENDS, CW_ANYWHERE };

/* The walk visits @slot, key iter->index: check it, then change the tree
 * (at the end of each run, or after every item). */
static void cw_visit(struct radix_tree_iter *iter, void **slot, bool tagged, enum cw_when when,
		     bool *first, unsigned long *prev)
{
	unsigned long key = iter->index, r = key - cw_base;
	void *item = rcu_dereference(*slot);
	struct model_entry *e;

	cr_assert(key >= cw_base && r < CW_SPAN, "the walk visits %#lx, outside the span", key);
	cr_assert(*first ? key >= cw_start : key > *prev, "the walk from %#lx visits %#lx after %#lx",
		  cw_start, key, *prev);
	*first = false;
	*prev = key;
	if (!item) {
		/* Only a copy of the run's compact node empties a slot of the
		 * chunk: the key is looked up again. */
		cr_assert_eq(when, CW_ANYWHERE, "%#lx: a slot of a run reads NULL, no change "
			     "was made inside the run", key);
		cr_assert(iter->parent && rt_entry_compact(iter->parent) &&
			  rt_cnode_dead_rcu(rt_entry_cnode(iter->parent)),
			  "%#lx: the slot reads NULL and its node is not dead", key);
		cw_n.nulls++;
		item = radix_tree_lookup(&tree, key);
	}
	e = model_find(&m, key);
	cr_assert(e, "the walk visits %#lx, which the tree does not hold", key);
	cr_assert_eq(item, e->item, "%#lx: the walk reads %p, the key holds %p", key, item,
		     e->item);
	cr_assert(!tagged || (e->tags & 1), "the tagged walk visits %#lx, untagged", key);
	cr_assert_eq(++cw_visits[r], 1, "the walk visits %#lx twice", key);
	if (when == CW_ANYWHERE || slot + 1 == iter->run_end)
		cw_edit(iter);
}

/*
 * One walk of the span from @start (tag 0 if @tagged), changing the tree
 * @when; then every key present (tagged) throughout from @start on must
 * have been visited, and the tree must match the model.
 */
static void cw_walk(unsigned long start, bool tagged, enum cw_when when)
{
	struct radix_tree_iter iter;
	unsigned long prev = 0;
	bool first = true;
	void **slot;

	cw_check_shape();
	cw_start = start;
	memset(cw_visits, 0, sizeof(cw_visits));
	memset(cw_deleted, 0, sizeof(cw_deleted));
	memset(cw_untagged, 0, sizeof(cw_untagged));
	for (unsigned long r = 0; r < CW_SPAN; r++) {
		struct model_entry *e = model_find(&m, cw_base + r);

		cw_present0[r] = e != NULL;
		cw_tagged0[r] = e && (e->tags & 1);
	}
	urcu_memb_read_lock();
	if (tagged) {
		radix_tree_for_each_tagged(slot, &tree, &iter, start, 0)
			cw_visit(&iter, slot, true, when, &first, &prev);
	} else {
		radix_tree_for_each_slot(slot, &tree, &iter, start)
			cw_visit(&iter, slot, false, when, &first, &prev);
	}
	urcu_memb_read_unlock();
	for (unsigned long r = start - cw_base; r < CW_SPAN; r++) {
		bool throughout = cw_present0[r] && !cw_deleted[r] &&
				  (!tagged || (cw_tagged0[r] && !cw_untagged[r]));

		if (throughout)
			cr_assert_eq(cw_visits[r], 1, "%#lx, present%s throughout, visited %u times",
				     cw_base + r, tagged ? " and tagged" : "", cw_visits[r]);
	}
	check_walk(&m, PLAIN, cw_base, 0, 0, MAXW);
	check_walk(&m, TAGGED, cw_base, 0, 0, MAXW);
}

/* Has every interleaving the test requires happened? */
static bool cw_all_seen(bool tagged)
{
	return cw_n.deaths && cw_n.nulls && cw_n.tombs_ahead && cw_n.refills &&
	       (!tagged || cw_n.untags_ahead);
}

/* A round walks every base; a seed whose first round misses a rare
 * interleaving (a copy in the middle of a run: none in 150 runs of each
 * test, but a CI run's seed met none) goes on with more rounds, up to
 * this many. */
#define CW_MAX_ROUNDS 8

static void cw_run(const char *what, bool tagged)
{
	unsigned int round;

	t_rng_init(&cw_rng, what);
	memset(&cw_n, 0, sizeof(cw_n));
	for (round = 0; round < CW_MAX_ROUNDS && !cw_all_seen(tagged); round++) {
		for (size_t b = 0; b < sizeof(cw_bases) / sizeof(cw_bases[0]); b++) {
			cw_fill(cw_bases[b]);
			for (unsigned int w = 0; w < 60; w++) {
				unsigned long start =
					w % 4 == 3 ? cw_base + cw_rand(CW_SPAN) : cw_base;

				cw_walk(start, tagged, w % 2 ? CW_ANYWHERE : CW_AT_RUN_ENDS);
			}
			t_verify(&tree);
			model_free(&m);
			t_empty(&tree);
		}
	}
	fprintf(stderr, "%s: %u rounds, %lu nodes copied under the walk, %lu slots read NULL, "
		"%lu keys deleted ahead (%lu put back in place), %lu tags cleared ahead\n", what,
		round, cw_n.deaths, cw_n.nulls, cw_n.tombs_ahead, cw_n.refills, cw_n.untags_ahead);
	cr_assert_gt(cw_n.deaths, 0, "no walk saw its node copied");
	cr_assert_gt(cw_n.nulls, 0, "no walk read a slot emptied by a copy");
	cr_assert_gt(cw_n.tombs_ahead, 0, "no walk met a tombstone ahead");
	cr_assert_gt(cw_n.refills, 0, "no key ahead was deleted and put back in place");
	if (tagged)
		cr_assert_gt(cw_n.untags_ahead, 0, "no tag was cleared ahead of a walk");
	t_finish(&tree);
}

/*
 * cnode_walk_*: guard a walk that goes on searching in the compact node of
 * its last run while the same thread, between chunks, inserts into that
 * node until it is copied (dead: its item slots read NULL), several times,
 * and deletes keys not yet visited (tombstones, the key possibly inserted
 * again: back in its slot).  Interleavings: the node copied between two
 * runs (the next search must start again from the root, where the copy
 * is); copied in the middle of a run (the run's remaining slots read NULL,
 * then the next search starts from the root); a tombstone ahead of the walk
 * in a live node, or its key put back in it (the search in the node must
 * pass the tombstone, or find the key's item).  Every key
 * present throughout is visited exactly once, in ascending order, and
 * reads its item; a key inserted during the walk at most once; a key
 * deleted never after its deletion.
 */
Test(iter, cnode_walk_while_the_node_is_copied_and_tombstoned, .timeout = 120)
{
	cw_run("iter.cnode_walk", false);
}

/*
 * The same for a tagged walk (tag 0), with tag 0 also set and cleared on
 * keys not yet visited: a key whose tag is cleared before the walk reaches
 * it must not be visited, a key tagged throughout must be, once.
 */
Test(iter, cnode_tagged_walk_while_the_node_is_copied_and_retagged, .timeout = 120)
{
	cw_run("iter.cnode_tagged_walk", true);
}

/* ---- a compact node holding children and items --------------------------- */

/*
 * Keys in blocks of MX_BLOCK: a digit of a level-1 node (64-slot build) or
 * of a level-2 node (8-slot build).  Dense blocks 1, 3, 5 and 7 get 24 keys
 * each, inserted first, block by block; sparse blocks 2, 4 and 6 get eight
 * keys each, in runs.  The top node holds 64 entries at most: as it
 * overflows it moves the items of its largest block into a new child, so
 * it ends up holding children (dense blocks) and items (sparse blocks).
 * Once a block is a child its keys go there, so each block is demoted at
 * most once, and after five demotions the two blocks left (48 items at
 * most) and five children cannot overflow the top again: at most five
 * demoting copies.  A copy that moves every group (leaving the top no
 * item) comes only after RT_DEMOTE_ALL_AFTER of them: five in the 8-slot
 * build, ten in the 64-slot one.
 */
#define MX_BLOCK 64UL

/* The children of the top compact node: first and last key of each. */
static unsigned long mx_first[RT_C_MAX_ENTRIES], mx_last[RT_C_MAX_ENTRIES];

static unsigned int mx_children(void)
{
	void *top = rcu_dereference(tree.rnode);
	unsigned int n, i, nr = 0;
	void **slots;

	cr_assert(top && rt_is_internal(top) && rt_entry_compact(top),
		  "the top node is not a compact node");
	slots = rt_entry_slots(top, &n);
	for (i = 0; i < n; i++) {
		void *e = rcu_dereference(slots[i]);
		unsigned long sfx = rt_sfx_get(rt_entry_cnode(top), rt_sfx_width(rt_entry_level(top)), i);

		if (!e || !rt_is_internal(e))
			continue;
		/* The top node's keys start at 0. */
		mx_first[nr] = sfx & ~rt_level_maxindex(rt_entry_level(e));
		mx_last[nr] = sfx | rt_level_maxindex(rt_entry_level(e));
		nr++;
	}
	return nr;
}

static void mx_fill(void)
{
	static const unsigned int dense[] = { 1, 3, 5, 7 }, sparse[] = { 2, 4, 6 };
	unsigned int items, children;

	model_init(&m);
	for (size_t d = 0; d < sizeof(dense) / sizeof(dense[0]); d++)
		for (unsigned int n = 0; n < 24;) {
			unsigned long key = dense[d] * MX_BLOCK + cw_rand(MX_BLOCK);

			if (!model_find(&m, key)) {
				add(key, cw_rand(4) != 0);
				n++;
			}
		}
	for (size_t d = 0; d < sizeof(sparse) / sizeof(sparse[0]); d++)
		for (unsigned int n = 0; n < 8;) {
			unsigned long key = sparse[d] * MX_BLOCK + cw_rand(MX_BLOCK - 3);

			for (unsigned long len = 1 + cw_rand(3); len > 0 && n < 8; len--, key++)
				if (!model_find(&m, key)) {
					add(key, cw_rand(4) != 0);
					n++;
				}
		}
	cnode_census(rcu_dereference(tree.rnode), &items, &children);
	cr_assert_geq(children, 2, "the top node has %u children", children);
	cr_assert_geq(items, 8, "the top node holds %u items", items);
	cr_assert_eq(mx_children(), children);
	t_verify(&tree);
}

/* The position of the first model key from @pos on that bears @tag (any
 * tag if @tag < 0). */
static size_t model_next_tagged(size_t pos, int tag)
{
	while (pos < m.n && tag >= 0 && !((m.e[pos].tags >> tag) & 1))
		pos++;
	return pos;
}

static unsigned long mx_unlinks;

/* Delete every key of child @c of the top node: the child is emptied and
 * unlinked, its entry in the top node becomes a tombstone. */
static void mx_delete_child(unsigned int c)
{
	void *top = rcu_dereference(tree.rnode);
	unsigned int before = mx_children();
	unsigned long first = mx_first[c], last = mx_last[c];
	size_t pos;

	while ((pos = model_lower_bound(&m, first)) < m.n && m.e[pos].key <= last)
		cw_delete(m.e[pos].key);
	cr_assert_eq(rcu_dereference(tree.rnode), top, "the top node was replaced");
	cr_assert_eq(mx_children(), before - 1, "the child [%#lx, %#lx] is still linked", first,
		     last);
}

/* A walk (tag 0 if @tagged) visits @slot: it must be the next key the
 * model holds; at the end of a run in the top node, maybe delete a whole
 * child ahead (the nearest one, or any). */
static void mx_visit(struct radix_tree_iter *iter, void **slot, int tag, bool *first,
		     unsigned long *prev)
{
	size_t pos = model_next_tagged(model_lower_bound(&m, *first ? cw_start : *prev + 1), tag);
	void *top = rcu_dereference(tree.rnode);
	unsigned int nr;
	int near = -1;

	cr_assert_lt(pos, m.n, "the walk from %#lx visits %#lx, no key is left", cw_start,
		     iter->index);
	cr_assert_eq(iter->index, m.e[pos].key, "the walk from %#lx visits %#lx after %#lx, "
		     "expected %#lx", cw_start, iter->index, *prev, m.e[pos].key);
	cr_assert_eq(rcu_dereference(*slot), m.e[pos].item, "the item at %#lx", iter->index);
	*first = false;
	*prev = iter->index;
	if (slot + 1 != iter->run_end || !iter->parent || !rt_entry_compact(iter->parent) ||
	    rt_entry_cnode(iter->parent) != rt_entry_cnode(top) || cw_rand(2))
		return;
	/* The nearest child ahead, or (one time in three) any child ahead:
	 * the entries of a node sit in key order only after a copy. */
	nr = mx_children();
	for (unsigned int c = 0; c < nr; c++)
		if (mx_first[c] > iter->index && (near < 0 || mx_first[c] < mx_first[near]))
			near = (int)c;
	if (near < 0)
		return;
	if (cw_rand(3) == 0) {
		unsigned int c = (unsigned int)cw_rand(nr);

		if (mx_first[c] > iter->index)
			near = (int)c;
	}
	mx_delete_child((unsigned int)near);
	mx_unlinks++;
}

/*
 * cnode_walk_across_children_and_tombstones: guards a walk through a
 * compact node whose entries are children and items, going on in that
 * node after each run of its items, while the same thread, at the end of
 * a run, deletes every key of a child ahead: the child is unlinked and its
 * entry in the node becomes a tombstone, which the search from the next
 * key meets (as the nearest entry ahead, or behind further entries).  The
 * walk must visit the rest in order: each key is the smallest the model
 * holds (bearing tag 0, tagged walks) above the previous one, and the walk
 * ends after the last.
 */
Test(iter, cnode_walk_across_children_and_tombstones, .timeout = 120)
{
	t_rng_init(&cw_rng, "iter.cnode_children");
	mx_unlinks = 0;
	for (unsigned int round = 0; round < 40; round++) {
		int tag = round % 2 ? 0 : -1;
		unsigned long prev = 0;
		struct radix_tree_iter iter;
		bool first = true;
		void **slot;

		mx_fill();
		cw_start = round % 4 < 2 ? 0 : MX_BLOCK + cw_rand(7 * MX_BLOCK);
		urcu_memb_read_lock();
		if (tag >= 0) {
			radix_tree_for_each_tagged(slot, &tree, &iter, cw_start, 0)
				mx_visit(&iter, slot, tag, &first, &prev);
		} else {
			radix_tree_for_each_slot(slot, &tree, &iter, cw_start)
				mx_visit(&iter, slot, tag, &first, &prev);
		}
		urcu_memb_read_unlock();
		cr_assert_eq(model_next_tagged(model_lower_bound(&m, first ? cw_start : prev + 1), tag),
			     m.n, "the walk from %#lx ended after %#lx, before the last key",
			     cw_start, prev);
		t_verify(&tree);
		check_walk(&m, PLAIN, 0, 0, 0, MAXW);
		model_free(&m);
		t_empty(&tree);
	}
	fprintf(stderr, "iter.cnode_children: %lu children unlinked ahead of a walk\n", mx_unlinks);
	cr_assert_gt(mx_unlinks, 0, "no child was unlinked ahead of a walk");
	t_finish(&tree);
}

/* ---- gang lookups that start inside a compact node ----------------------- */

static void *g_items[64];
static void **g_slots[64];
static unsigned long g_indices[64];
static unsigned long g_calls, g_mid;

/*
 * One gang call of up to @batch from @from (tag 0, or any if @tag < 0),
 * through both the item and the slot variants: each must return exactly
 * the model's next @batch keys from @from.  Returns how many, and in
 * *@last the last key.
 */
static unsigned int gang_check(unsigned long from, unsigned int batch, int tag,
			       unsigned long *last)
{
	size_t pos = model_next_tagged(model_lower_bound(&m, from), tag);
	unsigned int n, ns, i;

	urcu_memb_read_lock();
	if (tag < 0) {
		n = radix_tree_gang_lookup(&tree, g_items, from, batch);
		ns = radix_tree_gang_lookup_slot(&tree, g_slots, g_indices, from, batch);
	} else {
		n = radix_tree_gang_lookup_tag(&tree, g_items, from, batch, (unsigned int)tag);
		ns = radix_tree_gang_lookup_tag_slot(&tree, g_slots, from, batch, (unsigned int)tag);
	}
	cr_assert_eq(n, ns, "gang from %#lx: %u items, %u slots", from, n, ns);
	for (i = 0; i < n; i++) {
		cr_assert_lt(pos, m.n, "gang from %#lx (batch %u, tag %d): result %u is past the "
			     "last key", from, batch, tag, i);
		cr_assert_eq(g_items[i], m.e[pos].item, "gang from %#lx (batch %u, tag %d): "
			     "result %u, expected the item of %#lx", from, batch, tag, i,
			     m.e[pos].key);
		cr_assert_eq(rcu_dereference(*g_slots[i]), m.e[pos].item);
		if (tag < 0)
			cr_assert_eq(g_indices[i], m.e[pos].key);
		*last = m.e[pos].key;
		pos = model_next_tagged(pos + 1, tag);
	}
	urcu_memb_read_unlock();
	if (n < batch)
		cr_assert_eq(pos, m.n, "gang from %#lx (batch %u, tag %d): %u results, the key "
			     "%#lx was not returned", from, batch, tag, n, m.e[pos].key);
	g_calls++;
	return n;
}

/* A change between two gang calls, in the span of cw_fill(): an insert, a
 * delete (a tombstone) or a tag change. */
static void gang_edit_span(void)
{
	unsigned long r = cw_rand(CW_SPAN), key = cw_base + r;
	struct model_entry *e = model_find(&m, key);

	if (!e && m.n < CW_LIVE_MAX)
		add(key, cw_rand(4) != 0);
	else if (e && !cw_stable[r] && cw_rand(3))
		cw_delete(key);
	else if (e && !cw_stable[r])
		cw_tag(key, !(e->tags & 1));
}

/* The same for the blocks of mx_fill(); now and then a whole child goes
 * (its entry becomes a tombstone). */
static void gang_edit_blocks(void)
{
	unsigned long key = MX_BLOCK + cw_rand(7 * MX_BLOCK);
	struct model_entry *e = model_find(&m, key);
	unsigned int nr;

	if (cw_rand(8) == 0 && (nr = mx_children()) > 0) {
		mx_delete_child((unsigned int)cw_rand(nr));
		return;
	}
	if (!e)
		add(key, cw_rand(4) != 0);
	else if (cw_rand(3))
		cw_delete(key);
	else
		cw_tag(key, !(e->tags & 1));
}

/*
 * Chains of gang calls in batches of @batch: from @start, then each from
 * the key after the last one returned, with @edit between two calls, until
 * a call returns fewer than @batch or reaches ULONG_MAX.
 */
static void gang_chain(unsigned long start, unsigned int batch, int tag, void (*edit)(void))
{
	unsigned long from = start, last = 0;

	while (gang_check(from, batch, tag, &last) == batch && last != ULONG_MAX) {
		from = last + 1;
		g_mid++;
		edit();
	}
	t_verify(&tree);
}

static const unsigned int gang_batches[] = { 1, 2, 3, 7 };

/*
 * cnode_gang_lookups_resume_mid_node: guards gang lookups (items and
 * slots, plain and tag 0) in small batches, each starting where the last
 * one ended, inside a compact node that changes between two calls: keys
 * appended (until the node is copied), deleted (tombstones, ahead of the
 * next start or behind it), retagged; in a node of children and items, a
 * whole child deleted.  So a call starts in the middle of a node, from a
 * key, a tombstone, a hole or a child's range, and its run may end at the
 * batch's end.  Each call must return exactly the model's next keys.
 */
Test(iter, cnode_gang_lookups_resume_mid_node, .timeout = 120)
{
	t_rng_init(&cw_rng, "iter.cnode_gang");
	g_calls = g_mid = 0;
	for (size_t b = 0; b < sizeof(cw_bases) / sizeof(cw_bases[0]); b++) {
		cw_fill(cw_bases[b]);
		for (size_t i = 0; i < 8 * sizeof(gang_batches) / sizeof(gang_batches[0]); i++) {
			unsigned long start = i % 8 < 2 ? cw_base : cw_base + cw_rand(CW_SPAN);

			cw_check_shape();
			gang_chain(start, gang_batches[i / 8], i % 2 ? 0 : -1, gang_edit_span);
		}
		model_free(&m);
		t_empty(&tree);
	}
	for (size_t i = 0; i < 8 * sizeof(gang_batches) / sizeof(gang_batches[0]); i++) {
		mx_fill();
		gang_chain(i % 8 < 2 ? 0 : MX_BLOCK + cw_rand(7 * MX_BLOCK), gang_batches[i / 8],
			   i % 2 ? 0 : -1, gang_edit_blocks);
		model_free(&m);
		t_empty(&tree);
	}
	fprintf(stderr, "iter.cnode_gang: %lu gang calls, %lu starting after a full batch\n",
		g_calls, g_mid);
	cr_assert_gt(g_mid, 0);
	t_finish(&tree);
}

/* ---- a sorted run and an appended tail --------------------------------- */

/* The top node, a compact node, with its sorted run shorter than its
 * entries and at least @run_min long. */
static struct rt_cnode *st_top_split(unsigned int run_min)
{
	void *top = rcu_dereference(tree.rnode);
	struct rt_cnode *node;

	cr_assert(top && rt_is_internal(top) && rt_entry_compact(top), "the top is not compact");
	node = rt_entry_cnode(top);
	cr_assert_geq(node->sorted, run_min, "sorted run %u, expected %u at least", node->sorted,
		      run_min);
	cr_assert_lt(node->sorted, node->next, "no appended tail: sorted run %u of %u",
		     node->sorted, node->next);
	return node;
}

/* The longest run of strictly increasing suffixes from position 0. */
static unsigned int st_run_len(const struct rt_cnode *node)
{
	unsigned int w = rt_sfx_width(node->level), i;

	for (i = 1; i < node->next && rt_sfx_get(node, w, i - 1) < rt_sfx_get(node, w, i); i++)
		;
	return i;
}

static bool st_run_has_child(const struct rt_cnode *node)
{
	void **slots = rt_cnode_slots(node);

	for (unsigned int i = 0; i < node->sorted; i++)
		if (rcu_dereference(slots[i]) && rt_is_internal(rcu_dereference(slots[i])))
			return true;
	return false;
}

/* Every walk and gang lookup from every key of [@from, @to]: the model's. */
static void st_check_everywhere(unsigned long from, unsigned long to)
{
	static const unsigned int batches[] = { 1, 3, 8, 64 };
	unsigned long last;

	for (unsigned long start = from;; start++) {
		check_all_walks(start);
		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			gang_check(start, batches[b], -1, &last);
			gang_check(start, batches[b], 0, &last);
		}
		if (start == to)
			break;
	}
	t_verify(&tree);
}

/*
 * cnode_sorted_run_and_appended_tail: guards the walks and gang lookups
 * that search a compact node's sorted run by its order and sort only the
 * entries appended after it.  Items: the even keys of a span appended in
 * ascending order (the run grows with them), then odd keys in descending
 * order (a tail that interleaves the run), three run keys deleted
 * (tombstones in the run) and one of them inserted again (back in its
 * tombstone, in the run), a tail key deleted.  Then
 * a node of children and items (the run) given items in descending order.
 * From every key, every walk and gang lookup must give the model's keys.
 */
/*
 * cnode_tail_holds_ulong_max: regression.  A compact top node of items at
 * the top level (8-byte suffixes, base 0) holds ULONG_MAX - 1000, - 990,
 * ... in its sorted run, then 5 appended below them (the run ends there),
 * then ULONG_MAX appended after 5: in the tail, where a suffix can be
 * ULONG_MAX itself.
 * A walk going on past the run found no run candidate and took the tail's
 * smallest suffix below ULONG_MAX, the value that also meant "no
 * candidate", so ULONG_MAX was never below it: the walk ended without it
 * (found by the fuzzer, in a tagged walk).  With ULONG_MAX - 1 appended
 * too, and without: every walk from every key around them must give the
 * model's keys.
 */
Test(iter, cnode_tail_holds_ulong_max)
{
	static const unsigned long starts[] = {
		0, 5, 6, ULONG_MAX - 1000, ULONG_MAX - 999, ULONG_MAX - 500,
		ULONG_MAX - 2, ULONG_MAX - 1, ULONG_MAX,
	};

	for (int with_below = 0; with_below < 2; with_below++) {
		struct rt_cnode *node;
		unsigned long key = ULONG_MAX - 1000;

		model_init(&m);
		do {
			add(key, key % 20 == 0);
			key += 10;
			node = rt_entry_cnode(rcu_dereference(tree.rnode));
		} while (node->cap < node->next + 3);
		add(5, 1);
		add(ULONG_MAX, 1);
		if (with_below)
			add(ULONG_MAX - 1, 0);
		cr_assert(rcu_dereference(tree.rnode) == rt_cnode_entry(node) && !node->children,
			  "the top is not the compact node of items it was");
		cr_assert(rt_sfx_width(node->level) == 8 && node->sorted == node->next - 2 - with_below,
			  "sorted run %u of %u entries", node->sorted, node->next);
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
			check_all_walks(starts[i]);
		t_verify(&tree);
		model_free(&m);
		t_empty(&tree);
	}
	t_finish(&tree);
}

#if RT_MAP_SHIFT == 6
/*
 * cnode_long_tails_at_every_width: guards the walks that go on in a
 * compact node of items by filtering its appended tail sixteen entries at
 * a time (more than six entries: a vector compare of the suffixes against
 * the key and the sorted run's candidate, per suffix width).  The even
 * keys of a span, inserted in descending order, each appended below the
 * last: tails of every length up to the room of the node's class.  At
 * each tail longer than six, every plain and tagged walk from every key
 * of the span must give the model's keys.  The 64-slot build's shapes:
 * the spans' bases give the top node suffixes of 1, 2, 4 and 8 bytes (the
 * 8-slot build's compact nodes hold tails of a few entries).
 */
Test(iter, cnode_long_tails_at_every_width, .timeout = 120)
{
	unsigned int long_tails[9] = { 0 };

	t_rng_init(&cw_rng, "iter.long_tails");
	for (size_t b = 0; b < sizeof(cw_bases) / sizeof(cw_bases[0]); b++) {
		cw_base = cw_bases[b];
		model_init(&m);
		for (unsigned long r = CW_SPAN - 2;; r -= 2) {
			struct rt_cnode *node;
			unsigned int w;

			add(cw_base + r, cw_rand(3) ? 0 : 1);
			node = rt_entry_cnode(rcu_dereference(tree.rnode));
			w = rt_sfx_width(node->level);
			if (node->children == 0 && node->next - st_run_len(node) > 6) {
				long_tails[w]++;
				for (unsigned long start = cw_base;; start++) {
					check_walk(&m, PLAIN, start, 0, 0, MAXW);
					check_walk(&m, TAGGED, start, 0, 0, MAXW);
					if (start == cw_base + CW_SPAN - 1)
						break;
				}
			}
			if (r == 0)
				break;
		}
		t_verify(&tree);
		model_free(&m);
		t_empty(&tree);
	}
	for (unsigned int w = 1; w <= 8; w *= 2)
		cr_assert_gt(long_tails[w], 0, "no compact node of %u-byte suffixes had a tail of "
			     "more than six entries", w);
	t_finish(&tree);
}
#endif

Test(iter, cnode_sorted_run_and_appended_tail, .timeout = 120)
{
	t_rng_init(&cw_rng, "iter.sorted_run");
	for (size_t b = 0; b < sizeof(cw_bases) / sizeof(cw_bases[0]); b++) {
		struct rt_cnode *node = NULL;
		unsigned long r;

		cw_base = cw_bases[b];
		model_init(&m);
		/* Twenty keys, and on until the node has room for a tail. */
		for (r = 0; r < 40 || node->cap < node->next + 6; r += 2) {
			cr_assert_lt(r, CW_SPAN, "no room left for a tail");
			add(cw_base + r, cw_rand(2) ? 1 : 0);
			node = rt_entry_cnode(rcu_dereference(tree.rnode));
		}
		cr_assert_eq(node->sorted, node->next, "ascending appends: run %u of %u",
			     node->sorted, node->next);
		for (r = CW_SPAN - 1; node->next + 2 < node->cap && r > 0; r -= 2)
			add(cw_base + r, cw_rand(2) ? 1 : 0);
		cw_delete(cw_base + 4);
		cw_delete(cw_base + 10);
		cw_delete(cw_base + 12);
		add(cw_base + 10, 1);
		cw_delete(cw_base + CW_SPAN - 1);
		cr_assert_eq(st_top_split(10), node, "the node was copied");
		/* radix_tree_verify() holds the run to its order. */
		node->sorted = node->next;
		cr_assert_eq(radix_tree_verify(&tree), -EUCLEAN, "an unsorted run passed");
		node->sorted = (uint8_t)(node->next + 1);
		cr_assert_eq(radix_tree_verify(&tree), -EUCLEAN, "a run past next passed");
		node->sorted = (uint8_t)(st_run_len(node));
		st_check_everywhere(cw_base ? cw_base - 1 : 0,
				    cw_base + CW_SPAN - 1 + (cw_base + CW_SPAN != 0));
		model_free(&m);
		t_empty(&tree);
	}
	mx_fill();
	{
		struct rt_cnode *node = rt_entry_cnode(rcu_dereference(tree.rnode));
		unsigned long key;

		/* Items ahead of and between the children, in descending order. */
		for (key = 8 * MX_BLOCK - 1; node->next < node->cap && key > 0; key -= 5)
			if (!model_find(&m, key) && (key / MX_BLOCK) % 2 == 0)
				add(key, cw_rand(2));
		cr_assert_eq(st_top_split(1), node, "the node was copied");
		cr_assert(st_run_has_child(node), "no child in the sorted run");
		st_check_everywhere(0, 8 * MX_BLOCK);
	}
	model_free(&m);
	t_empty(&tree);
	t_finish(&tree);
}
