/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * helpers.h - shared by the Criterion suites: test items that carry their
 * key and are poisoned when freed, act-and-verify wrappers, a seeded RNG,
 * and the end-of-test check that the tree is empty and every node counter
 * is back to zero.
 *
 * Suites are built twice, against 64-slot (RT_MAP_SHIFT 6) and 8-slot
 * (RT_MAP_SHIFT 3) debug builds of the library; internal.h gives them the
 * geometry and the fault-injection hooks.
 */
#ifndef RCURADIX_TEST_HELPERS_H
#define RCURADIX_TEST_HELPERS_H

#include "config.h"

#include <unistd.h>

#include <urcu/urcu-memb.h>
#include <urcu/urcu-qsbr.h>

#include "preload.h"
#include "descend.h"

#include <criterion/criterion.h>

extern const struct rcu_flavor_struct urcu_qsbr_flavor;

#define TITEM_LIVE 0x4c495645UL /* "LIVE" */
#define TITEM_DEAD 0x44454144UL /* "DEAD" */
#define TITEM_POISON 0x6b6b6b6b6b6b6b6bUL

/* A test item: its own key, a liveness magic, and room for call_rcu. */
struct titem {
	unsigned long key;
	unsigned long magic;
	struct rcu_head rcu;
};

struct titem *titem_new(unsigned long key);
/* Free now (no reader can hold it), poisoning first. */
void titem_free(struct titem *item);
/* Free after a grace period of @flavor: DEAD, poisoned, then freed. */
void titem_free_rcu(const struct rcu_flavor_struct *flavor, struct titem *item);
/* Items allocated and not yet freed. */
unsigned long titem_live(void);
/* Does @p look like a live item for @key? */
bool titem_ok(const void *p, unsigned long key);

/* Act and verify: insert must succeed and lookup must then find @item. */
void t_insert(struct radix_tree_root *root, unsigned long key, void *item);
/* Insert a fresh item for @key and return it. */
struct titem *t_insert_new(struct radix_tree_root *root, unsigned long key);
/* Delete @key, which must hold @item; lookup must then miss.  Frees it. */
void t_delete(struct radix_tree_root *root, unsigned long key, struct titem *item);
/* radix_tree_verify() must pass. */
void t_verify(const struct radix_tree_root *root);
/* Height of the tree in levels (0 when empty). */
unsigned int t_height(const struct radix_tree_root *root);
/*
 * End of a test: delete every remaining item (freeing it), destroy, wait
 * for callbacks, drain this thread's reserve, then every node counter must
 * be zero and no item may remain.
 */
void t_finish(struct radix_tree_root *root);
/* Delete (and free) every item left, then destroy. */
void t_empty(struct radix_tree_root *root);
/* t_finish without waiting for a grace period: every node still allocated
 * must be one queued to call_rcu (none leaked, none reserved). */
void t_finish_nowait(struct radix_tree_root *root);
/* Counters must be zero (after the caller's own cleanup). */
void t_assert_no_nodes(void);
/* @root (urcu-memb flavor), emptied by its own calls and not destroyed,
 * owns nothing: no node linked, and once the grace periods end (waited
 * for here), no node live.  @what names the tree in messages. */
void t_assert_emptied_owns_nothing(const struct radix_tree_root *root, const char *what);

/*
 * T_SUITE(name): the usual suite - a urcu-memb GFP_KERNEL tree `tree`,
 * initialised before each test, with the test thread registered.
 */
#define T_SUITE(name)                                                          \
	static struct radix_tree_root tree;                                    \
	static void name##_setup(void)                                         \
	{                                                                      \
		urcu_memb_register_thread();                                   \
		INIT_RADIX_TREE(&tree, GFP_KERNEL);                            \
	}                                                                      \
	static void name##_teardown(void)                                      \
	{                                                                      \
		urcu_memb_unregister_thread();                                 \
	}                                                                      \
	TestSuite(name, .init = name##_setup, .fini = name##_teardown)

/* A liburcu flavor's calls, for tests that run readers under each flavor. */
struct t_flavor_ops {
	const struct rcu_flavor_struct *flavor;
	void (*reg)(void);
	void (*unreg)(void);
	void (*lock)(void);
	void (*unlock)(void);
	void (*quiescent)(void); /* NULL for non-QSBR */
};

extern const struct t_flavor_ops t_memb_ops, t_qsbr_ops;

/* Keys every suite exercises. */
extern const unsigned long t_special_keys[];
extern const unsigned int t_nr_special_keys;

/* xorshift64*: deterministic for a printed seed. */
struct t_rng {
	uint64_t s;
};
/* Seed from $RCURADIX_SEED if set, else from the run's base seed
 * ($RCURADIX_SEED_BASE, picked from the clock and printed to stdout when
 * not given) and @what; printed to stderr. */
void t_rng_init(struct t_rng *rng, const char *what);
uint64_t t_rand(struct t_rng *rng);
/* Uniform in [0, n). */
uint64_t t_rand_below(struct t_rng *rng, uint64_t n);

/*
 * Death tests.  t_child_run() runs @fn(@arg) in a forked child whose stderr
 * is a pipe to the parent, and _exit()s the child with @fn's return value;
 * the parent reads all the child wrote, then reaps it.  Child functions do
 * not use Criterion's assertions (they would report from the wrong
 * process): they check with T_CHILD_CHECK(), which names the failed
 * condition on stderr and exits 1.  Children are quiet under valgrind
 * (--child-silent-after-fork), so their stderr is the library's alone.
 */
struct t_child {
	int status;      /* from waitpid() */
	char err[8192];  /* what the child wrote on stderr, NUL-terminated */
};
typedef int t_child_fn(void *arg);
void t_child_run(t_child_fn *fn, void *arg, struct t_child *child);
/* The child must die of SIGABRT, having written @line as one whole line. */
void t_assert_dies(t_child_fn *fn, void *arg, const char *line);
/* The child must exit 0, having written exactly @text on stderr ("" for
 * nothing). */
void t_assert_lives(t_child_fn *fn, void *arg, const char *text);
/*
 * First call of every forked test child (@parent: the forking process's
 * pid): it is killed if the test process goes, e.g. by Criterion's
 * .timeout, so that a child that hangs or spins never outlives its test.
 */
void t_child_init(pid_t parent);
/* How many lines of @text are exactly @line. */
unsigned int t_count_lines(const char *text, const char *line);

#define T_CHILD_CHECK(cond)                                                    \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "child check failed: %s:%d: %s\n",     \
				__FILE__, __LINE__, #cond);                    \
			_exit(1);                                              \
		}                                                              \
	} while (0)

/* The kernel's radix_tree_next_hole() (@up) or prev_hole(), by its
 * definition: keys @index, @index +/- 1, ... looked at one at a time with
 * @present(@model, key), @max_scan at most; the answer's conventions are
 * the header's. */
unsigned long t_model_hole(bool (*present)(const void *model, unsigned long key),
			   const void *model, unsigned long index, unsigned long max_scan,
			   bool up);

/* @n divided by $RCURADIX_TEST_SCALE (default 1; at least 1): valgrind
 * runs the long suites at a fraction of their length. */
unsigned long t_scaled(unsigned long n);

/* Do the byte ranges [@a, @a_end) and [@b, @b_end) touch a common 64-byte
 * line?  (The layout tests of the root and of struct idr.) */
static inline bool t_share_a_line(uintptr_t a, uintptr_t a_end, uintptr_t b, uintptr_t b_end)
{
	return a / 64 <= (b_end - 1) / 64 && b / 64 <= (a_end - 1) / 64;
}

#endif
