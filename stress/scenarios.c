/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * scenarios.c - regression scenarios of rcuradix-torture (--scenario NAME):
 * each pins down one interleaving that broke the Linux kernel's radix tree
 * and runs it in a tight loop: one writer thread against --readers reader
 * threads (default 2) for --duration seconds.  Each scenario's comment says
 * what broke in the kernel (the kernel commit that fixed it, or the kernel
 * regression test that reproduces it), what the writer does, what the
 * readers race with, and what they check.
 *
 * Common to all: items carry their key and a magic that the call_rcu
 * callback turns to DEAD (then poisons) when a deleted item is reclaimed;
 * every call must return, so the watchdog (tmonitor(), common.c) fails the
 * run (exit 3) when a thread makes no progress for TSTUCK_SECONDS (a
 * livelock); at the end the tree is verified and torn down (tteardown()),
 * and every node and item must have been freed (tsummary()).
 */
#include "config.h"

#include "torture.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SC_MAX_READERS 64
#define SC_MAX_GANG 256

static const struct tscenario_opts *so;
static struct radix_tree_root sc_tree;
static int sc_stop;

struct sc_thread {
	pthread_t thread;
	unsigned int idx;
	struct trng rng;
	struct tbeat beat;  /* count: completed reader calls / writer cycles */
} __attribute__((aligned(64)));

static struct sc_thread sc_writer, sc_readers[SC_MAX_READERS];
static unsigned int sc_nr_readers;

static const struct rcu_flavor_struct *rcu(void)
{
	return so->fl->rcu;
}

/* Reader side: leave and re-enter the read-side section between calls. */
static void sc_reader_pause(struct sc_thread *t)
{
	if (so->fl->qsbr) {
		if (t->beat.count % 256 == 0)
			rcu()->read_quiescent_state();
	} else {
		rcu()->read_unlock();
		rcu()->read_lock();
	}
	if (so->yield)
		sched_yield();
}

/* Writer side: QSBR writers are online and must let grace periods end. */
static void sc_writer_pause(struct sc_thread *t)
{
	if (so->fl->qsbr && t->beat.count % 64 == 0)
		rcu()->read_quiescent_state();
	if (so->yield)
		sched_yield();
}

static bool sc_running(void)
{
	return !uatomic_read(&sc_stop);
}

/* Insert a fresh item for @key, optionally tagged with tag 0 (flag first). */
static struct titem *sc_insert(unsigned long key, bool tagged)
{
	struct titem *item = titem_new(key, key, 1);
	int ret = radix_tree_insert(&sc_tree, key, item);

	if (ret) {
		terror("writer: insert(%#lx) = %d", key, ret);
		titem_free_now(item);
		return NULL;
	}
	if (tagged) {
		uatomic_or(&item->tags_ever, 1UL);
		uatomic_or(&item->tags_now, 1UL);
		/* The flag is visible before the tag. */
		cmm_smp_mb__after_uatomic_or();
		if (radix_tree_tag_set(&sc_tree, key, 0) != item)
			terror("writer: tag_set(%#lx) missed the item", key);
	}
	return item;
}

/*
 * Deletions so far (see delete_epoch in torture.c): a tagged walk may
 * return a never-tagged item that refilled the slot of a deleted tagged
 * one; only if no delete ran since the walk loaded its tag bits must every
 * item it returns have borne the tag.
 */
static unsigned long sc_delete_epoch;

static unsigned long sc_epoch(void)
{
	unsigned long e = uatomic_read(&sc_delete_epoch);

	/* Read before the walk's later loads. */
	cmm_smp_rmb();
	return e;
}

/* Delete @key, which must hold @item; free it after a grace period. */
static void sc_delete(unsigned long key, struct titem *item)
{
	void *got = radix_tree_delete(&sc_tree, key);

	if (got != item)
		terror("writer: delete(%#lx) = %p, expected %p", key, got, (void *)item);
	/* The delete is visible before the count moves, and the count moves
	 * before this (only) writer refills the slot. */
	cmm_smp_mb();
	uatomic_inc(&sc_delete_epoch);
	cmm_smp_mb__after_uatomic_inc();
	if (item)
		titem_free_rcu(so->fl, item);
}

