# bench: see the module's header for what it owns.

# The GPU check kit: bench/gpu_pack.sh gathers a built tree's programs,
# plugins and libraries for one run of bench/gpu_check.sh on a GPU machine
# (bench/nccl_pair.c and bench/nccl_contention.c, with what they share in
# bench/gpu_common.h and the latter's kernels in bench/gpu_kernels.h, are
# compiled by the pack against the CUDA toolkit);
# tests/gpu/kit.sh checks all of it that runs without a GPU.
SCRIPT_TESTS += tests/gpu/kit.sh
EXTRA_DIST += bench/gpu_pack.sh bench/gpu_check.sh bench/nccl_pair.c \
	bench/nccl_contention.c bench/gpu_common.h bench/gpu_kernels.h \
	tests/gpu/kit.sh doc/gpu-check.md

# What the kit's first run on a GPU (an H200, 2026-11-26) measured, kept as
# fixtures (tests/gpu/h200-2026-11-26/README.md); tests/gpu/measured.sh
# checks them and what lagom makes of them; tests/gpu/contention_model puts
# the measured contention curve beside the model's (doc/model.md 4.2).
SCRIPT_TESTS += tests/gpu/measured.sh
check_PROGRAMS += tests/gpu/contention_model
tests_gpu_contention_model_SOURCES = tests/gpu/contention_model.c
tests_gpu_contention_model_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_gpu_contention_model_LDADD = $(PROFILE_TEST_LIBS)
EXTRA_DIST += tests/gpu/measured.sh tests/gpu/h200-2026-11-26
