/*
 * bench/spank_null.c - a SPANK plugin that does nothing: the floor of what
 * any plugin in plugstack.conf costs a launch (Slurm loads the stack, reads
 * plugstack.conf, dlopen()s the plugin in srun and in every slurmstepd).
 * bench/bench_launch.sh compares lagom loaded-but-off against it.
 */
#include <slurm/spank.h>

SPANK_PLUGIN(null, 1)

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	return 0;
}
