/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * basic.c - every core function and every error, one behaviour per test,
 * on keys at the edges of nodes, levels and the key space.
 */
#include "helpers.h"
#include "descend.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

T_SUITE(basic);

/* Expected height for a tree whose largest key is @max. */
static unsigned int height_for(unsigned long max)
{
	return rt_level_for(max) + 1;
}

/* Does the top hold items only (a compact top that took the old top's
 * items when it grew keeps its level after deletes: deletes allocate
 * nothing, and one node holds every key either way)? */
static bool top_holds_items_only(void)
{
	const void *top = tree.rnode;
	void **slots;
	unsigned int n;

	if (!top || !rt_entry_compact(top))
		return false;
	slots = rt_entry_slots(top, &n);
	for (unsigned int i = 0; i < n; i++)
		if (slots[i] && rt_is_internal(slots[i]))
			return false;
	return true;
}

/* The height is the one @max needs, or higher with the top holding every
 * key as an item. */
static void assert_height_for(unsigned long max, unsigned long deleted)
{
	unsigned int h = t_height(&tree);

	if (h != height_for(max))
		cr_assert(h > height_for(max) && top_holds_items_only(),
			  "height %u after deleting %#lx (%u needed, the top holds children)", h,
			  deleted, height_for(max));
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
		/* A lone key costs one node of the smallest size (one 64-byte
		 * line; a full 8-slot node in the 8-slot build), whatever its
		 * height: the node holds the key's suffix. */
		cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
		cr_assert_eq(mem.nodes, 1);
		cr_assert_eq(mem.node_bytes, RT_NODE_ALIGN);
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
			assert_height_for(max, t_special_keys[k]);
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
	/* A top node holding ULONG_MAX's item and, eleven levels down (22
	 * in the 8-slot build), key 0's node: no chain of nodes between.  In
	 * the 64-slot build key 0's node was a compact leaf of items: the
	 * new top took its item, one node holds both. */
	cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
	cr_assert_eq(mem.nodes, RT_MAP_SIZE == 64 ? 1 : 2);
	t_verify(&tree);
	t_delete(&tree, ULONG_MAX, top);
	/* One node left; a top of items keeps its level. */
	cr_assert_eq(t_height(&tree), RT_MAP_SIZE == 64 ? RT_MAX_LEVELS : 1);
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

	cr_assert_null(radix_tree_lookup(NULL, 1));
	cr_assert_null(radix_tree_lookup_slot(NULL, 1));
	cr_assert_null(radix_tree_delete(NULL, 1));
	cr_assert(radix_tree_empty(NULL));
	cr_assert_eq(radix_tree_gang_lookup(NULL, results, 0, 2), 0);
	cr_assert_eq(radix_tree_gang_lookup_slot(NULL, slots, NULL, 0, 2), 0);
	cr_assert_eq(radix_tree_verify(NULL), -EINVAL);
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

/*
 * replace_slot misuse dies: the caller's next step (freeing the old item)
 * would otherwise free an item still in the tree.  Every case runs in a
 * child on a tree holding items at 10 and 11 (one leaf).
 */
static void **rs_slot;      /* key 10's slot */
static struct titem *rs_new; /* a fresh item for key 10 */

static void rs_setup(void)
{
	t_insert_new(&tree, 10);
	t_insert_new(&tree, 11);
	rs_slot = radix_tree_lookup_slot(&tree, 10);
	cr_assert_not_null(rs_slot);
	rs_new = titem_new(10);
}

static void rs_finish(void)
{
	/* The children died; here nothing changed. */
	cr_assert_eq(radix_tree_lookup_slot(&tree, 10), rs_slot);
	cr_assert(titem_ok(*rs_slot, 10));
	t_verify(&tree);
	titem_free(rs_new);
	t_finish(&tree);
}

static int rs_without_lock(void *arg)
{
	(void)arg;
	radix_tree_replace_slot(&tree, rs_slot, rs_new);
	return 0;
}

static int rs_null_root(void *arg)
{
	(void)arg;
	radix_tree_lock(&tree);
	radix_tree_replace_slot(NULL, rs_slot, rs_new);
	return 0;
}

static int rs_null_slot(void *arg)
{
	(void)arg;
	radix_tree_lock(&tree);
	radix_tree_replace_slot(&tree, NULL, rs_new);
	return 0;
}

static int rs_bad_item(void *arg)
{
	radix_tree_lock(&tree);
	radix_tree_replace_slot(&tree, rs_slot, arg);
	return 0;
}

/* A slot whose item was deleted (its leaf lives on: 11 is in it). */
static int rs_empty_slot(void *arg)
{
	(void)arg;
	radix_tree_lock(&tree);
	T_CHILD_CHECK(radix_tree_delete(&tree, 10) != NULL);
	T_CHILD_CHECK(*rs_slot == NULL);
	radix_tree_replace_slot(&tree, rs_slot, rs_new);
	return 0;
}

/* A slot of another tree (@arg: initialised, maybe holding items). */
static int rs_foreign_slot(void *arg)
{
	struct radix_tree_root *other = arg;

	radix_tree_lock(other);
	radix_tree_replace_slot(other, rs_slot, rs_new);
	return 0;
}

Test(basic, replace_slot_without_the_lock_dies)
{
	rs_setup();
	t_assert_dies(rs_without_lock, NULL,
		      "rcuradix: radix_tree_replace_slot: tree lock not held by this thread");
	rs_finish();
}

Test(basic, replace_slot_null_root_or_slot_dies)
{
	rs_setup();
	t_assert_dies(rs_null_root, NULL, "rcuradix: radix_tree_replace_slot: NULL root");
	t_assert_dies(rs_null_slot, NULL, "rcuradix: radix_tree_replace_slot: NULL slot");
	rs_finish();
}

Test(basic, replace_slot_null_or_misaligned_item_dies)
{
	char line[256];

	rs_setup();
	for (unsigned int mis = 0; mis < 4; mis++) {
		void *item = mis ? (char *)rs_new + mis : NULL;

		snprintf(line, sizeof(line), "rcuradix: radix_tree_replace_slot: item %p is NULL or "
			 "not 4-byte aligned (delete with radix_tree_delete())", item);
		t_assert_dies(rs_bad_item, item, line);
	}
	rs_finish();
}

Test(basic, replace_slot_on_an_emptied_slot_dies)
{
	rs_setup();
	t_assert_dies(rs_empty_slot, NULL, "rcuradix: radix_tree_replace_slot: the slot holds "
		      "no item (deleted, or not a slot of this tree)");
	rs_finish();
}

/* Debug builds (the tests link one) find the slot in the tree. */
Test(basic, replace_slot_with_another_trees_slot_dies)
{
	struct radix_tree_root other;
	struct titem *item;

	rs_setup();
	INIT_RADIX_TREE(&other, GFP_KERNEL);
	t_assert_dies(rs_foreign_slot, &other,
		      "rcuradix: radix_tree_replace_slot: the slot is not in this tree");
	/* The same keys, so the same shape: only the identity of the slot
	 * tells the trees apart. */
	item = t_insert_new(&other, 10);
	t_insert_new(&other, 11);
	t_assert_dies(rs_foreign_slot, &other,
		      "rcuradix: radix_tree_replace_slot: the slot is not in this tree");
	cr_assert_eq(radix_tree_lookup(&other, 10), item);
	t_empty(&other);
	rs_finish();
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
	/* Unlocked now: another thread could take it. */
	cr_assert_eq(tree.depth, 0);
	cr_assert_eq(tree.owner, 0);
	t_delete(&tree, 1UL << 20, b);
	t_finish(&tree);
}

/* A writer on another thread, inserting @item at key 2. */
struct lock_waiter {
	struct titem *item;
	int calling;  /* set just before the insert */
	int done;     /* set once it returned */
	int ret;
};

static void *lock_waiter_main(void *arg)
{
	struct lock_waiter *w = arg;

	urcu_memb_register_thread();  /* a writer thread, as the contract asks */
	uatomic_set(&w->calling, 1);
	w->ret = radix_tree_insert(&tree, 2, w->item);
	uatomic_set(&w->done, 1);
	urcu_memb_unregister_thread();
	return NULL;
}

/* The monotonic clock, in nanoseconds. */
static long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Busy for @ns of wall time: the holder keeps its CPU, as a writer does. */
static void busy_for_ns(long ns)
{
	long start = now_ns();

	while (now_ns() - start < ns)
		;
}

/*
 * A writer that finds the tree lock taken spins for up to RT_LOCK_SPIN_NS,
 * then sleeps on the lock word.  The holder keeps the lock for no time once
 * the waiter is about to call (it spins, or has not even reached the lock),
 * then for twice the spin (it spins, then sleeps): either way its insert
 * happens only after the unlock, and then succeeds.
 */
Test(basic, a_writer_waits_for_the_lock_by_spinning_then_sleeping)
{
	static const long hold_ns[] = { 0, 2 * RT_LOCK_SPIN_NS };

	for (unsigned int i = 0; i < sizeof(hold_ns) / sizeof(hold_ns[0]); i++) {
		struct lock_waiter w = { .item = titem_new(2) };
		struct titem *mine;
		pthread_t thread;

		radix_tree_lock(&tree);
		cr_assert_eq(pthread_create(&thread, NULL, lock_waiter_main, &w), 0);
		while (!uatomic_read(&w.calling))
			caa_cpu_relax();
		busy_for_ns(hold_ns[i]);
		mine = t_insert_new(&tree, 1);
		cr_assert_eq(uatomic_read(&w.done), 0, "hold %ld ns: the other writer ran under "
						       "the lock", hold_ns[i]);
		cr_assert_null(radix_tree_lookup(&tree, 2));
		radix_tree_unlock(&tree);
		cr_assert_eq(pthread_join(thread, NULL), 0);
		cr_assert_eq(w.ret, 0, "hold %ld ns: insert gave %d", hold_ns[i], w.ret);
		cr_assert_eq(radix_tree_lookup(&tree, 2), w.item);
		t_delete(&tree, 2, w.item);
		t_delete(&tree, 1, mine);
	}
	t_finish(&tree);
}

/* The ways unlocks and sleepers may order themselves (lib/base.h): the
 * process's own (membarrier where the kernel allows it), a fence in every
 * unlock, and naps instead of futex waits. */
static const int lock_orders[] = { -1, RT_LOCK_FENCES, RT_LOCK_UNDECIDED };
#define NR_LOCK_ORDERS (sizeof(lock_orders) / sizeof(lock_orders[0]))

/*
 * The lock excludes writers, in every order.  Three threads take the lock
 * back to back and add to a counter under it, and every entry checks that
 * nobody else holds it; this thread takes it 200 times and holds it until
 * another thread has counted itself a sleeper, so that contention reaches
 * the sleeping path.  A second holder fails the overlap count, a lost
 * increment the total.
 */
struct lock_race {
	unsigned long count;  /* changed under the lock, with plain stores */
	int inside;           /* 1 while some thread holds the lock */
	int overlaps;         /* entries that found it held */
	int stop;
};

struct lock_racer {
	struct lock_race *race;
	unsigned long entries;  /* written by the racer, read after the join */
};

static void lock_race_enter(struct lock_race *r)
{
	radix_tree_lock(&tree);
	if (uatomic_xchg(&r->inside, 1))
		uatomic_inc(&r->overlaps);
	r->count++;
}

static void lock_race_exit(struct lock_race *r)
{
	uatomic_set(&r->inside, 0);
	radix_tree_unlock(&tree);
}

static void *lock_racer_main(void *arg)
{
	struct lock_racer *me = arg;

	while (!uatomic_read(&me->race->stop)) {
		lock_race_enter(me->race);
		lock_race_exit(me->race);
		me->entries++;
	}
	return NULL;
}

Test(basic, the_lock_excludes_writers_in_every_order, .timeout = 120)
{
	for (unsigned int o = 0; o < NR_LOCK_ORDERS; o++) {
		struct lock_race race = { 0 };
		struct lock_racer racers[3];
		pthread_t threads[3];
		unsigned long entries = 0;

		rt_lock_test_order(lock_orders[o]);
		for (unsigned int i = 0; i < 3; i++) {
			racers[i] = (struct lock_racer){ .race = &race };
			cr_assert_eq(pthread_create(&threads[i], NULL, lock_racer_main, &racers[i]),
				     0);
		}
		for (unsigned int round = 0; round < 200; round++, entries++) {
			lock_race_enter(&race);
			while (uatomic_read(rt_lock_sleepers_of(&tree)) == 0)
				caa_cpu_relax();
			lock_race_exit(&race);
		}
		uatomic_set(&race.stop, 1);
		for (unsigned int i = 0; i < 3; i++) {
			cr_assert_eq(pthread_join(threads[i], NULL), 0);
			entries += racers[i].entries;
		}
		rt_lock_test_order(-1);
		cr_assert_eq(race.overlaps, 0, "order %d: %d entries found the lock held",
			     lock_orders[o], race.overlaps);
		cr_assert_eq(race.count, entries, "order %d: %lu increments of %lu kept",
			     lock_orders[o], race.count, entries);
		cr_assert_eq(tree.lock, 0);
		cr_assert_eq(uatomic_read(rt_lock_sleepers_of(&tree)), 0);
	}
	t_finish(&tree);
}

/*
 * A sleeper is woken, in every order.  One waiter and this thread, and no
 * third thread whose unlock could make up for a lost wake: this thread
 * holds the lock until the waiter has counted itself a sleeper, then
 * waits a little longer, from nothing to 64 us by round, so that its
 * unlock lands before, during and after the waiter's membarrier and futex
 * wait; where the waiter blocks in the kernel, some rounds wait until it
 * does (/proc/self/task/TID/syscall).  Then the waiter must take the lock.
 * A lost wake leaves it asleep with the word free: the round fails after
 * 30 s of that, a time no waiter that was woken needs.  (Whether a
 * releaser's store and load are ordered, a race of nanoseconds, is argued
 * in lib/base.h, not tested here.)
 */
struct lock_sleeper {
	pid_t tid;
	int go;    /* round to take the lock in, set by this thread */
	int done;  /* last round it took and released the lock in */
};

static void *lock_sleeper_main(void *arg)
{
	struct lock_sleeper *s = arg;
	int round = 0;

	uatomic_set(&s->tid, (pid_t)syscall(SYS_gettid));
	while (round >= 0) {
		while (uatomic_read(&s->go) == round)
			caa_cpu_relax();
		round = uatomic_read(&s->go);
		if (round < 0)
			break;
		radix_tree_lock(&tree);
		radix_tree_unlock(&tree);
		uatomic_set(&s->done, round);
	}
	return NULL;
}

/* Is thread @tid inside system call @nr?  False also where /proc cannot
 * tell. */
static bool thread_in_syscall(pid_t tid, long nr)
{
	char path[64];
	long at = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &at) != 1)
		at = -1;
	fclose(f);
	return at == nr;
}

