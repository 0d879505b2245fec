// The CUDA PC-sampling test program (tests/pcsamp, label gpu): one kernel
// whose time is spent on one known line (HOT_LINE below, asserted by
// pcsamp_gpu.sh), run long enough to be sampled; prints a checksum.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void spin(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = x[i];
	for (int k = 0; k < n; k++) v = v * 0.99991f + 0.25f; // HOT_LINE
	x[i] = v;
}

int main()
{
	const int items = 1 << 20;
	float *d, *h = new float[items];
	double sum = 0;

	for (int i = 0; i < items; i++)
		h[i] = (float)(i % 13);
	if (cudaMalloc(&d, items * sizeof(float)) != cudaSuccess) {
		std::printf("no CUDA device\n");
		return 77;
	}
	cudaMemcpy(d, h, items * sizeof(float), cudaMemcpyHostToDevice);
	for (int r = 0; r < 5; r++)
		spin<<<items / 256, 256>>>(d, 20000);
	cudaMemcpy(h, d, items * sizeof(float), cudaMemcpyDeviceToHost);
	for (int i = 0; i < items; i++)
		sum += h[i];
	std::printf("pcs_gpu: checksum %.9e\n", sum);
	cudaFree(d);
	delete[] h;
	return 0;
}
