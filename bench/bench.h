/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench.h - shared by the files of rcuradix-bench: the vtable every compared
 * structure ("peer") sits behind, the key sets, timing and statistics
 * helpers, and the result table.
 *
 * The benchmark compares rcuradix with what a user would otherwise pick:
 * JudyL, JudyL behind a pthread_rwlock_t, liburcu's cds_lfht and a flat
 * array indexed by key.  Every workload goes through struct peer_ops, so it
 * runs unchanged on each of them; an operation a peer cannot do is a NULL
 * function pointer and prints as n/a.
 */
#ifndef RCURADIX_BENCH_H
#define RCURADIX_BENCH_H

#define _LGPL_SOURCE 1 /* inline read_lock/unlock: what an application gets */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <urcu/urcu-memb.h>

#include "../tests/xorshift.h"

/* ---- key sets ----------------------------------------------------------- */

enum keyset_kind {
	KS_DENSE_SEQ,  /* 0..N-1, inserted in order */
	KS_DENSE_RAND, /* 0..N-1, inserted in random order */
	KS_HOLES,      /* a random half of [0, 2N); misses are the holes */
	KS_CLUSTERED,  /* runs of 64 consecutive keys at random bases < 2^40 */
	KS_SPARSE32,   /* uniform random 32-bit keys */
	KS_SPARSE64,   /* uniform random keys below 2^62: items encode a key in 62
			* bits; the tree is 11 levels high as for full 64-bit keys */
	KS_COUNT
};

/*
 * A key set with everything the workloads read, generated before any timing
 * from a fixed seed.  Items are fake pointers (never dereferenced) that
 * encode the next key of a random cycle through the set: the dependent
 * lookup derives its next key from the item it found.
 */
struct keyset {
	enum keyset_kind kind;
	const char *name;
	size_t n;                 /* keys */
	unsigned long max_key;    /* largest key */
	bool dense;               /* keys < 2N: a flat array can hold them */
	unsigned long *ins_keys;  /* insertion order */
	void **ins_items;         /* item of ins_keys[i] */
	unsigned long *lookup;    /* a random permutation of the keys */
	unsigned long *del;       /* another one: deletion order */
	unsigned long *miss;      /* keys not in the set */
	size_t nmiss;
	unsigned long chain_start; /* first key of the dependent chain */
	/* Small arrays read sequentially by gang lookups, so the harness adds
	 * no cache miss per call: random present keys with >= 64 keys above. */
	unsigned long *starts;
	size_t nstarts;
	/* Keys to tag: tag 0 on 1/8 of the keys, tag 1 on 1/64 (random order). */
	unsigned long *tag_keys[2];
	size_t ntag[2];
};

#define NSTARTS 1024
#define TAG_8 0  /* tag number carried by 1/8 of the keys */
#define TAG_64 1 /* tag number carried by 1/64 of the keys */

/* Fake item for a key: two low bits clear, never NULL. */
static inline void *item_encode(unsigned long next_key)
{
	return (void *)(uintptr_t)((next_key + 1) << 2);
}

static inline unsigned long item_next_key(const void *item)
{
	return ((unsigned long)(uintptr_t)item >> 2) - 1;
}

const char *keyset_name(enum keyset_kind kind);
int keyset_by_name(const char *name);
/* Largest N generated for @kind (sparse keys are capped: memory). */
size_t keyset_cap(enum keyset_kind kind);
int keyset_make(struct keyset *ks, enum keyset_kind kind, size_t n, uint64_t seed);
void keyset_free(struct keyset *ks);

/* ---- peers -------------------------------------------------------------- */

#define CAP_CONCURRENT_WRITER 1u /* readers may run while it is written */
#define CAP_READERS 2u           /* several concurrent readers are safe */

