/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * demo.c - rcuradix in one screen: two reader threads look keys up without
 * any lock while the main thread inserts and deletes, and items removed
 * from the tree are freed only after a grace period.
 *
 *   cc demo.c $(pkg-config --cflags --libs rcuradix liburcu-memb) -pthread
 */
#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>

#include <stdio.h>
#include <stdlib.h>

struct item {
	unsigned long key;
	struct rcu_head rcu;  /* for the deferred free */
};

static RADIX_TREE(tree, GFP_KERNEL);  /* default flavor: urcu-memb */
static volatile int done;

static void item_free(struct rcu_head *head)
{
	free(caa_container_of(head, struct item, rcu));
}

static void *reader(void *arg)
{
	unsigned long lookups = 0, hits = 0, bad = 0, key = (unsigned long)arg;

	urcu_memb_register_thread();  /* readers must be registered */
	while (!done) {
		struct item *it;

		key = key * 6364136223846793005UL + 1442695040888963407UL;
		urcu_memb_read_lock();
		it = radix_tree_lookup(&tree, key % 100000);
		if (it) {
			hits++;
			bad += it->key != key % 100000;  /* safe: freed only after unlock */
		}
		urcu_memb_read_unlock();
		lookups++;
	}
	urcu_memb_unregister_thread();
	printf("reader: %lu lookups, %lu hits, %lu wrong items\n", lookups, hits, bad);
	return (void *)bad;
}

int main(void)
{
	pthread_t readers[2];
	struct radix_tree_memstat mem;
	unsigned long i, inserted = 0, deleted = 0;
	void *bad0, *bad1;

	urcu_memb_register_thread();  /* writers call call_rcu: registered too */
	for (i = 0; i < 2; i++)
		pthread_create(&readers[i], NULL, reader, (void *)(i + 1));
	for (i = 0; i < 1050000; i++) {
		unsigned long key = (i * 7919) % 100000;
		struct item *it = radix_tree_delete(&tree, key);

		if (it) {
			deleted++;
			urcu_memb_call_rcu(&it->rcu, item_free);  /* readers may hold it */
			continue;
		}
		it = malloc(sizeof(*it));
		it->key = key;
		if (radix_tree_insert(&tree, key, it) == 0)
			inserted++;
		else
			free(it);
	}
	radix_tree_memory(&tree, &mem);
	done = 1;
	pthread_join(readers[0], &bad0);
	pthread_join(readers[1], &bad1);
	printf("writer: %lu inserts, %lu deletes; tree now uses %lu nodes (%lu bytes)\n",
	       inserted, deleted, mem.nodes, mem.bytes);
	/* Empty the tree, freeing what is left, then wait for the callbacks. */
	for (i = 0; i < 100000; i++) {
		struct item *it = radix_tree_delete(&tree, i);

		if (it)
			urcu_memb_call_rcu(&it->rcu, item_free);
	}
	radix_tree_destroy(&tree);
	urcu_memb_barrier();
	urcu_memb_unregister_thread();
	printf("rcuradix %s demo: %s\n", rcuradix_version(), bad0 || bad1 ? "FAILED" : "ok");
	return bad0 || bad1;
}
