/*
 * hetrace check [--repair] DIR: validates every packet and event of every
 * stream (sizes, magic, uuid, sequence numbers, monotonic timestamps, event
 * layouts, string references) and names the file and offset of the first
 * problem in each stream, and says which entries of a process directory
 * are not stream files (links, FIFOs, devices, directories: readers skip
 * them). --repair trims torn packets at stream ends and converts packets
 * still holding raw counter timestamps, then checks again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "analysis/escape.h"

#include "analysis/finalize.h"
#include "export/export.h"
#include "cli/cli.h"
#include "ring/ring.h"
#include "ring/salvage.h"

/*
 * Largest string id defined in the process stream; *lossy: whether that
 * stream discarded events (definitions may have been among them).
 */
static int defined_strings(const struct ht_trace_process *p, uint32_t *max_id, int *lossy,
			   struct ht_read_error *err)
{
	struct ht_stream_reader r;
	struct ht_event ev;
	int rc;

	*max_id = 0;
	*lossy = 0;
	for (unsigned int i = 0; i < p->nstreams; i++) {
		if (strcmp(p->streams[i].name, "process"))
			continue;
		rc = ht_stream_reader_open(&r, p, "process", err);
		if (rc)
			return rc;
		while ((rc = ht_stream_reader_next(&r, &ev, err)) > 0)
			if (ev.id == HT_EV_STRING_DEF && ht_le32(ev.payload) > *max_id)
				*max_id = ht_le32(ev.payload);
		*lossy = r.prev_discarded > 0;
		ht_stream_reader_close(&r);
		return rc;
	}
	return 0;
}

/* Return: the string id field of an event that refers to one, else 0. */
static uint32_t referenced_string(const struct ht_event *ev)
{
	const struct ht_event_class *ec = ev->ec;
	size_t off = 0;

	for (unsigned int i = 0; i < ec->nfields; i++) {
		size_t fixed = ht_format_field_size(ec->fields[i].type);

		if (ec->fields[i].type == HT_T_STRID)
			return ht_le32(ev->payload + off);
		if (!fixed)
			return 0; /* string ids come before variable fields */
		off += fixed;
	}
	return 0;
}

/*
 * Return: the name of a host time of ev past HT_TIME_LIMIT_NS (what no
 * output can hold: the exporters leave such records out), or NULL.
 */
static const char *late_time(const struct ht_event *ev)
{
	struct ht_ev_cpu_state cs;

	if (ev->ts >= HT_TIME_LIMIT_NS)
		return "its timestamp";
	if (ev->sc != HT_SC_THREAD || ev->id != HT_EV_CPU_STATE ||
	    ht_ev_cpu_state_get(&cs, ev->payload, ev->size) < 0)
		return NULL;
	return cs.begin_ns >= HT_TIME_LIMIT_NS ? "its begin_ns"
	       : cs.end_ns >= HT_TIME_LIMIT_NS ? "its end_ns"
					       : NULL;
}

/*
 * Checks one stream. max_string: the largest string id defined; lossy: the
 * definitions lost are counted (a reference beyond max_string is then no
 * problem, only counted in *unresolved).
 */
static int check_stream(const char *trace, const struct ht_trace_process *p, const char *name,
			uint32_t max_string, int lossy, unsigned int *problems,
			uint64_t *unresolved)
{
	struct ht_stream_reader r;
	struct ht_read_error err = {0};
	struct ht_event ev;
	uint64_t events = 0;
	int rc = ht_stream_reader_open(&r, p, name, &err);

	if (rc) {
		(*problems)++;
		return ht_read_error_print(trace, &err);
	}
	while ((rc = ht_stream_reader_next_packet(&r, &err)) > 0) {
		if (r.pk.ts_state == HT_TS_RAW) {
			(*problems)++;
			ht_error("%s/%s: offset %llu: packet holds raw counter timestamps (not "
				 "finalized); run 'hetrace check --repair %s'",
				 trace, r.path, (unsigned long long)r.pk.offset, trace);
			break;
		}
		while ((rc = ht_event_iter_next(&r.it, &ev, &err)) > 0) {
			uint32_t id = referenced_string(&ev);
			const char *late = late_time(&ev);
			unsigned long long at = r.pk.offset + (uint64_t)(ev.header - r.buf);

			events++;
			if (late) {
				ht_error("%s/%s: offset %llu: event '%s': %s is past the clock's "
					 "range (2^62 ns): the exporters leave this event out",
					 trace, r.path, at, ev.ec->name, late);
			} else if (id > max_string && lossy) {
				(*unresolved)++;
				continue;
			} else if (id > max_string) {
				ht_error("%s/%s: offset %llu: event '%s' refers to string id %u, "
					 "which is not defined",
					 trace, r.path, at, ev.ec->name, id);
			} else {
				continue;
			}
			(*problems)++;
			break;
		}
		if (rc < 0) {
			snprintf(err.file, sizeof err.file, "%s", r.path);
			break;
		}
	}
	if (rc < 0) {
		(*problems)++;
		ht_read_error_print(trace, &err);
	} else if (r.torn) {
		(*problems)++;
		ht_error("%s/%s: offset %llu: torn last packet (%llu bytes); run 'hetrace check "
			 "--repair %s'",
			 trace, r.path, (unsigned long long)r.torn_offset,
			 (unsigned long long)r.torn_bytes, trace);
	}
	ht_stream_reader_close(&r);
	return 0;
}

