/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idr-torture.c - rcuradix-torture --idr: the IDR (<rcuradix/idr.h>) under
 * lock-free readers, as torture.c does for the tree.
 *
 * Ids, each with an index into the writers' model:
 *   near    ids base .. base + K - 1 (--keys K, --idr-base), shared by
 *           every writer.  Every call on them, and the model update that
 *           goes with it, runs under idr_lock(), so the model is exact and
 *           predicts each call: an allocation returns the lowest free id
 *           of its range (idr_alloc(), idr_alloc_u32()), or the lowest
 *           after the last id idr_alloc_cyclic() handed out, wrapping to
 *           the start; -ENOSPC exactly when the model has none; removes
 *           and replacements return the model's item.
 *   stable  every 8th near id in every other run of 256 (in the others
 *           whole leaves empty out and are freed): allocated with their
 *           items before the run, never removed or replaced.
 *   far     64 ids per writer at the top of the u32 range (the last
 *           writer's end at UINT_MAX), allocated with idr_alloc_u32(): the
 *           tree grows to its full height while any is allocated and
 *           shrinks back when none is.  Only their owner changes them,
 *           without idr_lock() (the library takes its lock by itself), and
 *           keeps their model alone; half its allocations are GFP_NOWAIT
 *           after idr_preload().
 * Writers allocate (the lowest free id, cyclic, u32, with an item or NULL
 * to reserve the id), publish reservations with idr_replace(), replace
 * items (by a newer item, or by NULL, which makes the id reserved again),
 * remove ids, allocate with GFP_NOWAIT between idr_preload() and
 * idr_preload_end() under idr_lock() (the first allocation of the window
 * must not fail for lack of memory; later ones may return -ENOMEM), make
 * calls that must fail (-EINVAL, -ENOENT) and change nothing, and compare
 * windows of ids with the model under the lock (and now and then
 * radix_tree_verify()).  They alternate filling phases (allocations
 * outnumber removes: the near ids fill up and allocations meet -ENOSPC)
 * with draining ones (nothing is allocated: every id but the stable ones
 * is freed, and with them the far ids' top nodes).
 *
 * Readers, inside a read-side section of the flavor: idr_find() of a
 * stable id returns its item; idr_find() of any id returns NULL or a LIVE
 * item that carries that id, never an older generation of it than one seen
 * before; ids nobody allocates (below the base, between the near and the
 * far ids, beyond u32) are never found.  The walks -- idr_for_each_entry(),
 * idr_for_each_entry_ul(), idr_for_each_entry_continue(), idr_for_each(),
 * and single idr_get_next() / idr_get_next_ul() calls -- return strictly
 * increasing ids from their start, every item LIVE and carrying its id,
 * never a reserved id, and skip no stable id: a walk that ran to its end saw
 * every stable id at or after its start.  Now and then a reader takes
 * idr_lock() and compares a window with the model exactly.
 *
 * Removed and replaced items go to call_rcu (common.c: poisoned, then
 * quarantined), so a reader that sees a DEAD or poisoned item found one
 * freed before a grace period.  At the end the IDR must equal the model,
 * radix_tree_verify() must pass, and after idr_destroy() and every callback
 * every node and item must have been freed (tsummary()).
 */
#include "config.h"

#include "torture.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include <rcuradix/idr.h>

#define BITS (8 * sizeof(unsigned long))
#define STABLE_EVERY 8UL
#define STABLE_REGION 256UL
#define FAR_PER_WRITER BITS   /* a writer's far ids: one word of the bitmap */
#define PENDING 8U            /* reservations a writer remembers, to publish */
#define WINDOW 64UL           /* ids per locked comparison with the model */
#define FILL_OPS 24576UL      /* a writer's ops per filling phase, */
#define DRAIN_OPS 8192UL      /* then per draining phase */

static const struct tidr_opts *io;
static struct idr idr;
static int stop;

/* ---- ids and model indices --------------------------------------------- */

/*
 * Index i < near_ids is near id base + i; indices from far_index (near_ids
 * rounded up to a word) are the far ids, FAR_PER_WRITER per writer, from
 * far_first up to UINT_MAX.  The indices in between stand for no id.
 */
static unsigned long near_ids, far_index, nr_index, far_first;

static unsigned long id_of(unsigned long i)
{
	return i < far_index ? io->base + i : far_first + (i - far_index);
}

/* The index of @id, or nr_index if the torture never allocates it. */
static unsigned long index_of(unsigned long id)
{
	if (id >= io->base && id - io->base < near_ids)
		return id - io->base;
	if (id >= far_first && id - far_first < nr_index - far_index)
		return far_index + (id - far_first);
	return nr_index;
}

static bool is_stable(unsigned long i)
{
	return i < near_ids && (i / STABLE_REGION) % 2 == 0 &&
	       (i + i / (2 * STABLE_REGION)) % STABLE_EVERY == STABLE_EVERY - 1;
}

/* ---- the model ---------------------------------------------------------- */

/*
 * Near indices: written under idr_lock() only, read under it (and, for
 * the stable items, which never change after setup, by readers).  Far
 * indices: their owner's alone, each writer's in a word of its own.  An id
 * is allocated iff its bit in taken is set; it is reserved if its item is
 * NULL.
 */
static struct titem **items;
static unsigned long *taken, *stable_map;
static unsigned long *gens;    /* per index: grows with every allocation and item */
static unsigned long cyc_next; /* the next start of idr_alloc_cyclic(), as predicted */
static unsigned long near_taken; /* near ids allocated */
static unsigned long nr_taken, nr_items; /* uatomic: all ids, for the progress line */
static unsigned long *stable_ids, nr_stable; /* ascending */

static bool bit_test(const unsigned long *map, unsigned long i)
{
	return (map[i / BITS] >> (i % BITS)) & 1;
}

static void bit_set(unsigned long *map, unsigned long i)
{
	map[i / BITS] |= 1UL << (i % BITS);
}

static void bit_clear(unsigned long *map, unsigned long i)
{
	map[i / BITS] &= ~(1UL << (i % BITS));
}

/* The first i in [@a, @b) whose bit in @map, xor @invert, and not in
 * @exclude (if any) is set; @b if none. */
static unsigned long bits_next(const unsigned long *map, unsigned long invert,
			       const unsigned long *exclude, unsigned long a, unsigned long b)
{
	while (a < b) {
		unsigned long w = (map[a / BITS] ^ invert) & ~(exclude ? exclude[a / BITS] : 0UL);

		w &= ~0UL << (a % BITS);
		if (w) {
			unsigned long i = a / BITS * BITS + (unsigned long)__builtin_ctzl(w);

			return i < b ? i : b;
		}
		a = (a / BITS + 1) * BITS;
	}
	return b;
}

/* The lowest free index in [@a, @b], or nr_index. */
static unsigned long first_free(unsigned long a, unsigned long b)
{
	unsigned long i = a <= b ? bits_next(taken, ~0UL, NULL, a, b + 1) : b + 1;

	return i <= b ? i : nr_index;
}

/* The first index in [@a, @b) holding an item (not a reservation), or @b. */
static unsigned long next_item(unsigned long a, unsigned long b)
{
	for (a = bits_next(taken, 0, NULL, a, b); a < b; a = bits_next(taken, 0, NULL, a + 1, b))
		if (items[a])
			break;
	return a;
}

/* Record the allocation of index @i for @item (NULL: reserved). */
static void model_take(unsigned long i, struct titem *item)
{
	bit_set(taken, i);
	items[i] = item;
	if (i < near_ids)
		near_taken++;
	uatomic_inc(&nr_taken);
	if (item)
		uatomic_inc(&nr_items);
}

/* Record that @i holds @item now (NULL: reserved) instead of items[i]. */
static void model_put(unsigned long i, struct titem *item)
{
	if (item && !items[i])
		uatomic_inc(&nr_items);
	else if (!item && items[i])
		uatomic_dec(&nr_items);
	items[i] = item;
}

static void model_free(unsigned long i)
{
	model_put(i, NULL);
	bit_clear(taken, i);
	if (i < near_ids)
		near_taken--;
	uatomic_dec(&nr_taken);
}

/* ---- threads and statistics --------------------------------------------- */

enum rop {
	R_FIND_STABLE, R_FIND, R_FIND_NEVER, R_FOR_EACH_ENTRY, R_FOR_EACH_ENTRY_UL,
	R_CONTINUE, R_FOR_EACH, R_GET_NEXT, R_GET_NEXT_UL, R_LOCKED, NR_ROPS
};
static const char *const rop_names[NR_ROPS] = {
	"find_stable", "find", "find_never", "for_each_entry", "for_each_entry_ul",
	"for_each_entry_continue", "for_each", "get_next", "get_next_ul", "locked_read",
};

enum wop {
	W_ALLOC, W_CYCLIC, W_U32, W_RESERVE, W_PRELOAD, W_PUBLISH, W_REMOVE, W_REPLACE,
	W_VERIFY, W_EDGE, W_FAR, NR_WOPS
};
static const char *const wop_names[NR_WOPS] = {
	"alloc", "alloc_cyclic", "alloc_u32", "reserve", "preload_nowait", "publish", "remove",
	"replace", "verify", "must_fail", "far",
};

struct ireader {
	pthread_t thread;
	unsigned int idx;
	struct trng rng;
	unsigned long *last_gen; /* newest generation seen per index */
	unsigned long ops[NR_ROPS];
	unsigned long stable_checks; /* stable ids found with their item */
	unsigned long full_walks;    /* walks that ran to their end */
	struct tbeat beat;
} __attribute__((aligned(64)));

struct iwriter {
	pthread_t thread;
	unsigned int idx;
	struct trng rng;
	unsigned long pending[PENDING]; /* indices it reserved, to publish */
	unsigned int nr_pending;
	unsigned long ops[NR_WOPS];
	unsigned long allocs, enospc, enomem;
	struct tbeat beat;
	bool draining;
} __attribute__((aligned(64)));

static struct ireader *readers;
static struct iwriter *writers;
/* The threads' operation counters, set once the threads are allocated. */
static struct tops rops, wops;
_Static_assert(NR_ROPS <= TOPS_MAX_KINDS && NR_WOPS <= TOPS_MAX_KINDS,
	       "every kind fits the shared counters");

static const struct rcu_flavor_struct *rcu(void)
{
	return io->fl->rcu;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "torture: out of memory\n");
		exit(2);
	}
	return p;
}

