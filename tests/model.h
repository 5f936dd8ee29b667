/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model.h - the trivially correct model the differential tests compare the
 * tree with: a sorted array of (key, item, tag bits), binary search,
 * memmove on insert and delete.
 */
#ifndef RCURADIX_TEST_MODEL_H
#define RCURADIX_TEST_MODEL_H

#include <stdbool.h>
#include <stddef.h>

struct model_entry {
	unsigned long key;
	void *item;
	unsigned long tags; /* bit t: bears tag t */
};

struct model {
	struct model_entry *e;
	size_t n, cap;
};

void model_init(struct model *m);
void model_free(struct model *m);
/* Position of the first entry with key >= @key. */
size_t model_lower_bound(const struct model *m, unsigned long key);
/* The entry for @key, or NULL. */
struct model_entry *model_find(const struct model *m, unsigned long key);
/* false if present already. */
bool model_insert(struct model *m, unsigned long key, void *item);
/* The removed item, or NULL. */
void *model_delete(struct model *m, unsigned long key);

#endif