/* A reader-side item check; returns false after counting an error. */
static bool sc_item_ok(const char *what, const void *p, unsigned long key)
{
	const char *why = titem_problem(p, key);

	if (why)
		terror("reader: %s: key %#lx: %s", what, key, why);
	return !why;
}

/*
 * A thread of a scenario.  Readers run inside a read-side section, which
 * sc_reader_pause() leaves and re-enters between calls.  The writer makes
 * writer calls only and holds no read-side section (QSBR: it is online and
 * announces quiescent states in sc_writer_pause()), so that grace periods
 * end, and call_rcu callbacks free nodes and items, while the readers race
 * with the writer: reclamation is part of every scenario.
 */
static void *sc_thread_main(void *arg, void (*body)(struct sc_thread *), bool reader)
{
	struct sc_thread *t = arg;

	rcu()->register_thread();
	if (reader)
		rcu()->read_lock();
	body(t);
	if (reader)
		rcu()->read_unlock();
	rcuradix_thread_cache_flush();
	rcu()->unregister_thread();
	uatomic_set(&t->beat.done, 1);
	return NULL;
}

static unsigned long sc_reader_calls(void)
{
	unsigned long calls = 0;

	for (unsigned int i = 0; i < sc_nr_readers; i++)
		calls += tread(&sc_readers[i].beat.count);
	return calls;
}

/* One progress line: reader calls and writer cycles per second. */
static void sc_progress(double t, double dt)
{
	static unsigned long prev_calls, prev_cycles;
	unsigned long calls = sc_reader_calls(), cycles = tread(&sc_writer.beat.count);

	printf("t=%3.0fs reader calls/s=%.0f writer cycles/s=%.0f errors=%lu\n", t,
	       (double)(calls - prev_calls) / dt, (double)(cycles - prev_cycles) / dt, terrors());
	fflush(stdout);
	prev_calls = calls;
	prev_cycles = cycles;
}

/* Run @writer and the readers for the duration, under the watchdog. */
static void sc_run(void *(*writer)(void *), void *(*reader)(void *))
{
	struct tbeat *beats[SC_MAX_READERS + 1];

	sc_nr_readers = so->readers < SC_MAX_READERS ? so->readers : SC_MAX_READERS;
	sc_writer.beat = (struct tbeat){ .role = "writer", .idx = 0 };
	beats[0] = &sc_writer.beat;
	if (pthread_create(&sc_writer.thread, NULL, writer, &sc_writer))
		exit(2);
	for (unsigned int i = 0; i < sc_nr_readers; i++) {
		sc_readers[i].idx = i;
		sc_readers[i].beat = (struct tbeat){ .role = "reader", .idx = i };
		beats[1 + i] = &sc_readers[i].beat;
		trng_seed(&sc_readers[i].rng, tseed, i);
		if (pthread_create(&sc_readers[i].thread, NULL, reader, &sc_readers[i]))
			exit(2);
	}
	tmonitor(beats, 1 + sc_nr_readers, so->duration, &sc_stop, sc_progress);
	pthread_join(sc_writer.thread, NULL);
	for (unsigned int i = 0; i < sc_nr_readers; i++)
		pthread_join(sc_readers[i].thread, NULL);
}

/* Verify, then the common teardown and SUMMARY. */
static int sc_finish(const char *name)
{
	rcu()->register_thread();
	if (radix_tree_verify(&sc_tree) != 0)
		terror("final: radix_tree_verify failed (see stderr)");
	tteardown(&sc_tree, so->fl);
	rcu()->unregister_thread();
	return tsummary(so->fl, so->duration,
			" scenario=%s readers=%u reader_calls=%lu writer_cycles=%lu", name,
			sc_nr_readers, sc_reader_calls(), tread(&sc_writer.beat.count));
}

