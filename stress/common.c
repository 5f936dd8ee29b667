/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common.c - the torture program's plumbing, shared by the torture proper
 * (torture.c) and the regression scenarios (scenarios.c): the flavor table,
 * item allocation with poison-and-quarantine reclamation, error counting,
 * the seeded RNG and the clock, and the frame of every run: the watchdog,
 * the teardown and the SUMMARY line.  See torture.h.
 */
#include "config.h"

#include "torture.h"
#include "../tests/xorshift.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* ---- operation counts -------------------------------------------------- */

unsigned long tops_sum(const struct tops *o, unsigned long *sum)
{
	unsigned long all = 0;

	for (unsigned int k = 0; k < o->kinds; k++) {
		sum[k] = 0;
		for (unsigned int i = 0; i < o->threads; i++)
			sum[k] += tread((const unsigned long *)((const char *)o->first +
								i * o->stride) + k);
		all += sum[k];
	}
	return all;
}

/* " name=rate" of @o's kinds since @prev, which then takes the counts. */
static void tops_rates(const struct tops *o, unsigned long *prev, double dt)
{
	unsigned long now[TOPS_MAX_KINDS];

	tops_sum(o, now);
	for (unsigned int k = 0; k < o->kinds; k++) {
		printf(" %s=%.0f", o->names[k], (double)(now[k] - prev[k]) / dt);
		prev[k] = now[k];
	}
}

void tops_progress(double t, double dt, const struct tops *reads, const struct tops *writes)
{
	static unsigned long r0[TOPS_MAX_KINDS], w0[TOPS_MAX_KINDS];

	printf("t=%3.0fs reads/s:", t);
	tops_rates(reads, r0, dt);
	printf(" | writes/s:");
	tops_rates(writes, w0, dt);
}

void tops_format(char *buf, size_t size, const struct tops *reads, const unsigned long *r,
		 const struct tops *writes, const unsigned long *w)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int k = 0; k < reads->kinds && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, " %s=%lu", reads->names[k], r[k]);
	for (unsigned int k = 0; k < writes->kinds && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, " %s=%lu", writes->names[k], w[k]);
}

/* ---- readers ----------------------------------------------------------- */

#define TQS_EVERY 1024UL    /* QSBR readers: quiescent state every 1024 ops */
#define TIDLE_EVERY 65536UL /* readers go idle (QSBR: offline) this often */

void treader_pause(const struct tflavor *fl)
{
	if (fl->qsbr) {
		fl->rcu->read_quiescent_state();
	} else {
		fl->rcu->read_unlock();
		fl->rcu->read_lock();
	}
}

static void treader_idle(const struct tflavor *fl)
{
	struct timespec ts = { 0, 200000 };

	if (fl->qsbr)
		fl->rcu->thread_offline();
	nanosleep(&ts, NULL);
	if (fl->qsbr)
		fl->rcu->thread_online();
}

void treader_loop(const struct tflavor *fl, struct trng *rng, struct tbeat *beat,
		  const int *stop, bool yield, void (*op)(void *reader), void *reader)
{
	unsigned long n = 0, last_qs = 0;

	fl->rcu->register_thread();
	while (!uatomic_read(stop)) {
		unsigned int batch = 1 + (unsigned int)trand_below(rng, 8);

		fl->rcu->read_lock();
		for (unsigned int i = 0; i < batch; i++)
			op(reader);
		fl->rcu->read_unlock();
		n += batch;
		tcount(&beat->count);
		if (fl->qsbr && n - last_qs >= TQS_EVERY) {
			fl->rcu->read_quiescent_state();
			last_qs = n;
		}
		if (n % TIDLE_EVERY < batch)
			treader_idle(fl);
		if (yield)
			sched_yield();
	}
	fl->rcu->unregister_thread();
	uatomic_set(&beat->done, 1);
}

/* ---- a run: watchdog, teardown, SUMMARY --------------------------------- */

static bool tall_done(struct tbeat *const *beats, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!uatomic_read(&beats[i]->done))
			return false;
	return true;
}

/* Exit (status 3) if a thread's heartbeat stood still for TSTUCK_SECONDS:
 * @last and @since hold each heartbeat's last value and when it changed. */
static void tcheck_stuck(struct tbeat *const *beats, unsigned int n, unsigned long *last,
			 double *since, double now, double start)
{
	for (unsigned int i = 0; i < n; i++) {
		unsigned long count = tread(&beats[i]->count);

		if (count != last[i] || uatomic_read(&beats[i]->done)) {
			last[i] = count;
			since[i] = now;
			continue;
		}
		if (now - since[i] >= TSTUCK_SECONDS) {
			fprintf(stderr, "ERROR (seed %#" PRIx64 "): %s %u made no progress for %d s "
				"(livelock or deadlock) at t=%.0fs\n", tseed, beats[i]->role,
				beats[i]->idx, TSTUCK_SECONDS, now - start);
			printf("SUMMARY result=STUCK seed=%#" PRIx64 "\n", tseed);
			fflush(stdout);
			_exit(3);
		}
	}
}

