/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-ops.c - differential fuzzing harness (libFuzzer entry point).
 *
 * What it proves: for every input, read as a sequence of operations on one
 * tree (fuzz-ops.h gives the encoding), every call returns exactly what a
 * trivially correct model (tests/model.c, a sorted array with per-key tag
 * bits) says, and:
 *  - insert returns -EEXIST iff the model has the key, else 0 or -ENOMEM;
 *    -ENOMEM only while an allocation fault is armed (rt_fault_fail_nth /
 *    rt_fault_fail_all) or on a tree that may not allocate (GFP_ATOMIC,
 *    GFP_NOWAIT), never after a successful preload, and then the tree is
 *    exactly as before (a hash of every byte of every node but the
 *    rcu_head) and nothing leaked: nodes_live and bytes_live moved exactly
 *    as the reserve did.  From the shape before the insert (white-box
 *    descent): an insert that needs no new node never fails, one that does
 *    fails whenever neither the reserve nor the allocator can give one;
 *  - after every op, the node accounting in nodes and in bytes:
 *    live = tree + reserved + pending (+ the root's retired list inside a
 *    lock hold), pending = callbacks queued and not run; a delete allocates
 *    nothing and an insert takes at most RT_INSERT_MAX_NODES nodes (a
 *    copy that demotes every group: RT_PLAN_ALL_NODES and the bridges of
 *    one full node, all from the allocator);
 *  - the affected key (lookup, slot, tags) after every op; every 16 ops
 *    (more in big trees) and at the end: the whole tree (gang walk, tagged
 *    walk of every tag, tagged()) equals the model and radix_tree_verify()
 *    passes;
 *  - a slot obtained under the tree lock holds its key's item, or NULL
 *    once its node was copied (the node is then on the retired list), and
 *    replace_slot() through it reaches the key's live slot;
 *  - at the end of the input: destroy + barrier + rcuradix_thread_cache_flush()
 *    bring every node and byte counter to zero, and no item is leaked.
 * Unlinked nodes must not be touched by a writer: with the harness's own
 * flavor, a node handed to call_rcu is poisoned (ASan) until its callback
 * runs, and FZ_GRACE runs the callbacks at points the input chooses (also
 * right after an iter_delete, inside a locked walk).
 *
 * The harness also names the node transition each insert and delete took
 * (fz_transition_count()), so that the corpus replay can confirm that each
 * seed reaches the transitions it was written for.
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
	unsigned long tree_nodes;  /* nodes in the tree when last counted */
	/* The tree's nodes and the retired list's as check_acct() last found
	 * them, valid until the current op ends: an insert or delete needs
	 * them before it runs, and within a run of them the previous one's
	 * check measured them. */
	bool shape_valid;
	unsigned long nodes, node_bytes, retired, retired_bytes;
	gfp_t gfp;
	unsigned long since_check;  /* ops since the last check_all */
	bool enomem_seen;        /* an insert failed since the last check_all */
	bool fault_all;          /* fault injection armed for the current op */
	unsigned long fault_nth;
	bool fault_fresh;        /* fault_nth armed and nothing allocated since */
	bool preloaded;          /* inside a successful radix_tree_preload() window */
	unsigned int hold;       /* radix_tree_lock() holds of the harness */
	/* The last -ENOMEM of a copy or a split: its transition and the tree's
	 * hash then.  The next insert of the same key into the same tree takes
	 * the transitions it failed at: for a copy, its kind; for either,
	 * whether it builds bridges. */
	bool oom_valid;
	unsigned long oom_key, oom_trans;
	uint64_t oom_hash;
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
	char *node;    /* the node the head belongs to */
	size_t bytes;  /* its size */
	bool compact;  /* a C node (else F) */
};

static struct {
	struct fz_cb *cb;
	size_t n, cap;
	unsigned long bytes;  /* sum of the queued nodes' sizes */
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

/*
 * Only nodes go through call_rcu in the library.  Which kind a head belongs
 * to shows in its place within the RT_NODE_ALIGN-aligned node: a C node's
 * rcu_head follows its 8-byte header, an F node's ends its header line.
 */
_Static_assert(offsetof(struct rt_cnode, rcu) !=
	       offsetof(struct rt_node, rcu) % RT_NODE_ALIGN,
	       "the two kinds' rcu_heads sit at different places in a node");

static bool fz_head_compact(const struct rcu_head *head)
{
	return ((uintptr_t)head & (RT_NODE_ALIGN - 1)) == offsetof(struct rt_cnode, rcu);
}

/*
 * Poison (or unpoison) the bytes of a queued node that no code may touch
 * between call_rcu and the callback: all but the rcu_head (F: the slots and
 * the header line before it; C: the 8-byte header and the entries).
 */
static void fz_poison(const struct fz_cb *cb, bool on)
{
	size_t before = cb->compact ? offsetof(struct rt_cnode, rcu) : offsetof(struct rt_node, rcu);
	size_t after = cb->compact ? offsetof(struct rt_cnode, data) : sizeof(struct rt_node);

	if (on) {
		ASAN_POISON_MEMORY_REGION(cb->node, before);
		ASAN_POISON_MEMORY_REGION(cb->node + after, cb->bytes - after);
	} else {
		ASAN_UNPOISON_MEMORY_REGION(cb->node, before);
		ASAN_UNPOISON_MEMORY_REGION(cb->node + after, cb->bytes - after);
	}
}

static void fz_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	struct fz_cb cb = { head, func, NULL, 0, fz_head_compact(head) };

	if (cb.compact) {
		struct rt_cnode *node = caa_container_of(head, struct rt_cnode, rcu);

		cb.node = (char *)node;
		cb.bytes = rt_cnode_bytes(node);
	} else {
		cb.node = (char *)caa_container_of(head, struct rt_node, rcu);
		cb.bytes = sizeof(struct rt_node);
	}
	if (fz_q.n == fz_q.cap) {
		fz_q.cap = fz_q.cap ? 2 * fz_q.cap : 256;
		fz_q.cb = realloc(fz_q.cb, fz_q.cap * sizeof(*fz_q.cb));
		if (!fz_q.cb)
			abort();
	}
	fz_q.cb[fz_q.n++] = cb;
	fz_q.bytes += cb.bytes;
	/* A writer that touches an unlinked node after queueing it is a
	 * use-after-free in waiting. */
	fz_poison(&cb, true);
}

