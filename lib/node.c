/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node.c - where nodes come from and where they go: the allocator backend,
 * deferred freeing with call_rcu, the library-wide counters, the record of
 * flavors in use (for the unload-time barrier) and fault injection.
 *
 * Backends (./configure --with-node-allocator=...):
 *   slab      (default) nodes carved from 64 KiB slabs obtained from
 *             jemalloc with mallocx()/sdallocx(): a 576-byte node costs 580
 *             bytes instead of the 640 of jemalloc's nearest size class.
 *             Per-thread caching is the preload reserve (preload.c), so the
 *             pool's lock is taken once per batch.
 *   jemalloc  one mallocx()/sdallocx() per node (640-byte class), through
 *             jemalloc's automatic thread cache.
 *   jemalloc-arena  one mallocx() per node from a private arena through an
 *             explicit per-thread tcache; frees bypass the tcache.
 *   libc      aligned_alloc()/free() per node, so that AddressSanitizer and
 *             valgrind see every node.
 * jemalloc stays private to the library: only mallocx/sdallocx/nallocx are
 * called, never malloc, and the .pc file keeps -ljemalloc out of Libs.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "internal.h"

#if defined(RT_ALLOC_SLAB) || defined(RT_ALLOC_JEMALLOC) || defined(RT_ALLOC_JEMALLOC_ARENA)
#include <jemalloc/jemalloc.h>
#endif

struct rt_counters rt_counters;

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

/* Should this backend allocation fail?  Counts down atomically so that
 * exactly one allocation (the n-th) fails even with several threads. */
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

/* ---- backends ---------------------------------------------------------- */

#if defined(RT_ALLOC_SLAB)

#define RT_SLAB_SIZE (64UL * 1024)
#define RT_SLAB_HEADER 64UL
#define RT_SLAB_NODES ((unsigned int)((RT_SLAB_SIZE - RT_SLAB_HEADER) / RT_NODE_SIZE))

/*
 * A slab: its header in the first line, then RT_SLAB_NODES nodes.  Slabs are
 * aligned to their size, so a node finds its slab by masking its address.
 */
struct rt_slab {
	struct rt_slab *prev, *next;  /* in rt_pool.partial. W, R: rt_pool.lock */
	struct rt_node *free;         /* returned nodes, linked through slots[0] */
	unsigned int nfree;           /* free nodes (list + never used) */
	unsigned int bump;            /* nodes [bump, RT_SLAB_NODES) never used */
};
_Static_assert(sizeof(struct rt_slab) <= RT_SLAB_HEADER, "slab header fits one line");

static struct {
	pthread_mutex_t lock;
	struct rt_slab *partial;  /* slabs with free nodes */
	struct rt_slab *spare;    /* one empty slab kept against churn */
} rt_pool = { PTHREAD_MUTEX_INITIALIZER, NULL, NULL };

static void rt_slab_link(struct rt_slab *slab)
{
	slab->prev = NULL;
	slab->next = rt_pool.partial;
	if (slab->next)
		slab->next->prev = slab;
	rt_pool.partial = slab;
}

static void rt_slab_unlink(struct rt_slab *slab)
{
	if (slab->prev)
		slab->prev->next = slab->next;
	else
		rt_pool.partial = slab->next;
	if (slab->next)
		slab->next->prev = slab->prev;
}

static struct rt_slab *rt_slab_new(void)
{
	struct rt_slab *slab = rt_pool.spare;

	if (slab) {
		rt_pool.spare = NULL;
		return slab;
	}
	slab = mallocx(RT_SLAB_SIZE, MALLOCX_ALIGN(RT_SLAB_SIZE));
	if (!slab)
		return NULL;
	slab->free = NULL;
	slab->nfree = RT_SLAB_NODES;
	slab->bump = 0;
	uatomic_add(&rt_counters.backing_bytes, RT_SLAB_SIZE);
	return slab;
}

