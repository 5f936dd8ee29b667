/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay.c - runs the fuzzing harness (fuzz-ops.c) on every file of the
 * committed corpus, without libFuzzer or clang, as part of `make check`.
 *
 * What it proves: every seed and every regression input the fuzzer ever
 * found still passes all the harness's checks (model agreement after every
 * op, radix_tree_verify, zero nodes and items at the end), with the
 * harness's deterministic flavor and again with urcu-memb and liburcu's
 * call_rcu worker, against the library build this program is linked with
 * (64- or 8-slot nodes, the configured node allocator).
 *
 * Usage: replay [FILE|DIR]...   (default: $top_srcdir/tests/fuzz/corpus)
 * Output: TAP, one test per input and flavor; each input runs in a child
 * process, so that a failure (the harness aborts, its message on stderr)
 * does not hide the others.  Inputs named in tests/fuzz/known-failures
 * (a reported library bug not fixed yet) are TAP TODO tests: their failure
 * is expected, and once they pass the TODO passes (XPASS), which fails
 * `make check` until the line is removed.
 *
 * Each input also reports on stderr the node transitions it took
 * (fz_transition_count()), and an input named in tests/fuzz/seed-transitions
 * fails unless it took every transition listed there for this build: the
 * seeds written for a transition are confirmed to reach it.  With the
 * default corpus, one more test checks that every name the list gives is
 * an input of the corpus.
 */
#define _GNU_SOURCE 1 /* asprintf, scandir */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz-ops.h"

/* The node build this program is linked with, as known-failures names it. */
#ifdef RT_MAP_SHIFT
#if RT_MAP_SHIFT == 3
#define REPLAY_BUILD "8"
#endif
#endif
#ifndef REPLAY_BUILD
#define REPLAY_BUILD "64"
#endif

struct inputs {
	char **path;
	size_t n, cap;
};

static void inputs_add(struct inputs *in, const char *path)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? 2 * in->cap : 64;
		in->path = realloc(in->path, in->cap * sizeof(*in->path));
		if (!in->path)
			abort();
	}
	in->path[in->n] = strdup(path);
	if (!in->path[in->n])
		abort();
	in->n++;
}

static int skip_entry(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* A directory contributes its files in name order (reproducible TAP). */
static int collect(struct inputs *in, const char *path)
{
	struct dirent **ents;
	struct stat st;
	int n, i;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		inputs_add(in, path);
		return 0;
	}
	n = scandir(path, &ents, skip_entry, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char *file;

		if (asprintf(&file, "%s/%s", path, ents[i]->d_name) < 0)
			abort();
		inputs_add(in, file);
		free(file);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*size = n;
	return buf;
}

/*
 * The reason @name is expected to fail in this build, or NULL.  Lines of
 * the list: NAME BUILD REASON..., BUILD being 64, 8 or both; # comments.
 */
static char *known_failure(const char *list, const char *name)
{
	FILE *f = list ? fopen(list, "r") : NULL;
	char line[1024], *reason = NULL;

	if (!f)
		return NULL;
	while (!reason && fgets(line, sizeof(line), f)) {
		char file[256], build[16];
		int used;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || sscanf(line, "%255s %15s %n", file, build, &used) < 2)
			continue;
		if (strcmp(file, name) == 0 &&
		    (strcmp(build, "both") == 0 || strcmp(build, REPLAY_BUILD) == 0))
			reason = strdup(line + used);
	}
	fclose(f);
	return reason;
}

/*
 * The transitions @name must take in this build: the words after NAME and
 * BUILD on every line of @list that names it (BUILD 64, 8 or both), joined
 * by spaces; NULL if none.  Also counts in *@lines the list's lines for
 * this build.
 */
static char *transitions_wanted(const char *list, const char *name, unsigned int *lines)
{
	FILE *f = fopen(list, "r");
	char line[1024], *want = NULL;

	*lines = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char file[256], build[16];
		int used;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || sscanf(line, "%255s %15s %n", file, build, &used) < 2 ||
		    (strcmp(build, "both") != 0 && strcmp(build, REPLAY_BUILD) != 0))
			continue;
		(*lines)++;
		if (strcmp(file, name) != 0)
			continue;
		if (!want) {
			want = strdup(line + used);
		} else {
			char *more;

			if (asprintf(&more, "%s %s", want, line + used) < 0)
				abort();
			free(want);
			want = more;
		}
		if (!want)
			abort();
	}
	fclose(f);
	return want;
}

