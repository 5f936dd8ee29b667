/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * base.c - misuse reports, thread identity, the tree lock, writer entry and
 * exit, root initialisation and the root layout checks.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "base.h"

/*
 * The default flavor, if the program links liburcu-memb.  Weak: the library
 * itself must not pull in any flavor library, so that one shared object
 * serves them all.
 */
extern const struct rcu_flavor_struct urcu_memb_flavor __attribute__((weak));

/* ---- the root's layout ------------------------------------------------- */

/* The reader group (rnode .. base) and the writer group (lock .. depth)
 * of struct radix_tree_root, see its comment in the header. */
#define RT_READERS_FIRST offsetof(struct radix_tree_root, rnode)
#define RT_READERS_END (offsetof(struct radix_tree_root, base) + sizeof(unsigned int))
#define RT_WRITERS_FIRST offsetof(struct radix_tree_root, lock)
#define RT_WRITERS_END (offsetof(struct radix_tree_root, depth) + sizeof(unsigned int))
/*
 * With both ends of each group 8-byte aligned, a gap of 56 bytes or more
 * between the last byte of one group and the first of the other puts them
 * in different 64-byte lines wherever the root lies (the last byte of a
 * group is at least 7 bytes into its line).  The tail gap plus the next
 * root's leading gap protect arrays of roots the same way.
 */
#define RT_MIN_GAP 56
_Static_assert(RT_READERS_FIRST >= RT_MIN_GAP, "gap before the reader fields");
_Static_assert(RT_WRITERS_FIRST - RT_READERS_END >= RT_MIN_GAP,
	       "gap between the reader and writer fields");
_Static_assert(sizeof(struct radix_tree_root) - RT_WRITERS_END + RT_READERS_FIRST >= RT_MIN_GAP,
	       "gap between one root's writer fields and the next root's reader fields");
_Static_assert(RT_WRITERS_FIRST % 8 == 0 && RT_READERS_FIRST % 8 == 0 &&
		       sizeof(struct radix_tree_root) % 8 == 0,
	       "groups start 8-byte aligned");

/* ---- misuse reports ---------------------------------------------------- */

/* Format one line and write it with one write(2), so that lines from
 * several threads, or from a signal handler, do not interleave. */
static void rt_report(const char *fn, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void rt_report(const char *fn, const char *fmt, va_list ap)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "rcuradix: %s: ", fn);

	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;  /* nowhere left to report to */
}

void rt_die(const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_report(fn, fmt, ap);
	va_end(ap);
	abort();
}

void rt_warn_once(int *once, const char *fn, const char *fmt, ...)
{
	va_list ap;

	/* Atomic exchange: of several threads misusing at once, one reports. */
	if (uatomic_xchg(once, 1))
		return;
	va_start(ap, fmt);
	rt_report(fn, fmt, ap);
	va_end(ap);
}

#ifdef RT_DEBUG
void rt_assert_fail(const char *cond, const char *file, int line, const char *func)
{
	rt_die(func, "%s:%d: assertion '%s' failed", file, line, cond);
}
#endif

/* ---- thread identity and the tree lock --------------------------------- */

__thread char rt_self __attribute__((tls_model("initial-exec")));

void rt_lock_not_held(const char *fn)
{
	rt_die(fn, "tree lock not held by this thread");
}

/*
 * A writer that finds the tree lock taken spins before it sleeps on the
 * lock word (RT_LOCK_SPIN_NS, base.h, says for how long and why).
 *
 * The waiter looks at the lock after RT_LOCK_LOOK_NS, then after twice
 * as long each time (up to RT_LOCK_LOOK_MAX_NS), pausing in between: each
 * look pulls the line of the lock word and owner away from the holder's
 * CPU, and a holder left alone runs its calls back to back with the tree's
 * lines in its own cache; frequent looks make the lock change hands every
 * few calls (doc/performance.md, "IDR and IDA", has the figures for
 * idr-bench's two-thread churn).
 */
#define RT_LOCK_LOOK_NS 1000L
#define RT_LOCK_LOOK_MAX_NS 16000L