static const char *file_type(mode_t m)
{
	return S_ISLNK(m)    ? "a symbolic link"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

/*
 * Entries of a process directory that are not regular files: the reader
 * skips them (it never follows a link or opens a FIFO), so the trace is not
 * what it looks like. Hidden entries (.<stream>.ring) are the recorder's.
 */
static void check_entries(const char *trace, const struct ht_trace_process *p,
			  unsigned int *problems)
{
	DIR *d = ht_dir_dup(p->fd);
	struct dirent *de;

	if (!d) {
		(*problems)++;
		ht_error("%s/%s: cannot list the directory: %s", trace, p->name, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(p->fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || S_ISREG(st.st_mode))
			continue;
		(*problems)++;
		ht_error("%s/%s/%s: %s, not a stream file: readers skip it; remove it, or put the "
			 "file it stands for in its place",
			 trace, p->name, ht_term_tmp(de->d_name), file_type(st.st_mode));
	}
	closedir(d);
}

static unsigned int check_trace(const char *dir, const struct ht_trace *t, uint64_t *streams,
				uint64_t *unresolved)
{
	unsigned int problems = 0;

	for (unsigned int i = 0; i < t->nprocs; i++) {
		const struct ht_trace_process *p = &t->procs[i];
		struct ht_read_error err = {0};
		uint32_t max_string;
		int lossy;

		if (defined_strings(p, &max_string, &lossy, &err) < 0) {
			problems++;
			ht_read_error_print(dir, &err);
			max_string = UINT32_MAX;
		}
		check_entries(dir, p, &problems);
		for (unsigned int j = 0; j < p->nstreams; j++) {
			check_stream(dir, p, p->streams[j].name, max_string, lossy, &problems,
				     unresolved);
			(*streams)++;
		}
	}
	return problems;
}

int ht_cmd_check(int argc, char **argv)
{
	const char *dir = NULL;
	int repair = 0, rc;
	struct ht_trace *t;
	struct ht_read_error err = {0};
	uint64_t streams = 0, unresolved = 0;
	unsigned int problems;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repair"))
			repair = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("usage: hetrace check [--repair] DIR");
			return 0;
		} else if (argv[i][0] == '-')
			return ht_usage_error("check", "unknown option '%s'", argv[i]);
		else if (dir)
			return ht_usage_error("check", "expected one trace directory");
		else
			dir = argv[i];
	}
	if (!dir)
		return ht_usage_error("check", "no trace directory given");
	rc = ht_trace_open(&t, dir, &err);
	if (rc)
		return ht_error("cannot open trace '%s': %s%s%s", dir,
				strcmp(err.file, dir) ? err.file : "",
				strcmp(err.file, dir) ? ": " : "", err.msg);
	for (unsigned int i = 0; repair && i < t->nprocs; i++) {
		char what[512];

		/* Its packets in progress are not torn, and its rings are not ours to drain. */
		if (ht_salvage_live_writer(t->procs[i].fd, t->procs[i].name, what, sizeof what)) {
			ht_trace_close(t);
			return ht_error(
			    "cannot repair '%s': a process still writes into it ('%s' is "
			    "in use); run 'hetrace check --repair %s' again once it has "
			    "exited",
			    dir, what, dir);
		}
	}
	if (repair) {
		struct ht_finalize_stats st;
		char hz[32] = "";
		double rate = 0;

		if (!ht_trace_index_get(t, "tsc_hz", hz, sizeof hz))
			rate = strtod(hz, NULL);
		/* A damaged index: the rate is then fitted from the anchors alone. */
		rc =
		    ht_finalize_trace(t, rate >= 1e6 && rate <= 1e11 ? 1e9 / rate : 1.0, &st, &err);
		if (rc == 0) {
			/* The doorbell of a `hetrace record` that was killed. */
			char bell[4096];

			snprintf(bell, sizeof bell, "%s/%s", dir, HT_DOORBELL_FILE);
			unlink(bell);
		}
		if (rc)
			ht_read_error_print(dir, &err);
		if (!rc && st.packets_left_raw) {
			ht_read_error_print(dir, &st.left_raw);
			ht_error("%u packet(s) stay raw and unreadable", st.packets_left_raw);
		}
		printf("repair: %u torn packet(s) trimmed (%llu bytes), %u in-progress packet(s) "
		       "salvaged, %u packet(s) converted to ns\n",
		       st.streams_trimmed, (unsigned long long)st.bytes_trimmed,
		       st.packets_salvaged + st.packets_completed, st.packets_converted);
		if (st.events_lost)
			printf("repair: %llu event(s) in packets that could not be appended (no "
			       "room) counted as discarded\n",
			       (unsigned long long)st.events_lost);
	}
	problems = check_trace(dir, t, &streams, &unresolved);
	ht_trace_close(t);
	if (problems)
		return ht_error("check: %u problem(s) in '%s'", problems, dir);
	printf("check: '%s' is valid (%llu streams)\n", dir, (unsigned long long)streams);
	if (unresolved)
		printf("check: %llu event(s) refer to strings whose definitions were lost with "
		       "events the process stream discarded (counted)\n",
		       (unsigned long long)unresolved);
	return 0;
}
