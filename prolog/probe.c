/*
 * prolog/probe.c - runs the GPU probes in a child process under a wall-clock
 * budget.  The child sends its struct probe_result back whole through a
 * pipe; when it is late the parent kills it and goes on without
 * measurements, so a hung driver call can never hold up the job's prolog.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "prolog/prolog.h"

double prolog_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void probe_note(struct probe_result *res, const char *fmt, ...)
{
	size_t used = strlen(res->note);
	va_list ap;

	if (used + 3 >= sizeof(res->note))
		return;
	if (used > 0) {
		memcpy(res->note + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(res->note + used, sizeof(res->note) - used, fmt, ap);
	va_end(ap);
}

static void probe_child(const struct probe_opts *o, struct probe_result *r)
{
	double deadline = prolog_now() + o->budget_s * 0.85;

	/* NCCL first: its chunk-size sweep forks, which must happen before
	 * this process touches CUDA. */
	probe_nccl(r, o->gpus_per_node_hint, deadline, o->verbose);
	if (probe_cuda(r, deadline, o->verbose) == 0 && r->gpus_seen > 0)
		probe_contention(r, deadline, o->verbose);
}

/* Read exactly len bytes before the deadline; 0, or -1 when short/late. */
static int read_before(int fd, void *buf, size_t len, double deadline)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		double left = deadline - prolog_now();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n = read(fd, p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static void run_in_child(const struct probe_opts *o, int fd)
{
	struct probe_result *r = calloc(1, sizeof(*r));

	if (r == NULL)
		_exit(1);
	r->gpus_seen = -1;
	probe_child(o, r);
	_exit(lagom_write_all(fd, r, sizeof(*r)) == 0 ? 0 : 1);
}

void probe_run(const struct probe_opts *o, struct probe_result *res)
{
	double deadline = prolog_now() + o->budget_s;
	int fds[2];
	pid_t pid;

	memset(res, 0, sizeof(*res));
	res->gpus_seen = -1;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		probe_note(res, "probes not run: pipe: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		probe_note(res, "probes not run: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		run_in_child(o, fds[1]);
	}
	close(fds[1]);
	if (read_before(fds[0], res, sizeof(*res), deadline) < 0) {
		memset(res, 0, sizeof(*res));
		res->gpus_seen = -1;
		probe_note(res, "probes gave no result within %.1f s: stopped",
			   o->budget_s);
		kill(pid, SIGKILL);
	}
	res->note[sizeof(res->note) - 1] = '\0';
	res->nccl_version[sizeof(res->nccl_version) - 1] = '\0';
	res->cuda_runtime_version[sizeof(res->cuda_runtime_version) - 1] = '\0';
	res->cuda_driver_version[sizeof(res->cuda_driver_version) - 1] = '\0';
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* dlopen the first of names that loads, then resolve every symbol. */
void *probe_dlopen(const char *const *names, const struct probe_sym *syms,
		   struct probe_result *res)
{
	void *h = NULL;
	const char *name = NULL;

	for (; *names != NULL && h == NULL; names++)
		h = dlopen(name = *names, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		probe_note(res, "%s not loadable", name ? name : "library");
		return NULL;
	}
	for (; syms->name != NULL; syms++) {
		*syms->addr = dlsym(h, syms->name);
		if (*syms->addr == NULL) {
			probe_note(res, "%s has no %s", name, syms->name);
			dlclose(h);
			return NULL;
		}
	}
	return h;
}
