#!/usr/bin/python3
"""One kernel launched with two configurations, and a buffer mapped and
unmapped (Debian python3-pyopencl, on PoCL): `scale` runs 3 times over 1024
work-items in groups of 64 and 5 times over 512 with the local size left to
the runtime; one host-to-device copy of 64 KiB; two maps of the buffer
(64 KiB each, then unmapped). Prints "cl_configs: ok" when the results are
right."""
import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
a = np.arange(16384, dtype=np.float32)
mf = cl.mem_flags
buf = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
cl.enqueue_copy(queue, buf, a)
prg = cl.Program(ctx, """
__kernel void scale(__global float *a) { a[get_global_id(0)] *= 2.0f; }
""").build()
for _ in range(3):
    prg.scale(queue, (1024,), (64,), buf)
for _ in range(5):
    prg.scale(queue, (512,), None, buf)
ok = True
for _ in range(2):
    m, _ev = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, a.shape, a.dtype)
    ok &= m[0] == 0 and m[100] == 100 * 256 and m[600] == 600 * 8 and m[2000] == 2000
    m.base.release(queue)
queue.finish()
print("cl_configs: %s" % ("ok" if ok else "FAILED"))
