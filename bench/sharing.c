/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sharing.c - rcuradix-bench's named scenarios: what one thread loses to a
 * second thread that runs next to it on the other CPU, on the same tree or
 * on another one.  They measure cache lines the library shares between
 * threads (a root whose reader-side and writer-side fields share a line;
 * library-wide counters and the node pool written by every writer and by
 * the call_rcu worker), which the comparison tables cannot show.
 *
 * Each scenario has a measured thread pinned to CPU 0 and an "other" thread
 * pinned to CPU 1.  One repetition is a run of the measured thread alone
 * then a run with the other thread next to it, each for the same duration;
 * the repetitions are interleaved (alone, with, alone, with, ...) so that
 * slow drifts of the machine hit both alike.  Threads are created for each
 * run and wait on a barrier, so both start together.  The main thread
 * sleeps for the whole run: it takes no CPU from the pinned threads.
 *
 * A reader looks keys up in the key set's precomputed random order, one
 * urcu_memb_read_lock()/urcu_memb_read_unlock() per lookup, as an
 * application would.  A writer cycles through another random order of the
 * present keys and, for each, calls radix_tree_delete() then
 * radix_tree_insert() of the item it got back (each call takes the tree
 * lock itself): the key set is whole again after every pair.
 *
 * Roots are allocated on 256-byte boundaries (plus --root-offset) in
 * blocks of whole 256-byte units, so no other object shares a cache line,
 * or the pair of lines an adjacent-line prefetcher fetches, with a root:
 * only the root's own layout is measured.  The fields of the root are the
 * library's: nothing here depends on them.
 */
#define _GNU_SOURCE 1
#include "config.h"

#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rcuradix/radix-tree.h>
#include <urcu/uatomic.h>

#define ROOT_ALIGN 256
#define CHECK_EVERY 64 /* operations between two polls of the stop flag */

enum role { READER, WRITER };

struct scenario_spec {
	const char *name;
	const char *what;      /* one line for the table's title */
	enum role measured;    /* thread on CPU 0, on tree A */
	enum role other;       /* thread on CPU 1 */
	bool other_own_tree;   /* the other thread works on tree B */
	enum keyset_kind ks_a; /* keys of tree A */
	enum keyset_kind ks_b; /* keys of tree B */
	int log2_a, log2_b;    /* default sizes */
	const char *measured_name, *other_name;
	double target;         /* with / alone at least this; 0: none */
};

/*
 * Sparse 32-bit keys at 2^12: one key per 2^20 of the key space on average,
 * so a key has its leaf (64 keys), its level-2 node (2^12) and, mostly,
 * its level-3 node (2^18) to itself: a delete frees two or three nodes
 * through call_rcu and an insert allocates as many.  Dense keys fill their leaves: a delete frees no
 * node and an insert allocates none.  At 2^12 two sparse trees (about 5 MB
 * each) stay in the L3 next to each other.  Uniform 64-bit keys (the
 * compressed-node targets' scenario, --targets) share only the top levels:
 * the writer frees and allocates a chain of nodes per update while the
 * reader walks the same tree.
 */
static const struct scenario_spec specs[] = {
	{ "reader-next-to-writer",
	  "reader on CPU 0 and writer on CPU 1 on the same tree (root shared)",
	  READER, WRITER, false, KS_DENSE_RAND, KS_DENSE_RAND, 20, 20, "reader", "writer", 0.9 },
	{ "reader-next-to-writer-sparse64",
	  "reader on CPU 0 and writer on CPU 1 on the same tree of uniform 64-bit keys "
	  "(every update frees or allocates nodes)",
	  READER, WRITER, false, KS_SPARSE64, KS_SPARSE64, 16, 16, "reader", "writer", 0.8 },
	{ "reader-next-to-other-writer",
	  "reader on CPU 0, writer on CPU 1 on an identical tree of its own (nothing of the "
	  "tree shared)",
	  READER, WRITER, true, KS_DENSE_RAND, KS_DENSE_RAND, 20, 20, "reader", "writer", 0 },
	{ "reader-next-to-churning-writer",
	  "reader on CPU 0; writer on CPU 1 on a sparse tree of its own, freeing and "
	  "allocating nodes",
	  READER, WRITER, true, KS_DENSE_RAND, KS_SPARSE32, 20, 12, "reader", "writer", 0 },
	{ "writer-next-to-writer",
	  "two writers on two sparse trees (every delete frees nodes, every insert "
	  "allocates): library-wide counters and node pool shared",
	  WRITER, WRITER, true, KS_SPARSE32, KS_SPARSE32, 12, 12, "writer 0", "writer 1", 0 },
	{ "writer-next-to-writer-dense",
	  "two writers on two dense trees (no node allocated or freed): the control",
	  WRITER, WRITER, true, KS_DENSE_RAND, KS_DENSE_RAND, 20, 20, "writer 0", "writer 1", 0 },
};

