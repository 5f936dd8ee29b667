/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * targets.c - rcuradix-bench --targets: the figures compressed nodes are
 * meant to move, on dense keys, dense keys with holes, clustered runs and
 * uniform 32- and 64-bit keys, each as a ratio rcuradix / peer of the
 * medians measured in the same run (the peer is JudyL, or cds_lfht where a
 * target names it), then every target with its worst ratio over the sizes
 * of the run and its verdict.  Nothing here measures: it reads the tables
 * single.c and sharing.c filled.
 */
#include "config.h"

#include "bench.h"

#include <math.h>
#include <string.h>

const enum keyset_kind cn_keysets[] = { KS_DENSE_RAND, KS_HOLES, KS_CLUSTERED, KS_SPARSE32,
					KS_SPARSE64 };
const int cn_nkeysets = (int)(sizeof(cn_keysets) / sizeof(cn_keysets[0]));
const char cn_scenario[] = "reader-next-to-writer-sparse64";

/* The sizes the targets are defined over. */
static const int target_sizes[] = { 16, 18, 20 };
#define MIN_REPS 5

/* One figure: rcuradix's row over the peer's row. */
struct metric {
	const char *label;
	const char *op, *unit; /* rcuradix's row */
	const char *peer_op;   /* the peer's row; NULL: the same as op */
	const char *peer;      /* peer name; NULL: the scenario's row op over
				* its row peer_op, or its row op alone if
				* peer_op is NULL too (a ratio already) */
};

enum {
	M_BYTES,
	M_NODE_BYTES,
	M_HIT,
	M_DEP,
	M_GANG64,
	M_PRELOAD,
	M_TWALK64,
	M_HIT_LFHT,
	M_READER,
	M_READER_CPU,
	M_COUNT
};

static const struct metric metrics[M_COUNT] = {
	[M_BYTES] = { "bytes/key (allocator)", "memory (allocator)", "B/key", NULL, "judyl" },
	[M_NODE_BYTES] = { "bytes/key (nodes)", "memory (nodes)", "B/key", NULL, "judyl" },
	[M_HIT] = { "lookup hit ns", "lookup hit", "ns/op", NULL, "judyl" },
	[M_DEP] = { "lookup dependent ns", "lookup dependent", "ns/op", NULL, "judyl" },
	[M_GANG64] = { "gang64 ns/item", "gang64", "ns/item", NULL, "judyl" },
	[M_PRELOAD] = { "insert+preload ns (judyl: insert)", "insert+preload", "ns/op", "insert",
			"judyl" },
	[M_TWALK64] = { "tagged walk 1/64 ns/item", "tagged walk 1/64", "ns/item", NULL,
			"judyl" },
	[M_HIT_LFHT] = { "lookup hit ns vs lfht", "lookup hit", "ns/op", NULL, "lfht" },
	[M_READER] = { "reader with writer / alone", "with other", "M/s", "alone", NULL },
	[M_READER_CPU] = { "same per cpu time: with / alone", "per cpu: with / alone", "ratio",
			   NULL, NULL },
};

struct target {
	const char *name;
	int metric;
	enum keyset_kind ks;
	bool at_least; /* the ratio must be >= limit (else <=) */
	double limit;
};

static const struct target targets[] = {
	{ "bytes/key clustered <= 1.0 x JudyL", M_BYTES, KS_CLUSTERED, false, 1.0 },
	{ "bytes/key sparse32 <= 1.0 x JudyL", M_BYTES, KS_SPARSE32, false, 1.0 },
	{ "bytes/key sparse64 <= 1.0 x JudyL", M_BYTES, KS_SPARSE64, false, 1.0 },
	{ "bytes/key holes <= 1.5 x JudyL", M_BYTES, KS_HOLES, false, 1.5 },
	{ "lookup hit clustered <= 0.8 x JudyL", M_HIT, KS_CLUSTERED, false, 0.8 },
	{ "lookup hit sparse32 <= 0.8 x JudyL", M_HIT, KS_SPARSE32, false, 0.8 },
	{ "lookup hit sparse64 <= 0.8 x JudyL", M_HIT, KS_SPARSE64, false, 0.8 },
	{ "dependent lookup clustered <= 1.0 x JudyL", M_DEP, KS_CLUSTERED, false, 1.0 },
	{ "dependent lookup sparse32 <= 1.0 x JudyL", M_DEP, KS_SPARSE32, false, 1.0 },
	{ "dependent lookup sparse64 <= 1.0 x JudyL", M_DEP, KS_SPARSE64, false, 1.0 },
	{ "gang64 ns/item clustered <= 0.5 x JudyL", M_GANG64, KS_CLUSTERED, false, 0.5 },
	{ "gang64 ns/item sparse32 <= 0.5 x JudyL", M_GANG64, KS_SPARSE32, false, 0.5 },
	{ "gang64 ns/item sparse64 <= 0.5 x JudyL", M_GANG64, KS_SPARSE64, false, 0.5 },
	{ "insert+preload dense-rand <= 1.5 x JudyL insert", M_PRELOAD, KS_DENSE_RAND, false, 1.5 },
	{ "insert+preload holes <= 1.5 x JudyL insert", M_PRELOAD, KS_HOLES, false, 1.5 },
	{ "insert+preload clustered <= 1.5 x JudyL insert", M_PRELOAD, KS_CLUSTERED, false, 1.5 },
	{ "insert+preload sparse32 <= 1.5 x JudyL insert", M_PRELOAD, KS_SPARSE32, false, 1.5 },
	{ "insert+preload sparse64 <= 1.5 x JudyL insert", M_PRELOAD, KS_SPARSE64, false, 1.5 },
	{ "tagged walk 1/64 clustered <= 1.0 x JudyL of tagged", M_TWALK64, KS_CLUSTERED, false,
	  1.0 },
	{ "lookup hit sparse64 <= 1.0 x cds_lfht", M_HIT_LFHT, KS_SPARSE64, false, 1.0 },
	{ "reader with writer sparse64 >= 0.8 x alone", M_READER, KS_SPARSE64, true, 0.8 },
};