/* ---- exact checks under the lock --------------------------------------- */

/*
 * Under idr_lock(): idr_find() of every near id of indices [@a, @a + @n)
 * returns the model's item (NULL when reserved or free), and a chain of
 * idr_get_next_ul() calls from id_of(@a) returns exactly the model's items
 * in order, up to the first one past the window.  The far ids change
 * without the lock: the chain takes them as they come, unless @all (no
 * writer runs).
 */
static void locked_check(const char *who, unsigned int idx, unsigned long a, unsigned long n,
			 bool all)
{
	unsigned long limit = all ? nr_index : near_ids, end = a + n < limit ? a + n : limit;
	unsigned long id = id_of(a);

	for (unsigned long i = a; i < end && i < near_ids; i++) {
		void *p = idr_find(&idr, id_of(i));

		if (p != items[i])
			terror("%s %u: under the lock idr_find(%#lx) = %p, model holds %p%s", who, idx,
			       id_of(i), p, (void *)items[i], bit_test(taken, i) ? "" : " (free)");
	}
	for (unsigned long i = a;;) {
		unsigned long want = next_item(i, limit), from = id;
		void *p = idr_get_next_ul(&idr, &id);

		if (want == limit) {
			if (p && (all || index_of(id) < far_index || index_of(id) == nr_index))
				terror("%s %u: under the lock idr_get_next_ul(%#lx) = %p at %#lx, the "
				       "model has no item from there", who, idx, from, p, id);
			if (!p && id != from)
				terror("%s %u: idr_get_next_ul(%#lx) found nothing but moved the id "
				       "to %#lx", who, idx, from, id);
			break;
		}
		if (p != items[want] || id != id_of(want)) {
			terror("%s %u: under the lock idr_get_next_ul(%#lx) = %p at %#lx, model: %p "
			       "at %#lx", who, idx, from, p, id, (void *)items[want], id_of(want));
			break;
		}
		if (want >= end)
			break;
		i = want + 1;
		id = id_of(want) + 1;
	}
}

/* ---- readers ------------------------------------------------------------- */

/*
 * Validate an item a reader got for @id: LIVE, carrying @id, a stable id's
 * own item, no older generation of the id than one seen before.  Returns
 * false after counting an error.
 */
static bool reader_item(struct ireader *r, const void *p, unsigned long id, const char *what)
{
	const char *why = titem_problem(p, id);
	const struct titem *item = p;
	unsigned long i = index_of(id), gen;

	if (why) {
		terror("reader %u: %s: id %#lx: %s", r->idx, what, id, why);
		return false;
	}
	if (i == nr_index || item->id != i) {
		terror("reader %u: %s: id %#lx holds the item of index %lu (%s)", r->idx, what, id,
		       item->id, i == nr_index ? "an id the writers never allocate" : "another id");
		return false;
	}
	gen = item->generation;
	if (is_stable(i)) {
		/* items[] of a stable id never changes after setup. */
		if (p != items[i] || gen != 1) {
			terror("reader %u: %s: stable id %#lx holds %p (generation %lu), not its "
			       "item %p", r->idx, what, id, p, gen, (void *)items[i]);
			return false;
		}
		tcount(&r->stable_checks);
		return true;
	}
	if (gen < r->last_gen[i]) {
		terror("reader %u: %s: id %#lx: generation %lu after %lu (went back in time)",
		       r->idx, what, id, gen, r->last_gen[i]);
		return false;
	}
	r->last_gen[i] = gen;
	return true;
}

