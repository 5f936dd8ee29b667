/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node.c - nodes from the backend and back: counting, fault injection,
 * deferred freeing with call_rcu, the fork handlers, radix_tree_memory().
 *
 * Unload and exit: callbacks queued with call_rcu point into this
 * library's code, so the library must not be unmapped while any is
 * pending.  It is linked -z nodelete: dlclose() leaves it mapped, and
 * nothing has to wait for the callbacks, neither at dlclose() nor at exit.
 * (A barrier at exit would wait for call_rcu worker threads that a forked
 * child does not have, forever.)
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "node.h"

/* ---- fault injection --------------------------------------------------- */

static unsigned long rt_fault_countdown;  /* 0: disarmed */
static int rt_fault_always;

void rt_fault_fail_nth(unsigned long n)
{
	uatomic_set(&rt_fault_countdown, n);
}

void rt_fault_fail_all(bool on)
{
	uatomic_set(&rt_fault_always, on ? 1 : 0);
}

/* Should this allocation fail?  Counts down atomically so that exactly one
 * allocation (the n-th) fails even with several threads. */
static bool rt_fault_hit(void)
{
	unsigned long left;

	if (caa_unlikely(uatomic_read(&rt_fault_always)))
		return true;
	left = uatomic_read(&rt_fault_countdown);
	while (caa_unlikely(left)) {
		unsigned long seen = uatomic_cmpxchg(&rt_fault_countdown, left, left - 1);

		if (seen == left)
			return left == 1;
		left = seen;
	}
	return false;
}

/* How many of the next @n allocations may go ahead before an injected
 * failure. */
static unsigned int rt_fault_allow(unsigned int n)
{
	unsigned int ok;

	for (ok = 0; ok < n && !rt_fault_hit(); ok++)
		;
	return ok;
}

/* ---- counted allocation ------------------------------------------------ */

unsigned int rt_node_alloc(size_t size, void **nodes, unsigned int n)
{
	unsigned int want = rt_fault_allow(n);
	unsigned int got = want ? rt_backend_get(size, nodes, want) : 0;

	rt_stat_add(RT_STAT_ALLOCATED, got);
	rt_stat_add(RT_STAT_ALLOCATED_BYTES, got * size);
	if (got < n)
		rt_stat_add(RT_STAT_FAILURES, 1);
	return got;
}

void rt_node_free(size_t size, void **nodes, unsigned int n)
{
	if (!n)
		return;
	rt_backend_put(size, nodes, n);
	rt_stat_add(RT_STAT_FREED, n);
	rt_stat_add(RT_STAT_FREED_BYTES, n * size);
}

/* ---- deferred free ----------------------------------------------------- */

static void rt_free_rcu(void *node, size_t size)
{
	rt_node_free(size, &node, 1);  /* counts it freed... */
	/* ...before it stops counting as pending: a node being freed is never
	 * counted as neither (see rcuradix_get_stats()). */
	rt_stat_add(RT_STAT_UNQUEUED_BYTES, size);
	rt_stat_add(RT_STAT_UNQUEUED, 1);
}

static void rt_node_free_rcu(struct rcu_head *head)
{
	rt_free_rcu(caa_container_of(head, struct rt_node, rcu), sizeof(struct rt_node));
}

static void rt_cnode_free_rcu(struct rcu_head *head)
{
	struct rt_cnode *node = caa_container_of(head, struct rt_cnode, rcu);

	rt_free_rcu(node, rt_cnode_bytes(node));
}

void rt_node_free_deferred(const struct radix_tree_root *root, void *entry)
{
	/* Counted before queueing, so that the callback's count never
	 * overtakes it. */
	rt_stat_add(RT_STAT_QUEUED, 1);
	rt_stat_add(RT_STAT_QUEUED_BYTES, rt_entry_bytes(entry));
	/* The node is unreachable for new readers; readers that already hold
	 * it finish before the callback frees it, one grace period later. */
	if (rt_entry_compact(entry))
		root->flavor->update_call_rcu(&rt_entry_cnode(entry)->rcu, rt_cnode_free_rcu);
	else
		root->flavor->update_call_rcu(&rt_entry_node(entry)->rcu, rt_node_free_rcu);
}

/* ---- the retired list -------------------------------------------------- */

static struct rt_retired *rt_retired_of(void *entry)
{
	return rt_entry_compact(entry) ? &rt_entry_cnode(entry)->retired
				       : &rt_entry_node(entry)->retired;
}

void rt_node_unlink(struct radix_tree_root *root, void *entry, unsigned long base)
{
	struct rt_retired *r = rt_retired_of(entry);

	rt_assert_locked(root);
	/* No reader uses the rcu_head's space: it holds the link until
	 * call_rcu takes it over. */
	r->next = root->retired;
	r->base = base;
	root->retired = entry;
	root->nr_nodes--;
}

