/*
 * The OpenCL C producer of the memory-access channel: the text the rewriter
 * (rewrite.c) puts in front of an instrumented program. It follows
 * channel.c's protocol step by step, with the constants of layout.h and of
 * this channel printed in as macros.
 *
 * The group of lanes. PoCL's CPU devices have no sub-groups
 * (CL_DEVICE_MAX_NUM_SUB_GROUPS is 0): a work-group's work-items run one
 * after another on one thread between barriers (work-item loops), so the
 * work-group is the group whose lanes share one reservation.
 *
 * Folding. Each access first goes to its site's open run (one per way,
 * sites hashed over HT_MT_WAYS, in local memory): an access by the next
 * work-item, one stride on, with the same size and kind, extends it;
 * anything else stages the run as a record (layout.h: a record is a run)
 * and opens a new one. A unit-stride access of a work-group of 256 is one
 * 32-byte record instead of 256: what crosses from the kernel's core to the
 * consumer's was the bound (bench/opencl.sh). Every run of a site is staged
 * before its next run opens, so a work-item's accesses of one site keep
 * their order, as the collector's run encoder (runs.h) also guarantees.
 *
 * Staging. The lane that fills the staging block reserves room for all of
 * it at once (one CAS for up to HT_MT_STAGE records), copies it into the
 * bin and acknowledges it; the last lane to leave the kernel stages the
 * open runs and does the same with what is left. The counters are plain
 * increments: one thread runs the work-group's items in turn, and the
 * dependence through them keeps the work-item loop from being vectorised.
 * (Measured on this VM, PoCL basic device, saxpy over 1M floats: a local
 * atomic_inc per access and per exit cost 37 ns an access, plain
 * increments 12; a locked instruction costs ~20 ns here.) A lane therefore
 * only waits for room (block mode) before its group's reservation is made,
 * never while one is held: the invariant of channel.c. (On a device whose
 * lanes of a work-group run concurrently the staging block would need
 * their agreement: CUDA's producer, cuda_patches.cu, reserves per warp with
 * ballot/shuffle instead, one access a record.)
 *
 * Measured on PoCL 3.1 (bench/opencl.sh, memtrace line, 256K floats):
 * every access recorded costs 2.3 ns, 53x the vectorised untraced kernel;
 * the instrumented kernel recording nothing is 12x.
 */
#include <stdio.h>

#include "memtrace/devcode_cl.h"
#include "memtrace/layout.h"

