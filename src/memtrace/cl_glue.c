/*
 * Memory-access tracing of OpenCL kernels (cl_glue.h), in
 * libhetrace-opencl.so.
 *
 * The application's objects are never changed: its program is built from
 * its source as it asked, its kernels are the runtime's. Beside each program
 * that has a selected kernel (--memory-access=GLOB) we build a twin from the
 * instrumented source (rewrite.h, through the hetrace-cl-rewrite helper) with
 * the same options for the same devices, and beside each selected kernel a
 * twin kernel of it. Every successful clSetKernelArg/ArgSVMPointer/ExecInfo
 * of the application's kernel is repeated on the twin (same index: the two
 * hidden parameters come after the application's). An enqueue of the kernel
 * enqueues the twin with the channel and a launch slot set, so what the
 * application queries -- CL_PROGRAM_SOURCE, the binaries, kernel names, its
 * argument count and info, the errors of a wrong index -- is exactly what it
 * is untraced; its kernel's results are the twin's, computed by the same
 * code. If the twin cannot run a launch the original can (the twin needs
 * more local memory, say), the original is enqueued instead and the launch
 * is not traced.
 *
 * Hidden references: the twin programs hold references on the context, measured when they are made
 * and subtracted from CL_CONTEXT_REFERENCE_COUNT; when the application's release would leave only
 * ours, ours go first, so the context dies when the application expects.
 *
 * A program the front end cannot parse, or whose twin does not build, runs
 * uninstrumented with one warning.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/map.h"
#include "memtrace/collector.h"
#include "memtrace/spawn.h"
#include "opencl/interpose.h"

int ht_cl_mt_on;

struct program {
	cl_program app, twin;
	cl_context ctx;
	char *source;
	size_t len;
	char *options; /* of the application's last successful build (or compile) */
	char *link;    /* a program clLinkProgram made of this one source: its link options */
	int compiled;  /* clCompileProgram compiled it, without embedded headers */
	int tried;     /* the twin was attempted for this build */
	int warned;
	struct ht_mt_rewrite rw;
	uint32_t module;
	unsigned int kernels; /* twin kernels alive */
};

struct kernel {
	cl_kernel app, twin;
	struct program *prog;
	const struct ht_mt_kernel *info;
	cl_context ctx;
	unsigned int lanes;
	int broken; /* a mirrored call failed: launches run uninstrumented */
	uint64_t arg_size[HT_MT_SLOT_ARGS];
	char name[HT_MT_NAME_MAX];
};

struct context {
	cl_context ctx;
	int hidden; /* references on ctx that our objects hold */
};

static struct {
	pthread_mutex_t lock;
	struct ht_map programs, kernels, contexts; /* handle -> record */
	struct ht_map launches;			   /* corr -> launch slot + 1 */
	const struct ht_mt_config *cfg;
} G = {.lock = PTHREAD_MUTEX_INITIALIZER};

__attribute__((constructor)) static void glue_load(void)
{
	G.cfg = ht_mt_config_get();
	ht_cl_mt_on = G.cfg->on;
}

static void *find(struct ht_map *m, const void *key)
{
	uint64_t *v = ht_map_find_u64(m, (uintptr_t)key);

	return v ? (void *)(uintptr_t)*v : NULL;
}

static void put(struct ht_map *m, const void *key, void *val)
{
	uint64_t *v = ht_map_u64(m, (uintptr_t)key, 0, NULL);

	if (v)
		*v = (uintptr_t)val;
}

static cl_uint context_refs(cl_context ctx)
{
	cl_uint n = 0;

	HT_CL_REAL(clGetContextInfo)(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL);
	return n;
}

/* Adds to ctx's hidden references what changed since `before` (an object of ours made or gone). */
static void track(cl_context ctx, cl_uint before);

/* G.lock held. */
static struct context *context_rec(cl_context ctx)
{
	struct context *c = find(&G.contexts, ctx);

	if (!c && (c = calloc(1, sizeof *c))) {
		c->ctx = ctx;
		put(&G.contexts, ctx, c);
	}
	return c;
}

static void track(cl_context ctx, cl_uint before)
{
	struct context *c = context_rec(ctx);

	if (c)
		c->hidden += (int)context_refs(ctx) - (int)before;
}

