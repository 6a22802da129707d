/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A minimal TAP producer for the host unit tests. */
#ifndef SROCE_TAP_H
#define SROCE_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define ok(cond, ...) do {						\
	int c_ = !!(cond);						\
	printf("%sok %d - ", c_ ? "" : "not ", ++tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!c_) {							\
		tap_failed++;						\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#define is(got, want, ...) do {						\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	ok(g_ == w_, __VA_ARGS__);					\
	if (g_ != w_)							\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* SROCE_TAP_H */
