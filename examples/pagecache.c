/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pagecache.c - a threaded page-cache simulation, the job the kernel's radix
 * tree was built for.
 *
 *   reader threads   look pages up by index under RCU, without any lock, and
 *                    check that every page they see is a consistent version;
 *   a writer         dirties pages: it builds a new version of a page, swaps
 *                    it in with radix_tree_replace_slot(), tags it DIRTY, and
 *                    sometimes evicts a clean page or reads a missing one in;
 *   a flusher        tags DIRTY pages TOWRITE in batches with
 *                    radix_tree_range_tag_if_tagged(), collects them with
 *                    radix_tree_gang_lookup_tag() and "writes them back" to a
 *                    simulated disk, clearing both tags.
 *
 * Pages replaced or evicted are freed with call_rcu(): a reader may still be
 * looking at them.  At the end every version the writer made must have
 * reached the disk, no page may still be tagged, no reader may have seen a
 * torn or wrong page, and the library must hold no node.
 *
 *   usage: pagecache [writes]            (default 200000)
 *   build: cc pagecache.c $(pkg-config --cflags --libs rcuradix liburcu-memb)
 */
#include <rcuradix/radix-tree.h>
#include <urcu/urcu-memb.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NR_PAGES 4096UL         /* size of the simulated file, in pages */
#define NR_READERS 2
#define TAG_DIRTY 0             /* page changed since it was written back */
#define TAG_TOWRITE 1           /* page chosen for the current writeback pass */
#define FLUSH_BATCH 64UL        /* pages tagged / written per call */

/* A page is immutable once published: a change makes a new version. */
struct page {
	unsigned long index;
	unsigned long version;
	unsigned long check;    /* checksum of index and version */
	struct rcu_head rcu;    /* for the deferred free */
};

static RADIX_TREE(cache, GFP_KERNEL);  /* default flavor: urcu-memb */
/* What the writer last made of each page (the writer's own model) and
 * what reached the disk (written by the flusher under the tree lock). */
static unsigned long latest[NR_PAGES], disk[NR_PAGES];
/* Flags and counters shared by the threads: atomics, so that a flag set by
 * main is seen by the loops and counts are never torn or lost. */
static atomic_int stop_readers, stop_flusher;
static atomic_ulong reader_errors, writer_errors, pages_written;
/* Progress of the other threads: the writer keeps going until they have
 * really run alongside it (threads can start late on a busy machine). */
static atomic_ulong reader_lookups[NR_READERS], flush_passes;
#define MIN_READER_LOOKUPS 10000UL
#define MIN_FLUSH_PASSES 4UL

static bool others_ran(void)
{
	unsigned int r;

	for (r = 0; r < NR_READERS; r++)
		if (atomic_load(&reader_lookups[r]) < MIN_READER_LOOKUPS)
			return false;
	return atomic_load(&flush_passes) >= MIN_FLUSH_PASSES;
}

static unsigned long checksum(unsigned long index, unsigned long version)
{
	return (index * 0x9e3779b97f4a7c15UL) ^ (version * 0xc2b2ae3d27d4eb4fUL);
}

static struct page *page_new(unsigned long index, unsigned long version)
{
	struct page *page = malloc(sizeof(*page));

	if (!page) {
		perror("malloc");
		exit(1);
	}
	page->index = index;
	page->version = version;
	page->check = checksum(index, version);
	return page;
}

static void page_free_cb(struct rcu_head *head)
{
	free(caa_container_of(head, struct page, rcu));
}

/* Free a page once no reader can hold it any more. */
static void page_free_deferred(struct page *page)
{
	urcu_memb_call_rcu(&page->rcu, page_free_cb);
}

static unsigned long next_random(unsigned long *state)
{
	*state = *state * 6364136223846793005UL + 1442695040888963407UL;
	return *state >> 17;
}

