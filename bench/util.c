/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.c - rcuradix-bench helpers: clocks, statistics, CPU pinning,
 * allocator statistics and the result tables (text and CSV).
 */
#define _GNU_SOURCE 1
#include "config.h"

#include "bench.h"

#include <rcuradix/radix-tree.h>
#include <rcuradix/version.h>
#include <urcu/urcu-memb.h>

#include <dlfcn.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rcuradix-bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double tsc_per_ns(void)
{
	static double ratio;

	if (ratio == 0) {
		double t0 = now_ns(), t1;
		uint64_t c0 = tsc_begin(), c1;

		do
			t1 = now_ns();
		while (t1 - t0 < 20e6);
		c1 = tsc_end();
		ratio = (double)(c1 - c0) / (t1 - t0);
	}
	return ratio;
}

void tsc_resolution(uint64_t *step, uint64_t *empty)
{
	uint64_t d[4096], min_step = UINT64_MAX, prev = tsc_begin();
	size_t i;

	for (i = 0; i < 4096; i++) {
		uint64_t t0 = tsc_begin();

		d[i] = tsc_end() - t0;
		if (t0 != prev && t0 - prev < min_step)
			min_step = t0 - prev;
		prev = t0;
	}
	for (i = 1; i < 4096; i++)
		if (d[i] && d[i] < min_step)
			min_step = d[i];
	*step = min_step;
	*empty = (uint64_t)percentile_u64(d, 4096, 0.5);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double minimum(const double *v, size_t n)
{
	double m = NAN;
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(m) || v[i] < m)
			m = v[i];
	return m;
}

double percentile_u64(uint64_t *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return (double)v[i];
}

int cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % cpus_online(), &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		fprintf(stderr, "rcuradix-bench: could not pin a thread to CPU %d\n", cpu);
}

void bench_thread_start(struct rng *r, uint64_t seed, int cpu, pthread_barrier_t *start)
{
	rng_seed(r, seed);
	pin_to_cpu(cpu);
	urcu_memb_register_thread();
	pthread_barrier_wait(start);
}

/*
 * jemalloc is linked by librcuradix only (privately); the benchmark reaches
 * its mallctl through the global symbol scope instead of linking it, so the
 * benchmark's own malloc (and the peers') stays glibc's.
 */
double jemalloc_allocated(void)
{
	typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
	static mallctl_fn fn;
	static bool looked;
	uint64_t epoch = 1;
	size_t allocated, len = sizeof(allocated);

	if (!looked) {
		fn = (mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
		looked = true;
	}
	if (!fn)
		return -1;
	/* Stats are a snapshot refreshed by writing "epoch". */
	if (fn("epoch", NULL, NULL, &epoch, sizeof(epoch)) != 0)
		return -1;
	if (fn("stats.allocated", &allocated, &len, NULL, 0) != 0)
		return -1;
	return (double)allocated;
}

double glibc_allocated(void)
{
	struct mallinfo2 mi = mallinfo2();

	/* In-use chunks (with their headers) plus mmapped blocks. */
	return (double)mi.uordblks + (double)mi.hblkhd;
}

/* ---- cells and tables --------------------------------------------------- */

void cell_add(struct cell *c, double v)
{
	if (c->n < MAX_REPS)
		c->v[c->n++] = v;
}

bool cell_ok(const struct cell *c)
{
	return c->n > 0;
}

double cell_median(const struct cell *c)
{
	double tmp[MAX_REPS];

	memcpy(tmp, c->v, sizeof(double) * (size_t)c->n);
	return median(tmp, (size_t)c->n);
}

struct row *table_row(struct table *t, const char *op, const char *unit, bool higher_better)
{
	int i;

	/* A row is its name and unit ("" matches any unit). */
	for (i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].op, op) == 0 &&
		    (!unit[0] || strcmp(t->rows[i].unit, unit) == 0))
			return &t->rows[i];
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->rows = realloc(t->rows, sizeof(*t->rows) * (size_t)t->cap);
		if (!t->rows)
			die("out of memory");
	}
	memset(&t->rows[t->nrows], 0, sizeof(t->rows[0]));
	t->rows[t->nrows].op = op;
	t->rows[t->nrows].unit = unit;
	t->rows[t->nrows].higher_better = higher_better;
	return &t->rows[t->nrows++];
}

const struct row *table_find(const struct table *t, const char *op, const char *unit)
{
	int i;

	for (i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].op, op) == 0 && strcmp(t->rows[i].unit, unit) == 0)
			return &t->rows[i];
	return NULL;
}

void fmt_num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e5)
		snprintf(buf, len, "%.3g", v);
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

