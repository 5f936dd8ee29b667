/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * abi-inline.c - a program built as a user of the reference release built
 * it, run against this build's library.  Its include path puts the
 * reference release's public header (abi/0.2.0/rcuradix/radix-tree.h)
 * first, so the walk macros, radix_tree_next_slot(), radix_tree_next_run(),
 * the walk steps and the root's static initialiser are compiled here from
 * that header: they read the struct radix_tree_iter fields this library's
 * radix_tree_next_chunk() fills and hand it a root laid out as that header
 * says.  abidiff sees none of this code.  Every walk must give the model's
 * keys and items, in order.  Speaks TAP.
 */
#define _GNU_SOURCE  /* RTLD_DEFAULT */
#include "config.h"

#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>
#include <urcu/pointer.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "xorshift.h"

enum walk { PLAIN, TAGGED, CONTIG, NEXT_SLOT, NEXT_SLOT_TAGGED, RESUME };

static RADIX_TREE(tree, GFP_KERNEL);  /* the reference header's layout */
static struct model m;
static int tests;
static int failed;

/* One walk's result: keys (iter.index), items, and whether every slot's
 * key (radix_tree_iter_key) agreed with iter.index. */
struct result {
	unsigned long *keys;
	void **items;
	size_t n, cap;
	int key_mismatch;
};

static void bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

static void add(unsigned long key, unsigned long tags)
{
	unsigned long *item;

	if (model_find(&m, key))
		return;
	item = malloc(sizeof(*item));
	if (!item)
		bail("out of memory");
	*item = key;
	if (radix_tree_insert(&tree, key, item) != 0 || !model_insert(&m, key, item))
		bail("insert failed");
	model_find(&m, key)->tags = tags;
	for (unsigned int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		if (((tags >> t) & 1) && radix_tree_tag_set(&tree, key, t) != item)
			bail("tag_set failed");
}

/* Record the current slot; false once the result is full (a walk longer
 * than the model). */
static int record(struct result *r, const struct radix_tree_iter *iter, void **slot)
{
	if (r->n == r->cap)
		return 0;
	if (radix_tree_iter_key(iter, slot) != radix_tree_iter_index(iter))
		r->key_mismatch = 1;
	r->keys[r->n] = radix_tree_iter_index(iter);
	r->items[r->n] = rcu_dereference(*slot);
	r->n++;
	return 1;
}

static void walk(enum walk how, unsigned long start, unsigned int tag, struct result *r)
{
	struct radix_tree_iter iter;
	void **slot;
	unsigned long seen = 0;

	r->n = 0;
	r->key_mismatch = 0;
	urcu_memb_read_lock();
	switch (how) {
	case PLAIN:
		radix_tree_for_each_slot(slot, &tree, &iter, start)
			if (!record(r, &iter, slot))
				break;
		break;
	case TAGGED:
		radix_tree_for_each_tagged(slot, &tree, &iter, start, tag)
			if (!record(r, &iter, slot))
				break;
		break;
	case CONTIG:
		radix_tree_for_each_contig(slot, &tree, &iter, start)
			if (!record(r, &iter, slot))
				break;
		break;
	case NEXT_SLOT:  /* the kernel's hand-written loop */
		for (slot = radix_tree_iter_init(&iter, start);
		     slot || (slot = radix_tree_next_chunk(&tree, &iter, 0));
		     slot = radix_tree_next_slot(slot, &iter, 0))
			if (!record(r, &iter, slot))
				break;
		break;
	case NEXT_SLOT_TAGGED:
		for (slot = radix_tree_iter_init(&iter, start);
		     slot || (slot = radix_tree_next_chunk(&tree, &iter,
							   radix_tree_iter_tag_flags(tag)));
		     slot = radix_tree_next_slot(slot, &iter, RADIX_TREE_ITER_TAGGED))
			if (!record(r, &iter, slot))
				break;
		break;
	case RESUME:  /* leaves the read-side section every 5 items */
		radix_tree_for_each_slot(slot, &tree, &iter, start) {
			if (!record(r, &iter, slot))
				break;
			if (++seen % 5 == 0) {
				slot = radix_tree_iter_resume(slot, &iter);
				urcu_memb_read_unlock();
				urcu_memb_read_lock();
			}
		}
		break;
	}
	urcu_memb_read_unlock();
}

/* The model's answer; false if the walk differs from it (described on
 * stdout as a TAP comment). */
static int agrees(enum walk how, unsigned long start, unsigned int tag, const struct result *r)
{
	size_t n = 0;

	for (size_t i = model_lower_bound(&m, start); i < m.n; i++) {
		if ((how == TAGGED || how == NEXT_SLOT_TAGGED) && !((m.e[i].tags >> tag) & 1))
			continue;
		if (how == CONTIG && m.e[i].key != start + n)
			break;
		if (n >= r->n || r->keys[n] != m.e[i].key || r->items[n] != m.e[i].item) {
			printf("# from %lu, tag %u: item %zu: key %lu, expected key %lu\n", start,
			       tag, n, n < r->n ? r->keys[n] : 0UL, m.e[i].key);
			return 0;
		}
		n++;
	}
	if (n != r->n) {
		printf("# from %lu, tag %u: %zu items, expected %zu\n", start, tag, r->n, n);
		return 0;
	}
	if (r->key_mismatch) {
		printf("# from %lu, tag %u: radix_tree_iter_key() differs from iter.index\n",
		       start, tag);
		return 0;
	}
	return 1;
}

static void check(int ok, const char *what)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++tests, what);
	if (!ok)
		failed = 1;
}

