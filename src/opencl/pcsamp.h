/*
 * PC sampling of OpenCL kernels, the traced process's part (pcsamp.c):
 * called from the generated wrappers after the real call.
 */
#ifndef HT_OPENCL_PCSAMP_H
#define HT_OPENCL_PCSAMP_H

#include "opencl/interpose.h"

/* Return: nonzero when record --pc-sampling asked for samples and this call is traced. */
int ht_cl_pc_on(void);
/* clCreateProgramWithSource returned p: its text goes into the trace. */
void ht_cl_pc_program_source(cl_program p, cl_uint count, const char **strings,
			     const size_t *lengths);
/* clBuildProgram returned ret for p: its kernels' names go into the trace. */
void ht_cl_pc_program_built(cl_program p, cl_int ret);

#endif
