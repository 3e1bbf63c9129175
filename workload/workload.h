/*
 * workload/workload.h - read a workload from the versioned JSON format of
 * doc/workload-format.md into a struct lagom_workload (model/model.h).
 *
 * This is an adapter outside the pure core: it uses jansson and reads
 * files.  The result is owned by the caller and freed with
 * lagom_workload_destroy().  On failure nothing is stored in *out, the
 * function returns -EINVAL (malformed or invalid document, with the JSON
 * path of the offending value in err), -ENOENT/-EACCES/... (file cannot be
 * read) or -ENOMEM.
 */
#ifndef LAGOM_WORKLOAD_WORKLOAD_H
#define LAGOM_WORKLOAD_WORKLOAD_H

#include <stdbool.h>

#include "common/error.h"
#include "model/model.h"

/* The newest format version this reader accepts ("lagom_workload": 1 or
 * 2; version 2 adds what `lagom workload import` writes). */
#define LAGOM_WORKLOAD_FORMAT_VERSION 2

/*
 * The one rule, for the plugin's --lagom-workload and the CLI's --workload
 * alike, for "this value names a file": it contains a '/' or ends in
 * ".json".  Anything else is a catalog name (model/catalog), whatever
 * files exist.  The rule looks at the text only, so it gives the same
 * answer on the submit host and on every node.
 */
bool lagom_workload_is_file(const char *arg);

/* Largest workload file either reader accepts, bytes. */
#define LAGOM_WORKLOAD_FILE_MAX (1024 * 1024)

/*
 * Read the workload file path (relative paths against cwd when cwd is
 * non-empty, else against the process's directory) with the caller's
 * privileges: a regular file of at most LAGOM_WORKLOAD_FILE_MAX bytes,
 * opened without blocking on a FIFO.  Errors name the path:
 * -ENOENT/-EACCES/... (open), -EINVAL (not a regular file, too large, or
 * an invalid document), -ENOMEM.
 */
int lagom_workload_read_path(const char *path, const char *cwd,
			     struct lagom_workload **out,
			     struct lagom_error *err);

/* lagom_workload_read_path(path, NULL, out, err). */
int lagom_workload_read_file(const char *path, struct lagom_workload **out,
			     struct lagom_error *err);

/* text: a NUL-terminated JSON document (borrowed). */
int lagom_workload_read_string(const char *text, struct lagom_workload **out,
			       struct lagom_error *err);

#endif /* LAGOM_WORKLOAD_WORKLOAD_H */
