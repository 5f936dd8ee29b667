/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lookup-ab.c - two builds of librcuradix side by side in one process, for
 * changes whose effect on lookups is smaller than the noise of a shared
 * machine: runs of the benchmark minutes apart differ by more than 10%,
 * and so do two processes running at once (they share the caches and the
 * memory bus unevenly).  Here both libraries build the same tree of an
 * rcuradix-bench key set (same generator, same seed), then take turns in
 * short slices (2^14 lookups, a few milliseconds), the order swapped every
 * round: a burst of noise lands on both.  Each round gives a ratio B / A;
 * their quartiles say whether a difference is larger than the noise.
 *
 *   bench/lookup-ab [--insert] LIB_A LIB_B KEYSET LOG2 [ROUNDS]
 *   bench/lookup-ab /tmp/old/lib/.libs/librcuradix.so.1 \
 *                   lib/.libs/librcuradix.so.1 sparse64 20 400
 *
 * Two operations, per lookup: "dependent" (the key of each lookup comes
 * from the item the previous one found: the latency of a lookup) and
 * "hit" (keys in a random order, independent: the throughput), each
 * inside its own read-side section, as rcuradix-bench measures them.
 * With --insert, the rounds build the tree instead, from empty, in the key
 * set's insert order, each insert between radix_tree_preload() and
 * radix_tree_preload_end() as rcuradix-bench's "insert+preload"; each
 * build is destroyed, and its nodes freed, before the next round.
 * The libraries are loaded with dlmopen() into namespaces of their own,
 * each with its own liburcu-memb and jemalloc.  jemalloc keeps its thread
 * data in static TLS, which a second copy does not fit in by default: the
 * program starts itself again with GLIBC_TUNABLES asking glibc for more.
 * Each namespace has its own libc too, but one dynamic linker, which
 * allocates every namespace's TLS with this program's malloc: see
 * become_multithreaded().
 */
#define _GNU_SOURCE 1
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rcuradix/radix-tree.h>

#include "bench.h"

