/*
 * Memory-access tracing of OpenCL kernels (cl_glue.c, in
 * libhetrace-opencl.so): what the generated wrappers call (their HOOKS in
 * tools/gen-opencl-wrappers.py). Included by opencl/interpose.h after the
 * CL headers. Every call returns at once while --memory-access is off.
 */
#ifndef HT_MEMTRACE_CL_GLUE_H
#define HT_MEMTRACE_CL_GLUE_H

/* Nonzero once memory-access tracing is on in this process (set at load). */
extern int ht_cl_mt_on;

void ht_cl_mt_program_source(cl_program p, cl_context ctx, cl_uint count, const char **strings,
			     const size_t *lengths);
void ht_cl_mt_program_built(cl_program p, const char *options, cl_int ret);
void ht_cl_mt_program_compiled(cl_program p, const char *options, cl_uint nheaders, cl_int ret);
void ht_cl_mt_program_linked(cl_program p, cl_context ctx, const char *options, cl_uint n,
			     const cl_program *inputs);
void ht_cl_mt_kernel_created(cl_kernel k, cl_program p, const char *name);
void ht_cl_mt_kernels_created(cl_program p, cl_uint n, cl_kernel *kernels, cl_uint *n_ret,
			      cl_int ret);
void ht_cl_mt_kernel_cloned(cl_kernel k, cl_kernel source);
void ht_cl_mt_kernel_arg(cl_kernel k, cl_uint index, size_t size, const void *value, cl_int ret);
void ht_cl_mt_kernel_arg_svm(cl_kernel k, cl_uint index, const void *value, cl_int ret);
void ht_cl_mt_kernel_exec_info(cl_kernel k, cl_kernel_exec_info name, size_t size,
			       const void *value, cl_int ret);
void ht_cl_mt_kernel_release(cl_kernel k);
void ht_cl_mt_program_release(cl_program p);
void ht_cl_mt_context_release(cl_context ctx);
/* CL_CONTEXT_REFERENCE_COUNT without the references our own objects hold. */
void ht_cl_mt_context_info(cl_context ctx, cl_context_info name, size_t size, void *value,
			   cl_int ret);

/*
 * clEnqueueNDRangeKernel / clEnqueueTask: an instrumented kernel runs as its
 * instrumented twin, recording into the channel; `corr` is the enqueue's
 * correlation id. What the application sees is the real call's result.
 */
cl_int ht_cl_mt_ndrange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
			const size_t *global, const size_t *local, cl_uint nwait,
			const cl_event *wait, cl_event *event, uint64_t corr);
/* The device command of enqueue `corr` has been collected: its launch is over. */
void ht_cl_mt_command_done(uint64_t corr);
cl_int ht_cl_mt_task(cl_command_queue q, cl_kernel k, cl_uint nwait, const cl_event *wait,
		     cl_event *event, uint64_t corr);

#endif
