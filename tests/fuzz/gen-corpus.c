/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gen-corpus.c - writes the fuzzer's seed corpus: short op sequences (in
 * the encoding of fuzz-ops.h) that each take the tree somewhere interesting,
 * so that fuzzing starts from deep, tagged, boundary-heavy trees instead of
 * from random bytes.  `make fuzz-corpus` rewrites tests/fuzz/corpus/seed-*;
 * the corpus-fresh test checks that the committed files are its output.
 *
 * Usage: gen-corpus DIR
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rcuradix/radix-tree.h>  /* RADIX_TREE_MAX_TAGS */

#include "fuzz-ops.h"

/* Tag numbers in seeds: valid ones modulo NTAGS, the last valid one, and the
 * first invalid one (the encoding reads b % (NTAGS + 1) for b < 0xf0). */
#define NTAGS RADIX_TREE_MAX_TAGS
#define TAG_LAST (NTAGS - 1)
#define TAG_FIRST_INVALID NTAGS

#define OUT_MAX 4096

struct out {
	uint8_t b[OUT_MAX];
	size_t n;
};

/* An encoded KEY argument. */
struct key {
	uint8_t b[10];
	unsigned int n;
};

static void put(struct out *o, uint8_t v)
{
	if (o->n == OUT_MAX) {
		fprintf(stderr, "gen-corpus: a seed exceeds %d bytes\n", OUT_MAX);
		exit(1);
	}
	o->b[o->n++] = v;
}

static void put_le(struct out *o, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		put(o, (uint8_t)(v >> (8 * i)));
}

static void put_key(struct out *o, struct key k)
{
	unsigned int i;

	for (i = 0; i < k.n; i++)
		put(o, k.b[i]);
}

/* ---- keys ---------------------------------------------------------------- */

static struct key K(uint8_t sel, unsigned int n, uint64_t payload)
{
	struct key k = { { sel }, 1 + n };
	unsigned int i;

	for (i = 0; i < n; i++)
		k.b[1 + i] = (uint8_t)(payload >> (8 * i));
	return k;
}

static struct key ksmall(uint8_t v)
{
	return K(FZ_K_SMALL, 1, v);
}

static struct key ku16(uint16_t v)
{
	return K(FZ_K_U16, 2, v);
}

/* k*64 + d, d in -1..1 */
static struct key kbound(uint8_t k, int d)
{
	return K((uint8_t)(FZ_K_BOUNDARY | (d + 1) << 4), 1, k);
}

/* (k << shift) + d, shift a multiple of 3 in 3..63, d in -1..1 */
static struct key klevel(unsigned int shift, uint8_t k, int d)
{
	return K((uint8_t)(FZ_K_LEVEL | (d + 1) << 4), 2,
		 (uint64_t)(shift / 3 - 1) | (uint64_t)k << 8);
}

static struct key k2_32(int d)
{
	return K(FZ_K_2_32, 1, (uint8_t)(int8_t)d);
}

static struct key k2_63(int d)
{
	return K(FZ_K_2_63, 1, (uint8_t)(int8_t)d);
}

/* ULONG_MAX - d */
static struct key kmax(uint8_t d)
{
	return K(FZ_K_MAX, 1, d);
}

static struct key kraw(uint64_t v)
{
	return K(FZ_K_RAW, 8, v);
}

/* The i-th key present. */
static struct key kexist(uint16_t i)
{
	return i < 256 ? K(FZ_K_EXIST, 1, i) : K(FZ_K_EXIST | 1 << 4, 2, i);
}

static struct key knear(uint8_t i, int d)
{
	return K(FZ_K_NEAR, 2, i | (uint64_t)(uint8_t)(int8_t)d << 8);
}

/* ---- ops ----------------------------------------------------------------- */

#define INVALID_TAG 0xff  /* reads as UINT_MAX */
#define NR_ALL 0xff       /* reads as ULONG_MAX */

static void op(struct out *o, enum fz_op code)
{
	put(o, (uint8_t)code);
}

static void ins(struct out *o, struct key k)
{
	op(o, FZ_INSERT);
	put_key(o, k);
}

static void bad(struct out *o, struct key k, uint8_t how)
{
	op(o, FZ_INSERT_BAD);
	put_key(o, k);
	put(o, how);
}

static void del(struct out *o, struct key k)
{
	op(o, FZ_DELETE);
	put_key(o, k);
}

static void look(struct out *o, struct key k)
{
	op(o, FZ_LOOKUP);
	put_key(o, k);
}

enum { G_PLAIN, G_SLOT, G_TAG, G_TAG_SLOT };

/* gang: @sel indexes fz_gang_max (0 -> 0, 1 -> 1, 14 -> 63, 15 -> 64, 16 -> 65). */
static void gang(struct out *o, unsigned int kind, int no_idx, unsigned int sel, struct key first,
		 uint8_t tag)
{
	op(o, FZ_GANG);
	put(o, (uint8_t)(kind | (no_idx ? 4 : 0) | sel << 3));
	put_key(o, first);
	if (sel == 30)
		put(o, 200);
	if (sel == 31)
		put_le(o, 700, 2);
	if (kind & 2)
		put(o, tag);
}

static void tag_op(struct out *o, enum fz_op code, struct key k, uint8_t tag)
{
	op(o, code);
	put_key(o, k);
	put(o, tag);
}

static void tset(struct out *o, struct key k, uint8_t tag)
{
	tag_op(o, FZ_TAG_SET, k, tag);
}

static void tclr(struct out *o, struct key k, uint8_t tag)
{
	tag_op(o, FZ_TAG_CLEAR, k, tag);
}

static void tget(struct out *o, struct key k, uint8_t tag)
{
	tag_op(o, FZ_TAG_GET, k, tag);
}

static void rtag(struct out *o, struct key first, struct key last, uint8_t nr, uint8_t from,
		 uint8_t to)
{
	op(o, FZ_RANGE_TAG);
	put_key(o, first);
	put_key(o, last);
	put(o, nr);
	put(o, from);
	put(o, to);
}

static void repl(struct out *o, struct key k, uint8_t how)
{
	op(o, FZ_REPLACE);
	put_key(o, k);
	put(o, how);
}

enum { W_SLOT, W_TAGGED, W_CONTIG, W_TAGGED_CONTIG };
#define W_LOCKED 4
/* pattern: 2 bits per visited item, cycling over 4 items */
#define P_NONE 0x00
#define P_DEL_ALL 0x55
#define P_DEL_ALT 0x11
#define P_RESUME_ALL 0xaa
#define P_REPLACE_ALL 0xff
#define P_MIX 0xe4  /* none, delete, resume, replace */

static void iter(struct out *o, uint8_t v, struct key start, uint8_t tag, uint8_t limit,
		 uint8_t pattern)
{
	op(o, FZ_ITER);
	put(o, v);
	put_key(o, start);
	put(o, tag);
	put(o, limit);
	put(o, pattern);
}

/* preload modes (see fuzz-ops.h) */
#define PRE_FAIL_NTH(n) (1 | ((n) - 1) << 2)
#define PRE_FAIL_ALL 2
#define PRE_FLUSH_FAIL_ALL 3
#define PRE_MAYBE_ATOMIC 0x20
#define PRE_INSERT_FAIL_ALL 0x80

static void pre(struct out *o, uint8_t m, struct key k)
{
	op(o, FZ_PRELOAD);
	put(o, m);
	put_key(o, k);
}

#define D_REINIT_KERNEL 2
#define D_REINIT_ATOMIC 3