/*
 * An empty slab is kept as the spare if there is none: without it, a pool
 * whose use hovers at a slab boundary would create and release 64 KiB per
 * node (400-700 ns instead of 40-80, bench/node-alloc-bench).  A second
 * empty slab goes back to jemalloc.  The spare is counted in backing_bytes
 * and returned by rt_backend_trim().
 */
static void rt_slab_release(struct rt_slab *slab)
{
	if (!rt_pool.spare) {
		slab->free = NULL;
		slab->nfree = RT_SLAB_NODES;
		slab->bump = 0;
		rt_pool.spare = slab;
		return;
	}
	uatomic_sub(&rt_counters.backing_bytes, RT_SLAB_SIZE);
	sdallocx(slab, RT_SLAB_SIZE, MALLOCX_ALIGN(RT_SLAB_SIZE));
}

static struct rt_node *rt_slab_take(struct rt_slab *slab)
{
	struct rt_node *node = slab->free;

	if (node)
		slab->free = node->slots[0];
	else
		node = (struct rt_node *)((char *)slab + RT_SLAB_HEADER +
					  slab->bump++ * RT_NODE_SIZE);
	if (--slab->nfree == 0)
		rt_slab_unlink(slab);
	return node;
}

static unsigned int rt_backend_get(struct rt_node **nodes, unsigned int n)
{
	unsigned int got = 0;

	pthread_mutex_lock(&rt_pool.lock);
	while (got < n && !rt_fault_hit()) {
		if (!rt_pool.partial) {
			struct rt_slab *slab = rt_slab_new();

			if (!slab)
				break;
			rt_slab_link(slab);
		}
		nodes[got++] = rt_slab_take(rt_pool.partial);
	}
	pthread_mutex_unlock(&rt_pool.lock);
	return got;
}

static void rt_backend_put(struct rt_node **nodes, unsigned int n)
{
	unsigned int i;

	pthread_mutex_lock(&rt_pool.lock);
	for (i = 0; i < n; i++) {
		struct rt_slab *slab = (struct rt_slab *)((uintptr_t)nodes[i] & ~(RT_SLAB_SIZE - 1));

		nodes[i]->slots[0] = slab->free;
		slab->free = nodes[i];
		if (slab->nfree++ == 0)
			rt_slab_link(slab);
		if (slab->nfree == RT_SLAB_NODES) {
			rt_slab_unlink(slab);
			rt_slab_release(slab);
		}
	}
	pthread_mutex_unlock(&rt_pool.lock);
}

void rt_backend_trim(void)
{
	struct rt_slab *slab;

	pthread_mutex_lock(&rt_pool.lock);
	slab = rt_pool.spare;
	rt_pool.spare = NULL;
	pthread_mutex_unlock(&rt_pool.lock);
	if (slab) {
		uatomic_sub(&rt_counters.backing_bytes, RT_SLAB_SIZE);  /* see rt_slab_new */
		sdallocx(slab, RT_SLAB_SIZE, MALLOCX_ALIGN(RT_SLAB_SIZE));
	}
}

unsigned long rt_backend_overhead_bytes(unsigned long nodes)
{
	/* The slab header and tail, spread over the slab's nodes. */
	return nodes * (RT_SLAB_SIZE - RT_SLAB_NODES * RT_NODE_SIZE) / RT_SLAB_NODES;
}

#else /* one allocator call per node: jemalloc, jemalloc-arena, libc */

#if defined(RT_ALLOC_JEMALLOC)

static struct rt_node *rt_one_alloc(void)
{
	return mallocx(RT_NODE_SIZE, MALLOCX_ALIGN(RT_NODE_ALIGN));
}

static void rt_one_free(struct rt_node *node)
{
	sdallocx(node, RT_NODE_SIZE, MALLOCX_ALIGN(RT_NODE_ALIGN));
}

static unsigned long rt_one_size(void)
{
	return nallocx(RT_NODE_SIZE, MALLOCX_ALIGN(RT_NODE_ALIGN));  /* the 640-byte class */
}