/* ------------------------------------------------------------------------
 * gang-livelock
 *
 * The writer loops: insert(0), insert(1), delete(1), delete(0).  The tree
 * goes empty -> one leaf holding 0 -> {0, 1} -> {0} -> empty, so the leaf a
 * reader is in is unlinked and freed again and again, and the root flips
 * between NULL and a node.  The readers loop on gang_lookup(0),
 * gang_lookup_slot(0) and a for_each_slot walk from 0, each racing with
 * every step of that cycle.  In the kernel, a reader holding a slot of a
 * node being shrunk away livelocked (27d20fddc8af, "regression1"), and a
 * gang lookup once returned an internal node pointer as an item
 * (46437f9a554f).  Checks: every call returns (watchdog); at most 2
 * results, keys 0 then 1, strictly ascending; every item LIVE with its own
 * key, never an internal pointer.
 */

static void gl_writer_body(struct sc_thread *t)
{
	while (sc_running()) {
		struct titem *a = sc_insert(0, false);
		struct titem *b = sc_insert(1, false);

		sc_delete(1, b);
		sc_delete(0, a);
		tcount(&t->beat.count);
		sc_writer_pause(t);
	}
}

static void *gl_writer(void *arg)
{
	return sc_thread_main(arg, gl_writer_body, false);
}

static void gl_check(const char *what, unsigned int n, const unsigned long *keys, void **items)
{
	if (n > 2) {
		terror("reader: %s(0) returned %u items, at most 2 exist", what, n);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (keys[i] > 1 || (i && keys[i] <= keys[i - 1])) {
			terror("reader: %s(0): key %#lx at position %u", what, keys[i], i);
			return;
		}
		if (items[i])
			sc_item_ok(what, items[i], keys[i]);
	}
}

static void gl_reader_body(struct sc_thread *t)
{
	unsigned int max = so->gang < SC_MAX_GANG ? so->gang : SC_MAX_GANG;

	while (sc_running()) {
		void *items[SC_MAX_GANG], **slots[SC_MAX_GANG];
		unsigned long keys[SC_MAX_GANG];
		struct radix_tree_iter iter;
		unsigned int n;
		void **slot;

		switch (trand_below(&t->rng, 3)) {
		case 0:
			n = radix_tree_gang_lookup(&sc_tree, items, 0, max);
			for (unsigned int i = 0; i < n && i < 2; i++) {
				/* The item's own key is all we have; an internal
				 * pointer has its low bit set. */
				keys[i] = items[i] && !((uintptr_t)items[i] & 3)
						  ? CMM_LOAD_SHARED(((struct titem *)items[i])->key)
						  : 0;
				if (!sc_item_ok("gang_lookup", items[i], keys[i]))
					items[i] = NULL;
			}
			gl_check("gang_lookup", n, keys, items);
			break;
		case 1:
			n = radix_tree_gang_lookup_slot(&sc_tree, slots, keys, 0, max);
			for (unsigned int i = 0; i < n && i < 2; i++)
				/* Pairs with the writer's rcu_assign_pointer. */
				items[i] = rcu_dereference(*slots[i]);
			gl_check("gang_lookup_slot", n, keys, items);
			break;
		default:
			n = 0;
			radix_tree_for_each_slot(slot, &sc_tree, &iter, 0) {
				if (n == 2) {
					n++;
					break;
				}
				keys[n] = radix_tree_iter_index(&iter);
				/* Pairs with the writer's rcu_assign_pointer. */
				items[n++] = rcu_dereference(*slot);
			}
			gl_check("for_each_slot", n, keys, items);
			break;
		}
		tcount(&t->beat.count);
		sc_reader_pause(t);
	}
}

static void *gl_reader(void *arg)
{
	return sc_thread_main(arg, gl_reader_body, true);
}

static int sc_gang_livelock(void)
{
	sc_run(gl_writer, gl_reader);
	return sc_finish("gang-livelock");
}