static void destroy(struct out *o, uint8_t b)
{
	op(o, FZ_DESTROY);
	put(o, b);
}

#define F_ALL 1
#define F_NTH(n) (((n) - 1) << 1)
#define F_FLUSH 0x40

static void fins(struct out *o, uint8_t m, struct key k)
{
	op(o, FZ_FAULT_INSERT);
	put(o, m);
	put_key(o, k);
}

static void flush(struct out *o)
{
	op(o, FZ_FLUSH);
}

static void grace(struct out *o)
{
	op(o, FZ_GRACE);
}

static void check(struct out *o)
{
	op(o, FZ_CHECK);
}

static void misuse(struct out *o, uint8_t which, struct key k)
{
	op(o, FZ_MISUSE);
	put(o, which);
	put_key(o, k);
}

/* stride byte: 1..128 directly, or S_POW(n) for 1 << n */
#define S_POW(n) (0x80 | (n))

static void run(struct out *o, enum fz_op code, struct key start, unsigned int count,
		uint8_t stride)
{
	op(o, code);
	put_key(o, start);
	put(o, (uint8_t)(count - 1));
	put(o, stride);
}

static void insrun(struct out *o, struct key start, unsigned int count, unsigned int stride)
{
	run(o, FZ_INSERT_RUN, start, count, stride <= 128 ? (uint8_t)(stride - 1) : 0);
}

static void insrun_pow(struct out *o, struct key start, unsigned int count, unsigned int shift)
{
	run(o, FZ_INSERT_RUN, start, count, S_POW(shift));
}

static void delrun(struct out *o, struct key start, unsigned int count, unsigned int stride)
{
	run(o, FZ_DELETE_RUN, start, count, (uint8_t)(stride - 1));
}

static void delrun_pow(struct out *o, struct key start, unsigned int count, unsigned int shift)
{
	run(o, FZ_DELETE_RUN, start, count, S_POW(shift));
}

static void tagrun(struct out *o, struct key start, unsigned int count, uint8_t tag, int set)
{
	op(o, FZ_TAG_RUN);
	put_key(o, start);
	put(o, (uint8_t)(count - 1));
	put(o, tag);
	put(o, set ? 0 : 1);
}

/* FZ_FAULT_INSERT with m & 0x80: delete with the fault armed. */
#define F_DELETE 0x80

static void fdel(struct out *o, uint8_t m, struct key k)
{
	fins(o, (uint8_t)(m | F_DELETE), k);
}

/* Each key of the run: from an empty reserve, insert with fault @m armed,
 * then again without it (where it failed). */
static void faultrun_stride(struct out *o, struct key start, unsigned int count,
			    uint8_t stride, uint8_t m)
{
	op(o, FZ_FAULT_RUN);
	put_key(o, start);
	put(o, (uint8_t)(count - 1));
	put(o, stride);
	put(o, m);
}

static void faultrun(struct out *o, struct key start, unsigned int count, unsigned int stride,
		     uint8_t m)
{
	faultrun_stride(o, start, count, (uint8_t)(stride - 1), m);
}

/* The same with a stride of 1 << @shift. */
static void faultrun_pow(struct out *o, struct key start, unsigned int count, unsigned int shift,
			 uint8_t m)
{
	faultrun_stride(o, start, count, S_POW(shift), m);
}

static void insprefix(struct out *o, struct key base, unsigned int count, unsigned int bits,
		      uint8_t seed)
{
	op(o, FZ_INSERT_PREFIX);
	put_key(o, base);
	put(o, (uint8_t)(count - 1));
	put(o, (uint8_t)(bits - 1));
	put(o, seed);
}

static void insbits(struct out *o, struct key k, uint8_t first, unsigned int count)
{
	op(o, FZ_INSERT_BITS);
	put_key(o, k);
	put(o, first);
	put(o, (uint8_t)(count - 1));
}

/* A lock hold on key @k with @n edits; the edits follow (he_*). */
static void hold(struct out *o, struct key k, unsigned int n)
{
	op(o, FZ_HOLD);
	put_key(o, k);
	put(o, (uint8_t)(n - 1));
}

static void hedit(struct out *o, enum fz_hold_edit what, unsigned int count)
{
	put(o, (uint8_t)(what | (count - 1) << 3));
}

/* count keys from k + d, inserted or deleted */
static void he_near(struct out *o, int insert, int d, unsigned int count)
{
	hedit(o, insert ? FZ_H_INSERT_NEAR : FZ_H_DELETE_NEAR, count);
	put(o, (uint8_t)(int8_t)d);
}

static void he_run(struct out *o, int insert, struct key start, unsigned int count)
{
	hedit(o, insert ? FZ_H_INSERT_RUN : FZ_H_DELETE_RUN, count);
	put_key(o, start);
}

static void he_bits(struct out *o, uint8_t first, unsigned int count)
{
	hedit(o, FZ_H_INSERT_BITS, count);
	put(o, first);
}

static void he_prefix(struct out *o, unsigned int count, unsigned int bits, uint8_t seed)
{
	hedit(o, FZ_H_INSERT_PREFIX, count);
	put(o, (uint8_t)(bits - 1));
	put(o, seed);
}

/* ---- seeds --------------------------------------------------------------- */

static void seed_empty(struct out *o)
{
	unsigned int k;

	look(o, ksmall(0));
	look(o, kmax(0));
	del(o, ksmall(0));
	tset(o, ksmall(1), 0);
	tclr(o, ksmall(1), TAG_LAST);
	tget(o, ksmall(1), 2);
	tget(o, ksmall(1), INVALID_TAG);
	for (k = 0; k < 4; k++)
		gang(o, k, 0, 15, ksmall(0), 1);
	rtag(o, ksmall(0), kmax(0), NR_ALL, 0, 1);
	for (k = 0; k < 4; k++)
		iter(o, (uint8_t)(k | W_LOCKED), ksmall(0), 0, 0, P_MIX);
	repl(o, ksmall(0), 0);
	destroy(o, 0);
	grace(o);
	flush(o);
	check(o);
}

static void seed_full_height(struct out *o)
{
	ins(o, ksmall(0));
	ins(o, kmax(0));
	check(o);
	del(o, kmax(0));
	check(o);
	del(o, ksmall(0));
	ins(o, kmax(0));
	ins(o, ksmall(0));
	gang(o, G_SLOT, 0, 2, ksmall(1), 0);
	del(o, ksmall(0));
	check(o);
	grace(o);
}

static void seed_levels(struct out *o)
{
	unsigned int s;

	ins(o, ksmall(0));
	for (s = 3; s <= 63; s += 3)
		ins(o, klevel(s, 1, 0));
	check(o);
	gang(o, G_SLOT, 0, 15, ksmall(1), 0);
	for (s = 63; s >= 3; s -= 3) {
		del(o, klevel(s, 1, 0));
		if (s % 12 == 0)
			check(o);
	}
	check(o);
	/* both sides of each boundary */
	for (s = 6; s <= 36; s += 6) {
		ins(o, klevel(s, 1, -1));
		ins(o, klevel(s, 1, 1));
	}
	check(o);
	delrun(o, ksmall(0), 1, 1);
	check(o);
}

static void seed_dense(struct out *o)
{
	insrun(o, ksmall(0), 256, 1);
	check(o);
	gang(o, G_PLAIN, 0, 16, ksmall(60), 0);
	gang(o, G_SLOT, 0, 23, ksmall(0), 0);
	delrun(o, ksmall(1), 128, 2);
	iter(o, W_CONTIG, ksmall(0), 0, 0, P_NONE);
	iter(o, W_SLOT, ksmall(3), 0, 0, P_NONE);
	check(o);
	delrun(o, ksmall(0), 256, 1);
	check(o);
}

