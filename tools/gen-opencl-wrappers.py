#!/usr/bin/env python3
"""Generates hetrace's OpenCL wrappers from the installed Khronos CL headers.

Reads every `extern CL_API_ENTRY ... CL_API_CALL clName(...)` declaration of
CL/cl.h, CL/cl_gl.h, CL/cl_egl.h and CL/cl_ext.h and writes:

  src/opencl/api.gen.h       function ids, pointer types, HT_CL_REAL(), tables
  src/opencl/wrappers.gen.c  one wrapper per function, the real-function table
                             and its lazy resolver stubs, the trace function table

Functions the ICD loader exports (everything in cl.h, cl_gl.h and cl_egl.h
except vendor-suffixed ones, plus the few cl_ext.h entry points ocl-icd
exports, see LOADER_EXT) get an exported wrapper with the API's own name.
Every function outside cl.h also gets a static wrapper that
clGetExtensionFunctionAddress[ForPlatform] hands out (its real function is
whatever the platform returned). Which arguments a wrapper records follows
from parameter names and types (rules in `arg_rules`); enqueue functions get
the device-command bookkeeping described in ENQUEUE.

Usage: gen-opencl-wrappers.py [--include DIR] [--out DIR]
Only the Python standard library is used; output is deterministic.
"""

import argparse
import os
import re
import sys

HEADERS = ["cl.h", "cl_gl.h", "cl_egl.h", "cl_ext.h"]

# cl_ext.h functions that ocl-icd's libOpenCL.so.1 exports as symbols.
LOADER_EXT = {"clCreateSubDevicesEXT", "clRetainDeviceEXT", "clReleaseDeviceEXT",
              "clGetKernelSubGroupInfoKHR"}
VENDOR_SUFFIX = re.compile(r"(INTEL|APPLE|ARM|IMG|QCOM|AMD|NV|EXT)$")

HANDLES = {"cl_platform_id", "cl_device_id", "cl_context", "cl_command_queue", "cl_mem",
           "cl_program", "cl_kernel", "cl_event", "cl_sampler", "cl_command_buffer_khr",
           "cl_semaphore_khr", "cl_accelerator_intel", "cl_mutable_command_khr"}
HOST_PTRS = {"ptr", "host_ptr", "dst_ptr", "src_ptr", "svm_ptr", "mapped_ptr", "svm_pointer"}
STRINGS = {"kernel_name", "options", "func_name", "kernel_names"}
SIGNED = {"cl_int"}