#define NSPECS ((int)(sizeof(specs) / sizeof(specs[0])))

int scenario_count(void)
{
	return NSPECS;
}

const char *scenario_name(int i)
{
	return specs[i].name;
}

int scenario_by_name(const char *name)
{
	int i;

	for (i = 0; i < NSPECS; i++)
		if (strcmp(specs[i].name, name) == 0)
			return i;
	return -1;
}

/* log2 N of the trees: the scenario's own unless --scenario-size says. */
static int size_a(const struct scenario_spec *s, const struct options *o)
{
	return o->scen_log2 ? o->scen_log2 : s->log2_a;
}

static int size_b(const struct scenario_spec *s, const struct options *o)
{
	return o->scen_log2 ? o->scen_log2 : s->log2_b;
}

size_t scenario_size(int i, const struct options *o)
{
	return (size_t)1 << size_a(&specs[i], o);
}

/* ---- trees -------------------------------------------------------------- */

struct tree {
	struct radix_tree_root *root;
	const struct keyset *ks;
};

static void tree_build(struct tree *t, const struct keyset *ks, size_t offset)
{
	size_t size = (offset + sizeof(*t->root) + ROOT_ALIGN - 1) & ~(size_t)(ROOT_ALIGN - 1);
	char *block = aligned_alloc(ROOT_ALIGN, size);
	size_t i;

	if (!block)
		die("out of memory");
	memset(block, 0, size);
	t->root = (struct radix_tree_root *)(void *)(block + offset);
	t->ks = ks;
	radix_tree_init_flavor(t->root, GFP_KERNEL, &urcu_memb_flavor);
	for (i = 0; i < ks->n; i++)
		if (radix_tree_insert(t->root, ks->ins_keys[i], ks->ins_items[i]))
			die("scenario: insert of key %lu failed", ks->ins_keys[i]);
	rcuradix_thread_cache_flush();
}

static void tree_free(struct tree *t, size_t offset)
{
	radix_tree_destroy(t->root);
	/* Callbacks may refer to the root until the barrier. */
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	free((char *)t->root - offset);
	t->root = NULL;
}

/* ---- threads ------------------------------------------------------------ */

struct run {
	pthread_barrier_t start;
	int stop; /* set by the main thread; polled by the workers */
	bool pin;
};

struct worker {
	struct run *run;
	enum role role;
	struct tree *tree;
	int cpu;
	uint64_t ops; /* lookups, or updates (a delete or an insert each) */
	double ns, cpu_ns;
	pthread_t tid;
};

static volatile uintptr_t sink;

static uint64_t read_loop(struct worker *w)
{
	struct radix_tree_root *root = w->tree->root;
	const unsigned long *keys = w->tree->ks->lookup;
	size_t n = w->tree->ks->n, idx = 0;
	uint64_t ops = 0;
	uintptr_t sum = 0;

	while (!uatomic_read(&w->run->stop)) {
		int i;

		for (i = 0; i < CHECK_EVERY; i++) {
			urcu_memb_read_lock();
			sum += (uintptr_t)radix_tree_lookup(root, keys[idx]);
			urcu_memb_read_unlock();
			if (++idx == n)
				idx = 0;
		}
		ops += CHECK_EVERY;
	}
	sink += sum;
	return ops;
}

