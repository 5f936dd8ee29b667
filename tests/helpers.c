/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "helpers.h"
#include "xorshift.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long titem_count;

const unsigned long t_special_keys[] = {
	0, 1, 7, 8, 9, 63, 64, 65, 511, 512, 513, 4095, 4096, 4097,
	1UL << 32, (1UL << 32) - 1, (1UL << 32) + 1, 1UL << 63, (1UL << 63) - 1,
	(1UL << 63) + 1, ULONG_MAX - 64, ULONG_MAX - 63, ULONG_MAX - 1, ULONG_MAX,
};
const unsigned int t_nr_special_keys = sizeof(t_special_keys) / sizeof(t_special_keys[0]);

struct titem *titem_new(unsigned long key)
{
	struct titem *item = malloc(sizeof(*item));

	cr_assert_not_null(item);
	item->key = key;
	item->magic = TITEM_LIVE;
	uatomic_inc(&titem_count);
	return item;
}

void titem_free(struct titem *item)
{
	item->magic = TITEM_DEAD;
	item->key = TITEM_POISON;
	free(item);
	uatomic_dec(&titem_count);
}

static void titem_free_cb(struct rcu_head *head)
{
	titem_free(caa_container_of(head, struct titem, rcu));
}

void titem_free_rcu(const struct rcu_flavor_struct *flavor, struct titem *item)
{
	flavor->update_call_rcu(&item->rcu, titem_free_cb);
}

unsigned long titem_live(void)
{
	return uatomic_read(&titem_count);
}

bool titem_ok(const void *p, unsigned long key)
{
	const struct titem *item = p;

	return item && CMM_LOAD_SHARED(item->magic) == TITEM_LIVE &&
	       CMM_LOAD_SHARED(item->key) == key;
}

void t_insert(struct radix_tree_root *root, unsigned long key, void *item)
{
	int ret = radix_tree_insert(root, key, item);

	cr_assert_eq(ret, 0, "insert(%#lx) returned %d", key, ret);
	cr_assert_eq(radix_tree_lookup(root, key), item, "lookup(%#lx) after insert", key);
}

struct titem *t_insert_new(struct radix_tree_root *root, unsigned long key)
{
	struct titem *item = titem_new(key);

	t_insert(root, key, item);
	return item;
}

void t_delete(struct radix_tree_root *root, unsigned long key, struct titem *item)
{
	void *got = radix_tree_delete(root, key);

	cr_assert_eq(got, item, "delete(%#lx) returned %p, expected %p", key, got, (void *)item);
	cr_assert_null(radix_tree_lookup(root, key), "lookup(%#lx) after delete", key);
	titem_free(item);
}

void t_verify(const struct radix_tree_root *root)
{
	cr_assert_eq(radix_tree_verify(root), 0, "radix_tree_verify failed (see stderr)");
}

unsigned int t_height(const struct radix_tree_root *root)
{
	const void *top = root->rnode;

	/* An IDA's root item is no node: height 0, as an empty tree. */
	return top && rt_is_internal(top) ? rt_entry_level(top) + 1 : 0;
}

void t_assert_no_nodes(void)
{
	struct rcuradix_stats st;

	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
	cr_assert_eq(st.nodes_pending, 0, "%lu nodes still pending", st.nodes_pending);
	cr_assert_eq(st.nodes_reserved, 0, "%lu nodes still reserved", st.nodes_reserved);
	cr_assert_eq(st.nodes_live, 0, "%lu nodes live (allocated %lu, freed %lu)",
		     st.nodes_live, st.nodes_allocated, st.nodes_freed);
	cr_assert_eq(st.backing_bytes, 0, "%lu bytes still held from the allocator",
		     st.backing_bytes);
}

void t_assert_emptied_owns_nothing(const struct radix_tree_root *root, const char *what)
{
	struct radix_tree_memstat mem;

	cr_assert(radix_tree_empty(root), "the emptied %s is not empty", what);
	cr_assert_eq(radix_tree_memory(root, &mem), 0);
	cr_assert_eq(mem.nodes, 0, "an emptied %s keeps %lu nodes", what, mem.nodes);
	cr_assert_eq(mem.bytes, 0);
	t_verify(root);
	urcu_memb_barrier();
	rcuradix_thread_cache_flush();
	t_assert_no_nodes();
}

