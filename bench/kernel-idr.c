/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel-idr.c - the glue that turns the Linux kernel's own IDR and IDA
 * into a peer of bench/idr-bench: a shared object, libkidr.so, that holds
 * the kernel's lib/idr.c, lib/radix-tree.c and lib/xarray.c (and the
 * bitmap helpers of tools/lib and of the kernel's test harness) and exports
 * only the kidr_* and kida_* functions below.
 *
 * No kernel code is in this file or anywhere in this repository: the
 * kernel's files are GPL-2.0, extracted from Debian's linux-source-6.1
 * tarball and compiled at bench time, into the build directory, by
 * bench/kernel-idr.sh (`make bench-kernel-idr`).  This file is compiled
 * there too, against the kernel's headers and those of its userspace test
 * harness (tools/testing/radix-tree, tools/include), which map spinlocks
 * to pthread mutexes and RCU to liburcu's default flavor: urcu-memb in
 * liburcu 0.13, the benchmark's own flavor, so both run in one RCU domain
 * (one liburcu-memb.so in the process; the benchmark's threads register
 * once for both).
 *
 * What the harness leaves to its test program is here, written anew: the
 * slab (kmem_cache_create, kmem_cache_alloc_lru, kmem_cache_free) and
 * kmalloc()/kfree(), on the process's malloc(), which never fail a GFP_NOWAIT
 * allocation (the harness's do, to test the kernel's retry paths; a
 * kernel's slab seldom does), and which count the bytes of the objects
 * live (kidr_live_bytes()).  A kmem_cache object is constructed on every
 * allocation: malloc() cannot tell a constructed object from a new one.
 *
 * Names: the kernel defines idr_alloc(), radix_tree_insert() and the rest,
 * as librcuradix does.  Everything in libkidr.so is compiled with
 * -fvisibility=hidden and linked with a version script that exports
 * kidr_* and kida_* alone, and -Bsymbolic: the kernel's calls bind inside
 * the object, and idr-bench, which loads it with dlopen(RTLD_LOCAL), sees
 * no kernel name.
 *
 * Locking: the kernel's idr_alloc() and idr_remove() leave it to the
 * caller; kidr_alloc() and kidr_remove() take the IDR's own xa_lock
 * (idr_lock(): a pthread mutex here), as librcuradix takes its tree's
 * mutex, so two threads may call them.  kidr_find() is idr_find() inside
 * rcu_read_lock().  The IDA locks itself (xa_lock inside ida_alloc_range()
 * and ida_free()).
 */
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include <linux/gfp.h>
#include <linux/idr.h>
#include <linux/radix-tree.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "kernel-idr.h"

/* The harness's <linux/rcupdate.h> includes <urcu.h>: liburcu's default
 * flavor, which must be the benchmark's. */
#ifndef RCU_MEMBARRIER
#error "the kernel's RCU calls must go to urcu-memb, the flavor of idr-bench"
#endif

/* The kernel's node: 64 slots (generated/map-shift.h, bench/kernel-idr.sh),
 * as CONFIG_BASE_SMALL=0 kernels have them and as rcuradix's. */
#if XA_CHUNK_SHIFT != 6
#error "XA_CHUNK_SHIFT must be 6"
#endif

#ifndef KIDR_KERNEL_VERSION
#define KIDR_KERNEL_VERSION "6.1"
#endif

/* ---- what the harness's test program would define ----------------------- */

/* Read by the harness's call_rcu() wrapper (linux/radix-tree.h). */
int kmalloc_verbose;

/* Bytes of kernel objects allocated and not freed: the slab's objects at
 * their size, kmalloc() blocks at the size asked. */
static long live_bytes;

static void account(long bytes)
{
	__atomic_fetch_add(&live_bytes, bytes, __ATOMIC_RELAXED);
}

struct kmem_cache {
	const char *name;
	unsigned int size, align;
	void (*ctor)(void *);
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned int flags, void (*ctor)(void *))
{
	struct kmem_cache *c = calloc(1, sizeof(*c));

	(void)flags;
	if (!c)
		return NULL;
	c->name = name;
	c->size = size;
	c->align = align;
	c->ctor = ctor;
	return c;
}

void *kmem_cache_alloc_lru(struct kmem_cache *c, struct list_lru *lru, int gfp)
{
	void *p;

	(void)lru;
	if (c->align) {
		if (posix_memalign(&p, c->align, c->size))
			return NULL;
	} else {
		p = malloc(c->size);
		if (!p)
			return NULL;
	}
	if (c->ctor)
		c->ctor(p);
	else if ((unsigned int)gfp & __GFP_ZERO)
		memset(p, 0, c->size);
	account((long)c->size);
	return p;
}

void kmem_cache_free(struct kmem_cache *c, void *p)
{
	if (!p)
		return;
	account(-(long)c->size);
	free(p);
}

/* kmalloc(): the size asked in a 16-byte header (malloc()'s alignment
 * kept), so that kfree() can count it out. */
#define KM_HEADER 16

void *kmalloc(size_t size, gfp_t gfp)
{
	char *p = (gfp & __GFP_ZERO) ? calloc(1, size + KM_HEADER) : malloc(size + KM_HEADER);

	if (!p)
		return NULL;
	memcpy(p, &size, sizeof(size));
	account((long)size);
	return p + KM_HEADER;
}

void kfree(void *p)
{
	size_t size;

	if (!p)
		return;
	p = (char *)p - KM_HEADER;
	memcpy(&size, p, sizeof(size));
	account(-(long)size);
	free(p);
}

/* ---- the exported wrappers ---------------------------------------------- */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void kidr_init(void)
{
	radix_tree_init(); /* the node cache */
}

KIDR_API int kidr_abi(void)
{
	return KIDR_ABI;
}

/* The kernel release and its files: for the benchmark's header. */
KIDR_API const char *kidr_describe(void)
{
	return "Linux " KIDR_KERNEL_VERSION ": lib/idr.c, lib/radix-tree.c, lib/xarray.c, "
	       "XA_CHUNK_SHIFT 6";
}

/* Bytes of the kernel's objects live now, in every IDR and IDA of the
 * process (nodes freed through call_rcu() count until their grace period
 * has passed: urcu_memb_barrier() first). */
KIDR_API long kidr_live_bytes(void)
{
	return __atomic_load_n(&live_bytes, __ATOMIC_RELAXED);
}

KIDR_API void *kidr_new(void)
{
	struct idr *idr;

	pthread_once(&init_once, kidr_init);
	idr = malloc(sizeof(*idr));
	if (idr)
		idr_init(idr);
	return idr;
}

KIDR_API void kidr_destroy(void *h)
{
	struct idr *idr = h;

	idr_destroy(idr);
	free(idr);
}

/* The lowest free id >= 0 for @ptr, or a negative errno. */
KIDR_API long kidr_alloc(void *h, void *ptr)
{
	struct idr *idr = h;
	int id;

	idr_lock(idr);
	id = idr_alloc(idr, ptr, 0, 0, GFP_KERNEL);
	idr_unlock(idr);
	return id;
}

KIDR_API void *kidr_remove(void *h, unsigned long id)
{
	struct idr *idr = h;
	void *ptr;

	idr_lock(idr);
	ptr = idr_remove(idr, id);
	idr_unlock(idr);
	return ptr;
}

/* The calling thread is registered with the RCU flavor (urcu-memb). */
KIDR_API void *kidr_find(void *h, unsigned long id)
{
	void *ptr;

	rcu_read_lock();
	ptr = idr_find(h, id);
	rcu_read_unlock();
	return ptr;
}

KIDR_API void *kida_new(void)
{
	struct ida *ida;

	pthread_once(&init_once, kidr_init);
	ida = malloc(sizeof(*ida));
	if (ida)
		ida_init(ida);
	return ida;
}

KIDR_API void kida_destroy(void *h)
{
	ida_destroy(h);
	free(h);
}

/* The lowest free id >= 0, or a negative errno. */
KIDR_API long kida_alloc(void *h)
{
	return ida_alloc(h, GFP_KERNEL);
}

KIDR_API void kida_free(void *h, unsigned long id)
{
	ida_free(h, (unsigned int)id);
}
