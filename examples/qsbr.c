/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * qsbr.c - an rcuradix tree whose readers use liburcu's QSBR flavor, the
 * fastest one: rcu_read_lock() costs nothing, in exchange every registered
 * thread must regularly say "I hold no RCU pointer now"
 * (urcu_qsbr_quiescent_state()) and must go offline before it blocks.
 *
 *   the main thread  inserts and deletes items (some of them far away, so
 *                    the tree grows and shrinks in height), frees deleted
 *                    items with urcu_qsbr_call_rcu(), reports a quiescent
 *                    state every 256 operations and hands out work;
 *   reader threads   wait for work offline, then look keys up and walk the
 *                    whole tree, reporting a quiescent state every 1024 items
 *                    with radix_tree_iter_resume().
 *
 * Checks: every item a reader sees carries its key and is live, walks come
 * in ascending key order, and every "stable" key (present for the whole run)
 * is seen exactly once per walk; at the end the library holds no node.
 *
 *   usage: qsbr [writer operations]   (default 200000)
 *   build: cc qsbr.c $(pkg-config --cflags --libs rcuradix liburcu-qsbr)
 */
#include <rcuradix/radix-tree.h>
#include <urcu/urcu-qsbr.h>  /* also declares urcu_qsbr_flavor */

#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NR_READERS 2
#define NR_KEYS 8192UL
#define STABLE_EVERY 4UL          /* keys that are multiples of 4 never change */
#define NR_STABLE (NR_KEYS / STABLE_EVERY)
#define FAR_BASE (1UL << 40)      /* far keys make the tree grow and shrink */
#define ITEM_LIVE 0x4c495645UL
#define ITEM_DEAD 0x44454144UL

struct item {
	unsigned long key;
	unsigned long magic;
	struct rcu_head rcu;
};

static struct radix_tree_root tree;
static sem_t work[NR_READERS];
/* Shared by the threads: atomics, so that the stop flag is seen by the
 * readers and concurrent increments are never lost. */
static atomic_int stop;
static atomic_ulong errors, walks, reader_walks[NR_READERS];

static void error(const char *what, unsigned long key)
{
	if (atomic_fetch_add(&errors, 1) < 10)
		fprintf(stderr, "qsbr: %s (key %#lx)\n", what, key);
}

static unsigned long next_random(unsigned long *state)
{
	*state = *state * 6364136223846793005UL + 1442695040888963407UL;
	return *state >> 17;
}

static struct item *item_new(unsigned long key)
{
	struct item *it = malloc(sizeof(*it));

	if (!it) {
		perror("malloc");
		exit(1);
	}
	it->key = key;
	it->magic = ITEM_LIVE;
	return it;
}

static void item_free_cb(struct rcu_head *head)
{
	struct item *it = caa_container_of(head, struct item, rcu);

	it->magic = ITEM_DEAD;
	free(it);
}

static void check_item(const struct item *it, unsigned long key)
{
	if (it->key != key || it->magic != ITEM_LIVE)
		error("reader saw a wrong or freed item", key);
}

static void lookups(unsigned long *state)
{
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		unsigned long key = next_random(state) % NR_KEYS;
		struct item *it;

		/* No-ops with QSBR, but they mark what the pointer may not
		 * outlive, and DEBUG_RCU builds of liburcu check them. */
		urcu_qsbr_read_lock();
		it = radix_tree_lookup(&tree, key);
		if (it)
			check_item(it, key);
		else if (key % STABLE_EVERY == 0)
			error("stable key missing", key);
		urcu_qsbr_read_unlock();
	}
}

/* Walk the whole tree, letting grace periods end every 1024 items. */
static void walk(void)
{
	struct radix_tree_iter iter;
	unsigned long seen = 0, stable = 0, last = 0;
	void **slot;

	urcu_qsbr_read_lock();
	radix_tree_for_each_slot(slot, &tree, &iter, 0) {
		struct item *it = rcu_dereference(*slot);

		/* NULL: deleted, or moved by a writer that copied its node,
		 * since the chunk was found; look again (guarantee C). */
		if (!it)
			it = radix_tree_lookup(&tree, iter.index);
		if (!it)
			continue;
		if (seen && iter.index <= last)
			error("walk went backwards", iter.index);
		last = iter.index;
		check_item(it, iter.index);
		stable += iter.index < NR_KEYS && iter.index % STABLE_EVERY == 0;
		if (++seen % 1024 == 0) {
			/* Forget the current node before the quiescent state:
			 * the next step re-descends from the following key. */
			slot = radix_tree_iter_resume(slot, &iter);
			urcu_qsbr_read_unlock();
			urcu_qsbr_quiescent_state();
			urcu_qsbr_read_lock();
		}
	}
	urcu_qsbr_read_unlock();
	if (stable != NR_STABLE)
		error("a walk did not see every stable key exactly once", stable);
}

