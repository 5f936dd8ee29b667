/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * torture.h - shared by the torture program (torture.c) and its regression
 * scenarios (scenarios.c): the liburcu flavor table, the items readers
 * validate (key, magic, generation, tag flags; poisoned and quarantined when
 * freed), error reporting, a seeded RNG and small thread helpers.
 *
 * Only the public API is used (<rcuradix/radix-tree.h>, <rcuradix/idr.h>):
 * the program links the installed shared library, or the 8-slot test build
 * of the same sources.
 */
#ifndef RCURADIX_TORTURE_H
#define RCURADIX_TORTURE_H

#define _LGPL_SOURCE 1 /* inline rcu_dereference */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu/call-rcu.h>
#include <urcu/compiler.h>
#include <urcu/flavor.h>
#include <urcu/pointer.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>

#include <rcuradix/radix-tree.h>

/* ---- flavors ------------------------------------------------------------ */

/*
 * A flavor by name.  Everything goes through liburcu's own flavor structure
 * (read_lock, quiescent_state, offline/online, call_rcu, barrier), so one
 * program drives all four; @qsbr says whether threads must announce
 * quiescent states and go offline when idle.
 */
struct tflavor {
	const char *name;
	const struct rcu_flavor_struct *rcu;
	bool qsbr;
};

/* The flavor named @name (memb, qsbr, mb, bp), or NULL. */
const struct tflavor *tflavor_find(const char *name);

/* ---- items ------------------------------------------------------------- */

#define TI_LIVE 0x4c495645UL    /* "LIVE": published or about to be */
#define TI_DEAD 0x44454144UL    /* "DEAD": reclaimed by the call_rcu callback */
#define TI_POISON 0x6b6b6b6b6b6b6b6bUL

/*
 * An item.  key, id and generation are written before the item is published
 * and never change while it is LIVE; tags_now/tags_ever change concurrently
 * (uatomic on the writer side, CMM_LOAD_SHARED on the reader side).
 */
struct titem {
	unsigned long key;
	unsigned long magic;
	unsigned long generation; /* per id, grows with every new item for it */
	unsigned long id;         /* the torture program's key number */
	unsigned long tags_now;   /* bit t: set before tagging t, cleared after clearing */
	unsigned long tags_ever;  /* bit t: ever set (sticky) */
	struct rcu_head rcu;
};

struct titem *titem_new(unsigned long id, unsigned long key, unsigned long generation);
/* Free an item no reader can ever have seen (never published, or after the
 * end of the run): poisoned, then freed. */
void titem_free_now(struct titem *item);
/* Free a published item after a grace period of @fl: the callback marks it
 * DEAD, poisons it and keeps it in a quarantine before free(), so a reader
 * that still holds it finds the poison rather than a recycled item. */
void titem_free_rcu(const struct tflavor *fl, struct titem *item);
/* Free what the quarantine still holds (after the flavor's barrier()). */
void titem_quarantine_flush(void);
unsigned long titem_allocated(void);
unsigned long titem_freed(void);

/* Why @p is not a valid item for @key, or NULL if it is one. */
const char *titem_problem(const void *p, unsigned long key);

/* ---- errors ------------------------------------------------------------ */

