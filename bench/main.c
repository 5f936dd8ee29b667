/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * main.c - rcuradix-bench: rcuradix side by side with JudyL, JudyL behind a
 * pthread_rwlock_t, liburcu's cds_lfht and a flat array, on the same keys in
 * the same run.  Prints a header describing the machine, one table per key
 * set and size (median [min] of interleaved repetitions, and the ratio
 * peer / rcuradix of the medians), the concurrency tables, and the
 * performance targets as measured.  --csv FILE writes every figure.  Each
 * key set and size, and each named scenario, runs in a child process of its
 * own, from a fresh heap.
 *
 *   rcuradix-bench              the default matrix (about two minutes)
 *   rcuradix-bench --full       every key set at 2^10, 2^16, 2^20, 2^24
 *   rcuradix-bench --scenario all   the named scenarios (sharing.c)
 *   rcuradix-bench --targets    the compressed-node targets (targets.c)
 *   rcuradix-bench --sweep      memory and lookups from 2^10 to 2^22 keys
 *   rcuradix-bench --smoke      tiny sizes, one repetition (make check)
 *   rcuradix-bench --help       every option
 */
#define _GNU_SOURCE 1
#include "config.h"

#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rcuradix/radix-tree.h>

#define MAX_CONC 8
#define MAX_RUNS 48
#define MAX_SCEN 16

struct run_spec {
	int ks, log2n;
};

struct config {
	struct options o;
	int sizes[MAX_SIZES]; /* log2 N, with keysets: the cross product */
	int nsizes;
	bool keysets[KS_COUNT];
	struct run_spec runs[MAX_RUNS]; /* single-thread runs, in order */
	int nruns;
	struct run_spec conc[MAX_CONC];
	int nconc;
	int scen[MAX_SCEN]; /* named scenarios, in order */
	int nscen;
	uint64_t seed;
	const char *csv;
	bool targets; /* --targets: the compressed-node targets */
	bool sweep;   /* --sweep: memory and lookups over a range of N */
};

/* Every scenario name, one per line of the usage text. */
static const char *scenario_list(void)
{
	static const char sep[] = ",\n                      ";
	static char buf[512];
	size_t len = 0;
	int i;

	for (i = 0; i < scenario_count() && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? sep : "",
					scenario_name(i));
	return buf;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rcuradix-bench [options]\n"
		"  (default: dense-seq:20 dense-rand:16 dense-rand:20 holes:16 clustered:16\n"
		"   sparse32:16 sparse64:14, concurrency dense-rand:20; about two minutes)\n"
		"  --full              whole matrix: sizes 10,16,20,24 x all key sets (sparse\n"
		"                      sets capped), concurrency at dense-rand 2^16, 2^20, 2^24\n"
		"  --smoke             tiny: size 2^10, 1 repetition, short concurrency runs\n"
		"                      (and scenario runs of 20 ms at 2^10, with --scenario);\n"
		"                      with --targets or --sweep: sizes 2^10 and 2^12, no\n"
		"                      concurrency runs\n"
		"  --targets           the compressed-node targets: dense-rand, holes, clustered,\n"
		"                      sparse32, sparse64 at sizes 16,18,20 against judyl and lfht,\n"
		"                      scenario %s at each size\n"
		"                      (500 ms runs); prints the rcuradix / JudyL ratios and\n"
		"                      the targets with the worst ratio over the sizes\n"
		"  --sweep             bytes per key and lookups of every key set at sizes\n"
		"                      10,12,...,22 (capped key sets up to their cap), for\n"
		"                      bench/plot.sh\n"
		"  --ops O,O,...       single-thread operations: preload,hit,dependent,miss,gang,\n"
		"                      walk,tags,delete or all (default all; the build and its\n"
		"                      memory figures are always measured)\n"
		"  --sizes L,L,...     log2 of the key counts (with --keysets: cross product)\n"
		"  --keysets K,K,...   dense-seq,dense-rand,holes,clustered,sparse32,sparse64\n"
		"  --runs K:L,...      single-thread runs, key set:log2 N (instead of the above)\n"
		"  --conc K:L,...      concurrency runs ('none' for none)\n"
		"  --conc-ms MS        duration of one concurrency run (default 150)\n"
		"  --reps N            interleaved repetitions (default 5)\n"
		"  --max-ops N         lookups per measurement (default 2^19)\n"
		"  --peers P,P,...     rcuradix,judyl,judyl+rwlock,lfht,flat (default all)\n"
		"  --scenario S,S,...  named scenarios ('all' for every one), instead of the\n"
		"                      matrix unless --runs, --conc, --sizes or --keysets is given:\n"
		"                      %s\n"
		"                      (--reps defaults to 7 for them)\n"
		"  --scenario-ms MS    duration of one scenario run (default 1000)\n"
		"  --scenario-size L   log2 N of every scenario tree (default: each its own)\n"
		"  --root-offset B     scenario roots B bytes after a 256-byte boundary\n"
		"                      (a multiple of 16 below 256; default 0)\n"
		"  --seed S            key generation seed (default 42)\n"
		"  --csv FILE          write every figure to FILE\n"
		"  --quiet             no progress on stderr\n",
		cn_scenario, scenario_list());
}

