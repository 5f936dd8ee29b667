/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idr.c - idr-bench: rcuradix's IDR and IDA next to what an application
 * writes without them, in one run, on the same ids:
 *
 *   rcuradix IDR        idr_alloc() (the lowest free id), idr_remove(),
 *                       idr_find() inside urcu_memb_read_lock()
 *   mutex+freelist+lfht a pthread mutex over a stack of freed ids and a
 *                       next-never-used counter (NOT the lowest free id),
 *                       and liburcu's cds_lfht (urcu-memb) for lock-free
 *                       id -> pointer lookups
 *   mutex+bitmap+lfht   a pthread mutex over a 64-ary multi-level bitmap
 *                       (a summary word per 64 words) giving the lowest
 *                       free id, and the same cds_lfht; its bitmap alone
 *                       (mutex+bitmap) is the IDA's peer
 *   plain radix tree    radix_tree_insert/delete/lookup on the same dense
 *                       keys 0..N-1: the reference idr_find is held to
 *   kernel IDR          with --kernel PATH only: the Linux kernel's own
 *                       lib/idr.c, lib/radix-tree.c and lib/xarray.c (6.1),
 *                       compiled from Debian's linux-source-6.1 tarball
 *                       into a shared object by bench/kernel-idr.sh (`make
 *                       bench-kernel-idr`; bench/kernel-idr.c says how),
 *                       loaded with dlopen(RTLD_LOCAL): idr_alloc() and
 *                       idr_remove() under the IDR's xa_lock (a pthread
 *                       mutex there), idr_find() inside rcu_read_lock()
 *                       (urcu-memb, the same RCU domain); the kernel's IDA
 *                       ("kernel IDA") is the IDA table's third column
 *
 * Tables: churn (remove a random live id, allocate one; 1 and 2 threads)
 * and lookups of random live ids (1 reader, alone and next to a churning
 * writer) at N live ids; the cost of a remove+alloc pair from 2^10 to
 * 2^20 live ids (2^24 with --full); the IDA's free+alloc churn and bytes
 * per id against the bitmap (and the kernel's IDA).  Cells are median [min]
 * of interleaved repetitions (A B C D A B C D ...) and the ratio peer /
 * rcuradix of the medians, as rcuradix-bench prints them.  Every
 * measurement checks its results (ids in order when filling, the lowest
 * free id where the peer claims it, the pointer each lookup finds, the
 * whole map afterwards), the kernel's as the others', and stops the run
 * otherwise.  Verdict lines give the targets against the peers from the
 * tables' medians: two threads' churn at least 3 times the free list's
 * speed, idr_find next to a writer at least twice cds_lfht's, the IDA's
 * free+alloc at most 1.5 times the bitmap's time, and at most 0.2 bytes
 * per id.  The idr_find target (within 10% of radix_tree_lookup) is
 * measured apart, both maps alive and read in turns (run_lookup_target()).
 * With --kernel, two more targets: rcuradix's churn (1 thread) and IDA
 * free+alloc within the kernel's time (rcuradix / kernel <= 1.0).
 *
 *   idr-bench              N = 2^20, 5 repetitions (1.5 minutes on 2 CPUs)
 *   idr-bench --full       the pair cost up to 2^24 live ids too
 *   idr-bench --kernel bench/kernel-idr/libkidr.so
 *                          the kernel's IDR and IDA as a fifth column, and
 *                          the targets against them (`make bench-kernel-idr`)
 *   idr-bench --quick      tiny sizes, one repetition (make check)
 *   idr-bench --help       every option
 */
#define _GNU_SOURCE 1
#include "config.h"

#include "bench.h"

#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rcuradix/idr.h>
#include <rcuradix/radix-tree.h>
#include <urcu/rculfhash.h>
#include <urcu/uatomic.h>

#include "kernel-idr.h"

/* ---- columns ------------------------------------------------------------ */

enum { C_RR, C_FREELIST, C_BITMAP, C_TREE, C_KERNEL, NCOLS };

/* The columns measured: the kernel's only with --kernel. */
static int ncols = C_KERNEL;

/* The tables (util.c) name their columns through peers[]: here they are the
 * structures of this program, renamed for the IDA table.  A column that
 * measured nothing (the kernel's, without --kernel) is not printed. */
static struct peer_ops columns[NPEERS] = {
	{ .name = "rcuradix IDR" },	   { .name = "mutex+freelist+lfht" },
	{ .name = "mutex+bitmap+lfht" }, { .name = "plain radix tree" },
	{ .name = "kernel IDR" },
};
const struct peer_ops *const peers[NPEERS] = { &columns[0], &columns[1], &columns[2],
					       &columns[3], &columns[4] };

static void name_columns(bool ida)
{
	columns[C_RR].name = ida ? "rcuradix IDA" : "rcuradix IDR";
	columns[C_BITMAP].name = ida ? "mutex+bitmap" : "mutex+bitmap+lfht";
	columns[C_KERNEL].name = ida ? "kernel IDA" : "kernel IDR";
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

/* ---- rcuradix memory: the library's live node bytes -------------------- */

/* Bytes of nodes (and IDA bitmaps) held by trees, once the grace periods
 * pending have passed and this thread's reserve went back. */
static double rr_live_bytes(void)
{
	struct rcuradix_stats st;

	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	if (rcuradix_get_stats(&st, sizeof(st)))
		die("rcuradix_get_stats failed");
	return (double)st.bytes_live - (double)st.bytes_reserved - (double)st.bytes_pending;
}

/* ---- an id map: the IDR and its peers ----------------------------------- */

struct idmap_ops {
	bool lowest; /* hands out the lowest free id */
	void *(*create)(size_t n);
	void (*destroy)(void *m);
	/* The new id, or a negative errno.  NULL for the plain tree, which
	 * cannot allocate: it inserts at a key instead. */
	long (*alloc)(void *m, void *item);
	int (*insert)(void *m, unsigned long id, void *item);
	void *(*remove)(void *m, unsigned long id);
	void *(*find)(void *m, unsigned long id); /* an RCU reader */
	double (*bytes)(void *m, size_t n);       /* memory, with @n ids */
};

/* rcuradix IDR */

struct rr_idr {
	struct idr idr;
	double live0;
};

static void *ri_create(size_t n)
{
	struct rr_idr *w = xcalloc(1, sizeof(*w));

	(void)n;
	w->live0 = rr_live_bytes();
	idr_init(&w->idr);
	return w;
}

static void ri_destroy(void *m)
{
	struct rr_idr *w = m;

	idr_destroy(&w->idr);
	urcu_memb_barrier();
	free(w);
}

static long ri_alloc(void *m, void *item)
{
	return idr_alloc(&((struct rr_idr *)m)->idr, item, 0, 0, GFP_KERNEL);
}

static void *ri_remove(void *m, unsigned long id)
{
	return idr_remove(&((struct rr_idr *)m)->idr, id);
}

static void *ri_find(void *m, unsigned long id)
{
	void *item;

	urcu_memb_read_lock();
	item = idr_find(&((struct rr_idr *)m)->idr, id);
	urcu_memb_read_unlock();
	return item;
}

static double ri_bytes(void *m, size_t n)
{
	(void)n;
	return rr_live_bytes() - ((struct rr_idr *)m)->live0;
}

static const struct idmap_ops map_rr = {
	.lowest = true,
	.create = ri_create,
	.destroy = ri_destroy,
	.alloc = ri_alloc,
	.remove = ri_remove,
	.find = ri_find,
	.bytes = ri_bytes,
};

/* The plain tree: keys 0..N-1 inserted, deleted and inserted again. */

struct rr_tree {
	struct radix_tree_root root;
	double live0;
};

static void *pt_create(size_t n)
{
	struct rr_tree *w = xcalloc(1, sizeof(*w));

	(void)n;
	w->live0 = rr_live_bytes();
	radix_tree_init_flavor(&w->root, GFP_KERNEL, &urcu_memb_flavor);
	return w;
}

static void pt_destroy(void *m)
{
	struct rr_tree *w = m;

	radix_tree_destroy(&w->root);
	urcu_memb_barrier();
	free(w);
}

static int pt_insert(void *m, unsigned long id, void *item)
{
	return radix_tree_insert(&((struct rr_tree *)m)->root, id, item);
}

static void *pt_remove(void *m, unsigned long id)
{
	return radix_tree_delete(&((struct rr_tree *)m)->root, id);
}

static void *pt_find(void *m, unsigned long id)
{
	void *item;

	urcu_memb_read_lock();
	item = radix_tree_lookup(&((struct rr_tree *)m)->root, id);
	urcu_memb_read_unlock();
	return item;
}

static double pt_bytes(void *m, size_t n)
{
	(void)n;
	return rr_live_bytes() - ((struct rr_tree *)m)->live0;
}

static const struct idmap_ops map_tree = {
	.lowest = false,
	.create = pt_create,
	.destroy = pt_destroy,
	.insert = pt_insert,
	.remove = pt_remove,
	.find = pt_find,
	.bytes = pt_bytes,
};

/* cds_lfht from id to item, shared by both mutex peers: pre-sized to the
 * next power of two >= N buckets, no automatic resize (as rcuradix-bench's
 * lfht peer); updates run outside the peers' mutex, the id being theirs. */

struct lfmap {
	struct cds_lfht *ht;
	unsigned long buckets;
};

struct lf_node {
	struct cds_lfht_node node;
	unsigned long id;
	void *item;
	struct rcu_head rcu;
};

static size_t lf_node_chunk; /* bytes glibc takes for one lf_node */

static int lf_match(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, struct lf_node, node)->id == *(const unsigned long *)key;
}

static void lfmap_init(struct lfmap *l, size_t n)
{
	unsigned long b = 1;

	while (b < n)
		b <<= 1;
	l->buckets = b;
	l->ht = cds_lfht_new_flavor(b, b, b, 0, &urcu_memb_flavor, NULL);
	if (!l->ht)
		die("cds_lfht_new_flavor failed");
}

static void lfmap_add(struct lfmap *l, unsigned long id, void *item)
{
	struct lf_node *n = malloc(sizeof(*n));
	struct cds_lfht_node *got;

	if (!n)
		die("out of memory");
	cds_lfht_node_init(&n->node);
	n->id = id;
	n->item = item;
	urcu_memb_read_lock();
	got = cds_lfht_add_unique(l->ht, mix64(id), lf_match, &id, &n->node);
	urcu_memb_read_unlock();
	if (got != &n->node)
		die("lfht: id %lu handed out while still in the table", id);
}

static void lf_free_cb(struct rcu_head *head)
{
	free(caa_container_of(head, struct lf_node, rcu));
}

static void *lfmap_del(struct lfmap *l, unsigned long id)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	void *item = NULL;

	urcu_memb_read_lock();
	cds_lfht_lookup(l->ht, mix64(id), lf_match, &id, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node && cds_lfht_del(l->ht, node) == 0) {
		struct lf_node *n = caa_container_of(node, struct lf_node, node);

		item = n->item;
		/* Readers may still hold the node. */
		urcu_memb_call_rcu(&n->rcu, lf_free_cb);
	}
	urcu_memb_read_unlock();
	return item;
}

