/*
 * A CUDA program with known global-memory accesses, for memtrace_cuda_gpu:
 * `unit` loads in[i] and stores out[i] for 4096 threads (64 blocks of 64);
 * `count` makes 1024 atomic additions. Prints what it computed.
 */
#include <cstdio>

extern "C" __global__ void unit(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = in[i] * 2.0f;
}

extern "C" __global__ void count(int *c)
{
	atomicAdd(&c[threadIdx.x % 4], 1);
}

int main()
{
	const int n = 4096;
	float *in, *out, host[n];
	int *c, hc[4];

	for (int i = 0; i < n; i++)
		host[i] = (float)i;
	if (cudaMalloc(&in, n * sizeof(float)) || cudaMalloc(&out, n * sizeof(float)) ||
	    cudaMalloc(&c, 4 * sizeof(int))) {
		fprintf(stderr, "cuda_prog: no device memory\n");
		return 1;
	}
	cudaMemcpy(in, host, n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemset(c, 0, 4 * sizeof(int));
	unit<<<n / 64, 64>>>(in, out, n);
	count<<<16, 64>>>(c);
	cudaDeviceSynchronize();
	cudaMemcpy(host, out, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
	printf("out[4095] %.1f, counts %d %d %d %d\n", host[n - 1], hc[0], hc[1], hc[2], hc[3]);
	return 0;
}
