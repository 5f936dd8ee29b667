/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * version.c - the version has one source, configure.ac's AC_INIT: the
 * header's RCURADIX_VERSION_* macros, the string rcuradix_version() returns
 * and PACKAGE_VERSION (config.h, from AC_INIT) must all agree.  Speaks TAP.
 */
#include "config.h"

#include <rcuradix/radix-tree.h>

#include <stdio.h>
#include <string.h>

static int tests;
static int failed;

static void check(int ok, const char *what, const char *got, const char *want)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++tests, what);
	if (!ok) {
		printf("# got \"%s\", expected \"%s\"\n", got, want);
		failed = 1;
	}
}

int main(void)
{
	char joined[64];

	printf("1..3\n");
	check(strcmp(rcuradix_version(), RCURADIX_VERSION_STRING) == 0,
	      "rcuradix_version() equals RCURADIX_VERSION_STRING", rcuradix_version(),
	      RCURADIX_VERSION_STRING);
	check(strcmp(RCURADIX_VERSION_STRING, PACKAGE_VERSION) == 0,
	      "RCURADIX_VERSION_STRING equals PACKAGE_VERSION (AC_INIT)", RCURADIX_VERSION_STRING,
	      PACKAGE_VERSION);
	snprintf(joined, sizeof(joined), "%d.%d.%d", RCURADIX_VERSION_MAJOR,
		 RCURADIX_VERSION_MINOR, RCURADIX_VERSION_PATCH);
	check(strcmp(joined, RCURADIX_VERSION_STRING) == 0,
	      "MAJOR.MINOR.PATCH spell RCURADIX_VERSION_STRING", joined, RCURADIX_VERSION_STRING);
	return failed;
}