static void *lfmap_find(struct lfmap *l, unsigned long id)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	void *item = NULL;

	urcu_memb_read_lock();
	cds_lfht_lookup(l->ht, mix64(id), lf_match, &id, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node)
		item = caa_container_of(node, struct lf_node, node)->item;
	urcu_memb_read_unlock();
	return item;
}

/* No reader is left: unlink every node, wait for one grace period, free. */
static void lfmap_destroy(struct lfmap *l, size_t n)
{
	struct lf_node **all = xcalloc(n, sizeof(*all)), *node;
	struct cds_lfht_iter iter;
	size_t i, count = 0;

	urcu_memb_read_lock();
	cds_lfht_for_each_entry(l->ht, &iter, node, node) {
		if (cds_lfht_del(l->ht, &node->node) == 0) {
			if (count == n)
				die("lfht: more than %zu ids in the table", n);
			all[count++] = node;
		}
	}
	urcu_memb_read_unlock();
	urcu_memb_synchronize_rcu();
	for (i = 0; i < count; i++)
		free(all[i]);
	free(all);
	if (cds_lfht_destroy(l->ht, NULL))
		die("cds_lfht_destroy failed");
}

/* Nodes at glibc's chunk size, and a 16-byte bucket each. */
static double lfmap_bytes(const struct lfmap *l, size_t n)
{
	return (double)n * (double)lf_node_chunk +
	       (double)l->buckets * (double)sizeof(struct cds_lfht_node);
}

/* mutex + free list + lfht */

struct freelist {
	pthread_mutex_t lock;
	unsigned long *stack; /* freed ids, the last freed on top */
	size_t top, cap;
	unsigned long next; /* the next id never handed out */
	size_t n;
	struct lfmap map;
};

static void *fl_create(size_t n)
{
	struct freelist *f = xcalloc(1, sizeof(*f));

	pthread_mutex_init(&f->lock, NULL);
	f->cap = 64;
	f->stack = xcalloc(f->cap, sizeof(*f->stack));
	f->n = n;
	lfmap_init(&f->map, n);
	return f;
}

static void fl_destroy(void *m)
{
	struct freelist *f = m;

	lfmap_destroy(&f->map, f->n);
	pthread_mutex_destroy(&f->lock);
	free(f->stack);
	free(f);
}

static long fl_alloc(void *m, void *item)
{
	struct freelist *f = m;
	unsigned long id;

	pthread_mutex_lock(&f->lock);
	id = f->top ? f->stack[--f->top] : f->next++;
	pthread_mutex_unlock(&f->lock);
	lfmap_add(&f->map, id, item);
	return (long)id;
}

static void *fl_remove(void *m, unsigned long id)
{
	struct freelist *f = m;
	void *item = lfmap_del(&f->map, id);

	if (!item)
		return NULL;
	pthread_mutex_lock(&f->lock);
	if (f->top == f->cap) {
		unsigned long *s = realloc(f->stack, 2 * f->cap * sizeof(*s));

		if (!s)
			die("out of memory");
		f->stack = s;
		f->cap *= 2;
	}
	f->stack[f->top++] = id;
	pthread_mutex_unlock(&f->lock);
	return item;
}

static void *fl_find(void *m, unsigned long id)
{
	return lfmap_find(&((struct freelist *)m)->map, id);
}

static double fl_bytes(void *m, size_t n)
{
	struct freelist *f = m;

	return lfmap_bytes(&f->map, n) + (double)f->cap * sizeof(*f->stack);
}

static const struct idmap_ops map_freelist = {
	.lowest = false,
	.create = fl_create,
	.destroy = fl_destroy,
	.alloc = fl_alloc,
	.remove = fl_remove,
	.find = fl_find,
	.bytes = fl_bytes,
};

/*
 * A multi-level bitmap of used ids, sized for @cap ids: level 0 has a bit
 * per id (1: used), level l a bit per word of level l-1 (1: that word is
 * full), up to a single word.  The lowest free id is found by descending
 * from the top word, one find-first-zero per level; bits past the end are
 * set, so they are never handed out.
 */
#define BM_LEVELS 8

struct bitmap {
	int levels;
	size_t words[BM_LEVELS];
	uint64_t *lev[BM_LEVELS];
};

/* Set bit @i of level @l, and above it the bits of the words that filled. */
static void bm_set(struct bitmap *b, int l, size_t i)
{
	for (; l < b->levels; l++) {
		uint64_t *w = &b->lev[l][i / 64];

		*w |= 1ULL << (i % 64);
		if (*w != ~0ULL)
			return;
		i /= 64;
	}
}

static void bm_init(struct bitmap *b, size_t cap)
{
	size_t w = (cap + 63) / 64, i;
	int l;

	memset(b, 0, sizeof(*b));
	for (;;) {
		if (b->levels == BM_LEVELS)
			die("bitmap: %zu ids is too many", cap);
		b->words[b->levels] = w;
		b->lev[b->levels++] = xcalloc(w, sizeof(uint64_t));
		if (w == 1)
			break;
		w = (w + 63) / 64;
	}
	for (i = cap; i < b->words[0] * 64; i++)
		bm_set(b, 0, i);
	for (l = 1; l < b->levels; l++)
		for (i = b->words[l - 1]; i < b->words[l] * 64; i++)
			bm_set(b, l, i);
}

static void bm_free(struct bitmap *b)
{
	int l;

	for (l = 0; l < b->levels; l++)
		free(b->lev[l]);
}

/* The lowest free id, marked used; -ENOSPC if none. */
static long bm_alloc(struct bitmap *b)
{
	size_t i = 0;
	int l;

	if (b->lev[b->levels - 1][0] == ~0ULL)
		return -ENOSPC;
	for (l = b->levels - 1; l >= 0; l--)
		i = i * 64 + (size_t)__builtin_ctzll(~b->lev[l][i]);
	bm_set(b, 0, i);
	return (long)i;
}

/* Free id @i: false if it was not used. */
static bool bm_clear(struct bitmap *b, size_t i)
{
	int l;

	if (i >= b->words[0] * 64 || !(b->lev[0][i / 64] & (1ULL << (i % 64))))
		return false;
	for (l = 0; l < b->levels; l++) {
		uint64_t *w = &b->lev[l][i / 64];
		bool was_full = *w == ~0ULL;

		*w &= ~(1ULL << (i % 64));
		if (!was_full)
			break;
		i /= 64;
	}
	return true;
}

static double bm_bytes(const struct bitmap *b)
{
	size_t w = 0;
	int l;

	for (l = 0; l < b->levels; l++)
		w += b->words[l];
	return (double)w * sizeof(uint64_t);
}

/* mutex + bitmap (+ lfht for the id map) */

struct bitmap_map {
	pthread_mutex_t lock;
	struct bitmap bm;
	size_t n;
	struct lfmap map; /* unused by the IDA peer */
};

static struct bitmap_map *bmm_create(size_t n, bool with_map)
{
	struct bitmap_map *b = xcalloc(1, sizeof(*b));

	pthread_mutex_init(&b->lock, NULL);
	bm_init(&b->bm, n);
	b->n = n;
	if (with_map)
		lfmap_init(&b->map, n);
	return b;
}

static void bmm_destroy(struct bitmap_map *b)
{
	if (b->map.ht)
		lfmap_destroy(&b->map, b->n);
	pthread_mutex_destroy(&b->lock);
	bm_free(&b->bm);
	free(b);
}

static long bmm_alloc_id(struct bitmap_map *b)
{
	long id;

	pthread_mutex_lock(&b->lock);
	id = bm_alloc(&b->bm);
	pthread_mutex_unlock(&b->lock);
	return id;
}

static void bmm_free_id(struct bitmap_map *b, unsigned long id)
{
	bool ok;

	pthread_mutex_lock(&b->lock);
	ok = bm_clear(&b->bm, id);
	pthread_mutex_unlock(&b->lock);
	if (!ok)
		die("mutex+bitmap: id %lu freed but not allocated", id);
}

static void *bl_create(size_t n)
{
	return bmm_create(n, true);
}

static void bl_destroy(void *m)
{
	bmm_destroy(m);
}

