/*
 * Minimal assertion helpers for the XPTI tests: failures are counted and printed with file and
 * line, and a test's main returns ht_test_result() so CTest sees a non-zero exit on failure.
 */
#ifndef HT_XPTI_TEST_UTIL_H
#define HT_XPTI_TEST_UTIL_H

#include <stdio.h>

static int ht_test_failures;
static int ht_test_checks;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		ht_test_checks++;                                                                  \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
			ht_test_failures++;                                                        \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		long long va_ = (long long)(a), vb_ = (long long)(b);                              \
		ht_test_checks++;                                                                  \
		if (va_ != vb_) {                                                                  \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld != %lld)\n",       \
				__FILE__, __LINE__, #a, #b, va_, vb_);                             \
			ht_test_failures++;                                                        \
		}                                                                                  \
	} while (0)

static inline int ht_test_result(const char *name)
{
	if (ht_test_failures) {
		fprintf(stderr, "%s: %d of %d checks failed\n", name, ht_test_failures,
			ht_test_checks);
		return 1;
	}
	printf("%s: all %d checks passed\n", name, ht_test_checks);
	return 0;
}

#endif /* HT_XPTI_TEST_UTIL_H */
