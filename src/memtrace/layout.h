/*
 * The memory-access channel's layout in memory (seed 003's binned
 * producer/consumer buffer), the one description shared by the host side
 * (channel.c, C), the CUDA patch functions (cuda_patches.cu, which include
 * this header) and the OpenCL C producer (devcode_cl.c prints these
 * constants into the instrumented program as macros).
 *
 * One contiguous, device-visible block of host memory:
 *
 *   [header, 64 B]
 *   [bin headers: nbins x 128 B]   res on one cache line, ack and the
 *                                   consumer's counters on the next
 *   [launch slots: HT_MT_SLOTS x 256 B]  per launch in flight: records
 *                                   dropped (u64), then the address each
 *                                   buffer argument had (u64 x HT_MT_SLOT_ARGS)
 *   [records: nbins x cap x 32 B]  bin b holds records [b*cap, (b+1)*cap)
 *
 * A bin's res word counts the records reserved in it, with HT_MT_CLOSED set
 * once it is full (or the consumer takes it early); ack counts the records
 * written. Only the reserving lane of a group and the consumer touch res.
 * The protocol itself is described and implemented in channel.c.
 *
 * Every value is little-endian; words are accessed with 32- and 64-bit
 * atomics by both sides.
 */
#ifndef HT_MEMTRACE_LAYOUT_H
#define HT_MEMTRACE_LAYOUT_H

#define HT_MT_MAGIC	0x6d744854u /* "HTtm" */
#define HT_MT_HDR	64u
#define HT_MT_BIN_HDR	128u /* res at +0; ack at +64 */
#define HT_MT_ACK	64u
#define HT_MT_SLOTS	1024u /* launches in flight at once */
#define HT_MT_SLOT_SIZE 256u
#define HT_MT_SLOT_ARGS 31u /* buffer arguments whose address a launch records (hashcat: 24) */
#define HT_MT_REC_SIZE	32u
#define HT_MT_CLOSED	0x80000000u
#define HT_MT_MAX_BINS	1024u
#define HT_MT_MAX_CAP	(1u << 24) /* records per bin */
#define HT_MT_ITEM_MASK 0xffffu

/* Header words (u32 index). */
#define HT_MT_H_MAGIC 0
#define HT_MT_H_NBINS 1
#define HT_MT_H_CAP   2
#define HT_MT_H_BLOCK 3

/*
 * One record, as producers write it: 8 little-endian u32 words. A record is
 * a run of accesses (codec.h's struct ht_memrun): `count` accesses of one
 * site by the work-items item, item + 1, ... of one group, at addr,
 * addr + stride, ... The OpenCL producer folds a work-group's accesses into
 * runs before they enter the channel; CUDA's writes one access a record.
 *   w0, w1  the address (low, high) of the first access
 *   w2      the launch's slot
 *   w3      the work-group's (block's) linear id
 *   w4      the site (OpenCL: the rewriter's site number; CUDA: the instruction offset)
 *   w5      bits 0-15 the first work-item's linear id in its group, 16-23 the size in
 *           bytes (255 for 255 and more), 24-31 the kind (HT_MEM_LOAD/STORE/ATOMIC,
 *           HT_MT_KIND_* below)
 *   w6      count: the accesses (1 to 65535)
 *   w7      stride: the address step from one work-item to the next (i32)
 */
#define HT_MT_KIND_LOAD	  0u
#define HT_MT_KIND_STORE  1u
#define HT_MT_KIND_ATOMIC 2u

/* Byte offsets of the parts of a channel of nbins bins of cap records each. */
#define HT_MT_OFF_BIN(b)      (HT_MT_HDR + (b)*HT_MT_BIN_HDR)
#define HT_MT_OFF_SLOTS(nb)   (HT_MT_HDR + (nb)*HT_MT_BIN_HDR)
#define HT_MT_OFF_SLOT(nb, s) (HT_MT_OFF_SLOTS(nb) + (s)*HT_MT_SLOT_SIZE)
#define HT_MT_OFF_RECS(nb)    (HT_MT_OFF_SLOTS(nb) + HT_MT_SLOTS * HT_MT_SLOT_SIZE)
#define HT_MT_SIZE(nb, cap)   (HT_MT_OFF_RECS(nb) + (nb) * (cap)*HT_MT_REC_SIZE)

#endif
