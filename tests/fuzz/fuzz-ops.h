/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-ops.h - the input language of the differential fuzzer (fuzz-ops.c),
 * shared by the harness, the corpus replay driver (replay.c) and the seed
 * generator (gen-corpus.c), so that the three always agree on the encoding.
 *
 * An input is a sequence of records; a record is an op byte (taken modulo
 * FZ_NR_OPS) followed by the op's arguments.  Input that ends in the middle
 * of a record reads as zero bytes, so every byte string is a valid input.
 *
 *   KEY    a selector byte s, then a payload that depends on s & 15 (the
 *          "kind"); v = s >> 4 is a small variant:
 *            FZ_K_SMALL    u8                      keys 0..255
 *            FZ_K_U16      u16 (little endian)     0..65535
 *            FZ_K_BOUNDARY u8 k                    k*64 - 1, k*64, k*64 + 1 (v % 3)
 *            FZ_K_LEVEL    u8 b, u8 k              (k << 3*(1 + b%21)) - 1, +0, +1
 *                                                   (v % 3): the edges of every
 *                                                   level of 8- and 64-slot trees
 *            FZ_K_2_32     s8 d                    2^32 + d
 *            FZ_K_2_63     s8 d                    2^63 + d
 *            FZ_K_MAX      u8 d                    ULONG_MAX - d
 *            FZ_K_RAW      u64 (little endian)     anything
 *            FZ_K_EXIST    u8 i (u16 if v odd)     the i-th key present (mod count),
 *                                                   or i when the tree is empty
 *            FZ_K_NEAR     u8 i, s8 d              the i-th key present + d
 *            FZ_K_LAST     -                       the previous key + (v - 8)
 *            11..15        as FZ_K_EXIST
 *   TAG    a byte b: b % (RADIX_TREE_MAX_TAGS + 1) if b < 0xf0 (so the first
 *          invalid tag number too), else b itself (invalid), 0xff meaning
 *          UINT_MAX
 *   NR     a byte b: b, or ULONG_MAX for 0xff
 *
 * The ops and their arguments are listed with the enum below.
 */
#ifndef RCURADIX_FUZZ_OPS_H
#define RCURADIX_FUZZ_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum fz_key_kind {
	FZ_K_SMALL,
	FZ_K_U16,
	FZ_K_BOUNDARY,
	FZ_K_LEVEL,
	FZ_K_2_32,
	FZ_K_2_63,
	FZ_K_MAX,
	FZ_K_RAW,
	FZ_K_EXIST,
	FZ_K_NEAR,
	FZ_K_LAST,
};