#elif defined(RT_ALLOC_JEMALLOC_ARENA)

/*
 * A private arena with an explicit per-thread tcache: allocations by a
 * writer go through its own tcache (MALLOCX_TCACHE), frees (mostly from the
 * call_rcu worker, which must not touch a writer's tcache) bypass caches.
 */
static unsigned int rt_arena;
static bool rt_arena_ok;
static pthread_once_t rt_arena_once = PTHREAD_ONCE_INIT;
static pthread_key_t rt_tcache_key;
static __thread unsigned int rt_tcache;  /* explicit tcache id + 1; 0: none yet */

#define RT_NODE_FREE_FLAGS (MALLOCX_ALIGN(RT_NODE_ALIGN) | MALLOCX_TCACHE_NONE)

static void rt_tcache_exit(void *arg)
{
	unsigned int tc = (unsigned int)(uintptr_t)arg - 1;

	mallctl("tcache.destroy", NULL, NULL, &tc, sizeof(tc));
}

static void rt_arena_create(void)
{
	size_t sz = sizeof(rt_arena);

	rt_arena_ok = mallctl("arenas.create", &rt_arena, &sz, NULL, 0) == 0 &&
		      pthread_key_create(&rt_tcache_key, rt_tcache_exit) == 0;
}

/* mallocx flags for this thread: the private arena through its tcache. */
static int rt_arena_flags(void)
{
	pthread_once(&rt_arena_once, rt_arena_create);
	if (!rt_arena_ok)
		return MALLOCX_ALIGN(RT_NODE_ALIGN);
	if (!rt_tcache) {
		unsigned int tc;
		size_t sz = sizeof(tc);

		if (mallctl("tcache.create", &tc, &sz, NULL, 0) != 0)
			return RT_NODE_FREE_FLAGS | MALLOCX_ARENA(rt_arena);
		rt_tcache = tc + 1;
		pthread_setspecific(rt_tcache_key, (void *)(uintptr_t)rt_tcache);
	}
	return MALLOCX_ALIGN(RT_NODE_ALIGN) | MALLOCX_ARENA(rt_arena) |
	       MALLOCX_TCACHE(rt_tcache - 1);
}

static struct rt_node *rt_one_alloc(void)
{
	return mallocx(RT_NODE_SIZE, rt_arena_flags());
}

static void rt_one_free(struct rt_node *node)
{
	sdallocx(node, RT_NODE_SIZE, RT_NODE_FREE_FLAGS);
}

static unsigned long rt_one_size(void)
{
	return nallocx(RT_NODE_SIZE, RT_NODE_FREE_FLAGS);
}

/* Unload: no later thread exit may call rt_tcache_exit. */
static void rt_backend_fini(void)
{
	if (rt_arena_ok)
		pthread_key_delete(rt_tcache_key);
	rt_arena_ok = false;
}
#define RT_HAVE_BACKEND_FINI 1

#elif defined(RT_ALLOC_LIBC)

static struct rt_node *rt_one_alloc(void)
{
	return aligned_alloc(RT_NODE_ALIGN, RT_NODE_SIZE);
}

static void rt_one_free(struct rt_node *node)
{
	free(node);
}

static unsigned long rt_one_size(void)
{
	return RT_NODE_SIZE;
}

#else
#error "define one of RT_ALLOC_SLAB, RT_ALLOC_JEMALLOC, RT_ALLOC_JEMALLOC_ARENA, RT_ALLOC_LIBC"
#endif

static unsigned int rt_backend_get(struct rt_node **nodes, unsigned int n)
{
	unsigned int got = 0;

	while (got < n && !rt_fault_hit()) {
		struct rt_node *node = rt_one_alloc();

		if (!node)
			break;
		/* Atomic: every writer thread and the call_rcu worker update it. */
		uatomic_add(&rt_counters.backing_bytes, rt_one_size());
		nodes[got++] = node;
	}
	return got;
}

