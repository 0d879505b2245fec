#!/usr/bin/env python3
"""Generates hetrace's CUDA runtime and driver function tables from CUPTI's headers.

Reads the callback ids of cupti_runtime_cbid.h and cupti_driver_cbid.h and the
parameter structs of generated_cuda_runtime_api_meta.h and generated_cuda_meta.h
and writes src/cuda/api.gen.c:

  ht_cuda_rt_fns[] / ht_cuda_drv_fns[]   one struct ht_fn_desc per callback id
                                         (function id = table base + cbid)
  ht_cuda_rt_args() / ht_cuda_drv_args()  the api_end arguments of a call, read
                                         from CUPTI's parameter struct at EXIT

Runtime names lose CUPTI's `_vNNNNN` suffix unless two ids would then share a
name (the newest id gets the plain name). Driver names are the exported
symbols already and stay as they are. Which arguments are recorded follows
from field names and types (`field_args`): streams, sizes, copy kinds,
grid/block dimensions, device pointers, events, graph execs, flags, and the
pointers a call returns (read at EXIT). Calls whose device work CUPTI reports
as an activity record (launches, copies, sets, graph launches,
synchronisations) get `corr` first, the CUPTI correlation id that links them
to their device commands, and launches get `kernel`, the symbol name.

Usage: gen-cuda-tables.py [--include DIR] [--out DIR]
Only the Python standard library is used; output is deterministic.
"""

import argparse
import os
import re
import sys

MAX_ARGS = 12

CORR = re.compile(
    r"^cu(da)?(Launch(Kernel|CooperativeKernel|Grid)|Memcpy|Memset|GraphLaunch"
    r"|StreamSynchronize|EventSynchronize|DeviceSynchronize|ThreadSynchronize"
    r"|CtxSynchronize|StreamWaitEvent)")
LAUNCH = re.compile(r"^cu(da)?Launch(Kernel|CooperativeKernel|Grid)")
EXCLUDE_CORR = re.compile(r"(GetParams|SetParams|Node|Attribute)")

SIZES = {"count": "size", "size": "size", "ByteCount": "size", "bytesize": "size",
         "sharedMem": "shmem", "sharedMemBytes": "shmem", "width": "width",
         "height": "height", "WidthInBytes": "width", "Height": "height", "N": "count",
         "dpitch": "dpitch", "spitch": "spitch", "pitch": "pitch", "offset": "offset"}
VALUES = {"value", "uc", "us", "ui"}
DEVPTRS = {"dst": "dst", "src": "src", "devPtr": "ptr", "dptr": "ptr", "dstDevice": "dst",
           "srcDevice": "src", "dstHost": "dst", "srcHost": "src", "ptr": "ptr",
           "dstPtr": "dst", "srcPtr": "src"}
OUT_PTRS = {"devPtr": "ptr", "ptr": "ptr", "pHost": "ptr", "dptr": "ptr", "pp": "ptr"}
STREAM_T = {"cudaStream_t", "CUstream"}
EVENT_T = {"cudaEvent_t", "CUevent"}
EXEC_T = {"cudaGraphExec_t", "CUgraphExec"}
INT_T = {"size_t", "unsigned int", "int", "unsigned long long", "unsigned char",
         "unsigned short", "cuuint64_t", "cuuint32_t", "CUdeviceptr", "enum cudaMemcpyKind"}