void t_finish_nowait(struct radix_tree_root *root)
{
	struct rcuradix_stats st;

	t_empty(root);
	rcuradix_thread_cache_flush();
	cr_assert_eq(rcuradix_get_stats(&st, sizeof(st)), 0);
	cr_assert_eq(st.nodes_reserved, 0);
	/* Callbacks may be freeing nodes while we read: a node in flight can
	 * be counted both pending and freed (never neither), so live <=
	 * pending here; any node outside both would make it larger. */
	cr_assert_leq(st.nodes_live, st.nodes_pending,
		      "%lu nodes live but only %lu waiting for a grace period", st.nodes_live,
		      st.nodes_pending);
	cr_assert_eq(titem_live(), 0, "%lu test items leaked", titem_live());
}

void t_finish(struct radix_tree_root *root)
{
	t_empty(root);
	root->flavor->barrier();
	rcuradix_thread_cache_flush();
	t_assert_no_nodes();
	cr_assert_eq(titem_live(), 0, "%lu test items leaked", titem_live());
}

void t_empty(struct radix_tree_root *root)
{
	void *items[64];
	unsigned long indices[64];
	void **slots[64];
	unsigned int n, i;

	/* Free the items the test left behind, then destroy. */
	while ((n = radix_tree_gang_lookup_slot(root, slots, indices, 0, 64)) > 0) {
		for (i = 0; i < n; i++)
			items[i] = radix_tree_delete(root, indices[i]);
		for (i = 0; i < n; i++)
			titem_free(items[i]);
	}
	radix_tree_destroy(root);
	cr_assert(radix_tree_empty(root));
}

unsigned long t_model_hole(bool (*present)(const void *model, unsigned long key),
			   const void *model, unsigned long index, unsigned long max_scan,
			   bool up)
{
	for (unsigned long i = 0; i < max_scan && present(model, index); i++) {
		index = up ? index + 1 : index - 1;
		if (index == (up ? 0 : ULONG_MAX))
			break;  /* ran off the key space */
	}
	return index;
}

unsigned long t_scaled(unsigned long n)
{
	const char *env = getenv("RCURADIX_TEST_SCALE");
	unsigned long scale = env && *env ? strtoul(env, NULL, 0) : 1;

	if (scale <= 1)
		return n;
	return n / scale ? n / scale : 1;
}

/*
 * The seeds of a run.  Under make check, Criterion reports TAP and drops
 * what its test workers print, so a seed a test prints never reaches the
 * log.  The program's first process (this constructor runs before
 * Criterion's main) picks one base seed, prints it as a TAP comment, which
 * the log keeps, and passes it to the workers in the environment; a
 * randomized test's seed is the base mixed with the test's own name.
 * RCURADIX_SEED_BASE=X replays every randomized test of a run,
 * RCURADIX_SEED=X one test with the seed it printed.
 */
static uint64_t t_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

