/*
 * CUDA launch-overhead benchmark (bench/cuda.sh): launches an empty kernel
 * N times into one stream and prints the host time per launch, so untraced
 * and traced runs can be compared. "no GPU" and exit 77 where there is none.
 *   launch_bench [N]     prints: launches N ns_per_launch X total_ms Y
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" __global__ void empty_kernel(void)
{
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int count = 0;
	cudaStream_t s;
	double t0, t1;

	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
		printf("no GPU\n");
		return 77;
	}
	cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	for (int i = 0; i < 1000; i++) /* warm-up: module load, first-launch costs */
		empty_kernel<<<1, 32, 0, s>>>();
	cudaStreamSynchronize(s);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		empty_kernel<<<1, 32, 0, s>>>();
	t1 = now_ns();
	cudaStreamSynchronize(s);
	printf("launches %ld ns_per_launch %.1f total_ms %.1f\n", n, (t1 - t0) / n,
	       (now_ns() - t0) / 1e6);
	cudaStreamDestroy(s);
	return 0;
}
