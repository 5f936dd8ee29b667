/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xorshift.h - the one pseudo-random step shared by the tests, the torture
 * program and the benchmark: xorshift64* (Vigna), fast, and a printed seed
 * replays a run exactly.  The state must never be 0.
 */
#ifndef RCURADIX_TESTS_XORSHIFT_H
#define RCURADIX_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64s(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

#endif /* RCURADIX_TESTS_XORSHIFT_H */