# Roles (fntable.h): what a call does, so the analyses never match names.
ROLE_PATTERNS = [
    ("HT_ROLE_LAUNCH", re.compile(r"^cu(da)?(Launch(Kernel|CooperativeKernel|Grid)|GraphLaunch)")),
    ("HT_ROLE_TRANSFER", re.compile(r"^cu(da)?(Memcpy|Memset|MemPrefetch)")),
    ("HT_ROLE_SYNC", re.compile(r"^cu(da)?((Stream|Event|Device|Thread|Ctx)Synchronize"
                                r"|Memcpy(?!.*Async)(?!.*(Node|Param)))")),
    ("HT_ROLE_ALLOC", re.compile(r"^(cuda(Malloc|HostAlloc)|cuMem(Alloc|HostAlloc|Create))")),
    ("HT_ROLE_FREE", re.compile(r"^(cudaFree|cuMem(Free|Release))")),
    ("HT_ROLE_BUILD", re.compile(r"^cu(ModuleLoad|LinkComplete|LibraryLoad)")),
    ("HT_ROLE_QUERY", re.compile(r"^cu(da)?\w*(Get|Query)")),
    ("HT_ROLE_CREATE", re.compile(r"^cu(da)?\w*Create")),
    ("HT_ROLE_RELEASE", re.compile(r"^cu(da)?\w*Destroy")),
]
ARG_TYPES = {"h": "HT_FA_HEX", "u": "HT_FA_UINT", "i": "HT_FA_INT", "s": "HT_FA_STR"}
ARG_ROLES = {"corr": "HT_AR_CORR", "stream": "HT_AR_QUEUE", "size": "HT_AR_BYTES",
             "kernel": "HT_AR_KERNEL", "device": "HT_AR_DEVICE", "event": "HT_AR_EVENT"}


def roles(name, corr):
    r = [flag for flag, pat in ROLE_PATTERNS if pat.match(name)]
    if corr:
        r.insert(0, "HT_ROLE_ENQUEUE")
    return " | ".join(r) or "0"


def parse_cbids(path, prefix):
    text = open(path).read()
    ids = {}
    for m in re.finditer(prefix + r"(\w+)\s*=\s*(\d+)", text):
        name, val = m.group(1), int(m.group(2))
        if name in ("INVALID", "SIZE", "FORCE_INT"):
            continue
        ids[val] = name
    size = int(re.search(prefix + r"SIZE\s*=\s*(\d+)", text).group(1))
    return ids, size


def parse_params(path):
    text = open(path).read()
    structs = {}
    for m in re.finditer(r"typedef struct (\w+)_params_st \{(.*?)\} \1_params;", text, re.S):
        fields = []
        for line in m.group(2).split(";"):
            line = " ".join(line.split())
            if not line:
                continue
            fm = re.match(r"^(.*?)(\**)\s*(\w+)$", line)
            if not fm:
                continue
            ctype, stars, fname = fm.group(1).strip(), fm.group(2), fm.group(3)
            if ctype.endswith("*"):
                stars = "*" * ctype.count("*") + stars
                ctype = ctype.rstrip("* ").strip()
            fields.append((ctype, len(stars), fname))
        structs[m.group(1)] = fields
    return structs


def api_version(inc):
    m = re.search(r"#define CUPTI_API_VERSION (\d+)", open(os.path.join(inc, "cupti_version.h")).read())
    return m.group(1) if m else "unknown"


def u64(expr):
    return "(uint64_t)(" + expr + ")"


def ptr(expr):
    return "(uint64_t)(uintptr_t)(" + expr + ")"