#define SLICE (1UL << 14)  /* lookups per slice */
#define REEXEC_MARK "RCURADIX_LOOKUP_AB"
#define STATIC_TLS "glibc.rtld.optional_static_tls=262144"

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("lookup-ab: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double clock_ns(void);

/* One build of the library, and its tree. */
struct lib {
	const char *path;
	void *(*lookup)(const struct radix_tree_root *, unsigned long);
	int (*insert)(struct radix_tree_root *, unsigned long, void *);
	void (*init)(struct radix_tree_root *, gfp_t, const struct rcu_flavor_struct *);
	void (*destroy)(struct radix_tree_root *);
	int (*preload)(gfp_t);
	void (*preload_end)(void);
	const struct rcu_flavor_struct *flavor;
	void (*read_lock)(void);
	void (*read_unlock)(void);
	void (*barrier)(void);
	struct radix_tree_root root;
	unsigned long key;  /* where its dependent chain is */
	size_t pos;         /* where its independent lookups are */
};

static void *sym(void *handle, const char *path, const char *name)
{
	void *p = dlsym(handle, name);

	if (!p)
		die("%s: no %s", path, name);
	return p;
}

static void load(struct lib *l, const char *path)
{
	void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL), *urcu;
	void (*reg)(void);
	Lmid_t lm;

	if (!h)
		die("%s", dlerror());
	/* The library may leave liburcu-memb to its user: load it beside. */
	if (dlinfo(h, RTLD_DI_LMID, &lm) != 0)
		die("%s: %s", path, dlerror());
	urcu = dlmopen(lm, "liburcu-memb.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!urcu)
		die("%s", dlerror());
	l->path = path;
	*(void **)&l->lookup = sym(h, path, "radix_tree_lookup");
	*(void **)&l->insert = sym(h, path, "radix_tree_insert");
	*(void **)&l->init = sym(h, path, "radix_tree_init_flavor");
	*(void **)&l->destroy = sym(h, path, "radix_tree_destroy");
	*(void **)&l->preload = sym(h, path, "radix_tree_preload");
	*(void **)&l->preload_end = sym(h, path, "radix_tree_preload_end");
	*(void **)&l->read_lock = sym(urcu, path, "urcu_memb_read_lock");
	*(void **)&l->read_unlock = sym(urcu, path, "urcu_memb_read_unlock");
	*(void **)&l->barrier = sym(urcu, path, "urcu_memb_barrier");
	*(void **)&reg = sym(urcu, path, "urcu_memb_register_thread");
	reg();
	l->flavor = sym(urcu, path, "urcu_memb_flavor");
}

/* Build @l's tree of @ks (from empty, with preload).  Returns ns per insert. */
static double build(struct lib *l, const struct keyset *ks)
{
	double t0;

	l->init(&l->root, GFP_KERNEL, l->flavor);
	t0 = clock_ns();
	for (size_t i = 0; i < ks->n; i++) {
		if (l->preload(GFP_KERNEL))
			die("%s: preload failed", l->path);
		if (l->insert(&l->root, ks->ins_keys[i], ks->ins_items[i]))
			die("%s: insert of key %lu failed", l->path, ks->ins_keys[i]);
		l->preload_end();
	}
	return (clock_ns() - t0) / (double)ks->n;
}

/* Empty @l's tree and wait for its nodes' frees. */
static void unbuild(struct lib *l)
{
	l->destroy(&l->root);
	l->barrier();
}

static double clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double slice_dependent(struct lib *l)
{
	unsigned long key = l->key;
	double t0 = clock_ns();

	for (size_t i = 0; i < SLICE; i++) {
		void *item;

		l->read_lock();
		item = l->lookup(&l->root, key);
		l->read_unlock();
		if (!item)
			die("%s: dependent lookup of key %lu missed", l->path, key);
		key = item_next_key(item);
	}
	l->key = key;
	return (clock_ns() - t0) / (double)SLICE;
}

static double slice_hit(struct lib *l, const struct keyset *ks)
{
	size_t pos = l->pos, missed = 0;
	double t0 = clock_ns();

	for (size_t i = 0; i < SLICE; i++) {
		l->read_lock();
		missed += !l->lookup(&l->root, ks->lookup[pos]);
		l->read_unlock();
		if (++pos == ks->n)
			pos = 0;
	}
	t0 = clock_ns() - t0;
	if (missed)
		die("%s: %zu lookups of present keys missed", l->path, missed);
	l->pos = pos;
	return t0 / (double)SLICE;
}

static double *rounds_array(int rounds)
{
	double *v = calloc((size_t)rounds, sizeof(double));

	if (!v)
		die("out of memory");
	return v;
}

static void *no_op(void *arg)
{
	return arg;
}

/*
 * The race this prevents: a library's call_rcu worker, created by its own
 * namespace's libc, reads liburcu's dynamic TLS for the first time, and
 * the dynamic linker allocates that block with this namespace's malloc
 * while the main thread's next dlmopen() allocates with it too.  Our libc
 * knows nothing of the other libc's threads and, believing the process
 * single-threaded, skips the arena's lock: the two corrupt its heap
 * ("malloc assertion failure in sysmalloc", a few runs in a hundred).  A
 * thread created here marks this libc multi-threaded for good.
 */
static void become_multithreaded(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, no_op, NULL) || pthread_join(t, NULL))
		die("cannot start a thread");
}

/* Start again with room in static TLS for a second jemalloc. */
static void reexec(char **argv)
{
	const char *old = getenv("GLIBC_TUNABLES");
	size_t len = (old ? strlen(old) + 1 : 0) + sizeof(STATIC_TLS);
	char *tunables = malloc(len);

	if (!tunables)
		die("out of memory");
	snprintf(tunables, len, "%s%s%s", old ? old : "", old ? ":" : "", STATIC_TLS);
	if (setenv("GLIBC_TUNABLES", tunables, 1) || setenv(REEXEC_MARK, "1", 1))
		die("setenv failed");
	execv("/proc/self/exe", argv);
	die("could not start again: execv failed");
}