/* Reader: lock-free lookups; a missing page is a "cache miss", not an error. */
static void *reader(void *arg)
{
	unsigned int me = (unsigned int)(uintptr_t)arg;
	unsigned long state = (me + 1) * 0xc2b2ae3d27d4eb4fUL, lookups = 0, misses = 0;

	urcu_memb_register_thread();  /* RCU readers must be registered */
	while (!atomic_load(&stop_readers)) {
		unsigned long index = next_random(&state) % NR_PAGES;
		struct page *page;

		urcu_memb_read_lock();
		page = radix_tree_lookup(&cache, index);
		/* The page stays valid until read_unlock, even if the writer
		 * replaces or evicts it right now: it is freed with call_rcu. */
		if (!page)
			misses++;
		else if (page->index != index || page->check != checksum(index, page->version))
			atomic_fetch_add(&reader_errors, 1);
		urcu_memb_read_unlock();
		if (++lookups % 256 == 0)
			atomic_fetch_add(&reader_lookups[me], 256);
	}
	urcu_memb_unregister_thread();
	printf("reader: %lu lookups, %lu misses\n", lookups, misses);
	return NULL;
}

/*
 * Write back every page tagged TOWRITE: collect a batch under RCU, then for
 * each page take the tree lock, record the version on "disk" and clear both
 * tags.  The lock makes "record, then clear DIRTY" atomic with respect to
 * the writer, which dirties pages under the same lock.
 */
static void write_back_towrite(void)
{
	struct page *batch[FLUSH_BATCH];
	unsigned long indices[FLUSH_BATCH], index = 0;
	unsigned int i, n;

	do {
		urcu_memb_read_lock();
		n = radix_tree_gang_lookup_tag(&cache, (void **)batch, index, FLUSH_BATCH,
					       TAG_TOWRITE);
		/* Keep only the indices: the pages may be replaced as soon as
		 * the read-side section ends. */
		for (i = 0; i < n; i++)
			indices[i] = batch[i]->index;
		urcu_memb_read_unlock();

		for (i = 0; i < n; i++) {
			struct page *page;

			radix_tree_lock(&cache);
			page = radix_tree_lookup(&cache, indices[i]);
			if (page && radix_tree_tag_get(&cache, indices[i], TAG_TOWRITE) == 1) {
				disk[page->index] = page->version;  /* the "I/O" */
				radix_tree_tag_clear(&cache, indices[i], TAG_DIRTY);
				radix_tree_tag_clear(&cache, indices[i], TAG_TOWRITE);
				atomic_fetch_add(&pages_written, 1);
			}
			radix_tree_unlock(&cache);
		}
		if (n)
			index = indices[n - 1] + 1;
	} while (n == FLUSH_BATCH);
}

/* One writeback pass, the kernel's "tag dirty pages for writeout" pattern:
 * tagging TOWRITE first means pages dirtied during the pass wait for the
 * next one, so a busy writer cannot make the pass last forever. */
static void writeback_pass(void)
{
	unsigned long start = 0, tagged;

	do {
		/* Takes the tree lock once per batch of FLUSH_BATCH pages. */
		tagged = radix_tree_range_tag_if_tagged(&cache, &start, NR_PAGES - 1,
							FLUSH_BATCH, TAG_DIRTY, TAG_TOWRITE);
	} while (tagged == FLUSH_BATCH && start != 0 && start <= NR_PAGES - 1);
	write_back_towrite();
}

static void *flusher(void *arg)
{
	unsigned long passes = 0;

	(void)arg;
	urcu_memb_register_thread();  /* tag changes are writer calls */
	while (!atomic_load(&stop_flusher)) {
		if (radix_tree_tagged(&cache, TAG_DIRTY)) {  /* one load, no lock */
			writeback_pass();
			atomic_fetch_add(&flush_passes, 1);
			passes++;
		}
	}
	writeback_pass();  /* the final sync: the writer has stopped */
	rcuradix_thread_cache_flush();
	urcu_memb_unregister_thread();
	printf("flusher: %lu passes, %lu pages written\n", passes,
	       atomic_load(&pages_written));
	return NULL;
}

