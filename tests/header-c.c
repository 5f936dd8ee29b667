/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * header-c.c - <rcuradix/radix-tree.h> included alone, compiled as strict
 * C11, linked against the shared library: every exported function is
 * reached through a function pointer, as a program that dlsym()s or wraps
 * them would.  Speaks TAP.
 */
#include <rcuradix/radix-tree.h>

#include <stdio.h>

static RADIX_TREE(tree, GFP_KERNEL);

int main(void)
{
	int (*insert)(struct radix_tree_root *, unsigned long, void *) = radix_tree_insert;
	void *(*lookup)(const struct radix_tree_root *, unsigned long) = radix_tree_lookup;
	void *(*del)(struct radix_tree_root *, unsigned long) = radix_tree_delete;
	void (*destroy)(struct radix_tree_root *) = radix_tree_destroy;
	int (*empty)(const struct radix_tree_root *) = radix_tree_empty;
	static long item;
	int ok = 1;

	printf("1..1\n");
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
	return ok ? 0 : 1;
}