/* Split @arg on commas and call @fn on each part. */
static void each_item(char *arg, void (*fn)(struct config *, const char *), struct config *c)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		fn(c, tok);
}

static void add_size(struct config *c, const char *s)
{
	int l = atoi(s);

	if (l < 7 || l > 28 || c->nsizes == MAX_SIZES)
		die("bad size 2^%s (7..28, at most %d sizes)", s, MAX_SIZES);
	c->sizes[c->nsizes++] = l;
}

static void add_keyset(struct config *c, const char *s)
{
	int k = keyset_by_name(s);

	if (k < 0)
		die("unknown key set '%s'", s);
	c->keysets[k] = true;
}

static void add_conc(struct config *c, const char *s)
{
	char name[32];
	const char *colon = strchr(s, ':');
	int k;

	if (strcmp(s, "none") == 0)
		return;
	if (!colon || colon - s >= (long)sizeof(name) || c->nconc == MAX_CONC)
		die("bad concurrency run '%s' (keyset:log2)", s);
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = 0;
	k = keyset_by_name(name);
	if (k < 0)
		die("unknown key set '%s'", name);
	c->conc[c->nconc].ks = k;
	c->conc[c->nconc].log2n = atoi(colon + 1);
	c->nconc++;
}

static void add_run(struct config *c, const char *s)
{
	const char *colon = strchr(s, ':');
	char name[32];
	int k;

	if (!colon || colon - s >= (long)sizeof(name) || c->nruns == MAX_RUNS)
		die("bad run '%s' (keyset:log2)", s);
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = 0;
	k = keyset_by_name(name);
	if (k < 0)
		die("unknown key set '%s'", name);
	c->runs[c->nruns].ks = k;
	c->runs[c->nruns].log2n = atoi(colon + 1);
	if (c->runs[c->nruns].log2n < 7 || ((size_t)1 << c->runs[c->nruns].log2n) > keyset_cap(k))
		die("run '%s': N out of range for this key set", s);
	c->nruns++;
}

static void add_scenario(struct config *c, const char *s)
{
	int i;

	if (strcmp(s, "all") == 0) {
		for (i = 0; i < scenario_count(); i++)
			add_scenario(c, scenario_name(i));
		return;
	}
	i = scenario_by_name(s);
	if (i < 0)
		die("unknown scenario '%s' (--help lists them)", s);
	if (c->nscen == MAX_SCEN)
		die("at most %d scenarios", MAX_SCEN);
	c->scen[c->nscen++] = i;
}

static void add_op(struct config *c, const char *s)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} ops[] = {
		{ "preload", OPS_PRELOAD }, { "hit", OPS_HIT },	    { "dependent", OPS_DEP },
		{ "miss", OPS_MISS },	    { "gang", OPS_GANG },   { "walk", OPS_WALK },
		{ "tags", OPS_TAGS },	    { "delete", OPS_DELETE }, { "all", OPS_ALL },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, s) == 0) {
			c->o.ops |= ops[i].bit;
			return;
		}
	die("unknown operation '%s' (--help lists them)", s);
}

static void add_peer(struct config *c, const char *s)
{
	int p;

	for (p = 0; p < NPEERS; p++)
		if (strcmp(peers[p]->name, s) == 0) {
			c->o.enabled[p] = true;
			return;
		}
	die("unknown peer '%s'", s);
}