static uint64_t write_loop(struct worker *w)
{
	struct radix_tree_root *root = w->tree->root;
	const unsigned long *keys = w->tree->ks->del;
	size_t n = w->tree->ks->n, idx = 0;
	uint64_t ops = 0;

	while (!uatomic_read(&w->run->stop)) {
		int i;

		for (i = 0; i < CHECK_EVERY; i += 2) {
			unsigned long key = keys[idx];
			void *item;

			if (++idx == n)
				idx = 0;
			/* This thread is the tree's only writer: the key is present. */
			item = radix_tree_delete(root, key);
			if (!item || radix_tree_insert(root, key, item) != 0)
				die("scenario: delete + insert of key %lu failed", key);
		}
		ops += CHECK_EVERY;
	}
	return ops;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	double t0, cpu0;

	if (w->run->pin)
		pin_to_cpu(w->cpu);
	urcu_memb_register_thread();
	pthread_barrier_wait(&w->run->start);
	t0 = now_ns();
	cpu0 = thread_cpu_ns();
	w->ops = w->role == READER ? read_loop(w) : write_loop(w);
	w->ns = now_ns() - t0;
	w->cpu_ns = thread_cpu_ns() - cpu0;
	rcuradix_thread_cache_flush();
	urcu_memb_unregister_thread();
	return NULL;
}

static unsigned long nodes_freed(void)
{
	struct rcuradix_stats st;

	if (rcuradix_get_stats(&st, sizeof(st)))
		die("rcuradix_get_stats failed");
	return st.nodes_freed;
}

/* One run: @w[0] alone, or @w[0] and @w[1]; *freed_per_s: nodes the
 * library freed per second during the run. */
static void one_run(struct run *run, struct worker *w, int nthreads, double ms,
		    double *freed_per_s)
{
	struct timespec until;
	unsigned long freed0;
	double t0;
	int i;

	uatomic_set(&run->stop, 0);
	if (pthread_barrier_init(&run->start, NULL, (unsigned int)nthreads + 1))
		die("pthread_barrier_init failed");
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]))
			die("pthread_create failed");
	freed0 = nodes_freed();
	pthread_barrier_wait(&run->start);
	t0 = now_ns();
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(ms / 1e3);
	until.tv_nsec += (long)(fmod(ms, 1e3) * 1e6);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL))
		;
	uatomic_set(&run->stop, 1);
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].tid, NULL);
	*freed_per_s = (double)(nodes_freed() - freed0) / ((now_ns() - t0) / 1e9);
	pthread_barrier_destroy(&run->start);
}

static void put(struct table *t, const char *op, const char *unit, bool hb, double v)
{
	if (!isnan(v))
		cell_add(&table_row(t, op, unit, hb)->c[0], v);
}

/* Row names, in print order; the measured thread's rows come first. */
#define ROW_ALONE "alone"
#define ROW_WITH "with other"
#define ROW_RATIO "with / alone"
#define ROW_SHARE_ALONE "cpu share alone"
#define ROW_SHARE_WITH "cpu share with other"
#define ROW_CPU_RATIO "per cpu: with / alone"
#define ROW_OTHER "other thread"
#define ROW_OTHER_SHARE "other cpu share"
#define ROW_FREED_ALONE "nodes freed alone"
#define ROW_FREED_WITH "nodes freed with other"
#define ROW_LOAD "load average"