#define NTARGETS ((int)(sizeof(targets) / sizeof(targets[0])))

static int peer_index(const char *name)
{
	int p;

	for (p = 0; p < NPEERS; p++)
		if (strcmp(peers[p]->name, name) == 0)
			return p;
	die("no peer '%s'", name);
}

static double med(const struct table *t, const char *op, const char *unit, int pi)
{
	const struct row *r = table_find(t, op, unit);

	return r && cell_ok(&r->c[pi]) ? cell_median(&r->c[pi]) : NAN;
}

/*
 * The figure of @m on key set @ks at size index @s: *a is rcuradix's median
 * (the reader's rate next to the writer, for the scenario), *b the peer's
 * (the reader's rate alone).  Returns *a / *b, NAN if either is missing.
 */
static double figure(const struct cn_results *r, int m, enum keyset_kind ks, int s, double *a,
		     double *b)
{
	const struct metric *mt = &metrics[m];

	*a = *b = NAN;
	if (!mt->peer) {
		if (ks != KS_SPARSE64 || !r->have_scen[s])
			return NAN;
		*a = med(&r->scen[s], mt->op, mt->unit, 0);
		*b = mt->peer_op ? med(&r->scen[s], mt->peer_op, mt->unit, 0) : 1;
	} else {
		if (!r->have[ks][s])
			return NAN;
		*a = med(&r->single[ks][s], mt->op, mt->unit, 0);
		*b = med(&r->single[ks][s], mt->peer_op ? mt->peer_op : mt->op, mt->unit,
			 peer_index(mt->peer));
	}
	return *a / *b;
}

static void print_ratios(const struct cn_results *r, FILE *out, FILE *csv)
{
	int m, k, s;

	fprintf(out, "\n== compressed-node figures: rcuradix / peer, ratio of the medians of %d "
		     "interleaved repetitions ==\n", r->reps);
	fprintf(out, "cells: ratio = rcuradix / peer (medians); peer judyl unless the figure "
		     "names another;\nthe scenario's cell is the reader's M lookups/s next to the "
		     "writer / alone\n");
	fprintf(out, "%-34s %-11s", "figure", "key set");
	for (s = 0; s < r->nsizes; s++) {
		char h[16];

		snprintf(h, sizeof(h), "N = 2^%d", r->log2n[s]);
		fprintf(out, " %-22s", h);
	}
	fprintf(out, "\n");
	for (m = 0; m < M_COUNT; m++)
		for (k = 0; k < cn_nkeysets; k++) {
			enum keyset_kind ks = cn_keysets[k];
			char cells[MAX_SIZES][64];
			bool any = false;

			for (s = 0; s < r->nsizes; s++) {
				double a, b, v = figure(r, m, ks, s, &a, &b);
				char fv[16], fa[16], fb[16];

				if (isnan(v)) {
					snprintf(cells[s], sizeof(cells[s]), "n/a");
					continue;
				}
				any = true;
				fmt_num(fv, sizeof(fv), v);
				fmt_num(fa, sizeof(fa), a);
				fmt_num(fb, sizeof(fb), b);
				if (metrics[m].peer || metrics[m].peer_op)
					snprintf(cells[s], sizeof(cells[s]), "%s = %s / %s", fv, fa,
						 fb);
				else
					snprintf(cells[s], sizeof(cells[s]), "%s", fv);
				if (csv)
					fprintf(csv, "cn-ratio,%s,%zu,%s,ratio,%s,%.6g,%.6g,%.6g,%d\n",
						keyset_name(ks), (size_t)1 << r->log2n[s],
						metrics[m].label,
						metrics[m].peer ? metrics[m].peer : "alone", v, a, b,
						r->reps);
			}
			if (!any)
				continue;
			fprintf(out, "%-34s %-11s", metrics[m].label, keyset_name(ks));
			for (s = 0; s < r->nsizes; s++)
				fprintf(out, " %-22s", cells[s]);
			fprintf(out, "\n");
		}
}

