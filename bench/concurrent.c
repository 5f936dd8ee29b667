/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * concurrent.c - rcuradix-bench's concurrency scenarios, threads pinned one
 * per CPU (never more threads than CPUs): 1 reader; 2 readers (scaling =
 * aggregate / (2 x single)); 1 reader + 1 writer at full speed and with the
 * writer paced to 100K updates/s (interference = reader ns/op with the
 * writer / alone).  Readers look up random present keys (a lookup takes the
 * peer's read-side lock, as in the single-thread runs) and time one
 * operation in 64 with the TSC for p50/p99.  The writer deletes a random key
 * and re-inserts it, alternately; each delete or insert is one update.  The
 * main thread samples the bytes waiting for call_rcu every millisecond.
 * "cpu share" is a thread's CPU time over its wall time: below 1, it slept
 * (a lock) or was preempted (other load on the machine).  The "per cpu"
 * rows divide by CPU time instead of wall time: for threads that never
 * block (RCU readers, lock-free writers) they remove the preemption by
 * other programs; for the rwlock peer they hide its sleeping, so read them
 * only next to the wall-clock rows.
 */
#define _GNU_SOURCE 1
#include "config.h"

#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <urcu/uatomic.h>

#define SAMPLE_EVERY 64
#define MAX_SAMPLES ((size_t)1 << 20)

struct run {
	const struct peer_ops *p;
	void *inst;
	const struct keyset *ks;
	pthread_barrier_t start;
	int stop;           /* set by the main thread; read by workers */
	double writer_rate; /* updates per second; 0: full speed */
};

struct reader {
	struct run *run;
	int cpu;
	size_t first; /* where in ks->lookup this reader starts */
	uint64_t ops;
	double ns;
	double cpu_ns; /* CPU time the thread got: < ns if it was preempted */
	uint64_t *samples;
	size_t nsamples;
	pthread_t tid;
};

struct writer {
	struct run *run;
	int cpu;
	uint64_t ops;
	double ns;
	double cpu_ns;
	pthread_t tid;
};

static volatile uintptr_t sink;

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct run *run = r->run;
	const struct peer_ops *p = run->p;
	const unsigned long *keys = run->ks->lookup;
	size_t n = run->ks->n, idx = r->first % n;
	uint64_t ops = 0;
	uintptr_t sum = 0;
	double t0, cpu0;

	pin_to_cpu(r->cpu);
	urcu_memb_register_thread();
	pthread_barrier_wait(&run->start);
	t0 = now_ns();
	cpu0 = thread_cpu_ns();
	/* The stop flag is polled once per 64 operations; a relaxed load is
	 * enough, the main thread only needs us to stop eventually. */
	while (!uatomic_read(&run->stop)) {
		int i;

		if (r->nsamples < MAX_SAMPLES) {
			uint64_t c0 = tsc_begin();

			sum += (uintptr_t)p->lookup(run->inst, keys[idx]);
			r->samples[r->nsamples++] = tsc_end() - c0;
		} else {
			sum += (uintptr_t)p->lookup(run->inst, keys[idx]);
		}
		if (++idx == n)
			idx = 0;
		for (i = 1; i < SAMPLE_EVERY; i++) {
			sum += (uintptr_t)p->lookup(run->inst, keys[idx]);
			if (++idx == n)
				idx = 0;
		}
		ops += SAMPLE_EVERY;
	}
	r->ns = now_ns() - t0;
	r->cpu_ns = thread_cpu_ns() - cpu0;
	r->ops = ops;
	sink += sum;
	urcu_memb_unregister_thread();
	return NULL;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct run *run = w->run;
	const struct peer_ops *p = run->p;
	const unsigned long *keys = run->ks->del;
	size_t n = run->ks->n, idx = 0;
	double period_ticks = run->writer_rate > 0 ? tsc_per_ns() * 1e9 / run->writer_rate : 0;
	uint64_t ops = 0, c0;
	double t0, cpu0;

	pin_to_cpu(w->cpu);
	urcu_memb_register_thread();
	pthread_barrier_wait(&run->start);
	t0 = now_ns();
	cpu0 = thread_cpu_ns();
	c0 = tsc_begin();
	while (!uatomic_read(&run->stop)) {
		unsigned long key = keys[idx];
		void *item;

		if (++idx == n)
			idx = 0;
		item = p->remove(run->inst, key);
		ops++;
		if (period_ticks > 0)
			while ((double)(tsc_begin() - c0) < period_ticks * (double)ops)
				caa_cpu_relax();
		/* The pair always completes, so the set is whole at the end. */
		if (item && p->insert(run->inst, key, item) != 0)
			die("%s: writer re-insert of key %lu failed", p->name, key);
		ops++;
		if (period_ticks > 0)
			while ((double)(tsc_begin() - c0) < period_ticks * (double)ops &&
			       !uatomic_read(&run->stop))
				caa_cpu_relax();
	}
	w->ns = now_ns() - t0;
	w->cpu_ns = thread_cpu_ns() - cpu0;
	w->ops = ops;
	if (p->thread_done)
		p->thread_done();
	urcu_memb_unregister_thread();
	return NULL;
}

