/*
 * Lines for the instructions of PoCL's work-group launchers (see
 * pocl_code.h). Measured on PoCL 3.1 / LLVM 15 with a one-line hot loop
 * (tests/pcsamp's pcs_prog): every sample of the kernel lands in
 * _pocl_kernel_NAME_workgroup, whose inlined copy of the loop has the
 * same instructions as the one in _pocl_kernel_NAME (the copy with a line
 * table) but other registers (the launcher holds the arguments elsewhere)
 * and other padding, so bytes do not match while instruction kinds do.
 * Instructions are compared by capstone's instruction id (vfmadd213ss,
 * dec, jne, ...): the sampled one and its neighbours, up to 4 on each
 * side, against every place of the kernel function; the places with the
 * most neighbours alike (at least 3) are its matches. An unrolled loop
 * matches at each of its copies, which carry the same line; matches that
 * disagree on the line give none (kernel_lines.c).
 */
#ifdef HT_HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcsamp/pocl_code.h"

#define WINDOW	  4 /* instructions compared on each side of the sampled one */
#define MIN_MATCH 3 /* neighbours that must agree, both sides together */

struct ht_pocl_code {
	const uint8_t *map;
	size_t size;
};

struct ht_pocl_code *ht_pocl_code_open(const char *path)
{
	struct ht_pocl_code *c;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	c = calloc(1, sizeof *c);
	if (!c || memcmp(m, ELFMAG, SELFMAG) || ((const uint8_t *)m)[EI_CLASS] != ELFCLASS64) {
		munmap(m, (size_t)st.st_size);
		free(c);
		return NULL;
	}
	c->map = m;
	c->size = (size_t)st.st_size;
	return c;
}

void ht_pocl_code_close(struct ht_pocl_code *c)
{
	if (!c)
		return;
	munmap((void *)(uintptr_t)c->map, c->size);
	free(c);
}

static const void *at(const struct ht_pocl_code *c, uint64_t off, uint64_t n)
{
	return off <= c->size && n <= c->size - off ? c->map + off : NULL;
}

/* The file offset of file address addr (its PT_LOAD), or UINT64_MAX. */
static uint64_t offset_of(const struct ht_pocl_code *c, uint64_t addr)
{
	const Elf64_Ehdr *eh = at(c, 0, sizeof *eh);
	const Elf64_Phdr *ph = eh ? at(c, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof *ph) : NULL;

	for (int i = 0; ph && i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr &&
		    addr - ph[i].p_vaddr < ph[i].p_filesz)
			return ph[i].p_offset + (addr - ph[i].p_vaddr);
	return UINT64_MAX;
}

/* The function symbol `name`: its address and size. Return: 0, or -ENOENT. */
static int symbol(const struct ht_pocl_code *c, const char *name, uint64_t *addr, uint64_t *size)
{
	const Elf64_Ehdr *eh = at(c, 0, sizeof *eh);
	const Elf64_Shdr *sh = eh ? at(c, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh) : NULL;

	for (int i = 0; sh && i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *str;
		uint64_t n;

		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) ||
		    sh[i].sh_link >= eh->e_shnum)
			continue;
		sym = at(c, sh[i].sh_offset, sh[i].sh_size);
		str = at(c, sh[sh[i].sh_link].sh_offset, sh[sh[i].sh_link].sh_size);
		if (!sym || !str)
			continue;
		n = sh[i].sh_size / sizeof *sym;
		for (uint64_t k = 0; k < n; k++)
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_size &&
			    sym[k].st_name < sh[sh[i].sh_link].sh_size &&
			    !strncmp(str + sym[k].st_name, name,
				     sh[sh[i].sh_link].sh_size - sym[k].st_name)) {
				*addr = sym[k].st_value;
				*size = sym[k].st_size;
				return 0;
			}
	}
	return -ENOENT;
}