static long bl_alloc(void *m, void *item)
{
	long id = bmm_alloc_id(m);

	if (id >= 0)
		lfmap_add(&((struct bitmap_map *)m)->map, (unsigned long)id, item);
	return id;
}

static void *bl_remove(void *m, unsigned long id)
{
	void *item = lfmap_del(&((struct bitmap_map *)m)->map, id);

	if (item)
		bmm_free_id(m, id);
	return item;
}

static void *bl_find(void *m, unsigned long id)
{
	return lfmap_find(&((struct bitmap_map *)m)->map, id);
}

static double bl_bytes(void *m, size_t n)
{
	struct bitmap_map *b = m;

	return lfmap_bytes(&b->map, n) + bm_bytes(&b->bm);
}

static const struct idmap_ops map_bitmap = {
	.lowest = true,
	.create = bl_create,
	.destroy = bl_destroy,
	.alloc = bl_alloc,
	.remove = bl_remove,
	.find = bl_find,
	.bytes = bl_bytes,
};

/*
 * The kernel's IDR and IDA (--kernel): libkidr.so, built by
 * bench/kernel-idr.sh from the kernel's own files, exports the functions of
 * bench/kernel-idr.h and nothing else (the kernel's idr_alloc() and the
 * rest have the names of ours).  Its alloc, remove, find and free go into
 * the maps' function pointers as they are: one indirect call per
 * operation, as rcuradix's through its wrappers here.
 */
static struct {
	void *dl;
	const char *path;
	const char *describe;
	__typeof__(&kidr_live_bytes) live_bytes;
	__typeof__(&kidr_new) idr_new;
	__typeof__(&kidr_destroy) idr_destroy;
	__typeof__(&kida_new) ida_new;
	__typeof__(&kida_destroy) ida_destroy;
} kernel;

/* The kernel's live object bytes once the pending call_rcu() frees ran. */
static double kernel_live_bytes(void)
{
	urcu_memb_barrier();
	return (double)kernel.live_bytes();
}

/* The live bytes when the one kernel IDR or IDA of the pass was made. */
static double kernel_live0;

static void *ki_create(size_t n)
{
	void *h;

	(void)n;
	kernel_live0 = kernel_live_bytes();
	h = kernel.idr_new();
	if (!h)
		die("kernel IDR: kidr_new failed");
	return h;
}

static void ki_destroy(void *m)
{
	kernel.idr_destroy(m);
	urcu_memb_barrier();
}

/* Nodes at their 576 bytes (the kernel's slab object), no malloc() header. */
static double ki_bytes(void *m, size_t n)
{
	(void)m;
	(void)n;
	return kernel_live_bytes() - kernel_live0;
}

/* alloc, remove, find: set by kernel_load(). */
static struct idmap_ops map_kernel = {
	.lowest = true,
	.create = ki_create,
	.destroy = ki_destroy,
	.bytes = ki_bytes,
};

static const struct idmap_ops *const maps[NCOLS] = {
	[C_RR] = &map_rr,
	[C_FREELIST] = &map_freelist,
	[C_BITMAP] = &map_bitmap,
	[C_TREE] = &map_tree,
	[C_KERNEL] = &map_kernel,
};

/* ---- an id allocator: the IDA and the bitmap ---------------------------- */

struct idalloc_ops {
	void *(*create)(size_t n);
	void (*destroy)(void *a);
	long (*alloc)(void *a); /* the lowest free id, or a negative errno */
	bool full_at_n;         /* sized for N ids: the (N+1)th is -ENOSPC */
	void (*free)(void *a, unsigned long id);
	double (*bytes)(void *a, size_t n);
};

struct rr_ida {
	struct ida ida;
	double live0;
};

static void *ra_create(size_t n)
{
	struct rr_ida *w = xcalloc(1, sizeof(*w));

	(void)n;
	w->live0 = rr_live_bytes();
	ida_init(&w->ida);
	return w;
}

static void ra_destroy(void *a)
{
	struct rr_ida *w = a;

	ida_destroy(&w->ida);
	urcu_memb_barrier();
	free(w);
}

static long ra_alloc(void *a)
{
	return ida_alloc(&((struct rr_ida *)a)->ida, GFP_KERNEL);
}

static void ra_free(void *a, unsigned long id)
{
	ida_free(&((struct rr_ida *)a)->ida, (unsigned int)id);
}

/* The library's count, checked against the tree's nodes plus a 128-byte
 * bitmap per 1,024 ids (idr.h). */
static double ra_bytes(void *a, size_t n)
{
	struct rr_ida *w = a;
	double bytes = rr_live_bytes() - w->live0, expect;
	struct radix_tree_memstat mem;

	if (radix_tree_memory(&w->ida.ida_rt, &mem))
		die("rcuradix IDA: radix_tree_memory failed");
	expect = (double)mem.node_bytes + (double)((n + 1023) / 1024) * 128;
	if (bytes != expect)
		die("rcuradix IDA: %.0f bytes live for %zu ids, but %lu of nodes and %zu "
		    "bitmaps make %.0f",
		    bytes, n, mem.node_bytes, (n + 1023) / 1024, expect);
	return bytes;
}

static const struct idalloc_ops ida_rr = {
	.create = ra_create,
	.destroy = ra_destroy,
	.alloc = ra_alloc,
	.free = ra_free,
	.bytes = ra_bytes,
};

static void *ba_create(size_t n)
{
	return bmm_create(n, false);
}

static void ba_destroy(void *a)
{
	bmm_destroy(a);
}

static long ba_alloc(void *a)
{
	return bmm_alloc_id(a);
}

static void ba_free(void *a, unsigned long id)
{
	bmm_free_id(a, id);
}

static double ba_bytes(void *a, size_t n)
{
	(void)n;
	return bm_bytes(&((struct bitmap_map *)a)->bm);
}

static const struct idalloc_ops ida_bitmap = {
	.full_at_n = true,
	.create = ba_create,
	.destroy = ba_destroy,
	.alloc = ba_alloc,
	.free = ba_free,
	.bytes = ba_bytes,
};

/* The kernel's IDA: its nodes and 128-byte bitmaps (kmalloc()). */

static void *ka_create(size_t n)
{
	void *h;

	(void)n;
	kernel_live0 = kernel_live_bytes();
	h = kernel.ida_new();
	if (!h)
		die("kernel IDA: kida_new failed");
	return h;
}

static void ka_destroy(void *a)
{
	kernel.ida_destroy(a);
	urcu_memb_barrier();
}

/* alloc, free: set by kernel_load(). */
static struct idalloc_ops ida_kernel = {
	.create = ka_create,
	.destroy = ka_destroy,
	.bytes = ki_bytes,
};

/* A function of libkidr.so, or the run stops. */
static void *kernel_sym(const char *name)
{
	void *f;

	dlerror();
	f = dlsym(kernel.dl, name);
	if (!f)
		die("--kernel %s: no %s: %s (not built by bench/kernel-idr.sh?)", kernel.path, name,
		    dlerror());
	return f;
}

/* Typed: a signature of kernel-idr.h that no longer fits its use here does
 * not compile. */
#define KERNEL_SYM(fn) ((__typeof__(&fn))kernel_sym(#fn))

/* The kernel's IDR and IDA from @path: fills the fifth column. */
static void kernel_load(const char *path)
{
	__typeof__(&kidr_abi) abi;
	__typeof__(&kidr_describe) describe;

	static char here[4096];

	/* A name without a slash is a file here, not one of the library path. */
	if (!strchr(path, '/')) {
		snprintf(here, sizeof(here), "./%s", path);
		path = here;
	}
	kernel.path = path;
	/* RTLD_LOCAL: its names stay out of the global scope (it exports
	 * kidr_* and kida_* only anyway); RTLD_NOW: a missing symbol now. */
	kernel.dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!kernel.dl)
		die("--kernel %s: %s (make bench-kernel-idr builds it)", path, dlerror());
	abi = KERNEL_SYM(kidr_abi);
	if (abi() != KIDR_ABI)
		die("--kernel %s: interface %d, this idr-bench expects %d: rebuild it", path, abi(),
		    KIDR_ABI);
	describe = KERNEL_SYM(kidr_describe);
	kernel.describe = describe();
	kernel.live_bytes = KERNEL_SYM(kidr_live_bytes);
	kernel.idr_new = KERNEL_SYM(kidr_new);
	kernel.idr_destroy = KERNEL_SYM(kidr_destroy);
	kernel.ida_new = KERNEL_SYM(kida_new);
	kernel.ida_destroy = KERNEL_SYM(kida_destroy);
	map_kernel.alloc = KERNEL_SYM(kidr_alloc);
	map_kernel.remove = KERNEL_SYM(kidr_remove);
	map_kernel.find = KERNEL_SYM(kidr_find);
	ida_kernel.alloc = KERNEL_SYM(kida_alloc);
	ida_kernel.free = KERNEL_SYM(kida_free);
	ncols = C_KERNEL + 1;
}

/* ---- configuration ------------------------------------------------------ */

/* The largest N of the pair-cost table: the default run and --full. */
#define BY_N_MAX 20
#define BY_N_MAX_FULL 24

struct config {
	int log2n;   /* N of the churn, lookup and IDA tables */
	int reps;
	int by_n_max; /* log2 of the pair-cost table's largest N */
	size_t min_ops, max_ops;
	bool quick, full, verbose;
	uint64_t seed;
	const char *csv;
	const char *kernel; /* --kernel: libkidr.so */
	int cpu;            /* --cpu: the one-thread passes' and the readers' CPU */
};

/* config.cpu, for the threads: of two threads, the second (a writer beside
 * a reader, or the churn's second) takes the next CPU. */
static int measure_cpu;

