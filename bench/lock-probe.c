/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lock-probe - what a writer that finds the tree lock taken pays, on this
 * machine (doc/performance.md, "How long a waiter spins").
 *
 * Table 1, the price of a sleep: one thread sleeps in FUTEX_WAIT on CPU 1,
 * another, on CPU 0, notes the time, sets the word and calls FUTEX_WAKE,
 * rounds apart long enough for the sleeper's CPU to go idle, as a waiter's
 * does.  Rows: the waker's FUTEX_WAKE call, the time from the note to the
 * sleeper running, and a membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) call
 * while the other thread sleeps (the call a writer makes before it sleeps
 * on the lock word).
 *
 * Table 2, the waits of two writers: the churn of idr-bench (remove a
 * random id of one's own, allocate the lowest free one) on an IDR of N
 * ids, half of them each thread's own: by one thread alone (the other
 * half stays), then by two threads pinned to CPUs 0 and 1,
 * every library call timed with the TSC (rdtsc without a fence: a fenced
 * read would keep the misses of one call from overlapping the next's, and
 * double a pair's time).  A call that took more than 1 us
 * waited for the lock (the waiter's first look is after 1 us); one over
 * 50 us, 200 us or 1 ms waited that long.  Pair costs are of pairs with no
 * wait: the first four after a wait, and those from the 32nd on.
 *
 * Run it against another build of the library with LD_LIBRARY_PATH.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rcuradix/idr.h>
#include <urcu/urcu-memb.h>
#include <x86intrin.h>

#include "bench.h"

/* util.c's tables name their columns through peers[]: this program prints
 * its own. */
const struct peer_ops *const peers[NPEERS];

/* ---- table 1: the price of a sleep -------------------------------------- */

struct wake_probe {
	int word;                /* 1: wake up; the sleeper sets it back to 0 */
	int acked;               /* set by the sleeper once it ran */
	double noted;            /* when the waker set the word (now_ns()) */
	double *to_running;      /* per round: the sleeper's now_ns() - noted */
	unsigned int rounds;
};

static long futex(int *word, int op, int value)
{
	return syscall(SYS_futex, word, op, value, NULL, NULL, 0);
}

static void *wake_sleeper(void *arg)
{
	struct wake_probe *w = arg;
	unsigned int i;

	pin_to_cpu(1);
	for (i = 0; i < w->rounds; i++) {
		while (!__atomic_load_n(&w->word, __ATOMIC_ACQUIRE))
			futex(&w->word, FUTEX_WAIT_PRIVATE, 0);
		w->to_running[i] = now_ns() - w->noted;
		__atomic_store_n(&w->word, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&w->acked, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void sleep_ns(long ns)
{
	struct timespec t = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

static void print_row(const char *what, double *v, unsigned int n)
{
	double sum = 0;
	unsigned int i;

	qsort(v, n, sizeof(*v), bench_cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	printf("%-44s %9.1f %9.1f %9.1f %9.1f\n", what, v[n / 2] / 1e3, sum / n / 1e3,
	       v[n * 9 / 10] / 1e3, v[n - 1] / 1e3);
}

static void wake_table(unsigned int rounds, long gap_ns)
{
	struct wake_probe w = { .rounds = rounds };
	double *wake = calloc(rounds, sizeof(*wake)), *barrier = calloc(rounds, sizeof(*barrier));
	bool have_membarrier;
	pthread_t thread;
	unsigned int i;

	w.to_running = calloc(rounds, sizeof(*w.to_running));
	if (!wake || !barrier || !w.to_running)
		die("out of memory");
	pin_to_cpu(0);
	if (pthread_create(&thread, NULL, wake_sleeper, &w))
		die("pthread_create failed");
	have_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
				  0) == 0;
	for (i = 0; i < rounds; i++) {
		double t0;

		sleep_ns(gap_ns);  /* the sleeper is asleep in FUTEX_WAIT by now */
		t0 = now_ns();
		if (have_membarrier)
			syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		barrier[i] = now_ns() - t0;
		w.noted = now_ns();
		__atomic_store_n(&w.word, 1, __ATOMIC_RELEASE);
		futex(&w.word, FUTEX_WAKE_PRIVATE, 1);
		wake[i] = now_ns() - w.noted;
		while (!__atomic_load_n(&w.acked, __ATOMIC_ACQUIRE))
			;
		__atomic_store_n(&w.acked, 0, __ATOMIC_RELAXED);
	}
	pthread_join(thread, NULL);
	printf("== the price of a sleep: %u rounds, %ld us apart, CPUs 0 and 1 ==\n", rounds,
	       gap_ns / 1000);
	printf("%-44s %9s %9s %9s %9s\n", "us", "median", "mean", "p90", "max");
	print_row("FUTEX_WAKE of a sleeper (the waker's call)", wake, rounds);
	print_row("from the wake to the sleeper running", w.to_running, rounds);
	if (have_membarrier)
		print_row("membarrier(PRIVATE_EXPEDITED), other asleep", barrier, rounds);
	else
		printf("%-44s (refused by this kernel)\n", "membarrier(PRIVATE_EXPEDITED)");
	free(wake);
	free(barrier);
	free(w.to_running);
}

/* ---- table 2: the waits of two writers ---------------------------------- */

#define WAIT_BUCKETS 4
static const double wait_over_us[WAIT_BUCKETS] = { 1, 50, 200, 1000 };

struct churner {
	struct idr *idr;
	unsigned int *own;       /* the ids this thread holds */
	size_t nr_own;
	size_t pairs;
	uint64_t seed;
	int cpu;
	pthread_barrier_t *start;
	pthread_t tid;
	double ticks_per_ns;
	/* results */
	unsigned long waits[WAIT_BUCKETS];
	uint64_t after_wait_ticks, after_wait_pairs;  /* pairs 1-4 after a wait */
	uint64_t steady_ticks, steady_pairs;          /* pairs 32 and on */
	double wall0, wall1;
};

/* Count a call of @ticks: 1 if it waited. */
static int count_wait(struct churner *ch, uint64_t ticks)
{
	double us = (double)ticks / ch->ticks_per_ns / 1e3;
	int b, waited = 0;

	for (b = 0; b < WAIT_BUCKETS; b++)
		if (us > wait_over_us[b]) {
			ch->waits[b]++;
			waited = 1;
		}
	return waited;
}

static void *churner_main(void *arg)
{
	struct churner *ch = arg;
	unsigned long since_wait = 0;
	struct rng r;
	size_t i;

	bench_thread_start(&r, ch->seed, ch->cpu, ch->start);
	ch->wall0 = now_ns();
	for (i = 0; i < ch->pairs; i++) {
		size_t k = rng_below(&r, ch->nr_own);
		uint64_t t0, t1, t2;
		void *item;
		int id, waited;

		t0 = __rdtsc();
		item = idr_remove(ch->idr, ch->own[k]);
		t1 = __rdtsc();
		if (item != &ch->own[k])
			die("lock-probe: removing id %u returned %p", ch->own[k], item);
		id = idr_alloc(ch->idr, item, 0, 0, GFP_KERNEL);
		t2 = __rdtsc();
		if (id < 0)
			die("lock-probe: idr_alloc() returned %d", id);
		ch->own[k] = (unsigned int)id;
		waited = count_wait(ch, t1 - t0);
		waited |= count_wait(ch, t2 - t1);
		if (waited) {
			since_wait = 0;
			continue;
		}
		if (since_wait < 4) {
			ch->after_wait_ticks += t2 - t0;
			ch->after_wait_pairs++;
		} else if (since_wait >= 32) {
			ch->steady_ticks += t2 - t0;
			ch->steady_pairs++;
		}
		since_wait++;
	}
	ch->wall1 = now_ns();
	urcu_memb_unregister_thread();
	return NULL;
}

/* One run of @threads churners on a fresh IDR of @n ids: prints its row. */
static void churn_row(unsigned int threads, size_t n, size_t pairs, uint64_t seed)
{
	struct churner ch[2];
	struct idr idr;
	pthread_barrier_t start;
	double first = 0, last = 0, ticks_per_ns = tsc_per_ns();
	unsigned long waits[WAIT_BUCKETS] = { 0 };
	uint64_t aw_ticks = 0, aw_pairs = 0, st_ticks = 0, st_pairs = 0;
	unsigned int t;
	size_t i;
	int b;

	idr_init(&idr);
	pthread_barrier_init(&start, NULL, threads);
	for (t = 0; t < 2; t++) {
		ch[t] = (struct churner){ .idr = &idr, .nr_own = n / 2, .pairs = pairs,
					  .seed = seed + t, .cpu = (int)t, .start = &start,
					  .ticks_per_ns = ticks_per_ns };
		ch[t].own = malloc(ch[t].nr_own * sizeof(*ch[t].own));
		if (!ch[t].own)
			die("out of memory");
	}
	/* Ids 0..n-1, dealt to two holders in turn: holder t gets t, t+2, ...
	 * One thread alone churns the first holder's, as each of two does. */
	for (i = 0; i < n / 2 * 2; i++) {
		struct churner *c = &ch[i % 2];
		int id = idr_alloc(&idr, &c->own[i / 2], 0, 0, GFP_KERNEL);

		if (id != (int)i)
			die("lock-probe: filling, idr_alloc() returned %d, expected %zu", id, i);
		c->own[i / 2] = (unsigned int)id;
	}
	for (t = 0; t < threads; t++)
		if (pthread_create(&ch[t].tid, NULL, churner_main, &ch[t]))
			die("pthread_create failed");
	for (t = 0; t < threads; t++) {
		pthread_join(ch[t].tid, NULL);
		if (!t || ch[t].wall0 < first)
			first = ch[t].wall0;
		if (ch[t].wall1 > last)
			last = ch[t].wall1;
		for (b = 0; b < WAIT_BUCKETS; b++)
			waits[b] += ch[t].waits[b];
		aw_ticks += ch[t].after_wait_ticks;
		aw_pairs += ch[t].after_wait_pairs;
		st_ticks += ch[t].steady_ticks;
		st_pairs += ch[t].steady_pairs;
	}
	printf("%-10u %9.1f %9.0f", threads, (last - first) / (double)(pairs * threads),
	       (double)waits[0] / threads);
	for (b = 1; b < WAIT_BUCKETS; b++)
		printf(" %9.0f", (double)waits[b] / threads);
	if (aw_pairs)
		printf(" %9.1f", (double)aw_ticks / ticks_per_ns / (double)aw_pairs);
	else
		printf(" %9s", "-");
	printf(" %9.1f\n", st_pairs ? (double)st_ticks / ticks_per_ns / (double)st_pairs : 0);
	for (t = 0; t < 2; t++) {
		for (i = 0; i < ch[t].nr_own; i++)
			if (idr_remove(&idr, ch[t].own[i]) != &ch[t].own[i])
				die("lock-probe: id %u lost its item", ch[t].own[i]);
		free(ch[t].own);
	}
	if (!idr_is_empty(&idr))
		die("lock-probe: the IDR is not empty at the end");
	idr_destroy(&idr);
	pthread_barrier_destroy(&start);
}

static void churn_table(unsigned int log2n, size_t pairs, uint64_t seed)
{
	size_t n = (size_t)1 << log2n;

	printf("\n== two writers on one tree lock: IDR churn, N = 2^%u, %zu pairs a thread ==\n",
	       log2n, pairs);
	printf("%-10s %9s %9s %9s %9s %9s %9s %9s\n", "threads", "ns/pair", "waits", ">50us",
	       ">200us", ">1ms", "1st-4th", ">=32nd");
	churn_row(1, n, pairs, seed);
	churn_row(2, n, pairs, seed);
	printf("ns/pair: wall time over all pairs.  waits (per thread): calls over 1 us, then\n"
	       "over 50 us, 200 us, 1 ms.  1st-4th, >=32nd: ns of a pair without a wait, among\n"
	       "the first four after one, and from the 32nd on (TSC, %.2f ticks/ns).\n",
	       tsc_per_ns());
}

int main(int argc, char **argv)
{
	unsigned int log2n = 20, rounds = 2000;
	size_t pairs = 2000000;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			log2n = 12;
			pairs = 20000;
			rounds = 50;
		} else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
			log2n = (unsigned int)atoi(argv[++i]);
			if (log2n < 4 || log2n > 24)
				die("--n: 4..24");
		} else if (!strcmp(argv[i], "--pairs") && i + 1 < argc) {
			pairs = (size_t)atol(argv[++i]);
		} else {
			fprintf(stderr, "usage: lock-probe [--quick] [--n LOG2] [--pairs P]\n");
			return 2;
		}
	}
	if (cpus_online() < 2)
		printf("(one CPU online: both threads share it)\n");
	urcu_memb_register_thread();
	wake_table(rounds, 200000);
	churn_table(log2n, pairs, 42);
	urcu_memb_unregister_thread();
	return 0;
}
