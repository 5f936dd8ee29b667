/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * peers.c - the structures rcuradix-bench compares, each behind struct
 * peer_ops: rcuradix, JudyL, JudyL behind a pthread_rwlock_t, liburcu's
 * cds_lfht and a flat array indexed by key.
 *
 * Each is used the way an application would use it: RCU structures take
 * the read-side lock per operation (urcu-memb, the tree's default flavor),
 * the rwlock peer takes its lock per operation.  Tags, which only rcuradix
 * has, are emulated the way a user would: one extra JudyL per tag mapping
 * tagged keys to their items, one bitmap per tag next to the flat array.
 */
#define _GNU_SOURCE 1
#include "config.h"

#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <Judy.h>
#include <rcuradix/radix-tree.h>
#include <urcu/rculfhash.h>

#if defined(RT_ALLOC_SLAB)
#define RCURADIX_ALLOCATOR "jemalloc (slab backend: 64 KiB slabs, one pool per node size)"
#elif defined(RT_ALLOC_JEMALLOC_ARENA)
#define RCURADIX_ALLOCATOR "jemalloc (private arena + explicit tcache per node)"
#elif defined(RT_ALLOC_JEMALLOC)
#define RCURADIX_ALLOCATOR "jemalloc (mallocx per node, jemalloc size classes)"
#elif defined(RT_ALLOC_LIBC)
#define RCURADIX_ALLOCATOR "glibc (aligned_alloc per node)"
#else
#define RCURADIX_ALLOCATOR "unknown"
#endif

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

/* ======================================================================== */
/* rcuradix */

static void *rr_create(const struct keyset *ks)
{
	struct radix_tree_root *root = xcalloc(1, sizeof(*root));

	(void)ks;
	radix_tree_init_flavor(root, GFP_KERNEL, &urcu_memb_flavor);
	return root;
}

static void rr_destroy(void *t)
{
	radix_tree_destroy(t);
	/* The root may be freed once no callback refers to it. */
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	free(t);
}

static int rr_insert(void *t, unsigned long key, void *item)
{
	return radix_tree_insert(t, key, item);
}

static int rr_insert_preload(void *t, unsigned long key, void *item)
{
	int ret;

	/* The kernel's pattern: reserve outside the lock, then insert. */
	if (radix_tree_preload(GFP_KERNEL))
		return -ENOMEM;
	ret = radix_tree_insert(t, key, item);
	radix_tree_preload_end();
	return ret;
}

static void *rr_lookup(void *t, unsigned long key)
{
	void *item;

	urcu_memb_read_lock();
	item = radix_tree_lookup(t, key);
	urcu_memb_read_unlock();
	return item;
}

static void *rr_remove(void *t, unsigned long key)
{
	return radix_tree_delete(t, key);
}

static unsigned int rr_gang(void *t, unsigned long start, void **out, unsigned int max)
{
	unsigned int n;

	urcu_memb_read_lock();
	n = radix_tree_gang_lookup(t, out, start, max);
	urcu_memb_read_unlock();
	return n;
}

static void *rr_pred(void *t, unsigned long *key)
{
	void *item;

	urcu_memb_read_lock();
	item = radix_tree_lookup_le(t, key);
	urcu_memb_read_unlock();
	return item;
}

static uintptr_t rr_walk(void *t, size_t *count)
{
	struct radix_tree_iter iter;
	uintptr_t sum = 0;
	size_t n = 0;
	void **slot;

	urcu_memb_read_lock();
	radix_tree_for_each_slot(slot, (struct radix_tree_root *)t, &iter, 0) {
		sum += (uintptr_t)rcu_dereference(*slot);
		n++;
	}
	urcu_memb_read_unlock();
	*count = n;
	return sum;
}

static void *rr_tag_set(void *t, unsigned long key, unsigned int tag)
{
	return radix_tree_tag_set(t, key, tag);
}

static unsigned int rr_gang_tag(void *t, unsigned long start, void **out, unsigned int max,
				unsigned int tag)
{
	unsigned int n;

	urcu_memb_read_lock();
	n = radix_tree_gang_lookup_tag(t, out, start, max, tag);
	urcu_memb_read_unlock();
	return n;
}

static uintptr_t rr_walk_tagged(void *t, unsigned int tag, size_t *count)
{
	struct radix_tree_iter iter;
	uintptr_t sum = 0;
	size_t n = 0;
	void **slot;

	urcu_memb_read_lock();
	radix_tree_for_each_tagged(slot, (struct radix_tree_root *)t, &iter, 0, tag) {
		sum += (uintptr_t)rcu_dereference(*slot);
		n++;
	}
	urcu_memb_read_unlock();
	*count = n;
	return sum;
}

static double rr_own_bytes(void *t)
{
	struct radix_tree_memstat mem;

	if (radix_tree_memory(t, &mem))
		return -1;
	return (double)mem.bytes;
}

static double rr_node_bytes(void *t)
{
	struct radix_tree_memstat mem;

	if (radix_tree_memory(t, &mem))
		return -1;
	return (double)mem.node_bytes;
}

static double rr_backing_bytes(void)
{
	struct rcuradix_stats st;

	if (rcuradix_get_stats(&st, sizeof(st)))
		return -1;
	return (double)st.backing_bytes;
}

static double rr_pending_bytes(void *t)
{
	struct rcuradix_stats st;

	(void)t;
	if (rcuradix_get_stats(&st, sizeof(st)))
		return 0;
	return (double)st.nodes_pending * (double)st.node_size;
}

/* Before the memory is read: the nodes the build copied and retired are
 * freed one grace period later; wait for it (the tree's settled memory is
 * measured, not what the call_rcu worker has yet to free), then give the
 * thread's reserve back (it is not the tree's). */
static void rr_settle(void)
{
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
}

const struct peer_ops peer_rcuradix = {
	.name = "rcuradix",
	.allocator = RCURADIX_ALLOCATOR,
	.caps = CAP_READERS | CAP_CONCURRENT_WRITER,
	.create = rr_create,
	.destroy = rr_destroy,
	.insert = rr_insert,
	.insert_preload = rr_insert_preload,
	.lookup = rr_lookup,
	.remove = rr_remove,
	.gang = rr_gang,
	.pred = rr_pred,
	.walk = rr_walk,
	.tag_set = rr_tag_set,
	.gang_tag = rr_gang_tag,
	.walk_tagged = rr_walk_tagged,
	.own_bytes = rr_own_bytes,
	.node_bytes = rr_node_bytes,
	.alloc_now = jemalloc_allocated,
	.backing_bytes = rr_backing_bytes,
	.pending_bytes = rr_pending_bytes,
	.thread_done = rr_settle,
};

/* ======================================================================== */
/* JudyL, and JudyL behind a pthread_rwlock_t */

struct jl {
	Pvoid_t a;
	Pvoid_t tag[2]; /* per tag: tagged key -> item */
	pthread_rwlock_t lock;
};

static void *jl_create(const struct keyset *ks)
{
	struct jl *j = xcalloc(1, sizeof(*j));

	(void)ks;
	pthread_rwlock_init(&j->lock, NULL);
	return j;
}

static void jl_destroy(void *t)
{
	struct jl *j = t;

	JudyLFreeArray(&j->a, PJE0);
	JudyLFreeArray(&j->tag[0], PJE0);
	JudyLFreeArray(&j->tag[1], PJE0);
	pthread_rwlock_destroy(&j->lock);
	free(j);
}

static int jl_insert(void *t, unsigned long key, void *item)
{
	struct jl *j = t;
	PPvoid_t pv = JudyLIns(&j->a, key, PJE0);

	if (pv == PPJERR)
		return -ENOMEM;
	if (*pv)
		return -EEXIST;
	*pv = item;
	return 0;
}

static void *jl_lookup(void *t, unsigned long key)
{
	struct jl *j = t;
	PPvoid_t pv = JudyLGet(j->a, key, PJE0);

	return pv ? *pv : NULL;
}

static void *jl_remove(void *t, unsigned long key)
{
	struct jl *j = t;
	PPvoid_t pv = JudyLGet(j->a, key, PJE0);
	void *item;
	int i;

	if (!pv)
		return NULL;
	item = *pv;
	JudyLDel(&j->a, key, PJE0);
	/* Like radix_tree_delete(), which clears the item's tags. */
	for (i = 0; i < 2; i++)
		if (j->tag[i])
			JudyLDel(&j->tag[i], key, PJE0);
	return item;
}

static unsigned int jl_first_next(Pcvoid_t a, unsigned long start, void **out, unsigned int max)
{
	Word_t idx = start;
	PPvoid_t pv;
	unsigned int n = 0;

	for (pv = JudyLFirst(a, &idx, PJE0); pv && n < max; pv = JudyLNext(a, &idx, PJE0))
		out[n++] = *pv;
	return n;
}

static uintptr_t jl_walk_array(Pcvoid_t a, size_t *count)
{
	Word_t idx = 0;
	PPvoid_t pv;
	uintptr_t sum = 0;
	size_t n = 0;

	for (pv = JudyLFirst(a, &idx, PJE0); pv; pv = JudyLNext(a, &idx, PJE0)) {
		sum += (uintptr_t)*pv;
		n++;
	}
	*count = n;
	return sum;
}

static unsigned int jl_gang(void *t, unsigned long start, void **out, unsigned int max)
{
	return jl_first_next(((struct jl *)t)->a, start, out, max);
}

static void *jl_pred(void *t, unsigned long *key)
{
	Word_t index = *key;
	PPvoid_t pv = JudyLLast(((struct jl *)t)->a, &index, PJE0);

	if (!pv || pv == PPJERR)
		return NULL;
	*key = index;
	return *pv;
}

static uintptr_t jl_walk(void *t, size_t *count)
{
	return jl_walk_array(((struct jl *)t)->a, count);
}

static void *jl_tag_set(void *t, unsigned long key, unsigned int tag)
{
	struct jl *j = t;
	PPvoid_t pv = JudyLGet(j->a, key, PJE0), tv;

	if (!pv || tag > 1)
		return NULL;
	tv = JudyLIns(&j->tag[tag], key, PJE0);
	if (tv == PPJERR)
		return NULL;
	*tv = *pv;
	return *pv;
}

static unsigned int jl_gang_tag(void *t, unsigned long start, void **out, unsigned int max,
				unsigned int tag)
{
	return jl_first_next(((struct jl *)t)->tag[tag], start, out, max);
}

static uintptr_t jl_walk_tagged(void *t, unsigned int tag, size_t *count)
{
	return jl_walk_array(((struct jl *)t)->tag[tag], count);
}

static double jl_own_bytes(void *t)
{
	struct jl *j = t;

	return (double)(JudyLMemUsed(j->a) + JudyLMemUsed(j->tag[0]) + JudyLMemUsed(j->tag[1]));
}

/* Judy's count of the bytes in its nodes of the item array (the tag arrays
 * are empty when memory is measured). */
static double jl_node_bytes(void *t)
{
	return (double)JudyLMemUsed(((struct jl *)t)->a);
}

const struct peer_ops peer_judyl = {
	.name = "judyl",
	.allocator = "glibc malloc",
	.caps = CAP_READERS,
	.create = jl_create,
	.destroy = jl_destroy,
	.insert = jl_insert,
	.lookup = jl_lookup,
	.remove = jl_remove,
	.gang = jl_gang,
	.pred = jl_pred,
	.walk = jl_walk,
	.tag_set = jl_tag_set,
	.gang_tag = jl_gang_tag,
	.walk_tagged = jl_walk_tagged,
	.own_bytes = jl_own_bytes,
	.node_bytes = jl_node_bytes,
	.alloc_now = glibc_allocated,
};

/* The same calls, each under the lock: what "just add a lock" gives. */
#define JLR_READ(j, expr)                                    \
	({                                                   \
		pthread_rwlock_rdlock(&(j)->lock);           \
		__typeof__(expr) _r = (expr);                \
		pthread_rwlock_unlock(&(j)->lock);           \
		_r;                                          \
	})
#define JLR_WRITE(j, expr)                                   \
	({                                                   \
		pthread_rwlock_wrlock(&(j)->lock);           \
		__typeof__(expr) _r = (expr);                \
		pthread_rwlock_unlock(&(j)->lock);           \
		_r;                                          \
	})

static int jlr_insert(void *t, unsigned long key, void *item)
{
	return JLR_WRITE((struct jl *)t, jl_insert(t, key, item));
}

static void *jlr_lookup(void *t, unsigned long key)
{
	return JLR_READ((struct jl *)t, jl_lookup(t, key));
}

static void *jlr_remove(void *t, unsigned long key)
{
	return JLR_WRITE((struct jl *)t, jl_remove(t, key));
}

static unsigned int jlr_gang(void *t, unsigned long start, void **out, unsigned int max)
{
	return JLR_READ((struct jl *)t, jl_gang(t, start, out, max));
}

static uintptr_t jlr_walk(void *t, size_t *count)
{
	return JLR_READ((struct jl *)t, jl_walk(t, count));
}

static void *jlr_tag_set(void *t, unsigned long key, unsigned int tag)
{
	return JLR_WRITE((struct jl *)t, jl_tag_set(t, key, tag));
}

static unsigned int jlr_gang_tag(void *t, unsigned long start, void **out, unsigned int max,
				 unsigned int tag)
{
	return JLR_READ((struct jl *)t, jl_gang_tag(t, start, out, max, tag));
}

static uintptr_t jlr_walk_tagged(void *t, unsigned int tag, size_t *count)
{
	return JLR_READ((struct jl *)t, jl_walk_tagged(t, tag, count));
}

const struct peer_ops peer_judyl_rwlock = {
	.name = "judyl+rwlock",
	.allocator = "glibc malloc",
	.caps = CAP_READERS | CAP_CONCURRENT_WRITER,
	.create = jl_create,
	.destroy = jl_destroy,
	.insert = jlr_insert,
	.lookup = jlr_lookup,
	.remove = jlr_remove,
	.gang = jlr_gang,
	.walk = jlr_walk,
	.tag_set = jlr_tag_set,
	.gang_tag = jlr_gang_tag,
	.walk_tagged = jlr_walk_tagged,
	.own_bytes = jl_own_bytes,
	.node_bytes = jl_node_bytes,
	.alloc_now = glibc_allocated,
};

/* ======================================================================== */
/* liburcu cds_lfht, pre-sized, same flavor as the tree (urcu-memb) */

struct lf {
	struct cds_lfht *ht;
	unsigned long buckets;
	unsigned long nodes;   /* W: the single writer; R: after it joined */
	unsigned long pending; /* nodes queued for call_rcu (atomic) */
};

struct lf_node {
	struct cds_lfht_node node;
	unsigned long key;
	void *item;
	struct rcu_head rcu;
	struct lf *owner;
};

static unsigned long lf_hash(unsigned long key)
{
	return mix64(key);
}

static int lf_match(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, struct lf_node, node)->key == *(const unsigned long *)key;
}