void tmonitor(struct tbeat *const *beats, unsigned int n, double duration, int *stop,
	      void (*progress)(double t, double dt))
{
	unsigned long *last = calloc(n ? n : 1, sizeof(*last));
	double *since = calloc(n ? n : 1, sizeof(*since));
	double start = tnow(), prev = start, now = start;
	bool stopping = false;

	if (!last || !since) {
		fprintf(stderr, "torture: out of memory\n");
		exit(2);
	}
	for (unsigned int i = 0; i < n; i++)
		since[i] = start;
	while (!stopping || !tall_done(beats, n)) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		struct rcuradix_stats st;

		nanosleep(&ts, NULL);
		/* rcuradix_get_stats() keeps the highest nodes_pending it
		 * observes: sample it for SUMMARY's peak_nodes_pending. */
		rcuradix_get_stats(&st, sizeof(st));
		now = tnow();
		if (!stopping && (now - prev >= 1.0 || now - start >= duration)) {
			progress(now - start, now - prev);
			prev = now;
		}
		if (!stopping && now - start >= duration) {
			uatomic_set(stop, 1);
			stopping = true;
		}
		tcheck_stuck(beats, n, last, since, now, start);
	}
	free(last);
	free(since);
}

void tteardown(struct radix_tree_root *tree, const struct tflavor *fl)
{
	struct titem **items = NULL;
	size_t nr = 0, cap = 0;
	unsigned long first = 0;

	/* Every item still in the tree, by key: exact, no writer runs. */
	for (;;) {
		void **slots[64];
		unsigned long keys[64];
		unsigned int n = radix_tree_gang_lookup_slot(tree, slots, keys, first, 64);

		for (unsigned int i = 0; i < n; i++) {
			struct titem *item = *slots[i];

			/* A bad item is not ours to free. */
			if (titem_problem(item, keys[i])) {
				terror("teardown: key %#lx: %s", keys[i], titem_problem(item, keys[i]));
				continue;
			}
			if (nr == cap) {
				cap = cap ? 2 * cap : 1024;
				items = realloc(items, cap * sizeof(*items));
				if (!items) {
					fprintf(stderr, "torture: out of memory\n");
					exit(2);
				}
			}
			items[nr++] = item;
		}
		if (n < 64 || keys[n - 1] == ULONG_MAX)
			break;
		first = keys[n - 1] + 1;
	}
	radix_tree_destroy(tree);
	if (!radix_tree_empty(tree))
		terror("teardown: tree not empty after destroy");
	for (size_t i = 0; i < nr; i++)
		titem_free_now(items[i]);
	free(items);
	treclaim(fl);
}

void treclaim(const struct tflavor *fl)
{
	/* barrier() waits for every callback; it must not run inside a
	 * read-side section, which for QSBR means online. */
	if (fl->qsbr)
		fl->rcu->thread_offline();
	fl->rcu->barrier();
	if (fl->qsbr)
		fl->rcu->thread_online();
	titem_quarantine_flush();
	rcuradix_thread_cache_flush();
}

int tsummary(const struct tflavor *fl, double duration, const char *fmt, ...)
{
	unsigned long leaked_items = titem_allocated() - titem_freed();
	struct rcuradix_stats st;
	va_list ap;

	if (rcuradix_get_stats(&st, sizeof(st)))
		terror("end: rcuradix_get_stats failed");
	if (st.nodes_live || st.nodes_pending || st.nodes_reserved || st.backing_bytes)
		terror("end: nodes live %lu, pending %lu, reserved %lu, backing bytes %lu",
		       st.nodes_live, st.nodes_pending, st.nodes_reserved, st.backing_bytes);
	if (leaked_items)
		terror("end: %lu items allocated, %lu freed", titem_allocated(), titem_freed());
	printf("SUMMARY result=%s flavor=%s slots=%lu", terrors() ? "FAIL" : "PASS", fl->name,
	       (st.node_size - 64) / sizeof(void *));
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" seed=%#" PRIx64 " duration=%.1fs errors=%lu leaked_nodes=%lu leaked_items=%lu "
	       "peak_nodes_pending=%lu nodes_allocated=%lu\n", tseed, duration, terrors(),
	       st.nodes_live, leaked_items, st.nodes_pending_peak, st.nodes_allocated);
	fflush(stdout);
	return terrors() ? 1 : 0;
}