/* ---- programs ---- */

static void program_free(struct program *r)
{
	free(r->source);
	free(r->options);
	free(r->link);
	ht_mt_rewrite_release(&r->rw);
	free(r);
}

/* r describes program p now (G.lock held). */
static void remember(cl_program p, struct program *r)
{
	struct program *old = find(&G.programs, p);

	/* a handle the runtime reuses: the old record's twin is released with it */
	if (old)
		program_free(old);
	put(&G.programs, p, r);
}

void ht_cl_mt_program_source(cl_program p, cl_context ctx, cl_uint count, const char **strings,
			     const size_t *lengths)
{
	struct program *r;
	size_t len = 0;

	if (!ht_cl_mt_on || !p || !strings)
		return;
	for (cl_uint i = 0; i < count; i++)
		len += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	r = calloc(1, sizeof *r);
	if (!r || !(r->source = malloc(len + 1))) {
		free(r);
		return;
	}
	r->app = p;
	r->ctx = ctx;
	r->len = len;
	len = 0;
	for (cl_uint i = 0; i < count; i++) {
		size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);

		memcpy(r->source + len, strings[i], n);
		len += n;
	}
	r->source[len] = '\0';
	pthread_mutex_lock(&G.lock);
	remember(p, r);
	pthread_mutex_unlock(&G.lock);
}

/*
 * p was built (compiled < 0) or compiled (compiled: 1 without embedded
 * headers, 0 with them: the rewriter cannot see those) with these options.
 */
static void program_options(cl_program p, const char *options, int compiled)
{
	struct program *r;

	pthread_mutex_lock(&G.lock);
	r = find(&G.programs, p);
	if (r) {
		free(r->options);
		r->options = strdup(options ? options : "");
		r->compiled = compiled > 0;
		if (compiled < 0 && r->twin && !r->kernels) { /* a rebuild: the twin follows it */
			HT_CL_REAL(clReleaseProgram)(r->twin);
			r->twin = NULL;
		}
		if (!r->twin)
			r->tried = 0;
	}
	pthread_mutex_unlock(&G.lock);
}

void ht_cl_mt_program_built(cl_program p, const char *options, cl_int ret)
{
	if (ht_cl_mt_on && ret == CL_SUCCESS)
		program_options(p, options, -1);
}

void ht_cl_mt_program_compiled(cl_program p, const char *options, cl_uint nheaders, cl_int ret)
{
	if (ht_cl_mt_on && ret == CL_SUCCESS)
		program_options(p, options, nheaders == 0);
}

/*
 * A program linked from one program compiled from source is instrumented as
 * that source: its twin is the rewritten source compiled with the same
 * options and linked with the same link options (build_twin). Programs
 * linked from several are not (their functions would need the hidden
 * channel parameter across compilation units).
 */
void ht_cl_mt_program_linked(cl_program p, cl_context ctx, const char *options, cl_uint n,
			     const cl_program *inputs)
{
	struct program *in, *r;

	if (!ht_cl_mt_on || !p || n != 1 || !inputs)
		return;
	pthread_mutex_lock(&G.lock);
	in = find(&G.programs, inputs[0]);
	if (in && in->compiled && (r = calloc(1, sizeof *r))) {
		r->app = p;
		r->ctx = ctx;
		r->len = in->len;
		r->source = malloc(in->len + 1);
		r->options = strdup(in->options ? in->options : "");
		r->link = strdup(options ? options : "");
		if (r->source && r->options && r->link) {
			memcpy(r->source, in->source, in->len + 1);
			remember(p, r);
		} else {
			program_free(r);
		}
	}
	pthread_mutex_unlock(&G.lock);
}

static void warn_program(struct program *r, const char *kernel, const char *why)
{
	if (r->warned)
		return;
	r->warned = 1;
	fprintf(stderr, "hetrace: kernel '%s' runs untraced (no memory accesses recorded): %s\n",
		kernel, why);
}

