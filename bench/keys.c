/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * keys.c - the key sets of rcuradix-bench, generated from a fixed seed
 * before anything is timed: dense in order and shuffled, dense with holes,
 * clustered runs of 64, sparse 32-bit.  Each comes with its lookup and
 * deletion orders, keys that miss, gang start keys, keys to tag, and items
 * that chain the keys into one random cycle (for dependent lookups).  Also
 * built into bench/node-alloc-bench-*, whose --tree builds the same sets:
 * it needs nothing of rcuradix-bench but the RNG here and die(), now_ns().
 */
#include "config.h"

#include "bench.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[KS_COUNT] = {
	[KS_DENSE_SEQ] = "dense-seq",
	[KS_DENSE_RAND] = "dense-rand",
	[KS_HOLES] = "holes",
	[KS_CLUSTERED] = "clustered",
	[KS_SPARSE32] = "sparse32",
	[KS_SPARSE64] = "sparse64",
};

const char *keyset_name(enum keyset_kind kind)
{
	return names[kind];
}

int keyset_by_name(const char *name)
{
	int k;

	for (k = 0; k < KS_COUNT; k++)
		if (strcmp(names[k], name) == 0)
			return k;
	return -1;
}

/*
 * Uniform 32-bit keys cost about one 576-byte leaf plus part of an inner
 * node per key once N approaches 2^22: ~3 GB at 2^22, ~10 GB at 2^24.
 * Uniform 64-bit keys cost several KB per key (a radix tree without path
 * compression builds a chain of nearly empty nodes per key): ~1.2 GB at
 * 2^18, ~4.6 GB at 2^20, the largest size the compressed-node targets
 * (--targets) are defined at.
 */
size_t keyset_cap(enum keyset_kind kind)
{
	switch (kind) {
	case KS_SPARSE32:
		return (size_t)1 << 22;
	case KS_SPARSE64:
		return (size_t)1 << 20;
	default:
		return (size_t)1 << 30;
	}
}

void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = mix64(seed + 0x9e3779b97f4a7c15ULL) | 1;
}

void shuffle_ulong(unsigned long *a, size_t n, struct rng *r)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = (size_t)rng_below(r, i);
		unsigned long t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

static void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory (%zu bytes)", size);
	return p;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static bool sorted_contains(const unsigned long *s, size_t n, unsigned long key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid] < key)
			lo = mid + 1;
		else if (s[mid] > key)
			hi = mid;
		else
			return true;
	}
	return false;
}

/* Sort and drop duplicates; returns the new count. */
static size_t sort_unique(unsigned long *a, size_t n)
{
	size_t i, m = 0;

	qsort(a, n, sizeof(*a), cmp_ulong);
	for (i = 0; i < n; i++)
		if (m == 0 || a[i] != a[m - 1])
			a[m++] = a[i];
	return m;
}

/* The set itself, sorted ascending, in @keys (n entries). */
static void gen_sorted(enum keyset_kind kind, unsigned long *keys, size_t n, struct rng *r)
{
	size_t i, m;

	switch (kind) {
	case KS_DENSE_SEQ:
	case KS_DENSE_RAND:
		for (i = 0; i < n; i++)
			keys[i] = i;
		return;
	case KS_HOLES: {
		/* Partial Fisher-Yates over [0, 2N): the first N are the set. */
		unsigned long *all = xmalloc(2 * n * sizeof(*all));

		for (i = 0; i < 2 * n; i++)
			all[i] = i;
		for (i = 0; i < n; i++) {
			size_t j = i + (size_t)rng_below(r, 2 * n - i);
			unsigned long t = all[i];

			all[i] = all[j];
			all[j] = t;
		}
		memcpy(keys, all, n * sizeof(*keys));
		free(all);
		qsort(keys, n, sizeof(*keys), cmp_ulong);
		return;
	}
	case KS_CLUSTERED: {
		size_t runs = (n + 63) / 64;
		unsigned long *bases = xmalloc(runs * sizeof(*bases));

		/* Non-overlapping runs: draw bases, retry on a clash. */
		for (;;) {
			for (i = 0; i < runs; i++)
				bases[i] = rng_below(r, (1ULL << 40) - 64);
			qsort(bases, runs, sizeof(*bases), cmp_ulong);
			for (i = 1; i < runs && bases[i] - bases[i - 1] >= 64; i++)
				;
			if (i >= runs)
				break;
		}
		for (i = m = 0; i < runs && m < n; i++) {
			unsigned long k;

			for (k = 0; k < 64 && m < n; k++)
				keys[m++] = bases[i] + k;
		}
		free(bases);
		return;
	}
	case KS_SPARSE32:
	case KS_SPARSE64:
		m = 0;
		while (m < n) {
			for (i = m; i < n; i++)
				keys[i] = rng_next(r) >> (kind == KS_SPARSE32 ? 32 : 2);
			m = sort_unique(keys, n);
		}
		return;
	default:
		die("bad key set");
	}
}

