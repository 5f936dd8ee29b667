/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * torture.c - rcuradix-torture: rcutorture-style stress of one tree.
 *
 * Lock-free readers validate invariants while writers mutate the tree as
 * fast as they can; at the end the tree is compared with the writers' exact
 * models and every node and item must be accounted for.
 *
 * Key numbers ("ids") 0 .. keys-1 map to keys by a strictly increasing
 * function chosen by --distribution (dense: id; clustered: runs of 48 keys
 * 2^20 apart; sparse: spread over the whole key space, 0 and ULONG_MAX
 * included; prefix, onebit, runs, clustered64, uniform64 and mixed: a
 * table of keys drawn from the seed, see "the key table").  Because the map
 * is monotonic, a run of ids is a key range holding no other id's key.
 * Roles:
 *   chaos   ids [0, --chaos): mutated by every writer (plain calls, and
 *           groups under radix_tree_lock); checked by reader invariants and
 *           by exact checks made while holding the tree lock.
 *   stable  every 8th id above the chaos range, in every other run of 256
 *           ids (in the others whole subtrees empty out and are freed),
 *           and with --distribution onebit the base keys: inserted before
 *           the run, never touched; every other one bears tag 0.  Readers
 *           must always find them, and gang lookups and walks must never
 *           skip them.
 *   owned   the rest, in blocks of 32 ids (160 with --distribution runs)
 *           dealt round-robin to writers.
 *           A block's owner alone changes its keys and keeps an exact
 *           model: insert returns -EEXIST exactly when the model holds the
 *           key, delete returns the item it inserted, tags match.
 *   never   keys between ids (or past the last one) that nobody inserts:
 *           never found.
 *
 * Items carry {key, magic, generation, id, tag flags}.  magic is LIVE from
 * allocation; a deleted or replaced item goes to call_rcu, whose callback
 * marks it DEAD, poisons it and quarantines it before free().  A reader
 * that sees a DEAD, poisoned or foreign item, or a generation of an owned
 * key older than one it saw before, found a node or item reclaimed before a
 * grace period, a torn publication, or a lookup that travelled back in time.
 * A writer sets an item's tag flag before tagging it and clears the flag
 * after clearing the tag, so a tagged lookup may only return items whose
 * "ever tagged" flag is set, and under the tree lock a tagged item's
 * current flag must be set.  A slot read outside the tree lock holds the
 * item, or NULL once the item was deleted or the slot's node replaced: a
 * stable key's slot that reads NULL must be found by a fresh lookup.
 *
 * Errors are counted in the threads; main prints a SUMMARY line and exits
 * non-zero on any error or leak.  --scenario runs one of the regression
 * scenarios of scenarios.c instead, and --idr the IDR torture of
 * idr-torture.c.
 */
#include "config.h"

#include "torture.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STABLE_EVERY 8UL   /* every 8th non-chaos id is stable, */
#define STABLE_REGION 256UL /* in every other run of 256 ids */
#define BLOCK 32UL         /* ids per ownership block, */
#define RUN_BLOCK 160UL    /* with --distribution runs (w_run grows runs in a block) */
#define MAX_BLOCK RUN_BLOCK
#define STABLE_TAG 0U      /* tag borne by every other stable item */
#define NEVER_SPAN 4096UL
#define CLUSTER_IDS 48UL
#define CLUSTER_SPACE (1UL << 20)
#define MAX_GANG 256U
#define MAX_IDR_BASE (1UL << 30) /* with --keys <= 2^24: int ids */

/* The distributions from DIST_PREFIX on draw their keys into a table. */
enum distribution {
	DIST_DENSE, DIST_CLUSTERED, DIST_SPARSE, DIST_PREFIX, DIST_ONEBIT, DIST_RUNS,
	DIST_CLUSTERED64, DIST_UNIFORM64, DIST_MIXED, NR_DISTS
};
static const char *const dist_names[NR_DISTS] = {
	"dense", "clustered", "sparse", "prefix", "onebit", "runs", "clustered64", "uniform64",
	"mixed",
};
static const char *const dist_help[NR_DISTS] = {
	"consecutive keys from 0",
	"runs of 48 keys 2^20 apart",
	"all 64 bits, 0 and ULONG_MAX included",
	"groups sharing long random prefixes",
	"stable keys k, churned keys k ^ (1UL << b)",
	"runs of consecutive keys, grown and shrunk",
	"runs of 64 keys at random bases below 2^40",
	"uniform random 64-bit keys",
	"prefix to uniform64 at once",
};

static struct {
	unsigned int readers, writers, gang, tags;
	double duration;
	unsigned long keys, chaos;
	enum distribution dist;
	const struct tflavor *fl;
	uint64_t seed;
	bool yield, idr;
	unsigned long idr_base;
	const char *scenario;
} opt = {
	.readers = 2, .writers = 2, .gang = 16, .tags = 3, .duration = 5.0,
	.keys = 4096, .chaos = 32, .dist = DIST_DENSE,
};

static struct radix_tree_root tree;
static int stop;
/* Ids per ownership block: BLOCK, or RUN_BLOCK with --distribution runs. */
static unsigned long block_ids = BLOCK;

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "torture: out of memory\n");
		exit(2);
	}
	return p;
}

/* ---- the key map ------------------------------------------------------- */

static unsigned long sparse_stride;

static bool dist_tabled(void)
{
	return opt.dist >= DIST_PREFIX;
}

/* The key table (see build_key_table()): keys ascending, per-id stable
 * roles, the next stable (tagged) id at or above each id, never keys. */
#define ROLE_STABLE 1U
#define ROLE_STABLE_TAGGED 2U
#define NEVER_TABLE 4096UL
static unsigned long *key_table;
static unsigned char *role_table;
static uint32_t *next_stable_table[2]; /* --keys <= 2^24 */
static unsigned long never_table[NEVER_TABLE];

static unsigned long mix64(unsigned long x)
{
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
	return x ^ (x >> 31);
}

/* The key of @id: strictly increasing in @id. */
static unsigned long key_of(unsigned long id)
{
	switch (opt.dist) {
	case DIST_CLUSTERED:
		return (id / CLUSTER_IDS) * CLUSTER_SPACE + id % CLUSTER_IDS;
	case DIST_SPARSE:
		if (id == opt.keys - 1 && id > 0)
			return ULONG_MAX;
		/* Jitter below half a stride: the upper half stays empty for
		 * never_key(). */
		return id * sparse_stride + (id ? mix64(id) % (sparse_stride / 2) : 0);
	case DIST_DENSE:
		return id;
	default:
		return key_table[id];
	}
}

/* A key no id maps to, chosen by @r. */
static unsigned long never_key(uint64_t r)
{
	switch (opt.dist) {
	case DIST_CLUSTERED: {
		unsigned long clusters = (opt.keys + CLUSTER_IDS - 1) / CLUSTER_IDS;

		return (r % (clusters + 1)) * CLUSTER_SPACE + CLUSTER_IDS +
		       (r >> 24) % (CLUSTER_SPACE - CLUSTER_IDS);
	}
	case DIST_SPARSE: {
		unsigned long i = r % opt.keys;

		return i * sparse_stride + sparse_stride / 2 + (r / opt.keys) % (sparse_stride / 4);
	}
	case DIST_DENSE:
		return opt.keys + r % NEVER_SPAN;
	default:
		return never_table[r % NEVER_TABLE];
	}
}

