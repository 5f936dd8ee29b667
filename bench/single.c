/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * single.c - rcuradix-bench's single-thread operations.  One pass builds a
 * peer from the key set and times every operation on it: insert, lookups
 * (random order, dependent, misses), gang lookups, full walk, tags, tagged
 * gang lookups and walks, delete; a second build times insert with preload.
 * --ops chooses among them (options.ops); the first build and the memory
 * figures taken after it are always measured.
 * Times are CPU time of the measuring thread (see clock_ns()).
 * Passes are interleaved across peers (A B C A B C ...), after one discarded
 * warm-up pass per peer; every result is also checked (counts, hits,
 * misses), so a broken peer or harness stops the run instead of producing
 * a fast number.
 */
#include "config.h"

#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Keeps the compiler from dropping the timed work. */
static volatile uintptr_t sink;

/*
 * The clock of single-thread measurements: the measuring thread's CPU time,
 * so that time the thread spends preempted by other programs (this machine
 * is shared) is not counted.  Cache and memory-bandwidth interference from
 * them still is.
 */
static double clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
#define now_ns() clock_ns()

/* Row names, in print order. */
#define OP_INSERT "insert"
#define OP_INSERT_PRELOAD "insert+preload"
#define OP_HIT "lookup hit"
#define OP_DEP "lookup dependent"
#define OP_MISS "lookup miss"
#define OP_GANG16 "gang16"
#define OP_GANG64 "gang64"
#define OP_SUCC1 "succ1"  /* the next item after a present key: a gang of 1 */
#define OP_PRED1 "pred1"  /* the item before a present key: the predecessor */
#define OP_WALK "walk"
#define OP_TAG_SET "tag set"
#define OP_TGANG8 "tagged gang16 1/8"
#define OP_TGANG64 "tagged gang16 1/64"
#define OP_TWALK8 "tagged walk 1/8"
#define OP_TWALK64 "tagged walk 1/64"
#define OP_DELETE "delete"
#define OP_MEM_OWN "memory (own)"
#define OP_MEM_NODES "memory (nodes)"
#define OP_MEM_ALLOC "memory (allocator)"
#define OP_MEM_BACKING "memory (backing)"

static void declare_rows(struct table *t)
{
	table_row(t, OP_INSERT, "ns/op", false);
	table_row(t, OP_INSERT_PRELOAD, "ns/op", false);
	table_row(t, OP_HIT, "ns/op", false);
	table_row(t, OP_DEP, "ns/op", false);
	table_row(t, OP_MISS, "ns/op", false);
	table_row(t, OP_GANG16, "ns/item", false);
	table_row(t, OP_GANG64, "ns/item", false);
	table_row(t, OP_SUCC1, "ns/op", false);
	table_row(t, OP_PRED1, "ns/op", false);
	table_row(t, OP_WALK, "ns/item", false);
	table_row(t, OP_TAG_SET, "ns/op", false);
	table_row(t, OP_TGANG8, "ns/item", false);
	table_row(t, OP_TGANG64, "ns/item", false);
	table_row(t, OP_TWALK8, "ns/item", false);
	table_row(t, OP_TWALK64, "ns/item", false);
	table_row(t, OP_DELETE, "ns/op", false);
	table_row(t, OP_MEM_OWN, "B/key", false);
	table_row(t, OP_MEM_NODES, "B/key", false);
	table_row(t, OP_MEM_ALLOC, "B/key", false);
	table_row(t, OP_MEM_BACKING, "B/key", false);
}

/* Record @v for peer @p in row @op (nothing during the warm-up pass). */
static void record(struct table *t, int p, const char *op, double v)
{
	if (t && !isnan(v))
		cell_add(&table_row(t, op, "", false)->c[p], v);
}

/* Lookups per measurement: the key set once, at least 2^16 (tiny sets are
 * cycled), at most o->max_ops. */
