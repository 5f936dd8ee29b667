/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common.c - the torture program's plumbing: the flavor table, item
 * allocation with poison-and-quarantine reclamation, error counting, the
 * seeded RNG and the clock.  See torture.h.
 */
#include "config.h"

#include "torture.h"
#include "../tests/xorshift.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

/* Declared here: <urcu/flavor.h> names only one flavor's structure, and the
 * public header declares urcu_memb_flavor. */
extern const struct rcu_flavor_struct urcu_qsbr_flavor;
extern const struct rcu_flavor_struct urcu_mb_flavor;
extern const struct rcu_flavor_struct urcu_bp_flavor;

static const struct tflavor tflavors[] = {
	{ "memb", &urcu_memb_flavor, false },
	{ "qsbr", &urcu_qsbr_flavor, true },
	{ "mb", &urcu_mb_flavor, false },
	{ "bp", &urcu_bp_flavor, false },
};

const struct tflavor *tflavor_find(const char *name)
{
	for (size_t i = 0; i < sizeof(tflavors) / sizeof(tflavors[0]); i++)
		if (strcmp(tflavors[i].name, name) == 0)
			return &tflavors[i];
	return NULL;
}

/* ---- items ------------------------------------------------------------- */

static unsigned long items_allocated, items_freed;

struct titem *titem_new(unsigned long id, unsigned long key, unsigned long generation)
{
	struct titem *item = malloc(sizeof(*item));

	if (!item) {
		fprintf(stderr, "torture: out of memory\n");
		abort();
	}
	item->key = key;
	item->magic = TI_LIVE;
	item->generation = generation;
	item->id = id;
	item->tags_now = 0;
	item->tags_ever = 0;
	/* Several threads allocate and the call_rcu worker frees. */
	uatomic_inc(&items_allocated);
	return item;
}

static void titem_poison(struct titem *item)
{
	/* Volatile stores: a reader racing with a premature free must see the
	 * poison, and the compiler must not drop stores to memory about to be
	 * freed. */
	CMM_STORE_SHARED(item->magic, TI_DEAD);
	CMM_STORE_SHARED(item->key, TI_POISON);
	CMM_STORE_SHARED(item->generation, TI_POISON);
	CMM_STORE_SHARED(item->id, TI_POISON);
	CMM_STORE_SHARED(item->tags_now, 0UL);
	CMM_STORE_SHARED(item->tags_ever, 0UL);
}

void titem_free_now(struct titem *item)
{
	titem_poison(item);
	free(item);
	uatomic_inc(&items_freed);
}

/*
 * Quarantine: poisoned items wait here before free(), so that memory a
 * buggy reader still uses is not immediately recycled into a fresh LIVE
 * item (which would hide the bug).  Callbacks of one flavor run on one
 * worker thread, but the lock keeps it correct for any number.
 */
#define QUARANTINE 4096
static struct titem *quarantine[QUARANTINE];
static unsigned long quarantine_next;
static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;

static void titem_free_cb(struct rcu_head *head)
{
	struct titem *item = caa_container_of(head, struct titem, rcu);
	struct titem *old;

	titem_poison(item);
	pthread_mutex_lock(&quarantine_lock);
	old = quarantine[quarantine_next % QUARANTINE];
	quarantine[quarantine_next++ % QUARANTINE] = item;
	pthread_mutex_unlock(&quarantine_lock);
	if (old) {
		free(old);
		uatomic_inc(&items_freed);
	}
}

void titem_free_rcu(const struct tflavor *fl, struct titem *item)
{
	/* Readers may hold the item until their read-side sections end. */
	fl->rcu->update_call_rcu(&item->rcu, titem_free_cb);
}

void titem_quarantine_flush(void)
{
	pthread_mutex_lock(&quarantine_lock);
	for (unsigned int i = 0; i < QUARANTINE; i++) {
		if (quarantine[i]) {
			free(quarantine[i]);
			quarantine[i] = NULL;
			uatomic_inc(&items_freed);
		}
	}
	pthread_mutex_unlock(&quarantine_lock);
}

unsigned long titem_allocated(void)
{
	return uatomic_read(&items_allocated);
}

unsigned long titem_freed(void)
{
	return uatomic_read(&items_freed);
}

const char *titem_problem(const void *p, unsigned long key)
{
	const struct titem *item = p;
	unsigned long magic;

	if (!p)
		return "NULL item";
	if ((uintptr_t)p & 1)
		return "internal node pointer returned as an item";
	if ((uintptr_t)p & 3)
		return "misaligned item pointer";
	/* Volatile loads: the callback may be poisoning it right now (which
	 * is exactly the bug this detects). */
	magic = CMM_LOAD_SHARED(item->magic);
	if (magic == TI_DEAD)
		return "DEAD item (reclaimed before a grace period)";
	if (magic != TI_LIVE)
		return "garbage item (bad magic: freed or torn)";
	if (CMM_LOAD_SHARED(item->key) == TI_POISON)
		return "poisoned item";
	if (CMM_LOAD_SHARED(item->key) != key)
		return "item carries another key";
	return NULL;
}

/* ---- errors ------------------------------------------------------------ */

#define MAX_REPORTED 25
static unsigned long nr_errors;
uint64_t tseed;

void terror(const char *fmt, ...)
{
	unsigned long n = uatomic_add_return(&nr_errors, 1);
	va_list ap;

	if (n > MAX_REPORTED)
		return;
	va_start(ap, fmt);
	flockfile(stderr);
	fprintf(stderr, "ERROR #%lu (seed %#" PRIx64 "): ", n, tseed);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (n == MAX_REPORTED)
		fprintf(stderr, "(further errors are counted, not printed)\n");
	funlockfile(stderr);
	va_end(ap);
}

unsigned long terrors(void)
{
	return uatomic_read(&nr_errors);
}

/* ---- RNG and clock ----------------------------------------------------- */

void trng_seed(struct trng *rng, uint64_t seed, uint64_t stream)
{
	/* splitmix64 of (seed, stream): distinct, never-zero thread streams. */
	uint64_t z = seed + (stream + 1) * 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	rng->s = z ? z : 1;
}

uint64_t trand(struct trng *rng)
{
	return xorshift64s(&rng->s);
}

uint64_t trand_below(struct trng *rng, uint64_t n)
{
	return n ? trand(rng) % n : 0;
}

double tnow(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