/* End of a grace period: every queued callback may run. */
static void fz_rcu_barrier(void)
{
	size_t i;

	if (fz_q.readers)
		fz_fail("grace period ended inside a read-side section");
	for (i = 0; i < fz_q.n; i++) {
		fz_poison(&fz_q.cb[i], false);
		fz_q.cb[i].func(fz_q.cb[i].head);
	}
	fz_q.n = 0;
	fz_q.bytes = 0;
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

/* ---- the model --------------------------------------------------------- */

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

/* Remove @key (present) from the model. */
static void model_remove(struct fz *z, unsigned long key)
{
	struct model_entry *e = model_find(&z->m, key);
	unsigned int tag;

	for (tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		model_tag_change(z, e, tag, false);
	model_delete(&z->m, key);
}

static void model_clear(struct fz *z)
{
	size_t i;

	for (i = 0; i < z->m.n; i++)
		item_free(z->m.e[i].item);
	z->m.n = 0;
	memset(z->tag_count, 0, sizeof(z->tag_count));
}

/* ---- the tree, white-box ----------------------------------------------- */

/*
 * What the harness reads of the tree's insides, always under the tree lock
 * (radix_tree_lock() nests for its owner, so these work inside the
 * harness's own lock holds too; the unlock of a nested hold flushes
 * nothing).
 */

/* The next node on the root's retired list after @entry's. */
static void *retired_next(void *entry)
{
	return rt_entry_compact(entry) ? rt_entry_cnode(entry)->retired.next
				       : rt_entry_node(entry)->retired.next;
}

/* Nodes and bytes on the root's retired list (non-empty only inside a
 * lock hold). */
static void retired_count(unsigned long *nodes, unsigned long *bytes)
{
	void *entry;

	*nodes = *bytes = 0;
	radix_tree_lock(&fz_tree);
	for (entry = fz_tree.retired; entry; entry = retired_next(entry)) {
		(*nodes)++;
		*bytes += rt_entry_bytes(entry);
	}
	radix_tree_unlock(&fz_tree);
}

/* Does @slot lie in a node on the root's retired list? */
static bool slot_retired(void **slot)
{
	bool found = false;
	void *entry;

	radix_tree_lock(&fz_tree);
	for (entry = fz_tree.retired; entry && !found; entry = retired_next(entry)) {
		char *start = (char *)rt_entry_node(entry);

		found = (char *)slot >= start && (char *)slot < start + rt_entry_bytes(entry);
	}
	radix_tree_unlock(&fz_tree);
	return found;
}

/* The harness's own loops need no coverage feedback (clang's fuzzer
 * instrumentation traces every comparison). */
#if defined(__clang__)
#define FZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define FZ_NO_COVERAGE
#endif

FZ_NO_COVERAGE static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;  /* FNV-1a */
	return h;
}

/* Every byte of the subtree of @entry that a writer may change: all of
 * each node but its rcu_head. */
FZ_NO_COVERAGE static uint64_t hash_subtree(uint64_t h, void *entry)
{
	void **slots;
	unsigned int i, n;

	h = hash_bytes(h, &entry, sizeof(entry));
	if (rt_entry_compact(entry)) {
		struct rt_cnode *node = rt_entry_cnode(entry);

		h = hash_bytes(h, node, offsetof(struct rt_cnode, rcu));
		h = hash_bytes(h, node->data, rt_cnode_bytes(node) - offsetof(struct rt_cnode, data));
		slots = rt_cnode_slots(node);
		n = node->next;
	} else {
		struct rt_node *node = rt_entry_node(entry);

		h = hash_bytes(h, node, offsetof(struct rt_node, rcu));
		slots = node->slots;
		n = rt_entry_level(entry) ? RT_MAP_SIZE : 0;
	}
	for (i = 0; i < n; i++) {
		void *e = rt_entry_locked(&fz_tree, slots[i]);

		if (e && rt_is_internal(e))
			h = hash_subtree(h, e);
	}
	return h;
}

/* A hash of the whole tree: the root's fields and every node's bytes. */
static uint64_t tree_hash(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	void *top;

	radix_tree_lock(&fz_tree);
	top = rt_entry_locked(&fz_tree, fz_tree.rnode);
	h = hash_bytes(h, &fz_tree.tags, sizeof(fz_tree.tags));
	h = hash_bytes(h, &fz_tree.nr_nodes, sizeof(fz_tree.nr_nodes));
	h = hash_bytes(h, &fz_tree.nr_items, sizeof(fz_tree.nr_items));
	if (top)
		h = hash_subtree(h, top);
	radix_tree_unlock(&fz_tree);
	return h;
}

/* The node at the end of a writer's descent to a key, and the top. */
struct fz_shape {
	enum rt_end end;         /* how the descent ended */
	unsigned int depth;      /* nodes on the path */
	int top;                 /* level of the top node; -1: empty tree */
	bool compact;            /* the last node is a C node (else F) */
	unsigned int level;      /* its level */
	unsigned int next, cap;  /* C: entries written, room for entries */
	unsigned int count;      /* its live entries (F: present slots) */
	unsigned int bridged;    /* its children shaped as bridges (below) */
	unsigned int full_below; /* its children that are full nodes one level down */
	unsigned int items;      /* its live items (an F node above the leaves: none) */
	unsigned long demotions; /* C: the demoting copies its line of copies made */
	size_t bytes;            /* its size */
	bool tomb;               /* C, the key absent: it holds a tombstone of an
				  * item of the key (an insert puts it back) */
};

/* The entries of C node @node whose slot is not NULL, read one by one
 * (the lock is recursive: callers may hold it already). */
FZ_NO_COVERAGE static unsigned int cnode_count(const struct rt_cnode *node)
{
	void **slots = rt_cnode_slots(node);
	unsigned int i, n = 0;

	radix_tree_lock(&fz_tree);
	for (i = 0; i < node->next; i++)
		n += rt_entry_locked(&fz_tree, slots[i]) != NULL;
	radix_tree_unlock(&fz_tree);
	return n;
}

/*
 * Is @child, a live entry of a node at @level, shaped as a bridge: a C node
 * one level down with one live entry (an item, or a child necessarily
 * further down)?  A full node builds one for each item and compressed
 * child it takes; a compact node may hold such a child as well (a new
 * child for one key, or one that lost entries to deletes): the checks
 * compare counts before and after.
 */
FZ_NO_COVERAGE static bool child_is_bridge(void *child, unsigned int level)
{
	return rt_is_internal(child) && rt_entry_compact(child) &&
	       rt_entry_level(child) + 1 == level && cnode_count(rt_entry_cnode(child)) == 1;
}

FZ_NO_COVERAGE static void shape_of(void *entry, struct fz_shape *s)
{
	void **slots;
	unsigned int i, n;

	s->compact = rt_entry_compact(entry);
	s->level = rt_entry_level(entry);
	s->bytes = rt_entry_bytes(entry);
	s->bridged = 0;
	s->full_below = 0;
	s->items = 0;
	slots = rt_entry_slots(entry, &n);
	for (i = 0; i < n; i++) {
		void *e = rt_entry_locked(&fz_tree, slots[i]);

		s->bridged += e && s->level && child_is_bridge(e, s->level);
		s->full_below += e && rt_is_internal(e) && !rt_entry_compact(e) &&
				 rt_entry_level(e) + 1 == s->level;
		s->items += e && !rt_is_internal(e);
	}
	if (s->compact) {
		struct rt_cnode *node = rt_entry_cnode(entry);

		s->demotions = node->demotions;
		s->next = node->next;
		s->cap = node->cap;
		s->count = cnode_count(node);
	} else {
		s->next = s->cap = 0;
		s->count = (unsigned int)__builtin_popcountl(
			rt_bits_locked(&fz_tree, rt_entry_node(entry)->present));
	}
}

/* Does C node @node hold a tombstone of an item whose key is @key?  Read
 * entry by entry, not by the library's search. */
FZ_NO_COVERAGE static bool holds_item_tombstone(const struct rt_cnode *node, unsigned long key)
{
	unsigned int w = rt_sfx_width(node->level), i;
	const uint8_t *tags = rt_cnode_tags(node);
	void **slots = rt_cnode_slots(node);

	for (i = 0; i < node->next; i++)
		if (!slots[i] && !(tags[i] & RT_CTAG_CHILD) &&
		    rt_sfx_get(node, w, i) == (key & rt_level_maxindex(node->level)))
			return true;
	return false;
}

/* The shape on the way to @key; with @depth < the path's length, the node
 * at that depth instead of the last one (s->depth 0 if there is none). */
static void shape_get(unsigned long key, unsigned int depth, struct fz_shape *s)
{
	struct rt_path path;
	void *top;

	memset(s, 0, sizeof(*s));
	radix_tree_lock(&fz_tree);
	top = rt_entry_locked(&fz_tree, fz_tree.rnode);
	rt_descend(&fz_tree, key, &path, NULL);
	s->end = path.end;
	s->top = top ? (int)rt_entry_level(top) : -1;
	if (depth >= path.depth)
		depth = path.depth;
	else
		depth++;
	s->depth = depth;
	if (depth)
		shape_of(path.step[depth - 1].entry, s);
	if (depth == path.depth && path.end == RT_END_ABSENT)
		s->tomb = holds_item_tombstone(rt_entry_cnode(path.step[depth - 1].entry), key);
	radix_tree_unlock(&fz_tree);
}

#define SHAPE_LAST UINT_MAX

/* Must an insert of an absent key into this shape link a new node?  Not
 * into an F leaf's slot, nor back into the key's tombstone, nor appended
 * to a C node with room. */
static bool shape_needs_node(const struct fz_shape *s)
{
	if (s->end == RT_END_SLOT)
		return false;
	if (s->end == RT_END_ABSENT)
		return !s->tomb && s->next >= s->cap;
	return true;
}

/* ---- transitions ----------------------------------------------------------- */

enum fz_trans {
	FZ_T_FIRST,        /* the first node of an empty tree */
	FZ_T_NEW_CHILD,    /* a new node in an F node's empty slot */
	FZ_T_F_SLOT,       /* into an F leaf's empty slot */
	FZ_T_APPEND,       /* appended to a C node in place */
	FZ_T_REFILL,       /* put back in the key's tombstone in a C node */
	FZ_T_GROW_COPY,    /* a C node copied into a larger class */
	FZ_T_COMPACT,      /* a C node with tombstones copied into a class no larger */
	FZ_T_LEAF_FULL,    /* a C leaf copied into an F leaf */
	FZ_T_INNER_FULL,   /* a C node above the leaves copied into an F node */
	FZ_T_DEMOTE,       /* a copy moved a group of items into a new child */
	FZ_T_DEMOTE_TWICE, /* ... and part of it into a grandchild */
	FZ_T_DEMOTE_FOR_FULL, /* ... and a second group, the copy a full node */
	FZ_T_DEMOTE_PAIRS,  /* ... a pair, and more pairs: the copy compact, with room */
	FZ_T_DEMOTE_ALL,   /* ... and every group of items, after RT_DEMOTE_ALL_AFTER
			    * demoting copies: the copy holds children only */
	FZ_T_SPLIT,        /* a compressed path split at the divergence level */
	FZ_T_GROW_TOP,     /* a new top node above the old one */
	FZ_T_GROW_ABSORB,  /* ... that took the old top's items (a C node of items) */
	FZ_T_PARENT_FULL,  /* a C node over full nodes only became a full node */
	FZ_T_BRIDGE,       /* a copy into a full node hung compressed children from
			    * bridges (with inner-full or split) */
	FZ_T_SHRINK,       /* the height decreased */
	FZ_T_UNLINK,       /* a node left empty was unlinked */
	FZ_T_FORWARD,      /* replace_slot() forwarded from a copied node's slot */
	FZ_T_ATOMIC_PRELOADED, /* GFP_ATOMIC/NOWAIT tree: nodes taken in a preload window */
	FZ_T_ATOMIC_RESERVE,   /* ... taken from a leftover reserve, no window */
	FZ_T_ATOMIC_ENOMEM,    /* ... none to take: -ENOMEM */
	FZ_NR_TRANS
};

/* Name, and the prefix of its second row (NULL: it has none). */
static const struct {
	const char *name, *failed;
} fz_trans_names[FZ_NR_TRANS] = {
	[FZ_T_FIRST] = { "first", "enomem-" },
	[FZ_T_NEW_CHILD] = { "new-child", "enomem-" },
	[FZ_T_F_SLOT] = { "f-slot", NULL },
	[FZ_T_APPEND] = { "append", NULL },
	[FZ_T_REFILL] = { "refill", NULL },
	[FZ_T_GROW_COPY] = { "grow-copy", "enomem-" },
	[FZ_T_COMPACT] = { "compact", "enomem-" },
	[FZ_T_LEAF_FULL] = { "leaf-full", "enomem-" },
	[FZ_T_INNER_FULL] = { "inner-full", "enomem-" },
	[FZ_T_DEMOTE] = { "demote", "enomem-" },
	[FZ_T_DEMOTE_TWICE] = { "demote-twice", "enomem-" },
	[FZ_T_DEMOTE_FOR_FULL] = { "demote-for-full", "enomem-" },
	[FZ_T_DEMOTE_PAIRS] = { "demote-pairs", "enomem-" },
	[FZ_T_DEMOTE_ALL] = { "demote-all", "enomem-" },
	[FZ_T_SPLIT] = { "split", "enomem-" },
	[FZ_T_GROW_TOP] = { "grow-top", "enomem-" },
	[FZ_T_GROW_ABSORB] = { "grow-absorb", "enomem-" },
	[FZ_T_PARENT_FULL] = { "parent-full", "fault-" },
	[FZ_T_BRIDGE] = { "bridge", "enomem-" },
	[FZ_T_SHRINK] = { "shrink", "fault-" },
	[FZ_T_UNLINK] = { "unlink", "fault-" },
	[FZ_T_FORWARD] = { "forward", NULL },
	[FZ_T_ATOMIC_PRELOADED] = { "atomic-preloaded", NULL },
	[FZ_T_ATOMIC_RESERVE] = { "atomic-reserve", NULL },
	[FZ_T_ATOMIC_ENOMEM] = { "atomic-enomem", NULL },
};

/* Row 0: taken; row 1: an insert failed at it with -ENOMEM, or a delete
 * took it with an allocation fault armed. */
static unsigned long fz_trans_seen[2][FZ_NR_TRANS];

static void trans_mark(unsigned int row, unsigned long mask)
{
	unsigned int t;

	for (t = 0; t < FZ_NR_TRANS; t++)
		if (mask & (1UL << t))
			fz_trans_seen[row][t]++;
}

#define T(t) (1UL << (t))
#define T_COPY (T(FZ_T_GROW_COPY) | T(FZ_T_COMPACT) | T(FZ_T_LEAF_FULL) | \
		T(FZ_T_INNER_FULL) | T(FZ_T_DEMOTE) | T(FZ_T_DEMOTE_TWICE) | \
		T(FZ_T_DEMOTE_FOR_FULL) | T(FZ_T_DEMOTE_PAIRS) | T(FZ_T_DEMOTE_ALL))

