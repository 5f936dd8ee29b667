/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-ops.c - differential fuzzing harness (libFuzzer entry point).
 *
 * What it proves: for every input, read as a sequence of operations on one
 * tree (fuzz-ops.h gives the encoding), every call returns exactly what a
 * trivially correct model (tests/model.c, a sorted array with per-key tag
 * bits) says, and:
 *  - after every op: the op's return value, the affected key (lookup, slot,
 *    tags), the tree's node count equal to the count the model's key set
 *    implies (a tree of minimal height has exactly one node per distinct key
 *    prefix per level), and the node accounting: nodes_live = nodes in the
 *    tree + nodes_reserved + nodes_pending, nodes_pending = callbacks queued,
 *    nodes_reserved moved exactly by what the op allocated and linked;
 *  - an insert that fails with -ENOMEM (injected through rt_fault_fail_nth /
 *    rt_fault_fail_all) fails exactly when the thread's reserve plus what
 *    the allocator still gives cannot cover the nodes the insert needs, and
 *    then leaves the whole tree as it was; after a successful preload it
 *    never fails;
 *  - every 16 ops (more in big trees) and at the end: the whole tree (gang
 *    walk, tagged walk of every tag, tagged()) equals the model and
 *    radix_tree_verify() passes;
 *  - at the end of the input: destroy + barrier + rcuradix_thread_cache_flush()
 *    bring nodes_live, nodes_pending, nodes_reserved and backing_bytes to
 *    zero, and no item is leaked.
 * Unlinked nodes must not be touched by a writer: with the harness's own
 * flavor, a node handed to call_rcu is poisoned (ASan) until its callback
 * runs, and FZ_GRACE runs the callbacks at points the input chooses (also
 * right after an iter_delete, inside a locked walk).
 *
 * A mismatch prints what differed on stderr and calls abort(), so that
 * libFuzzer saves the input.  Single-threaded: the concurrency proofs are
 * the torture tests' job.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <urcu/urcu-memb.h>

#include "preload.h"
#include "descend.h"

#include <sanitizer/asan_interface.h>

#include "fuzz-ops.h"
#include "model.h"

/*
 * Ops between whole-tree comparisons: at least FZ_CHECK_EVERY, and more as
 * the tree grows (one node in FZ_CHECK_NODES_PER_OP), so that the cost of
 * radix_tree_verify() (a scan of every slot of every node) stays a bounded
 * share of each op.  An explicit FZ_CHECK runs only FZ_CHECK_MIN_GAP ops or
 * more after the last one, or inputs full of them crawl.
 */
#define FZ_CHECK_EVERY 16
#define FZ_CHECK_NODES_PER_OP 16
#define FZ_CHECK_MIN_GAP 4
#define FZ_MAX_RUN_KEYS 1024    /* runs stop growing the tree beyond this */
#define FZ_MAX_OPS 100000       /* an input's ops (bounded by its size anyway) */

/* ---- items --------------------------------------------------------------- */

#define FZ_ITEM_MAGIC 0x66757a7aUL /* "fuzz" */

struct fz_item {
	unsigned long key;
	unsigned long magic;
};

static unsigned long fz_items_live;

/* ---- state --------------------------------------------------------------- */

struct fz {
	const uint8_t *p;        /* input not yet read */
	size_t left;
	unsigned long op_nr;     /* ops executed, for messages */
	const char *op_name;
	unsigned long last_key;  /* for FZ_K_LAST */
	struct model m;          /* the truth */
	unsigned long tag_count[RADIX_TREE_MAX_TAGS];  /* model items bearing each tag */
	unsigned long nodes;     /* nodes the tree must hold (from the model) */
	gfp_t gfp;
	unsigned long since_check;  /* ops since the last check_all */
	bool enomem_seen;        /* an insert failed since the last check_all */
	bool fault_all;          /* fault injection armed for the current op */
	unsigned long fault_nth;
};

static struct radix_tree_root fz_tree;
static bool fz_memb;         /* flavor of the next inputs */
static bool fz_memb_set;     /* fz_use_memb() or the environment decided */
static bool fz_registered;   /* this thread registered with urcu-memb */


/* ---- stderr ------------------------------------------------------------ */

/*
 * Silence stderr around a call that is refused on purpose: the library
 * reports misuse there (once per process), and a fuzzer that makes
 * millions of refused calls should not flood its log.  Not nested; a
 * failure inside restores stderr first (fz_fail).
 */
static int fz_saved_stderr = -1;

static void quiet_begin(void)
{
	int null = open("/dev/null", O_WRONLY);

	fflush(stderr);
	fz_saved_stderr = dup(2);
	if (null >= 0 && fz_saved_stderr >= 0)
		dup2(null, 2);
	if (null >= 0)
		close(null);
}

static void quiet_end(void)
{
	fflush(stderr);
	if (fz_saved_stderr >= 0) {
		dup2(fz_saved_stderr, 2);
		close(fz_saved_stderr);
	}
	fz_saved_stderr = -1;
}

/* ---- failure ------------------------------------------------------------- */

static struct fz *fz_current;

static void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fz_fail(const char *fmt, ...)
{
	va_list ap;

	if (fz_saved_stderr >= 0)
		quiet_end();
	fprintf(stderr, "fuzz-ops: MISMATCH at op #%lu (%s): ", fz_current ? fz_current->op_nr : 0,
		fz_current && fz_current->op_name ? fz_current->op_name : "start/end");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define FZ_EXPECT(cond, ...)                   \
	do {                                   \
		if (!(cond))                   \
			fz_fail(__VA_ARGS__);  \
	} while (0)

/* ---- a deterministic flavor ----------------------------------------------- */

/*
 * The library reaches its flavor only through update_call_rcu() and
 * barrier().  This one queues callbacks and runs them when the input says a
 * grace period ended (there is no concurrent reader, so any moment outside
 * the harness's own read-side sections is a legal end of grace period), which
 * makes reclamation deterministic and exactly countable, and costs nothing,
 * where urcu_memb_barrier() sleeps 10 ms in liburcu 0.13's worker.
 */
struct fz_cb {
	struct rcu_head *head;
	void (*func)(struct rcu_head *head);
};

static struct {
	struct fz_cb *cb;
	size_t n, cap;
	int readers;  /* read-side nesting of the (only) thread */
} fz_q;

static void fz_rcu_read_lock(void)
{
	fz_q.readers++;
}

static void fz_rcu_read_unlock(void)
{
	if (fz_q.readers <= 0)
		fz_fail("unbalanced read unlock");
	fz_q.readers--;
}

static int fz_rcu_read_ongoing(void)
{
	return fz_q.readers > 0;
}

/* Bytes of a node that no code may touch between call_rcu and the callback:
 * everything before the rcu_head (the slots and the tags). */
static size_t fz_node_poison_len(void)
{
	return offsetof(struct rt_node, rcu);
}

static void fz_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	struct rt_node *node = caa_container_of(head, struct rt_node, rcu);

	if (fz_q.n == fz_q.cap) {
		fz_q.cap = fz_q.cap ? 2 * fz_q.cap : 256;
		fz_q.cb = realloc(fz_q.cb, fz_q.cap * sizeof(*fz_q.cb));
		if (!fz_q.cb)
			abort();
	}
	fz_q.cb[fz_q.n++] = (struct fz_cb){ head, func };
	/* Only nodes go through call_rcu in the library: a writer that touches
	 * an unlinked node after queueing it is a use-after-free in waiting. */
	ASAN_POISON_MEMORY_REGION(node, fz_node_poison_len());
}

/* End of a grace period: every queued callback may run. */
static void fz_rcu_barrier(void)
{
	size_t i;

	if (fz_q.readers)
		fz_fail("grace period ended inside a read-side section");
	for (i = 0; i < fz_q.n; i++) {
		ASAN_UNPOISON_MEMORY_REGION(caa_container_of(fz_q.cb[i].head, struct rt_node, rcu),
					    fz_node_poison_len());
		fz_q.cb[i].func(fz_q.cb[i].head);
	}
	fz_q.n = 0;
}

static void fz_rcu_nop(void)
{
}

