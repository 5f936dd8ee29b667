/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node-alloc.c - the node allocator micro-benchmark.  Built once
 * per node backend (bench/node-alloc-bench-<backend>, each linked with a
 * copy of the library compiled with that -DRT_ALLOC_*), and driven by
 * bench/node-alloc-bench, which runs the copies interleaved and prints
 * medians.  A timed run prints "backend metric value" lines:
 *
 *   raw allocator (--raw; needs jemalloc), ns per alloc+free of one
 *   576-byte, 64-aligned node:
 *     je-auto-1 / -64     mallocx/sdallocx, jemalloc's automatic tcache, one at
 *                         a time / 64 allocations then 64 frees
 *     je-arena-1 / -64    a private arena with an explicit tcache
 *                         (arenas.create, tcache.create,
 *                         MALLOCX_ARENA|MALLOCX_TCACHE)
 *     je-arena-nocache-1  the private arena with MALLOCX_TCACHE_NONE (what
 *                         a call_rcu worker's free costs)
 *     glibc-1 / -64       glibc malloc/free (__libc_malloc, whatever malloc
 *                         the process uses)
 *   the library's own path, this backend:
 *     class<S>-1 / -64    rt_node_alloc + rt_node_free of S bytes, one at a
 *                         time / 64 then 64, S = 64, 128, 320, 576, 1152
 *     reserve-1           rt_nodes_get (the writer's per-thread reserve,
 *                         refilled in batches) + rt_node_free, 576 bytes
 *     rcu-free-1          rt_nodes_get + rt_node_free_deferred (call_rcu;
 *                         the worker frees), including the final barrier
 *     mix-<name>          (--mix FILE) a stream of alloc+free pairs whose
 *                         sizes are drawn from a node size distribution,
 *                         MIX_WINDOW nodes live (see mixed_stream())
 *     insert-dense / +preload     radix_tree_insert, 2^20 dense keys in random
 *                                 order, ns per insert, without / with preload
 *     insert-sparse / +preload    2^16 random 32-bit keys
 *
 * --tree KEYSET:LOG2 builds one tree of rcuradix-bench's key set instead
 * (same generator, same seed) and prints "backend tree KEYSET:LOG2 what
 * value" lines: the nodes of every size ("class<S>", "full": F nodes among
 * them), the bytes the same nodes would take in other compact-node
 * layouts ("layout-*", see census_layouts()) and what the tree costs the
 * allocator (see tree_memory()).
 */
#define _GNU_SOURCE 1
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define _LGPL_SOURCE 1
#include <urcu/urcu-memb.h>

#include "bench.h"
#include "preload.h"

#ifndef NODE_ALLOC_NO_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#if defined(RT_ALLOC_SLAB)
#define BACKEND "slab"
#elif defined(RT_ALLOC_JEMALLOC_ARENA)
#define BACKEND "jemalloc-arena"
#elif defined(RT_ALLOC_JEMALLOC)
#define BACKEND "jemalloc"
#elif defined(RT_ALLOC_LIBC)
#define BACKEND "libc"
#else
#error "no node backend"
#endif

#define NODE_SIZE 576
#define BATCH 64
/* Node sizes run from one line to RT_C_MAX_BYTES: one count per size. */
#define NCLASSES (RT_C_MAX_BYTES / RT_NODE_ALIGN + 1)
/* Live nodes of a mixed stream: 1 to 2.4 MB, past the L2 cache. */
#define MIX_WINDOW 4096
#define MIX_MAX 8

/* glibc's allocator, whichever malloc the process resolved. */
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *p);

static volatile uintptr_t sink;
static size_t iters = (size_t)1 << 20;

/* bench.h's helpers for bench/keys.c, this program's way. */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "node-alloc-bench-%s: ", BACKEND);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void report(const char *metric, double ns)
{
	printf("%s %s %.3f\n", BACKEND, metric, ns);
}

/* ---- raw allocators ------------------------------------------------------ */

typedef void *(*alloc_fn)(void *ctx);
typedef void (*free_fn)(void *ctx, void *p);

/* ns per alloc+free, one at a time (the same object comes back). */
static double one_at_a_time(alloc_fn a, free_fn f, void *ctx)
{
	size_t i;
	double t0;

	for (i = 0; i < iters / 16; i++)
		f(ctx, a(ctx));
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		void *p = a(ctx);

		if (!p)
			die("allocation failed");
		sink += (uintptr_t)p;
		f(ctx, p);
	}
	return (now_ns() - t0) / (double)iters;
}