static long rt_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Pause until @when (rt_now_ns()); the time it is then. */
static long rt_pause_until(long when)
{
	long now;

	do {
		unsigned int k;

		for (k = 0; k < 16; k++)
			caa_cpu_relax();
		now = rt_now_ns();
	} while (now < when);
	return now;
}

/*
 * How unlocks order their release (A) before their look at the sleepers
 * (B), base.h.  RT_LOCK_MEMBARRIER once the process has registered for
 * membarrier's private expedited command, RT_LOCK_FENCES where it could
 * not.  Decided by the library's constructor, and again in a fork child,
 * which has one thread.  A thread already using trees while the
 * constructor runs (another constructor started it) is safe at every
 * step: until then its unlocks fence and its sleepers nap, and from then
 * on a sleeper counts on a wake only after its own membarrier call.
 */
int rt_lock_order = RT_LOCK_UNDECIDED;

static int rt_membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

static void rt_lock_choose_order(void)
{
	int order = rt_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 ?
			    RT_LOCK_MEMBARRIER : RT_LOCK_FENCES;

	/* Relaxed: every reader copes with every value (above). */
	__atomic_store_n(&rt_lock_order, order, __ATOMIC_RELAXED);
}

/* A fork child has only the forking thread: nobody sleeps on a lock. */
static void rt_lock_postfork_child(void)
{
	memset(rt_lock_sleepers, 0, sizeof(rt_lock_sleepers));
	/* The registration belongs to the process's memory: the child asks
	 * again rather than assume the kernel kept it. */
	rt_lock_choose_order();
}

__attribute__((constructor)) static void rt_lock_setup(void)
{
	rt_lock_choose_order();
	rt_pthread_check(pthread_atfork(NULL, NULL, rt_lock_postfork_child));
}

void rt_lock_test_order(int order)
{
	if (order < 0)
		rt_lock_choose_order();
	else
		__atomic_store_n(&rt_lock_order, order, __ATOMIC_RELAXED);
}

static long rt_futex(int *word, int op, int value)
{
	return syscall(SYS_futex, word, op, value, NULL, NULL, 0);
}

struct rt_lock_sleepers rt_lock_sleepers[RT_LOCK_SLEEPER_SLOTS];

void rt_lock_wake(int *word)
{
	rt_futex(word, FUTEX_WAKE_PRIVATE, 1);
}

/*
 * Sleep until the lock word is taken by this thread: C, D and E of the
 * protocol in base.h.  A sleeper that cannot count on a wake (no
 * membarrier, or a failed call, while unlocks do not all fence) naps
 * instead, looking at the word every RT_LOCK_NAP_NS.
 */
#define RT_LOCK_NAP_NS 100000L

/* D, or what stands for it: may this sleeper count on a wake? */
static bool rt_lock_wake_assured(void)
{
	switch (__atomic_load_n(&rt_lock_order, __ATOMIC_RELAXED)) {
	case RT_LOCK_MEMBARRIER:
		return rt_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
	case RT_LOCK_FENCES:
		return true;  /* every releaser fences between A and B */
	default:
		return false;
	}
}