static const struct rcu_flavor_struct fz_flavor = {
	.read_lock = fz_rcu_read_lock,
	.read_unlock = fz_rcu_read_unlock,
	.read_ongoing = fz_rcu_read_ongoing,
	.read_quiescent_state = fz_rcu_nop,
	.update_call_rcu = fz_call_rcu,
	.update_synchronize_rcu = fz_rcu_barrier,
	.thread_offline = fz_rcu_nop,
	.thread_online = fz_rcu_nop,
	.register_thread = fz_rcu_nop,
	.unregister_thread = fz_rcu_nop,
	.barrier = fz_rcu_barrier,
};

static const struct rcu_flavor_struct *fz_flv(void)
{
	return fz_memb ? &urcu_memb_flavor : &fz_flavor;
}

static void fz_read_lock(void)
{
	fz_flv()->read_lock();
}

static void fz_read_unlock(void)
{
	fz_flv()->read_unlock();
}

void fz_use_memb(bool on)
{
	fz_memb = on;
	fz_memb_set = true;
}

/* ---- input --------------------------------------------------------------- */

static uint8_t in_u8(struct fz *z)
{
	if (!z->left)
		return 0;
	z->left--;
	return *z->p++;
}

static uint64_t in_le(struct fz *z, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)in_u8(z) << (8 * i);
	return v;
}

static unsigned long model_key_at(const struct fz *z, unsigned long i)
{
	return z->m.e[i % z->m.n].key;
}

static unsigned long in_key(struct fz *z)
{
	uint8_t s = in_u8(z);
	unsigned int v = s >> 4;
	unsigned long key;

	switch (s & 15) {
	case FZ_K_SMALL:
		key = in_u8(z);
		break;
	case FZ_K_U16:
		key = (unsigned long)in_le(z, 2);
		break;
	case FZ_K_BOUNDARY:
		key = (unsigned long)in_u8(z) * 64 + v % 3 - 1;
		break;
	case FZ_K_LEVEL: {
		unsigned int shift = 3 * (1 + in_u8(z) % 21);

		key = ((unsigned long)in_u8(z) << shift) + v % 3 - 1;
		break;
	}
	case FZ_K_2_32:
		key = (1UL << 32) + (unsigned long)(long)(int8_t)in_u8(z);
		break;
	case FZ_K_2_63:
		key = (1UL << 63) + (unsigned long)(long)(int8_t)in_u8(z);
		break;
	case FZ_K_MAX:
		key = ULONG_MAX - in_u8(z);
		break;
	case FZ_K_RAW:
		key = (unsigned long)in_le(z, 8);
		break;
	case FZ_K_NEAR: {
		unsigned long i = in_u8(z);
		long d = (int8_t)in_u8(z);

		key = (z->m.n ? model_key_at(z, i) : i) + (unsigned long)d;
		break;
	}
	case FZ_K_LAST:
		key = z->last_key + v - 8;
		break;
	default: {  /* FZ_K_EXIST and the spare kinds */
		unsigned long i = (unsigned long)in_le(z, v & 1 ? 2 : 1);

		key = z->m.n ? model_key_at(z, i) : i;
		break;
	}
	}
	z->last_key = key;
	return key;
}

static unsigned int in_tag(struct fz *z)
{
	uint8_t b = in_u8(z);

	if (b < 0xf0)
		return b % (RADIX_TREE_MAX_TAGS + 1);
	return b == 0xff ? UINT_MAX : b;
}

static unsigned long in_nr(struct fz *z)
{
	uint8_t b = in_u8(z);

	return b == 0xff ? ULONG_MAX : b;
}

static unsigned long in_stride(struct fz *z)
{
	uint8_t b = in_u8(z);

	return b & 0x80 ? 1UL << (b & 63) : (unsigned long)(b & 0x7f) + 1;
}

static bool tag_ok(unsigned int tag)
{
	return tag < RADIX_TREE_MAX_TAGS;
}

/* Does the model entry bear @tag (never, for an invalid tag)? */
static bool entry_has(const struct model_entry *e, unsigned int tag)
{
	return tag_ok(tag) && ((e->tags >> tag) & 1);
}

/* ---- items --------------------------------------------------------------- */

static struct fz_item *item_new(unsigned long key)
{
	struct fz_item *item = malloc(sizeof(*item));

	if (!item)
		abort();
	item->key = key;
	item->magic = FZ_ITEM_MAGIC;
	fz_items_live++;
	return item;
}

/* No reader runs concurrently: an item can go as soon as it is out. */
static void item_free(void *p)
{
	struct fz_item *item = p;

	if (item->magic != FZ_ITEM_MAGIC)
		fz_fail("freeing a damaged item %p", p);
	item->magic = 0;
	free(item);
	fz_items_live--;
}

/* ---- the model: geometry ------------------------------------------------- */

/* Bits of a key below the node at @level (inclusive of its own slot bits). */
static unsigned int span_bits(unsigned int level)
{
	return RT_MAP_SHIFT * (level + 1);
}

static unsigned long key_prefix(unsigned long key, unsigned int level)
{
	unsigned int bits = span_bits(level);

	return bits >= 64 ? 0 : key >> bits;
}

/* Height (levels) of the minimal tree holding @key alone. */
static unsigned int key_height(unsigned long key)
{
	unsigned int h = 1;

	while (key_prefix(key, h - 1) != 0)
		h++;
	return h;
}

static unsigned int model_height(const struct model *m)
{
	return m->n ? key_height(m->e[m->n - 1].key) : 0;
}

/* Does the model hold a key in the subtree at @level that covers @key? */
static bool model_has_prefix(const struct model *m, unsigned long key, unsigned int level)
{
	unsigned int bits = span_bits(level);
	unsigned long lo = bits >= 64 ? 0 : key & ~((1UL << bits) - 1);
	size_t i = model_lower_bound(m, lo);

	return i < m->n && key_prefix(m->e[i].key, level) == key_prefix(key, level);
}

/*
 * Nodes the minimal tree of @m gains when @key (absent) is added: every
 * level of the new height whose node covering @key does not exist yet, plus
 * the new top nodes above the old root that do not lie on @key's path.
 */
static unsigned long model_nodes_needed(const struct model *m, unsigned long key)
{
	unsigned int old_h = model_height(m), kh = key_height(key);
	unsigned int new_h = kh > old_h ? kh : old_h;
	unsigned long needed = 0;
	unsigned int l;

	for (l = 0; l < new_h; l++)
		if (l >= old_h || !model_has_prefix(m, key, l))
			needed++;
	if (old_h)
		for (l = old_h; l < new_h; l++)
			if (key_prefix(key, l) != 0)
				needed++;
	return needed;
}

/* Nodes of the minimal tree of @m: distinct key prefixes, level by level. */
static unsigned long model_nodes_total(const struct model *m)
{
	unsigned int h = model_height(m), l;
	unsigned long total = 0;
	size_t i;

	for (l = 0; l < h; l++)
		for (i = 0; i < m->n; i++)
			if (i == 0 || key_prefix(m->e[i].key, l) != key_prefix(m->e[i - 1].key, l))
				total++;
	return total;
}

/* ---- the model: contents ------------------------------------------------- */

static void model_tag_change(struct fz *z, struct model_entry *e, unsigned int tag, bool set)
{
	unsigned long bit = 1UL << tag;

	if (set && !(e->tags & bit)) {
		e->tags |= bit;
		z->tag_count[tag]++;
	} else if (!set && (e->tags & bit)) {
		e->tags &= ~bit;
		z->tag_count[tag]--;
	}
}

/* Remove @key (present) from the model; returns the nodes the tree loses. */
static unsigned long model_remove(struct fz *z, unsigned long key)
{
	struct model_entry *e = model_find(&z->m, key);
	unsigned int tag;

	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		model_tag_change(z, e, tag, false);
	model_delete(&z->m, key);
	return model_nodes_needed(&z->m, key);
}

static void model_clear(struct fz *z)
{
	size_t i;

	for (i = 0; i < z->m.n; i++)
		item_free(z->m.e[i].item);
	z->m.n = 0;
	memset(z->tag_count, 0, sizeof(z->tag_count));
	z->nodes = 0;
}

/* ---- checks -------------------------------------------------------------- */

/*
 * The item in a slot the API handed out.  rcu_dereference, as the API
 * requires of every slot read: it pairs with the writer's publication so
 * that a concurrent reader sees the item initialised.  This harness has no
 * concurrent writer; the call keeps its reads the ones a real reader makes.
 */
static void *slot_item(void **slot)
{
	return rcu_dereference(*slot);
}

static struct rcuradix_stats stats_get(void)
{
	struct rcuradix_stats st;