/* Has every reader walked the tree at least twice? */
static bool readers_ran(void)
{
	unsigned int r;

	for (r = 0; r < NR_READERS; r++)
		if (atomic_load(&reader_walks[r]) < 2)
			return false;
	return true;
}

static void *reader(void *arg)
{
	unsigned int me = (unsigned int)(uintptr_t)arg;
	unsigned long state = me + 1;

	urcu_qsbr_register_thread();  /* registered QSBR threads are online */
	for (;;) {
		/* Offline while blocked: an online thread that sleeps would
		 * hold back every grace period, hence every deferred free. */
		urcu_qsbr_thread_offline();
		sem_wait(&work[me]);
		urcu_qsbr_thread_online();
		if (atomic_load(&stop))
			break;
		lookups(&state);
		urcu_qsbr_quiescent_state();  /* no pointer from above is kept */
		walk();
		atomic_fetch_add(&reader_walks[me], 1);
		atomic_fetch_add(&walks, 1);
		urcu_qsbr_quiescent_state();
	}
	urcu_qsbr_unregister_thread();
	return NULL;
}

/* Insert @key if absent, else delete it and free it after a grace period. */
static void toggle(unsigned long key)
{
	struct item *it = radix_tree_delete(&tree, key);

	if (it) {
		if (it->key != key)
			error("delete returned another key's item", key);
		urcu_qsbr_call_rcu(&it->rcu, item_free_cb);
		return;
	}
	it = item_new(key);
	if (radix_tree_insert(&tree, key, it) != 0) {
		error("insert failed", key);
		free(it);
	}
}

static int finish(void)
{
	struct radix_tree_iter iter;
	struct rcuradix_stats st;
	void **slot;

	/* Empty the tree under the lock, freeing items as we go. */
	radix_tree_lock(&tree);
	radix_tree_for_each_slot(slot, &tree, &iter, 0) {
		struct item *it = radix_tree_iter_delete(&tree, &iter, slot);

		if (it)
			urcu_qsbr_call_rcu(&it->rcu, item_free_cb);
	}
	radix_tree_unlock(&tree);
	if (!radix_tree_empty(&tree))
		error("tree not empty after deleting every item", 0);
	radix_tree_destroy(&tree);
	urcu_qsbr_barrier();           /* every item and node callback has run */
	rcuradix_thread_cache_flush();
	rcuradix_get_stats(&st, sizeof(st));
	if (st.nodes_live || st.nodes_pending || st.nodes_reserved || st.backing_bytes)
		error("nodes left in the library", st.nodes_live);
	return atomic_load(&errors) != 0;
}

int main(int argc, char **argv)
{
	unsigned long ops = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	unsigned long state = 7, i;
	pthread_t readers[NR_READERS];
	unsigned int r;
	int failed;

	radix_tree_init_flavor(&tree, GFP_KERNEL, &urcu_qsbr_flavor);
	urcu_qsbr_register_thread();  /* the writer calls call_rcu: online */
	for (i = 0; i < NR_KEYS; i += STABLE_EVERY)
		toggle(i);
	for (r = 0; r < NR_READERS; r++) {
		sem_init(&work[r], 0, 0);
		pthread_create(&readers[r], NULL, reader, (void *)(uintptr_t)r);
	}
	/* At least the requested operations, and until the readers have
	 * really run alongside (threads can start late on a busy machine). */
	for (i = 0; i < ops || !readers_ran(); i++) {
		unsigned long key = next_random(&state) % NR_KEYS;

		if (key % 16 == 1)
			key = FAR_BASE + key;  /* beyond the tree's height: growth */
		else if (key % STABLE_EVERY == 0)
			key++;                 /* never touch a stable key */
		toggle(key);
		if (i % 256 == 0)
			urcu_qsbr_quiescent_state();  /* let grace periods end */
		if (i % 2048 == 0)
			for (r = 0; r < NR_READERS; r++)
				sem_post(&work[r]);
	}
	atomic_store(&stop, 1);
	for (r = 0; r < NR_READERS; r++)
		sem_post(&work[r]);
	urcu_qsbr_thread_offline();  /* about to block in pthread_join */
	for (r = 0; r < NR_READERS; r++)
		pthread_join(readers[r], NULL);
	urcu_qsbr_thread_online();
	if (radix_tree_verify(&tree) != 0)
		error("radix_tree_verify failed", 0);
	failed = finish();
	urcu_qsbr_unregister_thread();
	printf("qsbr: %lu writer operations, %lu walks: %s\n", i, atomic_load(&walks),
	       failed ? "FAILED" : "ok");
	return failed;
}