/* Smallest id whose key is >= @key, or opt.keys if none. */
static unsigned long id_at_or_above(unsigned long key)
{
	unsigned long lo = 0, hi = opt.keys;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (key_of(mid) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- roles ------------------------------------------------------------- */

static bool is_chaos(unsigned long id)
{
	return id < opt.chaos;
}

/* Ids above the chaos range in a region where stable ids live: in the
 * other regions whole leaves and subtrees empty out and are freed. */
static bool in_stable_region(unsigned long id)
{
	return id >= opt.chaos && ((id - opt.chaos) / STABLE_REGION) % 2 == 0;
}

/*
 * Stable ids sit every @step ids, shifted by one more id in each stable
 * region, so that across regions they take every offset in a leaf (the
 * last slot of a chunk included).
 */
static bool on_stable_grid(unsigned long id, unsigned long step)
{
	unsigned long p = id - opt.chaos;

	return in_stable_region(id) && (p + p / (2 * STABLE_REGION)) % step == 0;
}

static bool is_stable(unsigned long id)
{
	if (dist_tabled())
		return role_table[id] & ROLE_STABLE;
	return on_stable_grid(id, STABLE_EVERY);
}

static bool is_stable_tagged(unsigned long id)
{
	if (dist_tabled())
		return role_table[id] & ROLE_STABLE_TAGGED;
	return on_stable_grid(id, 2 * STABLE_EVERY);
}

static bool is_owned(unsigned long id)
{
	return !is_chaos(id) && !is_stable(id);
}

static unsigned int owner_of(unsigned long id)
{
	return (unsigned int)(((id - opt.chaos) / block_ids) % opt.writers);
}

/* Smallest stable (tagged: stable-tagged) id >= @id, or opt.keys. */
static unsigned long next_stable(unsigned long id, bool tagged)
{
	unsigned long step = tagged ? 2 * STABLE_EVERY : STABLE_EVERY;

	if (dist_tabled())
		return id < opt.keys ? next_stable_table[tagged][id] : opt.keys;
	if (id < opt.chaos)
		id = opt.chaos;
	while (id < opt.keys) {
		unsigned long p = id - opt.chaos, region = p / STABLE_REGION;
		unsigned long r = (p + p / (2 * STABLE_REGION)) % step;

		if (region % 2) {
			id += STABLE_REGION - p % STABLE_REGION;  /* next region */
			continue;
		}
		if (!r)
			return id;
		id += step - r;  /* the grid's next id, maybe in the next region */
	}
	return opt.keys;
}

/* ---- the key table ----------------------------------------------------- */

/*
 * The tabled distributions draw opt.keys distinct keys from the seed, in
 * groups of one shape each, then sort them: the map stays strictly
 * increasing, and a run replays with its seed.  Shapes (each forces node
 * transitions: prefix splits, growth past a node's capacity, emptying):
 *   prefix       groups of 1 to 192 keys under a prefix with 20 low bits
 *                clear; the group prefixes of one family (three families)
 *                differ from the family's random root in the bits below a
 *                random bit 21 to 64, so two groups share anything from 0
 *                to 43 top bits.  Suffixes step by 1 to 1000, jittered.
 *   onebit       a base key k (0, then ULONG_MAX, then random) and the 64
 *                keys k ^ (1UL << b).  Bases are stable, the others are not,
 *                so that the owned and chaos keys, each one bit away from a
 *                stable key, branch off its path at every level.
 *   runs         runs of 1 to 300 consecutive keys below 2^48, a quarter of
 *                them 64 or 128 keys aligned on 64; writers grow and shrink
 *                them (w_run()).
 *   clustered64  runs of 64 consecutive keys at random bases below 2^40,
 *                half of them aligned on 64.
 *   uniform64    uniform random 64-bit keys.
 *   mixed        each group of a shape drawn at random.
 * Roles: onebit bases are stable (every other one tagged), their one-bit
 * neighbours never; every other key takes its id's role on the stable grid.
 * Never keys are drawn next to the keys: k + 1, k - 1, k + or - 2..63, k
 * with one bit flipped, or uniform, whenever no id has that key.
 */
enum shape { SHAPE_PREFIX, SHAPE_ONEBIT, SHAPE_RUNS, SHAPE_CLUSTERED64, SHAPE_UNIFORM64,
	     NR_SHAPES };

/* Kinds, in the order a duplicate key keeps the larger one. */
enum { KIND_PLAIN, KIND_FLIP, KIND_BASE };

struct tkey {
	unsigned long key;
	unsigned int kind;
};

#define TABLE_STREAM 5000 /* RNG stream of the table (readers 0.., writers 1000..) */
#define PREFIX_SUFFIX_BITS 20
#define PREFIX_FAMILIES 3
#define PREFIX_MAX_IDS 192UL
#define RUN_MAX_IDS 300UL
#define CLUSTER64_IDS 64UL
#define CLUSTER64_SPACE (1UL << 40)

static unsigned long prefix_roots[PREFIX_FAMILIES];

static size_t emit_prefix(struct trng *rng, struct tkey *out, size_t room)
{
	static const unsigned long strides[] = { 1, 1, 1, 2, 3, 5, 8, 63, 64, 65, 1000 };
	unsigned long root = prefix_roots[trand_below(rng, PREFIX_FAMILIES)];
	unsigned int top = PREFIX_SUFFIX_BITS + 1 +
			   (unsigned int)trand_below(rng, 64 - PREFIX_SUFFIX_BITS);
	unsigned long below = top == 64 ? ~0UL : (1UL << top) - 1;
	unsigned long base = (root ^ (trand(rng) & below)) & ~((1UL << PREFIX_SUFFIX_BITS) - 1);
	unsigned long stride = strides[trand_below(rng, sizeof(strides) / sizeof(strides[0]))];
	size_t n = 1 + trand_below(rng, PREFIX_MAX_IDS);
	unsigned long start;

	if (n > room)
		n = room;
	/* The last suffix stays below 2^20: start + n * stride <= 2^20. */
	start = trand_below(rng, 2) ? 0
				    : trand_below(rng, (1UL << PREFIX_SUFFIX_BITS) - n * stride);
	for (size_t j = 0; j < n; j++) {
		unsigned long jitter = stride >= 4 ? trand_below(rng, stride / 2) : 0;

		out[j] = (struct tkey){ base + start + j * stride + jitter, KIND_PLAIN };
	}
	return n;
}

static size_t emit_onebit(struct trng *rng, unsigned long group, struct tkey *out, size_t room)
{
	unsigned long base = group == 0 ? 0 : group == 1 ? ULONG_MAX : trand(rng);
	/* An odd step visits every bit: a cut-short group flips random bits. */
	unsigned int b = (unsigned int)trand_below(rng, 64);
	unsigned int step = 1 + 2 * (unsigned int)trand_below(rng, 32);
	size_t n = 0;

	out[n++] = (struct tkey){ base, KIND_BASE };
	for (unsigned int i = 0; i < 64 && n < room; i++, b = (b + step) % 64)
		out[n++] = (struct tkey){ base ^ (1UL << b), KIND_FLIP };
	return n;
}

/* Consecutive keys from @base (aligned on 64 if @align). */
static size_t emit_run(unsigned long len, unsigned long base, bool align, struct tkey *out,
		       size_t room)
{
	size_t n = len < room ? len : room;

	if (align)
		base &= ~63UL;
	for (size_t j = 0; j < n; j++)
		out[j] = (struct tkey){ base + j, KIND_PLAIN };
	return n;
}

/* Append one group of @shape (the @group-th of its shape), at most @room keys. */
static size_t emit_group(enum shape shape, struct trng *rng, unsigned long group,
			 struct tkey *out, size_t room)
{
	unsigned long len, base;
	bool align;
	size_t n;

	/* One draw per statement: argument evaluation order is unspecified,
	 * and a seed must give the same table with any compiler. */
	switch (shape) {
	case SHAPE_PREFIX:
		return emit_prefix(rng, out, room);
	case SHAPE_ONEBIT:
		return emit_onebit(rng, group, out, room);
	case SHAPE_RUNS:
		align = trand_below(rng, 4) == 0;
		len = align ? 64 * (1 + trand_below(rng, 2)) : 1 + trand_below(rng, RUN_MAX_IDS);
		base = trand(rng) & ((1UL << 48) - 1);
		return emit_run(len, base, align, out, room);
	case SHAPE_CLUSTERED64:
		base = trand_below(rng, CLUSTER64_SPACE - CLUSTER64_IDS);
		align = trand_below(rng, 2);
		return emit_run(CLUSTER64_IDS, base, align, out, room);
	default:
		n = room < 64 ? room : 64;
		for (size_t j = 0; j < n; j++)
			out[j] = (struct tkey){ trand(rng), KIND_PLAIN };
		return n;
	}
}

static int tkey_cmp(const void *a, const void *b)
{
	unsigned long x = ((const struct tkey *)a)->key, y = ((const struct tkey *)b)->key;

	return x < y ? -1 : x > y;
}

static bool key_in_table(unsigned long key)
{
	unsigned long id = id_at_or_above(key);

	return id < opt.keys && key_of(id) == key;
}

/* Fill key_table, role_table, next_stable_table and never_table. */
static void build_key_table(void)
{
	static const enum shape shape_of[] = {
		[DIST_PREFIX] = SHAPE_PREFIX, [DIST_ONEBIT] = SHAPE_ONEBIT,
		[DIST_RUNS] = SHAPE_RUNS, [DIST_CLUSTERED64] = SHAPE_CLUSTERED64,
		[DIST_UNIFORM64] = SHAPE_UNIFORM64,
	};
	struct tkey *raw = xcalloc(opt.keys, sizeof(*raw));
	unsigned long groups[NR_SHAPES] = { 0 }, bases = 0, tries = 0;
	size_t n = 0;
	struct trng rng;

	trng_seed(&rng, opt.seed, TABLE_STREAM);
	for (unsigned int f = 0; f < PREFIX_FAMILIES; f++)
		prefix_roots[f] = trand(&rng);
	/* Groups never overfill the table, so after removing duplicates
	 * it is topped up until it holds exactly opt.keys keys. */
	while (n < opt.keys) {
		size_t m = 0;

		while (n < opt.keys) {
			enum shape shape = opt.dist == DIST_MIXED
						   ? (enum shape)trand_below(&rng, NR_SHAPES)
						   : shape_of[opt.dist];

			n += emit_group(shape, &rng, groups[shape]++, raw + n, opt.keys - n);
		}
		qsort(raw, n, sizeof(*raw), tkey_cmp);
		for (size_t i = 0; i < n; i++) {
			if (m && raw[m - 1].key == raw[i].key) {
				if (raw[i].kind > raw[m - 1].kind)
					raw[m - 1].kind = raw[i].kind;
			} else {
				raw[m++] = raw[i];
			}
		}
		n = m;
	}
	key_table = xcalloc(opt.keys, sizeof(*key_table));
	role_table = xcalloc(opt.keys, sizeof(*role_table));
	for (unsigned long id = 0; id < opt.keys; id++) {
		key_table[id] = raw[id].key;
		if (id < opt.chaos)
			continue;
		if (raw[id].kind == KIND_BASE)
			role_table[id] = ROLE_STABLE | (bases++ % 2 ? 0 : ROLE_STABLE_TAGGED);
		else if (raw[id].kind == KIND_PLAIN && on_stable_grid(id, STABLE_EVERY))
			role_table[id] = on_stable_grid(id, 2 * STABLE_EVERY)
						 ? ROLE_STABLE | ROLE_STABLE_TAGGED
						 : ROLE_STABLE;
	}
	free(raw);
	for (unsigned int t = 0; t < 2; t++) {
		unsigned char role = t ? ROLE_STABLE_TAGGED : ROLE_STABLE;

		next_stable_table[t] = xcalloc(opt.keys, sizeof(uint32_t));
		for (unsigned long id = opt.keys; id-- > 0;)
			next_stable_table[t][id] = (role_table[id] & role) ? (uint32_t)id
					: id + 1 < opt.keys ? next_stable_table[t][id + 1]
							    : (uint32_t)opt.keys;
	}
	for (unsigned long i = 0; i < NEVER_TABLE; tries++) {
		uint64_t x = trand(&rng);
		unsigned long key = key_table[x % opt.keys], d = 2 + (x >> 32) % 62;

		if (tries > 1000 * NEVER_TABLE) {
			fprintf(stderr, "torture: internal error: no room for never keys\n");
			exit(2);
		}
		switch ((x >> 16) % 6) {
		case 0: key += 1; break;
		case 1: key -= 1; break;
		case 2: key += d; break;
		case 3: key -= d; break;
		case 4: key ^= 1UL << ((x >> 40) % 64); break;
		default: key = trand(&rng); break;
		}
		if (!key_in_table(key))
			never_table[i++] = key;
	}
}

/*
 * The checks lean on these maps: verify them once at start (a bug here
 * would show up as false errors or, worse, as checks that never fire).
 */
static void check_maps(void)
{
	unsigned long next[2] = { opt.keys, opt.keys };

	for (unsigned long id = opt.keys; id-- > 0;) {
		if (is_stable(id))
			next[0] = id;
		if (is_stable_tagged(id))
			next[1] = id;
		if (next_stable(id, false) != next[0] || next_stable(id, true) != next[1] ||
		    (id + 1 < opt.keys && key_of(id) >= key_of(id + 1)) ||
		    id_at_or_above(key_of(id)) != id) {
			fprintf(stderr, "torture: internal error: key map or stable grid wrong at "
				"id %lu\n", id);
			exit(2);
		}
	}
	for (unsigned long i = 0; i < 4096; i++) {
		unsigned long key = never_key(mix64(i + 1)), id = id_at_or_above(key);

		if (id < opt.keys && key_of(id) == key) {
			fprintf(stderr, "torture: internal error: never key %#lx is id %lu\n", key,
				id);
			exit(2);
		}
	}
	for (unsigned long i = 0; dist_tabled() && i < NEVER_TABLE; i++) {
		if (key_in_table(never_table[i])) {
			fprintf(stderr, "torture: internal error: never key %#lx is in the table\n",
				never_table[i]);
			exit(2);
		}
	}
}

/* ---- the writers' models ----------------------------------------------- */

/* model[id] for owned ids: written by the owner only (and by main after
 * every writer has been joined). */
struct mslot {
	struct titem *item;
	unsigned long tags;
};
static struct mslot *model;
/* Per-id generation: plain for owned ids (one writer), uatomic for chaos. */
static unsigned long *gens;

/* ---- statistics -------------------------------------------------------- */

enum rop {
	R_LOOKUP, R_SLOT, R_NEVER, R_GANG, R_GANG_SLOT, R_GANG_TAG, R_GANG_TAG_SLOT,
	R_ITER, R_ITER_TAGGED, R_ITER_CONTIG, R_TAG_GET, R_TAGGED, R_LOCKED, NR_ROPS
};
static const char *const rop_names[NR_ROPS] = {
	"lookup", "lookup_slot", "never", "gang", "gang_slot", "gang_tag", "gang_tag_slot",
	"iter", "iter_tagged", "iter_contig", "tag_get", "tagged", "locked_read",
};

enum wop {
	W_INSERT, W_DELETE, W_TAG_SET, W_TAG_CLEAR, W_VERIFY, W_PRELOAD, W_REPLACE,
	W_REPLACE_CHURN, W_RANGE_TAG, W_ITER_DELETE, W_RUN, W_CHAOS, NR_WOPS
};
static const char *const wop_names[NR_WOPS] = {
	"insert", "delete", "tag_set", "tag_clear", "verify", "preload_group", "replace_slot",
	"replace_slot_churn", "range_tag", "iter_delete", "run", "chaos",
};

struct reader {
	pthread_t thread;
	unsigned int idx;
	struct trng rng;
	unsigned long *last_gen; /* newest generation seen per owned id */
	unsigned long ops[NR_ROPS];
	unsigned long tag_checks, tag_checks_moot; /* flags checked / skipped (deletes ran) */
	unsigned long relookups; /* stable slots read NULL, then found again */
	struct tbeat beat;
} __attribute__((aligned(64)));

struct writer {
	pthread_t thread;
	unsigned int idx;
	struct trng rng;
	unsigned long *own_ids, nr_own;
	unsigned long *blocks, nr_blocks; /* first id of each own block */
	unsigned long ops[NR_WOPS];
	unsigned long relookups; /* own slots read NULL, then found again */
	struct tbeat beat;
	bool draining;
} __attribute__((aligned(64)));

static struct reader *readers;
static struct writer *writers;
/* The threads' operation counters, set once the threads are allocated. */
static struct tops rops, wops;
_Static_assert(NR_ROPS <= TOPS_MAX_KINDS && NR_WOPS <= TOPS_MAX_KINDS,
	       "every kind fits the shared counters");

static const struct rcu_flavor_struct *rcu(void)
{
	return opt.fl->rcu;
}

/* ---- reader checks ----------------------------------------------------- */

/*
 * Validate an item a reader got for @key: LIVE, the right key and id, a
 * stable item's first generation, an owned key's generation never older
 * than one seen before.  Returns the item, or NULL after counting an error.
 */
static const struct titem *reader_item(struct reader *r, const void *p, unsigned long key,
				       const char *what)
{
	const char *why = titem_problem(p, key);
	const struct titem *item = p;
	unsigned long id, gen;

	if (why) {
		terror("reader %u: %s(%#lx): %s", r->idx, what, key, why);
		return NULL;
	}
	id = item->id;
	gen = item->generation;
	if (id >= opt.keys || key_of(id) != key) {
		terror("reader %u: %s(%#lx): item id %lu does not map to this key", r->idx, what,
		       key, id);
		return NULL;
	}
	if (is_stable(id) && gen != 1) {
		terror("reader %u: %s(%#lx): stable item has generation %lu", r->idx, what, key, gen);
		return NULL;
	}
	if (is_owned(id)) {
		if (gen < r->last_gen[id])
			terror("reader %u: %s(%#lx): generation %lu after %lu (went back in time)",
			       r->idx, what, key, gen, r->last_gen[id]);
		else
			r->last_gen[id] = gen;
	}
	return item;
}

/* An item returned without its index (gang_lookup, gang_lookup_tag):
 * validate it against the key it claims. */
static const struct titem *reader_item_any(struct reader *r, const void *p, const char *what)
{
	if (!p || ((uintptr_t)p & 3)) {
		terror("reader %u: %s: %s", r->idx, what, titem_problem(p, 0));
		return NULL;
	}
	return reader_item(r, p, CMM_LOAD_SHARED(((const struct titem *)p)->key), what);
}

/* Is @key the key of a stable id? */
static bool key_is_stable(unsigned long key)
{
	unsigned long id = id_at_or_above(key);

	return id < opt.keys && key_of(id) == key && is_stable(id);
}

/*
 * A slot of stable @key read NULL.  A slot held by a reader reads the item,
 * or NULL once the item was deleted or the slot's node replaced (a copy
 * then holds the item: look it up again).  Stable items are never deleted,
 * so a fresh lookup must find this one (and, when @tagged, its tag 0).
 */
static void reader_relookup(struct reader *r, unsigned long key, bool tagged, const char *what)
{
	void *p = radix_tree_lookup(&tree, key);

	tcount(&r->relookups);
	if (!p)
		terror("reader %u: %s: stable key %#lx: its slot reads NULL and a fresh lookup "
		       "misses it", r->idx, what, key);
	else if (reader_item(r, p, key, what) && tagged &&
		 radix_tree_tag_get(&tree, key, STABLE_TAG) != 1)
		terror("reader %u: %s: stable key %#lx: its slot reads NULL and it lost tag %u",
		       r->idx, what, key, STABLE_TAG);
}

/*
 * Deletions so far.  A tagged lookup may legitimately return an item that
 * never bore the tag: it read the tag bit of a slot whose tagged item was
 * then deleted, and the slot's new (untagged) item.  Writers count every
 * delete after it is done and before the slot can be refilled (chaos
 * deletes under the tree lock), so if the count did not move during a
 * tagged lookup, every item it returned must have borne the tag.
 */
static unsigned long delete_epoch;

static void note_delete(void)
{
	/* The delete is visible before the count moves. */
	cmm_smp_mb();
	uatomic_inc(&delete_epoch);
	/* The count moves before this writer refills any slot. */
	cmm_smp_mb__after_uatomic_inc();
}

static unsigned long reader_epoch(void)
{
	unsigned long e = uatomic_read(&delete_epoch);

	/* The count is read before (after) the lookup's loads. */
	cmm_smp_rmb();
	return e;
}

/* The item bore @tag at some point, unless a delete ran since @epoch. */
static void reader_check_tagged(struct reader *r, const struct titem *item, unsigned int tag,
				const char *what, unsigned long epoch)
{
	/* Pairs with the writer's barrier between setting the flag and
	 * tagging: the tag bit the lookup saw was loaded before this. */
	cmm_smp_rmb();
	if (CMM_LOAD_SHARED(item->tags_ever) & (1UL << tag)) {
		tcount(&r->tag_checks);
		return;
	}
	cmm_smp_rmb();
	if (uatomic_read(&delete_epoch) != epoch) {
		tcount(&r->tag_checks_moot);
		return;
	}
	terror("reader %u: %s(tag %u) returned key %#lx, never tagged", r->idx, what, tag,
	       item->key);
}

/*
 * The keys of a multi-item result, in the order returned: strictly
 * ascending, >= first, and no stable (or, for tag 0, stable-tagged) key
 * skipped between first and the last result -- nor after it when the walk
 * ended by itself.
 */
struct seq_check {
	struct reader *r;
	const char *what;
	unsigned long first, prev, next_stable;
	unsigned int nulls; /* slots read NULL whose key the lookup did not report */
	bool any, tagged, reported;
};

static void seq_begin(struct seq_check *sc, struct reader *r, const char *what,
		      unsigned long first, bool stable_tagged_only, bool cover_stable)
{
	sc->r = r;
	sc->what = what;
	sc->first = first;
	sc->nulls = 0;
	sc->any = false;
	sc->reported = false;
	sc->tagged = stable_tagged_only;
	sc->next_stable = cover_stable ? next_stable(id_at_or_above(first), stable_tagged_only)
				       : opt.keys;
}

static void seq_fail(struct seq_check *sc, const char *why, unsigned long key)
{
	if (!sc->reported)
		terror("reader %u: %s from %#lx: %s (key %#lx)", sc->r->idx, sc->what, sc->first,
		       why, key);
	sc->reported = true;
}

/*
 * The stable key of sc->next_stable is missing from the result: an error,
 * unless a slot read NULL without a key (gang_lookup_tag_slot) may have
 * been its slot; then a fresh lookup must find it (reader_relookup()).
 */
static void seq_missing(struct seq_check *sc, const char *why)
{
	unsigned long key = key_of(sc->next_stable);

	if (sc->nulls) {
		sc->nulls--;
		reader_relookup(sc->r, key, sc->tagged, sc->what);
		return;
	}
	seq_fail(sc, why, key);
}

/* A slot read NULL, key unknown: it stands for at most one stable key. */
static void seq_null(struct seq_check *sc)
{
	sc->nulls++;
}

/* Returns false if @key breaks the order (the caller stops looking). */
static bool seq_key(struct seq_check *sc, unsigned long key)
{
	if (key < sc->first) {
		seq_fail(sc, "key below first", key);
		return false;
	}
	if (sc->any && key <= sc->prev) {
		seq_fail(sc, "keys not strictly ascending", key);
		return false;
	}
	sc->any = true;
	sc->prev = key;
	while (sc->next_stable < opt.keys && key_of(sc->next_stable) < key) {
		seq_missing(sc, "skipped a stable key");
		sc->next_stable = next_stable(sc->next_stable + 1, sc->tagged);
	}
	if (sc->next_stable < opt.keys && key_of(sc->next_stable) == key)
		sc->next_stable = next_stable(sc->next_stable + 1, sc->tagged);
	return true;
}

/* @complete: the lookup returned fewer than asked, or the walk ended. */
static void seq_end(struct seq_check *sc, bool complete)
{
	while (complete && sc->next_stable < opt.keys) {
		bool excused = sc->nulls > 0;

		seq_missing(sc, "ended before a stable key");
		if (!excused)
			break;
		sc->next_stable = next_stable(sc->next_stable + 1, sc->tagged);
	}
}

/* ---- reader operations ------------------------------------------------- */

/* A key to look up or start from: an id's key, a key just below one, or a
 * never key. */
static unsigned long reader_key(struct reader *r)
{
	uint64_t x = trand(&r->rng);
	unsigned long k = key_of(trand_below(&r->rng, opt.keys));

	switch (x % 4) {
	case 0:
		return k >= 3 ? k - (x >> 8) % 3 : k;
	case 1:
		return never_key(x >> 2);
	default:
		return k;
	}
}

static void r_lookup(struct reader *r)
{
	unsigned long id = trand_below(&r->rng, opt.keys), key = key_of(id);
	void *p = radix_tree_lookup(&tree, key);

	tcount(&r->ops[R_LOOKUP]);
	if (p)
		reader_item(r, p, key, "lookup");
	else if (is_stable(id))
		terror("reader %u: lookup(%#lx): stable key missing", r->idx, key);
}

static void r_lookup_slot(struct reader *r)
{
	unsigned long id = trand_below(&r->rng, opt.keys), key = key_of(id);
	void **slot = radix_tree_lookup_slot(&tree, key);
	/* Pairs with the writers' rcu_assign_pointer of the item. */
	void *p = slot ? rcu_dereference(*slot) : NULL;

	tcount(&r->ops[R_SLOT]);
	if (p)
		reader_item(r, p, key, "lookup_slot");
	else if (is_stable(id) && slot)
		reader_relookup(r, key, false, "lookup_slot");
	else if (is_stable(id))
		terror("reader %u: lookup_slot(%#lx): stable key missing", r->idx, key);
}

static void r_never(struct reader *r)
{
	unsigned long key = never_key(trand(&r->rng));
	int t;

	tcount(&r->ops[R_NEVER]);
	if (radix_tree_lookup(&tree, key))
		terror("reader %u: lookup(%#lx) found a never-inserted key", r->idx, key);
	if (radix_tree_lookup_slot(&tree, key))
		terror("reader %u: lookup_slot(%#lx) found a never-inserted key", r->idx, key);
	t = radix_tree_tag_get(&tree, key, (unsigned int)trand_below(&r->rng, opt.tags));
	if (t != 0)
		terror("reader %u: tag_get(%#lx) = %d on a never-inserted key", r->idx, key, t);
}

/*
 * The four gang lookups, one reader: items or slots (@slots), all items or
 * those bearing a random tag (@tagged).  Checks: at most opt.gang results;
 * their keys strictly ascending from first, no stable (tag 0: stable-
 * tagged) key skipped, none after the last when fewer than asked came back;
 * every item valid for its key, a tagged one tagged at some point.
 *
 * The key of each result: gang_lookup_slot reports it (indices), so a slot
 * read as NULL (deleted since) still has one, and a stable key's slot must
 * never read NULL.  The other three report none: a result's key is the one
 * its item was inserted under (validated against the item's id); a
 * gang_lookup_tag_slot slot read as NULL (never a stable key's) has no key
 * to check and is skipped.
 */
_Static_assert(R_GANG_SLOT == R_GANG + 1 && R_GANG_TAG == R_GANG + 2 &&
		       R_GANG_TAG_SLOT == R_GANG + 3,
	       "r_gang_any() counts its kind as R_GANG + slots + 2 * tagged");

static void r_gang_any(struct reader *r, bool slots, bool tagged)
{
	static const char *const names[2][2] = {
		{ "gang_lookup", "gang_lookup_tag" },
		{ "gang_lookup_slot", "gang_lookup_tag_slot" },
	};
	const char *what = names[slots][tagged];
	void *items[MAX_GANG], **slotv[MAX_GANG];
	unsigned long indices[MAX_GANG];
	unsigned long first = reader_key(r);
	unsigned int tag = tagged ? (unsigned int)trand_below(&r->rng, opt.tags) : 0;
	unsigned long epoch = reader_epoch();
	bool keyed = slots && !tagged;
	struct seq_check sc;
	unsigned int n;

	if (!slots && !tagged)
		n = radix_tree_gang_lookup(&tree, items, first, opt.gang);
	else if (keyed)
		n = radix_tree_gang_lookup_slot(&tree, slotv, indices, first, opt.gang);
	else if (!slots)
		n = radix_tree_gang_lookup_tag(&tree, items, first, opt.gang, tag);
	else
		n = radix_tree_gang_lookup_tag_slot(&tree, slotv, first, opt.gang, tag);
	tcount(&r->ops[R_GANG + (slots ? 1 : 0) + (tagged ? 2 : 0)]);
	seq_begin(&sc, r, what, first, tagged, !tagged || tag == STABLE_TAG);
	if (n > opt.gang) {
		terror("reader %u: %s returned %u > %u items", r->idx, what, n, opt.gang);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		/* Pairs with the writers' rcu_assign_pointer of the item. */
		void *p = slots ? rcu_dereference(*slotv[i]) : items[i];
		const struct titem *item;

		if (keyed) {
			if (!seq_key(&sc, indices[i]))
				return;
			if (!p) {
				if (key_is_stable(indices[i]))
					reader_relookup(r, indices[i], false, what);
				continue;
			}
			item = reader_item(r, p, indices[i], what);
		} else {
			if (slots && !p) {
				seq_null(&sc);
				continue;
			}
			item = reader_item_any(r, p, what);
			if (item && !seq_key(&sc, item->key))
				return;
		}
		if (!item)
			return;
		if (tagged)
			reader_check_tagged(r, item, tag, what, epoch);
	}
	seq_end(&sc, n < opt.gang);
}

/* How many items a walk visits before breaking off. */
static unsigned int walk_limit(struct reader *r)
{
	return 1 + (unsigned int)trand_below(&r->rng, 4 * opt.gang);
}

static void r_iter(struct reader *r)
{
	struct radix_tree_iter iter;
	unsigned long first = reader_key(r);
	unsigned int limit = walk_limit(r), seen = 0;
	bool complete = true;
	struct seq_check sc;
	void **slot;

	tcount(&r->ops[R_ITER]);
	seq_begin(&sc, r, "for_each_slot", first, false, true);
	radix_tree_for_each_slot(slot, &tree, &iter, first) {
		/* Pairs with the writers' rcu_assign_pointer of the item. */
		void *p = rcu_dereference(*slot);
		unsigned long key = radix_tree_iter_index(&iter);

		if (!seq_key(&sc, key))
			return;
		if (p)
			reader_item(r, p, key, "for_each_slot");
		else if (key_is_stable(key))
			reader_relookup(r, key, false, "for_each_slot");
		if (++seen == limit) {
			complete = false;
			break;
		}
		if (seen % 16 == 0) {
			/* Leave the read-side section mid-walk, as the header's
			 * example does: the next step re-descends. */
			slot = radix_tree_iter_resume(slot, &iter);
			treader_pause(opt.fl);
		}
	}
	seq_end(&sc, complete);
}

static void r_iter_tagged(struct reader *r)
{
	struct radix_tree_iter iter;
	unsigned long first = reader_key(r);
	unsigned int tag = (unsigned int)trand_below(&r->rng, opt.tags);
	unsigned int limit = walk_limit(r), seen = 0;
	bool complete = true;
	struct seq_check sc;
	void **slot;

	unsigned long epoch = reader_epoch();

	tcount(&r->ops[R_ITER_TAGGED]);
	seq_begin(&sc, r, "for_each_tagged", first, true, tag == STABLE_TAG);
	radix_tree_for_each_tagged(slot, &tree, &iter, first, tag) {
		/* Pairs with the writers' rcu_assign_pointer of the item. */
		void *p = rcu_dereference(*slot);
		unsigned long key = radix_tree_iter_index(&iter);
		const struct titem *item;

		if (!seq_key(&sc, key))
			return;
		if (!p) {
			if (key_is_stable(key))
				reader_relookup(r, key, tag == STABLE_TAG, "for_each_tagged");
		} else if ((item = reader_item(r, p, key, "for_each_tagged"))) {
			reader_check_tagged(r, item, tag, "for_each_tagged", epoch);
		}
		if (++seen == limit) {
			complete = false;
			break;
		}
		if (seen % 8 == 0) {
			slot = radix_tree_iter_resume(slot, &iter);
			treader_pause(opt.fl);
			/* Every tag bit from here on is loaded after this. */
			epoch = reader_epoch();
		}
	}
	seq_end(&sc, complete);
}

static void r_iter_contig(struct reader *r)
{
	struct radix_tree_iter iter;
	unsigned long first = key_of(trand_below(&r->rng, opt.keys));
	unsigned int limit = walk_limit(r), seen = 0;
	unsigned long expect = first;
	void **slot;

	tcount(&r->ops[R_ITER_CONTIG]);
	radix_tree_for_each_contig(slot, &tree, &iter, first) {
		/* Pairs with the writers' rcu_assign_pointer of the item. */
		void *p = rcu_dereference(*slot);
		unsigned long key = radix_tree_iter_index(&iter);

		if (key != expect || (seen && key == first)) {
			terror("reader %u: for_each_contig from %#lx: key %#lx, expected %#lx",
			       r->idx, first, key, expect);
			return;
		}
		if (p)
			reader_item(r, p, key, "for_each_contig");
		if (++seen == limit || key == ULONG_MAX)
			break;
		expect = key + 1;
		if (seen % 16 == 0) {
			slot = radix_tree_iter_resume(slot, &iter);
			treader_pause(opt.fl);
		}
	}
}

static void r_tag_get(struct reader *r)
{
	unsigned long id = trand_below(&r->rng, opt.keys), key = key_of(id);
	unsigned int tag = (unsigned int)trand_below(&r->rng, opt.tags);
	int t = radix_tree_tag_get(&tree, key, tag);

	tcount(&r->ops[R_TAG_GET]);
	if (is_stable(id)) {
		/* Stable tags never change: exact even under RCU alone. */
		int want = tag == STABLE_TAG && is_stable_tagged(id);

		if (t != want)
			terror("reader %u: tag_get(%#lx, %u) = %d on a stable key, expected %d",
			       r->idx, key, tag, t, want);
	} else if (t != 0 && t != 1) {
		terror("reader %u: tag_get(%#lx, %u) = %d", r->idx, key, tag, t);
	}
}

static bool have_stable, have_stable_tagged;

static void r_tagged(struct reader *r)
{
	unsigned int tag = (unsigned int)trand_below(&r->rng, opt.tags);
	int t = radix_tree_tagged(&tree, tag);

	tcount(&r->ops[R_TAGGED]);
	if (t != 0 && t != 1)
		terror("reader %u: tagged(%u) = %d", r->idx, tag, t);
	if (tag == STABLE_TAG && have_stable_tagged && !t)
		terror("reader %u: tagged(%u) = 0 while stable items bear it", r->idx, tag);
	if (have_stable && radix_tree_empty(&tree))
		terror("reader %u: empty() while stable items exist", r->idx);
}

/*
 * Under the tree lock reads are exact: every stable key in the span is
 * there, a tagged item's current flag is set (writers set it before
 * tagging and clear it after clearing), and a chaos item's tags equal its
 * flags (chaos tags change only together with the flags, under the lock).
 */
static void r_locked(struct reader *r)
{
	void **slots[MAX_GANG];
	unsigned long indices[MAX_GANG];
	unsigned long first = reader_key(r);
	struct seq_check sc;
	unsigned int n;

	tcount(&r->ops[R_LOCKED]);
	radix_tree_lock(&tree);
	n = radix_tree_gang_lookup_slot(&tree, slots, indices, first, opt.gang);
	seq_begin(&sc, r, "locked gang_lookup_slot", first, false, true);
	for (unsigned int i = 0; i < n; i++) {
		/* Under the lock: no concurrent change, a plain load would do. */
		void *p = rcu_dereference(*slots[i]);
		const struct titem *item;
		unsigned long now;

		if (!seq_key(&sc, indices[i]))
			break;
		item = reader_item(r, p, indices[i], "locked gang_lookup_slot");
		if (!item)
			break;
		now = CMM_LOAD_SHARED(item->tags_now);
		for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
			int t = radix_tree_tag_get(&tree, indices[i], tag);
			int flag = (now >> tag) & 1;

			if ((t != 0 && t != 1) || (t && !flag) || (is_chaos(item->id) && t != flag))
				terror("reader %u: under the lock tag_get(%#lx, %u) = %d, item flag %d",
				       r->idx, indices[i], tag, t, flag);
		}
	}
	seq_end(&sc, n < opt.gang);
	radix_tree_unlock(&tree);
}

static void reader_op(struct reader *r)
{
	uint64_t x = trand_below(&r->rng, 512);

	if (x == 0) {
		r_locked(r);
		return;
	}
	switch (x % 24) {
	case 0: case 1: case 2: case 3: r_lookup(r); break;
	case 4: case 5: r_lookup_slot(r); break;
	case 6: r_never(r); break;
	case 7: case 8: r_gang_any(r, false, false); break;
	case 9: case 10: r_gang_any(r, true, false); break;
	case 11: case 12: r_gang_any(r, false, true); break;
	case 13: r_gang_any(r, true, true); break;
	case 14: case 15: r_iter(r); break;
	case 16: case 17: r_iter_tagged(r); break;
	case 18: r_iter_contig(r); break;
	case 19: case 20: case 21: r_tag_get(r); break;
	default: r_tagged(r); break;
	}
}

static void reader_op_cb(void *r)
{
	reader_op(r);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	treader_loop(opt.fl, &r->rng, &r->beat, &stop, opt.yield, reader_op_cb, r);
	return NULL;
}

/* ---- writer operations ------------------------------------------------- */

static unsigned long w_pick(struct writer *w)
{
	return w->own_ids[trand_below(&w->rng, w->nr_own)];
}

static struct titem *w_new_item(unsigned long id)
{
	return titem_new(id, key_of(id), ++gens[id]);
}

static void w_insert(struct writer *w)
{
	unsigned long id = w_pick(w), key = key_of(id);
	struct mslot *m = &model[id];
	struct titem *item = w_new_item(id);
	int ret = radix_tree_insert(&tree, key, item);

	tcount(&w->ops[W_INSERT]);
	if (ret == 0 && !m->item) {
		m->item = item;
		m->tags = 0;
		return;
	}
	if (ret != (m->item ? -EEXIST : 0))
		terror("writer %u: insert(%#lx) = %d, model says %s", w->idx, key, ret,
		       m->item ? "present" : "absent");
	if (ret == 0) {
		/* The tree replaced our item: keep the accounting straight. */
		titem_free_rcu(opt.fl, m->item);
		m->item = item;
		m->tags = 0;
	} else {
		titem_free_now(item); /* never published */
	}
}

static void w_forget(struct mslot *m)
{
	note_delete();
	titem_free_rcu(opt.fl, m->item);
	m->item = NULL;
	m->tags = 0;
}

static void w_delete(struct writer *w)
{
	unsigned long id = w_pick(w), key = key_of(id);
	struct mslot *m = &model[id];
	void *got = radix_tree_delete(&tree, key);

	tcount(&w->ops[W_DELETE]);
	if (got != m->item)
		terror("writer %u: delete(%#lx) = %p, model holds %p", w->idx, key, got,
		       (void *)m->item);
	if (m->item)
		w_forget(m);
}

/* Set @bit in an item's flags before the tag becomes visible. */
static void flags_set(struct titem *item, unsigned long bit)
{
	uatomic_or(&item->tags_now, bit);
	uatomic_or(&item->tags_ever, bit);
	/* Orders the flags before the tag store that readers may see. */
	cmm_smp_mb__after_uatomic_or();
}

/* Clear @bit in an item's flags after the tag is gone. */
static void flags_clear(struct titem *item, unsigned long bit)
{
	/* Orders the tag clear before the flag clear. */
	cmm_smp_mb();
	uatomic_and(&item->tags_now, ~bit);
}

static void w_tag_set(struct writer *w)
{
	unsigned long id = w_pick(w), key = key_of(id);
	unsigned int tag = (unsigned int)trand_below(&w->rng, opt.tags);
	struct mslot *m = &model[id];
	void *got;

	tcount(&w->ops[W_TAG_SET]);
	if (m->item)
		flags_set(m->item, 1UL << tag);
	got = radix_tree_tag_set(&tree, key, tag);
	if (got != m->item)
		terror("writer %u: tag_set(%#lx, %u) = %p, model holds %p", w->idx, key, tag, got,
		       (void *)m->item);
	if (m->item)
		m->tags |= 1UL << tag;
}

static void w_tag_clear(struct writer *w)
{
	unsigned long id = w_pick(w), key = key_of(id);
	unsigned int tag = (unsigned int)trand_below(&w->rng, opt.tags);
	struct mslot *m = &model[id];
	void *got = radix_tree_tag_clear(&tree, key, tag);

	tcount(&w->ops[W_TAG_CLEAR]);
	if (got != m->item)
		terror("writer %u: tag_clear(%#lx, %u) = %p, model holds %p", w->idx, key, tag,
		       got, (void *)m->item);
	if (m->item) {
		m->tags &= ~(1UL << tag);
		flags_clear(m->item, 1UL << tag);
	}
}

/*
 * Exact reads of an owned key: only this writer changes it.  Other writers
 * may replace the node of its slot meanwhile, and the slot then reads NULL:
 * a fresh lookup must find the item again.
 */
static void w_check_key(struct writer *w, unsigned long id, const char *when)
{
	unsigned long key = key_of(id);
	struct mslot *m = &model[id];
	void *got = radix_tree_lookup(&tree, key);
	void **slot = radix_tree_lookup_slot(&tree, key);
	/* Pairs with the writers' rcu_assign_pointer of the item. */
	void *via_slot = slot ? rcu_dereference(*slot) : NULL;

	if (slot && !via_slot && m->item) {
		tcount(&w->relookups);
		via_slot = radix_tree_lookup(&tree, key);
	}
	if (got != m->item || via_slot != m->item)
		terror("writer %u: %s: lookup(%#lx) = %p, slot %p (then %p), model holds %p",
		       w->idx, when, key, got, (void *)slot, via_slot, (void *)m->item);
	for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
		int want = m->item && (m->tags & (1UL << tag));
		int t = radix_tree_tag_get(&tree, key, tag);

		if (t != want)
			terror("writer %u: %s: tag_get(%#lx, %u) = %d, model says %d", w->idx, when,
			       key, tag, t, want);
	}
}

