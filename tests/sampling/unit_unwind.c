/*
 * The CFI unwinder on this test's own stack (built -O2 without frame
 * pointers): a chain of calls unwinds to exactly the return addresses each
 * level saw, through the program's and libc's unwind tables; and the DWARF
 * expression evaluator on the expressions GCC and binutils emit (the PLT's
 * CFA, a realigned frame's saved rbp).
 */
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"
#include "sampling/unwind.h"

#define MODS 64

static struct ht_unwind_module mods[MODS];
static int nmods;
static uint64_t stack_lo, stack_hi;

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct ht_unwind_module *m = &mods[nmods];
	uint64_t lo = UINT64_MAX, hi = 0, hdr = 0;

	(void)size;
	(void)arg;
	if (nmods == MODS)
		return 1;
	memset(m, 0, sizeof *m);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD) {
			lo = ph->p_vaddr < lo ? ph->p_vaddr : lo;
			hi = ph->p_vaddr + ph->p_memsz > hi ? ph->p_vaddr + ph->p_memsz : hi;
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			hdr = ph->p_vaddr;
		}
	}
	for (int i = 0; hdr && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && hdr >= ph->p_vaddr &&
		    hdr < ph->p_vaddr + ph->p_memsz) {
			m->cfi.lo = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
			m->cfi.hi = m->cfi.lo + ph->p_memsz;
		}
	}
	m->cfi.delta = (intptr_t)info->dlpi_addr;
	m->cfi.hdr = hdr;
	m->base = info->dlpi_addr;
	m->start = info->dlpi_addr + lo;
	m->end = info->dlpi_addr + hi;
	m->id = (uint32_t)nmods + 1;
	nmods++;
	return 0;
}

static const struct ht_unwind_module *find(void *ctx, uint64_t pc)
{
	(void)ctx;
	for (int i = 0; i < nmods; i++)
		if (pc >= mods[i].start && pc < mods[i].end)
			return &mods[i];
	return NULL;
}

static int rd(void *ctx, uint64_t addr, uint64_t *v)
{
	(void)ctx;
	if (addr < stack_lo || addr + 8 > stack_hi)
		return -1;
	memcpy(v, (void *)(uintptr_t)addr, 8);
	return 0;
}

static const struct ht_unwind_ops ops = {find, rd};
static struct ht_unwind_cache cache;
static uint64_t expect[4];
static uint64_t pcs[HT_UNWIND_MAX];
static const struct ht_unwind_module *pmods[HT_UNWIND_MAX];
static int npcs;
volatile int sink;

static __attribute__((noinline)) void take(struct ht_unwind_regs *r)
{
	uint64_t v[3];

	__asm__ volatile("lea 0(%%rip), %%rax\n\tmov %%rax, 0(%0)\n\tmov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 :
			 : "r"(v)
			 : "rax", "memory");
	memset(r, 0, sizeof *r);
	r->r[HT_DW_RA] = v[0];
	r->r[HT_DW_RSP] = v[1];
	r->r[HT_DW_RBP] = v[2];
	r->valid = 1u << HT_DW_RA | 1u << HT_DW_RSP | 1u << HT_DW_RBP;
}

static __attribute__((noinline)) void level3(void)
{
	struct ht_unwind_regs r;

	expect[3] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	take(&r);
	npcs = ht_unwind(&ops, NULL, &cache, &r, pcs, pmods, HT_UNWIND_MAX);
	sink++;
}

static __attribute__((noinline)) void level2(int n)
{
	char pad[200];

	expect[2] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	memset(pad, n, sizeof pad);
	level3();
	sink += pad[n % 200];
}

static __attribute__((noinline)) void level1(int n)
{
	expect[1] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	level2(n + 1);
	sink += n;
}

static void *thread_main(void *arg)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	stack_lo = (uint64_t)(uintptr_t)addr;
	stack_hi = stack_lo + size;
	for (int round = 0; round < 2; round++) { /* the second from the row cache */
		int at = -1;

		level1(5);
		CHECK(npcs >= 5);
		for (int i = 0; i + 2 < npcs; i++)
			if (pcs[i] == expect[3])
				at = i;
		CHECK(at >= 0);
		if (at >= 0) {
			CHECK_EQ(pcs[at + 1], expect[2]);
			CHECK_EQ(pcs[at + 2], expect[1]);
			CHECK(pmods[at] != NULL);
		}
		/* down to libc's thread start (clone3's frame ends the chain) */
		CHECK(npcs >= at + 4);
	}
	(void)arg;
	return NULL;
}

/* x86-64 PLT0/PLTn CFA: rsp + 8 + ((rip & 15) >= 11 ? 8 : 0), as ld writes it. */
static void test_plt_expression(void)
{
	static const uint8_t blk[] = {11,   0x77, 8,	0x80, 0,    0x3f,
				      0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
	uint64_t regs[HT_DW_NREGS] = {0}, out = 0;
	uint32_t valid = 1u << HT_DW_RSP | 1u << HT_DW_RA;

	regs[HT_DW_RSP] = 0x1000;
	regs[HT_DW_RA] = 0x4010; /* & 15 = 0 */
	CHECK_EQ(ht_cfi_eval(blk, regs, valid, 0, 0, rd, NULL, &out), 0);
	CHECK_EQ(out, 0x1008);
	regs[HT_DW_RA] = 0x401c; /* & 15 = 12 */
	CHECK_EQ(ht_cfi_eval(blk, regs, valid, 0, 0, rd, NULL, &out), 0);
	CHECK_EQ(out, 0x1010);
	/* a register GCC did not say: refused, never guessed */
	CHECK(ht_cfi_eval(blk, regs, 1u << HT_DW_RSP, 0, 0, rd, NULL, &out) < 0);
}

/* A realigned frame (main with aligned locals): CFA = *(rbp - 8), rbp saved at rbp. */
static void test_deref_expression(void)
{
	static uint64_t frame[4];
	static const uint8_t cfa[] = {3, 0x76, 0x78, 0x06}; /* breg6 -8; deref */
	uint64_t regs[HT_DW_NREGS] = {0}, out = 0;

	stack_lo = (uint64_t)(uintptr_t)frame;
	stack_hi = stack_lo + sizeof frame;
	frame[0] = 0xabcdef0;
	regs[HT_DW_RBP] = (uint64_t)(uintptr_t)&frame[1];
	CHECK_EQ(ht_cfi_eval(cfa, regs, 1u << HT_DW_RBP, 0, 0, rd, NULL, &out), 0);
	CHECK_EQ(out, 0xabcdef0);
	regs[HT_DW_RBP] = 8; /* unreadable: an error, not a fault */
	CHECK(ht_cfi_eval(cfa, regs, 1u << HT_DW_RBP, 0, 0, rd, NULL, &out) < 0);
}

int main(void)
{
	pthread_t t;

	dl_iterate_phdr(add_module, NULL);
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	test_plt_expression();
	test_deref_expression();
	CHECK_DONE();
}
