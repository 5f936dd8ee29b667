/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * header-c.c - <rcuradix/radix-tree.h> and <rcuradix/idr.h>, included
 * alone, compiled as strict C11, linked against the shared library: every
 * exported function is reached through a function pointer, as a program
 * that dlsym()s or wraps them would; the header's inline iterator
 * functions are also found with dlsym() in the library and walk a chunk;
 * an IDR defined statically hands out, finds and frees ids.  Speaks TAP.
 */
#include <rcuradix/radix-tree.h>
#include <rcuradix/idr.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* dlsym()'s object pointer into a function pointer without a cast that
 * -pedantic rejects (the POSIX idiom). */
#define LOOKUP_SYM(handle, fp, name) \
	(memcpy(&(fp), &(void *){ dlsym(handle, name) }, sizeof(fp)), (fp) != NULL)

/* The exported copies of the inline functions, used on keys 5 and 6. */
static int exported_inlines_walk(void)
{
	static RADIX_TREE(t, GFP_KERNEL);
	static long a, b;
	unsigned long (*iter_index)(const struct radix_tree_iter *);
	unsigned long (*iter_key)(const struct radix_tree_iter *, void **);
	void **(*next_slot)(void **, struct radix_tree_iter *, unsigned int);
	void **(*next_run)(void **, struct radix_tree_iter *, unsigned int);
	unsigned int (*tag_flags)(unsigned int);
	void **(*walk_chunk)(const struct radix_tree_root *, struct radix_tree_iter *, unsigned int,
			     void ***, unsigned long *);
	void **(*walk_step)(void **, struct radix_tree_iter *, unsigned int, void ***,
			    unsigned long *);
	void **end = NULL;
	unsigned long key = 0;
	/* The global scope: this program's own copies are static, so the
	 * names resolve to the library's exported definitions. */
	void *lib = dlopen(NULL, RTLD_NOW);
	struct radix_tree_iter iter;
	void **slot;
	int ok;

	ok = lib && LOOKUP_SYM(lib, iter_index, "radix_tree_iter_index") &&
	     LOOKUP_SYM(lib, iter_key, "radix_tree_iter_key") &&
	     LOOKUP_SYM(lib, next_slot, "radix_tree_next_slot") &&
	     LOOKUP_SYM(lib, next_run, "radix_tree_next_run") &&
	     LOOKUP_SYM(lib, tag_flags, "radix_tree_iter_tag_flags") &&
	     LOOKUP_SYM(lib, walk_chunk, "radix_tree_walk_chunk") &&
	     LOOKUP_SYM(lib, walk_step, "radix_tree_walk_step");
	if (!ok)
		return 0;
	radix_tree_lock(&t);
	ok &= radix_tree_insert(&t, 5, &a) == 0 && radix_tree_insert(&t, 6, &b) == 0;
	radix_tree_iter_init(&iter, 0);
	slot = radix_tree_next_chunk(&t, &iter, 0);
	ok &= slot && *slot == &a && iter_index(&iter) == 5 && iter_key(&iter, slot) == 5;
	slot = next_slot(slot, &iter, 0);
	ok &= slot && *slot == &b && iter_index(&iter) == 6 && iter_key(&iter, slot) == 6;
	ok &= next_slot(slot, &iter, 0) == NULL;       /* the end of the run and chunk */
	ok &= next_run(slot + 1, &iter, 0) == NULL;    /* no other run in the chunk */
	ok &= tag_flags(0) == RADIX_TREE_ITER_TAGGED;
	ok &= tag_flags(RADIX_TREE_MAX_TAGS) == radix_tree_iter_tag_flags(RADIX_TREE_MAX_TAGS);
	/* The loop macros' steps: the same two items, then the end. */
	radix_tree_iter_init(&iter, 0);
	slot = walk_chunk(&t, &iter, 0, &end, &key);
	ok &= slot && *slot == &a && key == 5 && iter.index == 5;
	slot = walk_step(slot, &iter, 0, &end, &key);
	ok &= slot && *slot == &b && key == 6 && iter.index == 6;
	ok &= walk_step(slot, &iter, 0, &end, &key) == NULL;
	radix_tree_delete(&t, 5);
	radix_tree_delete(&t, 6);
	radix_tree_unlock(&t);
	radix_tree_destroy(&t);
	dlclose(lib);
	return ok;
}

static RADIX_TREE(tree, GFP_KERNEL);
static DEFINE_IDR(ids);

/* The IDR through pointers: two ids, a reservation, an error pointer. */
static int idr_calls(void)
{
	int (*alloc)(struct idr *, void *, int, int, gfp_t) = idr_alloc;
	void *(*find)(const struct idr *, unsigned long) = idr_find;
	void *(*replace)(struct idr *, void *, unsigned long) = idr_replace;
	void *(*remove)(struct idr *, unsigned long) = idr_remove;
	static long a, b;
	int ok = 1;

	idr_lock(&ids);
	ok &= alloc(&ids, &a, 0, 0, GFP_KERNEL) == 0;
	ok &= alloc(&ids, NULL, 0, 0, GFP_KERNEL) == 1;
	ok &= find(&ids, 0) == &a && find(&ids, 1) == NULL;
	ok &= replace(&ids, &b, 1) == NULL && find(&ids, 1) == &b;
	ok &= rcuradix_is_err(replace(&ids, &b, 2)) &&
	      rcuradix_ptr_err(replace(&ids, &b, 2)) == rcuradix_ptr_err(rcuradix_err_ptr(-2));
	ok &= remove(&ids, 0) == &a && remove(&ids, 1) == &b && idr_is_empty(&ids);
	idr_unlock(&ids);
	idr_destroy(&ids);
	return ok;
}

int main(void)
{
	int (*insert)(struct radix_tree_root *, unsigned long, void *) = radix_tree_insert;
	void *(*lookup)(const struct radix_tree_root *, unsigned long) = radix_tree_lookup;
	void *(*del)(struct radix_tree_root *, unsigned long) = radix_tree_delete;
	void (*destroy)(struct radix_tree_root *) = radix_tree_destroy;
	int (*empty)(const struct radix_tree_root *) = radix_tree_empty;
	static long item;
	int ok = 1;

	printf("1..3\n");
	/* Single-threaded and unregistered is fine for lookups under the
	 * tree lock; the delete below frees a node through call_rcu, which
	 * liburcu-memb accepts from any thread. */
	radix_tree_lock(&tree);
	ok &= insert(&tree, 42, &item) == 0;
	ok &= lookup(&tree, 42) == &item;
	ok &= del(&tree, 42) == &item;
	ok &= empty(&tree) != 0;
	radix_tree_unlock(&tree);
	destroy(&tree);
	printf("%s 1 - header alone in C11; calls through pointers (%s)\n", ok ? "ok" : "not ok",
	       rcuradix_version());
	if (exported_inlines_walk()) {
		printf("ok 2 - the inline iterator functions are exported and walk a chunk\n");
	} else {
		printf("not ok 2 - the inline iterator functions are exported and walk a chunk\n");
		ok = 0;
	}
	if (idr_calls()) {
		printf("ok 3 - <rcuradix/idr.h>: a static IDR through pointers\n");
	} else {
		printf("not ok 3 - <rcuradix/idr.h>: a static IDR through pointers\n");
		ok = 0;
	}
	return ok ? 0 : 1;
}
