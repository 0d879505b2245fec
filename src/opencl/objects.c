/*
 * What the interposer remembers about OpenCL objects: a small pointer map
 * (lock-free reads, inserts under a mutex, never shrinks) used for queue
 * records and kernel names, and the devices seen so far with their trace
 * index (device_info is emitted the first time a device is used).
 *
 * Handles can be reused by the runtime after a release; creation functions
 * overwrite the entry, so a lookup always finds the newest object.
 */
#include <string.h>

#include "opencl/interpose.h"

#define MAP_CAP 4096u /* power of two; full maps stop caching (callers fall back) */

struct ht_cl_map {
	pthread_mutex_t lock;
	unsigned int count;
	const void *keys[MAP_CAP];
	void *vals[MAP_CAP];
};

struct ht_cl_map ht_cl_queues = {.lock = PTHREAD_MUTEX_INITIALIZER};
struct ht_cl_map ht_cl_kernels = {.lock = PTHREAD_MUTEX_INITIALIZER};

static inline unsigned int slot_of(const void *key)
{
	return (unsigned int)(((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull >> 52) & (MAP_CAP - 1);
}

void *ht_cl_map_get(struct ht_cl_map *m, const void *key)
{
	unsigned int i = slot_of(key);

	for (unsigned int n = 0; n < MAP_CAP; n++, i = (i + 1) & (MAP_CAP - 1)) {
		const void *k = __atomic_load_n(&m->keys[i], __ATOMIC_ACQUIRE);

		if (k == key)
			return __atomic_load_n(&m->vals[i], __ATOMIC_ACQUIRE);
		if (!k)
			return NULL;
	}
	return NULL;
}

void ht_cl_map_put(struct ht_cl_map *m, const void *key, void *val)
{
	unsigned int i = slot_of(key);

	if (!key)
		return;
	pthread_mutex_lock(&m->lock);
	for (unsigned int n = 0; n < MAP_CAP; n++, i = (i + 1) & (MAP_CAP - 1)) {
		const void *k = m->keys[i];

		if (k == key) {
			__atomic_store_n(&m->vals[i], val, __ATOMIC_RELEASE);
			break;
		}
		if (!k) {
			if (m->count >= MAP_CAP * 3 / 4)
				break;
			/* Value first: a reader that sees the key sees its value. */
			__atomic_store_n(&m->vals[i], val, __ATOMIC_RELEASE);
			__atomic_store_n(&m->keys[i], key, __ATOMIC_RELEASE);
			m->count++;
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
}

uint32_t ht_cl_str(const char *s)
{
	return s ? ht_string_id(s) : 0;
}

/* Kernel names are stored as string ids (never 0 for a named kernel). */
void ht_cl_kernel_created(cl_kernel k, const char *name)
{
	uint32_t id;

	if (!k || !name)
		return;
	id = ht_cl_str(name);
	if (id)
		ht_cl_map_put(&ht_cl_kernels, k, (void *)(uintptr_t)id);
}

uint32_t ht_cl_kernel_name(cl_kernel k)
{
	char buf[256];
	size_t n = 0;
	uint32_t id = (uint32_t)(uintptr_t)ht_cl_map_get(&ht_cl_kernels, k);

	if (id || !k)
		return id;
	if (HT_CL_REAL(clGetKernelInfo)(k, CL_KERNEL_FUNCTION_NAME, sizeof buf - 1, buf, &n) !=
	    CL_SUCCESS)
		return 0;
	buf[n < sizeof buf ? n : sizeof buf - 1] = '\0';
	id = ht_cl_str(buf);
	if (id)
		ht_cl_map_put(&ht_cl_kernels, k, (void *)(uintptr_t)id);
	return id;
}

/* ---- devices ---- */

#define MAX_DEVICES 64

static struct {
	pthread_mutex_t lock;
	unsigned int count;
	cl_device_id ids[MAX_DEVICES];
	uint8_t emitted[MAX_DEVICES];
} D = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void emit_device(uint32_t index, cl_device_id d)
{
	char name[256] = "", vendor[256] = "";
	cl_device_type type = 0;
	enum ht_device_type t = HT_DEV_OTHER;

	HT_CL_REAL(clGetDeviceInfo)(d, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
	HT_CL_REAL(clGetDeviceInfo)(d, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
	HT_CL_REAL(clGetDeviceInfo)(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
	if (type & CL_DEVICE_TYPE_GPU)
		t = HT_DEV_GPU;
	else if (type & CL_DEVICE_TYPE_CPU)
		t = HT_DEV_CPU;
	else if (type & CL_DEVICE_TYPE_ACCELERATOR)
		t = HT_DEV_ACCEL;
	ht_emit_device_info(index, t, name, vendor);
}

uint32_t ht_cl_device_index(cl_device_id d)
{
	uint32_t i;
	int emit = 0;

	pthread_mutex_lock(&D.lock);
	for (i = 0; i < D.count; i++)
		if (D.ids[i] == d)
			break;
	if (i == D.count && D.count < MAX_DEVICES)
		D.ids[D.count++] = d;
	if (i < MAX_DEVICES && !D.emitted[i]) {
		D.emitted[i] = 1;
		emit = 1;
	}
	pthread_mutex_unlock(&D.lock);
	if (i >= MAX_DEVICES)
		return MAX_DEVICES; /* shared index for the rest */
	if (emit)
		emit_device(i, d);
	return i;
}

void ht_cl_objects_after_fork(void)
{
	pthread_mutex_init(&D.lock, NULL);
	memset(D.emitted, 0, sizeof D.emitted);
	pthread_mutex_init(&ht_cl_queues.lock, NULL);
	pthread_mutex_init(&ht_cl_kernels.lock, NULL);
}