Test(basic, a_sleeper_on_the_lock_is_woken_in_every_order, .timeout = 600)
{
	for (unsigned int o = 0; o < NR_LOCK_ORDERS; o++) {
		struct lock_sleeper s = { 0 };
		pthread_t thread;
		bool naps = lock_orders[o] == RT_LOCK_UNDECIDED;

		rt_lock_test_order(lock_orders[o]);
		cr_assert_eq(pthread_create(&thread, NULL, lock_sleeper_main, &s), 0);
		while (!uatomic_read(&s.tid))
			caa_cpu_relax();
		for (int round = 1; round <= 64; round++) {
			long freed;

			radix_tree_lock(&tree);
			uatomic_set(&s.go, round);
			while (uatomic_read(rt_lock_sleepers_of(&tree)) == 0)
				caa_cpu_relax();
			if (round % 4 == 0 && !naps) {
				long until = now_ns() + 1000000000L;

				while (!thread_in_syscall(s.tid, SYS_futex) && now_ns() < until)
					caa_cpu_relax();
			} else {
				busy_for_ns((long)(round - 1) * 1000);
			}
			radix_tree_unlock(&tree);
			freed = now_ns();
			while (uatomic_read(&s.done) != round) {
				cr_assert(now_ns() - freed < 30000000000L,
					  "order %d, round %d: the sleeper was not woken",
					  lock_orders[o], round);
				caa_cpu_relax();
			}
		}
		uatomic_set(&s.go, -1);
		cr_assert_eq(pthread_join(thread, NULL), 0);
		rt_lock_test_order(-1);
		cr_assert_eq(uatomic_read(rt_lock_sleepers_of(&tree)), 0);
	}
	t_finish(&tree);
}

/* One unlock more than locks: the lock is not held any more. */
static int unlock_once_too_often(void *arg)
{
	(void)arg;
	radix_tree_lock(&tree);
	radix_tree_lock(&tree);
	radix_tree_unlock(&tree);
	radix_tree_unlock(&tree);
	radix_tree_unlock(&tree);
	return 0;
}

static void *unlock_thread(void *arg)
{
	radix_tree_unlock(arg);
	return NULL;
}

/* The lock is held by this thread; another thread unlocks it. */
static int unlock_from_another_thread(void *arg)
{
	pthread_t thread;

	(void)arg;
	radix_tree_lock(&tree);
	T_CHILD_CHECK(pthread_create(&thread, NULL, unlock_thread, &tree) == 0);
	T_CHILD_CHECK(pthread_join(thread, NULL) == 0);
	return 0;
}

Test(basic, unlock_without_holding_the_lock_dies)
{
	t_assert_dies(unlock_once_too_often, NULL,
		      "rcuradix: radix_tree_unlock: tree lock not held by this thread");
	t_assert_dies(unlock_from_another_thread, NULL,
		      "rcuradix: radix_tree_unlock: tree lock not held by this thread");
	/* Here the lock is free and works. */
	radix_tree_lock(&tree);
	radix_tree_unlock(&tree);
	cr_assert_eq(tree.owner, 0);
	t_finish(&tree);
}

/*
 * A writer call re-entered from a signal handler dies.  Deterministically:
 * the child holds the tree lock, a second thread calls radix_tree_insert()
 * and blocks on the tree's lock (the in-writer flag is set before the lock
 * is taken), and only then is it sent a signal whose handler calls
 * radix_tree_delete().  "Blocked on the lock" is read from the root's
 * entry of the sleeper counts, which a waiter raises before it sleeps (and
 * only the inserting thread ever waits here): no sleep, no timing
 * assumption.
 */
static pthread_t reenter_thread;

static void reenter_handler(int sig)
{
	(void)sig;
	radix_tree_delete(&tree, 1);
}

static void *reenter_insert(void *arg)
{
	radix_tree_insert(&tree, 1, arg);
	return NULL;
}

