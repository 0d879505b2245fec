/*
 * Module files for offline unwinding (see spool.h): the file mapped
 * read-only, its build-id note checked against the one the traced process
 * recorded (a file rebuilt since gives no rows rather than wrong ones), and
 * its unwind tables found by the PT_GNU_EH_FRAME program header (the
 * .eh_frame section where there is none). Addresses are the file's own:
 * the CFI source's delta maps them into the mapping through the segment
 * that holds the tables.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sampling/spool.h"

/* The hex build-id of the note segments of an image mapped at b (size n). */
static void build_id(const uint8_t *b, size_t n, const Elf64_Ehdr *eh, char *out)
{
	out[0] = '\0';
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph =
		    (const void *)(b + eh->e_phoff + (size_t)i * eh->e_phentsize);
		size_t off, end;

		if (ph->p_type != PT_NOTE || ph->p_offset > n || ph->p_filesz > n - ph->p_offset)
			continue;
		off = ph->p_offset;
		end = off + ph->p_filesz;
		while (off + 12 <= end) {
			uint32_t namesz, descsz, type;
			size_t desc, next;

			memcpy(&namesz, b + off, 4);
			memcpy(&descsz, b + off + 4, 4);
			memcpy(&type, b + off + 8, 4);
			desc = off + 12 + ((namesz + 3) & ~3u);
			next = desc + ((descsz + 3) & ~3u);
			if (next > end || next <= off)
				break;
			if (type == NT_GNU_BUILD_ID && namesz == 4 &&
			    !memcmp(b + off + 12, "GNU", 4) && descsz && descsz <= 20) {
				for (uint32_t k = 0; k < descsz; k++)
					snprintf(out + 2 * k, 3, "%02x", b[desc + k]);
				return;
			}
			off = next;
		}
	}
}

/* The .eh_frame section, for an object without PT_GNU_EH_FRAME. Return: 0 or -ENOENT. */
static int eh_frame_section(const uint8_t *b, size_t n, const Elf64_Ehdr *eh,
			    struct ht_cfi_source *cfi)
{
	const Elf64_Shdr *sh, *strs;

	if (!eh->e_shoff || eh->e_shentsize != sizeof *sh || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff > n || (uint64_t)eh->e_shnum * sizeof *sh > n - eh->e_shoff)
		return -ENOENT;
	sh = (const void *)(b + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > n || strs->sh_size > n - strs->sh_offset)
		return -ENOENT;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= strs->sh_size || sh[i].sh_type != SHT_PROGBITS ||
		    sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset)
			continue;
		if (strncmp((const char *)b + strs->sh_offset + sh[i].sh_name, ".eh_frame",
			    strs->sh_size - sh[i].sh_name) != 0)
			continue;
		cfi->lo = b + sh[i].sh_offset;
		cfi->hi = cfi->lo + sh[i].sh_size;
		cfi->delta = (intptr_t)(b + sh[i].sh_offset) - (intptr_t)sh[i].sh_addr;
		cfi->eh_frame = sh[i].sh_addr;
		cfi->eh_frame_end = sh[i].sh_addr + sh[i].sh_size;
		return 0;
	}
	return -ENOENT;
}

/* Finds the unwind tables of an image mapped at b (n bytes). Return: 0, -EINVAL, -ENOENT. */
static int tables(const uint8_t *b, size_t n, const char *want, struct ht_cfi_source *cfi)
{
	const Elf64_Ehdr *eh = (const void *)b;
	const Elf64_Phdr *hdr = NULL;
	char have[41];

	if (n < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > n || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > n - eh->e_phoff)
		return -EINVAL;
	build_id(b, n, eh, have);
	if (want && want[0] && strcmp(want, have))
		return -ESTALE;
	memset(cfi, 0, sizeof *cfi);
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(b + eh->e_phoff + (size_t)i * sizeof *ph);

		if (ph->p_type == PT_GNU_EH_FRAME)
			hdr = ph;
	}
	for (unsigned int i = 0; hdr && i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(b + eh->e_phoff + (size_t)i * sizeof *ph);

		if (ph->p_type != PT_LOAD || hdr->p_vaddr < ph->p_vaddr ||
		    hdr->p_vaddr >= ph->p_vaddr + ph->p_filesz || ph->p_offset > n ||
		    ph->p_filesz > n - ph->p_offset)
			continue;
		cfi->lo = b + ph->p_offset;
		cfi->hi = cfi->lo + ph->p_filesz;
		cfi->delta = (intptr_t)(b + ph->p_offset) - (intptr_t)ph->p_vaddr;
		cfi->hdr = hdr->p_vaddr;
		return 0;
	}
	return eh_frame_section(b, n, eh, cfi);
}

int ht_elf_cfi_open(const char *path, const char *want, struct ht_cfi_source *cfi,
		    struct ht_elf_map *m)
{
	struct stat st;
	int fd, r;

	memset(m, 0, sizeof *m);
	if (!strcmp(path, "[vdso]")) {
		const uint8_t *v = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);

		const Elf64_Ehdr *eh = (const void *)v;
		size_t n = 4096; /* the ELF header's page, mapped whatever the image's size */

		if (!v || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
		    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > n)
			return -ENOENT;
		/* its size: the end of its loaded bytes and of its section headers */
		for (unsigned int i = 0; i < eh->e_phnum; i++) {
			const Elf64_Phdr *ph = (const void *)(v + eh->e_phoff + i * sizeof *ph);

			if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > n)
				n = ph->p_offset + ph->p_filesz;
		}
		if (eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize > n)
			n = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
		m->map = (void *)v;
		m->size = n;
		return tables(v, n, want, cfi);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -EINVAL;
	}
	m->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return -errno;
	}
	m->size = (size_t)st.st_size;
	m->owned = 1;
	r = tables(m->map, m->size, want, cfi);
	if (r)
		ht_elf_close(m);
	return r;
}

void ht_elf_close(struct ht_elf_map *m)
{
	if (m->map && m->owned)
		munmap(m->map, m->size);
	memset(m, 0, sizeof *m);
}