/*
 * One cell: "median [min] ratio"; the ratio is peer/rcuradix of the
 * medians.  For figures where higher is better, min is the worst rep too
 * (the smallest value).  Rows no peer measured (--ops) and peers that
 * measured nothing in the table (disabled, or unable to hold the key set)
 * are left out.
 */
void table_print(const struct table *t, FILE *out)
{
	bool shown[NPEERS] = { false };
	int r, p;

	for (r = 0; r < t->nrows; r++)
		for (p = 0; p < NPEERS; p++)
			shown[p] |= cell_ok(&t->rows[r].c[p]);
	shown[0] = true;
	fprintf(out, "\n== %s: %s, N = %zu ==\n", t->section, t->title, t->n);
	fprintf(out, "%-24s %-9s", "operation", "unit");
	for (p = 0; p < NPEERS; p++)
		if (shown[p])
			fprintf(out, " %-24s", peers[p]->name);
	fprintf(out, "\n");
	for (r = 0; r < t->nrows; r++) {
		const struct row *row = &t->rows[r];
		double base = cell_ok(&row->c[0]) ? cell_median(&row->c[0]) : NAN;
		bool any = false;

		for (p = 0; p < NPEERS; p++)
			any |= cell_ok(&row->c[p]);
		if (!any)
			continue;
		fprintf(out, "%-24s %-9s", row->op, row->unit);
		for (p = 0; p < NPEERS; p++) {
			const struct cell *c = &row->c[p];
			char med[16], mn[16], buf[64];

			if (!shown[p])
				continue;
			if (!cell_ok(c)) {
				fprintf(out, " %-24s", "n/a");
				continue;
			}
			fmt_num(med, sizeof(med), cell_median(c));
			fmt_num(mn, sizeof(mn), minimum(c->v, (size_t)c->n));
			if (p == 0 || isnan(base) || base == 0)
				snprintf(buf, sizeof(buf), "%s [%s]", med, mn);
			else
				snprintf(buf, sizeof(buf), "%s [%s] %.2fx", med, mn,
					 cell_median(c) / base);
			fprintf(out, " %-24s", buf);
		}
		fprintf(out, "\n");
	}
}

void table_csv(const struct table *t, FILE *csv)
{
	int r, p;

	for (r = 0; r < t->nrows; r++) {
		const struct row *row = &t->rows[r];
		double base = cell_ok(&row->c[0]) ? cell_median(&row->c[0]) : NAN;

		for (p = 0; p < NPEERS; p++) {
			const struct cell *c = &row->c[p];
			double med;

			if (!cell_ok(c))
				continue;
			med = cell_median(c);
			fprintf(csv, "%s,%s,%zu,%s,%s,%s,%.6g,%.6g,%.6g,%d\n", t->section,
				t->title, t->n, row->op, row->unit, peers[p]->name, med,
				minimum(c->v, (size_t)c->n), isnan(base) ? NAN : med / base,
				c->n);
		}
	}
}

void table_free(struct table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->cap = 0;
}

/* ---- the machine, for the header of a benchmark's output ---------------- */

/* The first line of @path starting with @prefix (without it), or the first
 * line if @prefix is NULL, into @buf; "unknown" if there is none. */
static void read_line(const char *path, const char *prefix, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[256];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (prefix && strncmp(line, prefix, strlen(prefix)) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(buf, len, "%s", prefix ? line + strlen(prefix) : line);
		break;
	}
	fclose(f);
}

void print_machine(FILE *out, const char *prog)
{
	struct utsname u;
	char cpu[256], mem[128], thp[128], defrag[128], load[128];
	time_t now = time(NULL);

	uname(&u);
	read_line("/proc/cpuinfo", "model name\t: ", cpu, sizeof(cpu));
	read_line("/proc/meminfo", "MemTotal:", mem, sizeof(mem));
	read_line("/sys/kernel/mm/transparent_hugepage/enabled", NULL, thp, sizeof(thp));
	read_line("/sys/kernel/mm/transparent_hugepage/defrag", NULL, defrag, sizeof(defrag));
	read_line("/proc/loadavg", NULL, load, sizeof(load));
	fprintf(out, "%s: rcuradix %s (built against %s)\n", prog, rcuradix_version(),
		RCURADIX_VERSION_STRING);
	fprintf(out, "date:      %s", ctime(&now));
	fprintf(out, "machine:   %s, %d CPUs online, memory%s\n", cpu, cpus_online(), mem);
	fprintf(out, "kernel:    %s %s %s\n", u.sysname, u.release, u.machine);
	fprintf(out, "THP:       enabled %s; defrag %s\n", thp, defrag);
	fprintf(out, "load:      %s (/proc/loadavg at the start)\n", load);
}

const char *malloc_library(void)
{
	Dl_info info;

	if (dladdr((void *)(uintptr_t)malloc, &info) && info.dli_fname)
		return info.dli_fname;
	return "unknown";
}
