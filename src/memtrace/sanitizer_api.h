/*
 * The part of NVIDIA's Compute Sanitizer API that memory-access tracing
 * uses (sanitizer_callbacks.h, sanitizer_patching.h, sanitizer_memory.h),
 * declared here with the values and layouts documented for CUDA 12.x/13.x,
 * because the toolkit installed where hetrace is built may lack the
 * compute-sanitizer directory (this machine's pip-installed CUDA 13.0 does).
 * libsanitizer-public.so is loaded at run time (cuda_sanitizer.c). Where the
 * real headers are found at build time, cuda_sanitizer.c checks these
 * declarations against them field by field (HT_HAVE_SANITIZER_H).
 */
#ifndef HT_MEMTRACE_SANITIZER_API_H
#define HT_MEMTRACE_SANITIZER_API_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

typedef int ht_san_result; /* SanitizerResult: 0 SANITIZER_SUCCESS */
#define HT_SAN_SUCCESS 0

/* Sanitizer_CallbackDomain */
enum {
	HT_SAN_DOMAIN_RESOURCE = 3,
	HT_SAN_DOMAIN_SYNCHRONIZE = 4,
	HT_SAN_DOMAIN_LAUNCH = 5,
};
/* Sanitizer_CallbackIdResource, Sanitizer_CallackIdSync, Sanitizer_CallbackIdLaunch */
enum {
	HT_SAN_RESOURCE_CONTEXT_DESTROY_STARTING = 4,
	HT_SAN_RESOURCE_MODULE_LOADED = 9,
	HT_SAN_RESOURCE_DEVICE_MEMORY_ALLOC = 11,
	HT_SAN_RESOURCE_DEVICE_MEMORY_FREE = 12,
	HT_SAN_SYNC_STREAM = 1,
	HT_SAN_SYNC_CONTEXT = 2,
	HT_SAN_LAUNCH_BEGIN = 1,
	HT_SAN_LAUNCH_END = 3,
};
/* Sanitizer_InstructionId */
#define HT_SAN_INSTRUCTION_GLOBAL_MEMORY_ACCESS 3
/* Sanitizer_DeviceMemoryFlags (the patch reads them: cuda_producer.h) */
#define HT_SAN_MEMORY_READ  0x1
#define HT_SAN_MEMORY_WRITE 0x2

typedef struct ht_san_subscriber_st *ht_san_subscriber;
typedef struct ht_san_stream_st *ht_san_stream; /* Sanitizer_StreamHandle */
typedef void (*ht_san_callback)(void *userdata, int domain, uint32_t cbid, const void *cbdata);

/* Sanitizer_ResourceModuleData (the fields used; later ones omitted) */
struct ht_san_module_data {
	CUcontext context;
	CUmodule module;
	size_t cubin_size;
	const char *cubin;
};

/* Sanitizer_ResourceMemoryData (the fields used) */
struct ht_san_memory_data {
	uint64_t address;
	uint64_t size;
	CUcontext context;
};

/* Sanitizer_ResourceContextData */
struct ht_san_context_data {
	CUcontext context;
	CUdevice device;
};

/* Sanitizer_SynchronizeData */
struct ht_san_sync_data {
	CUcontext context;
	CUstream stream;
	ht_san_stream hstream;
};

/* Sanitizer_LaunchData (the fields used) */
struct ht_san_launch_data {
	CUcontext context;
	CUstream stream;
	ht_san_stream hstream;
	CUmodule module;
	CUfunction function;
	const char *function_name;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t cluster[3];
	uint64_t grid_id;
	void *hlaunch; /* Sanitizer_LaunchHandle */
};

/* The functions, as loaded from libsanitizer-public.so (tests fill in fakes). */
struct ht_san_api {
	ht_san_result (*subscribe)(ht_san_subscriber *sub, ht_san_callback cb, void *userdata);
	ht_san_result (*enable_domain)(uint32_t enable, ht_san_subscriber sub, int domain);
	ht_san_result (*add_patches_from_file)(const char *file, CUcontext ctx);
	ht_san_result (*patch_instructions)(int instruction, CUmodule module, const char *callback);
	ht_san_result (*patch_module)(CUmodule module);
	ht_san_result (*set_callback_data)(CUfunction kernel, const void *userdata);
	/* newer: per launch; NULL where the library lacks it */
	ht_san_result (*set_launch_callback_data)(void *hlaunch, CUfunction kernel,
						  ht_san_stream stream, const void *userdata);
	ht_san_result (*get_function_pc_and_size)(CUmodule module, const char *name, uint64_t *pc,
						  uint64_t *size);
	ht_san_result (*alloc_host)(CUcontext ctx, void **ptr, size_t size);
};

#endif
