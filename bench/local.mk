# bench: see the module's header for what it owns.

# The GPU check kit: bench/gpu_pack.sh gathers a built tree's programs,
# plugins and libraries for one run of bench/gpu_check.sh on a GPU machine
# (bench/nccl_pair.c is compiled by the pack against the CUDA toolkit);
# tests/gpu/kit.sh checks all of it that runs without a GPU.
SCRIPT_TESTS += tests/gpu/kit.sh
EXTRA_DIST += bench/gpu_pack.sh bench/gpu_check.sh bench/nccl_pair.c \
	tests/gpu/kit.sh doc/gpu-check.md