int main(void)
{
	static const char *const names[] = {
		[PLAIN] = "radix_tree_for_each_slot",
		[TAGGED] = "radix_tree_for_each_tagged, every tag",
		[CONTIG] = "radix_tree_for_each_contig",
		[NEXT_SLOT] = "radix_tree_next_chunk + radix_tree_next_slot",
		[NEXT_SLOT_TAGGED] = "radix_tree_next_chunk + radix_tree_next_slot, tagged",
		[RESUME] = "radix_tree_for_each_slot with radix_tree_iter_resume",
	};
	unsigned long starts[80];
	size_t nstarts = 0;
	uint64_t seed = 0x2b992ddfa23249d6ULL;
	struct result r;
	void *lib_step;

	urcu_memb_register_thread();
	model_init(&m);
	/* Dense runs with holes, across chunks of either node size; a run
	 * across 2^32; random keys at every height; the top of the key space. */
	for (unsigned long k = 0; k < 200; k++)
		if (k % 37 != 36)
			add(k, xorshift64s(&seed) & 0x1f);
	for (unsigned long k = 1000; k < 1000 + 3 * 64; k++)
		add(k, xorshift64s(&seed) & 0x1f);
	for (unsigned long k = (1UL << 32) - 70; k < (1UL << 32) + 70; k++)
		add(k, xorshift64s(&seed) & 0x1f);
	for (int i = 0; i < 500; i++) {
		unsigned long k = (unsigned long)xorshift64s(&seed);

		add(k >> (xorshift64s(&seed) % 64), xorshift64s(&seed) & 0x1f);
	}
	for (unsigned long k = ULONG_MAX - 130; k != 0; k++)
		add(k, xorshift64s(&seed) & 0x1f);

	static const unsigned long fixed[] = {
		0, 1, 35, 36, 37, 63, 64, 65, 199, 200, 999, 1000, 1063, 1064, 1191, 1192,
		(1UL << 32) - 71, (1UL << 32) - 1, 1UL << 32,
		ULONG_MAX - 131, ULONG_MAX - 64, ULONG_MAX - 1, ULONG_MAX,
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		starts[nstarts++] = fixed[i];
	while (nstarts + 2 <= sizeof(starts) / sizeof(starts[0])) {
		unsigned long k = m.e[xorshift64s(&seed) % m.n].key;

		starts[nstarts++] = k;
		starts[nstarts++] = k + 1;
	}

	r.cap = m.n;
	r.keys = malloc(r.cap * sizeof(*r.keys));
	r.items = malloc(r.cap * sizeof(*r.items));
	if (!r.keys || !r.items)
		bail("out of memory");

	printf("1..%d\n", RESUME + 2);
	/* The steps are this program's own code: its copy of an inline step
	 * is not the library's exported one. */
	lib_step = dlsym(RTLD_DEFAULT, "radix_tree_next_slot");
	check(lib_step && lib_step != (void *)&radix_tree_next_slot,
	      "the inline steps are compiled into the program, the library exports its own");
	for (enum walk how = PLAIN; how <= RESUME; how++) {
		unsigned int tags = how == TAGGED || how == NEXT_SLOT_TAGGED ? RADIX_TREE_MAX_TAGS : 1;
		int ok = 1;

		for (size_t s = 0; s < nstarts && ok; s++)
			for (unsigned int tag = 0; tag < tags && ok; tag++) {
				walk(how, starts[s], tag, &r);
				ok = agrees(how, starts[s], tag, &r);
			}
		check(ok, names[how]);
	}

	/* The walks changed nothing: every key still holds its item. */
	for (size_t i = 0; i < m.n; i++) {
		void *item = radix_tree_delete(&tree, m.e[i].key);

		if (item != m.e[i].item)
			bail("delete returned another item");
		free(item);
	}
	radix_tree_destroy(&tree);
	urcu_memb_barrier();
	free(r.keys);
	free(r.items);
	model_free(&m);
	urcu_memb_unregister_thread();
	return failed;
}
