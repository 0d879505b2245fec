/*
 * A recorded program for the HTML view's tests: hostile names through the
 * public annotation API, which must reach the page as text only.
 *   main thread named   main<i>x</i>
 *   N x region          <img src=x onerror=alert(1)>   (dynamic name)
 *       around region   phase-a
 *   a counter           depth<b>  and an instant  tick&amp;
 *   usage: view_prog [N]
 */
#include <hetrace/hetrace.h>
#include <stdlib.h>
#include <time.h>

static void spin(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20;

	ht_thread_name("main<i>x</i>");
	for (long k = 0; k < n; k++) {
		ht_region_begin_dyn("<img src=x onerror=alert(1)>");
		HT_REGION_BEGIN("phase-a");
		spin(20000);
		HT_REGION_END("phase-a");
		ht_counter_dyn("depth<b>", k);
		spin(5000);
		ht_region_end_dyn("<img src=x onerror=alert(1)>");
	}
	ht_instant_dyn("tick&amp;", NULL, 0);
	return 0;
}