/* The distinct names of @list's lines for this build. */
static unsigned int transitions_names(const char *list)
{
	FILE *f = fopen(list, "r");
	char line[1024], **names = NULL;
	unsigned int n = 0, i;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char file[256], build[16];

		if (line[0] == '#' || sscanf(line, "%255s %15s", file, build) < 2 ||
		    (strcmp(build, "both") != 0 && strcmp(build, REPLAY_BUILD) != 0))
			continue;
		for (i = 0; i < n && strcmp(names[i], file) != 0; i++)
			;
		if (i < n)
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		if (!names || !(names[n] = strdup(file)))
			abort();
		n++;
	}
	fclose(f);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n;
}

/* In the child, after the input ran: say which transitions it took, and
 * whether it took every one of @want.  True if it did. */
static bool transitions_check(const char *name, const char *want)
{
	char *copy, *word, *save = NULL;
	bool ok = true;

	fprintf(stderr, "replay: %s took:", name);
	fz_transitions_print(stderr);
	fputc('\n', stderr);
	if (!want)
		return true;
	copy = strdup(want);
	if (!copy)
		abort();
	for (word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
		long n = fz_transition_count(word);

		if (n <= 0) {
			fprintf(stderr, "replay: %s: %s transition %s (tests/fuzz/seed-transitions)\n",
				name, n < 0 ? "no such" : "did not take the", word);
			ok = false;
		}
	}
	free(copy);
	return ok;
}

/* Run one input in a child process; true if every check passed and it
 * took every transition of @want. */
static bool run_one(const char *name, const uint8_t *data, size_t size, bool memb,
		    const char *want)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("replay: fork");
		exit(1);
	}
	if (pid == 0) {
		/* A fresh process: urcu-memb registration and its call_rcu
		 * worker start here, never inherited across fork. */
		fz_use_memb(memb);
		LLVMFuzzerTestOneInput(data, size);
		if (!transitions_check(name, want)) {
			fflush(NULL);
			_exit(3);
		}
		fflush(NULL);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("replay: waitpid");
		exit(1);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	static const char *const flavors[] = { "own flavor", "urcu-memb" };
	struct inputs in = { NULL, 0, 0 };
	const char *top = getenv("top_srcdir");
	char *list = NULL, *tlist = NULL;
	unsigned int test = 0, tlines = 0, tfound = 0;
	size_t i;
	int a, f;

	if (!top)
		top = ".";
	if (asprintf(&list, "%s/tests/fuzz/known-failures", top) < 0 ||
	    asprintf(&tlist, "%s/tests/fuzz/seed-transitions", top) < 0)
		abort();
	if (argc > 1) {
		for (a = 1; a < argc; a++)
			if (collect(&in, argv[a]))
				return 1;
	} else {
		char *dir;

		if (asprintf(&dir, "%s/tests/fuzz/corpus", top) < 0)
			abort();
		if (collect(&in, dir))
			return 1;
		free(dir);
	}
	if (in.n == 0) {
		fprintf(stderr, "replay: no input found\n");
		return 1;
	}
	printf("1..%zu\n", 2 * in.n + (argc > 1 ? 0 : 1));
	for (i = 0; i < in.n; i++) {
		const char *base = strrchr(in.path[i], '/') ? strrchr(in.path[i], '/') + 1
							     : in.path[i];
		char *todo = known_failure(list, base);
		char *want = transitions_wanted(tlist, base, &tlines);
		size_t size;
		uint8_t *data = slurp(in.path[i], &size);

		if (want)
			tfound++;

		for (f = 0; f < 2; f++) {
			bool ok;

			if (!data) {
				printf("not ok %u - %s (%s): %s\n", ++test, in.path[i], flavors[f],
				       strerror(errno));
				continue;
			}
			fprintf(stderr, "replay: %s (%s, %zu bytes)%s\n", in.path[i], flavors[f],
				size, todo ? " - a known failure" : "");
			ok = run_one(base, data, size, f == 1, want);
			printf("%s %u - %s (%s)", ok ? "ok" : "not ok", ++test, base, flavors[f]);
			if (todo)
				printf(" # TODO %s%s", todo,
				       ok ? " -- it passes now: remove it from known-failures" : "");
			printf("\n");
		}
		free(todo);
		free(want);
		free(data);
	}
	if (argc == 1) {
		/* Every name of the list is an input (a seed renamed or
		 * dropped would otherwise go unchecked). */
		unsigned int names = transitions_names(tlist);

		printf("%s %u - seed-transitions: %u of its %u names (%u lines) are corpus inputs\n",
		       tfound == names ? "ok" : "not ok", ++test, tfound, names, tlines);
	}
	for (i = 0; i < in.n; i++)
		free(in.path[i]);
	free(in.path);
	free(list);
	free(tlist);
	return 0;
}