void run_scenario(int which, const struct options *o, struct table *t)
{
	const struct scenario_spec *s = &specs[which];
	struct keyset ks_a, ks_b;
	struct tree a, b;
	struct run run;
	bool pin = cpus_online() >= 2;
	double load[1];
	int rep;

	if (getloadavg(load, 1) == 1)
		put(t, ROW_LOAD, "1 min", false, load[0]);
	if (!pin)
		fprintf(stderr, "rcuradix-bench: one CPU online: scenario %s runs its two threads "
				"unpinned on it\n", s->name);
	memset(&run, 0, sizeof(run));
	run.pin = pin;
	if (keyset_make(&ks_a, s->ks_a, (size_t)1 << size_a(s, o), o->seed))
		die("cannot make the key set of %s", s->name);
	tree_build(&a, &ks_a, o->root_offset);
	if (s->other_own_tree) {
		if (keyset_make(&ks_b, s->ks_b, (size_t)1 << size_b(s, o), o->seed + 1))
			die("cannot make the key set of %s", s->name);
		tree_build(&b, &ks_b, o->root_offset);
	}
	urcu_memb_barrier();
	for (rep = 0; rep < o->scen_reps; rep++) {
		struct worker w[2];
		double alone, with, freed_alone, freed_with;

		memset(w, 0, sizeof(w));
		w[0] = (struct worker){ .run = &run, .role = s->measured, .tree = &a, .cpu = 0 };
		w[1] = (struct worker){ .run = &run, .role = s->other,
					.tree = s->other_own_tree ? &b : &a, .cpu = 1 };

		one_run(&run, w, 1, o->scen_ms, &freed_alone);
		alone = (double)w[0].ops / w[0].ns * 1e3;
		put(t, ROW_ALONE, "M/s", true, alone);
		put(t, ROW_SHARE_ALONE, "ratio", true, w[0].cpu_ns / w[0].ns);
		put(t, ROW_FREED_ALONE, "M/s", true, freed_alone / 1e6);
		{
			double alone_cpu = (double)w[0].ops / w[0].cpu_ns;

			one_run(&run, w, 2, o->scen_ms, &freed_with);
			with = (double)w[0].ops / w[0].ns * 1e3;
			put(t, ROW_WITH, "M/s", true, with);
			put(t, ROW_RATIO, "ratio", true, with / alone);
			put(t, ROW_SHARE_WITH, "ratio", true, w[0].cpu_ns / w[0].ns);
			put(t, ROW_CPU_RATIO, "ratio", true,
			    ((double)w[0].ops / w[0].cpu_ns) / alone_cpu);
			put(t, ROW_OTHER, "M/s", true, (double)w[1].ops / w[1].ns * 1e3);
			put(t, ROW_OTHER_SHARE, "ratio", true, w[1].cpu_ns / w[1].ns);
			put(t, ROW_FREED_WITH, "M/s", true, freed_with / 1e6);
		}
		if (o->verbose)
			fprintf(stderr, "  %s: repetition %d/%d: alone %.2f, with %.2f M/s\n",
				s->name, rep + 1, o->scen_reps, alone, with);
	}
	tree_free(&a, o->root_offset);
	keyset_free(&ks_a);
	if (s->other_own_tree) {
		tree_free(&b, o->root_offset);
		keyset_free(&ks_b);
	}
}

/* ---- output ------------------------------------------------------------- */

static double cell_max(const struct cell *c)
{
	double m = NAN;
	int i;

	for (i = 0; i < c->n; i++)
		if (isnan(m) || c->v[i] > m)
			m = c->v[i];
	return m;
}

static double med_of(const struct table *t, const char *op, const char *unit)
{
	const struct row *r = table_find(t, op, unit);

	return r && cell_ok(&r->c[0]) ? cell_median(&r->c[0]) : NAN;
}

static void line(const struct table *t, FILE *out, const char *label, const char *op,
		 const char *unit, const char *shown_unit)
{
	const struct row *r = table_find(t, op, unit);

	if (!r || !cell_ok(&r->c[0]))
		return;
	fprintf(out, "%-44s %-13s %9.3f   %.3f-%.3f\n", label, shown_unit,
		cell_median(&r->c[0]), minimum(r->c[0].v, (size_t)r->c[0].n),
		cell_max(&r->c[0]));
}

