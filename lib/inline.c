/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * inline.c - exported copies of the header's inline functions.
 *
 * <rcuradix/radix-tree.h> defines the iterator steps and accessors
 * (radix_tree_next_slot, radix_tree_next_run, radix_tree_walk_chunk,
 * radix_tree_walk_step, radix_tree_iter_index, radix_tree_iter_key,
 * radix_tree_iter_tag_flags) as RCURADIX_INLINE, which
 * is "static inline" for every other includer.  Here it is "exported", so
 * the library carries one external definition of each, compiled from the
 * very same source: a program that looks them up with dlsym(), or a binding
 * from another language, calls the code the macros inline.
 */
#include "config.h"

/* The definitions in the header are the only declarations these
 * functions have in this file, by design. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-declarations"

#define RCURADIX_INLINE RCURADIX_API
#include <rcuradix/radix-tree.h>
