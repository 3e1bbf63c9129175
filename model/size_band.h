/*
 * model/size_band.h - the message-size bands the calibration judges the
 * model by (doc/model.md 2.7, doc/calibration-format.md): the fit's
 * leave-one-class-out rule (netsite.c) and `lagom calibrate --check`
 * report per band.  One table, so the two always mean the same sizes.
 * Pure: no I/O.  Linking: libmodel.la.
 */
#ifndef LAGOM_MODEL_SIZE_BAND_H
#define LAGOM_MODEL_SIZE_BAND_H

#include <stdint.h>

/* < 1 MiB (latency-bound), 1-64 MiB, >= 64 MiB (bandwidth-bound). */
#define LAGOM_SIZE_BANDS 3

/* The band of a message of bytes (the plan's byte count): 0, 1 or 2. */
int lagom_size_band(uint64_t bytes);
/* "< 1 MiB", "1-64 MiB", ">= 64 MiB"; NULL out of range. */
const char *lagom_size_band_name(int band);

#endif /* LAGOM_MODEL_SIZE_BAND_H */