void scenario_print(int which, const struct options *o, const struct table *t, FILE *out)
{
	const struct scenario_spec *s = &specs[which];
	const char *mu = s->measured == READER ? "M lookups/s" : "M updates/s";
	const char *ou = s->other == READER ? "M lookups/s" : "M updates/s";
	const struct row *ratio = table_find(t, ROW_RATIO, "ratio");
	char label[96];

	fprintf(out, "\n== scenario %s: %s ==\n", s->name, s->what);
	fprintf(out, "tree A: %s, N = %zu", keyset_name(s->ks_a), (size_t)1 << size_a(s, o));
	if (s->other_own_tree)
		fprintf(out, "; tree B: %s, N = %zu", keyset_name(s->ks_b),
			(size_t)1 << size_b(s, o));
	fprintf(out, "; roots at offset %zu of a %d-byte boundary\n", o->root_offset, ROOT_ALIGN);
	fprintf(out, "%s on CPU 0 (tree A), %s on CPU 1 (tree %s)%s; repetitions: %d "
		     "(alone, with, alone, with, ...) of %.2f s per run\n",
		s->measured_name, s->other_name, s->other_own_tree ? "B" : "A",
		cpus_online() >= 2 ? ", pinned" : " (one CPU online: not pinned)", o->scen_reps,
		o->scen_ms / 1e3);
	fprintf(out, "lookup: urcu_memb_read_lock + radix_tree_lookup + urcu_memb_read_unlock; "
		     "update: radix_tree_delete or\nradix_tree_insert (a delete and an insert "
		     "per key, each taking the tree lock)\n");
	fprintf(out, "%-44s %-13s %9s   %s\n", "figure", "unit", "median", "min-max");
	snprintf(label, sizeof(label), "%s alone", s->measured_name);
	line(t, out, label, ROW_ALONE, "M/s", mu);
	snprintf(label, sizeof(label), "%s with %s", s->measured_name, s->other_name);
	line(t, out, label, ROW_WITH, "M/s", mu);
	if (ratio && cell_ok(&ratio->c[0]))
		fprintf(out, "%-44s %-13s %9.3f   %.3f-%.3f (per repetition)\n",
			"ratio with / alone (of the medians)", "ratio",
			med_of(t, ROW_WITH, "M/s") / med_of(t, ROW_ALONE, "M/s"),
			minimum(ratio->c[0].v, (size_t)ratio->c[0].n), cell_max(&ratio->c[0]));
	snprintf(label, sizeof(label), "%s", s->other_name);
	line(t, out, label, ROW_OTHER, "M/s", ou);
	snprintf(label, sizeof(label), "%s cpu share alone", s->measured_name);
	line(t, out, label, ROW_SHARE_ALONE, "ratio", "ratio");
	snprintf(label, sizeof(label), "%s cpu share with %s", s->measured_name, s->other_name);
	line(t, out, label, ROW_SHARE_WITH, "ratio", "ratio");
	snprintf(label, sizeof(label), "%s cpu share", s->other_name);
	line(t, out, label, ROW_OTHER_SHARE, "ratio", "ratio");
	line(t, out, "per cpu time: with / alone", ROW_CPU_RATIO, "ratio", "ratio");
	line(t, out, "nodes freed by call_rcu, alone", ROW_FREED_ALONE, "M/s", "M/s");
	line(t, out, "nodes freed by call_rcu, with", ROW_FREED_WITH, "M/s", "M/s");
	/* Both threads must have had their CPUs for the wall-clock ratio to
	 * measure the library: a thread that shares its CPU loses time, and
	 * one whose neighbour shares its CPU is disturbed less. */
	if (med_of(t, ROW_SHARE_ALONE, "ratio") < 0.9 || med_of(t, ROW_SHARE_WITH, "ratio") < 0.9 ||
	    med_of(t, ROW_OTHER_SHARE, "ratio") < 0.9)
		fprintf(out, "CPU share below 0.9: other programs took the CPUs (a scheduler that "
			     "shares CPU time\nbetween groups of processes gives two threads less "
			     "each than one); the wall-clock\nratio then measures the machine: read "
			     "the per cpu time ratio, and measure again\nwhen the machine is quiet\n");
	{
		double l = med_of(t, ROW_LOAD, "1 min");

		if (!isnan(l))
			fprintf(out, "load average (1 min) when the scenario started: %.2f\n", l);
	}
	if (s->target > 0) {
		double v = med_of(t, ROW_WITH, "M/s") / med_of(t, ROW_ALONE, "M/s");

		fprintf(out, "target: %s with / alone >= %.2f: %s\n", s->measured_name, s->target,
			isnan(v) ? "n/a" : v >= s->target ? "met" : "MISSED");
	}
}