static void *lf_create(const struct keyset *ks)
{
	struct lf *l = xcalloc(1, sizeof(*l));
	unsigned long b = 1;

	while (b < ks->n)
		b <<= 1;
	/* Pre-sized to the key count, never resized: no resize can run
	 * during timing (one started from a small table distorts timings for
	 * minutes). */
	l->buckets = b;
	l->ht = cds_lfht_new_flavor(b, b, b, 0, &urcu_memb_flavor, NULL);
	if (!l->ht)
		die("cds_lfht_new_flavor failed");
	return l;
}

static void lf_free_cb(struct rcu_head *head)
{
	struct lf_node *n = caa_container_of(head, struct lf_node, rcu);

	/* Pairs with the increment in the remover; the call_rcu worker and
	 * the sampling thread read it concurrently. */
	uatomic_dec(&n->owner->pending);
	free(n);
}

static void *lf_remove(void *t, unsigned long key)
{
	struct lf *l = t;
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	void *item = NULL;

	/* lfht updates run inside a read-side section. */
	urcu_memb_read_lock();
	cds_lfht_lookup(l->ht, lf_hash(key), lf_match, &key, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node && cds_lfht_del(l->ht, node) == 0) {
		struct lf_node *n = caa_container_of(node, struct lf_node, node);

		item = n->item;
		l->nodes--;
		uatomic_inc(&l->pending);
		/* Readers may still hold the node: free after a grace period. */
		urcu_memb_call_rcu(&n->rcu, lf_free_cb);
	}
	urcu_memb_read_unlock();
	return item;
}