# Enqueue functions: command kind, CL command type, bytes expression, blocking
# expression, whether an event may be injected (clEnqueueMarker requires the
# app's own), and an extra hook. Enqueues not listed here are tracked as
# HT_CMD_OTHER with the command type queried from the event.
ENQUEUE = {
    "clEnqueueReadBuffer": ("COPY_D2H", "READ_BUFFER", "size", "blocking_read"),
    "clEnqueueReadBufferRect": ("COPY_D2H", "READ_BUFFER_RECT", "ht_cl_prod3(region)",
                                "blocking_read"),
    "clEnqueueWriteBuffer": ("COPY_H2D", "WRITE_BUFFER", "size", "blocking_write"),
    "clEnqueueWriteBufferRect": ("COPY_H2D", "WRITE_BUFFER_RECT", "ht_cl_prod3(region)",
                                 "blocking_write"),
    "clEnqueueFillBuffer": ("FILL", "FILL_BUFFER", "size", None),
    "clEnqueueCopyBuffer": ("COPY_D2D", "COPY_BUFFER", "size", None),
    "clEnqueueCopyBufferRect": ("COPY_D2D", "COPY_BUFFER_RECT", "ht_cl_prod3(region)", None),
    "clEnqueueReadImage": ("COPY_D2H", "READ_IMAGE", "ht_cl_image_bytes(image, region)",
                           "blocking_read"),
    "clEnqueueWriteImage": ("COPY_H2D", "WRITE_IMAGE", "ht_cl_image_bytes(image, region)",
                            "blocking_write"),
    "clEnqueueFillImage": ("FILL", "FILL_IMAGE", "ht_cl_image_bytes(image, region)", None),
    "clEnqueueCopyImage": ("COPY_D2D", "COPY_IMAGE", "ht_cl_image_bytes(src_image, region)",
                           None),
    "clEnqueueCopyImageToBuffer": ("COPY_D2D", "COPY_IMAGE_TO_BUFFER",
                                   "ht_cl_image_bytes(src_image, region)", None),
    "clEnqueueCopyBufferToImage": ("COPY_D2D", "COPY_BUFFER_TO_IMAGE",
                                   "ht_cl_image_bytes(dst_image, region)", None),
    "clEnqueueMapBuffer": ("MAP", "MAP_BUFFER", "size", "blocking_map"),
    "clEnqueueMapImage": ("MAP", "MAP_IMAGE", "ht_cl_image_bytes(image, region)",
                          "blocking_map"),
    "clEnqueueUnmapMemObject": ("UNMAP", "UNMAP_MEM_OBJECT", "0", None),
    "clEnqueueMigrateMemObjects": ("MIGRATE", "MIGRATE_MEM_OBJECTS", "0", None),
    "clEnqueueNDRangeKernel": ("KERNEL", "NDRANGE_KERNEL", "0", None),
    "clEnqueueTask": ("KERNEL", "TASK", "0", None),
    "clEnqueueNativeKernel": ("KERNEL", "NATIVE_KERNEL", "0", None),
    "clEnqueueMarkerWithWaitList": ("MARKER", "MARKER", "0", None),
    "clEnqueueBarrierWithWaitList": ("BARRIER", "BARRIER", "0", None),
    "clEnqueueMarker": ("MARKER", "MARKER", "0", None),
    "clEnqueueSVMFree": ("OTHER", "SVM_FREE", "0", None),
    "clEnqueueSVMMemcpy": ("COPY_D2D", "SVM_MEMCPY", "size", "blocking_copy"),
    "clEnqueueSVMMemFill": ("FILL", "SVM_MEMFILL", "size", None),
    "clEnqueueSVMMap": ("MAP", "SVM_MAP", "size", "blocking_map"),
    "clEnqueueSVMUnmap": ("UNMAP", "SVM_UNMAP", "0", None),
    "clEnqueueSVMMigrateMem": ("MIGRATE", "SVM_MIGRATE_MEM", "0", None),
    "clEnqueueAcquireGLObjects": ("OTHER", "ACQUIRE_GL_OBJECTS", "0", None),
    "clEnqueueReleaseGLObjects": ("OTHER", "RELEASE_GL_OBJECTS", "0", None),
}
NO_INJECT = {"clEnqueueMarker"}  # the event is required: NULL must fail as untraced