/* Operations per measurement: N, within [min_ops, max_ops]. */
static size_t ops_for(const struct config *c, size_t n)
{
	return n < c->min_ops ? c->min_ops : n > c->max_ops ? c->max_ops : n;
}

/* ---- the state of one pass ---------------------------------------------- */

/*
 * Items are pointers into slot[]: slot[i] holds the id whose item is
 * &slot[i], as an application's object holds its own id.  Filling gives
 * slot i id i; a remove+alloc by one thread gets the removed id back (the
 * only free one), so the map stays id i -> &slot[i] and readers check a
 * lookup's result by comparing pointers, without loading the object.  Two
 * threads churning move ids between their slots: the map is checked as a
 * whole afterwards.
 */
struct pass {
	const struct config *c;
	size_t n;
	unsigned long *slot;
	unsigned long *order; /* random permutation of 0..n-1: lookup order */
	const char *name;     /* for messages */
};

static volatile uintptr_t sink;

/* Record @v for column @col in row @op of @t. */
static void record(struct table *t, int col, const char *op, double v)
{
	if (!isnan(v))
		cell_add(&table_row(t, op, "", false)->c[col], v);
}

/* Fill ids 0..n-1 in order: ns per id (CPU time).  Checks each id. */
static double fill(const struct idmap_ops *p, void *m, struct pass *x)
{
	double t0 = thread_cpu_ns();
	size_t i;

	for (i = 0; i < x->n; i++) {
		x->slot[i] = i;
		if (p->alloc) {
			long id = p->alloc(m, &x->slot[i]);

			if (id != (long)i)
				die("%s: fill: allocation %zu returned id %ld, expected %zu", x->name,
				    i, id, i);
		} else if (p->insert(m, i, &x->slot[i]) != 0) {
			die("%s: fill: insert of key %zu failed", x->name, i);
		}
	}
	return (thread_cpu_ns() - t0) / (double)x->n;
}

/* Every slot's id is distinct, below n, and maps to the slot. */
static void verify_map(const struct idmap_ops *p, void *m, struct pass *x, const char *when)
{
	uint64_t *seen = xcalloc((x->n + 63) / 64, sizeof(*seen));
	size_t i;

	urcu_memb_read_lock();
	for (i = 0; i < x->n; i++) {
		unsigned long id = x->slot[i];
		void *item;

		if (id >= x->n)
			die("%s: %s: slot %zu holds id %lu, beyond the %zu ids", x->name, when, i,
			    id, x->n);
		if (seen[id / 64] & (1ULL << (id % 64)))
			die("%s: %s: id %lu held by two slots", x->name, when, id);
		seen[id / 64] |= 1ULL << (id % 64);
		item = p->find(m, id);
		if (item != &x->slot[i])
			die("%s: %s: id %lu maps to %p, expected %p", x->name, when, id, item,
			    (void *)&x->slot[i]);
	}
	urcu_memb_read_unlock();
	free(seen);
}

/*
 * Free three random ids, in an order that is neither ascending nor
 * descending, and allocate three: a lowest-free peer must return them in
 * ascending order, the free list in the reverse order of the frees.
 * Untimed; leaves the map as it was.
 */
static void check_lowest(const struct idmap_ops *p, void *m, struct pass *x, struct rng *r)
{
	unsigned long ids[3], want[3];
	int i;

	if (!p->alloc || x->n < 3)
		return;
	ids[0] = rng_below(r, x->n);
	do
		ids[1] = rng_below(r, x->n);
	while (ids[1] == ids[0]);
	do
		ids[2] = rng_below(r, x->n);
	while (ids[2] == ids[0] || ids[2] == ids[1]);
	/* want[]: ascending; ids[]: the free order, middle, highest, lowest. */
	for (i = 0; i < 3; i++)
		want[i] = ids[i];
	for (i = 0; i < 2; i++) {
		int j;

		for (j = 0; j < 2 - i; j++)
			if (want[j] > want[j + 1]) {
				unsigned long tmp = want[j];

				want[j] = want[j + 1];
				want[j + 1] = tmp;
			}
	}
	ids[0] = want[1];
	ids[1] = want[2];
	ids[2] = want[0];
	for (i = 0; i < 3; i++)
		if (p->remove(m, ids[i]) != &x->slot[ids[i]])
			die("%s: removing id %lu did not return its item", x->name, ids[i]);
	for (i = 0; i < 3; i++) {
		/* The free list hands the last freed first. */
		unsigned long expect = p->lowest ? want[i] : ids[2 - i];
		long id = p->alloc(m, &x->slot[expect]);

		if (id != (long)expect)
			die("%s: with ids %lu, %lu, %lu free, allocation %d returned %ld, "
			    "expected %lu%s",
			    x->name, want[0], want[1], want[2], i + 1, id, expect,
			    p->lowest ? " (the lowest free id)" : " (the last freed)");
	}
}

/* One remove+alloc pair on map @m (called @name in messages), where slot k
 * holds id k: remove a random id, get it back (the only free id).  The
 * plain tree inserts it again. */
static inline void churn_step(const char *name, const struct idmap_ops *p, void *m,
			      struct pass *x, struct rng *r, size_t lo, size_t span)
{
	unsigned long k = lo + rng_below(r, span);
	void *item = p->remove(m, k);

	if (item != &x->slot[k])
		die("%s: removing id %lu returned %p, expected %p", name, k, item,
		    (void *)&x->slot[k]);
	if (p->alloc) {
		long id = p->alloc(m, item);

		if (id != (long)k)
			die("%s: with only id %lu free, allocation returned %ld", name, k, id);
	} else if (p->insert(m, k, item) != 0) {
		die("%s: insert of key %lu failed", name, k);
	}
}

/* Single-thread churn on the ids @lo .. @lo + @span - 1: ns per pair (CPU
 * time), after an untimed eighth. */
static double churn1(const struct idmap_ops *p, void *m, struct pass *x, size_t pairs,
		     uint64_t seed, size_t lo, size_t span)
{
	struct rng r;
	size_t i;
	double t0;

	rng_seed(&r, seed);
	for (i = 0; i < pairs / 8; i++)
		churn_step(x->name, p, m, x, &r, lo, span);
	t0 = thread_cpu_ns();
	for (i = 0; i < pairs; i++)
		churn_step(x->name, p, m, x, &r, lo, span);
	return (thread_cpu_ns() - t0) / (double)pairs;
}

/* ---- two threads churning ----------------------------------------------- */

struct churner {
	const struct idmap_ops *p;
	void *m;
	struct pass *x;
	size_t lo, hi; /* the slots this thread owns */
	size_t pairs;
	uint64_t seed;
	int cpu;
	pthread_barrier_t *start;
	pthread_t tid;
	double cpu_ns;          /* the thread's CPU time while churning */
	double wall0, wall1;    /* when it started and ended */
};

static void *churner_main(void *arg)
{
	struct churner *ch = arg;
	const struct idmap_ops *p = ch->p;
	struct pass *x = ch->x;
	struct rng r;
	size_t i;

	bench_thread_start(&r, ch->seed, ch->cpu, ch->start);
	ch->wall0 = now_ns();
	ch->cpu_ns = thread_cpu_ns();
	for (i = 0; i < ch->pairs; i++) {
		size_t s = ch->lo + rng_below(&r, ch->hi - ch->lo);
		unsigned long old = x->slot[s];
		void *item = p->remove(ch->m, old);
		long id;

		if (item != &x->slot[s])
			die("%s: 2 threads: removing id %lu returned %p, expected %p", x->name, old,
			    item, (void *)&x->slot[s]);
		id = p->alloc(ch->m, item);
		/* At most two ids are free at a time, all below N: so is the
		 * lowest free one, and every id on the free list. */
		if (id < 0 || (size_t)id >= x->n)
			die("%s: 2 threads: allocation returned %ld with %zu ids live", x->name, id,
			    x->n - 1);
		x->slot[s] = (unsigned long)id;
	}
	ch->cpu_ns = thread_cpu_ns() - ch->cpu_ns;
	ch->wall1 = now_ns();
	urcu_memb_unregister_thread();
	return NULL;
}

/* Two threads, each removing its own ids and allocating: ns per pair over
 * both, wall time; *@cpu: the CPU time of both per pair. */
static double churn2(const struct idmap_ops *p, void *m, struct pass *x, size_t pairs,
		     uint64_t seed, double *cpu)
{
	struct churner ch[2];
	pthread_barrier_t start;
	double t0;
	int i;

	pthread_barrier_init(&start, NULL, 2);
	for (i = 0; i < 2; i++) {
		ch[i] = (struct churner){ .p = p, .m = m, .x = x, .pairs = pairs / 2,
					  .seed = seed + (uint64_t)i, .cpu = measure_cpu + i,
					  .start = &start };
		ch[i].lo = (size_t)i * (x->n / 2);
		ch[i].hi = i ? x->n : x->n / 2;
		if (pthread_create(&ch[i].tid, NULL, churner_main, &ch[i]))
			die("pthread_create failed");
	}
	for (i = 0; i < 2; i++)
		pthread_join(ch[i].tid, NULL);
	/* From the first start to the last end, as the threads saw them. */
	t0 = (ch[0].wall1 > ch[1].wall1 ? ch[0].wall1 : ch[1].wall1) -
	     (ch[0].wall0 < ch[1].wall0 ? ch[0].wall0 : ch[1].wall0);
	pthread_barrier_destroy(&start);
	verify_map(p, m, x, "after 2 threads churned");
	*cpu = (ch[0].cpu_ns + ch[1].cpu_ns) / (double)(2 * (pairs / 2));
	return t0 / (double)(2 * (pairs / 2));
}

/* ---- lookups: a reader, alone or next to a churning writer -------------- */