struct peer_ops {
	const char *name;      /* column title */
	const char *allocator; /* where its memory comes from (header) */
	unsigned int caps;
	/* NULL if the peer cannot hold this key set. */
	void *(*create)(const struct keyset *ks);
	void (*destroy)(void *t);
	int (*insert)(void *t, unsigned long key, void *item);
	int (*insert_preload)(void *t, unsigned long key, void *item);
	void *(*lookup)(void *t, unsigned long key);
	void *(*remove)(void *t, unsigned long key);
	/* Ordered: up to @max items with key >= @start, into @out. */
	unsigned int (*gang)(void *t, unsigned long start, void **out, unsigned int max);
	/* Ordered: the item with the greatest key <= *@key, its key stored in
	 * *@key; NULL if none. */
	void *(*pred)(void *t, unsigned long *key);
	/* Visit every item; returns a checksum, *count the items seen. */
	uintptr_t (*walk)(void *t, size_t *count);
	void *(*tag_set)(void *t, unsigned long key, unsigned int tag);
	unsigned int (*gang_tag)(void *t, unsigned long start, void **out, unsigned int max,
				 unsigned int tag);
	uintptr_t (*walk_tagged)(void *t, unsigned int tag, size_t *count);
	/* Bytes the structure's own accounting reports. */
	double (*own_bytes)(void *t);
	/* Bytes in the structure's nodes alone, without what its allocator
	 * adds (rcuradix: radix_tree_memory() node_bytes; JudyL: JudyLMemUsed). */
	double (*node_bytes)(void *t);
	/* Bytes its allocator has handed out in total, now (a delta around
	 * the build gives the structure's share, rounding included). */
	double (*alloc_now)(void);
	/* Bytes the library holds from its allocator (rcuradix only). */
	double (*backing_bytes)(void);
	/* Bytes queued for call_rcu right now (concurrency runs). */
	double (*pending_bytes)(void *t);
	/* Called in every thread that used the peer, before it ends. */
	void (*thread_done)(void);
};

extern const struct peer_ops peer_rcuradix, peer_judyl, peer_judyl_rwlock, peer_lfht,
	peer_flat;
#define NPEERS 5
extern const struct peer_ops *const peers[NPEERS];

/* ---- time and statistics ------------------------------------------------ */

double now_ns(void);
/* CPU time the calling thread has used, in ns. */
double thread_cpu_ns(void);
/* TSC ticks per ns, calibrated once against CLOCK_MONOTONIC. */
double tsc_per_ns(void);
/* Smallest step of the TSC and the median cost of an empty timed interval,
 * in ticks: the resolution and the bias of the sampled latencies. */
void tsc_resolution(uint64_t *step, uint64_t *empty);
static inline uint64_t tsc_begin(void)
{
	unsigned int lo, hi;

	/* lfence: the timed operation must not start before the read. */
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t tsc_end(void)
{
	unsigned int lo, hi;

	/* rdtscp waits for the timed operation's loads to complete. */
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi)::"rcx", "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The @q quantile of @v (q in [0, 1]; the nearest rank); sorts @v. */
static inline double quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

double median(double *v, size_t n); /* sorts @v */
double minimum(const double *v, size_t n);
double percentile_u64(uint64_t *v, size_t n, double p); /* sorts @v */

/* Seeded xorshift64*. */
struct rng {
	uint64_t s;
};
static inline uint64_t rng_next(struct rng *r)
{
	return xorshift64s(&r->s);
}
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}
void rng_seed(struct rng *r, uint64_t seed);
void shuffle_ulong(unsigned long *a, size_t n, struct rng *r);

/* A 64-bit mixer (murmur3 finalizer): the hash table's hash, tag choice. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Pin the calling thread to @cpu (modulo the CPUs online). */
void pin_to_cpu(int cpu);
/* A measuring thread's start: @r seeded with @seed, the thread pinned to
 * @cpu and registered with urcu-memb, then waiting at @start for the
 * others. */
void bench_thread_start(struct rng *r, uint64_t seed, int cpu, pthread_barrier_t *start);
int cpus_online(void);
/* The header's first lines: "@prog: rcuradix <version>", then the date, the
 * machine, the kernel, transparent huge pages and the load. */
void print_machine(FILE *out, const char *prog);
/* The file malloc() comes from in this process. */
const char *malloc_library(void);

/* Allocator statistics: bytes handed out, or a negative value if unknown. */
double jemalloc_allocated(void);
double glibc_allocated(void);

/* ---- results ------------------------------------------------------------ */

#define MAX_REPS 32

/* One measured figure for one peer: a value per repetition. */
struct cell {
	double v[MAX_REPS];
	int n;
};