static void seed_boundaries(struct out *o)
{
	uint8_t k;

	for (k = 1; k <= 8; k++) {
		ins(o, kbound(k, -1));
		ins(o, kbound(k, 0));
		ins(o, kbound(k, 1));
	}
	check(o);
	for (k = 1; k <= 8; k += 3) {
		gang(o, G_SLOT, 0, 2, kbound(k, 0), 0);
		del(o, kbound(k, 0));
		gang(o, G_SLOT, 0, 2, kbound(k, -1), 0);
		iter(o, W_CONTIG, kbound(k, -1), 0, 0, P_NONE);
	}
	check(o);
}

static void seed_near(struct out *o, struct key (*near)(int))
{
	int d;

	for (d = -3; d <= 3; d++)
		ins(o, near(d));
	ins(o, ksmall(5));
	check(o);
	gang(o, G_SLOT, 0, 4, near(-1), 0);
	iter(o, W_CONTIG, near(-3), 0, 0, P_NONE);
	tset(o, near(0), 3);
	gang(o, G_TAG_SLOT, 0, 15, ksmall(0), 3);
	del(o, near(0));
	iter(o, W_CONTIG, near(-3), 0, 0, P_NONE);
	check(o);
}

static void seed_near_2_32(struct out *o)
{
	seed_near(o, k2_32);
}

static void seed_near_2_63(struct out *o)
{
	seed_near(o, k2_63);
}

static void seed_near_max(struct out *o)
{
	unsigned int d;

	for (d = 0; d < 130; d += 1)
		ins(o, kmax((uint8_t)d));
	check(o);
	gang(o, G_SLOT, 0, 16, kmax(64), 0);
	gang(o, G_PLAIN, 0, 15, kmax(0), 0);
	iter(o, W_CONTIG, kmax(5), 0, 0, P_NONE);
	iter(o, W_SLOT | W_LOCKED, kmax(3), 0, 0, P_DEL_ALT);
	tset(o, kmax(0), 1);
	tset(o, kmax(1), 1);
	iter(o, W_TAGGED, kmax(70), 1, 0, P_NONE);
	iter(o, W_TAGGED_CONTIG, kmax(1), 1, 0, P_NONE);
	check(o);
}

/* A small fixed PRNG, so seeds never change. */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void seed_sparse(struct out *o)
{
	unsigned int i;

	rng_state = 0x5eed5eed12345678ULL;
	for (i = 0; i < 40; i++)
		ins(o, kraw(rnd()));
	check(o);
	for (i = 0; i < 20; i++)
		del(o, kexist((uint16_t)(rnd() % 40)));  /* one rnd() per statement */
	gang(o, G_SLOT, 0, 15, ksmall(0), 0);
	check(o);
}

static void seed_tags_levels(struct out *o)
{
	unsigned int s, t = 0;

	for (s = 3; s <= 60; s += 3, t = (t + 1) % NTAGS) {
		ins(o, klevel(s, 5, 0));
		tset(o, klevel(s, 5, 0), (uint8_t)t);
		tset(o, klevel(s, 5, 0), (uint8_t)((t + 3) % NTAGS));
	}
	ins(o, ksmall(7));
	tset(o, ksmall(7), 0);
	check(o);
	for (t = 0; t < NTAGS; t++)
		gang(o, G_TAG_SLOT, 0, 15, ksmall(0), (uint8_t)t);
	for (s = 3; s <= 60; s += 9)
		tclr(o, klevel(s, 5, 0), (uint8_t)(s / 3 % NTAGS));
	check(o);
	for (s = 6; s <= 60; s += 6)
		del(o, klevel(s, 5, 0));
	check(o);
}

static void seed_tags_growth(struct out *o)
{
	ins(o, ksmall(0));
	ins(o, ksmall(1));
	tset(o, ksmall(0), 0);
	tset(o, ksmall(1), 1);
	ins(o, kraw(1UL << 40));
	check(o);
	tget(o, ksmall(0), 0);
	tget(o, ksmall(1), 0);
	del(o, kraw(1UL << 40));
	check(o);
	del(o, ksmall(0));
	tget(o, ksmall(1), 1);
	ins(o, kmax(0));
	tset(o, kmax(0), TAG_LAST);
	check(o);
	del(o, ksmall(1));
	check(o);
}

static void seed_range_tag(struct out *o)
{
	insrun(o, ksmall(0), 200, 3);
	tagrun(o, ksmall(0), 120, 0, 1);
	tagrun(o, ksmall(30), 10, 1, 1);
	check(o);
	rtag(o, ksmall(0), ku16(1000), 10, 0, 1);
	rtag(o, ku16(100), ku16(400), 255 - 1, 0, 2);
	rtag(o, ksmall(0), kmax(0), NR_ALL, 0, 3);
	rtag(o, ksmall(9), ksmall(9), 1, 0, 4);  /* a single key */
	rtag(o, ksmall(10), ksmall(5), 5, 0, 4); /* first > last */
	rtag(o, ksmall(0), ksmall(50), 0, 0, 4); /* nr 0 */
	rtag(o, ksmall(0), ksmall(50), 5, TAG_FIRST_INVALID, 4); /* invalid from */
	rtag(o, ksmall(0), ksmall(50), 5, 0, INVALID_TAG);
	rtag(o, ksmall(0), ku16(700), 7, 1, 1);  /* from == to */
	check(o);
	delrun(o, ksmall(0), 100, 3);
	rtag(o, ksmall(0), kmax(0), NR_ALL, 3, TAG_LAST);
	check(o);
}

static void seed_range_tag_wrap(struct out *o)
{
	unsigned int d;

	for (d = 0; d < 6; d++) {
		ins(o, kmax((uint8_t)d));
		tset(o, kmax((uint8_t)d), 2);
	}
	ins(o, ksmall(3));
	tset(o, ksmall(3), 2);
	rtag(o, kmax(10), kmax(0), NR_ALL, 2, 0);  /* next wraps to 0 */
	rtag(o, kmax(10), kmax(0), 3, 2, 1);       /* stops inside */
	rtag(o, kmax(10), kmax(0), 6, 2, 1);       /* the last one is ULONG_MAX */
	rtag(o, ksmall(0), kmax(0), NR_ALL, 2, 3);
	rtag(o, kmax(0), kmax(0), 1, 2, 4);
	check(o);
}

static void seed_oom_all(struct out *o)
{
	fins(o, F_ALL | F_FLUSH, ksmall(0));  /* empty tree, no reserve: -ENOMEM */
	fins(o, F_ALL, ksmall(1));            /* whatever the reserve holds */
	ins(o, ksmall(0));
	fins(o, F_ALL | F_FLUSH, ksmall(2));  /* the leaf exists: no node needed */
	fins(o, F_ALL | F_FLUSH, kmax(0));    /* full growth: -ENOMEM */
	fins(o, F_ALL | F_FLUSH, ksmall(0));  /* -EEXIST first */
	check(o);
	ins(o, kmax(0));
	fins(o, F_ALL | F_FLUSH, k2_63(0));
	check(o);
}

