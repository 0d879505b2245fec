/*
 * Unit tests of the critical path (analysis/critpath.c), fed timeline
 * records directly: nested calls as one node, a wait on any queue, a path
 * that crosses threads, the process that ends last, waits by correlation
 * id and by blocking flag, records it must ignore, and clock-sync errors
 * that would make the walk go forward in time. Times are plain ns.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/critpath.h"
#include "../check.h"

static struct ht_timeline tl; /* no devices: no clock maps, no slack */
static struct ht_critpath cp;

static struct ht_fn_arg_info corr_arg[] = {{"corr", HT_FA_UINT, HT_AR_CORR}};
static struct ht_fn_arg_info queue_arg[] = {{"queue", HT_FA_HEX, HT_AR_QUEUE}};
static struct ht_fn_arg_info read_args[] = {{"queue", HT_FA_HEX, HT_AR_QUEUE},
					    {"blocking", HT_FA_UINT, HT_AR_BLOCKING},
					    {"corr", HT_FA_UINT, HT_AR_CORR}};
static struct ht_fn_info fns[] = {
    {"launchRuntime", HT_ROLE_LAUNCH | HT_ROLE_ENQUEUE, 0, NULL},
    {"launchDriver", HT_ROLE_LAUNCH | HT_ROLE_ENQUEUE, 1, corr_arg},
    {"syncAll", HT_ROLE_SYNC, 0, NULL},
    {"finish", HT_ROLE_SYNC, 1, queue_arg},
    {"read", HT_ROLE_TRANSFER | HT_ROLE_ENQUEUE | HT_ROLE_BLOCKING, 3, read_args},
    {"other", 0, 0, NULL},
};
enum { F_RT, F_DRV, F_SYNC, F_FINISH, F_READ, F_OTHER };

static void take(struct ht_tl_record *r)
{
	CHECK_EQ(ht_critpath_take(&cp, &tl, r), 0);
}

static struct ht_tl_record rec(enum ht_tl_kind kind, unsigned int proc, unsigned int stream,
			       int32_t tid, uint64_t ts)
{
	struct ht_tl_record r;

	memset(&r, 0, sizeof r);
	r.kind = kind;
	r.ts = ts;
	r.proc = proc;
	r.pid = 1000 + (int32_t)proc;
	r.stream = stream;
	r.tid = tid;
	r.source = HT_PK_THREAD;
	return r;
}

static void thread_start(unsigned int proc, unsigned int stream, int32_t tid, uint64_t t)
{
	struct ht_tl_record r = rec(HT_TL_THREAD, proc, stream, tid, t);

	r.name = "";
	take(&r);
}

static void thread_end(unsigned int proc, unsigned int stream, uint64_t t)
{
	struct ht_tl_record r = rec(HT_TL_STREAM_END, proc, stream, 0, t);

	take(&r);
}

static void call_begin(unsigned int proc, unsigned int stream, uint64_t t, int f)
{
	struct ht_tl_record r = rec(HT_TL_SLICE_BEGIN, proc, stream, 0, t);

	r.api = 1;
	r.fn = &fns[f];
	r.fn_id = (uint16_t)f;
	r.name = fns[f].name;
	take(&r);
}

/* The end of a call begun at t0; args[0..n) as its api_end carries them (corr by role). */
static void call_end(unsigned int proc, unsigned int stream, uint64_t t0, uint64_t t1, int f,
		     const uint64_t *args, unsigned int n)
{
	struct ht_tl_record r = rec(HT_TL_SLICE_END, proc, stream, 0, t1);

	r.api = 1;
	r.paired = 1;
	r.begin = t0;
	r.fn = &fns[f];
	r.fn_id = (uint16_t)f;
	r.name = fns[f].name;
	for (unsigned int i = 0; i < n; i++) {
		r.args[i].v.u = args[i];
		if (fns[f].args[i].role == HT_AR_CORR)
			r.corr = args[i];
	}
	r.nargs = n;
	take(&r);
}

static void call(unsigned int proc, unsigned int stream, uint64_t t0, uint64_t t1, int f,
		 const uint64_t *args, unsigned int n)
{
	call_begin(proc, stream, t0, f);
	call_end(proc, stream, t0, t1, f, args, n);
}

static void region(unsigned int proc, unsigned int stream, int begin, uint64_t t, const char *name,
		   uint32_t id)
{
	struct ht_tl_record r =
	    rec(begin ? HT_TL_SLICE_BEGIN : HT_TL_SLICE_END, proc, stream, 0, t);

	r.name = name;
	r.name_id = id;
	r.paired = !begin;
	take(&r);
}