long fz_transition_count(const char *name)
{
	unsigned int t;

	for (t = 0; t < FZ_NR_TRANS; t++) {
		const char *failed = fz_trans_names[t].failed;
		size_t len = failed ? strlen(failed) : 0;

		if (strcmp(name, fz_trans_names[t].name) == 0)
			return (long)fz_trans_seen[0][t];
		if (failed && strncmp(name, failed, len) == 0 &&
		    strcmp(name + len, fz_trans_names[t].name) == 0)
			return (long)fz_trans_seen[1][t];
	}
	return -1;
}

void fz_transitions_print(FILE *f)
{
	unsigned int t, row;

	for (row = 0; row < 2; row++)
		for (t = 0; t < FZ_NR_TRANS; t++)
			if (fz_trans_seen[row][t])
				fprintf(f, " %s%s %lu", row ? fz_trans_names[t].failed : "",
					fz_trans_names[t].name, fz_trans_seen[row][t]);
}

/* The live entries of the top node if it is a compact node of items only
 * with room for one more (growth then takes them into the new top), else
 * -1. */
static int top_items_only(void)
{
	const struct rt_cnode *node;
	void *top;
	void **slots;
	int live = -1;

	radix_tree_lock(&fz_tree);
	top = rt_entry_locked(&fz_tree, fz_tree.rnode);
	if (top && rt_entry_compact(top)) {
		node = rt_entry_cnode(top);
		slots = rt_cnode_slots(node);
		live = (int)cnode_count(node);
		if (live >= (int)RT_C_MAX_ENTRIES)
			live = -1;
		for (unsigned int i = 0; i < node->next && live >= 0; i++)
			if (slots[i] && rt_is_internal(slots[i]))
				live = -1;
	}
	radix_tree_unlock(&fz_tree);
	return live;
}

/* The transition an insert of an absent key into shape @s starts with
 * (for a full C node: T_COPY, the copy's kind shows only afterwards). */
static unsigned long trans_of_insert(const struct fz_shape *s)
{
	switch (s->end) {
	case RT_END_EMPTY:
		return s->depth ? T(FZ_T_NEW_CHILD) : T(FZ_T_FIRST);
	case RT_END_ABOVE:
		return top_items_only() >= 0 ? T(FZ_T_GROW_ABSORB) : T(FZ_T_GROW_TOP);
	case RT_END_DIVERGE:
		return T(FZ_T_SPLIT);
	case RT_END_ABSENT:
		if (s->tomb)
			return T(FZ_T_REFILL);
		return s->next < s->cap ? T(FZ_T_APPEND) : T_COPY;
	default:
		return T(FZ_T_F_SLOT);
	}
}

/*
 * The library's own count of what each insert did (rt_transitions, debug
 * builds: both harness builds define RT_DEBUG).  Its bridge count is how
 * the harness learns that an insert built bridges (checked against the
 * tree: the full node has that many more children shaped as bridges); the
 * other counts are a second opinion on the names the harness gives from
 * the tree's shape and node counts, which must agree with them exactly.
 */
#ifndef RT_DEBUG
#error "fuzz-ops.c reads the library's transition counters: build it with RT_DEBUG"
#endif

static const char *const fz_lib_trans_names[RT_TR_COUNT] = {
	[RT_TR_APPEND] = "append",         [RT_TR_NEW_NODE] = "new node",
	[RT_TR_GROW_ROOT] = "grow root",   [RT_TR_COPY] = "copy",
	[RT_TR_LEAF_FULL] = "leaf full",   [RT_TR_INNER_FULL] = "inner full",
	[RT_TR_DEMOTE] = "demote",         [RT_TR_DEMOTE_TWICE] = "demote twice",
	[RT_TR_DEMOTE_FOR_FULL] = "demote for full", [RT_TR_DEMOTE_PAIRS] = "demote pairs",
	[RT_TR_SPLIT] = "split",           [RT_TR_SPLIT_FULL] = "split full",
	[RT_TR_SHRINK] = "shrink",         [RT_TR_UNLINK] = "unlink",
	[RT_TR_BRIDGE] = "bridge",         [RT_TR_GROW_ABSORB] = "grow absorb",
	[RT_TR_REFILL] = "refill",         [RT_TR_DEMOTE_ALL] = "demote all",
	[RT_TR_PARENT_FULL] = "parent full",
};

static void lib_trans_get(unsigned long *n)
{
	unsigned int t;

	for (t = 0; t < RT_TR_COUNT; t++)
		n[t] = uatomic_read(&rt_transitions[t]);
}

/* The library counted, between @before and @after, exactly @want of each
 * transition (an insert's transitions are counted once it succeeded). */
static void lib_trans_expect(unsigned long key, int ret, const unsigned long *before,
			     const unsigned long *after, const unsigned long *want)
{
	unsigned int t;

	for (t = 0; t < RT_TR_COUNT; t++)
		FZ_EXPECT(after[t] - before[t] == want[t],
			  "insert(%#lx) = %d: the library counted %lu \"%s\" transitions, the "
			  "tree's shape says %lu", key, ret, after[t] - before[t],
			  fz_lib_trans_names[t] ? fz_lib_trans_names[t] : "?", want[t]);
}

/*
 * The copy of the full C node of @pre (on the way to @key) is done: which
 * kind it was.  The copy took the old node's place at its depth, and the
 * old node went to the retired list; the plan linked the copy and one new
 * node per demotion (RT_PLAN_MAX_NODES at most), and a full copy one
 * bridge per compressed child (@bridges).  A copy of the top that holds
 * one child alone, from key 0, is unlinked at once by the shrink that
 * follows (the top's level drops); the demoted child it held then is the
 * top.  @all: the library counted a demotion of every group, which only a
 * node whose line of copies demoted RT_DEMOTE_ALL_AFTER times makes: a
 * node per group (up to RT_PLAN_ALL_NODES), the copy then holding no
 * item.  @linked: the tree's nodes after the insert minus before.  Sets
 * in @want the library's counts this implies.
 */