/*
 * A lookup of live id @id by a reader found @item: true if it is the id's
 * item.  Next to a writer (@writer), an id may be between its remove and
 * its alloc: absent (false), never another item; anything else stops the
 * run.
 */
static bool lookup_ok(const struct pass *x, const char *name, unsigned long id, void *item,
		      bool writer)
{
	if (item == &x->slot[id])
		return true;
	if (item || !writer)
		die("%s: lookup of id %lu found %p, expected %p", name, id, item,
		    (void *)&x->slot[id]);
	return false;
}

struct lookup_run {
	const struct idmap_ops *p;
	void *m;
	struct pass *x;
	size_t ops;
	bool writer;
	uint64_t seed;
	pthread_barrier_t start;
	int writing; /* the writer has done a pair; the reader waits for it */
	int stop;    /* the reader is done; the writer polls it */
	/* Results. */
	double reader_ns;  /* CPU ns per lookup */
	size_t nulls;      /* lookups that found the id removed for a moment */
	double writer_ns;  /* CPU ns per pair of the writer */
};

static void *reader_main(void *arg)
{
	struct lookup_run *run = arg;
	const struct idmap_ops *p = run->p;
	struct pass *x = run->x;
	size_t i, k = 0, nulls = 0;
	uintptr_t sum = 0;
	double t0;

	pin_to_cpu(measure_cpu);
	urcu_memb_register_thread();
	pthread_barrier_wait(&run->start);
	while (run->writer && !uatomic_read(&run->writing))
		caa_cpu_relax();
	for (i = 0; i < run->ops / 8; i++) {
		sum += (uintptr_t)p->find(run->m, x->order[k]);
		if (++k == x->n)
			k = 0;
	}
	t0 = thread_cpu_ns();
	for (i = 0; i < run->ops; i++) {
		unsigned long id = x->order[k];
		void *item = p->find(run->m, id);

		if (!lookup_ok(x, x->name, id, item, run->writer))
			nulls++;
		sum += (uintptr_t)item;
		if (++k == x->n)
			k = 0;
	}
	run->reader_ns = (thread_cpu_ns() - t0) / (double)run->ops;
	run->nulls = nulls;
	sink += sum;
	uatomic_set(&run->stop, 1);
	urcu_memb_unregister_thread();
	return NULL;
}

static void *writer_main(void *arg)
{
	struct lookup_run *run = arg;
	struct rng r;
	size_t pairs = 0;
	double t0;

	rng_seed(&r, run->seed);
	pin_to_cpu(measure_cpu + 1);
	urcu_memb_register_thread();
	pthread_barrier_wait(&run->start);
	t0 = thread_cpu_ns();
	while (!uatomic_read(&run->stop)) {
		churn_step(run->x->name, run->p, run->m, run->x, &r, 0, run->x->n);
		if (!pairs++)
			uatomic_set(&run->writing, 1);
	}
	run->writer_ns = pairs ? (thread_cpu_ns() - t0) / (double)pairs : NAN;
	urcu_memb_unregister_thread();
	return NULL;
}

/* Run @reader, and @writer unless NULL, on @arg, released together by
 * barrier @start; wait for both. */
static void reader_beside_writer(void *(*reader)(void *), void *(*writer)(void *), void *arg,
				 pthread_barrier_t *start)
{
	pthread_t rt, wt;

	pthread_barrier_init(start, NULL, writer ? 2 : 1);
	if (pthread_create(&rt, NULL, reader, arg))
		die("pthread_create failed");
	if (writer && pthread_create(&wt, NULL, writer, arg))
		die("pthread_create failed");
	pthread_join(rt, NULL);
	if (writer)
		pthread_join(wt, NULL);
	pthread_barrier_destroy(start);
}

static void lookups(struct lookup_run *run)
{
	uatomic_set(&run->stop, 0);
	uatomic_set(&run->writing, 0);
	reader_beside_writer(reader_main, run->writer ? writer_main : NULL, run, &run->start);
}

/* ---- the idr_find target: the same keys, in turns ----------------------- */

/*
 * idr_find() and radix_tree_lookup() run the same descent, so the target
 * asks whether the IDR's tree, entry points and writer cost its readers
 * anything, a difference of a few percent.  The table's two columns are
 * measured seconds apart, and a shared machine's speed moves by more than
 * that between them.  Here both maps live at once, built the same way, and
 * one reader takes turns between them: a slice of lookups of the same keys
 * on each (16,384; 256 with --quick), the order swapped every round.  Next to a writer, the
 * writer churns on the map being read, so that each map is measured next
 * to its own writer (idr_remove() + idr_alloc(), radix_tree_delete() +
 * radix_tree_insert()).  A burst of noise lands on both maps of a round:
 * the median of the rounds' ratios is the figure, and its quartiles say
 * how far the noise moved it.
 */
struct pair_run {
	const struct idmap_ops *p[2]; /* [0] the IDR, [1] the plain tree */
	void *m[2];
	struct pass *x;
	size_t rounds, slice;
	bool writer;
	uint64_t seed;
	pthread_barrier_t start;
	int reading; /* the map the reader is in: the writer churns on it */
	int writing; /* the writer has done a pair; the reader waits for it */
	int stop;    /* the reader is done; the writer polls it */
	double *ns[2]; /* CPU ns per lookup, per round and map */
};

/* One slice of lookups on map @w, keys x->order[@k...]: CPU ns per lookup. */
static double pair_slice(struct pair_run *run, int w, size_t k)
{
	const struct idmap_ops *p = run->p[w];
	struct pass *x = run->x;
	uintptr_t sum = 0;
	double t0;
	size_t i;

	/* The writer follows the reader to this map (pair_writer_main()). */
	uatomic_set(&run->reading, w);
	t0 = thread_cpu_ns();
	for (i = 0; i < run->slice; i++) {
		unsigned long id = x->order[k];
		void *item = p->find(run->m[w], id);

		lookup_ok(x, peers[w ? C_TREE : C_RR]->name, id, item, run->writer);
		sum += (uintptr_t)item;
		if (++k == x->n)
			k = 0;
	}
	sink += sum;
	return (thread_cpu_ns() - t0) / (double)run->slice;
}

static void *pair_reader_main(void *arg)
{
	struct pair_run *run = arg;
	size_t r, k = 0;

	pin_to_cpu(measure_cpu);
	urcu_memb_register_thread();
	pthread_barrier_wait(&run->start);
	/* Timed next to a writer only once it is churning. */
	while (run->writer && !uatomic_read(&run->writing))
		caa_cpu_relax();
	/* An untimed round first, then each round the same keys on both. */
	for (r = 0; r <= run->rounds; r++) {
		int first = (int)(r % 2);
		double ns[2];

		ns[first] = pair_slice(run, first, k);
		ns[!first] = pair_slice(run, !first, k);
		if (r) {
			run->ns[0][r - 1] = ns[0];
			run->ns[1][r - 1] = ns[1];
		}
		k = (k + run->slice) % run->x->n;
	}
	uatomic_set(&run->stop, 1);
	urcu_memb_unregister_thread();
	return NULL;
}

static void *pair_writer_main(void *arg)
{
	struct pair_run *run = arg;
	bool started = false;
	struct rng r;

	rng_seed(&r, run->seed);
	pin_to_cpu(measure_cpu + 1);
	urcu_memb_register_thread();
	pthread_barrier_wait(&run->start);
	while (!uatomic_read(&run->stop)) {
		/* May lag the reader's switch by a pair: harmless, each map
		 * still has one writer, and a pair is whole under its lock. */
		int w = uatomic_read(&run->reading);

		churn_step(peers[w ? C_TREE : C_RR]->name, run->p[w], run->m[w], run->x, &r, 0,
			   run->x->n);
		if (!started) {
			started = true;
			uatomic_set(&run->writing, 1);
		}
	}
	urcu_memb_unregister_thread();
	return NULL;
}

/* The rounds of @run, with a writer or without. */
static void pair_rounds(struct pair_run *run)
{
	uatomic_set(&run->stop, 0);
	uatomic_set(&run->writing, 0);
	uatomic_set(&run->reading, 0);
	reader_beside_writer(pair_reader_main, run->writer ? pair_writer_main : NULL, run,
			     &run->start);
}

/* One line of the target: the median ratio of the rounds, its quartiles,
 * and the verdict; the CSV's target row under the name @csv_op. */
static void pair_report(struct pair_run *run, const char *what, const char *csv_op,
			FILE *out, FILE *csv)
{
	size_t n = run->rounds, i;
	double *ratio = xcalloc(n, sizeof(*ratio));
	double q1, q2, q3, a, b;
	const char *verdict;

	for (i = 0; i < n; i++)
		ratio[i] = run->ns[0][i] / run->ns[1][i];
	q1 = quantile(ratio, n, 0.25);
	q2 = quantile(ratio, n, 0.5);
	q3 = quantile(ratio, n, 0.75);
	a = median(run->ns[0], n);
	b = median(run->ns[1], n);
	verdict = q2 <= 1.10 ? "met" : "MISSED";
	fprintf(out, "%-40s %7.3g vs %-7.3g ratio %5.3f [%.3f..%.3f]  (target <= 1.10)  %s\n",
		what, a, b, q2, q1, q3, verdict);
	if (csv)
		fprintf(csv, "target,churn and lookups,%zu,%s,<= 1.10,%s,%.6g,%.6g,%.6g,0\n",
			run->x->n, csv_op, verdict, q2, a, b);
	free(ratio);
}

