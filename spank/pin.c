/*
 * spank/pin.c - a call to slurmctld that the caller waits for only so
 * long, and the pin that keeps lagom.so mapped for the thread left running.
 *
 * Used by srun's step query (step_query.c) and node 0's job comment
 * (comment.c): a stalled slurmctld must not hold a launch or a step's end,
 * and a thread still waiting when Slurm dlclose()s the plugin must never
 * run unmapped code.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "spank/lagom.h"

/* Keep lagom.so mapped after Slurm's dlclose() (RTLD_NODELETE); true also
 * when the code is part of the program itself (a test), false when it
 * cannot be pinned. */
static bool pin_module(void)
{
	struct link_map *self = NULL, *prog_map = NULL;
	void *prog = dlopen(NULL, RTLD_LAZY);
	Dl_info info;

	if (!dladdr1((void *)&pin_module, &info, (void **)&self,
		     RTLD_DL_LINKMAP) ||
	    !self)
		return false;
	/* part of the program itself (a test): never unloaded */
	if (prog && dlinfo(prog, RTLD_DI_LINKMAP, &prog_map) == 0 &&
	    prog_map == self)
		return true;
	return info.dli_fname &&
	       dlopen(info.dli_fname,
		      RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
}

/*
 * The thread is joinable: a caller that saw it finish joins it, so no
 * instruction of lagom.so runs after lagom_bounded_wait() returns 0 (Slurm
 * may dlclose() the plugin right after; a detached thread still returning
 * from bounded_thread() then jumps into unmapped memory: slurmstepd died so,
 * about once in 70 steps on 26.05, and the step hung).  Only a thread the
 * caller gives up on is detached, and lagom.so is pinned first.
 */
struct lagom_bounded {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool done, abandoned; /* under mu */
	void (*run)(void *);
	void (*release)(void *);
	void *arg;
};

static void bounded_free(struct lagom_bounded *b)
{
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

static void *bounded_thread(void *p)
{
	struct lagom_bounded *b = p;
	bool abandoned;

	b->run(b->arg);
	pthread_mutex_lock(&b->mu);
	b->done = true;
	abandoned = b->abandoned;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	if (abandoned) {
		b->release(b->arg);
		bounded_free(b);
	}
	return NULL;
}

struct lagom_bounded *lagom_bounded_start(void (*run)(void *),
					  void (*release)(void *), void *arg)
{
	struct lagom_bounded *b = calloc(1, sizeof(*b));
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	if (!b)
		return NULL;
	b->run = run;
	b->release = release;
	b->arg = arg;
	pthread_mutex_init(&b->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* the thread takes no signal meant for srun or slurmstepd */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&b->thread, NULL, bounded_thread, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		bounded_free(b);
		return NULL;
	}
	return b;
}

int lagom_bounded_wait(struct lagom_bounded *b, unsigned timeout_ms)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&b->mu);
	while (!b->done &&
	       pthread_cond_timedwait(&b->cv, &b->mu, &deadline) != ETIMEDOUT)
		;
	if (!b->done && pin_module()) {
		/* the thread finishes, then releases arg and frees b: b is
		 * not touched after the unlock */
		pthread_t thread = b->thread;

		b->abandoned = true;
		pthread_mutex_unlock(&b->mu);
		pthread_detach(thread);
		return -ETIMEDOUT;
	}
	while (!b->done) /* cannot leave it running: wait */
		pthread_cond_wait(&b->cv, &b->mu);
	pthread_mutex_unlock(&b->mu);
	/* done is set before the thread unlocks and returns: join it, so
	 * that it has left lagom.so's code (and b's mutex) for good */
	pthread_join(b->thread, NULL);
	bounded_free(b);
	return 0;
}