static void w_verify(struct writer *w)
{
	tcount(&w->ops[W_VERIFY]);
	rcu()->read_lock();
	for (unsigned int i = 0; i < 4; i++)
		w_check_key(w, w_pick(w), "verify");
	rcu()->read_unlock();
}

/* preload, then under the lock: look up, insert what is missing, sometimes
 * delete what is there; the lock makes the group atomic. */
static void w_preload_group(struct writer *w)
{
	unsigned int nr = 1 + (unsigned int)trand_below(&w->rng, 3);
	int ret = radix_tree_preload(GFP_KERNEL);

	tcount(&w->ops[W_PRELOAD]);
	if (ret) {
		terror("writer %u: radix_tree_preload() = %d", w->idx, ret);
		return;
	}
	radix_tree_lock(&tree);
	for (unsigned int i = 0; i < nr; i++) {
		unsigned long id = w_pick(w), key = key_of(id);
		struct mslot *m = &model[id];
		void *got = radix_tree_lookup(&tree, key);

		if (got != m->item) {
			terror("writer %u: locked lookup(%#lx) = %p, model holds %p", w->idx, key,
			       got, (void *)m->item);
			continue;
		}
		if (!got && !w->draining) {
			struct titem *item = w_new_item(id);

			ret = radix_tree_insert(&tree, key, item);
			if (ret) {
				terror("writer %u: locked insert(%#lx) after a miss = %d", w->idx,
				       key, ret);
				titem_free_now(item);
				continue;
			}
			m->item = item;
			m->tags = 0;
		} else if (got && (w->draining || trand_below(&w->rng, 3) == 0)) {
			got = radix_tree_delete(&tree, key);
			if (got != m->item)
				terror("writer %u: locked delete(%#lx) = %p, model holds %p", w->idx,
				       key, got, (void *)m->item);
			w_forget(m);
		}
	}
	radix_tree_unlock(&tree);
	radix_tree_preload_end();
}