static void lf_destroy(void *t)
{
	struct lf *l = t;
	struct cds_lfht_iter iter;
	struct lf_node *n;

	urcu_memb_read_lock();
	cds_lfht_for_each_entry(l->ht, &iter, n, node) {
		if (cds_lfht_del(l->ht, &n->node) == 0) {
			uatomic_inc(&l->pending);
			urcu_memb_call_rcu(&n->rcu, lf_free_cb);
		}
	}
	urcu_memb_read_unlock();
	/* Every callback refers to @l: wait for them before freeing it. */
	urcu_memb_barrier();
	if (cds_lfht_destroy(l->ht, NULL))
		die("cds_lfht_destroy failed");
	free(l);
}

static int lf_insert(void *t, unsigned long key, void *item)
{
	struct lf *l = t;
	struct lf_node *n = malloc(sizeof(*n));
	struct cds_lfht_node *got;

	if (!n)
		return -ENOMEM;
	cds_lfht_node_init(&n->node);
	n->key = key;
	n->item = item;
	n->owner = l;
	urcu_memb_read_lock();
	got = cds_lfht_add_unique(l->ht, lf_hash(key), lf_match, &key, &n->node);
	urcu_memb_read_unlock();
	if (got != &n->node) {
		free(n);
		return -EEXIST;
	}
	l->nodes++;
	return 0;
}