enum fz_op {
	FZ_INSERT,       /* KEY: insert a fresh item */
	FZ_INSERT_BAD,   /* KEY, u8 b: insert NULL or a misaligned pointer (b % 7 picks
			  * which): -EINVAL, nothing changes */
	FZ_DELETE,       /* KEY */
	FZ_LOOKUP,       /* KEY: lookup, lookup_slot, tag_get of every tag, empty */
	FZ_GANG,         /* u8 v, KEY first, [u8/u16 max], [TAG]: v & 3 = plain, slot,
			  * tag, tag_slot; v & 4: gang_slot's indices NULL; v >> 3 picks
			  * max_items (see fz_gang_max in fuzz-ops.c; 30 and 31 read it) */
	FZ_TAG_SET,      /* KEY, TAG */
	FZ_TAG_CLEAR,    /* KEY, TAG */
	FZ_TAG_GET,      /* KEY, TAG: tag_get and tagged */
	FZ_RANGE_TAG,    /* KEY first, KEY last, NR, TAG from, TAG to */
	FZ_REPLACE,      /* KEY, u8 b: under radix_tree_lock, lookup_slot then
			  * replace_slot with a fresh item; b & 4: the slot comes from
			  * gang_lookup_slot instead (other bits unused) */
	FZ_ITER,         /* u8 v, KEY start, TAG, u8 limit, u8 pattern: v & 3 = for_each_slot,
			  * for_each_tagged, for_each_contig, tagged+contig chunks;
			  * v & 4: under the tree lock (else a read-side section); the
			  * pattern gives 2 bits per visited item, cycling: 0 nothing,
			  * 1 iter_delete (locked walks), 2 iter_resume, 3 replace_slot
			  * (locked walks); limit 0 = no limit */
	FZ_PRELOAD,      /* u8 m, KEY: preload (fault mode m & 3: none, fail n-th with
			  * n = 1 + (m >> 2 & 7), fail all, fail all after flushing the
			  * reserve), m & 0x20: maybe_preload(GFP_ATOMIC) instead (reserves
			  * nothing), then lock, insert KEY (m & 0x80: with every allocation
			  * failing), unlock, preload_end */
	FZ_DESTROY,      /* u8 b: destroy; b & 2: re-initialise: GFP_KERNEL, or if b & 1
			  * GFP_ATOMIC (GFP_NOWAIT if b & 4 too) */
	FZ_FAULT_INSERT, /* u8 m, KEY: insert with injected allocation failure: m & 1
			  * fail all, else fail the n-th with n = 1 + (m >> 1 & 31);
			  * m & 0x40: flush the thread's reserve first; m & 0x80: delete
			  * KEY instead (a delete never allocates: it must succeed) */
	FZ_FLUSH,        /* rcuradix_thread_cache_flush() */
	FZ_GRACE,        /* end a grace period: run the queued call_rcu callbacks */
	FZ_INSERT_RUN,   /* KEY start, u8 count-1, u8 stride: stride = 1 << (b & 63) if
			  * b & 0x80, else (b & 0x7f) + 1 */
	FZ_DELETE_RUN,   /* KEY start, u8 count-1, u8 stride */
	FZ_TAG_RUN,      /* KEY start, u8 count-1, TAG, u8 b: set (b even) or clear the
			  * tag on the next count keys present from start */
	FZ_CHECK,        /* compare the whole tree with the model, radix_tree_verify */
	FZ_MISUSE,       /* u8 w, KEY: row w % FZ_NR_MISUSE of the misuse table (enum
			  * fz_misuse): calls that break a contract in a way the library
			  * reports by a return value; each must return what its Return:
			  * line says and change nothing */
	FZ_HOLD,         /* KEY k, u8 n, then 1 + n % 16 edits: under one radix_tree_lock
			  * hold, slot = lookup_slot(k), the edits (enum fz_hold_edit),
			  * then replace_slot(slot) with a fresh item if k is present;
			  * lookup(k) must find it.  After every edit the slot holds k's
			  * item or NULL (then its node was copied: it is on the retired
			  * list) */
	FZ_INSERT_PREFIX, /* KEY base, u8 count-1, u8 b, u8 seed: insert count keys that
			  * keep base's bits above the low 1 + b % 64 and draw those
			  * from a PRNG seeded by seed (keys sharing a long prefix) */
	FZ_INSERT_BITS,  /* KEY k, u8 first, u8 b: insert k ^ (1 << ((first + i) % 64))
			  * for i < 1 + b % 64 (keys one bit apart from k) */
	FZ_FAULT_RUN,    /* KEY start, u8 count-1, u8 stride, u8 m: for each of the
			  * run's keys (as FZ_INSERT_RUN): flush the reserve, insert
			  * with the fault of FZ_FAULT_INSERT's m & 0x3f armed, and
			  * after -ENOMEM insert again without it */
	FZ_NR_OPS
};