static void seed_oom_nth(struct out *o)
{
	unsigned int n;

	ins(o, ksmall(0));
	for (n = 1; n <= 12; n++) {
		fins(o, (uint8_t)(F_NTH(n) | F_FLUSH), kmax(0));
		del(o, kmax(0));
	}
	fins(o, F_NTH(1), kraw(0x123456789aUL));
	fins(o, F_NTH(20) | F_FLUSH, kraw(0x223456789aUL));
	check(o);
}

static void seed_preload(struct out *o)
{
	ins(o, ksmall(0));
	pre(o, PRE_INSERT_FAIL_ALL, kmax(0));        /* must not fail */
	del(o, kmax(0));
	flush(o);
	pre(o, PRE_FAIL_NTH(3), kmax(0));            /* preload fails */
	pre(o, PRE_FLUSH_FAIL_ALL, kmax(0));         /* preload fails */
	pre(o, PRE_FAIL_ALL, kmax(1));               /* fails unless the reserve is full */
	pre(o, 0, kmax(1));
	pre(o, PRE_MAYBE_ATOMIC, k2_32(0));          /* reserves nothing */
	pre(o, PRE_MAYBE_ATOMIC | PRE_INSERT_FAIL_ALL, k2_63(0));
	pre(o, PRE_FAIL_NTH(8) | PRE_INSERT_FAIL_ALL, kraw(0xdeadbeef000UL));
	check(o);
}

static void seed_atomic_tree(struct out *o)
{
	unsigned int i;

	destroy(o, D_REINIT_ATOMIC);
	flush(o);
	ins(o, ksmall(0));                           /* -ENOMEM: nothing reserved */
	pre(o, 0, ksmall(0));
	ins(o, ksmall(1));                           /* same leaf: no node */
	for (i = 0; i < 8; i++)                      /* eats the reserve, then -ENOMEM */
		ins(o, klevel(12, (uint8_t)(i + 1), 0));
	pre(o, PRE_MAYBE_ATOMIC, kmax(0));
	check(o);
	destroy(o, D_REINIT_KERNEL);
	ins(o, kmax(0));
	check(o);
}

static void seed_iter_delete(struct out *o, uint8_t pattern, uint8_t kind)
{
	insrun(o, ksmall(0), 150, 1);
	insrun(o, ku16(1000), 70, 7);
	if (kind == W_TAGGED)
		tagrun(o, ksmall(0), 220, 2, 1);
	iter(o, (uint8_t)(kind | W_LOCKED), ksmall(0), 2, 0, pattern);
	check(o);
	iter(o, (uint8_t)(kind | W_LOCKED), ksmall(0), 2, 0, pattern);
	check(o);
}

static void seed_iter_delete_all(struct out *o)
{
	seed_iter_delete(o, P_DEL_ALL, W_SLOT);
}

static void seed_iter_delete_alt(struct out *o)
{
	seed_iter_delete(o, P_DEL_ALT, W_SLOT);
}

static void seed_iter_tagged_delete(struct out *o)
{
	seed_iter_delete(o, P_DEL_ALT, W_TAGGED);
}

static void seed_iter_contig(struct out *o)
{
	insrun(o, ksmall(0), 70, 1);
	insrun(o, ksmall(72), 100, 1);
	tagrun(o, ksmall(0), 200, 4, 1);
	tclr(o, ksmall(100), 4);
	iter(o, W_CONTIG, ksmall(0), 0, 0, P_NONE);
	iter(o, W_CONTIG, ksmall(72), 0, 0, P_NONE);
	iter(o, W_CONTIG, ksmall(71), 0, 0, P_NONE);
	iter(o, W_TAGGED_CONTIG, ksmall(0), 4, 0, P_NONE);
	iter(o, W_TAGGED_CONTIG, ksmall(72), 4, 0, P_NONE);
	iter(o, W_CONTIG | W_LOCKED, ksmall(60), 0, 0, P_DEL_ALT);
	iter(o, W_CONTIG, ksmall(60), 0, 0, P_NONE);
	check(o);
}

static void seed_iter_resume(struct out *o)
{
	insrun(o, ksmall(0), 100, 5);
	tagrun(o, ksmall(0), 100, 1, 1);
	iter(o, W_SLOT, ksmall(0), 0, 0, P_RESUME_ALL);
	iter(o, W_TAGGED, ksmall(0), 1, 0, P_RESUME_ALL);
	iter(o, W_SLOT | W_LOCKED, ksmall(3), 0, 0, P_MIX);
	iter(o, W_TAGGED | W_LOCKED, ksmall(0), 1, 17, P_MIX);
	iter(o, W_SLOT, ksmall(0), 0, 9, P_NONE);
	check(o);
}

static void seed_replace(struct out *o)
{
	insrun(o, ksmall(10), 20, 1);
	tset(o, ksmall(12), 0);
	tset(o, ksmall(12), TAG_LAST);
	repl(o, ksmall(12), 0);
	repl(o, ksmall(12), 0); /* a replaced item's slot takes another; tags stay */
	repl(o, ksmall(13), 4); /* the slot from a gang lookup */
	repl(o, ksmall(9), 0);  /* absent */
	repl(o, ksmall(9), 4);  /* absent: the gang finds 10 */
	tget(o, ksmall(12), TAG_LAST);
	iter(o, W_SLOT | W_LOCKED, ksmall(0), 0, 0, P_REPLACE_ALL);
	iter(o, W_TAGGED | W_LOCKED, ksmall(0), 0, 0, P_REPLACE_ALL);
	check(o);
}

static void seed_gang_sizes(struct out *o)
{
	static const unsigned int sels[] = { 0, 1, 14, 15, 16, 30, 31 };
	unsigned int i, kind;

	insrun(o, ksmall(0), 200, 1);
	insrun(o, ku16(4000), 100, 64);
	tagrun(o, ksmall(50), 180, 3, 1);
	for (i = 0; i < sizeof(sels) / sizeof(sels[0]); i++)
		for (kind = 0; kind < 4; kind++) {
			gang(o, kind, 0, sels[i], ksmall(0), 3);
			gang(o, kind, 1, sels[i], ksmall(63), 3);
		}
	gang(o, G_TAG, 0, 15, ksmall(0), TAG_FIRST_INVALID);
	gang(o, G_TAG_SLOT, 0, 15, ksmall(0), INVALID_TAG);
	check(o);
}

static void seed_invalid(struct out *o)
{
	uint8_t b;

	ins(o, ksmall(4));
	for (b = 0; b < 7; b++) {
		bad(o, ksmall(4), b);
		bad(o, kmax(b), b);
	}
	tset(o, ksmall(4), TAG_FIRST_INVALID);
	tset(o, ksmall(4), 0xf3);
	tclr(o, ksmall(4), INVALID_TAG);
	tget(o, ksmall(4), TAG_FIRST_INVALID);
	tget(o, ksmall(5), TAG_FIRST_INVALID);
	iter(o, W_TAGGED, ksmall(0), TAG_FIRST_INVALID, 0, P_NONE);
	check(o);
}

static void seed_misuse(struct out *o)
{
	uint8_t w;

	insrun(o, ksmall(0), 70, 1);
	tset(o, ksmall(5), 0);
	for (w = 0; w < FZ_NR_MISUSE; w++) {
		misuse(o, w, ksmall((uint8_t)(5 + w)));
		misuse(o, w, ku16(1000));  /* absent */
	}
	ins(o, ku16(5000));
	misuse(o, FZ_M_TAG_INVALID, ku16(5000));  /* alone in its leaf, every tag set */
	misuse(o, FZ_M_ZERO_WRITERS, ku16(5000));
	check(o);
}