static int writer_from_a_signal_handler(void *arg)
{
	struct sigaction sa = { .sa_handler = reenter_handler };

	T_CHILD_CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	radix_tree_lock(&tree);
	T_CHILD_CHECK(pthread_create(&reenter_thread, NULL, reenter_insert, arg) == 0);
	while (__atomic_load_n(rt_lock_sleepers_of(&tree), __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	T_CHILD_CHECK(pthread_kill(reenter_thread, SIGUSR1) == 0);
	/* The thread dies in the handler, taking the process. */
	T_CHILD_CHECK(pthread_join(reenter_thread, NULL) == 0);
	return 0;
}

Test(basic, writer_reentered_from_a_signal_handler_dies, .timeout = 60)
{
	struct titem *item = titem_new(1);

	t_assert_dies(writer_from_a_signal_handler, item,
		      "rcuradix: radix_tree_delete: writer call re-entered while this thread is "
		      "inside radix_tree_insert (a writer called from a signal handler?)");
	titem_free(item);
	t_finish(&tree);
}

/*
 * Debug builds with rt_debug_strict set: a reader outside a read-side
 * section of the tree's flavor and without the tree lock dies; inside one,
 * or under the lock, it runs.  One child per reader entry point.
 */
enum reader { R_LOOKUP, R_LOOKUP_SLOT, R_TAG_GET, R_GANG, R_GANG_SLOT, R_GANG_TAG,
	      R_GANG_TAG_SLOT, R_WALK, R_NR };

static const char *const reader_names[R_NR] = {
	"radix_tree_lookup", "radix_tree_lookup_slot", "radix_tree_tag_get",
	"radix_tree_gang_lookup", "radix_tree_gang_lookup_slot", "radix_tree_gang_lookup_tag",
	"radix_tree_gang_lookup_tag_slot", "radix_tree_next_chunk",
};

/* Call reader @r on @root, which holds an item tagged 0 at key 5; return
 * whether it found it. */
static bool call_reader(const struct radix_tree_root *root, enum reader r)
{
	struct radix_tree_iter iter;
	void *items[2];
	void **slots[2];
	void **slot;
	unsigned int n = 0;

	switch (r) {
	case R_LOOKUP:
		return radix_tree_lookup(root, 5) != NULL;
	case R_LOOKUP_SLOT:
		return radix_tree_lookup_slot(root, 5) != NULL;
	case R_TAG_GET:
		return radix_tree_tag_get(root, 5, 0) == 1;
	case R_GANG:
		return radix_tree_gang_lookup(root, items, 0, 2) == 1;
	case R_GANG_SLOT:
		return radix_tree_gang_lookup_slot(root, slots, NULL, 0, 2) == 1;
	case R_GANG_TAG:
		return radix_tree_gang_lookup_tag(root, items, 0, 2, 0) == 1;
	case R_GANG_TAG_SLOT:
		return radix_tree_gang_lookup_tag_slot(root, slots, 0, 2, 0) == 1;
	case R_WALK:
		radix_tree_for_each_slot(slot, root, &iter, 0)
			n++;
		return n == 1;
	case R_NR:
		break;
	}
	return false;
}

static int reader_outside_a_section(void *arg)
{
	rt_debug_strict = 1;
	call_reader(&tree, (enum reader)(uintptr_t)arg);
	return 0;
}

static int readers_inside_sections(void *arg)
{
	(void)arg;
	rt_debug_strict = 1;
	for (enum reader r = 0; r < R_NR; r++) {
		urcu_memb_read_lock();
		T_CHILD_CHECK(call_reader(&tree, r));
		urcu_memb_read_unlock();
		radix_tree_lock(&tree);
		T_CHILD_CHECK(call_reader(&tree, r));
		radix_tree_unlock(&tree);
	}
	return 0;
}

static void strict_setup(void)
{
	t_insert_new(&tree, 5);
	cr_assert_not_null(radix_tree_tag_set(&tree, 5, 0));
}

Test(basic, strict_reader_outside_a_read_side_section_dies)
{
	char line[256];

	strict_setup();
	for (enum reader r = 0; r < R_NR; r++) {
		snprintf(line, sizeof(line), "rcuradix: %s: called outside a read-side section of "
			 "the tree's RCU flavor and without the tree lock", reader_names[r]);
		t_assert_dies(reader_outside_a_section, (void *)(uintptr_t)r, line);
	}
	t_finish(&tree);
}

Test(basic, strict_readers_inside_a_section_or_under_the_lock_run)
{
	strict_setup();
	t_assert_lives(readers_inside_sections, NULL, "");
	t_finish(&tree);
}

/* QSBR: a registered online thread is in a read-side section; offline, it
 * is not. */
static int qsbr_reader(void *arg)
{
	struct radix_tree_root q;
	static long item;

	rt_debug_strict = 1;
	urcu_qsbr_register_thread();
	radix_tree_init_flavor(&q, GFP_KERNEL, &urcu_qsbr_flavor);
	T_CHILD_CHECK(radix_tree_insert(&q, 5, &item) == 0);
	T_CHILD_CHECK(radix_tree_lookup(&q, 5) == &item);
	if (*(const bool *)arg) {
		urcu_qsbr_thread_offline();
		radix_tree_lookup(&q, 5);
	}
	return 0;
}

Test(basic, strict_qsbr_reader_must_be_online)
{
	static bool online, offline = true;

	t_assert_lives(qsbr_reader, &online, "");
	t_assert_dies(qsbr_reader, &offline, "rcuradix: radix_tree_lookup: called outside a "
		      "read-side section of the tree's RCU flavor and without the tree lock");
	t_finish(&tree);
}

/* Strict debug builds: a tree that may not allocate in insert is filled
 * inside a preload window. */
static int atomic_insert(void *arg)
{
	struct radix_tree_root atomic;
	static long item;

	rt_debug_strict = 1;
	radix_tree_init_flavor(&atomic, (gfp_t)(uintptr_t)arg, &urcu_memb_flavor);
	T_CHILD_CHECK(radix_tree_preload(GFP_KERNEL) == 0);
	T_CHILD_CHECK(radix_tree_insert(&atomic, 1UL << 30, &item) == 0);
	radix_tree_preload_end();
	/* The reserve still holds nodes: only the missing window is wrong. */
	radix_tree_insert(&atomic, 1UL << 50, &item);
	return 0;
}

Test(basic, strict_atomic_insert_outside_a_preload_window_dies)
{
	static const char line[] = "rcuradix: radix_tree_insert: insert into a tree whose "
				   "gfp_mask may not allocate (GFP_ATOMIC) outside a preload window";

	t_assert_dies(atomic_insert, (void *)(uintptr_t)GFP_ATOMIC, line);
	t_assert_dies(atomic_insert, (void *)(uintptr_t)GFP_NOWAIT, line);
	t_finish(&tree);
}

/*
 * A zero-filled root that was never initialised: every call that can
 * report an error reports it, the first one says why (once per process),
 * and readers answer "absent".
 */
static int uninitialised_root(void *arg)
{
	struct radix_tree_root *z = arg;
	struct radix_tree_memstat mem;
	struct radix_tree_iter iter;
	static long item;
	unsigned long first = 0;
	void *items[2];
	void **slots[2];
	void **slot;
	unsigned int n = 0;

	for (int pass = 0; pass < 2; pass++) {
		T_CHILD_CHECK(radix_tree_insert(z, 1, &item) == -EINVAL);
		T_CHILD_CHECK(radix_tree_delete(z, 1) == NULL);
		T_CHILD_CHECK(radix_tree_tag_set(z, 1, 0) == NULL);
		T_CHILD_CHECK(radix_tree_tag_clear(z, 1, 0) == NULL);
		T_CHILD_CHECK(radix_tree_memory(z, &mem) == -EINVAL);
		T_CHILD_CHECK(radix_tree_verify(z) == -EINVAL);
		T_CHILD_CHECK(radix_tree_range_tag_if_tagged(z, &first, ULONG_MAX, 10, 0, 1) == 0);
		radix_tree_destroy(z);
		radix_tree_iter_init(&iter, 0);
		T_CHILD_CHECK(radix_tree_iter_delete(z, &iter, (void **)&items[0]) == NULL);
		/* Readers: an empty tree. */
		T_CHILD_CHECK(radix_tree_lookup(z, 1) == NULL);
		T_CHILD_CHECK(radix_tree_lookup_slot(z, 1) == NULL);
		T_CHILD_CHECK(radix_tree_tag_get(z, 1, 0) == 0);
		T_CHILD_CHECK(radix_tree_tagged(z, 0) == 0);
		T_CHILD_CHECK(radix_tree_empty(z));
		T_CHILD_CHECK(radix_tree_gang_lookup(z, items, 0, 2) == 0);
		T_CHILD_CHECK(radix_tree_gang_lookup_slot(z, slots, NULL, 0, 2) == 0);
		T_CHILD_CHECK(radix_tree_gang_lookup_tag(z, items, 0, 2, 0) == 0);
		T_CHILD_CHECK(radix_tree_gang_lookup_tag_slot(z, slots, 0, 2, 0) == 0);
		radix_tree_for_each_slot(slot, z, &iter, 0)
			n++;
		T_CHILD_CHECK(n == 0);
	}
	return 0;
}

Test(basic, uninitialised_root_reports_errors_once)
{
	struct radix_tree_root zero;
	static struct radix_tree_root zero_static;

	memset(&zero, 0, sizeof(zero));
	t_assert_lives(uninitialised_root, &zero,
		       "rcuradix: radix_tree_insert: tree not initialised (RADIX_TREE(), "
		       "INIT_RADIX_TREE() or radix_tree_init_flavor())\n");
	t_assert_lives(uninitialised_root, &zero_static,
		       "rcuradix: radix_tree_insert: tree not initialised (RADIX_TREE(), "
		       "INIT_RADIX_TREE() or radix_tree_init_flavor())\n");
	t_finish(&tree);
}

/*
 * The root's layout: the fields readers load (rnode .. base) and the
 * fields every writer call writes (lock .. depth) never share a 64-byte
 * cache line, for a root at any 8-byte offset (embedded, malloc'd) and
 * between neighbours in an array.  Computed from offsetof(), so that it
 * fails if the struct is reordered or its padding shrinks.
 */
#define READERS_FIRST offsetof(struct radix_tree_root, rnode)
#define READERS_END (offsetof(struct radix_tree_root, base) + sizeof(unsigned int))
#define WRITERS_FIRST offsetof(struct radix_tree_root, lock)
#define WRITERS_END (offsetof(struct radix_tree_root, depth) + sizeof(unsigned int))

Test(basic, root_reader_and_writer_fields_never_share_a_cache_line)
{
	static _Alignas(64) unsigned char buf[3 * sizeof(struct radix_tree_root) + 64];
	unsigned int checked = 0;

	/* The groups are what the comment says: every reader field between
	 * rnode and base, every writer field between lock and depth. */
	cr_assert_lt(READERS_FIRST, offsetof(struct radix_tree_root, tags));
	cr_assert_lt(offsetof(struct radix_tree_root, flavor), READERS_END);
	cr_assert_lt(offsetof(struct radix_tree_root, gfp_mask), READERS_END);
	cr_assert_lt(offsetof(struct radix_tree_root, initialised), READERS_END);
	cr_assert_lt(READERS_END, WRITERS_FIRST);
	cr_assert_lt(WRITERS_FIRST, offsetof(struct radix_tree_root, owner));
	cr_assert_lt(offsetof(struct radix_tree_root, nr_nodes), WRITERS_END);
	cr_assert_lt(offsetof(struct radix_tree_root, nr_items), WRITERS_END);
	cr_assert_eq(sizeof(struct radix_tree_root) % 8, 0);
	for (uintptr_t off = 0; off < 64; off += 8) {
		/* roots[0] and roots[1]: one root alone, and array neighbours. */
		uintptr_t r0 = (uintptr_t)buf + off, r1 = r0 + sizeof(struct radix_tree_root);

		cr_assert_eq((uintptr_t)buf % 64, 0);
		for (uintptr_t r = r0; r <= r1; r += sizeof(struct radix_tree_root)) {
			cr_assert_not(t_share_a_line(r + READERS_FIRST, r + READERS_END,
						     r + WRITERS_FIRST, r + WRITERS_END),
				      "root at offset %lu: its reader and writer fields share a line",
				      (unsigned long)(r % 64));
			checked++;
		}
		cr_assert_not(t_share_a_line(r0 + WRITERS_FIRST, r0 + WRITERS_END,
					     r1 + READERS_FIRST, r1 + READERS_END),
			      "roots[0] at offset %lu: its writer fields share a line with "
			      "roots[1]'s reader fields", (unsigned long)off);
		cr_assert_not(t_share_a_line(r0 + READERS_FIRST, r0 + READERS_END,
					     r1 + WRITERS_FIRST, r1 + WRITERS_END),
			      "roots[0] at offset %lu: its reader fields share a line with "
			      "roots[1]'s writer fields", (unsigned long)off);
	}
	cr_assert_eq(checked, 16);
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
	cr_assert_eq(rcuradix_get_stats(&st, offsetof(struct rcuradix_stats, bytes_allocated) - 1),
		     -EINVAL);
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
 * Regression: fork() and the exit path.  A child forked by a program that
 * uses the library must be able to exit(), to exec, and, following
 * liburcu's recipe (call_rcu_before_fork() before fork(),
 * call_rcu_after_fork_parent() in the parent, call_rcu_after_fork_child()
 * in the child), to keep using a tree; whether or not the parent had
 * call_rcu callbacks pending when it forked.  The library used to wait for
 * pending callbacks in a destructor with the flavor's barrier(): in a child,
 * which has no call_rcu worker thread, that barrier never returned and the
 * child hung in exit().  The parent waits for each child without a bound of
 * its own: Criterion's .timeout fails a test whose child hangs.
 */
enum fork_child { FORK_EXIT, FORK_EXEC, FORK_RECIPE };

/* Insert and delete @n keys: every delete queues node frees to call_rcu. */
static void churn(unsigned long n)
{
	static long item;
	unsigned long failed = 0;

	for (unsigned long k = 0; k < n; k++)
		failed += radix_tree_insert(&tree, k * 7, &item) != 0;
	for (unsigned long k = 0; k < n; k++)
		failed += radix_tree_delete(&tree, k * 7) != &item;
	cr_assert_eq(failed, 0);
	cr_assert(radix_tree_empty(&tree));
}

/* The recipe's child: a working call_rcu again, and a tree used to the end. */
static int fork_child_uses_a_tree(void)
{
	static long items[1000];
	struct rcuradix_stats st;

	urcu_memb_call_rcu_after_fork_child();
	for (unsigned long k = 0; k < 1000; k++)
		T_CHILD_CHECK(radix_tree_insert(&tree, k << 12, &items[k]) == 0);
	for (unsigned long k = 0; k < 1000; k += 2)
		T_CHILD_CHECK(radix_tree_delete(&tree, k << 12) == &items[k]);
	urcu_memb_read_lock();
	for (unsigned long k = 0; k < 1000; k++)
		T_CHILD_CHECK(radix_tree_lookup(&tree, k << 12) == (k % 2 ? &items[k] : NULL));
	urcu_memb_read_unlock();
	T_CHILD_CHECK(radix_tree_verify(&tree) == 0);
	radix_tree_destroy(&tree);
	/* Runs the callbacks queued here and those inherited from the parent. */
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	T_CHILD_CHECK(rcuradix_get_stats(&st, sizeof(st)) == 0);
	T_CHILD_CHECK(st.nodes_pending == 0 && st.nodes_live == 0);
	return 0;
}

static void fork_and_wait(bool pending, enum fork_child what)
{
	struct rcuradix_stats st;
	pid_t parent = getpid(), pid;
	int status;

	if (pending) {
		/* The call_rcu worker has run callbacks (and counted them). */
		churn(1000);
		urcu_memb_barrier();
		/* Inside a read-side section no grace period ends: every node
		 * freed by the churn is still pending at fork(). */
		urcu_memb_read_lock();
		churn(t_scaled(100000));
		cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
		cr_assert_gt(st.nodes_pending, 0);
		/* The recipe pauses the call_rcu worker, which is waiting for
		 * this section to end: leave it first (the callbacks queued
		 * last are still pending, unless the worker is quick). */
		if (what == FORK_RECIPE)
			urcu_memb_read_unlock();
	}
	if (what == FORK_RECIPE)
		urcu_memb_call_rcu_before_fork();
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		t_child_init(parent);
		/* The child inherits the section; it has no reason to stay. */
		if (pending && what != FORK_RECIPE)
			urcu_memb_read_unlock();
		switch (what) {
		case FORK_EXIT:
			exit(0);
		case FORK_EXEC:
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		case FORK_RECIPE:
			exit(fork_child_uses_a_tree());
		}
		_exit(126);
	}
	if (what == FORK_RECIPE)
		urcu_memb_call_rcu_after_fork_parent();
	else if (pending)
		urcu_memb_read_unlock();
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s %d",
		  WIFEXITED(status) ? "exit status" : "signal",
		  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	t_finish(&tree);
}

Test(basic, fork_child_exits, .timeout = 60)
{
	fork_and_wait(false, FORK_EXIT);
}

Test(basic, fork_child_exits_with_callbacks_pending, .timeout = 60)
{
	fork_and_wait(true, FORK_EXIT);
}

Test(basic, fork_child_execs, .timeout = 60)
{
	fork_and_wait(false, FORK_EXEC);
}

Test(basic, fork_child_execs_with_callbacks_pending, .timeout = 60)
{
	fork_and_wait(true, FORK_EXEC);
}

Test(basic, fork_child_keeps_using_a_tree, .timeout = 60)
{
	fork_and_wait(false, FORK_RECIPE);
}

Test(basic, fork_child_keeps_using_a_tree_with_callbacks_pending, .timeout = 60)
{
	fork_and_wait(true, FORK_RECIPE);
}

/*
 * fork() while another thread allocates and frees nodes: the child must
 * not inherit the library's node pool lock in a locked state.  Each child
 * builds a tree (allocating nodes) and exits 0; a deadlocked child is
 * killed by its own alarm and reported.  The forks follow liburcu's
 * recipe (rcuradix(7)), as a program whose child goes on writing must:
 * without it, a fork while the other thread's first call_rcu() was
 * creating liburcu's worker left liburcu's call_rcu mutex held in the
 * child, whose first retired node then waited for it forever (one child
 * in a few thousand, on a loaded machine).
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
		pid_t pid;
		int status;

		urcu_memb_call_rcu_before_fork();
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct radix_tree_root r;
			static long item;

			/* A deadlocked child dies; a machine that lends it
			 * no CPU for a while does not kill it. */
			alarm(60);
			urcu_memb_call_rcu_after_fork_child();
			radix_tree_init_flavor(&r, GFP_KERNEL, &urcu_memb_flavor);
			for (unsigned long k = 0; k < 256; k++)
				if (radix_tree_insert(&r, k << 10, &item) != 0)
					_exit(2);
			_exit(radix_tree_lookup(&r, 255UL << 10) == &item ? 0 : 3);
		}
		urcu_memb_call_rcu_after_fork_parent();
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	uatomic_set(&fork_stop, 1);
	cr_assert_eq(pthread_join(thread, NULL), 0);
	cr_assert_eq(bad, 0, "%u children failed or deadlocked", bad);
	t_finish(&tree);
}
#endif