static void command(unsigned int proc, uint64_t queue, uint64_t corr, const char *name,
		    uint64_t start, uint64_t end, int32_t status)
{
	struct ht_tl_record r = rec(HT_TL_DEVICE, proc, 99, 0, start);

	r.source = HT_PK_DEVICE;
	r.end = end;
	r.queue = queue;
	r.corr = corr;
	r.cmd_kind = name ? HT_CMD_KERNEL : HT_CMD_COPY_D2H;
	r.name = name ? name : "copy_d2h";
	for (const char *c = name; c && *c; c++) /* the string id: one per name */
		r.name_id = r.name_id * 31 + (uint8_t)*c;
	r.category = name ? "kernel" : "copy_d2h";
	r.status = status;
	r.timed = status == 0;
	take(&r);
}

/* Checks the path's steps: n of them, kinds and names in order, and that they add up. */
static void expect(const char *const *want, size_t n, uint64_t start, uint64_t end)
{
	uint64_t sum = 0;

	CHECK_EQ(ht_critpath_finish(&cp), 0);
	CHECK_EQ(cp.nseg, n);
	for (size_t i = 0; i < cp.nseg && i < n; i++) {
		char got[128];

		snprintf(got, sizeof got, "%s %s %llu-%llu", ht_cp_kind_names[cp.seg[i].kind],
			 cp.names[cp.seg[i].name], (unsigned long long)cp.seg[i].start,
			 (unsigned long long)cp.seg[i].end);
		CHECK_STR(got, want[i]);
	}
	for (size_t i = 0; i < cp.nrows; i++)
		sum += cp.rows[i].ns;
	CHECK_EQ(cp.start, start);
	CHECK_EQ(cp.end, end);
	CHECK_EQ(cp.length, end - start);
	CHECK_EQ(sum, cp.length);
}

static uint64_t on_path(enum ht_cp_kind kind, const char *name)
{
	for (size_t i = 0; i < cp.nrows; i++)
		if (cp.rows[i].kind == kind && !strcmp(cp.names[cp.rows[i].name], name))
			return cp.rows[i].ns;
	return UINT64_MAX;
}

/* A runtime call whose nested driver call carries the corr; a wait on any queue. */
static void test_nested_and_wait_any(void)
{
	static const char *const want[] = {"cpu " HT_CP_NO_FRAME " 50-100",
					   "api launchRuntime 100-500",
					   "launch k 500-600",
					   "kernel k 600-900",
					   "api syncAll 900-1000",
					   "cpu outer 1000-1100"};
	const uint64_t corr = 7;

	thread_start(0, 1, 11, 50);
	call_begin(0, 1, 100, F_RT);
	call(0, 1, 150, 450, F_DRV, &corr, 1);
	call_end(0, 1, 100, 500, F_RT, NULL, 0);
	call(0, 1, 550, 1000, F_SYNC, NULL, 0);
	region(0, 1, 1, 1000, "outer", 3);
	region(0, 1, 0, 1100, "outer", 3);
	thread_end(0, 1, 1100);
	command(0, 0xa, 7, "k", 600, 900, 0);
	expect(want, sizeof want / sizeof *want, 50, 1100);
	CHECK_EQ(cp.calls, 2); /* the nested call is part of its outer call */
	CHECK_EQ(cp.commands, 1);
	CHECK_EQ(cp.unlinked, 0);
	/* totals count every call, nested ones too, as the report's table */
	for (size_t i = 0; i < cp.nrows; i++)
		if (cp.rows[i].kind == HT_CP_API &&
		    !strcmp(cp.names[cp.rows[i].name], "launchDriver"))
			CHECK_EQ(cp.rows[i].total_ns, 300);
	ht_critpath_release(&cp);
}

/*
 * Thread 2 waits (finish on queue 0xb) for a kernel thread 1 launched: the
 * path crosses threads. A kernel on another queue ends later but is not
 * waited for; a failed command is no node; an unpaired end is ignored.
 */