static void rt_lock_sleep(struct radix_tree_root *root)
{
	unsigned int *sleepers = rt_lock_sleepers_of(root);
	bool wake_assured;

	/* C: the count is raised, and the fence keeps E's load of the word
	 * from being satisfied before the increment is visible (a
	 * read-modify-write alone is no fence in C11, nor on every CPU). */
	__atomic_add_fetch(sleepers, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	wake_assured = rt_lock_wake_assured();
	while (!rt_lock_try(root)) {
		if (wake_assured) {
			/* Sleeps only while the word is still 1; any error
			 * (EAGAIN: it changed, EINTR) is another look. */
			rt_futex(&root->lock, FUTEX_WAIT_PRIVATE, 1);
		} else {
			struct timespec nap = { 0, RT_LOCK_NAP_NS };

			nanosleep(&nap, NULL);
		}
	}
	/* Relaxed: a releaser that still counts us only wakes nobody. */
	__atomic_sub_fetch(sleepers, 1, __ATOMIC_RELAXED);
}

void rt_lock_wait(struct radix_tree_root *root)
{
	long start, now, gap = RT_LOCK_LOOK_NS;

	start = rt_now_ns();
	for (now = start; now - start < RT_LOCK_SPIN_NS;
	     gap = gap < RT_LOCK_LOOK_MAX_NS / 2 ? 2 * gap : RT_LOCK_LOOK_MAX_NS) {
		now = rt_pause_until(now + gap);
		/* Relaxed load: only a hint that the lock may be free, read
		 * without taking the line from the holder; the
		 * compare-and-swap is what acquires (and orders) it. */
		if (__atomic_load_n(&root->lock, __ATOMIC_RELAXED) == 0 && rt_lock_try(root))
			return;
	}
	rt_lock_sleep(root);
}

RCURADIX_API void radix_tree_lock(struct radix_tree_root *root)
{
	if (root)
		rt_lock(root);
}

void rt_require_lock(const struct radix_tree_root *root, const char *fn)
{
	if (!rt_lock_held(root))
		rt_lock_not_held(fn);
}

/* ---- roots ------------------------------------------------------------- */

RCURADIX_API void radix_tree_init_flavor(struct radix_tree_root *root, gfp_t gfp_mask,
					 const struct rcu_flavor_struct *flavor)
{
	if (!root)
		return;
	memset(root, 0, sizeof(*root));
	root->gfp_mask = gfp_mask;
	root->flavor = flavor ? flavor : &urcu_memb_flavor;
	if (!root->flavor)
		fprintf(stderr, "rcuradix: radix_tree_init_flavor: no flavor given and "
				"liburcu-memb is not linked; the tree refuses every write\n");
	root->initialised = RADIX_TREE_INITIALISED_;
}

static int rt_warned_uninitialised;
static int rt_warned_no_flavor;

int rt_root_refused(const struct radix_tree_root *root, const char *fn)
{
	if (!root)
		return -EINVAL;
	if (root->initialised != RADIX_TREE_INITIALISED_)
		rt_warn_once(&rt_warned_uninitialised, fn,
			     "tree not initialised (RADIX_TREE(), INIT_RADIX_TREE() or "
			     "radix_tree_init_flavor())");
	else
		rt_warn_once(&rt_warned_no_flavor, fn,
			     "tree has no RCU flavor (initialised without one while "
			     "liburcu-memb is not linked)");
	return -EINVAL;
}

/* ---- writer calls ------------------------------------------------------ */

__thread const char *rt_in_writer __attribute__((tls_model("initial-exec")));

void rt_writer_reentered(const char *fn)
{
	rt_die(fn, "writer call re-entered while this thread is inside %s "
		   "(a writer called from a signal handler?)", rt_in_writer);
}

static int rt_warned_idr;

int rt_writer_enter_plain(struct radix_tree_root *root, const char *fn)
{
	if (root && caa_unlikely(root->flags & RT_ROOT_IDR)) {
		rt_warn_once(&rt_warned_idr, fn, "an IDR's tree is changed through the idr_* "
						 "calls only");
		return -EINVAL;
	}
	return rt_writer_enter(root, fn);
}

int rt_kind_refused(int *once, const char *what, const char *init, const char *fn)
{
	rt_warn_once(once, fn, "not an %s (initialise it with %s)", what, init);
	return -EINVAL;
}

#ifdef RT_DEBUG
#ifdef RT_DEBUG_STRICT
int rt_debug_strict = 1;
#else
int rt_debug_strict;
#endif

void rt_reader_check(const struct radix_tree_root *root, const char *fn)
{
	if (!uatomic_read(&rt_debug_strict) || !root || !root->flavor)
		return;
	if (!root->flavor->read_ongoing() && !rt_lock_held(root))
		rt_die(fn, "called outside a read-side section of the tree's RCU flavor "
			   "and without the tree lock");
}
#endif

/* ---- version ----------------------------------------------------------- */

RCURADIX_API const char *rcuradix_version(void)
{
	return PACKAGE_VERSION;
}
