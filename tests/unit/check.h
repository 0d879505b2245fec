/*
 * A very small unit-test harness: CHECK* macros count failures and print
 * file:line; CHECK_DONE() ends main with the CTest exit status.
 */
#ifndef HT_TEST_CHECK_H
#define HT_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,   \
				#cond);                                                    \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define CHECK_EQ(a, b)                                                                     \
	do {                                                                               \
		unsigned long long a_ = (unsigned long long)(a);                           \
		unsigned long long b_ = (unsigned long long)(b);                           \
		if (a_ != b_) {                                                            \
			fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, \
				__LINE__, #a, a_, #b, b_);                                 \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                                    \
	do {                                                                               \
		const char *a_ = (a), *b_ = (b);                                           \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                        \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,  \
				__LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");     \
			check_failures++;                                                  \
		}                                                                          \
	} while (0)

#define CHECK_DONE()                                                                       \
	do {                                                                               \
		if (check_failures)                                                        \
			fprintf(stderr, "%d check(s) failed\n", check_failures);           \
		else                                                                       \
			printf("all checks passed\n");                                     \
		return check_failures ? 1 : 0;                                             \
	} while (0)

#endif