	if (rcuradix_get_stats(&st, sizeof(st)))
		fz_fail("rcuradix_get_stats failed");
	return st;
}

static unsigned long tree_nodes(void)
{
	struct radix_tree_memstat mem;

	FZ_EXPECT(radix_tree_memory(&fz_tree, &mem) == 0, "radix_tree_memory failed");
	return mem.nodes;
}

/*
 * Node accounting after an op.  Always: the tree holds the nodes the model
 * implies.  With the harness flavor (callbacks run only when it says so):
 * pending = queued callbacks and live = tree + reserved + pending; with the
 * libc allocator, backing bytes = live nodes.
 */
static void check_nodes(const struct fz *z)
{
	unsigned long n = tree_nodes();
	struct rcuradix_stats st;

	FZ_EXPECT(n == z->nodes, "tree holds %lu nodes, the model's keys need %lu", n, z->nodes);
	if (fz_memb)
		return;
	st = stats_get();
	FZ_EXPECT(st.nodes_pending == fz_q.n, "nodes_pending %lu, %zu callbacks queued",
		  st.nodes_pending, fz_q.n);
	FZ_EXPECT(st.nodes_live == n + st.nodes_reserved + st.nodes_pending,
		  "nodes_live %lu != tree %lu + reserved %lu + pending %lu", st.nodes_live, n,
		  st.nodes_reserved, st.nodes_pending);
#ifdef RT_ALLOC_LIBC
	FZ_EXPECT(st.backing_bytes == st.nodes_live * st.node_size,
		  "backing_bytes %lu for %lu live nodes", st.backing_bytes, st.nodes_live);
#endif
}

/* lookup, lookup_slot and every tag of @key agree with the model. */
static void check_key(const struct fz *z, unsigned long key)
{
	const struct model_entry *e = model_find(&z->m, key);
	void *item, **slot;
	unsigned int tag;
	int got;

	fz_read_lock();
	item = radix_tree_lookup(&fz_tree, key);
	slot = radix_tree_lookup_slot(&fz_tree, key);
	FZ_EXPECT(item == (e ? e->item : NULL), "lookup(%#lx) = %p, model %p", key, item,
		  e ? e->item : NULL);
	if (e)
		FZ_EXPECT(slot && slot_item(slot) == e->item,
			  "lookup_slot(%#lx) = %p does not hold %p", key, (void *)slot, e->item);
	else
		FZ_EXPECT(!slot, "lookup_slot(%#lx) = %p for an absent key", key, (void *)slot);
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		int want = e ? entry_has(e, tag) : 0;

		got = radix_tree_tag_get(&fz_tree, key, tag);
		FZ_EXPECT(got == want, "tag_get(%#lx, %u) = %d, model %d", key, tag, got, want);
	}
	fz_read_unlock();
}

/* tagged() of every tag number, valid or not, agrees with the model. */
static void check_tagged(const struct fz *z)
{
	unsigned int tag;

	for (tag = 0; tag <= RADIX_TREE_MAX_TAGS + 1; tag++) {
		int want = tag_ok(tag) && z->tag_count[tag] > 0;
		int got = radix_tree_tagged(&fz_tree, tag) != 0;

		FZ_EXPECT(got == want, "tagged(%u) = %d, model %d", tag, got, want);
	}
	FZ_EXPECT(!radix_tree_tagged(&fz_tree, UINT_MAX), "tagged(UINT_MAX) != 0");
}

/* The key an item was inserted under (its own record of it). */
static unsigned long item_key(void *p)
{
	return ((const struct fz_item *)p)->key;
}

/*
 * Walk the whole tree (every item, or those bearing @tag if @tag >= 0) with
 * 64-item gang lookups; it must equal the model.  gang_lookup_slot reports
 * each slot's key; gang_lookup_tag_slot (the kernel's five arguments) does
 * not, so the key of each of its slots is the one its item was inserted
 * under: the item is checked to be the model's, so the key is exact too.
 */
static void check_walk(const struct fz *z, int tag)
{
	void **slots[64];
	unsigned long idx[64];
	unsigned long next = 0;
	size_t pos = 0;

	fz_read_lock();
	for (;;) {
		unsigned int n, i;

		if (tag < 0) {
			n = radix_tree_gang_lookup_slot(&fz_tree, slots, idx, next, 64);
		} else {
			n = radix_tree_gang_lookup_tag_slot(&fz_tree, slots, next, 64,
							    (unsigned int)tag);
			for (i = 0; i < n; i++) {
				FZ_EXPECT(slot_item(slots[i]), "walk (tag %d): slot %u holds NULL",
					  tag, i);
				idx[i] = item_key(slot_item(slots[i]));
			}
		}
		for (i = 0; i < n; i++, pos++) {
			while (tag >= 0 && pos < z->m.n && !entry_has(&z->m.e[pos], (unsigned int)tag))
				pos++;
			FZ_EXPECT(pos < z->m.n, "walk (tag %d) returned extra key %#lx", tag,
				  idx[i]);
			FZ_EXPECT(idx[i] == z->m.e[pos].key, "walk (tag %d): key %#lx, model %#lx",
				  tag, idx[i], z->m.e[pos].key);
			FZ_EXPECT(slot_item(slots[i]) == z->m.e[pos].item,
				  "walk (tag %d): item of %#lx differs", tag, idx[i]);
		}
		if (n < 64 || idx[63] == ULONG_MAX)
			break;
		next = idx[63] + 1;
	}
	fz_read_unlock();
	while (tag >= 0 && pos < z->m.n && !entry_has(&z->m.e[pos], (unsigned int)tag))
		pos++;
	FZ_EXPECT(pos == z->m.n, "walk (tag %d) missed key %#lx", tag, z->m.e[pos].key);
}

static void check_all(struct fz *z)
{
	int tag;

	z->enomem_seen = false;
	z->since_check = 0;
	FZ_EXPECT(!radix_tree_empty(&fz_tree) == (z->m.n != 0), "empty() = %d with %zu items",
		  radix_tree_empty(&fz_tree), z->m.n);
	check_walk(z, -1);
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		check_walk(z, tag);
	check_tagged(z);
	FZ_EXPECT(radix_tree_verify(&fz_tree) == 0, "radix_tree_verify failed (see above)");
	FZ_EXPECT(model_nodes_total(&z->m) == z->nodes, "node bookkeeping: %lu recounted, %lu kept",
		  model_nodes_total(&z->m), z->nodes);
	check_nodes(z);
}

/* ---- fault injection ----------------------------------------------------- */

static void fault_arm_nth(struct fz *z, unsigned long n)
{
	z->fault_nth = n;
	rt_fault_fail_nth(n);
}

static void fault_arm_all(struct fz *z)
{
	z->fault_all = true;
	rt_fault_fail_all(true);
}

static void fault_disarm(struct fz *z)
{
	z->fault_all = false;
	z->fault_nth = 0;
	rt_fault_fail_all(false);
	rt_fault_fail_nth(0);
}

/* Can the allocator give @want more nodes under the armed fault? */
static bool alloc_can_give(const struct fz *z, unsigned long want)
{
	if (want == 0)
		return true;
	if (z->fault_all)
		return false;
	return z->fault_nth == 0 || z->fault_nth - 1 >= want;
}

/* ---- ops ------------------------------------------------------------------ */

/*
 * Insert @item under @key and check the outcome: -EEXIST if present; else the
 * nodes the model says it needs come from the thread's reserve, refilled from
 * the allocator only on a GFP_KERNEL tree; -ENOMEM exactly when that cannot
 * cover them, leaving the tree exactly as it was.
 */