static void *lf_lookup(void *t, unsigned long key)
{
	struct lf *l = t;
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	void *item = NULL;

	urcu_memb_read_lock();
	cds_lfht_lookup(l->ht, lf_hash(key), lf_match, &key, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node)
		item = caa_container_of(node, struct lf_node, node)->item;
	urcu_memb_read_unlock();
	return item;
}

/* Unordered: a full walk is possible, an ordered gang lookup is not. */
static uintptr_t lf_walk(void *t, size_t *count)
{
	struct lf *l = t;
	struct cds_lfht_iter iter;
	struct lf_node *n;
	uintptr_t sum = 0;
	size_t c = 0;

	urcu_memb_read_lock();
	cds_lfht_for_each_entry(l->ht, &iter, n, node) {
		sum += (uintptr_t)n->item;
		c++;
	}
	urcu_memb_read_unlock();
	*count = c;
	return sum;
}

static double lf_own_bytes(void *t)
{
	struct lf *l = t;

	return (double)l->nodes * (double)sizeof(struct lf_node) +
	       (double)l->buckets * (double)sizeof(struct cds_lfht_node);
}

static double lf_pending_bytes(void *t)
{
	struct lf *l = t;

	return (double)uatomic_read(&l->pending) * (double)sizeof(struct lf_node);
}

