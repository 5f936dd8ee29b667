/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlclose.c - a program may dlopen the library, use it, and dlclose it while
 * call_rcu callbacks that point into the library are still pending: the
 * library is linked -z nodelete, so dlclose() leaves it mapped and the
 * call_rcu worker never jumps into unmapped code.  Were it unmapped, this
 * test would crash in the worker thread once the grace period ends.
 *
 * Also documents Debian's jemalloc limitation: it uses initial-exec TLS, so
 * dlopen() of a library linked with it may fail with "cannot allocate
 * memory in static TLS block"; the workaround this test applies (re-running
 * itself) is GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384 (or
 * LD_PRELOAD of libjemalloc.so.2).  Speaks TAP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>

#define TUNABLE "glibc.rtld.optional_static_tls=16384"

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p) {
		printf("not ok 1 - dlsym(%s): %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *top = getenv("top_builddir");
	char path[4096];
	static long items[2000];
	struct radix_tree_root root;
	struct rcuradix_stats st;
	void *lib;

	(void)argc;
	snprintf(path, sizeof(path), "%s/lib/.libs/librcuradix.so", top ? top : ".");
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *tun = getenv("GLIBC_TUNABLES");

		if (strstr(dlerror(), "static TLS") && !(tun && strstr(tun, TUNABLE))) {
			/* The documented limitation: retry with the workaround. */
			setenv("GLIBC_TUNABLES", TUNABLE, 1);
			execv("/proc/self/exe", argv);
		}
		printf("1..1\nnot ok 1 - dlopen(%s) failed\n", path);
		return 1;
	}
	printf("1..1\n");
	{
		void (*init)(struct radix_tree_root *, gfp_t, const struct rcu_flavor_struct *) =
			sym(lib, "radix_tree_init_flavor");
		int (*insert)(struct radix_tree_root *, unsigned long, void *) =
			sym(lib, "radix_tree_insert");
		void *(*del)(struct radix_tree_root *, unsigned long) = sym(lib, "radix_tree_delete");
		int (*stats)(struct rcuradix_stats *, size_t) = sym(lib, "rcuradix_get_stats");
		unsigned long i;

		urcu_memb_register_thread();
		init(&root, GFP_KERNEL, &urcu_memb_flavor);
		for (i = 0; i < 2000; i++)
			if (insert(&root, i * 4099, &items[i]) != 0)
				return printf("not ok 1 - insert\n"), 1;
		for (i = 0; i < 2000; i++)
			if (del(&root, i * 4099) != &items[i])
				return printf("not ok 1 - delete\n"), 1;
		stats(&st, sizeof(st));
		if (st.nodes_pending == 0)
			return printf("not ok 1 - no callback pending: the test proves nothing\n"), 1;
	}
	/* Callbacks into the library are pending: unload it now. */
	if (dlclose(lib) != 0)
		return printf("not ok 1 - dlclose: %s\n", dlerror()), 1;
	/* Let the worker run anything still queued; a callback into the
	 * unmapped library would crash here. */
	urcu_memb_barrier();
	urcu_memb_unregister_thread();
	printf("ok 1 - dlclose with %lu node frees pending\n", st.nodes_pending);
	return 0;
}