static int do_insert(struct fz *z, unsigned long key, struct fz_item *item)
{
	struct model_entry *e = model_find(&z->m, key);
	struct rcuradix_stats before = stats_get(), after;
	unsigned long needed = e ? 0 : model_nodes_needed(&z->m, key);
	unsigned long r = before.nodes_reserved, alloc;
	int want, ret;

	if (e)
		want = -EEXIST;
	else if (needed <= r)
		want = 0;
	else if (!(z->gfp & __GFP_DIRECT_RECLAIM))
		want = -ENOMEM;
	else
		want = alloc_can_give(z, needed - r) ? 0 : -ENOMEM;
	ret = radix_tree_insert(&fz_tree, key, item);
	FZ_EXPECT(ret == want, "insert(%#lx) = %d, expected %d (needs %lu nodes, %lu reserved)",
		  key, ret, want, needed, r);
	after = stats_get();
	alloc = after.nodes_allocated - before.nodes_allocated;
	FZ_EXPECT(after.nodes_reserved == r + alloc - (ret ? 0 : needed),
		  "insert(%#lx) = %d: reserve %lu -> %lu with %lu allocated, %lu needed", key, ret,
		  r, after.nodes_reserved, alloc, needed);
	if (ret == 0) {
		model_insert(&z->m, key, item);
		z->nodes += needed;
	} else {
		item_free(item);
	}
	check_key(z, key);
	check_nodes(z);
	/* "Tree unchanged" means all of it; once per check interval, or a run
	 * of inserts into an empty-handed GFP_ATOMIC tree costs a full check
	 * per key. */
	if (ret == -ENOMEM && !z->enomem_seen) {
		check_all(z);
		z->enomem_seen = true;
	}
	return ret;
}

static void op_insert(struct fz *z)
{
	unsigned long key = in_key(z);

	do_insert(z, key, item_new(key));
}

static void op_insert_bad(struct fz *z)
{
	unsigned long key = in_key(z);
	uint8_t b = in_u8(z) % 7;
	struct fz_item *real = item_new(key);
	void *bad = b == 0 ? NULL : b < 4 ? (void *)(uintptr_t)b : (void *)((uintptr_t)real | (b - 3));
	struct rcuradix_stats before = stats_get(), after;
	int ret = radix_tree_insert(&fz_tree, key, bad);

	FZ_EXPECT(ret == -EINVAL, "insert(%#lx, %p) = %d, expected -EINVAL", key, bad, ret);
	after = stats_get();
	FZ_EXPECT(after.nodes_allocated == before.nodes_allocated &&
		  after.nodes_reserved == before.nodes_reserved,
		  "a refused insert moved the node counters");
	item_free(real);
	check_key(z, key);
	check_nodes(z);
}

static void do_delete(struct fz *z, unsigned long key)
{
	struct model_entry *e = model_find(&z->m, key);
	void *want = e ? e->item : NULL;
	void *got = radix_tree_delete(&fz_tree, key);

	FZ_EXPECT(got == want, "delete(%#lx) = %p, model %p", key, got, want);
	if (e) {
		z->nodes -= model_remove(z, key);
		item_free(got);
	}
	check_key(z, key);
	check_nodes(z);
}

static void op_delete(struct fz *z)
{
	do_delete(z, in_key(z));
}

static void op_lookup(struct fz *z)
{
	check_key(z, in_key(z));
	FZ_EXPECT(!radix_tree_empty(&fz_tree) == (z->m.n != 0), "empty() wrong");
}

static const unsigned int fz_gang_max[32] = {
	0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64,
	65, 100, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 4095, 4096,
	/* 30: u8 from the input, 31: u16 from the input (mod 9000) */
};

static void op_gang(struct fz *z)
{
	uint8_t v = in_u8(z);
	unsigned int kind = v & 3, sel = v >> 3;
	bool want_idx = !(v & 4), slots = kind & 1, tagged = kind & 2;
	unsigned long first = in_key(z);
	unsigned int max = sel < 30 ? fz_gang_max[sel] : sel == 30 ? in_u8(z)
						     : (unsigned int)(in_le(z, 2) % 9000);
	unsigned int tag = tagged ? in_tag(z) : 0;
	/* Exactly max entries: ASan reports a gang lookup writing one more. */
	void **res = malloc(max * sizeof(*res));
	unsigned long *idx = malloc(max * sizeof(*idx));
	unsigned int n, i, want = 0;
	size_t pos;

	if ((!res || !idx) && max)
		abort();
	fz_read_lock();
	if (!tagged && !slots)
		n = radix_tree_gang_lookup(&fz_tree, res, first, max);
	else if (!tagged)
		n = radix_tree_gang_lookup_slot(&fz_tree, (void ***)res, want_idx ? idx : NULL,
						first, max);
	else if (!slots)
		n = radix_tree_gang_lookup_tag(&fz_tree, res, first, max, tag);
	else
		n = radix_tree_gang_lookup_tag_slot(&fz_tree, (void ***)res, first, max, tag);
	pos = model_lower_bound(&z->m, first);
	for (i = 0; i < n; i++, pos++) {
		void *item;

		while (tagged && pos < z->m.n && !entry_has(&z->m.e[pos], tag))
			pos++;
		FZ_EXPECT(pos < z->m.n && (!tagged || tag_ok(tag)),
			  "gang kind %u from %#lx max %u tag %u: result %u is extra", kind, first,
			  max, tag, i);
		item = slots ? slot_item((void **)res[i]) : res[i];
		FZ_EXPECT(item == z->m.e[pos].item,
			  "gang kind %u from %#lx: result %u is not the item of %#lx", kind, first,
			  i, z->m.e[pos].key);
		/* The key of each result: reported by gang_lookup_slot (when
		 * asked for); for the others, the key the item was inserted
		 * under. */
		if (slots && !tagged && want_idx)
			FZ_EXPECT(idx[i] == z->m.e[pos].key, "gang kind %u: index %u = %#lx, model %#lx",
				  kind, i, idx[i], z->m.e[pos].key);
		else
			FZ_EXPECT(item_key(item) == z->m.e[pos].key,
				  "gang kind %u: result %u has key %#lx, model %#lx", kind, i,
				  item_key(item), z->m.e[pos].key);
	}
	fz_read_unlock();
	/* How many the model has: min(max, matching keys >= first). */
	for (pos = model_lower_bound(&z->m, first); pos < z->m.n && want < max; pos++)
		if (!tagged || entry_has(&z->m.e[pos], tag))
			want++;
	FZ_EXPECT(n == want, "gang kind %u from %#lx max %u tag %u returned %u, model %u", kind,
		  first, max, tag, n, want);
	free(res);
	free(idx);
}

static void do_tag_change(struct fz *z, unsigned long key, unsigned int tag, bool set)
{
	struct model_entry *e = model_find(&z->m, key);
	void *want = e && tag_ok(tag) ? e->item : NULL;
	void *got = set ? radix_tree_tag_set(&fz_tree, key, tag)
			: radix_tree_tag_clear(&fz_tree, key, tag);

	FZ_EXPECT(got == want, "tag_%s(%#lx, %u) = %p, model %p", set ? "set" : "clear", key,
		  tag, got, want);
	if (want)
		model_tag_change(z, e, tag, set);
	check_key(z, key);
	check_tagged(z);
}

static void op_tag_set(struct fz *z)
{
	unsigned long key = in_key(z);

	do_tag_change(z, key, in_tag(z), true);
}

static void op_tag_clear(struct fz *z)
{
	unsigned long key = in_key(z);

	do_tag_change(z, key, in_tag(z), false);
}

static void op_tag_get(struct fz *z)
{
	unsigned long key = in_key(z);
	unsigned int tag = in_tag(z);
	struct model_entry *e = model_find(&z->m, key);
	int want, got;

	/* 1 iff the item at @key bears @tag; an invalid tag reads as
	 * untagged (and is said once on stderr). */
	want = e && entry_has(e, tag);
	fz_read_lock();
	if (!tag_ok(tag))
		quiet_begin();
	got = radix_tree_tag_get(&fz_tree, key, tag);
	if (!tag_ok(tag))
		quiet_end();
	fz_read_unlock();
	FZ_EXPECT(got == want, "tag_get(%#lx, %u) = %d, model %d", key, tag, got, want);
	check_tagged(z);
}

/*
 * range_tag_if_tagged: the model tags the items bearing @from in
 * [first, last], in key order, until @nr are counted; *first becomes the key
 * after the last one counted when @nr is reached, else last + 1 (0 after
 * ULONG_MAX).  Invalid arguments: 0 and nothing changes, *first included.
 */
