/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "model.h"

#include <stdlib.h>
#include <string.h>

void model_init(struct model *m)
{
	m->e = NULL;
	m->n = m->cap = 0;
}

void model_free(struct model *m)
{
	free(m->e);
	model_init(m);
}

size_t model_lower_bound(const struct model *m, unsigned long key)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct model_entry *model_find(const struct model *m, unsigned long key)
{
	size_t i = model_lower_bound(m, key);

	return i < m->n && m->e[i].key == key ? &m->e[i] : NULL;
}

bool model_insert(struct model *m, unsigned long key, void *item)
{
	size_t i = model_lower_bound(m, key);

	if (i < m->n && m->e[i].key == key)
		return false;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->e = realloc(m->e, m->cap * sizeof(*m->e));
		if (!m->e)
			abort();
	}
	memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof(*m->e));
	m->e[i] = (struct model_entry){ key, item, 0 };
	m->n++;
	return true;
}

void *model_delete(struct model *m, unsigned long key)
{
	size_t i = model_lower_bound(m, key);
	void *item;

	if (i == m->n || m->e[i].key != key)
		return NULL;
	item = m->e[i].item;
	memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(*m->e));
	m->n--;
	return item;
}
