/*
 * Where the wrappers' calls go (interpose.h, HT_PMPI): the program's libmpi,
 * found once. When the weak references resolved (the program links libmpi,
 * or loaded it globally before us), they are the answer. Otherwise libmpi
 * came in privately (dlopen RTLD_LOCAL, as Python's mpi4py loads it):
 * the loaded objects are searched for the one whose scope defines
 * PMPI_Init, and every function and handle is looked up there.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mpi/interpose.h"

struct ht_pmpi ht_pmpi;
int ht_pmpi_bound;

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dl_iterate_phdr callback: a handle on the first object whose scope has PMPI_Init. */
static int find_scope(struct dl_phdr_info *info, size_t size, void *arg)
{
	void **out = arg, *h;

	(void)size;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0; /* the program itself: its symbols are global, the weak ones saw them */
	h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	if (dlsym(h, "PMPI_Init")) {
		*out = h;
		return 1;
	}
	dlclose(h);
	return 0;
}

static void bind_once(void)
{
	void *h = NULL;

	if (&PMPI_Init) {
#define HT_BIND_WEAK(n, ...)   ht_pmpi.n = &PMPI_##n;
#define HT_BIND_WEAK_DATA(sym) ht_pmpi.sym = &sym;
		HT_MPI_FUNCTIONS(HT_BIND_WEAK)
		HT_MPI_HELPERS(HT_BIND_WEAK)
		HT_MPI_HANDLES(HT_BIND_WEAK_DATA)
	} else if (dl_iterate_phdr(find_scope, &h) && h) {
#define HT_BIND_DL(n, ...)   ht_pmpi.n = (__typeof__(ht_pmpi.n))dlsym(h, "PMPI_" #n);
#define HT_BIND_DL_DATA(sym) ht_pmpi.sym = dlsym(h, #sym);
		HT_MPI_FUNCTIONS(HT_BIND_DL)
		HT_MPI_HELPERS(HT_BIND_DL)
		HT_MPI_HANDLES(HT_BIND_DL_DATA)
		/* the object stays loaded: the program holds it */
		dlclose(h);
	} else {
		fprintf(stderr, "hetrace: an MPI function was called, but no loaded library "
				"defines PMPI_Init (libhetrace-mpi.so cannot forward it)\n");
	}
	__atomic_store_n(&ht_pmpi_bound, 1, __ATOMIC_RELEASE);
}

void ht_pmpi_bind(void)
{
	pthread_once(&once, bind_once);
}