/* ------------------------------------------------------------------------
 * grow-shrink and grow-shrink-far
 *
 * Key 0 holds one item for the whole run, tagged with tag 0.  The writer
 * loops: insert(K), maybe tag K, delete(K), with K alternating between 1
 * and the first key of the next leaf (grow-shrink: key 1 shares key 0's
 * leaf, as in the kernel's height 0 -> 1 case where an item sat in the
 * root; the next leaf's key adds one level above it and removes it) or K
 * cycling through 1 << 40 and ULONG_MAX (grow-shrink-far: the root grows by
 * 7 or 11 levels of 64-slot nodes, 14 or 22 of 8-slot nodes, and shrinks
 * back, each time publishing a new root whose slot 0 leads down to the
 * unchanged leaf of key 0, then unpublishing it).  Readers race with both:
 * a reader that loaded the old root keeps descending it; one that loaded a
 * new top node must still decode every level correctly.  In the kernel, a
 * shrunk node zeroed before its grace period (643b52b9c0b4) made lookup(0)
 * return NULL, and a stale root tag copied into new top nodes made tagged
 * lookups spin (regression2).  Checks: lookup(0) and lookup_slot(0) return
 * exactly the item of key 0 every time; tag_get(0, 0) is 1; tagged(0) is
 * set and the tree never reads empty; gang_lookup and gang_lookup_tag from 0
 * start with key 0's item; lookups of K see nothing or K's own LIVE item.
 */

static struct titem *gs_zero;
static unsigned long gs_near_keys[2] = { 1, 0 /* set to the leaf size */ };
static const unsigned long gs_far_keys[] = { 1UL << 40, ULONG_MAX };
static const unsigned long *gs_keys;
static unsigned int gs_nr_keys;

static void gs_writer_body(struct sc_thread *t)
{
	unsigned int i = 0;

	while (sc_running()) {
		unsigned long key = gs_keys[i++ % gs_nr_keys];
		struct titem *item = sc_insert(key, trand_below(&t->rng, 2));

		sc_delete(key, item);
		tcount(&t->beat.count);
		sc_writer_pause(t);
	}
}

static void *gs_writer(void *arg)
{
	struct sc_thread *t = arg;

	trng_seed(&t->rng, tseed, 999);
	return sc_thread_main(arg, gs_writer_body, false);
}

/* A gang lookup from 0: key 0's item, then writer keys once each, ascending. */
static void gs_check_gang(const char *what, void **items, unsigned int n)
{
	unsigned long prev = 0;

	if (n < 1 || items[0] != gs_zero || n > 1 + gs_nr_keys) {
		terror("reader: %s(0) = %u items, first %p (key %#lx)", what, n, n ? items[0] : NULL, n ? ((struct titem *)items[0])->key : 0UL);
		return;
	}
	for (unsigned int i = 1; i < n; i++) {
		unsigned long key = CMM_LOAD_SHARED(((struct titem *)items[i])->key);

		if (key != gs_keys[0] && key != gs_keys[1]) {
			terror("reader: %s(0) returned key %#lx, not one of the writer's", what, key);
			return;
		}
		if (!sc_item_ok(what, items[i], key))
			return;
		if (key <= prev) {
			terror("reader: %s(0) keys not ascending: %#lx after %#lx", what, key, prev);
			return;
		}
		prev = key;
	}
}