/* The idr_find target at N = x->n: alone, then next to a writer. */
static void run_lookup_target(const struct config *c, struct pass *x, FILE *out, FILE *csv)
{
	struct pair_run run;
	int w;

	memset(&run, 0, sizeof(run));
	run.p[0] = &map_rr;
	run.p[1] = &map_tree;
	run.x = x;
	run.rounds = c->quick ? 8 : 200; /* even: each map first as often */
	run.slice = c->quick ? 256 : 16384;
	run.seed = c->seed * 1000003 + 7;
	for (w = 0; w < 2; w++) {
		x->name = peers[w ? C_TREE : C_RR]->name;
		run.m[w] = run.p[w]->create(x->n);
		fill(run.p[w], run.m[w], x);
		run.ns[w] = xcalloc(run.rounds, sizeof(double));
	}
	fprintf(out, "\n== target: idr_find within 10%% of radix_tree_lookup, N = %zu ==\n", x->n);
	fprintf(out, "both maps at once, one reader in turns: %zu rounds of %zu lookups of the "
		     "same random\nkeys on each, the order swapped every round; ns: medians of "
		     "the slices; ratio: median\nof the rounds' ratios [quartiles].  1R+1W: the "
		     "writer churns on the map being read.\n", run.rounds, run.slice);
	pair_rounds(&run);
	pair_report(&run, "lookup 1R ns: idr_find / tree lookup", "idr_find / radix_tree_lookup",
		    out, csv);
	run.writer = true;
	pair_rounds(&run);
	pair_report(&run, "lookup 1R+1W ns: idr_find / tree lookup",
		    "idr_find / radix_tree_lookup next to a writer", out, csv);
	for (w = 0; w < 2; w++) {
		x->name = peers[w ? C_TREE : C_RR]->name;
		verify_map(run.p[w], run.m[w], x, "after the paired lookups");
		run.p[w]->destroy(run.m[w]);
		free(run.ns[w]);
	}
	urcu_memb_barrier();
}

/* ---- table 1: churn and lookups at N ------------------------------------ */

#define OP_FILL "fill (alloc 0..N-1)"
#define OP_MEM "memory"
#define OP_CHURN1 "churn 1 thread"
#define OP_CHURN2 "churn 2 threads"
#define OP_CHURN2_CPU "churn 2 threads cpu"
#define OP_LOOKUP "lookup 1R"
#define OP_LOOKUP_W "lookup 1R+1W"
#define OP_WRITER "1R+1W writer"

static void idr_pass(int col, struct pass *x, int rep, struct table *t)
{
	const struct idmap_ops *p = maps[col];
	const struct config *c = x->c;
	size_t ops = ops_for(c, x->n);
	uint64_t seed = c->seed * 1000003 + (uint64_t)rep * 64;
	struct lookup_run run;
	struct rng r;
	void *m;

	x->name = peers[col]->name;
	m = p->create(x->n);
	record(t, col, OP_FILL, fill(p, m, x));
	record(t, col, OP_MEM, p->bytes(m, x->n) / (double)x->n);
	rng_seed(&r, seed);
	check_lowest(p, m, x, &r);
	record(t, col, OP_CHURN1, churn1(p, m, x, ops, seed + 1, 0, x->n));

	memset(&run, 0, sizeof(run));
	run.p = p;
	run.m = m;
	run.x = x;
	run.ops = ops;
	run.seed = seed + 2;
	lookups(&run);
	record(t, col, OP_LOOKUP, run.reader_ns);
	run.writer = true;
	lookups(&run);
	record(t, col, OP_LOOKUP_W, run.reader_ns);
	record(t, col, OP_WRITER, run.writer_ns);
	verify_map(p, m, x, "after the writer churned");

	/* Last: two threads move ids between their slots. */
	if (p->alloc) {
		double cpu;

		record(t, col, OP_CHURN2, churn2(p, m, x, ops, seed + 3, &cpu));
		record(t, col, OP_CHURN2_CPU, cpu);
	}
	p->destroy(m);
	urcu_memb_barrier(); /* the frees of this pass done before the next */
}

static void run_idr_table(const struct config *c, struct pass *x, struct table *t)
{
	int rep, col;

	name_columns(false);
	table_row(t, OP_FILL, "ns/id", false);
	table_row(t, OP_MEM, "B/id", false);
	table_row(t, OP_CHURN1, "ns/pair", false);
	table_row(t, OP_CHURN2, "ns/pair", false);
	table_row(t, OP_CHURN2_CPU, "ns/pair", false);
	table_row(t, OP_LOOKUP, "ns/op", false);
	table_row(t, OP_LOOKUP_W, "ns/op", false);
	table_row(t, OP_WRITER, "ns/pair", false);
	for (rep = 0; rep < c->reps; rep++) {
		for (col = 0; col < ncols; col++)
			idr_pass(col, x, rep, t);
		if (c->verbose)
			fprintf(stderr, "  churn and lookups N=%zu: repetition %d/%d done\n", x->n,
				rep + 1, c->reps);
	}
}

/* ---- table 2: the pair's cost against N --------------------------------- */

static const char *const by_n_rows[] = {
	"2^0 ids",  "2^1 ids",  "2^2 ids",  "2^3 ids",  "2^4 ids",  "2^5 ids",  "2^6 ids",
	"2^7 ids",  "2^8 ids",  "2^9 ids",  "2^10 ids", "2^11 ids", "2^12 ids", "2^13 ids",
	"2^14 ids", "2^15 ids", "2^16 ids", "2^17 ids", "2^18 ids", "2^19 ids", "2^20 ids",
	"2^21 ids", "2^22 ids", "2^23 ids", "2^24 ids",
};

/* The same rows on the newest ids only: HOT_IDS of them, few enough that
 * their paths stay in cache at every N, so that what grows with N is the
 * structure's own work (a scan for the lowest free id would), not the
 * cache misses of random ids. */
#define HOT_IDS 1024

static const char *const by_n_hot_rows[] = {
	[10] = "2^10 ids (hot)", [12] = "2^12 ids (hot)", [14] = "2^14 ids (hot)",
	[16] = "2^16 ids (hot)", [18] = "2^18 ids (hot)", [20] = "2^20 ids (hot)",
	[22] = "2^22 ids (hot)", [24] = "2^24 ids (hot)",
};

static void run_by_n_table(const struct config *c, struct pass *x, struct table *t)
{
	int l, rep, col;

	name_columns(false);
	for (l = 10; l <= c->by_n_max; l += 2)
		table_row(t, by_n_rows[l], "ns/pair", false);
	for (l = 10; l <= c->by_n_max; l += 2)
		table_row(t, by_n_hot_rows[l], "ns/pair", false);
	for (l = 10; l <= c->by_n_max; l += 2) {
		x->n = (size_t)1 << l;
		for (rep = 0; rep < c->reps; rep++) {
			for (col = 0; col < ncols; col++) {
				const struct idmap_ops *p = maps[col];
				uint64_t seed = c->seed * 1000003 + (uint64_t)(l * 64 + rep);
				void *m;

				x->name = peers[col]->name;
				m = p->create(x->n);
				fill(p, m, x);
				record(t, col, by_n_rows[l],
				       churn1(p, m, x, ops_for(c, x->n), seed, 0, x->n));
				record(t, col, by_n_hot_rows[l],
				       churn1(p, m, x, ops_for(c, x->n), seed + 32, x->n - HOT_IDS,
					      HOT_IDS));
				p->destroy(m);
				urcu_memb_barrier();
			}
		}
		if (c->verbose)
			fprintf(stderr, "  pair cost at N=2^%d done\n", l);
	}
}

/* ---- table 3: the IDA against a mutex and a bitmap ---------------------- */

#define OP_IDA_EMPTY "alloc+free when empty"
#define OP_IDA_FILL "fill (alloc 0..N-1)"
#define OP_IDA_CHURN "free+alloc churn"
#define OP_IDA_MEM "memory"

static void ida_pass(int col, const struct idalloc_ops *p, struct pass *x, int rep,
		     struct table *t)
{
	const struct config *c = x->c;
	size_t pairs = ops_for(c, x->n), i;
	struct rng r;
	double t0;
	void *a;
	long id;

	rng_seed(&r, c->seed * 1000003 + (uint64_t)rep * 64 + 5);
	a = p->create(x->n);
	/* An IDA that empties each time: one id taken and given back. */
	t0 = thread_cpu_ns();
	for (i = 0; i < pairs / 8 + pairs; i++) {
		if (i == pairs / 8)
			t0 = thread_cpu_ns();
		if ((id = p->alloc(a)) != 0)
			die("%s: an empty IDA's allocation returned %ld", x->name, id);
		p->free(a, 0);
	}
	record(t, col, OP_IDA_EMPTY, (thread_cpu_ns() - t0) / (double)pairs);
	t0 = thread_cpu_ns();
	for (i = 0; i < x->n; i++)
		if ((id = p->alloc(a)) != (long)i)
			die("%s: fill: allocation %zu returned id %ld", x->name, i, id);
	record(t, col, OP_IDA_FILL, (thread_cpu_ns() - t0) / (double)x->n);
	record(t, col, OP_IDA_MEM, p->bytes(a, x->n) / (double)x->n);