/* A copy of @old with the next generation and the same tag flags. */
static struct titem *w_successor(struct titem *old, unsigned long generation)
{
	struct titem *item = titem_new(old->id, old->key, generation);

	item->tags_now = old->tags_now;
	item->tags_ever = old->tags_ever;
	return item;
}

/* Under the lock, the slot of @key by lookup_slot or gang_lookup_slot. */
static void **w_find_slot(struct writer *w, unsigned long key)
{
	void **slot = NULL;
	unsigned long index;

	if (trand_below(&w->rng, 2))
		return radix_tree_lookup_slot(&tree, key);
	if (radix_tree_gang_lookup_slot(&tree, &slot, &index, key, 1) == 1 && index == key)
		return slot;
	return NULL;
}

/* Is @id one of this writer's own ids? */
static bool w_owns(struct writer *w, unsigned long id)
{
	return id < opt.keys && is_owned(id) && owner_of(id) == w->idx;
}

/*
 * Under the lock, between taking the slot of @id and replacing its item:
 * insert or delete (draining: only delete) one to four other own ids,
 * mostly within 8 ids of @id, so that the slot's node may meanwhile grow,
 * split, be replaced or lose its neighbours.  The slot stays usable for
 * radix_tree_replace_slot() across them.
 */
static void w_churn_others(struct writer *w, unsigned long id)
{
	unsigned int nr = 1 + (unsigned int)trand_below(&w->rng, 4);

	for (unsigned int i = 0; i < nr; i++) {
		unsigned long other, d = 1 + trand_below(&w->rng, 8);
		struct mslot *m;

		if (trand_below(&w->rng, 4) == 0)
			other = w_pick(w);
		else
			other = trand_below(&w->rng, 2) ? id + d : id - d; /* may wrap: not owned */
		if (other == id || !w_owns(w, other))
			continue;
		m = &model[other];
		if (m->item) {
			void *got = radix_tree_delete(&tree, key_of(other));

			if (got != m->item)
				terror("writer %u: locked delete(%#lx) = %p, model holds %p", w->idx,
				       key_of(other), got, (void *)m->item);
			w_forget(m);
		} else if (!w->draining) {
			struct titem *item = w_new_item(other);
			int ret = radix_tree_insert(&tree, key_of(other), item);

			if (ret) {
				terror("writer %u: locked insert(%#lx) = %d, model says absent",
				       w->idx, key_of(other), ret);
				titem_free_now(item);
				continue;
			}
			m->item = item;
			m->tags = 0;
		}
	}
}

