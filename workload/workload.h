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

#include "common/error.h"
#include "model/model.h"

/* The newest format version this reader accepts ("lagom_workload": 1 or
 * 2; version 2 adds what `lagom workload import` writes). */
#define LAGOM_WORKLOAD_FORMAT_VERSION 2

int lagom_workload_read_file(const char *path, struct lagom_workload **out,
			     struct lagom_error *err);

/* text: a NUL-terminated JSON document (borrowed). */
int lagom_workload_read_string(const char *text, struct lagom_workload **out,
			       struct lagom_error *err);

#endif /* LAGOM_WORKLOAD_WORKLOAD_H */