/* One round's time of operation @o (0, 1: lookups; 2: a build) of @l. */
static double round_of(struct lib *l, int o, const struct keyset *ks)
{
	double ns;

	if (o == 0)
		return slice_dependent(l);
	if (o == 1)
		return slice_hit(l, ks);
	ns = build(l, ks);
	unbuild(l);
	return ns;
}

int main(int argc, char **argv)
{
	struct lib lib[2];
	struct keyset ks;
	bool inserts = argc > 1 && strcmp(argv[1], "--insert") == 0;
	char **arg = argv + inserts;
	int args = argc - inserts, kind, log2n, rounds = args > 5 ? atoi(arg[5]) : 200;
	int o0 = inserts ? 2 : 0, o1 = inserts ? 3 : 2;
	double *t[2][3], *ratio[3];
	const char *op[3] = { "dependent", "hit", "insert" };

	if (args < 5 || args > 6)
		die("usage: %s [--insert] LIB_A LIB_B KEYSET LOG2 [ROUNDS] (a key set of "
		    "rcuradix-bench, 10 <= LOG2 <= 22, 10 <= ROUNDS <= 10000)", argv[0]);
	kind = keyset_by_name(arg[3]);
	log2n = atoi(arg[4]);
	if (kind < 0)
		die("unknown key set %s", arg[3]);
	if (log2n < 10 || log2n > 22 || rounds < 10 || rounds > 10000)
		die("LOG2 must be 10..22 and ROUNDS 10..10000");
	if (!getenv(REEXEC_MARK))
		reexec(argv);
	become_multithreaded();
	if (keyset_make(&ks, (enum keyset_kind)kind, (size_t)1 << log2n, 42))
		die("cannot make key set %s:%d", arg[3], log2n);
	for (int v = 0; v < 2; v++) {
		load(&lib[v], arg[1 + v]);
		if (!inserts)
			build(&lib[v], &ks);
		lib[v].key = ks.chain_start;
		lib[v].pos = 0;
		for (int o = o0; o < o1; o++)
			t[v][o] = rounds_array(rounds);
	}
	for (int o = o0; o < o1; o++)
		ratio[o] = rounds_array(rounds);
	for (int r = 0; r < rounds; r++)
		for (int o = o0; o < o1; o++) {
			for (int j = 0; j < 2; j++) {
				int v = (r & 1) ^ j;  /* A first in even rounds */

				t[v][o][r] = round_of(&lib[v], o, &ks);
			}
			ratio[o][r] = t[1][o][r] / t[0][o][r];
		}
	if (inserts)
		printf("%s:%d, %d rounds of a build each; ns per insert with preload (median of "
		       "the rounds),\nand B / A per round (quartiles):\n", arg[3], log2n, rounds);
	else
		printf("%s:%d, %d rounds of %lu lookups each; ns per lookup (median of the "
		       "rounds),\nand B / A per round (quartiles):\n", arg[3], log2n, rounds, SLICE);
	for (int o = o0; o < o1; o++)
		printf("  %-9s  A %7.1f  B %7.1f  B/A %.3f %.3f %.3f\n", op[o],
		       quantile(t[0][o], (size_t)rounds, 0.5), quantile(t[1][o], (size_t)rounds, 0.5),
		       quantile(ratio[o], (size_t)rounds, 0.25), quantile(ratio[o], (size_t)rounds, 0.5),
		       quantile(ratio[o], (size_t)rounds, 0.75));
	for (int v = 0; v < 2; v++) {
		if (!inserts)
			unbuild(&lib[v]);  /* the nodes' callbacks before the exit */
		for (int o = o0; o < o1; o++)
			free(t[v][o]);
	}
	for (int o = o0; o < o1; o++)
		free(ratio[o]);
	keyset_free(&ks);
	return 0;
}