static void rt_backend_put(struct rt_node **nodes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uatomic_sub(&rt_counters.backing_bytes, rt_one_size());  /* see rt_backend_get */
		rt_one_free(nodes[i]);
	}
}

unsigned long rt_backend_overhead_bytes(unsigned long nodes)
{
	return nodes * (rt_one_size() - RT_NODE_SIZE);
}

void rt_backend_trim(void)
{
	/* Nothing cached beyond the allocator's own caches. */
}

#endif

/* Counted entry points used by preload.c. */
unsigned int rt_backend_alloc(struct rt_node **nodes, unsigned int n)
{
	unsigned int got = rt_backend_get(nodes, n);

	uatomic_add(&rt_counters.allocated, got);
	if (got < n)
		uatomic_inc(&rt_counters.failures);
	return got;
}

void rt_backend_free(struct rt_node **nodes, unsigned int n)
{
	if (!n)
		return;
	rt_backend_put(nodes, n);
	uatomic_add(&rt_counters.freed, n);
}

/* ---- nodes for one operation ------------------------------------------- */

int rt_nodes_get(struct rt_node **nodes, unsigned int n, bool may_alloc)
{
	if (n == 0)
		return 0;
	if (rt_reserve_take(nodes, n, may_alloc) < n)
		return -ENOMEM;
	return 0;
}

void rt_node_init(struct rt_node *node)
{
	memset(node, 0, sizeof(*node));
}

/* ---- deferred free ----------------------------------------------------- */

/* Flavors that have queued callbacks: each needs a barrier before unload. */
#define RT_MAX_FLAVORS 8
static const struct rcu_flavor_struct *rt_flavors[RT_MAX_FLAVORS];
static pthread_mutex_t rt_flavors_lock = PTHREAD_MUTEX_INITIALIZER;

static void rt_flavor_note(const struct rcu_flavor_struct *flavor)
{
	unsigned int i;

	/* Fast path: already recorded (entries are written once, under the
	 * lock, and never change; a stale NULL only sends us to the lock). */
	for (i = 0; i < RT_MAX_FLAVORS; i++) {
		const struct rcu_flavor_struct *f = CMM_LOAD_SHARED(rt_flavors[i]);

		if (f == flavor)
			return;
		if (!f)
			break;
	}
	pthread_mutex_lock(&rt_flavors_lock);
	for (i = 0; i < RT_MAX_FLAVORS && rt_flavors[i] != flavor; i++) {
		if (!rt_flavors[i]) {
			CMM_STORE_SHARED(rt_flavors[i], flavor);
			break;
		}
	}
	pthread_mutex_unlock(&rt_flavors_lock);
}

static void rt_node_free_rcu(struct rcu_head *head)
{
	struct rt_node *node = caa_container_of(head, struct rt_node, rcu);

	rt_backend_free(&node, 1);  /* counts it freed... */
	/* ...before it stops counting as pending (pairs with the increment in
	 * rt_node_free_deferred(); atomic: the call_rcu worker and writers
	 * update it concurrently).  In this order a node being freed is never
	 * counted as neither, see rcuradix_get_stats(). */
	uatomic_dec(&rt_counters.pending);
}

void rt_node_free_deferred(const struct radix_tree_root *root, struct rt_node *node)
{
	unsigned long pending, peak;

	rt_flavor_note(root->flavor);
	/* Count before queueing, so the callback's decrement never sees the
	 * counter go below zero. */
	pending = uatomic_add_return(&rt_counters.pending, 1);
	peak = uatomic_read(&rt_counters.pending_peak);
	while (pending > peak) {
		unsigned long seen = uatomic_cmpxchg(&rt_counters.pending_peak, peak, pending);

		if (seen == peak)
			break;
		peak = seen;
	}
	/* The node is unreachable for new readers; readers that already hold
	 * it finish before the callback frees it, one grace period later. */
	root->flavor->update_call_rcu(&node->rcu, rt_node_free_rcu);
}