static void seed_destroy_reuse(struct out *o)
{
	insrun(o, ksmall(0), 100, 9);
	tagrun(o, ksmall(0), 50, 0, 1);
	destroy(o, 0);
	insrun(o, kmax(100), 100, 1);
	check(o);
	destroy(o, D_REINIT_KERNEL);
	grace(o);
	ins(o, ksmall(1));
	check(o);
}

static void seed_grace(struct out *o)
{
	unsigned int i;

	for (i = 0; i < 20; i++) {
		ins(o, klevel(3 * (i % 20 + 1), 3, 0));
		if (i % 3 == 0)
			grace(o);
		del(o, klevel(3 * ((i + 7) % 20 + 1), 3, 0));
	}
	insrun(o, ksmall(0), 64, 1);
	iter(o, W_SLOT | W_LOCKED, ksmall(0), 0, 0, P_DEL_ALL);
	grace(o);
	check(o);
}

static void seed_deep_8slot(struct out *o)
{
	insrun_pow(o, ksmall(1), 40, 3);
	insrun_pow(o, ksmall(2), 20, 9);
	insrun(o, ku16(4096), 200, 1);
	check(o);
	tagrun(o, ksmall(0), 255, 1, 1);
	rtag(o, ksmall(0), kmax(0), 100, 1, 2);
	iter(o, W_TAGGED | W_LOCKED, ksmall(0), 2, 0, P_DEL_ALT);
	check(o);
}

static void seed_big_dense(struct out *o)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		insrun(o, ku16((uint16_t)(i * 256)), 256, 1);
	check(o);
	tagrun(o, ku16(500), 256, 0, 1);
	gang(o, G_TAG_SLOT, 0, 29, ksmall(0), 0);
	delrun(o, ksmall(1), 256, 4);
	delrun(o, ku16(512), 256, 1);
	check(o);
	for (i = 0; i < 4; i++)
		delrun(o, ku16((uint16_t)(i * 256)), 256, 1);
	check(o);
}

/*
 * Shape seeds: each drives the tree through node transitions, most of them
 * first with an allocation fault armed (-ENOMEM, the tree unchanged), then
 * without.  tests/fuzz/seed-transitions lists, per build, the transitions
 * each must take (the replay checks it); the comments say the 64-slot
 * shapes.
 */

/* A C leaf grows class by class (faulted at each copy), becomes an F leaf;
 * then an F leaf's slots. */
static void seed_shape_leaf(struct out *o)
{
	faultrun(o, ksmall(0), 64, 1, F_ALL);
	check(o);
	faultrun(o, ksmall(100), 4, 1, F_NTH(1));
	check(o);
}

/* Tombstones dropped by a copy into a class no larger: a C leaf (64-slot),
 * then a C node above the leaves (8-slot has no C leaf), then a C leaf
 * again, into a smaller class. */
static void seed_shape_compact(struct out *o)
{
	insrun(o, ksmall(0), 4, 1);
	delrun(o, ksmall(1), 2, 1);
	faultrun(o, ksmall(10), 3, 1, F_ALL);
	check(o);
	destroy(o, 0);
	ins(o, ksmall(63));
	insrun(o, ksmall(0), 9, 1);
	delrun(o, ksmall(0), 4, 1);
	faultrun(o, ksmall(20), 4, 1, F_ALL);
	check(o);
	/* 64-slot: a full 48-entry C leaf with 9 tombstones: the copy's room
	 * would reach a full node's size, so it gets none (a smaller class). */
	destroy(o, 0);
	insrun(o, ksmall(0), 48, 1);
	delrun(o, ksmall(0), 9, 1);
	faultrun(o, ksmall(50), 1, 1, F_ALL);
	check(o);
}

/* Keys deleted and inserted again go back to their tombstones, every
 * allocation failing: in a C node with room (a leaf in the 64-slot build,
 * the level-1 node of items in the 8-slot one), tagged first; then in the
 * full 48-entry C leaf of the 64-slot build. */
static void seed_shape_refill(struct out *o)
{
	ins(o, ksmall(63));
	insrun(o, ksmall(0), 9, 1);
	tagrun(o, ksmall(0), 9, 1, 1);
	delrun(o, ksmall(0), 4, 1);
	fins(o, F_ALL, ksmall(1));
	fins(o, F_ALL, ksmall(3));
	check(o);
	destroy(o, 0);
	insrun(o, ksmall(0), 48, 1);
	delrun(o, ksmall(0), 9, 1);
	faultrun(o, ksmall(0), 9, 1, F_ALL);
	check(o);
}

/*
 * 65 keys from 2^18 share every digit above level 1: the top C node (level
 * 3) overflows, its items move into a child at level 1 that overflows in
 * turn (a grandchild F leaf), faulted at the 2nd and 3rd allocation first.
 * Then a key leaving the compressed path (split), growth above the root,
 * shrink and unlink, those two with a fault armed.
 */
static void seed_shape_demote(struct out *o)
{
	faultrun(o, klevel(18, 1, 0), 64, 1, F_ALL);
	fins(o, F_NTH(2) | F_FLUSH, kraw(0x40040));
	fins(o, F_NTH(3) | F_FLUSH, kraw(0x40040));
	ins(o, kraw(0x40040));
	check(o);
	faultrun(o, kraw(0x41000), 1, 1, F_ALL);
	faultrun(o, kmax(0), 1, 1, F_ALL);
	check(o);
	fdel(o, F_ALL, kmax(0));
	check(o);
	delrun(o, klevel(18, 1, 0), 63, 1);
	fdel(o, F_ALL, kraw(0x4003f));
	check(o);
	fdel(o, F_NTH(1), kraw(0x40040));
	fdel(o, F_ALL, kraw(0x41000));
	check(o);
}

/* 64 items one per digit of a level-1 C node (the top that key 64 grows
 * takes key 0's leaf's item), then a second key under each digit: each
 * insert overflows the node and demotes the new pair into a C leaf.  The
 * ninth and tenth such copies (faulted first) demote one pair each; the
 * eleventh (faulted first), its line of copies having demoted ten times,
 * demotes every item into a leaf of its own, and the node, with children
 * one level down only, becomes an F node.  The other second keys go into
 * those leaves.  Then a child emptied and a new one in its slot; then two
 * F leaves side by side under the F node, walked across. */
static void seed_shape_inner_full_64(struct out *o)
{
	insrun_pow(o, ksmall(0), 64, 6);
	insrun_pow(o, ksmall(1), 8, 6);
	faultrun_pow(o, ku16(1 + 8 * 64), 3, 6, F_ALL);
	insrun_pow(o, ku16(1 + 11 * 64), 53, 6);
	check(o);
	/* Empty one child (unlinked), then a new one in its slot. */
	delrun(o, ksmall(0), 2, 1);
	faultrun(o, ksmall(5), 1, 1, F_ALL);
	check(o);
	/* Its first two children become F leaves: walks go from one to the
	 * next through their F parent. */
	insrun(o, ksmall(0), 128, 1);
	tagrun(o, ksmall(60), 8, 1, 1);
	iter(o, W_SLOT, ksmall(3), 0, 0, P_NONE);
	iter(o, W_TAGGED, ksmall(0), 1, 0, P_NONE);
	iter(o, W_CONTIG, ksmall(50), 0, 0, P_RESUME_ALL);
	check(o);
}