static unsigned long trans_of_copy(unsigned long key, const struct fz_shape *pre, long linked,
				   unsigned long bridges, bool all, unsigned long *want)
{
	struct fz_shape now;
	unsigned long t = 0;
	long plan;
	bool shrunk, two_groups, pairs;

	shape_get(key, pre->depth - 1, &now);
	FZ_EXPECT(now.depth == pre->depth, "insert(%#lx): the copy is not at depth %u", key,
		  pre->depth);
	shrunk = pre->depth == 1 && now.top < pre->top;
	plan = linked + 1 + (shrunk ? 1 : 0) - (long)bridges;
	FZ_EXPECT(plan >= 1 && plan <= (long)(all ? RT_PLAN_ALL_NODES : RT_PLAN_MAX_NODES) &&
		  bridges <= RT_F_MAX_BRIDGES,
		  "insert(%#lx) copied a node and linked %ld new ones (%lu bridges%s)", key,
		  linked + 1 + (shrunk ? 1 : 0), bridges, shrunk ? ", the copy shrunk away" : "");
	if (all) {
		/* The largest group, then at least one more: three nodes or
		 * more, the copy holding children only (two at least). */
		FZ_EXPECT(pre->demotions >= RT_DEMOTE_ALL_AFTER && pre->level && plan >= 3 &&
			  !shrunk && now.items == 0 && now.count >= 2,
			  "insert(%#lx) demoted every group from a node at level %u whose line "
			  "of copies demoted %lu times: %ld nodes, the copy holding %u items "
			  "of %u entries%s", key, pre->level, pre->demotions, plan, now.items,
			  now.count, shrunk ? ", shrunk away" : "");
		want[RT_TR_DEMOTE_ALL] = 1;
		t |= T(FZ_T_DEMOTE) | T(FZ_T_DEMOTE_ALL);
	} else {
		/* Three nodes: a group and part of it (the copy holds the
		 * child alone); or, the copy holding more, two groups or
		 * more: the copy is then a full node, or a compact one that
		 * moved more pairs for room (three to RT_PLAN_MAX_NODES
		 * nodes). */
		two_groups = plan >= 3 && !shrunk && now.count > 1;
		pairs = two_groups && now.compact;
		if (plan >= 2)
			t |= T(FZ_T_DEMOTE);
		if (plan >= 3)
			t |= pairs ? T(FZ_T_DEMOTE_PAIRS)
			     : two_groups ? T(FZ_T_DEMOTE_FOR_FULL) : T(FZ_T_DEMOTE_TWICE);
		want[plan == 2 ? RT_TR_DEMOTE
		     : pairs ? RT_TR_DEMOTE_PAIRS
		     : two_groups ? RT_TR_DEMOTE_FOR_FULL : RT_TR_DEMOTE_TWICE] = plan >= 2;
		FZ_EXPECT(!two_groups || now.level,
			  "insert(%#lx) demoted two groups from a %s leaf", key,
			  now.compact ? "compact" : "full");
	}
	want[RT_TR_SHRINK] = shrunk;
	if (shrunk) {
		/* Only a demotion leaves the copy a single child, the top now.
		 * The copy was a full node iff that child sits one level down
		 * and a compact node of one entry would be as large (the
		 * 8-slot build, whose smallest class is a full node's size). */
		FZ_EXPECT(plan >= 2 && !bridges, "insert(%#lx): a copy of the top with %ld nodes "
			  "and %lu bridges shrunk away", key, plan, bridges);
		if (now.level + 1 == pre->level &&
		    rt_cnode_bytes_for(1, rt_sfx_width(pre->level)) >= sizeof(struct rt_node)) {
			want[RT_TR_INNER_FULL] = 1;
			t |= T(FZ_T_INNER_FULL);
		}
		return t;
	}
	/* A copy that demoted every group gave each lone item a node one
	 * level down, shaped as a bridge: at most one per node it linked
	 * besides the copy and the largest group's. */
	FZ_EXPECT(all ? now.bridged >= pre->bridged + bridges &&
			       now.bridged <= pre->bridged + bridges + (unsigned long)(plan - 2)
		      : now.bridged == pre->bridged + bridges,
		  "insert(%#lx): the library built %lu bridges, the copy has %u children shaped "
		  "as bridges where the old node had %u", key, bridges, now.bridged, pre->bridged);
	if (bridges) {
		FZ_EXPECT(!now.compact && now.level, "insert(%#lx): %lu bridges below a %s node "
			  "at level %u", key, bridges, now.compact ? "compact" : "full", now.level);
		t |= T(FZ_T_BRIDGE);
	}
	if (!now.compact) {
		want[now.level ? RT_TR_INNER_FULL : RT_TR_LEAF_FULL] = 1;
		return t | (now.level ? T(FZ_T_INNER_FULL) : T(FZ_T_LEAF_FULL));
	}
	if (plan >= 2)
		return t;
	want[RT_TR_COPY] = 1;
	if (now.bytes > pre->bytes)
		return T(FZ_T_GROW_COPY);
	/* Room for every live entry and the new one, in no more bytes: there
	 * were tombstones to drop. */
	FZ_EXPECT(pre->count < pre->next,
		  "insert(%#lx): a copy of a full C node without tombstones did not grow "
		  "(%zu -> %zu bytes, %u entries)", key, pre->bytes, now.bytes, pre->count);
	return T(FZ_T_COMPACT);
}

/*
 * The split of the compressed path in the C node of @pre is done.  The new
 * node took the child's place in that node (one node linked); or, one
 * level below it, and the node then held only children, enough for a full
 * node: a full copy took its place at its depth, with the new node and one
 * bridge per compressed child left (@bridges), the old node retired.  Or,
 * in a top node whose one child did not cover key 0, the new node became
 * the top.
 */
static unsigned long trans_of_split(unsigned long key, const struct fz_shape *pre, long linked,
				    unsigned long bridges, unsigned long *want)
{
	struct fz_shape now;

	shape_get(key, pre->depth - 1, &now);
	if (pre->depth == 1 && now.top >= 0 && now.top < pre->top) {
		/* In the top node, whose one child did not cover key 0: the
		 * new node does, and the tree hangs from it now (the old top
		 * retired). */
		FZ_EXPECT(linked == 0 && !bridges && now.depth == 1 && (int)now.level == now.top &&
			  now.count == 2,
			  "insert(%#lx): a split in the top node shrunk the tree to level %d, "
			  "linking %ld nodes (%lu bridges), the top holding %u entries",
			  key, now.top, linked, bridges, now.count);
		want[RT_TR_SPLIT] = 1;
		want[RT_TR_SHRINK] = 1;
		return T(FZ_T_SPLIT) | T(FZ_T_SHRINK);
	}
	FZ_EXPECT(now.depth == pre->depth && now.level == pre->level,
		  "insert(%#lx): the split node's parent is not at depth %u, level %u", key,
		  pre->depth, pre->level);
	FZ_EXPECT(linked == 1 + (long)bridges && bridges <= RT_F_MAX_BRIDGES &&
		  (!now.compact || !bridges),
		  "insert(%#lx): a split linked %ld nodes with %lu bridges, its parent now %s", key,
		  linked, bridges, now.compact ? "compact" : "full");
	FZ_EXPECT(now.bridged == pre->bridged + bridges,
		  "insert(%#lx): the library built %lu bridges, the split node's parent has %u "
		  "children shaped as bridges where it had %u", key, bridges, now.bridged,
		  pre->bridged);
	want[now.compact ? RT_TR_SPLIT : RT_TR_SPLIT_FULL] = 1;
	return T(FZ_T_SPLIT) | (bridges ? T(FZ_T_BRIDGE) : 0);
}

/* The C nodes among the first @depth - 1 nodes on the way to @key (bit d:
 * the node at depth d), the ancestors of the last one. */
static unsigned long ancestors_compact(unsigned long key, unsigned int depth)
{
	struct fz_shape s;
	unsigned long mask = 0;

	for (unsigned int d = 0; d + 1 < depth && d < 8 * sizeof(mask); d++) {
		shape_get(key, d, &s);
		if (s.compact)
			mask |= 1UL << d;
	}
	return mask;
}

/* Does a node of shape @s hold full nodes above the leaves only, one level
 * down, two or more? */
static bool over_full_nodes(const struct fz_shape *s)
{
	return s->level >= 2 && s->count >= 2 && s->full_below == s->count;
}

/*
 * The insert of @key made the last node of @pre a full node (a copy or a
 * split) or not.  If it did, each C node above (@pre_compact, from
 * ancestors_compact()) that then held full nodes only (over_full_nodes()),
 * from the nearest up, became a full node too, with a node from the
 * allocator: not on a tree that may not allocate (@atomic), and maybe not
 * with a fault armed (@faulty), where such a node stays compact
 * (*@kept).  Sets the library's count in @want; returns the transitions
 * seen.
 */