/* The first line of the twin's build log, for the warning. */
static void build_log(cl_program twin, char *out, size_t cap)
{
	cl_device_id dev;
	size_t n = 0;
	char *nl;

	out[0] = '\0';
	if (HT_CL_REAL(clGetProgramInfo)(twin, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL) ||
	    HT_CL_REAL(clGetProgramBuildInfo)(twin, dev, CL_PROGRAM_BUILD_LOG, cap - 1, out, &n))
		return;
	out[n < cap ? n : cap - 1] = '\0';
	for (char *s = out; *s == '\n' || *s == ' ';)
		memmove(s, s + 1, strlen(s));
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
}

/*
 * The predefinitions the device compiler makes for dev, in the rewriter's
 * form (rewrite.h): __OPENCL_VERSION__ from its version, its image support,
 * and its extensions and OpenCL C features as -cl-ext=-all,+NAME,...
 */
static void device_defs(cl_device_id dev, char *out, size_t cap)
{
	char version[128] = "", ext[4096] = "", *save = NULL;
	cl_name_version feat[64];
	size_t nfeat = 0, n;
	cl_bool images = CL_TRUE;
	unsigned int major = 1, minor = 2;
	int fp64 = 0;

	HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
	sscanf(version, "OpenCL %u.%u", &major, &minor);
	HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
	n = (size_t)snprintf(out, cap, "-D__OPENCL_VERSION__=%u %s -cl-ext=-all",
			     major * 100 + minor * 10, images ? "" : "-U__IMAGE_SUPPORT__");
	if (HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL))
		ext[0] = '\0';
	for (char *e = strtok_r(ext, " ", &save); e && n < cap; e = strtok_r(NULL, " ", &save)) {
		n += (size_t)snprintf(out + n, cap - n, ",+%s", e);
		fp64 |= !strcmp(e, "cl_khr_fp64");
	}
	if (!HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_OPENCL_C_FEATURES, sizeof feat, feat,
					 &nfeat))
		for (size_t i = 0; i < nfeat / sizeof feat[0] && n < cap; i++)
			n += (size_t)snprintf(out + n, cap - n, ",+%.*s", (int)sizeof feat[i].name,
					      feat[i].name);
	/* clang wants the two to agree; an OpenCL 1.2 device lists no features */
	if (fp64 && n < cap)
		snprintf(out + n, cap - n, ",+__opencl_c_fp64");
}

/*
 * r's twin program from the rewriter's source, built as the application
 * built r (G.lock held). Return: CL_SUCCESS, or an error (*log says why).
 */
static cl_int build_source(struct program *r, cl_uint ndev, const cl_device_id *devs, char *log,
			   size_t cap)
{
	cl_uint before = context_refs(r->ctx);
	const char *src = r->rw.source;
	cl_int err;

	log[0] = '\0';
	r->twin = HT_CL_REAL(clCreateProgramWithSource)(r->ctx, 1, &src, &r->rw.len, &err);
	track(r->ctx, before);
	if (!r->twin)
		return err != CL_SUCCESS ? err : CL_OUT_OF_HOST_MEMORY;
	if (r->link) { /* as the application made it: compiled, then linked alone */
		err = HT_CL_REAL(clCompileProgram)(r->twin, ndev, devs, r->options, 0, NULL, NULL,
						   NULL, NULL);
		if (err == CL_SUCCESS) {
			cl_program linked;

			before = context_refs(r->ctx);
			linked = HT_CL_REAL(clLinkProgram)(r->ctx, ndev, devs, r->link, 1, &r->twin,
							   NULL, NULL, &err);
			if (linked) { /* a failed link's program holds the log */
				HT_CL_REAL(clReleaseProgram)(r->twin);
				r->twin = linked;
			} else if (err == CL_SUCCESS) {
				err = CL_LINK_PROGRAM_FAILURE;
			}
			track(r->ctx, before);
		}
	} else {
		err = HT_CL_REAL(clBuildProgram)(r->twin, ndev, devs, r->options, NULL, NULL);
	}
	if (err != CL_SUCCESS) {
		build_log(r->twin, log, cap);
		before = context_refs(r->ctx);
		HT_CL_REAL(clReleaseProgram)(r->twin);
		track(r->ctx, before);
		r->twin = NULL;
	}
	return err;
}