void cell_add(struct cell *c, double v);
bool cell_ok(const struct cell *c);

/* Results of one table: rows (operations) x NPEERS columns. */
struct row {
	const char *op;
	const char *unit;
	bool higher_better;
	struct cell c[NPEERS];
};

struct table {
	const char *title;   /* e.g. "dense-rand" */
	const char *section; /* "single" or "concurrent" */
	size_t n;
	struct row *rows;
	int nrows, cap;
};

struct row *table_row(struct table *t, const char *op, const char *unit, bool higher_better);
void table_print(const struct table *t, FILE *out);
void table_csv(const struct table *t, FILE *csv);
void table_free(struct table *t);
/* @v as the tables print it: 2 decimals below 10, 1 below 100, none below
 * 10^5, then 3 significant digits; "-" for NAN. */
void fmt_num(char *buf, size_t len, double v);
/* Median of a cell (NAN if empty). */
double cell_median(const struct cell *c);
const struct row *table_find(const struct table *t, const char *op, const char *unit);

/* ---- workloads ---------------------------------------------------------- */

/* Single-thread operations a run measures (--ops).  The build by plain
 * inserts and the memory figures taken after it are always measured. */
#define OPS_PRELOAD 0x001u /* insert+preload: a second build */
#define OPS_HIT 0x002u
#define OPS_DEP 0x004u
#define OPS_MISS 0x008u
#define OPS_GANG 0x010u    /* gang16, gang64, succ1, pred1 */
#define OPS_WALK 0x020u
#define OPS_TAGS 0x040u    /* tag set, tagged gang lookups and walks */
#define OPS_DELETE 0x080u
#define OPS_ALL 0x0ffu

struct options {
	int reps;
	double conc_ms;   /* duration of one concurrency run */
	size_t max_ops;   /* lookups per measurement, items per walk measurement */
	bool warmup;      /* one discarded pass per peer first */
	bool verbose;
	bool enabled[NPEERS];
	unsigned int ops;   /* OPS_* */
	uint64_t seed;      /* key generation */
	/* Named scenarios (sharing.c). */
	int scen_reps;      /* interleaved repetitions of (alone, with) */
	double scen_ms;     /* duration of one run */
	int scen_log2;      /* log2 N of every tree; 0: each scenario's own */
	size_t root_offset; /* bytes from a 256-byte boundary to each root */
};

/* Single-thread operations for one key set: fills @t. */
void run_single(const struct keyset *ks, const struct options *o, struct table *t);
/* Concurrency scenarios for one key set: fills @t. */
void run_concurrent(const struct keyset *ks, const struct options *o, struct table *t);

/* Named scenarios: one thread measured alone and next to another one. */
int scenario_count(void);
const char *scenario_name(int i);
int scenario_by_name(const char *name); /* -1 if unknown */
size_t scenario_size(int i, const struct options *o); /* keys of the measured tree */
/* Runs scenario @which (builds its own trees): fills @t. */
void run_scenario(int which, const struct options *o, struct table *t);
void scenario_print(int which, const struct options *o, const struct table *t, FILE *out);

/* ---- compressed-node targets (targets.c) ------------------------------- */

#define MAX_SIZES 8

/* What --targets measured: one single-thread table per key set and size
 * (have[][] false where it did not run), the reader-next-to-writer scenario
 * on uniform 64-bit keys per size. */
struct cn_results {
	int nsizes;
	int log2n[MAX_SIZES];
	int reps;
	struct table single[KS_COUNT][MAX_SIZES];
	bool have[KS_COUNT][MAX_SIZES];
	struct table scen[MAX_SIZES];
	bool have_scen[MAX_SIZES];
};

/* The key sets --targets runs, and the scenario it runs at every size. */
extern const enum keyset_kind cn_keysets[];
extern const int cn_nkeysets;
extern const char cn_scenario[];
/* The operations the targets need (OPS_*). */
#define CN_OPS (OPS_PRELOAD | OPS_HIT | OPS_DEP | OPS_GANG | OPS_TAGS)
/* Prints the ratio table and the targets table; rows to @csv if not NULL. */
void cn_report(const struct cn_results *r, FILE *out, FILE *csv);

/* Fatal error with a message. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