/* The edits of FZ_HOLD: a byte b, count = 1 + (b >> 3), what b & 7 says. */
enum fz_hold_edit {
	FZ_H_INSERT_RUN,  /* KEY: insert count consecutive keys from KEY */
	FZ_H_DELETE_RUN,  /* KEY: delete count consecutive keys from KEY (never k) */
	FZ_H_INSERT_NEAR, /* s8 d: insert count consecutive keys from k + d */
	FZ_H_DELETE_NEAR, /* s8 d: delete count consecutive keys from k + d (never k) */
	FZ_H_INSERT_BITS, /* u8 first: insert k ^ (1 << ((first + i) % 64)), i < count */
	FZ_H_INSERT_PREFIX, /* u8 b, u8 seed: as FZ_INSERT_PREFIX with base k */
	FZ_H_REPLACE,     /* replace_slot(slot) now (k present), then go on */
	FZ_H_LOOKUP,      /* lookup_slot(k) again: it holds k's item */
	FZ_NR_HOLD_EDITS
};

/* The rows of the misuse table (fuzz-ops.c), each a group of refused calls. */
enum fz_misuse {
	FZ_M_NULL_ROOT,        /* insert, delete, lookup, lookup_slot, empty */
	FZ_M_NULL_GANG,        /* the four gang lookups: NULL results, NULL root */
	FZ_M_NULL_TAGS,        /* tag_set, tag_clear, tag_get, tagged: NULL root */
	FZ_M_NULL_RANGE_TAG,   /* range_tag_if_tagged: NULL root or first_indexp */
	FZ_M_NULL_STATS,       /* memory, verify, get_stats: NULL or short arguments */
	FZ_M_ITER_DELETE_NULL, /* iter_delete with a NULL argument, on KEY's walk */
	FZ_M_PRELOAD_END,      /* preload_end without a preload */
	FZ_M_NULL_LOCK,        /* lock, unlock, destroy, init_flavor: NULL root */
	FZ_M_PRELOAD_WINDOW,   /* flush and a nested preload inside a preload window */
	FZ_M_NULL_WALK,        /* iter_init, next_chunk, iter_resume: NULL arguments */
	FZ_M_ZERO_WRITERS,     /* every erroring call on a never-initialised root */
	FZ_M_ZERO_READERS,     /* every reader on a never-initialised root */
	FZ_M_TAG_INVALID,      /* tag_get, tagged, tagged gang lookups: invalid tags */
	FZ_NR_MISUSE
};

/* The harness (fuzz-ops.c). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/*
 * Which flavor the next inputs use: false (default) the harness's own
 * deterministic flavor (callbacks queued, run at FZ_GRACE and at the end of
 * the input, queued nodes poisoned under ASan); true urcu-memb with
 * liburcu's call_rcu worker (each input then costs a urcu_memb_barrier(),
 * about 10 ms).  The environment variable RCURADIX_FUZZ_FLAVOR=memb sets it
 * at the first input.
 */
void fz_use_memb(bool on);

/*
 * White-box coverage of the node transitions (fuzz-ops.c classifies every
 * insert and delete by the tree's shape before and after it).  Names:
 *   first, new-child, f-slot, append, grow-copy, compact, leaf-full,
 *   inner-full, demote, demote-twice, demote-for-full, split, grow-top
 *                                                       (inserts)
 *   bridge       a full node built by the insert (inner-full, or a split
 *                whose parent became full) hangs compressed children from
 *                bridges: one-entry compact nodes one level down
 *   shrink, unlink                                        (deletes)
 *   forward      replace_slot() reached the live slot of a slot whose
 *                node was copied in the same lock hold
 *   atomic-preloaded, atomic-reserve, atomic-enomem
 *                a GFP_ATOMIC/NOWAIT tree's insert that took nodes inside a
 *                preload window, took them from a leftover reserve, failed
 *   enomem-T     insert transition T returned -ENOMEM (T one of the insert
 *                names that link nodes; for a copy's kind and for bridge,
 *                the names the same insert took when retried into the same
 *                tree)
 *   fault-shrink, fault-unlink
 *                that delete ran with an allocation fault armed
 * fz_transition_count(): how often the last input (since the start of the
 * last LLVMFuzzerTestOneInput()) took @name; -1 if the name is unknown.
 * fz_transitions_print(): every transition with a non-zero count.
 */
long fz_transition_count(const char *name);
void fz_transitions_print(FILE *f);

#endif