/* ns per alloc+free, BATCH allocations then BATCH frees (cycles caches). */
static double batched(alloc_fn a, free_fn f, void *ctx)
{
	void *p[BATCH];
	size_t i, j, rounds = iters / BATCH;
	double t0 = now_ns();

	for (i = 0; i < rounds; i++) {
		for (j = 0; j < BATCH; j++) {
			p[j] = a(ctx);
			if (!p[j])
				die("allocation failed");
		}
		for (j = 0; j < BATCH; j++)
			f(ctx, p[j]);
	}
	return (now_ns() - t0) / (double)(rounds * BATCH);
}

static void *glibc_alloc(void *ctx)
{
	(void)ctx;
	return __libc_malloc(NODE_SIZE);
}

static void glibc_free(void *ctx, void *p)
{
	(void)ctx;
	__libc_free(p);
}

#ifndef NODE_ALLOC_NO_JEMALLOC
static void *je_alloc(void *ctx)
{
	return mallocx(NODE_SIZE, *(int *)ctx);
}

static void je_free(void *ctx, void *p)
{
	sdallocx(p, NODE_SIZE, *(int *)ctx);
}

static void raw_jemalloc(void)
{
	unsigned int arena, tcache;
	size_t len = sizeof(unsigned int);
	int flags = MALLOCX_ALIGN(64);

	report("je-auto-1", one_at_a_time(je_alloc, je_free, &flags));
	report("je-auto-64", batched(je_alloc, je_free, &flags));
	if (mallctl("arenas.create", &arena, &len, NULL, 0))
		die("arenas.create failed");
	len = sizeof(unsigned int);
	if (mallctl("tcache.create", &tcache, &len, NULL, 0))
		die("tcache.create failed");
	flags = MALLOCX_ALIGN(64) | MALLOCX_ARENA(arena) | MALLOCX_TCACHE(tcache);
	report("je-arena-1", one_at_a_time(je_alloc, je_free, &flags));
	report("je-arena-64", batched(je_alloc, je_free, &flags));
	flags = MALLOCX_ALIGN(64) | MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE;
	report("je-arena-nocache-1", one_at_a_time(je_alloc, je_free, &flags));
	if (mallctl("tcache.destroy", NULL, NULL, &tcache, sizeof(tcache)))
		die("tcache.destroy failed");
}
#endif

static void raw_glibc(void)
{
	report("glibc-1", one_at_a_time(glibc_alloc, glibc_free, NULL));
	report("glibc-64", batched(glibc_alloc, glibc_free, NULL));
}

/* ---- the library's path -------------------------------------------------- */

/* @ctx points to the object size. */
static void *backend_alloc(void *ctx)
{
	void *n = NULL;

	return rt_node_alloc(*(size_t *)ctx, &n, 1) == 1 ? n : NULL;
}

static void backend_free(void *ctx, void *p)
{
	rt_node_free(*(size_t *)ctx, &p, 1);
}

static void *reserve_alloc(void *ctx)
{
	void *n = NULL;
	size_t size = RT_NODE_SIZE;

	(void)ctx;
	return rt_nodes_get(&n, &size, 1, true) == 0 ? n : NULL;
}

/* Alloc+free pairs of one size class at a time. */
static void size_classes(void)
{
	static const size_t sizes[] = { 64, 128, 320, 576, 1152 };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size = sizes[i];
		char name[32];

		if (size > RT_C_MAX_BYTES || size % RT_NODE_ALIGN)
			continue; /* not a node size in this build */
		snprintf(name, sizeof(name), "class%zu-1", size);
		report(name, one_at_a_time(backend_alloc, backend_free, &size));
		snprintf(name, sizeof(name), "class%zu-64", size);
		report(name, batched(backend_alloc, backend_free, &size));
		rcuradix_thread_cache_flush();
	}
}

static double rcu_free_path(void)
{
	struct radix_tree_root root;
	size_t i;
	double t0;

	radix_tree_init_flavor(&root, GFP_KERNEL, &urcu_memb_flavor);
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		struct rt_node *n = reserve_alloc(NULL);

		if (!n)
			die("allocation failed");
		/* Deferred free, as for an unlinked node: the call_rcu worker
		 * returns it to the backend after a grace period. */
		rt_node_free_deferred(&root, rt_node_entry(n, 0));
	}
	urcu_memb_barrier();
	return (now_ns() - t0) / (double)iters;
}

/* ---- mixed streams ------------------------------------------------------- */

