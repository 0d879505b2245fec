/*
 * MPI_Init, MPI_Init_thread and MPI_Finalize, and the switch every other
 * wrapper tests. Recording starts when MPI_Init returns: the function table
 * is registered then (a process that never calls MPI carries none), the
 * rank, its host and job, MPI_COMM_WORLD and MPI_COMM_SELF are defined, and
 * the clock offset against rank 0 is measured (over a private duplicate of
 * MPI_COMM_WORLD, so no message of ours can match one of the program's).
 * MPI_Finalize measures it again before the library shuts down: two
 * measurements give the reader an offset and a drift. Both measurements
 * are inside the MPI_Init / MPI_Finalize slices: the report counts them as
 * time in MPI, which they are.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "mpi/interpose.h"
#include "mpi/launcher.h"

int ht_mpi_on;
int ht_mpi_world_rank, ht_mpi_world_size;

static MPI_Comm clock_comm;
static int clock_comm_ok;

/* HETRACE_API unset, or a list naming "mpi". */
static int api_enabled(void)
{
	const char *list = getenv("HETRACE_API"), *p;

	if (!list)
		return 1;
	for (p = list; (p = strstr(p, "mpi")); p += 3)
		if ((p == list || p[-1] == ',') && (p[3] == ',' || p[3] == '\0'))
			return 1;
	return 0;
}

/*
 * Before the library starts: whether this process will record MPI, with
 * the function table registered so that MPI_Init's own slice has its name.
 */
static int will_record(void)
{
	if (!__atomic_load_n(&ht_active, __ATOMIC_RELAXED) || !HT_MPI_ABI_MATCHES() ||
	    !api_enabled())
		return 0;
	return ht_fn_table_register(&ht_mpi_fn_table) == 0;
}

struct define_call {
	void (*write)(struct ht_stream *proc, const void *ev);
	const void *ev;
};

static int run_define(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct define_call *c = arg;

	(void)strs;
	c->write(proc, c->ev);
	return 0;
}

void ht_mpi_define(void (*write)(struct ht_stream *proc, const void *ev), const void *ev)
{
	struct define_call c = {write, ev};

	ht_session_with_process(run_define, &c);
}

static void write_rank(struct ht_stream *proc, const void *ev)
{
	HT_WRITE(proc, mpi_rank, (const struct ht_ev_mpi_rank *)ev);
}

/* The rank's definition: rank, size, host, job, library (its first line). */
static void define_rank(void)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
	struct ht_mpi_launcher l;
	struct utsname un;
	int len = 0;
	struct ht_ev_mpi_rank e = {.rank = ht_mpi_world_rank, .size = ht_mpi_world_size};

	if (HT_PMPI(Get_library_version)(lib, &len) != MPI_SUCCESS)
		lib[0] = '\0';
	lib[strcspn(lib, "\n,")] = '\0';
	e.library = lib;
	e.host = uname(&un) == 0 ? un.nodename : "unknown";
	e.job = ht_mpi_launcher_get(&l) == 1 ? l.job : "";
	ht_mpi_define(write_rank, &e);
}

/* MPI started (r: what its init returned): definitions, clock, recording on. */
static void started(int r, uint16_t fn)
{
	if (r == MPI_SUCCESS) {
		HT_PMPI(Comm_rank)(MPI_COMM_WORLD, &ht_mpi_world_rank);
		HT_PMPI(Comm_size)(MPI_COMM_WORLD, &ht_mpi_world_size);
		define_rank();
		ht_mpi_comm_define_predefined();
		clock_comm_ok = HT_PMPI(Comm_dup)(MPI_COMM_WORLD, &clock_comm) == MPI_SUCCESS;
		if (clock_comm_ok)
			ht_mpi_clock_measure(clock_comm, HT_MPI_CLOCK_INIT);
		__atomic_store_n(&ht_mpi_on, 1, __ATOMIC_RELEASE);
	}
	ht_emit_api_end(fn, r, NULL, 0);
}

HT_MPI_EXPORT int MPI_Init(int *argc, char ***argv)
{
	int rec = will_record(), r;

	if (rec)
		ht_emit_api_begin(HT_MPI_ID(Init));
	r = HT_PMPI(Init)(argc, argv);
	if (rec)
		started(r, HT_MPI_ID(Init));
	return r;
}

HT_MPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rec = will_record(), r;

	if (rec)
		ht_emit_api_begin(HT_MPI_ID(Init_thread));
	r = HT_PMPI(Init_thread)(argc, argv, required, provided);
	if (rec)
		started(r, HT_MPI_ID(Init_thread));
	return r;
}

HT_MPI_EXPORT int MPI_Finalize(void)
{
	int r;

	if (!__atomic_load_n(&ht_mpi_on, __ATOMIC_RELAXED))
		return HT_PMPI(Finalize)();
	/* even when recording was paused: the other ranks take part in it */
	ht_emit_api_begin(HT_MPI_ID(Finalize));
	if (clock_comm_ok) {
		ht_mpi_clock_measure(clock_comm, HT_MPI_CLOCK_FINALIZE);
		HT_PMPI(Comm_free)(&clock_comm);
		clock_comm_ok = 0;
	}
	r = HT_PMPI(Finalize)();
	__atomic_store_n(&ht_mpi_on, 0, __ATOMIC_RELAXED);
	ht_emit_api_end(HT_MPI_ID(Finalize), r, NULL, 0);
	return r;
}
