/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel-idr.h - what libkidr.so exports (bench/kernel-idr.c): the Linux
 * kernel's IDR and IDA behind a few functions with names of their own.
 * bench/idr.c loads it with dlopen() and takes each function's type from
 * here; it never links against these names.
 */
#ifndef RCURADIX_BENCH_KERNEL_IDR_H
#define RCURADIX_BENCH_KERNEL_IDR_H

#define KIDR_API __attribute__((visibility("default")))

/* The interface's version: kidr_abi() returns it. */
#define KIDR_ABI 1

KIDR_API int kidr_abi(void);
/* One line: the kernel release and its files. */
KIDR_API const char *kidr_describe(void);
/* Bytes of the kernel's objects live in the process: nodes (576 bytes),
 * IDA bitmaps (128); those freed through call_rcu() until their grace
 * period has passed. */
KIDR_API long kidr_live_bytes(void);

/* An IDR: idr_init(); idr_alloc(GFP_KERNEL) of the lowest free id and
 * idr_remove() under idr_lock(); idr_find() inside rcu_read_lock(). */
KIDR_API void *kidr_new(void);
KIDR_API void kidr_destroy(void *idr);
KIDR_API long kidr_alloc(void *idr, void *ptr); /* the id, or a negative errno */
KIDR_API void *kidr_remove(void *idr, unsigned long id);
KIDR_API void *kidr_find(void *idr, unsigned long id);

/* An IDA: ida_init(), ida_alloc(GFP_KERNEL), ida_free(), ida_destroy(). */
KIDR_API void *kida_new(void);
KIDR_API void kida_destroy(void *ida);
KIDR_API long kida_alloc(void *ida); /* the lowest free id, or a negative errno */
KIDR_API void kida_free(void *ida, unsigned long id);

#endif