void rt_cnode_retire(struct radix_tree_root *root, void *entry, unsigned long base)
{
	struct rt_cnode *node = rt_entry_cnode(entry);
	void **slots = rt_cnode_slots(node);
	unsigned int i;

	/* Dead before any item slot empties: a reader that loads NULL from
	 * this node, then "dead" (acquire), knows that NULL may mean "moved"
	 * and looks again from the root instead of reporting a miss. */
	__atomic_store_n(&node->dead, 1, __ATOMIC_RELEASE);
	cmm_smp_wmb();  /* orders "dead" before the NULL stores below */
	if (node->level == 0 || !node->children) {
		/* Items only (and tombstones, NULL already): a leaf, or a node
		 * built without children (appends add items only).  Every slot
		 * emptied, none loaded first. */
		for (i = 0; i < node->next; i++)
			CMM_STORE_SHARED(slots[i], NULL);
		rt_node_unlink(root, entry, base);
		return;
	}
	for (i = 0; i < node->next; i++) {
		void *e = rt_entry_locked(root, slots[i]);

		/* Children stay: the copy shares them, and readers still in
		 * this node descend into live subtrees through them. */
		if (e && !rt_is_internal(e))
			CMM_STORE_SHARED(slots[i], NULL);
	}
	rt_node_unlink(root, entry, base);
}

void rt_retired_flush(struct radix_tree_root *root)
{
	void *entry = root->retired;

	rt_assert_locked(root);
	root->retired = NULL;
	while (entry) {
		void *next = rt_retired_of(entry)->next;  /* before call_rcu reuses it */

		rt_node_free_deferred(root, entry);
		entry = next;
	}
}

void *rt_retired_find(const struct radix_tree_root *root, void **slot, unsigned long *base)
{
	void *entry;

	for (entry = root->retired; entry; entry = rt_retired_of(entry)->next) {
		char *start = (char *)rt_entry_node(entry);

		if ((char *)slot >= start && (char *)slot < start + rt_entry_bytes(entry)) {
			*base = rt_retired_of(entry)->base;
			return entry;
		}
	}
	return NULL;
}

RCURADIX_API void radix_tree_unlock(struct radix_tree_root *root)
{
	if (!root)
		return;
	if (rt_lock_held(root) && root->depth == 1 && root->retired)
		rt_retired_flush(root);
	rt_unlock(root, "radix_tree_unlock");
}

/* ---- fork -------------------------------------------------------------- */

/*
 * A child process inherits only the forking thread: a library lock that
 * another thread held at fork() would stay locked forever in the child.
 * Hold the library's own locks across fork() and release them on both
 * sides, in one order: the backend's, then the counters' (a backend counts
 * while holding its lock).  Tree locks are the application's, like any
 * mutex of its own; liburcu's own fork rules apply to call_rcu (see
 * rcuradix(7)).
 */
static void rt_prefork(void)
{
	rt_backend_prefork();
	rt_stats_prefork();
}

static void rt_postfork_parent(void)
{
	rt_stats_postfork();
	rt_backend_postfork();
}

/* The child also forgets the counter records of threads it does not have. */
static void rt_postfork_child(void)
{
	rt_stats_postfork_child();
	rt_backend_postfork();
}

__attribute__((constructor)) static void rt_node_fork_handlers(void)
{
	rt_pthread_check(pthread_atfork(rt_prefork, rt_postfork_parent, rt_postfork_child));
}

/* ---- memory of one tree ------------------------------------------------ */

struct rt_memcount {
	unsigned long nodes;
	unsigned long bytes;
	unsigned long per_class[RT_C_MAX_BYTES / RT_NODE_ALIGN + 1];
};

static void rt_memory_walk(const struct radix_tree_root *root, void *entry,
			   struct rt_memcount *m)
{
	size_t bytes = rt_entry_bytes(entry);
	unsigned int i, n;
	void **slots = rt_entry_slots(entry, &n);

	m->nodes++;
	m->bytes += bytes;
	m->per_class[bytes / RT_NODE_ALIGN]++;
	for (i = 0; i < n; i++) {
		void *e = rt_entry_locked(root, slots[i]);

		if (e && rt_is_internal(e))
			rt_memory_walk(root, e, m);
	}
}

RCURADIX_API int radix_tree_memory(const struct radix_tree_root *root,
				   struct radix_tree_memstat *mem)
{
	struct radix_tree_root *rw = (struct radix_tree_root *)root;
	struct rt_memcount m = { 0, 0, { 0 } };
	unsigned int c;
	void *top;
	int err;

	if (!mem)
		return -EINVAL;
	err = rt_writer_enter(rw, __func__);  /* the tree's shape is the writer's */
	if (err)
		return err;
	top = rt_entry_locked(root, root->rnode);
	if (top && !rt_root_item(top))  /* the root item is no node */
		rt_memory_walk(root, top, &m);
	rt_writer_exit(rw);
	mem->nodes = m.nodes;
	mem->node_bytes = m.bytes;
	mem->bytes = m.bytes;
	for (c = 1; c < sizeof(m.per_class) / sizeof(m.per_class[0]); c++)
		if (m.per_class[c])
			mem->bytes += rt_backend_overhead(c * RT_NODE_ALIGN, m.per_class[c]);
	return 0;
}
