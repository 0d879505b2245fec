/*
 * Feeds hand-built CUPTI 13.0 activity records (every kind the translator
 * handles, out-of-order arrival, missing timestamps, a graph's kernels, a
 * driver->runtime correlation alias) through the real translator and
 * recorder; cuda_translate records this program and checks the trace.
 * Exits 1 when a record's return value is not the expected one.
 */
#include <stdio.h>
#include <string.h>

#include "core/recorder.h"
#include "cuda/translate.h"

static int bad;

static void feed(struct ht_cuda_xlate *x, const void *rec, int want, const char *what)
{
	int got = ht_cuda_xlate_record(x, rec);

	if (got != want) {
		fprintf(stderr, "xlate_prog: %s: got %d, want %d\n", what, got, want);
		bad = 1;
	}
}

static CUpti_ActivityKernel10 kernel(uint32_t stream, uint32_t corr, uint64_t start, uint64_t end,
				     const char *name)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.deviceId = 0;
	k.contextId = 1;
	k.streamId = stream;
	k.correlationId = corr;
	k.start = start;
	k.end = end;
	k.gridX = 4, k.gridY = 2, k.gridZ = 1;
	k.blockX = 128, k.blockY = 1, k.blockZ = 1;
	k.name = name;
	return k;
}

static CUpti_ActivityMemcpy6 copy(uint8_t kind, uint32_t stream, uint32_t corr, uint32_t rtcorr,
				  uint64_t bytes, uint64_t start, uint64_t end)
{
	CUpti_ActivityMemcpy6 c;

	memset(&c, 0, sizeof c);
	c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	c.copyKind = kind;
	c.contextId = 1;
	c.streamId = stream;
	c.correlationId = corr;
	c.runtimeCorrelationId = rtcorr;
	c.bytes = bytes;
	c.start = start;
	c.end = end;
	return c;
}

int main(void)
{
	struct ht_cuda_xlate *x = ht_cuda_xlate_create();
	CUpti_ActivityDevice5 dev;
	CUpti_ActivityContext3 ctx;
	CUpti_ActivityKernel10 k;
	CUpti_ActivityMemcpy6 c;
	CUpti_ActivityMemcpyPtoP4 p2p;
	CUpti_ActivityMemset4 ms;
	CUpti_ActivitySynchronization2 sy;
	CUpti_ActivityAPI api;
	uint64_t t0 = ht_now_ns();

	if (!x)
		return 1;
	memset(&dev, 0, sizeof dev);
	dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	dev.id = 0;
	dev.name = "Test GPU";
	feed(x, &dev, 0, "device");
	memset(&ctx, 0, sizeof ctx);
	ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	ctx.contextId = 1;
	ctx.deviceId = 0;
	feed(x, &ctx, 0, "context");

	/* stream 7: kern_a, then kern_b which ran before it (out of order) */
	k = kernel(7, 10, t0 + 100000, t0 + 105000, "kern_a");
	k.queued = t0 + 90000;
	k.submitted = t0 + 95000;
	feed(x, &k, 1, "kernel a");
	k = kernel(7, 11, t0 + 50000, t0 + 60000, "_Z6kern_bPf");
	feed(x, &k, 1, "kernel b");
	/* stream 8: the runtime id wins over the driver id */
	c = copy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8, 20, 12, 4096, t0 + 10000, t0 + 12000);
	feed(x, &c, 1, "memcpy htod");
	c = copy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 8, 13, 0, 8192, t0 + 110000, t0 + 114000);
	feed(x, &c, 1, "memcpy dtoh");
	c = copy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 8, 22, 0, 512, t0 + 115000, t0 + 115500);
	feed(x, &c, 1, "memcpy dtod");
	memset(&p2p, 0, sizeof p2p);
	p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	p2p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	p2p.contextId = 1;
	p2p.streamId = 9;
	p2p.correlationId = 14;
	p2p.bytes = 1 << 20;
	p2p.start = t0 + 20000;
	p2p.end = t0 + 30000;
	feed(x, &p2p, 1, "peer copy");
	memset(&ms, 0, sizeof ms);
	ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms.contextId = 1;
	ms.streamId = 7;
	ms.correlationId = 15;
	ms.bytes = 256;
	ms.start = t0 + 40000;
	ms.end = t0 + 41000;
	feed(x, &ms, 1, "memset");
	memset(&sy, 0, sizeof sy);
	sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	sy.contextId = 1;
	sy.streamId = 7;
	sy.correlationId = 16;
	sy.start = t0 + 99000;
	sy.end = t0 + 106000;
	sy.returnValue = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	feed(x, &sy, 1, "stream sync");
	sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
	sy.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	sy.correlationId = 17;
	sy.start = t0 + 107000;
	sy.end = t0 + 116000;
	feed(x, &sy, 1, "context sync");
	/* no timestamps: lost, never a zero-length kernel; end before start: lost */
	k = kernel(7, 18, 0, 0, "kern_zero");
	feed(x, &k, -1, "zero kernel");
	c = copy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8, 19, 0, 64, t0 + 5000, t0 + 4000);
	feed(x, &c, -1, "backwards memcpy");
	/* a graph launch: three kernel nodes sharing the launch's correlation id */
	for (unsigned int i = 0; i < 3; i++) {
		k = kernel(10, 23, t0 + 200000 + i * 10000, t0 + 205000 + i * 10000, "graph_node");
		k.graphNodeId = i + 1;
		k.graphId = 5;
		feed(x, &k, 1, "graph kernel");
	}
	/* a driver id aliased to its runtime call */
	ht_cuda_corr_alias(30, 21);
	k = kernel(7, 30, t0 + 120000, t0 + 121000, "kern_alias");
	feed(x, &k, 1, "aliased kernel");
	/* API records are not device commands */
	memset(&api, 0, sizeof api);
	api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api.correlationId = 10;
	feed(x, &api, 0, "api record");

	ht_cuda_xlate_add_dropped(x, 5);
	ht_emit_lost(HT_LOST_DEVICE_TIMESTAMP,
		     ht_cuda_xlate_take_lost(x, HT_LOST_DEVICE_TIMESTAMP));
	ht_emit_lost(HT_LOST_DEVICE_RECORD, ht_cuda_xlate_take_lost(x, HT_LOST_DEVICE_RECORD));
	if (ht_cuda_xlate_take_lost(x, HT_LOST_DEVICE_TIMESTAMP) != 0)
		bad = 1;
	ht_cuda_xlate_destroy(x);
	printf("xlate_prog t0=%llu %s\n", (unsigned long long)t0, bad ? "FAILED" : "ok");
	return bad;
}
