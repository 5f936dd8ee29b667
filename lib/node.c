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

unsigned int rt_node_alloc(struct rt_node **nodes, unsigned int n)
{
	unsigned int want = rt_fault_allow(n);
	unsigned int got = want ? rt_backend_get(RT_NODE_SIZE, (void **)nodes, want) : 0;

	rt_stat_add(RT_STAT_ALLOCATED, got);
	if (got < n)
		rt_stat_add(RT_STAT_FAILURES, 1);
	return got;
}

void rt_node_free(struct rt_node **nodes, unsigned int n)
{
	if (!n)
		return;
	rt_backend_put(RT_NODE_SIZE, (void **)nodes, n);
	rt_stat_add(RT_STAT_FREED, n);
}

void rt_node_init(struct rt_node *node)
{
	memset(node, 0, sizeof(*node));
}

/* ---- deferred free ----------------------------------------------------- */

static void rt_node_free_rcu(struct rcu_head *head)
{
	struct rt_node *node = caa_container_of(head, struct rt_node, rcu);

	rt_node_free(&node, 1);  /* counts it freed... */
	/* ...before it stops counting as pending: a node being freed is never
	 * counted as neither (see rcuradix_get_stats()). */
	rt_stat_add(RT_STAT_UNQUEUED, 1);
}

void rt_node_free_deferred(const struct radix_tree_root *root, struct rt_node *node)
{
	/* Counted before queueing, so that the callback's count never
	 * overtakes it. */
	rt_stat_add(RT_STAT_QUEUED, 1);
	/* The node is unreachable for new readers; readers that already hold
	 * it finish before the callback frees it, one grace period later. */
	root->flavor->update_call_rcu(&node->rcu, rt_node_free_rcu);
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

RCURADIX_API int radix_tree_memory(const struct radix_tree_root *root,
				   struct radix_tree_memstat *mem)
{
	struct radix_tree_root *rw = (struct radix_tree_root *)root;
	int err;

	if (!mem)
		return -EINVAL;
	err = rt_writer_enter(rw, __func__);  /* nr_nodes is a writer-side field */
	if (err)
		return err;
	mem->nodes = root->nr_nodes;
	rt_writer_exit(rw);
	mem->node_bytes = mem->nodes * RT_NODE_SIZE;
	mem->bytes = mem->node_bytes + rt_backend_overhead(RT_NODE_SIZE, mem->nodes);
	return 0;
}