	/* Three ids free: they come back lowest first. */
	if (x->n >= 3) {
		unsigned long f[3] = { x->n / 2, x->n - 1, 1 }, want[3] = { 1, x->n / 2, x->n - 1 };

		for (i = 0; i < 3; i++)
			p->free(a, f[i]);
		for (i = 0; i < 3; i++)
			if ((id = p->alloc(a)) != (long)want[i])
				die("%s: with ids 1, %zu, %zu free, allocation %zu returned %ld "
				    "(not the lowest free id)",
				    x->name, x->n / 2, x->n - 1, i + 1, id);
	}
	for (i = 0; i < pairs / 8 + pairs; i++) {
		unsigned long k;

		if (i == pairs / 8)
			t0 = thread_cpu_ns();
		k = rng_below(&r, x->n);
		p->free(a, k);
		if ((id = p->alloc(a)) != (long)k)
			die("%s: with only id %lu free, allocation returned %ld", x->name, k, id);
	}
	record(t, col, OP_IDA_CHURN, (thread_cpu_ns() - t0) / (double)pairs);
	/* Still 0..N-1 exactly: the next id is N (none for the bitmap). */
	id = p->alloc(a);
	if (id != (p->full_at_n ? -ENOSPC : (long)x->n))
		die("%s: with ids 0..%zu allocated, allocation returned %ld", x->name, x->n - 1,
		    id);
	if (id >= 0)
		p->free(a, x->n);
	p->destroy(a);
	urcu_memb_barrier();
}

static void run_ida_table(const struct config *c, struct pass *x, struct table *t)
{
	int rep;

	name_columns(true);
	table_row(t, OP_IDA_EMPTY, "ns/pair", false);
	table_row(t, OP_IDA_FILL, "ns/id", false);
	table_row(t, OP_IDA_CHURN, "ns/pair", false);
	table_row(t, OP_IDA_MEM, "B/id", false);
	for (rep = 0; rep < c->reps; rep++) {
		x->name = peers[C_RR]->name;
		ida_pass(C_RR, &ida_rr, x, rep, t);
		x->name = peers[C_BITMAP]->name;
		ida_pass(C_BITMAP, &ida_bitmap, x, rep, t);
		if (ncols > C_KERNEL) {
			x->name = peers[C_KERNEL]->name;
			ida_pass(C_KERNEL, &ida_kernel, x, rep, t);
		}
	}
	if (c->verbose)
		fprintf(stderr, "  IDA N=%zu done\n", x->n);
}

/* ---- header, notes, targets --------------------------------------------- */

static void print_header(const struct config *c, FILE *out)
{
	print_machine(out, "idr-bench");
	fprintf(out, "flavor:    urcu-memb for rcuradix and lfht (read lock per lookup)\n");
	fprintf(out, "malloc():  %s (lfht nodes, bitmaps, free list)\n", malloc_library());
	fprintf(out, "structures:\n"
		     "  rcuradix IDR         idr_init(); idr_alloc(GFP_KERNEL) of the lowest free "
		     "id, idr_remove(),\n"
		     "                       idr_find() inside urcu_memb_read_lock()\n"
		     "  mutex+freelist+lfht  pthread mutex over a stack of freed ids + a "
		     "next-never-used counter\n"
		     "                       (NOT the lowest free id: the last freed one), "
		     "cds_lfht for lookups\n"
		     "  mutex+bitmap+lfht    pthread mutex over a 64-ary multi-level bitmap "
		     "(lowest free id,\n"
		     "                       pre-sized to N), cds_lfht for lookups; the IDA "
		     "table's mutex+bitmap\n"
		     "                       is the same bitmap and mutex without the table\n"
		     "  plain radix tree     radix_tree_insert/delete/lookup, keys 0..N-1: the "
		     "reference of idr_find\n"
		     "  cds_lfht: pre-sized to the next power of two >= N buckets, no resize; "
		     "updates outside the\n"
		     "  mutex, call_rcu frees; memory = nodes x %zu B (glibc chunk) + buckets "
		     "x 16 B\n",
		lf_node_chunk);
	if (ncols > C_KERNEL)
		fprintf(out,
			"  kernel IDR           --kernel %s:\n"
			"                       %s;\n"
			"                       idr_alloc(GFP_KERNEL) and idr_remove() under "
			"idr_lock() (xa_lock:\n"
			"                       a pthread mutex), idr_find() inside rcu_read_lock() "
			"(urcu-memb);\n"
			"                       kernel IDA: ida_alloc(GFP_KERNEL), ida_free(); slab "
			"and kmalloc():\n"
			"                       malloc() (above); memory: 576-byte nodes, 128-byte IDA "
			"bitmaps\n",
			kernel.path, kernel.describe);
	fprintf(out, "method:    %d interleaved repetitions (A B C D A B C D ...); cells: "
		     "median [min],\n           then peer/rcuradix of the medians; seed %llu\n",
		c->reps, (unsigned long long)c->seed);
	fprintf(out, "           times: the measuring thread's CPU time (preemption by other "
		     "programs excluded),\n           but churn 2 threads: wall time (and both "
		     "threads' CPU time: its cpu row)\n");
	fprintf(out, "           one-thread passes on CPU %d; 2 threads and lookups: CPUs %d and %d\n",
		measure_cpu, measure_cpu, (measure_cpu + 1) % cpus_online());
	fprintf(out, "           rcuradix memory: rcuradix_get_stats() bytes_live (less "
		     "reserved and pending)\n           after the build minus before\n");
	fprintf(out, "runs:      churn and lookups N = 2^%d; pair cost N = 2^10..2^%d; IDA "
		     "N = 2^%d;\n           %zu..%zu operations per measurement\n",
		c->log2n, c->by_n_max, c->log2n, c->min_ops, c->max_ops);
}

static void print_notes_idr(FILE *out)
{
	fprintf(out,
		"fill: ids 0..N-1 allocated in order (the tree: inserted).  churn: remove a random "
		"live id,\n"
		"allocate one: it gets the removed id back, the only free one (the tree inserts it "
		"again).\n"
		"churn 2 threads: each thread removes its own ids; ns per pair of both, wall time "
		"(cpu: the\n"
		"CPU time of both threads per pair, without the time asleep or preempted).  "
		"lookup 1R: one\n"
		"reader thread, random live ids; 1R+1W: the same next to a writer churning on the "
		"other CPU\n"
		"(its CPU time per pair: the 1R+1W writer row).  CPU time for the rest.\n"
		"mutex+freelist+lfht does not hand out the lowest free id (the last freed one).\n");
	if (ncols > C_KERNEL)
		fprintf(out, "kernel IDR: its alloc and remove each take the IDR's xa_lock "
			     "(idr_lock(), a pthread\nmutex), 1 thread or 2, as rcuradix's take "
			     "its tree's mutex.\n");
}

static double med(const struct table *t, const char *op, int col)
{
	int i;

	for (i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].op, op) == 0)
			return cell_ok(&t->rows[i].c[col]) ? cell_median(&t->rows[i].c[col]) : NAN;
	return NAN;
}

/*
 * One target of the list, on the medians of row @op: the ratio of
 * column @num's median to column @den's, held to @limit from below
 * (@at_least) or above, printed with its verdict and written as a CSV
 * target row.
 */
static void print_target(const struct table *t, const char *op, int num, int den,
			 const char *what, bool at_least, double limit, FILE *out, FILE *csv)
{
	double a = med(t, op, num), b = med(t, op, den), v = a / b;
	bool met = at_least ? v >= limit : v <= limit;
	const char *verdict = isnan(v) ? "n/a" : met ? "met" : "MISSED";
	const char *cmp = at_least ? ">=" : "<=";

	fprintf(out, "%-44s %7.3g vs %-7.3g = %6.3f  (target %s %.2f)  %s\n", what, a, b, v, cmp,
		limit, verdict);
	if (csv)
		fprintf(csv, "target,%s,%zu,%s,%s %.2f,%s,%.6g,%.6g,%.6g,0\n", t->title, t->n, what,
			cmp, limit, verdict, v, a, b);
}

/* The heading of the targets against the peers, defined at 2^20 ids. */
static void print_targets_heading(const struct table *t, FILE *out)
{
	fprintf(out, "\n== targets against the peers, N = %zu ==\n", t->n);
	if (t->n != (size_t)1 << 20)
		fprintf(out, "(the targets are defined at N = 2^20; these rows use the size this "
			     "run has)\n");
}

/* The targets against the peers in the same run: the churn of two threads
 * at least 3 times the free list's speed, idr_find next to a writer at
 * least twice cds_lfht's. */
static void print_idr_targets(const struct table *t, FILE *out, FILE *csv)
{
	print_targets_heading(t, out);
	print_target(t, OP_CHURN2, C_FREELIST, C_RR, "churn 2 threads ns: free list / rcuradix",
		     true, 3.0, out, csv);
	print_target(t, OP_LOOKUP_W, C_FREELIST, C_RR, "lookup 1R+1W ns: cds_lfht / idr_find", true,
		     2.0, out, csv);
}

/* The IDA's targets: its free+alloc at most 1.5 times the mutex and flat
 * bitmap's, its memory at most 0.2 bytes per id. */
static void print_ida_targets(const struct table *t, FILE *out, FILE *csv)
{
	double bytes = med(t, OP_IDA_MEM, C_RR);
	const char *verdict = isnan(bytes) ? "n/a" : bytes <= 0.2 ? "met" : "MISSED";

	print_targets_heading(t, out);
	print_target(t, OP_IDA_CHURN, C_RR, C_BITMAP, "IDA free+alloc ns: rcuradix / mutex+bitmap",
		     false, 1.5, out, csv);
	fprintf(out, "%-44s %7.3g %19s  (target <= 0.20)  %s\n", "IDA memory B/id", bytes, "",
		verdict);
	if (csv)
		fprintf(csv, "target,%s,%zu,IDA memory B/id,<= 0.20,%s,%.6g,%.6g,,0\n", t->title,
			t->n, verdict, bytes, bytes);
}

/* The pair against N: the IDR over the plain tree's delete+insert of the
 * same key at every N (the cost of finding the free id), and the growth. */