/*
 * A level-5 top: a pair of keys under each digit 1..54, each pair parting
 * one level down (the first keys, then the second ones).  From the 65th
 * entry on, the overflows demote the pairs nine at a time: six demoting
 * copies, fewer than a node makes before it demotes every group.  Then
 * four keys under each of digits 55 and 56 and keys under digits 57 and
 * 58 fill it, with 54 children; a key under digit 59 (faulted first)
 * overflows it with two groups and three items alone: it demotes both
 * groups and becomes a full node with bridges, the 64-slot build's only
 * way there.
 */
static void seed_shape_demote_for_full_64(struct out *o)
{
	insrun_pow(o, kraw(1UL << 30), 54, 30);
	insrun_pow(o, kraw(1UL << 30 | 1UL << 24), 54, 30);
	insrun_pow(o, kraw(55UL << 30), 4, 24);
	insrun_pow(o, kraw(56UL << 30), 4, 24);
	ins(o, kraw(57UL << 30));
	ins(o, kraw(58UL << 30));
	faultrun(o, kraw(59UL << 30), 1, 1, F_ALL);
	check(o);
	iter(o, W_SLOT, kraw(50UL << 30), 0, 0, P_NONE);
	delrun(o, kraw(57UL << 30), 1, 1);
	check(o);
}

/*
 * A level-5 top: pairs of keys under digits 1..32, each parting one level
 * down: 64 entries.  A key under digit 33 (faulted first) overflows it:
 * the copy demotes the lowest pair into a child, then the next eight pairs
 * into children of the smallest class, and keeps room for eight entries;
 * the next four keys under new digits are appended in place.  Then pairs
 * are deleted, emptying some of the new children.
 */
static void seed_shape_demote_pairs_64(struct out *o)
{
	for (uint64_t g = 1; g <= 32; g++) {
		ins(o, kraw(g << 30));
		ins(o, kraw(g << 30 | 1UL << 24));
	}
	faultrun(o, kraw(33UL << 30), 1, 1, F_ALL);
	check(o);
	insrun_pow(o, kraw(34UL << 30), 4, 30);
	check(o);
	iter(o, W_SLOT, kraw(1UL << 30), 0, 0, P_NONE);
	delrun_pow(o, kraw(1UL << 30), 2, 24);
	delrun_pow(o, kraw(2UL << 30), 2, 24);
	check(o);
}

/*
 * A top node (level 5; the 8-slot build: level 11) of keys below 2^36 drawn
 * by insert-prefix's generator (seed 0): each digit collects a few keys,
 * and the top overflows again and again, demoting a group each time.  In
 * the 64-slot build key 100 of the sequence finds the top ripe (its line
 * of copies demoted ten times), in the 8-slot build key 178 (five times):
 * each is inserted with every allocation failing first (-ENOMEM), then
 * again, and the copy demotes every group of items into a node of its own.
 */
static void seed_shape_demote_all(struct out *o)
{
	insprefix(o, kraw(0), 100, 36, 0);
	faultrun(o, kraw(0xf61ec64b), 1, 1, F_ALL);  /* key 100 */
	check(o);
	insprefix(o, kraw(0), 178, 36, 0);
	faultrun(o, kraw(0x7673f0d32), 1, 1, F_ALL);  /* key 178 */
	check(o);
	insprefix(o, kraw(0), 200, 36, 0);
	iter(o, W_SLOT, kraw(0), 0, 0, P_NONE);
	check(o);
}

/* Keys @from .. @to - 1, in runs of 256. */
static void insrange(struct out *o, unsigned long from, unsigned long to)
{
	for (unsigned long k = from; k < to; k += 256)
		insrun(o, kraw(k), (unsigned int)(to - k < 256 ? to - k : 256), 1);
}

/* The insert of key @at, which makes a C node over full nodes only a full
 * node; @faulted: preloaded, with every allocation failing: the reserve
 * gives the insert's own node, and the C node stays compact.  Then the
 * tree is checked and emptied. */
static void parent_full_at(struct out *o, unsigned long at, int faulted)
{
	if (faulted)
		pre(o, PRE_INSERT_FAIL_ALL, kraw(at));
	else
		ins(o, kraw(at));
	check(o);
	destroy(o, D_REINIT_KERNEL);
}

/*
 * A C node over full nodes only, made full (both builds; runs stop at
 * 1024 keys in the tree).  64-slot: keys 0..255 make a full level-1 top
 * (four leaves); keys from 4096 on hang a second child from a new top at
 * level 2, which becomes a full node at key 4349, and the top with it.
 * 8-slot: a top at level 3 over two children of 512 keys each, kept
 * compact by two items that share digit 2; those deleted while the second
 * child holds 96 keys, it becomes a full node at key 639, and the top
 * with it.  Each shape twice: the second time faulted.
 */
static void seed_shape_parent_full(struct out *o)
{
	for (int faulted = 0; faulted < 2; faulted++) {
		insrange(o, 0, 256);
		insrange(o, 4096, 4349);
		parent_full_at(o, 4349, faulted);
	}
	for (int faulted = 0; faulted < 2; faulted++) {
		ins(o, kraw(1024));
		ins(o, kraw(1025));
		insrange(o, 0, 608);
		del(o, kraw(1024));
		del(o, kraw(1025));
		insrange(o, 608, 639);
		parent_full_at(o, 639, faulted);
	}
}

/* The 8-slot shape: a level-2 C node whose items demote digit by digit
 * into level-1 children, five times (keys 63, 126, 189, 252, 315); the
 * sixth overflow (key 378), its line of copies having demoted five times,
 * demotes every group left and leaves only children one level down: an F
 * node.  The keys around the last two are faulted first.  Then a child
 * emptied and a new one in its slot. */
static void seed_shape_inner_full_8(struct out *o)
{
	ins(o, ku16(511));
	insrun(o, ksmall(0), 250, 1);
	insrun(o, ku16(250), 60, 1);
	faultrun(o, ku16(310), 75, 1, F_ALL);
	insrun(o, ku16(385), 126, 1);
	check(o);
	/* Empty one child (unlinked), then a new one in its slot. */
	delrun(o, ksmall(0), 64, 1);
	faultrun(o, ksmall(5), 1, 1, F_ALL);
	check(o);
}

/*
 * Bridges, 64-slot.  A level-5 top holds the C leaf of keys 0 and 1 as a
 * compressed child (digit 0) and a pair of items under each digit 1..32;
 * a pair parts one level down (g << 30, + 1 << 24), except digit 32's
 * (g << 30, + 1), which parts at the leaves.  The 65th entry demotes a
 * pair into a child, and eight more pairs for room; then the items under
 * digits 33..63 demote the next pairs the same way, until no pair is
 * left; those items are deleted.  @split picks the shape that follows
 * (the top holds 33 children then, digit 32's compressed only in the
 * second tree):
 *  - 0: 32 keys under digit 40, parting one level down: the 65th live
 *    entry demotes them all, and the copy holds 34 children, one
 *    compressed: a full node (as large as the compact one would be) and a
 *    bridge for the compressed one;
 *  - 1: a key under digit 0 that leaves the leaf's prefix one level down
 *    (split): the new node takes the leaf's place, and the top, 33
 *    children with one compressed left (digit 32's), becomes a full node
 *    and a bridge.
 * Both faulted first.  Then the leaf under the bridge is emptied (the
 * bridge goes with it) and a new child takes its slot.
 */