def field_args(fields):
    """[(name, type char, C expression on p)] for the fields worth recording."""
    out = []
    for ctype, stars, f in fields:
        base = ctype.replace("const ", "").strip()
        if stars == 0 and base in STREAM_T:
            out.append(("stream", "h", ptr("p->" + f)))
        elif stars == 1 and base in STREAM_T and f in ("pStream", "phStream"):
            out.append(("stream", "h", "(p->%s ? %s : 0)" % (f, ptr("*p->" + f))))
        elif stars == 0 and base == "dim3":
            pre = "grid" if f.startswith("grid") else "block"
            out += [(pre + "_" + c, "u", u64("p->%s.%s" % (f, c))) for c in "xyz"]
        elif stars == 0 and re.match(r"^(grid|block)Dim[XYZ]$", f):
            out.append((f[:-4].replace("Dim", "") + "_" + f[-1].lower(), "u", u64("p->" + f)))
        elif stars == 1 and base == "cudaLaunchConfig_t":
            c = "p->" + f
            out += [("grid_" + a, "u", "(%s ? %s : 0)" % (c, u64(c + "->gridDim." + a)))
                    for a in "xyz"]
            out += [("block_" + a, "u", "(%s ? %s : 0)" % (c, u64(c + "->blockDim." + a)))
                    for a in "xyz"]
            out.append(("shmem", "u", "(%s ? %s : 0)" % (c, u64(c + "->dynamicSmemBytes"))))
            out.append(("stream", "h", "(%s ? %s : 0)" % (c, ptr(c + "->stream"))))
        elif stars == 1 and base == "CUlaunchConfig":
            c = "p->" + f
            for k in ("grid", "block"):
                out += [(k + "_" + a.lower(), "u", "(%s ? %s : 0)" % (c, u64(
                    "%s->%sDim%s" % (c, k, a)))) for a in "XYZ"]
            out.append(("shmem", "u", "(%s ? %s : 0)" % (c, u64(c + "->sharedMemBytes"))))
            out.append(("stream", "h", "(%s ? %s : 0)" % (c, ptr(c + "->hStream"))))
        elif stars == 0 and f in SIZES and base in INT_T:
            out.append((SIZES[f], "u", u64("p->" + f)))
        elif stars == 0 and base == "enum cudaMemcpyKind":
            out.append(("kind", "u", u64("p->" + f)))
        elif stars == 0 and f in VALUES and base in INT_T:
            out.append(("value", "u", u64("p->" + f)))
        elif f in DEVPTRS and ((stars == 1 and base == "void") or
                               (stars == 0 and base == "CUdeviceptr")):
            out.append((DEVPTRS[f], "h", ptr("p->" + f)))
        elif f in OUT_PTRS and ((stars == 2 and base == "void") or
                                (stars == 1 and base == "CUdeviceptr")):
            out.append((OUT_PTRS[f], "h", "(p->%s ? %s : 0)" % (f, ptr("*p->" + f))))
        elif stars == 0 and base in EVENT_T:
            out.append(("event", "h", ptr("p->" + f)))
        elif stars == 0 and base in EXEC_T:
            out.append(("graph_exec", "h", ptr("p->" + f)))
        elif stars == 0 and f in ("flags", "Flags") and base == "unsigned int":
            out.append(("flags", "u", u64("p->" + f)))
        elif stars == 0 and f in ("device", "dev") and base in ("int", "CUdevice"):
            out.append(("device", "i", "(uint64_t)(int64_t)p->" + f))
    # keep argument names unique within one call (dst/src may repeat)
    seen = {}
    uniq = []
    for name, t, e in out:
        n = seen.get(name, 0)
        seen[name] = n + 1
        uniq.append((name if n == 0 else "%s%d" % (name, n + 1), t, e))
    return uniq


def plain_name(name):
    return re.sub(r"_v\d+$", "", name)


def table(cbids, size, structs, domain, strip):
    names = {}
    if strip:
        by_plain = {}
        for v, n in cbids.items():
            by_plain.setdefault(plain_name(n), []).append(v)
        for plain, vals in by_plain.items():
            newest = max(vals)
            for v in vals:
                names[v] = plain if v == newest else cbids[v]
    else:
        names = dict(cbids)
    rows = []
    for i in range(size):
        n = cbids.get(i)
        if n is None:
            rows.append(("%s_cbid_%d" % (domain, i), [], False, False, "0"))
            continue
        shown = names[i]
        args = field_args(structs.get(n, []))
        corr = bool(CORR.match(shown)) and not EXCLUDE_CORR.search(shown)
        launch = bool(LAUNCH.match(shown))
        extra = []
        if corr:
            extra.append(("corr", "u", "(uint64_t)corr"))
        if launch:
            extra.append(("kernel", "s", "(uint64_t)ht_cuda_symbol_id(symbol)"))
        rows.append((shown, (extra + args)[:MAX_ARGS], n, n in structs, roles(shown, corr)))
    return rows


