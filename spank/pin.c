/*
 * spank/pin.c - keep lagom.so mapped for a thread left running.
 *
 * A thread still waiting on slurmctld when Slurm dlclose()s the plugin
 * (srun's step query, node 0's job comment) must never run unmapped code.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>

#include "spank/lagom.h"

bool lagom_pin_module(void)
{
	struct link_map *self = NULL, *prog_map = NULL;
	void *prog = dlopen(NULL, RTLD_LAZY);
	Dl_info info;

	if (!dladdr1((void *)&lagom_pin_module, &info, (void **)&self,
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
