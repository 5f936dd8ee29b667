/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * preload.c - the per-thread node reserve: the kernel's per-CPU preload
 * pool, made per-thread.
 *
 * Nodes come in sizes that are multiples of RT_NODE_ALIGN up to
 * RT_C_MAX_BYTES: the C node size classes (rt_class_round()) and the full
 * node's.  A GFP_KERNEL insert
 * allocates the nodes it needs from the backend, each of its exact size,
 * and falls back on the reserve if the allocator fails; a GFP_ATOMIC insert
 * only takes from the reserve.  One insertion needs at most
 * RT_INSERT_MAX_NODES nodes; radix_tree_preload() fills the reserve with one
 * node of every size and a second full node and largest node
 * (RT_PRELOAD_SIZE nodes), which serves any insert: a compact node may take
 * a larger block than it asked for and uses the room.
 *
 * The reserve is thread-local: userspace has no preemption to disable and a
 * thread that migrates keeps its reserve.  It survives between inserts and
 * goes back to the backend when the thread exits (a pthread_key
 * destructor), or on rcuradix_thread_cache_flush().
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "preload.h"

/* Node size classes: class c holds objects of c * RT_NODE_ALIGN bytes. */
#define RT_CLASSES (RT_C_MAX_BYTES / RT_NODE_ALIGN)
#define RT_F_CLASS (sizeof(struct rt_node) / RT_NODE_ALIGN)
/* The class of an IDA's bitmaps. */
#define RT_BITMAP_CLASS (sizeof(struct rt_ida_bitmap) / RT_NODE_ALIGN)
/* The most a reserve keeps of one class: two, and of full nodes what one
 * insert into an IDR tree may need and a bitmap (idr_preload(): in the
 * 8-slot build a bitmap is a full node's size). */
#define RT_CLASS_KEEP 2U
#define RT_F_KEEP (RT_IDR_MAX_NODES + 1U)
_Static_assert(RT_F_KEEP > RT_CLASS_KEEP, "full nodes: the largest keep");

_Static_assert(RT_F_CLASS <= RT_CLASSES, "a full node is one of the classes");

struct rt_reserve {
	unsigned int nr;          /* nodes held */
	int window;               /* open preload windows (debug checks) */
	bool keyed;               /* the exit destructor is armed */
	bool full;                /* every class holds what a preload wants */
	uint8_t count[RT_CLASSES + 1];
	/* Class c's nodes: nodes[c], but the full class's in full_nodes[] (the
	 * thread-local block stays small: a dlopen()ed library's must fit
	 * the loader's spare static TLS). */
	void *nodes[RT_CLASSES + 1][RT_CLASS_KEEP];
	void *full_nodes[RT_F_KEEP];
};

/* The array of class @c's nodes in @reserve. */
static void **rt_reserve_nodes(struct rt_reserve *reserve, unsigned int c)
{
	return c == RT_F_CLASS ? reserve->full_nodes : reserve->nodes[c];
}

/* Thread-local: read and written by its thread only (and its destructor). */
static __thread struct rt_reserve rt_reserve;
/* &rt_reserve once this thread has asked for it.  initial-exec: one load
 * from static TLS per call instead of __tls_get_addr() calls (the reserve
 * itself is too large to claim static TLS in a dlopen()ed library). */
static __thread struct rt_reserve *rt_reserve_mine __attribute__((tls_model("initial-exec")));

static struct rt_reserve *rt_reserve_self(void)
{
	struct rt_reserve *reserve = rt_reserve_mine;

	if (caa_unlikely(!reserve))
		reserve = rt_reserve_mine = &rt_reserve;
	return reserve;
}

static pthread_key_t rt_reserve_key;
static pthread_once_t rt_reserve_once = PTHREAD_ONCE_INIT;

/* Harmless misuse is reported once per process. */
static int rt_warned_nested, rt_warned_unbalanced, rt_warned_flush;

static size_t rt_class_bytes(unsigned int c)
{
	return (size_t)c * RT_NODE_ALIGN;
}

static void rt_reserve_count(unsigned int c, long n)
{
	rt_stat_add(RT_STAT_RESERVED, (unsigned long)n);
	rt_stat_add(RT_STAT_RESERVED_BYTES, (unsigned long)n * rt_class_bytes(c));
}

static void rt_reserve_drain(struct rt_reserve *reserve)
{
	unsigned int c;

	for (c = 1; c <= RT_CLASSES; c++) {
		if (!reserve->count[c])
			continue;
		rt_node_free(rt_class_bytes(c), rt_reserve_nodes(reserve, c), reserve->count[c]);
		rt_reserve_count(c, -(long)reserve->count[c]);
		reserve->nr -= reserve->count[c];
		reserve->count[c] = 0;
	}
	reserve->full = false;
}