static void parse(int argc, char **argv, struct config *c)
{
	static const struct option longopts[] = {
		{ "full", no_argument, NULL, 'F' },	{ "smoke", no_argument, NULL, 'S' },
		{ "sizes", required_argument, NULL, 's' }, { "keysets", required_argument, NULL, 'k' },
		{ "conc", required_argument, NULL, 'c' },	{ "conc-ms", required_argument, NULL, 'm' },
		{ "reps", required_argument, NULL, 'r' },	{ "max-ops", required_argument, NULL, 'o' },
		{ "peers", required_argument, NULL, 'p' }, { "seed", required_argument, NULL, 'e' },
		{ "csv", required_argument, NULL, 'v' },	{ "quiet", no_argument, NULL, 'q' },
		{ "runs", required_argument, NULL, 'R' },	{ "help", no_argument, NULL, 'h' },
		{ "scenario", required_argument, NULL, 'n' },
		{ "scenario-ms", required_argument, NULL, 'M' },
		{ "scenario-size", required_argument, NULL, 'z' },
		{ "root-offset", required_argument, NULL, 'O' },
		{ "targets", no_argument, NULL, 'T' },	{ "sweep", no_argument, NULL, 'W' },
		{ "ops", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	bool sizes_set = false, ks_set = false, conc_set = false, peers_set = false;
	bool runs_set = false, reps_set = false, smoke = false, ops_set = false;
	bool scen_ms_set = false;
	int opt, i;

	memset(c, 0, sizeof(*c));
	c->o.reps = 5;
	c->o.conc_ms = 150;
	c->o.max_ops = (size_t)1 << 19;
	c->o.verbose = true;
	c->o.warmup = true;
	c->o.scen_ms = 1000;
	c->seed = 42;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			c->nsizes = 0;
			add_size(c, "10");
			add_size(c, "16");
			add_size(c, "20");
			add_size(c, "24");
			c->nconc = 0;
			add_conc(c, "dense-rand:16");
			add_conc(c, "dense-rand:20");
			add_conc(c, "dense-rand:24");
			c->o.conc_ms = 400;
			c->o.max_ops = (size_t)1 << 21;
			sizes_set = conc_set = true;
			break;
		case 'S':
			/* Sizes and concurrency runs once the mode is known. */
			smoke = true;
			c->o.conc_ms = 10;
			c->o.reps = 1;
			c->o.max_ops = (size_t)1 << 13;
			c->o.warmup = false;
			c->o.scen_ms = 20;
			c->o.scen_log2 = 10;
			reps_set = scen_ms_set = true;
			break;
		case 'T':
			c->targets = true;
			break;
		case 'W':
			c->sweep = true;
			break;
		case 'P': {
			char buf[256];

			snprintf(buf, sizeof(buf), "%s", optarg);
			c->o.ops = 0;
			each_item(buf, add_op, c);
			ops_set = true;
			break;
		}
		case 's': {
			char buf[256];

			snprintf(buf, sizeof(buf), "%s", optarg);
			c->nsizes = 0;
			each_item(buf, add_size, c);
			sizes_set = true;
			break;
		}
		case 'k': {
			char buf[256];

			snprintf(buf, sizeof(buf), "%s", optarg);
			each_item(buf, add_keyset, c);
			ks_set = true;
			break;
		}
		case 'c': {
			char buf[256];

			snprintf(buf, sizeof(buf), "%s", optarg);
			c->nconc = 0;
			each_item(buf, add_conc, c);
			conc_set = true;
			break;
		}
		case 'R': {
			char buf[512];

			snprintf(buf, sizeof(buf), "%s", optarg);
			c->nruns = 0;
			each_item(buf, add_run, c);
			runs_set = true;
			break;
		}
		case 'm':
			c->o.conc_ms = atof(optarg);
			break;
		case 'r':
			c->o.reps = atoi(optarg);
			if (c->o.reps < 1 || c->o.reps > MAX_REPS)
				die("--reps: 1..%d", MAX_REPS);
			reps_set = true;
			break;
		case 'o':
			c->o.max_ops = (size_t)strtoull(optarg, NULL, 0);
			if (c->o.max_ops < 1024)
				die("--max-ops: at least 1024");
			break;
		case 'p': {
			char buf[256];

			snprintf(buf, sizeof(buf), "%s", optarg);
			each_item(buf, add_peer, c);
			peers_set = true;
			break;
		}
		case 'e':
			c->seed = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			c->csv = optarg;
			break;
		case 'q':
			c->o.verbose = false;
			break;
		case 'n': {
			char buf[512];

			snprintf(buf, sizeof(buf), "%s", optarg);
			c->nscen = 0;
			each_item(buf, add_scenario, c);
			break;
		}
		case 'M':
			c->o.scen_ms = atof(optarg);
			if (!(c->o.scen_ms >= 1 && c->o.scen_ms <= 600e3))
				die("--scenario-ms: 1..600000");
			scen_ms_set = true;
			break;
		case 'z':
			c->o.scen_log2 = atoi(optarg);
			if (c->o.scen_log2 < 7 || c->o.scen_log2 > 24)
				die("--scenario-size: 7..24");
			break;
		case 'O': {
			long off = atol(optarg);

			if (off < 0 || off >= 256 || off % 16)
				die("--root-offset: a multiple of 16 below 256");
			c->o.root_offset = (size_t)off;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		usage(stderr);
		exit(2);
	}
	c->o.seed = c->seed;
	c->o.scen_reps = reps_set || c->targets ? c->o.reps : 7;
	if (c->targets && c->sweep)
		die("--targets and --sweep are two different runs");
	if (smoke) {
		if (!sizes_set) {
			c->nsizes = 0;
			add_size(c, "10");
			if (c->targets || c->sweep)
				add_size(c, "12");
			sizes_set = true;
		}
		if (!conc_set) {
			c->nconc = 0;
			if (!c->targets && !c->sweep)
				add_conc(c, "dense-rand:10");
			conc_set = true;
		}
	}
	if (!ops_set)
		c->o.ops = c->targets ? CN_OPS : c->sweep ? OPS_HIT | OPS_DEP : OPS_ALL;
	if (c->targets && !scen_ms_set)
		c->o.scen_ms = 500;
	if (c->targets || c->sweep) {
		static const char *const sweep_sizes[] = { "10", "12", "14", "16", "18", "20", "22" };
		int k, s;

		if (runs_set)
			die("--runs does not go with --targets or --sweep (use --sizes, --keysets)");
		if (!sizes_set && c->targets) {
			add_size(c, "16");
			add_size(c, "18");
			add_size(c, "20");
		} else if (!sizes_set) {
			for (i = 0; i < (int)(sizeof(sweep_sizes) / sizeof(sweep_sizes[0])); i++)
				add_size(c, sweep_sizes[i]);
		}
		if (!ks_set)
			for (i = 0; i < (c->targets ? cn_nkeysets : KS_COUNT); i++)
				c->keysets[c->targets ? (int)cn_keysets[i] : i] = true;
		if (!conc_set)
			c->nconc = 0;
		conc_set = true;
		if (!peers_set && c->targets) {
			add_peer(c, "rcuradix");
			add_peer(c, "judyl");
			add_peer(c, "lfht");
			peers_set = true;
		}
		/* Key set by key set, each over the sizes; a size above a key
		 * set's cap is left out (n/a in the targets table). */
		for (k = 0; k < KS_COUNT; k++)
			for (s = 0; s < c->nsizes && c->keysets[k]; s++) {
				if (((size_t)1 << c->sizes[s]) > keyset_cap(k))
					continue;
				if (c->nruns == MAX_RUNS)
					die("too many runs (at most %d)", MAX_RUNS);
				c->runs[c->nruns++] = (struct run_spec){ k, c->sizes[s] };
			}
	} else if (c->nscen && !runs_set && !sizes_set && !ks_set && !conc_set) {
		/* Scenarios alone. */
		conc_set = true;
	} else if (runs_set) {
		/* Explicit list: nothing to add. */
	} else if (!sizes_set && !ks_set) {
		/* The default matrix, sized for two minutes on 2 CPUs (1 min
		 * 54 s measured): the dense sets at 2^20, where the targets
		 * are, and every other key set at a smaller size (sparse
		 * inserts cost a microsecond). */
		static const struct run_spec def[] = {
			{ KS_DENSE_SEQ, 20 }, { KS_DENSE_RAND, 16 }, { KS_DENSE_RAND, 20 },
			{ KS_HOLES, 16 },     { KS_CLUSTERED, 16 },  { KS_SPARSE32, 16 },
			{ KS_SPARSE64, 14 },
		};

		for (i = 0; i < (int)(sizeof(def) / sizeof(def[0])); i++)
			c->runs[c->nruns++] = def[i];
	} else {
		int k, s;

		if (!sizes_set) {
			add_size(c, "16");
			add_size(c, "20");
		}
		if (!ks_set)
			for (i = 0; i < KS_COUNT; i++)
				c->keysets[i] = true;
		for (k = 0; k < KS_COUNT; k++)
			for (s = 0; s < c->nsizes && c->keysets[k]; s++) {
				int l = c->sizes[s], j;

				/* Capped key sets run at their cap, once. */
				while (((size_t)1 << l) > keyset_cap(k))
					l--;
				for (j = 0; j < c->nruns; j++)
					if (c->runs[j].ks == k && c->runs[j].log2n == l)
						break;
				if (j == c->nruns && c->nruns < MAX_RUNS)
					c->runs[c->nruns++] = (struct run_spec){ k, l };
			}
	}
	if (!conc_set)
		add_conc(c, "dense-rand:20");
	if (!peers_set)
		for (i = 0; i < NPEERS; i++)
			c->o.enabled[i] = true;
	if (!c->o.enabled[0])
		die("--peers must include rcuradix (every ratio is relative to it)");
}

/* ---- header ------------------------------------------------------------- */

static void print_header(const struct config *c, FILE *out)
{
	uint64_t step, empty;
	int p, i;

	print_machine(out, "rcuradix-bench");
	tsc_resolution(&step, &empty);
	fprintf(out, "TSC:       %.3f ticks/ns; latency samples have a resolution of %.1f ns and "
		     "include %.1f ns of timing overhead\n",
		tsc_per_ns(), (double)step / tsc_per_ns(), (double)empty / tsc_per_ns());
	fprintf(out, "flavor:    urcu-memb for rcuradix and lfht (read lock per operation)\n");
	fprintf(out, "malloc():  %s (the benchmark's and the glibc peers')\n", malloc_library());
	fprintf(out, "allocators:\n");
	for (p = 0; p < NPEERS; p++)
		fprintf(out, "  %-13s %s\n", peers[p]->name, peers[p]->allocator);
	fprintf(out, "method:    %d interleaved repetitions (A B C A B C ...)%s;\n           cells: median [min], then peer/rcuradix of the "
		     "medians; seed %llu\n           single-thread times are the thread's CPU time "
		     "(preemption by other programs excluded)\n",
		c->o.reps, c->o.warmup ? " after a warm-up pass (N < 2^20)" : "",
		(unsigned long long)c->seed);
	fprintf(out, "memory:    own = radix_tree_memory() / JudyLMemUsed() / lfht nodes x size + "
		     "buckets x 16 / array;\n           allocator = jemalloc stats.allocated delta "
		     "(rcuradix) or glibc mallinfo2 delta (others);\n           backing = "
		     "rcuradix_get_stats() backing_bytes\n");
	fprintf(out, "runs:     ");
	for (i = 0; i < c->nruns; i++)
		fprintf(out, " %s:2^%d", keyset_name(c->runs[i].ks), c->runs[i].log2n);
	if (!c->nruns)
		fprintf(out, " none");
	fprintf(out, "\n           concurrency:");
	for (i = 0; i < c->nconc; i++)
		fprintf(out, " %s:2^%d", keyset_name(c->conc[i].ks), c->conc[i].log2n);
	if (c->nconc)
		fprintf(out, " (%.0f ms per scenario)\n", c->o.conc_ms);
	else
		fprintf(out, " none\n");
	if (c->nscen) {
		int col = 27;

		fprintf(out, "           named scenarios:");
		for (i = 0; i < c->nscen; i++) {
			const char *name = scenario_name(c->scen[i]);

			if (col + 1 + (int)strlen(name) > 88) {
				fprintf(out, "\n            ");
				col = 12;
			}
			col += fprintf(out, " %s", name);
		}
		fprintf(out, "\n           (%d x 2 runs of %.0f ms each, alone and with)\n",
			c->o.scen_reps, c->o.scen_ms);
	}
	if (c->targets) {
		fprintf(out, "           targets scenario: %s at", cn_scenario);
		for (i = 0; i < c->nsizes; i++)
			fprintf(out, " 2^%d", c->sizes[i]);
		fprintf(out, " (%d x 2 runs of %.0f ms each, alone and with)\n", c->o.scen_reps,
			c->o.scen_ms);
	}
	if (c->o.ops != OPS_ALL) {
		fprintf(out, "           operations: insert, memory");
		if (c->o.ops & OPS_PRELOAD)
			fprintf(out, ", insert+preload");
		if (c->o.ops & OPS_HIT)
			fprintf(out, ", lookup hit");
		if (c->o.ops & OPS_DEP)
			fprintf(out, ", lookup dependent");
		if (c->o.ops & OPS_MISS)
			fprintf(out, ", lookup miss");
		if (c->o.ops & OPS_GANG)
			fprintf(out, ", gang");
		if (c->o.ops & OPS_WALK)
			fprintf(out, ", walk");
		if (c->o.ops & OPS_TAGS)
			fprintf(out, ", tags");
		if (c->o.ops & OPS_DELETE)
			fprintf(out, ", delete");
		fprintf(out, " (--ops)\n");
	}
	fprintf(out, "           sparse32 is capped at 2^%d and sparse64 at 2^%d: uniform keys cost "
		     "~1 KB (32-bit) and\n           ~5 KB (64-bit) per key in a 64-ary radix tree "
		     "without path compression\n",
		__builtin_ctzl(keyset_cap(KS_SPARSE32)), __builtin_ctzl(keyset_cap(KS_SPARSE64)));
}

/* ---- targets -------------------------------------------------------------- */

static double med(const struct table *t, const char *op, const char *unit, int pi)
{
	const struct row *r = t ? table_find(t, op, unit) : NULL;

	return r && cell_ok(&r->c[pi]) ? cell_median(&r->c[pi]) : NAN;
}

/* Under a key set's table: rcuradix's predecessor against its successor
 * search (a gang lookup of one), held to 1.2 on every key set. */
static void print_pred_ratio(const struct table *t, FILE *out)
{
	double pred = med(t, "pred1", "ns/op", 0), succ = med(t, "succ1", "ns/op", 0);

	if (isnan(pred) || isnan(succ))
		return;
	fprintf(out, "pred1 / succ1 (rcuradix, medians): %.3f  (target <= 1.20)  %s\n",
		pred / succ, pred / succ <= 1.2 ? "met" : "MISSED");
}

struct target_ctx {
	const struct table *single, *conc;
	FILE *out, *csv;
	int met, missed;
};

/* rcuradix's figure relative to peer @pi's, against @limit. */
static void target2(struct target_ctx *x, const char *what, const struct table *t,
		    const char *op, const char *peer_op, const char *unit, int pi, bool at_least,
		    double limit)
{
	double a = med(t, op, unit, 0), b = pi >= 0 ? med(t, peer_op, unit, pi) : 1;
	double v = a / b;

	if (pi == -2) {
		/* ns per op: the peer's time over ours is our throughput ratio. */
		b = med(t, peer_op, unit, 3);
		v = b / a;
	}
	const char *verdict = isnan(v) ? "n/a" : (at_least ? v >= limit : v <= limit) ? "met"
											 : "MISSED";

	if (pi >= 0 || pi == -2)
		fprintf(x->out, "%-46s %9.3g vs %-9.3g = %6.3f  (target %s %.2f)  %s\n", what, a, b,
			v, at_least ? ">=" : "<=", limit, verdict);
	else
		fprintf(x->out, "%-46s %9.3g %12s %6.3f  (target %s %.2f)  %s\n", what, a, "", v,
			at_least ? ">=" : "<=", limit, verdict);
	if (x->csv)
		fprintf(x->csv, "target,dense-rand,%zu,%s,%s %.2f,%s,%.6g,%.6g,%.6g,0\n",
			t ? t->n : 0, what, at_least ? ">=" : "<=", limit, verdict, v, a, b);
	if (!strcmp(verdict, "met"))
		x->met++;
	else if (!strcmp(verdict, "MISSED"))
		x->missed++;
}

static void target(struct target_ctx *x, const char *what, const struct table *t, const char *op,
		   const char *unit, int pi, bool at_least, double limit)
{
	target2(x, what, t, op, op, unit, pi, at_least, limit);
}

static void print_targets(const struct table *single, const struct table *conc, FILE *out,
			  FILE *csv)
{
	struct target_ctx x = { single, conc, out, csv, 0, 0 };

	if (!single && !conc)
		return;
	fprintf(out, "\n== targets: dense-rand, N = %zu, medians of this run ==\n",
		single ? single->n : conc->n);
	if ((single ? single->n : conc->n) != ((size_t)1 << 20) ||
	    (single && conc && single->n != conc->n))
		fprintf(out, "(the targets are defined at N = 2^20; these rows use the sizes "
			     "this run has)\n");
	if (single) {
		target(&x, "lookup hit / judyl", single, "lookup hit", "ns/op", 1, false, 0.7);
		target(&x, "lookup dependent / flat", single, "lookup dependent", "ns/op", 4, false,
		       1.3);
		target(&x, "gang64 ns/item / judyl", single, "gang64", "ns/item", 1, false, 0.30);
		target(&x, "gang64 ns/item / flat", single, "gang64", "ns/item", 4, false, 1.5);
		target(&x, "memory (allocator) B/key", single, "memory (allocator)", "B/key", -1,
		       false, 9.5);
		target(&x, "memory (own) B/key", single, "memory (own)", "B/key", -1, false, 9.5);
		target2(&x, "insert+preload / judyl insert", single, "insert+preload", "insert",
			"ns/op", 1, false, 1.0);
		target(&x, "walk ns/item / flat", single, "walk", "ns/item", 4, false, 1.5);
	}
	if (conc) {
		target(&x, "1R+1W reader M/s / lfht", conc, "1R+1W reader", "M/s", 3, true, 2.0);
		target(&x, "1R+1W reader M/s / judyl+rwlock", conc, "1R+1W reader", "M/s", 2, true,
		       5.0);
		target(&x, "1R+1W writer M/s / lfht", conc, "1R+1W writer", "M/s", 3, true, 2.0);
		target(&x, "1R+1W interference", conc, "1R+1W interference", "ratio", -1, false,
		       1.3);
		target(&x, "2R scaling", conc, "2R scaling", "ratio", -1, true, 0.85);
		fprintf(out, "(CPU share of the threads in this run: reader %.2f alone, %.2f with the "
			     "writer; writer %.2f.\n Below ~0.9 other programs took the CPUs: compare "
			     "the 'per cpu' rows, which divide by CPU time.)\n",
			med(conc, "1R cpu share", "ratio", 0), med(conc, "1R+1W cpu share", "ratio", 0),
			med(conc, "1R+1W writer cpu share", "ratio", 0));
		target(&x, "1R+1W reader per cpu: lfht / rcuradix", conc, "1R+1W reader per cpu",
		       "ns/op", -2, true, 2.0);
		target(&x, "1R+1W writer per cpu / lfht", conc, "1R+1W writer per cpu", "M/s", 3, true,
		       2.0);
	}
	fprintf(out, "targets met: %d, missed: %d\n", x.met, x.missed);
}

/* ---- one run per process ------------------------------------------------ */

typedef void run_fn(const struct keyset *ks, const struct options *o, struct table *t);

/* The run_fn of a named scenario: @ks is NULL, the scenario is @t's title. */
static void run_named(const struct keyset *ks, const struct options *o, struct table *t)
{
	(void)ks;
	run_scenario(scenario_by_name(t->title), o, t);
}

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(3);
		p += w;
		len -= (size_t)w;
	}
}