/*
 * replace_slot under the lock, of a slot found by lookup_slot or
 * gang_lookup_slot; half the time other own keys change between finding
 * the slot and replacing (w_churn_others()).  Then lookup and lookup_slot
 * must return the new item, and the tags stay.
 */
static void w_replace(struct writer *w)
{
	unsigned long id = w_pick(w), key = key_of(id);
	struct mslot *m = &model[id];
	struct titem *old = m->item, *item;
	bool churn = trand_below(&w->rng, 2);
	void **slot;

	tcount(&w->ops[churn ? W_REPLACE_CHURN : W_REPLACE]);
	radix_tree_lock(&tree);
	slot = w_find_slot(w, key);
	if (!old || !slot || *slot != old) {
		if (old || slot)
			terror("writer %u: locked slot of %#lx = %p (holds %p), model holds %p",
			       w->idx, key, (void *)slot, slot ? *slot : NULL, (void *)old);
		radix_tree_unlock(&tree);
		return;
	}
	if (churn)
		w_churn_others(w, id);
	item = w_successor(old, ++gens[id]);
	radix_tree_replace_slot(&tree, slot, item);
	slot = radix_tree_lookup_slot(&tree, key);
	if (radix_tree_lookup(&tree, key) != item || !slot || *slot != item)
		terror("writer %u: lookup(%#lx) after replace_slot%s misses the new item", w->idx,
		       key, churn ? " (other keys changed since lookup_slot)" : "");
	for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		if (radix_tree_tag_get(&tree, key, tag) != !!(m->tags & (1UL << tag)))
			terror("writer %u: tag_get(%#lx, %u) after replace_slot%s differs from the "
			       "model", w->idx, key, tag, churn ? " (with churn)" : "");
	radix_tree_unlock(&tree);
	m->item = item;
	/* Readers may still hold the old item. */
	titem_free_rcu(opt.fl, old);
}