static void shape_bridge_64(struct out *o, int split)
{
	ins(o, ksmall(0));
	ins(o, ksmall(1));
	insrun_pow(o, kraw(1UL << 30), 32, 30);
	insrun_pow(o, kraw(1UL << 30 | 1UL << 24), split ? 31 : 32, 30);
	if (split)
		ins(o, kraw(32UL << 30 | 1));
	insrun_pow(o, kraw(33UL << 30), 31, 30);
	delrun_pow(o, kraw(33UL << 30), 31, 30);
	check(o);
	if (split)
		faultrun(o, kraw(1UL << 24), 1, 1, F_ALL);
	else
		faultrun_pow(o, kraw(40UL << 30), 32, 24, F_ALL);
	check(o);
	iter(o, W_SLOT, ksmall(0), 0, 0, P_NONE);
	if (split) {
		delrun(o, kraw(32UL << 30), 2, 1);
		faultrun(o, kraw(32UL << 30 | 5), 1, 1, F_ALL);
	} else {
		delrun(o, ksmall(0), 2, 1);
		faultrun(o, ksmall(5), 1, 1, F_ALL);
	}
	check(o);
}

static void seed_shape_bridge_64(struct out *o)
{
	shape_bridge_64(o, 0);
	destroy(o, D_REINIT_KERNEL);
	shape_bridge_64(o, 1);
}

/*
 * Bridges, 8-slot: a full node pays a bridge only at level 10 and above
 * (8-byte suffixes), with 7 or 8 children.  A level-20 top holds the F
 * leaf of keys 0 and 1 as a compressed child (digit 0); under digits 1..5
 * in turn, keys g << 60 | j << 54 (parting one level down) until the top
 * holds 65 entries: each group moves into a child.  Then either 59 more
 * under digit 6 (faulted): the copy holds 7 children, one compressed, a
 * full node and a bridge; or, in a second tree, 59 consecutive keys under
 * digit 7 (a compressed child at level 1) and then a key under digit 0
 * leaving the leaf's prefix one level down (faulted): the split's node
 * takes the leaf's place, and the top, 7 children with digit 7's
 * compressed, becomes a full node and a bridge.
 */
static void shape_bridge_8(struct out *o, int split)
{
	unsigned int g;

	ins(o, ksmall(0));
	ins(o, ksmall(1));
	for (g = 1; g <= 5; g++)
		insrun_pow(o, kraw((uint64_t)g << 60), 65 - g, 54);
	check(o);
	if (split) {
		insrun(o, kraw(7UL << 60), 59, 1);
		check(o);
		faultrun(o, kraw(1UL << 57), 1, 1, F_ALL);
	} else {
		faultrun_pow(o, kraw(6UL << 60), 59, 54, F_ALL);
	}
	check(o);
	iter(o, W_SLOT, ksmall(0), 0, 0, P_NONE);
	delrun(o, ksmall(0), 2, 1);
	faultrun(o, ksmall(5), 1, 1, F_ALL);
	check(o);
}

static void seed_shape_bridge_8(struct out *o)
{
	shape_bridge_8(o, 0);
	destroy(o, D_REINIT_KERNEL);
	shape_bridge_8(o, 1);
}

/* GFP_ATOMIC, then GFP_NOWAIT: -ENOMEM without a reserve, inserts inside a
 * preload window, inserts from what a window left, until it runs out. */
static void seed_shape_atomic(struct out *o)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		destroy(o, (uint8_t)(D_REINIT_ATOMIC | (i ? 4 : 0)));
		flush(o);
		ins(o, ksmall(0));
		pre(o, 0, ksmall(0));
		insrun(o, ksmall(1), 70, 1);
		pre(o, 0, ksmall(200));
		insrun(o, klevel(18, 1, 0), 70, 1);
		pre(o, PRE_INSERT_FAIL_ALL, klevel(18, 1, 0));
		pre(o, PRE_INSERT_FAIL_ALL, kraw(0x40046));
		insrun(o, kraw(0x40047), 10, 1);
		check(o);
	}
	destroy(o, D_REINIT_KERNEL);
}

/*
 * Growth that takes the top's items: keys 8 and 16 in a compact top of
 * items (a leaf; in the 8-slot build a level-1 node), then a key beyond its
 * range, first with every allocation failing; then the same again from a
 * top of three items with a tag, and deletes back to empty.
 */
static void seed_shape_grow_absorb(struct out *o)
{
	ins(o, ksmall(8));
	ins(o, ksmall(16));
	faultrun(o, ku16(40000), 1, 1, F_ALL);
	check(o);
	delrun(o, ku16(40000), 1, 1);
	delrun(o, ksmall(8), 9, 1);
	delrun(o, ksmall(16), 1, 1);
	insrun(o, ksmall(40), 3, 1);
	tagrun(o, ksmall(41), 1, 1, 1);
	faultrun(o, ku16(65000), 1, 1, F_ALL);
	iter(o, W_TAGGED, ksmall(0), 1, 0, P_NONE);
	check(o);
	delrun(o, ksmall(40), 3, 1);
	delrun(o, ku16(65000), 1, 1);
	check(o);
}

/*
 * A lock hold on key 63: its node is copied again and again by inserts of
 * its neighbours, keys one bit apart and keys sharing its prefix; deletes
 * around it; replace_slot through the slot from before (forwarded to the
 * live slot), a fresh lookup_slot; then the hold's final replace.
 */
static void seed_shape_hold(struct out *o)
{
	ins(o, ksmall(63));
	ins(o, ksmall(62));
	hold(o, ksmall(63), 9);
	he_near(o, 1, -40, 32);
	he_near(o, 0, -30, 5);
	hedit(o, FZ_H_REPLACE, 1);
	he_bits(o, 6, 20);
	hedit(o, FZ_H_LOOKUP, 1);
	he_prefix(o, 30, 12, 7);
	he_run(o, 1, ku16(4096), 32);
	he_run(o, 0, ksmall(0), 32);
	he_near(o, 1, 1, 32);
	check(o);
	grace(o);
	hold(o, ksmall(63), 2);
	he_run(o, 0, ksmall(64), 32);
	he_near(o, 0, -63, 32);
	check(o);
}

/* Keys sharing a long random prefix, then keys one bit apart from one key:
 * lazy expansion, demotions, splits at every level. */
static void seed_shape_prefix(struct out *o)
{
	insprefix(o, kraw(0x9a3c5e7f12345678UL), 150, 16, 1);
	check(o);
	insprefix(o, kraw(0x9a3c5e7f12345678UL), 100, 30, 2);
	check(o);
	insbits(o, kraw(0x0123456789abcdefUL), 0, 64);
	check(o);
	delrun(o, kexist(0), 40, 1);
	check(o);
}

/*
 * Structured random: valid ops with the key kinds the harness knows.  Every
 * rnd() call is its own statement: the order in which a call's arguments are
 * evaluated is unspecified, and the seeds must not depend on the compiler.
 */
static unsigned int rnd_below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static int rnd_delta(unsigned int span)
{
	return (int)rnd_below(2 * span + 1) - (int)span;
}

static struct key rnd_key(void)
{
	unsigned int kind = rnd_below(10), a, b;

	switch (kind) {
	case 0:
		return ksmall((uint8_t)rnd());
	case 1:
		return ku16((uint16_t)rnd());
	case 2:
		a = rnd_below(256);
		return kbound((uint8_t)a, rnd_delta(1));
	case 3:
		a = 3 * (1 + rnd_below(21));
		b = rnd_below(256);
		return klevel(a, (uint8_t)b, rnd_delta(1));
	case 4:
		return k2_32(rnd_delta(4));
	case 5:
		return kmax((uint8_t)rnd_below(70));
	case 6:
		return kraw(rnd());
	case 7:
		a = rnd_below(256);
		return knear((uint8_t)a, rnd_delta(2));
	default:
		return kexist((uint8_t)rnd());
	}
}