static const char code[] =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    /* an access's info word: size (255 and more: 255) and kind, beside the work-item */
    "#define HT_MT_INFO(size, kind) ((uint)((size) > 255 ? 255 : (size)) << 16 | (uint)(kind) "
    "<< 24)\n"
    "#define HT_MT_WAYS 16u\n"
    /* a run being folded: count accesses of a site by items item.. at addr, addr + stride.. */
    "struct ht_mt_open {\n"
    "\tulong addr, next;\n"
    "\tuint site, info, item, count;\n"
    "\tint stride;\n"
    "};\n"
    "struct ht_mt_wg {\n"
    "\t__global volatile uint *chan;\n"
    "\tuint launch, group, n, done, on, items, used, acc;\n"
    "\tstruct ht_mt_open way[HT_MT_WAYS];\n"
    "\tuint rec[HT_MT_STAGE * 8];\n"
    "};\n"
    "uint ht_mt_lid(void)\n"
    "{\n"
    "\treturn (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) +\n"
    "\t       get_local_size(1) * get_local_id(2)));\n"
    "}\n"
    /* steps 1-3 for the n staged records (or their accesses counted as dropped) */
    "void ht_mt_flush(__local struct ht_mt_wg *w, uint n)\n"
    "{\n"
    "\t__global volatile uint *c = w->chan;\n"
    "\tuint b = w->group & (HT_MT_NBINS - 1), acc = w->acc;\n"
    "\tw->acc = 0;\n"
    "\tfor (;;) {\n"
    "\t\tfor (uint t = 0; t < HT_MT_NBINS; t++, b = (b + 1) & (HT_MT_NBINS - 1)) {\n"
    "\t\t\t__global volatile uint *res = c + (HT_MT_HDR + b * HT_MT_BIN_HDR) / 4;\n"
    "\t\t\tuint r = *res;\n"
    "\t\t\twhile (!(r & HT_MT_CLOSED)) {\n"
    "\t\t\t\tif (r + n > HT_MT_CAP) {\n"
    "\t\t\t\t\tatomic_cmpxchg(res, r, r | HT_MT_CLOSED);\n"
    "\t\t\t\t\tbreak;\n"
    "\t\t\t\t}\n"
    "\t\t\t\tuint o = atomic_cmpxchg(res, r, r + n);\n"
    "\t\t\t\tif (o == r) {\n"
    "\t\t\t\t\t__global uint *d = (__global uint *)c + (HT_MT_RECS +\n"
    "\t\t\t\t\t\t((ulong)b * HT_MT_CAP + r) * HT_MT_REC_SIZE) / 4;\n"
    "\t\t\t\t\tfor (uint i = 0; i < n * 8; i++)\n"
    "\t\t\t\t\t\td[i] = w->rec[i];\n"
    "\t\t\t\t\tmem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "\t\t\t\t\tatomic_add(res + HT_MT_ACK / 4, n);\n"
    "\t\t\t\t\treturn;\n"
    "\t\t\t\t}\n"
    "\t\t\t\tr = o;\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t\tif (!HT_MT_BLOCK) {\n"
    "\t\t\tatom_add((volatile __global ulong *)(c + (HT_MT_SLOTS_OFF + w->launch *\n"
    "\t\t\t\t HT_MT_SLOT_SIZE) / 4), (ulong)acc);\n"
    "\t\t\treturn;\n"
    "\t\t}\n"
    "\t}\n"
    "}\n"
    /* every work-group: its lane 0 sets the staging block up and notes the buffers */
    "void ht_mt_begin(__local struct ht_mt_wg *w, __global volatile uint *chan, uint launch)\n"
    "{\n"
    "\tif (ht_mt_lid() == 0) {\n"
    "\t\tuint g = (uint)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) +\n"
    "\t\t\t get_num_groups(1) * get_group_id(2)));\n"
    "\t\tw->chan = chan;\n"
    "\t\tw->launch = launch;\n"
    "\t\tw->group = g;\n"
    "\t\tw->n = 0;\n"
    "\t\tw->done = 0;\n"
    "\t\tw->used = 0;\n"
    "\t\tw->acc = 0;\n"
    "\t\tw->on = g % HT_MT_SAMPLE == 0;\n"
    "\t\tw->items = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));\n"
    "\t}\n"
    "\tbarrier(CLK_LOCAL_MEM_FENCE);\n"
    "}\n"
    "void ht_mt_arg(__local struct ht_mt_wg *w, uint i, const volatile __global void *p)\n"
    "{\n"
    "\tif (ht_mt_lid() == 0 && i < HT_MT_SLOT_ARGS)\n"
    "\t\t((__global volatile ulong *)(w->chan + (HT_MT_SLOTS_OFF + w->launch *\n"
    "\t\t\tHT_MT_SLOT_SIZE) / 4))[1 + i] = (ulong)p;\n"
    "}\n"
    /* a folded run into the staging block; the lane that fills the block reserves for it */
    "void ht_mt_stage(__local struct ht_mt_wg *w, __local struct ht_mt_open *o)\n"
    "{\n"
    "\tuint i = w->n++;\n"
    "\t__local uint *r = w->rec + i * 8;\n"
    "\tr[0] = (uint)o->addr;\n"
    "\tr[1] = (uint)(o->addr >> 32);\n"
    "\tr[2] = w->launch;\n"
    "\tr[3] = w->group;\n"
    "\tr[4] = o->site;\n"
    "\tr[5] = o->item | o->info;\n"
    "\tr[6] = o->count;\n"
    "\tr[7] = (uint)o->stride;\n"
    "\tw->acc += o->count;\n"
    "\tif (i == HT_MT_STAGE - 1) {\n"
    "\t\tht_mt_flush(w, HT_MT_STAGE);\n"
    "\t\tw->n = 0;\n"
    "\t}\n"
    "}\n"
    /* one access: it extends its site's run (the next work-item, one stride on) or starts one */
    "void ht_mt_acc(__local struct ht_mt_wg *w, const volatile __global void *p, uint site,\n"
    "\t\tuint info)\n"
    "{\n"
    "\tif (!w->on)\n"
    "\t\treturn;\n"
    "\tulong a = (ulong)p;\n"
    "\tuint item = ht_mt_lid(), k = site & (HT_MT_WAYS - 1);\n"
    "\t__local struct ht_mt_open *o = &w->way[k];\n"
    "\tif (w->used >> k & 1) {\n"
    "\t\tif (o->site == site && o->info == info && item == o->item + o->count &&\n"
    "\t\t    o->count < 65535u) {\n"
    "\t\t\tlong d = (long)(a - o->addr);\n"
    "\t\t\tif (o->count > 1 && a == o->next) {\n"
    "\t\t\t\to->next += (ulong)(long)o->stride;\n"
    "\t\t\t\to->count++;\n"
    "\t\t\t\treturn;\n"
    "\t\t\t}\n"
    "\t\t\tif (o->count == 1 && d == (long)(int)d) {\n"
    "\t\t\t\to->stride = (int)d;\n"
    "\t\t\t\to->next = a + (ulong)d;\n"
    "\t\t\t\to->count = 2;\n"
    "\t\t\t\treturn;\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t\tht_mt_stage(w, o);\n"
    "\t}\n"
    "\to->addr = a;\n"
    "\to->site = site;\n"
    "\to->info = info;\n"
    "\to->item = item;\n"
    "\to->count = 1;\n"
    "\to->stride = 0;\n"
    "\tw->used |= 1u << k;\n"
    "}\n"
    /* the last work-item out: the open runs staged, what is staged flushed */
    "void ht_mt_last(__local struct ht_mt_wg *w)\n"
    "{\n"
    "\tfor (uint k = 0; k < HT_MT_WAYS; k++)\n"
    "\t\tif (w->used >> k & 1)\n"
    "\t\t\tht_mt_stage(w, &w->way[k]);\n"
    "\tw->used = 0;\n"
    "\tif (w->n) {\n"
    "\t\tht_mt_flush(w, w->n);\n"
    "\t\tw->n = 0;\n"
    "\t}\n"
    "}\n"
    /* every work-item at every way out of the kernel */
    "void ht_mt_end(__local struct ht_mt_wg *w)\n"
    "{\n"
    "\tif (w->done++ == w->items - 1)\n"
    "\t\tht_mt_last(w);\n"
    "}\n"
    /* vloadn/vstoren(offset, p): n elements at p + offset * n; returns offset */
    "size_t ht_mt_vo(__local struct ht_mt_wg *w, size_t off, const volatile __global void *p,\n"
    "\t\tuint elem, uint n, uint site, uint kind)\n"
    "{\n"
    "\tht_mt_acc(w, (const volatile __global char *)p + off * n * elem, site,\n"
    "\t\t  HT_MT_INFO(n * elem, kind));\n"
    "\treturn off;\n"
    "}\n";