/* A caller built against the first layout of struct rcuradix_stats passes
 * its smaller size: it gets the fields it knows, and nothing past them is
 * written. */
Test(basic, stats_of_the_first_layout)
{
	union {
		struct rcuradix_stats st;
		unsigned char raw[sizeof(struct rcuradix_stats)];
	} u;
	size_t old = offsetof(struct rcuradix_stats, bytes_allocated);
	struct rcuradix_stats full;

	memset(&u, 0xa5, sizeof(u));
	cr_assert_eq(rcuradix_get_stats(&u.st, old), 0);
	cr_assert_eq(rcuradix_get_stats(&full, sizeof(full)), 0);
	cr_assert_eq(u.st.node_size, full.node_size);
	cr_assert_eq(u.st.nodes_live, full.nodes_live);
	for (size_t i = old; i < sizeof(u); i++)
		cr_assert_eq(u.raw[i], 0xa5, "byte %zu past the old layout written", i);
	t_finish(&tree);
}

/* Node counters count nodes of every size; the bytes_ fields count their
 * bytes: a tree's radix_tree_memory() node bytes are live bytes. */
Test(basic, stats_count_bytes_of_every_node_size)
{
	struct rcuradix_stats before, after;
	struct radix_tree_memstat mem;
	struct titem *items[200];

	rcuradix_thread_cache_flush();
	cr_assert_eq(rcuradix_get_stats(&before, sizeof(before)), 0);
	for (unsigned long i = 0; i < 200; i++)
		items[i] = t_insert_new(&tree, (i * 0x9e3779b97f4a7c15UL) >> 3);
	urcu_memb_barrier();
	cr_assert_eq(rcuradix_get_stats(&after, sizeof(after)), 0);
	cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
	cr_assert_eq(after.bytes_pending, 0);
	cr_assert_eq(after.bytes_live - after.bytes_reserved,
		     before.bytes_live - before.bytes_reserved + mem.node_bytes,
		     "live bytes %lu, reserved %lu, the tree's %lu", after.bytes_live,
		     after.bytes_reserved, mem.node_bytes);
	/* (An 8-slot full node is two lines: no compact node is smaller.) */
	if (RT_MAP_SIZE == 64)
		cr_assert_lt(mem.node_bytes, mem.nodes * RT_NODE_SIZE,
			     "sparse keys use nodes smaller than full ones");
	for (unsigned long i = 0; i < 200; i++)
		t_delete(&tree, (i * 0x9e3779b97f4a7c15UL) >> 3, items[i]);
	t_finish(&tree);
}

/*
 * Every transition between node kinds is reached by a small workload: a
 * dense range filled key by key (appends, copies into larger classes, a
 * compact leaf becoming full, compact nodes above the leaves becoming full,
 * new nodes, growth), spread 64-bit keys (more entries than a compact node
 * holds: groups move into children), keys below the first top node's
 * range (they leave its compressed path: splits),
 * then every key deleted (emptied nodes unlinked, the height shrinking);
 * and, in a tree of their own, 70 keys sharing all but their low 16 bits
 * (the top node holds them all as items of one group: moved twice);
 * finally a top node that fills with children one level down and one
 * further down (a compressed path): once it is as large as a full node
 * and a bridge, it becomes them (bridge_workload()); a top node that
 * overflows with two groups of items left, and becomes a full node by
 * demoting both (two_groups_workload()); and a compact top of items
 * outgrown by a far key (the new top takes the items).  The 8-slot build
 * has no compact leaf: its leaves are full from the start; its small nodes
 * make a bridge pay only at the highest levels, which this workload does
 * not reach, and a node of 65 entries over 8 digits never has only two
 * groups left.
 */
/*
 * Keys 0..64 (a subtree parting at level 1), then, for each digit g in
 * 1..33 at level 5, 64 keys that part one level down: the top (level 5)
 * demotes each group into a child at level 4, and holds the level-1
 * subtree as a compressed child.  With 34 children, a compact top would
 * be as large as a full node and one bridge: it becomes those.  Inserts
 * (checked) go into @items; returns their count.
 */