# Per-function hooks (C snippets). "call" replaces the call of the real
# function; "always" makes the untraced path use it too (it hides our changes).
HOOKS = {
    "clCreateCommandQueue": {
        "call": "ht_cl_queue_create(context, device, properties, NULL, 0, ht_errp)",
        "args": "context:h,device:h,properties:h,result:h",
        "vals": ["context", "device", "properties", "ret"]},
    "clCreateCommandQueueWithProperties": {
        "call": "ht_cl_queue_create(context, device, 0, properties, 1, ht_errp)",
        "args": "context:h,device:h,properties:h,result:h",
        "vals": ["context", "device", "ht_cl_queue_props_flags(properties)", "ret"]},
    "clGetCommandQueueInfo": {
        "call": "ht_cl_queue_get_info(command_queue, param_name, param_value_size, "
                "param_value, param_value_size_ret)", "always": True},
    "clSetCommandQueueProperty": {
        "call": "ht_cl_queue_set_property(command_queue, properties, enable, old_properties)",
        "always": True},
    "clGetEventProfilingInfo": {
        "call": "ht_cl_event_profiling_info(event, param_name, param_value_size, param_value, "
                "param_value_size_ret)", "always": True},
    "clGetEventInfo": {
        "call": "ht_cl_event_get_info(event, param_name, param_value_size, param_value, "
                "param_value_size_ret)", "always": True},
    "clGetExtensionFunctionAddress": {
        "call": "ht_cl_ext_address(NULL, func_name, 0)", "always": True},
    "clGetExtensionFunctionAddressForPlatform": {
        "call": "ht_cl_ext_address(platform, func_name, 1)", "always": True},
    "clCreateKernel": {"post": "ht_cl_kernel_created(ret, kernel_name);\n"
                               "\tht_cl_mt_kernel_created(ret, program, kernel_name);"},
    # "seen": the call reads the clock after completing commands; its end shares that read
    "clFinish": {"call": "ht_cl_finish(command_queue, &ht_seen)", "seen": "ht_seen"},
    "clWaitForEvents": {"post": "ht_cl_collect_all();"},
    "clReleaseCommandQueue": {"pre": "ht_cl_collect_queue(command_queue);"},
    "clReleaseContext": {"pre": "ht_cl_collect_all();\n\tht_cl_mt_context_release(context);"},
    "clReleaseMemObject": {"pre": "ht_cl_collect_all();"},
    "clGetContextInfo": {"pre": "if (param_name == CL_CONTEXT_REFERENCE_COUNT)\n"
                                "\t\tht_cl_collect_all();",
                         "post": "ht_cl_mt_context_info(context, param_name, param_value_size, "
                                 "param_value, ret);"},
    "clGetMemObjectInfo": {"pre": "if (param_name == CL_MEM_REFERENCE_COUNT)\n"
                                  "\t\tht_cl_collect_all();"},
    "clGetKernelInfo": {"pre": "if (param_name == CL_KERNEL_REFERENCE_COUNT)\n"
                               "\t\tht_cl_collect_all();"},
    "clGetProgramInfo": {"pre": "if (param_name == CL_PROGRAM_REFERENCE_COUNT)\n"
                                "\t\tht_cl_collect_all();"},
    "clEnqueueNDRangeKernel": {
        "call": "ht_cl_mt_ndrange(command_queue, kernel, work_dim, global_work_offset, "
                "global_work_size, local_work_size, num_events_in_wait_list, event_wait_list, "
                "ht_evp, c.corr)",
        "extra": "ht_cl_cmd_kernel(&c, kernel, work_dim, global_work_size, local_work_size);",
        "args": "command_queue:h,kernel:h,name:s,work_dim:u,global0:u,global1:u,global2:u,"
                "local0:u,local1:u,local2:u,event:h,corr:u",
        "vals": ["command_queue", "kernel", "c.name", "work_dim", "c.global[0]", "c.global[1]",
                 "c.global[2]", "c.local[0]", "c.local[1]", "c.local[2]", "ht_ev", "c.corr"]},
    "clEnqueueTask": {"call": "ht_cl_mt_task(command_queue, kernel, num_events_in_wait_list, "
                              "event_wait_list, ht_evp, c.corr)",
                      "extra": "ht_cl_cmd_kernel(&c, kernel, 0, NULL, NULL);",
                      "args": "command_queue:h,kernel:h,name:s,event:h,corr:u",
                      "vals": ["command_queue", "kernel", "c.name", "ht_ev", "c.corr"]},
    "clEnqueueNativeKernel": {"extra": "ht_cl_cmd_native(&c);"},
    # memory-access tracing (src/memtrace/cl_glue.h): programs, kernels and their arguments
    "clCreateProgramWithSource": {
        "post": "ht_cl_mt_program_source(ret, context, count, strings, lengths);\n"
                "\tht_cl_pc_program_source(ret, count, strings, lengths);"},
    "clBuildProgram": {"post": "ht_cl_mt_program_built(program, options, ret);\n"
                               "\tht_cl_pc_program_built(program, ret);"},
    "clCompileProgram": {"post": "ht_cl_mt_program_compiled(program, options, num_input_headers, "
                                 "ret);"},
    "clLinkProgram": {"post": "ht_cl_mt_program_linked(ret, context, options, num_input_programs, "
                              "input_programs);"},
    "clCreateKernelsInProgram": {
        "post": "ht_cl_mt_kernels_created(program, num_kernels, kernels, num_kernels_ret, ret);"},
    "clCloneKernel": {"post": "ht_cl_mt_kernel_cloned(ret, source_kernel);"},
    "clSetKernelArg": {"post": "ht_cl_mt_kernel_arg(kernel, arg_index, arg_size, arg_value, ret);"},
    "clSetKernelArgSVMPointer": {"post": "ht_cl_mt_kernel_arg_svm(kernel, arg_index, arg_value, ret);"},
    "clSetKernelExecInfo": {
        "post": "ht_cl_mt_kernel_exec_info(kernel, param_name, param_value_size, param_value, "
                "ret);"},
    "clReleaseKernel": {"pre": "ht_cl_mt_kernel_release(kernel);"},
    "clReleaseProgram": {"pre": "ht_cl_mt_program_release(program);"},
}