/* A node size distribution: weight[c] for nodes of c * RT_NODE_ALIGN bytes. */
struct mix {
	char name[48];
	double weight[NCLASSES];
};

/*
 * Read "NAME SIZE WEIGHT" lines (the driver derives them from the node
 * census of --tree runs); lines of one NAME form one distribution.
 */
static unsigned int mix_read(const char *path, struct mix *mixes)
{
	FILE *f = fopen(path, "r");
	unsigned int n = 0, i;
	char name[48];
	unsigned long size;
	double w;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fscanf(f, "%47s %lu %lf", name, &size, &w) == 3) {
		for (i = 0; i < n && strcmp(mixes[i].name, name); i++)
			;
		if (i == n) {
			if (n == MIX_MAX)
				die("%s: more than %d distributions", path, MIX_MAX);
			memset(&mixes[n], 0, sizeof(mixes[n]));
			snprintf(mixes[n].name, sizeof(mixes[n].name), "%s", name);
			n++;
		}
		if (size == 0 || size % RT_NODE_ALIGN || size / RT_NODE_ALIGN >= NCLASSES || w < 0)
			die("%s: bad line '%s %lu %g'", path, name, size, w);
		mixes[i].weight[size / RT_NODE_ALIGN] += w;
	}
	if (!feof(f))
		die("%s: not 'NAME SIZE WEIGHT' lines", path);
	fclose(f);
	return n;
}

/* A node size drawn with the cumulative weights @cum (inverse transform). */
static size_t mix_draw(const double *cum, struct rng *r)
{
	double u = (double)(rng_next(r) >> 11) * 0x1p-53 * cum[NCLASSES - 1];
	unsigned int c = 1;

	while (c < NCLASSES - 1 && cum[c] <= u)
		c++;
	return (size_t)c * RT_NODE_ALIGN;
}

/*
 * ns per alloc+free pair of a stream whose sizes follow @m: MIX_WINDOW
 * nodes live at every moment; each step frees a random one of them and
 * allocates a node of a drawn size in its place, then writes its first
 * word (as a node's header is written).  Sizes and victims are drawn
 * before the clock starts.
 */
static double mixed_stream(const struct mix *m, uint64_t seed)
{
	static void *live[MIX_WINDOW];
	static size_t live_size[MIX_WINDOW];
	double cum[NCLASSES], total = 0, t0, ns;
	uint16_t *size_of = malloc(iters * sizeof(*size_of));
	uint16_t *victim = malloc(iters * sizeof(*victim));
	struct rng r;
	size_t i;
	unsigned int c;

	if (!size_of || !victim)
		die("out of memory");
	for (c = 0; c < NCLASSES; c++)
		cum[c] = total += m->weight[c];
	if (total <= 0)
		die("mix %s: no weight", m->name);
	rng_seed(&r, seed);
	for (i = 0; i < iters; i++) {
		size_of[i] = (uint16_t)mix_draw(cum, &r);
		victim[i] = (uint16_t)rng_below(&r, MIX_WINDOW);
	}
	for (i = 0; i < MIX_WINDOW; i++) {
		live_size[i] = mix_draw(cum, &r);
		if (rt_node_alloc(live_size[i], &live[i], 1) != 1)
			die("allocation failed");
	}
	/* One untimed round of the window: every node replaced once. */
	for (i = 0; i < MIX_WINDOW; i++) {
		rt_node_free(live_size[i], &live[i], 1);
		live_size[i] = mix_draw(cum, &r);
		if (rt_node_alloc(live_size[i], &live[i], 1) != 1)
			die("allocation failed");
	}
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		unsigned int v = victim[i];

		rt_node_free(live_size[v], &live[v], 1);
		live_size[v] = size_of[i];
		if (rt_node_alloc(live_size[v], &live[v], 1) != 1)
			die("allocation failed");
		*(volatile uintptr_t *)live[v] = live_size[v];
	}
	ns = (now_ns() - t0) / (double)iters;
	for (i = 0; i < MIX_WINDOW; i++)
		rt_node_free(live_size[i], &live[i], 1);
	rcuradix_thread_cache_flush();
	free(size_of);
	free(victim);
	return ns;
}

static void mixes_run(const char *path)
{
	static struct mix mixes[MIX_MAX];
	unsigned int n = mix_read(path, mixes), i;

	for (i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "mix-%.47s", mixes[i].name);
		report(name, mixed_stream(&mixes[i], 42 + i));
	}
}