struct outcome {
	double reader_ns[2]; /* ns per lookup, per reader */
	double reader_mops;  /* aggregate lookups per microsecond (M/s) */
	double p50, p99;     /* ns, reader 0 */
	double cpu_share;    /* reader 0's CPU time / wall time */
	double reader_cpu_ns; /* reader 0's CPU ns per lookup */
	double writer_mops;  /* updates, M/s */
	double writer_cpu_share;
	double writer_cpu_mops; /* updates per CPU-microsecond of the writer */
	double pending_peak; /* bytes waiting for call_rcu */
};

/* Run one scenario: @nreaders readers, plus a writer if @writer. */
static void scenario(struct run *run, int nreaders, bool writer, double ms, struct outcome *out)
{
	struct reader rd[2];
	struct writer wr;
	int i, nthreads = nreaders + (writer ? 1 : 0);
	double t0, peak = 0;
	struct timespec tick = { 0, 1000000 };

	memset(out, 0, sizeof(*out));
	memset(rd, 0, sizeof(rd));
	memset(&wr, 0, sizeof(wr));
	uatomic_set(&run->stop, 0);
	pthread_barrier_init(&run->start, NULL, (unsigned int)nthreads + 1);
	for (i = 0; i < nreaders; i++) {
		rd[i].run = run;
		rd[i].cpu = i;
		rd[i].first = (size_t)i * (run->ks->n / 2);
		rd[i].samples = malloc(MAX_SAMPLES * sizeof(uint64_t));
		if (!rd[i].samples)
			die("out of memory");
		if (pthread_create(&rd[i].tid, NULL, reader_main, &rd[i]))
			die("pthread_create failed");
	}
	if (writer) {
		wr.run = run;
		wr.cpu = nreaders;
		if (pthread_create(&wr.tid, NULL, writer_main, &wr))
			die("pthread_create failed");
	}
	pthread_barrier_wait(&run->start);
	t0 = now_ns();
	while (now_ns() - t0 < ms * 1e6) {
		if (run->p->pending_bytes) {
			double b = run->p->pending_bytes(run->inst);

			if (b > peak)
				peak = b;
		}
		nanosleep(&tick, NULL);
	}
	/* Workers poll this flag; they exit at their next check. */
	uatomic_set(&run->stop, 1);
	for (i = 0; i < nreaders; i++)
		pthread_join(rd[i].tid, NULL);
	if (writer)
		pthread_join(wr.tid, NULL);
	pthread_barrier_destroy(&run->start);

	for (i = 0; i < nreaders; i++) {
		out->reader_ns[i] = rd[i].ns / (double)rd[i].ops;
		out->reader_mops += (double)rd[i].ops / rd[i].ns * 1e3;
	}
	out->cpu_share = rd[0].cpu_ns / rd[0].ns;
	out->reader_cpu_ns = rd[0].cpu_ns / (double)rd[0].ops;
	out->p50 = percentile_u64(rd[0].samples, rd[0].nsamples, 0.50) / tsc_per_ns();
	out->p99 = percentile_u64(rd[0].samples, rd[0].nsamples, 0.99) / tsc_per_ns();
	for (i = 0; i < nreaders; i++)
		free(rd[i].samples);
	if (writer) {
		out->writer_mops = (double)wr.ops / wr.ns * 1e3;
		out->writer_cpu_share = wr.cpu_ns / wr.ns;
		out->writer_cpu_mops = (double)wr.ops / wr.cpu_ns * 1e3;
	}
	out->pending_peak = peak;
}

static void put(struct table *t, int pi, const char *op, const char *unit, bool hb, double v)
{
	if (!isnan(v))
		cell_add(&table_row(t, op, unit, hb)->c[pi], v);
}