static void op_range_tag(struct fz *z)
{
	unsigned long first = in_key(z), last = in_key(z), nr = in_nr(z);
	unsigned int from = in_tag(z), to = in_tag(z);
	unsigned long start = first, want = 0, want_next = first, got;
	bool valid = nr && first <= last && tag_ok(from) && tag_ok(to);
	size_t pos;

	if (valid) {
		want_next = last + 1;
		for (pos = model_lower_bound(&z->m, first);
		     pos < z->m.n && z->m.e[pos].key <= last && want < nr; pos++) {
			if (!entry_has(&z->m.e[pos], from))
				continue;
			model_tag_change(z, &z->m.e[pos], to, true);
			if (++want == nr)
				want_next = z->m.e[pos].key + 1;
		}
	}
	got = radix_tree_range_tag_if_tagged(&fz_tree, &start, last, nr, from, to);
	FZ_EXPECT(got == want, "range_tag([%#lx, %#lx], nr %lu, %u -> %u) = %lu, model %lu", first,
		  last, nr, from, to, got, want);
	FZ_EXPECT(start == want_next,
		  "range_tag([%#lx, %#lx], nr %lu, %u -> %u): *first_indexp = %#lx, model %#lx",
		  first, last, nr, from, to, start, want_next);
	/* Nothing tagged outside the range, nothing missed inside. */
	if (tag_ok(to))
		check_walk(z, (int)to);
	check_tagged(z);
}

/* Replace the item in @slot (of model entry @e) under the lock by a fresh
 * one, tags kept.  Only valid calls: every misuse of replace_slot aborts
 * (covered by the death tests in tests/). */
static void do_replace(struct model_entry *e, void **slot)
{
	struct fz_item *fresh = item_new(e->key);

	radix_tree_replace_slot(&fz_tree, slot, fresh);
	item_free(e->item);
	e->item = fresh;
	FZ_EXPECT(*slot == e->item, "replace_slot(%#lx): slot holds %p, model %p", e->key, *slot,
		  e->item);
}

static void op_replace(struct fz *z)
{
	unsigned long key = in_key(z);
	uint8_t how = in_u8(z);
	struct model_entry *e = model_find(&z->m, key);
	void **slot = NULL;
	unsigned long index;

	radix_tree_lock(&fz_tree);
	if (how & 4) {
		/* The slot as a gang lookup hands it out. */
		if (radix_tree_gang_lookup_slot(&fz_tree, &slot, &index, key, 1) == 1 &&
		    index != key)
			slot = NULL;
	} else {
		slot = radix_tree_lookup_slot(&fz_tree, key);
	}
	FZ_EXPECT(!slot == !e, "%s(%#lx) under the lock: slot %p, model %p",
		  how & 4 ? "gang_lookup_slot" : "lookup_slot", key, (void *)slot,
		  e ? e->item : NULL);
	if (e)
		do_replace(e, slot);
	radix_tree_unlock(&fz_tree);
	check_key(z, key);
}

/* ---- iterators ----------------------------------------------------------- */

enum { W_SLOT, W_TAGGED, W_CONTIG, W_TAGGED_CONTIG };
static const char *const walk_name[] = { "for_each_slot", "for_each_tagged", "for_each_contig",
					 "tagged+contig walk" };

struct walk {
	struct fz *z;
	unsigned int kind, tag;
	bool locked;
	unsigned int limit;
	uint8_t pattern;
	struct model_entry *exp;  /* expected visits (copies taken before the walk) */
	size_t nexp, seen;
};

/* What the walk must visit, from the model before it starts. */
static void walk_expect(struct walk *w, unsigned long start)
{
	const struct model *m = &w->z->m;
	bool tagged = w->kind == W_TAGGED || w->kind == W_TAGGED_CONTIG;
	bool contig = w->kind == W_CONTIG || w->kind == W_TAGGED_CONTIG;
	size_t pos = model_lower_bound(m, start);

	w->exp = malloc((m->n - pos + 1) * sizeof(*w->exp));
	if (!w->exp)
		abort();
	w->nexp = 0;
	if (tagged && !tag_ok(w->tag))
		return;
	for (; pos < m->n; pos++) {
		const struct model_entry *e = &m->e[pos];
		bool has = !tagged || entry_has(e, w->tag);

		if (contig && (e->key != start + w->nexp || !has))
			break;  /* a hole (absent or untagged key) ends a contiguous walk */
		if (has)
			w->exp[w->nexp++] = *e;
		if (contig && e->key == ULONG_MAX)
			break;
	}
}

/* One visited slot; returns false to break out of the walk. */
static bool walk_visit(struct walk *w, struct radix_tree_iter *iter, void ***slotp)
{
	struct fz *z = w->z;
	const struct model_entry *x;
	struct model_entry *e;
	void *item = slot_item(*slotp);
	unsigned int action = (w->pattern >> (2 * (w->seen % 4))) & 3;

	FZ_EXPECT(w->seen < w->nexp, "%s (tag %u) visited %#lx after the %zu expected keys",
		  walk_name[w->kind], w->tag, iter->index, w->nexp);
	x = &w->exp[w->seen++];
	FZ_EXPECT(iter->index == x->key, "%s: visit %zu is %#lx, model %#lx", walk_name[w->kind],
		  w->seen - 1, iter->index, x->key);
	FZ_EXPECT(item == x->item, "%s: item at %#lx differs", walk_name[w->kind], x->key);
	/* iter.tags: the chunk's bitmap, bit i for slot i of the leaf: set for
	 * the slot being visited (present, or tagged on tagged walks). */
	FZ_EXPECT((iter->tags >> (iter->index & RT_MAP_MASK)) & 1,
		  "%s: iter.tags %#lx lacks the bit of %#lx", walk_name[w->kind], iter->tags,
		  x->key);
	e = model_find(&z->m, x->key);
	if (action == 1 && w->locked) {
		void *got = radix_tree_iter_delete(&fz_tree, iter, *slotp);

		FZ_EXPECT(got == x->item, "iter_delete at %#lx = %p, model %p", x->key, got,
			  x->item);
		z->nodes -= model_remove(z, x->key);
		item_free(got);
		/* A grace period may end right now: the walker holds the lock,
		 * not a read-side section, so it must not touch an unlinked
		 * node again. */
		if (!fz_memb)
			fz_rcu_barrier();
	} else if (action == 2) {
		*slotp = radix_tree_iter_resume(*slotp, iter);
		if (!w->locked) {
			/* The point of resume: leave the read-side section. */
			fz_read_unlock();
			if (!fz_memb)
				fz_rcu_barrier();
			fz_read_lock();
		}
	} else if (action == 3 && w->locked) {
		do_replace(e, *slotp);
	}
	return !(w->limit && w->seen == w->limit);
}

static void op_iter(struct fz *z)
{
	uint8_t v = in_u8(z);
	unsigned long start = in_key(z);
	struct walk w = { .z = z, .kind = v & 3, .locked = (v & 4) != 0 };
	struct radix_tree_iter iter;
	bool done = true;
	void **slot;

	w.tag = in_tag(z);
	w.limit = in_u8(z);
	w.pattern = in_u8(z);
	walk_expect(&w, start);
	if (w.locked)
		radix_tree_lock(&fz_tree);
	else
		fz_read_lock();
	switch (w.kind) {
	case W_SLOT:
		radix_tree_for_each_slot(slot, &fz_tree, &iter, start)
			if (!walk_visit(&w, &iter, &slot)) {
				done = false;
				break;
			}
		break;
	case W_TAGGED:
		radix_tree_for_each_tagged(slot, &fz_tree, &iter, start, w.tag)
			if (!walk_visit(&w, &iter, &slot)) {
				done = false;
				break;
			}
		break;
	case W_CONTIG:
		radix_tree_for_each_contig(slot, &fz_tree, &iter, start)
			if (!walk_visit(&w, &iter, &slot)) {
				done = false;
				break;
			}
		break;
	default: {
		/* No macro for it; the documented flags of the engine. */
		unsigned int flags = radix_tree_iter_tag_flags(w.tag) | RADIX_TREE_ITER_CONTIG;

		for (slot = radix_tree_iter_init(&iter, start);
		     slot || (slot = radix_tree_next_chunk(&fz_tree, &iter, flags));
		     slot = radix_tree_next_slot(slot, &iter,
						 RADIX_TREE_ITER_TAGGED | RADIX_TREE_ITER_CONTIG))
			if (!walk_visit(&w, &iter, &slot)) {
				done = false;
				break;
			}
		break;
	}
	}
	if (w.locked)
		radix_tree_unlock(&fz_tree);
	else
		fz_read_unlock();
	if (done)
		FZ_EXPECT(w.seen == w.nexp, "%s from %#lx (tag %u) ended after %zu of %zu keys; "
			  "next expected %#lx", walk_name[w.kind], start, w.tag, w.seen, w.nexp,
			  w.exp[w.seen].key);
	free(w.exp);
	check_nodes(z);
}