static void test_cross_thread(void)
{
	static const char *const want[] = {"cpu " HT_CP_NO_FRAME " 10-100",
					   "api launchDriver 100-200",
					   "launch kb 200-300",
					   "kernel kb 300-2000",
					   "api finish 2000-2100",
					   "cpu " HT_CP_NO_FRAME " 2100-2200"};
	const uint64_t c1 = 1, c2 = 2, c3 = 3, qb = 0xb;
	struct ht_tl_record r;

	thread_start(0, 1, 11, 10);
	call(0, 1, 100, 200, F_DRV, &c1, 1);
	call(0, 1, 250, 260, F_DRV, &c2, 1);
	call(0, 1, 270, 280, F_DRV, &c3, 1);
	thread_end(0, 1, 400);
	thread_start(0, 2, 12, 20);
	r = rec(HT_TL_SLICE_END, 0, 2, 0, 30); /* an end whose begin was lost */
	r.api = 1;
	r.fn = &fns[F_SYNC];
	r.fn_id = F_SYNC;
	r.name = "syncAll";
	take(&r);
	call(0, 2, 500, 2100, F_FINISH, &qb, 1);
	thread_end(0, 2, 2200);
	command(0, 0xb, 1, "kb", 300, 2000, 0);
	command(0, 0xa, 2, "ka", 400, 2150, 0); /* another queue, still running */
	command(0, 0xb, 3, "kfail", 2050, 2060, -5);
	expect(want, sizeof want / sizeof *want, 10, 2200);
	CHECK_EQ(cp.calls, 4);
	CHECK_EQ(cp.commands, 2);
	CHECK_EQ(on_path(HT_CP_KERNEL, "ka"), 0);
	ht_critpath_release(&cp);
}

/*
 * The process that ends last has the path. A blocking read waits for its own
 * command (corr), whose start waited for the queue's previous command, that
 * of a non-blocking read nobody waited for.
 */
static void test_processes_and_corr_wait(void)
{
	static const char *const want[] = {"cpu " HT_CP_NO_FRAME " 0-100",
					   "api read 100-150",
					   "launch copy_d2h 150-300",
					   "transfer copy_d2h 300-400",
					   "queue copy_d2h 400-500",
					   "transfer copy_d2h 500-800",
					   "api read 800-900",
					   "cpu " HT_CP_NO_FRAME " 900-3000"};
	const uint64_t blocking[3] = {0xc, 1, 5}, nonblocking[3] = {0xc, 0, 6};

	thread_start(1, 5, 51, 0); /* process 1 ends first: not on the path */
	call(1, 5, 10, 2500, F_SYNC, NULL, 0);
	thread_end(1, 5, 2900);
	thread_start(0, 1, 11, 0);
	call(0, 1, 100, 150, F_READ, nonblocking, 3);
	call(0, 1, 150, 900, F_READ, blocking, 3);
	thread_end(0, 1, 3000);
	command(0, 0xc, 6, NULL, 300, 400, 0);
	command(0, 0xc, 5, NULL, 500, 800, 0);
	expect(want, sizeof want / sizeof *want, 0, 3000);
	CHECK_EQ(cp.pid, 1000);
	CHECK_EQ(on_path(HT_CP_TRANSFER, "copy_d2h"), 400);
	ht_critpath_release(&cp);
}

/*
 * A region that ends while a call is open closes the call; unknown kinds are
 * ignored. The CPU time before the call is one step (named by its largest
 * piece), its time split by innermost region in the table.
 */
static void test_region_closes_call(void)
{
	static const char *const want[] = {"cpu " HT_CP_NO_FRAME " 0-20", "api other 20-50",
					   "cpu " HT_CP_NO_FRAME " 50-60"};
	struct ht_tl_record r;

	thread_start(0, 1, 11, 0);
	region(0, 1, 1, 10, "r", 1);
	call_begin(0, 1, 20, F_OTHER);
	region(0, 1, 0, 50, "r", 1); /* the call's end was lost: the region closes it */
	r = rec(HT_TL_COUNTER, 0, 1, 11, 55);
	take(&r);
	thread_end(0, 1, 60);
	expect(want, sizeof want / sizeof *want, 0, 60);
	CHECK_EQ(on_path(HT_CP_CPU, "r"), 10);
	CHECK_EQ(on_path(HT_CP_CPU, HT_CP_NO_FRAME), 20);
	CHECK_EQ(on_path(HT_CP_API, "other"), 30);
	ht_critpath_release(&cp);
}

/* A command that started before its enqueue call began (clock-sync error): the walk stays sane. */
static void test_clock_error(void)
{
	const uint64_t c = 9;

	thread_start(0, 1, 11, 0);
	call(0, 1, 500, 600, F_DRV, &c, 1);
	call(0, 1, 700, 2000, F_SYNC, NULL, 0);
	thread_end(0, 1, 2100);
	command(0, 0xa, 9, "early", 400, 1500, 0);
	CHECK_EQ(ht_critpath_finish(&cp), 0);
	CHECK_EQ(cp.end, 2100);
	CHECK(cp.start <= 400);
	CHECK_EQ(cp.end - cp.start >= cp.length, 1);
	for (size_t i = 1; i < cp.nseg; i++)
		CHECK(cp.seg[i].start >= cp.seg[i - 1].start);
	ht_critpath_release(&cp);
}