/* ---- fork -------------------------------------------------------------- */

/*
 * A child process inherits only the forking thread: a library lock that
 * another thread held at fork() would stay locked forever in the child.
 * Hold both of ours across fork() and release them on both sides.  (Tree
 * locks are the application's, like any mutex of its own; liburcu's own
 * fork rules still apply: see rcuradix(7).)  Lock order: flavors, then
 * pool, then jemalloc's own (its prepare handler was registered earlier,
 * so it runs later).
 */
static void rt_prefork(void)
{
	pthread_mutex_lock(&rt_flavors_lock);
#if defined(RT_ALLOC_SLAB)
	pthread_mutex_lock(&rt_pool.lock);
#endif
}

static void rt_postfork(void)
{
#if defined(RT_ALLOC_SLAB)
	pthread_mutex_unlock(&rt_pool.lock);
#endif
	pthread_mutex_unlock(&rt_flavors_lock);
}

__attribute__((constructor)) static void rt_node_init_fork(void)
{
	pthread_atfork(rt_prefork, rt_postfork, rt_postfork);
}

/* ---- stats ------------------------------------------------------------- */

RCURADIX_API int rcuradix_get_stats(struct rcuradix_stats *stats, size_t size)
{
	if (!stats || size < sizeof(*stats))
		return -EINVAL;
	memset(stats, 0, size);
	/* Pending first, then freed (the callback updates them in the other
	 * order): a node freed concurrently may count as both pending and
	 * freed, never as neither, so a snapshot never shows a leak that is
	 * not one. */
	stats->nodes_pending = uatomic_read(&rt_counters.pending);
	cmm_smp_rmb();  /* read pending before freed (see above) */
	stats->nodes_allocated = uatomic_read(&rt_counters.allocated);
	stats->nodes_freed = uatomic_read(&rt_counters.freed);
	stats->nodes_live = stats->nodes_allocated - stats->nodes_freed;
	stats->nodes_reserved = uatomic_read(&rt_counters.reserved);
	stats->nodes_pending_peak = uatomic_read(&rt_counters.pending_peak);
	stats->alloc_failures = uatomic_read(&rt_counters.failures);
	stats->node_size = RT_NODE_SIZE;
	stats->backing_bytes = uatomic_read(&rt_counters.backing_bytes);
	return 0;
}

RCURADIX_API int radix_tree_memory(const struct radix_tree_root *root,
				   struct radix_tree_memstat *mem)
{
	struct radix_tree_root *rw = (struct radix_tree_root *)root;

	if (!root || !mem)
		return -EINVAL;
	rt_lock(rw);  /* nr_nodes is a writer-side field */
	mem->nodes = root->nr_nodes;
	rt_unlock(rw);
	mem->node_bytes = mem->nodes * RT_NODE_SIZE;
	mem->bytes = mem->node_bytes + rt_backend_overhead_bytes(mem->nodes);
	return 0;
}

RCURADIX_API const char *rcuradix_version(void)
{
	return PACKAGE_VERSION;
}

/* ---- unload ------------------------------------------------------------ */

/*
 * Callbacks queued with call_rcu point into this library's code.  Before the
 * library can be unmapped (dlclose, or exit), wait for them with each used
 * flavor's barrier().  Only when some are pending: at exit a barrier waits
 * for a grace period, which an idle program should not pay for.
 */
__attribute__((destructor)) static void rt_node_fini(void)
{
	unsigned int i;

	rt_preload_fini();
#ifdef RT_HAVE_BACKEND_FINI
	rt_backend_fini();
#endif
	if (uatomic_read(&rt_counters.pending) == 0)
		return;
	for (i = 0; i < RT_MAX_FLAVORS && rt_flavors[i]; i++)
		rt_flavors[i]->barrier();
}
