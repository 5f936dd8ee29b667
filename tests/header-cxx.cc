// SPDX-License-Identifier: LGPL-2.1-or-later
// header-cxx.cc - <rcuradix/radix-tree.h> and <rcuradix/idr.h> included
// alone in C++, with the static initialisers, iterator loops (the slot a
// plain variable, then a member reached through a pointer), a call through
// a pointer, and the IDR's loops and error pointers.  Built with
// -Wold-style-cast: the headers' macros and inline functions must not use
// C casts.  Speaks TAP.
#include <rcuradix/radix-tree.h>
#include <rcuradix/idr.h>

#include <cstdio>

static RADIX_TREE(tree, GFP_KERNEL);
static DEFINE_IDR(ids);

static bool idr_in_cxx()
{
	static long items[3];
	void *entry;
	int id, sum = 0;
	unsigned long id_ul, tmp;
	bool ok = true;

	idr_lock(&ids);
	for (int i = 0; i < 3; i++)
		ok = ok && idr_alloc(&ids, &items[i], 0, 0, GFP_KERNEL) == i;
	idr_for_each_entry(&ids, entry, id)
		sum += id + (entry == &items[id]);
	idr_for_each_entry_ul(&ids, entry, tmp, id_ul)
		sum += static_cast<int>(id_ul);
	ok = ok && sum == 3 + 3 + 3;
	ok = ok && rcuradix_is_err(idr_replace(&ids, &items[0], 7)) &&
	     rcuradix_ptr_err(idr_replace(&ids, &items[0], 7)) == -2;
	for (int i = 0; i < 3; i++)
		ok = ok && idr_remove(&ids, static_cast<unsigned long>(i)) == &items[i];
	idr_unlock(&ids);
	idr_destroy(&ids);
	return ok && idr_is_empty(&ids);
}

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

	std::printf("1..2\n");
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
	bool idr_ok = idr_in_cxx();
	std::printf("%s 2 - <rcuradix/idr.h> in C++\n", idr_ok ? "ok" : "not ok");
	return ok && idr_ok ? 0 : 1;
}