# Roles (fntable.h) the analyses use instead of names.
SYNC = {"clFinish", "clWaitForEvents"}
BUILD = {"clBuildProgram", "clCompileProgram", "clLinkProgram"}
FREE = {"clReleaseMemObject", "clSVMFree", "clEnqueueSVMFree"}
TRANSFER_KINDS = {"COPY_H2D", "COPY_D2H", "COPY_D2D", "COPY_H2H", "FILL", "MAP", "UNMAP",
                  "MIGRATE"}
ARG_TYPES = {"h": "HT_FA_HEX", "u": "HT_FA_UINT", "i": "HT_FA_INT", "s": "HT_FA_STR"}
ARG_ROLES = {"corr": "HT_AR_CORR", "command_queue": "HT_AR_QUEUE", "bytes": "HT_AR_BYTES",
             "name": "HT_AR_KERNEL", "device": "HT_AR_DEVICE", "event": "HT_AR_EVENT",
             "result": "HT_AR_RESULT"}

DROP_ORDER = [r"pitch", r"^num_events_in_wait_list$", r"offset$", r"origin", r"ptr$", r"flags$"]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


DECL = re.compile(r"extern\s+CL_API_ENTRY\s+(?:CL_API_PREFIX__\w+\s+)?(.*?)\s*CL_API_CALL\s+"
                  r"(\w+)\s*\((.*?)\)\s*(?:CL_API_SUFFIX__\w+|CL_EXT_SUFFIX__\w+)?\s*;", re.S)