static unsigned int bridge_workload(unsigned long *keys, struct titem **items)
{
	unsigned int n = 0;

	for (unsigned long k = 0; k <= 64; k++)
		keys[n++] = k;
	for (unsigned long g = 1; g <= 33; g++)
		for (unsigned long j = 0; j < 64; j++)
			keys[n++] = (g << 30) | (j << 24);
	for (unsigned int i = 0; i < n; i++)
		items[i] = t_insert_new(&tree, keys[i]);
	t_verify(&tree);
	return n;
}

/*
 * A pair of keys under each digit 1..54 at level 5, each pair parting one
 * level down (the first keys, then the second ones), then four keys under
 * each of digits 55 and 56, then one key under each of digits 57, 58 and
 * 59.  The compact top (level 5) overflows six times on the pairs, each
 * copy moving nine pairs into children (a demotion of pairs), fewer than
 * RT_DEMOTE_ALL_AFTER: when the key under digit 59 overflows it, it holds
 * 54 children, the two fours and two items alone, and sees two groups and
 * three items alone: a full node with three bridges, and a child for each
 * four, take less memory than a compact node, and it demotes both fours
 * and becomes a full node.  Inserts (checked) go into @items; returns
 * their count.
 */
static unsigned int two_groups_workload(unsigned long *keys, struct titem **items)
{
	unsigned long before = rt_transitions[RT_TR_DEMOTE_FOR_FULL];
	unsigned int n = 0;

	for (unsigned long j = 0; j < 2; j++)
		for (unsigned long g = 1; g <= 54; g++)
			keys[n++] = (g << 30) | (j << 24);
	for (unsigned long g = 55; g <= 56; g++)
		for (unsigned long j = 0; j < 4; j++)
			keys[n++] = (g << 30) | (j << 24);
	for (unsigned long g = 57; g <= 59; g++)
		keys[n++] = g << 30;
	for (unsigned int i = 0; i < n; i++) {
		items[i] = t_insert_new(&tree, keys[i]);
		cr_assert_eq(rt_transitions[RT_TR_DEMOTE_FOR_FULL] - before, i == n - 1,
			     "insert %u of %u: %lu demotions for a full node", i, n,
			     rt_transitions[RT_TR_DEMOTE_FOR_FULL] - before);
	}
	t_verify(&tree);
	return n;
}

/*
 * A top over two children: the keys under its digits 0 and 1, in order,
 * and two items under digit 2, which share it and keep the top compact in
 * the 8-slot build too.  Each child covers RT_MAP_SIZE runs of 64 keys (a
 * leaf in the 64-slot build, a level-1 node in the 8-slot one).  The two
 * items are deleted while the second child holds a run and a half, still
 * compact (with fewer keys the 8-slot top would demote them itself, as a
 * full node; with more, the child would be full already).  When the child
 * becomes a full node, the top holds two full nodes only, and becomes one.
 * Inserted (checked) and deleted.
 */
static void full_parent_workload(void)
{
	const unsigned long run = 64, span = run * RT_MAP_SIZE;
	struct titem *pair[2];

	pair[0] = t_insert_new(&tree, 2 * span);
	pair[1] = t_insert_new(&tree, 2 * span + 1);
	for (unsigned long k = 0; k < span + run + run / 2; k++)
		t_insert_new(&tree, k);
	t_delete(&tree, 2 * span, pair[0]);
	t_delete(&tree, 2 * span + 1, pair[1]);
	for (unsigned long k = span + run + run / 2; k < 2 * span; k++)
		t_insert_new(&tree, k);
	t_verify(&tree);
	for (unsigned long k = 0; k < 2 * span; k++)
		t_delete(&tree, k, radix_tree_lookup(&tree, k));
}

Test(basic, every_transition_is_reached)
{
	static const char *const names[RT_TR_COUNT] = {
		"append", "new node", "grow root", "copy", "leaf to full", "inner to full",
		"demote", "demote twice", "demote for a full node", "demote pairs", "split",
		"split to full", "shrink", "unlink",
		"bridge", "grow absorbing the top", "refill", "demote every group",
		"full over full nodes",
	};
	unsigned long before[RT_TR_COUNT], keys[4096 + 2000 + 8];
	struct titem *items[4096 + 2000 + 8];
	unsigned int n = 0, t;

	memcpy(before, rt_transitions, sizeof(before));
	for (unsigned long k = 0; k < 4096; k++)
		keys[n++] = k;
	for (unsigned long i = 1; i <= 2000; i++)
		keys[n++] = (i * 0x9e3779b97f4a7c15UL) | (1UL << 63);
	/* Under the old top, now eleven levels down, below new keys. */
	for (unsigned long b = 12; b < 60; b += 6)
		keys[n++] = (1UL << b) + 3;
	for (unsigned int i = 0; i < n; i++) {
		items[i] = radix_tree_lookup(&tree, keys[i]) ? NULL : t_insert_new(&tree, keys[i]);
		if (i % 512 == 0)
			t_verify(&tree);
	}
	t_verify(&tree);
	for (unsigned int i = 0; i < n; i++)
		if (items[i])
			t_delete(&tree, keys[i], items[i]);
	for (unsigned long i = 0; i < 70; i++)
		items[i] = t_insert_new(&tree, 0x5a5a5a5a5a5a0000UL | (i * 0x3b1UL & 0xffffUL));
	t_verify(&tree);
	/* A key deleted and inserted again: back in its tombstone. */
	t_delete(&tree, 0x5a5a5a5a5a5a0000UL | (5 * 0x3b1UL & 0xffffUL), items[5]);
	items[5] = t_insert_new(&tree, 0x5a5a5a5a5a5a0000UL | (5 * 0x3b1UL & 0xffffUL));
	for (unsigned long i = 0; i < 70; i++)
		t_delete(&tree, 0x5a5a5a5a5a5a0000UL | (i * 0x3b1UL & 0xffffUL), items[i]);
	/* A compact top holding items only, outgrown: the new top takes its
	 * items (a leaf in the 64-slot build, a level-1 node in the 8-slot
	 * one, whose leaves are full). */
	items[0] = t_insert_new(&tree, 8);
	items[1] = t_insert_new(&tree, 16);
	items[2] = t_insert_new(&tree, 1UL << 40);
	t_verify(&tree);
	t_delete(&tree, 8, items[0]);
	t_delete(&tree, 16, items[1]);
	t_delete(&tree, 1UL << 40, items[2]);
	full_parent_workload();
	if (RT_MAP_SIZE == 64) {
		n = bridge_workload(keys, items);
		for (unsigned int i = 0; i < n; i++)
			t_delete(&tree, keys[i], items[i]);
		n = two_groups_workload(keys, items);
		for (unsigned int i = 0; i < n; i++)
			t_delete(&tree, keys[i], items[i]);
	}
	for (t = 0; t < RT_TR_COUNT; t++) {
		unsigned long count = rt_transitions[t] - before[t];

		if (RT_MAP_SIZE == 8 &&
		    (t == RT_TR_LEAF_FULL || t == RT_TR_BRIDGE || t == RT_TR_DEMOTE_FOR_FULL ||
		     t == RT_TR_DEMOTE_PAIRS))
			continue;
		cr_assert_gt(count, 0, "transition \"%s\" never happened", names[t]);
	}
	t_finish(&tree);
}

#if RT_MAP_SHIFT == 6
/*
 * A compact top (level 5) holding 32 pairs of items, each pair parting one
 * level down: 64 entries.  The 65th overflows it: the copy moves the
 * lowest pair into a child, then RT_DEMOTE_ROOM more pairs into children
 * of the smallest class, so that RT_DEMOTE_ROOM entries stay free.  The
 * next RT_DEMOTE_ROOM items under new digits are appended in place, not
 * copied: without the extra pairs each of them copied the whole node for
 * one more pair.  The one after them finds the node full again and
 * demotes.  A shape of the 64-slot build: the 8-slot build's nodes of 64
 * entries over 8 digits have larger groups (no test here: a skipped test
 * leaks Criterion's buffers under valgrind).
 */
Test(basic, a_demoting_copy_keeps_room_for_appends)
{
	unsigned long before[RT_TR_COUNT], keys[64 + 2 + RT_DEMOTE_ROOM];
	struct titem *items[64 + 2 + RT_DEMOTE_ROOM];
	unsigned int n = 0;

	for (unsigned long g = 1; g <= 32; g++) {
		keys[n++] = g << 30;
		keys[n++] = (g << 30) | (1UL << 24);
	}
	for (unsigned int i = 0; i < n; i++)
		items[i] = t_insert_new(&tree, keys[i]);
	memcpy(before, rt_transitions, sizeof(before));
	keys[n] = 33UL << 30;
	items[n] = t_insert_new(&tree, keys[n]);
	n++;
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE_PAIRS] - before[RT_TR_DEMOTE_PAIRS], 1);
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE] - before[RT_TR_DEMOTE], 0);
	t_verify(&tree);
	memcpy(before, rt_transitions, sizeof(before));
	for (unsigned long g = 34; g < 34 + RT_DEMOTE_ROOM; g++) {
		keys[n] = g << 30;
		items[n] = t_insert_new(&tree, keys[n]);
		n++;
	}
	cr_assert_eq(rt_transitions[RT_TR_APPEND] - before[RT_TR_APPEND], RT_DEMOTE_ROOM,
		     "the %u items after the demoting copy were not all appended",
		     RT_DEMOTE_ROOM);
	cr_assert_eq(rt_transitions[RT_TR_COPY] - before[RT_TR_COPY], 0);
	t_verify(&tree);
	memcpy(before, rt_transitions, sizeof(before));
	keys[n] = (34UL + RT_DEMOTE_ROOM) << 30;
	items[n] = t_insert_new(&tree, keys[n]);
	n++;
	cr_assert_eq(rt_transitions[RT_TR_APPEND] - before[RT_TR_APPEND], 0,
		     "room for more than %u appends", RT_DEMOTE_ROOM);
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE_PAIRS] - before[RT_TR_DEMOTE_PAIRS], 1);
	t_verify(&tree);
	for (unsigned int i = 0; i < n; i++)
		t_delete(&tree, keys[i], items[i]);
	t_finish(&tree);
}
#endif

/* The C node holding @key's entry (the last node of its descent). */
static struct rt_cnode *cnode_of(unsigned long key)
{
	struct rt_path path;
	void *entry;