/* ---- inserts ------------------------------------------------------------- */

static void shuffle(unsigned long *a, size_t n, uint64_t *s)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j;
		unsigned long t;

		*s ^= *s << 13;
		*s ^= *s >> 7;
		*s ^= *s << 17;
		j = (size_t)(*s % i);
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ns per insert of @keys into a fresh tree; the tree is then emptied. */
static double time_insert(const unsigned long *keys, size_t n, bool preload)
{
	struct radix_tree_root root;
	size_t i;
	double t0, ns;

	radix_tree_init_flavor(&root, GFP_KERNEL, &urcu_memb_flavor);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int ret;

		if (preload && radix_tree_preload(GFP_KERNEL))
			die("preload failed");
		ret = radix_tree_insert(&root, keys[i], (void *)(uintptr_t)((keys[i] + 1) << 2));
		if (preload)
			radix_tree_preload_end();
		if (ret)
			die("insert failed");
	}
	ns = (now_ns() - t0) / (double)n;
	radix_tree_destroy(&root);
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	return ns;
}

static void inserts(void)
{
	size_t nd = iters, ns = iters / 16, i;
	unsigned long *dense = malloc(nd * sizeof(*dense));
	unsigned long *sparse = malloc(ns * sizeof(*sparse));
	uint64_t s = 42;

	if (!dense || !sparse)
		die("out of memory");
	for (i = 0; i < nd; i++)
		dense[i] = i;
	shuffle(dense, nd, &s);
	/* Distinct random 32-bit keys: a multiplicative hash of 0..n-1. */
	for (i = 0; i < ns; i++)
		sparse[i] = (unsigned long)(uint32_t)((i + 1) * 2654435761u);
	report("insert-dense", time_insert(dense, nd, false));
	report("insert-dense+preload", time_insert(dense, nd, true));
	report("insert-sparse", time_insert(sparse, ns, false));
	report("insert-sparse+preload", time_insert(sparse, ns, true));
	free(dense);
	free(sparse);
}

/* ---- one tree: its nodes by size, and what it costs the allocator -------- */

/*
 * The same nodes under other compact-node layouts: what the tree would
 * take if only the layout changed, entries and node kinds as they are.
 * Full nodes count their 576 bytes in each.  A compact node counts its
 * live entries only, with no room for appends (a settled tree's nodes
 * keep some), so each figure is a lower bound for its layout:
 *   layout-tight   today's entry layout and size classes
 *   layout-exact   today's entry layout, no size classes (bytes needed)
 *   layout-narrow  no size classes, and each suffix in the bytes its
 *                  level's bits need (3, 5, 6 or 7 as well as 1, 2, 4, 8)
 *   layout-narrow-h16-c16  the same with a 16-byte header (no rcu_head in
 *                  the node) in 16-byte size classes
 */
