/*
 * trace/emit.h - JSON of an import (jansson): the workload document
 * (`lagom_workload` 2, doc/workload-format.md) and the contention table
 * (`lagom_contention` 1, doc/workload-import.md).  Both return a new
 * reference (caller decrefs) or NULL on allocation failure.
 */
#ifndef LAGOM_TRACE_EMIT_H
#define LAGOM_TRACE_EMIT_H

#include <jansson.h>

#include "trace/trace.h"

json_t *lagom_trace_workload_json(const struct lagom_trace_import *imp);
json_t *lagom_trace_contention_json(const struct lagom_trace_import *imp);

#endif /* LAGOM_TRACE_EMIT_H */
