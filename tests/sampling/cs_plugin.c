/*
 * A plugin cs_prog dlopen's (tests/sampling): it launches a kernel from its
 * own function and spins in its own code, so call stacks and CPU samples
 * hold frames of a module loaded after the program started.
 */
#include <stddef.h>
#include <time.h>

volatile double plugin_sink;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__attribute__((noinline)) void plugin_launch(void (*launch)(int, size_t))
{
	launch(0, 4096);
	plugin_sink += 1;
}

__attribute__((noinline)) void plugin_spin(int ms)
{
	double end = now_ms() + ms, x = 2.0;

	while (now_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 0.9999999 + 1e-9;
	plugin_sink = x;
}

__attribute__((visibility("default"))) void plugin_run(void (*launch)(int, size_t), int ms)
{
	plugin_launch(launch);
	plugin_spin(ms);
	plugin_sink += 2;
}