enum { LAYOUT_TIGHT, LAYOUT_EXACT, LAYOUT_NARROW, LAYOUT_NARROW_H16_C16, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {
	"layout-tight", "layout-exact", "layout-narrow", "layout-narrow-h16-c16",
};

struct census {
	unsigned long nodes, bytes, full;
	unsigned long per_class[NCLASSES];
	double layout[NLAYOUTS];
};

/* Add a compact node at @level with @live entries to each layout's total. */
static void census_layouts(struct census *c, unsigned int level, unsigned int live)
{
	size_t w = rt_sfx_width(level), narrow_w = (RT_LEVEL_BITS(level) + 7) / 8;
	size_t need = rt_cnode_slots_off((unsigned int)w, live) + live * sizeof(void *);
	size_t entry = narrow_w + 1 + sizeof(void *);  /* suffix, tag byte, slot */

	c->layout[LAYOUT_TIGHT] += (double)rt_class_round(need);
	c->layout[LAYOUT_EXACT] += (double)need;
	c->layout[LAYOUT_NARROW] += (double)(RT_C_HEADER + live * entry);
	c->layout[LAYOUT_NARROW_H16_C16] += (double)((16 + live * entry + 15) / 16 * 16);
}

/* Every node under @entry, by size (the tree lock is held). */
static void census_walk(const struct radix_tree_root *root, void *entry, struct census *c)
{
	size_t bytes = rt_entry_bytes(entry);
	unsigned int i, n, live;
	void **slots;

	if (bytes % RT_NODE_ALIGN || bytes / RT_NODE_ALIGN >= NCLASSES)
		die("a node of %zu bytes", bytes);
	c->nodes++;
	c->bytes += bytes;
	c->per_class[bytes / RT_NODE_ALIGN]++;
	if (!rt_entry_compact(entry))
		c->full++;
	slots = rt_entry_slots(entry, &n);
	for (i = 0, live = 0; i < n; i++) {
		void *e = rt_entry_locked(root, slots[i]);

		live += e != NULL;
		if (e && rt_is_internal(e))
			census_walk(root, e, c);
	}
	if (rt_entry_compact(entry)) {
		census_layouts(c, rt_entry_level(entry), live);
	} else {
		for (i = 0; i < NLAYOUTS; i++)
			c->layout[i] += (double)bytes;
	}
}

/* What the allocator has handed out, as far as it can tell. */
struct alloc_view {
	double backing;   /* the library's RT_STAT_BACKING: bytes it holds */
	double live;      /* bytes of the nodes allocated and not freed */
	double allocated; /* jemalloc stats.allocated (< 0: no jemalloc) */
	double active;    /* jemalloc stats.active */
	double resident;  /* jemalloc stats.resident */
	double rss;       /* the process's resident set (/proc/self/statm) */
};

#ifndef NODE_ALLOC_NO_JEMALLOC
static double je_stat(const char *name)
{
	uint64_t epoch = 1;
	size_t v, len = sizeof(v);

	if (mallctl("epoch", NULL, NULL, &epoch, sizeof(epoch)) ||
	    mallctl(name, &v, &len, NULL, 0))
		die("mallctl %s failed", name);
	return (double)v;
}

#endif

/* Return the objects jemalloc's automatic thread cache keeps, if any. */
static void tcache_flush(void)
{
#ifndef NODE_ALLOC_NO_JEMALLOC
	mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
#endif
}

static void tcache_flush_rcu(struct rcu_head *head)
{
	(void)head;
	tcache_flush();
}

/*
 * Settle before a reading: nodes queued for call_rcu freed, the reserve
 * and the slab spares given back, and (jemalloc) the objects jemalloc's
 * automatic thread caches keep, in this thread and in the call_rcu worker
 * (which frees nodes), returned to their arenas: those count as
 * allocated, yet they are a bounded per-thread cache, not the tree's.
 * The jemalloc-arena backend's explicit tcache is the library's and stays
 * as it is.
 */
static void settle(void)
{
	static struct rcu_head head;

	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	urcu_memb_call_rcu(&head, tcache_flush_rcu);
	urcu_memb_barrier();
	tcache_flush();
}

/*
 * Return the pages no allocation uses to the system (jemalloc's dirty
 * pages, glibc's free chunks), so that the resident figures count the
 * pages in use, not the high-water mark of the build: nodes copied to a
 * larger size and freed after a grace period leave such pages behind.
 */
static void release_free_pages(void)
{
#ifndef NODE_ALLOC_NO_JEMALLOC
	char purge[40];

	snprintf(purge, sizeof(purge), "arena.%u.purge", (unsigned int)MALLCTL_ARENAS_ALL);
	mallctl(purge, NULL, NULL, NULL, 0);
#endif
	malloc_trim(0);
}

static struct alloc_view alloc_view(void)
{
	struct alloc_view v;
	struct rcuradix_stats st;
	unsigned long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (rcuradix_get_stats(&st, sizeof(st)))
		die("rcuradix_get_stats failed");
	v.backing = (double)st.backing_bytes;
	v.live = (double)st.bytes_live;
#ifndef NODE_ALLOC_NO_JEMALLOC
	v.allocated = je_stat("stats.allocated");
	v.active = je_stat("stats.active");
	v.resident = je_stat("stats.resident");
#else
	v.allocated = v.active = v.resident = -1;
#endif
	if (!f || fscanf(f, "%lu %lu", &size, &resident) != 2)
		die("/proc/self/statm unreadable");
	fclose(f);
	v.rss = (double)resident * (double)sysconf(_SC_PAGESIZE);
	return v;
}

static void tree_line(const char *id, const char *what, double value)
{
	printf("%s tree %s %s %.0f\n", BACKEND, id, what, value);
}

/*
 * Build the tree of @spec ("KEYSET:LOG2"), GFP_KERNEL inserts in the key
 * set's insertion order, then print its nodes by size and the allocator's
 * view of it: each figure the difference between a reading after the build
 * and one before, both settled, with free pages returned to the system.
 */
static void tree_memory(const char *spec)
{
	struct radix_tree_root root;
	struct radix_tree_memstat mem;
	struct census c;
	struct alloc_view v0, v1;
	struct keyset ks;
	char kname[32];
	int log2n, kind;
	unsigned int i;
	size_t n;

	if (sscanf(spec, "%31[^:]:%d", kname, &log2n) != 2 || log2n < 7 || log2n > 24 ||
	    (kind = keyset_by_name(kname)) < 0)
		die("--tree: KEYSET:LOG2 (a key set of rcuradix-bench, 7 <= LOG2 <= 24)");
	n = (size_t)1 << log2n;
	if (keyset_make(&ks, (enum keyset_kind)kind, n, 42))
		die("--tree %s: more keys than the key set allows", spec);
	radix_tree_init_flavor(&root, GFP_KERNEL, &urcu_memb_flavor);
	settle();
	release_free_pages();
	v0 = alloc_view();
	for (i = 0; i < n; i++)
		if (radix_tree_insert(&root, ks.ins_keys[i], ks.ins_items[i]))
			die("--tree %s: insert failed", spec);
	settle();
	release_free_pages();
	v1 = alloc_view();

	memset(&c, 0, sizeof(c));
	radix_tree_lock(&root);
	if (rt_entry_locked(&root, root.rnode))
		census_walk(&root, rt_entry_locked(&root, root.rnode), &c);
	radix_tree_unlock(&root);
	if (radix_tree_memory(&root, &mem))
		die("radix_tree_memory failed");
	/* The census and the library's own count must agree, and after
	 * settling the only live nodes are the tree's. */
	if (mem.nodes != c.nodes || mem.node_bytes != c.bytes)
		die("--tree %s: census %lu nodes %lu bytes, radix_tree_memory %lu / %lu", spec,
		    c.nodes, c.bytes, mem.nodes, mem.node_bytes);
	if (v1.live - v0.live != (double)c.bytes)
		die("--tree %s: %.0f bytes live, the tree has %lu", spec, v1.live - v0.live,
		    c.bytes);

	tree_line(spec, "keys", (double)n);
	tree_line(spec, "nodes", (double)c.nodes);
	tree_line(spec, "full", (double)c.full);
	for (i = 1; i < NCLASSES; i++)
		if (c.per_class[i]) {
			char what[32];

			snprintf(what, sizeof(what), "class%lu", (unsigned long)i * RT_NODE_ALIGN);
			tree_line(spec, what, (double)c.per_class[i]);
		}
	tree_line(spec, "node-bytes", (double)c.bytes);
	for (i = 0; i < NLAYOUTS; i++)
		tree_line(spec, layout_names[i], c.layout[i]);
	tree_line(spec, "estimate", (double)mem.bytes);
	tree_line(spec, "backing", v1.backing - v0.backing);
	if (v0.allocated >= 0) {
		tree_line(spec, "allocated", v1.allocated - v0.allocated);
		tree_line(spec, "active", v1.active - v0.active);
		tree_line(spec, "resident", v1.resident - v0.resident);
	}
	tree_line(spec, "rss", v1.rss - v0.rss);
	radix_tree_destroy(&root);
	settle();
	keyset_free(&ks);
}

int main(int argc, char **argv)
{
	const char *mix = NULL, *tree = NULL;
	bool raw = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw"))
			raw = true;
		else if (!strcmp(argv[i], "--quick"))
			iters = (size_t)1 << 14;
		else if (!strcmp(argv[i], "--mix") && i + 1 < argc)
			mix = argv[++i];
		else if (!strcmp(argv[i], "--tree") && i + 1 < argc)
			tree = argv[++i];
		else {
			fprintf(stderr,
				"usage: %s [--raw] [--quick] [--mix FILE]\n"
				"       %s --tree KEYSET:LOG2\n",
				argv[0], argv[0]);
			return 2;
		}
	}
	urcu_memb_register_thread();
	if (tree) {
		tree_memory(tree);
		urcu_memb_unregister_thread();
		return 0;
	}
	if (raw) {
#ifndef NODE_ALLOC_NO_JEMALLOC
		raw_jemalloc();
#endif
		raw_glibc();
	}
	size_classes();
	report("reserve-1", one_at_a_time(reserve_alloc, backend_free, &(size_t){ RT_NODE_SIZE }));
	rcuradix_thread_cache_flush();
	report("rcu-free-1", rcu_free_path());
	rcuradix_thread_cache_flush();
	if (mix)
		mixes_run(mix);
	inserts();
	urcu_memb_unregister_thread();
	return 0;
}
