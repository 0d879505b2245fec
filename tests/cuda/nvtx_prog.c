/*
 * A program that only uses the NVTX v3 headers (no CUDA, no hetrace): the
 * nvtx test records it and checks that every kind of NVTX event lands in the
 * trace as documented in src/cuda/nvtx.c. Prints the NVTX return values so
 * the test can check them too (push/pop levels are the tool's to return).
 */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static nvtxRangeId_t cross; /* started on main, ended on the worker */
static int worker_tid;
static int named, done;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	worker_tid = (int)gettid();
	pthread_cond_broadcast(&cv);
	while (!named)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	nvtxRangePushA("work");
	nvtxRangeEnd(cross);
	nvtxRangePop();
	return NULL;
}

int main(void)
{
	pthread_t t;
	nvtxDomainHandle_t net;
	nvtxStringHandle_t send;
	nvtxEventAttributes_t a = {0};
	int l0, l1, p1, p0, d0, dp;

	nvtxNameOsThreadA((uint32_t)gettid(), "main-thread");
	l0 = nvtxRangePushA("outer");
	l1 = nvtxRangePushA("inner");
	nvtxMarkA("tick");
	p1 = nvtxRangePop();
	p0 = nvtxRangePop();
	nvtxRangePushW(L"wide \u00e9t\u00e9");
	nvtxRangePop();

	net = nvtxDomainCreateA("net");
	send = nvtxDomainRegisterStringA(net, "send");
	nvtxDomainNameCategoryA(net, 7, "io");
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = send;
	d0 = nvtxDomainRangePushEx(net, &a);
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "packet";
	a.category = 7;
	a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
	a.payload.llValue = 42;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00ff00;
	nvtxDomainMarkEx(net, &a);
	dp = nvtxDomainRangePop(net);

	nvtxNameCategoryA(3, "compute");
	a = (nvtxEventAttributes_t){0};
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "handoff";
	a.category = 3;
	cross = nvtxRangeStartEx(&a);

	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&m);
	while (!worker_tid)
		pthread_cond_wait(&cv, &m);
	nvtxNameOsThreadA((uint32_t)worker_tid, "worker");
	named = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	done = 1;
	printf("levels %d %d pops %d %d domain %d %d\n", l0, l1, p1, p0, d0, dp);
	return 0;
}