int ht_mt_cl_prelude(char *buf, size_t cap, const struct ht_mt_cl_params *p)
{
	int n = snprintf(buf, cap,
			 "#define HT_MT_NBINS %uu\n#define HT_MT_CAP %uu\n#define HT_MT_BLOCK %d\n"
			 "#define HT_MT_SAMPLE %uu\n#define HT_MT_STAGE %uu\n"
			 "#define HT_MT_HDR %uu\n#define HT_MT_BIN_HDR %uu\n#define HT_MT_ACK %uu\n"
			 "#define HT_MT_CLOSED 0x%xu\n#define HT_MT_REC_SIZE %uu\n"
			 "#define HT_MT_SLOTS_OFF %uu\n#define HT_MT_SLOT_SIZE %uu\n"
			 "#define HT_MT_SLOT_ARGS %uu\n#define HT_MT_RECS %uu\n%s",
			 p->nbins, p->cap, p->block ? 1 : 0, p->sample ? p->sample : 1, p->stage,
			 HT_MT_HDR, HT_MT_BIN_HDR, HT_MT_ACK, HT_MT_CLOSED, HT_MT_REC_SIZE,
			 (unsigned int)HT_MT_OFF_SLOTS(p->nbins), HT_MT_SLOT_SIZE, HT_MT_SLOT_ARGS,
			 (unsigned int)HT_MT_OFF_RECS(p->nbins), code);

	return n < 0 || (size_t)n >= cap ? -1 : n;
}