/* ---- preload, destroy, faults, runs --------------------------------------- */

static void op_preload(struct fz *z)
{
	uint8_t m = in_u8(z);
	unsigned long key = in_key(z);
	bool maybe_atomic = m & 0x20;
	unsigned long r;
	int want, ret;

	if ((m & 3) == 3)
		rcuradix_thread_cache_flush();
	r = stats_get().nodes_reserved;
	if ((m & 3) == 1)
		fault_arm_nth(z, 1 + ((m >> 2) & 7));
	else if (m & 2)
		fault_arm_all(z);
	if (maybe_atomic)
		want = 0;  /* GFP_ATOMIC: nothing to reserve, always 0 */
	else
		want = r >= RT_PRELOAD_SIZE || alloc_can_give(z, RT_PRELOAD_SIZE - r) ? 0 : -ENOMEM;
	ret = maybe_atomic ? radix_tree_maybe_preload(GFP_ATOMIC) : radix_tree_preload(GFP_KERNEL);
	fault_disarm(z);
	FZ_EXPECT(ret == want, "preload (%lu reserved, mode %#x) = %d, expected %d", r, m, ret,
		  want);
	if (ret) {
		FZ_EXPECT(stats_get().nodes_reserved == r, "a failed preload changed the reserve");
		check_nodes(z);
		return;
	}
	if (!maybe_atomic)
		FZ_EXPECT(stats_get().nodes_reserved >= RT_PRELOAD_SIZE,
			  "preload returned 0 with %lu nodes reserved",
			  stats_get().nodes_reserved);
	if (m & 0x80)
		fault_arm_all(z);
	radix_tree_lock(&fz_tree);
	ret = do_insert(z, key, item_new(key));
	radix_tree_unlock(&fz_tree);
	fault_disarm(z);
	radix_tree_preload_end();
	FZ_EXPECT(maybe_atomic || ret != -ENOMEM, "insert(%#lx) after a preload failed", key);
}

static void op_destroy(struct fz *z)
{
	uint8_t b = in_u8(z);
	unsigned long pending = fz_q.n;

	radix_tree_destroy(&fz_tree);
	if (!fz_memb)
		FZ_EXPECT(fz_q.n == pending + z->nodes, "destroy queued %zu nodes of %lu",
			  fz_q.n - pending, z->nodes);
	model_clear(z);
	if (b & 2) {
		z->gfp = b & 1 ? GFP_ATOMIC : GFP_KERNEL;
		radix_tree_init_flavor(&fz_tree, z->gfp, fz_flv());
	}
	FZ_EXPECT(radix_tree_empty(&fz_tree), "not empty after destroy");
	check_all(z);
}

static void op_fault_insert(struct fz *z)
{
	uint8_t m = in_u8(z);
	unsigned long key = in_key(z);

	if (m & 0x40)
		rcuradix_thread_cache_flush();
	if (m & 1)
		fault_arm_all(z);
	else
		fault_arm_nth(z, 1 + ((m >> 1) & 31));
	do_insert(z, key, item_new(key));
	fault_disarm(z);
}

static void op_flush(struct fz *z)
{
	rcuradix_thread_cache_flush();
	FZ_EXPECT(stats_get().nodes_reserved == 0, "reserve not empty after a flush");
	check_nodes(z);
}

static void op_grace(struct fz *z)
{
	if (!fz_memb)
		fz_rcu_barrier();
	check_nodes(z);
}

/* Keys start, start + stride, ... (count of them, stopping at ULONG_MAX). */
static void op_run(struct fz *z, bool insert)
{
	unsigned long key = in_key(z);
	unsigned int count = in_u8(z) + 1u, i;
	unsigned long stride = in_stride(z);

	for (i = 0; i < count; i++) {
		if (insert) {
			if (z->m.n >= FZ_MAX_RUN_KEYS)
				break;
			do_insert(z, key, item_new(key));
		} else {
			do_delete(z, key);
		}
		if (key > ULONG_MAX - stride)
			break;
		key += stride;
	}
}

static void op_tag_run(struct fz *z)
{
	unsigned long key = in_key(z);
	unsigned int count = in_u8(z) + 1u, tag = in_tag(z);
	bool set = !(in_u8(z) & 1);
	size_t pos = model_lower_bound(&z->m, key);

	/* Tag changes never move model entries: pos stays valid. */
	for (; count > 0 && pos < z->m.n; count--, pos++)
		do_tag_change(z, z->m.e[pos].key, tag, set);
}

/* ---- misuse: what the kernel BUGs on, rcuradix refuses ------------------- */

/*
 * The misuse table.  Each row makes calls that break a documented contract
 * in a way the library reports by its return value (or, for harmless
 * misuse, by one line on stderr and no effect): the row checks that each
 * returns what its Return: line says, and op_misuse checks afterwards that
 * nothing changed (the key's lookup, slot and tags, the node accounting,
 * the never-initialised root still all zero).
 *
 * Not in the table: misuse that aborts, which cannot run in-process --
 * replace_slot without the tree lock, with a NULL root, slot or item, a
 * misaligned item or a slot that holds no item; iter_delete without the
 * lock; radix_tree_unlock() by a thread that does not hold the lock; a
 * writer call re-entered from inside another.  The death tests in tests/
 * cover those.
 */

/* Never initialised: zero-filled, as a static or memset() root is. */
static struct radix_tree_root fz_zero_root;

static bool zero_root_untouched(void)
{
	static const struct radix_tree_root zero;

	return memcmp(&fz_zero_root, &zero, sizeof(zero)) == 0;
}

static void mu_null_root(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	(void)z;
	FZ_EXPECT(radix_tree_insert(NULL, key, fresh) == -EINVAL, "insert(NULL root)");
	FZ_EXPECT(!radix_tree_delete(NULL, key), "delete(NULL root)");
	FZ_EXPECT(!radix_tree_lookup(NULL, key), "lookup(NULL root)");
	FZ_EXPECT(!radix_tree_lookup_slot(NULL, key), "lookup_slot(NULL root)");
	FZ_EXPECT(radix_tree_empty(NULL), "empty(NULL root)");
}

static void mu_null_gang(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	void *res[4], **slots[4];

	(void)z;
	(void)fresh;
	fz_read_lock();
	FZ_EXPECT(radix_tree_gang_lookup(&fz_tree, NULL, key, 4) == 0, "gang(NULL results)");
	FZ_EXPECT(radix_tree_gang_lookup_slot(&fz_tree, NULL, NULL, key, 4) == 0,
		  "gang_slot(NULL results)");
	FZ_EXPECT(radix_tree_gang_lookup_tag(&fz_tree, NULL, key, 4, 0) == 0,
		  "gang_tag(NULL results)");
	FZ_EXPECT(radix_tree_gang_lookup_tag_slot(&fz_tree, NULL, key, 4, 0) == 0,
		  "gang_tag_slot(NULL results)");
	FZ_EXPECT(radix_tree_gang_lookup(NULL, res, key, 4) == 0, "gang(NULL root)");
	FZ_EXPECT(radix_tree_gang_lookup_slot(NULL, slots, NULL, key, 4) == 0,
		  "gang_slot(NULL root)");
	FZ_EXPECT(radix_tree_gang_lookup_tag(NULL, res, key, 4, 0) == 0, "gang_tag(NULL root)");
	FZ_EXPECT(radix_tree_gang_lookup_tag_slot(NULL, slots, key, 4, 0) == 0,
		  "gang_tag_slot(NULL root)");
	fz_read_unlock();
}

static void mu_null_tags(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	(void)z;
	(void)fresh;
	FZ_EXPECT(!radix_tree_tag_set(NULL, key, 0), "tag_set(NULL root)");
	FZ_EXPECT(!radix_tree_tag_clear(NULL, key, 0), "tag_clear(NULL root)");
	FZ_EXPECT(radix_tree_tag_get(NULL, key, 0) == 0, "tag_get(NULL root)");
	quiet_begin();
	FZ_EXPECT(radix_tree_tag_get(NULL, key, RADIX_TREE_MAX_TAGS) == 0,
		  "tag_get(NULL root, invalid tag)");
	quiet_end();
	FZ_EXPECT(!radix_tree_tagged(NULL, 0), "tagged(NULL root)");
}

