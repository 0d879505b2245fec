/*
 * Modules and calling-context nodes of a process (see stacks.h). Nodes are
 * kept in arrays by arrival, found by id through the project's hash map;
 * following a stack walks parent links, bounded by HT_STACK_DEPTH (a
 * corrupt trace with a parent loop ends there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stacks.h"
#include "common/grow.h"

static void define_node(struct ht_stacks *st, const struct ht_ev_stack_node *e)
{
	int created;
	uint64_t *v;

	if (!e->id)
		return;
	v = ht_map_u64(&st->nodes, e->id, 0, &created);
	if (!v || !created)
		return; /* the first definition stands */
	if (ht_grow((void **)&st->node, &st->cap, sizeof *st->node, st->n + 1)) {
		ht_map_del_u64(&st->nodes, e->id);
		return;
	}
	st->node[st->n].parent = e->parent;
	st->node[st->n].frame = e->frame;
	*v = ++st->n;
}

static void define_module(struct ht_stacks *st, const struct ht_ev_module_load *e)
{
	struct ht_stack_module *m;

	for (size_t i = 0; i < st->nmods; i++)
		if (st->mods[i].id == e->id)
			return;
	if (!e->id || ht_grow((void **)&st->mods, &st->capmods, sizeof *st->mods, st->nmods + 1))
		return;
	m = &st->mods[st->nmods];
	m->path = strdup(e->path);
	if (!m->path)
		return;
	m->id = e->id;
	m->base = e->base;
	m->start = e->start;
	m->end = e->end;
	m->loaded_ns = e->ns;
	snprintf(m->build_id, sizeof m->build_id, "%s", e->build_id);
	st->nmods++;
}

/* The program with handle h, the latest of that handle (a handle is reused after release). */
static struct ht_stack_program *program(struct ht_stacks *st, uint64_t h)
{
	for (size_t i = st->nprogs; i > 0; i--)
		if (st->progs[i - 1].handle == h)
			return &st->progs[i - 1];
	return NULL;
}

static void define_source(struct ht_stacks *st, const struct ht_ev_program_source *e)
{
	struct ht_stack_program *p = program(st, e->program);
	size_t n = strlen(e->text);

	if (!p || p->length != e->length || (e->offset == 0 && p->kernels)) {
		/* a new program (its first piece, or a reused handle) */
		if (ht_grow((void **)&st->progs, &st->capprogs, sizeof *st->progs, st->nprogs + 1))
			return;
		p = &st->progs[st->nprogs];
		p->text = calloc(1, (size_t)e->length + 1);
		if (!p->text)
			return;
		p->handle = e->program;
		p->length = e->length;
		st->nprogs++;
	}
	if (e->offset <= p->length && n <= p->length - e->offset)
		memcpy(p->text + e->offset, e->text, n);
}

static void define_kernels(struct ht_stacks *st, const struct ht_ev_program_kernels *e)
{
	struct ht_stack_program *p = program(st, e->program);
	char *k;

	if (!p) { /* built from a binary or IL: its kernels, no text */
		if (ht_grow((void **)&st->progs, &st->capprogs, sizeof *st->progs, st->nprogs + 1))
			return;
		p = &st->progs[st->nprogs++];
		p->handle = e->program;
	}
	k = strdup(e->names);
	if (!k)
		return;
	free(p->kernels);
	p->kernels = k;
}

const struct ht_stack_program *ht_stacks_program_of(const struct ht_stacks *st, const char *kernel)
{
	size_t n = strlen(kernel);

	for (size_t i = st ? st->nprogs : 0; i > 0; i--) {
		const char *k = st->progs[i - 1].kernels;

		while (k && *k) {
			size_t len = strcspn(k, ";");

			if (len == n && !memcmp(k, kernel, n))
				return &st->progs[i - 1];
			k += len + (k[len] == ';');
		}
	}
	return NULL;
}

void ht_stacks_define(struct ht_stacks *st, uint32_t id, const uint8_t *payload, size_t size)
{
	union ht_ev_any u;

	switch (id) {
	case HT_EV_STACK_NODE:
		if (ht_ev_stack_node_get(&u.stack_node, payload, size) >= 0)
			define_node(st, &u.stack_node);
		break;
	case HT_EV_MODULE_LOAD:
		if (ht_ev_module_load_get(&u.module_load, payload, size) >= 0)
			define_module(st, &u.module_load);
		break;
	case HT_EV_MODULE_UNLOAD:
		if (ht_ev_module_unload_get(&u.module_unload, payload, size) >= 0)
			for (size_t i = 0; i < st->nmods; i++)
				if (st->mods[i].id == u.module_unload.id)
					st->mods[i].unloaded_ns = u.module_unload.ns;
		break;
	case HT_EV_PROGRAM_SOURCE:
		if (ht_ev_program_source_get(&u.program_source, payload, size) >= 0)
			define_source(st, &u.program_source);
		break;
	case HT_EV_PROGRAM_KERNELS:
		if (ht_ev_program_kernels_get(&u.program_kernels, payload, size) >= 0)
			define_kernels(st, &u.program_kernels);
		break;
	case HT_EV_PC_SAMPLING:
		if (ht_ev_pc_sampling_get(&u.pc_sampling, payload, size) >= 0 && !st->pc.asked) {
			st->pc.asked = 1;
			st->pc.error = u.pc_sampling.error;
			st->pc.period = u.pc_sampling.period;
			snprintf(st->pc.method, sizeof st->pc.method, "%s", u.pc_sampling.method);
			snprintf(st->pc.reason, sizeof st->pc.reason, "%s", u.pc_sampling.reason);
		}
		break;
	case HT_EV_COUNTER_NAME:
		if (ht_ev_counter_name_get(&u.counter_name, payload, size) >= 0 &&
		    !st->counters[u.counter_name.index])
			st->counters[u.counter_name.index] = strdup(u.counter_name.name);
		break;
	}
}

int ht_stacks_frames(const struct ht_stacks *st, uint32_t node, uint64_t *out, int max)
{
	int n = 0;

	while (node && n < max) {
		const uint64_t *v = ht_map_find_u64(&st->nodes, node);

		if (!v)
			break;
		out[n++] = st->node[*v - 1].frame;
		node = st->node[*v - 1].parent;
	}
	return n;
}

const struct ht_stack_module *ht_stacks_module(const struct ht_stacks *st, uint64_t frame)
{
	uint32_t id = ht_frame_module(frame);

	for (size_t i = 0; id && i < st->nmods; i++)
		if (st->mods[i].id == id)
			return &st->mods[i];
	return NULL;
}

void ht_stacks_release(struct ht_stacks *st)
{
	for (size_t i = 0; i < st->nmods; i++)
		free(st->mods[i].path);
	for (int i = 0; i < 256; i++)
		free(st->counters[i]);
	for (size_t i = 0; i < st->nprogs; i++) {
		free(st->progs[i].text);
		free(st->progs[i].kernels);
	}
	free(st->progs);
	free(st->mods);
	free(st->node);
	ht_map_release(&st->nodes);
	memset(st, 0, sizeof *st);
}