/* Make a new version of page @index, or read it in if it is not cached. */
static void dirty_page(unsigned long index)
{
	struct page *old = NULL;
	void **slot;

	radix_tree_lock(&cache);
	slot = radix_tree_lookup_slot(&cache, index);
	if (slot) {
		/* Copy on write: readers see the old or the new version,
		 * whole; the tags stay on the slot. */
		old = *slot;
		radix_tree_replace_slot(&cache, slot, page_new(index, ++latest[index]));
	} else if (radix_tree_insert(&cache, index, page_new(index, ++latest[index])) != 0) {
		atomic_fetch_add(&writer_errors, 1);
	}
	radix_tree_tag_set(&cache, index, TAG_DIRTY);
	radix_tree_unlock(&cache);
	if (old)
		page_free_deferred(old);
}

/* Evict page @index if it is clean: dirty pages must be written first. */
static void evict_page(unsigned long index)
{
	struct page *page = NULL;

	radix_tree_lock(&cache);
	if (radix_tree_tag_get(&cache, index, TAG_DIRTY) == -1 &&
	    radix_tree_tag_get(&cache, index, TAG_TOWRITE) == -1)
		page = radix_tree_delete(&cache, index);
	radix_tree_unlock(&cache);
	if (page)
		page_free_deferred(page);
}

/* Tear down: empty the tree, wait for every deferred free, check counters. */
static int teardown(void)
{
	struct rcuradix_stats st;
	unsigned long index;

	for (index = 0; index < NR_PAGES; index++) {
		struct page *page = radix_tree_delete(&cache, index);

		if (page)
			page_free_deferred(page);
	}
	radix_tree_destroy(&cache);
	urcu_memb_barrier();          /* runs every pending call_rcu callback */
	rcuradix_thread_cache_flush(); /* this thread's reserve, the pool's spare slab */
	rcuradix_get_stats(&st, sizeof(st));
	if (st.nodes_live || st.nodes_pending || st.nodes_reserved || st.backing_bytes) {
		fprintf(stderr, "pagecache: %lu nodes live, %lu pending, %lu reserved\n",
			st.nodes_live, st.nodes_pending, st.nodes_reserved);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long writes = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	unsigned long state = 42, i, done, lost = 0;
	pthread_t readers[NR_READERS], flush;
	int failed;

	urcu_memb_register_thread();  /* the writer calls call_rcu */
	for (i = 0; i < NR_PAGES; i += 2)  /* half the file is cached, clean */
		if (radix_tree_insert(&cache, i, page_new(i, latest[i])) != 0)
			return 1;
	for (i = 0; i < NR_READERS; i++)
		pthread_create(&readers[i], NULL, reader, (void *)(uintptr_t)i);
	pthread_create(&flush, NULL, flusher, NULL);

	/* At least the requested writes, and until the other threads have
	 * really run alongside (threads can start late on a busy machine). */
	for (done = 0; done < writes || !others_ran(); done++) {
		unsigned long index = next_random(&state) % NR_PAGES;

		if (next_random(&state) % 8 == 0)
			evict_page(index);
		else
			dirty_page(index);
	}

	atomic_store(&stop_flusher, 1);
	pthread_join(flush, NULL);
	atomic_store(&stop_readers, 1);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(readers[i], NULL);

	/* Every version the writer made is on disk; nothing is left tagged. */
	for (i = 0; i < NR_PAGES; i++)
		lost += disk[i] != latest[i];
	failed = lost || atomic_load(&reader_errors) || atomic_load(&writer_errors) ||
		 radix_tree_tagged(&cache, TAG_DIRTY) || radix_tree_tagged(&cache, TAG_TOWRITE) ||
		 radix_tree_verify(&cache) != 0;
	printf("writer: %lu writes; %lu pages not on disk, %lu bad pages seen\n", done, lost,
	       atomic_load(&reader_errors));
	failed |= teardown();
	urcu_memb_unregister_thread();
	printf("pagecache: %s\n", failed ? "FAILED" : "ok");
	return failed;
}
