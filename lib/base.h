/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * base.h - the bottom layer every other file stands on: misuse reports, the
 * tree lock, writer entry and exit, the reader and writer accessors, and the
 * publication and bitmap primitives.  No file below it; every rule about who
 * may load or store what is written here once.
 *
 * Accessors (the lock rule travels with the access):
 *   rt_entry_rcu(p)            a slot or root->rnode, by a reader
 *   rt_entry_locked(root, p)   the same, by the writer holding root's lock
 *   rt_bits_rcu(w)             a bitmap word (present, tags, root->tags),
 *                              by a reader
 *   rt_bits_locked(root, w)    the same, by the writer
 * Debug builds assert the lock in the _locked forms, so that the unit tests,
 * the fuzz corpus replay and the 8-slot torture check the rule at every load.
 *
 * Stores are writer-only: rt_publish() for entries, rt_bits_store() for
 * bitmap words, rt_slot_set()/rt_slot_clear() for both at once.
 */
#ifndef RCURADIX_BASE_H
#define RCURADIX_BASE_H

#include "internal.h"

#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define RT_HAVE_SINGLE_THREADED 1
#endif

/* ---- misuse reports ---------------------------------------------------- */

/*
 * rt_die() - report a broken contract and abort: "rcuradix: @fn: <rule>".
 * Used where going on would corrupt a tree or make the caller's next step
 * unsafe, in release builds too (liburcu's urcu_die() convention).
 */