static void gs_reader_body(struct sc_thread *t)
{
	unsigned int max = so->gang < SC_MAX_GANG ? so->gang : SC_MAX_GANG;

	while (sc_running()) {
		unsigned long key = gs_keys[trand_below(&t->rng, gs_nr_keys)];
		void *items[SC_MAX_GANG], **slot, *p;
		unsigned int n;

		/* Mostly lookup(0): the race is a reader inside the old top
		 * nodes while the writer unpublishes them. */
		for (unsigned int i = 0; i < 32; i++)
			if ((p = radix_tree_lookup(&sc_tree, 0)) != gs_zero)
				terror("reader: lookup(0) = %p, expected %p", p, (void *)gs_zero);
		slot = radix_tree_lookup_slot(&sc_tree, 0);
		/* Pairs with the writer's rcu_assign_pointer.  NULL: the node
		 * was copied since (guarantee C), and a lookup finds it again. */
		p = slot ? rcu_dereference(*slot) : NULL;
		if (!slot || (p != gs_zero && (p || radix_tree_lookup(&sc_tree, 0) != gs_zero)))
			terror("reader: lookup_slot(0) = %p reads %p, expected key 0's item",
			       (void *)slot, p);
		if (radix_tree_tag_get(&sc_tree, 0, 0) != 1)
			terror("reader: tag_get(0, 0) = %d", radix_tree_tag_get(&sc_tree, 0, 0));
		if (!radix_tree_tagged(&sc_tree, 0) || radix_tree_empty(&sc_tree))
			terror("reader: tagged(0) = 0 or empty() while key 0 is tagged");
		p = radix_tree_lookup(&sc_tree, key);
		if (p)
			sc_item_ok("lookup", p, key);
		/*
		 * A gang lookup is a sequence of lookups, not a snapshot
		 * (guarantee D): it may see K = 1 and then, once the writer
		 * deleted 1 and inserted the next leaf's key, that key too.
		 * So: key 0's item first, then each of the writer's keys at
		 * most once, in ascending order, each its own LIVE item; a
		 * bound of 2 results would be wrong for a fast enough walk.
		 */
		n = radix_tree_gang_lookup(&sc_tree, items, 0, max);
		gs_check_gang("gang_lookup", items, n);
		n = radix_tree_gang_lookup_tag(&sc_tree, items, 0, max, 0);
		gs_check_gang("gang_lookup_tag", items, n);
		tcount(&t->beat.count);
		sc_reader_pause(t);
	}
}

static void *gs_reader(void *arg)
{
	return sc_thread_main(arg, gs_reader_body, true);
}

static int sc_grow_shrink(bool far)
{
	struct rcuradix_stats st;

	rcuradix_get_stats(&st, sizeof(st));
	gs_near_keys[1] = (st.node_size - 64) / sizeof(void *);
	gs_keys = far ? gs_far_keys : gs_near_keys;
	gs_nr_keys = 2;
	rcu()->register_thread();
	gs_zero = sc_insert(0, true);
	rcuradix_thread_cache_flush();
	rcu()->unregister_thread();
	sc_run(gs_writer, gs_reader);
	return sc_finish(far ? "grow-shrink-far" : "grow-shrink");
}

/* ------------------------------------------------------------------------
 * tagged-iter
 *
 * Keys [0, 32 leaves) and one far key 2^40.  "Anchor" keys -- the last key
 * of every 4th leaf, and 2^40 -- are inserted tagged (tag 0) before the run
 * and never touched.  Every other key below 32 leaves is churned by the
 * writer, always BEHIND the readers: it reads the lowest position the
 * readers' tagged walks have reached and only deletes, re-inserts (tagged
 * or not), tags and untags keys below it.  Whole leaves without an anchor
 * are emptied and freed behind a walk, and their parents' tag bits are
 * cleared and set again.  The readers loop on for_each_tagged(0) (with
 * radix_tree_iter_resume and a pause every 8 items) and on a chain of
 * gang_lookup_tag calls, each continuing from the last key + 1.  The
 * kernel's tagged walks once ended early or spun when tags changed under
 * them (regression2, and the tag propagation order of 144dcfc01221).
 * Checks: each walk visits every anchor, in ascending order, up to 2^40
 * (it must not end early); every item it returns is LIVE, has its own key
 * and was tagged at some point.
 */

#define TI_LEAVES 32UL
#define TI_FAR (1UL << 40)
static unsigned long ti_span, ti_leaf;    /* keys in the churned range, per leaf */
static unsigned long ti_pos[SC_MAX_READERS]; /* each reader's walk position */
static struct titem **ti_items;           /* churned keys: writer's items */