static void declare_rows(struct table *t)
{
	static const struct {
		const char *op, *unit;
		bool hb;
	} rows[] = {
		{ "1R lookup", "ns/op", false },
		{ "1R p50", "ns", false },
		{ "1R p99", "ns", false },
		{ "1R cpu share", "ratio", true },
		{ "1R lookup per cpu", "ns/op", false },
		{ "2R aggregate", "M/s", true },
		{ "2R scaling", "ratio", true },
		{ "1R+1W reader", "ns/op", false },
		{ "1R+1W reader", "M/s", true },
		{ "1R+1W p50", "ns", false },
		{ "1R+1W p99", "ns", false },
		{ "1R+1W cpu share", "ratio", true },
		{ "1R+1W reader per cpu", "ns/op", false },
		{ "1R+1W writer", "M/s", true },
		{ "1R+1W writer cpu share", "ratio", true },
		{ "1R+1W writer per cpu", "M/s", true },
		{ "1R+1W interference", "ratio", false },
		{ "1R+1W call_rcu peak", "KB", false },
		{ "1R+1W@100K reader", "ns/op", false },
		{ "1R+1W@100K p50", "ns", false },
		{ "1R+1W@100K p99", "ns", false },
		{ "1R+1W@100K writer", "M/s", true },
		{ "1R+1W@100K interf.", "ratio", false },
		{ "1R+1W@100K rcu peak", "KB", false },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		table_row(t, rows[i].op, rows[i].unit, rows[i].hb);
}

/* Row names of the two writer scenarios: reader, p50, p99, writer,
 * interference, call_rcu peak. */
static const char *const full_rows[6] = {
	"1R+1W reader", "1R+1W p50", "1R+1W p99",
	"1R+1W writer", "1R+1W interference", "1R+1W call_rcu peak",
};
static const char *const paced_rows[6] = {
	"1R+1W@100K reader", "1R+1W@100K p50", "1R+1W@100K p99",
	"1R+1W@100K writer", "1R+1W@100K interf.", "1R+1W@100K rcu peak",
};

static void writer_rows(struct table *t, int pi, const char *const name[6],
			const struct outcome *w, double alone_ns)
{
	put(t, pi, name[0], "ns/op", false, w->reader_ns[0]);
	if (name == full_rows)
		put(t, pi, name[0], "M/s", true, w->reader_mops);
	put(t, pi, name[1], "ns", false, w->p50);
	put(t, pi, name[2], "ns", false, w->p99);
	if (name == full_rows) {
		put(t, pi, "1R+1W cpu share", "ratio", true, w->cpu_share);
		put(t, pi, "1R+1W reader per cpu", "ns/op", false, w->reader_cpu_ns);
	}
	put(t, pi, name[3], "M/s", true, w->writer_mops);
	if (name == full_rows) {
		put(t, pi, "1R+1W writer cpu share", "ratio", true, w->writer_cpu_share);
		put(t, pi, "1R+1W writer per cpu", "M/s", true, w->writer_cpu_mops);
	}
	put(t, pi, name[4], "ratio", false, w->reader_ns[0] / alone_ns);
	put(t, pi, name[5], "KB", false, w->pending_peak / 1024);
}

void run_concurrent(const struct keyset *ks, const struct options *o, struct table *t)
{
	void *inst[NPEERS] = { NULL };
	int rep, pi, ncpu = cpus_online();
	size_t i;

	declare_rows(t);
	if (ncpu < 2) {
		fprintf(stderr, "rcuradix-bench: one CPU: concurrency runs skipped\n");
		return;
	}
	/* Every peer built once, then scenarios interleaved across peers. */
	for (pi = 0; pi < NPEERS; pi++) {
		if (!o->enabled[pi])
			continue;
		inst[pi] = peers[pi]->create(ks);
		if (!inst[pi])
			continue;
		for (i = 0; i < ks->n; i++)
			if (peers[pi]->insert(inst[pi], ks->ins_keys[i], ks->ins_items[i]))
				die("%s: insert failed", peers[pi]->name);
		if (peers[pi]->thread_done)
			peers[pi]->thread_done();
	}
	urcu_memb_barrier();
	for (rep = 0; rep < o->reps; rep++) {
		for (pi = 0; pi < NPEERS; pi++) {
			struct run run = { .p = peers[pi], .inst = inst[pi], .ks = ks };
			struct outcome one, two, w, w100;

			if (!inst[pi])
				continue;
			scenario(&run, 1, false, o->conc_ms, &one);
			put(t, pi, "1R lookup", "ns/op", false, one.reader_ns[0]);
			put(t, pi, "1R p50", "ns", false, one.p50);
			put(t, pi, "1R p99", "ns", false, one.p99);
			put(t, pi, "1R cpu share", "ratio", true, one.cpu_share);
			put(t, pi, "1R lookup per cpu", "ns/op", false, one.reader_cpu_ns);
			scenario(&run, 2, false, o->conc_ms, &two);
			put(t, pi, "2R aggregate", "M/s", true, two.reader_mops);
			put(t, pi, "2R scaling", "ratio", true, two.reader_mops / (2 * one.reader_mops));
			if (!(peers[pi]->caps & CAP_CONCURRENT_WRITER))
				continue;
			scenario(&run, 1, true, o->conc_ms, &w);
			writer_rows(t, pi, full_rows, &w, one.reader_ns[0]);
			run.writer_rate = 100e3;
			scenario(&run, 1, true, o->conc_ms, &w100);
			writer_rows(t, pi, paced_rows, &w100, one.reader_ns[0]);
		}
		if (o->verbose)
			fprintf(stderr, "  concurrency %s N=%zu: repetition %d/%d done\n", ks->name,
				ks->n, rep + 1, o->reps);
	}
	for (pi = 0; pi < NPEERS; pi++)
		if (inst[pi])
			peers[pi]->destroy(inst[pi]);
}