const struct peer_ops peer_lfht = {
	.name = "lfht",
	.allocator = "glibc malloc",
	.caps = CAP_READERS | CAP_CONCURRENT_WRITER,
	.create = lf_create,
	.destroy = lf_destroy,
	.insert = lf_insert,
	.lookup = lf_lookup,
	.remove = lf_remove,
	.walk = lf_walk,
	.own_bytes = lf_own_bytes,
	.alloc_now = glibc_allocated,
	.pending_bytes = lf_pending_bytes,
};

/* ======================================================================== */
/* Flat array indexed by key: the physical floor for dense keys */

struct flat {
	void **a;
	size_t size;
	uint64_t *tag[2]; /* one bit per key */
};

static void *flat_create(const struct keyset *ks)
{
	struct flat *f;

	if (!ks->dense)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->size = ks->max_key + 1;
	f->a = xcalloc(f->size, sizeof(void *));
	/* Tag bitmaps come with the first tag, so the memory figure (taken
	 * before tagging) is the array alone, as for the other peers. */
	return f;
}

static void flat_destroy(void *t)
{
	struct flat *f = t;

	free(f->a);
	free(f->tag[0]);
	free(f->tag[1]);
	free(f);
}

static int flat_insert(void *t, unsigned long key, void *item)
{
	struct flat *f = t;

	if (key >= f->size)
		return -EINVAL;
	if (f->a[key])
		return -EEXIST;
	/* Release: a concurrent reader sees the item initialised. */
	__atomic_store_n(&f->a[key], item, __ATOMIC_RELEASE);
	return 0;
}

