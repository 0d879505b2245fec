#!/usr/bin/env python3
"""PyTorch workload for cuda_gpu_torch: the same deterministic GPU work, with
warm-up outside and the measured part inside the NVTX range "measured".

  torch_prog.py plain     run it (under `hetrace record`)
  torch_prog.py profile   run it under torch.profiler and print
                          "profiler kernels N" (kernels inside the range)
"""
import json
import os
import sys
import tempfile

import torch


def step(x):
    y = x @ x
    y = torch.relu(y)
    return (y * 0.5).sum()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
    torch.manual_seed(0)
    x = torch.randn(512, 512, device="cuda")
    for _ in range(3):  # warm-up: cuBLAS handles, allocator, lazy modules
        step(x)
    torch.cuda.synchronize()

    def measured():
        torch.cuda.nvtx.range_push("measured")
        for _ in range(10):
            step(x)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

    if mode == "profile":
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            measured()
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
        os.unlink(path)
        print("profiler kernels %d" % sum(1 for e in events if e.get("cat") == "kernel"))
    else:
        measured()
        print("done")


if __name__ == "__main__":
    main()
