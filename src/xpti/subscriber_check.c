/*
 * What a subscriber library's dynamic symbols say before the dispatcher trusts it, read from
 * the ELF file's .dynsym (only when loading subscribers, never on an event path):
 * - entry points defined with C++ linkage (`_Z13xptiTraceInitjjPKcS0_`): the collector was
 *   compiled as C++ without seeing a C declaration, and dlsym cannot find them; the warning
 *   names the mangled symbol so the fix is obvious;
 * - a collector that reads xptiQueryMetadata's std::unordered_map but was built against
 *   libc++ (symbols in std::__1): our tables have libstdc++'s layout, so it would misread them
 *   and could crash the traced program; it is refused instead.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "subscriber_check.h"

struct ht_elf_scan {
	char mangled_init[128];
	char mangled_fini[128];
	bool imports_metadata; /* xptiQueryMetadata undefined here: the collector calls it */
	bool libcxx;	       /* any symbol of libc++'s std::__1 */
};

static void ht_elf_visit(struct ht_elf_scan *s, const char *name, bool defined)
{
	if (defined && !strncmp(name, "_Z", 2)) {
		if (strstr(name, "13xptiTraceInit") && !s->mangled_init[0])
			snprintf(s->mangled_init, sizeof(s->mangled_init), "%s", name);
		if (strstr(name, "15xptiTraceFinish") && !s->mangled_fini[0])
			snprintf(s->mangled_fini, sizeof(s->mangled_fini), "%s", name);
	}
	if (!defined && !strcmp(name, "xptiQueryMetadata"))
		s->imports_metadata = true;
	if (!strncmp(name, "_Z", 2) && strstr(name, "St3__1"))
		s->libcxx = true;
}

/* Walk the .dynsym of a 64-bit ELF image in memory. Return: 0, -1 when it is not one. */
static int ht_elf_walk(const unsigned char *img, size_t size, struct ht_elf_scan *s)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size || eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr))
		return -1;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *str = &sh[sh[i].sh_link < eh->e_shnum ? sh[i].sh_link : 0];
		const Elf64_Sym *sym;
		size_t n;

		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset || str->sh_offset > size ||
		    str->sh_size > size - str->sh_offset)
			continue;
		sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
		n = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t k = 1; k < n; k++) {
			const char *name = (const char *)img + str->sh_offset + sym[k].st_name;

			if (sym[k].st_name >= str->sh_size ||
			    !memchr(name, '\0', str->sh_size - sym[k].st_name))
				continue;
			ht_elf_visit(s, name, sym[k].st_shndx != SHN_UNDEF);
		}
	}
	return 0;
}

static int ht_elf_scan_file(const char *path, struct ht_elf_scan *s)
{
	struct stat st;
	void *img;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size <= 0)
		goto out;
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED)
		goto out;
	ret = ht_elf_walk(img, (size_t)st.st_size, s);
	munmap(img, (size_t)st.st_size);
out:
	close(fd);
	return ret;
}

int ht_xpti_subscriber_check(const char *path, bool has_entry_points, char *why, size_t n)
{
	struct ht_elf_scan s;

	if (ht_elf_scan_file(path, &s)) {
		if (!has_entry_points)
			snprintf(why, n, "it does not export xptiTraceInit and xptiTraceFinish");
		return has_entry_points ? 0 : -1;
	}
	if (!has_entry_points) {
		if (s.mangled_init[0] || s.mangled_fini[0])
			snprintf(why, n,
				 "its entry points have C++ linkage (found '%s'); define them "
				 "extern \"C\" or include <xpti/xpti_data_types.h> first",
				 s.mangled_init[0] ? s.mangled_init : s.mangled_fini);
		else
			snprintf(why, n, "it does not export xptiTraceInit and xptiTraceFinish");
		return -1;
	}
	if (s.imports_metadata && s.libcxx) {
		snprintf(why, n,
			 "it was built against libc++ and reads xptiQueryMetadata's "
			 "std::unordered_map, which this dispatcher keeps in libstdc++'s layout");
		return -1;
	}
	return 0;
}
