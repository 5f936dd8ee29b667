/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * malloc-check.c - built by tests/installed.sh from the installed package,
 * linked only with `pkg-config --libs rcuradix liburcu-memb`: the program's
 * malloc must still be glibc's, although librcuradix uses jemalloc inside.
 *
 * Checks (exit 1 if one fails):
 *  - the malloc every call in this process binds to (dlsym(RTLD_DEFAULT))
 *    is the one libc.so.6 defines, and dladdr() places it in libc.so.6;
 *  - if jemalloc is loaded (as the library's private dependency), its own
 *    per-thread counter does not move when the program mallocs 4 MiB:
 *    the program's allocations do not go to jemalloc;
 *  - the library works: a tree of 4096 keys is built and destroyed and
 *    every node counter returns to zero.
 * It prints where radix_tree_insert was loaded from, so that the script can
 * check that the staged library, not another copy, was used.
 */
#define _GNU_SOURCE
#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int mallctl_fn(const char *, void *, size_t *, void *, size_t);

static RADIX_TREE(tree, GFP_KERNEL);

static const char *object_of(void *addr)
{
	Dl_info info;

	return dladdr(addr, &info) && info.dli_fname ? info.dli_fname : "?";
}

static int malloc_is_glibc(void)
{
	void *global = dlsym(RTLD_DEFAULT, "malloc");
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *libc_malloc = libc ? dlsym(libc, "malloc") : NULL;
	const char *where = object_of(global);

	printf("malloc: %s\n", where);
	if (!global || global != libc_malloc || !strstr(where, "libc.so")) {
		fprintf(stderr, "malloc-check: malloc binds to %s, not to glibc\n", where);
		return 0;
	}
	return 1;
}

/* jemalloc's count of bytes this thread allocated, or -1 if unknown. */
static long long jemalloc_thread_allocated(mallctl_fn *mallctl)
{
	uint64_t value;
	size_t len = sizeof(value);

	if (mallctl("thread.allocated", &value, &len, NULL, 0) != 0)
		return -1;
	return (long long)value;
}

static int malloc_bypasses_jemalloc(void)
{
	mallctl_fn *mallctl = (mallctl_fn *)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
	long long before, after;
	void *blocks[64];
	unsigned int i;

	if (!mallctl) {
		printf("jemalloc: not loaded\n");
		return 1;
	}
	printf("jemalloc: loaded from %s\n", object_of((void *)(uintptr_t)mallctl));
	before = jemalloc_thread_allocated(mallctl);
	for (i = 0; i < 64; i++) {
		blocks[i] = malloc(65536);
		if (blocks[i])
			memset(blocks[i], 1, 65536);
	}
	after = jemalloc_thread_allocated(mallctl);
	for (i = 0; i < 64; i++)
		free(blocks[i]);
	if (before < 0) {
		printf("jemalloc: no thread.allocated statistic, not checked\n");
		return 1;
	}
	printf("jemalloc: thread.allocated %lld -> %lld around 4 MiB of malloc\n", before,
	       after);
	if (after - before >= 64 * 65536) {
		fprintf(stderr, "malloc-check: the program's malloc went to jemalloc\n");
		return 0;
	}
	return 1;
}

static int library_works(void)
{
	static long items[4096];
	struct rcuradix_stats st;
	unsigned long i, bad = 0;

	for (i = 0; i < 4096; i++)
		bad += radix_tree_insert(&tree, i * 3, &items[i]) != 0;
	for (i = 0; i < 4096; i++)
		bad += radix_tree_delete(&tree, i * 3) != &items[i];
	radix_tree_destroy(&tree);
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	rcuradix_get_stats(&st, sizeof(st));
	if (bad || st.nodes_live || st.nodes_pending || st.backing_bytes) {
		fprintf(stderr, "malloc-check: the library failed (%lu errors, %lu nodes)\n",
			bad, st.nodes_live);
		return 0;
	}
	return 1;
}

int main(void)
{
	int ok;

	urcu_memb_register_thread();
	printf("librcuradix: %s\n", object_of((void *)(uintptr_t)radix_tree_insert));
	ok = malloc_is_glibc();
	ok &= malloc_bypasses_jemalloc();
	ok &= library_works();
	urcu_memb_unregister_thread();
	printf("malloc-check: %s\n", ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