	radix_tree_lock(&tree);
	rt_descend(&tree, key, &path, NULL);
	entry = path.depth ? rt_path_leaf(&path)->entry : NULL;
	radix_tree_unlock(&tree);
	cr_assert(entry && rt_entry_compact(entry), "key %#lx: no compact node", key);
	return rt_entry_cnode(entry);
}

/*
 * A delete and a refill store only their slot: nothing before the slots,
 * where the node's first line (the header, the first suffixes) is the one
 * every reader of the node loads.  The node's first delete marks it
 * (deleted, stored once); from then on deletes and refills leave those
 * bytes as they are.  A count of live entries kept there changed at each
 * one, and took the line from every reader at each update.
 */
Test(basic, deletes_and_refills_store_only_their_slot)
{
	const unsigned long k = 0x3c3c3c3c3c3c0000UL;
	unsigned char before[RT_C_MAX_BYTES];
	struct titem *items[4];
	struct rt_cnode *node;
	size_t head;

	for (unsigned long i = 0; i < 4; i++)
		items[i] = t_insert_new(&tree, k + i);
	node = cnode_of(k);
	cr_assert_eq(node->deleted, 0);
	t_delete(&tree, k + 1, items[1]);
	cr_assert_eq(cnode_of(k), node, "a delete copied the node");
	cr_assert_eq(node->deleted, 1);
	head = (size_t)((char *)rt_cnode_slots(node) - (char *)node);
	memcpy(before, node, head);
	for (int round = 0; round < 3; round++) {
		for (unsigned long i = 0; i < 4; i += 2) {
			t_delete(&tree, k + i, items[i]);
			cr_assert_eq(memcmp(before, node, head), 0,
				     "round %d: the delete of key %lu stored before the slots",
				     round, i);
		}
		for (unsigned long i = 0; i < 4; i += 2) {
			items[i] = t_insert_new(&tree, k + i);
			cr_assert_eq(cnode_of(k), node, "a refill copied the node");
			cr_assert_eq(memcmp(before, node, head), 0,
				     "round %d: the refill of key %lu stored before the slots",
				     round, i);
		}
	}
	t_verify(&tree);
	for (unsigned long i = 0; i < 4; i++)
		if (i != 1)
			t_delete(&tree, k + i, items[i]);
	t_finish(&tree);
}

/*
 * A key deleted from a compact node and inserted again goes back to its
 * tombstone, as in a full leaf: the slot found under the lock before the
 * delete holds the new item, no entry is spent and no node allocated, and
 * a node with no room left is not copied for it (the next new key is);
 * the new item bears none of the old one's tags.
 */
Test(basic, a_deleted_key_goes_back_to_its_tombstone)
{
	const unsigned long k = 0x5a5a5a5a5a5a0000UL;
	unsigned long before[RT_TR_COUNT], j, n = 0;
	struct titem *items[RT_C_MAX_ENTRIES + 1], *old;
	struct rcuradix_stats st0, st1;
	struct rt_cnode *node;
	void **slot;

	/* Keys one apart from k: items sharing every digit, appended in
	 * place to one node until it has no room left. */
	items[n++] = t_insert_new(&tree, k);
	node = cnode_of(k);
	while (node->next < node->cap) {
		items[n] = t_insert_new(&tree, k + n);
		n++;
		cr_assert_eq(cnode_of(k), node, "the node was copied at %lu items", n);
	}
	cr_assert_gt(n, 1);
	radix_tree_tag_set(&tree, k + 1, 2);
	radix_tree_lock(&tree);
	slot = radix_tree_lookup_slot(&tree, k + 1);
	radix_tree_unlock(&tree);
	cr_assert_eq(*slot, items[1]);
	memcpy(before, rt_transitions, sizeof(before));
	rcuradix_thread_cache_flush();
	cr_assert_eq(rcuradix_get_stats(&st0, sizeof(st0)), 0);
	old = items[1];
	t_delete(&tree, k + 1, old);
	cr_assert_null(*slot, "the deleted item's slot still holds it");
	items[1] = t_insert_new(&tree, k + 1);
	cr_assert_eq(rcuradix_get_stats(&st1, sizeof(st1)), 0);
	cr_assert_eq(st1.nodes_allocated, st0.nodes_allocated, "a node was allocated");
	cr_assert_eq(rt_transitions[RT_TR_REFILL] - before[RT_TR_REFILL], 1);
	cr_assert_eq(rt_transitions[RT_TR_APPEND] - before[RT_TR_APPEND], 0);
	cr_assert_eq(rt_transitions[RT_TR_COPY] - before[RT_TR_COPY], 0);
	cr_assert_eq(cnode_of(k), node, "the full node was copied for a key it had");
	cr_assert_eq(node->next, node->cap, "an entry was spent");
	cr_assert_eq(*slot, items[1], "the old slot does not hold the key's new item");
	radix_tree_lock(&tree);
	cr_assert_eq(radix_tree_lookup_slot(&tree, k + 1), slot);
	radix_tree_unlock(&tree);
	cr_assert_eq(radix_tree_tag_get(&tree, k + 1, 2), 0, "the new item bears the old tag");
	cr_assert_eq(radix_tree_tagged(&tree, 2), 0);
	t_verify(&tree);
	/* A new key does need room: the node is copied. */
	memcpy(before, rt_transitions, sizeof(before));
	items[n] = t_insert_new(&tree, k + n);
	n++;
	cr_assert_eq(rt_transitions[RT_TR_REFILL] - before[RT_TR_REFILL], 0);
	cr_assert_neq(cnode_of(k), node, "a full node took a new key in place");
	t_verify(&tree);
	for (j = 0; j < n; j++)
		t_delete(&tree, k + j, items[j]);
	t_finish(&tree);
}

/*
 * The tombstone of a child entry is not filled by an item of the key the
 * child was stored with: an entry's kind never changes while it lives
 * (lookups tell items from children by the kind bit alone).  A full leaf
 * of keys 0..RT_MAP_SIZE-1 under a compact top grown above it by a far
 * key; the leaf emptied and unlinked (the top keeps the child's
 * tombstone), then the key the child was stored with inserted again: its
 * item is appended with the tombstone's suffix, which walks and gang
 * lookups from every start must pass; then the leaf's other keys.
 */
Test(basic, a_childs_tombstone_is_not_refilled)
{
	const unsigned long far = 1UL << (5 * RT_MAP_SHIFT);
	unsigned long before[RT_TR_COUNT], key, tomb_sfx = ULONG_MAX;
	struct titem *items[RT_MAP_SIZE], *far_item, *far2_item;
	unsigned int i, child_tombs = 0;
	struct rt_cnode *top;
	const uint8_t *tags;
	void **slots;

	for (key = 0; key < RT_MAP_SIZE; key++)
		items[key] = t_insert_new(&tree, key);
	far_item = t_insert_new(&tree, far);
	far2_item = t_insert_new(&tree, 2 * far);  /* the top copied, with room */
	for (key = 0; key < RT_MAP_SIZE; key++)
		t_delete(&tree, key, items[key]);
	top = cnode_of(far);
	tags = rt_cnode_tags(top);
	slots = rt_cnode_slots(top);
	for (i = 0; i < top->next; i++)
		if ((tags[i] & RT_CTAG_CHILD) && !slots[i]) {
			child_tombs++;
			tomb_sfx = rt_sfx_get(top, rt_sfx_width(top->level), i);
		}
	cr_assert_eq(child_tombs, 1, "the top holds %u tombstones of children", child_tombs);
	cr_assert_lt(tomb_sfx, RT_MAP_SIZE, "the child was stored with %#lx", tomb_sfx);
	memcpy(before, rt_transitions, sizeof(before));
	/* First the key the child was stored with: its item is appended to
	 * the top, after the tombstone that shares its suffix. */
	items[tomb_sfx] = t_insert_new(&tree, tomb_sfx);
	cr_assert_eq(cnode_of(far), top, "the top was copied");
	cr_assert_eq(rt_transitions[RT_TR_REFILL] - before[RT_TR_REFILL], 0,
		     "a child's tombstone took an item");
	t_verify(&tree);
	/* Walks and gang lookups pass the tombstone and give the item. */
	for (unsigned long start = 0; start <= RT_MAP_SIZE; start++) {
		bool first = start <= tomb_sfx;
		struct radix_tree_iter iter;
		unsigned long want[3] = { tomb_sfx, far, 2 * far };
		void *got[4], **slot;
		unsigned int n, skip = first ? 0 : 1;

		urcu_memb_read_lock();
		n = radix_tree_gang_lookup(&tree, got, start, 4);
		cr_assert_eq(n, 3 - skip, "gang from %lu: %u items", start, n);
		if (first)
			cr_assert_eq(got[0], items[tomb_sfx], "gang from %lu", start);
		cr_assert_eq(got[n - 2], far_item, "gang from %lu", start);
		cr_assert_eq(got[n - 1], far2_item, "gang from %lu", start);
		n = 0;
		radix_tree_for_each_slot(slot, &tree, &iter, start) {
			cr_assert_eq(iter.index, want[skip + n], "walk from %lu: key %#lx", start,
				     iter.index);
			n++;
		}
		cr_assert_eq(n, 3 - skip, "walk from %lu: %u items", start, n);
		urcu_memb_read_unlock();
	}
	for (key = 0; key < RT_MAP_SIZE; key++)
		if (key != tomb_sfx)
			items[key] = t_insert_new(&tree, key);
	cr_assert_eq(rt_transitions[RT_TR_REFILL] - before[RT_TR_REFILL], 0,
		     "a child's tombstone took an item");
	t_verify(&tree);
	for (key = 0; key < RT_MAP_SIZE; key++)
		t_delete(&tree, key, items[key]);
	t_delete(&tree, far, far_item);
	t_delete(&tree, 2 * far, far2_item);
	t_finish(&tree);
}

/* Each of the @n keys @keys holds what @items says (NULL: absent), bearing
 * tag 0 as @tagged says and tag 2 if also its position is odd. */
static void check_copied(const unsigned long *keys, struct titem **items, const bool *tagged,
			 unsigned int n)
{
	radix_tree_lock(&tree);
	for (unsigned int i = 0; i < n; i++) {
		unsigned long k = keys[i];

		cr_assert_eq(radix_tree_lookup(&tree, k), items[i], "key %lu", k);
		cr_assert_eq(radix_tree_tag_get(&tree, k, 0), items[i] && tagged[i], "key %lu", k);
		cr_assert_eq(radix_tree_tag_get(&tree, k, 2), items[i] && tagged[i] && i % 2,
			     "key %lu", k);
	}
	radix_tree_unlock(&tree);
	t_verify(&tree);
}