static void *flat_lookup(void *t, unsigned long key)
{
	struct flat *f = t;

	/* Consume (acquire here): pairs with the release store above. */
	return key < f->size ? __atomic_load_n(&f->a[key], __ATOMIC_ACQUIRE) : NULL;
}

static void *flat_remove(void *t, unsigned long key)
{
	struct flat *f = t;
	void *item;

	if (key >= f->size)
		return NULL;
	item = f->a[key];
	/* A single-word store: readers see the item or NULL. */
	__atomic_store_n(&f->a[key], NULL, __ATOMIC_RELEASE);
	if (f->tag[0])
		f->tag[0][key / 64] &= ~(1ULL << (key % 64));
	if (f->tag[1])
		f->tag[1][key / 64] &= ~(1ULL << (key % 64));
	return item;
}

static unsigned int flat_gang(void *t, unsigned long start, void **out, unsigned int max)
{
	struct flat *f = t;
	unsigned int n = 0;
	size_t k;

	for (k = start; k < f->size && n < max; k++)
		if (f->a[k])
			out[n++] = f->a[k];
	return n;
}

static uintptr_t flat_walk(void *t, size_t *count)
{
	struct flat *f = t;
	uintptr_t sum = 0;
	size_t k, n = 0;

	for (k = 0; k < f->size; k++)
		if (f->a[k]) {
			sum += (uintptr_t)f->a[k];
			n++;
		}
	*count = n;
	return sum;
}

static void *flat_tag_set(void *t, unsigned long key, unsigned int tag)
{
	struct flat *f = t;

	if (key >= f->size || !f->a[key] || tag > 1)
		return NULL;
	if (!f->tag[tag])
		f->tag[tag] = xcalloc(f->size / 64 + 1, sizeof(uint64_t));
	f->tag[tag][key / 64] |= 1ULL << (key % 64);
	return f->a[key];
}

static unsigned int flat_gang_tag(void *t, unsigned long start, void **out, unsigned int max,
				  unsigned int tag)
{
	struct flat *f = t;
	const uint64_t *bits = f->tag[tag];
	size_t w, nw = f->size / 64 + 1;
	unsigned int n = 0;

	if (start >= f->size || !bits)
		return 0;
	for (w = start / 64; w < nw && n < max; w++) {
		uint64_t word = bits[w];

		if (w == start / 64)
			word &= ~0ULL << (start % 64);
		while (word && n < max) {
			out[n++] = f->a[w * 64 + (size_t)__builtin_ctzll(word)];
			word &= word - 1;
		}
	}
	return n;
}

static uintptr_t flat_walk_tagged(void *t, unsigned int tag, size_t *count)
{
	struct flat *f = t;
	const uint64_t *bits = f->tag[tag];
	size_t w, nw = f->size / 64 + 1, n = 0;
	uintptr_t sum = 0;

	for (w = 0; bits && w < nw; w++) {
		uint64_t word = bits[w];

		while (word) {
			sum += (uintptr_t)f->a[w * 64 + (size_t)__builtin_ctzll(word)];
			n++;
			word &= word - 1;
		}
	}
	*count = n;
	return sum;
}

static double flat_own_bytes(void *t)
{
	struct flat *f = t;

	return (double)f->size * sizeof(void *);
}

const struct peer_ops peer_flat = {
	.name = "flat",
	.allocator = "glibc calloc (mmap)",
	.caps = CAP_READERS | CAP_CONCURRENT_WRITER,
	.create = flat_create,
	.destroy = flat_destroy,
	.insert = flat_insert,
	.lookup = flat_lookup,
	.remove = flat_remove,
	.gang = flat_gang,
	.walk = flat_walk,
	.tag_set = flat_tag_set,
	.gang_tag = flat_gang_tag,
	.walk_tagged = flat_walk_tagged,
	.own_bytes = flat_own_bytes,
	.alloc_now = glibc_allocated,
};

const struct peer_ops *const peers[NPEERS] = {
	&peer_rcuradix, &peer_judyl, &peer_judyl_rwlock, &peer_lfht, &peer_flat,
};