static void w_pick_block(struct writer *w, unsigned long *first, unsigned long *last)
{
	*first = w->blocks[trand_below(&w->rng, w->nr_blocks)];
	*last = *first + block_ids - 1 < opt.keys ? *first + block_ids - 1 : opt.keys - 1;
}

/*
 * radix_tree_range_tag_if_tagged over a key range holding only this
 * writer's ids (and stable ids, which never bear the source tag: it is
 * never tag 0).  The model predicts exactly which items get the tag, the
 * count and the resume index.
 */
static void w_range_tag(struct writer *w)
{
	unsigned long bfirst, blast, a, c, lo, hi, nr, got, first, next;
	unsigned long predicted[MAX_BLOCK], count = 0;
	unsigned int from, to;

	if (opt.tags < 2)
		return;
	w_pick_block(w, &bfirst, &blast);
	a = bfirst + trand_below(&w->rng, blast - bfirst + 1);
	c = a + trand_below(&w->rng, blast - a + 1);
	/* Widen to the empty keys around the ids now and then. */
	lo = a == bfirst && a > 0 && trand_below(&w->rng, 2) ? key_of(a - 1) + 1 : key_of(a);
	hi = c == blast && c + 1 < opt.keys && trand_below(&w->rng, 2) ? key_of(c + 1) - 1
									: key_of(c);
	from = 1 + (unsigned int)trand_below(&w->rng, opt.tags - 1);
	to = (unsigned int)trand_below(&w->rng, opt.tags);
	nr = 1 + trand_below(&w->rng, 24);
	for (unsigned long id = a; id <= c && count < nr; id++)
		if (is_owned(id) && model[id].item && (model[id].tags & (1UL << from)))
			predicted[count++] = id;
	next = count == nr ? key_of(predicted[count - 1]) + 1 : hi + 1; /* both may wrap to 0 */
	for (unsigned long i = 0; i < count; i++)
		flags_set(model[predicted[i]].item, 1UL << to);
	tcount(&w->ops[W_RANGE_TAG]);
	first = lo;
	got = radix_tree_range_tag_if_tagged(&tree, &first, hi, nr, from, to);
	if (got != count || first != next)
		terror("writer %u: range_tag_if_tagged([%#lx, %#lx], %lu, %u -> %u) = %lu, next "
		       "%#lx; model says %lu, next %#lx", w->idx, lo, hi, nr, from, to, got, first,
		       count, next);
	for (unsigned long i = 0; i < count; i++)
		model[predicted[i]].tags |= 1UL << to;
	rcu()->read_lock();
	for (unsigned long id = a; id <= c; id++)
		if (is_owned(id))
			w_check_key(w, id, "after range_tag_if_tagged");
	rcu()->read_unlock();
}

/* Delete own @id if the model holds it (w_run()). */
static void w_run_delete(struct writer *w, unsigned long id)
{
	struct mslot *m = &model[id];
	void *got;

	if (!is_owned(id) || !m->item)
		return;
	got = radix_tree_delete(&tree, key_of(id));
	if (got != m->item)
		terror("writer %u: run delete(%#lx) = %p, model holds %p", w->idx, key_of(id), got,
		       (void *)m->item);
	w_forget(m);
}

/* Is @id present according to what this writer knows exactly? */
static bool w_expect_present(unsigned long id)
{
	return is_stable(id) || (is_owned(id) && model[id].item);
}

/*
 * Under the lock, walk one own block with for_each_slot, deleting some
 * items with radix_tree_iter_delete: the walk must visit exactly the ids
 * the model holds (and the stable ones), in order, none skipped or
 * repeated, deletions included.
 */
static void w_iter_delete(struct writer *w)
{
	struct radix_tree_iter iter;
	unsigned long bfirst, blast, expect, lo, hi;
	void **slot;

	tcount(&w->ops[W_ITER_DELETE]);
	w_pick_block(w, &bfirst, &blast);
	lo = key_of(bfirst);
	hi = key_of(blast);
	expect = bfirst;
	radix_tree_lock(&tree);
	radix_tree_for_each_slot(slot, &tree, &iter, lo) {
		unsigned long key = radix_tree_iter_index(&iter);
		/* Under the lock: exact. */
		struct titem *item = rcu_dereference(*slot);
		unsigned long id;

		if (key > hi)
			break;
		if (titem_problem(item, key) || item->id < expect || item->id > blast) {
			terror("writer %u: locked walk of [%#lx, %#lx] met key %#lx: %s", w->idx, lo,
			       hi, key, titem_problem(item, key) ?: "id outside the block");
			break;
		}
		id = item->id;
		for (; expect < id; expect++)
			if (w_expect_present(expect))
				terror("writer %u: locked walk skipped key %#lx", w->idx,
				       key_of(expect));
		expect = id + 1;
		if (!is_owned(id))
			continue;
		if (item != model[id].item) {
			terror("writer %u: locked walk: key %#lx holds %p, model %p", w->idx, key,
			       (void *)item, (void *)model[id].item);
			continue;
		}
		if (trand_below(&w->rng, 3) == 0) {
			void *got = radix_tree_iter_delete(&tree, &iter, slot);

			if (got != item)
				terror("writer %u: iter_delete(%#lx) = %p, expected %p", w->idx, key,
				       got, (void *)item);
			w_forget(&model[id]);
		}
	}
	for (; expect <= blast; expect++)
		if (w_expect_present(expect))
			terror("writer %u: locked walk ended before key %#lx", w->idx,
			       key_of(expect));
	radix_tree_unlock(&tree);
}

/*
 * Under the lock, one gang_lookup_slot over ids [@a, @c] of an own block:
 * exactly the ids the model holds and the stable ones, in order, each slot
 * reading its item.
 */
static void w_check_run(struct writer *w, unsigned long a, unsigned long c)
{
	void **slots[MAX_BLOCK];
	unsigned long indices[MAX_BLOCK], expect = a;
	unsigned int n;

	radix_tree_lock(&tree);
	n = radix_tree_gang_lookup_slot(&tree, slots, indices, key_of(a),
					(unsigned int)(c - a + 1));
	for (unsigned int i = 0; i < n && indices[i] <= key_of(c); i++) {
		unsigned long id = id_at_or_above(indices[i]);
		/* Under the lock: exact. */
		struct titem *item = rcu_dereference(*slots[i]);

		while (expect < id && !w_expect_present(expect))
			expect++;
		if (id != expect || key_of(id) != indices[i] || !w_expect_present(id)) {
			terror("writer %u: run [%#lx, %#lx]: locked gang_lookup_slot returned key "
			       "%#lx, expected %#lx", w->idx, key_of(a), key_of(c), indices[i],
			       key_of(expect));
			break;
		}
		if (is_owned(id) && item != model[id].item)
			terror("writer %u: run [%#lx, %#lx]: key %#lx holds %p, model %p", w->idx,
			       key_of(a), key_of(c), indices[i], (void *)item,
			       (void *)model[id].item);
		else if (!is_owned(id) && titem_problem(item, indices[i]))
			terror("writer %u: run [%#lx, %#lx]: stable key %#lx: %s", w->idx, key_of(a),
			       key_of(c), indices[i], titem_problem(item, indices[i]));
		expect = id + 1;
	}
	for (; expect <= c; expect++)
		if (w_expect_present(expect))
			terror("writer %u: run [%#lx, %#lx]: locked gang_lookup_slot missed key %#lx",
			       w->idx, key_of(a), key_of(c), key_of(expect));
	radix_tree_unlock(&tree);
}

/*
 * Grow a run: insert ids a..c of an own block in ascending order (all of
 * them, with a random length of up to a whole block: consecutive keys with
 * the runs distribution), check it with one locked gang lookup, and half
 * the time (always while draining) shrink it again from either end.  Nodes
 * fill up, overflow and empty out under the readers.
 */
static void w_run(struct writer *w)
{
	unsigned long bfirst, blast, a, c;

	tcount(&w->ops[W_RUN]);
	w_pick_block(w, &bfirst, &blast);
	a = bfirst + trand_below(&w->rng, blast - bfirst + 1);
	c = a + trand_below(&w->rng, blast - a + 1);
	for (unsigned long id = a; id <= c && !w->draining; id++) {
		struct mslot *m = &model[id];
		struct titem *item;
		int ret;

		if (!is_owned(id) || m->item)
			continue;
		item = w_new_item(id);
		ret = radix_tree_insert(&tree, key_of(id), item);
		if (ret) {
			terror("writer %u: run insert(%#lx) = %d, model says absent", w->idx,
			       key_of(id), ret);
			titem_free_now(item);
			continue;
		}
		m->item = item;
		m->tags = 0;
	}
	w_check_run(w, a, c);
	if (!w->draining && trand_below(&w->rng, 2))
		return;
	if (trand_below(&w->rng, 2)) {
		for (unsigned long id = a; id <= c; id++)
			w_run_delete(w, id);
	} else {
		for (unsigned long id = c + 1; id-- > a;)
			w_run_delete(w, id);
	}
}

/* ---- chaos: every writer, no model; exact only under the lock ----------- */

static struct titem *chaos_new(unsigned long id)
{
	/* Several writers: the generation counter is shared. */
	return titem_new(id, key_of(id), uatomic_add_return(&gens[id], 1));
}

static void chaos_check(struct writer *w, const void *p, unsigned long key, const char *what)
{
	const char *why = titem_problem(p, key);

	if (why)
		terror("writer %u: chaos %s(%#lx): %s", w->idx, what, key, why);
}

/* Under the lock: toggle one to three other chaos ids (delete the item
 * there, or insert one), as w_churn_others() does for own ids. */
static void chaos_churn_others(struct writer *w, unsigned long id)
{
	unsigned int nr = 1 + (unsigned int)trand_below(&w->rng, 3);

	for (unsigned int i = 0; i < nr; i++) {
		unsigned long other = trand_below(&w->rng, opt.chaos), key = key_of(other);
		void *got;

		if (other == id)
			continue;
		got = radix_tree_delete(&tree, key);
		if (got) {
			note_delete();
			chaos_check(w, got, key, "locked delete");
			titem_free_rcu(opt.fl, got);
		} else {
			struct titem *item = chaos_new(other);
			int ret = radix_tree_insert(&tree, key, item);

			if (ret) {
				terror("writer %u: chaos locked insert(%#lx) after a miss = %d",
				       w->idx, key, ret);
				titem_free_now(item);
			}
		}
	}
}

