#!/usr/bin/python3
"""A pyopencl client (Debian python3-pyopencl): builds a kernel, copies two
arrays in, runs it twice, reads the result back and checks it. Its queue has
no profiling, so an event's times must be unavailable, as they are untraced
(programs decide from that whether they profile)."""
import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
a = np.arange(4096, dtype=np.float32)
b = np.full(4096, 2.0, dtype=np.float32)
mf = cl.mem_flags
da = cl.Buffer(ctx, mf.READ_ONLY, a.nbytes)
db = cl.Buffer(ctx, mf.READ_ONLY, b.nbytes)
dc = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
cl.enqueue_copy(queue, da, a)
cl.enqueue_copy(queue, db, b)
prg = cl.Program(ctx, """
__kernel void axpb(__global const float *a, __global const float *b, __global float *c)
{ int i = get_global_id(0); c[i] = a[i] * b[i] + 1.0f; }
""").build()
k = prg.axpb
k(queue, a.shape, None, da, db, dc)
ev = k(queue, a.shape, None, da, db, dc)
out = np.empty_like(a)
cl.enqueue_copy(queue, out, dc)
queue.finish()
try:
    ev.profile.end
    times = "available"
except cl.RuntimeError as e:
    times = "not available" if e.code == cl.status_code.PROFILING_INFO_NOT_AVAILABLE else str(e)
print("pyopencl: profiling times of an unprofiled queue: %s" % times)
print("pyopencl: %s" % ("ok" if np.allclose(out, a * b + 1.0) and times == "not available"
                        else "FAILED"))