static void rt_reserve_exit(void *arg)
{
	rt_reserve_drain(arg);
}

static void rt_reserve_key_create(void)
{
	rt_pthread_check(pthread_key_create(&rt_reserve_key, rt_reserve_exit));
}

/* Arm the exit destructor the first time this thread holds nodes. */
static void rt_reserve_arm(struct rt_reserve *reserve)
{
	if (reserve->keyed)
		return;
	rt_pthread_check(pthread_once(&rt_reserve_once, rt_reserve_key_create));
	rt_pthread_check(pthread_setspecific(rt_reserve_key, reserve));
	reserve->keyed = true;
}

/* Nodes of class @c a filled reserve holds: one of every size a node can
 * have (a C node size class, rt_class_round(), or the full node's), two of
 * the full node's and of the largest.  An insert needs at most three nodes
 * and the bridges of one full node (RT_INSERT_MAX_NODES): a small one and
 * two that may be of the largest class or full; two of one class are
 * otherwise served by that class and a larger one (full nodes take exactly
 * their size); bridges, of the smallest class, take any block left. */
static unsigned int rt_class_want(unsigned int c)
{
	if (c == RT_F_CLASS || c == RT_CLASSES)
		return 2;
	return rt_class_round(rt_class_bytes(c)) == rt_class_bytes(c);
}

static unsigned int rt_class_keep(unsigned int c)
{
	return c == RT_F_CLASS ? RT_F_KEEP : RT_CLASS_KEEP;
}

/* Put @node of class @c into the reserve if it has room; true if it did. */
static bool rt_reserve_put(struct rt_reserve *reserve, unsigned int c, void *node)
{
	if (reserve->count[c] >= rt_class_keep(c))
		return false;
	rt_reserve_arm(reserve);
	rt_reserve_nodes(reserve, c)[reserve->count[c]++] = node;
	reserve->nr++;
	rt_reserve_count(c, 1);
	return true;
}

/* Nodes of class @c idr_preload() wants: the full nodes of the worst insert
 * into an IDR tree, and an IDA's bitmap. */
static unsigned int rt_class_want_idr(unsigned int c)
{
	return (c == RT_F_CLASS ? RT_IDR_MAX_NODES : 0) + (c == RT_BITMAP_CLASS);
}

/* Fill every class to what @want says it should hold; false if the
 * allocator failed (what was obtained stays). */
static bool rt_reserve_fill(struct rt_reserve *reserve, unsigned int (*want)(unsigned int))
{
	unsigned int c, total = 0;

	for (c = 1; c <= RT_CLASSES; c++)
		total += rt_class_want(c);
	rt_assert(total == RT_PRELOAD_SIZE);

	for (c = 1; c <= RT_CLASSES; c++)
		while (reserve->count[c] < want(c)) {
			void *node;

			if (rt_node_alloc(rt_class_bytes(c), &node, 1) != 1)
				return false;
			rt_reserve_put(reserve, c, node);
		}
	return true;
}

/* Take from the reserve a node of at least @size bytes (exactly @size if
 * @exact), smallest first; its size goes to *@size.  NULL if none. */
static void *rt_reserve_take(struct rt_reserve *reserve, size_t *size, bool exact)
{
	unsigned int c = (unsigned int)(*size / RT_NODE_ALIGN);
	unsigned int last = exact ? c : RT_CLASSES;

	for (; c <= last; c++)
		if (reserve->count[c]) {
			reserve->nr--;
			rt_reserve_count(c, -1);
			*size = rt_class_bytes(c);
			if (reserve->count[c] <= rt_class_want(c))
				reserve->full = false;
			return rt_reserve_nodes(reserve, c)[--reserve->count[c]];
		}
	return NULL;
}

int rt_nodes_get(void **nodes, size_t *sizes, unsigned int n, bool may_alloc)
{
	struct rt_reserve *reserve = rt_reserve_self();
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* A full node takes exactly its size: nothing in it records a
		 * larger one.  A compact node records its size and uses the
		 * extra room. */
		bool exact = sizes[i] == sizeof(struct rt_node);

		rt_assert(sizes[i] % RT_NODE_ALIGN == 0 && sizes[i] <= RT_C_MAX_BYTES);
		if (may_alloc && rt_node_alloc(sizes[i], &nodes[i], 1) == 1)
			continue;
		nodes[i] = rt_reserve_take(reserve, &sizes[i], exact);
		if (!nodes[i]) {
			rt_nodes_put(nodes, sizes, i);
			return -ENOMEM;
		}
	}
	return 0;
}

