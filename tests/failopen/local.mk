# tests/failopen: the fail-open contract under hostile input (issue 19).
#  cli-overflow.sh    a workload whose times overflow is one input error
#  prolog-bounds.sh   lagom-prolog --node and --plugstack are bounded
#  profile-trust.sh   every ancestor of the profile directory is checked
#  fail_open.sh       a real cluster: optional plugstack lines, the job
#                     comment as an unprivileged user and with slurmctld
#                     stopped, the user's own comment text, forged log
#                     lines, profile_dir ancestors, --chdir
SCRIPT_TESTS += tests/failopen/cli-overflow.sh tests/failopen/prolog-bounds.sh \
	tests/failopen/profile-trust.sh
INTEGRATION_TESTS += tests/failopen/fail_open.sh
EXTRA_DIST += tests/failopen/cli-overflow.sh tests/failopen/prolog-bounds.sh \
	tests/failopen/profile-trust.sh \
	tests/failopen/fail_open.sh