RT_HIDDEN void rt_die(const char *fn, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/*
 * rt_warn_once() - one line "rcuradix: @fn: <text>" on stderr, the first
 * time *@once is claimed: harmless misuse is reported, not repeated.
 */
RT_HIDDEN void rt_warn_once(int *once, const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Check a pthread call's result: non-zero is a library bug or exhausted
 * resources that no caller could handle, reported and aborted on. */
#define rt_pthread_check(call)                                                         \
	do {                                                                           \
		int rt_err_ = (call);                                                  \
		if (caa_unlikely(rt_err_))                                             \
			rt_die(__func__, "%s failed: error %d", #call, rt_err_);       \
	} while (0)

/* ---- the tree lock ----------------------------------------------------- */

/*
 * Every writer call takes and releases the lock and checks its root, so
 * those fast paths are inline here; what they report on misuse is out of
 * line in base.c.
 */

/* Its address identifies the thread.  initial-exec: one byte of static TLS,
 * reached without a __tls_get_addr() call on every lock and unlock. */
RT_HIDDEN extern __thread char rt_self __attribute__((tls_model("initial-exec")));

/* The calling thread's identity (never 0). */
static inline unsigned long rt_thread_id(void)
{
	return (unsigned long)(uintptr_t)&rt_self;
}

static inline bool rt_lock_held(const struct radix_tree_root *root)
{
	/* Only the owner ever stores its own id here, so a relaxed load is
	 * exact for the question "do I hold it?"; other threads' stores can
	 * only make it differ from our id.  Atomic: other threads store
	 * concurrently (a plain access would be a data race in C11). */
	return __atomic_load_n(&root->owner, __ATOMIC_RELAXED) == rt_thread_id();
}

#define rt_assert_locked(root) rt_assert(rt_lock_held(root))

/* Die: @fn needs the tree lock held by this thread, and it is not. */
RT_HIDDEN void rt_lock_not_held(const char *fn) __attribute__((noreturn, cold));

/* Has the process never started a second thread?  (glibc's flag; false
 * where the C library does not keep one.) */
#ifdef RT_HAVE_SINGLE_THREADED
#define rt_single_threaded() (__libc_single_threaded != 0)
#else
#define rt_single_threaded() false
#endif

/*
 * The lock word, root->lock: 0 free, 1 taken.  A writer takes it with one
 * compare-and-swap and releases it with a plain release store: one atomic
 * instruction per lock and unlock.  A waiter spins, then sleeps on the
 * word (futex); the releaser must then see it and wake it, which the store
 * alone does not order: its later load of the sleeper count could be
 * satisfied before the store leaves its CPU (Dekker's race).  The sleeper
 * closes the race:
 *
 *   releaser                          sleeper (rt_lock_sleep(), base.c)
 *   A. store lock = 0 (release)       C. count++, then a full fence
 *   B. load the count; if non-zero,   D. membarrier(): every running
 *      wake one sleeper                  thread of the process executes
 *                                        a full barrier
 *                                     E. compare-and-swap lock 0 -> 1, or
 *                                        futex-wait while it is 1
 *
 * D puts a barrier in the releaser's stream: if it precedes B, B sees C;
 * otherwise A precedes it too, and E sees A.  Either way the sleeper is
 * woken or never sleeps.  Where the process could not register for
 * membarrier (rt_lock_order), the releaser puts a full fence between A
 * and B itself, and the sleeper skips D.  A sleeper that has neither, or
 * whose membarrier call fails, naps instead of counting on a wake.
 *
 * The count is not in the root: once A is visible, the next holder may
 * destroy the tree and free the memory the root lies in (a pthread mutex
 * allows that, and so does this lock), so after A the releaser touches
 * no byte of the root; the futex wake passes its address only.  Sleepers
 * are counted in a global table of cache-line slots, by the root's
 * address: a root that shares its slot with another one's sleepers costs
 * a needless wake, nothing more.
 */
#define RT_LOCK_SLEEPER_SLOTS 64
struct rt_lock_sleepers {
	unsigned int n;  /* W: atomic add by sleepers; R: relaxed load by releasers */
} __attribute__((aligned(64)));
RT_HIDDEN extern struct rt_lock_sleepers rt_lock_sleepers[RT_LOCK_SLEEPER_SLOTS];

/* How unlocks order A before B: RT_LOCK_UNDECIDED until the library's
 * constructor has asked for membarrier, then one of the others. */
enum rt_lock_order { RT_LOCK_UNDECIDED, RT_LOCK_MEMBARRIER, RT_LOCK_FENCES };
RT_HIDDEN extern int rt_lock_order;

/* @root's slot of rt_lock_sleepers: the top bits of its address times
 * 2^64 / phi (Fibonacci hashing, which mixes every bit of the address). */
static inline unsigned int *rt_lock_sleepers_of(const struct radix_tree_root *root)
{
	_Static_assert(RT_LOCK_SLEEPER_SLOTS == 64, "six bits of the hash");
	return &rt_lock_sleepers[((uint64_t)(uintptr_t)root * 0x9e3779b97f4a7c15ULL) >> 58].n;
}

/* Try to take @root's lock word: true if taken. */
static inline bool rt_lock_try(struct radix_tree_root *root)
{
	int free_word = 0;

	/* Acquire: the holder before us released with a release store; what
	 * it wrote under the lock is visible to us from here. */
	return __atomic_compare_exchange_n(&root->lock, &free_word, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/*
 * How long a writer that finds the lock word taken spins before it sleeps.
 * Writer calls hold the lock for 0.1-1 us.  A sleep costs the sleeper a
 * membarrier and a futex wait, the holder a futex wake at every unlock
 * while anyone sleeps, and the sleeper the time the kernel takes to run it
 * again: measured on a 2-CPU virtual machine (bench/lock-probe), 15-20 us
 * for a wake and 35-55 us from the wake to the sleeper running, when the
 * sleeper's CPU had gone idle: 50-75 us a sleep.  With a 50 us spin, 4-6%
 * of the waits of two threads allocating ids outlasted it, the lock
 * changed hands 1.5-2 times as often, and a pair took 10-40% longer than
 * with 200 us; 100 us was still slower, and 400 us or more gained nothing
 * (doc/performance.md, "How long a waiter spins").  The spin is bounded in
 * time, so that a holder that is preempted, or holds the lock for a long
 * batch (radix_tree_lock()), costs each waiter at most this much CPU.
 */
#define RT_LOCK_SPIN_NS 200000L

/* rt_lock() when the lock word is taken: spin a while, then sleep on it
 * (base.c says why). */
RT_HIDDEN void rt_lock_wait(struct radix_tree_root *root);

/* rt_unlock() when a writer may sleep on lock word @word: wake one.  The
 * word's root may be gone already: only its address is used. */
RT_HIDDEN void rt_lock_wake(int *word);

/* Tests: order unlocks as @order says (RT_LOCK_UNDECIDED: every unlock
 * fences and every sleeper naps), or, with -1, as the process chose.  Only
 * while no thread holds or waits for any tree's lock. */
RT_HIDDEN void rt_lock_test_order(int order);

/* The recursive tree lock of every writer. */
static inline void rt_lock(struct radix_tree_root *root)
{
	if (rt_lock_held(root)) {
		root->depth++;
		return;
	}
	if (rt_single_threaded() && __atomic_load_n(&root->lock, __ATOMIC_RELAXED) == 0) {
		/* No other thread: nobody to race with, so no atomic
		 * instruction.  A thread started later synchronises with
		 * pthread_create(), which orders this store before its look. */
		__atomic_store_n(&root->lock, 1, __ATOMIC_RELAXED);
	} else if (caa_unlikely(!rt_lock_try(root))) {
		rt_lock_wait(root);
	}
	/* Read by other threads in rt_lock_held(): they compare with their
	 * own id, which this value never equals.  Relaxed atomic: the lock
	 * word orders everything else. */
	__atomic_store_n(&root->owner, rt_thread_id(), __ATOMIC_RELAXED);
	root->depth = 1;
}

/* Release one level of the tree lock; a thread that does not hold it dies,
 * naming @fn. */
static inline void rt_unlock(struct radix_tree_root *root, const char *fn)
{
	unsigned int *sleepers;

	if (caa_unlikely(!rt_lock_held(root)))
		rt_lock_not_held(fn);
	if (--root->depth)
		return;
	/* Nodes unlinked in this hold are handed to call_rcu first
	 * (rt_writer_done(), radix_tree_unlock()). */
	rt_assert(root->retired == NULL);
	/* Cleared before the lock is released: the next owner stores its
	 * own id after acquiring it, so this store never overwrites it. */
	__atomic_store_n(&root->owner, 0UL, __ATOMIC_RELAXED);
	sleepers = rt_lock_sleepers_of(root);
	/* A above.  Release: everything written under the lock is visible to
	 * the next holder, whose compare-and-swap acquires.  From here on
	 * the root may be freed by its next holder. */
	__atomic_store_n(&root->lock, 0, __ATOMIC_RELEASE);
	/* Between A and B: the compiler must not load the count first; the
	 * CPU's order comes from the sleeper's membarrier, or, without one,
	 * from this full fence.  Relaxed load of the mode: it changes only
	 * where any mix of the old and the new value is safe (base.c). */
	if (caa_likely(__atomic_load_n(&rt_lock_order, __ATOMIC_RELAXED) == RT_LOCK_MEMBARRIER))
		cmm_barrier();
	else
		cmm_smp_mb();
	/* B above.  Relaxed: A..E order it; a zero here means the sleeper's
	 * E will see A. */
	if (caa_unlikely(__atomic_load_n(sleepers, __ATOMIC_RELAXED)))
		rt_lock_wake(&root->lock);
}

/* ---- roots and writer calls -------------------------------------------- */

/* rt_root_check() for a root that is not usable: -EINVAL, reported once
 * unless @root is NULL. */
RT_HIDDEN int rt_root_refused(const struct radix_tree_root *root, const char *fn)
	__attribute__((cold));

/* Is @root usable?  0, or -EINVAL for a NULL root, and -EINVAL with a
 * message (once) for a root never initialised or bound to no flavor. */
static inline int rt_root_check(const struct radix_tree_root *root, const char *fn)
{
	if (caa_likely(root && root->initialised == RADIX_TREE_INITIALISED_ && root->flavor))
		return 0;
	return rt_root_refused(root, fn);
}

/*
 * The writer call this thread is inside, or NULL.  Set before the lock is
 * taken and cleared after it is released, so that a signal handler that
 * interrupts any part of a writer call and calls another finds it set.
 * Only this thread and its signal handlers touch it: compiler barriers
 * order it against the call's own stores.
 */
RT_HIDDEN extern __thread const char *rt_in_writer __attribute__((tls_model("initial-exec")));

/* Die: writer call @fn started inside another one on this thread. */
RT_HIDDEN void rt_writer_reentered(const char *fn) __attribute__((noreturn, cold));

/*
 * rt_writer_enter() - start writer call @fn on @root: check the root (as
 * rt_root_check()), die if this thread is already inside a writer call (a
 * signal handler interrupted one), then take the tree lock.  Returns 0 or
 * the root's error; on 0, rt_writer_exit() must follow.
 */
static inline int rt_writer_enter(struct radix_tree_root *root, const char *fn)
{
	int err = rt_root_check(root, fn);

	if (err)
		return err;
	if (caa_unlikely(rt_in_writer != NULL))
		rt_writer_reentered(fn);
	rt_in_writer = fn;
	cmm_barrier();  /* the flag is set before any of the call's work */
	rt_lock(root);
	return 0;
}

static inline void rt_writer_exit(struct radix_tree_root *root)
{
	rt_unlock(root, rt_in_writer);
	cmm_barrier();  /* all of the call's work is done before the flag clears */
	rt_in_writer = NULL;
}

/*
 * rt_writer_enter_plain() - as rt_writer_enter(), for a call that changes
 * items or tags the way a plain tree keeps them: an IDR's tree is refused
 * with -EINVAL (reported once), since its free ids are kept by the idr_*
 * calls only.
 */
RT_HIDDEN int rt_writer_enter_plain(struct radix_tree_root *root, const char *fn);

/* rt_writer_enter_kind() for a root without every flag of @kind. */
RT_HIDDEN int rt_kind_refused(int *once, const char *what, const char *init, const char *fn)
	__attribute__((cold));

/*
 * rt_writer_enter_kind() - as rt_writer_enter(), for a call of an IDR or
 * an IDA: the root must carry every flag of @kind, else -EINVAL, reported
 * once per @once as "not an @what (initialise it with @init)".
 */
static inline int rt_writer_enter_kind(struct radix_tree_root *root, unsigned int kind,
				       int *once, const char *what, const char *init,
				       const char *fn)
{
	int err = rt_root_check(root, fn);

	if (err)
		return err;
	/* The flags are set at init and read-only after: no lock needed. */
	if (caa_unlikely((root->flags & kind) != kind))
		return rt_kind_refused(once, what, init, fn);
	return rt_writer_enter(root, fn);
}

/* Die unless the calling thread holds @root's lock (writer state about to
 * be touched by a call whose contract requires the lock). */
RT_HIDDEN void rt_require_lock(const struct radix_tree_root *root, const char *fn);

/*
 * Reader entry (debug builds): a reader must be inside a read-side section
 * of the tree's flavor or hold the tree lock.  Checked where liburcu can
 * tell (flavor->read_ongoing()), when rt_debug_strict is set: by default in
 * --enable-debug builds; the test builds set it in the tests that check it.
 */
#ifdef RT_DEBUG
RT_HIDDEN extern int rt_debug_strict;
RT_HIDDEN void rt_reader_check(const struct radix_tree_root *root, const char *fn);
#else
#define rt_reader_check(root, fn) ((void)(root), (void)(fn))
#endif

/* ---- accessors --------------------------------------------------------- */

/* A reader's load of an entry: rcu_dereference, so that the node or item a
 * concurrent writer just published is seen initialised. */
#define rt_entry_rcu(p) rcu_dereference(p)

/* A writer's load of an entry: the lock holder is the only writer, so a
 * plain load is exact. */
#define rt_entry_locked(root, p) (rt_assert_locked(root), (p))

/*
 * Bitmap words: one writer (the lock holder), lock-free readers.  A stale bit
 * is allowed (guarantee E), but a reader that sees a bit set must also see
 * every store the writer made before setting it: the entry before its
 * present bit, the leaf's tag bit before its ancestors', the caller's own
 * stores before radix_tree_tag_set().  Release store, acquire load (plain
 * moves on x86); atomic, so a word is never seen torn.
 */
#define rt_bits_rcu(w) __atomic_load_n(&(w), __ATOMIC_ACQUIRE)
#define rt_bits_locked(root, w) (rt_assert_locked(root), (w))
#define rt_bits_store(w, v) __atomic_store_n(&(w), (v), __ATOMIC_RELEASE)

/* The writer's change of root->nr_items, which radix_tree_count() loads
 * without the lock.  A relaxed atomic store: the load is never torn nor a
 * data race; it orders nothing, since the count publishes nothing. */
static inline void rt_items_add(struct radix_tree_root *root, long delta)
{
	__atomic_store_n(&root->nr_items, rt_bits_locked(root, root->nr_items) + (unsigned long)delta,
			 __ATOMIC_RELAXED);
}

/* ---- publication ------------------------------------------------------- */

/*
 * Publish @v into *@p.  Every change a reader can observe to a slot or to
 * root->rnode goes through here: rcu_assign_pointer orders the
 * initialisation of a new node or item before the store that makes it
 * reachable, so a reader never sees a half-built node.
 */
#define rt_publish(p, v) rcu_assign_pointer(p, v)

/*
 * Fill or empty a slot of a linked node (tree lock held), keeping its
 * present bit in step.  Filling publishes the entry before setting the bit
 * (release): a reader that sees the bit finds the entry.  Emptying clears
 * the bit, then publishes NULL: a reader may still see the bit with a NULL
 * slot, and skips it.
 */
static inline void rt_slot_set(struct radix_tree_root *root, struct rt_node *node,
			       unsigned int offset, void *entry)
{
	rt_publish(node->slots[offset], entry);
	rt_bits_store(node->present, rt_bits_locked(root, node->present) | (1UL << offset));
}

static inline void rt_slot_clear(struct radix_tree_root *root, struct rt_node *node,
				 unsigned int offset)
{
	rt_bits_store(node->present, rt_bits_locked(root, node->present) & ~(1UL << offset));
	rt_publish(node->slots[offset], NULL);
}

#endif /* RCURADIX_BASE_H */
