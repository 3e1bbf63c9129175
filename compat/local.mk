# compat: what changed in Slurm's C API between releases, in one header
# (compat/slurm_compat.h, header only; see its comment).
noinst_HEADERS += compat/slurm_compat.h
