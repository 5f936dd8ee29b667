/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * random.c - randomized differential test: 10^6 mixed operations per key
 * distribution (dense, clustered, sparse 64-bit) against the sorted-array
 * model, with a printed seed.  After every batch the whole tree is compared
 * with the model (through gang lookups), sampled keys are looked up, and
 * radix_tree_verify() checks counts, emptiness, levels and minimal height.
 */
#include "helpers.h"
#include "model.h"

#include <errno.h>

T_SUITE(random);

#define OPS t_scaled(1000000)
#define BATCH 20000
#define POOL 4096

struct keygen {
	unsigned long pool[POOL];
};

enum dist { DENSE, CLUSTERED, SPARSE };

static void keygen_init(struct keygen *kg, struct t_rng *rng, enum dist d)
{
	unsigned int i;

	for (i = 0; i < POOL; i++) {
		switch (d) {
		case DENSE:
			kg->pool[i] = i * 2;  /* odd keys stay holes */
			break;
		case CLUSTERED:
			/* 64 runs of 64 keys at random bases below 2^40 */
			if (i % 64 == 0)
				kg->pool[i] = t_rand_below(rng, 1UL << 40) & ~63UL;
			else
				kg->pool[i] = kg->pool[i - 1] + 1;
			break;
		case SPARSE:
			kg->pool[i] = i < t_nr_special_keys ? t_special_keys[i] : t_rand(rng);
			break;
		}
	}
}

/* The whole tree, walked with gang lookups of random sizes, equals the model. */
static void compare_all(const struct model *m, struct t_rng *rng)
{
	void **slots[97];
	unsigned long indices[97];
	unsigned long next = 0;
	size_t pos = 0;

	for (;;) {
		unsigned int max = 1 + (unsigned int)t_rand_below(rng, 96);
		unsigned int n = radix_tree_gang_lookup_slot(&tree, slots, indices, next, max);

		for (unsigned int i = 0; i < n; i++, pos++) {
			cr_assert_lt(pos, m->n, "tree has more items than the model");
			cr_assert_eq(indices[i], m->e[pos].key, "key %zu: tree %#lx model %#lx", pos,
				     indices[i], m->e[pos].key);
			cr_assert_eq(*slots[i], m->e[pos].item);
		}
		if (n < max || indices[n - 1] == ULONG_MAX)
			break;
		next = indices[n - 1] + 1;
	}
	cr_assert_eq(pos, m->n, "tree has %zu items, model %zu", pos, m->n);
	t_verify(&tree);
}

static void differential(enum dist d, const char *name)
{
	struct t_rng rng;
	struct keygen kg;
	struct model m;
	void *results[64];

	t_rng_init(&rng, name);
	keygen_init(&kg, &rng, d);
	model_init(&m);
	for (unsigned long op = 1; op <= OPS; op++) {
		unsigned long key = kg.pool[t_rand_below(&rng, POOL)];
		unsigned int what = (unsigned int)t_rand_below(&rng, 100);

		if (d == DENSE && (what & 1))
			key |= 1;  /* now and then a key from a hole */
		if (what < 40) {
			struct titem *item = titem_new(key);
			int ret = radix_tree_insert(&tree, key, item);
			bool fresh = model_insert(&m, key, item);

			cr_assert_eq(ret, fresh ? 0 : -EEXIST, "insert(%#lx) = %d", key, ret);
			if (!fresh)
				titem_free(item);
		} else if (what < 75) {
			void *got = radix_tree_delete(&tree, key);
			void *want = model_delete(&m, key);

			cr_assert_eq(got, want, "delete(%#lx)", key);
			if (got)
				titem_free(got);
		} else if (what < 95) {
			struct model_entry *e = model_find(&m, key);

			cr_assert_eq(radix_tree_lookup(&tree, key), e ? e->item : NULL,
				     "lookup(%#lx)", key);
		} else {
			unsigned int max = (unsigned int)t_rand_below(&rng, 65);
			unsigned int n = radix_tree_gang_lookup(&tree, results, key, max);
			size_t pos = model_lower_bound(&m, key);
			size_t expect = m.n - pos < max ? m.n - pos : max;

			cr_assert_eq(n, expect, "gang(%#lx, %u)", key, max);
			for (unsigned int i = 0; i < n; i++)
				cr_assert_eq(results[i], m.e[pos + i].item);
		}
		if (op % BATCH == 0)
			compare_all(&m, &rng);
	}
	compare_all(&m, &rng);
	model_free(&m);
	t_finish(&tree);
}

Test(random, dense, .timeout = 120)
{
	differential(DENSE, "random.dense");
}

Test(random, clustered, .timeout = 120)
{
	differential(CLUSTERED, "random.clustered");
}

Test(random, sparse, .timeout = 120)
{
	differential(SPARSE, "random.sparse");
}