static bool ti_is_anchor(unsigned long key)
{
	return key == TI_FAR || (key < ti_span && key % (4 * ti_leaf) == 4 * ti_leaf - 1);
}

/* The next anchor after @key (TI_FAR is the last). */
static unsigned long ti_next_anchor(unsigned long key)
{
	unsigned long a = (key / (4 * ti_leaf)) * (4 * ti_leaf) + 4 * ti_leaf - 1;

	if (a <= key)
		a += 4 * ti_leaf;
	return a < ti_span ? a : TI_FAR;
}

static void ti_writer_body(struct sc_thread *t)
{
	while (sc_running()) {
		unsigned long behind = ULONG_MAX, key;
		struct titem *item;

		for (unsigned int i = 0; i < sc_nr_readers; i++) {
			unsigned long pos = uatomic_read(&ti_pos[i]);

			if (pos < behind)
				behind = pos;
		}
		if (behind > ti_span)
			behind = ti_span;
		tcount(&t->beat.count);
		sc_writer_pause(t);
		if (behind < 2)
			continue;
		key = trand_below(&t->rng, behind);
		if (ti_is_anchor(key))
			continue;
		item = ti_items[key];
		switch (trand_below(&t->rng, 4)) {
		case 0: /* delete and re-add at once, tagged */
			if (item)
				sc_delete(key, item);
			ti_items[key] = sc_insert(key, true);
			break;
		case 1: /* delete, or add tagged */
			if (item) {
				sc_delete(key, item);
				ti_items[key] = NULL;
			} else {
				ti_items[key] = sc_insert(key, true);
			}
			break;
		case 2: /* untag: the tag first, the flag after */
			if (!item)
				break;
			if (radix_tree_tag_clear(&sc_tree, key, 0) != item)
				terror("writer: tag_clear(%#lx) missed the item", key);
			cmm_smp_mb(); /* the tag is gone before the flag */
			uatomic_and(&item->tags_now, ~1UL);
			break;
		default: /* add untagged or delete */
			if (item) {
				sc_delete(key, item);
				ti_items[key] = NULL;
			} else {
				ti_items[key] = sc_insert(key, false);
			}
			break;
		}
	}
}

static void *ti_writer(void *arg)
{
	struct sc_thread *t = arg;

	trng_seed(&t->rng, tseed, 999);
	return sc_thread_main(arg, ti_writer_body, false);
}

/* One walk's bookkeeping: the next anchor it must meet. */
struct ti_walk {
	const char *what;
	unsigned long next_anchor, prev, epoch;
	bool any, failed;
};

static void ti_walk_key(struct ti_walk *w, unsigned long key, void *p)
{
	if (w->failed)
		return;
	if (w->any && key <= w->prev) {
		terror("reader: %s(0): key %#lx after %#lx", w->what, key, w->prev);
		w->failed = true;
		return;
	}
	w->any = true;
	w->prev = key;
	if (key > w->next_anchor) {
		terror("reader: %s(0) skipped the tagged anchor %#lx (now at %#lx)", w->what,
		       w->next_anchor, key);
		w->failed = true;
		return;
	}
	if (key == w->next_anchor)
		w->next_anchor = key == TI_FAR ? ULONG_MAX : ti_next_anchor(key);
	if (p && sc_item_ok(w->what, p, key)) {
		/* Pairs with the writer's barrier between flag and tag. */
		cmm_smp_rmb();
		if (!(CMM_LOAD_SHARED(((struct titem *)p)->tags_ever) & 1UL) &&
		    sc_epoch() == w->epoch)
			terror("reader: %s(0) returned key %#lx, never tagged", w->what, key);
	}
}

static void ti_walk_end(struct ti_walk *w)
{
	if (!w->failed && w->next_anchor != ULONG_MAX)
		terror("reader: %s(0) ended early, before the tagged anchor %#lx", w->what,
		       w->next_anchor);
}