/* A ratio in 8 columns: three decimals where they matter (near the limits). */
static void put_ratio(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %8s", "n/a");
	else if (v < 10)
		fprintf(out, " %8.3f", v);
	else if (v < 1e5)
		fprintf(out, " %8.1f", v);
	else
		fprintf(out, " %8.3g", v);
}

/* Whether this run's sizes are the ones the targets are defined over. */
static bool defined_sizes(const struct cn_results *r)
{
	int i;

	if (r->nsizes != (int)(sizeof(target_sizes) / sizeof(target_sizes[0])))
		return false;
	for (i = 0; i < r->nsizes; i++)
		if (r->log2n[i] != target_sizes[i])
			return false;
	return true;
}

/*
 * The reader-next-to-writer ratio is one of wall-clock rates.  Where the
 * two pinned threads did not have their CPUs, other threads ran there:
 * other programs, or liburcu's call_rcu worker, which frees the nodes the
 * writer unlinks and is not pinned (on 2 CPUs it shares one with a
 * measured thread).  The latter is the library's cost, the former the
 * machine's; the ratio per CPU time (sharing.c) leaves both out.  Say so.
 */
static void reader_note(const struct cn_results *r, FILE *out)
{
	int s;

	for (s = 0; s < r->nsizes; s++) {
		const struct table *t = &r->scen[s];
		double alone, with, writer, a, b;

		if (!r->have_scen[s])
			continue;
		alone = med(t, "cpu share alone", "ratio", 0);
		with = med(t, "cpu share with other", "ratio", 0);
		writer = med(t, "other cpu share", "ratio", 0);
		if (alone >= 0.9 && with >= 0.9 && writer >= 0.9)
			continue;
		fprintf(out, "(reader with writer at 2^%d: CPU share reader alone %.2f, with the "
			     "writer %.2f, writer %.2f: other\n threads ran on their CPUs (other "
			     "programs, or the call_rcu worker freeing the writer's\n nodes); "
			     "per CPU time the ratio is %.3f)\n",
			r->log2n[s], alone, with, writer,
			figure(r, M_READER_CPU, KS_SPARSE64, s, &a, &b));
	}
}

static void print_targets(const struct cn_results *r, FILE *out, FILE *csv)
{
	int i, s, pass = 0, fail = 0, na = 0;
	bool partial_any = false;

	fprintf(out, "\n== compressed-node targets: worst ratio over N =");
	for (s = 0; s < r->nsizes; s++)
		fprintf(out, " 2^%d", r->log2n[s]);
	fprintf(out, " ==\n");
	if (!defined_sizes(r))
		fprintf(out, "(the targets are defined over N = 2^16, 2^18 and 2^20; this run has "
			     "the sizes above)\n");
	if (r->reps < MIN_REPS)
		fprintf(out, "(medians of %d repetition%s: the targets are defined on at least "
			     "%d)\n", r->reps, r->reps == 1 ? "" : "s", MIN_REPS);
	fprintf(out, "%-52s", "target");
	for (s = 0; s < r->nsizes; s++) {
		char h[16];

		snprintf(h, sizeof(h), "2^%d", r->log2n[s]);
		fprintf(out, " %8s", h);
	}
	fprintf(out, " %8s  %s\n", "worst", "verdict");
	for (i = 0; i < NTARGETS; i++) {
		const struct target *t = &targets[i];
		double worst = NAN;
		int worst_s = -1, measured = 0;
		const char *verdict;
		bool partial;

		fprintf(out, "%-52s", t->name);
		for (s = 0; s < r->nsizes; s++) {
			double a, b, v = figure(r, t->metric, t->ks, s, &a, &b);

			put_ratio(out, v);
			if (isnan(v))
				continue;
			measured++;
			if (isnan(worst) || (t->at_least ? v < worst : v > worst)) {
				worst = v;
				worst_s = s;
			}
		}
		partial = measured > 0 && measured < r->nsizes;
		partial_any |= partial;
		if (!measured) {
			verdict = "n/a";
			na++;
		} else if (t->at_least ? worst >= t->limit : worst <= t->limit) {
			verdict = "PASS";
			pass++;
		} else {
			verdict = "FAIL";
			fail++;
		}
		put_ratio(out, worst);
		fprintf(out, "  %s%s\n", verdict, partial ? " *" : "");
		if (csv)
			fprintf(csv, "cn-target,%s,%zu,%s,%s %.2f,%s,%.6g,,,%d\n",
				keyset_name(t->ks),
				worst_s < 0 ? (size_t)0 : (size_t)1 << r->log2n[worst_s], t->name,
				t->at_least ? ">=" : "<=", t->limit, verdict, worst, measured);
	}
	if (partial_any)
		fprintf(out, "* measured at some of the sizes only (a size above the key set's cap "
			     "is not run)\n");
	reader_note(r, out);
	fprintf(out, "compressed-node targets: %d PASS, %d FAIL, %d n/a\n", pass, fail, na);
}

void cn_report(const struct cn_results *r, FILE *out, FILE *csv)
{
	print_ratios(r, out, csv);
	print_targets(r, out, csv);
}