static size_t lookup_ops(const struct keyset *ks, const struct options *o)
{
	size_t ops = ks->n;

	if (ops < ((size_t)1 << 16))
		ops = (size_t)1 << 16;
	if (ops > o->max_ops)
		ops = o->max_ops;
	return ops;
}

static double time_inserts(const struct peer_ops *p, void *inst, const struct keyset *ks,
			   int (*insert)(void *, unsigned long, void *))
{
	double t0 = now_ns();
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (insert(inst, ks->ins_keys[i], ks->ins_items[i]) != 0)
			die("%s: insert of key %lu failed", p->name, ks->ins_keys[i]);
	return (now_ns() - t0) / (double)ks->n;
}

static double time_hits(const struct peer_ops *p, void *inst, const struct keyset *ks, size_t ops)
{
	uintptr_t sum = 0;
	size_t i, missing = 0;
	double t0;

	/* Warm-up: the upper levels and the TLB, untimed. */
	for (i = 0; i < ops / 8; i++)
		sum += (uintptr_t)p->lookup(inst, ks->lookup[i % ks->n]);
	t0 = now_ns();
	for (i = 0; i < ops; i++) {
		void *item = p->lookup(inst, ks->lookup[i % ks->n]);

		missing += item == NULL;
		sum += (uintptr_t)item;
	}
	t0 = now_ns() - t0;
	if (missing)
		die("%s: %zu lookups of present keys missed", p->name, missing);
	sink += sum;
	return t0 / (double)ops;
}

/* Each key comes from the item found before: no two lookups overlap. */
static double time_dependent(const struct peer_ops *p, void *inst, const struct keyset *ks,
			     size_t ops)
{
	unsigned long key = ks->chain_start;
	size_t i;
	double t0 = now_ns();

	for (i = 0; i < ops; i++) {
		void *item = p->lookup(inst, key);

		if (!item)
			die("%s: dependent lookup of key %lu missed", p->name, key);
		key = item_next_key(item);
	}
	t0 = now_ns() - t0;
	sink += key;
	return t0 / (double)ops;
}

static double time_misses(const struct peer_ops *p, void *inst, const struct keyset *ks,
			  size_t ops)
{
	size_t i, hits = 0;
	double t0;

	for (i = 0; i < ops / 8; i++)
		hits += p->lookup(inst, ks->miss[i % ks->nmiss]) != NULL;
	t0 = now_ns();
	for (i = 0; i < ops; i++)
		hits += p->lookup(inst, ks->miss[i % ks->nmiss]) != NULL;
	t0 = now_ns() - t0;
	if (hits)
		die("%s: lookups of absent keys found something", p->name);
	return t0 / (double)ops;
}

/* ns per item returned; start keys come from a small array read in order. */
static double time_gang(void *inst, const struct keyset *ks, size_t ops, unsigned int max,
			int tag, unsigned int (*gang)(void *, unsigned long, void **, unsigned int),
			unsigned int (*gang_tag)(void *, unsigned long, void **, unsigned int,
						 unsigned int))
{
	void *out[64];
	size_t calls = ops / max, i, items = 0;
	uintptr_t sum = 0;
	double t0;

	if (calls < 4096)
		calls = 4096;
	for (i = 0; i < NSTARTS; i++)
		sum += tag < 0 ? gang(inst, ks->starts[i], out, max)
			       : gang_tag(inst, ks->starts[i], out, max, (unsigned int)tag);
	t0 = now_ns();
	for (i = 0; i < calls; i++) {
		unsigned int n = tag < 0 ? gang(inst, ks->starts[i % NSTARTS], out, max)
					 : gang_tag(inst, ks->starts[i % NSTARTS], out, max,
						    (unsigned int)tag);

		items += n;
		if (n)
			sum += (uintptr_t)out[n - 1];
	}
	t0 = now_ns() - t0;
	sink += sum;
	return items ? t0 / (double)items : NAN;
}

