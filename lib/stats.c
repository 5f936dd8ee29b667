/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats.c - per-thread node counters and rcuradix_get_stats().
 *
 * Each thread that counts anything gets a record in its TLS, linked into a
 * list of live records under rt_stats_lock the first time.  Only its thread
 * writes a record (relaxed atomic stores: a reader of the sums never sees a
 * torn word); rcuradix_get_stats() reads every record under the lock.  At
 * thread exit a pthread key destructor adds the record to rt_stats_exited
 * and unlinks it.  A destructor that runs later in the same exit (another
 * key's, draining the preload reserve) and counts again re-registers the
 * record, which re-arms the key: glibc then calls this destructor again.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "stats.h"

struct rt_stats_record {
	unsigned long v[RT_STAT_COUNT];
	struct rt_stats_record *prev, *next; /* W, R: rt_stats_lock */
	bool linked;                         /* W, R: its own thread */
};

static pthread_mutex_t rt_stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_stats_record *rt_stats_live;       /* W, R: rt_stats_lock */
static unsigned long rt_stats_exited[RT_STAT_COUNT]; /* W, R: rt_stats_lock */
static unsigned long rt_stats_pending_peak;          /* W, R: rt_stats_lock */

static __thread struct rt_stats_record rt_stats_self;
/* &rt_stats_self while it is linked, else NULL.  initial-exec: one load
 * from static TLS on every count instead of a __tls_get_addr() call (the
 * record itself is too large to claim static TLS in a dlopen()ed library). */
static __thread struct rt_stats_record *rt_stats_mine __attribute__((tls_model("initial-exec")));

static pthread_key_t rt_stats_key;
static pthread_once_t rt_stats_once = PTHREAD_ONCE_INIT;

static void rt_stats_thread_exit(void *arg)
{
	struct rt_stats_record *rec = arg;
	unsigned int i;

	rt_pthread_check(pthread_mutex_lock(&rt_stats_lock));
	for (i = 0; i < RT_STAT_COUNT; i++)
		rt_stats_exited[i] += rec->v[i];
	if (rec->prev)
		rec->prev->next = rec->next;
	else
		rt_stats_live = rec->next;
	if (rec->next)
		rec->next->prev = rec->prev;
	memset(rec->v, 0, sizeof(rec->v));
	rec->linked = false;
	rt_pthread_check(pthread_mutex_unlock(&rt_stats_lock));
	rt_stats_mine = NULL;  /* the destructor runs in the exiting thread */
}

static void rt_stats_key_create(void)
{
	rt_pthread_check(pthread_key_create(&rt_stats_key, rt_stats_thread_exit));
}

static __attribute__((noinline)) struct rt_stats_record *rt_stats_register(void)
{
	struct rt_stats_record *rec = &rt_stats_self;

	rt_pthread_check(pthread_once(&rt_stats_once, rt_stats_key_create));
	rt_pthread_check(pthread_mutex_lock(&rt_stats_lock));
	rec->prev = NULL;
	rec->next = rt_stats_live;
	if (rec->next)
		rec->next->prev = rec;
	rt_stats_live = rec;
	rt_pthread_check(pthread_mutex_unlock(&rt_stats_lock));
	rec->linked = true;
	rt_pthread_check(pthread_setspecific(rt_stats_key, rec));
	rt_stats_mine = rec;
	return rec;
}

void rt_stat_add(enum rt_stat stat, unsigned long delta)
{
	struct rt_stats_record *rec = rt_stats_mine;

	if (caa_unlikely(!rec))
		rec = rt_stats_register();
	/* Only this thread writes the word.  Atomic, so that a concurrent
	 * rcuradix_get_stats() never reads it torn; release, so that one that
	 * sees a callback's RT_STAT_UNQUEUED sees its RT_STAT_FREED too (see
	 * rt_stats_sum()). */
	__atomic_store_n(&rec->v[stat], rec->v[stat] + delta, __ATOMIC_RELEASE);
}

void rt_stats_prefork(void)
{
	rt_pthread_check(pthread_mutex_lock(&rt_stats_lock));
}

void rt_stats_postfork(void)
{
	rt_pthread_check(pthread_mutex_unlock(&rt_stats_lock));
}

/*
 * In the child, only the forking thread exists: every other record belongs
 * to a thread that will never count again or exit, and a thread the child
 * creates may get the same TLS address.  Fold those records into the
 * exited totals and keep the forking thread's alone in the list.
 */
void rt_stats_postfork_child(void)
{
	struct rt_stats_record *rec, *self = &rt_stats_self;
	unsigned int i;

	for (rec = rt_stats_live; rec; rec = rec->next) {
		if (rec == self)
			continue;
		for (i = 0; i < RT_STAT_COUNT; i++)
			rt_stats_exited[i] += rec->v[i];
	}
	rt_stats_live = NULL;
	if (self->linked) {
		self->prev = self->next = NULL;
		rt_stats_live = self;
	}
	rt_stats_postfork();
}

/*
 * The sums over exited and live threads (rt_stats_lock held).  In each
 * record RT_STAT_UNQUEUED is loaded first (acquire; the callback stores it
 * after RT_STAT_FREED, release): a node whose callback runs meanwhile is
 * counted freed whenever it is counted unqueued, so it may count as both
 * pending and freed, never as neither.
 */
static void rt_stats_sum(unsigned long *sum)
{
	const struct rt_stats_record *rec;
	unsigned int i;

	memcpy(sum, rt_stats_exited, sizeof(rt_stats_exited));
	for (rec = rt_stats_live; rec; rec = rec->next) {
		sum[RT_STAT_UNQUEUED] += __atomic_load_n(&rec->v[RT_STAT_UNQUEUED],
							 __ATOMIC_ACQUIRE);
		sum[RT_STAT_UNQUEUED_BYTES] +=
			__atomic_load_n(&rec->v[RT_STAT_UNQUEUED_BYTES], __ATOMIC_ACQUIRE);
		for (i = 0; i < RT_STAT_COUNT; i++)
			if (i != RT_STAT_UNQUEUED && i != RT_STAT_UNQUEUED_BYTES)
				sum[i] += __atomic_load_n(&rec->v[i], __ATOMIC_ACQUIRE);
	}
}

/* Pending, clamped: records are read one after the other, so a node
 * queued by a writer whose record was read before the worker's may count
 * unqueued and not queued. */
static unsigned long rt_pending(unsigned long queued, unsigned long unqueued)
{
	return queued >= unqueued ? queued - unqueued : 0;
}

RCURADIX_API int rcuradix_get_stats(struct rcuradix_stats *out, size_t size)
{
	unsigned long sum[RT_STAT_COUNT];
	struct rcuradix_stats all, *stats = &all;

	/* Callers built against the first layout know only the fields up to
	 * backing_bytes: they get those. */
	if (!out || size < offsetof(struct rcuradix_stats, bytes_allocated))
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	rt_pthread_check(pthread_mutex_lock(&rt_stats_lock));
	rt_stats_sum(sum);
	stats->nodes_pending = rt_pending(sum[RT_STAT_QUEUED], sum[RT_STAT_UNQUEUED]);
	if (stats->nodes_pending > rt_stats_pending_peak)
		rt_stats_pending_peak = stats->nodes_pending;
	stats->nodes_pending_peak = rt_stats_pending_peak;
	rt_pthread_check(pthread_mutex_unlock(&rt_stats_lock));
	stats->nodes_allocated = sum[RT_STAT_ALLOCATED];
	stats->nodes_freed = sum[RT_STAT_FREED];
	stats->nodes_live = stats->nodes_allocated - stats->nodes_freed;
	stats->nodes_reserved = sum[RT_STAT_RESERVED];
	stats->alloc_failures = sum[RT_STAT_FAILURES];
	stats->node_size = RT_NODE_SIZE;
	stats->backing_bytes = sum[RT_STAT_BACKING];
	stats->bytes_allocated = sum[RT_STAT_ALLOCATED_BYTES];
	stats->bytes_freed = sum[RT_STAT_FREED_BYTES];
	stats->bytes_live = stats->bytes_allocated - stats->bytes_freed;
	stats->bytes_reserved = sum[RT_STAT_RESERVED_BYTES];
	stats->bytes_pending = rt_pending(sum[RT_STAT_QUEUED_BYTES], sum[RT_STAT_UNQUEUED_BYTES]);
	memcpy(out, stats, size < sizeof(*stats) ? size : sizeof(*stats));
	if (size > sizeof(*stats))
		memset((char *)out + sizeof(*stats), 0, size - sizeof(*stats));
	return 0;
}