/*
 * Insert the @n keys @keys into the empty tree out of order, tag some (two
 * tags), and now and then delete the key inserted two steps before and
 * insert it again (a tombstone in its node); after every step each key
 * holds its item and its tags.  Then delete them all.
 */
static void fill_with_tombstones(const unsigned long *keys, unsigned int n)
{
	struct titem *items[64] = { NULL };
	bool tagged[64] = { false };

	cr_assert(n <= 64 && n % 2 == 0);
	for (unsigned int s = 0; s < n; s++) {
		unsigned int i = (s * 37 + 11) % n;  /* every key once, out of order */

		cr_assert_null(items[i]);
		items[i] = t_insert_new(&tree, keys[i]);
		if (s % 3 == 0) {
			cr_assert_eq(radix_tree_tag_set(&tree, keys[i], 0), items[i]);
			if (i % 2)
				cr_assert_eq(radix_tree_tag_set(&tree, keys[i], 2), items[i]);
			tagged[i] = true;
		}
		if (s % 5 == 4) {
			unsigned int old = ((s - 2) * 37 + 11) % n;

			t_delete(&tree, keys[old], items[old]);
			items[old] = NULL;
			check_copied(keys, items, tagged, n);
			items[old] = t_insert_new(&tree, keys[old]);
			tagged[old] = false;
		}
		check_copied(keys, items, tagged, n);
	}
	for (unsigned int i = 0; i < n; i++)
		t_delete(&tree, keys[i], items[i]);
	t_finish(&tree);
}

/*
 * A leaf (keys 0..63: the top is a leaf) filled out of order, with tags
 * and tombstones: each copy into a larger class, and the last into a full
 * node, keeps every item and every tag and drops the tombstones; the
 * copies read the leaf's digits, not a sorted list.  In the 8-slot build,
 * whose leaves are full nodes, keys 0..63 hang from a node above the
 * leaves: the same checks of items and tags.
 */
Test(basic, a_leafs_copies_keep_items_and_tags_and_drop_tombstones)
{
	unsigned long before[RT_TR_COUNT], keys[64];

	for (unsigned long k = 0; k < 64; k++)
		keys[k] = k;
	memcpy(before, rt_transitions, sizeof(before));
	fill_with_tombstones(keys, 64);
#if RT_MAP_SHIFT == 6
	cr_assert_geq(rt_transitions[RT_TR_COPY] - before[RT_TR_COPY], 5);
	cr_assert_eq(rt_transitions[RT_TR_LEAF_FULL] - before[RT_TR_LEAF_FULL], 1);
#else
	(void)before;
#endif
}

/*
 * The same in a top above the leaves holding items only (60 keys 67 apart:
 * two-byte suffixes at level 1 in the 64-slot build): its copies into
 * larger classes, straight from the old node (its sorted run merged with
 * the entries appended after it), keep every item and tag in key order.
 * Sixty items never make a full node nor demote.
 */
Test(basic, copies_above_the_leaves_keep_items_and_tags_and_drop_tombstones)
{
	unsigned long before[RT_TR_COUNT], keys[60];

	for (unsigned long k = 0; k < 60; k++)
		keys[k] = k * 67;
	memcpy(before, rt_transitions, sizeof(before));
	fill_with_tombstones(keys, 60);
	cr_assert_geq(rt_transitions[RT_TR_COPY] - before[RT_TR_COPY], 5);
#if RT_MAP_SHIFT == 6
	cr_assert_eq(rt_transitions[RT_TR_DEMOTE] - before[RT_TR_DEMOTE], 0);
	cr_assert_eq(rt_transitions[RT_TR_INNER_FULL] - before[RT_TR_INNER_FULL], 0);
#endif
}

/*
 * Regression for growth that takes the top's items: a reader holds the
 * slot of key 8 in a compact top of items; a writer inserts a key beyond
 * the top's range, and the new top takes key 8's item.  The reader's slot
 * is in the retired top: it reads NULL ("moved: look again"), never a
 * stale item, and the lookup again finds the item in the new top.  A
 * replace_slot through the stale slot under the same lock hold lands in
 * the new top's slot.
 */
Test(basic, growth_that_takes_the_tops_items_moves_held_slots)
{
	struct titem *a = t_insert_new(&tree, 8), *b = t_insert_new(&tree, 16), *c, *a2;
	void **slot;

	cr_assert(rt_entry_compact(tree.rnode), "the top is a compact node");
	urcu_memb_read_lock();
	slot = radix_tree_lookup_slot(&tree, 8);
	cr_assert_eq(rcu_dereference(*slot), a);
	c = t_insert_new(&tree, 1UL << 40);
	cr_assert_null(rcu_dereference(*slot), "a slot of the old top reads NULL once it moved");
	cr_assert_eq(radix_tree_lookup(&tree, 8), a);
	cr_assert_neq(radix_tree_lookup_slot(&tree, 8), slot);
	urcu_memb_read_unlock();
	t_verify(&tree);

	/* Under one lock hold: a slot found, the top outgrown, then the slot
	 * replaced through. */
	t_delete(&tree, 1UL << 40, c);
	t_delete(&tree, 16, b);
	t_delete(&tree, 8, a);
	a = t_insert_new(&tree, 8);
	a2 = titem_new(8);
	radix_tree_lock(&tree);
	slot = radix_tree_lookup_slot(&tree, 8);
	c = titem_new(1UL << 40);
	cr_assert_eq(radix_tree_insert(&tree, 1UL << 40, c), 0);
	radix_tree_replace_slot(&tree, slot, a2);
	radix_tree_unlock(&tree);
	cr_assert_eq(radix_tree_lookup(&tree, 8), a2, "replace_slot forwarded to the new top");
	titem_free(a);
	t_verify(&tree);
	t_delete(&tree, 8, a2);
	t_delete(&tree, 1UL << 40, c);
	t_finish(&tree);
}

/*
 * Small trees of sparse keys stay small: 16 uniform random 64-bit keys
 * cost at most 24 bytes of nodes per key (radix_tree_memory()), in each of
 * 2000 trees built in random order.  (A compact top takes the items of
 * the top it outgrows, so the keys below 2^60 that came first do not keep
 * a node of their own.)  The 8-slot build's full leaves are larger than
 * that: the bound is the 64-slot build's.
 */
Test(basic, sixteen_random_keys_cost_at_most_24_bytes_each)
{
	struct t_rng rng;
	unsigned long keys[16], worst = 0;
	struct titem *items[16];
	struct radix_tree_memstat mem;

	t_rng_init(&rng, "sixteen random keys");
	for (int t = 0; t < 2000; t++) {
		for (int i = 0; i < 16; i++) {
			keys[i] = t_rand(&rng);
			items[i] = radix_tree_lookup(&tree, keys[i]) ? NULL
								     : t_insert_new(&tree, keys[i]);
		}
		cr_assert_eq(radix_tree_memory(&tree, &mem), 0);
		if (mem.node_bytes > worst)
			worst = mem.node_bytes;
		if (RT_MAP_SIZE == 64)
			cr_assert_leq(mem.node_bytes, 16 * 24, "tree %d: %lu bytes of nodes", t,
				      mem.node_bytes);
		t_verify(&tree);
		for (int i = 0; i < 16; i++)
			if (items[i])
				t_delete(&tree, keys[i], items[i]);
	}
	cr_log_info("worst of 2000 trees: %lu bytes, %.1f per key", worst, worst / 16.0);
	t_finish(&tree);
}

/*
 * A top node at the highest level whose one entry is a child not covering
 * key 0: ULONG_MAX - 4 and 2^32 + 4 inserted, then ULONG_MAX - 4 deleted
 * (a node of items keeps its level), then 2^32 + 5 to 2^32 + 0x103, whose
 * overflows move the items into that child.  @items[i] is key 2^32 + 4 + i;
 * returns their number.
 */
#define TOP_ONE_CHILD_BASE (1UL << 32)
#define TOP_ONE_CHILD_ITEMS 0x100U

static unsigned int top_of_one_child(struct titem **items)
{
	struct titem *far = t_insert_new(&tree, ULONG_MAX - 4);
	unsigned int n = 0;

	items[n++] = t_insert_new(&tree, TOP_ONE_CHILD_BASE + 4);
	t_delete(&tree, ULONG_MAX - 4, far);
	for (; n < TOP_ONE_CHILD_ITEMS; n++)
		items[n] = t_insert_new(&tree, TOP_ONE_CHILD_BASE + 4 + n);
	t_verify(&tree);
	cr_assert_eq(t_height(&tree), RT_MAX_LEVELS, "the top kept its level: height %u",
		     t_height(&tree));
	return n;
}

static void top_of_one_child_delete(struct titem **items, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		t_delete(&tree, TOP_ONE_CHILD_BASE + 4 + i, items[i]);
}

/*
 * Regression (found by the fuzzer, 8-slot build; the 64-slot build broke the
 * same way): a top compact node whose one entry was a child not covering key
 * 0 (top_of_one_child()); inserting 0 split the child's compressed path in
 * place, and the new node, which covers key 0, was left the top's only
 * entry: a tree higher than it needs to be.  The split in a top node now
 * lowers the tree, as a copy of the top does.
 */
Test(basic, split_in_a_top_node_of_one_child_lowers_the_tree)
{
	struct titem *items[TOP_ONE_CHILD_ITEMS], *zero;
	unsigned int n = top_of_one_child(items);

	zero = t_insert_new(&tree, 0);
	t_verify(&tree);
	cr_assert_eq(t_height(&tree), rt_level_for(TOP_ONE_CHILD_BASE + 4 + n - 1) + 1U,
		     "height %u after the split", t_height(&tree));
	t_delete(&tree, 0, zero);
	top_of_one_child_delete(items, n);
	t_finish(&tree);
}

/*
 * Regression (found by the fuzzer, 8-slot build): the same top node of one
 * child not covering key 0, and a key whose path parts from that child's
 * one level below the top.  The split leaves the top holding the new node
 * alone, which covers key 0, and the shrink makes that node the top.  In
 * the 8-slot build a compact node of one child one level down is as large
 * as a full node (rt_wants_full()), so the split first copied the top into
 * a full node, which the shrink then retired at once: a node allocated for
 * nothing, and a "split to full" the tree's shape does not show.
 */
