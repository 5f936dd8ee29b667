/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idtable.c - the connection table of a threaded server: connections get the
 * lowest free id, worker threads find them by id without any lock, and a
 * closed connection is freed only when no worker can still be using it.
 *
 *   acceptor threads  open connections: idr_preload() outside the lock,
 *                     then idr_alloc() of the lowest free id with
 *                     GFP_NOWAIT (which cannot fail: the nodes were
 *                     preloaded); they also close connections: idr_remove(),
 *                     then free with call_rcu();
 *   worker threads    look connections up by id with idr_find() under RCU
 *                     and count a request on each one they find.
 *
 * Checks: every id handed out is the lowest free one (against a model kept
 * under the tree lock), every connection a worker finds carries its own id,
 * and no request is lost: the deferred free adds each connection's count to
 * a total only after a grace period, when no worker can still increment it,
 * so that total must equal the requests the workers made.
 *
 *   usage: idtable [operations per acceptor]   (default 100000)
 *   build: cc idtable.c $(pkg-config --cflags --libs rcuradix liburcu-memb)
 */
#include <rcuradix/idr.h>
#include <urcu/urcu-memb.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NR_ACCEPTORS 2
#define NR_WORKERS 2
#define MAX_OPEN 200                          /* per acceptor */
#define MAX_IDS (NR_ACCEPTORS * MAX_OPEN)     /* ids are always below this */
#define CONN_LIVE 0x4c495645UL
#define CONN_DEAD 0x44454144UL

struct conn {
	unsigned long id;
	unsigned long magic;         /* CONN_LIVE until the deferred free */
	atomic_ulong requests;       /* incremented by workers, lock-free */
	struct rcu_head rcu;
};

static DEFINE_IDR(conns);
static unsigned char id_used[MAX_IDS];  /* the model; under the IDR's lock */
static unsigned long acceptor_ops;  /* at least this many each; set by main */
/* Shared by the threads: atomics, so that the stop flag is seen by the
 * loops and concurrent increments are never lost. */
static atomic_int stop_workers;
static atomic_ulong errors, requests_served, requests_retired;
/* Lookups made by each worker so far: acceptors keep going until every
 * worker has really run alongside them (threads can start late). */
static atomic_ulong worker_lookups[NR_WORKERS];
#define MIN_WORKER_LOOKUPS 10000UL

static bool workers_ran(void)
{
	unsigned int w;

	for (w = 0; w < NR_WORKERS; w++)
		if (atomic_load(&worker_lookups[w]) < MIN_WORKER_LOOKUPS)
			return false;
	return true;
}

static void error(const char *what, unsigned long id)
{
	if (atomic_fetch_add(&errors, 1) < 10)
		fprintf(stderr, "idtable: %s (id %lu)\n", what, id);
}

static unsigned long next_random(unsigned long *state)
{
	*state = *state * 6364136223846793005UL + 1442695040888963407UL;
	return *state >> 17;
}

/* Runs one grace period after the delete: no worker holds @c any more. */
static void conn_free_cb(struct rcu_head *head)
{
	struct conn *c = caa_container_of(head, struct conn, rcu);

	atomic_fetch_add(&requests_retired, atomic_load(&c->requests));
	c->magic = CONN_DEAD;
	free(c);
}

static unsigned long model_lowest_free(void)
{
	unsigned long id = 0;

	while (id < MAX_IDS && id_used[id])
		id++;
	return id;
}

/* Open a connection: returns its id, or ULONG_MAX on failure. */
static unsigned long conn_open(void)
{
	struct conn *c = malloc(sizeof(*c));
	unsigned long id = ULONG_MAX;
	int ret;

	if (!c)
		return ULONG_MAX;
	c->magic = CONN_LIVE;
	atomic_init(&c->requests, 0);
	/* May allocate: done before taking the lock. */
	if (idr_preload(GFP_KERNEL) != 0) {
		idr_preload_end();
		free(c);
		return ULONG_MAX;
	}
	/* The lock makes the model's answer and the allocation one step. */
	idr_lock(&conns);
	id = model_lowest_free();
	/* The reservation pattern: take the id with no item, initialise the
	 * connection with it, then publish it with idr_replace(). */
	ret = idr_alloc(&conns, NULL, 0, 0, GFP_NOWAIT);
	if (ret < 0 || (unsigned long)ret != id || id >= MAX_IDS) {
		error(ret < 0 ? "idr_alloc failed after idr_preload"
			      : "lowest free id differs from the model", (unsigned long)ret);
		if (ret >= 0)
			idr_remove(&conns, (unsigned long)ret);
		id = ULONG_MAX;
	} else {
		c->id = id;  /* initialised before idr_replace() publishes it */
		if (idr_replace(&conns, c, id) != NULL)
			error("a reserved id held an item", id);
		id_used[id] = 1;
	}
	idr_unlock(&conns);
	idr_preload_end();
	if (id == ULONG_MAX)
		free(c);
	return id;
}