def emit_table(out, var, rows):
    for name, args, _, _, _ in rows:
        if args:
            out.append("static const struct ht_fn_arg_desc %s_%s[] = {" % (var, name))
            for a, t, _ in args:
                out.append('\t{"%s", %s, %s},' % (a, ARG_TYPES[t], ARG_ROLES.get(a, "HT_AR_NONE")))
            out.append("};")
    out.append("")
    out.append("const struct ht_fn_desc %s[] = {" % var)
    for name, args, _, _, r in rows:
        out.append('\t{"%s", %s, %d, %s},' % (name, r, len(args),
                                               "%s_%s" % (var, name) if args else "NULL"))
    out.append("};")
    out.append("")


def emit_args(out, fn, rows, prefix):
    out.append("unsigned int %s(uint32_t cbid, const void *params, const char *symbol, "
               "uint32_t corr, uint64_t *a)" % fn)
    out.append("{")
    out.append("\t(void)params;")
    out.append("\t(void)symbol;")
    out.append("\t(void)corr;")
    out.append("\tswitch (cbid) {")
    for i, (name, args, cname, has_struct, _) in enumerate(rows):
        if not args:
            continue
        uses_p = any("p->" in e for _, _, e in args)
        out.append("\tcase %s%s: {" % (prefix, cname))
        if uses_p and has_struct:
            out.append("\t\tconst %s_params *p = params;" % cname)
            out.append("")
        for k, (_, _, e) in enumerate(args):
            out.append("\t\ta[%d] = %s;" % (k, e))
        out.append("\t\treturn %d;" % len(args))
        out.append("\t}")
    out.append("\tdefault:")
    out.append("\t\treturn 0;")
    out.append("\t}")
    out.append("}")
    out.append("")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", default="/usr/local/cuda/include")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "src", "cuda"))
    o = ap.parse_args()
    inc = o.include
    rt_ids, rt_size = parse_cbids(os.path.join(inc, "cupti_runtime_cbid.h"),
                                  "CUPTI_RUNTIME_TRACE_CBID_")
    drv_ids, drv_size = parse_cbids(os.path.join(inc, "cupti_driver_cbid.h"),
                                    "CUPTI_DRIVER_TRACE_CBID_")
    rt_structs = parse_params(os.path.join(inc, "generated_cuda_runtime_api_meta.h"))
    drv_structs = parse_params(os.path.join(inc, "generated_cuda_meta.h"))
    if rt_size > 4096 or drv_size > 4096:
        sys.exit("gen-cuda-tables: more than 4096 callback ids in one domain")
    rt = table(rt_ids, rt_size, rt_structs, "cuda", True)
    drv = table(drv_ids, drv_size, drv_structs, "cu", False)
    for rows in (rt, drv):
        # a launch without its struct would lose its dimensions: only bare ids may lack one
        for name, args, cname, has_struct, _ in rows:
            if cname and not has_struct and any("p->" in e for _, _, e in args):
                sys.exit("gen-cuda-tables: %s uses fields but has no params struct" % cname)
    out = [
        "/* Generated by tools/gen-cuda-tables.py from the CUPTI %s headers: do not edit. */"
        % api_version(inc),
        "/*",
        " * Function tables of the CUDA runtime and driver APIs (one entry per CUPTI",
        " * callback id) and the api_end arguments each call records, read from",
        " * CUPTI's parameter structs at the EXIT callback.",
        " */",
        "#include <stdint.h>",
        "",
        "#include <cupti.h>",
        "",
        '#include "cuda/api.h"',
        "",
        "const unsigned int ht_cuda_rt_count = %d;" % rt_size,
        "const unsigned int ht_cuda_drv_count = %d;" % drv_size,
        "",
    ]
    emit_table(out, "ht_cuda_rt_fns", rt)
    emit_table(out, "ht_cuda_drv_fns", drv)
    emit_args(out, "ht_cuda_rt_args", rt, "CUPTI_RUNTIME_TRACE_CBID_")
    emit_args(out, "ht_cuda_drv_args", drv, "CUPTI_DRIVER_TRACE_CBID_")
    os.makedirs(o.out, exist_ok=True)
    with open(os.path.join(o.out, "api.gen.c"), "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