static void w_chaos(struct writer *w)
{
	unsigned long id = trand_below(&w->rng, opt.chaos), key = key_of(id);
	unsigned int tag = (unsigned int)trand_below(&w->rng, opt.tags);
	struct titem *item, *old = NULL;
	void **slot, *got;
	int ret;

	tcount(&w->ops[W_CHAOS]);
	switch (trand_below(&w->rng, 8)) {
	case 0: case 1: /* plain insert */
		item = chaos_new(id);
		ret = radix_tree_insert(&tree, key, item);
		if (ret) {
			if (ret != -EEXIST)
				terror("writer %u: chaos insert(%#lx) = %d", w->idx, key, ret);
			titem_free_now(item);
		}
		return;
	case 2: case 3: /* delete: the one writer that gets the item frees it */
		/* Under the lock, so that the delete is counted before anyone
		 * refills the slot (see delete_epoch). */
		radix_tree_lock(&tree);
		got = radix_tree_delete(&tree, key);
		if (got)
			note_delete();
		radix_tree_unlock(&tree);
		if (got) {
			chaos_check(w, got, key, "delete");
			titem_free_rcu(opt.fl, got);
		}
		return;
	case 4: /* tag set with its flag, atomically under the lock */
		radix_tree_lock(&tree);
		item = radix_tree_lookup(&tree, key);
		if (item)
			flags_set(item, 1UL << tag);
		got = radix_tree_tag_set(&tree, key, tag);
		if (got != item)
			terror("writer %u: chaos locked tag_set(%#lx) = %p, lookup said %p", w->idx,
			       key, got, (void *)item);
		radix_tree_unlock(&tree);
		return;
	case 5: /* tag clear with its flag, under the lock */
		radix_tree_lock(&tree);
		item = radix_tree_lookup(&tree, key);
		got = radix_tree_tag_clear(&tree, key, tag);
		if (got != item)
			terror("writer %u: chaos locked tag_clear(%#lx) = %p, lookup said %p",
			       w->idx, key, got, (void *)item);
		if (item)
			flags_clear(item, 1UL << tag);
		radix_tree_unlock(&tree);
		return;
	case 6: /* replace_slot under the lock, maybe after changing other keys */
		radix_tree_lock(&tree);
		slot = w_find_slot(w, key);
		if (slot) {
			old = *slot;
			chaos_check(w, old, key, "locked lookup_slot");
			if (trand_below(&w->rng, 2))
				chaos_churn_others(w, id);
			item = w_successor(old, uatomic_add_return(&gens[id], 1));
			radix_tree_replace_slot(&tree, slot, item);
			if (radix_tree_lookup(&tree, key) != item)
				terror("writer %u: chaos lookup(%#lx) after replace_slot", w->idx, key);
		}
		radix_tree_unlock(&tree);
		if (old)
			titem_free_rcu(opt.fl, old);
		return;
	default: /* preload, lookup-then-insert under the lock */
		ret = radix_tree_preload(GFP_KERNEL);
		if (ret) {
			terror("writer %u: radix_tree_preload() = %d", w->idx, ret);
			return;
		}
		radix_tree_lock(&tree);
		if (!radix_tree_lookup(&tree, key)) {
			item = chaos_new(id);
			ret = radix_tree_insert(&tree, key, item);
			if (ret) {
				terror("writer %u: chaos locked insert(%#lx) after a miss = %d",
				       w->idx, key, ret);
				titem_free_now(item);
			}
		}
		radix_tree_unlock(&tree);
		radix_tree_preload_end();
		return;
	}
}

/* Under the lock, walk the chaos range deleting some items with iter_delete. */
static void w_chaos_walk(struct writer *w)
{
	struct radix_tree_iter iter;
	unsigned long hi = key_of(opt.chaos - 1), prev = 0;
	bool any = false;
	void **slot;
	struct titem *dead[64];
	unsigned int nr_dead = 0;

	tcount(&w->ops[W_CHAOS]);
	radix_tree_lock(&tree);
	radix_tree_for_each_slot(slot, &tree, &iter, key_of(0)) {
		unsigned long key = radix_tree_iter_index(&iter);
		/* Under the lock: exact. */
		struct titem *item = rcu_dereference(*slot);

		if (key > hi)
			break;
		if (any && key <= prev)
			terror("writer %u: locked chaos walk: %#lx after %#lx", w->idx, key, prev);
		any = true;
		prev = key;
		chaos_check(w, item, key, "locked walk");
		if (nr_dead < 64 && trand_below(&w->rng, 4) == 0) {
			void *got = radix_tree_iter_delete(&tree, &iter, slot);

			if (got != item)
				terror("writer %u: chaos iter_delete(%#lx) = %p, expected %p", w->idx,
				       key, got, (void *)item);
			dead[nr_dead++] = item;
			note_delete();
		}
	}
	radix_tree_unlock(&tree);
	for (unsigned int i = 0; i < nr_dead; i++)
		titem_free_rcu(opt.fl, dead[i]);
}

/*
 * Writers alternate between filling and draining their keys, PHASE_OPS
 * operations each: while draining they insert nothing, so their keys empty
 * out completely; leaves and whole subtrees are freed and the height
 * shrinks, then it all grows back, under the readers' feet.
 */
#define PHASE_OPS 65536UL

static void writer_op(struct writer *w, unsigned long n)
{
	uint64_t x = trand_below(&w->rng, 100);

	w->draining = (n / PHASE_OPS) % 2 == 1;

	/* Tabled distributions grow and shrink runs too; runs above all. */
	if (dist_tabled() && w->nr_own &&
	    trand_below(&w->rng, opt.dist == DIST_RUNS ? 4 : 16) == 0) {
		w_run(w);
		return;
	}
	if (!w->nr_own || (opt.chaos && x >= 86)) {
		if (!opt.chaos)
			return;
		if (trand_below(&w->rng, 32) == 0)
			w_chaos_walk(w);
		else
			w_chaos(w);
		return;
	}
	if (x < 38) {
		if (x < 20 && !w->draining)
			w_insert(w);
		else
			w_delete(w);
	}
	else if (x < 48)
		w_tag_set(w);
	else if (x < 56)
		w_tag_clear(w);
	else if (x < 64)
		w_verify(w);
	else if (x < 72)
		w_preload_group(w);
	else if (x < 78)
		w_replace(w);
	else if (x < 82)
		w_range_tag(w);
	else
		w_iter_delete(w);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned long n = 0;

	rcu()->register_thread();
	while (!uatomic_read(&stop)) {
		writer_op(w, n++);
		tcount(&w->beat.count);
		/* Writers are online QSBR threads too: let grace periods end. */
		if (opt.fl->qsbr && n % 64 == 0)
			rcu()->read_quiescent_state();
		if (opt.yield)
			sched_yield();
	}
	/* Give this thread's node reserve back before the final count. */
	rcuradix_thread_cache_flush();
	rcu()->unregister_thread();
	uatomic_set(&w->beat.done, 1);
	return NULL;
}

/* ---- setup ------------------------------------------------------------- */

static void setup_writers(void)
{
	writers = xcalloc(opt.writers, sizeof(*writers));
	wops = (struct tops){ wop_names, NR_WOPS, writers ? writers->ops : NULL,
			      sizeof(*writers), opt.writers };
	for (unsigned int i = 0; i < opt.writers; i++) {
		struct writer *w = &writers[i];

		w->idx = i;
		w->beat = (struct tbeat){ .role = "writer", .idx = i };
		trng_seed(&w->rng, opt.seed, 1000 + i);
		w->own_ids = xcalloc(opt.keys, sizeof(*w->own_ids));
		w->blocks = xcalloc(opt.keys / block_ids + 1, sizeof(*w->blocks));
	}
	for (unsigned long id = opt.chaos; id < opt.keys; id++) {
		struct writer *w;

		if (!opt.writers)
			break;
		w = &writers[owner_of(id)];
		if ((id - opt.chaos) % block_ids == 0)
			w->blocks[w->nr_blocks++] = id;
		if (is_owned(id))
			w->own_ids[w->nr_own++] = id;
	}
}

static void setup_readers(void)
{
	readers = xcalloc(opt.readers, sizeof(*readers));
	rops = (struct tops){ rop_names, NR_ROPS, readers ? readers->ops : NULL,
			      sizeof(*readers), opt.readers };
	for (unsigned int i = 0; i < opt.readers; i++) {
		readers[i].idx = i;
		readers[i].beat = (struct tbeat){ .role = "reader", .idx = i };
		trng_seed(&readers[i].rng, opt.seed, i);
		readers[i].last_gen = xcalloc(opt.keys, sizeof(unsigned long));
	}
}

static unsigned long nr_stable;

/* Insert the stable items (generation 1, every other one tagged). */
static void insert_stable(void)
{
	for (unsigned long id = opt.chaos; id < opt.keys; id++) {
		struct titem *item;
		int ret;

		if (!is_stable(id))
			continue;
		item = titem_new(id, key_of(id), ++gens[id]);
		ret = radix_tree_insert(&tree, key_of(id), item);
		if (ret) {
			terror("setup: insert(%#lx) = %d", key_of(id), ret);
			titem_free_now(item);
			continue;
		}
		have_stable = true;
		nr_stable++;
		if (is_stable_tagged(id)) {
			flags_set(item, 1UL << STABLE_TAG);
			if (radix_tree_tag_set(&tree, key_of(id), STABLE_TAG) != item)
				terror("setup: tag_set(%#lx) failed", key_of(id));
			have_stable_tagged = true;
		}
	}
}

/* ---- progress and the end ---------------------------------------------- */

/* One progress line: operations per second of each kind since the last. */
static void print_progress(double t, double dt)
{
	struct rcuradix_stats st;

	tops_progress(t, dt, &rops, &wops);
	rcuradix_get_stats(&st, sizeof(st));
	printf(" | nodes live=%lu pending=%lu errors=%lu\n", st.nodes_live, st.nodes_pending,
	       terrors());
	fflush(stdout);
}

/*
 * After join: the tree must hold exactly the stable items, the writers'
 * models, and whatever chaos items remain, with exactly the modelled tags;
 * radix_tree_verify() must pass.  Returns the number of items present.
 */
