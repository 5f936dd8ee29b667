/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * malloc-check.c - built by tests/installed.sh from the installed package:
 * whose malloc does the program call, glibc's or jemalloc's?
 *
 *   malloc-check [glibc|jemalloc]   the expected one (default: glibc)
 *
 * A program linked with `pkg-config --libs rcuradix liburcu-memb` (the
 * shared library) must keep glibc's, although librcuradix uses jemalloc
 * inside; a static link of a jemalloc-backed librcuradix.a brings in
 * jemalloc's object that defines malloc next to mallocx, and the program's
 * malloc becomes jemalloc's.
 *
 * Checks (exit 1 if one fails):
 *  - the program mallocs 4 MiB; the expected allocator's own statistics
 *    count them (glibc: mallinfo2() in-use bytes; jemalloc: the calling
 *    thread's "thread.allocated"), and the other allocator's, if it is in
 *    the process, do not;
 *  - in a dynamically linked program, the malloc every call binds to
 *    (dlsym(RTLD_DEFAULT)) is the one libc.so.6 defines if glibc's is
 *    expected, another one if jemalloc's is;
 *  - the library works: a tree of 4096 keys is built and destroyed and
 *    every node counter returns to zero.
 * It prints where radix_tree_insert was loaded from, so that the script can
 * check that the staged library, not another copy, was used.
 */
#define _GNU_SOURCE
#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>

#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int mallctl_fn(const char *, void *, size_t *, void *, size_t);

/*
 * Each allocator's statistics call, reached by a weak reference: in a
 * static link it resolves only if that allocator's object is in the program
 * anyway (a weak reference pulls no archive member).  In a dynamic program
 * jemalloc may come in as librcuradix's dependency only, which the link
 * does not see: dlsym() finds it there.
 */
int mallctl(const char *, void *, size_t *, void *, size_t);
#pragma weak mallctl
#pragma weak mallinfo2

#define BLOCKS 64
#define BLOCK_SIZE 65536  /* below glibc's mmap threshold: counted in uordblks */
#define TOTAL ((long long)BLOCKS * BLOCK_SIZE)

static RADIX_TREE(tree, GFP_KERNEL);

static const char *object_of(void *addr)
{
	Dl_info info;

	return dladdr(addr, &info) && info.dli_fname ? info.dli_fname : "?";
}

static mallctl_fn *find_mallctl(void)
{
	if (mallctl)
		return mallctl;
	return (mallctl_fn *)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
}

/* glibc's bytes in use, or -1 if glibc's malloc is not in the program. */
static long long glibc_in_use(void)
{
	struct mallinfo2 mi;

	if (!mallinfo2)
		return -1;
	mi = mallinfo2();
	return (long long)(mi.uordblks + mi.hblkhd);
}

/* jemalloc's count of bytes this thread allocated, or -1 if unknown. */
static long long jemalloc_thread_allocated(mallctl_fn *ctl)
{
	uint64_t value;
	size_t len = sizeof(value);

	if (!ctl || ctl("thread.allocated", &value, &len, NULL, 0) != 0)
		return -1;
	return (long long)value;
}

/* Which allocator's statistics count the program's 4 MiB of malloc. */
static int malloc_goes_to(int want_jemalloc)
{
	mallctl_fn *ctl = find_mallctl();
	long long g0, g1, j0, j1;
	int glibc_counted, jemalloc_counted;
	void *blocks[BLOCKS];
	unsigned int i;

	printf("jemalloc: %s\n", ctl ? "in the process" : "not in the process");
	printf("glibc mallinfo2: %s\n", mallinfo2 ? "in the process" : "not in the process");
	g0 = glibc_in_use();
	j0 = jemalloc_thread_allocated(ctl);
	for (i = 0; i < BLOCKS; i++) {
		blocks[i] = malloc(BLOCK_SIZE);
		if (blocks[i])
			memset(blocks[i], 1, BLOCK_SIZE);
	}
	g1 = glibc_in_use();
	j1 = jemalloc_thread_allocated(ctl);
	for (i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	glibc_counted = g0 >= 0 && g1 - g0 >= TOTAL;
	jemalloc_counted = j0 >= 0 && j1 - j0 >= TOTAL;
	printf("around %lld bytes of malloc: glibc in use %lld -> %lld, "
	       "jemalloc thread.allocated %lld -> %lld\n", TOTAL, g0, g1, j0, j1);
	if (want_jemalloc ? jemalloc_counted && !glibc_counted
			  : glibc_counted && !jemalloc_counted)
		return 1;
	fprintf(stderr, "malloc-check: the program's malloc went to %s, not to %s\n",
		glibc_counted ? "glibc" : jemalloc_counted ? "jemalloc" : "neither statistic",
		want_jemalloc ? "jemalloc" : "glibc");
	return 0;
}

/* In a dynamic program: does every malloc call bind to libc.so.6's? */
static int malloc_binding(int want_jemalloc)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *global, *libc_malloc;
	const char *where;
	int is_glibc;

	if (!libc) {
		printf("malloc: libc.so.6 not loaded (a static program): binding not checked\n");
		return 1;
	}
	global = dlsym(RTLD_DEFAULT, "malloc");
	libc_malloc = dlsym(libc, "malloc");
	where = object_of(global);
	printf("malloc: %s\n", where);
	is_glibc = global && global == libc_malloc && strstr(where, "libc.so");
	if (is_glibc != !want_jemalloc) {
		fprintf(stderr, "malloc-check: malloc binds to %s, expected %s\n", where,
			want_jemalloc ? "another object than libc.so.6" : "libc.so.6");
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

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "glibc";
	int want_jemalloc, ok;

	if (strcmp(want, "glibc") && strcmp(want, "jemalloc")) {
		fprintf(stderr, "usage: malloc-check [glibc|jemalloc]\n");
		return 2;
	}
	want_jemalloc = !strcmp(want, "jemalloc");
	urcu_memb_register_thread();
	printf("librcuradix: %s\n", object_of((void *)(uintptr_t)radix_tree_insert));
	printf("expected malloc: %s\n", want);
	ok = malloc_goes_to(want_jemalloc);
	ok &= malloc_binding(want_jemalloc);
	ok &= library_works();
	urcu_memb_unregister_thread();
	printf("malloc-check: %s\n", ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