/* Builds r's twin (G.lock held). Return: 0, or -1 (warned). */
static int build_twin(struct program *r, const char *kernel, unsigned int *lanes)
{
	struct ht_mt_cl_params prm = {.block = G.cfg->block, .sample = G.cfg->sample};
	struct ht_mt_site_desc *sd = NULL;
	cl_device_id devs[16];
	size_t ndev = 0;
	cl_uint cu = 1;
	struct ht_mt_chan *ch;
	cl_int err;
	char why[640], defs[8192], log[400];
	struct ht_mt_front fe = {.options = r->options, .device = defs, .expand = 1};

	if (HT_CL_REAL(clGetProgramInfo)(r->app, CL_PROGRAM_DEVICES, sizeof devs, devs, &ndev) ||
	    !ndev) {
		warn_program(r, kernel, "its program's devices are unknown");
		return -1;
	}
	ndev /= sizeof devs[0];
	HT_CL_REAL(clGetDeviceInfo)(devs[0], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
	*lanes = cu;
	ch = ht_mt_channel(cu, HT_MT_STAGE_MAX, NULL, NULL);
	if (!ch) {
		warn_program(r, kernel, "no channel (HETRACE_MEMTRACE_BUFFER too small?)");
		return -1;
	}
	prm.nbins = ch->nbins;
	prm.cap = ch->cap;
	prm.stage = ch->cap < HT_MT_STAGE_MAX ? ch->cap : HT_MT_STAGE_MAX;
	if (!G.cfg->tool[0]) {
		warn_program(r, kernel, "HETRACE_MEMTRACE_TOOL (the rewriter) is not set");
		return -1;
	}
	device_defs(devs[0], defs, sizeof defs);
	for (;;) {
		if (ht_mt_rewrite_run(G.cfg->tool, r->source, r->len, &fe, &prm, &r->rw)) {
			snprintf(why, sizeof why,
				 "the OpenCL C front end cannot instrument its program: %s",
				 r->rw.error);
			warn_program(r, kernel, why);
			return -1;
		}
		err = build_source(r, (cl_uint)ndev, devs, log, sizeof log);
		if (err == CL_SUCCESS)
			break;
		if (r->rw.expanded) { /* the program as written, its macros' accesses left out */
			fprintf(
			    stderr,
			    "hetrace: the program of kernel '%s' does not build with its macros "
			    "expanded (%d): %s; it is instrumented as written\n",
			    kernel, err, log);
			ht_mt_rewrite_release(&r->rw);
			fe.expand = 0;
			continue;
		}
		snprintf(why, sizeof why, "its instrumented program does not build (%d): %s", err,
			 log);
		warn_program(r, kernel, why);
		return -1;
	}
	if (r->rw.skipped)
		fprintf(
		    stderr,
		    "hetrace: %u global-memory accesses of the program of kernel '%s' are spelled "
		    "inside macros or #include'd text and not recorded\n",
		    r->rw.skipped, kernel);
	sd = calloc(r->rw.nsites ? r->rw.nsites : 1, sizeof *sd);
	if (sd) {
		for (size_t i = 0; i < r->rw.nsites; i++) {
			const struct ht_mt_site *s = &r->rw.sites[i];

			sd[i] = (struct ht_mt_site_desc){.site = s->id,
							 .arg = s->arg,
							 .kind = s->kind,
							 .size = s->size,
							 .line = s->line,
							 .col = s->col,
							 .fn = s->fn,
							 .file = ht_mt_site_file(&r->rw, s)};
		}
		r->module = ht_mt_module_create(sd, r->rw.nsites);
		free(sd);
	}
	return 0;
}

/* ---- kernels ---- */

static const struct ht_mt_kernel *kernel_info(const struct program *r, const char *name)
{
	for (size_t i = 0; i < r->rw.nkernels; i++)
		if (!strcmp(r->rw.kernels[i].name, name))
			return &r->rw.kernels[i];
	return NULL;
}

/*
 * Kernel `name` of program p, which was not made from source in a way the
 * rewriter follows: one warning per program (the latest 64 remembered;
 * G.lock held). hashcat, for one, compiles and links its kernels once and
 * loads them from its own cache of binaries after that.
 */
static void warn_no_source(cl_program p, const char *name)
{
	static cl_program warned[64];
	static unsigned int next;

	for (unsigned int i = 0; i < sizeof warned / sizeof warned[0]; i++)
		if (warned[i] == p)
			return;
	warned[next++ % (sizeof warned / sizeof warned[0])] = p;
	fprintf(stderr,
		"hetrace: kernel '%s' runs untraced (no memory accesses recorded): its program "
		"was not made from OpenCL C source by clBuildProgram, or by clCompileProgram "
		"without embedded headers and clLinkProgram of it alone (it came from a "
		"binary, IL, built-in kernels or several programs linked), the forms the "
		"rewriter instruments; an application's own kernel cache can be the reason "
		"(pyopencl: PYOPENCL_NO_CACHE=1)\n",
		name);
}

/* A twin for the application's kernel k of program p (G.lock held). */
static void add_kernel(cl_kernel k, cl_program p, const char *name)
{
	struct program *r = find(&G.programs, p);
	struct kernel *kr;
	const struct ht_mt_kernel *info;
	unsigned int lanes = 1;
	cl_uint before;
	cl_int err;
	cl_kernel twin;

	if (fnmatch(G.cfg->glob, name, 0))
		return;
	if (!r) {
		warn_no_source(p, name);
		return;
	}
	if (!r->twin && !r->tried) {
		r->tried = 1;
		if (!r->options)
			r->options = strdup("");
		build_twin(r, name, &lanes);
	}
	if (!r->twin)
		return;
	if (!(info = kernel_info(r, name))) {
		warn_program(r, name, "the OpenCL C front end did not see it defined as a kernel");
		return;
	}
	before = context_refs(r->ctx);
	twin = HT_CL_REAL(clCreateKernel)(r->twin, name, &err);
	track(r->ctx, before);
	if (!twin)
		return;
	kr = calloc(1, sizeof *kr);
	if (!kr) {
		HT_CL_REAL(clReleaseKernel)(twin);
		return;
	}
	kr->app = k;
	kr->twin = twin;
	kr->prog = r;
	kr->info = info;
	kr->ctx = r->ctx;
	snprintf(kr->name, sizeof kr->name, "%s", name);
	{
		cl_device_id dev;
		cl_uint cu = 1;

		if (!HT_CL_REAL(clGetProgramInfo)(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL))
			HT_CL_REAL(clGetDeviceInfo)
		(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
		kr->lanes = cu;
	}
	r->kernels++;
	put(&G.kernels, k, kr);
}

void ht_cl_mt_kernel_created(cl_kernel k, cl_program p, const char *name)
{
	if (!ht_cl_mt_on || !k || !name)
		return;
	pthread_mutex_lock(&G.lock);
	add_kernel(k, p, name);
	pthread_mutex_unlock(&G.lock);
}

void ht_cl_mt_kernels_created(cl_program p, cl_uint n, cl_kernel *kernels, cl_uint *n_ret,
			      cl_int ret)
{
	cl_uint made = n_ret ? *n_ret : n;

	if (!ht_cl_mt_on || ret != CL_SUCCESS || !kernels)
		return;
	if (made > n)
		made = n;
	pthread_mutex_lock(&G.lock);
	for (cl_uint i = 0; i < made; i++) {
		char name[HT_MT_NAME_MAX];
		size_t len = 0;

		if (HT_CL_REAL(clGetKernelInfo)(kernels[i], CL_KERNEL_FUNCTION_NAME,
						sizeof name - 1, name, &len) == CL_SUCCESS) {
			name[len < sizeof name ? len : sizeof name - 1] = '\0';
			add_kernel(kernels[i], p, name);
		}
	}
	pthread_mutex_unlock(&G.lock);
}

void ht_cl_mt_kernel_cloned(cl_kernel k, cl_kernel source)
{
	struct kernel *s, *kr;
	cl_kernel twin;
	cl_int err;

	if (!ht_cl_mt_on || !k)
		return;
	pthread_mutex_lock(&G.lock);
	s = find(&G.kernels, source);
	if (s && (kr = malloc(sizeof *kr))) {
		/* the clone has the source's arguments: so has the twin's clone */
		cl_uint before = context_refs(s->ctx);

		twin = HT_CL_REAL(clCloneKernel)(s->twin, &err);
		track(s->ctx, before);
		if (twin) {
			*kr = *s;
			kr->app = k;
			kr->twin = twin;
			kr->prog->kernels++;
			put(&G.kernels, k, kr);
		} else {
			free(kr);
		}
	}
	pthread_mutex_unlock(&G.lock);
}

static struct kernel *kernel_rec(cl_kernel k)
{
	struct kernel *kr;

	pthread_mutex_lock(&G.lock);
	kr = find(&G.kernels, k);
	pthread_mutex_unlock(&G.lock);
	return kr;
}

void ht_cl_mt_kernel_arg(cl_kernel k, cl_uint index, size_t size, const void *value, cl_int ret)
{
	struct kernel *kr;

	if (!ht_cl_mt_on || ret != CL_SUCCESS || !(kr = kernel_rec(k)))
		return;
	if (HT_CL_REAL(clSetKernelArg)(kr->twin, index, size, value) != CL_SUCCESS)
		kr->broken = 1;
	if (index < HT_MT_SLOT_ARGS && index < 64 && (kr->info->buffers >> index & 1)) {
		size_t bytes = 0;

		if (value && size == sizeof(cl_mem) && *(const cl_mem *)value &&
		    HT_CL_REAL(clGetMemObjectInfo)(*(const cl_mem *)value, CL_MEM_SIZE,
						   sizeof bytes, &bytes, NULL) != CL_SUCCESS)
			bytes = 0;
		kr->arg_size[index] = bytes;
	}
}

void ht_cl_mt_kernel_arg_svm(cl_kernel k, cl_uint index, const void *value, cl_int ret)
{
	struct kernel *kr;

	if (!ht_cl_mt_on || ret != CL_SUCCESS || !(kr = kernel_rec(k)))
		return;
	if (HT_CL_REAL(clSetKernelArgSVMPointer)(kr->twin, index, value) != CL_SUCCESS)
		kr->broken = 1;
	if (index < HT_MT_SLOT_ARGS)
		kr->arg_size[index] = 0; /* an SVM pointer: its allocation's size is not known */
}

void ht_cl_mt_kernel_exec_info(cl_kernel k, cl_kernel_exec_info name, size_t size,
			       const void *value, cl_int ret)
{
	struct kernel *kr;

	if (!ht_cl_mt_on || ret != CL_SUCCESS || !(kr = kernel_rec(k)))
		return;
	if (HT_CL_REAL(clSetKernelExecInfo)(kr->twin, name, size, value) != CL_SUCCESS)
		kr->broken = 1;
}

static void release_kernel_rec(struct kernel *kr)
{
	cl_uint before = context_refs(kr->ctx);

	HT_CL_REAL(clReleaseKernel)(kr->twin);
	track(kr->ctx, before);
	kr->prog->kernels--;
	ht_map_del_u64(&G.kernels, (uintptr_t)kr->app);
	free(kr);
}

void ht_cl_mt_kernel_release(cl_kernel k)
{
	struct kernel *kr;
	cl_uint refs = 0;

	if (!ht_cl_mt_on)
		return;
	pthread_mutex_lock(&G.lock);
	kr = find(&G.kernels, k);
	if (kr &&
	    HT_CL_REAL(clGetKernelInfo)(k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
		CL_SUCCESS &&
	    refs == 1)
		release_kernel_rec(kr); /* the application's last reference goes now */
	pthread_mutex_unlock(&G.lock);
}

/* Drops r's twin (G.lock held); its kernels hold their own references on it. */
static void release_twin(struct program *r)
{
	cl_uint before;

	if (!r->twin)
		return;
	before = context_refs(r->ctx);
	HT_CL_REAL(clReleaseProgram)(r->twin);
	track(r->ctx, before);
	r->twin = NULL;
}

void ht_cl_mt_program_release(cl_program p)
{
	struct program *r;
	cl_uint refs = 0;

	if (!ht_cl_mt_on)
		return;
	pthread_mutex_lock(&G.lock);
	r = find(&G.programs, p);
	if (r &&
	    HT_CL_REAL(clGetProgramInfo)(p, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
		CL_SUCCESS &&
	    refs == 1 && !r->kernels) {
		release_twin(r);
		ht_map_del_u64(&G.programs, (uintptr_t)p);
		program_free(r);
	}
	pthread_mutex_unlock(&G.lock);
}

void ht_cl_mt_context_release(cl_context ctx)
{
	struct context *c;

	if (!ht_cl_mt_on)
		return;
	pthread_mutex_lock(&G.lock);
	c = find(&G.contexts, ctx);
	if (c && c->hidden > 0 && context_refs(ctx) == (cl_uint)c->hidden + 1) {
		/* only ours would be left: they go first */
		for (size_t i = 0; i < G.programs.cap; i++) {
			struct program *r;

			if (!G.programs.used[i])
				continue;
			r = (struct program *)(uintptr_t)G.programs.vals[i];
			if (r->ctx == ctx && !r->kernels)
				release_twin(r);
		}
		ht_map_del_u64(&G.contexts, (uintptr_t)ctx);
		free(c);
	}
	pthread_mutex_unlock(&G.lock);
}

void ht_cl_mt_context_info(cl_context ctx, cl_context_info name, size_t size, void *value,
			   cl_int ret)
{
	struct context *c;

	if (!ht_cl_mt_on || ret != CL_SUCCESS || name != CL_CONTEXT_REFERENCE_COUNT || !value ||
	    size < sizeof(cl_uint))
		return;
	pthread_mutex_lock(&G.lock);
	c = find(&G.contexts, ctx);
	if (c && c->hidden > 0 && *(cl_uint *)value > (cl_uint)c->hidden)
		*(cl_uint *)value -= (cl_uint)c->hidden;
	pthread_mutex_unlock(&G.lock);
}

/* ---- launches ---- */

/*
 * The channel for a launch on device dev: its host address, passed as an
 * SVM pointer, when the device works in host memory (fine-grained system
 * SVM, or a CPU device with unified host memory: PoCL's), else NULL (once
 * a warning). Not a buffer: a cl_mem over it made the runtime keep the last
 * command that used it, and with it the application's queue and context,
 * alive after the application had released them (seen on PoCL 3.1).
 */
static void *channel_ptr(cl_device_id dev, unsigned int lanes, const char *kernel)
{
	static cl_device_id ok[16], bad[16];
	static unsigned int nok, nbad;
	cl_device_svm_capabilities svm = 0;
	cl_device_type type = 0;
	cl_bool unified = CL_FALSE;
	struct ht_mt_chan *ch;
	unsigned int i;

	for (i = 0; i < nok && ok[i] != dev; i++)
		;
	if (i == nok) {
		for (i = 0; i < nbad; i++)
			if (bad[i] == dev)
				return NULL;
		HT_CL_REAL(clGetDeviceInfo)
		(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
		HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
		HT_CL_REAL(clGetDeviceInfo)
		(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
		if (!(svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) &&
		    !((type & CL_DEVICE_TYPE_CPU) && unified)) {
			if (nbad < 16)
				bad[nbad++] = dev;
			fprintf(
			    stderr,
			    "hetrace: kernel '%s' runs untraced (no memory accesses recorded): its "
			    "device does not work in host memory (fine-grained system SVM or a CPU "
			    "device), where the channel is\n",
			    kernel);
			return NULL;
		}
		if (nok < 16)
			ok[nok++] = dev;
	}
	ch = ht_mt_channel(lanes, HT_MT_STAGE_MAX, NULL, NULL);
	return ch ? ch->mem : NULL;
}

void ht_cl_mt_command_done(uint64_t corr)
{
	uint64_t *v, slot = 0;

	pthread_mutex_lock(&G.lock);
	v = ht_map_find_u64(&G.launches, corr);
	if (v) {
		slot = *v;
		ht_map_del_u64(&G.launches, corr);
	}
	pthread_mutex_unlock(&G.lock);
	if (slot)
		ht_mt_launch_done((int)slot - 1);
}

static cl_int enqueue(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
		      const size_t *global, const size_t *local, cl_uint nwait,
		      const cl_event *wait, cl_event *event, uint64_t corr, int task)
{
	struct kernel *kr = ht_cl_mt_on ? kernel_rec(k) : NULL;
	struct ht_mt_launch l = {.corr = corr, .sample = G.cfg ? G.cfg->sample : 1};
	cl_event own = NULL, *evp = event ? event : &own;
	cl_device_id dev = NULL;
	void *chan = NULL;
	cl_uint slot32;
	cl_int ret;
	int slot;

	if (kr && !kr->broken &&
	    !HT_CL_REAL(clGetCommandQueueInfo)(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL)) {
		pthread_mutex_lock(&G.lock);
		chan = channel_ptr(dev, kr->lanes, kr->name);
		pthread_mutex_unlock(&G.lock);
	}
	if (!chan)
		goto plain;
	l.module = kr->prog->module;
	l.kernel = kr->name;
	l.buffers = (uint32_t)(kr->info->buffers & ((1u << HT_MT_SLOT_ARGS) - 1));
	memcpy(l.arg_size, kr->arg_size, sizeof l.arg_size);
	for (unsigned int i = 0; i < 3; i++) {
		l.global[i] = task ? 1 : i < dim && global ? global[i] : 1;
		l.local[i] = task ? 1 : i < dim ? (local ? local[i] : 0) : 1;
	}
	slot = ht_mt_launch_start(&l);
	if (slot < 0)
		goto plain;
	slot32 = (cl_uint)slot;
	if (HT_CL_REAL(clSetKernelArgSVMPointer)(kr->twin, kr->info->nparams, chan) ||
	    HT_CL_REAL(clSetKernelArg)(kr->twin, kr->info->nparams + 1, sizeof slot32, &slot32)) {
		ht_mt_launch_cancel(slot);
		goto plain;
	}
	if (task)
		ret = HT_CL_REAL(clEnqueueTask)(q, kr->twin, nwait, wait, evp);
	else
		ret = HT_CL_REAL(clEnqueueNDRangeKernel)(q, kr->twin, dim, offset, global, local,
							 nwait, wait, evp);
	if (ret != CL_SUCCESS) {
		/* the twin could not run it: the application gets the original's answer */
		ht_mt_launch_cancel(slot);
		goto plain;
	}
	/*
	 * Its end comes with its device command's collection (ht_cl_mt_command_done),
	 * on the application's thread when it synchronises: not from a completion
	 * callback, whose event reference the runtime keeps until the callback has
	 * run on its own thread, after clFinish returned (seen on PoCL 3.1: the
	 * application's queue and context outlived their last release a moment).
	 */
	pthread_mutex_lock(&G.lock);
	{
		uint64_t *v = own ? NULL : ht_map_u64(&G.launches, corr, 0, NULL);

		if (v)
			*v = (uint64_t)slot + 1;
	}
	pthread_mutex_unlock(&G.lock);
	if (own) { /* no event: nothing will collect it; its records are taken at exit */
		HT_CL_REAL(clReleaseEvent)(own);
		ht_mt_launch_done(slot);
	}
	return ret;
plain:
	if (task)
		return HT_CL_REAL(clEnqueueTask)(q, k, nwait, wait, event);
	return HT_CL_REAL(clEnqueueNDRangeKernel)(q, k, dim, offset, global, local, nwait, wait,
						  event);
}

cl_int ht_cl_mt_ndrange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
			const size_t *global, const size_t *local, cl_uint nwait,
			const cl_event *wait, cl_event *event, uint64_t corr)
{
	if (__builtin_expect(!ht_cl_mt_on, 1))
		return HT_CL_REAL(clEnqueueNDRangeKernel)(q, k, dim, offset, global, local, nwait,
							  wait, event);
	return enqueue(q, k, dim, offset, global, local, nwait, wait, event, corr, 0);
}

cl_int ht_cl_mt_task(cl_command_queue q, cl_kernel k, cl_uint nwait, const cl_event *wait,
		     cl_event *event, uint64_t corr)
{
	if (__builtin_expect(!ht_cl_mt_on, 1))
		return HT_CL_REAL(clEnqueueTask)(q, k, nwait, wait, event);
	return enqueue(q, k, 1, NULL, NULL, NULL, nwait, wait, event, corr, 1);
}