/* The function symbol holding file address pc: its address and size. Return: 0, or -ENOENT. */
static int symbol_at(const struct ht_pocl_code *c, uint64_t pc, uint64_t *addr, uint64_t *size)
{
	const Elf64_Ehdr *eh = at(c, 0, sizeof *eh);
	const Elf64_Shdr *sh = eh ? at(c, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh) : NULL;

	for (int i = 0; sh && i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;

		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = at(c, sh[i].sh_offset, sh[i].sh_size);
		for (uint64_t k = 0; sym && k < sh[i].sh_size / sizeof *sym; k++)
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && pc >= sym[k].st_value &&
			    pc - sym[k].st_value < sym[k].st_size) {
				*addr = sym[k].st_value;
				*size = sym[k].st_size;
				return 0;
			}
	}
	return -ENOENT;
}

#ifdef HT_HAVE_CAPSTONE
/* A function's instructions: addresses and capstone instruction ids. */
struct code {
	uint64_t *addr;
	unsigned int *id;
	size_t n;
};

static int disassemble(const struct ht_pocl_code *c, uint64_t addr, uint64_t size, struct code *out)
{
	uint64_t off = offset_of(c, addr);
	const uint8_t *bytes = off == UINT64_MAX ? NULL : at(c, off, size);
	csh h;
	cs_insn *insn;
	size_t n;

	memset(out, 0, sizeof *out);
	if (!bytes || cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ENOENT;
	n = cs_disasm(h, bytes, size, addr, 0, &insn);
	if (n) {
		out->addr = malloc(n * sizeof *out->addr);
		out->id = malloc(n * sizeof *out->id);
		if (out->addr && out->id) {
			for (size_t i = 0; i < n; i++) {
				out->addr[i] = insn[i].address;
				out->id[i] = insn[i].id;
			}
			out->n = n;
		}
		cs_free(insn, n);
	}
	cs_close(&h);
	return out->n ? 0 : -ENOENT;
}

static void code_free(struct code *k)
{
	free(k->addr);
	free(k->id);
}

/* Instructions alike before and after (kernel index j, launcher index i), up to WINDOW each way. */
static int alike(const struct code *k, size_t j, const struct code *l, size_t i)
{
	int n = 0;

	if (k->id[j] != l->id[i])
		return -1;
	for (size_t d = 1;
	     d <= WINDOW && j + d < k->n && i + d < l->n && k->id[j + d] == l->id[i + d]; d++)
		n++;
	for (size_t d = 1; d <= WINDOW && d <= j && d <= i && k->id[j - d] == l->id[i - d]; d++)
		n++;
	return n;
}

int ht_pocl_code_match(const struct ht_pocl_code *c, const char *kernel_fn, uint64_t pc,
		       uint64_t *match, int max)
{
	uint64_t kaddr, ksize, laddr, lsize;
	struct code k, l;
	size_t i;
	int best = MIN_MATCH - 1, n = 0;

	if (symbol(c, kernel_fn, &kaddr, &ksize) || symbol_at(c, pc, &laddr, &lsize) ||
	    laddr == kaddr)
		return 0;
	if (disassemble(c, kaddr, ksize, &k))
		return 0;
	if (disassemble(c, laddr, lsize, &l)) {
		code_free(&k);
		return 0;
	}
	for (i = 0; i < l.n && l.addr[i] != pc; i++)
		;
	for (size_t j = 0; i < l.n && j < k.n; j++) {
		int a = alike(&k, j, &l, i);

		if (a > best) {
			best = a;
			n = 0;
		}
		if (a == best && n < max)
			match[n++] = k.addr[j];
	}
	code_free(&k);
	code_free(&l);
	return n;
}
#else
int ht_pocl_code_match(const struct ht_pocl_code *c, const char *kernel_fn, uint64_t pc,
		       uint64_t *match, int max)
{
	(void)c, (void)kernel_fn, (void)pc, (void)match, (void)max;
	return 0; /* no disassembler: launcher instructions keep no line */
}
#endif