/*
 * ns per search for the neighbour of a present key (the gang starts):
 * the next item, a gang lookup of one from the key after it (@pred
 * NULL), or the previous one, the predecessor of the key before it.
 * Answers are checked: a next item exists (a start has 64 keys after
 * it); a previous one lies below the start.
 */
static double time_neighbour(const struct peer_ops *p, void *inst, const struct keyset *ks,
			     size_t ops, bool pred)
{
	size_t calls = ops < 4096 ? 4096 : ops, i, found = 0;
	uintptr_t sum = 0;
	double t0;

	t0 = now_ns();
	for (i = 0; i < calls; i++) {
		unsigned long start = ks->starts[i % NSTARTS], key = start - 1;
		void *out = NULL;

		if (pred)
			out = start ? p->pred(inst, &key) : NULL;
		else
			p->gang(inst, start + 1, &out, 1);
		if (out) {
			found++;
			sum += (uintptr_t)out;
			if (pred && key >= start)
				die("%s: the predecessor of %lu is at %lu", p->name, start - 1, key);
		}
	}
	t0 = now_ns() - t0;
	sink += sum;
	if (!pred && found != calls)
		die("%s: a gang lookup of one after a start found nothing", p->name);
	return t0 / (double)calls;
}

/* Whole walks, repeated to last long enough on small sets. */
static double time_walk(const struct peer_ops *p, void *inst, const struct keyset *ks, int tag,
			size_t max_items)
{
	size_t want = max_items < ((size_t)1 << 18) ? max_items : ((size_t)1 << 18);
	size_t reps = ks->n >= want ? 1 : want / ks->n;
	size_t expect = tag < 0 ? ks->n : ks->ntag[tag];
	size_t i, count = 0, total = 0;
	double t0;

	sink += tag < 0 ? p->walk(inst, &count) : p->walk_tagged(inst, (unsigned int)tag, &count);
	t0 = now_ns();
	for (i = 0; i < reps; i++) {
		sink += tag < 0 ? p->walk(inst, &count)
				: p->walk_tagged(inst, (unsigned int)tag, &count);
		if (count != expect)
			die("%s: a %swalk saw %zu items, expected %zu", p->name,
			    tag < 0 ? "" : "tagged ", count, expect);
		total += count;
	}
	t0 = now_ns() - t0;
	return total ? t0 / (double)total : NAN;
}

static double time_tag_set(const struct peer_ops *p, void *inst, const struct keyset *ks)
{
	size_t i, done = 0;
	unsigned int tag;
	double t0 = now_ns();

	for (tag = 0; tag < 2; tag++)
		for (i = 0; i < ks->ntag[tag]; i++) {
			if (!p->tag_set(inst, ks->tag_keys[tag][i], tag))
				die("%s: tag_set of a present key failed", p->name);
			done++;
		}
	t0 = now_ns() - t0;
	return done ? t0 / (double)done : NAN;
}

static double time_deletes(const struct peer_ops *p, void *inst, const struct keyset *ks)
{
	double t0 = now_ns();
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (!p->remove(inst, ks->del[i]))
			die("%s: delete of present key %lu found nothing", p->name, ks->del[i]);
	return (now_ns() - t0) / (double)ks->n;
}

static void measure_memory(const struct peer_ops *p, int pi, void *inst, const struct keyset *ks,
			   double alloc0, struct table *t)
{
	double n = (double)ks->n, now;

	if (p->thread_done)
		p->thread_done(); /* the per-thread reserve is not the tree's */
	record(t, pi, OP_MEM_OWN, p->own_bytes(inst) / n);
	if (p->node_bytes)
		record(t, pi, OP_MEM_NODES, p->node_bytes(inst) / n);
	now = p->alloc_now();
	if (alloc0 >= 0 && now >= 0)
		record(t, pi, OP_MEM_ALLOC, (now - alloc0) / n);
	if (p->backing_bytes)
		record(t, pi, OP_MEM_BACKING, p->backing_bytes() / n);
}