static void conn_close(unsigned long id)
{
	struct conn *c;

	idr_lock(&conns);
	c = idr_remove(&conns, id);
	id_used[id] = 0;
	idr_unlock(&conns);
	if (!c || c->id != id) {
		error("closed a connection that was not there", id);
		return;
	}
	/* Workers may still be counting a request on it: free it later. */
	urcu_memb_call_rcu(&c->rcu, conn_free_cb);
}

static void *acceptor(void *arg)
{
	unsigned long ops = acceptor_ops, state = (uintptr_t)arg * 0x9e3779b97f4a7c15UL;
	unsigned long open[MAX_OPEN], i;
	unsigned int nr_open = 0;

	urcu_memb_register_thread();  /* writers call call_rcu */
	for (i = 0; i < ops || !workers_ran(); i++) {
		bool want_open = nr_open == 0 ||
				 (nr_open < MAX_OPEN && next_random(&state) % 2 == 0);

		if (want_open) {
			unsigned long id = conn_open();

			if (id != ULONG_MAX)
				open[nr_open++] = id;
		} else {
			unsigned int k = (unsigned int)(next_random(&state) % nr_open);

			conn_close(open[k]);
			open[k] = open[--nr_open];
		}
	}
	while (nr_open > 0)
		conn_close(open[--nr_open]);
	rcuradix_thread_cache_flush();  /* give the preload reserve back now */
	urcu_memb_unregister_thread();
	return NULL;
}

static void *worker(void *arg)
{
	unsigned int me = (unsigned int)(uintptr_t)arg;
	unsigned long state = (me + 1) * 0xc2b2ae3d27d4eb4fUL, served = 0, lookups = 0;

	urcu_memb_register_thread();  /* RCU readers must be registered */
	while (!atomic_load(&stop_workers)) {
		unsigned long id = next_random(&state) % MAX_IDS;
		struct conn *c;

		urcu_memb_read_lock();
		c = idr_find(&conns, id);
		if (c) {
			/* Valid until read_unlock even if it is being closed. */
			if (c->id != id || c->magic != CONN_LIVE)
				error("worker found a wrong connection", id);
			atomic_fetch_add(&c->requests, 1);
			served++;
		}
		urcu_memb_read_unlock();
		if (++lookups % 256 == 0)
			atomic_fetch_add(&worker_lookups[me], 256);
	}
	atomic_fetch_add(&requests_served, served);
	urcu_memb_unregister_thread();
	printf("worker: %lu lookups, %lu requests served\n", lookups, served);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t acceptors[NR_ACCEPTORS], workers[NR_WORKERS];
	struct rcuradix_stats st;
	unsigned int i;
	int failed;

	acceptor_ops = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	urcu_memb_register_thread();
	for (i = 0; i < NR_WORKERS; i++)
		pthread_create(&workers[i], NULL, worker, (void *)(uintptr_t)i);
	for (i = 0; i < NR_ACCEPTORS; i++)
		pthread_create(&acceptors[i], NULL, acceptor, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < NR_ACCEPTORS; i++)
		pthread_join(acceptors[i], NULL);
	atomic_store(&stop_workers, 1);
	for (i = 0; i < NR_WORKERS; i++)
		pthread_join(workers[i], NULL);

	/* Every connection is closed: the IDR is empty and holds no node. */
	if (!idr_is_empty(&conns))
		error("table not empty at the end", 0);
	idr_destroy(&conns);
	urcu_memb_barrier();  /* every deferred free has run */
	if (atomic_load(&requests_retired) != atomic_load(&requests_served))
		error("requests lost or counted after the free",
		      atomic_load(&requests_served) - atomic_load(&requests_retired));
	rcuradix_thread_cache_flush();  /* and the node pool's cached empty slab */
	rcuradix_get_stats(&st, sizeof(st));
	if (st.nodes_live || st.nodes_pending || st.nodes_reserved || st.backing_bytes)
		error("nodes left in the library", st.nodes_live);
	failed = atomic_load(&errors) != 0;
	printf("idtable: %lu operations per acceptor, %lu requests: %s\n", acceptor_ops,
	       atomic_load(&requests_served), failed ? "FAILED" : "ok");
	urcu_memb_unregister_thread();
	return failed;
}
