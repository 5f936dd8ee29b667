/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * callgrind.h - the probes' switch for callgrind's collection: valgrind's
 * client requests where its header is installed, nothing otherwise (the
 * probes then just run).  Run them with --instr-atstart=no.
 */
#ifndef RCURADIX_BENCH_CALLGRIND_H
#define RCURADIX_BENCH_CALLGRIND_H

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION ((void)0)
#define CALLGRIND_STOP_INSTRUMENTATION ((void)0)
#endif

#endif /* RCURADIX_BENCH_CALLGRIND_H */
