/*
 * tests/fuzz/fuzz_record.c - libFuzzer target for the two readers of files
 * in a user's measurement spool: the record (measurement/record_parse.c) and a
 * step's predictions (measurement/predicted.c).  No crash, no sanitizer
 * report, and whatever either accepts its writer writes back byte for byte.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/predicted.h"
#include "measurement/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct lagom_rec rec, scratch;
static struct lagom_predicted pred;
static char again[LAGOM_REC_MAX_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lagom_error err;
	int n;

	if (lagom_predicted_parse((const char *)data, size, &pred, &err) == 0) {
		n = lagom_predicted_format(&pred, again, sizeof(again));
		if (n < 0 || (size_t)n != size || memcmp(again, data, size))
			abort();
	}
	if (lagom_rec_parse((const char *)data, size, &rec, &scratch, &err) !=
	    0)
		return 0;
	n = lagom_rec_format(&rec, again, sizeof(again));
	if (n < 0 || (size_t)n != size || memcmp(again, data, size) != 0)
		abort(); /* accepted text the writer would spell otherwise */
	return 0;
}