static unsigned long final_check(void)
{
	unsigned long present = 0, seen = 0, first = 0;
	unsigned long tag_any = 0;

	if (radix_tree_verify(&tree) != 0)
		terror("final: radix_tree_verify failed (see stderr)");
	for (unsigned long id = 0; id < opt.keys; id++) {
		unsigned long key = key_of(id), want_tags;
		struct titem *item = radix_tree_lookup(&tree, key);

		if (is_owned(id)) {
			if (item != model[id].item) {
				terror("final: key %#lx holds %p, model %p", key, (void *)item,
				       (void *)model[id].item);
				continue;
			}
			want_tags = model[id].tags;
			if (item && CMM_LOAD_SHARED(item->tags_now) != want_tags)
				terror("final: key %#lx flags %#lx, model tags %#lx", key,
				       item->tags_now, want_tags);
		} else if (is_stable(id)) {
			if (!item || titem_problem(item, key) || item->generation != 1) {
				terror("final: stable key %#lx lost or changed", key);
				continue;
			}
			want_tags = is_stable_tagged(id) ? 1UL << STABLE_TAG : 0;
		} else {
			if (item && titem_problem(item, key)) {
				terror("final: chaos key %#lx: %s", key, titem_problem(item, key));
				continue;
			}
			want_tags = item ? CMM_LOAD_SHARED(item->tags_now) : 0;
		}
		if (!item)
			continue;
		present++;
		tag_any |= want_tags;
		for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++) {
			int want = (int)((want_tags >> tag) & 1);
			int t = radix_tree_tag_get(&tree, key, tag);

			if (t != want)
				terror("final: tag_get(%#lx, %u) = %d, expected %d", key, tag, t, want);
		}
	}
	for (unsigned int tag = 0; tag < RADIX_TREE_MAX_TAGS; tag++)
		if (!radix_tree_tagged(&tree, tag) != !(tag_any & (1UL << tag)))
			terror("final: tagged(%u) = %d", tag, radix_tree_tagged(&tree, tag));
	/* Nothing else is in the tree: a full walk sees exactly those items. */
	for (;;) {
		void **slots[64];
		unsigned long indices[64];
		unsigned int n = radix_tree_gang_lookup_slot(&tree, slots, indices, first, 64);

		for (unsigned int i = 0; i < n; i++) {
			unsigned long id = id_at_or_above(indices[i]);

			if (id >= opt.keys || key_of(id) != indices[i])
				terror("final: unexpected key %#lx in the tree", indices[i]);
		}
		seen += n;
		if (n < 64 || indices[n - 1] == ULONG_MAX)
			break;
		first = indices[n - 1] + 1;
	}
	if (seen != present)
		terror("final: a full walk saw %lu items, %lu expected", seen, present);
	return present;
}

static int summary(double elapsed, unsigned long present)
{
	unsigned long r[NR_ROPS], w[NR_WOPS], tag_checks = 0, tag_checks_moot = 0;
	unsigned long relookups = 0, reads = tops_sum(&rops, r), writes = tops_sum(&wops, w);
	char ops[2048];

	for (unsigned int i = 0; i < opt.readers; i++) {
		tag_checks += readers[i].tag_checks;
		tag_checks_moot += readers[i].tag_checks_moot;
		relookups += readers[i].relookups;
	}
	for (unsigned int i = 0; i < opt.writers; i++)
		relookups += writers[i].relookups;
	tops_format(ops, sizeof(ops), &rops, r, &wops, w);
	return tsummary(opt.fl, elapsed,
			" distribution=%s readers=%u writers=%u keys=%lu chaos=%lu gang=%u tags=%u "
			"yield=%d stable_keys=%lu reads=%lu writes=%lu%s tag_flag_checks=%lu "
			"tag_flag_checks_moot=%lu null_slot_relookups=%lu items_at_end=%lu",
			dist_names[opt.dist], opt.readers, opt.writers, opt.keys, opt.chaos, opt.gang,
			opt.tags, opt.yield, nr_stable, reads, writes, ops,
			tag_checks, tag_checks_moot, relookups, present);
}

static int torture(void)
{
	struct tbeat **beats;
	double start, elapsed;
	unsigned long present;

	if (opt.dist == DIST_SPARSE)
		sparse_stride = ULONG_MAX / opt.keys;
	if (opt.dist == DIST_RUNS)
		block_ids = RUN_BLOCK;
	if (dist_tabled())
		build_key_table();
	check_maps();
	model = xcalloc(opt.keys, sizeof(*model));
	gens = xcalloc(opt.keys, sizeof(*gens));
	radix_tree_init_flavor(&tree, GFP_KERNEL, opt.fl->rcu);
	rcu()->register_thread();
	insert_stable();
	setup_writers();
	setup_readers();
	beats = xcalloc(opt.readers + opt.writers, sizeof(*beats));
	for (unsigned int i = 0; i < opt.readers; i++)
		beats[i] = &readers[i].beat;
	for (unsigned int i = 0; i < opt.writers; i++)
		beats[opt.readers + i] = &writers[i].beat;
	/* Main only sleeps while the threads run: QSBR must not wait for it. */
	if (opt.fl->qsbr)
		rcu()->thread_offline();
	start = tnow();
	for (unsigned int i = 0; i < opt.readers; i++)
		if (pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]))
			exit(2);
	for (unsigned int i = 0; i < opt.writers; i++)
		if (pthread_create(&writers[i].thread, NULL, writer_main, &writers[i]))
			exit(2);
	tmonitor(beats, opt.readers + opt.writers, opt.duration, &stop, print_progress);
	for (unsigned int i = 0; i < opt.readers; i++)
		pthread_join(readers[i].thread, NULL);
	for (unsigned int i = 0; i < opt.writers; i++)
		pthread_join(writers[i].thread, NULL);
	elapsed = tnow() - start;
	if (opt.fl->qsbr)
		rcu()->thread_online();
	present = final_check();
	tteardown(&tree, opt.fl);
	rcu()->unregister_thread();
	free(beats);
	return summary(elapsed, present);
}

/* ---- options ----------------------------------------------------------- */

static void usage(FILE *f)
{
	char dists[1024];
	size_t len = 0;

	for (unsigned int d = 0; d < NR_DISTS; d++)
		len += (size_t)snprintf(dists + len, sizeof(dists) - len, "%22s%-13s%s\n", "",
					dist_names[d], dist_help[d]);
	snprintf(dists + len, sizeof(dists) - len, "%22s(the last six are drawn from the seed)\n",
		 "");
	fprintf(f,
		"usage: rcuradix-torture [options]\n"
		"Readers validate invariants while writers mutate one tree; at the end the tree\n"
		"must match the writers' models and every node and item must be freed.\n"
		"  --readers N         reader threads (default %u)\n"
		"  --writers M         writer threads (default %u)\n"
		"  --duration S        seconds to run (default %.0f)\n"
		"  --keys K            key numbers in use (default %lu)\n"
		"  --chaos C           key numbers shared by all writers (default %lu, <= K)\n"
		"  --distribution D    how key numbers map to keys (default %s):\n"
		"%s"
		"  --flavor F          memb | qsbr | mb | bp (default memb)\n"
		"  --gang G            items per gang lookup (default %u, max %u)\n"
		"  --tags T            tags in use, 1..%d (default %u)\n"
		"  --seed X            RNG seed (default: from the clock; printed)\n"
		"  --yield             sched_yield() after every operation\n"
		"  --scenario NAME     run a regression scenario instead:",
		opt.readers, opt.writers, opt.duration, opt.keys, opt.chaos, dist_names[opt.dist],
		dists, opt.gang, MAX_GANG, RADIX_TREE_MAX_TAGS, opt.tags);
	for (unsigned int i = 0; tscenario_names[i]; i++)
		fprintf(f, " %s", tscenario_names[i]);
	fprintf(f, "\n"
		"                      (uses --flavor, --duration, --readers, --gang, --yield)\n"
		"  --idr               torture an IDR instead: writers allocate, reserve, replace\n"
		"                      and remove ids, readers find and walk them (uses --flavor,\n"
		"                      --duration, --readers, --writers, --keys: the ids shared\n"
		"                      by the writers, --seed, --yield)\n"
		"  --idr-base B        the IDR's lowest id (default 0, at most %lu)\n"
		"  --help              this text\n"
		"Exit status: 0 clean; 1 errors or leaks; 2 bad usage; 3 a thread got stuck.\n",
		MAX_IDR_BASE);
}

static unsigned long parse_ulong(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || *s == '-') {
		fprintf(stderr, "rcuradix-torture: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "readers", required_argument, NULL, 'r' },
		{ "writers", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "keys", required_argument, NULL, 'k' },
		{ "chaos", required_argument, NULL, 'c' },
		{ "distribution", required_argument, NULL, 'D' },
		{ "flavor", required_argument, NULL, 'f' },
		{ "gang", required_argument, NULL, 'g' },
		{ "tags", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "yield", no_argument, NULL, 'y' },
		{ "scenario", required_argument, NULL, 'S' },
		{ "idr", no_argument, NULL, 'I' },
		{ "idr-base", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool seeded = false, chaos_set = false;
	int c;

	opt.fl = tflavor_find("memb");
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': opt.readers = (unsigned int)parse_ulong(optarg, "--readers"); break;
		case 'w': opt.writers = (unsigned int)parse_ulong(optarg, "--writers"); break;
		case 'd':
			opt.duration = strtod(optarg, NULL);
			if (!(opt.duration > 0)) {
				fprintf(stderr, "rcuradix-torture: bad --duration: %s\n", optarg);
				exit(2);
			}
			break;
		case 'k': opt.keys = parse_ulong(optarg, "--keys"); break;
		case 'c': opt.chaos = parse_ulong(optarg, "--chaos"); chaos_set = true; break;
		case 'D':
			for (c = 0; c < NR_DISTS && strcmp(optarg, dist_names[c]); c++)
				;
			if (c == NR_DISTS) {
				fprintf(stderr, "rcuradix-torture: bad --distribution: %s\n", optarg);
				exit(2);
			}
			opt.dist = (enum distribution)c;
			break;
		case 'f':
			opt.fl = tflavor_find(optarg);
			if (!opt.fl) {
				fprintf(stderr, "rcuradix-torture: bad --flavor: %s\n", optarg);
				exit(2);
			}
			break;
		case 'g': opt.gang = (unsigned int)parse_ulong(optarg, "--gang"); break;
		case 't': opt.tags = (unsigned int)parse_ulong(optarg, "--tags"); break;
		case 's': opt.seed = parse_ulong(optarg, "--seed"); seeded = true; break;
		case 'y': opt.yield = true; break;
		case 'S': opt.scenario = optarg; break;
		case 'I': opt.idr = true; break;
		case 'B': opt.idr_base = parse_ulong(optarg, "--idr-base"); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc || opt.readers > 256 || opt.writers > 256 || !opt.keys ||
	    opt.keys > (1UL << 24) || opt.gang < 1 || opt.gang > MAX_GANG || opt.tags < 1 ||
	    opt.tags > RADIX_TREE_MAX_TAGS) {
		usage(stderr);
		exit(2);
	}
	if ((opt.idr && opt.scenario) || opt.idr_base > MAX_IDR_BASE) {
		usage(stderr);
		exit(2);
	}
	if (!chaos_set && opt.chaos > opt.keys / 4)
		opt.chaos = opt.keys / 4 ? opt.keys / 4 : 1;
	if (opt.chaos > opt.keys) {
		fprintf(stderr, "rcuradix-torture: --chaos must not exceed --keys\n");
		exit(2);
	}
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		opt.seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
	}
	tseed = opt.seed;
}

int main(int argc, char **argv)
{
	parse_options(argc, argv);
	printf("rcuradix-torture: library %s, seed %#" PRIx64 " (--seed to replay)\n",
	       rcuradix_version(), opt.seed);
	fflush(stdout);
	if (opt.scenario) {
		struct tscenario_opts so = { opt.fl, opt.duration, opt.readers ? opt.readers : 1,
					     opt.gang, opt.yield };
		int ret = tscenario_run(opt.scenario, &so);

		if (ret < 0) {
			fprintf(stderr, "rcuradix-torture: unknown scenario %s\n", opt.scenario);
			return 2;
		}
		return ret;
	}
	if (opt.idr) {
		struct tidr_opts io = { opt.fl, opt.duration, opt.readers, opt.writers, opt.keys,
					opt.idr_base, opt.yield };

		return tidr_run(&io);
	}
	return torture();
}