Test(basic, a_split_below_a_top_of_one_child_copies_nothing)
{
	const unsigned int top = RT_MAX_LEVELS - 1;
	const unsigned long key = 1UL << rt_shift(top - 1);  /* parts at level top - 1 */
	struct titem *items[TOP_ONE_CHILD_ITEMS], *k;
	unsigned long before[RT_TR_COUNT];
	struct rcuradix_stats st0, st1;
	unsigned int n = top_of_one_child(items);

	memcpy(before, rt_transitions, sizeof(before));
	cr_assert_eq(rcuradix_get_stats(&st0, sizeof(st0)), 0);
	k = t_insert_new(&tree, key);
	cr_assert_eq(rcuradix_get_stats(&st1, sizeof(st1)), 0);
	cr_assert_eq(rt_transitions[RT_TR_SPLIT] - before[RT_TR_SPLIT], 1);
	cr_assert_eq(rt_transitions[RT_TR_SPLIT_FULL] - before[RT_TR_SPLIT_FULL], 0,
		     "the split built a full copy of the top");
	cr_assert_eq(rt_transitions[RT_TR_SHRINK] - before[RT_TR_SHRINK], 1);
	cr_assert_eq(st1.nodes_allocated - st0.nodes_allocated, 1,
		     "the split allocated %lu nodes", st1.nodes_allocated - st0.nodes_allocated);
	cr_assert_eq(t_height(&tree), top, "height %u after the split", t_height(&tree));
	t_verify(&tree);
	t_delete(&tree, key, k);
	top_of_one_child_delete(items, n);
	t_finish(&tree);
}

/* The suffixes of one shape: @s distinct values below @span + 1, sorted. */
static void w8_shape(struct t_rng *rng, int shape, unsigned long span, uint64_t *sfx,
		     unsigned int s)
{
	unsigned long base = t_rand(rng) & span, step = 1;

	for (unsigned int i = 0; i < s; i++) {
		switch (shape) {
		case 0:  /* spread evenly: the guess is near */
			sfx[i] = t_rand(rng) & span;
			break;
		case 1:  /* all in the lowest 256th of the range */
			sfx[i] = t_rand(rng) & (span >> 8);
			break;
		case 2:  /* all in the highest */
			sfx[i] = span - (t_rand(rng) & (span >> 8));
			break;
		case 3:  /* one run of consecutive keys */
			sfx[i] = (base + i) & span;
			break;
		default: /* two clusters at the ends */
			sfx[i] = i % 2 ? span - (t_rand(rng) & 0xff) : t_rand(rng) & 0xff;
			break;
		}
		for (unsigned int j = 0; j < i; j++)
			if (sfx[j] == sfx[i]) {
				sfx[i] = (sfx[i] + step++) & span;
				j = UINT_MAX;  /* check the new value from the start */
			}
	}
	for (unsigned int i = 1; i < s; i++)
		for (unsigned int j = i; j > 0 && sfx[j - 1] > sfx[j]; j--) {
			uint64_t t = sfx[j];

			sfx[j] = sfx[j - 1];
			sfx[j - 1] = t;
		}
}

/*
 * Lookups in compact nodes of 8-byte suffixes start from a guessed
 * position and fall back to a binary search: the bound they find is the
 * lower bound, for every level, run length and key shape, and for keys
 * present, absent, at either end of the range and in between.
 */
Test(basic, guessed_search_of_8_byte_suffixes_finds_the_lower_bound)
{
	struct t_rng rng;
	uint64_t sfx[RT_C_MAX_ENTRIES];
	unsigned long checked = 0;

	t_rng_init(&rng, "guessed search");
	for (unsigned int level = 1; level < RT_MAX_LEVELS; level++) {
		unsigned long span = rt_level_maxindex(level);

		if (rt_sfx_width(level) != 8)
			continue;
		for (int shape = 0; shape < 5; shape++)
			for (unsigned int s = 1; s <= RT_C_MAX_ENTRIES; s++) {
				unsigned long keys[RT_C_MAX_ENTRIES * 3 + 4];
				unsigned int nk = 0;

				w8_shape(&rng, shape, span, sfx, s);
				for (unsigned int i = 0; i < s; i++) {
					keys[nk++] = sfx[i];
					keys[nk++] = (sfx[i] - 1) & span;
					keys[nk++] = (sfx[i] + 1) & span;
				}
				keys[nk++] = 0;
				keys[nk++] = span;
				keys[nk++] = t_rand(&rng) & span;
				keys[nk++] = t_rand(&rng) & (span >> 8);
				for (unsigned int k = 0; k < nk; k++) {
					unsigned int want = 0;

					while (want < s && sfx[want] < keys[k])
						want++;
					cr_assert_eq(rt_w8_lower_bound(sfx, s, keys[k], level), want,
						     "level %u shape %d run %u key %#lx", level, shape,
						     s, keys[k]);
					checked++;
				}
			}
	}
	cr_assert_gt(checked, 0, "some level has 8-byte suffixes");
	cr_log_info("%lu searches checked", checked);
}

/* C nodes above the leaves by what a lookup matches in them (4-byte and
 * narrower suffixes: wider ones are searched, not scanned). */
struct scan_kinds {
	unsigned long items_only, children_only, mostly_children, mostly_items;
};

static void count_scan_kinds(const void *entry, struct scan_kinds *k)
{
	if (!rt_is_internal(entry))
		return;
	if (!rt_entry_compact(entry)) {
		struct rt_node *node = rt_entry_node(entry);

		for (unsigned int i = 0; i < RT_MAP_SIZE; i++)
			count_scan_kinds(rt_entry_rcu(node->slots[i]), k);
		return;
	}
	struct rt_cnode *node = rt_entry_cnode(entry);
	unsigned int n = rt_cnode_next_rcu(node), c = node->children;

	if (node->level && rt_sfx_width(node->level) < 8) {
		if (!c)
			k->items_only++;
		else if (c == n)
			k->children_only++;
		else if (2 * c >= n)
			k->mostly_children++;
		else
			k->mostly_items++;
	}
	for (unsigned int i = 0; i < n; i++)
		count_scan_kinds(rt_entry_rcu(rt_cnode_slots(node)[i]), k);
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * A lookup in a C node above the leaves matches by what the node was built
 * with: items only (the exact suffix), children only (the digit), mostly
 * children (both in one pass), mostly items (the exact suffix, then the
 * digit).  Batches of runs of 64 keys at random bases below 2^40 and of
 * uniform 32-bit keys, each inserted in random order, build nodes of all
 * four kinds, some only for a while: batches are added until each kind has
 * been there after one (a few suffice; at most LM_MAX_BATCHES).  After each
 * batch that shows a kind not seen before, every key is found, and keys
 * with one of their 41 low bits flipped (the same node's digits, another
 * suffix or another path below) are found exactly when present.
 */
enum { LM_BATCH = 4096, LM_MAX_BATCHES = 32, LM_PROBED = 4096 };
static unsigned long lm_keys[LM_BATCH * LM_MAX_BATCHES], lm_sorted[LM_BATCH * LM_MAX_BATCHES];
static struct titem *lm_items[LM_BATCH * LM_MAX_BATCHES];

/* The kinds (bit 0: items only, 1: children only, 2: mostly children,
 * 3: mostly items) the tree's nodes have now. */
static unsigned int scan_kinds_now(void)
{
	struct scan_kinds k = { 0 };

	urcu_memb_read_lock();
	count_scan_kinds(rcu_dereference(tree.rnode), &k);
	urcu_memb_read_unlock();
	cr_log_info("items only %lu, children only %lu, mostly children %lu, mostly items %lu",
		    k.items_only, k.children_only, k.mostly_children, k.mostly_items);
	return (k.items_only ? 1U : 0) | (k.children_only ? 2U : 0) |
	       (k.mostly_children ? 4U : 0) | (k.mostly_items ? 8U : 0);
}

static void add_keys_shuffled(struct t_rng *rng, unsigned long *keys, struct titem **items,
			      unsigned int n, bool runs)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keys[i] = runs && i % 64 ? keys[i - 1] + 1
					 : t_rand_below(rng, runs ? 1UL << 40 : 1UL << 32);
	for (i = n - 1; i > 0; i--) {
		unsigned int j = (unsigned int)t_rand_below(rng, i + 1);
		unsigned long t = keys[i];

		keys[i] = keys[j];
		keys[j] = t;
	}
	for (i = 0; i < n; i++) {
		urcu_memb_read_lock();
		items[i] = radix_tree_lookup(&tree, keys[i]);  /* runs may overlap */
		urcu_memb_read_unlock();
		items[i] = items[i] ? NULL : t_insert_new(&tree, keys[i]);
	}
}

/* The first @n keys are found, and probes next to them exactly when present. */
static void check_lookups_near(struct t_rng *rng, unsigned int n)
{
	unsigned int i, b;

	memcpy(lm_sorted, lm_keys, n * sizeof(lm_keys[0]));
	qsort(lm_sorted, n, sizeof(lm_sorted[0]), cmp_ulong);
	urcu_memb_read_lock();
	for (i = 0; i < n; i++)
		cr_assert(titem_ok(radix_tree_lookup(&tree, lm_keys[i]), lm_keys[i]), "key %#lx",
			  lm_keys[i]);
	for (i = 0; i < LM_PROBED; i++) {
		unsigned long key = lm_keys[t_rand_below(rng, n)];

		for (b = 0; b <= 40; b++) {
			unsigned long k = key ^ (1UL << b);
			bool present =
				bsearch(&k, lm_sorted, n, sizeof(lm_sorted[0]), cmp_ulong) != NULL;
			void *p = radix_tree_lookup(&tree, k);

			cr_assert(present ? titem_ok(p, k) : p == NULL, "key %#lx", k);
		}
	}
	urcu_memb_read_unlock();
}

Test(basic, lookups_match_by_what_a_node_was_built_with)
{
	struct t_rng rng;
	unsigned int i, n = 0, seen = 0, now;

	t_rng_init(&rng, "lookups_match_by_what_a_node_was_built_with");
	do {
		add_keys_shuffled(&rng, lm_keys + n, lm_items + n, LM_BATCH,
				  n % (2 * LM_BATCH) == 0);
		n += LM_BATCH;
		t_verify(&tree);
		now = scan_kinds_now();
		if (now & ~seen)
			check_lookups_near(&rng, n);
		seen |= now;
	} while (seen != 0xf && n < LM_BATCH * LM_MAX_BATCHES);
	cr_assert_eq(seen, 0xf, "%u keys built nodes of kinds %#x only", n, seen);
	for (i = 0; i < n; i++)
		if (lm_items[i])
			t_delete(&tree, lm_keys[i], lm_items[i]);
	t_finish(&tree);
}