static void random_op(struct out *o)
{
	unsigned int what = rnd_below(20), n, m;
	uint8_t t = (uint8_t)rnd_below(NTAGS), b;
	struct key k, k2;

	switch (what) {
	case 0: case 1: case 2:
		ins(o, rnd_key());
		break;
	case 3:
		del(o, rnd_key());
		break;
	case 4:
		tset(o, rnd_key(), t);
		break;
	case 5:
		tclr(o, rnd_key(), t);
		break;
	case 6:
		n = rnd_below(4);
		m = rnd_below(30);
		gang(o, n, 0, m, rnd_key(), t);
		break;
	case 7:
		k = rnd_key();
		k2 = rnd_key();
		b = (uint8_t)rnd();
		rtag(o, k, k2, b, t, (uint8_t)((t + 1) % NTAGS));
		break;
	case 8:
		n = rnd_below(8);
		k = rnd_key();
		m = rnd_below(20);
		b = (uint8_t)rnd();
		iter(o, (uint8_t)n, k, t, (uint8_t)m, b);
		break;
	case 9:
		k = rnd_key();
		n = 1 + rnd_below(100);
		m = 1 + rnd_below(100);
		insrun(o, k, n, m);
		break;
	case 10:
		k = rnd_key();
		n = 1 + rnd_below(100);
		m = 1 + rnd_below(10);
		delrun(o, k, n, m);
		break;
	case 11:
		b = (uint8_t)rnd();
		fins(o, b, rnd_key());
		break;
	case 12:
		b = (uint8_t)rnd();
		pre(o, b, rnd_key());
		break;
	case 13:
		k = rnd_key();
		n = 1 + rnd_below(50);
		tagrun(o, k, n, t, (int)rnd_below(2));
		break;
	case 14:
		k = rnd_key();
		repl(o, k, (uint8_t)rnd());
		break;
	case 15:
		k = rnd_key();
		n = 1 + rnd_below(60);
		m = 1 + rnd_below(64);
		b = (uint8_t)rnd();
		insprefix(o, k, n, m, b);
		break;
	case 16:
		k = rnd_key();
		n = rnd_below(64);
		m = 1 + rnd_below(64);
		insbits(o, k, (uint8_t)n, m);
		break;
	case 17:
		k = rnd_key();
		n = 1 + rnd_below(30);
		b = (uint8_t)rnd();
		faultrun(o, k, n, 1, b);
		break;
	case 18:
		k = rnd_key();
		n = 1 + rnd_below(4);
		hold(o, k, n);
		for (m = 0; m < n; m++) {
			unsigned int what2 = rnd_below(FZ_NR_HOLD_EDITS);
			unsigned int count = 1 + rnd_below(16);

			if (what2 == FZ_H_INSERT_RUN || what2 == FZ_H_DELETE_RUN) {
				he_run(o, what2 == FZ_H_INSERT_RUN, rnd_key(), count);
			} else if (what2 == FZ_H_INSERT_NEAR || what2 == FZ_H_DELETE_NEAR) {
				he_near(o, what2 == FZ_H_INSERT_NEAR, rnd_delta(100), count);
			} else if (what2 == FZ_H_INSERT_BITS) {
				b = (uint8_t)rnd();
				he_bits(o, b, count);
			} else if (what2 == FZ_H_INSERT_PREFIX) {
				n = 1 + rnd_below(64);
				b = (uint8_t)rnd();
				he_prefix(o, count, n, b);
			} else {
				hedit(o, (enum fz_hold_edit)what2, 1);
			}
		}
		break;
	default:
		grace(o);
		break;
	}
}

static void seed_random(struct out *o, uint64_t seed)
{
	unsigned int i;

	rng_state = seed;
	for (i = 0; i < 80; i++)
		random_op(o);
}

static const struct {
	const char *name;
	void (*fn)(struct out *o);
} seeds[] = {
	{ "seed-empty", seed_empty },
	{ "seed-full-height", seed_full_height },
	{ "seed-levels-grow-shrink", seed_levels },
	{ "seed-dense", seed_dense },
	{ "seed-boundaries", seed_boundaries },
	{ "seed-near-2-32", seed_near_2_32 },
	{ "seed-near-2-63", seed_near_2_63 },
	{ "seed-near-max", seed_near_max },
	{ "seed-sparse", seed_sparse },
	{ "seed-tags-levels", seed_tags_levels },
	{ "seed-tags-growth", seed_tags_growth },
	{ "seed-range-tag", seed_range_tag },
	{ "seed-range-tag-wrap", seed_range_tag_wrap },
	{ "seed-oom-all", seed_oom_all },
	{ "seed-oom-nth", seed_oom_nth },
	{ "seed-preload", seed_preload },
	{ "seed-atomic-tree", seed_atomic_tree },
	{ "seed-iter-delete-all", seed_iter_delete_all },
	{ "seed-iter-delete-alt", seed_iter_delete_alt },
	{ "seed-iter-tagged-delete", seed_iter_tagged_delete },
	{ "seed-iter-contig", seed_iter_contig },
	{ "seed-iter-resume", seed_iter_resume },
	{ "seed-replace", seed_replace },
	{ "seed-gang-sizes", seed_gang_sizes },
	{ "seed-invalid", seed_invalid },
	{ "seed-misuse", seed_misuse },
	{ "seed-destroy-reuse", seed_destroy_reuse },
	{ "seed-grace", seed_grace },
	{ "seed-deep-8slot", seed_deep_8slot },
	{ "seed-big-dense", seed_big_dense },
	{ "seed-shape-leaf", seed_shape_leaf },
	{ "seed-shape-compact", seed_shape_compact },
	{ "seed-shape-refill", seed_shape_refill },
	{ "seed-shape-demote", seed_shape_demote },
	{ "seed-shape-inner-full-64", seed_shape_inner_full_64 },
	{ "seed-shape-demote-for-full-64", seed_shape_demote_for_full_64 },
	{ "seed-shape-demote-pairs-64", seed_shape_demote_pairs_64 },
	{ "seed-shape-demote-all", seed_shape_demote_all },
	{ "seed-shape-parent-full", seed_shape_parent_full },
	{ "seed-shape-inner-full-8", seed_shape_inner_full_8 },
	{ "seed-shape-bridge-64", seed_shape_bridge_64 },
	{ "seed-shape-bridge-8", seed_shape_bridge_8 },
	{ "seed-shape-atomic", seed_shape_atomic },
	{ "seed-shape-grow-absorb", seed_shape_grow_absorb },
	{ "seed-shape-hold", seed_shape_hold },
	{ "seed-shape-prefix", seed_shape_prefix },
};

#define NR_RANDOM 8

static int write_seed(const char *dir, const char *name, const struct out *o)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(o->b, 1, o->n, f) != o->n || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct out o;
	char name[64];
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		o.n = 0;
		seeds[i].fn(&o);
		if (write_seed(argv[1], seeds[i].name, &o))
			return 1;
	}
	for (i = 0; i < NR_RANDOM; i++) {
		o.n = 0;
		seed_random(&o, 0x9e3779b97f4a7c15ULL * (i + 1));
		snprintf(name, sizeof(name), "seed-random-%u", i);
		if (write_seed(argv[1], name, &o))
			return 1;
	}
	return 0;
}