static unsigned long trans_of_promotion(unsigned long key, const struct fz_shape *pre,
					unsigned long pre_compact, bool atomic, bool faulty,
					unsigned long *want, bool *kept)
{
	struct fz_shape s;
	unsigned int d = pre->depth - 1;
	unsigned long promoted = 0;

	*kept = false;
	shape_get(key, d, &s);
	if (s.depth != pre->depth || s.compact)
		return 0;
	while (d-- > 0 && (pre_compact & (1UL << d))) {
		shape_get(key, d, &s);
		if (s.compact) {
			FZ_EXPECT(!over_full_nodes(&s) || atomic || faulty,
				  "insert(%#lx): the C node at depth %u holds %u full nodes only "
				  "and stayed compact", key, d, s.count);
			*kept = over_full_nodes(&s);
			break;
		}
		FZ_EXPECT(over_full_nodes(&s) && s.items == 0,
			  "insert(%#lx): the C node at depth %u became a full node holding %u "
			  "entries, %u of them full nodes one level down", key, d, s.count,
			  s.full_below);
		promoted++;
	}
	want[RT_TR_PARENT_FULL] = promoted;
	return promoted ? T(FZ_T_PARENT_FULL) : 0;
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

/* Where every node is, in nodes and in bytes. */
struct fz_acct {
	struct rcuradix_stats st;
	unsigned long nodes, node_bytes;        /* linked in the tree */
	unsigned long retired, retired_bytes;   /* on the root's retired list */
};

static void acct_get(struct fz_acct *a)
{
	struct radix_tree_memstat mem;

	if (rcuradix_get_stats(&a->st, sizeof(a->st)))
		fz_fail("rcuradix_get_stats failed");
	FZ_EXPECT(radix_tree_memory(&fz_tree, &mem) == 0, "radix_tree_memory failed");
	a->nodes = mem.nodes;
	a->node_bytes = mem.node_bytes;
	retired_count(&a->retired, &a->retired_bytes);
}

/* acct_get() before an insert or delete: the tree's part as the last check
 * of this op left it (nothing in between changed the tree), else measured. */
static void acct_before(const struct fz *z, struct fz_acct *a)
{
	if (!z->shape_valid) {
		acct_get(a);
		return;
	}
	if (rcuradix_get_stats(&a->st, sizeof(a->st)))
		fz_fail("rcuradix_get_stats failed");
	a->nodes = z->nodes;
	a->node_bytes = z->node_bytes;
	a->retired = z->retired;
	a->retired_bytes = z->retired_bytes;
}

static struct rcuradix_stats stats_get(void)
{
	struct rcuradix_stats st;

	if (rcuradix_get_stats(&st, sizeof(st)))
		fz_fail("rcuradix_get_stats failed");
	return st;
}

/*
 * Node accounting after an op (@a, or measured now if NULL): nothing waits
 * on the retired list outside a lock hold.  With the harness flavor
 * (callbacks run only when it says so), in nodes and in bytes: pending =
 * the callbacks queued, live = tree + reserved + pending + retired; with
 * the libc allocator, backing bytes = live bytes.
 */
static void check_acct(struct fz *z, const struct fz_acct *a)
{
	struct fz_acct now;
	const struct rcuradix_stats *st;

	if (!a) {
		acct_get(&now);
		a = &now;
	}
	st = &a->st;
	z->tree_nodes = a->nodes;
	z->shape_valid = true;
	z->nodes = a->nodes;
	z->node_bytes = a->node_bytes;
	z->retired = a->retired;
	z->retired_bytes = a->retired_bytes;
	FZ_EXPECT(z->hold || !a->retired, "%lu nodes on the retired list outside a lock hold",
		  a->retired);
	if (fz_memb)
		return;
	FZ_EXPECT(st->nodes_pending == fz_q.n && st->bytes_pending == fz_q.bytes,
		  "pending: %lu nodes, %lu bytes; queued: %zu callbacks, %lu bytes",
		  st->nodes_pending, st->bytes_pending, fz_q.n, fz_q.bytes);
	FZ_EXPECT(st->nodes_live == a->nodes + st->nodes_reserved + st->nodes_pending + a->retired,
		  "nodes_live %lu != tree %lu + reserved %lu + pending %lu + retired %lu",
		  st->nodes_live, a->nodes, st->nodes_reserved, st->nodes_pending, a->retired);
	FZ_EXPECT(st->bytes_live == a->node_bytes + st->bytes_reserved + st->bytes_pending +
					    a->retired_bytes,
		  "bytes_live %lu != tree %lu + reserved %lu + pending %lu + retired %lu",
		  st->bytes_live, a->node_bytes, st->bytes_reserved, st->bytes_pending,
		  a->retired_bytes);
#ifdef RT_ALLOC_LIBC
	FZ_EXPECT(st->backing_bytes == st->bytes_live, "backing_bytes %lu for %lu live bytes",
		  st->backing_bytes, st->bytes_live);
#endif
}

static void check_nodes(struct fz *z)
{
	check_acct(z, NULL);
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
	check_nodes(z);
}

/* ---- fault injection ----------------------------------------------------- */

static void fault_arm_nth(struct fz *z, unsigned long n)
{
	z->fault_nth = n;
	z->fault_fresh = true;
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
	z->fault_fresh = false;
	rt_fault_fail_all(false);
	rt_fault_fail_nth(0);
}

/* Arm the fault FZ_FAULT_INSERT's mode @m describes. */
static void fault_arm_mode(struct fz *z, uint8_t m)
{
	if (m & 1)
		fault_arm_all(z);
	else
		fault_arm_nth(z, 1 + ((m >> 1) & 31));
}

static bool fault_armed(const struct fz *z)
{
	return z->fault_all || z->fault_nth;
}

/* Does the next allocation fail? */
static bool fault_next_fails(const struct fz *z)
{
	return z->fault_all || (z->fault_fresh && z->fault_nth == 1);
}

/* ---- ops ------------------------------------------------------------------ */

static bool tree_atomic(const struct fz *z)
{
	return !(z->gfp & __GFP_DIRECT_RECLAIM);
}

/*
 * Insert @item under @key and check the outcome (see the file comment):
 * -EEXIST iff present, and then nothing allocated or changed; -ENOMEM only
 * where it may happen, and then the tree exactly as it was and nothing
 * leaked; 0 with at most RT_INSERT_MAX_NODES nodes taken, from the reserve
 * alone on a tree that may not allocate, from the allocator alone while it
 * works.  The shape before the insert says whether it needs a node at all,
 * and so whether it must succeed or fail.
 */
static int do_insert(struct fz *z, unsigned long key, struct fz_item *item)
{
	bool exists = model_find(&z->m, key) != NULL, atomic = tree_atomic(z);
	bool may_fail = !exists && !z->preloaded && (atomic || fault_armed(z));
	bool attribute = !exists && z->oom_valid && z->oom_key == key;
	bool next_fails = fault_next_fails(z) || atomic;
	bool ripe;  /* a copy that may first try to demote every group */
	bool kept = false;  /* a C node over full nodes stayed compact */
	unsigned long pre_compact = 0;
	struct fz_acct before, after;
	struct fz_shape pre;
	unsigned long trans, taken, bridges, promoted;
	unsigned long lib_before[RT_TR_COUNT], lib_after[RT_TR_COUNT], want[RT_TR_COUNT] = { 0 };
	uint64_t hash = 0;
	bool needs;
	long linked;
	int ret, absorbed;

	acct_before(z, &before);
	shape_get(key, SHAPE_LAST, &pre);
	needs = shape_needs_node(&pre);
	trans = trans_of_insert(&pre);
	/* Such a copy takes its nodes from the allocator alone, and gives
	 * them back if it cannot get them all (an injected fault): then it
	 * makes the copy the reserve covers, which may succeed where the
	 * fault was the next allocation, and has freed nodes. */
	ripe = trans == T_COPY && pre.level && pre.demotions >= RT_DEMOTE_ALL_AFTER && !atomic;
	absorbed = trans == T(FZ_T_GROW_ABSORB) ? top_items_only() : -1;
	if (trans == T_COPY || trans == T(FZ_T_SPLIT))
		pre_compact = ancestors_compact(key, pre.depth);
	if (may_fail || attribute)
		hash = tree_hash();
	lib_trans_get(lib_before);
	ret = radix_tree_insert(&fz_tree, key, item);
	lib_trans_get(lib_after);
	bridges = lib_after[RT_TR_BRIDGE] - lib_before[RT_TR_BRIDGE];
	z->fault_fresh = false;
	acct_get(&after);
	if (exists) {
		FZ_EXPECT(ret == -EEXIST, "insert(%#lx) of a present key = %d", key, ret);
	} else if (ret == -ENOMEM) {
		FZ_EXPECT(may_fail, "insert(%#lx) = -ENOMEM %s", key,
			  z->preloaded ? "after a successful preload"
				       : "with no fault armed, on a tree that may allocate");
		FZ_EXPECT(needs, "insert(%#lx) = -ENOMEM where no node is needed (descent end %d, "
			  "%u of %u entries used)", key, (int)pre.end, pre.next, pre.cap);
		FZ_EXPECT(tree_hash() == hash, "insert(%#lx) = -ENOMEM changed the tree", key);
	} else {
		FZ_EXPECT(ret == 0, "insert(%#lx) = %d, expected 0 or -ENOMEM", key, ret);
		FZ_EXPECT(!(needs && may_fail && next_fails && before.st.nodes_reserved == 0 &&
			    !(ripe && !z->fault_all)),
			  "insert(%#lx) = 0: it needs a node, the reserve is empty and the "
			  "allocator %s", key, atomic ? "may not be called" : "fails");
	}
	/* A failed insert may give back to the allocator what the reserve has
	 * no room for; nothing else frees a node inside insert. */
	FZ_EXPECT(ret == -ENOMEM || fz_memb || (ripe && fault_armed(z)) ||
		  after.st.nodes_freed == before.st.nodes_freed,
		  "insert(%#lx) = %d freed %lu nodes", key, ret,
		  after.st.nodes_freed - before.st.nodes_freed);
	if (ret) {
		/* Nothing linked, nothing queued: what was allocated went into
		 * the reserve, or back to the allocator. */
		FZ_EXPECT(after.nodes == before.nodes && after.node_bytes == before.node_bytes &&
			  after.retired == before.retired &&
			  (fz_memb || after.st.nodes_pending == before.st.nodes_pending),
			  "insert(%#lx) = %d moved nodes: tree %lu -> %lu, retired %lu -> %lu", key,
			  ret, before.nodes, after.nodes, before.retired, after.retired);
		if (!fz_memb)
			FZ_EXPECT(after.st.nodes_live - before.st.nodes_live ==
				  after.st.nodes_reserved - before.st.nodes_reserved &&
				  after.st.bytes_live - before.st.bytes_live ==
				  after.st.bytes_reserved - before.st.bytes_reserved,
				  "insert(%#lx) = %d: live %lu -> %lu nodes, %lu -> %lu bytes; reserve "
				  "%lu -> %lu nodes, %lu -> %lu bytes", key, ret,
				  before.st.nodes_live, after.st.nodes_live, before.st.bytes_live,
				  after.st.bytes_live, before.st.nodes_reserved,
				  after.st.nodes_reserved, before.st.bytes_reserved,
				  after.st.bytes_reserved);
		if (ret == -EEXIST || atomic || z->fault_all)
			FZ_EXPECT(after.st.nodes_allocated == before.st.nodes_allocated,
				  "insert(%#lx) = %d allocated %lu nodes", key, ret,
				  after.st.nodes_allocated - before.st.nodes_allocated);
		if (ret == -EEXIST || atomic)
			FZ_EXPECT(after.st.nodes_reserved == before.st.nodes_reserved,
				  "insert(%#lx) = %d: reserve %lu -> %lu", key, ret,
				  before.st.nodes_reserved, after.st.nodes_reserved);
	} else {
		FZ_EXPECT(after.st.nodes_reserved <= before.st.nodes_reserved,
			  "insert(%#lx) = 0 grew the reserve %lu -> %lu", key,
			  before.st.nodes_reserved, after.st.nodes_reserved);
		taken = after.st.nodes_allocated - before.st.nodes_allocated +
			before.st.nodes_reserved - after.st.nodes_reserved;
		/* A C node over full nodes made full takes one more each. */
		promoted = lib_after[RT_TR_PARENT_FULL] - lib_before[RT_TR_PARENT_FULL];
		/* A copy that demoted every group takes up to a node per
		 * digit and the bridges of one full node, all allocated.  One
		 * that tried and gave its nodes back counted them allocated
		 * (and freed: no bound then). */
		if (lib_after[RT_TR_DEMOTE_ALL] != lib_before[RT_TR_DEMOTE_ALL])
			FZ_EXPECT(taken <= RT_PLAN_ALL_NODES + RT_F_MAX_BRIDGES + promoted &&
				  after.st.nodes_reserved == before.st.nodes_reserved,
				  "insert(%#lx) = 0 demoted every group taking %lu nodes, reserve "
				  "%lu -> %lu", key, taken, before.st.nodes_reserved,
				  after.st.nodes_reserved);
		else if (!(ripe && fault_armed(z)))
			FZ_EXPECT(taken <= RT_INSERT_MAX_NODES + promoted &&
				  (taken > 0) == needs,
				  "insert(%#lx) = 0 took %lu nodes (%s needed)", key, taken,
				  needs ? "some" : "none");
		if (atomic || z->fault_all)
			FZ_EXPECT(after.st.nodes_allocated == before.st.nodes_allocated,
				  "insert(%#lx) = 0 allocated on a tree that may not, or while "
				  "every allocation fails", key);
		if (!atomic && !fault_armed(z))
			FZ_EXPECT(after.st.nodes_reserved == before.st.nodes_reserved,
				  "insert(%#lx) = 0 took from the reserve while the allocator works",
				  key);
		linked = (long)after.nodes - (long)before.nodes;
		if (trans == T_COPY)
			trans = trans_of_copy(key, &pre, linked, bridges,
					      lib_after[RT_TR_DEMOTE_ALL] != lib_before[RT_TR_DEMOTE_ALL],
					      want);
		else if (trans == T(FZ_T_SPLIT))
			trans = trans_of_split(key, &pre, linked, bridges, want);
		else if (trans == T(FZ_T_GROW_ABSORB))
			/* The new top replaced the old one: it holds the old
			 * top's items and the key's, at the key's level. */
			FZ_EXPECT(linked == 0 && rt_entry_compact(fz_tree.rnode) &&
				  cnode_count(rt_entry_cnode(fz_tree.rnode)) ==
					  (unsigned int)absorbed + 1 &&
				  rt_entry_level(fz_tree.rnode) == rt_level_for(key),
				  "insert(%#lx) grew taking %d items: linked %ld nodes, top %p", key,
				  absorbed, linked, fz_tree.rnode);
		else if (needs)
			FZ_EXPECT(linked == 1, "insert(%#lx) linked %ld nodes for one", key, linked);
		else
			FZ_EXPECT(linked == 0, "insert(%#lx) linked %ld nodes where none was needed",
				  key, linked);
		if (pre_compact)
			trans |= trans_of_promotion(key, &pre, pre_compact, atomic, fault_armed(z),
						    want, &kept);
		want[RT_TR_BRIDGE] = trans & T(FZ_T_BRIDGE) ? bridges : 0;
		want[RT_TR_APPEND] = (trans & T(FZ_T_APPEND)) != 0;
		want[RT_TR_REFILL] = (trans & T(FZ_T_REFILL)) != 0;
		want[RT_TR_NEW_NODE] = (trans & (T(FZ_T_FIRST) | T(FZ_T_NEW_CHILD))) != 0;
		want[RT_TR_GROW_ROOT] = (trans & T(FZ_T_GROW_TOP)) != 0;
		want[RT_TR_GROW_ABSORB] = (trans & T(FZ_T_GROW_ABSORB)) != 0;
		if (atomic && taken)
			trans |= z->preloaded ? T(FZ_T_ATOMIC_PRELOADED) : T(FZ_T_ATOMIC_RESERVE);
	}
	/* A failed insert counted nothing: its transitions are counted once
	 * it can no longer fail. */
	lib_trans_expect(key, ret, lib_before, lib_after, want);
	check_acct(z, &after);
	if (ret == 0) {
		model_insert(&z->m, key, item);
		trans_mark(0, trans);
		if (kept)
			trans_mark(1, T(FZ_T_PARENT_FULL));
		if (attribute && hash == z->oom_hash)
			trans_mark(1, trans & (T(FZ_T_BRIDGE) |
					       (z->oom_trans == T_COPY ? T_COPY : 0)));
		if (attribute)
			z->oom_valid = false;
	} else {
		item_free(item);
	}
	if (ret == -ENOMEM) {
		trans_mark(1, trans & ~T_COPY);
		if (atomic)
			trans_mark(0, T(FZ_T_ATOMIC_ENOMEM));
		z->oom_valid = trans == T_COPY || trans == T(FZ_T_SPLIT);
		z->oom_trans = trans;
		z->oom_key = key;
		z->oom_hash = hash;
	}
	check_key(z, key);
	/* The model's view of "unchanged" too, once per check interval, or a
	 * run of inserts into an empty-handed GFP_ATOMIC tree costs a full
	 * check per key. */
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

/*
 * Delete @key: the model's item or NULL.  A delete never allocates; the
 * tree loses nodes exactly when the key's node empties (unlinked) or the
 * height shrinks.
 */
static void do_delete(struct fz *z, unsigned long key)
{
	struct model_entry *e = model_find(&z->m, key);
	void *want = e ? e->item : NULL, *got;
	struct fz_acct before, after;
	struct fz_shape pre, post;
	unsigned long trans = 0;

	acct_before(z, &before);
	shape_get(key, SHAPE_LAST, &pre);
	got = radix_tree_delete(&fz_tree, key);
	acct_get(&after);
	FZ_EXPECT(got == want, "delete(%#lx) = %p, model %p", key, got, want);
	FZ_EXPECT(after.st.nodes_allocated == before.st.nodes_allocated &&
		  after.st.nodes_reserved == before.st.nodes_reserved,
		  "delete(%#lx) allocated %lu nodes, reserve %lu -> %lu", key,
		  after.st.nodes_allocated - before.st.nodes_allocated, before.st.nodes_reserved,
		  after.st.nodes_reserved);
	if (e) {
		shape_get(key, SHAPE_LAST, &post);
		if (pre.count == 1)
			trans |= T(FZ_T_UNLINK);
		if (post.top >= 0 && post.top < pre.top)
			trans |= T(FZ_T_SHRINK);
		FZ_EXPECT(trans ? after.nodes < before.nodes : after.nodes == before.nodes,
			  "delete(%#lx): tree %lu -> %lu nodes (its node held %u entries, top "
			  "level %d -> %d)", key, before.nodes, after.nodes, pre.count, pre.top,
			  post.top);
		model_remove(z, key);
		item_free(got);
		trans_mark(0, trans);
		if (fault_armed(z))
			trans_mark(1, trans);
	} else {
		FZ_EXPECT(after.nodes == before.nodes && after.node_bytes == before.node_bytes,
			  "delete(%#lx) of an absent key changed the tree's nodes", key);
	}
	check_acct(z, &after);
	check_key(z, key);
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

/*
 * Replace the item of @key (present) through @slot, obtained under the
 * lock (held), by a fresh one, tags kept.  The slot may lie in a C node
 * copied since in this lock hold: then it reads NULL, its node waits on
 * the retired list, and replace_slot() reaches the key's live slot.
 * Either way lookup() finds the fresh item.  Only valid calls: every
 * misuse of replace_slot aborts (covered by the death tests in tests/).
 */
static void do_replace(struct fz *z, unsigned long key, void **slot)
{
	struct model_entry *e = model_find(&z->m, key);
	struct fz_item *fresh = item_new(key);
	void *now;

	radix_tree_replace_slot(&fz_tree, slot, fresh);
	item_free(e->item);
	e->item = fresh;
	now = slot_item(slot);
	if (now != fresh) {
		FZ_EXPECT(!now && slot_retired(slot),
			  "replace_slot(%#lx): the slot holds %p, neither the new item %p nor "
			  "NULL in a retired node", key, now, (void *)fresh);
		trans_mark(0, T(FZ_T_FORWARD));
	}
	FZ_EXPECT(radix_tree_lookup(&fz_tree, key) == fresh,
		  "replace_slot(%#lx): lookup finds %p, not the new item %p", key,
		  radix_tree_lookup(&fz_tree, key), (void *)fresh);
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
		do_replace(z, key, slot);
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
	void *item = slot_item(*slotp);
	unsigned int action = (w->pattern >> (2 * (w->seen % 4))) & 3;

	FZ_EXPECT(w->seen < w->nexp, "%s (tag %u) visited %#lx after the %zu expected keys",
		  walk_name[w->kind], w->tag, iter->index, w->nexp);
	x = &w->exp[w->seen++];
	FZ_EXPECT(iter->index == x->key, "%s: visit %zu is %#lx, model %#lx", walk_name[w->kind],
		  w->seen - 1, iter->index, x->key);
	FZ_EXPECT(item == x->item, "%s: item at %#lx differs", walk_name[w->kind], x->key);
	/* iter.tags: the chunk's bitmap, bit i for the chunk's slot i (an F
	 * leaf's slots, or a run of a C node's entries): set for the slot
	 * being visited (present, or tagged on tagged walks), whose key is
	 * the one radix_tree_iter_key() computes from the chunk's bias. */
	FZ_EXPECT(*slotp >= iter->chunk && *slotp - iter->chunk < RT_BITS_PER_LONG &&
		  ((iter->tags >> (*slotp - iter->chunk)) & 1),
		  "%s: iter.tags %#lx lacks the bit of %#lx (slot %td of the chunk)",
		  walk_name[w->kind], iter->tags, x->key, *slotp - iter->chunk);
	FZ_EXPECT(radix_tree_iter_key(iter, *slotp) == iter->index,
		  "%s: radix_tree_iter_key() = %#lx at %#lx", walk_name[w->kind],
		  radix_tree_iter_key(iter, *slotp), iter->index);
	if (action == 1 && w->locked) {
		void *got = radix_tree_iter_delete(&fz_tree, iter, *slotp);

		FZ_EXPECT(got == x->item, "iter_delete at %#lx = %p, model %p", x->key, got,
			  x->item);
		model_remove(z, x->key);
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
		do_replace(z, x->key, *slotp);
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
	if (w.locked) {
		radix_tree_lock(&fz_tree);
		z->hold++;
	} else {
		fz_read_lock();
	}
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
	if (w.locked) {
		z->hold--;
		radix_tree_unlock(&fz_tree);
	} else {
		fz_read_unlock();
	}
	if (done)
		FZ_EXPECT(w.seen == w.nexp, "%s from %#lx (tag %u) ended after %zu of %zu keys; "
			  "next expected %#lx", walk_name[w.kind], start, w.tag, w.seen, w.nexp,
			  w.exp[w.seen].key);
	free(w.exp);
	check_nodes(z);
}

/* ---- preload, destroy, faults, runs --------------------------------------- */

/* The bytes a filled reserve holds (preload.c): one node of every size a
 * node can have (the compact size classes and the full node's), and a
 * second full node and largest node. */
static unsigned long fz_preload_bytes(void)
{
	unsigned long bytes = RT_NODE_SIZE + RT_C_MAX_BYTES;

	for (size_t b = RT_NODE_ALIGN; b <= RT_C_MAX_BYTES; b += RT_NODE_ALIGN)
		if (rt_class_round(b) == b || b == RT_NODE_SIZE)
			bytes += b;
	return bytes;
}
#define FZ_PRELOAD_BYTES fz_preload_bytes()

/*
 * Preload, then insert inside the window.  The preload: 0 whenever the
 * allocator works; -ENOMEM only while a fault is armed, and then the
 * reserve as it was and nothing leaked; from an empty reserve it must
 * allocate every node of a filled one, so it fails exactly when the armed
 * fault stops the allocator before RT_PRELOAD_SIZE nodes.  Once it
 * succeeded, the reserve holds at least a filled reserve's nodes and bytes
 * and the insert never fails, whatever fault is armed.
 */
static void op_preload(struct fz *z)
{
	uint8_t m = in_u8(z);
	unsigned long key = in_key(z);
	bool maybe_atomic = m & 0x20;
	struct rcuradix_stats before, after;
	unsigned long alloc;
	int ret;

	if ((m & 3) == 3)
		rcuradix_thread_cache_flush();
	before = stats_get();
	if ((m & 3) == 1)
		fault_arm_nth(z, 1 + ((m >> 2) & 7));
	else if (m & 2)
		fault_arm_all(z);
	ret = maybe_atomic ? radix_tree_maybe_preload(GFP_ATOMIC) : radix_tree_preload(GFP_KERNEL);
	after = stats_get();
	alloc = after.nodes_allocated - before.nodes_allocated;
	if (maybe_atomic) {
		/* GFP_ATOMIC: nothing to reserve, always 0. */
		FZ_EXPECT(ret == 0 && alloc == 0 && after.nodes_reserved == before.nodes_reserved,
			  "maybe_preload(GFP_ATOMIC) = %d, %lu nodes allocated", ret, alloc);
	} else if (ret) {
		FZ_EXPECT(ret == -ENOMEM && fault_armed(z), "preload (mode %#x) = %d", m, ret);
		FZ_EXPECT(after.nodes_reserved == before.nodes_reserved &&
			  after.bytes_reserved == before.bytes_reserved &&
			  (fz_memb || after.nodes_live == before.nodes_live),
			  "a failed preload changed the reserve (%lu -> %lu nodes) or leaked "
			  "(live %lu -> %lu)", before.nodes_reserved, after.nodes_reserved,
			  before.nodes_live, after.nodes_live);
	} else {
		FZ_EXPECT(after.nodes_reserved >= RT_PRELOAD_SIZE &&
			  after.bytes_reserved >= FZ_PRELOAD_BYTES,
			  "preload returned 0 with %lu nodes, %lu bytes reserved (a filled "
			  "reserve: %lu, %lu)", after.nodes_reserved, after.bytes_reserved,
			  (unsigned long)RT_PRELOAD_SIZE, (unsigned long)FZ_PRELOAD_BYTES);
		FZ_EXPECT(after.nodes_reserved - before.nodes_reserved == alloc &&
			  alloc <= RT_PRELOAD_SIZE && (!z->fault_all || alloc == 0) &&
			  (!z->fault_nth || alloc < z->fault_nth),
			  "preload = 0 allocated %lu nodes (reserve %lu -> %lu, fault: all %d, "
			  "n-th %lu)", alloc, before.nodes_reserved, after.nodes_reserved,
			  z->fault_all, z->fault_nth);
	}
	if (!maybe_atomic && before.nodes_reserved == 0)
		FZ_EXPECT((ret == 0) == !(z->fault_all || (z->fault_nth &&
							  z->fault_nth <= RT_PRELOAD_SIZE)),
			  "preload from an empty reserve (mode %#x) = %d", m, ret);
	fault_disarm(z);
	check_nodes(z);
	if (ret)
		return;
	if (m & 0x80)
		fault_arm_all(z);
	radix_tree_lock(&fz_tree);
	z->hold++;
	z->preloaded = !maybe_atomic;
	do_insert(z, key, item_new(key));
	z->preloaded = false;
	z->hold--;
	radix_tree_unlock(&fz_tree);
	fault_disarm(z);
	radix_tree_preload_end();
	check_nodes(z);
}

static void op_destroy(struct fz *z)
{
	uint8_t b = in_u8(z);
	struct fz_acct before;

	acct_get(&before);
	radix_tree_destroy(&fz_tree);
	if (!fz_memb)
		FZ_EXPECT(fz_q.n == before.st.nodes_pending + before.nodes &&
			  fz_q.bytes == before.st.bytes_pending + before.node_bytes,
			  "destroy queued %lu nodes, %lu bytes of %lu, %lu",
			  fz_q.n - before.st.nodes_pending, fz_q.bytes - before.st.bytes_pending,
			  before.nodes, before.node_bytes);
	model_clear(z);
	z->oom_valid = false;
	if (b & 2) {
		z->gfp = !(b & 1) ? GFP_KERNEL : b & 4 ? GFP_NOWAIT : GFP_ATOMIC;
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
	fault_arm_mode(z, m);
	if (m & 0x80)
		do_delete(z, key);
	else
		do_insert(z, key, item_new(key));
	fault_disarm(z);
}

static void op_flush(struct fz *z)
{
	struct rcuradix_stats st;

	rcuradix_thread_cache_flush();
	st = stats_get();
	FZ_EXPECT(st.nodes_reserved == 0 && st.bytes_reserved == 0,
		  "reserve not empty after a flush: %lu nodes, %lu bytes", st.nodes_reserved,
		  st.bytes_reserved);
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

/* An insert run in which every insert first fails where it can: from an
 * empty reserve, with the fault armed; then the same insert into the same
 * tree without it. */
static void op_fault_run(struct fz *z)
{
	unsigned long key = in_key(z);
	unsigned int count = in_u8(z) + 1u, i;
	unsigned long stride = in_stride(z);
	uint8_t m = in_u8(z);

	for (i = 0; i < count && z->m.n < FZ_MAX_RUN_KEYS; i++) {
		int ret;

		rcuradix_thread_cache_flush();
		fault_arm_mode(z, m);
		ret = do_insert(z, key, item_new(key));
		fault_disarm(z);
		if (ret == -ENOMEM)
			do_insert(z, key, item_new(key));
		if (key > ULONG_MAX - stride)
			break;
		key += stride;
	}
}

/* Keys that keep @base's bits above the low @bits and draw those from a
 * PRNG seeded by @seed. */
static void insert_prefix(struct fz *z, unsigned long base, unsigned int count,
			  unsigned int bits, uint8_t seed)
{
	unsigned long mask = bits >= RT_BITS_PER_LONG ? ULONG_MAX : (1UL << bits) - 1;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1ULL);
	unsigned int i;

	for (i = 0; i < count && z->m.n < FZ_MAX_RUN_KEYS; i++) {
		unsigned long key;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		key = (base & ~mask) | ((unsigned long)x & mask);
		do_insert(z, key, item_new(key));
	}
}

/* k ^ (1 << b) for b = first, first + 1, ... (count of them, mod 64). */
static void insert_bits(struct fz *z, unsigned long k, unsigned int first, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count && z->m.n < FZ_MAX_RUN_KEYS; i++) {
		unsigned long key = k ^ (1UL << ((first + i) % RT_BITS_PER_LONG));

		do_insert(z, key, item_new(key));
	}
}

static void op_insert_prefix(struct fz *z)
{
	unsigned long base = in_key(z);
	unsigned int count = in_u8(z) + 1u, bits = in_u8(z) % 64 + 1u;

	insert_prefix(z, base, count, bits, in_u8(z));
}

static void op_insert_bits(struct fz *z)
{
	unsigned long k = in_key(z);
	unsigned int first = in_u8(z), count = in_u8(z) % 64 + 1u;

	insert_bits(z, k, first, count);
}

/* ---- a lock hold across changes ------------------------------------------- */

/* The slot of @k, held since the start of the hold: k's item, or NULL in a
 * node copied since (on the retired list). */
static void check_held(const struct fz *z, unsigned long k, void **slot)
{
	void *item = model_find(&z->m, k)->item, *now = slot_item(slot);

	FZ_EXPECT(now == item || (!now && slot_retired(slot)),
		  "hold: the slot of %#lx holds %p, neither its item %p nor NULL in a retired "
		  "node", k, now, item);
}

/* Consecutive keys from @start, @count of them (stopping at ULONG_MAX),
 * inserted or deleted; never @k, whose slot is held. */
static void hold_run(struct fz *z, unsigned long k, unsigned long start, unsigned int count,
		     bool insert)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		unsigned long key = start + i;

		if (insert && z->m.n < FZ_MAX_RUN_KEYS)
			do_insert(z, key, item_new(key));
		else if (!insert && key != k)
			do_delete(z, key);
		if (key == ULONG_MAX)
			break;
	}
}

static void hold_edit(struct fz *z, unsigned long k, void **slot)
{
	uint8_t b = in_u8(z);
	unsigned int count = 1u + (b >> 3);
	unsigned long key;
	void **again;

	switch ((enum fz_hold_edit)(b & 7)) {
	case FZ_H_INSERT_RUN:
		key = in_key(z);
		hold_run(z, k, key, count, true);
		break;
	case FZ_H_DELETE_RUN:
		key = in_key(z);
		hold_run(z, k, key, count, false);
		break;
	case FZ_H_INSERT_NEAR:
		hold_run(z, k, k + (unsigned long)(long)(int8_t)in_u8(z), count, true);
		break;
	case FZ_H_DELETE_NEAR:
		hold_run(z, k, k + (unsigned long)(long)(int8_t)in_u8(z), count, false);
		break;
	case FZ_H_INSERT_BITS:
		insert_bits(z, k, in_u8(z), count);
		break;
	case FZ_H_INSERT_PREFIX: {
		unsigned int bits = in_u8(z) % 64 + 1u;

		insert_prefix(z, k, count, bits, in_u8(z));
		break;
	}
	case FZ_H_REPLACE:
		if (slot)
			do_replace(z, k, slot);
		break;
	default: {  /* FZ_H_LOOKUP: k may have been inserted since, if it was absent */
		const struct model_entry *e = model_find(&z->m, k);

		again = radix_tree_lookup_slot(&fz_tree, k);
		FZ_EXPECT(!again == !e, "hold: lookup_slot(%#lx) = %p again, model %p", k,
			  (void *)again, e ? e->item : NULL);
		if (e)
			FZ_EXPECT(slot_item(again) == e->item,
				  "hold: a fresh lookup_slot(%#lx) does not hold its item", k);
		break;
	}
	}
}

/*
 * One radix_tree_lock() hold: lookup_slot(k), edits that reshape the tree
 * around k (k itself is never deleted), then replace_slot() through the
 * first slot, which lookup() must then find.  Nodes unlinked meanwhile
 * wait on the retired list (counted by check_acct) until the unlock.
 */
static void op_hold(struct fz *z)
{
	unsigned long k = in_key(z);
	unsigned int n = 1u + in_u8(z) % 16, i;
	bool present = model_find(&z->m, k) != NULL;
	void **slot;

	radix_tree_lock(&fz_tree);
	z->hold++;
	slot = radix_tree_lookup_slot(&fz_tree, k);
	FZ_EXPECT(!slot == !present, "hold: lookup_slot(%#lx) = %p, model %s", k, (void *)slot,
		  present ? "present" : "absent");
	for (i = 0; i < n; i++) {
		hold_edit(z, k, slot);
		if (slot)
			check_held(z, k, slot);
	}
	if (slot)
		do_replace(z, k, slot);
	z->hold--;
	radix_tree_unlock(&fz_tree);
	check_key(z, k);
	check_nodes(z);
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
	FZ_EXPECT(rcuradix_get_stats(&st, offsetof(struct rcuradix_stats, bytes_allocated) - 1) ==
		  -EINVAL, "get_stats(shorter than the first layout)");
	/* The first layout's caller gets its fields; the rest is not written. */
	memset(&st, 0xa5, sizeof(st));
	FZ_EXPECT(rcuradix_get_stats(&st, offsetof(struct rcuradix_stats, bytes_allocated)) == 0 &&
		  st.node_size == RT_NODE_SIZE && st.bytes_allocated == 0xa5a5a5a5a5a5a5a5UL &&
		  st.bytes_live == 0xa5a5a5a5a5a5a5a5UL &&
		  st.bytes_pending == 0xa5a5a5a5a5a5a5a5UL,
		  "get_stats(the first layout's size)");
	/* A caller built against a larger layout: 0, and the fields it shares. */
	{
		struct {
			struct rcuradix_stats st;
			unsigned long more[2];
		} big;

		FZ_EXPECT(rcuradix_get_stats(&big.st, sizeof(big)) == 0 &&
			  big.st.node_size == RT_NODE_SIZE, "get_stats(a larger layout's size)");
	}
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
			      "-EINVAL; get_stats of the first layout's size: 0, those fields" },
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
	[FZ_HOLD] = { "lock-hold", op_hold },
	[FZ_INSERT_PREFIX] = { "insert-prefix", op_insert_prefix },
	[FZ_INSERT_BITS] = { "insert-bits", op_insert_bits },
	[FZ_FAULT_RUN] = { "insert-run-fault", op_fault_run },
};

/* Every counter must be zero between inputs: nothing may survive one. */
static void check_zero(const char *when)
{
	struct rcuradix_stats st = stats_get();

	FZ_EXPECT(st.nodes_live == 0 && st.nodes_pending == 0 && st.nodes_reserved == 0 &&
		  st.bytes_live == 0 && st.bytes_pending == 0 && st.bytes_reserved == 0 &&
		  st.backing_bytes == 0,
		  "%s: nodes_live %lu, nodes_pending %lu, nodes_reserved %lu, bytes_live %lu, "
		  "bytes_pending %lu, bytes_reserved %lu, backing_bytes %lu", when, st.nodes_live,
		  st.nodes_pending, st.nodes_reserved, st.bytes_live, st.bytes_pending,
		  st.bytes_reserved, st.backing_bytes);
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
	memset(fz_trans_seen, 0, sizeof(fz_trans_seen));
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
		z.shape_valid = false;
		fz_op_table[op].fn(&z);
		if (++z.since_check >= FZ_CHECK_EVERY &&
		    z.since_check >= z.tree_nodes / FZ_CHECK_NODES_PER_OP)
			check_all(&z);
	}
	fz_finish(&z);
	return 0;
}