static void print_flatness(const struct config *c, const struct table *t, FILE *out)
{
	int l, col;

	fprintf(out, "rcuradix IDR / plain radix tree:");
	for (l = 10; l <= c->by_n_max; l += 2)
		fprintf(out, " %.2f (2^%d)", med(t, by_n_rows[l], C_RR) / med(t, by_n_rows[l], C_TREE),
			l);
	fprintf(out, "\n2^%d ids / 2^10 ids:", c->by_n_max);
	for (col = 0; col < ncols; col++)
		fprintf(out, "%s %s %.2f", col ? "," : "", peers[col]->name,
			med(t, by_n_rows[c->by_n_max], col) / med(t, by_n_rows[10], col));
	fprintf(out, "\nhot, 2^%d ids / 2^10 ids:", c->by_n_max);
	for (col = 0; col < ncols; col++)
		fprintf(out, "%s %s %.2f", col ? "," : "", peers[col]->name,
			med(t, by_n_hot_rows[c->by_n_max], col) / med(t, by_n_hot_rows[10], col));
	fprintf(out, "\n1 thread, CPU time: remove a random live id, allocate the lowest free one "
		     "(the free list:\nthe last freed); the tree deletes the key and inserts it "
		     "again.  Hot: the same on the\n%d newest ids only, whose paths stay in cache: "
		     "what grows with N there is the\nstructure's own work, not cache misses.\n",
		HOT_IDS);
}

/* ---- main --------------------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: idr-bench [options]\n"
		"  --n LOG2      live ids of the churn, lookup and IDA tables (10..24, default 20)\n"
		"  --reps K      interleaved repetitions (1..%d, default 5)\n"
		"  --full        the pair-cost table up to 2^%d ids (default 2^%d)\n"
		"  --quick       tiny: N = 2^10, pair cost at 2^10 and 2^12, one repetition, few\n"
		"                operations (make check)\n"
		"  --seed S      random seed (default 42)\n"
		"  --csv FILE    write every figure to FILE (rcuradix-bench's columns)\n"
		"  --kernel SO   the Linux kernel's IDR and IDA from SO as a fifth column, and\n"
		"                the targets against them (bench/kernel-idr.sh builds SO:\n"
		"                make bench-kernel-idr)\n"
		"  --cpu C       the CPU of the one-thread passes, of the readers and of the\n"
		"                first churning thread; the writer beside the readers and the\n"
		"                second churning thread take the next one (default 0)\n"
		"  --quiet       no progress on stderr\n",
		MAX_REPS, BY_N_MAX_FULL, BY_N_MAX);
}

static void parse(int argc, char **argv, struct config *c)
{
	static const struct option longopts[] = {
		{ "n", required_argument, NULL, 'n' },	  { "reps", required_argument, NULL, 'r' },
		{ "full", no_argument, NULL, 'F' },	  { "quick", no_argument, NULL, 'Q' },
		{ "seed", required_argument, NULL, 's' }, { "csv", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },	  { "help", no_argument, NULL, 'h' },
		{ "kernel", required_argument, NULL, 'k' }, { "cpu", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	bool n_set = false, reps_set = false;
	int opt;

	memset(c, 0, sizeof(*c));
	c->log2n = 20;
	c->reps = 5;
	c->by_n_max = BY_N_MAX;
	c->min_ops = (size_t)1 << 16;
	c->max_ops = (size_t)1 << 18;
	c->verbose = true;
	c->seed = 42;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			c->log2n = atoi(optarg);
			if (c->log2n < 10 || c->log2n > 24)
				die("--n: 10..24");
			n_set = true;
			break;
		case 'r':
			c->reps = atoi(optarg);
			if (c->reps < 1 || c->reps > MAX_REPS)
				die("--reps: 1..%d", MAX_REPS);
			reps_set = true;
			break;
		case 'F':
			c->full = true;
			break;
		case 'Q':
			c->quick = true;
			break;
		case 's':
			c->seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			c->csv = optarg;
			break;
		case 'q':
			c->verbose = false;
			break;
		case 'k':
			c->kernel = optarg;
			break;
		case 'C': {
			char *end;
			long cpu = strtol(optarg, &end, 10);

			if (end == optarg || *end || cpu < 0 || cpu >= cpus_online())
				die("--cpu: 0..%d", cpus_online() - 1);
			c->cpu = (int)cpu;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		usage(stderr);
		exit(2);
	}
	if (c->full)
		c->by_n_max = BY_N_MAX_FULL;
	if (c->quick) {
		if (!n_set)
			c->log2n = 10;
		if (!reps_set)
			c->reps = 1;
		if (!c->full)
			c->by_n_max = 12;
		c->min_ops = (size_t)1 << 12;
		c->max_ops = (size_t)1 << 14;
	}
}

int main(int argc, char **argv)
{
	struct config c;
	struct pass x;
	struct table t1 = { .section = "idr", .title = "churn and lookups" };
	struct table t2 = { .section = "idr", .title = "remove+alloc pair by live ids (rows)" };
	struct table t3 = { .section = "ida", .title = "free+alloc" };
	size_t nmax;
	FILE *csv = NULL;
	void *probe;

	parse(argc, argv, &c);
	if (c.kernel)
		kernel_load(c.kernel);
	/* The one-thread passes run on one CPU, the same for every structure:
	 * the CPUs of a shared machine can differ in speed by half, and a
	 * thread that moves between them would make the ratios of a run
	 * depend on where each pass ran.  The threads started below pin
	 * themselves; liburcu's call_rcu worker is started first, so that it
	 * inherits no pin and runs beside the measuring thread, not on its
	 * CPU. */
	urcu_memb_get_default_call_rcu_data();
	measure_cpu = c.cpu;
	pin_to_cpu(measure_cpu);
	urcu_memb_register_thread();
	probe = malloc(sizeof(struct lf_node));
	if (!probe)
		die("out of memory");
	lf_node_chunk = malloc_usable_size(probe) + sizeof(size_t);
	free(probe);
	if (c.csv) {
		csv = fopen(c.csv, "w");
		if (!csv)
			die("cannot write %s", c.csv);
		fprintf(csv, "section,keyset,n,op,unit,structure,median,min,ratio,reps\n");
	}
	print_header(&c, stdout);
	fflush(stdout);

	memset(&x, 0, sizeof(x));
	x.c = &c;
	nmax = (size_t)1 << (c.log2n > c.by_n_max ? c.log2n : c.by_n_max);
	x.slot = xcalloc(nmax, sizeof(*x.slot));

	/* Churn and lookups at N. */
	{
		struct rng r;
		size_t i;

		x.n = (size_t)1 << c.log2n;
		x.order = xcalloc(x.n, sizeof(*x.order));
		for (i = 0; i < x.n; i++)
			x.order[i] = i;
		rng_seed(&r, c.seed);
		shuffle_ulong(x.order, x.n, &r);
		t1.n = x.n;
		if (c.verbose)
			fprintf(stderr, "churn and lookups, N=%zu\n", x.n);
		run_idr_table(&c, &x, &t1);
		name_columns(false);
		table_print(&t1, stdout);
		print_notes_idr(stdout);
		print_idr_targets(&t1, stdout, csv);
		run_lookup_target(&c, &x, stdout, csv);
		free(x.order);
		x.order = NULL;
		if (ncols > C_KERNEL) {
			fprintf(stdout, "\n== target: rcuradix within the kernel's time, N = %zu ==\n",
				t1.n);
			print_target(&t1, OP_CHURN1, C_RR, C_KERNEL,
				     "churn 1 thread ns: rcuradix / kernel", false, 1.0, stdout, csv);
		}
		if (csv)
			table_csv(&t1, csv);
		fflush(stdout);
	}

	/* The pair's cost against N. */
	if (c.verbose)
		fprintf(stderr, "pair cost, N=2^10..2^%d\n", c.by_n_max);
	t2.n = (size_t)1 << c.by_n_max;
	run_by_n_table(&c, &x, &t2);
	name_columns(false);
	table_print(&t2, stdout);
	print_flatness(&c, &t2, stdout);
	if (csv)
		table_csv(&t2, csv);
	fflush(stdout);

	/* The IDA. */
	x.n = (size_t)1 << c.log2n;
	t3.n = x.n;
	if (c.verbose)
		fprintf(stderr, "IDA, N=%zu\n", x.n);
	run_ida_table(&c, &x, &t3);
	name_columns(true);
	table_print(&t3, stdout);
	fprintf(stdout, "alloc+free when empty: ida_alloc() of id 0 and ida_free() of it in "
			"an empty IDA (rcuradix\nallocates a 128-byte bitmap each time, held in "
			"the tree's root with no node; the kernel\nkeeps the bits of ids 0..61 in "
			"its root).\n");
	fprintf(stdout, "fill: ida_alloc() N times (ids 0..N-1); churn: free a random id, "
			"allocate the lowest free\n(the one just freed).  Memory: the IDA's "
			"nodes and 128-byte bitmaps (rcuradix_get_stats()),\nthe bitmap's "
			"words at its size for N ids.\n");
	print_ida_targets(&t3, stdout, csv);
	if (ncols > C_KERNEL) {
		fprintf(stdout, "kernel IDA: ida_alloc(GFP_KERNEL), ida_free(); memory: its "
				"576-byte nodes and 128-byte\nbitmaps at their size.\n");
		fprintf(stdout, "\n== target: rcuradix within the kernel's time, N = %zu ==\n",
			t3.n);
		print_target(&t3, OP_IDA_CHURN, C_RR, C_KERNEL, "IDA free+alloc ns: rcuradix / kernel",
			     false, 1.0, stdout, csv);
	}
	if (csv)
		table_csv(&t3, csv);

	table_free(&t1);
	table_free(&t2);
	table_free(&t3);
	free(x.slot);
	if (csv && fclose(csv))
		die("error writing %s", c.csv);
	urcu_memb_barrier();
	urcu_memb_unregister_thread();
	return 0;
}