static void ti_reader_body(struct sc_thread *t)
{
	unsigned int max = so->gang < SC_MAX_GANG ? so->gang : SC_MAX_GANG;

	while (sc_running()) {
		struct ti_walk w = { NULL, ti_next_anchor(0), 0, sc_epoch(), false, false };
		unsigned int seen = 0;

		if (ti_is_anchor(0))
			w.next_anchor = 0;
		uatomic_set(&ti_pos[t->idx], 0UL);
		if (trand_below(&t->rng, 2)) {
			struct radix_tree_iter iter;
			void **slot;

			w.what = "for_each_tagged";
			radix_tree_for_each_tagged(slot, &sc_tree, &iter, 0, 0) {
				unsigned long key = radix_tree_iter_index(&iter);

				/* Pairs with the writer's rcu_assign_pointer. */
				ti_walk_key(&w, key, rcu_dereference(*slot));
				/* Publish the position: the writer works below it. */
				uatomic_set(&ti_pos[t->idx], key);
				if (++seen % 8 == 0) {
					slot = radix_tree_iter_resume(slot, &iter);
					sc_reader_pause(t);
					w.epoch = sc_epoch();
				}
			}
		} else {
			void *items[SC_MAX_GANG];
			unsigned long first = 0;
			unsigned int n;

			w.what = "gang_lookup_tag chain";
			do {
				w.epoch = sc_epoch();
				n = radix_tree_gang_lookup_tag(&sc_tree, items, first, max, 0);
				for (unsigned int i = 0; i < n; i++) {
					unsigned long key = items[i] && !((uintptr_t)items[i] & 3)
						? CMM_LOAD_SHARED(((struct titem *)items[i])->key)
						: ULONG_MAX;

					ti_walk_key(&w, key, items[i]);
					first = key + 1;
				}
				uatomic_set(&ti_pos[t->idx], first);
				sc_reader_pause(t);
			} while (n == max && first != 0 && !w.failed);
		}
		ti_walk_end(&w);
		/* Let the writer work on the whole range between walks. */
		uatomic_set(&ti_pos[t->idx], ULONG_MAX);
		tcount(&t->beat.count);
		sc_reader_pause(t);
	}
}

static void *ti_reader(void *arg)
{
	return sc_thread_main(arg, ti_reader_body, true);
}

static int sc_tagged_iter(void)
{
	struct rcuradix_stats st;
	int ret;

	rcuradix_get_stats(&st, sizeof(st));
	ti_leaf = (st.node_size - 64) / sizeof(void *);
	ti_span = TI_LEAVES * ti_leaf;
	ti_items = calloc(ti_span, sizeof(*ti_items));
	if (!ti_items)
		return 2;
	rcu()->register_thread();
	for (unsigned long key = 0; key < ti_span; key++)
		if (ti_is_anchor(key))
			sc_insert(key, true);
		else if (key % 3)
			ti_items[key] = sc_insert(key, key % 2);
	sc_insert(TI_FAR, true);
	rcuradix_thread_cache_flush();
	rcu()->unregister_thread();
	for (unsigned int i = 0; i < SC_MAX_READERS; i++)
		ti_pos[i] = ULONG_MAX;
	sc_run(ti_writer, ti_reader);
	ret = sc_finish("tagged-iter");
	free(ti_items);
	return ret;
}

/* ---- dispatch ---------------------------------------------------------- */

const char *const tscenario_names[] = {
	"gang-livelock", "grow-shrink", "grow-shrink-far", "tagged-iter", NULL,
};

int tscenario_run(const char *name, const struct tscenario_opts *opts)
{
	so = opts;
	radix_tree_init_flavor(&sc_tree, GFP_KERNEL, so->fl->rcu);
	trng_seed(&sc_writer.rng, tseed, 999);
	if (strcmp(name, "gang-livelock") == 0)
		return sc_gang_livelock();
	if (strcmp(name, "grow-shrink") == 0)
		return sc_grow_shrink(false);
	if (strcmp(name, "grow-shrink-far") == 0)
		return sc_grow_shrink(true);
	if (strcmp(name, "tagged-iter") == 0)
		return sc_tagged_iter();
	return -1;
}
