/*
 * GPU test program for cuda_gpu_streams: 3 non-blocking streams, each with a
 * memset, a host-to-device copy, two kernels, an event and a device-to-host
 * copy; a cross-stream wait; then a captured graph of 3 kernels launched
 * twice. Prints what it did so the test can compare the trace with it:
 *   expect kernels=K scale_kernel=3 add_kernel=3 graph_kernel=6 h2d=3 d2h=3 memset=3 bytes=B
 * Exits 77 when there is no usable GPU.
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>

#define N (1 << 20)
#define NS 3

extern "C" __global__ void scale_kernel(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * a + 1.0f;
}

extern "C" __global__ void add_kernel(float *x, float b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += b;
}

extern "C" __global__ void graph_kernel(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.5f;
}

#define CK(call)                                                                           \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));        \
			return 1;                                                          \
		}                                                                          \
	} while (0)

int main(void)
{
	cudaStream_t st[NS];
	cudaEvent_t ev[NS];
	float *d[NS], *h[NS];
	size_t bytes = N * sizeof(float);
	int count = 0;
	cudaGraph_t graph;
	cudaGraphExec_t exec;

	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
		printf("no GPU\n");
		return 77;
	}
	nvtxRangePushA("setup");
	for (int s = 0; s < NS; s++) {
		CK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
		CK(cudaEventCreate(&ev[s]));
		CK(cudaMalloc(&d[s], bytes));
		CK(cudaMallocHost(&h[s], bytes));
		for (int i = 0; i < N; i++)
			h[s][i] = (float)i;
	}
	nvtxRangePop();
	nvtxRangePushA("streams");
	for (int s = 0; s < NS; s++) {
		CK(cudaMemsetAsync(d[s], 0, bytes, st[s]));
		CK(cudaMemcpyAsync(d[s], h[s], bytes, cudaMemcpyHostToDevice, st[s]));
		scale_kernel<<<N / 256, 256, 0, st[s]>>>(d[s], 2.0f, N);
		CK(cudaGetLastError());
		add_kernel<<<N / 512, 512, 0, st[s]>>>(d[s], 1.0f, N);
		CK(cudaGetLastError());
		CK(cudaEventRecord(ev[s], st[s]));
		CK(cudaMemcpyAsync(h[s], d[s], bytes, cudaMemcpyDeviceToHost, st[s]));
	}
	CK(cudaStreamWaitEvent(st[0], ev[2], 0));
	for (int s = 0; s < NS; s++)
		CK(cudaStreamSynchronize(st[s]));
	nvtxRangePop();

	nvtxRangePushA("graph");
	CK(cudaStreamBeginCapture(st[0], cudaStreamCaptureModeGlobal));
	for (int k = 0; k < 3; k++)
		graph_kernel<<<N / 256, 256, 0, st[0]>>>(d[0], N);
	CK(cudaStreamEndCapture(st[0], &graph));
	CK(cudaGraphInstantiate(&exec, graph, 0));
	for (int r = 0; r < 2; r++)
		CK(cudaGraphLaunch(exec, st[0]));
	CK(cudaStreamSynchronize(st[0]));
	nvtxRangePop();
	CK(cudaDeviceSynchronize());

	/* each element of stream s: (i * 2 + 1) + 1 */
	for (int s = 0; s < NS; s++)
		if (h[s][10] != 22.0f) {
			fprintf(stderr, "wrong result on stream %d: %f\n", s, h[s][10]);
			return 1;
		}
	CK(cudaGraphExecDestroy(exec));
	CK(cudaGraphDestroy(graph));
	for (int s = 0; s < NS; s++) {
		CK(cudaFree(d[s]));
		CK(cudaFreeHost(h[s]));
		CK(cudaEventDestroy(ev[s]));
		CK(cudaStreamDestroy(st[s]));
	}
	printf("expect kernels=12 scale_kernel=3 add_kernel=3 graph_kernel=6 h2d=3 d2h=3 memset=3 "
	       "bytes=%zu\n",
	       bytes);
	return 0;
}