/* The position in stable_ids of the first stable id >= @id. */
static unsigned long stable_at_or_above(unsigned long id)
{
	unsigned long lo = 0, hi = nr_stable;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (stable_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One walk: ids strictly increasing from @first, no stable id skipped. */
struct iwalk {
	struct ireader *r;
	const char *what;
	unsigned long first, prev, next_stable; /* position in stable_ids */
	bool any, failed;
};

static void walk_begin(struct iwalk *wk, struct ireader *r, const char *what,
		       unsigned long first)
{
	*wk = (struct iwalk){ r, what, first, 0, stable_at_or_above(first), false, false };
}

static bool walk_fail(struct iwalk *wk, const char *why, unsigned long id)
{
	terror("reader %u: %s from %#lx: %s (id %#lx)", wk->r->idx, wk->what, wk->first, why,
	       id);
	wk->failed = true;
	return false;
}

/* The walk returned @p at @id; false once it broke an invariant. */
static bool walk_id(struct iwalk *wk, unsigned long id, const void *p)
{
	if (id < wk->first)
		return walk_fail(wk, "id below the start", id);
	if (wk->any && id <= wk->prev)
		return walk_fail(wk, "ids not strictly increasing", id);
	wk->any = true;
	wk->prev = id;
	if (!reader_item(wk->r, p, id, wk->what)) {
		wk->failed = true;
		return false;
	}
	if (wk->next_stable < nr_stable && stable_ids[wk->next_stable] < id) {
		terror("reader %u: %s from %#lx: returned id %#lx, skipping stable id %#lx",
		       wk->r->idx, wk->what, wk->first, id, stable_ids[wk->next_stable]);
		wk->failed = true;
		return false;
	}
	if (wk->next_stable < nr_stable && stable_ids[wk->next_stable] == id)
		wk->next_stable++;
	return true;
}

/* The walk ended by itself: it saw every stable id up to @last. */
static void walk_end(struct iwalk *wk, unsigned long last)
{
	if (wk->failed)
		return;
	if (wk->next_stable < nr_stable && stable_ids[wk->next_stable] <= last)
		walk_fail(wk, "ended before a stable id", stable_ids[wk->next_stable]);
	else
		tcount(&wk->r->full_walks);
}

/* How many items a walk visits before breaking off: half the walks run to
 * their end. */
static unsigned long walk_limit(struct ireader *r)
{
	return trand_below(&r->rng, 2) ? ULONG_MAX : 1 + trand_below(&r->rng, 256);
}

/* A near index (mostly), or a far one. */
static unsigned long random_index(struct trng *rng)
{
	if (nr_index > far_index && trand_below(rng, 8) == 0)
		return far_index + trand_below(rng, nr_index - far_index);
	return trand_below(rng, near_ids);
}

/* An id to start a walk from: an allocatable id, one just below, below
 * the base, or between the near and the far ids. */
static unsigned long reader_start(struct ireader *r)
{
	unsigned long id = id_of(random_index(&r->rng));

	switch (trand_below(&r->rng, 8)) {
	case 0: return 0;
	case 1: return id > 2 ? id - 2 : id;
	case 2: return io->base + near_ids + trand_below(&r->rng, 1000);
	default: return id;
	}
}

static void r_find_stable(struct ireader *r)
{
	unsigned long id = stable_ids[trand_below(&r->rng, nr_stable)];
	void *p = idr_find(&idr, id);

	tcount(&r->ops[R_FIND_STABLE]);
	if (!p)
		terror("reader %u: idr_find(%#lx): stable id missing", r->idx, id);
	else
		reader_item(r, p, id, "idr_find");
}

static void r_find(struct ireader *r)
{
	unsigned long id = id_of(random_index(&r->rng));
	void *p = idr_find(&idr, id);

	tcount(&r->ops[R_FIND]);
	if (p)
		reader_item(r, p, id, "idr_find");
}

/* Ids nobody allocates: idr_find() never finds them. */
static void r_find_never(struct ireader *r)
{
	unsigned long id;
	void *p;

	switch (trand_below(&r->rng, 4)) {
	case 0:
		id = io->base ? trand_below(&r->rng, io->base) : ULONG_MAX;
		break;
	case 1:
		id = io->base + near_ids + trand_below(&r->rng, far_first - io->base - near_ids);
		break;
	case 2:
		id = (unsigned long)UINT_MAX + 1 + trand_below(&r->rng, 1UL << 40);
		break;
	default:
		id = ULONG_MAX - trand_below(&r->rng, 4);
		break;
	}
	tcount(&r->ops[R_FIND_NEVER]);
	p = idr_find(&idr, id);
	if (p)
		terror("reader %u: idr_find(%#lx) = %p: nobody allocates that id", r->idx, id, p);
	if (nr_stable && idr_is_empty(&idr))
		terror("reader %u: idr_is_empty() with %lu stable ids", r->idx, nr_stable);
}

static void r_for_each_entry(struct ireader *r)
{
	unsigned long limit = walk_limit(r), seen = 0;
	struct iwalk wk;
	void *entry;
	int id;

	tcount(&r->ops[R_FOR_EACH_ENTRY]);
	walk_begin(&wk, r, "idr_for_each_entry", 0);
	idr_for_each_entry(&idr, entry, id) {
		if (id < 0) {
			walk_fail(&wk, "negative id", (unsigned long)id);
			return;
		}
		if (!walk_id(&wk, (unsigned long)id, entry) || ++seen == limit)
			return;
		/* The loop goes on from the id: the section may end between
		 * steps. */
		if (seen % 16 == 0)
			treader_pause(io->fl);
	}
	walk_end(&wk, INT_MAX);
}

static void r_for_each_entry_ul(struct ireader *r)
{
	unsigned long limit = walk_limit(r), seen = 0, tmp, id;
	struct iwalk wk;
	void *entry;

	tcount(&r->ops[R_FOR_EACH_ENTRY_UL]);
	walk_begin(&wk, r, "idr_for_each_entry_ul", 0);
	idr_for_each_entry_ul(&idr, entry, tmp, id) {
		if (!walk_id(&wk, id, entry) || ++seen == limit)
			return;
		if (seen % 16 == 0)
			treader_pause(io->fl);
	}
	walk_end(&wk, ULONG_MAX);
}

static void r_continue(struct ireader *r)
{
	unsigned long limit = walk_limit(r), seen = 0;
	int id = (int)(reader_start(r) & INT_MAX);
	struct iwalk wk;
	void *entry;

	tcount(&r->ops[R_CONTINUE]);
	walk_begin(&wk, r, "idr_for_each_entry_continue", (unsigned long)id);
	idr_for_each_entry_continue(&idr, entry, id) {
		if (id < 0) {
			walk_fail(&wk, "negative id", (unsigned long)id);
			return;
		}
		if (!walk_id(&wk, (unsigned long)id, entry) || ++seen == limit)
			return;
		if (seen % 16 == 0)
			treader_pause(io->fl);
	}
	walk_end(&wk, INT_MAX);
}

struct for_each_data {
	struct iwalk wk;
	unsigned long limit, seen;
	int stop_with;
};

#define FOR_EACH_FAILED 1 /* the callback's return after an error */

static int for_each_cb(int id, void *p, void *data)
{
	struct for_each_data *fe = data;

	if (id < 0) {
		walk_fail(&fe->wk, "negative id", (unsigned long)id);
		return FOR_EACH_FAILED;
	}
	/* No pause here: idr_for_each() holds nodes across calls. */
	if (!walk_id(&fe->wk, (unsigned long)id, p))
		return FOR_EACH_FAILED;
	return ++fe->seen == fe->limit ? fe->stop_with : 0;
}

static void r_for_each(struct ireader *r)
{
	struct for_each_data fe;
	int ret;

	tcount(&r->ops[R_FOR_EACH]);
	walk_begin(&fe.wk, r, "idr_for_each", 0);
	fe.limit = walk_limit(r);
	fe.seen = 0;
	fe.stop_with = 2 + (int)trand_below(&r->rng, 1000);
	ret = idr_for_each(&idr, for_each_cb, &fe);
	if (fe.wk.failed)
		return;
	if (fe.seen == fe.limit) {
		if (ret != fe.stop_with)
			terror("reader %u: idr_for_each() = %d, its callback stopped it with %d",
			       r->idx, ret, fe.stop_with);
		return;
	}
	if (ret != 0)
		terror("reader %u: idr_for_each() = %d, its callback returned 0 throughout",
		       r->idx, ret);
	walk_end(&fe.wk, INT_MAX);
}

/* One idr_get_next(): the first item at or after the start, no stable id
 * skipped; NULL only if no stable id lies at or after the start.  A
 * negative start finds nothing (idr_for_each_entry() ends there). */
static void r_get_next(struct ireader *r)
{
	int from, id;
	struct iwalk wk;
	void *p;

	switch (trand_below(&r->rng, 8)) {
	case 0: from = INT_MIN + (int)trand_below(&r->rng, 4); break;
	case 1: from = INT_MAX - (int)trand_below(&r->rng, 4); break;
	default: from = (int)(reader_start(r) & INT_MAX); break;
	}
	id = from;
	tcount(&r->ops[R_GET_NEXT]);
	p = idr_get_next(&idr, &id);
	if (from < 0) {
		if (p)
			terror("reader %u: idr_get_next(%d) = %p at %d: a negative start finds "
			       "nothing", r->idx, from, p, id);
		return;
	}
	walk_begin(&wk, r, "idr_get_next", (unsigned long)from);
	if (!p)
		walk_end(&wk, INT_MAX);
	else if (id < 0)
		walk_fail(&wk, "negative id", (unsigned long)id);
	else
		walk_id(&wk, (unsigned long)id, p);
}

static void r_get_next_ul(struct ireader *r)
{
	unsigned long from, id;
	struct iwalk wk;
	void *p;

	switch (trand_below(&r->rng, 8)) {
	case 0: from = ULONG_MAX - trand_below(&r->rng, 4); break;
	case 1: from = (unsigned long)UINT_MAX + trand_below(&r->rng, 4); break;
	case 2: from = far_first + trand_below(&r->rng, 1 + (unsigned long)UINT_MAX - far_first); break;
	default: from = reader_start(r); break;
	}
	id = from;
	tcount(&r->ops[R_GET_NEXT_UL]);
	walk_begin(&wk, r, "idr_get_next_ul", from);
	p = idr_get_next_ul(&idr, &id);
	if (p) {
		walk_id(&wk, id, p);
	} else {
		if (id != from)
			terror("reader %u: idr_get_next_ul(%#lx) found nothing but moved the id to "
			       "%#lx", r->idx, from, id);
		walk_end(&wk, ULONG_MAX);
	}
}

/* Under idr_lock(), inside the read-side section: exact. */
static void r_locked(struct ireader *r)
{
	unsigned long a = trand_below(&r->rng, near_ids);

	tcount(&r->ops[R_LOCKED]);
	idr_lock(&idr);
	locked_check("reader", r->idx, a, WINDOW, false);
	idr_unlock(&idr);
}

static void reader_op(struct ireader *r)
{
	uint64_t x = trand_below(&r->rng, 512);

	if (x == 0) {
		r_locked(r);
		return;
	}
	switch (x % 16) {
	case 0: case 1: case 2:
		if (nr_stable) {
			r_find_stable(r);
			break;
		}
		/* fall through */
	case 3: case 4: case 5: r_find(r); break;
	case 6: r_find_never(r); break;
	case 7: r_for_each_entry(r); break;
	case 8: r_for_each_entry_ul(r); break;
	case 9: r_continue(r); break;
	case 10: r_for_each(r); break;
	case 11: case 12: r_get_next(r); break;
	default: r_get_next_ul(r); break;
	}
}

static void reader_op_cb(void *r)
{
	reader_op(r);
}

static void *reader_main(void *arg)
{
	struct ireader *r = arg;

	treader_loop(io->fl, &r->rng, &r->beat, &stop, io->yield, reader_op_cb, r);
	return NULL;
}

/* ---- writers: allocation ------------------------------------------------ */

static struct titem *w_new_item(unsigned long i)
{
	return titem_new(i, id_of(i), ++gens[i]);
}

enum akind { A_LOWEST, A_CYCLIC, A_U32 };

/* An allocation: its arguments and the index the model predicts. */
struct alloc_call {
	enum akind kind;
	int start, end;          /* idr_alloc(), idr_alloc_cyclic() */
	unsigned long next, max; /* idr_alloc_u32() */
	unsigned long want;      /* the index it must return, or nr_index: -ENOSPC */
};

/* "idr_alloc(start, end)" and so on, for error messages. */
static const char *describe(const struct alloc_call *c, char *buf, size_t size)
{
	if (c->kind == A_U32)
		snprintf(buf, size, "idr_alloc_u32(nextid %#lx, max %#lx)", c->next, c->max);
	else
		snprintf(buf, size, "%s(start %d, end %d)",
			 c->kind == A_LOWEST ? "idr_alloc" : "idr_alloc_cyclic", c->start, c->end);
	return buf;
}

/* A random near id, or 0, or the base. */
static unsigned long near_start(struct iwriter *w)
{
	switch (trand_below(&w->rng, 8)) {
	case 0: return 0;
	case 1: case 2: return io->base;
	default: return id_of(trand_below(&w->rng, near_ids));
	}
}

/* Choose the arguments of a near allocation of @kind and predict it.
 * Under idr_lock(). */
static void plan_alloc(struct iwriter *w, struct alloc_call *c, enum akind kind)
{
	unsigned long last = io->base + near_ids - 1, start = near_start(w), end, lo, hi, from;

	c->kind = kind;
	switch (trand_below(&w->rng, 4)) {
	case 0: end = start + 1 + trand_below(&w->rng, 64); break;
	case 1: end = last + 1 - trand_below(&w->rng, near_ids / 2 + 1); break;
	default: end = last + 1; break;
	}
	if (end > last + 1 || end <= start || end <= io->base)
		end = last + 1;
	/* Ids below the base are never free: the range starts there. */
	lo = start > io->base ? start : io->base;
	hi = end - 1;
	c->want = first_free(index_of(lo), index_of(hi));
	c->start = (int)start;
	c->end = (int)end;
	c->next = start;
	c->max = hi;
	switch (kind) {
	case A_LOWEST:
		/* Up to INT_MAX, when the model has a free near id in range. */
		if (hi == last && c->want != nr_index && trand_below(&w->rng, 4) == 0)
			c->end = trand_below(&w->rng, 2) ? 0 : -1 - (int)trand_below(&w->rng, 100);
		break;
	case A_CYCLIC:
		/* After the last id it handed out, else wrapping to the start. */
		from = cyc_next > start ? cyc_next : start;
		c->want = from <= hi ? first_free(index_of(from > lo ? from : lo), index_of(hi))
				     : nr_index;
		if (c->want == nr_index && from > start)
			c->want = first_free(index_of(lo), index_of(hi));
		break;
	default:
		/* Up to UINT_MAX (or beyond: clamped), the same way. */
		if (hi == last && c->want != nr_index && trand_below(&w->rng, 4) == 0)
			c->max = trand_below(&w->rng, 2) ? UINT_MAX : ULONG_MAX;
		break;
	}
}

/*
 * Make allocation @c with @ptr (NULL: reserve) and @gfp, check it against
 * the model and record it there.  -ENOMEM is allowed if @may_enomem.
 * Returns the index allocated, or nr_index.  Near ids: under idr_lock();
 * far ids: by their owner.
 */
static unsigned long do_alloc(struct iwriter *w, const struct alloc_call *c, struct titem *ptr,
			      gfp_t gfp, bool may_enomem)
{
	uint32_t next = (uint32_t)c->next;
	unsigned long id = 0, got;
	char buf[96];
	int ret;

	tcount(&w->allocs);
	switch (c->kind) {
	case A_LOWEST:
	case A_CYCLIC:
		ret = c->kind == A_LOWEST ? idr_alloc(&idr, ptr, c->start, c->end, gfp)
					  : idr_alloc_cyclic(&idr, ptr, c->start, c->end, gfp);
		if (ret >= 0) {
			id = (unsigned long)ret;
			ret = 0;
		}
		break;
	default:
		ret = idr_alloc_u32(&idr, ptr, &next, c->max, gfp);
		if (ret == 0)
			id = next;
		else if (next != (uint32_t)c->next)
			terror("writer %u: %s = %d changed *nextid to %#x", w->idx,
			       describe(c, buf, sizeof(buf)), ret, next);
		break;
	}
	if (ret) {
		if (ret == -ENOSPC && c->want == nr_index)
			tcount(&w->enospc);
		else if (ret == -ENOMEM && may_enomem)
			tcount(&w->enomem);
		else if (c->want == nr_index)
			terror("writer %u: %s = %d, the model has no free id there (-ENOSPC)",
			       w->idx, describe(c, buf, sizeof(buf)), ret);
		else
			terror("writer %u: %s = %d, the model's lowest free id is %#lx", w->idx,
			       describe(c, buf, sizeof(buf)), ret, id_of(c->want));
		if (ptr)
			titem_free_now(ptr); /* never published */
		return nr_index;
	}
	got = index_of(id);
	if (got != c->want) {
		if (c->want == nr_index)
			terror("writer %u: %s = %#lx, the model has no free id there", w->idx,
			       describe(c, buf, sizeof(buf)), id);
		else
			terror("writer %u: %s = %#lx, the model's lowest free id is %#lx", w->idx,
			       describe(c, buf, sizeof(buf)), id, id_of(c->want));
		/* Adopt an id the model has free (its item carries another id:
		 * readers will say so); leave anything else alone. */
		if (got == nr_index || bit_test(taken, got))
			return nr_index;
	}
	if (c->kind == A_CYCLIC)
		cyc_next = id + 1;
	model_take(got, ptr);
	if (!ptr)
		gens[got]++;
	return got;
}

/* A fresh item for the index @c predicts (for any index when none: the
 * call must fail, and the item is never published). */
static struct titem *w_item_for(const struct alloc_call *c)
{
	if (c->want == nr_index)
		return titem_new(nr_index, 0, 0);
	return titem_new(c->want, id_of(c->want), ++gens[c->want]);
}

/* Remember reserved index @i, to publish it later. */
static void w_remember(struct iwriter *w, unsigned long i)
{
	if (w->nr_pending == PENDING) {
		memmove(w->pending, w->pending + 1, (PENDING - 1) * sizeof(w->pending[0]));
		w->nr_pending--;
	}
	w->pending[w->nr_pending++] = i;
}

/* Under the lock: one near allocation of @kind, of an item or (@reserve)
 * of a reservation. */
static void w_alloc(struct iwriter *w, enum akind kind, bool reserve, gfp_t gfp,
		    bool may_enomem)
{
	struct alloc_call c;
	unsigned long got;

	plan_alloc(w, &c, kind);
	got = do_alloc(w, &c, reserve ? NULL : w_item_for(&c), gfp, may_enomem);
	if (reserve && got != nr_index)
		w_remember(w, got);
}

static void w_alloc_locked(struct iwriter *w, enum akind kind, bool reserve)
{
	idr_lock(&idr);
	w_alloc(w, kind, reserve, GFP_KERNEL, false);
	idr_unlock(&idr);
}

/*
 * idr_preload(), then under the lock one to three GFP_NOWAIT or
 * GFP_ATOMIC allocations: the reserve holds what the first one may need,
 * so it must not fail for lack of memory; the others may (-ENOMEM, and
 * nothing changed).
 */
static void w_preload(struct iwriter *w)
{
	unsigned int nr = 1 + (unsigned int)trand_below(&w->rng, 3);
	int ret = idr_preload(GFP_KERNEL);

	tcount(&w->ops[W_PRELOAD]);
	if (ret)
		terror("writer %u: idr_preload() = %d", w->idx, ret);
	idr_lock(&idr);
	for (unsigned int i = 0; i < nr; i++)
		w_alloc(w, (enum akind)trand_below(&w->rng, 3), trand_below(&w->rng, 4) == 0,
			trand_below(&w->rng, 2) ? GFP_NOWAIT : GFP_ATOMIC, ret || i > 0);
	idr_unlock(&idr);
	idr_preload_end();
}

/* ---- writers: publish, replace, remove ---------------------------------- */

/* idr_find() by a writer, for its exact checks: a reader call. */
static void *w_find(unsigned long id)
{
	void *p;

	rcu()->read_lock();
	p = idr_find(&idr, id);
	rcu()->read_unlock();
	return p;
}

/*
 * idr_replace() of index @i by @item (NULL: reserve it again), checked
 * against the model: the old item, or -ENOENT for a free id.  Returns the
 * old item, for the caller to free after a grace period.  Near ids: under
 * idr_lock(); far ids: by their owner.
 */
static struct titem *do_replace(struct iwriter *w, unsigned long i, struct titem *item)
{
	unsigned long id = id_of(i);
	struct titem *old = items[i];
	void *got = idr_replace(&idr, item, id);

	if (!bit_test(taken, i)) {
		if (!rcuradix_is_err(got) || rcuradix_ptr_err(got) != -ENOENT)
			terror("writer %u: idr_replace(%#lx) of a free id = %p, expected -ENOENT",
			       w->idx, id, got);
		if (item)
			titem_free_now(item); /* never published */
		return NULL;
	}
	if (got != old) {
		terror("writer %u: idr_replace(%#lx) = %p, model holds %p", w->idx, id, got,
		       (void *)old);
		old = NULL; /* not ours to free */
	}
	model_put(i, item);
	got = w_find(id);
	if (got != item)
		terror("writer %u: idr_find(%#lx) after idr_replace = %p, expected %p", w->idx, id,
		       got, (void *)item);
	return old;
}

/* Publish a reservation this writer made, if it still is one (another
 * writer may have published, removed or re-allocated it meanwhile): on a
 * free id, idr_replace() must fail. */
static void w_publish(struct iwriter *w)
{
	struct titem *old = NULL;
	unsigned long i;

	tcount(&w->ops[W_PUBLISH]);
	if (!w->nr_pending)
		return;
	i = w->pending[--w->nr_pending];
	idr_lock(&idr);
	if (!items[i])
		old = do_replace(w, i, w_new_item(i));
	idr_unlock(&idr);
	if (old)
		titem_free_rcu(io->fl, old);
}

/* A random allocated index in [@a, @b), not stable; @b if none. */
static unsigned long pick_taken(struct trng *rng, unsigned long a, unsigned long b)
{
	unsigned long s = a + trand_below(rng, b - a), i = bits_next(taken, 0, stable_map, s, b);

	if (i < b)
		return i;
	i = bits_next(taken, 0, stable_map, a, s);
	return i < s ? i : b;
}

/* Replace the item of index @i by a newer one (2/3) or by NULL; publish
 * it if reserved. */
static struct titem *w_replace_index(struct iwriter *w, unsigned long i)
{
	if (items[i] && trand_below(&w->rng, 3) == 0)
		return do_replace(w, i, NULL);
	return do_replace(w, i, w_new_item(i));
}

static void w_replace(struct iwriter *w)
{
	struct titem *old = NULL;
	unsigned long i;

	tcount(&w->ops[W_REPLACE]);
	idr_lock(&idr);
	i = pick_taken(&w->rng, 0, near_ids);
	if (i < near_ids) {
		old = w_replace_index(w, i);
	} else {
		/* Nothing allocated: on a free id it must fail. */
		i = trand_below(&w->rng, near_ids);
		if (!bit_test(taken, i))
			do_replace(w, i, NULL);
	}
	idr_unlock(&idr);
	if (old)
		titem_free_rcu(io->fl, old);
}

/* idr_remove() of index @i, checked against the model; returns the item,
 * for the caller to free after a grace period.  Near ids: under
 * idr_lock(); far ids: by their owner. */
static struct titem *do_remove(struct iwriter *w, unsigned long i)
{
	unsigned long id = id_of(i);
	struct titem *old = items[i];
	void *got = idr_remove(&idr, id);

	if (got != old) {
		terror("writer %u: idr_remove(%#lx) = %p, model holds %p%s", w->idx, id, got,
		       (void *)old, bit_test(taken, i) ? "" : " (a free id)");
		old = NULL; /* not ours to free */
	}
	if (bit_test(taken, i))
		model_free(i);
	if (w_find(id))
		terror("writer %u: idr_find(%#lx) after idr_remove found an item", w->idx, id);
	return old;
}

static void w_remove(struct iwriter *w)
{
	struct titem *old = NULL;
	unsigned long i;

	tcount(&w->ops[W_REMOVE]);
	idr_lock(&idr);
	if (trand_below(&w->rng, 16) == 0) {
		/* A free id: NULL, and nothing changes. */
		i = trand_below(&w->rng, near_ids);
		if (!bit_test(taken, i))
			do_remove(w, i);
	} else {
		i = pick_taken(&w->rng, 0, near_ids);
		if (i < near_ids)
			old = do_remove(w, i);
	}
	idr_unlock(&idr);
	if (old)
		titem_free_rcu(io->fl, old);
}

/* ---- writers: checks ---------------------------------------------------- */

static void w_verify(struct iwriter *w)
{
	unsigned long a = trand_below(&w->rng, near_ids);
	bool whole = trand_below(&w->rng, 32) == 0;

	tcount(&w->ops[W_VERIFY]);
	idr_lock(&idr);
	locked_check("writer", w->idx, whole ? 0 : a, whole ? near_ids : WINDOW, false);
	if (whole && radix_tree_verify(&idr.idr_rt) != 0)
		terror("writer %u: radix_tree_verify failed (see stderr)", w->idx);
	if (idr_is_empty(&idr) && near_taken)
		terror("writer %u: idr_is_empty() with %lu near ids allocated", w->idx, near_taken);
	idr_unlock(&idr);
}

/* Under the lock, calls that must fail (-EINVAL, or -ENOENT for
 * idr_replace() of an id nobody allocates) and change nothing: a locked
 * check follows. */
static void w_must_fail(struct iwriter *w)
{
	static char buf[8] __attribute__((aligned(8)));
	void *odd = buf + 1 + trand_below(&w->rng, 3);
	unsigned long i = trand_below(&w->rng, near_ids), id = id_of(i);
	uint32_t next = (uint32_t)id + 3;
	int ret, want = -EINVAL;
	void *got;

	tcount(&w->ops[W_EDGE]);
	idr_lock(&idr);
	switch (trand_below(&w->rng, 7)) {
	case 0: /* a negative start */
		ret = idr_alloc(&idr, NULL, -1 - (int)trand_below(&w->rng, 100), 0, GFP_KERNEL);
		break;
	case 1: /* a misaligned item */
		ret = idr_alloc(&idr, odd, (int)id, 0, GFP_KERNEL);
		break;
	case 2: /* an empty range: start >= end > 0 */
		ret = idr_alloc_cyclic(&idr, NULL, (int)id + 2,
				       (int)id + 2 - (int)trand_below(&w->rng, 2), GFP_KERNEL);
		break;
	case 3: /* *nextid > max */
		ret = idr_alloc_u32(&idr, NULL, &next, id + trand_below(&w->rng, 3), GFP_KERNEL);
		if (next != (uint32_t)id + 3)
			terror("writer %u: a failed idr_alloc_u32() changed *nextid", w->idx);
		break;
	case 4: /* a range below the base */
		ret = io->base ? idr_alloc(&idr, NULL, 0, (int)io->base, GFP_KERNEL) : -EINVAL;
		break;
	case 5:
		got = idr_replace(&idr, odd, id);
		ret = rcuradix_is_err(got) ? (int)rcuradix_ptr_err(got) : 0;
		break;
	default: /* below the base, or between the near and far ids */
		got = idr_replace(&idr, NULL, io->base ? io->base - 1 : far_first - 1);
		ret = rcuradix_is_err(got) ? (int)rcuradix_ptr_err(got) : 0;
		want = -ENOENT;
		break;
	}
	if (ret != want)
		terror("writer %u: a call that must fail with %d returned %d", w->idx, want, ret);
	locked_check("writer", w->idx, i >= WINDOW / 2 ? i - WINDOW / 2 : 0, WINDOW, false);
	idr_unlock(&idr);
}

/* ---- writers: far ids, without idr_lock() ------------------------------- */

/*
 * The owner's far ids change only here, without idr_lock(): the library
 * takes its lock by itself.  Nobody else changes them, so the owner's
 * reads of them are exact.
 */
static void w_far(struct iwriter *w)
{
	unsigned long first = far_index + w->idx * FAR_PER_WRITER, end = first + FAR_PER_WRITER;
	unsigned long i = first + trand_below(&w->rng, FAR_PER_WRITER), x = trand_below(&w->rng, 8);
	struct titem *old = NULL;

	tcount(&w->ops[W_FAR]);
	if (x < 3 && !w->draining) {
		struct alloc_call c = { .kind = A_U32, .next = id_of(i) };
		bool nowait = trand_below(&w->rng, 2);
		int ret = nowait ? idr_preload(GFP_KERNEL) : 0;

		/* Up to the block's end; the last block's may be given as
		 * UINT_MAX or beyond (clamped). */
		c.max = id_of(i + trand_below(&w->rng, end - i));
		if (end == nr_index && trand_below(&w->rng, 2))
			c.max = trand_below(&w->rng, 2) ? UINT_MAX : ULONG_MAX;
		c.want = first_free(i, c.max < UINT_MAX ? index_of(c.max) : end - 1);
		/* With GFP_NOWAIT, the first far id takes every node from the
		 * reserve: a new top at the highest level and a chain down. */
		if (ret)
			terror("writer %u: idr_preload() = %d", w->idx, ret);
		do_alloc(w, &c, trand_below(&w->rng, 4) ? w_item_for(&c) : NULL,
			 nowait ? GFP_NOWAIT : GFP_KERNEL, ret != 0);
		if (nowait)
			idr_preload_end();
	} else if (x == 5 && !w->draining) {
		old = bit_test(taken, i) ? w_replace_index(w, i) : do_replace(w, i, NULL);
	} else if (x < 6) {
		unsigned long j = bits_next(taken, 0, NULL, i, end);

		old = do_remove(w, j < end ? j : i);
	} else {
		rcu()->read_lock();
		for (unsigned long j = first; j < end; j++) {
			void *p = idr_find(&idr, id_of(j));

			if (p != items[j])
				terror("writer %u: idr_find(%#lx) = %p, model holds %p", w->idx, id_of(j),
				       p, (void *)items[j]);
		}
		rcu()->read_unlock();
	}
	if (old)
		titem_free_rcu(io->fl, old);
}

/* ---- writers: the loop -------------------------------------------------- */

static void writer_op(struct iwriter *w, unsigned long n)
{
	uint64_t x = trand_below(&w->rng, 100);

	/* Draining: nothing is allocated, every id but the stable ones goes. */
	w->draining = n % (FILL_OPS + DRAIN_OPS) >= FILL_OPS;
	if (x < 8) {
		w_far(w);
		return;
	}
	if (w->draining && x < 50) {
		w_remove(w);
		return;
	}
	if (x < 24) {
		tcount(&w->ops[W_ALLOC]);
		w_alloc_locked(w, A_LOWEST, false);
	} else if (x < 30) {
		tcount(&w->ops[W_CYCLIC]);
		w_alloc_locked(w, A_CYCLIC, false);
	} else if (x < 34) {
		tcount(&w->ops[W_U32]);
		w_alloc_locked(w, A_U32, false);
	} else if (x < 40) {
		tcount(&w->ops[W_RESERVE]);
		w_alloc_locked(w, (enum akind)trand_below(&w->rng, 3), true);
	} else if (x < 44) {
		w_preload(w);
	} else if (x < 50) {
		w_publish(w);
	} else if (x < 76) {
		w_remove(w);
	} else if (x < 88) {
		w_replace(w);
	} else if (x < 96) {
		w_verify(w);
	} else {
		w_must_fail(w);
	}
}

static void *writer_main(void *arg)
{
	struct iwriter *w = arg;
	unsigned long n = 0;

	rcu()->register_thread();
	while (!uatomic_read(&stop)) {
		writer_op(w, n++);
		tcount(&w->beat.count);
		/* Writers are online QSBR threads too: let grace periods end. */
		if (io->fl->qsbr && n % 64 == 0)
			rcu()->read_quiescent_state();
		if (io->yield)
			sched_yield();
	}
	/* Give this thread's node reserve back before the final count. */
	rcuradix_thread_cache_flush();
	rcu()->unregister_thread();
	uatomic_set(&w->beat.done, 1);
	return NULL;
}

/* ---- setup, progress, the end ------------------------------------------- */

/* Allocate the stable ids, each with its item (generation 1). */
static void alloc_stable(void)
{
	stable_ids = xcalloc(near_ids / STABLE_EVERY + 1, sizeof(*stable_ids));
	for (unsigned long i = 0; i < near_ids; i++) {
		unsigned long id = id_of(i);
		struct titem *item;
		int ret;

		if (!is_stable(i))
			continue;
		item = titem_new(i, id, ++gens[i]);
		ret = idr_alloc(&idr, item, (int)id, (int)id + 1, GFP_KERNEL);
		if (ret != (int)id) {
			terror("setup: idr_alloc([%#lx, %#lx]) = %d", id, id + 1, ret);
			if (ret < 0)
				titem_free_now(item);
			continue;
		}
		model_take(i, item);
		bit_set(stable_map, i);
		stable_ids[nr_stable++] = id;
	}
}

static void print_progress(double t, double dt)
{
	struct rcuradix_stats st;

	tops_progress(t, dt, &rops, &wops);
	rcuradix_get_stats(&st, sizeof(st));
	printf(" | ids=%lu items=%lu nodes live=%lu pending=%lu errors=%lu\n",
	       uatomic_read(&nr_taken), uatomic_read(&nr_items), st.nodes_live, st.nodes_pending,
	       terrors());
	fflush(stdout);
}

/* The model at the end, for SUMMARY. */
static unsigned long end_ids, end_items, end_reserved;

/*
 * After join: the IDR equals the model, ids and walks included, and
 * radix_tree_verify() passes.  Then idr_destroy() (the IDR must be empty,
 * and usable again), and every item is freed.
 */
static void final_check_and_destroy(void)
{
	unsigned long walked = 0, walked_int = 0, near_items = 0, tmp, id;
	void *entry;
	int int_id;

	idr_lock(&idr);
	if (radix_tree_verify(&idr.idr_rt) != 0)
		terror("final: radix_tree_verify failed (see stderr)");
	for (unsigned long i = 0; i < nr_index; i++) {
		void *p = i < near_ids || i >= far_index ? idr_find(&idr, id_of(i)) : NULL;

		if (p != items[i])
			terror("final: idr_find(%#lx) = %p, model holds %p", id_of(i), p,
			       (void *)items[i]);
		if (items[i] && titem_problem(items[i], id_of(i)))
			terror("final: id %#lx: %s", id_of(i), titem_problem(items[i], id_of(i)));
		end_ids += bit_test(taken, i);
		end_items += items[i] != NULL;
		near_items += i < near_ids && items[i];
	}
	end_reserved = end_ids - end_items;
	locked_check("final", 0, 0, nr_index, true);
	idr_for_each_entry_ul(&idr, entry, tmp, id) {
		if (index_of(id) == nr_index || entry != items[index_of(id)])
			terror("final: idr_for_each_entry_ul met %p at %#lx", entry, id);
		walked++;
	}
	idr_for_each_entry(&idr, entry, int_id)
		walked_int++;
	if (walked != end_items || walked_int != near_items)
		terror("final: the walks saw %lu items (%lu with int ids), the model holds %lu "
		       "(%lu)", walked, walked_int, end_items, near_items);
	if (end_ids != uatomic_read(&nr_taken) || end_items != uatomic_read(&nr_items))
		terror("final: internal error: model counts");
	if (idr_is_empty(&idr) != !end_ids)
		terror("final: idr_is_empty() = %d with %lu ids", idr_is_empty(&idr), end_ids);
	idr_unlock(&idr);

	idr_destroy(&idr);
	idr_lock(&idr);
	if (!idr_is_empty(&idr) || (nr_stable && idr_find(&idr, stable_ids[0])))
		terror("final: the IDR is not empty after idr_destroy()");
	idr_unlock(&idr);
	if (idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL) != (int)io->base)
		terror("final: after idr_destroy() the first id is not the base");
	idr_destroy(&idr);
	for (unsigned long i = 0; i < nr_index; i++) {
		if (items[i])
			titem_free_now(items[i]);
		items[i] = NULL;
	}
}

static void setup_threads(void)
{
	readers = xcalloc(io->readers, sizeof(*readers));
	rops = (struct tops){ rop_names, NR_ROPS, readers ? readers->ops : NULL,
			      sizeof(*readers), io->readers };
	for (unsigned int i = 0; i < io->readers; i++) {
		readers[i].idx = i;
		readers[i].beat = (struct tbeat){ .role = "reader", .idx = i };
		trng_seed(&readers[i].rng, tseed, i);
		readers[i].last_gen = xcalloc(nr_index, sizeof(unsigned long));
	}
	writers = xcalloc(io->writers, sizeof(*writers));
	wops = (struct tops){ wop_names, NR_WOPS, writers ? writers->ops : NULL,
			      sizeof(*writers), io->writers };
	for (unsigned int i = 0; i < io->writers; i++) {
		writers[i].idx = i;
		writers[i].beat = (struct tbeat){ .role = "writer", .idx = i };
		trng_seed(&writers[i].rng, tseed, 1000 + i);
	}
}

static int summary(double elapsed)
{
	unsigned long r[NR_ROPS], w[NR_WOPS], stable_checks = 0, full_walks = 0;
	unsigned long allocs = 0, enospc = 0, enomem = 0;
	unsigned long reads = tops_sum(&rops, r), writes = tops_sum(&wops, w);
	char ops[2048];

	for (unsigned int i = 0; i < io->readers; i++) {
		stable_checks += readers[i].stable_checks;
		full_walks += readers[i].full_walks;
	}
	for (unsigned int i = 0; i < io->writers; i++) {
		allocs += writers[i].allocs;
		enospc += writers[i].enospc;
		enomem += writers[i].enomem;
	}
	tops_format(ops, sizeof(ops), &rops, r, &wops, w);
	return tsummary(io->fl, elapsed,
			" mode=idr readers=%u writers=%u ids=%lu base=%lu far_ids=%lu yield=%d "
			"stable_ids=%lu reads=%lu writes=%lu%s allocations=%lu enospc=%lu "
			"nowait_enomem=%lu stable_checks=%lu full_walks=%lu ids_at_end=%lu "
			"items_at_end=%lu reserved_at_end=%lu",
			io->readers, io->writers, near_ids, io->base, nr_index - far_index, io->yield,
			nr_stable, reads, writes, ops, allocs, enospc, enomem,
			stable_checks, full_walks, end_ids, end_items, end_reserved);
}

int tidr_run(const struct tidr_opts *opts)
{
	struct tbeat **beats;
	double start, elapsed;
	int ret;

	io = opts;
	near_ids = io->ids;
	far_index = (near_ids + BITS - 1) / BITS * BITS;
	nr_index = far_index + io->writers * FAR_PER_WRITER;
	far_first = (unsigned long)UINT_MAX + 1 - io->writers * FAR_PER_WRITER;
	items = xcalloc(nr_index, sizeof(*items));
	taken = xcalloc(nr_index / BITS + 1, sizeof(*taken));
	stable_map = xcalloc(nr_index / BITS + 1, sizeof(*stable_map));
	gens = xcalloc(nr_index, sizeof(*gens));
	idr_init_flavor(&idr, (unsigned int)io->base, io->fl->rcu);
	rcu()->register_thread();
	alloc_stable();
	setup_threads();
	beats = xcalloc(io->readers + io->writers, sizeof(*beats));
	for (unsigned int i = 0; i < io->readers; i++)
		beats[i] = &readers[i].beat;
	for (unsigned int i = 0; i < io->writers; i++)
		beats[io->readers + i] = &writers[i].beat;
	/* Main only sleeps while the threads run: QSBR must not wait for it. */
	if (io->fl->qsbr)
		rcu()->thread_offline();
	start = tnow();
	for (unsigned int i = 0; i < io->readers; i++)
		if (pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]))
			exit(2);
	for (unsigned int i = 0; i < io->writers; i++)
		if (pthread_create(&writers[i].thread, NULL, writer_main, &writers[i]))
			exit(2);
	tmonitor(beats, io->readers + io->writers, io->duration, &stop, print_progress);
	for (unsigned int i = 0; i < io->readers; i++)
		pthread_join(readers[i].thread, NULL);
	for (unsigned int i = 0; i < io->writers; i++)
		pthread_join(writers[i].thread, NULL);
	elapsed = tnow() - start;
	if (io->fl->qsbr)
		rcu()->thread_online();
	final_check_and_destroy();
	treclaim(io->fl);
	rcu()->unregister_thread();
	ret = summary(elapsed);
	for (unsigned int i = 0; i < io->readers; i++)
		free(readers[i].last_gen);
	free(readers);
	free(writers);
	free(beats);
	free(items);
	free(taken);
	free(stable_map);
	free(gens);
	free(stable_ids);
	return ret;
}
