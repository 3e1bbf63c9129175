/*
 * plugstack/measure.h - the plugstack.conf arguments of the measurement loop
 * (doc/profiler.md, lagom-spank(8)).  Pure, like plugstack/plugstack.h
 * (no I/O, no environment, no allocation); lagom_config_parse() hands it
 * these keys:
 *
 *	measure_dir=DIR           spool for measurement records; unset: no
 *	                          measurement  [unset]
 *	measure=on|off            off: never measure, even with measure_dir
 *	                          [on]
 *	measure_max_steps=N       step directories a user may have per node
 *	                          before new steps go unmeasured  [64]
 *	measure_max_mb=N          MiB a user's spool may hold per node  [256]
 *	profiler=PATH             NCCL profiler plugin set as
 *	                          NCCL_PROFILER_PLUGIN
 *	                          [LAGOM_CONFIG_DEFAULT_PROFILER]
 *	control=SHARE             the share of measured steps, 0 to 1, that
 *	                          run as controls: NCCL's defaults, measured
 *	                          (doc/report.md)  [LAGOM_CONTROL_DEFAULT]
 *	control_optout=yes|no     whether a user may ask not to be a control
 *	                          (--lagom=auto,nocontrol)  [yes]
 */
#ifndef LAGOM_PLUGSTACK_MEASURE_H
#define LAGOM_PLUGSTACK_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#ifndef LAGOM_CONFIG_DEFAULT_PROFILER
#define LAGOM_CONFIG_DEFAULT_PROFILER "libnccl-profiler-lagom.so"
#endif
#define LAGOM_MEASURE_PATH_MAX 1024
/* One step in twenty: a class that runs daily gets its ten controls in
 * about 200 runs, at a cost of a twentieth of the predicted gain. */
#define LAGOM_CONTROL_DEFAULT 0.05

struct lagom_measure_config {
	bool on;			  /* measure= (and measure_dir given) */
	char dir[LAGOM_MEASURE_PATH_MAX]; /* "" = not given */
	unsigned max_steps;
	unsigned max_mb;
	char profiler[LAGOM_MEASURE_PATH_MAX];
	double control_share; /* control=, in [0, 1] */
	bool control_optout;  /* control_optout= */
};

void lagom_measure_config_defaults(struct lagom_measure_config *m);

/* True when key (keylen bytes) is one of the arguments above. */
bool lagom_measure_config_key(const char *key, size_t keylen);

/* Parse one of them; 0, or -EINVAL / -ERANGE with err naming it. */
int lagom_measure_config_parse(struct lagom_measure_config *m, const char *key,
			       size_t keylen, const char *value,
			       struct lagom_error *err);

#endif /* LAGOM_PLUGSTACK_MEASURE_H */