void *rt_block_get_exact(size_t size, bool may_alloc)
{
	void *block;

	rt_assert(size % RT_NODE_ALIGN == 0 && size <= RT_C_MAX_BYTES);
	if (may_alloc && rt_node_alloc(size, &block, 1) == 1)
		return block;
	return rt_reserve_take(rt_reserve_self(), &size, true);
}

int rt_nodes_alloc(void **nodes, const size_t *sizes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		rt_assert(sizes[i] % RT_NODE_ALIGN == 0 && sizes[i] <= RT_C_MAX_BYTES);
		if (rt_node_alloc(sizes[i], &nodes[i], 1) != 1) {
			while (i-- > 0)
				rt_node_free(sizes[i], &nodes[i], 1);
			return -ENOMEM;
		}
	}
	return 0;
}

void rt_nodes_put(void **nodes, const size_t *sizes, unsigned int n)
{
	struct rt_reserve *reserve = rt_reserve_self();
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!rt_reserve_put(reserve, (unsigned int)(sizes[i] / RT_NODE_ALIGN), nodes[i]))
			rt_node_free(sizes[i], &nodes[i], 1);
}

bool rt_preload_window_open(void)
{
	return rt_reserve_self()->window > 0;
}

/* Fill @reserve as @want says; on failure give back what this call
 * obtained. */
static __attribute__((noinline)) int rt_preload_fill_slow(struct rt_reserve *reserve,
							  unsigned int (*want)(unsigned int))
{
	uint8_t before[RT_CLASSES + 1];
	unsigned int c;

	memcpy(before, reserve->count, sizeof(before));
	if (!rt_reserve_fill(reserve, want)) {
		/* Reserve nothing extra: give back what this call obtained. */
		for (c = 1; c <= RT_CLASSES; c++) {
			unsigned int extra = reserve->count[c] - before[c];

			rt_node_free(rt_class_bytes(c), rt_reserve_nodes(reserve, c) + before[c],
				     extra);
			rt_reserve_count(c, -(long)extra);
			reserve->nr -= extra;
			reserve->count[c] = before[c];
		}
		return -ENOMEM;
	}
	if (want == rt_class_want)
		reserve->full = true;
	return 0;
}

/* Open a preload window (the caller's radix_tree_preload_end() closes it). */
static void rt_preload_window_start(struct rt_reserve *reserve, const char *fn)
{
	if (caa_unlikely(reserve->window > 0))
		rt_warn_once(&rt_warned_nested, fn,
			     "nested preload (a radix_tree_preload_end() missing?)");
	reserve->window++;
}

RCURADIX_API int radix_tree_preload(gfp_t gfp_mask)
{
	struct rt_reserve *reserve = rt_reserve_self();

	(void)gfp_mask;  /* userspace allocation does not sleep for reclaim */
	/* The common case: nothing was taken since the last preload (a
	 * GFP_KERNEL insert allocates its own nodes). */
	if (caa_unlikely(!reserve->full) && rt_preload_fill_slow(reserve, rt_class_want))
		return -ENOMEM;
	rt_preload_window_start(reserve, __func__);
	return 0;
}

int rt_preload_idr(const char *fn)
{
	struct rt_reserve *reserve = rt_reserve_self();

	int err = 0;

	if (caa_unlikely(reserve->count[RT_F_CLASS] < rt_class_want_idr(RT_F_CLASS) ||
			 reserve->count[RT_BITMAP_CLASS] < rt_class_want_idr(RT_BITMAP_CLASS)))
		err = rt_preload_fill_slow(reserve, rt_class_want_idr);
	rt_preload_window_start(reserve, fn);
	return err;
}

RCURADIX_API int radix_tree_maybe_preload(gfp_t gfp_mask)
{
	if (gfp_mask & __GFP_DIRECT_RECLAIM)
		return radix_tree_preload(gfp_mask);
	rt_reserve_self()->window++;  /* the caller still pairs it with preload_end */
	return 0;
}

RCURADIX_API void radix_tree_preload_end(void)
{
	struct rt_reserve *reserve = rt_reserve_self();

	if (reserve->window <= 0) {
		rt_warn_once(&rt_warned_unbalanced, __func__,
			     "unbalanced: no preload window is open");
		return;
	}
	reserve->window--;
}

RCURADIX_API void rcuradix_thread_cache_flush(void)
{
	struct rt_reserve *reserve = rt_reserve_self();

	if (reserve->window > 0) {
		rt_warn_once(&rt_warned_flush, __func__,
			     "inside a preload window: the reserve is kept for the next insert");
		return;
	}
	rt_reserve_drain(reserve);
	rt_backend_trim();
}

/* Exit: give the exiting thread's reserve back, so that leak checkers see
 * no node held.  (The library is never unloaded before exit: see node.c.) */
__attribute__((destructor)) static void rt_preload_exit(void)
{
	rt_reserve_drain(rt_reserve_self());
}