/* Count an error; the first ones are printed with the seed. */
void terror(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned long terrors(void);
/* The seed printed with every error message. */
extern uint64_t tseed;

/* ---- RNG --------------------------------------------------------------- */

/* xorshift64*: deterministic for a given seed. */
struct trng {
	uint64_t s;
};
void trng_seed(struct trng *rng, uint64_t seed, uint64_t stream);
uint64_t trand(struct trng *rng);
/* Uniform in [0, n) (0 if n is 0). */
uint64_t trand_below(struct trng *rng, uint64_t n);

/* ---- counters ---------------------------------------------------------- */

/* A counter written by one thread and read racily by the progress printer:
 * relaxed atomics keep each access whole without a locked instruction. */
static inline void tcount(unsigned long *c)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

static inline unsigned long tread(const unsigned long *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* Monotonic seconds. */
double tnow(void);

/*
 * The operation counters of one role's threads (readers or writers):
 * thread i's are the @kinds counters at (char *)@first + i * @stride,
 * counted with tcount(), and @names names them.  @first may be NULL when
 * @threads is 0.
 */
struct tops {
	const char *const *names;
	unsigned int kinds;
	const unsigned long *first;
	size_t stride;
	unsigned int threads;
};
#define TOPS_MAX_KINDS 16

/* @sum[k]: kind k's count over every thread, read racily (tread()).
 * Returns the sum over the kinds. */
unsigned long tops_sum(const struct tops *o, unsigned long *sum);

/* The start of a progress line, "t=Ns reads/s: name=rate ... | writes/s:
 * name=rate ...", rates since the previous call; the caller ends the
 * line.  One program prints one series of lines. */
void tops_progress(double t, double dt, const struct tops *reads, const struct tops *writes);

/* " name=count" for every kind of @reads (counts @r), then of @writes
 * (@w), into @buf of @size bytes, for SUMMARY. */
void tops_format(char *buf, size_t size, const struct tops *reads, const unsigned long *r,
		 const struct tops *writes, const unsigned long *w);

/* ---- a run: heartbeats, watchdog, teardown, SUMMARY -------------------- */

/* A thread that makes no progress this long is stuck (livelock or deadlock). */
#define TSTUCK_SECONDS 60

/*
 * A thread's heartbeat, read by the watchdog: @count grows (tcount) with
 * every operation or batch the thread completes; @done is set once it has
 * left its loop.  @role and @idx name it in the watchdog's message.
 */
struct tbeat {
	unsigned long count;
	int done;
	const char *role;
	unsigned int idx;
};

/*
 * tmonitor() - main's part of a run: for @duration seconds call @progress
 * once a second (@t seconds since the start, @dt since the previous call),
 * then set *@stop and wait until every thread of @beats is done.  All the
 * while, a thread whose heartbeat stays still for TSTUCK_SECONDS prints an
 * error and "SUMMARY result=STUCK", and the process exits with status 3
 * without joining (a stuck thread cannot be stopped).  Every 100 ms it
 * samples the library's statistics, whose nodes_pending_peak is the
 * highest nodes_pending a rcuradix_get_stats() call observed.
 */
void tmonitor(struct tbeat *const *beats, unsigned int n, double duration, int *stop,
	      void (*progress)(double t, double dt));

/*
 * treader_loop() - a reader thread's life: register with @fl, then until
 * *@stop read-side sections of 1 to 8 calls of @op(@reader) each, a
 * heartbeat on @beat after each.  QSBR readers report a quiescent state
 * every 1,024 operations; every 65,536 operations the reader idles for
 * 200 us (QSBR: offline, so that grace periods do not wait for it); @yield
 * gives the CPU away after every section.  Then it unregisters and marks
 * @beat done.  The batch sizes come from @rng.
 */
void treader_loop(const struct tflavor *fl, struct trng *rng, struct tbeat *beat,
		  const int *stop, bool yield, void (*op)(void *reader), void *reader);

/* treader_pause() - inside a reader's section: leave and re-enter it
 * (QSBR: report a quiescent state); the caller holds nothing read before. */
void treader_pause(const struct tflavor *fl);

/*
 * tteardown() - after the threads are joined: destroy @tree with its items
 * still in it (every valid item is then freed at once: no reader remains),
 * wait for every call_rcu callback of @fl (QSBR: offline meanwhile), empty
 * the quarantine and the calling thread's node reserve.  The caller is
 * registered with @fl.
 */
void tteardown(struct radix_tree_root *tree, const struct tflavor *fl);

/*
 * treclaim() - the end of tteardown(), for a caller that freed its items
 * itself: wait for every call_rcu callback of @fl (QSBR: offline
 * meanwhile), empty the quarantine and the calling thread's node reserve.
 */
void treclaim(const struct tflavor *fl);

/*
 * tsummary() - the last line of a run, after tteardown() and the caller's
 * unregistration: node counters and the item count must be back to zero
 * (else an error is counted); prints "SUMMARY result=PASS|FAIL flavor=...
 * slots=...", the caller's fields (@fmt, each " name=value"), then seed,
 * duration, errors, leaks, peak pending nodes and nodes allocated.
 * Returns the exit status: 0 without errors or leaks, else 1.
 */
int tsummary(const struct tflavor *fl, double duration, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- regression scenarios (scenarios.c) -------------------------------- */

struct tscenario_opts {
	const struct tflavor *fl;
	double duration;
	unsigned int readers;
	unsigned int gang;
	bool yield;
};

/* Run scenario @name; returns the process exit status, or -1 if unknown. */
int tscenario_run(const char *name, const struct tscenario_opts *opts);
/* The scenario names, for --help. */
extern const char *const tscenario_names[];

/* ---- the IDR mode (idr-torture.c) -------------------------------------- */

struct tidr_opts {
	const struct tflavor *fl;
	double duration;
	unsigned int readers, writers;
	unsigned long ids;  /* ids base .. base + ids - 1 shared by the writers */
	unsigned long base; /* idr_init_flavor()'s base */
	bool yield;
};

/* Run the IDR torture (--idr); returns the process exit status. */
int tidr_run(const struct tidr_opts *opts);

#endif
