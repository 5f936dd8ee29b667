// SPDX-License-Identifier: LGPL-2.1-or-later
// header-cxx.cc - <rcuradix/radix-tree.h> included alone in C++, with the
// static initialiser, iterator loops (the slot a plain variable, then a
// member reached through a pointer) and a call through a pointer.  Built
// with -Wold-style-cast: the header's macros and inline functions must not
// use C casts.  Speaks TAP.
#include <rcuradix/radix-tree.h>

#include <cstdio>

static RADIX_TREE(tree, GFP_KERNEL);

struct walker {
	void **slot;
	struct radix_tree_iter iter;
};

int main()
{
	static long items[3];
	int (*insert)(struct radix_tree_root *, unsigned long, void *) = radix_tree_insert;
	struct radix_tree_iter iter;
	void **slot;
	unsigned long seen = 0, seen_w = 0;
	struct walker walker_storage;
	struct walker *w = &walker_storage;
	bool ok = true;

	std::printf("1..1\n");
	radix_tree_lock(&tree);
	for (unsigned long i = 0; i < 3; i++)
		ok = ok && insert(&tree, i * 100, &items[i]) == 0;
	radix_tree_for_each_slot(slot, &tree, &iter, 0)
		seen += iter.index;
	ok = ok && seen == 300;
	radix_tree_for_each_slot(w->slot, &tree, &w->iter, 0)
		seen_w += w->iter.index + (*w->slot == &items[w->iter.index / 100]);
	ok = ok && seen_w == 303;
	for (unsigned long i = 0; i < 3; i++)
		ok = ok && radix_tree_delete(&tree, i * 100) == &items[i];
	radix_tree_unlock(&tree);
	radix_tree_destroy(&tree);
	std::printf("%s 1 - header alone in C++\n", ok ? "ok" : "not ok");
	return ok ? 0 : 1;
}