static bool read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		len -= (size_t)r;
	}
	return true;
}

/*
 * Run @fn for one key set and size in a child process, which sends its rows
 * back through a pipe.  Every run then starts from the same state: a fresh
 * heap (no nodes scattered over pages a larger earlier run freed), no
 * leftover slabs or call_rcu work from earlier runs.  Rows carry pointers to
 * string literals, valid in both processes (same image).  liburcu's
 * call_rcu worker needs its fork hooks (not pthread_atfork).  @ks is NULL
 * for a named scenario.
 */
static void run_isolated(run_fn *fn, const struct keyset *ks, const struct options *o,
			 struct table *t)
{
	int fd[2], status;
	pid_t pid;
	int nrows, i;

	fflush(NULL);
	if (pipe(fd))
		die("pipe failed");
	urcu_memb_call_rcu_before_fork();
	pid = fork();
	if (pid < 0)
		die("fork failed");
	if (pid == 0) {
		urcu_memb_call_rcu_after_fork_child();
		close(fd[0]);
		fn(ks, o, t);
		write_all(fd[1], &t->nrows, sizeof(t->nrows));
		write_all(fd[1], t->rows, sizeof(*t->rows) * (size_t)t->nrows);
		close(fd[1]);
		fflush(NULL);
		_exit(0);
	}
	urcu_memb_call_rcu_after_fork_parent();
	close(fd[1]);
	if (!read_all(fd[0], &nrows, sizeof(nrows)))
		nrows = -1;
	for (i = 0; i < nrows; i++) {
		struct row r, *dst;

		if (!read_all(fd[0], &r, sizeof(r)))
			die("lost the results of %s N=%zu", t->title, t->n);
		dst = table_row(t, r.op, r.unit, r.higher_better);
		memcpy(dst->c, r.c, sizeof(r.c));
	}
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    nrows < 0)
		die("the run for %s N=%zu failed", t->title, t->n);
}