static void mu_null_range_tag(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	unsigned long first = key;

	(void)z;
	(void)fresh;
	FZ_EXPECT(radix_tree_range_tag_if_tagged(NULL, &first, ULONG_MAX, 9, 0, 1) == 0 &&
		  first == key, "range_tag(NULL root)");
	FZ_EXPECT(radix_tree_range_tag_if_tagged(&fz_tree, NULL, ULONG_MAX, 9, 0, 1) == 0,
		  "range_tag(NULL first_indexp)");
}

static void mu_null_stats(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	struct radix_tree_memstat mem;
	struct rcuradix_stats st;

	(void)z;
	(void)key;
	(void)fresh;
	FZ_EXPECT(radix_tree_memory(NULL, &mem) == -EINVAL, "memory(NULL root)");
	FZ_EXPECT(radix_tree_memory(&fz_tree, NULL) == -EINVAL, "memory(NULL mem)");
	FZ_EXPECT(radix_tree_verify(NULL) == -EINVAL, "verify(NULL root)");
	FZ_EXPECT(rcuradix_get_stats(NULL, sizeof(st)) == -EINVAL, "get_stats(NULL)");
	FZ_EXPECT(rcuradix_get_stats(&st, sizeof(st) - 1) == -EINVAL, "get_stats(short size)");
}

/* On the first slot of a walk from @key (inside a read-side section: a
 * NULL argument is reported before the lock is asked for). */
static void mu_iter_delete_null(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	struct radix_tree_iter iter;
	void **slot;

	(void)z;
	(void)fresh;
	fz_read_lock();
	radix_tree_for_each_slot(slot, &fz_tree, &iter, key) {
		FZ_EXPECT(!radix_tree_iter_delete(&fz_tree, NULL, slot) &&
			  !radix_tree_iter_delete(&fz_tree, &iter, NULL) &&
			  !radix_tree_iter_delete(NULL, &iter, slot),
			  "iter_delete with a NULL argument");
		break;
	}
	fz_read_unlock();
}

/* Unbalanced preload_end does nothing; then a balanced window still works. */
static void mu_preload_end(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	(void)z;
	(void)key;
	(void)fresh;
	quiet_begin();
	radix_tree_preload_end();
	quiet_end();
	FZ_EXPECT(radix_tree_maybe_preload(GFP_KERNEL) == 0, "maybe_preload(GFP_KERNEL)");
	FZ_EXPECT(stats_get().nodes_reserved >= RT_PRELOAD_SIZE,
		  "maybe_preload(GFP_KERNEL) reserved too little");
	radix_tree_preload_end();
}

/* NULL roots are ignored; the tree lock then still works, recursively for
 * its owner. */
static void mu_null_lock(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	(void)z;
	(void)key;
	(void)fresh;
	radix_tree_lock(NULL);
	radix_tree_unlock(NULL);
	radix_tree_destroy(NULL);
	radix_tree_init_flavor(NULL, GFP_KERNEL, fz_flv());
	radix_tree_lock(&fz_tree);
	radix_tree_lock(&fz_tree);
	radix_tree_unlock(&fz_tree);
	radix_tree_unlock(&fz_tree);
}

/* Inside a preload window a flush keeps the reserve and a nested preload
 * still succeeds (each said once on stderr). */
static void mu_preload_window(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	unsigned long r;
	int nested;

	(void)z;
	(void)key;
	(void)fresh;
	FZ_EXPECT(radix_tree_preload(GFP_KERNEL) == 0, "preload");
	r = stats_get().nodes_reserved;
	quiet_begin();
	rcuradix_thread_cache_flush();
	nested = radix_tree_preload(GFP_KERNEL);
	quiet_end();
	FZ_EXPECT(stats_get().nodes_reserved == r,
		  "a flush inside a preload window changed the reserve (%lu -> %lu)", r,
		  stats_get().nodes_reserved);
	FZ_EXPECT(nested == 0, "nested preload = %d", nested);
	radix_tree_preload_end();
	radix_tree_preload_end();
}

static void mu_null_walk(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	struct radix_tree_iter iter;

	(void)z;
	(void)fresh;
	FZ_EXPECT(!radix_tree_iter_init(NULL, key), "iter_init(NULL)");
	radix_tree_iter_init(&iter, key);
	FZ_EXPECT(!radix_tree_next_chunk(NULL, &iter, 0) && !radix_tree_next_chunk(&fz_tree, NULL, 0),
		  "next_chunk with a NULL argument");
	FZ_EXPECT(!radix_tree_iter_resume(NULL, NULL), "iter_resume(NULL)");
}

/* A never-initialised root: every call that can report an error does. */
static void mu_zero_writers(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	struct radix_tree_memstat mem;
	struct radix_tree_iter iter;
	unsigned long first = key;
	void *slot_item_p = fresh, **slot = &slot_item_p;

	(void)z;
	quiet_begin();
	FZ_EXPECT(radix_tree_insert(&fz_zero_root, key, fresh) == -EINVAL,
		  "insert(uninitialised root)");
	FZ_EXPECT(!radix_tree_delete(&fz_zero_root, key), "delete(uninitialised root)");
	FZ_EXPECT(!radix_tree_tag_set(&fz_zero_root, key, 0), "tag_set(uninitialised root)");
	FZ_EXPECT(!radix_tree_tag_clear(&fz_zero_root, key, 0), "tag_clear(uninitialised root)");
	FZ_EXPECT(radix_tree_range_tag_if_tagged(&fz_zero_root, &first, ULONG_MAX, 9, 0, 1) == 0 &&
		  first == key, "range_tag(uninitialised root)");
	FZ_EXPECT(radix_tree_memory(&fz_zero_root, &mem) == -EINVAL,
		  "memory(uninitialised root)");
	FZ_EXPECT(radix_tree_verify(&fz_zero_root) == -EINVAL, "verify(uninitialised root)");
	radix_tree_iter_init(&iter, key);
	FZ_EXPECT(!radix_tree_iter_delete(&fz_zero_root, &iter, slot),
		  "iter_delete(uninitialised root)");
	radix_tree_destroy(&fz_zero_root);
	quiet_end();
	FZ_EXPECT(slot_item_p == fresh, "iter_delete(uninitialised root) wrote its slot");
}

/* A never-initialised root reads as an empty tree. */
static void mu_zero_readers(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	void *res[4], **slots[4];
	unsigned long idx[4];
	struct radix_tree_iter iter;
	unsigned int tag, seen = 0;
	void **slot;

	(void)z;
	(void)fresh;
	fz_read_lock();
	FZ_EXPECT(!radix_tree_lookup(&fz_zero_root, key), "lookup(uninitialised root)");
	FZ_EXPECT(!radix_tree_lookup_slot(&fz_zero_root, key), "lookup_slot(uninitialised root)");
	FZ_EXPECT(radix_tree_empty(&fz_zero_root), "empty(uninitialised root) = 0");
	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		FZ_EXPECT(radix_tree_tag_get(&fz_zero_root, key, tag) == 0,
			  "tag_get(uninitialised root, %u)", tag);
		FZ_EXPECT(!radix_tree_tagged(&fz_zero_root, tag), "tagged(uninitialised root, %u)",
			  tag);
	}
	FZ_EXPECT(radix_tree_gang_lookup(&fz_zero_root, res, key, 4) == 0 &&
		  radix_tree_gang_lookup_slot(&fz_zero_root, slots, idx, key, 4) == 0 &&
		  radix_tree_gang_lookup_tag(&fz_zero_root, res, key, 4, 0) == 0 &&
		  radix_tree_gang_lookup_tag_slot(&fz_zero_root, slots, key, 4, 0) == 0,
		  "a gang lookup on an uninitialised root found something");
	radix_tree_for_each_slot(slot, &fz_zero_root, &iter, key)
		seen++;
	radix_tree_for_each_tagged(slot, &fz_zero_root, &iter, key, 0)
		seen++;
	radix_tree_for_each_contig(slot, &fz_zero_root, &iter, key)
		seen++;
	FZ_EXPECT(seen == 0, "walks of an uninitialised root visited %u slots", seen);
	fz_read_unlock();
}

/*
 * An invalid tag reads as "not tagged": tag_get returns 0 (never a value
 * that would read as tagged), tagged() 0, the tagged lookups find nothing.
 * A present key first gets every valid tag (through the model), so that a
 * tag number reduced modulo anything would be caught.
 */
