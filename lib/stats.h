/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats.h - the library-wide node counters, kept per thread.
 *
 * Every node allocation and free is counted.  Global counters would be one
 * cache line written by every writer thread and by the call_rcu worker, so
 * each thread counts in its own record (written by that thread only) and
 * rcuradix_get_stats() adds the records up.  A thread's record is folded
 * into the totals of exited threads when it exits.
 */
#ifndef RCURADIX_STATS_H
#define RCURADIX_STATS_H

#include "base.h"

/* What a thread has done; the library-wide values are the sums. */
enum rt_stat {
	RT_STAT_ALLOCATED,   /* nodes obtained from the backend */
	RT_STAT_FREED,       /* nodes returned to the backend */
	RT_STAT_RESERVED,    /* nodes put into (+) or taken from (-) a reserve */
	RT_STAT_QUEUED,      /* nodes handed to call_rcu */
	RT_STAT_UNQUEUED,    /* of those, nodes whose callback ran */
	RT_STAT_FAILURES,    /* backend allocation failures */
	RT_STAT_BACKING,     /* bytes obtained from (+) or returned to (-) the allocator */
	RT_STAT_ALLOCATED_BYTES, /* the bytes of the nodes counted above: */
	RT_STAT_FREED_BYTES,
	RT_STAT_RESERVED_BYTES,
	RT_STAT_QUEUED_BYTES,
	RT_STAT_UNQUEUED_BYTES,
	RT_STAT_COUNT
};

/* Add @delta (two's complement for a decrease) to this thread's @stat. */
RT_HIDDEN void rt_stat_add(enum rt_stat stat, unsigned long delta);

/* fork(): hold the records' lock across it (node.c's handlers call these
 * after the backend's: a backend may count while holding its own lock). */
RT_HIDDEN void rt_stats_prefork(void);
RT_HIDDEN void rt_stats_postfork(void);
RT_HIDDEN void rt_stats_postfork_child(void);

#endif /* RCURADIX_STATS_H */