__attribute__((constructor)) static void t_seed_base_init(void)
{
	const char *env = getenv("RCURADIX_SEED_BASE");
	struct timespec ts;
	char text[24];
	uint64_t base;

	if (env && *env)
		return;  /* given, or this is a worker of the first process */
	clock_gettime(CLOCK_REALTIME, &ts);
	base = t_mix((uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
		     (uint64_t)getpid() << 32);
	snprintf(text, sizeof(text), "%#" PRIx64, base);
	setenv("RCURADIX_SEED_BASE", text, 1);
	printf("# randomized tests: RCURADIX_SEED_BASE=%s replays this run\n", text);
	fflush(stdout);
}

void t_rng_init(struct t_rng *rng, const char *what)
{
	const char *env = getenv("RCURADIX_SEED");
	uint64_t seed;

	if (env && *env) {
		seed = strtoull(env, NULL, 0);
	} else {
		const char *base = getenv("RCURADIX_SEED_BASE");
		uint64_t name = 0xcbf29ce484222325ULL;  /* FNV-1a of @what */

		for (const char *c = what; *c; c++)
			name = (name ^ (unsigned char)*c) * 0x100000001b3ULL;
		seed = t_mix((base ? strtoull(base, NULL, 0) : 0) ^ name);
	}
	if (!seed)
		seed = 1;
	rng->s = seed;
	fprintf(stderr, "%s: seed %#" PRIx64 " (set RCURADIX_SEED to replay)\n", what, seed);
}

uint64_t t_rand(struct t_rng *rng)
{
	return xorshift64s(&rng->s);
}

uint64_t t_rand_below(struct t_rng *rng, uint64_t n)
{
	return n ? t_rand(rng) % n : 0;
}

void t_child_init(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(125);  /* the parent is gone already */
}

void t_child_run(t_child_fn *fn, void *arg, struct t_child *child)
{
	pid_t parent = getpid(), pid;
	size_t len = 0;
	int fds[2];

	/* Nothing buffered may be written twice, by the child and by us. */
	fflush(stdout);
	fflush(stderr);
	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		t_child_init(parent);
		close(fds[0]);
		if (dup2(fds[1], STDERR_FILENO) < 0)
			_exit(126);
		close(fds[1]);
		_exit(fn(arg));
	}
	close(fds[1]);
	/* Read to EOF: the child's end closes when it exits or dies. */
	for (;;) {
		ssize_t n = read(fds[0], child->err + len, sizeof(child->err) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		cr_assert_geq(n, 0, "read from the child's stderr: %s", strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
		cr_assert_lt(len, sizeof(child->err) - 1, "the child wrote too much: %.*s",
			     (int)len, child->err);
	}
	child->err[len] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &child->status, 0), pid);
}

unsigned int t_count_lines(const char *text, const char *line)
{
	size_t len = strlen(line);
	unsigned int count = 0;

	while (*text) {
		const char *end = strchr(text, '\n');
		size_t n = end ? (size_t)(end - text) : strlen(text);

		count += n == len && memcmp(text, line, len) == 0;
		text += n + (end != NULL);
	}
	return count;
}

void t_assert_dies(t_child_fn *fn, void *arg, const char *line)
{
	struct t_child child;

	t_child_run(fn, arg, &child);
	cr_assert(WIFSIGNALED(child.status) && WTERMSIG(child.status) == SIGABRT,
		  "expected death by SIGABRT with \"%s\"; the child %s %d, stderr:\n%s", line,
		  WIFSIGNALED(child.status) ? "died of signal" : "exited with status",
		  WIFSIGNALED(child.status) ? WTERMSIG(child.status) : WEXITSTATUS(child.status),
		  child.err);
	cr_assert_eq(t_count_lines(child.err, line), 1, "expected the line \"%s\", stderr:\n%s",
		     line, child.err);
}

void t_assert_lives(t_child_fn *fn, void *arg, const char *text)
{
	struct t_child child;

	t_child_run(fn, arg, &child);
	cr_assert(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0,
		  "expected exit 0; the child %s %d, stderr:\n%s",
		  WIFSIGNALED(child.status) ? "died of signal" : "exited with status",
		  WIFSIGNALED(child.status) ? WTERMSIG(child.status) : WEXITSTATUS(child.status),
		  child.err);
	cr_assert_str_eq(child.err, text, "stderr:\n%s\nexpected:\n%s", child.err, text);
}

const struct t_flavor_ops t_memb_ops = {
	&urcu_memb_flavor, urcu_memb_register_thread, urcu_memb_unregister_thread,
	urcu_memb_read_lock, urcu_memb_read_unlock, NULL,
};

const struct t_flavor_ops t_qsbr_ops = {
	&urcu_qsbr_flavor, urcu_qsbr_register_thread, urcu_qsbr_unregister_thread,
	urcu_qsbr_read_lock, urcu_qsbr_read_unlock, urcu_qsbr_quiescent_state,
};