static void gen_misses(struct keyset *ks, const unsigned long *sorted, struct rng *r)
{
	size_t i = 0;

	ks->nmiss = ks->n;
	ks->miss = xmalloc(ks->nmiss * sizeof(*ks->miss));
	while (i < ks->nmiss) {
		unsigned long k;

		switch (ks->kind) {
		case KS_DENSE_SEQ:
		case KS_DENSE_RAND:
			/* Just past the set: inside the tree's height for most N. */
			k = ks->n + rng_below(r, ks->n);
			break;
		case KS_HOLES:
			k = rng_below(r, 2 * ks->n);
			break;
		case KS_CLUSTERED:
			k = rng_below(r, 1ULL << 40);
			break;
		case KS_SPARSE64:
			k = rng_next(r) >> 2;
			break;
		default:
			k = rng_next(r) >> 32;
			break;
		}
		if (!sorted_contains(sorted, ks->n, k))
			ks->miss[i++] = k;
	}
}

int keyset_make(struct keyset *ks, enum keyset_kind kind, size_t n, uint64_t seed)
{
	struct rng r;
	unsigned long *sorted, *cycle;
	size_t i, t;

	memset(ks, 0, sizeof(*ks));
	if (n < 128 || n > keyset_cap(kind))
		return -1;
	rng_seed(&r, seed ^ ((uint64_t)kind << 56) ^ n);
	ks->kind = kind;
	ks->name = names[kind];
	ks->n = n;
	ks->dense = kind == KS_DENSE_SEQ || kind == KS_DENSE_RAND || kind == KS_HOLES;

	sorted = xmalloc(n * sizeof(*sorted));
	gen_sorted(kind, sorted, n, &r);
	ks->max_key = sorted[n - 1];

	/* The dependent-lookup cycle: a random order of the keys; each key's
	 * item names the key after it. */
	cycle = xmalloc(n * sizeof(*cycle));
	memcpy(cycle, sorted, n * sizeof(*cycle));
	shuffle_ulong(cycle, n, &r);
	ks->chain_start = cycle[0];
	ks->ins_keys = xmalloc(n * sizeof(*ks->ins_keys));
	ks->ins_items = xmalloc(n * sizeof(*ks->ins_items));
	if (kind == KS_DENSE_SEQ) {
		/* In key order: key i's successor comes from the cycle. */
		for (i = 0; i < n; i++)
			ks->ins_items[cycle[i]] = item_encode(cycle[(i + 1) % n]);
		for (i = 0; i < n; i++)
			ks->ins_keys[i] = i;
	} else {
		/* In the cycle's (random) order. */
		for (i = 0; i < n; i++) {
			ks->ins_keys[i] = cycle[i];
			ks->ins_items[i] = item_encode(cycle[(i + 1) % n]);
		}
	}
	free(cycle);

	ks->lookup = xmalloc(n * sizeof(*ks->lookup));
	memcpy(ks->lookup, sorted, n * sizeof(*ks->lookup));
	shuffle_ulong(ks->lookup, n, &r);
	ks->del = xmalloc(n * sizeof(*ks->del));
	memcpy(ks->del, sorted, n * sizeof(*ks->del));
	shuffle_ulong(ks->del, n, &r);

	gen_misses(ks, sorted, &r);

	/* Gang starts: present keys with at least 64 keys after them. */
	ks->nstarts = NSTARTS;
	ks->starts = xmalloc(NSTARTS * sizeof(*ks->starts));
	for (i = 0; i < NSTARTS; i++)
		ks->starts[i] = sorted[rng_below(&r, n - 64)];

	/* Tags: chosen by a hash of the key, so every peer tags the same keys
	 * and the densities hold in every region of the key space. */
	for (t = 0; t < 2; t++) {
		unsigned long mask = t == 0 ? 7 : 63;
		size_t m = 0;

		ks->tag_keys[t] = xmalloc(n * sizeof(*ks->tag_keys[t]));
		for (i = 0; i < n; i++)
			if ((mix64(ks->lookup[i] ^ 0x5bd1e995) & mask) == 0)
				ks->tag_keys[t][m++] = ks->lookup[i];
		ks->ntag[t] = m;
	}
	free(sorted);
	return 0;
}

void keyset_free(struct keyset *ks)
{
	free(ks->ins_keys);
	free(ks->ins_items);
	free(ks->lookup);
	free(ks->del);
	free(ks->miss);
	free(ks->starts);
	free(ks->tag_keys[0]);
	free(ks->tag_keys[1]);
	memset(ks, 0, sizeof(*ks));
}
