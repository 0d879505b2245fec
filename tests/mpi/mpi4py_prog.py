"""An mpi4py program (test mpi_mpi4py): Python loads libmpi privately
(RTLD_LOCAL) when it imports mpi4py.MPI, after libhetrace-mpi.so was
preloaded. Two ranks: a buffer send of 1000 ints (4000 bytes) from rank 0
to rank 1, three pickled objects from rank 1 to rank 0 (mpi4py receives
them with MPI_Mprobe + MPI_Mrecv), two buffer allreduces and a barrier."""
import os

import numpy as np
from mpi4py import MPI

c = MPI.COMM_WORLD
rank = c.Get_rank()
buf = np.arange(1000, dtype="i") if rank == 0 else np.zeros(1000, dtype="i")
if rank == 0:
    c.Send([buf, MPI.INT], dest=1, tag=7)
    got = [c.recv(source=1, tag=9) for _ in range(3)]
else:
    c.Recv([buf, MPI.INT], source=0, tag=7)
    for i in range(3):
        c.send({"i": i, "from": rank}, dest=0, tag=9)
    got = []
total = np.zeros(1, dtype="i")
for i in range(2):
    c.Allreduce(np.array([rank + i], dtype="i"), total, op=MPI.SUM)
c.Barrier()
# one write per line: mpirun interleaves what two ranks print
line = "rank %d: sum %d, got %s, allreduce %d\n" % (rank, int(buf.sum()), [g["i"] for g in got], total[0])
os.write(1, line.encode())