static void mu_tag_invalid(struct fz *z, unsigned long key, struct fz_item *fresh)
{
	static const unsigned int bad[] = { RADIX_TREE_MAX_TAGS, RADIX_TREE_MAX_TAGS + 1,
					    2 * RADIX_TREE_MAX_TAGS, UINT_MAX };
	void *res[4], **slots[4];
	unsigned int tag, i;

	(void)fresh;
	if (model_find(&z->m, key))
		for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
			do_tag_change(z, key, tag, true);
	fz_read_lock();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int got;

		quiet_begin();
		got = radix_tree_tag_get(&fz_tree, key, bad[i]);
		quiet_end();
		FZ_EXPECT(got == 0, "tag_get(%#lx, %u) = %d", key, bad[i], got);
		FZ_EXPECT(!radix_tree_tagged(&fz_tree, bad[i]), "tagged(%u)", bad[i]);
		FZ_EXPECT(radix_tree_gang_lookup_tag(&fz_tree, res, key, 4, bad[i]) == 0 &&
			  radix_tree_gang_lookup_tag_slot(&fz_tree, slots, key, 4, bad[i]) == 0,
			  "a tagged gang lookup with tag %u found something", bad[i]);
	}
	fz_read_unlock();
}

static const struct {
	const char *name;
	void (*run)(struct fz *z, unsigned long key, struct fz_item *fresh);
	const char *must;  /* what the calls return; the tree is left unchanged */
} fz_misuse_table[FZ_NR_MISUSE] = {
	[FZ_M_NULL_ROOT] = { "NULL root", mu_null_root,
			     "insert -EINVAL; delete, lookup, lookup_slot NULL; empty non-zero" },
	[FZ_M_NULL_GANG] = { "gang lookups, NULL results or root", mu_null_gang, "0 items" },
	[FZ_M_NULL_TAGS] = { "tag calls, NULL root", mu_null_tags,
			     "tag_set, tag_clear NULL; tag_get, tagged 0" },
	[FZ_M_NULL_RANGE_TAG] = { "range_tag_if_tagged, NULL root or first_indexp",
				  mu_null_range_tag, "0, *first_indexp unchanged" },
	[FZ_M_NULL_STATS] = { "memory, verify, get_stats, NULL or short", mu_null_stats,
			      "-EINVAL" },
	[FZ_M_ITER_DELETE_NULL] = { "iter_delete, NULL argument", mu_iter_delete_null, "NULL" },
	[FZ_M_PRELOAD_END] = { "unbalanced preload_end", mu_preload_end,
			       "nothing; the next window works" },
	[FZ_M_NULL_LOCK] = { "lock, unlock, destroy, init_flavor, NULL root", mu_null_lock,
			     "nothing; the lock still nests for its owner" },
	[FZ_M_PRELOAD_WINDOW] = { "flush, nested preload inside a preload window",
				  mu_preload_window, "reserve kept; nested preload 0" },
	[FZ_M_NULL_WALK] = { "walk engine, NULL arguments", mu_null_walk, "NULL" },
	[FZ_M_ZERO_WRITERS] = { "writers on an uninitialised root", mu_zero_writers,
				"-EINVAL, NULL or 0; the root still all zero" },
	[FZ_M_ZERO_READERS] = { "readers on an uninitialised root", mu_zero_readers,
				"absent: NULL, 0, empty, no walk step" },
	[FZ_M_TAG_INVALID] = { "invalid tag", mu_tag_invalid,
			       "tag_get, tagged 0; tagged gang lookups 0 items" },
};

/* One row of the table, then: nothing changed. */
static void op_misuse(struct fz *z)
{
	unsigned int row = in_u8(z) % FZ_NR_MISUSE;
	unsigned long key = in_key(z);
	struct fz_item *fresh = item_new(key);
	char name[160];

	snprintf(name, sizeof(name), "misuse: %s; must: %s", fz_misuse_table[row].name,
		 fz_misuse_table[row].must);
	z->op_name = name;
	fz_misuse_table[row].run(z, key, fresh);
	item_free(fresh);
	check_key(z, key);
	check_nodes(z);
	FZ_EXPECT(zero_root_untouched(), "a call changed the uninitialised root");
	z->op_name = "misuse";
}

/* ---- driver -------------------------------------------------------------- */

static void op_insert_run(struct fz *z)
{
	op_run(z, true);
}

static void op_delete_run(struct fz *z)
{
	op_run(z, false);
}

static void op_check(struct fz *z)
{
	if (z->since_check >= FZ_CHECK_MIN_GAP)
		check_all(z);
}

static const struct {
	const char *name;
	void (*fn)(struct fz *z);
} fz_op_table[FZ_NR_OPS] = {
	[FZ_INSERT] = { "insert", op_insert },
	[FZ_INSERT_BAD] = { "insert-invalid", op_insert_bad },
	[FZ_DELETE] = { "delete", op_delete },
	[FZ_LOOKUP] = { "lookup", op_lookup },
	[FZ_GANG] = { "gang", op_gang },
	[FZ_TAG_SET] = { "tag_set", op_tag_set },
	[FZ_TAG_CLEAR] = { "tag_clear", op_tag_clear },
	[FZ_TAG_GET] = { "tag_get", op_tag_get },
	[FZ_RANGE_TAG] = { "range_tag_if_tagged", op_range_tag },
	[FZ_REPLACE] = { "replace_slot", op_replace },
	[FZ_ITER] = { "iterate", op_iter },
	[FZ_PRELOAD] = { "preload+insert", op_preload },
	[FZ_DESTROY] = { "destroy", op_destroy },
	[FZ_FAULT_INSERT] = { "insert-fault", op_fault_insert },
	[FZ_FLUSH] = { "thread_cache_flush", op_flush },
	[FZ_GRACE] = { "grace-period", op_grace },
	[FZ_INSERT_RUN] = { "insert-run", op_insert_run },
	[FZ_DELETE_RUN] = { "delete-run", op_delete_run },
	[FZ_TAG_RUN] = { "tag-run", op_tag_run },
	[FZ_CHECK] = { "check", op_check },
	[FZ_MISUSE] = { "misuse", op_misuse },
};

/* Every counter must be zero between inputs: nothing may survive one. */
static void check_zero(const char *when)
{
	struct rcuradix_stats st = stats_get();

	FZ_EXPECT(st.nodes_live == 0 && st.nodes_pending == 0 && st.nodes_reserved == 0 &&
		  st.backing_bytes == 0,
		  "%s: nodes_live %lu, nodes_pending %lu, nodes_reserved %lu, backing_bytes %lu",
		  when, st.nodes_live, st.nodes_pending, st.nodes_reserved, st.backing_bytes);
	FZ_EXPECT(fz_items_live == 0, "%s: %lu items leaked", when, fz_items_live);
}

static void fz_start(struct fz *z, const uint8_t *data, size_t size)
{
	if (!fz_memb_set) {
		const char *env = getenv("RCURADIX_FUZZ_FLAVOR");

		fz_use_memb(env && strcmp(env, "memb") == 0);
	}
	if (fz_memb && !fz_registered) {
		/* Once per process: call_rcu needs a registered thread. */
		urcu_memb_register_thread();
		fz_registered = true;
	}
	memset(z, 0, sizeof(*z));
	z->p = data;
	z->left = size;
	z->gfp = GFP_KERNEL;
	model_init(&z->m);
	fz_current = z;
	check_zero("before the input");
	radix_tree_init_flavor(&fz_tree, z->gfp, fz_flv());
}

static void fz_finish(struct fz *z)
{
	z->op_name = "end of input";
	check_all(z);
	radix_tree_destroy(&fz_tree);
	model_clear(z);
	FZ_EXPECT(radix_tree_empty(&fz_tree), "not empty after destroy");
	/* Wait for every node callback: they free the destroyed nodes. */
	fz_flv()->barrier();
	rcuradix_thread_cache_flush();
	check_zero("after destroy + barrier + flush");
	model_free(&z->m);
	fz_current = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z;

	fz_start(&z, data, size);
	while (z.left && z.op_nr < FZ_MAX_OPS) {
		unsigned int op = in_u8(&z) % FZ_NR_OPS;

		z.op_nr++;
		z.op_name = fz_op_table[op].name;
		fz_op_table[op].fn(&z);
		if (++z.since_check >= FZ_CHECK_EVERY &&
		    z.since_check >= z.nodes / FZ_CHECK_NODES_PER_OP)
			check_all(&z);
	}
	fz_finish(&z);
	return 0;
}