/* One interleaving step: everything for peer @pi (t == NULL: warm-up). */
static void one_pass(int pi, const struct keyset *ks, const struct options *o, struct table *t)
{
	const struct peer_ops *p = peers[pi];
	size_t ops = lookup_ops(ks, o);
	double alloc0 = p->alloc_now();
	void *inst = p->create(ks);

	if (!inst)
		return; /* this peer cannot hold the key set */
	record(t, pi, OP_INSERT, time_inserts(p, inst, ks, p->insert));
	measure_memory(p, pi, inst, ks, alloc0, t);
	if (o->ops & OPS_HIT)
		record(t, pi, OP_HIT, time_hits(p, inst, ks, ops));
	if (o->ops & OPS_DEP)
		record(t, pi, OP_DEP, time_dependent(p, inst, ks, ops));
	if (o->ops & OPS_MISS)
		record(t, pi, OP_MISS, time_misses(p, inst, ks, ops));
	if (p->gang && (o->ops & OPS_GANG)) {
		record(t, pi, OP_GANG16, time_gang(inst, ks, ops, 16, -1, p->gang, NULL));
		record(t, pi, OP_GANG64, time_gang(inst, ks, ops, 64, -1, p->gang, NULL));
		if (p->pred) {
			record(t, pi, OP_SUCC1, time_neighbour(p, inst, ks, ops, false));
			record(t, pi, OP_PRED1, time_neighbour(p, inst, ks, ops, true));
		}
	}
	if (p->walk && (o->ops & OPS_WALK))
		record(t, pi, OP_WALK, time_walk(p, inst, ks, -1, o->max_ops));
	if (p->tag_set && (o->ops & OPS_TAGS)) {
		record(t, pi, OP_TAG_SET, time_tag_set(p, inst, ks));
		if (ks->ntag[TAG_8])
			record(t, pi, OP_TGANG8,
			       time_gang(inst, ks, ops / 8, 16, TAG_8, NULL, p->gang_tag));
		if (ks->ntag[TAG_64])
			record(t, pi, OP_TGANG64,
			       time_gang(inst, ks, ops / 64, 16, TAG_64, NULL, p->gang_tag));
		record(t, pi, OP_TWALK8, time_walk(p, inst, ks, TAG_8, o->max_ops));
		record(t, pi, OP_TWALK64, time_walk(p, inst, ks, TAG_64, o->max_ops));
	}
	if (o->ops & OPS_DELETE)
		record(t, pi, OP_DELETE, time_deletes(p, inst, ks));
	p->destroy(inst);

	if (p->insert_preload && (o->ops & OPS_PRELOAD)) {
		inst = p->create(ks);
		record(t, pi, OP_INSERT_PRELOAD, time_inserts(p, inst, ks, p->insert_preload));
		p->destroy(inst);
	}
	if (p->thread_done)
		p->thread_done();
}

void run_single(const struct keyset *ks, const struct options *o, struct table *t)
{
	int rep, pi;

	declare_rows(t);
	/* Warm-up (discarded): page faults, allocator arenas, code.  Skipped
	 * from 2^20 keys on, where one pass takes seconds (each read-only
	 * operation still has its own untimed warm-up). */
	if (o->warmup && ks->n < ((size_t)1 << 20))
		for (pi = 0; pi < NPEERS; pi++)
			if (o->enabled[pi])
				one_pass(pi, ks, o, NULL);
	for (rep = 0; rep < o->reps; rep++) {
		for (pi = 0; pi < NPEERS; pi++)
			if (o->enabled[pi])
				one_pass(pi, ks, o, t);
		if (o->verbose)
			fprintf(stderr, "  %s N=%zu: repetition %d/%d done\n", ks->name, ks->n,
				rep + 1, o->reps);
	}
}
