/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlopen-check.c - built by tests/installed.sh: loads the installed
 * librcuradix (argv[1]) at run time, uses it, and unloads it with dlclose()
 * while the nodes it freed may still wait for a grace period.
 *
 * Exit status: 0 if everything worked; 2 if dlopen() failed (the message is
 * printed: with Debian's jemalloc it may be "cannot allocate memory in
 * static TLS block", see rcuradix(7)); 1 on any other failure.
 *
 * What makes dlclose() safe is that the library is never unmapped (it is
 * linked -z nodelete), so the call_rcu() callbacks it queued stay valid.
 * The check: after dlclose() the library is still mapped (dlopen with
 * RTLD_NOLOAD finds it), and urcu_memb_barrier() - which runs every
 * callback still queued - returns; a callback into unmapped code would
 * crash.
 */
#define _GNU_SOURCE
#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NR_KEYS 4096UL

struct api {
	void (*init_flavor)(struct radix_tree_root *, gfp_t, const struct rcu_flavor_struct *);
	int (*insert)(struct radix_tree_root *, unsigned long, void *);
	void *(*del)(struct radix_tree_root *, unsigned long);
	void (*destroy)(struct radix_tree_root *);
	int (*get_stats)(struct rcuradix_stats *, size_t);
	void (*flush)(void);
};

static int resolve(void *lib, struct api *api)
{
	/* dlsym returns object pointers; POSIX guarantees the conversion. */
	*(void **)&api->init_flavor = dlsym(lib, "radix_tree_init_flavor");
	*(void **)&api->insert = dlsym(lib, "radix_tree_insert");
	*(void **)&api->del = dlsym(lib, "radix_tree_delete");
	*(void **)&api->destroy = dlsym(lib, "radix_tree_destroy");
	*(void **)&api->get_stats = dlsym(lib, "rcuradix_get_stats");
	*(void **)&api->flush = dlsym(lib, "rcuradix_thread_cache_flush");
	return api->init_flavor && api->insert && api->del && api->destroy && api->get_stats &&
	       api->flush;
}

int main(int argc, char **argv)
{
	static long items[NR_KEYS];
	struct radix_tree_root tree;
	struct rcuradix_stats st;
	struct api api;
	unsigned long i, bad = 0;
	void *lib;

	if (argc != 2) {
		fprintf(stderr, "usage: dlopen-check /path/to/librcuradix.so\n");
		return 1;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("dlopen failed: %s\n", dlerror());
		return 2;
	}
	if (!resolve(lib, &api)) {
		fprintf(stderr, "dlopen-check: missing symbols\n");
		return 1;
	}
	urcu_memb_register_thread();
	api.init_flavor(&tree, GFP_KERNEL, &urcu_memb_flavor);
	for (i = 0; i < NR_KEYS; i++)
		bad += api.insert(&tree, i * 64, &items[i]) != 0;  /* one leaf per key */
	for (i = 0; i < NR_KEYS; i++)
		bad += api.del(&tree, i * 64) != &items[i];
	api.destroy(&tree);
	api.flush();
	api.get_stats(&st, sizeof(st));
	printf("nodes waiting for a grace period at dlclose: %lu\n", st.nodes_pending);
	if (dlclose(lib) != 0) {
		fprintf(stderr, "dlopen-check: dlclose: %s\n", dlerror());
		return 1;
	}
	if (!dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD)) {
		fprintf(stderr, "dlopen-check: the library was unmapped by dlclose "
				"(not linked -z nodelete?)\n");
		return 1;
	}
	urcu_memb_barrier();  /* crashes if a callback into the library was left */
	urcu_memb_unregister_thread();
	printf("dlopen-check: %s\n", bad ? "FAILED" : "ok");
	return bad ? 1 : 0;
}