def split_params(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [" ".join(p.split()) for p in parts if p.strip()]


class Param:
    def __init__(self, text):
        self.text = text
        m = re.search(r"\(\s*(?:CL_CALLBACK)?\s*\*\s*(\w+)\s*\)", text)
        if m:
            self.name, self.type, self.fnptr = m.group(1), None, True
            return
        self.fnptr = False
        m = re.match(r"(.*?)(\w+)\s*(\[\s*\])?$", text)
        self.name = m.group(2)
        self.type = " ".join(m.group(1).replace("*", " * ").split())
        if m.group(3):
            self.type += " *"

    @property
    def pointer(self):
        return self.fnptr or "*" in self.type


class Func:
    def __init__(self, ret, name, params, header):
        self.ret = " ".join(ret.replace("*", " * ").split())
        self.name, self.header = name, header
        ps = split_params(params)
        self.params = [] if ps in ([], ["void"]) else [Param(p) for p in ps]
        self.exported = header != "cl_ext.h" and not (
            VENDOR_SUFFIX.search(name) and not name.endswith("KHR"))
        if name in LOADER_EXT:
            self.exported = True
        self.ext = header != "cl.h"  # reachable through clGetExtensionFunctionAddress
        self.enqueue = (name.startswith("clEnqueue") and self.params
                        and self.params[0].type == "cl_command_queue"
                        and any(p.name == "event" and p.type == "cl_event *"
                                for p in self.params))

    def has(self, pname):
        return any(p.name == pname for p in self.params)

    @property
    def errp(self):
        return self.has("errcode_ret")

    def proto(self, fname):
        ps = ", ".join(p.text for p in self.params) or "void"
        return "%s CL_API_CALL %s(%s)" % (self.ret, fname, ps)

    def call_args(self, subst=None):
        subst = subst or {}
        return ", ".join(subst.get(p.name, p.name) for p in self.params)


def arg_rules(f):
    """Return: [(name, type, C value expression)] recorded at api_end."""
    out = []
    for p in f.params:
        if p.fnptr or p.name == "errcode_ret":
            continue
        t = p.type
        if t in HANDLES:
            out.append((p.name, "h", "(uintptr_t)%s" % p.name))
        elif t == "cl_event *" and p.name == "event":
            out.append(("event", "h", "ht_ev"))
        elif t == "const char *" and p.name in STRINGS:
            out.append((p.name, "s", "ht_cl_str(%s)" % p.name))
        elif "*" in t and p.name in HOST_PTRS:
            out.append((p.name, "h", "(uintptr_t)%s" % p.name))
        elif t == "cl_uint *" and p.name.startswith("num_"):
            out.append((p.name, "u", "(ret_ok && %s ? *%s : 0)" % (p.name, p.name)))
        elif "*" not in t and t != "void":
            kind = "i" if t in SIGNED else "u"
            out.append((p.name, kind, "(uint64_t)%s" % p.name))
    if f.ret in HANDLES or f.ret.endswith("*"):
        out.append(("result", "h", "(uintptr_t)ret"))
    if f.enqueue:
        out.append(("bytes", "u", "c.bytes"))
        out.append(("corr", "u", "c.corr"))
    for pat in DROP_ORDER:
        while len(out) > 12:
            idx = [i for i, a in enumerate(out) if re.search(pat, a[0])]
            if not idx:
                break
            del out[idx[0]]
    return out[:12]


def roles(f):
    """Return: the HT_ROLE_* flags of f, as a C expression."""
    r = []
    if f.enqueue:
        kind = (ENQUEUE.get(f.name) or ("OTHER",))[0]
        r.append("HT_ROLE_ENQUEUE")
        if kind == "KERNEL":
            r.append("HT_ROLE_LAUNCH")
        elif kind in TRANSFER_KINDS:
            r.append("HT_ROLE_TRANSFER")
        if any(p.name.startswith("blocking") for p in f.params):
            r.append("HT_ROLE_BLOCKING")
    if f.name in SYNC:
        r.append("HT_ROLE_SYNC")
    if f.name in BUILD:
        r.append("HT_ROLE_BUILD")
    if f.name in FREE:
        r.append("HT_ROLE_FREE")
    if f.name == "clSVMAlloc" or (f.name.startswith("clCreate") and f.ret == "cl_mem"):
        r.append("HT_ROLE_ALLOC")
    elif f.name.startswith("clCreate"):
        r.append("HT_ROLE_CREATE")
    if f.name.startswith("clRelease"):
        r.append("HT_ROLE_RELEASE")
    if re.match(r"clGet\w*Info", f.name):
        r.append("HT_ROLE_QUERY")
    return " | ".join(r) or "0"


def arg_descs(f):
    """Return: [(name, HT_FA_*, HT_AR_*)] of what f's api_end records."""
    hook = HOOKS.get(f.name, {})
    if hook.get("args"):
        spec = [a.split(":") for a in hook["args"].split(",")]
    else:
        spec = [(a[0], a[1]) for a in arg_rules(f)]
    out = []
    for name, t in spec:
        role = "HT_AR_BLOCKING" if name.startswith("blocking") else ARG_ROLES.get(name, "HT_AR_NONE")
        out.append((name, ARG_TYPES[t], role))
    return out


def parse(include):
    funcs, seen = [], set()
    for h in HEADERS:
        with open(os.path.join(include, h)) as fp:
            text = strip_comments(fp.read())
        for ret, name, params in DECL.findall(text):
            if name in seen:
                continue
            seen.add(name)
            funcs.append(Func(ret, name, params, h))
    return funcs


def fail_value(f):
    if f.ret == "void":
        return None
    if f.ret == "cl_int":
        return "CL_INVALID_OPERATION"
    return "NULL"


def gen_header(funcs, out):
    w = out.append
    w("enum ht_cl_fn {")
    for i, f in enumerate(funcs):
        w("\tHT_CL_FN_%s = %d," % (f.name, i))
    w("\tHT_CL_FN_COUNT = %d" % len(funcs))
    w("};")
    w("")
    for f in funcs:
        ps = ", ".join(p.text for p in f.params) or "void"
        w("typedef %s(CL_API_CALL *ht_cl_%s_t)(%s);" % (f.ret + " " if not f.ret.endswith("*")
                                                       else f.ret, f.name, ps))
    w("")


def gen_wrapper(f, idx, out, fname, table, static):
    w = out.append
    hook = HOOKS.get(f.name, {})
    enq = ENQUEUE.get(f.name) if f.enqueue else None
    if f.enqueue and not enq:
        enq = ("OTHER", None, "0", None)
    real = "((ht_cl_%s_t)%s[%d])" % (f.name, table, idx)
    subst = {}
    if f.errp:
        subst["errcode_ret"] = "ht_errp"
    if f.enqueue:
        subst["event"] = "ht_evp"
    call = "%s(%s)" % (real, f.call_args(subst))
    custom = hook.get("call")
    if custom and table != "ht_cl_real":
        custom = None  # extension variants of hooked functions call the platform's pointer
    w("%s%s" % ("static " if static else "HT_CL_EXPORT ", f.proto(fname)))
    w("{")
    void = f.ret == "void"
    if not void:
        w("\t%s ret;" % f.ret)
    if f.errp:
        w("\tcl_int ht_err = CL_SUCCESS;")
        w("\tcl_int *ht_errp = errcode_ret ? errcode_ret : &ht_err;")
    if f.enqueue:
        w("\tstruct ht_cl_cmd c;")
        w("\tcl_event *ht_evp;")
    seen = "c.seen_raw" if f.enqueue else hook.get("seen")
    if hook.get("seen"):
        w("\tuint64_t %s;" % hook["seen"])
    if "vals" in hook:
        vals = hook["vals"]
    else:
        vals = [a[2] for a in arg_rules(f)]
    vals = ["(uintptr_t)ret" if v == "ret" else v for v in vals]
    has_event = any(p.name == "event" and p.type == "cl_event *" for p in f.params)
    uses_ok = f.enqueue or has_event or any("ret_ok" in v for v in vals)
    w("\tcl_int code;")
    w("\tint ht_errno%s;" % (", ret_ok" if uses_ok else ""))
    w("")
    # untraced path
    if custom and hook.get("always"):
        untraced = custom.replace("ht_errp", "errcode_ret")
    else:
        untraced = "%s(%s)" % (real, f.call_args())
    w("\tif (HT_CL_OFF())")
    if void:
        w("\t\treturn (void)%s;" % untraced)
    else:
        w("\t\treturn %s;" % untraced)
    w("\tht_errno = errno;")
    if f.enqueue:
        inject = "0" if f.name in NO_INJECT else "1"
        w("\tht_evp = ht_cl_cmd_begin(&c, ht_emit_api_begin(HT_FN_BASE_OPENCL + %d), "
          "command_queue, event, %s);" % (idx, inject))
    else:
        w("\tht_emit_api_begin(HT_FN_BASE_OPENCL + %d);" % idx)
    if hook.get("pre"):
        w("\t" + hook["pre"])
    w("\terrno = ht_errno;")
    c = custom or call
    if void:
        w("\t%s;" % c)
    else:
        w("\tret = %s;" % c)
    w("\tht_errno = errno;")
    if f.errp:
        w("\tcode = *ht_errp;")
    elif f.ret == "cl_int":
        w("\tcode = ret;")
    else:
        w("\tcode = CL_SUCCESS;")
    if uses_ok:
        w("\tret_ok = code == CL_SUCCESS;")
    if has_event:
        w("\tuint64_t ht_ev = ret_ok && event ? (uintptr_t)*event : 0;")
    if f.enqueue:
        kind, cmd, nbytes, blocking = enq
        w("\tc.kind = HT_CMD_%s;" % kind)
        w("\tc.cmd = %s;" % ("CL_COMMAND_" + cmd if cmd else "0"))
        w("\tif (ret_ok)")
        w("\t\tc.bytes = (uint64_t)(%s);" % nbytes)
        if hook.get("extra"):
            w("\tif (ret_ok)")
            w("\t\t" + hook["extra"])
        w("\tht_cl_cmd_end(&c, code, event, %s);" % (blocking or "CL_FALSE"))
    if hook.get("post"):
        w("\t" + hook["post"])
    end = "ht_emit_api_end_at" if seen else "ht_emit_api_end"
    tail = ", %s" % seen if seen else ""
    if vals:
        w("\t{")
        w("\t\tconst uint64_t a[%d] = {" % len(vals))
        for v in vals:
            if v.startswith("(uint64_t)") or v.startswith("(uintptr_t)"):
                w("\t\t\t%s," % v)
            else:
                w("\t\t\t(uint64_t)(%s)," % v)
        w("\t\t};")
        w("\t\t%s(HT_FN_BASE_OPENCL + %d, code, a, %d%s);" % (end, idx, len(vals), tail))
        w("\t}")
    else:
        w("\t%s(HT_FN_BASE_OPENCL + %d, code, NULL, 0%s);" % (end, idx, tail))
    w("\terrno = ht_errno;")
    if not void:
        w("\treturn ret;")
    w("}")
    w("")


def gen_source(funcs, out):
    w = out.append
    # resolver and missing stubs for exported functions
    for i, f in enumerate(funcs):
        if not f.exported:
            continue
        call = "((ht_cl_%s_t)ht_cl_real[%d])(%s)" % (f.name, i, f.call_args())
        w("static " + f.proto("resolve_" + f.name))
        w("{")
        w("\tht_cl_resolve();")
        w("\t%s%s;" % ("" if f.ret == "void" else "return ", call))
        w("}")
        w("")
        w("static " + f.proto("missing_" + f.name))
        w("{")
        for p in f.params:
            w("\t(void)%s;" % p.name)
        if f.errp:
            w("\tif (errcode_ret)")
            w("\t\t*errcode_ret = CL_INVALID_OPERATION;")
        fv = fail_value(f)
        if fv:
            w("\treturn %s;" % fv)
        w("}")
        w("")
    w("void *ht_cl_real[HT_CL_FN_COUNT] = {")
    for i, f in enumerate(funcs):
        w("\t[%d] = %s," % (i, "(void *)resolve_" + f.name if f.exported else "NULL"))
    w("};")
    w("")
    w("void *ht_cl_ext_real[HT_CL_FN_COUNT];")
    w("")
    for i, f in enumerate(funcs):
        if f.exported:
            gen_wrapper(f, i, out, f.name, "ht_cl_real", False)
        if f.ext:
            gen_wrapper(f, i, out, "ext_" + f.name, "ht_cl_ext_real", True)
    for f in funcs:
        descs = arg_descs(f)
        if descs:
            w("static const struct ht_fn_arg_desc args_%s[] = {" % f.name)
            for d in descs:
                w("\t{\"%s\", %s, %s}," % d)
            w("};")
    w("")
    w("static const struct ht_fn_desc fns[HT_CL_FN_COUNT] = {")
    for f in funcs:
        n = len(arg_descs(f))
        w("\t{\"%s\", %s, %d, %s}," % (f.name, roles(f), n, "args_" + f.name if n else "NULL"))
    w("};")
    w("")
    w("const struct ht_fn_table ht_cl_fn_table = {")
    w("\t.domain = \"opencl\",")
    w("\t.base = HT_FN_BASE_OPENCL,")
    w("\t.count = HT_CL_FN_COUNT,")
    w("\t.fns = fns,")
    w("};")
    w("")
    w("const struct ht_cl_fn_info ht_cl_fns[HT_CL_FN_COUNT] = {")
    for f in funcs:
        w("\t{\"%s\", %s, %s, %s},"
          % (f.name, "(void *)" + f.name if f.exported else "NULL",
             "(void *)ext_" + f.name if f.ext else "NULL",
             "(void *)missing_" + f.name if f.exported else "NULL"))
    w("};")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--include", default="/usr/include/CL")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "src", "opencl"))
    a = ap.parse_args()
    funcs = parse(a.include)
    if not funcs:
        sys.exit("gen-opencl-wrappers: no CL_API_ENTRY declarations in '%s'" % a.include)
    banner = ("/* Generated by tools/gen-opencl-wrappers.py from CL/%s; do not edit. */"
              % ", CL/".join(HEADERS))
    hdr = [banner,
           "/*",
           " * Ids and pointer types of the %d OpenCL functions hetrace wraps (%d exported"
           % (len(funcs), sum(f.exported for f in funcs)),
           " * under their own names, the rest reached through clGetExtensionFunctionAddress).",
           " */",
           "#ifndef HT_OPENCL_API_GEN_H",
           "#define HT_OPENCL_API_GEN_H",
           ""]
    gen_header(funcs, hdr)
    hdr += ["#define HT_CL_REAL(f) ((ht_cl_##f##_t)ht_cl_real[HT_CL_FN_##f])", "",
            "#endif", ""]
    src = [banner,
           "/*",
           " * The OpenCL wrappers: each records api_begin/api_end with its return code and",
           " * the arguments named in `fns`, and calls the real function through ht_cl_real",
           " * (resolved lazily on first use) or ht_cl_ext_real (set by extension lookups).",
           " */",
           "#include \"opencl/interpose.h\"",
           "#include \"opencl/pcsamp.h\"",
           ""]
    gen_source(funcs, src)
    src.append("")
    os.makedirs(a.out, exist_ok=True)
    for name, lines in (("api.gen.h", hdr), ("wrappers.gen.c", src)):
        with open(os.path.join(a.out, name), "w") as fp:
            fp.write("\n".join(lines))


if __name__ == "__main__":
    main()