/* ---- main --------------------------------------------------------------- */

/* The targets are defined at N = 2^20; without it, the largest N run. */
static bool keep_target(size_t kept, size_t n)
{
	const size_t want = (size_t)1 << 20;

	if (kept == want)
		return false;
	return n == want || n > kept;
}

int main(int argc, char **argv)
{
	struct config c;
	FILE *csv = NULL;
	struct table keep_single = { 0 }, keep_conc = { 0 };
	bool have_single = false, have_conc = false;
	static struct cn_results cn;
	int i;

	parse(argc, argv, &c);
	urcu_memb_register_thread();
	tsc_per_ns();
	if (c.csv) {
		csv = fopen(c.csv, "w");
		if (!csv)
			die("cannot write %s", c.csv);
		fprintf(csv, "section,keyset,n,op,unit,structure,median,min,ratio,reps\n");
	}
	print_header(&c, stdout);
	fflush(stdout);
	cn.nsizes = c.nsizes;
	memcpy(cn.log2n, c.sizes, sizeof(cn.log2n));
	cn.reps = c.o.reps;

	for (i = 0; i < c.nruns; i++) {
		int k = c.runs[i].ks;
		size_t n = (size_t)1 << c.runs[i].log2n;
		struct keyset ks;
		struct table t = { .title = keyset_name(k), .section = "single" };

		if (c.o.verbose)
			fprintf(stderr, "%s N=%zu: generating keys\n", keyset_name(k), n);
		if (keyset_make(&ks, k, n, c.seed))
			die("cannot make key set %s N=%zu", keyset_name(k), n);
		t.n = n;
		run_isolated(run_single, &ks, &c.o, &t);
		table_print(&t, stdout);
		print_pred_ratio(&t, stdout);
		fflush(stdout);
		if (csv)
			table_csv(&t, csv);
		if (c.targets) {
			int s;

			for (s = 0; s < c.nsizes && c.sizes[s] != c.runs[i].log2n; s++)
				;
			cn.single[k][s] = t; /* every run's size is one of c.sizes */
			cn.have[k][s] = true;
		} else if (k == KS_DENSE_RAND && keep_target(have_single ? keep_single.n : 0, n)) {
			table_free(&keep_single);
			keep_single = t;
			have_single = true;
		} else {
			table_free(&t);
		}
		keyset_free(&ks);
	}
	for (i = 0; i < c.nconc; i++) {
		size_t n = (size_t)1 << c.conc[i].log2n;
		struct keyset ks;
		struct table t = { .title = keyset_name(c.conc[i].ks), .section = "concurrent" };

		if (c.o.verbose)
			fprintf(stderr, "concurrency %s N=%zu\n", keyset_name(c.conc[i].ks), n);
		if (keyset_make(&ks, c.conc[i].ks, n, c.seed))
			die("cannot make key set for the concurrency run");
		t.n = n;
		run_isolated(run_concurrent, &ks, &c.o, &t);
		table_print(&t, stdout);
		fflush(stdout);
		if (csv)
			table_csv(&t, csv);
		if (c.conc[i].ks == KS_DENSE_RAND && keep_target(have_conc ? keep_conc.n : 0, n)) {
			table_free(&keep_conc);
			keep_conc = t;
			have_conc = true;
		} else {
			table_free(&t);
		}
		keyset_free(&ks);
	}
	for (i = 0; i < c.nscen; i++) {
		struct table t = { .title = scenario_name(c.scen[i]), .section = "scenario" };

		if (c.o.verbose)
			fprintf(stderr, "scenario %s\n", t.title);
		t.n = scenario_size(c.scen[i], &c.o);
		run_isolated(run_named, NULL, &c.o, &t);
		scenario_print(c.scen[i], &c.o, &t, stdout);
		fflush(stdout);
		if (csv)
			table_csv(&t, csv);
		table_free(&t);
	}
	/* The targets' scenario, at every size of the run. */
	for (i = 0; c.targets && i < c.nsizes; i++) {
		struct options o = c.o;
		int which = scenario_by_name(cn_scenario);
		struct table t = { .title = cn_scenario, .section = "scenario" };

		o.scen_log2 = c.sizes[i];
		if (((size_t)1 << o.scen_log2) > keyset_cap(KS_SPARSE64))
			continue;
		if (c.o.verbose)
			fprintf(stderr, "scenario %s N=2^%d\n", t.title, o.scen_log2);
		t.n = scenario_size(which, &o);
		run_isolated(run_named, NULL, &o, &t);
		scenario_print(which, &o, &t, stdout);
		fflush(stdout);
		if (csv)
			table_csv(&t, csv);
		cn.scen[i] = t;
		cn.have_scen[i] = true;
	}
	if (c.targets) {
		int k;

		cn_report(&cn, stdout, csv);
		for (i = 0; i < c.nsizes; i++) {
			for (k = 0; k < KS_COUNT; k++)
				table_free(&cn.single[k][i]);
			table_free(&cn.scen[i]);
		}
	} else if (!c.sweep) {
		print_targets(have_single ? &keep_single : NULL, have_conc ? &keep_conc : NULL,
			      stdout, csv);
	}
	table_free(&keep_single);
	table_free(&keep_conc);
	if (csv && fclose(csv))
		die("error writing %s", c.csv);
	urcu_memb_unregister_thread();
	return 0;
}