/* A slice end alone, at nesting depth d: a call of function f, or a region (f < 0). */
static void end_only(uint64_t b, uint64_t e, uint32_t d, int f, const char *region_name)
{
	struct ht_tl_record r = rec(HT_TL_SLICE_END, 0, 1, 0, e);

	r.paired = 1;
	r.begin = b;
	r.depth = d;
	if (f >= 0) {
		r.api = 1;
		r.fn = &fns[f];
		r.fn_id = (uint16_t)f;
		r.name = fns[f].name;
	} else {
		r.name = region_name;
		r.name_id = (uint32_t)region_name[0];
	}
	take(&r);
}

/*
 * Without slice begins (the report skips them when no process has a
 * device): region R [0, 100) holds call C [10, 20), which holds region Q
 * [12, 14); call D [110, 150) holds call E [120, 130). The path is the
 * thread's life: C and D as calls (E and Q inside them), R's own CPU time
 * 90, 60 outside any frame; a region R2 whose end was lost leaves its
 * child S to the frame around it.
 */
static void test_ends_only(void)
{
	static const char *const want[] = {"cpu " HT_CP_OUTSIDE_CALLS " 0-10", "api other 10-20",
					   "cpu " HT_CP_OUTSIDE_CALLS " 20-110",
					   "api launchRuntime 110-150",
					   "cpu " HT_CP_OUTSIDE_CALLS " 150-300"};

	tl.opts.skip = 1u << HT_TL_SLICE_BEGIN;
	thread_start(0, 1, 11, 0);
	end_only(12, 14, 2, -1, "Q");
	end_only(10, 20, 1, F_OTHER, NULL);
	end_only(0, 100, 0, -1, "R");
	end_only(120, 130, 1, F_DRV, NULL);
	end_only(110, 150, 0, F_RT, NULL);
	end_only(210, 220, 2, -1, "S"); /* inside R2 [200, 250), whose end is lost, inside T */
	end_only(160, 280, 0, -1, "T");
	thread_end(0, 1, 300);
	expect(want, sizeof want / sizeof *want, 0, 300);
	CHECK_EQ(cp.calls, 2); /* E was inside D */
	CHECK_EQ(on_path(HT_CP_API, "other"), 10);
	CHECK_EQ(on_path(HT_CP_API, "launchRuntime"), 40);
	CHECK_EQ(on_path(HT_CP_CPU, "R"), 90);
	CHECK_EQ(on_path(HT_CP_CPU, "Q"), UINT64_MAX); /* inside a call: the call's */
	CHECK_EQ(on_path(HT_CP_CPU, "S"), 10);
	CHECK_EQ(on_path(HT_CP_CPU, "T"), 110);
	CHECK_EQ(on_path(HT_CP_CPU, HT_CP_NO_FRAME), 300 - 100 - 40 - 120);
	ht_critpath_release(&cp);
	tl.opts.skip = 0;
}

/* An enqueue whose command ran inside the call (a synchronous runtime) waited for it. */
static void test_inline_command(void)
{
	static const char *const want[] = {"cpu " HT_CP_NO_FRAME " 0-100",
					   "launch k 100-150",
					   "kernel k 150-450",
					   "api launchDriver 450-500",
					   "cpu " HT_CP_NO_FRAME " 500-520",
					   "api launchDriver 520-530",
					   "cpu " HT_CP_NO_FRAME " 530-600"};
	const uint64_t c1 = 1, c2 = 2;

	thread_start(0, 1, 11, 0);
	call(0, 1, 100, 500, F_DRV, &c1, 1);
	call(0, 1, 520, 530, F_DRV, &c2, 1);
	thread_end(0, 1, 600);
	command(0, 0xa, 1, "k", 150, 450, 0);
	command(0, 0xa, 2, "k2", 540, 560, 0); /* ran after its call returned: not waited for */
	expect(want, sizeof want / sizeof *want, 0, 600);
	CHECK_EQ(on_path(HT_CP_KERNEL, "k2"), 0);
	ht_critpath_release(&cp);
}

static void test_empty(void)
{
	CHECK_EQ(ht_critpath_finish(&cp), 0);
	CHECK_EQ(cp.nseg, 0);
	CHECK_EQ(cp.length, 0);
	ht_critpath_release(&cp);
}

int main(void)
{
	test_nested_and_wait_any();
	test_cross_thread();
	test_processes_and_corr_wait();
	test_region_closes_call();
	test_clock_error();
	test_ends_only();
	test_inline_command();
	test_empty();
	CHECK_DONE();
}
